import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, cap = int(data[0]), int(data[1])
    w = sorted(map(int, data[2:2 + n]))
    i, j = 0, n - 1
    kayaks = 0
    while i <= j:
        # The heaviest remaining paddler always launches now; take the
        # lightest one along if the pair fits.
        if i < j and w[i] + w[j] <= cap:
            i += 1
        j -= 1
        kayaks += 1
    sys.stdout.write(f"{kayaks}\n")


if __name__ == "__main__":
    main()
