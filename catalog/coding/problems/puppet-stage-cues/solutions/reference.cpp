#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    int n;
    std::string s;
    std::cin >> n >> s;
    std::vector<char> rail;
    rail.reserve(n);
    for (int i = 0; i < n; ++i) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z') {
            rail.push_back(c);
        } else {
            if (rail.empty() || rail.back() != c - 32) {
                std::printf("MISMATCH %d\n", i + 1);
                return 0;
            }
            rail.pop_back();
        }
    }
    if (rail.empty()) std::printf("OK\n");
    else std::printf("UNCLOSED %d\n", (int)rail.size());
    return 0;
}
