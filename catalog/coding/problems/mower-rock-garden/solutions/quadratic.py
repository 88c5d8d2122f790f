import sys


def main():
    # Naive: remember the mowed cells in a plain list and search it on every
    # move. Correct, but each search is linear in the number of mowed cells.
    data = sys.stdin.buffer.read().split()
    rows, cols = int(data[0]), int(data[1])
    grid = [line.decode() for line in data[2:2 + rows]]
    commands = data[2 + rows].decode()
    r = c = 0
    for i in range(rows):
        j = grid[i].find("S")
        if j >= 0:
            r, c = i, j
    dr, dc = (-1, 0, 1, 0), (0, 1, 0, -1)
    facing = 0
    mowed = [(r, c)]
    bumps = 0
    for ch in commands:
        if ch == "F":
            nr, nc = r + dr[facing], c + dc[facing]
            if 0 <= nr < rows and 0 <= nc < cols and grid[nr][nc] != "#":
                r, c = nr, nc
                if (r, c) not in mowed:
                    mowed.append((r, c))
            else:
                bumps += 1
        elif ch == "R":
            facing = (facing + 1) % 4
        else:
            facing = (facing + 3) % 4
    print(r + 1, c + 1, "NESW"[facing])
    print(len(mowed), bumps)


if __name__ == "__main__":
    main()
