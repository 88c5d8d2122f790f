import sys
from bisect import bisect_right


def main():
    data = sys.stdin.buffer.read().split()
    n, k, gap = int(data[0]), int(data[1]), int(data[2])
    bookings = []
    for i in range(n):
        s, e, f = int(data[3 + 3 * i]), int(data[4 + 3 * i]), int(data[5 + 3 * i])
        bookings.append((e, s, f))
    bookings.sort()
    ends = [b[0] for b in bookings]
    # prev[i]: how many bookings (in end order) finish early enough to precede booking i
    prev = [bisect_right(ends, s - gap) for (_, s, _) in bookings]
    fees = [b[2] for b in bookings]
    k = min(k, n)
    before = [0] * (n + 1)  # best with at most j-1 bookings over prefixes
    for _ in range(k):
        cur = [0] * (n + 1)
        for i in range(n):
            take = fees[i] + before[prev[i]]
            skip = cur[i]
            cur[i + 1] = take if take > skip else skip
        before = cur
    sys.stdout.write(f"{before[n]}\n")


if __name__ == "__main__":
    main()
