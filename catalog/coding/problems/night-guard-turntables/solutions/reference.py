import sys


def main():
    data = sys.stdin.buffer.read().split()
    rows, cols, k = int(data[0]), int(data[1]), int(data[2])
    r0, c0, d0 = int(data[3]), int(data[4]), b"NESW".index(data[5])
    grid = data[6:6 + rows]
    # Pad the hall with a ring of walls so "outside" behaves like a wall.
    # kind: 0 = floor, 1 = wall, 2 = left turntable, 3 = right turntable.
    width = cols + 2
    kind = bytearray([1]) * ((rows + 2) * width)
    code = {46: 0, 35: 1, 76: 2, 82: 3}  # '.', '#', 'L', 'R'
    for r in range(rows):
        line = grid[r]
        base = (r + 1) * width + 1
        for c in range(cols):
            kind[base + c] = code[line[c]]
    step = (-width, 1, width, -1)  # N, E, S, W

    # The whole future depends only on (cell, facing), so the walk is
    # eventually periodic: remember when each state was first seen.
    pos, facing = r0 * width + c0, d0
    seen = {}
    history = []
    t = 0
    while t < k:
        state = pos * 4 + facing
        first = seen.get(state)
        if first is not None:
            period = t - first
            final = history[first + (k - first) % period]
            pos, facing = divmod(final, 4)
            break
        seen[state] = t
        history.append(state)
        ahead = pos + step[facing]
        tile = kind[ahead]
        if tile == 1:
            facing = (facing + 1) & 3
        else:
            pos = ahead
            if tile == 2:
                facing = (facing + 3) & 3
            elif tile == 3:
                facing = (facing + 1) & 3
        t += 1
    r, c = divmod(pos, width)
    sys.stdout.write(f"{r} {c} {'NESW'[facing]}\n")


if __name__ == "__main__":
    main()
