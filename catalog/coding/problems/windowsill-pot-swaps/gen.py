"""Deterministic generator for windowsill-pot-swaps: writes cases/ using solutions/reference.py."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REF = os.path.join(HERE, "solutions", "reference.py")


def write(name, a, b):
    assert len(a) == len(b)
    text = "%d\n%s\n%s\n" % (len(a), " ".join(map(str, a)), " ".join(map(str, b)))
    with open(os.path.join(CASES, name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, REF], input=text.encode(),
                         capture_output=True, check=True).stdout
    with open(os.path.join(CASES, name + ".out"), "wb") as f:
        f.write(out)


def shuffled(rng, xs):
    ys = list(xs)
    rng.shuffle(ys)
    return ys


def main():
    os.makedirs(CASES, exist_ok=True)
    for f in os.listdir(CASES):
        os.remove(os.path.join(CASES, f))
    rng = random.Random(60221)

    write("01", [42], [42])
    write("02", [1], [1000000000])
    write("03", [8, 6], [6, 8])
    write("04", [5, 5], [5, 5])
    write("05", [9] * 5, [9] * 5)
    write("06", [1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1])
    # Same set of codes, different counts.
    write("07", [1, 1, 2], [1, 2, 2])
    a = [rng.randint(1, 3) for _ in range(10)]
    write("08", a, shuffled(rng, a))
    a = [rng.randint(1, 10 ** 9) for _ in range(1000)]
    write("09", a, shuffled(rng, a))
    a = [rng.randint(1, 5) for _ in range(2000)]
    write("10", a, shuffled(rng, a))
    a = [rng.randint(1, 50) for _ in range(3000)]
    write("11", a, list(a))
    # Impossible sketch on a long sill: one copy is replaced by a different code.
    a = [rng.randint(1, 10 ** 9) for _ in range(30000)]
    b = shuffled(rng, a)
    b[rng.randrange(30000)] = 10 ** 9 - 7
    write("12", a, b)
    write("13", [1000000000, 1, 1000000000, 1, 1, 1000000000, 1, 1], [1, 1, 1, 1, 1000000000, 1000000000, 1000000000, 1])
    # Large: ascending row, descending sketch, many duplicates: answer > 2^31.
    n = 68000
    a = sorted(rng.randint(1, 9999) for _ in range(n))
    write("large-1", a, a[::-1])
    # Large: random row and random sketch.
    a = [rng.randint(1, 9999) for _ in range(n)]
    write("large-2", a, shuffled(rng, a))
    # Large: 170000 pots with one-digit codes in random order; the sketch groups
    # them by code from 9 down to 1, with a little local disorder.
    n = 170000
    a = [rng.randint(1, 9) for _ in range(n)]
    b = sorted(a, reverse=True)
    for _ in range(20000):
        i = rng.randrange(n - 1)
        b[i], b[i + 1] = b[i + 1], b[i]
    write("large-3", a, b)


if __name__ == "__main__":
    main()
