import sys


def main():
    # Naive: collect each account's transactions, then try every run.
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    per_account = {}
    for k in range(n):
        per_account.setdefault(data[1 + 2 * k].decode(), []).append(int(data[2 + 2 * k]))
    out = []
    for name, amounts in per_account.items():
        count = 0
        for i in range(len(amounts)):
            s = 0
            for j in range(i, len(amounts)):
                s += amounts[j]
                if s == 0:
                    count += 1
        out.append(f"{name} {count}")
    print("\n".join(out))


if __name__ == "__main__":
    main()
