/* One call of each family in the family order (scan, split, gather, radix,
 * bitonic, binning, reduce, nbody, tree), on deterministic data, its result
 * as bytes: shared by tests/test_cache.c (cached and uncached programs must
 * give the same bytes; clsort_prepare must leave nothing to build for the
 * calls it can prepare) and bench/coldstart.c (first and second call of each
 * family in a new process). Include after clsort.h. */
#ifndef CLSORT_WORKSET_H
#define CLSORT_WORKSET_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The calls, in the family order: X(id, name). ws_prepare_call says which
 * clsort_prepare covers. */
#define WS_CALLS(X)                                                                                       \
    X(WS_SCAN_U32, "scan u32")                                                                            \
    X(WS_PACK_U32, "pack u32")                                                                            \
    X(WS_GATHER_12B, "gather 12-byte")                                                                    \
    X(WS_SORT_KEYS, "sort u32 keys")                                                                      \
    X(WS_SORT_PAIRS, "sort u32 pairs")                                                                    \
    X(WS_SORT_10BIT_PERM, "sort 10-bit + permutation")                                                    \
    X(WS_SORT_U64, "sort u64 keys")                                                                       \
    X(WS_BITONIC_F32, "bitonic f32")                                                                      \
    X(WS_BIN, "binning")                                                                                  \
    X(WS_REDUCE_U32, "reduce u32")                                                                        \
    X(WS_SEGSCAN_U32, "segmented scan u32")                                                               \
    X(WS_REDUCE_BY_KEY, "reduce-by-key u32")                                                              \
    X(WS_NBODY_F32, "N-body f32")                                                                         \
    X(WS_TREE_BH, "tree + Barnes-Hut")

#define WS_ID(id, name) id,
#define WS_NAME(id, name) name,
enum { WS_CALLS(WS_ID) WS_COUNT };
static const char *const ws_names[WS_COUNT] = {WS_CALLS(WS_NAME)};
#undef WS_ID
#undef WS_NAME

/* Bytes of result ws_run writes for n elements (at most). */
static size_t ws_out_bytes(size_t n) { return n * 16 + 64; }

static uint32_t ws_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}

/* The inputs of call `which`: a holds 4n + 4 random words, b the indices
 * 0 .. 4n + 3 (ws_run and ws_check make the same). */
static void ws_inputs(int which, size_t n, uint32_t *a, uint32_t *b)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull + (uint64_t)which;
    size_t i;
    for (i = 0; i < 4 * n + 4; ++i) a[i] = ws_rand(&seed), b[i] = (uint32_t)i;
}

/* The segmented calls' heads and keys: about one run in 5 elements. */
static uint32_t ws_head(const uint32_t *a, size_t n, size_t i) { return a[n + i] % 5 == 0; }
static uint32_t ws_key(const uint32_t *a, size_t n, size_t i) { return (uint32_t)(i / 5) + (a[n + i] % 5 == 0); }

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

static void ws_tree(clsort_nbody_desc *nd)
{
    ws_nbody(nd);
    nd->method = CLSORT_NBODY_BARNES_HUT;
    nd->theta = 0.5;
}

/* The descriptors a prepare call points to. */
typedef struct ws_descs {
    clsort_scan_desc scan;
    clsort_split_desc split;
    clsort_sort_desc sort;
    clsort_bitonic_desc bitonic;
    clsort_bin_desc bin;
    clsort_nbody_desc nbody;
} ws_descs;

/* The clsort_prepare call of `which` in *c (its descriptor in *d): 1, or 0
 * where clsort_prepare has no operation for the call's family. */
