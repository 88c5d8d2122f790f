import sys


def main():
    # Naive: walk through the flashes of the slowest lighthouse one by one and
    # check every other lighthouse. Correct, but the number of candidate
    # moments is T / max(p), which is astronomically large for big horizons.
    data = sys.stdin.buffer.read().split()
    n, t = int(data[0]), int(data[1])
    periods = [int(x) for x in data[2:2 + n]]
    slow = max(periods)
    count, first = 0, -1
    moment = slow
    while moment <= t:
        if all(moment % p == 0 for p in periods):
            count += 1
            if first == -1:
                first = moment
        moment += slow
    sys.stdout.write(f"{count} {first}\n")


if __name__ == "__main__":
    main()
