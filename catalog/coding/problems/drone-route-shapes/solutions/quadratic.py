import sys

TURN = str.maketrans("NESW", "ESWN")


def versions(s):
    out = []
    for _ in range(4):
        out.append(s)
        out.append(s[::-1])
        s = s.translate(TURN)
    return out


def main():
    # Naive: keep one representative per shape found so far and compare each
    # new route against all of them. O(n * number of shapes).
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    reps, counts, of = [], [], []
    for i in range(n):
        mine = versions(data[1 + i].decode())
        found = -1
        for g, rep in enumerate(reps):
            if rep in mine:
                found = g
                break
        if found == -1:
            found = len(reps)
            reps.append(mine[0])
            counts.append(0)
        counts[found] += 1
        of.append(found)
    canon = [min(versions(r)) for r in reps]
    order = sorted(range(len(reps)), key=lambda g: (-counts[g], canon[g]))
    rank = [0] * len(reps)
    for pos, g in enumerate(order):
        rank[g] = pos + 1
    print(len(reps))
    print("\n".join(str(rank[g]) for g in of))


if __name__ == "__main__":
    main()
