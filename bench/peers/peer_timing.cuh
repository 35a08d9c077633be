// The timing of the CUDA peers (bench/peers/*.cu): each call is timed on both clocks.
//   ms       CUDA events recorded before and after the call: the GPU's span of the call's kernels,
//            without the host's launch and the wait for completion;
//   host ms  what clsort's bench.c measures: synchronize, a monotonic host clock around the call and
//            a second synchronize: every kernel of the call and its launch costs.
// Each is the median of reps calls after one warm-up call. A row prints "name n ms Mitems/s host
// HOST_MS" (bench/table.py reads both: its ratios set clsort's host-clock time against each).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

struct peer_ms { float ms, host_ms; };

template <class F> peer_ms med(F f, int reps) {
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> t, h; f(); cudaDeviceSynchronize();
    for (int i = 0; i < reps; i++) {
        cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms);
    }
    for (int i = 0; i < reps; i++) {
        cudaDeviceSynchronize();
        auto t0 = std::chrono::steady_clock::now();
        f(); cudaDeviceSynchronize();
        h.push_back(std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    cudaEventDestroy(a); cudaEventDestroy(b);
    std::sort(t.begin(), t.end()); std::sort(h.begin(), h.end());
    return peer_ms{t[t.size() / 2], h[h.size() / 2]};
}

// One row: items per second from the event time, then the host-clock time.
static void row(const char *name, size_t n, peer_ms t) {
    printf("%s %zu %.4f %.1f host %.4f\n", name, n, t.ms, n / (t.ms * 1e3), t.host_ms);
    fflush(stdout);
}
