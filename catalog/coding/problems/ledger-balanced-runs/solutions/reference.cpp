#include <cstdint>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

struct KeyHash {
    size_t operator()(const std::pair<int, long long>& k) const {
        uint64_t x = (uint64_t)k.second * 0x9E3779B97F4A7C15ULL + (uint64_t)k.first;
        x ^= x >> 31;
        x *= 0xBF58476D1CE4E5B9ULL;
        x ^= x >> 29;
        return (size_t)x;
    }
};

int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    int n;
    if (!(std::cin >> n)) return 0;
    std::unordered_map<std::string, int> id;
    std::vector<std::string> names;
    std::vector<long long> balance, runs;
    std::unordered_map<std::pair<int, long long>, long long, KeyHash> seen;
    seen.reserve(2 * n + 16);
    std::string name;
    long long amount;
    for (int k = 0; k < n; ++k) {
        std::cin >> name >> amount;
        auto it = id.find(name);
        int a;
        if (it == id.end()) {
            a = (int)names.size();
            id.emplace(name, a);
            names.push_back(name);
            balance.push_back(0);
            runs.push_back(0);
            seen[{a, 0}] = 1;
        } else {
            a = it->second;
        }
        balance[a] += amount;
        long long& c = seen[{a, balance[a]}];
        runs[a] += c;
        ++c;
    }
    std::string out;
    for (size_t a = 0; a < names.size(); ++a) out += names[a] + " " + std::to_string(runs[a]) + "\n";
    std::cout << out;
    return 0;
}
