"""Deterministic generator for raffle-prime-tickets cases (uses solutions/reference.py)."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REF = os.path.join(HERE, "solutions", "reference.py")
LIMIT = 10 ** 6


def case(name, queries):
    text = f"{len(queries)}\n" + "".join(f"{a} {b}\n" for a, b in queries)
    for a, b in queries:
        assert 1 <= a <= b <= LIMIT
    with open(os.path.join(CASES, name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, REF], input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(CASES, name + ".out"), "wb") as f:
        f.write(out)


def short(rng, width, lo=1, hi=LIMIT):
    a = rng.randint(lo, hi - width + 1)
    return (a, a + rng.randint(0, width - 1))


def main():
    os.makedirs(CASES, exist_ok=True)
    rng = random.Random(7177)
    case("01", [(1, 1)])                                   # 1 is not prime
    case("02", [(2, 2), (1, 2), (3, 3), (4, 4)])           # smallest primes, single tickets
    case("03", [(1, 100)])
    case("04", [(999983, 999983), (999984, 1000000), (999900, 1000000)])  # top of the range
    case("05", [(24, 28), (90, 96), (114, 126)])           # prime gaps: no primes at all
    case("06", [(1, 10)] * 5 + [(5, 5)] * 2)        # repeated queries
    case("07", [short(rng, 50) for _ in range(200)])
    case("08", [short(rng, 1000) for _ in range(60)])
    case("09", [(x, x) for x in range(1, 301)])            # every single ticket 1..300
    case("10", [short(rng, 3000, 1, 20000) for _ in range(30)])
    case("11", [(1, 20000), (10007, 10007), (10006, 10008)])
    # Large: tens of thousands of wide batches.
    qs = [short(rng, rng.randint(1, LIMIT)) for _ in range(45000)]
    qs[0] = (1, LIMIT)
    case("large-1", qs)
    qs = []
    for _ in range(45000):
        a, b = rng.randint(1, LIMIT), rng.randint(1, LIMIT)
        qs.append((min(a, b), max(a, b)))
    case("large-2", qs)
    qs = [(1, LIMIT)] * 20000 + [short(rng, 500000, 400000, LIMIT) for _ in range(20000)]
    rng.shuffle(qs)
    case("large-3", qs)


if __name__ == "__main__":
    main()
