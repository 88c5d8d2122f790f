// Deliberately slow: remembers every (row, column, facing) in order and looks each new state up by scanning that
// history. Correct, but O(S^2) in the S distinct states before the walk repeats (up to 4 * R * C).
#include <cstdio>
#include <string>
#include <vector>

struct State { int r, c, d; };

int main() {
    int rows, cols;
    long long k;
    int r, c;
    char dir;
    if (std::scanf("%d %d %lld %d %d %c", &rows, &cols, &k, &r, &c, &dir) != 6) return 0;
    std::vector<std::string> grid(rows);
    static char line[512];
    for (auto& g : grid) { std::scanf("%511s", line); g = line; }
    const char* names = "NESW";
    int d = 0;
    while (names[d] != dir) d++;
    r--; c--;
    const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};
    std::vector<State> history;
    for (long long t = 0; t < k; t++) {
        long long first = -1;
        for (size_t i = 0; i < history.size(); i++) {
            if (history[i].r == r && history[i].c == c && history[i].d == d) { first = (long long)i; break; }
        }
        if (first >= 0) {
            const State& s = history[first + (k - first) % (t - first)];
            r = s.r; c = s.c; d = s.d;
            break;
        }
        history.push_back({r, c, d});
        int nr = r + dr[d], nc = c + dc[d];
        if (nr < 0 || nr >= rows || nc < 0 || nc >= cols || grid[nr][nc] == '#') { d = (d + 1) % 4; continue; }
        r = nr; c = nc;
        if (grid[r][c] == 'L') d = (d + 3) % 4;
        else if (grid[r][c] == 'R') d = (d + 1) % 4;
    }
    std::printf("%d %d %c\n", r + 1, c + 1, names[d]);
    return 0;
}
