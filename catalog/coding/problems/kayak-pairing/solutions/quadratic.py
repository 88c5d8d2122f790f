"""Deliberately slow: no sorting. Repeatedly scan for the heaviest paddler
still on the jetty, then scan again for the lightest one who fits beside
them. O(n^2)."""
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, cap = int(data[0]), int(data[1])
    w = [int(x) for x in data[2:2 + n]]
    waiting = [True] * n
    left = n
    kayaks = 0
    while left > 0:
        heavy = -1
        for i in range(n):
            if waiting[i] and (heavy == -1 or w[i] > w[heavy]):
                heavy = i
        waiting[heavy] = False
        left -= 1
        light = -1
        for i in range(n):
            if waiting[i] and w[i] + w[heavy] <= cap and (light == -1 or w[i] < w[light]):
                light = i
        if light != -1:
            waiting[light] = False
            left -= 1
        kayaks += 1
    print(kayaks)


if __name__ == "__main__":
    main()
