import sys


def main():
    data = sys.stdin.buffer.read().split()
    rows, cols = int(data[0]), int(data[1])
    grid = data[2:2 + rows]
    commands = data[2 + rows] if len(data) > 2 + rows else b""
    # Pad the garden with a ring of rocks so that "outside" behaves like a rock.
    width = cols + 2
    blocked = bytearray([1]) * ((rows + 2) * width)
    start = -1
    for r in range(rows):
        line = grid[r]
        base = (r + 1) * width + 1
        for c in range(cols):
            ch = line[c]
            if ch != 35:  # '#'
                blocked[base + c] = 0
                if ch == 83:  # 'S'
                    start = base + c
    step = (-width, 1, width, -1)  # N, E, S, W
    mowed = bytearray((rows + 2) * width)
    pos, facing = start, 0
    mowed[pos] = 1
    count, bumps = 1, 0
    for ch in commands:
        if ch == 70:  # 'F'
            nxt = pos + step[facing]
            if blocked[nxt]:
                bumps += 1
            else:
                pos = nxt
                if not mowed[nxt]:
                    mowed[nxt] = 1
                    count += 1
        elif ch == 82:  # 'R'
            facing = (facing + 1) & 3
        else:  # 'L'
            facing = (facing + 3) & 3
    r, c = divmod(pos, width)
    sys.stdout.write(f"{r} {c} {'NESW'[facing]}\n{count} {bumps}\n")


if __name__ == "__main__":
    main()
