#include <iostream>
#include <string>
#include <vector>
#include <unordered_map>
#include <algorithm>

// Group words by their sorted letters; groups keep first-appearance order.
int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    int n;
    if (!(std::cin >> n)) return 0;
    std::unordered_map<std::string, int> groupOf;
    groupOf.reserve(static_cast<size_t>(n) * 2);
    std::vector<std::vector<std::string>> groups;
    std::string word;
    for (int i = 0; i < n; ++i) {
        std::cin >> word;
        std::string key = word;
        std::sort(key.begin(), key.end());
        auto it = groupOf.find(key);
        if (it == groupOf.end()) {
            groupOf.emplace(key, (int)groups.size());
            groups.push_back({word});
        } else {
            groups[it->second].push_back(word);
        }
    }
    std::string out;
    for (const auto& g : groups) {
        for (size_t j = 0; j < g.size(); ++j) {
            if (j) out.push_back(' ');
            out += g[j];
        }
        out.push_back('\n');
    }
    std::cout << out;
    return 0;
}
