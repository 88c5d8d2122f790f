# Naive: root the tree once, then answer each query by stepping both huts up
# one trail at a time until they meet. O(q * depth), i.e. O(n * q) on deep trees.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    adj = [[] for _ in range(n + 1)]
    pos = 2
    for _ in range(n - 1):
        u, v, w = int(data[pos]), int(data[pos + 1]), int(data[pos + 2])
        pos += 3
        adj[u].append((v, w))
        adj[v].append((u, w))
    parent = [0] * (n + 1)
    depth = [-1] * (n + 1)
    dist = [0] * (n + 1)
    depth[1] = 0
    stack = [1]
    while stack:
        u = stack.pop()
        for v, w in adj[u]:
            if depth[v] < 0:
                depth[v] = depth[u] + 1
                dist[v] = dist[u] + w
                parent[v] = u
                stack.append(v)
    out = []
    for _ in range(q):
        a, b = int(data[pos]), int(data[pos + 1])
        pos += 2
        x, y = a, b
        while depth[x] > depth[y]:
            x = parent[x]
        while depth[y] > depth[x]:
            y = parent[y]
        while x != y:
            x = parent[x]
            y = parent[y]
        out.append(dist[a] + dist[b] - 2 * dist[x])
    print("\n".join(map(str, out)))


if __name__ == "__main__":
    main()
