#include <algorithm>
#include <cstdio>
#include <numeric>
#include <vector>

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 0;
    std::vector<long long> a(n), b(n);
    for (auto& x : a) std::scanf("%lld", &x);
    for (auto& x : b) std::scanf("%lld", &x);
    std::vector<int> oa(n), ob(n);
    std::iota(oa.begin(), oa.end(), 0);
    std::iota(ob.begin(), ob.end(), 0);
    std::stable_sort(oa.begin(), oa.end(), [&](int x, int y) { return a[x] < a[y]; });
    std::stable_sort(ob.begin(), ob.end(), [&](int x, int y) { return b[x] < b[y]; });
    std::vector<int> target(n);
    for (int r = 0; r < n; ++r) {
        if (a[oa[r]] != b[ob[r]]) {
            std::puts("-1");
            return 0;
        }
        target[ob[r]] = oa[r];
    }
    // Count inversions of target with a Fenwick tree.
    std::vector<int> tree(n + 1, 0);
    long long inversions = 0;
    for (int seen = 0; seen < n; ++seen) {
        int smaller = 0;
        for (int i = target[seen] + 1; i > 0; i &= i - 1) smaller += tree[i];
        inversions += seen - smaller;
        for (int i = target[seen] + 1; i <= n; i += i & -i) tree[i]++;
    }
    std::printf("%lld\n", inversions);
    return 0;
}
