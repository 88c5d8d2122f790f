"""Deterministic generator for the cases added after 01-06 and large-1/large-2.

Writes cases/07..10 and cases/large-3, large-4, large-5 (inputs) and computes the
outputs with solutions/reference.py. The older cases are not touched.
"""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, n_weights):
    text = f"{len(n_weights)}\n{' '.join(map(str, n_weights))}\n"
    with open(os.path.join(HERE, "cases", name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, os.path.join(HERE, "solutions", "reference.py")],
                         input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(HERE, "cases", name + ".out"), "wb") as f:
        f.write(out)


def main():
    rng = random.Random(20240607)
    # 07: two bags, extremes of the weight range.
    write("07", [1, 10000])
    # 08: many equal weights from a tiny range (equal is never heavier).
    write("08", [rng.randint(1, 3) for _ in range(40)])
    # 09: mountain then valley: rise, fall, rise to a new peak at the end.
    write("09", [1, 3, 5, 7, 9, 8, 6, 4, 2, 2, 4, 6, 8, 10, 10])
    # 10: medium random over the full range.
    write("10", [rng.randint(1, 10000) for _ in range(1000)])
    # large-3: every bag equal, so every answer is 0 and a forward scan
    # from each bag walks to the end of the belt.
    write("large-3", [7777] * 50000)
    # large-4: long non-increasing runs ("sawtooth") that each end in a
    # higher peak, with the global maximum last.
    w = []
    peak = 5000
    while len(w) < 49999:
        run = rng.randint(200, 3000)
        top = peak
        for _ in range(min(run, 49999 - len(w))):
            w.append(max(1, top))
            top -= rng.randint(0, 2)
        peak = min(9999, peak + rng.randint(0, 3))
    w.append(10000)
    write("large-4", w)
    # large-5: 300000 bags that get slowly lighter along the belt (plateaus of
    # equal weight, with a slightly lighter bag here and there): only the
    # lighter bags ever see a heavier one, so a forward scan from each of the
    # other bags walks the whole rest of the belt.
    n = 300000
    w = []
    for i in range(n):
        top = 10000 - i * 9990 // n
        w.append(top - rng.randint(1, 3) if rng.random() < 0.2 else top)
    write("large-5", w)


if __name__ == "__main__":
    main()
