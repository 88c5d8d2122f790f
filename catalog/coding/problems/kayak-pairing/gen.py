"""Deterministic generator for the cases added after 01-08 and large-1/large-2.

Writes cases/09, 10 and large-3 and computes the outputs with solutions/reference.py.
The older cases are not touched.
"""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, cap, weights):
    text = f"{len(weights)} {cap}\n{' '.join(map(str, weights))}\n"
    with open(os.path.join(HERE, "cases", name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, os.path.join(HERE, "solutions", "reference.py")],
                         input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(HERE, "cases", name + ".out"), "wb") as f:
        f.write(out)


def main():
    rng = random.Random(9182)
    # 09: every paddler weighs exactly the limit: nobody can share.
    write("09", 1000, [1000] * 6)
    # 10: weights just around C/2 (an odd C), so only the lighter half pairs. C stays within the stated 1000.
    weights = [rng.choice([498, 499, 500, 501]) for _ in range(60)]
    write("10", 999, weights)
    # large-3 (added later): 300000 paddlers, nearly all heavier than C/2, so a loop that looks for a partner
    # among all remaining paddlers scans nearly the whole list each time. With n <= 100000 such a loop passed
    # in C++ (1.35 s of 2 s on the worst input that size allowed).
    heavy = [rng.randint(501, 1000) for _ in range(297000)] + [rng.randint(1, 499) for _ in range(3000)]
    rng.shuffle(heavy)
    write("large-3", 1000, heavy)


if __name__ == "__main__":
    main()
