import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    cost = [0] + [int(x) for x in data[1:1 + n]]
    parent = [0, 0] + [int(x) for x in data[1 + n:1 + n + (n - 1)]]
    INF = float("inf")
    # tower[v]:   v has a tower (subtree fully covered)
    # covered[v]: no tower at v, v covered by some child with a tower
    # waiting[v]: no tower at v, v not covered yet (parent must have a tower)
    tower = cost[:]
    covered_base = [0] * (n + 1)   # sum over children of min(tower, covered)
    best_extra = [INF] * (n + 1)   # cheapest extra cost to force one child tower
    waiting = [0] * (n + 1)        # sum over children of covered[child]
    covered = [0] * (n + 1)
    # Parents always have smaller labels, so decreasing labels is a post-order.
    for v in range(n, 0, -1):
        covered[v] = covered_base[v] + best_extra[v]
        if v == 1:
            break
        p = parent[v]
        t, cv, wt = tower[v], covered[v], waiting[v]
        tower[p] += min(t, cv, wt)
        m = t if t < cv else cv
        covered_base[p] += m
        extra = t - m
        if extra < best_extra[p]:
            best_extra[p] = extra
        waiting[p] += cv
    sys.stdout.write(f"{int(min(tower[1], covered[1]))}\n")


if __name__ == "__main__":
    main()
