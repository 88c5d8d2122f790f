# Deliberately slow: the alignment recurrence that tries every possible length
# of the final run of gaps instead of extending gaps one column at a time,
# O(|s| * |t| * (|s| + |t|)).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    match, mismatch, gap = int(data[0]), int(data[1]), int(data[2])
    s = data[3].decode()
    t = data[4].decode()
    n, m = len(s), len(t)
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n + 1):
        for j in range(m + 1):
            if i == 0 and j == 0:
                continue
            cand = []
            if i > 0 and j > 0:
                cand.append(best[i - 1][j - 1] + (match if s[i - 1] == t[j - 1] else -mismatch))
            for k in range(1, i + 1):
                cand.append(best[i - k][j] - k * gap)
            for k in range(1, j + 1):
                cand.append(best[i][j - k] - k * gap)
            best[i][j] = max(cand)
    print(best[n][m])


if __name__ == "__main__":
    main()
