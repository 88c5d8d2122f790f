#include <cstdio>
#include <string>
#include <vector>

static char buf[1 << 24];

int main() {
    size_t len = fread(buf, 1, sizeof(buf) - 1, stdin);
    buf[len] = 0;
    char *p = buf;
    auto next = [&]() -> int {
        while (*p && (*p < '0' || *p > '9')) ++p;
        int v = 0;
        while (*p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
        return v;
    };
    int n = next(), q = next();
    std::vector<int> head(n + 1, -1), nxt(2 * n), to(2 * n), wt(2 * n);
    int e = 0;
    for (int i = 0; i < n - 1; ++i) {
        int u = next(), v = next(), w = next();
        to[e] = v; wt[e] = w; nxt[e] = head[u]; head[u] = e++;
        to[e] = u; wt[e] = w; nxt[e] = head[v]; head[v] = e++;
    }
    int LOG = 1;
    while ((1 << LOG) < n) ++LOG;
    std::vector<std::vector<int>> up(LOG, std::vector<int>(n + 1));
    std::vector<int> depth(n + 1, -1), order;
    std::vector<long long> dist(n + 1, 0);
    order.reserve(n);
    order.push_back(1);
    depth[1] = 0;
    up[0][1] = 1;
    for (size_t i = 0; i < order.size(); ++i) {
        int u = order[i];
        for (int k = head[u]; k != -1; k = nxt[k]) {
            int v = to[k];
            if (depth[v] < 0) {
                depth[v] = depth[u] + 1;
                dist[v] = dist[u] + wt[k];
                up[0][v] = u;
                order.push_back(v);
            }
        }
    }
    for (int k = 1; k < LOG; ++k)
        for (int v = 1; v <= n; ++v) up[k][v] = up[k - 1][up[k - 1][v]];
    std::string out;
    for (int i = 0; i < q; ++i) {
        int a = next(), b = next();
        int x = a, y = b;
        if (depth[x] < depth[y]) std::swap(x, y);
        int diff = depth[x] - depth[y];
        for (int k = 0; diff; ++k, diff >>= 1)
            if (diff & 1) x = up[k][x];
        if (x != y) {
            for (int k = LOG - 1; k >= 0; --k)
                if (up[k][x] != up[k][y]) { x = up[k][x]; y = up[k][y]; }
            x = up[0][x];
        }
        out += std::to_string(dist[a] + dist[b] - 2 * dist[x]);
        out.push_back('\n');
    }
    fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
