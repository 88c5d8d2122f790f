"""Deterministic generator for the cases added after 01-06 and large-1/large-2.

Writes cases/07..10, cases/large-3 and cases/large-4 and computes the outputs with
solutions/reference.py. The older cases are not touched.
"""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, notes):
    text = f"{len(notes)}\n" + "".join(w + "\n" for w in notes)
    with open(os.path.join(HERE, "cases", name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, os.path.join(HERE, "solutions", "reference.py")],
                         input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(HERE, "cases", name + ".out"), "wb") as f:
        f.write(out)


def scramble_case(rng, word):
    return "".join(ch.upper() if rng.random() < 0.5 else ch.lower() for ch in word)


def main():
    rng = random.Random(31337)
    # 07: a tie where the winner's notes all come late: rose is noted first
    # (once), then lilac three times, then rose twice more -> both 3, rose wins.
    write("07", ["Rose", "lilac", "LILAC", "Lilac", "ROSE", "rose"])
    # 08: the leader changes several times; the last note breaks the tie.
    write("08", ["a", "b", "B", "a", "c", "C", "c", "b", "A", "c"])
    # 09: 12-letter names that differ only in case, plus a near miss.
    write("09", ["Ultramarines", "ULTRAMARINES", "ultramarine", "uLtRaMaRiNeS", "ULTRAMARINE"])
    # 10: a single colour written in many different cases.
    write("10", [scramble_case(rng, "vermilion") for _ in range(25)])
    # large-3: 50000 notes, 2000 colours with exactly 25 notes each, shuffled:
    # the answer is the colour whose first note is earliest.
    names = set()
    while len(names) < 2000:
        names.add("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(3, 12))))
    notes = [scramble_case(rng, name) for name in sorted(names) for _ in range(25)]
    rng.shuffle(notes)
    write("large-3", notes)
    # large-4: 150000 notes and 142500 different colours, every name 12 letters long, so
    # finding each note's colour by scanning the colours seen so far (or all the notes)
    # is about ten billion string comparisons: even compiled, many times the limit. 1500
    # colours are noted 6 times each; the winner is the one of those whose first note is
    # earliest.
    names = set()
    while len(names) < 142500:
        names.add("".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(12)))
    names = sorted(names)
    rng.shuffle(names)
    notes = [scramble_case(rng, name) for name in names]
    for name in names[:1500]:
        notes.extend(scramble_case(rng, name) for _ in range(5))
    rng.shuffle(notes)
    write("large-4", notes)


if __name__ == "__main__":
    main()
