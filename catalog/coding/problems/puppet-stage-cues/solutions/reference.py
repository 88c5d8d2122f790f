import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    s = data[1][:n]
    rail = []  # kinds of the puppets on the rail, frontmost last
    push = rail.append
    pop = rail.pop
    for i, c in enumerate(s):
        if c < 97:  # upper-case letter: lower a puppet
            push(c)
        elif not rail or pop() != c - 32:
            sys.stdout.write("MISMATCH %d\n" % (i + 1))
            return
    if rail:
        sys.stdout.write("UNCLOSED %d\n" % len(rail))
    else:
        sys.stdout.write("OK\n")


if __name__ == "__main__":
    main()
