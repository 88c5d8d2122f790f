"""Deterministic generator for birdsong-alignment-score: writes cases/ using solutions/reference.py."""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = os.path.join(HERE, "cases")
REF = os.path.join(HERE, "solutions", "reference.py")


def write(name, a, b, g, s, t):
    text = "%d %d %d\n%s\n%s\n" % (a, b, g, s, t)
    with open(os.path.join(CASES, name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, REF], input=text.encode(),
                         capture_output=True, check=True).stdout
    with open(os.path.join(CASES, name + ".out"), "wb") as f:
        f.write(out)


def song(rng, length, alphabet):
    return "".join(rng.choice(alphabet) for _ in range(length))


def mutate(rng, s, alphabet, rate):
    """A variation of s: some notes dropped, changed or added."""
    out = []
    for c in s:
        r = rng.random()
        if r < rate:
            continue
        if r < 2 * rate:
            out.append(rng.choice(alphabet))
        else:
            out.append(c)
        if rng.random() < rate:
            out.append(rng.choice(alphabet))
    return "".join(out) or rng.choice(alphabet)


def main():
    os.makedirs(CASES, exist_ok=True)
    for f in os.listdir(CASES):
        os.remove(os.path.join(CASES, f))
    rng = random.Random(8086)

    write("01", 1, 1, 1, "a", "a")
    write("02", 1, 1, 1, "a", "b")
    write("03", 0, 0, 0, "abc", "xyz")
    # Gaps are free, mismatches are not.
    write("04", 5, 1000, 0, "abcabc", "cbacba")
    # Mismatches are free, gaps are very expensive.
    write("05", 0, 0, 1000, "aaaa", "bbbbbbb")
    # Maximum parameters, very different lengths.
    write("06", 1000, 1000, 1000, "z", "z" * 1000)
    write("07", 4, 2, 3, "warblewarble", "warbelwarbl")
    write("08", 3, 1, 2, song(rng, 12, "ab"), song(rng, 9, "ab"))
    s = song(rng, 200, "abcdef")
    write("09", 10, 7, 4, s, mutate(rng, s, "abcdef", 0.1))
    write("10", 1, 3, 2, song(rng, 300, "abcdefghijklmnopqrstuvwxyz"), song(rng, 250, "abcdefghijklmnopqrstuvwxyz"))
    # Identical songs.
    s = song(rng, 400, "xyz")
    write("11", 7, 7, 7, s, s)
    # One song is a single note.
    write("12", 2, 5, 1, "q", song(rng, 500, "pqr"))
    # Large: maximum lengths, a song and its variation.
    s = song(rng, 1000, "abcdefgh")
    t = mutate(rng, s, "abcdefgh", 0.08)
    t = (t + song(rng, 1000, "abcdefgh"))[:1000]
    write("large-1", 12, 5, 7, s, t)
    # Large: maximum lengths, unrelated songs over a small alphabet.
    write("large-2", 1000, 999, 500, song(rng, 1000, "ab"), song(rng, 1000, "ab"))
    # Large: maximum lengths with a larger alphabet and cheap gaps.
    write("large-3", 3, 4, 1, song(rng, 1000, "abcdefghijklmnop"), song(rng, 1000, "abcdefghijklmnop"))


if __name__ == "__main__":
    main()
