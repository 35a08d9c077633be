// Peer benchmark: CUB device-wide primitives on the GPU, timed on both clocks (peer_timing.cuh).
// Usage: cub_bench log2N...   Prints: name N median_ms Mitems_per_s host host_median_ms
// Build: nvcc -O3 -std=c++17 --extended-lambda -arch=sm_90 -o build/cub_bench bench/peers/cub_bench.cu
#include <cub/cub.cuh>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>
#include <cstdio>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
#include "peer_timing.cuh"

__global__ void fill(unsigned *k, unsigned *v, unsigned *f, size_t n, unsigned seed) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) { unsigned x = (unsigned)i * 2654435761u ^ seed; x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
                 k[i] = x; v[i] = (unsigned)i; f[i] = x & 1u; }
}
// select_if's and partition's peers: the keys above 2^31 (about half of the random keys), as clsort's select rows.
struct AboveHalf {
    __device__ bool operator()(unsigned k) const { return k > 0x80000000u; }
};
struct PairAboveHalf {
    __device__ bool operator()(const thrust::tuple<unsigned, unsigned> &kv) const { return thrust::get<0>(kv) > 0x80000000u; }
};
int main(int argc, char **argv) {
    for (int ai = 1; ai < argc; ai++) {
        size_t n = (size_t)1 << atoi(argv[ai]);
        unsigned *k, *v, *f, *k2, *v2, *o, *nsel; unsigned long long *k64, *k64b;
        CK(cudaMalloc(&k, n * 4)); CK(cudaMalloc(&v, n * 4)); CK(cudaMalloc(&f, n * 4)); CK(cudaMalloc(&k2, n * 4));
        CK(cudaMalloc(&v2, n * 4)); CK(cudaMalloc(&o, n * 4)); CK(cudaMalloc(&nsel, 4));
        CK(cudaMalloc(&k64, n * 8)); CK(cudaMalloc(&k64b, n * 8));
        fill<<<(n + 255) / 256, 256>>>(k, v, f, n, 12345u); CK(cudaDeviceSynchronize());
        size_t tb = 0; void *tmp = nullptr;
        size_t t1 = 0, t2 = 0, t3 = 0, t4 = 0, t5 = 0, t6 = 0, t7 = 0, t8 = 0, t9 = 0, t10 = 0;
        auto kv_in = thrust::make_zip_iterator(thrust::make_tuple(k, v));
        auto kv_out = thrust::make_zip_iterator(thrust::make_tuple(k2, v2));
        cub::DeviceRadixSort::SortKeys(nullptr, t1, k, k2, n);
        cub::DeviceRadixSort::SortPairs(nullptr, t2, k, k2, v, v2, n);
        cub::DeviceScan::ExclusiveSum(nullptr, t3, k, o, n);
        cub::DeviceSelect::Flagged(nullptr, t4, k, f, o, nsel, n);
        cub::DeviceRadixSort::SortKeys(nullptr, t5, k64, k64b, n);
        cub::DeviceSelect::If(nullptr, t6, k, o, nsel, n, AboveHalf());
        cub::DeviceSelect::If(nullptr, t7, kv_in, kv_out, nsel, n, PairAboveHalf());
        cub::DevicePartition::If(nullptr, t8, k, o, nsel, n, AboveHalf());
        cub::DevicePartition::If(nullptr, t9, kv_in, kv_out, nsel, n, PairAboveHalf());
        cub::DevicePartition::Flagged(nullptr, t10, k, f, o, nsel, n);
        tb = std::max({t1, t2, t3, t4, t5, t6, t7, t8, t9, t10}); CK(cudaMalloc(&tmp, tb));
        int reps = 21;
        int bits[] = {32, 16, 10};
        for (int b : bits) {
            peer_ms ms = med([&] { size_t s = tb; cub::DeviceRadixSort::SortKeys(tmp, s, k, k2, n, 0, b); }, reps);
            char name[64]; snprintf(name, sizeof name, "cub_sortkeys_u32_b%d", b); row(name, n, ms);
            ms = med([&] { size_t s = tb; cub::DeviceRadixSort::SortPairs(tmp, s, k, k2, v, v2, n, 0, b); }, reps);
            snprintf(name, sizeof name, "cub_sortpairs_u32_b%d", b); row(name, n, ms);
        }
        peer_ms ms = med([&] { size_t s = tb; cub::DeviceRadixSort::SortKeys(tmp, s, k64, k64b, n); }, reps);
        row("cub_sortkeys_u64", n, ms);
        ms = med([&] { size_t s = tb; cub::DeviceScan::ExclusiveSum(tmp, s, k, o, n); }, reps);
        row("cub_exclusive_sum_u32", n, ms);
        ms = med([&] { size_t s = tb; cub::DeviceSelect::Flagged(tmp, s, k, f, o, nsel, n); }, reps);
        row("cub_select_flagged_u32", n, ms);
        ms = med([&] { size_t s = tb; cub::DeviceSelect::If(tmp, s, k, o, nsel, n, AboveHalf()); }, reps);
        row("cub_select_if_u32", n, ms);
        ms = med([&] { size_t s = tb; cub::DeviceSelect::If(tmp, s, kv_in, kv_out, nsel, n, PairAboveHalf()); }, reps);
        row("cub_select_if_u32_u32", n, ms);
        // partition's and split's peers: selected first, the rest after (CUB writes the rest reversed)
        ms = med([&] { size_t s = tb; cub::DevicePartition::If(tmp, s, k, o, nsel, n, AboveHalf()); }, reps);
        row("cub_partition_if_u32", n, ms);
        ms = med([&] { size_t s = tb; cub::DevicePartition::If(tmp, s, kv_in, kv_out, nsel, n, PairAboveHalf()); }, reps);
        row("cub_partition_if_u32_u32", n, ms);
        ms = med([&] { size_t s = tb; cub::DevicePartition::Flagged(tmp, s, k, f, o, nsel, n); }, reps);
        row("cub_partition_flagged_u32", n, ms);
        {   // comparison sort and segmented sort (fixed 1024-key segments): the anchors for bitonic sort
            size_t tm = 0, ts = 0; int nseg = (int)(n / 1024); int *offs; CK(cudaMalloc(&offs, (nseg + 1) * sizeof(int)));
            std::vector<int> ho(nseg + 1); for (int i = 0; i <= nseg; i++) ho[i] = i * 1024;
            CK(cudaMemcpy(offs, ho.data(), (nseg + 1) * sizeof(int), cudaMemcpyHostToDevice));
            auto lt = [] __device__ (unsigned a, unsigned b) { return a < b; };
            cub::DeviceMergeSort::SortKeysCopy(nullptr, tm, k, k2, (int64_t)n, lt);
            cub::DeviceSegmentedSort::SortKeys(nullptr, ts, k, k2, (int64_t)n, nseg, offs, offs + 1);
            void *tmp2; CK(cudaMalloc(&tmp2, std::max(tm, ts)));
            peer_ms m1 = med([&] { size_t s = tm; cub::DeviceMergeSort::SortKeysCopy(tmp2, s, k, k2, (int64_t)n, lt); }, reps);
            row("cub_mergesort_u32", n, m1);
            peer_ms m2 = med([&] { size_t s = ts; cub::DeviceSegmentedSort::SortKeys(tmp2, s, k, k2, (int64_t)n, nseg, offs, offs + 1); }, reps);
            row("cub_segsort1024_u32", n, m2);
            cudaFree(tmp2); cudaFree(offs);
        }
        ms = med([&] { CK(cudaMemcpyAsync(o, k, n * 4, cudaMemcpyDeviceToDevice)); }, reps);
        printf("cuda_copy_u32 %zu %.4f %.1f GB/s host %.4f\n", n, ms.ms, 8.0 * n / (ms.ms * 1e6), ms.host_ms);
        cudaFree(k); cudaFree(v); cudaFree(f); cudaFree(k2); cudaFree(v2); cudaFree(o); cudaFree(nsel); cudaFree(k64); cudaFree(k64b); cudaFree(tmp);
    }
}
