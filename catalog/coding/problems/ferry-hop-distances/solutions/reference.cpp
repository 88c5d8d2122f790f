#include <cstdio>
#include <vector>
#include <string>

int main() {
    int n, m;
    if (std::scanf("%d %d", &n, &m) != 2) return 0;
    std::vector<int> eu(m), ev(m), deg(n + 2, 0);
    for (int i = 0; i < m; ++i) {
        std::scanf("%d %d", &eu[i], &ev[i]);
        deg[eu[i]]++;
        deg[ev[i]]++;
    }
    // Compressed adjacency lists.
    std::vector<int> start(n + 2, 0);
    for (int v = 1; v <= n; ++v) start[v + 1] = start[v] + deg[v];
    std::vector<int> fill(start.begin(), start.end()), adj(2 * (size_t)m);
    for (int i = 0; i < m; ++i) {
        adj[fill[eu[i]]++] = ev[i];
        adj[fill[ev[i]]++] = eu[i];
    }
    std::vector<int> dist(n + 1, -1), queue;
    queue.reserve(n);
    dist[1] = 0;
    queue.push_back(1);
    for (size_t head = 0; head < queue.size(); ++head) {
        int u = queue[head];
        for (int k = start[u]; k < start[u + 1]; ++k) {
            int v = adj[k];
            if (dist[v] < 0) {
                dist[v] = dist[u] + 1;
                queue.push_back(v);
            }
        }
    }
    std::string out;
    out.reserve((size_t)n * 7);
    for (int v = 1; v <= n; ++v) {
        if (v > 1) out.push_back(' ');
        out += std::to_string(dist[v]);
    }
    out.push_back('\n');
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
