// Fair anchors for clsort's batched bitonic sort of 1024-key segments (u32 keys), n keys in all:
// one block per segment with cub::BlockMergeSort and cub::BlockRadixSort at every block shape
// T x I = 1024 (64x16 .. 1024x1), keys loaded and stored through a block exchange (coalesced:
// BLOCK_LOAD_WARP_TRANSPOSE), and DeviceRadixSort of (segment << 32 | key) as u64 keys.
// The best shape is the anchor (on the H100: BlockRadixSort 64x16); 256x4 alone understates CUB.
// Build: nvcc -O3 -std=c++17 --extended-lambda -arch=sm_90 -o build/cub_blockseg bench/peers/cub_blockseg.cu
// Run:   cub_blockseg 24 28   (log2 of n); prints "name n median_ms Mkeys_per_s" (CUDA events,
// median of 11 after one warm-up; each run sorts a fresh copy of the same random keys).
#include <cub/cub.cuh>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1); } } while (0)

struct Less { __device__ bool operator()(unsigned a, unsigned b) const { return a < b; } };

template <int T, int I> __global__ void __launch_bounds__(T) block_radix(unsigned *k)
{
    typedef cub::BlockLoad<unsigned, T, I, cub::BLOCK_LOAD_WARP_TRANSPOSE> L;
    typedef cub::BlockStore<unsigned, T, I, cub::BLOCK_STORE_WARP_TRANSPOSE> St;
    typedef cub::BlockRadixSort<unsigned, T, I> S;
    __shared__ union { typename L::TempStorage l; typename St::TempStorage s; typename S::TempStorage r; } tmp;
    unsigned v[I];
    unsigned *base = k + (size_t)blockIdx.x * T * I;
    L(tmp.l).Load(base, v);
    __syncthreads();
    S(tmp.r).Sort(v);
    __syncthreads();
    St(tmp.s).Store(base, v);
}

template <int T, int I> __global__ void __launch_bounds__(T) block_merge(unsigned *k)
{
    typedef cub::BlockLoad<unsigned, T, I, cub::BLOCK_LOAD_WARP_TRANSPOSE> L;
    typedef cub::BlockStore<unsigned, T, I, cub::BLOCK_STORE_WARP_TRANSPOSE> St;
    typedef cub::BlockMergeSort<unsigned, T, I> S;
    __shared__ union { typename L::TempStorage l; typename St::TempStorage s; typename S::TempStorage m; } tmp;
    unsigned v[I];
    unsigned *base = k + (size_t)blockIdx.x * T * I;
    L(tmp.l).Load(base, v);
    __syncthreads();
    S(tmp.m).Sort(v, Less());
    __syncthreads();
    St(tmp.s).Store(base, v);
}

__global__ void make_seg(const unsigned *k, unsigned long long *o, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) o[i] = ((unsigned long long)(i >> 10) << 32) | k[i];
}

static bool segments_sorted(const unsigned *d, const std::vector<unsigned> &in, size_t n)
{
    std::vector<unsigned> got(n), want(in);
    CK(cudaMemcpy(got.data(), d, n * 4, cudaMemcpyDeviceToHost));
    for (size_t s = 0; s < n; s += 1024) std::sort(want.begin() + s, want.begin() + s + 1024);
    return got == want;
}

int main(int argc, char **argv)
{
    for (int a = 1; a < argc; ++a) {
        size_t n = (size_t)1 << atoi(argv[a]);
        std::vector<unsigned> h(n);
        unsigned s = 12345;
        for (auto &x : h) { s = s * 1664525u + 1013904223u; x = s; }
        unsigned *d0, *d;
        unsigned long long *u, *u2;
        CK(cudaMalloc(&d0, n * 4)); CK(cudaMalloc(&d, n * 4));
        CK(cudaMalloc(&u, n * 8)); CK(cudaMalloc(&u2, n * 8));
        CK(cudaMemcpy(d0, h.data(), n * 4, cudaMemcpyHostToDevice));
        cudaEvent_t e0, e1;
        cudaEventCreate(&e0); cudaEventCreate(&e1);
        auto time = [&](const char *name, auto fn, bool check) {
            std::vector<float> t;
            for (int r = 0; r < 12; ++r) {
                CK(cudaMemcpy(d, d0, n * 4, cudaMemcpyDeviceToDevice));
                cudaEventRecord(e0); fn(); cudaEventRecord(e1); CK(cudaEventSynchronize(e1));
                float ms; cudaEventElapsedTime(&ms, e0, e1);
                if (r) t.push_back(ms);
            }
            CK(cudaGetLastError());
            std::sort(t.begin(), t.end());
            float m = t[t.size() / 2];
            printf("%s %zu %.4f %.1f%s\n", name, n, m, n / m / 1e3, check && !segments_sorted(d, h, n) ? " WRONG" : "");
        };
        unsigned g = (unsigned)(n / 1024);
        time("cub_blockmerge_seg1024_64x16", [&] { block_merge<64, 16><<<g, 64>>>(d); }, true);
        time("cub_blockmerge_seg1024_128x8", [&] { block_merge<128, 8><<<g, 128>>>(d); }, true);
        time("cub_blockmerge_seg1024_256x4", [&] { block_merge<256, 4><<<g, 256>>>(d); }, true);
        time("cub_blockmerge_seg1024_512x2", [&] { block_merge<512, 2><<<g, 512>>>(d); }, true);
        time("cub_blockradix_seg1024_64x16", [&] { block_radix<64, 16><<<g, 64>>>(d); }, true);
        time("cub_blockradix_seg1024_128x8", [&] { block_radix<128, 8><<<g, 128>>>(d); }, true);
        time("cub_blockradix_seg1024_256x4", [&] { block_radix<256, 4><<<g, 256>>>(d); }, true);
        time("cub_blockradix_seg1024_512x2", [&] { block_radix<512, 2><<<g, 512>>>(d); }, true);
        void *tmp = nullptr;
        size_t tb = 0;
        int eb = 32 + 1;
        while (((size_t)1 << (eb - 32)) < (n >> 10)) ++eb;
        cub::DeviceRadixSort::SortKeys(tmp, tb, u, u2, (int)n, 0, eb);
        CK(cudaMalloc(&tmp, tb));
        time("cub_radix_u64_segkey_seg1024",
             [&] { make_seg<<<(unsigned)((n + 255) / 256), 256>>>(d, u, n); cub::DeviceRadixSort::SortKeys(tmp, tb, u, u2, (int)n, 0, eb); },
             false);
        cudaFree(tmp); cudaFree(d0); cudaFree(d); cudaFree(u); cudaFree(u2);
    }
    return 0;
}
