/* One call of every family, on deterministic data, its result as bytes:
 * shared by tests/test_cache.c (cached and uncached programs must give the
 * same bytes; clsort_prepare must leave nothing to build) and
 * bench/coldstart.c (first and second call of each family in a new
 * process). Include after clsort.h. */
#ifndef CLSORT_WORKSET_H
#define CLSORT_WORKSET_H
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    WS_SCAN_U32, WS_PACK_U32, WS_SORT_KEYS, WS_SORT_PAIRS, WS_SORT_10BIT_PERM, WS_SORT_U64, WS_BITONIC_F32,
    WS_NBODY_F32, WS_BIN, WS_COUNT
};
static const char *const ws_names[WS_COUNT] = {
    "scan u32", "pack u32", "sort u32 keys", "sort u32 pairs", "sort 10-bit + permutation", "sort u64 keys",
    "bitonic f32", "N-body f32", "binning"};

/* Bytes of result ws_run writes for n elements (at most). */
static size_t ws_out_bytes(size_t n) { return n * 16 + 64; }

static uint32_t ws_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* The descriptors of the calls (shared by ws_run and ws_prepare). */
static void ws_grid(clsort_bin_desc *bd)
{
    memset(bd, 0, sizeof *bd);
    bd->grid.dims = 2;
    bd->grid.cells[0] = bd->grid.cells[1] = 32;
    bd->grid.cell_size[0] = bd->grid.cell_size[1] = 1.0f / 32;
    bd->grid.stride = 16; /* float4 records: x, y, z, w */
}

static void ws_nbody(clsort_nbody_desc *nd)
{
    memset(nd, 0, sizeof *nd);
    nd->dt = 0.001;
    nd->softening2 = 0.01;
    nd->steps = 1;
}

/* Builds every program of the work set with one clsort_prepare. */
static clsort_result ws_prepare(clsort_context *cs, size_t n)
{
    clsort_prepare_call calls[WS_COUNT];
    clsort_prepare_desc pd;
    clsort_sort_desc sd[4];
    clsort_bitonic_desc bt;
    clsort_bin_desc bd;
    clsort_nbody_desc nd;
    clsort_scan_desc scd;
    clsort_split_desc spd;
    int i;
    memset(calls, 0, sizeof calls);
    memset(sd, 0, sizeof sd);
    memset(&bt, 0, sizeof bt);
    memset(&scd, 0, sizeof scd);
    memset(&spd, 0, sizeof spd);
    ws_grid(&bd);
    ws_nbody(&nd);
    sd[1].values_in = sd[1].values_out = CLSORT_PREPARE_PRESENT;
    sd[2].end_bit = 10;
    sd[2].permutation = CLSORT_PREPARE_PRESENT;
    sd[3].type = CLSORT_U64;
    bt.type = CLSORT_F32;
    calls[0].op = CLSORT_PREPARE_SCAN, calls[0].scan = &scd;
    calls[1].op = CLSORT_PREPARE_SPLIT, calls[1].split = &spd;
    for (i = 0; i < 4; ++i) calls[2 + i].op = CLSORT_PREPARE_SORT, calls[2 + i].sort = &sd[i];
    calls[6].op = CLSORT_PREPARE_BITONIC, calls[6].bitonic = &bt;
    calls[7].op = CLSORT_PREPARE_NBODY, calls[7].nbody = &nd;
    calls[8].op = CLSORT_PREPARE_BIN, calls[8].bin = &bd;
    for (i = 0; i < WS_COUNT; ++i) calls[i].n = n;
    pd.calls = calls;
    pd.count = WS_COUNT;
    return clsort_prepare(cs, &pd);
}

static cl_mem ws_buffer(clsort_context *cs, size_t bytes, const void *src)
{
    cl_int e;
    cl_mem m = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | (src ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)src, &e);
    return e == CL_SUCCESS ? m : NULL;
}

/* Runs call `which` on n elements; writes its result to out, its size to
 * *bytes. Returns the clsort_result (CLSORT_ERROR_OUT_OF_HOST_MEMORY when the
 * test's own allocations fail). */
