import sys


def main():
    # Naive: for every question walk over all hike starts inside [l, r] and
    # add up the running sums of the hikes beginning there. O(length^2) per
    # question even with the running-sum trick for the inner loop.
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    a = [0] + list(map(int, data[2:2 + n]))
    out = []
    pos = 2 + n
    for _ in range(q):
        lo, hi = int(data[pos]), int(data[pos + 1])
        pos += 2
        total = 0
        for x in range(lo, hi + 1):
            run = 0
            for y in range(x, hi + 1):
                run += a[y]
                total += run
        out.append(total)
    sys.stdout.write("\n".join(map(str, out)) + "\n")


if __name__ == "__main__":
    main()
