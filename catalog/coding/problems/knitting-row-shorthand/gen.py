#!/usr/bin/env python3
"""Deterministic generator for knitting-row-shorthand. Outputs come from solutions/reference.py."""
import os
import random
import string
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LOW = string.ascii_lowercase


def write(name, rows):
    text = "%d\n%s\n" % (len(rows), "\n".join(rows))
    os.makedirs(os.path.join(HERE, "cases"), exist_ok=True)
    with open(os.path.join(HERE, "cases", name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, os.path.join(HERE, "solutions", "reference.py")],
                         input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(HERE, "cases", name + ".out"), "wb") as f:
        f.write(out)


def mixed_case(rng, s, p_upper=0.5):
    return "".join(c.upper() if rng.random() < p_upper else c for c in s)


def row_of_runs(rng, lengths, letters=LOW, p_upper=0.5):
    """Runs with the given lengths; neighbouring runs use different letters."""
    parts, prev = [], None
    for ln in lengths:
        c = rng.choice([x for x in letters if x != prev])
        prev = c
        parts.append(mixed_case(rng, c * ln, p_upper))
    return "".join(parts)


def main():
    rng = random.Random(9090)
    write("01", ["k"])                                      # one stitch
    write("02", ["Z"])                                      # one upper-case stitch
    write("03", ["aA", "Aa", "AA", "aa"])                   # case never splits a run
    write("04", ["abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ"])
    write("05", ["p" * 12 + "P" * 3 + "k"])                 # counts of two digits
    write("06", [row_of_runs(rng, [rng.randint(1, 4) for _ in range(30)], "kp") for _ in range(20)])
    write("07", [mixed_case(rng, "".join(rng.choice("kps") for _ in range(rng.randint(1, 80))))
                 for _ in range(200)])
    write("08", ["x" * 5000])                               # one long run, four-digit count
    write("09", ["Kp" * 5000, "kP" * 5000])                 # alternating, every run has length 1
    write("10", [row_of_runs(rng, [rng.randint(1, 300) for _ in range(100)]) for _ in range(10)])
    write("11", [rng.choice(LOW + LOW.upper()) for _ in range(100000)])  # many one-stitch rows
    # performance of the whole row scan: 500000 runs of length 1 (cheap for the naive too)
    write("12", [row_of_runs(rng, [1] * 500000, "kpKP")])
    # large cases: long runs, so re-measuring a run stitch by stitch is quadratic
    write("large-1", [row_of_runs(rng, [rng.randint(10000, 40000) for _ in range(22)])[:600000]])
    write("large-2", [row_of_runs(rng, [rng.randint(2000, 5000) for _ in range(3)]) for _ in range(50)])
    lens = []
    while sum(lens) < 495000:
        lens.append(rng.randint(4000, 8000) if rng.random() < 0.05 else rng.randint(1, 3))
    write("large-3", [row_of_runs(rng, lens[:k], p_upper=0.1) for k in [len(lens) // 2]] +
          [row_of_runs(rng, lens[len(lens) // 2:], p_upper=0.9)])
    write("large-4", [mixed_case(rng, "s" * 600000, 0.3)])   # one block of the maximum length


if __name__ == "__main__":
    main()
