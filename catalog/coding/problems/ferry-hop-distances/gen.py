"""Deterministic generator for ferry-hop-distances: writes cases/ using solutions/reference.py."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REF = os.path.join(HERE, "solutions", "reference.py")


def write(name, n, edges):
    text = "%d %d\n" % (n, len(edges)) + "".join("%d %d\n" % e for e in edges)
    with open(os.path.join(CASES, name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, REF], input=text.encode(),
                         capture_output=True, check=True).stdout
    with open(os.path.join(CASES, name + ".out"), "wb") as f:
        f.write(out)


def random_edges(rng, nodes, m):
    edges = []
    for _ in range(m):
        u, v = rng.sample(nodes, 2)
        edges.append((u, v))
    return edges


def random_connected(rng, n, extra):
    perm = list(range(1, n + 1))
    rng.shuffle(perm)
    edges = []
    for i in range(1, n):
        j = rng.randrange(i)
        e = (perm[i], perm[j])
        edges.append(e if rng.random() < 0.5 else e[::-1])
    nodes = list(range(1, n + 1))
    edges += random_edges(rng, nodes, extra)
    rng.shuffle(edges)
    return edges


def main():
    os.makedirs(CASES, exist_ok=True)
    for f in os.listdir(CASES):
        os.remove(os.path.join(CASES, f))
    rng = random.Random(20240611)

    write("01", 1, [])
    write("02", 2, [])
    write("03", 2, [(2, 1)])
    # Small graph with duplicate routes and a separate component.
    write("04", 7, [(1, 2), (2, 1), (1, 2), (3, 2), (4, 5), (5, 6), (6, 4), (3, 7), (7, 2)])
    # Star centred on island 1.
    write("05", 9, [(1, v) if v % 2 else (v, 1) for v in range(2, 10)])
    # A chain whose labels run backwards: 1 - n - (n-1) - ... - 2.
    n = 12
    chain = [1] + list(range(n, 1, -1))
    write("06", n, [(chain[i + 1], chain[i]) for i in range(n - 1)])
    # Complete graph on 8 islands.
    write("07", 8, [(u, v) for u in range(1, 9) for v in range(u + 1, 9)])
    write("08", 1000, random_connected(rng, 1000, 500))
    # Many small components: only some are connected to island 1.
    write("09", 2000, random_edges(rng, list(range(1, 2001)), 1100))
    # Island 1 is isolated while everything else is well connected.
    write("10", 500, random_edges(rng, list(range(2, 501)), 800))
    # Maximum n with no routes at all.
    write("11", 100000, [])
    # Many parallel routes on a small set of islands plus a long tail.
    edges = random_edges(rng, list(range(1, 31)), 15000)
    edges += [(v, v + 1) for v in range(30, 3000)]
    rng.shuffle(edges)
    write("12", 3000, edges)
    # Large: random connected graph.
    write("large-1", 50000, random_connected(rng, 50000, 5000))
    # Large: long chain with short chords, so distances run into the tens of thousands.
    n = 50000
    perm = [1] + rng.sample(range(2, n + 1), n - 1)
    edges = [(perm[i], perm[i + 1]) for i in range(n - 1)]
    for _ in range(5000):
        i = rng.randrange(n - 6)
        edges.append((perm[i + rng.randrange(2, 6)], perm[i]))
    rng.shuffle(edges)
    write("large-2", n, edges)


if __name__ == "__main__":
    main()
