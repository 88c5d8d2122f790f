"""Deliberately slow: compare every keychain with the first word of every
group found so far, re-sorting both words for each comparison.
O(n * number of groups), i.e. O(n^2) when most words are alone."""
import sys


def same_tiles(a, b):
    return len(a) == len(b) and sorted(a) == sorted(b)


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    groups = []
    for word in data[1:1 + n]:
        for group in groups:
            if same_tiles(word, group[0]):
                group.append(word)
                break
        else:
            groups.append([word])
    sys.stdout.write("\n".join(" ".join(g) for g in groups) + "\n")


if __name__ == "__main__":
    main()
