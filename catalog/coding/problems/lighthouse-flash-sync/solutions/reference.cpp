#include <cstdio>
#include <numeric>

int main() {
    int n;
    unsigned long long t;
    if (scanf("%d %llu", &n, &t) != 2) return 0;
    unsigned long long common = 1;
    bool beyond = false;
    for (int i = 0; i < n; ++i) {
        unsigned long long p;
        scanf("%llu", &p);
        if (beyond) continue;
        unsigned long long step = common / std::gcd(common, p);
        // step * p would exceed t (and possibly overflow): no joint flash.
        if (step > t / p) {
            beyond = true;
            continue;
        }
        common = step * p;
        if (common > t) beyond = true;
    }
    if (beyond) printf("0 -1\n");
    else printf("%llu %llu\n", t / common, common);
    return 0;
}
