#include <cstdio>
#include <vector>
#include <algorithm>
#include <tuple>

// Sort by end time; prev[i] = number of bookings that end early enough to
// precede booking i. Layered DP over the number of accepted bookings.
int main() {
    int n, k;
    long long gap;
    if (std::scanf("%d %d %lld", &n, &k, &gap) != 3) return 0;
    std::vector<std::tuple<long long, long long, long long>> b(n);  // (end, start, fee)
    for (int i = 0; i < n; ++i) {
        long long s, e, f;
        std::scanf("%lld %lld %lld", &s, &e, &f);
        b[i] = std::make_tuple(e, s, f);
    }
    std::sort(b.begin(), b.end());
    std::vector<long long> ends(n), fees(n);
    for (int i = 0; i < n; ++i) {
        ends[i] = std::get<0>(b[i]);
        fees[i] = std::get<2>(b[i]);
    }
    std::vector<int> prev(n);
    for (int i = 0; i < n; ++i) {
        long long limit = std::get<1>(b[i]) - gap;
        prev[i] = (int)(std::upper_bound(ends.begin(), ends.end(), limit) - ends.begin());
    }
    k = std::min(k, n);
    std::vector<long long> before(n + 1, 0), cur(n + 1, 0);
    for (int layer = 0; layer < k; ++layer) {
        cur[0] = 0;
        for (int i = 0; i < n; ++i) {
            long long take = fees[i] + before[prev[i]];
            cur[i + 1] = std::max(take, cur[i]);
        }
        std::swap(before, cur);
    }
    std::printf("%lld\n", before[n]);
    return 0;
}
