#include <algorithm>
#include <iostream>
#include <string>
#include <unordered_map>
#include <vector>

static char turn(char c) {
    switch (c) {
        case 'N': return 'E';
        case 'E': return 'S';
        case 'S': return 'W';
        default: return 'N';
    }
}

int main() {
    std::ios::sync_with_stdio(false);
    std::cin.tie(nullptr);
    int n;
    if (!(std::cin >> n)) return 0;
    std::unordered_map<std::string, int> group;  // canonical form -> group id
    group.reserve(2 * n + 16);
    std::vector<std::string> canon;
    std::vector<int> cnt, of(n);
    std::string s;
    for (int i = 0; i < n; ++i) {
        std::cin >> s;
        // The eight versions: four quarter turns, each read forwards and backwards.
        std::string best, cur = s;
        for (int r = 0; r < 4; ++r) {
            if (r) for (char& c : cur) c = turn(c);
            std::string rev(cur.rbegin(), cur.rend());
            if (r == 0 || cur < best) best = cur;
            if (rev < best) best = rev;
        }
        auto it = group.find(best);
        if (it == group.end()) {
            it = group.emplace(best, (int)canon.size()).first;
            canon.push_back(best);
            cnt.push_back(0);
        }
        ++cnt[it->second];
        of[i] = it->second;
    }
    int g = (int)canon.size();
    std::vector<int> order(g);
    for (int k = 0; k < g; ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        if (cnt[a] != cnt[b]) return cnt[a] > cnt[b];
        return canon[a] < canon[b];
    });
    std::vector<int> rank(g);
    for (int k = 0; k < g; ++k) rank[order[k]] = k + 1;
    std::string out = std::to_string(g) + "\n";
    for (int i = 0; i < n; ++i) out += std::to_string(rank[of[i]]) + "\n";
    std::cout << out;
    return 0;
}
