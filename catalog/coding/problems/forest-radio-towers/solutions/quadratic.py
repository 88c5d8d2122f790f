"""Deliberately slow: keeps the trails as a plain edge list and finds each
clearing's neighbours by scanning every trail, so building the tree costs
O(n^2); the DP itself is the same as in the reference."""
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    cost = [0] + [int(x) for x in data[1:1 + n]]
    parent = [0, 0] + [int(x) for x in data[1 + n:1 + n + (n - 1)]]
    INF = float("inf")
    tower = [0] * (n + 1)
    covered = [0] * (n + 1)
    waiting = [0] * (n + 1)
    edges = [(i, parent[i]) for i in range(2, n + 1)]
    for v in range(n, 0, -1):
        children = []
        e = 0
        while e < len(edges):
            a, b = edges[e]
            if a == v or b == v:
                other = b if a == v else a
                if other > v:  # parents have smaller labels
                    children.append(other)
            e += 1
        t = cost[v]
        base = 0
        extra = INF
        wait = 0
        for ch in children:
            t += min(tower[ch], covered[ch], waiting[ch])
            m = min(tower[ch], covered[ch])
            base += m
            extra = min(extra, tower[ch] - m)
            wait += covered[ch]
        tower[v] = t
        covered[v] = base + extra
        waiting[v] = wait
    print(int(min(tower[1], covered[1])))


if __name__ == "__main__":
    main()
