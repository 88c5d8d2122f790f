// Deliberately slow: the heaviest paddler left takes a kayak with the heaviest remaining partner that fits,
// found by scanning every paddler still on the jetty. Correct, but O(n^2) when few pairs fit.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <vector>

int main() {
    int n, cap;
    if (std::scanf("%d %d", &n, &cap) != 2) return 0;
    std::vector<int> w(n);
    for (auto& x : w) std::scanf("%d", &x);
    std::sort(w.begin(), w.end(), std::greater<int>());
    std::vector<char> used(n, 0);
    int kayaks = 0;
    for (int i = 0; i < n; i++) {
        if (used[i]) continue;
        used[i] = 1;
        kayaks++;
        for (int j = i + 1; j < n; j++) if (!used[j] && w[i] + w[j] <= cap) { used[j] = 1; break; }
    }
    std::printf("%d\n", kayaks);
    return 0;
}
