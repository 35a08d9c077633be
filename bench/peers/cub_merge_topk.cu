// Peer benchmark: merge of two sorted halves (thrust::merge, thrust::merge_by_key,
// cub::DeviceMerge keys and pairs) and top-k (the CCCL of CUDA 13.0 has no cub::DeviceTopK:
// a full cub::DeviceRadixSort of the n keys stands for it, the reference of clsort's top_k rows),
// timed on both clocks (peer_timing.cuh).
// Usage: cub_merge_topk log2N...   Prints: name N median_ms Mitems_per_s host host_median_ms
//   merge rows: N = n + m, two sorted halves of N / 2 random u32 keys each (key i of a half lies in
//   [i, i + 1) * 2^32 / (N / 2), as bench/bench.c's merge rows), values the input index;
//   top-k rows: N random u32 keys (and u32 values), sorted whole.
// Build: nvcc -O3 -std=c++17 --extended-lambda -arch=sm_90 -o build/cub_merge_topk bench/peers/cub_merge_topk.cu
#include <cub/cub.cuh>
#include <thrust/execution_policy.h>
#include <thrust/merge.h>
#include <cstdio>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
#include "peer_timing.cuh"

__device__ unsigned mix(unsigned x) { x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16; return x; }

// Two sorted halves of h keys each, values the index; the random keys of the top-k rows.
__global__ void fill(unsigned *halves, unsigned *v, unsigned *rand_keys, size_t n, size_t h) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    size_t j = i < h ? i : i - h;
    unsigned long long step = (1ull << 32) / h;
    halves[i] = (unsigned)(j * step + mix((unsigned)i * 2654435761u ^ 777u) % step);
    v[i] = (unsigned)i;
    rand_keys[i] = mix((unsigned)i * 2654435761u ^ 12345u);
}

int main(int argc, char **argv) {
    for (int ai = 1; ai < argc; ai++) {
        size_t n = (size_t)1 << atoi(argv[ai]), h = n / 2;
        unsigned *k, *v, *r, *o, *vo;
        CK(cudaMalloc(&k, n * 4)); CK(cudaMalloc(&v, n * 4)); CK(cudaMalloc(&r, n * 4));
        CK(cudaMalloc(&o, n * 4)); CK(cudaMalloc(&vo, n * 4));
        fill<<<(n + 255) / 256, 256>>>(k, v, r, n, h); CK(cudaDeviceSynchronize());
        size_t t1 = 0, t2 = 0, t3 = 0, t4 = 0; void *tmp = nullptr;
        cub::DeviceMerge::MergeKeys(nullptr, t1, k, (int64_t)h, k + h, (int64_t)(n - h), o);
        cub::DeviceMerge::MergePairs(nullptr, t2, k, v, (int64_t)h, k + h, v + h, (int64_t)(n - h), o, vo);
        cub::DeviceRadixSort::SortKeys(nullptr, t3, r, o, n);
        cub::DeviceRadixSort::SortPairs(nullptr, t4, r, o, v, vo, n);
        size_t tb = std::max({t1, t2, t3, t4}); CK(cudaMalloc(&tmp, tb));
        int reps = 21;
        peer_ms ms = med([&] { thrust::merge(thrust::device, k, k + h, k + h, k + n, o); }, reps);
        row("thrust_merge_u32", n, ms);
        ms = med([&] { thrust::merge_by_key(thrust::device, k, k + h, k + h, k + n, v, v + h, o, vo); }, reps);
        row("thrust_merge_by_key_u32_u32", n, ms);
        ms = med([&] { size_t s = tb; cub::DeviceMerge::MergeKeys(tmp, s, k, (int64_t)h, k + h, (int64_t)(n - h), o); }, reps);
        row("cub_merge_keys_u32", n, ms);
        ms = med([&] { size_t s = tb; cub::DeviceMerge::MergePairs(tmp, s, k, v, (int64_t)h, k + h, v + h, (int64_t)(n - h), o, vo); }, reps);
        row("cub_merge_pairs_u32_u32", n, ms);
        ms = med([&] { size_t s = tb; cub::DeviceRadixSort::SortKeys(tmp, s, r, o, n); }, reps);
        row("cub_topk_full_sort_u32", n, ms);
        ms = med([&] { size_t s = tb; cub::DeviceRadixSort::SortPairs(tmp, s, r, o, v, vo, n); }, reps);
        row("cub_topk_full_sort_u32_u32", n, ms);
        ms = med([&] { CK(cudaMemcpyAsync(o, k, n * 4, cudaMemcpyDeviceToDevice)); }, reps);
        printf("cuda_copy_u32 %zu %.4f %.1f GB/s host %.4f\n", n, ms.ms, 8.0 * n / (ms.ms * 1e6), ms.host_ms);
        cudaFree(k); cudaFree(v); cudaFree(r); cudaFree(o); cudaFree(vo); cudaFree(tmp);
    }
    return 0;
}
