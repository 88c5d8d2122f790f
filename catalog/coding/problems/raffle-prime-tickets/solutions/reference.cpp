#include <cstdio>
#include <string>
#include <vector>

int main() {
    const int LIMIT = 1000000;
    std::vector<char> composite(LIMIT + 1, 0);
    composite[0] = composite[1] = 1;
    for (long long i = 2; i * i <= LIMIT; ++i)
        if (!composite[i])
            for (long long j = i * i; j <= LIMIT; j += i) composite[j] = 1;
    std::vector<int> cnt(LIMIT + 1, 0);
    std::vector<long long> tot(LIMIT + 1, 0);
    for (int x = 1; x <= LIMIT; ++x) {
        cnt[x] = cnt[x - 1] + (composite[x] ? 0 : 1);
        tot[x] = tot[x - 1] + (composite[x] ? 0 : x);
    }
    int q;
    if (scanf("%d", &q) != 1) return 0;
    std::string out;
    out.reserve(q * 20);
    char line[64];
    for (int k = 0; k < q; ++k) {
        int lo, hi;
        scanf("%d %d", &lo, &hi);
        int len = snprintf(line, sizeof line, "%d %lld\n", cnt[hi] - cnt[lo - 1], tot[hi] - tot[lo - 1]);
        out.append(line, len);
    }
    fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
