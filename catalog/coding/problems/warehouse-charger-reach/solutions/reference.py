import sys
from collections import deque


def main():
    data = sys.stdin.read().split()
    r, c = int(data[0]), int(data[1])
    rows = data[2:2 + r]
    grid = "".join(rows)
    size = r * c
    dist = [-1] * size
    queue = deque()
    for idx, ch in enumerate(grid):
        if ch == "C":
            dist[idx] = 0
            queue.append(idx)
    farthest = -1 if not queue else 0
    while queue:
        cur = queue.popleft()
        d = dist[cur] + 1
        y, x = divmod(cur, c)
        for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
            if 0 <= ny < r and 0 <= nx < c:
                nxt = ny * c + nx
                if dist[nxt] == -1 and grid[nxt] != "#":
                    dist[nxt] = d
                    if d > farthest:
                        farthest = d
                    queue.append(nxt)
    unreachable = sum(1 for idx in range(size) if grid[idx] == "." and dist[idx] == -1)
    sys.stdout.write(f"{farthest} {unreachable}\n")


if __name__ == "__main__":
    main()
