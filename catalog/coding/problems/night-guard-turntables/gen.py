"""Deterministic generator for night-guard-turntables cases (uses solutions/reference.py)."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REF = os.path.join(HERE, "solutions", "reference.py")


def case(name, grid, start, k):
    rows, cols = len(grid), len(grid[0])
    assert 1 <= rows <= 400 and 1 <= cols <= 400 and all(len(g) == cols for g in grid)
    assert set("".join(grid)) <= set(".#LR")
    r, c, d = start
    assert grid[r - 1][c - 1] != "#" and d in "NESW" and 0 <= k <= 10 ** 18
    text = f"{rows} {cols} {k}\n{r} {c} {d}\n" + "\n".join(grid) + "\n"
    with open(os.path.join(CASES, name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, REF], input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(CASES, name + ".out"), "wb") as f:
        f.write(out)


def random_hall(rng, rows, cols, wall, turn):
    g = []
    for _ in range(rows):
        line = []
        for _ in range(cols):
            x = rng.random()
            line.append("#" if x < wall else "L" if x < wall + turn else "R" if x < wall + 2 * turn else ".")
        g.append(line)
    return g


def free_start(rng, g):
    rows, cols = len(g), len(g[0])
    while True:
        r, c = rng.randrange(rows), rng.randrange(cols)
        if g[r][c] != "#":
            return (r + 1, c + 1, rng.choice("NESW"))


def ring_hall(rows, cols):
    """A serpentine corridor over columns 2..cols plus a return lane in column 1:
    one long loop that the guard follows thanks to the turntables."""
    g = [["#"] * cols for _ in range(rows)]
    for r in range(rows):
        g[r][0] = "."                         # return lane
    last = rows - 1 if rows % 2 == 1 else rows - 2
    for r in range(0, last + 1, 2):
        for c in range(1, cols):
            g[r][c] = "."
    k = 0
    for r in range(0, last, 2):
        if k % 2 == 0:                        # eastward row, connector on the east side
            g[r + 1][cols - 1] = "."
        else:                                 # westward row, turn south and then east
            g[r][1] = "L"
            g[r + 1][1] = "."
            g[r + 2][1] = "L"
        k += 1
    return ["".join(x) for x in g]


def spiral_hall(rows, cols):
    """A one-cell-wide corridor winding clockwise from the north-west corner to
    the centre, where it ends in a dead end: a long walk before any repetition."""
    g = [["#"] * cols for _ in range(rows)]
    dr, dc = (-1, 0, 1, 0), (0, 1, 0, -1)

    def inside(r, c):
        return 0 <= r < rows and 0 <= c < cols

    r = c = 0
    d = 1
    g[0][0] = "."
    fails = 0
    while fails < 2:
        nr, nc = r + dr[d], c + dc[d]
        fr, fc = nr + dr[d], nc + dc[d]
        if inside(nr, nc) and g[nr][nc] == "#" and not (inside(fr, fc) and g[fr][fc] == "."):
            g[nr][nc] = "."
            r, c = nr, nc
            fails = 0
        else:
            d = (d + 1) % 4
            fails += 1
    return ["".join(x) for x in g]


def turntable_serpentine(rows, cols):
    """Corridor rows (every other row) joined at alternating ends, every cell a left turntable. The robot,
    turned left into a wall on each cell, turns back right: two states per cell each way, and it walks the
    whole corridor both ways before repeating: about 2 * rows * cols distinct states (320,796 at 400 x 400)."""
    g = [["#"] * cols for _ in range(rows)]
    for r in range(0, rows, 2):
        g[r] = ["L"] * cols
    for i, r in enumerate(range(0, rows - 2, 2)):
        g[r + 1][cols - 1 if i % 2 == 0 else 0] = "L"
    return ["".join(x) for x in g]


def main():
    os.makedirs(CASES, exist_ok=True)
    rng = random.Random(31337)
    case("01", ["."], (1, 1, "N"), 0)                              # K = 0
    case("02", ["."], (1, 1, "E"), 7)                              # 1x1: only turning
    case("03", ["...", ".#.", "..."], (1, 1, "E"), 100)           # loop around a pillar
    case("04", ["#.#", "...", "#.#"], (2, 2, "N"), 12345)         # cross-shaped hall
    case("05", ["L.R", "...", "R.L"], (2, 2, "S"), 99999)
    case("06", ["....#", ".##.#", "L..R."], (3, 2, "W"), 3)       # K shorter than the tail
    case("07", ["".join(x) for x in random_hall(rng, 6, 7, 0.2, 0.1)], (1, 1, "S"), 50000)
    g = random_hall(rng, 15, 15, 0.15, 0.08)
    g[7][7] = "."
    case("08", ["".join(x) for x in g], (8, 8, "W"), 199999)
    g = random_hall(rng, 40, 25, 0.1, 0.05)
    case("09", ["".join(x) for x in g], free_start(rng, g), 150000)
    case("10", ring_hall(9, 8), (1, 1, "E"), 100000)
    case("11", ["#####", "#...#", "#.L.#", "#...#", "#####"], (3, 3, "N"), 77777)
    g = random_hall(rng, 1, 60, 0.0, 0.1)
    case("12", ["".join(x) for x in g], (1, 30, "E"), 200000)     # single row
    case("13", spiral_hall(30, 31), (1, 1, "E"), 400)             # stops in the middle of the tail
    case("14", spiral_hall(30, 31), (1, 1, "S"), 100000)
    # Large: K so big that stepping one by one is hopeless.
    case("large-1", ring_hall(200, 200), (1, 1, "E"), 10 ** 18)
    g = random_hall(rng, 200, 200, 0.01, 0.05)
    case("large-2", ["".join(x) for x in g], free_start(rng, g), 10 ** 18 - 1)
    case("large-3", ["#.#"], (1, 2, "N"), 987654321987654321)   # boxed in: spins forever
    g = random_hall(rng, 200, 200, 0.3, 0.01)
    case("large-4", ["".join(x) for x in g], free_start(rng, g), 123456789012345678)
    case("large-5", ring_hall(199, 200), (199, 5, "W"), 10 ** 18)
    case("large-6", spiral_hall(200, 200), (1, 1, "E"), 10 ** 18)  # tail of about 20000 steps
    case("large-7", turntable_serpentine(200, 200), (1, 1, "E"), 10 ** 18)
    case("large-9", turntable_serpentine(400, 400), (1, 1, "E"), 10 ** 18)  # 320,796 states before a repeat
    # large-8: large-7's hall after a hill climb (search-hall.c writes its .in): 111,438 states before a repeat
    with open(os.path.join(CASES, "large-8.in"), "rb") as f:
        out = subprocess.run([sys.executable, REF], input=f.read(), capture_output=True, check=True).stdout
    with open(os.path.join(CASES, "large-8.out"), "wb") as f:
        f.write(out)


if __name__ == "__main__":
    main()
