import sys
from heapq import heapify, heappop, heappush


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    after = [[] for _ in range(n + 1)]
    indeg = [0] * (n + 1)
    vals = list(map(int, data[2:2 + 2 * m]))
    for i in range(0, 2 * m, 2):
        a = vals[i]; b = vals[i + 1]
        after[a].append(b)
        indeg[b] += 1
    # Kahn's algorithm, always taking the smallest step that is ready.
    ready = [v for v in range(1, n + 1) if indeg[v] == 0]
    heapify(ready)
    order = []
    while ready:
        u = heappop(ready)
        order.append(u)
        for v in after[u]:
            indeg[v] -= 1
            if indeg[v] == 0:
                heappush(ready, v)
    if len(order) < n:
        sys.stdout.write("IMPOSSIBLE\n")
    else:
        sys.stdout.write(" ".join(map(str, order)) + "\n")


if __name__ == "__main__":
    main()
