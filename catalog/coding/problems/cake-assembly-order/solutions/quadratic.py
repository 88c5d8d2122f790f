# Deliberately slow: at every position scan all steps from 1 to n for the
# smallest one that is not done yet and has no unfinished prerequisite, O(n^2 + m).
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    after = [[] for _ in range(n + 1)]
    indeg = [0] * (n + 1)
    for i in range(m):
        a, b = int(data[2 + 2 * i]), int(data[3 + 2 * i])
        after[a].append(b)
        indeg[b] += 1
    done = [False] * (n + 1)
    order = []
    for _ in range(n):
        pick = 0
        for v in range(1, n + 1):
            if not done[v] and indeg[v] == 0:
                pick = v
                break
        if pick == 0:
            print("IMPOSSIBLE")
            return
        done[pick] = True
        order.append(pick)
        for v in after[pick]:
            indeg[v] -= 1
    print(" ".join(map(str, order)))


if __name__ == "__main__":
    main()
