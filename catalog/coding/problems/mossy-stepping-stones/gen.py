"""Deterministic generator for mossy-stepping-stones: writes cases/ using solutions/reference.py."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REF = os.path.join(HERE, "solutions", "reference.py")


def write(name, n, mossy):
    text = "%d %d\n%s\n" % (n, len(mossy), " ".join(map(str, mossy)))
    with open(os.path.join(CASES, name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, REF], input=text.encode(),
                         capture_output=True, check=True).stdout
    with open(os.path.join(CASES, name + ".out"), "wb") as f:
        f.write(out)


def no_three_in_a_row(rng, n, prob):
    """Random mossy stones, never three consecutive ones (so a crossing exists)."""
    mossy = []
    run = 0
    for i in range(1, n):
        if run < 2 and rng.random() < prob:
            mossy.append(i)
            run += 1
        else:
            run = 0
    rng.shuffle(mossy)
    return mossy


def main():
    os.makedirs(CASES, exist_ok=True)
    for f in os.listdir(CASES):
        os.remove(os.path.join(CASES, f))
    rng = random.Random(31337)

    write("01", 1, [])
    write("02", 2, [])
    write("03", 3, [])
    write("04", 4, [1, 2, 3])
    write("05", 4, [3, 1])
    write("06", 3, [1, 2])
    write("07", 50, [])
    # Every third stone is mossy, listed from the far bank backwards.
    write("08", 100, list(range(99, 0, -3)))
    write("09", 1000, no_three_in_a_row(rng, 1000, 0.3))
    # Every stone except the banks is mossy.
    write("10", 20, list(range(1, 20)))
    # Random moss that sometimes blocks the crossing completely.
    mossy = [i for i in range(1, 300) if rng.random() < 0.5]
    rng.shuffle(mossy)
    write("11", 300, mossy)
    write("12", 5000, no_three_in_a_row(rng, 5000, 0.05))
    # Large: maximum n, no moss.
    write("large-1", 1000000, [])
    # Large: maximum n with plenty of moss, but a crossing always exists.
    mossy = no_three_in_a_row(rng, 1000000, 0.1)[:90000]
    write("large-2", 1000000, mossy)
    # Large: a wall of three mossy stones near the far bank makes the answer 0.
    mossy = no_three_in_a_row(rng, 999990, 0.02) + [999995, 999996, 999997]
    rng.shuffle(mossy)
    write("large-3", 1000000, mossy)


if __name__ == "__main__":
    main()
