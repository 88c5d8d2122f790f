// Deliberately slow: keeps the colours seen so far in a list and finds each note's colour by scanning it.
// Correct, but O(n * d) string comparisons for d different colours: quadratic when most notes are new colours.
#include <cctype>
#include <iostream>
#include <string>
#include <vector>
int main() {
    std::ios::sync_with_stdio(false);
    int n; std::cin >> n;
    std::vector<std::string> colours; std::vector<int> counts;
    std::string s;
    for (int i = 0; i < n; i++) {
        std::cin >> s;
        for (auto& ch : s) ch = std::tolower(static_cast<unsigned char>(ch));
        size_t j = 0;
        while (j < colours.size() && colours[j] != s) j++;
        if (j == colours.size()) { colours.push_back(s); counts.push_back(0); }
        counts[j]++;
    }
    size_t best = 0;
    for (size_t j = 1; j < colours.size(); j++) if (counts[j] > counts[best]) best = j;
    std::cout << colours[best] << ' ' << counts[best] << '\n';
}
