# Naive: every valve walks up to the pump and adds itself to each valve on the way.
# O(n * depth), i.e. O(n^2) on long pipelines.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    parent = [0] + [int(x) for x in data[1:1 + n]]
    size = [0] * (n + 1)
    for v in range(1, n + 1):
        u = v
        while u:
            size[u] += 1
            u = parent[u]
    print(" ".join(map(str, size[1:])))


if __name__ == "__main__":
    main()
