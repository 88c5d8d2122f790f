#!/usr/bin/env python3
"""Deterministic generator for spice-shelf-blends. Outputs come from solutions/reference.py."""
import os
import random
import string
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LOW = string.ascii_lowercase


def write(name, k, s):
    text = "%d %d\n%s\n" % (len(s), k, s)
    os.makedirs(os.path.join(HERE, "cases"), exist_ok=True)
    with open(os.path.join(HERE, "cases", name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, os.path.join(HERE, "solutions", "reference.py")],
                         input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(HERE, "cases", name + ".out"), "wb") as f:
        f.write(out)


def rand(rng, n, letters=LOW):
    return "".join(rng.choice(letters) for _ in range(n))


def periodic(rng, n, period, p_mut):
    base = rand(rng, period)
    s = [base[i % period] for i in range(n)]
    for i in range(n):
        if rng.random() < p_mut:
            s[i] = rng.choice(LOW)
    return "".join(s)


def main():
    rng = random.Random(5150)
    write("01", 1, "z")                                  # smallest shelf
    write("02", 30, rand(rng, 30))                       # k = n: one blend
    write("03", 1, rand(rng, 100, "aeiouxyz"))           # k = 1: distinct spices
    write("04", 17, "q" * 1000)                          # one spice only
    write("05", 7, rand(rng, 50, "ab"))
    write("06", 40, rand(rng, 2000, "abc"))
    write("07", 5, rand(rng, 3000))
    write("08", 6, "abc" * 200)                          # window a multiple of the period
    write("09", 4, "abc" * 200)                          # three rotating blends
    half = rand(rng, 400, "abcdef")
    write("10", 90, half + half[::-1])                   # mirrored shelf
    write("11", 2500, rand(rng, 5000, "abcd"))
    write("12", 499999, "z" * 499999 + "y")              # largest count of one spice
    write("13", 3, "".join(LOW[i % 26] for i in range(2600)))
    # large cases: long windows, so recounting every window from scratch is O(n * k)
    write("large-1", 250000, rand(rng, 500000, "ab"))
    write("large-2", 2000, rand(rng, 500000))
    write("large-3", 100000, periodic(rng, 500000, 37, 0.001))
    write("large-4", 499000, rand(rng, 500000, "spice"))


if __name__ == "__main__":
    main()
