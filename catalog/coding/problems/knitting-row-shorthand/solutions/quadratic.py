# Naive: for every stitch, walk back to the start of its block; when the stitch
# starts a block, walk forward to measure the block. O(sum of squared block
# lengths), i.e. quadratic on rows with long blocks.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    r = int(data[0])
    out = []
    for row in data[1:1 + r]:
        row = row.decode()
        n = len(row)
        parts = []
        for i in range(n):
            c = row[i].lower()
            j = i
            while j > 0 and row[j - 1].lower() == c:
                j -= 1
            if j != i:
                continue
            k = i
            while k < n and row[k].lower() == c:
                k += 1
            parts.append("%d%s" % (k - i, c))
        out.append(" ".join(parts))
    print("\n".join(out))


if __name__ == "__main__":
    main()
