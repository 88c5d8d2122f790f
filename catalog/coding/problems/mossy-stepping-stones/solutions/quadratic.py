# Deliberately slow: for every stone look back over all earlier stones and
# add those within hopping distance, O(n^2).
import sys

MOD = 10 ** 9 + 7


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    mossy = set(int(x) for x in data[2:2 + k])
    ways = [0] * (n + 1)
    ways[0] = 1
    for i in range(1, n + 1):
        if i in mossy:
            continue
        total = 0
        for j in range(i):
            if i - j <= 3:
                total += ways[j]
        ways[i] = total % MOD
    print(ways[n])


if __name__ == "__main__":
    main()
