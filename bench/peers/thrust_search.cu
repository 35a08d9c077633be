// Peer benchmark: thrust::lower_bound (vectorized binary search) and thrust::gather, the peers of
// clsort's search rows and its gather_many row, timed on both clocks (peer_timing.cuh).
// Usage: thrust_search log2N...   Prints: name N median_ms Mitems_per_s host host_median_ms
// Build: nvcc -O3 -std=c++17 --extended-lambda -arch=sm_90 -o build/thrust_search bench/peers/thrust_search.cu
// Data as bench.c's search rows: K sorted u32 keys spread over the 32-bit range (key i = i * 2^32 / K
// plus a random offset below that step), K = N or 16 N; N needles, random u32 or sorted (spread alike).
// gather: one random index array below N over four arrays (float4, u32, u32, u64) in four thrust::gather
// calls (thrust has no multi-array gather but a zip iterator, also timed).
#include <thrust/binary_search.h>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>
#include <cstdio>
#include <cstdint>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
#include "peer_timing.cuh"

static uint32_t rnd(unsigned long long *s) { *s ^= *s << 13; *s ^= *s >> 7; *s ^= *s << 17; return (uint32_t)(*s >> 11); }

static unsigned *spread_keys(size_t k, unsigned long long seed) {
    std::vector<unsigned> h(k);
    uint64_t step = ((uint64_t)1 << 32) / k;
    for (size_t i = 0; i < k; i++) h[i] = (unsigned)(i * step + (step > 1 ? rnd(&seed) % step : 0));
    unsigned *d; CK(cudaMalloc(&d, k * 4)); CK(cudaMemcpy(d, h.data(), k * 4, cudaMemcpyHostToDevice));
    return d;
}

int main(int argc, char **argv) {
    for (int ai = 1; ai < argc; ai++) {
        size_t n = (size_t)1 << atoi(argv[ai]);
        int reps = 21;
        unsigned long long seed = 12345;
        std::vector<unsigned> h(n);
        for (size_t i = 0; i < n; i++) h[i] = rnd(&seed);
        unsigned *needles, *out;
        CK(cudaMalloc(&needles, n * 4)); CK(cudaMalloc(&out, n * 4));
        CK(cudaMemcpy(needles, h.data(), n * 4, cudaMemcpyHostToDevice));
        unsigned *sneedles = spread_keys(n, 777);
        for (int wide = 0; wide < 2; wide++) {
            size_t k = wide ? 16 * n : n;
            unsigned *hay = spread_keys(k, 0x5eed5eedull + k);
            thrust::device_ptr<unsigned> H(hay), Q(needles), S(sneedles), O(out);
            char name[96];
            peer_ms ms = med([&] { thrust::lower_bound(thrust::device, H, H + k, Q, Q + n, O); }, reps);
            snprintf(name, sizeof name, "thrust_lower_bound_u32_n_into_%sn", wide ? "16" : ""); row(name, n, ms);
            ms = med([&] { thrust::lower_bound(thrust::device, H, H + k, S, S + n, O); }, reps);
            snprintf(name, sizeof name, "thrust_lower_bound_u32_n_into_%sn_sorted_needles", wide ? "16" : ""); row(name, n, ms);
            cudaFree(hay);
        }
        {   // gather of four arrays by one random index array
            std::vector<unsigned> hi(n);
            for (size_t i = 0; i < n; i++) hi[i] = rnd(&seed) % (unsigned)n;
            unsigned *idx, *a, *b, *a2, *b2; float4 *p, *p2; unsigned long long *w, *w2;
            CK(cudaMalloc(&idx, n * 4)); CK(cudaMemcpy(idx, hi.data(), n * 4, cudaMemcpyHostToDevice));
            CK(cudaMalloc(&a, n * 4)); CK(cudaMalloc(&b, n * 4)); CK(cudaMalloc(&a2, n * 4)); CK(cudaMalloc(&b2, n * 4));
            CK(cudaMalloc(&p, n * 16)); CK(cudaMalloc(&p2, n * 16)); CK(cudaMalloc(&w, n * 8)); CK(cudaMalloc(&w2, n * 8));
            CK(cudaMemset(a, 1, n * 4)); CK(cudaMemset(b, 2, n * 4)); CK(cudaMemset(p, 3, n * 16)); CK(cudaMemset(w, 4, n * 8));
            thrust::device_ptr<unsigned> I(idx), A(a), B(b), A2(a2), B2(b2);
            thrust::device_ptr<float4> P(p), P2(p2);
            thrust::device_ptr<unsigned long long> W(w), W2(w2);
            peer_ms ms = med([&] {
                thrust::gather(thrust::device, I, I + n, P, P2); thrust::gather(thrust::device, I, I + n, A, A2);
                thrust::gather(thrust::device, I, I + n, B, B2); thrust::gather(thrust::device, I, I + n, W, W2);
            }, reps);
            row("thrust_gather_f4_u32_u32_u64_random_four_calls", n, ms);
            auto zin = thrust::make_zip_iterator(thrust::make_tuple(P, A, B, W));
            auto zout = thrust::make_zip_iterator(thrust::make_tuple(P2, A2, B2, W2));
            ms = med([&] { thrust::gather(thrust::device, I, I + n, zin, zout); }, reps);
            row("thrust_gather_f4_u32_u32_u64_random_zip", n, ms);
            cudaFree(idx); cudaFree(a); cudaFree(b); cudaFree(a2); cudaFree(b2); cudaFree(p); cudaFree(p2); cudaFree(w); cudaFree(w2);
        }
        cudaFree(needles); cudaFree(out); cudaFree(sneedles);
    }
    return 0;
}
