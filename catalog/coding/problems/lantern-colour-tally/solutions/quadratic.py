"""Deliberately slow: for every note, count matching notes by scanning the
whole list again. O(n^2) string comparisons."""
import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    notes = data[1:1 + n]
    best, best_count = None, 0
    for i in range(n):
        colour = notes[i].lower()
        count = 0
        for other in notes:
            if other.lower() == colour:
                count += 1
        # Scanning notes in order, a later note only wins with a strictly
        # larger count, so ties go to the colour noted first.
        if count > best_count:
            best, best_count = colour, count
    print(f"{best} {best_count}")


if __name__ == "__main__":
    main()
