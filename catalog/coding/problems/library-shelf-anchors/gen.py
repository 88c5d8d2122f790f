"""Deterministic generator for library-shelf-anchors cases (uses solutions/reference.py)."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REF = os.path.join(HERE, "solutions", "reference.py")


def case(name, a):
    assert 1 <= len(a) <= 250000 and all(1 <= v <= 10 ** 9 for v in a)
    text = f"{len(a)}\n" + " ".join(map(str, a)) + "\n"
    with open(os.path.join(CASES, name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, REF], input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(CASES, name + ".out"), "wb") as f:
        f.write(out)


def nearly_sorted(rng, n, swaps, lo, step):
    """Increasing numbers with a few random local swaps."""
    a = [lo + i * step + rng.randint(0, step - 1) for i in range(n)]
    for _ in range(swaps):
        i = rng.randrange(n - 1)
        j = min(n - 1, i + rng.randint(1, 5))
        a[i], a[j] = a[j], a[i]
    return a


def main():
    os.makedirs(CASES, exist_ok=True)
    rng = random.Random(1812)
    case("01", [42])                                   # one book is always an anchor
    case("02", [7, 7])                                 # equal numbers: neither qualifies
    case("03", [5, 5, 5, 5, 5, 5])
    case("04", [1, 2, 3, 4, 5, 6, 7, 8])               # sorted: everyone is an anchor
    case("05", [9, 8, 7, 6, 5, 4, 3, 2, 1])            # reversed: nobody
    case("06", [1, 1000000000, 2, 999999999, 3])       # extremes of the bounds
    case("07", [3, 1, 2, 4, 6, 5, 7, 7, 8])            # ties next to anchors
    case("08", [rng.randint(1, 50) for _ in range(200)])
    case("09", nearly_sorted(rng, 500, 40, 1, 10))
    case("10", [10 ** 9] * 300 + [1])                  # all equal then a smaller one at the end
    case("11", [1] + [rng.randint(2, 10 ** 9 - 1) for _ in range(300)] + [10 ** 9])  # first and last anchor
    case("12", nearly_sorted(rng, 2000, 200, 5, 1000))
    # Large: long shelves that are almost in order, so many books are anchors.
    n = 90000
    case("large-1", nearly_sorted(rng, n, 3000, 1, 7))
    a = list(range(1, n + 1))
    a[0], a[-1] = a[-1], a[0]                          # one swap at the ends kills every anchor
    case("large-2", a)
    case("large-3", nearly_sorted(rng, 80000, 0, 100000, 3))  # strictly increasing: every book is an anchor
    # Added later: the longest shelf, strictly increasing, so a loop that checks every book against all the others
    # (stopping at the first that breaks it) does n^2 work. n <= 100000 let it pass in C++ (80000: 1.9 s of 2 s).
    case("large-4", nearly_sorted(rng, 250000, 0, 1, 2))


if __name__ == "__main__":
    main()
