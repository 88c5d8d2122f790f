"""Deterministic generator for drone-route-shapes cases (uses solutions/reference.py)."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REF = os.path.join(HERE, "solutions", "reference.py")
TURN = str.maketrans("NESW", "ESWN")
FLIP = str.maketrans("NESW", "SWNE")


def case(name, routes):
    assert 1 <= len(routes) <= 10 ** 5
    assert all(1 <= len(r) <= 30 and set(r) <= set("NESW") for r in routes)
    assert sum(map(len, routes)) <= 6 * 10 ** 5
    text = f"{len(routes)}\n" + "\n".join(routes) + "\n"
    with open(os.path.join(CASES, name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, REF], input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(CASES, name + ".out"), "wb") as f:
        f.write(out)


def rand_route(rng, lo, hi):
    return "".join(rng.choice("NESW") for _ in range(rng.randint(lo, hi)))


def disguise(rng, s):
    """Same shape: a random number of quarter turns, flown forwards or backwards."""
    for _ in range(rng.randrange(4)):
        s = s.translate(TURN)
    if rng.random() < 0.5:
        s = s[::-1].translate(FLIP)
    return s


def main():
    os.makedirs(CASES, exist_ok=True)
    rng = random.Random(8086)
    case("01", ["N"])                                          # minimum
    case("02", ["W", "S", "E", "N"])                           # every single move is one shape
    case("03", ["NNE", "NNW", "ENN", "WNN", "SSE"])            # mirror images stay different
    case("04", ["NESW", "ESWN", "WSEN", "NWSE", "NNEESSWW", "NE"])  # closed loops
    case("05", ["EE", "NN", "EN", "NE", "ESE", "NEN"])         # ties broken by canonical form
    case("06", ["N" * k for k in range(1, 31)])                # straight lines, all different lengths
    case("07", [rand_route(rng, 1, 5) for _ in range(50)])
    base = rand_route(rng, 30, 30)
    case("08", [disguise(rng, base) for _ in range(3000)])     # one shape in many disguises
    pool = [rand_route(rng, 3, 9) for _ in range(300)]
    routes = [disguise(rng, p) for p in pool for _ in range(2)]
    rng.shuffle(routes)
    case("09", routes)                                         # (mostly) equal counts everywhere
    case("10", [rand_route(rng, 1, 30) for _ in range(2000)])
    pool = [rand_route(rng, 1, 4) for _ in range(40)]
    case("11", [disguise(rng, rng.choice(pool)) for _ in range(4000)])
    case("12", ["NS", "SN", "EW", "WE", "NSNS", "SNSN", "NSN", "EWE"])  # back-and-forth routes
    # Large: many different shapes, so comparing against every known shape is hopeless.
    case("large-1", [rand_route(rng, 6, 12) for _ in range(60000)])
    pool = [rand_route(rng, 5, 10) for _ in range(30000)]
    weights = [1.0 / (i + 1) ** 0.3 for i in range(len(pool))]
    picks = rng.choices(range(len(pool)), weights=weights, k=72000)
    case("large-2", [disguise(rng, pool[i]) for i in picks])
    case("large-3", [rand_route(rng, 6, 8) for _ in range(78000)])


if __name__ == "__main__":
    main()
