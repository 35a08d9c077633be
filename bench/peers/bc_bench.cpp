// Peer benchmark: Boost.Compute primitives on one OpenCL device.
// Usage: bc_bench [platform-substring] [log2N ...]
// Prints one line per (primitive, N): name N median_ms Mitems_per_s
// Build: g++ -O2 -std=c++17 -o build/bc_bench bench/peers/bc_bench.cpp -lOpenCL   (Boost headers: libboost-dev)
#include <boost/compute.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>
namespace bc = boost::compute;

static double now_ms() {
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

template <class F> static double median_ms(bc::command_queue &q, F f, int reps) {
    std::vector<double> t;
    f(); q.finish();  // warm-up (kernel build, caches)
    for (int i = 0; i < reps; i++) { double a = now_ms(); f(); q.finish(); t.push_back(now_ms() - a); }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main(int argc, char **argv) {
    const char *want = argc > 1 ? argv[1] : "";
    bc::device dev = bc::system::default_device();
    for (auto &p : bc::system::platforms())
        if (strstr(p.name().c_str(), want)) { dev = p.devices()[0]; break; }
    bc::context ctx(dev);
    bc::command_queue q(ctx, dev);
    fprintf(stderr, "device: %s\n", dev.name().c_str());
    std::vector<int> sizes;
    for (int i = 2; i < argc; i++) sizes.push_back(atoi(argv[i]));
    if (sizes.empty()) sizes = {20, 24};
    std::mt19937 rng(42);
    for (int lg : sizes) {
        size_t n = (size_t)1 << lg;
        std::vector<uint32_t> h(n);
        for (auto &x : h) x = rng();
        bc::vector<uint32_t> src(h.begin(), h.end(), q), k(n, ctx), v(n, ctx), out(n, ctx);
        int reps = lg >= 26 ? 5 : 11;
        double ms;
        ms = median_ms(q, [&] { bc::copy(src.begin(), src.end(), k.begin(), q); bc::sort(k.begin(), k.end(), q); }, reps);
        double cp = median_ms(q, [&] { bc::copy(src.begin(), src.end(), k.begin(), q); }, reps);
        printf("sort_u32 %zu %.3f %.1f\n", n, ms - cp, n / ((ms - cp) * 1e3));
        ms = median_ms(q, [&] { bc::copy(src.begin(), src.end(), k.begin(), q); bc::iota(v.begin(), v.end(), 0u, q);
                                bc::sort_by_key(k.begin(), k.end(), v.begin(), q); }, reps);
        double cp2 = median_ms(q, [&] { bc::copy(src.begin(), src.end(), k.begin(), q); bc::iota(v.begin(), v.end(), 0u, q); }, reps);
        printf("sort_kv_u32 %zu %.3f %.1f\n", n, ms - cp2, n / ((ms - cp2) * 1e3));
        ms = median_ms(q, [&] { bc::exclusive_scan(src.begin(), src.end(), out.begin(), q); }, reps);
        printf("exclusive_scan_u32 %zu %.3f %.1f\n", n, ms, n / (ms * 1e3));
        using bc::lambda::_1;
        ms = median_ms(q, [&] { bc::copy_if(src.begin(), src.end(), out.begin(), (_1 & 1u) == 0u, q); }, reps);
        printf("copy_if_u32 %zu %.3f %.1f\n", n, ms, n / (ms * 1e3));
        ms = median_ms(q, [&] { bc::copy(src.begin(), src.end(), out.begin(), q); }, reps);
        printf("copy_u32 %zu %.3f %.1f GB/s\n", n, ms, 8.0 * n / (ms * 1e6));
    }
    return 0;
}
