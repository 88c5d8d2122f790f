"""Deterministic generator for the cases added after 01-08 and large-1/large-2.

Writes cases/09, 10 and cases/large-3 and computes the outputs with
solutions/reference.py. The older cases are not touched.
"""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, k, gap, bookings):
    text = f"{len(bookings)} {k} {gap}\n" + "".join(f"{s} {e} {f}\n" for s, e, f in bookings)
    with open(os.path.join(HERE, "cases", name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, os.path.join(HERE, "solutions", "reference.py")],
                         input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(HERE, "cases", name + ".out"), "wb") as f:
        f.write(out)


def main():
    rng = random.Random(2718)
    # 09: K = 1 with the whole season in one booking vs. many small ones;
    # fees at the top of the range.
    write("09", 1, 0, [(0, 1000000, 1000000), (0, 1, 999999), (5, 6, 1000000), (999999, 1000000, 1000000)])
    # 10: the changeover gap exactly equals the pause between bookings
    # (allowed) or is one more (not allowed).
    write("10", 5, 3, [(0, 2, 10), (5, 7, 10), (11, 12, 10), (14, 20, 10), (20, 21, 100), (24, 30, 1)])
    # large-3: n = 20000, K = 50, g = 0, bookings on a grid of 10-unit slots
    # so that many bookings touch end-to-start; fees over the full range.
    bookings = []
    for _ in range(20000):
        slot = rng.randint(0, 99990)
        length = rng.randint(1, 400)
        s = slot * 10
        e = min(1000000, s + length * 10)
        bookings.append((s, e, rng.randint(1, 1000000)))
    write("large-3", 50, 0, bookings)


if __name__ == "__main__":
    main()
