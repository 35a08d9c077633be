// Peer for the reduction family: the CUB counterparts of clsort's bench rows reduce,
// segmented_scan, scan_by_key, segmented_reduce, reduce_by_key, run_length_encode, unique and
// histogram, on the same data shapes, timed on both clocks (peer_timing.cuh; median of 21 after a warm-up).
//   cub_reduce log2N...     prints: name N median_ms Mitems_per_s   (as cub_bench, for compare.py)
// Data: random u32 values; segments start with probability 1/1000 (mean length 1000), given as
// run keys (the segment index, for the by-key rows) and as offsets (segmented reduce).
//   cub_reduce_sum_u32              DeviceReduce::Sum                      <-> reduce u32_sum
//   cub_inclusive_sum_u32           DeviceScan::InclusiveSum               <-> segmented_scan ..._no_segments
//   cub_inclusive_sum_by_key_u32    DeviceScan::InclusiveSumByKey          <-> scan_by_key, segmented_scan (flags)
//   cub_segmented_reduce_sum_u32    DeviceSegmentedReduce::Sum (offsets)   <-> segmented_reduce
//   cub_segmented_reduce_sum_u32_mean_10, _mean_100000: the same, mean lengths 10 and 100000
//   cub_reduce_by_key_sum_u32       DeviceReduce::ReduceByKey (plus)       <-> reduce_by_key
//   cub_rle_encode_u32              DeviceRunLengthEncode::Encode          <-> run_length_encode
//   cub_unique_u32                  DeviceSelect::Unique                   <-> unique
//   cub_histogram_even_256_u32      DeviceHistogram::HistogramEven, 256 bins over [0, 2^32) <-> histogram
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o build/cub_reduce bench/peers/cub_reduce.cu
#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <cstdio>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
#include "peer_timing.cuh"

__device__ unsigned mix(unsigned x) { x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16; return x; }

__global__ void fill(unsigned *v, unsigned *head, int *iota, size_t n, unsigned seed) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    v[i] = mix((unsigned)i * 2654435761u ^ seed);
    head[i] = i > 0 && mix((unsigned)i * 0x9E3779B9u ^ (seed + 1)) % 1000u == 0;
    iota[i] = (int)i;
}
__global__ void close_offsets(int *off, const int *count, int n) { off[0] = 0; off[*count + 1] = n; }
// heads with probability 1 / mean (segmented reduce's other mean lengths)
__global__ void heads_mean(unsigned *head, size_t n, unsigned mean, unsigned seed) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) head[i] = i > 0 && mix((unsigned)i * 0x9E3779B9u ^ seed) % mean == 0;
}


