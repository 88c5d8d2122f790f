#include <cstdio>
#include <functional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

struct Canal {
    int to;
    long long w, p;
};

int main() {
    int n, m, kmax;
    if (std::scanf("%d %d %d", &n, &m, &kmax) != 3) return 0;
    std::vector<std::vector<Canal>> adj(n + 1);
    for (int i = 0; i < m; ++i) {
        int u, v;
        long long w, p;
        std::scanf("%d %d %lld %lld", &u, &v, &w, &p);
        adj[u].push_back({v, w, p});
        adj[v].push_back({u, w, p});
    }
    const int layers = kmax + 1;
    const long long INF = (long long)4e18;
    // dist[v * layers + used]: earliest arrival at basin v having used `used` passes.
    std::vector<long long> dist((size_t)(n + 1) * layers, INF);
    using Item = std::pair<long long, int>;
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> pq;
    dist[layers] = 0;
    pq.push({0, layers});
    while (!pq.empty()) {
        auto [t, s] = pq.top();
        pq.pop();
        if (t > dist[s]) continue;
        int u = s / layers, used = s % layers;
        for (const Canal& c : adj[u]) {
            long long r = t % c.p;
            long long nt = (r == 0 ? t : t - r + c.p) + c.w;
            int sv = c.to * layers + used;
            if (nt < dist[sv]) {
                dist[sv] = nt;
                pq.push({nt, sv});
            }
            if (used < kmax && r != 0) {
                nt = t + c.w;
                if (nt < dist[sv + 1]) {
                    dist[sv + 1] = nt;
                    pq.push({nt, sv + 1});
                }
            }
        }
    }
    std::string out;
    for (int v = 1; v <= n; ++v) {
        long long best = INF;
        for (int k = 0; k < layers; ++k) best = std::min(best, dist[(size_t)v * layers + k]);
        if (v > 1) out.push_back(' ');
        out += best == INF ? std::string("-1") : std::to_string(best);
    }
    out.push_back('\n');
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
