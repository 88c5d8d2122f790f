#include <cstdio>
#include <vector>
#include <algorithm>

// Sort, then the heaviest remaining paddler always launches, taking the
// lightest remaining one along when the pair fits.
int main() {
    int n, cap;
    if (std::scanf("%d %d", &n, &cap) != 2) return 0;
    std::vector<int> w(n);
    for (int i = 0; i < n; ++i) std::scanf("%d", &w[i]);
    std::sort(w.begin(), w.end());
    int i = 0, j = n - 1;
    long long kayaks = 0;
    while (i <= j) {
        if (i < j && w[i] + w[j] <= cap) ++i;
        --j;
        ++kayaks;
    }
    std::printf("%lld\n", kayaks);
    return 0;
}
