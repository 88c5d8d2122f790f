"""Deterministic generator for flooded-causeway-groups: writes cases/ using solutions/reference.py."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REF = os.path.join(HERE, "solutions", "reference.py")


def write(name, n, causeways, levels):
    text = "%d %d %d\n" % (n, len(causeways), len(levels))
    text += "".join("%d %d %d\n" % c for c in causeways)
    text += " ".join(map(str, levels)) + "\n"
    with open(os.path.join(CASES, name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, REF], input=text.encode(),
                         capture_output=True, check=True).stdout
    with open(os.path.join(CASES, name + ".out"), "wb") as f:
        f.write(out)


def random_causeways(rng, n, m, hmax):
    res = []
    for _ in range(m):
        u, v = rng.sample(range(1, n + 1), 2)
        res.append((u, v, rng.randint(0, hmax)))
    return res


def main():
    os.makedirs(CASES, exist_ok=True)
    for f in os.listdir(CASES):
        os.remove(os.path.join(CASES, f))
    rng = random.Random(99173)

    write("01", 1, [], [0])
    write("02", 1, [], [1000000000, 0, 5])
    # Height 0 is never usable; the maximum height is usable below 10^9.
    write("03", 2, [(1, 2, 0)], [0, 1000000000])
    write("04", 3, [(1, 2, 1000000000), (2, 3, 1000000000)], [999999999, 1000000000, 0])
    # All causeways at the same height; forecasts right at and just below it.
    write("05", 6, [(1, 2, 50), (2, 3, 50), (4, 5, 50), (5, 6, 50), (3, 4, 50)], [50, 49, 50, 51, 0])
    write("06", 5, [], [3, 1])
    # Duplicates and repeated, unsorted forecasts.
    cw = random_causeways(rng, 10, 25, 10)
    write("07", 10, cw, [rng.randint(0, 11) for _ in range(20)])
    write("08", 1000, random_causeways(rng, 1000, 1500, 100), [rng.randint(0, 101) for _ in range(1000)])
    write("09", 2000, random_causeways(rng, 2000, 1500, 10 ** 9), [rng.randint(0, 10 ** 9) for _ in range(2000)])
    # A path whose heights rise along it; every distinct level is asked.
    n = 1000
    perm = rng.sample(range(1, n + 1), n)
    path = [(perm[i], perm[i + 1], 3 * i) for i in range(n - 1)]
    rng.shuffle(path)
    levels = list(range(0, 3 * n, 1))
    rng.shuffle(levels)
    write("10", n, path, levels)
    # Maximum n, no causeways.
    write("11", 100000, [], [7, 0, 1000000000, 7, 3])
    # A star around hamlet 1 with many equal heights.
    write("12", 500, [(1, v, rng.choice([10, 20, 30])) for v in range(2, 501)], [0, 9, 10, 19, 20, 29, 30, 31])
    # Large: random marsh, heights up to 10^6.
    write("large-1", 30000, random_causeways(rng, 30000, 25000, 10 ** 6),
          [rng.randint(0, 10 ** 6) for _ in range(25000)])
    # Large: a long random tree plus extra causeways, heights with many ties.
    n = 25000
    perm = rng.sample(range(1, n + 1), n)
    cw = [(perm[i], perm[rng.randrange(i)], rng.randint(0, 5000) * 200) for i in range(1, n)]
    cw += random_causeways(rng, n, 1, 10 ** 6)
    rng.shuffle(cw)
    write("large-2", n, cw, [max(0, rng.randint(0, 5000) * 200 + rng.choice([-1, 0, 0, 1])) for _ in range(25000)])


if __name__ == "__main__":
    main()
