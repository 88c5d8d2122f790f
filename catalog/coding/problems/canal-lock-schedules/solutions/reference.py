import sys
from heapq import heappop, heappush


def main():
    data = sys.stdin.buffer.read().split()
    n, m, k_max = int(data[0]), int(data[1]), int(data[2])
    layers = k_max + 1
    adj = [[] for _ in range(n + 1)]
    idx = 3
    for _ in range(m):
        u = int(data[idx]); v = int(data[idx + 1])
        w = int(data[idx + 2]); p = int(data[idx + 3])
        idx += 4
        # Store the neighbour's first state index directly.
        adj[u].append((v * layers, w, p))
        adj[v].append((u * layers, w, p))

    # State s = basin * layers + passes_used.  Heap entries are packed into one
    # integer (time * states + s) so that the heap compares plain ints.
    states = (n + 1) * layers
    inf = float("inf")
    dist = [inf] * states
    start = 1 * layers
    dist[start] = 0
    heap = [start]
    while heap:
        key = heappop(heap)
        t, s = divmod(key, states)
        if t > dist[s]:
            continue
        u, used = divmod(s, layers)
        if used and min(dist[s - used:s]) <= t:
            # Already here as early with fewer passes spent: nothing new.
            continue
        can_pass = used < k_max
        for base, w, p in adj[u]:
            # Wait for the next opening of the gate (t itself if it is open).
            r = t % p
            nt = t + w if r == 0 else t - r + p + w
            sv = base + used
            if nt < dist[sv]:
                dist[sv] = nt
                heappush(heap, nt * states + sv)
            if can_pass and r:
                # Use a priority pass: enter right away.
                nt = t + w
                sv += 1
                if nt < dist[sv]:
                    dist[sv] = nt
                    heappush(heap, nt * states + sv)
    out = []
    for v in range(1, n + 1):
        best = min(dist[v * layers:(v + 1) * layers])
        out.append(str(best) if best != inf else "-1")
    sys.stdout.write(" ".join(out) + "\n")


if __name__ == "__main__":
    main()
