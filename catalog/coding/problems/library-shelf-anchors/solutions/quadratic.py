import sys


def main():
    # Naive: for every book compare it with all books on both sides.
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:1 + n]))
    anchors = []
    for i in range(n):
        v = a[i]
        left_ok = all(a[j] < v for j in range(i))
        right_ok = all(a[j] > v for j in range(i + 1, n))
        if left_ok and right_ok:
            anchors.append(i + 1)
    print(len(anchors))
    if anchors:
        print(*anchors)


if __name__ == "__main__":
    main()
