# Deliberately slow: breadth-first search that rescans the whole route list
# for every island taken from the queue, O(n * m).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    edges = [(int(data[2 + 2 * i]), int(data[3 + 2 * i])) for i in range(m)]
    dist = [-1] * (n + 1)
    dist[1] = 0
    queue = [1]
    head = 0
    while head < len(queue):
        u = queue[head]
        head += 1
        for a, b in edges:
            if a == u:
                other = b
            elif b == u:
                other = a
            else:
                continue
            if dist[other] < 0:
                dist[other] = dist[u] + 1
                queue.append(other)
    print(" ".join(str(d) for d in dist[1:]))


if __name__ == "__main__":
    main()
