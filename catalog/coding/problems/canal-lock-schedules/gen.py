"""Deterministic generator for canal-lock-schedules: writes cases/ using solutions/reference.py."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REF = os.path.join(HERE, "solutions", "reference.py")


def write(name, n, k, canals):
    text = "%d %d %d\n" % (n, len(canals), k) + "".join("%d %d %d %d\n" % c for c in canals)
    with open(os.path.join(CASES, name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, REF], input=text.encode(),
                         capture_output=True, check=True).stdout
    with open(os.path.join(CASES, name + ".out"), "wb") as f:
        f.write(out)


def pick_period(rng, pmax):
    r = rng.random()
    if r < 0.15:
        return 1
    if r < 0.5:
        return rng.randint(1, min(pmax, 20))
    return rng.randint(1, pmax)


def random_canals(rng, n, m, wmax, pmax, connected=True):
    canals = []
    if connected:
        perm = [1] + rng.sample(range(2, n + 1), n - 1)
        for i in range(1, n):
            j = rng.randrange(max(0, i - 50), i)
            canals.append((perm[i], perm[j]))
    while len(canals) < m:
        u, v = rng.sample(range(1, n + 1), 2)
        canals.append((u, v))
    out = []
    for u, v in canals[:m]:
        if rng.random() < 0.5:
            u, v = v, u
        out.append((u, v, rng.randint(1, wmax), pick_period(rng, pmax)))
    rng.shuffle(out)
    return out


def main():
    os.makedirs(CASES, exist_ok=True)
    for f in os.listdir(CASES):
        os.remove(os.path.join(CASES, f))
    rng = random.Random(4471)

    write("01", 1, 0, [])
    write("02", 1, 3, [])
    write("03", 2, 0, [(1, 2, 5, 1)])
    write("04", 2, 2, [])
    # Parallel canals between basins 2 and 3 with different schedules.
    write("05", 3, 0, [(1, 2, 1, 1), (2, 3, 4, 6), (3, 2, 8, 1), (2, 3, 2, 9)])
    # Every gate always open: passes are useless.
    write("06", 6, 3, [(1, 2, 4, 1), (2, 3, 1, 1), (3, 4, 7, 1), (1, 5, 20, 1), (5, 4, 1, 1), (4, 6, 2, 1)])
    # Chain with rarely-opening gates, maximum values, and two passes.
    chain = [(i, i + 1, rng.randint(1, 1000000), 1000000) for i in range(1, 7)]
    write("07", 7, 2, chain)
    write("08", 8, 2, random_canals(rng, 8, 12, 10, 10))
    write("09", 200, 1, random_canals(rng, 200, 400, 50, 50))
    write("10", 2000, 3, random_canals(rng, 2000, 3000, 1000, 1000))
    # Several separate groups of basins.
    canals = random_canals(rng, 300, 500, 100, 60, connected=False)
    write("11", 300, 2, canals)
    # Plain shortest paths: every gate always open, no passes.
    canals = [(u, v, w, 1) for u, v, w, _ in random_canals(rng, 5000, 5000, 1000000, 1)]
    write("12", 5000, 0, canals)
    # Large: random network, three passes.
    write("large-1", 20000, 3, random_canals(rng, 20000, 25000, 1000000, 1000000))
    # Large: a long main line where every gate opens only once per 10^6 minutes,
    # so arrival times exceed 2^31; a few random side canals.
    n = 20000
    perm = [1] + rng.sample(range(2, n + 1), n - 1)
    canals = [(perm[i], perm[i + 1], rng.randint(999000, 999999), 1000000) for i in range(n - 1)]
    for _ in range(25000 - (n - 1)):
        i = rng.randrange(n - 10)
        j = i + rng.randint(2, 10)
        canals.append((perm[j], perm[i], rng.randint(1, 1000000), rng.randint(1, 1000000)))
    rng.shuffle(canals)
    write("large-2", n, 2, canals)
    # Large: random network, no passes.
    write("large-3", 20000, 0, random_canals(rng, 20000, 25000, 1000000, 1000000))


if __name__ == "__main__":
    main()
