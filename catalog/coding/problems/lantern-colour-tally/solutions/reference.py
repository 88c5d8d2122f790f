import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    counts = {}
    first_seen = {}
    for i in range(n):
        colour = data[1 + i].lower()
        if colour in counts:
            counts[colour] += 1
        else:
            counts[colour] = 1
            first_seen[colour] = i
    best = min(counts, key=lambda c: (-counts[c], first_seen[c]))
    sys.stdout.write(f"{best} {counts[best]}\n")


if __name__ == "__main__":
    main()
