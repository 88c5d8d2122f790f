#include <cstdio>
#include <cstring>
#include <vector>
#include <algorithm>

// Readings have at most two decimals: parse them exactly as hundredths.
static long long toHundredths(const char* s) {
    bool negative = false;
    if (*s == '-' || *s == '+') { negative = (*s == '-'); ++s; }
    long long whole = 0;
    while (*s >= '0' && *s <= '9') whole = whole * 10 + (*s++ - '0');
    long long frac = 0;
    int digits = 0;
    if (*s == '.') {
        ++s;
        while (*s >= '0' && *s <= '9') {
            if (digits < 2) { frac = frac * 10 + (*s - '0'); ++digits; }
            ++s;
        }
    }
    while (digits < 2) { frac *= 10; ++digits; }
    long long value = whole * 100 + frac;
    return negative ? -value : value;
}

int main() {
    int n, k;
    if (std::scanf("%d %d", &n, &k) != 2) return 0;
    std::vector<long long> r(n);
    char buf[64];
    for (int i = 0; i < n; ++i) {
        std::scanf("%63s", buf);
        r[i] = toHundredths(buf);
    }
    std::sort(r.begin(), r.end());
    long long total = 0;
    for (int i = k; i < n - k; ++i) total += r[i];
    double mean = (double)total / (100.0 * (n - 2 * k));
    std::printf("%.6f\n", mean);
    return 0;
}
