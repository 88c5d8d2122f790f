"""Deterministic generator for the cases added after 01-08 and large-1.

Writes cases/09, 10 and cases/large-2, large-3 and computes the outputs with
solutions/reference.py. The older cases are not touched.
"""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def fmt(hundredths):
    """Write a reading the way a thermometer log would: 23, -4.5, 18.25."""
    sign = "-" if hundredths < 0 else ""
    whole, frac = divmod(abs(hundredths), 100)
    if frac == 0:
        return f"{sign}{whole}"
    if frac % 10 == 0:
        return f"{sign}{whole}.{frac // 10}"
    return f"{sign}{whole}.{frac:02d}"


def write(name, k, readings):
    text = f"{len(readings)} {k}\n{' '.join(fmt(r) for r in readings)}\n"
    with open(os.path.join(HERE, "cases", name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, os.path.join(HERE, "solutions", "reference.py")],
                         input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(HERE, "cases", name + ".out"), "wb") as f:
        f.write(out)


def main():
    rng = random.Random(4411)
    # 09: the median of three, with both extremes of the range trimmed and
    # values like -0.5 and 0.05 that need careful parsing.
    write("09", 2, [8000, -5000, -50, 5, -4999])
    # 10: every reading is the coldest allowed value; k at its maximum.
    write("10", 6, [-5000] * 13)
    # large-2: n = 100000, k = 0 (plain mean), one decimal, full range.
    write("large-2", 0, [rng.randint(-500, 800) * 10 for _ in range(100000)])
    # large-3: n = 99999, k = 49999 (only the median survives); many
    # duplicates around zero.
    write("large-3", 49999, [rng.randint(-999, 999) for _ in range(99999)])


if __name__ == "__main__":
    main()
