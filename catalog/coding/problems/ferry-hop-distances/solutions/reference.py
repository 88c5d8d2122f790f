import sys
from collections import deque


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    adj = [[] for _ in range(n + 1)]
    idx = 2
    for _ in range(m):
        u = int(data[idx]); v = int(data[idx + 1]); idx += 2
        adj[u].append(v)
        adj[v].append(u)
    dist = [-1] * (n + 1)
    dist[1] = 0
    queue = deque([1])
    pop = queue.popleft
    push = queue.append
    while queue:
        u = pop()
        nd = dist[u] + 1
        for v in adj[u]:
            if dist[v] < 0:
                dist[v] = nd
                push(v)
    sys.stdout.write(" ".join(map(str, dist[1:])) + "\n")


if __name__ == "__main__":
    main()
