"""Deterministic generator for ledger-balanced-runs cases (uses solutions/reference.py)."""
import os
import random
import string
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REF = os.path.join(HERE, "solutions", "reference.py")


def case(name, rows):
    assert 1 <= len(rows) <= 10 ** 5
    for acc, amt in rows:
        assert 1 <= len(acc) <= 10 and acc.isalpha() and acc.islower() and abs(amt) <= 10 ** 9
    text = f"{len(rows)}\n" + "".join(f"{a} {x}\n" for a, x in rows)
    with open(os.path.join(CASES, name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, REF], input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(CASES, name + ".out"), "wb") as f:
        f.write(out)


def word(rng, lo, hi):
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(lo, hi)))


def main():
    os.makedirs(CASES, exist_ok=True)
    rng = random.Random(5150)
    case("01", [("a", 0)])                                        # single zero transaction
    case("02", [("zed", 7)])                                      # single non-zero
    case("03", [("acct", 0)] * 6)                                 # all zeros: 6*7/2 runs
    case("04", [("x", 10 ** 9), ("x", -10 ** 9), ("y", -10 ** 9), ("x", 10 ** 9), ("y", 10 ** 9)])
    case("05", [("a", 1), ("b", -1), ("a", 1), ("b", 1), ("a", -2)])  # interleaving matters
    case("06", [("abcdefghij", 5), ("abcdefghi", -5), ("abcdefghij", -5)])  # similar names
    accts = [word(rng, 1, 4) for _ in range(5)]
    case("07", [(rng.choice(accts), rng.randint(-3, 3)) for _ in range(300)])
    accts = [word(rng, 1, 10) for _ in range(40)]
    case("08", [(rng.choice(accts), rng.randint(-10 ** 9, 10 ** 9)) for _ in range(400)])  # almost no runs
    accts = [word(rng, 3, 6) for _ in range(3000)]
    case("09", [(rng.choice(accts), rng.choice([-2, -1, 1, 2])) for _ in range(20000)])  # many short ledgers
    case("10", [("q", rng.choice([10 ** 9, -10 ** 9])) for _ in range(1500)])
    rows = []
    for i in range(700):
        rows.append(("up", i + 1))
        rows.append(("down", -(i + 1)))
    case("11", rows)                                              # monotone totals: no runs at all
    case("12", [(rng.choice("ab"), rng.choice([0, 0, 1, -1])) for _ in range(2000)])
    # Large: long ledgers, where trying every run is far too slow.
    case("large-1", [("a", rng.randint(-2, 2)) for _ in range(90000)])
    accts = ["ops", "hr", "it"]
    case("large-2", [(rng.choice(accts), rng.randint(-20, 20)) for _ in range(85000)])
    rows = [("big", rng.choice([10 ** 9, -10 ** 9, 999999999, -999999999])) for _ in range(28000)]
    rows += [("zero", 0) for _ in range(35000)]                   # about 6e8 runs for one account
    rng.shuffle(rows)
    case("large-3", rows)
    # Balances 2^32 apart: a solution that keeps them in 32 bits sees the last one equal to the start (answer 0).
    case("13", [("a", 10 ** 9)] * 4 + [("a", 294967296)])
    # 5,000,050,000 runs of one account: a run count kept in 32 bits overflows.
    case("large-4", [("a", 0)] * 100000)


if __name__ == "__main__":
    main()
