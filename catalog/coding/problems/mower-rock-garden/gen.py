"""Deterministic generator for mower-rock-garden cases (uses solutions/reference.py)."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REF = os.path.join(HERE, "solutions", "reference.py")


def case(name, grid, commands):
    rows, cols = len(grid), len(grid[0])
    assert 1 <= rows <= 500 and 1 <= cols <= 500 and all(len(g) == cols for g in grid)
    assert sum(g.count("S") for g in grid) == 1
    assert 1 <= len(commands) <= 200000 and set(commands) <= set("FLR")
    text = f"{rows} {cols}\n" + "\n".join(grid) + "\n" + commands + "\n"
    with open(os.path.join(CASES, name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, REF], input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(CASES, name + ".out"), "wb") as f:
        f.write(out)


def random_grid(rng, rows, cols, rock):
    g = [["#" if rng.random() < rock else "." for _ in range(cols)] for _ in range(rows)]
    r, c = rng.randrange(rows), rng.randrange(cols)
    g[r][c] = "S"
    return ["".join(x) for x in g]


def random_commands(rng, m, pf=0.6):
    return "".join("F" if rng.random() < pf else rng.choice("LR") for _ in range(m))


def serpentine(rows, cols, passes):
    """Mow row after row: along a row, step down, turn back, and so on."""
    parts = []
    for i in range(passes):
        parts.append("F" * (cols - 1))
        turn = "R" if i % 2 == 0 else "L"
        parts.append(turn + "F" + turn)
    return "".join(parts)


def main():
    os.makedirs(CASES, exist_ok=True)
    rng = random.Random(4242)
    case("01", ["S"], "F")                                   # 1x1: every F bumps
    case("02", ["S"], "LLLLRRR")                             # only turning
    case("03", ["S.", ".."], "RFRFRFRF")                     # small square loop
    case("04", ["#.#", "#S#", "###"], "FFFFRFFLLFF")         # corridor, bumps at the end
    case("05", ["..S.."], "RFFFFFFFFLLFFFFFFFFF")            # 1-row garden, runs into both ends
    case("06", [".", ".", "S", ".", "."], "FFFFLLFFFFFFR")   # 1-column garden
    case("07", random_grid(rng, 8, 9, 0.25), random_commands(rng, 200))
    case("08", random_grid(rng, 30, 30, 0.1), random_commands(rng, 2000, 0.7))
    g = ["." * 20 for _ in range(20)]
    g[19] = "S" + "." * 19
    case("09", g, serpentine(20, 20, 20))                    # mows everything, ends bumping the wall
    case("10", random_grid(rng, 50, 3, 0.3), random_commands(rng, 3000))
    case("11", ["#" * 5, "#S..#", "#" * 5], "F" * 50 + "R" + "F" * 50)  # walled in, all bumps after 2 moves
    # Large: open lawns mowed row by row, and a long random drive.
    rows = cols = 420
    g = ["." * cols for _ in range(rows)]
    g[0] = "S" + "." * (cols - 1)
    cmds = "R" + serpentine(rows, cols, 2 * rows)[:199000]
    case("large-1", g, cmds)
    rows = cols = 500
    g = [list(r) for r in random_grid(rng, rows, cols, 0.02)]
    for r in range(rows):
        for c in range(cols):
            if g[r][c] == "S":
                g[r][c] = "."
    g[rows // 2][cols // 2] = "S"
    g = ["".join(r) for r in g]
    parts = []
    while sum(map(len, parts)) < 199000:
        parts.append("F" * rng.randint(5, 60) + rng.choice("LR"))
    case("large-2", g, "".join(parts)[:200000])


if __name__ == "__main__":
    main()
