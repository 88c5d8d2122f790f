"""Deterministic generator for cake-assembly-order: writes cases/ using solutions/reference.py."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REF = os.path.join(HERE, "solutions", "reference.py")


def write(name, n, rules):
    text = "%d %d\n" % (n, len(rules)) + "".join("%d %d\n" % r for r in rules)
    with open(os.path.join(CASES, name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, REF], input=text.encode(),
                         capture_output=True, check=True).stdout
    with open(os.path.join(CASES, name + ".out"), "wb") as f:
        f.write(out)


def random_dag(rng, n, m, span=None):
    """Rules that all point forward in a hidden random ranking of the steps."""
    rank = list(range(1, n + 1))
    rng.shuffle(rank)
    rules = []
    for _ in range(m):
        if span is None:
            i, j = sorted(rng.sample(range(n), 2))
        else:
            i = rng.randrange(n - 1)
            j = min(n - 1, i + rng.randint(1, span))
        rules.append((rank[i], rank[j]))
    rng.shuffle(rules)
    return rank, rules


def main():
    os.makedirs(CASES, exist_ok=True)
    for f in os.listdir(CASES):
        os.remove(os.path.join(CASES, f))
    rng = random.Random(7031)

    write("01", 1, [])
    write("02", 2, [(2, 1)])
    write("03", 2, [(1, 2), (2, 1)])
    write("04", 5, [])
    write("05", 4, [(4, 1), (4, 1), (3, 2)])
    # A single chain that runs from the largest label down to the smallest.
    write("06", 10, [(v + 1, v) for v in range(9, 0, -1)])
    # Small random DAG where "earliest possible position for small labels" differs.
    write("07", 8, random_dag(rng, 8, 10)[1])
    write("08", 1000, random_dag(rng, 1000, 1500)[1])
    # A cycle hidden deep inside an otherwise acyclic plan.
    rank, rules = random_dag(rng, 1000, 1500)
    rules.append((rank[700], rank[400]))
    rng.shuffle(rules)
    write("09", 1000, rules)
    # Two-step cycle next to free steps.
    write("10", 6, [(5, 2), (2, 5), (1, 3)])
    # Many duplicated rules.
    _, rules = random_dag(rng, 20000, 20000, span=5)
    rules += rules[:20000]
    rng.shuffle(rules)
    write("11", 20000, rules)
    # Large: random DAG with long-range rules.
    write("large-1", 50000, random_dag(rng, 50000, 55000)[1])
    # Large: short-range rules over a random ranking, so long chains form.
    write("large-2", 50000, random_dag(rng, 50000, 55000, span=3)[1])
    # Large: almost everything can be scheduled, but three late steps form a cycle.
    n = 50000
    rank, rules = random_dag(rng, n, 54000)
    a, b, c = rank[-3], rank[-2], rank[-1]
    rules = [r for r in rules if r[0] not in (a, b, c)]
    rules += [(a, b), (b, c), (c, a)]
    rng.shuffle(rules)
    write("large-3", n, rules)
    # Large: maximum n with no rules at all (the answer is 1, 2, ..., n).
    write("large-4", 100000, [])


if __name__ == "__main__":
    main()
