import sys


def is_prime(x):
    if x < 2:
        return False
    d = 2
    while d * d <= x:
        if x % d == 0:
            return False
        d += 1
    return True


def main():
    # Naive: test every ticket of every batch by trial division.
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    out = []
    for k in range(q):
        lo, hi = int(data[1 + 2 * k]), int(data[2 + 2 * k])
        c = s = 0
        for x in range(lo, hi + 1):
            if is_prime(x):
                c += 1
                s += x
        out.append(f"{c} {s}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
