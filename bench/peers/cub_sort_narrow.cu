// Peer for the radix sort's 8- and 16-bit keys and 16-byte values:
// CUB on the GPU, timed on both clocks (peer_timing.cuh; median of 21 after a warm-up).
//   cub_sort_narrow log2N...     prints: name N median_ms Mitems_per_s
// Keys random from a fixed hash (as cub_bench.cu), all bits sorted:
//   cub_sortkeys_u8          DeviceRadixSort::SortKeys, uint8_t keys
//   cub_sortkeys_u16         DeviceRadixSort::SortKeys, uint16_t keys
//   cub_sortpairs_u32_v16    DeviceRadixSort::SortPairs, uint32_t keys + 16-byte values (uint4: a float4 particle)
// clsort's bench rows of the same cases: "sort" u8_keys, u16_keys, u32_keys_16byte_values.
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o build/cub_sort_narrow bench/peers/cub_sort_narrow.cu
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
#include "peer_timing.cuh"

__device__ unsigned mix(size_t i, unsigned seed) {
    unsigned x = (unsigned)i * 2654435761u ^ seed; x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    return x;
}
__global__ void fill(uint8_t *k8, uint16_t *k16, unsigned *k32, uint4 *v, size_t n, unsigned seed) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = mix(i, seed);
    k8[i] = (uint8_t)(x >> 3); k16[i] = (uint16_t)(x >> 7); k32[i] = x;
    v[i] = make_uint4((unsigned)i, x, ~x, (unsigned)i ^ 0x5bd1e995u);
}
int main(int argc, char **argv) {
    for (int ai = 1; ai < argc; ai++) {
        size_t n = (size_t)1 << atoi(argv[ai]);
        uint8_t *k8, *k8b; uint16_t *k16, *k16b; unsigned *k32, *k32b; uint4 *v, *vb;
        CK(cudaMalloc(&k8, n)); CK(cudaMalloc(&k8b, n)); CK(cudaMalloc(&k16, n * 2)); CK(cudaMalloc(&k16b, n * 2));
        CK(cudaMalloc(&k32, n * 4)); CK(cudaMalloc(&k32b, n * 4)); CK(cudaMalloc(&v, n * 16)); CK(cudaMalloc(&vb, n * 16));
        fill<<<(unsigned)((n + 255) / 256), 256>>>(k8, k16, k32, v, n, 12345u); CK(cudaDeviceSynchronize());
        size_t t1 = 0, t2 = 0, t3 = 0; void *tmp = nullptr;
        CK(cub::DeviceRadixSort::SortKeys(nullptr, t1, k8, k8b, n));
        CK(cub::DeviceRadixSort::SortKeys(nullptr, t2, k16, k16b, n));
        CK(cub::DeviceRadixSort::SortPairs(nullptr, t3, k32, k32b, v, vb, n));
        size_t tb = std::max({t1, t2, t3}); CK(cudaMalloc(&tmp, tb));
        int reps = 21;
        peer_ms ms = med([&] { size_t s = tb; cub::DeviceRadixSort::SortKeys(tmp, s, k8, k8b, n); }, reps);
        row("cub_sortkeys_u8", n, ms);
        ms = med([&] { size_t s = tb; cub::DeviceRadixSort::SortKeys(tmp, s, k16, k16b, n); }, reps);
        row("cub_sortkeys_u16", n, ms);
        ms = med([&] { size_t s = tb; cub::DeviceRadixSort::SortPairs(tmp, s, k32, k32b, v, vb, n); }, reps);
        row("cub_sortpairs_u32_v16", n, ms);
        CK(cudaGetLastError());
        cudaFree(k8); cudaFree(k8b); cudaFree(k16); cudaFree(k16b); cudaFree(k32); cudaFree(k32b); cudaFree(v); cudaFree(vb);
        cudaFree(tmp);
    }
}
