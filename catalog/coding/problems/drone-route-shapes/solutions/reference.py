import sys

# Turning a route 90 degrees clockwise renames every move.
TURN = bytes.maketrans(b"NESW", b"ESWN")


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    routes = data[1:1 + n]
    keys = []
    count = {}
    for s in routes:
        t1 = s.translate(TURN)
        t2 = t1.translate(TURN)
        t3 = t2.translate(TURN)
        # Flying a route backwards = reversing it and flipping every move,
        # which is a half turn of the reversed string; so the eight versions
        # are the four turns and the four turns read backwards.
        key = min(s, t1, t2, t3, s[::-1], t1[::-1], t2[::-1], t3[::-1])
        keys.append(key)
        count[key] = count.get(key, 0) + 1
    order = sorted(count, key=lambda k: (-count[k], k))
    rank = {k: i + 1 for i, k in enumerate(order)}
    out = [str(len(order))]
    out.extend(str(rank[k]) for k in keys)
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
