// Peer for particle binning: the same re-binning built from CUB on
// the GPU, timed on both clocks (peer_timing.cuh; median of 21 after a warm-up).
//   cub_pic log2N...     prints: name N median_ms Mitems_per_s
// Particles: float4 positions, x and y uniform in the unit square, a 32 x 32
// periodic grid (cell = floor(32 x) + 32 floor(32 y)), as clsort's bench "bin" rows.
//   cub_sortpairs10_gather_f4   SortPairs(10 bits, keys + particle indices) + gather of the float4 positions
//                               (the reference: CUB SortPairs(10 bits) + a gather of the same data)
//   cub_bin_whole               cell keys + indices + SortPairs(10 bits) + gather + cell offsets (binary
//                               search per cell): everything clsort_bin does
//   cub_gather_f4               the gather alone: float4 positions by the sorted permutation
//                               (clsort's bench row gather/f4_cell_permutation)
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o build/cub_pic bench/peers/cub_pic.cu
#include <cub/cub.cuh>
#include <cstdio>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
#include "peer_timing.cuh"

__global__ void fill_pos(float4 *p, size_t n, unsigned seed) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = (unsigned)i * 2654435761u ^ seed; x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16;
    unsigned y = x * 0x9E3779B9u + 0x7f4a7c15u; y ^= y >> 15; y *= 0x2c1b3c6du; y ^= y >> 12;
    p[i] = make_float4((x >> 8) * (1.0f / 16777216.0f), (y >> 8) * (1.0f / 16777216.0f), 0.0f, 1.0f);
}
__global__ void cell_keys(const float4 *p, unsigned *k, unsigned *idx, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 q = p[i];
    int cx = (int)floorf(q.x * 32.0f) & 31, cy = (int)floorf(q.y * 32.0f) & 31;
    k[i] = (unsigned)(cx + 32 * cy);
    idx[i] = (unsigned)i;
}
__global__ void gather4(const float4 *src, float4 *dst, const unsigned *perm, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) dst[i] = src[perm[i]];
}
__global__ void offsets(const unsigned *k, size_t n, unsigned cells, unsigned *off) {
    unsigned c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c > cells) return;
    size_t lo = 0, hi = n;
    while (lo < hi) { size_t m = lo + (hi - lo) / 2; if (k[m] < c) lo = m + 1; else hi = m; }
    off[c] = (unsigned)lo;
}
int main(int argc, char **argv) {
    for (int ai = 1; ai < argc; ai++) {
        size_t n = (size_t)1 << atoi(argv[ai]);
        float4 *pos, *pos2; unsigned *k, *k2, *v, *v2, *off;
        CK(cudaMalloc(&pos, n * 16)); CK(cudaMalloc(&pos2, n * 16));
        CK(cudaMalloc(&k, n * 4)); CK(cudaMalloc(&k2, n * 4)); CK(cudaMalloc(&v, n * 4)); CK(cudaMalloc(&v2, n * 4));
        CK(cudaMalloc(&off, 1025 * 4));
        unsigned blocks = (unsigned)((n + 255) / 256);
        fill_pos<<<blocks, 256>>>(pos, n, 12345u);
        cell_keys<<<blocks, 256>>>(pos, k, v, n);
        CK(cudaDeviceSynchronize());
        size_t tb = 0; void *tmp = nullptr;
        cub::DeviceRadixSort::SortPairs(nullptr, tb, k, k2, v, v2, n, 0, 10);
        CK(cudaMalloc(&tmp, tb));
        int reps = 21;
        peer_ms ms = med([&] { size_t s = tb; cub::DeviceRadixSort::SortPairs(tmp, s, k, k2, v, v2, n, 0, 10);
                             gather4<<<blocks, 256>>>(pos, pos2, v2, n); }, reps);
        row("cub_sortpairs10_gather_f4", n, ms);
        ms = med([&] { cell_keys<<<blocks, 256>>>(pos, k, v, n);
                       size_t s = tb; cub::DeviceRadixSort::SortPairs(tmp, s, k, k2, v, v2, n, 0, 10);
                       gather4<<<blocks, 256>>>(pos, pos2, v2, n);
                       offsets<<<(1025 + 255) / 256, 256>>>(k2, n, 1024, off); }, reps);
        row("cub_bin_whole", n, ms);
        ms = med([&] { size_t s = tb; cub::DeviceRadixSort::SortPairs(tmp, s, k, k2, v, v2, n, 0, 10); }, reps);
        row("cub_sortpairs_u32_b10", n, ms);
        ms = med([&] { gather4<<<blocks, 256>>>(pos, pos2, v2, n); }, reps); /* v2: the sorted permutation */
        row("cub_gather_f4", n, ms);
        std::vector<unsigned> hk(n), ho(1025);
        CK(cudaMemcpy(hk.data(), k2, n * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(ho.data(), off, 1025 * 4, cudaMemcpyDeviceToHost));
        bool ok = ho[1024] == n;
        for (size_t i = 1; i < n && ok; i++) ok = hk[i - 1] <= hk[i];
        if (!ok) printf("cub_pic: WRONG result at n = %zu\n", n);
        cudaFree(pos); cudaFree(pos2); cudaFree(k); cudaFree(k2); cudaFree(v); cudaFree(v2); cudaFree(off); cudaFree(tmp);
    }
}