int main(int argc, char **argv) {
    for (int ai = 1; ai < argc; ai++) {
        size_t n = (size_t)1 << atoi(argv[ai]);
        int ni = (int)n, reps = 21;
        unsigned *v, *head, *keys, *o, *ko, *vo, *hist; int *iota, *off, *cnt, nseg = 0;
        unsigned long long *sum;
        CK(cudaMalloc(&v, n * 4)); CK(cudaMalloc(&head, n * 4)); CK(cudaMalloc(&keys, n * 4)); CK(cudaMalloc(&o, n * 4));
        CK(cudaMalloc(&ko, n * 4)); CK(cudaMalloc(&vo, n * 4)); CK(cudaMalloc(&iota, n * 4)); CK(cudaMalloc(&off, n * 4 + 8));
        CK(cudaMalloc(&cnt, 4)); CK(cudaMalloc(&sum, 8)); CK(cudaMalloc(&hist, 256 * 4));
        fill<<<(n + 255) / 256, 256>>>(v, head, iota, n, 12345u);
        size_t t[10] = {0}, tb; void *tmp = nullptr;
        // run keys = inclusive sum of the heads; offsets = [0, heads..., n]
        cub::DeviceScan::InclusiveSum(nullptr, t[0], head, keys, ni);
        cub::DeviceSelect::Flagged(nullptr, t[1], iota, head, off + 1, cnt, ni);
        cub::DeviceReduce::Sum(nullptr, t[2], v, (unsigned *)sum, ni);
        cub::DeviceScan::InclusiveSumByKey(nullptr, t[3], keys, v, o, ni);
        cub::DeviceReduce::ReduceByKey(nullptr, t[4], keys, ko, v, vo, cnt, cuda::std::plus<unsigned>(), ni);
        cub::DeviceRunLengthEncode::Encode(nullptr, t[5], keys, ko, vo, cnt, ni);
        cub::DeviceSelect::Unique(nullptr, t[6], keys, ko, cnt, ni);
        cub::DeviceHistogram::HistogramEven(nullptr, t[7], v, hist, 257, 0ull, 1ull << 32, ni);
        tb = *std::max_element(t, t + 8);
        CK(cudaMalloc(&tmp, tb + (1 << 20)));
        { size_t s = tb; cub::DeviceScan::InclusiveSum(tmp, s, head, keys, ni); }
        // offsets [0, heads..., n] of the head flags h; returns the segment count
        auto offsets_of = [&](const unsigned *h) {
            int c = 0;
            { size_t s = tb; cub::DeviceSelect::Flagged(tmp, s, iota, h, off + 1, cnt, ni); }
            close_offsets<<<1, 1>>>(off, cnt, ni);
            CK(cudaMemcpy(&c, cnt, 4, cudaMemcpyDeviceToHost));
            return c + 1;
        };
        peer_ms ms;
        // DeviceSegmentedReduce::Sum over the segments in off, its own temporary storage
        auto segmented_row = [&](const char *name, int segs) {
            size_t ts = 0; cub::DeviceSegmentedReduce::Sum(nullptr, ts, v, vo, segs, off, off + 1);
            void *tmp2; CK(cudaMalloc(&tmp2, ts + 256));
            ms = med([&] { size_t s2 = ts; cub::DeviceSegmentedReduce::Sum(tmp2, s2, v, vo, segs, off, off + 1); }, reps);
            row(name, n, ms);
            CK(cudaFree(tmp2));
        };
        nseg = offsets_of(head);
#define ROW(name, call) ms = med([&] { size_t s = tb; call; }, reps); row(name, n, ms)
        ROW("cub_reduce_sum_u32", cub::DeviceReduce::Sum(tmp, s, v, (unsigned *)sum, ni));
        ROW("cub_inclusive_sum_u32", cub::DeviceScan::InclusiveSum(tmp, s, v, o, ni));
        ROW("cub_inclusive_sum_by_key_u32", cub::DeviceScan::InclusiveSumByKey(tmp, s, keys, v, o, ni));
        segmented_row("cub_segmented_reduce_sum_u32", nseg);
        for (unsigned mean : {10u, 100000u}) { // the same call on segments of mean length 10 and 100000
            heads_mean<<<(n + 255) / 256, 256>>>(ko, n, mean, 777u);
            segmented_row(mean == 10u ? "cub_segmented_reduce_sum_u32_mean_10" : "cub_segmented_reduce_sum_u32_mean_100000",
                          offsets_of(ko));
        }
        ROW("cub_reduce_by_key_sum_u32", cub::DeviceReduce::ReduceByKey(tmp, s, keys, ko, v, vo, cnt, cuda::std::plus<unsigned>(), ni));
        ROW("cub_rle_encode_u32", cub::DeviceRunLengthEncode::Encode(tmp, s, keys, ko, vo, cnt, ni));
        ROW("cub_unique_u32", cub::DeviceSelect::Unique(tmp, s, keys, ko, cnt, ni));
        ROW("cub_histogram_even_256_u32", cub::DeviceHistogram::HistogramEven(tmp, s, v, hist, 257, 0ull, 1ull << 32, ni));
#undef ROW
        fflush(stdout);
        cudaFree(v); cudaFree(head); cudaFree(keys); cudaFree(o); cudaFree(ko); cudaFree(vo); cudaFree(iota);
        cudaFree(off); cudaFree(cnt); cudaFree(sum); cudaFree(hist); cudaFree(tmp);
    }
    return 0;
}
