#!/usr/bin/env python3
"""Deterministic generator for orchard-valve-downstream. Outputs come from solutions/reference.py."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, parent):
    """parent: list for valves 1..n (index 0 unused), 0 marks the main valve."""
    text = "%d\n%s\n" % (len(parent) - 1, " ".join(map(str, parent[1:])))
    os.makedirs(os.path.join(HERE, "cases"), exist_ok=True)
    with open(os.path.join(HERE, "cases", name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, os.path.join(HERE, "solutions", "reference.py")],
                         input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(HERE, "cases", name + ".out"), "wb") as f:
        f.write(out)


def relabel(rng, par_of):
    """par_of[i] for i in 0..n-1 (i > 0) with par_of[i] < i; node 0 is the root.
    Returns a 1-based parent list under a random relabelling."""
    n = len(par_of)
    label = list(range(1, n + 1))
    rng.shuffle(label)
    parent = [0] * (n + 1)
    for i in range(1, n):
        parent[label[i]] = label[par_of[i]]
    parent[label[0]] = 0
    return parent


def tree(n, pick):
    return [0] + [pick(i) for i in range(1, n)]


def main():
    rng = random.Random(4242)
    write("01", [0, 0])                                     # a single valve
    write("02", [0, 2, 0])                                  # main valve has the larger number
    write("03", relabel(rng, tree(10, lambda i: 0)))        # star
    write("04", [0] + [i + 1 for i in range(1, 50)] + [0])  # chain, pump at valve 50
    write("05", relabel(rng, tree(100, lambda i: rng.randrange(i))))
    write("06", relabel(rng, tree(1000, lambda i: (i - 1) // 2)))  # balanced binary
    write("07", relabel(rng, tree(2000, lambda i: i - 1 if i < 1000 else rng.randrange(1000))))
    write("08", relabel(rng, tree(5000, lambda i: max(0, i - rng.randint(1, 4)))))
    write("09", relabel(rng, tree(100000, lambda i: 0)))    # huge star
    write("10", relabel(rng, tree(9301, lambda i: 0 if i <= 300 else 1 + (i - 301) // 30)))
    # large cases: deep trees, so walking up from every valve is quadratic
    write("large-1", relabel(rng, tree(100000, lambda i: i - 1)))  # one long pipeline
    write("large-2", relabel(rng, tree(100000, lambda i: i - 1 if i < 50000 else rng.randrange(49000, 50000))))
    write("large-3", relabel(rng, tree(100000, lambda i: max(0, i - rng.randint(1, 3)))))


if __name__ == "__main__":
    main()
