#include <iostream>
#include <string>
#include <vector>
#include <unordered_map>
#include <cctype>

// Count colours case-insensitively; ties go to the colour noted first.
int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    int n;
    if (!(std::cin >> n)) return 0;
    std::unordered_map<std::string, int> index;
    index.reserve(static_cast<size_t>(n) * 2);
    std::vector<std::string> names;  // in order of first note
    std::vector<int> counts;
    std::string colour;
    for (int i = 0; i < n; ++i) {
        std::cin >> colour;
        for (char& ch : colour) ch = (char)std::tolower((unsigned char)ch);
        auto it = index.find(colour);
        if (it == index.end()) {
            index.emplace(colour, (int)names.size());
            names.push_back(colour);
            counts.push_back(1);
        } else {
            ++counts[it->second];
        }
    }
    size_t best = 0;
    for (size_t i = 1; i < names.size(); ++i)
        if (counts[i] > counts[best]) best = i;  // strict: earlier first note wins ties
    std::cout << names[best] << ' ' << counts[best] << '\n';
    return 0;
}
