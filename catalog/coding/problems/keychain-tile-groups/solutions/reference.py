import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    groups = {}
    for word in data[1:1 + n]:
        key = "".join(sorted(word))
        groups.setdefault(key, []).append(word)
    out = [" ".join(words) for words in groups.values()]
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
