// Deliberately slow: checks every book against all the others, stopping at the first that breaks the rule.
// Correct, but O(n^2) on a shelf that is in order, where every check runs to the end.
#include <cstdio>
#include <vector>

int main() {
    int n;
    if (std::scanf("%d", &n) != 1) return 0;
    std::vector<long long> a(n);
    for (auto& x : a) std::scanf("%lld", &x);
    std::vector<int> anchors;
    for (int i = 0; i < n; i++) {
        bool ok = true;
        for (int j = 0; j < i && ok; j++) if (a[j] >= a[i]) ok = false;
        for (int j = i + 1; j < n && ok; j++) if (a[j] <= a[i]) ok = false;
        if (ok) anchors.push_back(i + 1);
    }
    std::printf("%d\n", (int)anchors.size());
    for (size_t k = 0; k < anchors.size(); k++) std::printf("%d%c", anchors[k], k + 1 == anchors.size() ? '\n' : ' ');
    return 0;
}
