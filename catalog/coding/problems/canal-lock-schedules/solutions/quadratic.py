# Deliberately slow: the same layered earliest-arrival search, but the next
# state is found by scanning every state instead of using a heap, O((n*K)^2 + m*K).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m, k_max = int(data[0]), int(data[1]), int(data[2])
    adj = [[] for _ in range(n + 1)]
    for i in range(m):
        u, v, w, p = (int(x) for x in data[3 + 4 * i:7 + 4 * i])
        adj[u].append((v, w, p))
        adj[v].append((u, w, p))
    inf = float("inf")
    dist = [[inf] * (k_max + 1) for _ in range(n + 1)]
    done = [[False] * (k_max + 1) for _ in range(n + 1)]
    dist[1][0] = 0
    while True:
        best, bu, bk = inf, -1, -1
        for u in range(1, n + 1):
            for k in range(k_max + 1):
                if not done[u][k] and dist[u][k] < best:
                    best, bu, bk = dist[u][k], u, k
        if bu < 0:
            break
        done[bu][bk] = True
        t = best
        for v, w, p in adj[bu]:
            dep = (t + p - 1) // p * p
            if dep + w < dist[v][bk]:
                dist[v][bk] = dep + w
            if bk < k_max and t + w < dist[v][bk + 1]:
                dist[v][bk + 1] = t + w
    res = []
    for v in range(1, n + 1):
        b = min(dist[v])
        res.append(str(b) if b != inf else "-1")
    print(" ".join(res))


if __name__ == "__main__":
    main()
