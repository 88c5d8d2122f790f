#include <cstdio>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    int rows, cols;
    long long k;
    std::cin >> rows >> cols >> k;
    int r, c;
    std::string d;
    std::cin >> r >> c >> d;
    std::vector<std::string> grid(rows);
    for (auto& line : grid) std::cin >> line;
    const std::string dirs = "NESW";
    const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
    int facing = (int)dirs.find(d[0]);
    --r, --c;
    // State = (cell, facing); it determines the whole future, so the walk is
    // eventually periodic. Record the first time each state is seen.
    auto encode = [&](int rr, int cc, int f) { return ((long long)rr * cols + cc) * 4 + f; };
    std::unordered_map<long long, long long> seen;
    seen.reserve(4 * rows * cols * 2);
    std::vector<long long> history;
    for (long long t = 0; t < k; ++t) {
        long long state = encode(r, c, facing);
        auto it = seen.find(state);
        if (it != seen.end()) {
            long long first = it->second, period = t - first;
            long long s = history[first + (k - first) % period];
            facing = (int)(s % 4);
            s /= 4;
            r = (int)(s / cols), c = (int)(s % cols);
            break;
        }
        seen.emplace(state, t);
        history.push_back(state);
        int nr = r + dr[facing], nc = c + dc[facing];
        if (nr < 0 || nr >= rows || nc < 0 || nc >= cols || grid[nr][nc] == '#') {
            facing = (facing + 1) % 4;
        } else {
            r = nr, c = nc;
            if (grid[r][c] == 'L') facing = (facing + 3) % 4;
            else if (grid[r][c] == 'R') facing = (facing + 1) % 4;
        }
    }
    printf("%d %d %c\n", r + 1, c + 1, dirs[facing]);
    return 0;
}
