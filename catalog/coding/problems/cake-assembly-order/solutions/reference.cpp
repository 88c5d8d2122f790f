#include <cstdio>
#include <functional>
#include <queue>
#include <string>
#include <vector>

int main() {
    int n, m;
    if (std::scanf("%d %d", &n, &m) != 2) return 0;
    std::vector<std::vector<int>> after(n + 1);
    std::vector<int> indeg(n + 1, 0);
    for (int i = 0; i < m; ++i) {
        int a, b;
        std::scanf("%d %d", &a, &b);
        after[a].push_back(b);
        indeg[b]++;
    }
    std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
    for (int v = 1; v <= n; ++v)
        if (indeg[v] == 0) ready.push(v);
    std::vector<int> order;
    order.reserve(n);
    while (!ready.empty()) {
        int u = ready.top();
        ready.pop();
        order.push_back(u);
        for (int v : after[u])
            if (--indeg[v] == 0) ready.push(v);
    }
    if ((int)order.size() < n) {
        std::puts("IMPOSSIBLE");
        return 0;
    }
    std::string out;
    out.reserve((size_t)n * 7);
    for (int i = 0; i < n; ++i) {
        if (i) out.push_back(' ');
        out += std::to_string(order[i]);
    }
    out.push_back('\n');
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
