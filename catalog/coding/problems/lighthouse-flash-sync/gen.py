"""Deterministic generator for lighthouse-flash-sync cases (uses solutions/reference.py)."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REF = os.path.join(HERE, "solutions", "reference.py")


def divisors(x):
    out = []
    d = 1
    while d * d <= x:
        if x % d == 0:
            out.append(d)
            if d * d != x:
                out.append(x // d)
        d += 1
    return sorted(out)


def write(name, n_t, periods):
    text = f"{n_t[0]} {n_t[1]}\n" + " ".join(map(str, periods)) + "\n"
    assert n_t[0] == len(periods)
    with open(os.path.join(CASES, name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, REF], input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(CASES, name + ".out"), "wb") as f:
        f.write(out)


def case(name, t, periods):
    write(name, (len(periods), t), periods)


def main():
    os.makedirs(CASES, exist_ok=True)
    rng = random.Random(20240611)
    case("01", 1, [1])
    case("02", 4, [5])
    case("03", 24, [8, 12])                    # common period equals T exactly
    case("04", 29, [5, 6])                     # common period is T + 1
    case("05", 50, [7] * 5)                    # all equal
    case("06", 80, [1, 1, 1, 9])               # period 1 never restricts
    case("07", 100000, [2, 3, 5, 7, 11, 13])   # coprime, lcm 30030
    d5040 = divisors(5040)
    case("08", 100000, [rng.choice(d5040) for _ in range(50)] + [5040])
    case("09", 100000, [rng.randint(2, 400) for _ in range(200)])   # lcm far beyond T
    case("10", 1, [1] * 100)                   # tiny horizon, all period 1
    case("11", 999999, [rng.choice(divisors(720720)) for _ in range(1000)] + [720720, 16])
    case("12", 10, [3, 1000000000])            # one huge period
    # Large cases: horizons so long that checking moments one by one is hopeless.
    big = 2 ** 6 * 3 ** 4 * 5 ** 2 * 7 ** 2 * 11 * 13 * 17 * 19 * 23 * 29  # about 6.2e14
    dbig = divisors(big)
    ps = [rng.choice(dbig) for _ in range(60000)]
    # Periods stay within the stated 10^9: a larger divisor gives way to a small one, and two cofactors of big
    # (6350400 and 30808063, coprime) make the common period big itself.
    small = [d for d in dbig if d <= 10 ** 9]
    ps = [p if p <= 10 ** 9 else small[p % len(small)] for p in ps]
    at = rng.randrange(len(ps))
    ps[at], ps[(at + 1) % len(ps)] = 2 ** 6 * 3 ** 4 * 5 ** 2 * 7 ** 2, 11 * 13 * 17 * 19 * 23 * 29
    case("large-1", 10 ** 18, ps)
    case("large-2", 10 ** 18, [rng.randint(1, 10 ** 9) for _ in range(55000)])
    case("large-3", 10 ** 18, [10 ** 9, 999999999])          # lcm just below 1e18
    case("large-4", 10 ** 18, [999999937, 999999929, 999999893] + [1] * 100)  # product overflows 64 bits
    case("large-5", 10 ** 18, [1] * 60000)     # answer is 1e18 itself
    case("large-6", 10 ** 18 - 1, [2, 4, 8, 16, 2 ** 29, 3 ** 18])  # lcm 2^29*3^18 close to 2e17
    # The lcm (about 4.4e26) wrapped modulo 2^64 lands below T: a solution that lets it wrap answers 1 809673307841702666.
    case("13", 10 ** 18, [572136254, 805589001, 954962523])


if __name__ == "__main__":
    main()
