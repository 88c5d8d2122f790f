#include <climits>
#include <cstdio>
#include <string>
#include <vector>

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    std::vector<long long> a(n);
    for (auto& v : a) scanf("%lld", &v);
    // suffix_min[i] = smallest number strictly to the right of position i.
    std::vector<long long> suffix_min(n);
    long long best = LLONG_MAX;
    for (int i = n - 1; i >= 0; --i) {
        suffix_min[i] = best;
        if (a[i] < best) best = a[i];
    }
    std::vector<int> anchors;
    long long prefix_max = LLONG_MIN;
    for (int i = 0; i < n; ++i) {
        if (prefix_max < a[i] && a[i] < suffix_min[i]) anchors.push_back(i + 1);
        if (a[i] > prefix_max) prefix_max = a[i];
    }
    std::string out = std::to_string(anchors.size()) + "\n";
    for (size_t k = 0; k < anchors.size(); ++k) {
        if (k) out += ' ';
        out += std::to_string(anchors[k]);
    }
    if (!anchors.empty()) out += '\n';
    fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}
