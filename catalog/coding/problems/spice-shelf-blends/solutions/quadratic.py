# Naive: count the spices of every window from scratch. O(n * k).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    s = data[2][:n]
    seen = set()
    for i in range(n - k + 1):
        cnt = [0] * 26
        for c in s[i:i + k]:
            cnt[c - 97] += 1
        seen.add(tuple(cnt))
    print(len(seen))


if __name__ == "__main__":
    main()
