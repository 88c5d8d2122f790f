import sys


def main():
    # Naive: perform all K steps one by one. Correct, but K can be 10^18.
    data = sys.stdin.buffer.read().split()
    rows, cols, k = int(data[0]), int(data[1]), int(data[2])
    r, c, facing = int(data[3]) - 1, int(data[4]) - 1, "NESW".index(data[5].decode())
    grid = [line.decode() for line in data[6:6 + rows]]
    dr, dc = (-1, 0, 1, 0), (0, 1, 0, -1)
    t = 0
    while t < k:
        nr, nc = r + dr[facing], c + dc[facing]
        if 0 <= nr < rows and 0 <= nc < cols and grid[nr][nc] != "#":
            r, c = nr, nc
            if grid[r][c] == "L":
                facing = (facing + 3) % 4
            elif grid[r][c] == "R":
                facing = (facing + 1) % 4
        else:
            facing = (facing + 1) % 4
        t += 1
    print(r + 1, c + 1, "NESW"[facing])


if __name__ == "__main__":
    main()
