# Naive: extend every stretch to the right from each start, stopping once the
# swing exceeds R. O(n * typical stretch length), O(n^2) on calm data.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, low, high = int(data[0]), int(data[1]), int(data[2])
    a = list(map(int, data[3:3 + n]))
    total = 0
    for i in range(n):
        mx = mn = a[i]
        for j in range(i, n):
            x = a[j]
            if x > mx:
                mx = x
            elif x < mn:
                mn = x
            if mx - mn > high:
                break
            if mx - mn >= low:
                total += 1
    print(total)


if __name__ == "__main__":
    main()
