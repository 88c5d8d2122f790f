#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    int rows, cols;
    if (!(std::cin >> rows >> cols)) return 0;
    std::vector<std::string> grid(rows);
    for (auto& line : grid) std::cin >> line;
    std::string commands;
    std::cin >> commands;
    int r = 0, c = 0;
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            if (grid[i][j] == 'S') r = i, c = j;
    const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};  // N, E, S, W
    std::vector<char> mowed((size_t)rows * cols, 0);
    mowed[(size_t)r * cols + c] = 1;
    long long count = 1, bumps = 0;
    int facing = 0;
    for (char ch : commands) {
        if (ch == 'F') {
            int nr = r + dr[facing], nc = c + dc[facing];
            if (nr < 0 || nr >= rows || nc < 0 || nc >= cols || grid[nr][nc] == '#') {
                ++bumps;
            } else {
                r = nr, c = nc;
                char& m = mowed[(size_t)r * cols + c];
                if (!m) m = 1, ++count;
            }
        } else if (ch == 'R') {
            facing = (facing + 1) % 4;
        } else {
            facing = (facing + 3) % 4;
        }
    }
    printf("%d %d %c\n%lld %lld\n", r + 1, c + 1, "NESW"[facing], count, bumps);
    return 0;
}
