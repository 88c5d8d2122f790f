#include <algorithm>
#include <array>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    int n, k;
    std::string s;
    std::cin >> n >> k >> s;
    std::array<int, 26> cnt{};
    for (int i = 0; i < k; ++i) cnt[s[i] - 'a']++;
    std::vector<std::array<int, 26>> blends;
    blends.reserve(n - k + 1);
    blends.push_back(cnt);
    for (int i = k; i < n; ++i) {
        cnt[s[i] - 'a']++;
        cnt[s[i - k] - 'a']--;
        blends.push_back(cnt);
    }
    std::sort(blends.begin(), blends.end());
    size_t distinct = std::unique(blends.begin(), blends.end()) - blends.begin();
    std::printf("%zu\n", distinct);
    return 0;
}
