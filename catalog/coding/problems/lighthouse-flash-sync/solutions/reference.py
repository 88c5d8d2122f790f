import sys
from math import gcd


def main():
    data = sys.stdin.buffer.read().split()
    n, t = int(data[0]), int(data[1])
    periods = data[2:2 + n]
    common = 1
    for tok in periods:
        p = int(tok)
        common = common // gcd(common, p) * p
        # Once the common period passes the horizon it can only grow, so
        # no joint flash can happen inside the watch.
        if common > t:
            sys.stdout.write("0 -1\n")
            return
    sys.stdout.write(f"{t // common} {common}\n")


if __name__ == "__main__":
    main()
