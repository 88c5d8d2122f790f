# Naive: no stack. For every lift, walk backwards through the cue sheet to find
# the frontmost puppet still on the rail. O(n^2) on deeply nested sheets.
import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    s = data[1].decode()[:n]
    opened = 0
    for i in range(n):
        c = s[i]
        if c.isupper():
            opened += 1
            continue
        depth = 0
        j = i - 1
        found = -1
        while j >= 0:
            if s[j].islower():
                depth += 1
            elif depth == 0:
                found = j
                break
            else:
                depth -= 1
            j -= 1
        if found < 0 or s[found] != c.upper():
            print("MISMATCH", i + 1)
            return
        opened -= 1
    print("OK" if opened == 0 else "UNCLOSED %d" % opened)


if __name__ == "__main__":
    main()
