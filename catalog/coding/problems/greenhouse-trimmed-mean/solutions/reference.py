import sys


def to_hundredths(token):
    # Readings have at most two digits after the decimal point.
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
    readings = sorted(to_hundredths(t) for t in data[2:2 + n])
    kept = readings[k:n - k]
    total = sum(kept)
    mean = total / (100 * len(kept))
    sys.stdout.write(f"{mean:.6f}\n")


if __name__ == "__main__":
    main()
