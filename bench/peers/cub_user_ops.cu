// Peer for clsort's user-operator rows (clsort.h USER OPERATORS): CUB with a caller's functor where
// clsort takes an OpenCL C snippet, on the same data shapes, timed on both clocks (peer_timing.cuh;
// median of 21 after a warm-up).
//   cub_user_ops log2N...   prints: name N median_ms Mitems_per_s host HOST_MS
// Data: random u32 values; f32 values (the u32 >> 24: 0..255, many ties) for the f32 rows; 32-byte
// records (float4 position in [0, 1)^3 on a 1/1024 grid, float4 velocity) for the record sort.
//   cub_reduce_u32_functor          DeviceReduce::Reduce, functor a + b          <-> reduce u32_sum_user_op
//   cub_reduce_sum_u32              DeviceReduce::Sum (the built-in beside it)   <-> reduce u32_sum
//   cub_inclusive_scan_u32_functor  DeviceScan::InclusiveScan, functor a + b     <-> scan u32_inclusive_user_op
//   cub_inclusive_sum_u32           DeviceScan::InclusiveSum                     <-> scan u32_inclusive
//   cub_transform_reduce_f32_squares DeviceReduce::TransformReduce, x * x then + <-> reduce f32_sum_of_squares
//   cub_reduce_sum_f32              DeviceReduce::Sum of the same floats         <-> reduce f32_sum
//   cub_argmin_f32_custom_op        DeviceReduce::Reduce over (value, index) pairs from a transform
//                                   iterator, min value then min index           <-> reduce f32_argmin_index
//   cub_argmin_f32                  DeviceReduce::ArgMin (value, index outputs)        <-> reduce f32_argmin_index
//   cub_sort_record32_morton        Morton key kernel + DeviceRadixSort::SortPairs (key, index)
//                                   + gather of the 32-byte records              <-> sort record32_morton_key
//   cub_sort_record32_morton_values Morton key kernel + DeviceRadixSort::SortPairs with the records
//                                   as 32-byte values                            <-> sort record32_morton_key
//   cub_sort_record32_morton_decomposer (CUB 2.2 on) the key kernel writes each record's key into its
//                                   spare word (vel.w), DeviceRadixSort::SortKeys of the records by a
//                                   decomposer naming that word                 <-> sort record32_morton_key
//   cub_sort_record32_morton_sort   the SortPairs of (key, index) alone (keys and indices made outside the timing)
// Build: nvcc -O3 -std=c++17 --extended-lambda -arch=sm_90 -o build/cub_user_ops bench/peers/cub_user_ops.cu
#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s line %d\n", cudaGetErrorString(e), __LINE__); exit(1);} } while (0)
#include "peer_timing.cuh"

// DeviceReduce::ArgMin: the two-output form where the CCCL has it (3.0 on), else the KeyValuePair one
#if CUB_VERSION >= 300000
struct argmin_out { float *v; ::cuda::std::int64_t *i; };
#define ARGMIN(tmp, s, in, out, n) cub::DeviceReduce::ArgMin(tmp, s, in, (out).v, (out).i, n)
#else
struct argmin_out { cub::KeyValuePair<int, float> *kv; };
#define ARGMIN(tmp, s, in, out, n) cub::DeviceReduce::ArgMin(tmp, s, in, (out).kv, n)
#endif

struct record { float4 pos, vel; };
struct vi { float v; unsigned i; };
struct record_k { float4 pos; float vx, vy, vz; unsigned key; }; // a record, its key in vel.w's place
#if CUB_VERSION >= 200200
#define HAVE_DECOMPOSER 1
struct key_of { // DeviceRadixSort's decomposer: the record's key word
    __host__ __device__ ::cuda::std::tuple<unsigned &> operator()(record_k &r) const { return {r.key}; }
};
#else
#define HAVE_DECOMPOSER 0
#endif

struct add_u32 { __device__ __forceinline__ unsigned operator()(unsigned a, unsigned b) const { return a + b; } };
struct square { __device__ __forceinline__ float operator()(float x) const { return x * x; } };
struct amin { // the earlier on ties: the smaller index
    __device__ __forceinline__ vi operator()(const vi &a, const vi &b) const {
        return b.v < a.v || (b.v == a.v && b.i < a.i) ? b : a;
    }
};
struct pair_of { // (value, index) from the element's index
    const float *x;
    __device__ __forceinline__ vi operator()(unsigned i) const { return vi{x[i], i}; }
};

__device__ unsigned mix(unsigned x) { x ^= x >> 16; x *= 0x7feb352du; x ^= x >> 15; x *= 0x846ca68bu; x ^= x >> 16; return x; }
__device__ unsigned spread(unsigned v) {
    v &= 1023u; v = (v | v << 16) & 0x030000FFu; v = (v | v << 8) & 0x0300F00Fu;
    v = (v | v << 4) & 0x030C30C3u; return (v | v << 2) & 0x09249249u;
}