static int ws_prepare_call(int which, size_t n, clsort_prepare_call *c, ws_descs *d)
{
    memset(c, 0, sizeof *c);
    memset(d, 0, sizeof *d);
    c->n = n;
    switch (which) {
    case WS_SCAN_U32: c->op = CLSORT_PREPARE_SCAN, c->scan = &d->scan; return 1;
    case WS_PACK_U32: c->op = CLSORT_PREPARE_SPLIT, c->split = &d->split; return 1;
    case WS_GATHER_12B: c->op = CLSORT_PREPARE_GATHER; return 1;
    case WS_SORT_KEYS:
    case WS_SORT_PAIRS:
    case WS_SORT_10BIT_PERM:
    case WS_SORT_U64:
        if (which == WS_SORT_PAIRS) d->sort.values_in = d->sort.values_out = CLSORT_PREPARE_PRESENT;
        if (which == WS_SORT_10BIT_PERM) d->sort.end_bit = 10, d->sort.permutation = CLSORT_PREPARE_PRESENT;
        if (which == WS_SORT_U64) d->sort.type = CLSORT_U64;
        c->op = CLSORT_PREPARE_SORT, c->sort = &d->sort;
        return 1;
    case WS_BITONIC_F32: d->bitonic.type = CLSORT_F32, c->op = CLSORT_PREPARE_BITONIC, c->bitonic = &d->bitonic; return 1;
    case WS_BIN: ws_grid(&d->bin), c->op = CLSORT_PREPARE_BIN, c->bin = &d->bin; return 1;
    case WS_NBODY_F32: ws_nbody(&d->nbody), c->op = CLSORT_PREPARE_NBODY, c->nbody = &d->nbody; return 1;
    default: return 0; /* reduce, tree */
    }
}

static int ws_preparable(int which)
{
    clsort_prepare_call c;
    ws_descs d;
    return ws_prepare_call(which, 0, &c, &d);
}

/* Builds every program of the calls clsort_prepare covers, in one call. */
static clsort_result ws_prepare(clsort_context *cs, size_t n)
{
    clsort_prepare_call calls[WS_COUNT];
    ws_descs descs[WS_COUNT];
    clsort_prepare_desc pd;
    int w;
    memset(&pd, 0, sizeof pd);
    pd.calls = calls;
    pd.count = 0;
    for (w = 0; w < WS_COUNT; ++w)
        if (ws_preparable(w)) ws_prepare_call(w, n, &calls[pd.count], &descs[pd.count]), ++pd.count;
    return clsort_prepare(cs, &pd);
}

static cl_mem ws_buffer(clsort_context *cs, size_t bytes, const void *src)
{
    cl_int e;
    cl_mem m = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | (src ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)src, &e);
    return e == CL_SUCCESS ? m : NULL;
}

/* n float4 bodies in the unit cube from a (x, y, z; w the mass 1 / n). */
static void ws_bodies(const uint32_t *a, size_t n, float *p)
{
    size_t i;
    for (i = 0; i < 4 * n; ++i) p[i] = (float)(a[i] >> 8) * (1.0f / 16777216.0f);
    for (i = 0; i < n; ++i) p[4 * i + 3] = 1.0f / (float)n;
}

/* The gather's indices in b (0 .. n-1 on entry): shuffled with a's words
 * past the 3n that hold the 12-byte elements. */
static void ws_gather_inputs(const uint32_t *a, uint32_t *b, size_t n)
{
    size_t i;
    for (i = n; i > 1; --i) {
        size_t j = a[3 * n + i] % i;
        uint32_t t = b[i - 1];
        b[i - 1] = b[j];
        b[j] = t;
    }
}

/* The device-level calls (gather, N-body, binning): buffers in, bytes out. */
static clsort_result ws_run_device(clsort_context *cs, int which, size_t n, uint32_t *a, uint32_t *b,
                                   unsigned char *out, size_t *bytes)
{
    clsort_result r = CLSORT_SUCCESS;
    size_t in_bytes = which == WS_GATHER_12B ? n * 12 : n * 16;
    size_t out_size = which == WS_BIN ? n * 4 : in_bytes;
    cl_mem in, other, idx = NULL;
    if (which == WS_GATHER_12B) ws_gather_inputs(a, b, n);
    else ws_bodies(a, n, (float *)a);
    in = ws_buffer(cs, in_bytes, a);
    other = ws_buffer(cs, out_size, NULL);
    if (which == WS_GATHER_12B) idx = ws_buffer(cs, n * 4 + 4, b);
    if (!in || !other || (which == WS_GATHER_12B && !idx)) {
        r = CLSORT_ERROR_OPENCL;
    } else if (which == WS_GATHER_12B) {
        r = clsort_gather(cs, in, other, idx, n, 12, NULL);
    } else if (which == WS_NBODY_F32) {
        clsort_nbody_desc nd;
        float zero = 0.0f;
        ws_nbody(&nd);
        r = clEnqueueFillBuffer(clsort_cl_queue(cs), other, &zero, sizeof zero, 0, n * 16, 0, NULL, NULL) == CL_SUCCESS
                ? clsort_nbody(cs, in, other, n, &nd, NULL)
                : CLSORT_ERROR_OPENCL;
    } else {
        clsort_bin_desc bd;
        ws_grid(&bd);
        bd.permutation = other;
        r = clsort_bin(cs, in, n, &bd, NULL);
    }
    *bytes = out_size;
    if (r == CLSORT_SUCCESS && *bytes &&
        clEnqueueReadBuffer(clsort_cl_queue(cs), which == WS_NBODY_F32 ? in : other, CL_TRUE, 0, *bytes, out, 0, NULL,
                            NULL) != CL_SUCCESS)
        r = CLSORT_ERROR_OPENCL;
    if (in) clReleaseMemObject(in);
    if (other) clReleaseMemObject(other);
    if (idx) clReleaseMemObject(idx);
    return r;
}

