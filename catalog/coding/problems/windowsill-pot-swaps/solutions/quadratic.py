# Deliberately slow: bubble the correct pot into place one position at a
# time, counting the swaps, O(n^2).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    row = [int(x) for x in data[1:1 + n]]
    goal = [int(x) for x in data[1 + n:1 + 2 * n]]
    if sorted(row) != sorted(goal):
        print(-1)
        return
    swaps = 0
    for pos in range(n):
        # The nearest copy of the wanted code is moved to `pos`.
        k = pos
        while row[k] != goal[pos]:
            k += 1
        while k > pos:
            row[k], row[k - 1] = row[k - 1], row[k]
            k -= 1
            swaps += 1
    print(swaps)


if __name__ == "__main__":
    main()
