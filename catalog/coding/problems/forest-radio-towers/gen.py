"""Deterministic generator for the cases added after 01-07 and large-1/large-2.

Writes cases/08..10 and cases/large-3, large-4 and computes the outputs with
solutions/reference.py. The older cases are not touched.
"""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, costs, parents):
    text = f"{len(costs)}\n{' '.join(map(str, costs))}\n{' '.join(map(str, parents))}\n"
    with open(os.path.join(HERE, "cases", name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, os.path.join(HERE, "solutions", "reference.py")],
                         input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(HERE, "cases", name + ".out"), "wb") as f:
        f.write(out)


def main():
    rng = random.Random(7031)
    # 08: a star whose centre costs more than all nine leaves together: the
    # cheapest cover puts a tower on every leaf.
    write("08", [10000] + [1] * 9, [1] * 9)
    # 09: a star whose leaves are all expensive except one: one tower at the
    # centre (10000) beats a tower on every leaf.
    write("09", [10000, 10000, 10000, 3, 10000, 10000], [1, 1, 1, 1, 1])
    # 10: small random tree with costs at both extremes.
    n = 14
    write("10", [rng.choice([1, 10000, rng.randint(1, 10000)]) for _ in range(n)],
          [rng.randint(1, i - 1) for i in range(2, n + 1)])
    # large-3: one long chain of 50000 clearings (p_i = i - 1) with random
    # costs; recursion depth 50000.
    n = 50000
    write("large-3", [rng.randint(1, 10000) for _ in range(n)], list(range(1, n)))
    # large-4: a "caterpillar": a spine of 25000 clearings, each with one
    # extra leaf hanging off it; spine clearings are cheap-ish, leaves vary.
    spine = 25000
    costs = [rng.randint(1, 3000) for _ in range(spine)]
    parents = list(range(1, spine))
    for i in range(1, spine + 1):
        costs.append(rng.randint(1, 10000))
        parents.append(i)
    write("large-4", costs, parents)


if __name__ == "__main__":
    main()
