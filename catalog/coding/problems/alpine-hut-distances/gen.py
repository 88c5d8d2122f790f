#!/usr/bin/env python3
"""Deterministic generator for alpine-hut-distances. Outputs come from solutions/reference.py."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, n, edges, queries):
    lines = ["%d %d" % (n, len(queries))]
    lines += ["%d %d %d" % e for e in edges]
    lines += ["%d %d" % qq for qq in queries]
    text = "\n".join(lines) + "\n"
    os.makedirs(os.path.join(HERE, "cases"), exist_ok=True)
    with open(os.path.join(HERE, "cases", name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, os.path.join(HERE, "solutions", "reference.py")],
                         input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(HERE, "cases", name + ".out"), "wb") as f:
        f.write(out)


def build(rng, n, pick, wmax=9, shuffle=True):
    """Tree on 0..n-1 with parent pick(i) < i, relabelled randomly to 1..n;
    the edge list is shuffled and each edge randomly oriented."""
    label = list(range(1, n + 1))
    if shuffle:
        rng.shuffle(label)
    edges = []
    for i in range(1, n):
        u, v = label[i], label[pick(i)]
        if rng.random() < 0.5:
            u, v = v, u
        edges.append((u, v, rng.randint(1, wmax)))
    if shuffle:
        rng.shuffle(edges)
    return edges, label


def build_rooted(rng, n, pick, wmax=9):
    """Like build, but construction node 0 always becomes hut 1."""
    label = list(range(2, n + 1))
    rng.shuffle(label)
    label = [1] + label
    edges = []
    for i in range(1, n):
        u, v = label[i], label[pick(i)]
        if rng.random() < 0.5:
            u, v = v, u
        edges.append((u, v, rng.randint(1, wmax)))
    rng.shuffle(edges)
    return edges, label


def arm_queries(rng, label, q, ra, rb):
    out = []
    for _ in range(q):
        a = label[rng.randrange(*ra)]
        b = label[rng.randrange(*rb)]
        out.append((a, b) if rng.random() < 0.5 else (b, a))
    return out


def rand_queries(rng, n, q):
    return [(rng.randint(1, n), rng.randint(1, n)) for _ in range(q)]


def far_queries(rng, label, q, span):
    """Pairs of huts from the two ends of the construction order (deep apart)."""
    n = len(label)
    return [(label[rng.randrange(n - span, n)], label[rng.randrange(0, n)]) for _ in range(q)]


def main():
    rng = random.Random(31337)
    write("01", 1, [], [(1, 1), (1, 1)])                  # a single hut
    write("02", 2, [(2, 1, 9)], [(1, 2), (2, 1), (2, 2)])
    e, lab = build(rng, 8, lambda i: 0)                    # star
    write("03", 8, e, [(a, b) for a in range(1, 9) for b in range(1, 9)])
    e, lab = build(rng, 30, lambda i: i - 1, shuffle=False)  # path in label order
    write("04", 30, e, [(1, 30), (30, 1), (15, 15), (7, 22)] + rand_queries(rng, 30, 20))
    e, lab = build(rng, 200, lambda i: rng.randrange(i))
    write("05", 200, e, rand_queries(rng, 200, 300))
    e, lab = build(rng, 1023, lambda i: (i - 1) // 2, wmax=1)  # balanced binary, unit trails
    write("06", 1023, e, rand_queries(rng, 1023, 1000))
    e, lab = build(rng, 2000, lambda i: i - 1 if i < 1000 else rng.randrange(1000))
    write("07", 2000, e, rand_queries(rng, 2000, 2000))
    e, lab = build(rng, 3000, lambda i: i - 1, wmax=9)
    write("08", 3000, e, [(lab[0], lab[-1])] + far_queries(rng, lab, 1500, 100))
    e, lab = build(rng, 5000, lambda i: rng.randrange(i), wmax=1)
    write("09", 5000, e, [(x, x) for x in range(1, 5001, 7)])  # every query is a hut to itself
    e, lab = build(rng, 4000, lambda i: max(0, i - rng.randint(1, 3)), wmax=9)
    write("10", 4000, e, rand_queries(rng, 4000, 3000))
    # large cases: hut 1 sits between two long arms and the orders join huts deep in
    # different arms, so stepping up from both ends costs O(n) per order
    n, m = 25500, 12750
    e, lab = build_rooted(rng, n, lambda i: 0 if i in (1, m) else i - 1)
    write("large-1", n, e, arm_queries(rng, lab, 25500, (m - 2500, m), (n - 2500, n)))
    m = 11751  # two caterpillar arms: spines of 11750 huts, 2000 short side paths
    e, lab = build_rooted(rng, n, lambda i: (0 if i in (1, m) else i - 1) if i < 2 * m - 1
                          else rng.randrange(2 * m - 1000, 2 * m - 1))
    write("large-2", n, e, arm_queries(rng, lab, 25500, (m - 1500, m), (2 * m - 1000, n)))
    n, m = 25000, 12500  # two arms with an occasional short jump
    e, lab = build_rooted(rng, n, lambda i: 0 if i in (1, m) else
                          (i - 1 if i in (2, m + 1) or rng.random() < 0.97 else i - 2))
    write("large-3", n, e, arm_queries(rng, lab, 26000, (m - 1500, m), (n - 1500, n)))
    n, m = 60000, 30000  # two arms of 30000 huts; 60000 orders between their far ends
    e, lab = build_rooted(rng, n, lambda i: 0 if i in (1, m) else i - 1)
    write("large-4", n, e, arm_queries(rng, lab, 60000, (m - 2500, m), (n - 2500, n)))

if __name__ == "__main__":
    main()
