import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    w = list(map(int, data[1:1 + n]))
    answer = [0] * n
    stack = []  # indices still waiting for a strictly heavier bag
    for i in range(n):
        wi = w[i]
        while stack and w[stack[-1]] < wi:
            j = stack.pop()
            answer[j] = i - j
        stack.append(i)
    sys.stdout.write(" ".join(map(str, answer)) + "\n")


if __name__ == "__main__":
    main()
