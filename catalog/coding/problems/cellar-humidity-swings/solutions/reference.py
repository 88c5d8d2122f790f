import sys
from collections import deque


def at_most(a, limit):
    """Number of stretches whose swing (max - min) is at most `limit`."""
    if limit < 0:
        return 0
    hi = deque()  # indices, values decreasing: front is the window maximum
    lo = deque()  # indices, values increasing: front is the window minimum
    left = 0
    total = 0
    for r, x in enumerate(a):
        while hi and a[hi[-1]] <= x:
            hi.pop()
        hi.append(r)
        while lo and a[lo[-1]] >= x:
            lo.pop()
        lo.append(r)
        # shrink from the left: drop the older of the two extremes until it fits
        while a[hi[0]] - a[lo[0]] > limit:
            if hi[0] < lo[0]:
                left = hi.popleft() + 1
            else:
                left = lo.popleft() + 1
        total += r - left + 1
    return total


def main():
    data = sys.stdin.buffer.read().split()
    n, low, high = int(data[0]), int(data[1]), int(data[2])
    a = list(map(int, data[3:3 + n]))
    sys.stdout.write("%d\n" % (at_most(a, high) - at_most(a, low - 1)))


if __name__ == "__main__":
    main()