/* The reductions: out holds the reduction (reduce), the scan (segmented
 * scan), or the run count, keys and sums (reduce-by-key). */
static clsort_result ws_run_reduce(clsort_context *cs, int which, size_t n, uint32_t *a, uint32_t *b,
                                   unsigned char *out, size_t *bytes)
{
    size_t i, count = 0;
    uint32_t runs;
    clsort_result r;
    if (which == WS_REDUCE_U32) {
        *bytes = 4;
        return clsort_reduce_host(cs, CLSORT_U32, CLSORT_OP_SUM, a, n, out);
    }
    for (i = 0; i < n; ++i) b[i] = which == WS_SEGSCAN_U32 ? ws_head(a, n, i) : ws_key(a, n, i);
    if (which == WS_SEGSCAN_U32) {
        clsort_reduce_desc d;
        memset(&d, 0, sizeof d);
        d.segments = CLSORT_SEGMENTS_FLAGS_U32;
        d.segment_data_host = b;
        *bytes = n * 4;
        return clsort_segmented_scan_host(cs, CLSORT_U32, a, out, n, &d);
    } else {
        clsort_by_key_desc kd;
        memset(&kd, 0, sizeof kd);
        r = clsort_reduce_by_key_host(cs, CLSORT_U32, CLSORT_U32, b, a, out + 4, out + 4 + n * 4, n, &kd, &count);
        runs = (uint32_t)count;
        memcpy(out, &runs, 4);
        *bytes = 4 + n * 8;
        return r;
    }
}

/* Runs call `which` on n elements; writes its result to out, its size to
 * *bytes. Returns the clsort_result (CLSORT_ERROR_OUT_OF_HOST_MEMORY when the
 * test's own allocations fail). */
static clsort_result ws_run(clsort_context *cs, int which, size_t n, unsigned char *out, size_t *bytes)
{
    uint32_t *a = (uint32_t *)malloc(n * 16 + 16), *b = (uint32_t *)malloc(n * 16 + 16);
    clsort_result r = CLSORT_SUCCESS;
    size_t i, count = 0;
    if (!a || !b) {
        free(a);
        free(b);
        return CLSORT_ERROR_OUT_OF_HOST_MEMORY;
    }
    ws_inputs(which, n, a, b);
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
        r = clsort_sort_host(cs, sd.type, a, which == WS_SORT_PAIRS ? b : NULL,
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
        r = clsort_bitonic_sort_host(cs, CLSORT_F32, f, NULL, NULL, n, &bt);
        memcpy(out, f, n * 4);
        *bytes = n * 4;
        break;
    }
    case WS_GATHER_12B:
    case WS_NBODY_F32:
    case WS_BIN:
        r = ws_run_device(cs, which, n, a, b, out, bytes);
        break;
    case WS_REDUCE_U32:
    case WS_SEGSCAN_U32:
    case WS_REDUCE_BY_KEY:
        r = ws_run_reduce(cs, which, n, a, b, out, bytes);
        break;
    case WS_TREE_BH: {
        clsort_nbody_desc nd;
        ws_tree(&nd);
        ws_bodies(a, n, (float *)a);
        r = clsort_tree_accel_host(cs, (const float *)a, n, (float *)out, &nd);
        *bytes = n * 16;
        break;
    }
    default:
        r = CLSORT_ERROR_INVALID_ARGUMENT;
    }
    free(a);
    free(b);
    return r;
}

