import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    # suffix_min[i] = smallest number strictly to the right of position i.
    suffix_min = [0] * n
    best = float("inf")
    for i in range(n - 1, -1, -1):
        suffix_min[i] = best
        if a[i] < best:
            best = a[i]
    anchors = []
    prefix_max = float("-inf")
    for i in range(n):
        v = a[i]
        if prefix_max < v < suffix_min[i]:
            anchors.append(i + 1)
        if v > prefix_max:
            prefix_max = v
    out = [str(len(anchors))]
    if anchors:
        out.append(" ".join(map(str, anchors)))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
