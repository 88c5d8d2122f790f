import sys

MOD = 10 ** 9 + 7


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    mossy = bytearray(n + 1)
    for x in data[2:2 + k]:
        mossy[int(x)] = 1
    # a, b, c = ways to stand on stones i-3, i-2, i-1; stone 0 has one way.
    a, b, c = 0, 0, 1
    for i in range(1, n + 1):
        if mossy[i]:
            a, b, c = b, c, 0
        else:
            a, b, c = b, c, (a + b + c) % MOD
    sys.stdout.write(f"{c}\n")


if __name__ == "__main__":
    main()
