import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    balance = {}   # account -> running total of its own transactions
    seen = {}      # (account, running total) -> how many times it occurred
    runs = {}      # account -> number of zero-sum runs so far
    for k in range(n):
        name = data[1 + 2 * k]
        amount = int(data[2 + 2 * k])
        if name not in balance:
            balance[name] = 0
            seen[(name, 0)] = 1
            runs[name] = 0
        total = balance[name] + amount
        balance[name] = total
        key = (name, total)
        # A run ending here sums to zero exactly when it starts right after an
        # earlier moment with the same running total.
        c = seen.get(key, 0)
        runs[name] += c
        seen[key] = c + 1
    sys.stdout.write("".join(f"{name.decode()} {c}\n" for name, c in runs.items()))


if __name__ == "__main__":
    main()
