#include <cstdio>
#include <vector>

static char buf[1 << 23];

static long long atMost(const std::vector<int> &a, int limit) {
    if (limit < 0) return 0;
    int n = (int)a.size();
    std::vector<int> hi(n), lo(n);  // index deques as arrays with head/tail
    int hh = 0, ht = 0, lh = 0, lt = 0, left = 0;
    long long total = 0;
    for (int r = 0; r < n; ++r) {
        int x = a[r];
        while (ht > hh && a[hi[ht - 1]] <= x) --ht;
        hi[ht++] = r;
        while (lt > lh && a[lo[lt - 1]] >= x) --lt;
        lo[lt++] = r;
        while (a[hi[hh]] - a[lo[lh]] > limit) {
            if (hi[hh] < lo[lh]) left = hi[hh++] + 1;
            else left = lo[lh++] + 1;
        }
        total += r - left + 1;
    }
    return total;
}

int main() {
    size_t len = fread(buf, 1, sizeof(buf) - 1, stdin);
    buf[len] = 0;
    char *p = buf;
    auto next = [&]() -> int {
        while (*p && (*p < '0' || *p > '9')) ++p;
        int v = 0;
        while (*p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
        return v;
    };
    int n = next(), low = next(), high = next();
    std::vector<int> a(n);
    for (auto &x : a) x = next();
    std::printf("%lld\n", atMost(a, high) - atMost(a, low - 1));
    return 0;
}
