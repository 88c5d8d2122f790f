import sys
from itertools import groupby


def main():
    data = sys.stdin.buffer.read().split()
    r = int(data[0])
    out = []
    for row in data[1:1 + r]:
        row = row.lower().decode()
        out.append(" ".join([str(len(list(g))) + k for k, g in groupby(row)]))
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
