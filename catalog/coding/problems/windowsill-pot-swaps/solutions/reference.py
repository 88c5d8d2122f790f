import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = data[1:1 + n]
    b = data[1 + n:1 + 2 * n]
    a = list(map(int, a))
    b = list(map(int, b))
    # Stable sorts: the k-th copy of a code in the target is matched with the
    # k-th copy of that code on the sill now (crossing copies never helps).
    order_a = sorted(range(n), key=a.__getitem__)
    order_b = sorted(range(n), key=b.__getitem__)
    for i, j in zip(order_a, order_b):
        if a[i] != b[j]:
            sys.stdout.write("-1\n")
            return
    # target[j] = current position of the pot that must end up at position j.
    target = [0] * n
    for i, j in zip(order_a, order_b):
        target[j] = i
    # The answer is the number of inversions of `target` (Fenwick tree).
    tree = [0] * (n + 1)
    inversions = 0
    for seen, x in enumerate(target):
        i = x + 1
        smaller = 0
        while i > 0:
            smaller += tree[i]
            i &= i - 1
        inversions += seen - smaller
        i = x + 1
        while i <= n:
            tree[i] += 1
            i += i & -i
    sys.stdout.write(f"{inversions}\n")


if __name__ == "__main__":
    main()
