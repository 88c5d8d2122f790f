import sys
from itertools import accumulate
from operator import mul

LIMIT = 10 ** 6


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    # Sieve of Eratosthenes on a bytearray; slice assignment keeps it fast.
    is_prime = bytearray([1]) * (LIMIT + 1)
    is_prime[0] = is_prime[1] = 0
    i = 2
    while i * i <= LIMIT:
        if is_prime[i]:
            is_prime[i * i::i] = bytes(len(range(i * i, LIMIT + 1, i)))
        i += 1
    # cnt[x] = number of primes <= x, tot[x] = sum of primes <= x.
    cnt = list(accumulate(is_prime))
    tot = list(accumulate(map(mul, range(LIMIT + 1), is_prime)))
    out = []
    pos = 1
    for _ in range(q):
        lo, hi = int(data[pos]), int(data[pos + 1])
        pos += 2
        out.append(f"{cnt[hi] - cnt[lo - 1]} {tot[hi] - tot[lo - 1]}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
