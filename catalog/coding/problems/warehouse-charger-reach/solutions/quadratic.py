"""Deliberately slow: a separate BFS from every open cell until it meets a
pad (or runs out of cells). O((R*C)^2) in the worst case."""
import sys
from collections import deque


def main():
    data = sys.stdin.read().split()
    r, c = int(data[0]), int(data[1])
    grid = data[2:2 + r]
    farthest = -1
    unreachable = 0
    for sy in range(r):
        for sx in range(c):
            if grid[sy][sx] == "#":
                continue
            seen = {(sy, sx)}
            queue = deque([(sy, sx, 0)])
            found = -1
            while queue:
                y, x, d = queue.popleft()
                if grid[y][x] == "C":
                    found = d
                    break
                for ny, nx in ((y - 1, x), (y + 1, x), (y, x - 1), (y, x + 1)):
                    if 0 <= ny < r and 0 <= nx < c and grid[ny][nx] != "#" and (ny, nx) not in seen:
                        seen.add((ny, nx))
                        queue.append((ny, nx, d + 1))
            if found == -1:
                if grid[sy][sx] == ".":
                    unreachable += 1
            elif found > farthest:
                farthest = found
    print(f"{farthest} {unreachable}")


if __name__ == "__main__":
    main()
