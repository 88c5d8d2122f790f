"""Deliberately slow: the same layered DP over bookings sorted by end time,
but every booking looks for its best compatible predecessor by scanning all
earlier bookings. O(n^2 * K)."""
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k, gap = int(data[0]), int(data[1]), int(data[2])
    bookings = sorted((int(data[4 + 3 * i]), int(data[3 + 3 * i]), int(data[5 + 3 * i])) for i in range(n))
    # best[j][i]: best total using at most j bookings, the last of which is i
    best = [[0] * n for _ in range(k + 1)]
    answer = 0
    for j in range(1, k + 1):
        for i in range(n):
            end_i, start_i, fee_i = bookings[i]
            top = 0
            for p in range(n):
                if bookings[p][0] + gap <= start_i and best[j - 1][p] > top:
                    top = best[j - 1][p]
            best[j][i] = fee_i + top
            if best[j][i] > answer:
                answer = best[j][i]
    print(answer)


if __name__ == "__main__":
    main()
