"""Deliberately slow: for every bag, look at every later bag. O(n^2)."""
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    w = list(map(int, data[1:1 + n]))
    answer = [0] * n
    for i in range(n):
        best = 0
        # Walk from the far end back towards i; the last heavier bag seen
        # is the nearest one.
        j = n - 1
        while j > i:
            if w[j] > w[i]:
                best = j - i
            j -= 1
        answer[i] = best
    sys.stdout.write(" ".join(map(str, answer)) + "\n")


if __name__ == "__main__":
    main()
