#!/usr/bin/env python3
"""Deterministic generator for cellar-humidity-swings. Outputs come from solutions/reference.py."""
import math
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, low, high, a):
    text = "%d %d %d\n%s\n" % (len(a), low, high, " ".join(map(str, a)))
    os.makedirs(os.path.join(HERE, "cases"), exist_ok=True)
    with open(os.path.join(HERE, "cases", name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, os.path.join(HERE, "solutions", "reference.py")],
                         input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(HERE, "cases", name + ".out"), "wb") as f:
        f.write(out)


def walk(rng, n, start=50, steps=(-1, 0, 1)):
    """Random walk reflected into [0, 100]."""
    v, out = start, []
    for _ in range(n):
        v += rng.choice(steps)
        if v < 0:
            v = -v
        if v > 100:
            v = 200 - v
        out.append(v)
    return out


def main():
    rng = random.Random(60606)
    write("01", 0, 0, [42])                              # one reading, swing 0 counts
    write("02", 1, 100, [42])                            # one reading, swing 0 is too small
    write("03", 0, 0, [7, 7, 7, 3, 3, 7, 7, 7, 7])       # only runs of equal readings
    write("04", 100, 100, [0, 100, 0, 50, 100, 100])     # the extreme swing only
    write("05", 0, 100, [rng.randint(0, 100) for _ in range(500)])  # every stretch counts
    write("06", 5, 5, [rng.randint(40, 50) for _ in range(300)])    # L = R
    write("07", 3, 8, [rng.randint(0, 12) for _ in range(1000)])
    write("08", 20, 40, walk(rng, 3000, steps=(-3, -2, -1, 0, 1, 2, 3)))
    write("09", 1, 99, [0, 100] * 1500)
    write("10", 0, 30, list(range(101)) + list(range(100, -1, -1)) * 5)
    write("11", 50, 100, [0] * 2000 + [100] + [0] * 2000)
    # performance of the reference on noisy data (stretches are short here)
    write("12", 30, 70, [rng.randint(0, 100) for _ in range(200000)])
    # large cases: calm data with long stretches, so extending every start is quadratic
    write("large-1", 10, 60, walk(rng, 200000))
    write("large-2", 0, 100, [55] * 100000 + [rng.choice((54, 55, 56)) for _ in range(100000)])
    wave = [min(100, max(0, int(50 + 40 * math.sin(i / 5000.0)) + rng.randint(0, 5)))
            for i in range(200000)]
    write("large-3", 20, 35, wave)
    write("large-4", 2, 30, walk(rng, 200000, start=0, steps=(-1, 0, 0, 0, 0, 0, 1)))
    # large-5: a calm log in a narrow band with one spike in the middle: no stretch on either side of the
    # spike swings past R, so extending every start to the right is about 10^10 steps, and no shortcut for
    # R = 100 or for a whole log within the band applies
    calm = [rng.randint(48, 52) for _ in range(200000)]
    calm[100000] = 90
    write("large-5", 2, 4, calm)


if __name__ == "__main__":
    main()
