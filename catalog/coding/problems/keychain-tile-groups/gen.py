"""Deterministic generator for the cases added after 01-07 and large-1.

Writes cases/08..10 and cases/large-2, large-3, large-4 and computes the outputs with
solutions/reference.py. The older cases are not touched.
"""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def write(name, words):
    text = f"{len(words)}\n" + "".join(w + "\n" for w in words)
    with open(os.path.join(HERE, "cases", name + ".in"), "w") as f:
        f.write(text)
    out = subprocess.run([sys.executable, os.path.join(HERE, "solutions", "reference.py")],
                         input=text.encode(), capture_output=True, check=True).stdout
    with open(os.path.join(HERE, "cases", name + ".out"), "wb") as f:
        f.write(out)


def shuffled(rng, word):
    letters = list(word)
    rng.shuffle(letters)
    return "".join(letters)


def mostly_distinct(rng, n, anagram_below, repeat_below, lengths):
    """n random words of the given lengths, mostly in groups of their own: a roll
    under anagram_below shuffles an earlier word, under repeat_below repeats one."""
    words = []
    while len(words) < n:
        roll = rng.random()
        if words and roll < anagram_below:
            words.append(shuffled(rng, rng.choice(words)))
        elif words and roll < repeat_below:
            words.append(rng.choice(words))
        else:
            words.append("".join(rng.choice(LETTERS) for _ in range(rng.randint(*lengths))))
    return words


def main():
    rng = random.Random(5150)
    # 08: the same letters in different amounts are different groups.
    write("08", ["aab", "abb", "ab", "bab", "aba", "abab", "baba", "aabb", "bbaa", "a", "b", "aa"])
    # 09: twenty copies of a single word.
    write("09", ["zz"] * 20)
    # 10: 8-letter words built from 3 letters: many near-miss multisets.
    words = ["".join(rng.choice("xyz") for _ in range(8)) for _ in range(200)]
    write("10", words)
    # large-2: 30000 words, almost all in groups of their own (random
    # 7-8 letter words), plus a sprinkle of anagrams and exact repeats.
    write("large-2", mostly_distinct(rng, 30000, 0.05, 0.07, (7, 8)))
    # large-3: 30000 words of 4-8 letters from an 8-letter alphabet:
    # thousands of groups of very different sizes (short words repeat more).
    words = ["".join(rng.choice("aeilnrst") for _ in range(rng.randint(4, 8))) for _ in range(30000)]
    write("large-3", words)
    # large-4: 200000 words of 6-8 random letters, nearly all in groups of
    # their own, so comparing each word with every group found so far does
    # about n^2/2 comparisons; a sprinkle of anagrams and exact repeats.
    write("large-4", mostly_distinct(rng, 200000, 0.04, 0.05, (6, 8)))


if __name__ == "__main__":
    main()
