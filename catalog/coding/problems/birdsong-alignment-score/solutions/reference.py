import sys


def main():
    data = sys.stdin.buffer.read().split()
    match, mismatch, gap = int(data[0]), int(data[1]), int(data[2])
    s = data[3].decode()
    t = data[4].decode()
    m = len(t)
    # prev[j] = best score for aligning the current prefix of s with t[:j].
    prev = [-gap * j for j in range(m + 1)]
    for i, c in enumerate(s, 1):
        cur = [-gap * i] * (m + 1)
        left = cur[0]
        for j in range(1, m + 1):
            best = prev[j - 1] + (match if t[j - 1] == c else -mismatch)
            up = prev[j] - gap
            if up > best:
                best = up
            left -= gap
            if left > best:
                best = left
            cur[j] = left = best
        prev = cur
    sys.stdout.write(f"{prev[m]}\n")


if __name__ == "__main__":
    main()
