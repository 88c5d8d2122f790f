#include <cstdio>
#include <vector>

static char buf[1 << 25];

int main() {
    size_t len = fread(buf, 1, sizeof(buf) - 1, stdin);
    buf[len] = 0;
    char *p = buf;
    auto next = [&]() -> long long {
        while (*p && (*p < '0' || *p > '9')) ++p;
        long long v = 0;
        while (*p >= '0' && *p <= '9') v = v * 10 + (*p++ - '0');
        return v;
    };
    int n = (int)next();
    std::vector<long long> st;
    st.reserve(n);
    long long pairs = 0;
    for (int i = 0; i < n; ++i) {
        long long x = next();
        while (!st.empty() && st.back() < x) {
            st.pop_back();
            ++pairs;
        }
        if (!st.empty()) {
            ++pairs;
            if (st.back() == x) st.pop_back();
        }
        st.push_back(x);
    }
    std::printf("%lld\n", pairs);
    return 0;
}
