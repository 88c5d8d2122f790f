"""Deterministic generator for trail-stretch-totals cases (uses solutions/reference.py)."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REF = os.path.join(HERE, "solutions", "reference.py")


def case(name, a, queries):
    n = len(a)
    assert 1 <= n <= 10 ** 5 and 1 <= len(queries) <= 10 ** 5
    assert all(abs(v) <= 1000 for v in a)
    assert all(1 <= l <= r <= n for l, r in queries)
    text = f"{n} {len(queries)}\n" + " ".join(map(str, a)) + "\n" + "".join(f"{l} {r}\n" for l, r in queries)
    with open(os.path.join(CASES, name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, REF], input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(CASES, name + ".out"), "wb") as f:
        f.write(out)


def rand_query(rng, n):
    l, r = rng.randint(1, n), rng.randint(1, n)
    return (min(l, r), max(l, r))


def main():
    os.makedirs(CASES, exist_ok=True)
    rng = random.Random(90210)
    case("01", [7], [(1, 1)])                                         # minimum size
    case("02", [-1000], [(1, 1), (1, 1)])
    case("03", [0, 0, 0, 0], [(1, 4), (2, 3)])                        # all zero
    case("04", [5, -5, 5, -5, 5], [(1, 5), (1, 2), (2, 4), (3, 3)])   # alternating signs
    case("05", [3] * 10, [(1, 10), (4, 7), (10, 10)])                 # equal values
    a = [rng.randint(-1000, 1000) for _ in range(60)]
    case("06", a, [rand_query(rng, 60) for _ in range(100)])
    a = [rng.randint(-10, 10) for _ in range(300)]
    case("07", a, [(1, 300)] + [rand_query(rng, 300) for _ in range(50)])
    a = [1000] * 400
    case("08", a, [(1, 400), (1, 1), (400, 400), (200, 201)])         # all at the upper bound
    a = [-1000] * 400
    case("09", a, [(1, 400), (37, 399)])                              # all at the lower bound
    a = [rng.randint(-1000, 1000) for _ in range(500)]
    case("10", a, [(i, i) for i in range(1, 501, 7)] + [(i, i + 1) for i in range(1, 500, 13)])
    a = [rng.choice([-1000, 1000]) for _ in range(250)]
    case("11", a, [rand_query(rng, 250) for _ in range(40)])
    # Large cases: long trail, many wide questions.
    n = 100000
    a = [rng.randint(-999, 999) for _ in range(n)]
    qs = [(1, n), (n, n)] + [rand_query(rng, n) for _ in range(9000)]
    case("large-1", a, qs)
    n = 100000
    a = [1000] * n                                                    # largest possible answers
    qs = [(1, n)] + [(rng.randint(1, 2000), rng.randint(n - 2000, n)) for _ in range(11500)]
    case("large-2", a, qs)
    n = 50000
    a = [rng.randint(0, 99) - 50 for _ in range(n)]
    qs = [rand_query(rng, n) for _ in range(40000)]
    case("large-3", a, qs)


if __name__ == "__main__":
    main()
