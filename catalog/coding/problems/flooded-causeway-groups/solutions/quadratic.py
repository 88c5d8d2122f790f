# Deliberately slow: rebuild the groups from scratch for every forecast,
# O(q * (n + m)).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m, q = int(data[0]), int(data[1]), int(data[2])
    edges = [(int(data[3 + 3 * i]), int(data[4 + 3 * i]), int(data[5 + 3 * i])) for i in range(m)]
    levels = [int(x) for x in data[3 + 3 * m:3 + 3 * m + q]]
    out = []
    for level in levels:
        parent = list(range(n + 1))

        def find(x):
            while parent[x] != x:
                x = parent[x]
            return x

        groups = n
        for u, v, h in edges:
            if h > level:
                a, b = find(u), find(v)
                if a != b:
                    parent[a] = b
                    groups -= 1
        out.append(groups)
    print("\n".join(map(str, out)))


if __name__ == "__main__":
    main()
