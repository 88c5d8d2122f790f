import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m, q = int(data[0]), int(data[1]), int(data[2])
    vals = list(map(int, data[3:3 + 3 * m]))
    us = vals[0::3]
    vs = vals[1::3]
    hs = vals[2::3]
    levels = list(map(int, data[3 + 3 * m:3 + 3 * m + q]))

    # Process forecasts from the highest water level down: as the level drops,
    # more causeways stay dry, so we only ever add edges to a union-find.
    edge_order = sorted(range(m), key=hs.__getitem__, reverse=True)
    query_order = sorted(range(q), key=levels.__getitem__, reverse=True)
    parent = list(range(n + 1))
    groups = n
    answer = [0] * q
    e = 0
    for qi in query_order:
        level = levels[qi]
        while e < m and hs[edge_order[e]] > level:
            i = edge_order[e]
            e += 1
            a = us[i]
            while parent[a] != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            b = vs[i]
            while parent[b] != b:
                parent[b] = parent[parent[b]]
                b = parent[b]
            if a != b:
                parent[a] = b
                groups -= 1
        answer[qi] = groups
    sys.stdout.write("\n".join(map(str, answer)) + "\n")


if __name__ == "__main__":
    main()
