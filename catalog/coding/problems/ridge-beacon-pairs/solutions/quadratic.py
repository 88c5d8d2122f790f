# Naive: from every hill, walk right keeping the tallest hill passed so far;
# stop once a hill at least as tall as the start blocks the view. O(n^2) worst case.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    h = list(map(int, data[1:1 + n]))
    pairs = 0
    for i in range(n):
        hi = h[i]
        tallest = 0  # tallest hill strictly between i and j
        for j in range(i + 1, n):
            hj = h[j]
            if tallest < hi and tallest < hj:
                pairs += 1
            if hj > tallest:
                tallest = hj
            if tallest >= hi:
                break
    print(pairs)


if __name__ == "__main__":
    main()
