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

    # BFS from hut 1: parent, depth (in trails) and distance (in metres).
    parent = [0] * (n + 1)
    depth = [0] * (n + 1)
    dist = [0] * (n + 1)
    parent[1] = 1
    seen = [False] * (n + 1)
    seen[1] = True
    order = [1]
    for u in order:
        du = depth[u] + 1
        cu = dist[u]
        for v, w in adj[u]:
            if not seen[v]:
                seen[v] = True
                parent[v] = u
                depth[v] = du
                dist[v] = cu + w
                order.append(v)

    # Binary lifting table: up[k][v] is the 2^k-th ancestor of v (the root maps to itself).
    levels = max(1, (n - 1).bit_length())
    up = [parent]
    for _ in range(1, levels):
        prev = up[-1]
        up.append([prev[x] for x in prev])
    rev = up[::-1]

    out = []
    for _ in range(q):
        a, b = int(data[pos]), int(data[pos + 1])
        pos += 2
        x, y = a, b
        if depth[x] < depth[y]:
            x, y = y, x
        diff = depth[x] - depth[y]
        k = 0
        while diff:
            if diff & 1:
                x = up[k][x]
            diff >>= 1
            k += 1
        if x != y:
            for table in rev:
                tx = table[x]
                ty = table[y]
                if tx != ty:
                    x, y = tx, ty
            x = parent[x]
        out.append(dist[a] + dist[b] - 2 * dist[x])
    sys.stdout.write("\n".join(map(str, out)) + "\n")


if __name__ == "__main__":
    main()
