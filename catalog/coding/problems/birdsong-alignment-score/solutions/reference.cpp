#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    long long match, mismatch, gap;
    std::string s, t;
    if (!(std::cin >> match >> mismatch >> gap >> s >> t)) return 0;
    const int n = (int)s.size(), m = (int)t.size();
    std::vector<long long> prev(m + 1), cur(m + 1);
    for (int j = 0; j <= m; ++j) prev[j] = -gap * j;
    for (int i = 1; i <= n; ++i) {
        cur[0] = -gap * i;
        for (int j = 1; j <= m; ++j) {
            long long best = prev[j - 1] + (s[i - 1] == t[j - 1] ? match : -mismatch);
            best = std::max(best, prev[j] - gap);
            best = std::max(best, cur[j - 1] - gap);
            cur[j] = best;
        }
        std::swap(prev, cur);
    }
    std::printf("%lld\n", prev[m]);
    return 0;
}
