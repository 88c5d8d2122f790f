import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    h = list(map(int, data[1:1 + n]))
    # Stack of heights that can still see to the right; strictly decreasing
    # from bottom to top.
    stack = []
    pairs = 0
    for x in h:
        while stack and stack[-1] < x:
            stack.pop()
            pairs += 1
        if stack:
            pairs += 1  # the first hill at least as tall as x also sees it
            if stack[-1] == x:
                stack.pop()  # x now hides that hill from everything further right
        stack.append(x)
    sys.stdout.write("%d\n" % pairs)


if __name__ == "__main__":
    main()
