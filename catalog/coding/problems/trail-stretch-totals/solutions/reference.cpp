#include <cstdio>
#include <string>
#include <vector>

// Checkpoint i lies in (i - l + 1) * (r - i + 1) hikes inside [l, r], so
// answer = -S2 + (l + r) * S1 - (l - 1) * (r + 1) * S0 with Sk = sum a_i * i^k.
// With n <= 1e5 and |a_i| <= 1000 every term fits in a signed 64-bit integer.
int main() {
    int n, q;
    if (scanf("%d %d", &n, &q) != 2) return 0;
    std::vector<long long> p0(n + 1, 0), p1(n + 1, 0), p2(n + 1, 0);
    for (long long i = 1; i <= n; ++i) {
        long long v;
        scanf("%lld", &v);
        p0[i] = p0[i - 1] + v;
        p1[i] = p1[i - 1] + v * i;
        p2[i] = p2[i - 1] + v * i * i;
    }
    std::string out;
    char line[32];
    for (int k = 0; k < q; ++k) {
        long long lo, hi;
        scanf("%lld %lld", &lo, &hi);
        long long s0 = p0[hi] - p0[lo - 1];
        long long s1 = p1[hi] - p1[lo - 1];
        long long s2 = p2[hi] - p2[lo - 1];
        long long ans = (lo + hi) * s1 - s2 - (lo - 1) * (hi + 1) * s0;
        int len = snprintf(line, sizeof line, "%lld\n", ans);
        out.append(line, len);
    }
    fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
