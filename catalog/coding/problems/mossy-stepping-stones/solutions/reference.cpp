#include <cstdio>
#include <vector>

int main() {
    const long long MOD = 1000000007LL;
    int n, k;
    if (std::scanf("%d %d", &n, &k) != 2) return 0;
    std::vector<char> mossy(n + 1, 0);
    for (int i = 0; i < k; ++i) {
        int x;
        std::scanf("%d", &x);
        mossy[x] = 1;
    }
    std::vector<long long> ways(n + 1, 0);
    ways[0] = 1;
    for (int i = 1; i <= n; ++i) {
        if (mossy[i]) continue;
        long long s = 0;
        for (int h = 1; h <= 3 && h <= i; ++h) s += ways[i - h];
        ways[i] = s % MOD;
    }
    std::printf("%lld\n", ways[n]);
    return 0;
}
