"""Deliberately slow: sorts the readings with a hand-written selection sort,
O(n^2), then trims and averages exactly like the reference."""
import sys


def to_hundredths(token):
    negative = token.startswith("-")
    if negative or token.startswith("+"):
        token = token[1:]
    if "." in token:
        whole, frac = token.split(".")
    else:
        whole, frac = token, ""
    frac = (frac + "00")[:2]
    value = int(whole or "0") * 100 + int(frac)
    return -value if negative else value


def main():
    data = sys.stdin.read().split()
    n, k = int(data[0]), int(data[1])
    r = [to_hundredths(t) for t in data[2:2 + n]]
    for i in range(n):
        smallest = i
        for j in range(i + 1, n):
            if r[j] < r[smallest]:
                smallest = j
        r[i], r[smallest] = r[smallest], r[i]
    kept = r[k:n - k]
    print(f"{sum(kept) / (100 * len(kept)):.6f}")


if __name__ == "__main__":
    main()
