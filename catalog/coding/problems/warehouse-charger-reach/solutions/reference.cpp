#include <cstdio>
#include <vector>
#include <string>

// Multi-source BFS from every charging pad.
int main() {
    int r, c;
    if (std::scanf("%d %d", &r, &c) != 2) return 0;
    std::string grid;
    grid.reserve(static_cast<size_t>(r) * c);
    std::vector<char> row(c + 2);
    for (int y = 0; y < r; ++y) {
        std::scanf("%s", row.data());
        grid.append(row.data(), c);
    }
    const int size = r * c;
    std::vector<int> dist(size, -1), queue;
    queue.reserve(size);
    for (int i = 0; i < size; ++i)
        if (grid[i] == 'C') { dist[i] = 0; queue.push_back(i); }
    int farthest = queue.empty() ? -1 : 0;
    for (size_t head = 0; head < queue.size(); ++head) {
        int cur = queue[head];
        int y = cur / c, x = cur % c, d = dist[cur] + 1;
        const int ny[4] = {y - 1, y + 1, y, y};
        const int nx[4] = {x, x, x - 1, x + 1};
        for (int t = 0; t < 4; ++t) {
            if (ny[t] < 0 || ny[t] >= r || nx[t] < 0 || nx[t] >= c) continue;
            int nxt = ny[t] * c + nx[t];
            if (dist[nxt] == -1 && grid[nxt] != '#') {
                dist[nxt] = d;
                if (d > farthest) farthest = d;
                queue.push_back(nxt);
            }
        }
    }
    long long unreachable = 0;
    for (int i = 0; i < size; ++i)
        if (grid[i] == '.' && dist[i] == -1) ++unreachable;
    std::printf("%d %lld\n", farthest, unreachable);
    return 0;
}