/* Barnes-Hut against all pairs on every (n / 61 + 1)-th body: |a - a_ref| at
 * most 2% of the sum of the pairs' magnitudes (theta 0.5 with quadrupoles is
 * well inside that; a wrong tree or walk is not). */
static int ws_check_tree(size_t n, const float *acc, const uint32_t *a)
{
    float *p = (float *)malloc(n * 16 + 16);
    size_t i, j, step = n / 61 + 1;
    int ok = p != NULL;
    if (ok) ws_bodies(a, n, p);
    for (i = 0; i < n && ok; i += step) {
        double ref[3] = {0, 0, 0}, mag = 0, err = 0;
        int c;
        for (j = 0; j < n; ++j) {
            double d[3], r2 = 0.01, f;
            for (c = 0; c < 3; ++c) d[c] = (double)p[4 * j + c] - (double)p[4 * i + c], r2 += d[c] * d[c];
            f = (double)p[4 * j + 3] / (r2 * sqrt(r2));
            for (c = 0; c < 3; ++c) ref[c] += f * d[c];
            mag += f * sqrt(r2 - 0.01);
        }
        for (c = 0; c < 3; ++c) err += ((double)acc[4 * i + c] - ref[c]) * ((double)acc[4 * i + c] - ref[c]);
        ok = sqrt(err) <= 0.02 * mag;
    }
    free(p);
    return ok;
}

/* The reductions against a host pass over the same inputs. */
static int ws_check_reduce(int which, size_t n, const unsigned char *out, const uint32_t *a)
{
    const uint32_t *u = (const uint32_t *)out;
    uint32_t acc = 0, runs = 0, key = 0, want_runs;
    size_t i;
    if (which == WS_REDUCE_U32) {
        for (i = 0; i < n; ++i) acc += a[i];
        return u[0] == acc;
    }
    if (which == WS_SEGSCAN_U32) { /* exclusive, restarting at each head */
        for (i = 0; i < n; ++i) {
            if (ws_head(a, n, i)) acc = 0;
            if (u[i] != acc) return 0;
            acc += a[i];
        }
        return 1;
    }
    want_runs = 0;
    for (i = 0; i < n; ++i) want_runs += i == 0 || ws_key(a, n, i) != ws_key(a, n, i - 1);
    if (u[0] != want_runs) return 0;
    for (i = 0; i < n; ++i) {
        if (i > 0 && ws_key(a, n, i) != key) {
            if (u[1 + runs] != key || u[1 + n + runs] != acc) return 0;
            ++runs, acc = 0;
        }
        key = ws_key(a, n, i);
        acc += a[i];
    }
    return n == 0 || (u[1 + runs] == key && u[1 + n + runs] == acc);
}

/* Checks the sorts, the scan, the gather, the reductions and the tree against
 * the inputs (order, sums, a host reference); the rest is compared across
 * contexts by the callers. */
static int ws_check(int which, size_t n, const unsigned char *out, size_t bytes)
{
    size_t i;
    const uint32_t *u = (const uint32_t *)out;
    const uint64_t *w = (const uint64_t *)out;
    const float *f = (const float *)out;
    uint32_t *a, *b;
    int ok = 1;
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
    case WS_GATHER_12B:
    case WS_REDUCE_U32:
    case WS_SEGSCAN_U32:
    case WS_REDUCE_BY_KEY:
    case WS_TREE_BH:
        a = (uint32_t *)malloc(n * 16 + 16), b = (uint32_t *)malloc(n * 16 + 16);
        if (!a || !b) ok = 0;
        if (ok) ws_inputs(which, n, a, b);
        if (ok && which == WS_GATHER_12B) {
            ws_gather_inputs(a, b, n);
            for (i = 0; i < n && ok; ++i) ok = memcmp(out + 12 * i, (const unsigned char *)a + 12 * (size_t)b[i], 12) == 0;
        } else if (ok && which == WS_TREE_BH) {
            ok = ws_check_tree(n, f, a);
        } else if (ok) {
            ok = ws_check_reduce(which, n, out, a);
        }
        free(a);
        free(b);
        return ok;
    default:
        return bytes > 0 || n == 0;
    }
}
#endif