__global__ void fill(unsigned *v, float *f, record *r, size_t n, unsigned seed) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    v[i] = mix((unsigned)i * 2654435761u ^ seed);
    f[i] = (float)(v[i] >> 24);
    if (r) {
        unsigned a = mix(v[i] ^ 0x68bc21ebu), b = mix(a), c = mix(b);
        r[i].pos = make_float4((a & 1023u) / 1024.0f, (b & 1023u) / 1024.0f, (c & 1023u) / 1024.0f, 1.0f);
        r[i].vel = make_float4(0.0f, 0.0f, 0.0f, (float)i);
    }
}
__global__ void morton_keys(const record *r, unsigned *key, unsigned *idx, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = r[i].pos;
    key[i] = spread((unsigned)(p.x * 1024.0f)) | spread((unsigned)(p.y * 1024.0f)) << 1 |
             spread((unsigned)(p.z * 1024.0f)) << 2;
    idx[i] = (unsigned)i;
}
__global__ void morton_into(record_k *r, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = r[i].pos;
    r[i].key = spread((unsigned)(p.x * 1024.0f)) | spread((unsigned)(p.y * 1024.0f)) << 1 |
               spread((unsigned)(p.z * 1024.0f)) << 2;
}
__global__ void gather(const record *in, const unsigned *idx, record *out, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[idx[i]];
}

static unsigned host_spread(unsigned q) {
    q &= 1023u; q = (q | q << 16) & 0x030000FFu; q = (q | q << 8) & 0x0300F00Fu;
    q = (q | q << 4) & 0x030C30C3u; return (q | q << 2) & 0x09249249u;
}
// the sorted records' keys must not decrease (a wrong sort is reported, not timed on)
static void check_sorted(const record *d, size_t n, const char *name) {
    std::vector<record> h(n);
    CK(cudaMemcpy(h.data(), d, n * 32, cudaMemcpyDeviceToHost));
    auto mk = [](const record &x) {
        return host_spread((unsigned)(x.pos.x * 1024.0f)) | host_spread((unsigned)(x.pos.y * 1024.0f)) << 1 |
               host_spread((unsigned)(x.pos.z * 1024.0f)) << 2;
    };
    for (size_t i = 1; i < n; i++)
        if (mk(h[i - 1]) > mk(h[i])) { fprintf(stderr, "%s: records not sorted at %zu\n", name, i); exit(1); }
}

