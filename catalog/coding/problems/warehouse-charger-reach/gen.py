"""Deterministic generator for the cases added after 01-08 and large-1/large-2.

Writes cases/09, 10 and cases/large-3 and computes the outputs with
solutions/reference.py. The older cases are not touched.
"""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, rows):
    text = f"{len(rows)} {len(rows[0])}\n" + "".join(r + "\n" for r in rows)
    with open(os.path.join(HERE, "cases", name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, os.path.join(HERE, "solutions", "reference.py")],
                         input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(HERE, "cases", name + ".out"), "wb") as f:
        f.write(out)


def main():
    rng = random.Random(6061)
    # 09: the only pad is boxed in by shelves: D = 0, every floor cell is
    # unreachable.
    write("09", [".....", ".###.", ".#C#.", ".###.", "....."])
    # 10: a 40 x 40 floor that is all charging pads except a shelf border
    # in the middle: D = 0, U = 0.
    rows = []
    for y in range(40):
        rows.append("".join("#" if 15 <= y <= 24 and 15 <= x <= 24 and (y in (15, 24) or x in (15, 24))
                            else "C" for x in range(40)))
    write("10", rows)
    # large-3: 500 x 500 open floor with a single pad in the bottom-right
    # corner and a few scattered shelves: D is close to 998.
    rows = []
    for y in range(500):
        row = ["#" if rng.random() < 0.03 else "." for _ in range(500)]
        rows.append(row)
    rows[0][0] = "."
    rows[499][499] = "C"
    rows[499][498] = "."
    rows[498][499] = "."
    write("large-3", ["".join(r) for r in rows])


if __name__ == "__main__":
    main()
