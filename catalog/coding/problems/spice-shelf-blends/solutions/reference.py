import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, k = int(data[0]), int(data[1])
    s = data[2][:n]
    # Encode a blend exactly as one integer: 19 bits per spice holds any count
    # up to 2^19 - 1 >= 500000, so different blends get different keys.
    weight = [1 << (19 * (c - 97)) for c in s]
    key = sum(weight[:k])
    seen = {key}
    add = seen.add
    for incoming, outgoing in zip(weight[k:], weight):
        key += incoming - outgoing
        add(key)
    sys.stdout.write("%d\n" % len(seen))


if __name__ == "__main__":
    main()
