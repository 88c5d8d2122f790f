#include <cctype>
#include <iostream>
#include <string>

int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    int r;
    std::cin >> r;
    std::string row, out;
    for (int t = 0; t < r; ++t) {
        std::cin >> row;
        size_t n = row.size();
        for (auto &c : row) c = (char)std::tolower((unsigned char)c);
        bool first = true;
        for (size_t i = 0; i < n;) {
            size_t j = i;
            while (j < n && row[j] == row[i]) ++j;
            if (!first) out.push_back(' ');
            first = false;
            out += std::to_string(j - i);
            out.push_back(row[i]);
            i = j;
        }
        out.push_back('\n');
    }
    std::cout << out;
    return 0;
}
