import sys
from itertools import accumulate


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    a = list(map(int, data[2:2 + n]))
    # Inside [l, r] checkpoint i lies in (i - l + 1) * (r - i + 1) hikes, so
    # answer = sum a_i * (i - (l-1)) * ((r+1) - i)
    #        = -S2 + (l + r) * S1 - (l - 1) * (r + 1) * S0,
    # where Sk = sum over [l, r] of a_i * i^k. Keep prefix sums of all three.
    p0 = [0] + list(accumulate(a))
    p1 = [0] + list(accumulate(v * i for i, v in enumerate(a, 1)))
    p2 = [0] + list(accumulate(v * i * i for i, v in enumerate(a, 1)))
    out = []
    pos = 2 + n
    for _ in range(q):
        lo, hi = int(data[pos]), int(data[pos + 1])
        pos += 2
        s0 = p0[hi] - p0[lo - 1]
        s1 = p1[hi] - p1[lo - 1]
        s2 = p2[hi] - p2[lo - 1]
        out.append((lo + hi) * s1 - s2 - (lo - 1) * (hi + 1) * s0)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


if __name__ == "__main__":
    main()
