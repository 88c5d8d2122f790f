#include <cstdio>
#include <vector>
#include <string>

// Monotonic stack: indices still waiting for a strictly heavier bag.
int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 0;
    std::vector<int> w(n), answer(n, 0), stack;
    stack.reserve(n);
    for (int i = 0; i < n; ++i) std::scanf("%d", &w[i]);
    for (int i = 0; i < n; ++i) {
        while (!stack.empty() && w[stack.back()] < w[i]) {
            answer[stack.back()] = i - stack.back();
            stack.pop_back();
        }
        stack.push_back(i);
    }
    std::string out;
    out.reserve(static_cast<size_t>(n) * 7);
    for (int i = 0; i < n; ++i) {
        if (i) out.push_back(' ');
        out += std::to_string(answer[i]);
    }
    out.push_back('\n');
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
