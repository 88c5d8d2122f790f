/* Writes cases/large-8's hall: a seeded hill climb from large-7's turntable serpentine that keeps each change
 * of one to three cells not shortening the walk from (1, 1) facing east before its first repeat (80,396 states
 * at the start, 111,438 at the end). Deterministic with glibc's rand():
 *   cc -O2 -o search-hall search-hall.c && ./search-hall 7 400000 > cases/large-8.in
 * then cases/large-8.out from solutions/reference.py. */
#include <stdio.h>
#include <stdlib.h>
#define R 200
#define C 200
static char g[R][C];
static int seen[R * C * 4], stamp = 0;
static const int dr[4] = {-1, 0, 1, 0}, dc[4] = {0, 1, 0, -1};

/* The number of distinct states before the first repeat. */
static int states(void) {
    stamp++;
    int r = 0, c = 0, f = 1, t = 0;
    for (;;) {
        int s = (r * C + c) * 4 + f;
        if (seen[s] == stamp) return t;
        seen[s] = stamp;
        int nr = r + dr[f], nc = c + dc[f];
        if (nr >= 0 && nr < R && nc >= 0 && nc < C && g[nr][nc] != '#') {
            r = nr; c = nc;
            if (g[r][c] == 'L') f = (f + 3) & 3;
            else if (g[r][c] == 'R') f = (f + 1) & 3;
        } else f = (f + 1) & 3;
        t++;
    }
}

int main(int argc, char** argv) {
    if (argc < 3) return 2;
    srand(atoi(argv[1]));
    int iterations = atoi(argv[2]);
    for (int r = 0; r < R; r++) for (int c = 0; c < C; c++) g[r][c] = '#';
    for (int r = 0; r < R; r += 2) for (int c = 0; c < C; c++) g[r][c] = 'L';
    for (int i = 0, r = 0; r < R - 2; r += 2, i++) g[r + 1][i % 2 == 0 ? C - 1 : 0] = 'L';
    int best = states();
    const char* tiles = ".#LR";
    for (int it = 0; it < iterations; it++) {
        int k = 1 + rand() % 3, rs[3], cs[3];
        char old[3];
        for (int j = 0; j < k; j++) {
            rs[j] = rand() % R; cs[j] = rand() % C; old[j] = g[rs[j]][cs[j]];
            g[rs[j]][cs[j]] = tiles[rand() % 4];
        }
        if (g[0][0] == '#') { for (int j = k - 1; j >= 0; j--) g[rs[j]][cs[j]] = old[j]; continue; }
        int s = states();
        if (s >= best) best = s;
        else for (int j = k - 1; j >= 0; j--) g[rs[j]][cs[j]] = old[j];
    }
    printf("%d %d 1000000000000000000\n1 1 E\n", R, C);
    for (int r = 0; r < R; r++) { fwrite(g[r], 1, C, stdout); putchar('\n'); }
    fprintf(stderr, "%d states\n", best);
    return 0;
}
