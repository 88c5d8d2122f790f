#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

static std::vector<int> parent;

static int find(int x) {
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

int main() {
    int n, m, q;
    if (std::scanf("%d %d %d", &n, &m, &q) != 3) return 0;
    std::vector<int> u(m), v(m);
    std::vector<long long> h(m);
    for (int i = 0; i < m; ++i) std::scanf("%d %d %lld", &u[i], &v[i], &h[i]);
    std::vector<long long> level(q);
    for (int i = 0; i < q; ++i) std::scanf("%lld", &level[i]);

    std::vector<int> eo(m), qo(q);
    std::iota(eo.begin(), eo.end(), 0);
    std::iota(qo.begin(), qo.end(), 0);
    std::sort(eo.begin(), eo.end(), [&](int a, int b) { return h[a] > h[b]; });
    std::sort(qo.begin(), qo.end(), [&](int a, int b) { return level[a] > level[b]; });

    parent.resize(n + 1);
    std::iota(parent.begin(), parent.end(), 0);
    int groups = n;
    std::vector<int> answer(q);
    int e = 0;
    for (int qi : qo) {
        while (e < m && h[eo[e]] > level[qi]) {
            int a = find(u[eo[e]]), b = find(v[eo[e]]);
            ++e;
            if (a != b) {
                parent[a] = b;
                --groups;
            }
        }
        answer[qi] = groups;
    }
    std::string out;
    out.reserve((size_t)q * 7);
    for (int i = 0; i < q; ++i) {
        out += std::to_string(answer[i]);
        out.push_back('\n');
    }
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