static clsort_result ws_run(clsort_context *cs, int which, size_t n, unsigned char *out, size_t *bytes)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull + (uint64_t)which;
    uint32_t *a = (uint32_t *)malloc(n * 16 + 16), *b = (uint32_t *)malloc(n * 16 + 16);
    clsort_result r = CLSORT_SUCCESS;
    size_t i, count = 0;
    if (!a || !b) {
        free(a);
        free(b);
        return CLSORT_ERROR_OUT_OF_HOST_MEMORY;
    }
    for (i = 0; i < 4 * n + 4; ++i) a[i] = ws_rand(&seed), b[i] = (uint32_t)i;
    *bytes = 0;
    switch (which) {
    case WS_SCAN_U32:
        r = clsort_scan_host(cs, CLSORT_U32, 0, a, out, n, NULL);
        *bytes = n * 4;
        break;
    case WS_PACK_U32:
        for (i = 0; i < n; ++i) b[i] = a[n + i] & 1;
        r = clsort_pack_host(cs, CLSORT_U32, a, b, out, n, &count);
        *bytes = count * 4;
        break;
    case WS_SORT_KEYS:
    case WS_SORT_PAIRS:
    case WS_SORT_10BIT_PERM:
    case WS_SORT_U64: {
        clsort_sort_desc sd;
        memset(&sd, 0, sizeof sd);
        if (which == WS_SORT_10BIT_PERM) sd.end_bit = 10;
        if (which == WS_SORT_U64) sd.type = CLSORT_U64;
        r = clsort_sort_host(cs, a, which == WS_SORT_PAIRS ? b : NULL,
                             which == WS_SORT_10BIT_PERM ? (uint32_t *)out + n : NULL, n, &sd);
        *bytes = which == WS_SORT_U64 ? n * 8 : n * 4;
        memcpy(out, a, *bytes);
        if (which == WS_SORT_PAIRS) memcpy(out + n * 4, b, n * 4), *bytes = n * 8;
        if (which == WS_SORT_10BIT_PERM) *bytes = n * 8;
        break;
    }
    case WS_BITONIC_F32: {
        clsort_bitonic_desc bt;
        float *f = (float *)a;
        memset(&bt, 0, sizeof bt);
        bt.type = CLSORT_F32;
        for (i = 0; i < n; ++i) f[i] = (float)(a[i] >> 8) * (1.0f / 16777216.0f) - 0.5f;
        r = clsort_bitonic_sort_host(cs, f, NULL, NULL, n, &bt);
        memcpy(out, f, n * 4);
        *bytes = n * 4;
        break;
    }
    case WS_NBODY_F32:
    case WS_BIN: {
        float *p = (float *)a;
        cl_mem pos, other;
        for (i = 0; i < 4 * n; ++i) p[i] = (float)(a[i] >> 8) * (1.0f / 16777216.0f);
        for (i = 0; i < n; ++i) p[4 * i + 3] = 1.0f / (float)n; /* mass (w) */
        pos = ws_buffer(cs, n * 16, p);
        other = ws_buffer(cs, which == WS_BIN ? n * 4 : n * 16, NULL);
        if (!pos || !other) {
            r = CLSORT_ERROR_OPENCL;
        } else if (which == WS_NBODY_F32) {
            clsort_nbody_desc nd;
            float zero = 0.0f;
            ws_nbody(&nd);
            r = clEnqueueFillBuffer(clsort_cl_queue(cs), other, &zero, sizeof zero, 0, n * 16, 0, NULL, NULL) ==
                        CL_SUCCESS
                    ? clsort_nbody(cs, pos, other, n, &nd, NULL)
                    : CLSORT_ERROR_OPENCL;
            if (r == CLSORT_SUCCESS &&
                clEnqueueReadBuffer(clsort_cl_queue(cs), pos, CL_TRUE, 0, n * 16, out, 0, NULL, NULL) != CL_SUCCESS)
                r = CLSORT_ERROR_OPENCL;
            *bytes = n * 16;
        } else {
            clsort_bin_desc bd;
            ws_grid(&bd);
            bd.permutation = other;
            r = clsort_bin(cs, pos, n, &bd, NULL);
            if (r == CLSORT_SUCCESS &&
                clEnqueueReadBuffer(clsort_cl_queue(cs), other, CL_TRUE, 0, n * 4, out, 0, NULL, NULL) != CL_SUCCESS)
                r = CLSORT_ERROR_OPENCL;
            *bytes = n * 4;
        }
        if (pos) clReleaseMemObject(pos);
        if (other) clReleaseMemObject(other);
        break;
    }
    default:
        r = CLSORT_ERROR_INVALID_ARGUMENT;
    }
    free(a);
    free(b);
    return r;
}

/* Checks the sorts and the scan against the input's properties (order and
 * sums); the rest is compared across contexts by the callers. */
static int ws_check(int which, size_t n, const unsigned char *out, size_t bytes)
{
    size_t i;
    const uint32_t *u = (const uint32_t *)out;
    const uint64_t *w = (const uint64_t *)out;
    const float *f = (const float *)out;
    switch (which) {
    case WS_SORT_KEYS:
    case WS_SORT_PAIRS:
        for (i = 1; i < n; ++i)
            if (u[i - 1] > u[i]) return 0;
        return 1;
    case WS_SORT_10BIT_PERM:
        for (i = 1; i < n; ++i)
            if ((u[i - 1] & 1023) > (u[i] & 1023) || ((u[i - 1] & 1023) == (u[i] & 1023) && u[n + i - 1] >= u[n + i]))
                return 0; /* stable: equal digits keep their input order */
        return 1;
    case WS_SORT_U64:
        for (i = 1; i < n; ++i)
            if (w[i - 1] > w[i]) return 0;
        return 1;
    case WS_BITONIC_F32:
        for (i = 1; i < n; ++i)
            if (f[i - 1] > f[i]) return 0;
        return 1;
    case WS_SCAN_U32:
        return n == 0 || u[0] == 0;
    default:
        return bytes > 0 || n == 0;
    }
}
#endif
