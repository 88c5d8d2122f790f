import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    parent = [0] + [int(x) for x in data[1:1 + n]]  # 1-based, parent[root] = 0
    # Peel leaves: a valve's count is final once all its children have reported.
    pending = [0] * (n + 1)
    for v in range(1, n + 1):
        pending[parent[v]] += 1
    size = [1] * (n + 1)
    queue = [v for v in range(1, n + 1) if pending[v] == 0]
    for v in queue:  # the list grows while we iterate over it
        p = parent[v]
        if p:
            size[p] += size[v]
            pending[p] -= 1
            if pending[p] == 0:
                queue.append(p)
    sys.stdout.write(" ".join(map(str, size[1:])) + "\n")


if __name__ == "__main__":
    main()