int main(int argc, char **argv) {
    for (int ai = 1; ai < argc; ai++) {
        size_t n = (size_t)1 << atoi(argv[ai]);
        int ni = (int)n, reps = 21;
        bool recs = n <= ((size_t)1 << 26); // 2 x 32 bytes a record (4 GiB at 2^26)
        unsigned *v, *o, *usum, *key, *key2, *idx, *idx2; float *f, *fsum; vi *vmin;
        argmin_out am; void *amem; record *r = nullptr, *r2 = nullptr;
        CK(cudaMalloc(&v, n * 4)); CK(cudaMalloc(&o, n * 4)); CK(cudaMalloc(&f, n * 4)); CK(cudaMalloc(&usum, 8));
        CK(cudaMalloc(&fsum, 8)); CK(cudaMalloc(&vmin, 8)); CK(cudaMalloc(&amem, 16));
#if CUB_VERSION >= 300000
        am.v = (float *)amem; am.i = (::cuda::std::int64_t *)((char *)amem + 8);
#else
        am.kv = (cub::KeyValuePair<int, float> *)amem;
#endif
        if (recs) {
            CK(cudaMalloc(&r, n * 32)); CK(cudaMalloc(&r2, n * 32)); CK(cudaMalloc(&key, n * 4));
            CK(cudaMalloc(&key2, n * 4)); CK(cudaMalloc(&idx, n * 4)); CK(cudaMalloc(&idx2, n * 4));
        }
        fill<<<(n + 255) / 256, 256>>>(v, f, r, n, 12345u);
        auto pairs = thrust::make_transform_iterator(thrust::counting_iterator<unsigned>(0), pair_of{f});
        vi init{INFINITY, 0xffffffffu};
        size_t t[10] = {0}, tb; void *tmp = nullptr;
        record_k *rk = (record_k *)r, *rk2 = (record_k *)r2;
        cub::DeviceReduce::Reduce(nullptr, t[0], v, usum, ni, add_u32(), 0u);
        cub::DeviceScan::InclusiveScan(nullptr, t[1], v, o, add_u32(), ni);
        cub::DeviceReduce::TransformReduce(nullptr, t[2], f, fsum, ni, cuda::std::plus<float>(), square(), 0.0f);
        cub::DeviceReduce::Reduce(nullptr, t[3], pairs, vmin, ni, amin(), init);
        ARGMIN(nullptr, t[4], f, am, ni);
        cub::DeviceReduce::Sum(nullptr, t[5], v, usum, ni);
        cub::DeviceScan::InclusiveSum(nullptr, t[6], v, o, ni);
        if (recs) cub::DeviceRadixSort::SortPairs(nullptr, t[7], key, key2, idx, idx2, ni);
        if (recs) cub::DeviceRadixSort::SortPairs(nullptr, t[8], key, key2, r, r2, ni);
#if HAVE_DECOMPOSER
        if (recs) cub::DeviceRadixSort::SortKeys(nullptr, t[9], rk, rk2, ni, key_of{});
#endif
        tb = *std::max_element(t, t + 10);
        CK(cudaMalloc(&tmp, tb + (1 << 20)));
        peer_ms ms;
#define ROW(name, call) ms = med([&] { size_t s = tb; call; }, reps); row(name, n, ms)
        ROW("cub_reduce_u32_functor", cub::DeviceReduce::Reduce(tmp, s, v, usum, ni, add_u32(), 0u));
        ROW("cub_reduce_sum_u32", cub::DeviceReduce::Sum(tmp, s, v, usum, ni));
        ROW("cub_inclusive_scan_u32_functor", cub::DeviceScan::InclusiveScan(tmp, s, v, o, add_u32(), ni));
        ROW("cub_inclusive_sum_u32", cub::DeviceScan::InclusiveSum(tmp, s, v, o, ni));
        ROW("cub_transform_reduce_f32_squares",
            cub::DeviceReduce::TransformReduce(tmp, s, f, fsum, ni, cuda::std::plus<float>(), square(), 0.0f));
        ROW("cub_reduce_sum_f32", cub::DeviceReduce::Sum(tmp, s, f, fsum, ni));
        ROW("cub_argmin_f32_custom_op", cub::DeviceReduce::Reduce(tmp, s, pairs, vmin, ni, amin(), init));
        ROW("cub_argmin_f32", ARGMIN(tmp, s, f, am, ni));
        if (recs) {
            unsigned blocks = (unsigned)((n + 255) / 256);
            ROW("cub_sort_record32_morton", (morton_keys<<<blocks, 256>>>(r, key, idx, n),
                                             cub::DeviceRadixSort::SortPairs(tmp, s, key, key2, idx, idx2, ni),
                                             gather<<<blocks, 256>>>(r, idx2, r2, n)));
            check_sorted(r2, n, "cub_sort_record32_morton");
            ROW("cub_sort_record32_morton_values", (morton_keys<<<blocks, 256>>>(r, key, idx, n),
                                                    cub::DeviceRadixSort::SortPairs(tmp, s, key, key2, r, r2, ni)));
            check_sorted(r2, n, "cub_sort_record32_morton_values");
#if HAVE_DECOMPOSER
            ROW("cub_sort_record32_morton_decomposer", (morton_into<<<blocks, 256>>>(rk, n),
                                                        cub::DeviceRadixSort::SortKeys(tmp, s, rk, rk2, ni, key_of{})));
            check_sorted(r2, n, "cub_sort_record32_morton_decomposer");
#endif
            morton_keys<<<blocks, 256>>>(r, key, idx, n);
            ROW("cub_sort_record32_morton_sort", cub::DeviceRadixSort::SortPairs(tmp, s, key, key2, idx, idx2, ni));
        }
#undef ROW
        { // the argmin's two forms agree
            vi a; float bv; long long bi;
            CK(cudaMemcpy(&a, vmin, 8, cudaMemcpyDeviceToHost));
#if CUB_VERSION >= 300000
            CK(cudaMemcpy(&bv, am.v, 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&bi, am.i, 8, cudaMemcpyDeviceToHost));
#else
            cub::KeyValuePair<int, float> kv; CK(cudaMemcpy(&kv, am.kv, 8, cudaMemcpyDeviceToHost)); bv = kv.value; bi = kv.key;
#endif
            if (a.v != bv || (long long)a.i != bi) fprintf(stderr, "cub_user_ops: argmin %g@%u vs %g@%lld\n", a.v, a.i, bv, bi);
        }
        fflush(stdout);
        cudaFree(v); cudaFree(o); cudaFree(f); cudaFree(usum); cudaFree(fsum); cudaFree(vmin); cudaFree(amem);
        cudaFree(r); cudaFree(r2); cudaFree(tmp);
        if (recs) { cudaFree(key); cudaFree(key2); cudaFree(idx); cudaFree(idx2); }
    }
    return 0;
}
