#!/usr/bin/env python3
"""Deterministic generator for ridge-beacon-pairs. Outputs come from solutions/reference.py."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, h):
    text = "%d\n%s\n" % (len(h), " ".join(map(str, h)))
    os.makedirs(os.path.join(HERE, "cases"), exist_ok=True)
    with open(os.path.join(HERE, "cases", name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, os.path.join(HERE, "solutions", "reference.py")],
                         input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(HERE, "cases", name + ".out"), "wb") as f:
        f.write(out)


def peaks_and_valleys(rng, n, gap, top, valley_lo=1, dup_range=None):
    """Descending peaks every `gap` hills; the hills between two peaks are lower
    than the later peak. Walking right from a peak is never blocked."""
    h = []
    peak = top
    while len(h) < n:
        h.append(peak)
        nxt = peak - rng.randint(1, 3)
        for _ in range(gap - 1):
            if dup_range:
                h.append(rng.randint(max(valley_lo, nxt - dup_range), nxt - 1))
            else:
                h.append(rng.randint(valley_lo, nxt - 1))
        peak = nxt
    return h[:n]


def main():
    rng = random.Random(777001)
    write("01", [5])                                   # single hill: no pairs
    write("02", [1000000000, 1000000000])              # two equal hills, adjacent
    write("03", [7, 7, 7, 7, 7, 7])                     # equal hills only see neighbours
    write("04", [1, 2, 3, 4, 5, 6, 7, 8])
    write("05", [9, 1, 9, 1, 9, 1, 9])
    write("06", [10, 3, 5, 3, 10, 2, 1000000000, 1, 1])
    write("07", [rng.randint(1, 5) for _ in range(40)])  # many ties
    write("08", [rng.randint(1, 1000000000) for _ in range(300)])
    write("09", [rng.randint(1, 3) for _ in range(2000)])
    write("10", [abs(i - 500) + 1 for i in range(1001)])  # a valley
    write("11", [1000000000 - abs(i - 400) for i in range(801)])  # a peak
    write("12", peaks_and_valleys(rng, 3000, 5, 1000000000, 999990000, dup_range=3))
    # large cases: long descending runs so walking right from a hill is rarely cut short
    write("large-1", list(range(100000, 0, -1)))
    write("large-2", peaks_and_valleys(rng, 100000, 4, 99999))
    up = sorted(rng.sample(range(1, 50000), 20000))
    write("large-3", up + peaks_and_valleys(rng, 80000, 3, 99999, 1, dup_range=4))
    # large-4: a valley between two long slopes (250000 hills): the western slope
    # falls and the eastern one rises, their heights interleaved, with a low hill
    # (one in five exactly as tall as a neighbour) after one in ten. From a hill
    # on either slope the view is cut short only on the other slope, so walking
    # east (or west) from every hill costs O(n).
    n, m = 250000, 225000
    slopes = []
    for _ in range(2):
        s, top = [], 1000000000
        for _ in range(m // 2):
            s.append(top)
            top -= rng.randint(1, 4000)
        slopes.append(s)
    spine = slopes[0] + slopes[1][::-1]
    low = min(spine)
    after = set(rng.sample(range(m - 1), n - m))
    h = []
    for i, x in enumerate(spine):
        h.append(x)
        if i in after:
            h.append(min(x, spine[i + 1]) if rng.random() < 0.2 else rng.randint(1, low - 1))
    write("large-4", h)


if __name__ == "__main__":
    main()
