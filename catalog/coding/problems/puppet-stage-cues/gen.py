#!/usr/bin/env python3
"""Deterministic generator for puppet-stage-cues. Outputs come from solutions/reference.py."""
import os
import random
import string
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
UP = string.ascii_uppercase


def write(name, s):
    text = "%d\n%s\n" % (len(s), s)
    os.makedirs(os.path.join(HERE, "cases"), exist_ok=True)
    with open(os.path.join(HERE, "cases", name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, os.path.join(HERE, "solutions", "reference.py")],
                         input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(HERE, "cases", name + ".out"), "wb") as f:
        f.write(out)


def valid_sheet(rng, pairs, p_push, letters=UP):
    """A random properly nested sheet with exactly `pairs` lowers and lifts."""
    out, rail, left = [], [], pairs
    while left or rail:
        if left and (not rail or rng.random() < p_push):
            c = rng.choice(letters)
            rail.append(c)
            out.append(c)
            left -= 1
        else:
            out.append(rail.pop().lower())
    return "".join(out)


def deep(rng, k, letters=UP):
    ups = [rng.choice(letters) for _ in range(k)]
    return "".join(ups) + "".join(c.lower() for c in reversed(ups))


def main():
    rng = random.Random(20240611)
    write("01", "Q")                      # single lower, never lifted
    write("02", "z")                      # lift from an empty rail
    write("03", "Mm")
    write("04", "A" * 10 + "a" * 10)     # one kind, deep nesting
    s = valid_sheet(rng, 30, 0.55)
    write("05", s[:-1] + ("b" if s[-1] != "b" else "c"))  # wrong kind at the very last cue
    write("06", "AaBbCc" + "d" + "Dd")   # lift while the rail is empty, mid sheet
    write("07", valid_sheet(rng, 500, 0.5))
    write("08", valid_sheet(rng, 400, 0.5)[:600] + "".join(rng.choice(UP) for _ in range(50)))
    s = list(valid_sheet(rng, 700, 0.6))
    pos = [i for i, c in enumerate(s) if c.islower()][500]
    s[pos] = "x" if s[pos] != "x" else "y"
    write("09", "".join(s))
    write("10", "ABCa")                   # mismatch is reported even though puppets remain
    write("11", "Zz" * 200 + "Y" * 300 + "y" * 299)  # one puppet left
    write("12", valid_sheet(rng, 2000, 0.5, "AB"))
    down = UP + UP.lower()[::-1]
    write("13", down[:30] + down[31] + down[30] + down[32:])  # two lifts swapped
    # large cases: very deep nesting, so walking back from each lift is quadratic
    write("large-1", deep(rng, 250000))
    s = deep(rng, 240000)
    i = len(s) - 1000
    write("large-2", s[:i] + ("q" if s[i] != "q" else "r") + s[i + 1:])
    ups = [rng.choice(UP) for _ in range(300000)]
    write("large-3", "".join(ups) + "".join(c.lower() for c in reversed(ups))[:180000])


if __name__ == "__main__":
    main()
