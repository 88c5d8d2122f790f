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
    int n = next();
    std::vector<int> par(n + 1), pending(n + 1, 0), sz(n + 1, 1), q;
    q.reserve(n);
    for (int v = 1; v <= n; ++v) {
        par[v] = next();
        pending[par[v]]++;
    }
    for (int v = 1; v <= n; ++v)
        if (pending[v] == 0) q.push_back(v);
    for (size_t i = 0; i < q.size(); ++i) {
        int v = q[i], u = par[v];
        if (u) {
            sz[u] += sz[v];
            if (--pending[u] == 0) q.push_back(u);
        }
    }
    std::string out;
    out.reserve((size_t)n * 7);
    for (int v = 1; v <= n; ++v) {
        if (v > 1) out.push_back(' ');
        out += std::to_string(sz[v]);
    }
    out.push_back('\n');
    fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
