// Deliberately slow: extends a stretch to the right from every start until its swing passes R, with the shortcut
// a hurried solution takes when the whole log swings at most R and L is 0 (every stretch counts). Correct, but
// O(n * stretch length): quadratic on a calm log where stretches last thousands of minutes.
#include <algorithm>
#include <cstdio>
#include <vector>

int main() {
    int n, lo, hi;
    if (std::scanf("%d %d %d", &n, &lo, &hi) != 3) return 0;
    std::vector<int> a(n);
    for (auto& x : a) std::scanf("%d", &x);
    if (lo == 0 && *std::max_element(a.begin(), a.end()) - *std::min_element(a.begin(), a.end()) <= hi) {
        std::printf("%lld\n", (long long)n * (n + 1) / 2);
        return 0;
    }
    long long total = 0;
    for (int i = 0; i < n; i++) {
        int mx = a[i], mn = a[i];
        for (int j = i; j < n; j++) {
            if (a[j] > mx) mx = a[j];
            if (a[j] < mn) mn = a[j];
            if (mx - mn > hi) break;
            if (mx - mn >= lo) total++;
        }
    }
    std::printf("%lld\n", total);
    return 0;
}
