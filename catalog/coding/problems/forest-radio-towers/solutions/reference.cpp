#include <cstdio>
#include <vector>
#include <algorithm>

// Tree DP for minimum-cost domination. Parents have smaller labels, so
// processing labels in decreasing order visits children before parents.
//   tower[v]:   v has a tower
//   covered[v]: no tower at v, some child has a tower
//   waiting[v]: no tower at v, v not yet covered (its parent must build one)
int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 0;
    const long long INF = (long long)4e18;
    std::vector<long long> tower(n + 1, 0), coveredBase(n + 1, 0), bestExtra(n + 1, INF),
        waiting(n + 1, 0), covered(n + 1, 0);
    std::vector<int> parent(n + 1, 0);
    for (int i = 1; i <= n; ++i) std::scanf("%lld", &tower[i]);
    for (int i = 2; i <= n; ++i) std::scanf("%d", &parent[i]);
    for (int v = n; v >= 1; --v) {
        covered[v] = bestExtra[v] >= INF ? INF : coveredBase[v] + bestExtra[v];
        if (v == 1) break;
        int p = parent[v];
        long long t = tower[v], cv = covered[v], wt = waiting[v];
        tower[p] += std::min({t, cv, wt});
        long long m = std::min(t, cv);
        coveredBase[p] += m;
        bestExtra[p] = std::min(bestExtra[p], t - m);
        waiting[p] = (waiting[p] >= INF || cv >= INF) ? INF : waiting[p] + cv;
    }
    std::printf("%lld\n", std::min(tower[1], covered[1]));
    return 0;
}
