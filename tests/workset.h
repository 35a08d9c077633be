/* At least one call of every family of the registry (CLSORT_FAMILIES), in
 * the family order, on deterministic data, its result as bytes: shared by
 * tests/test_cache.c (cached and uncached programs must give the same bytes;
 * clsort_prepare, which covers every family, must leave nothing to build;
 * every family has a call) and bench/tools/coldstart.c (first and second
 * call of each family in a new process). Include after clsort.h. */
#ifndef CLSORT_WORKSET_H
#define CLSORT_WORKSET_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The calls, in the family order: X(id, family, name), family the ID of its
 * row in CLSORT_FAMILIES (its clsort_family CLSORT_FAMILY_<family>).
 * ws_prepare_call describes each to clsort_prepare, with the operation of
 * its family's row. */
#define WS_CALLS(X)                                                                                       \
    X(WS_SCAN_U32, SCAN, "scan u32")                                                                      \
    X(WS_PACK_U32, SPLIT, "pack u32")                                                                     \
    X(WS_GATHER_12B, GATHER, "gather 12-byte")                                                            \
    X(WS_SORT_KEYS, RADIX, "sort u32 keys")                                                               \
    X(WS_SORT_PAIRS, RADIX, "sort u32 pairs")                                                             \
    X(WS_SORT_10BIT_PERM, RADIX, "sort 10-bit + permutation")                                             \
    X(WS_SORT_U64, RADIX, "sort u64 keys")                                                                \
    X(WS_BITONIC_F32, BITONIC, "bitonic f32")                                                             \
    X(WS_BIN, BINNING, "binning")                                                                         \
    X(WS_REDUCE_U32, REDUCE, "reduce u32")                                                                \
    X(WS_SEGSCAN_U32, REDUCE, "segmented scan u32")                                                       \
    X(WS_REDUCE_BY_KEY, REDUCE, "reduce-by-key u32")                                                      \
    X(WS_NBODY_F32, NBODY, "N-body f32")                                                                  \
    X(WS_TREE_BH, TREE, "tree + Barnes-Hut")                                                              \
    X(WS_SELECT_U32, SELECT, "select u32 > 2^31 + values")                                                \
    X(WS_SEARCH_U32, SEARCH, "lower_bound u32") \
    X(WS_MERGE_U32, MERGE, "merge u32 pairs")                                                             \
    X(WS_TOP_K_U32, TOP_K, "top_k u32 n/8 sorted + values")

#define WS_ID(id, family, name) id,
#define WS_NAME(id, family, name) name,
#define WS_FAMILY(id, family, name) CLSORT_FAMILY_##family,
enum { WS_CALLS(WS_ID) WS_COUNT };
static const char *const ws_names[WS_COUNT] = {WS_CALLS(WS_NAME)};
static const clsort_family ws_family[WS_COUNT] = {WS_CALLS(WS_FAMILY)};
#undef WS_ID
#undef WS_NAME
#undef WS_FAMILY

/* The clsort_prepare operation of each family (its registry row). */
#define WS_FAMILY_OP(id, name, prepare) CLSORT_PREPARE_##prepare,
static const clsort_prepare_op ws_family_op[CLSORT_FAMILY_COUNT] = {CLSORT_FAMILIES(WS_FAMILY_OP)};
#undef WS_FAMILY_OP

/* The first family of the registry without a call in the work set, or
 * CLSORT_FAMILY_COUNT when every family has one. */
static clsort_family ws_family_without_call(void)
{
    int f, w, found;
    for (f = 0; f < CLSORT_FAMILY_COUNT; ++f) {
        for (w = 0, found = 0; w < WS_COUNT && !found; ++w) found = ws_family[w] == (clsort_family)f;
        if (!found) return (clsort_family)f;
    }
    return CLSORT_FAMILY_COUNT;
}

/* The select call's bound: keys above it pass (about half of random words). */
static const uint32_t ws_select_bound = 0x80000000u;

/* The merge's halves are sorted first; top_k takes the n / 8 smallest. */
static int ws_cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}
static void ws_top_k(clsort_top_k_desc *td, size_t n)
{
    memset(td, 0, sizeof *td);
    td->k = n / 8;
    td->sorted = 1;
}

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

/* The search's haystack: a[0..n) with its low byte cleared (equal keys),
 * sorted. */
static int ws_u32_cmp(const void *x, const void *y)
{
    uint32_t p = *(const uint32_t *)x, q = *(const uint32_t *)y;
    return (p > q) - (p < q);
}
static void ws_search_inputs(uint32_t *a, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i) a[i] &= 0xffffff00u;
    if (n > 1) qsort(a, n, 4, ws_u32_cmp);
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
    clsort_reduce_desc reduce;
    clsort_by_key_desc by_key;
    clsort_tree_desc tree;
    clsort_select_desc select;
    clsort_search_desc search;
    clsort_merge_desc merge;
    clsort_top_k_desc top_k;
} ws_descs;

/* The clsort_prepare call of `which` in *c (its descriptor in *d): the
 * operation of its family, the descriptor ws_run passes. */
static void ws_prepare_call(int which, size_t n, clsort_prepare_call *c, ws_descs *d)
{
    memset(c, 0, sizeof *c);
    memset(d, 0, sizeof *d);
    c->n = n;
    c->op = ws_family_op[ws_family[which]];
    switch (which) {
    case WS_SCAN_U32: c->scan = &d->scan; break;
    case WS_PACK_U32: c->split = &d->split; break;
    case WS_GATHER_12B: break;
    case WS_SORT_KEYS:
    case WS_SORT_PAIRS:
    case WS_SORT_10BIT_PERM:
    case WS_SORT_U64:
        if (which == WS_SORT_PAIRS) d->sort.values_in = d->sort.values_out = CLSORT_PREPARE_PRESENT;
        if (which == WS_SORT_10BIT_PERM) d->sort.end_bit = 10, d->sort.permutation = CLSORT_PREPARE_PRESENT;
        if (which == WS_SORT_U64) d->sort.type = CLSORT_U64;
        c->sort = &d->sort;
        break;
    case WS_BITONIC_F32: d->bitonic.type = CLSORT_F32, c->bitonic = &d->bitonic; break;
    case WS_BIN: ws_grid(&d->bin), c->bin = &d->bin; break;
    case WS_REDUCE_U32: c->reduce_fn = CLSORT_REDUCE_FN_REDUCE, c->reduce = &d->reduce; break;
    case WS_SEGSCAN_U32:
        d->reduce.segments = CLSORT_SEGMENTS_FLAGS_U32;
        c->reduce_fn = CLSORT_REDUCE_FN_SEGMENTED_SCAN, c->reduce = &d->reduce;
        break;
    case WS_REDUCE_BY_KEY: c->reduce_fn = CLSORT_REDUCE_FN_REDUCE_BY_KEY, c->by_key = &d->by_key; break;
    case WS_NBODY_F32: ws_nbody(&d->nbody), c->nbody = &d->nbody; break;
    case WS_TREE_BH: /* clsort_tree_accel_host's tree: float4 bodies, the mass in w */
        d->tree.dims = 3, d->tree.stride = 16, d->tree.has_mass = 1, d->tree.mass_offset = 12;
        c->tree = &d->tree;
        break;
    case WS_SELECT_U32:
        d->select.compare = CLSORT_COMPARE_GREATER, d->select.a = &ws_select_bound;
        d->select.values_in = d->select.values_out = CLSORT_PREPARE_PRESENT;
        c->select = &d->select;
        break;
    case WS_SEARCH_U32: c->search = &d->search; break;
    case WS_MERGE_U32:
        d->merge.values_a = d->merge.values_b = d->merge.values_out = CLSORT_PREPARE_PRESENT;
        c->merge = &d->merge;
        break;
    case WS_TOP_K_U32:
        ws_top_k(&d->top_k, n);
        d->top_k.values_in = d->top_k.values_out = CLSORT_PREPARE_PRESENT;
        c->top_k = &d->top_k;
        break;
    default: break;
    }
}

/* Builds every program of the work set's calls, in one call. */
static clsort_result ws_prepare(clsort_context *cs, size_t n)
{
    clsort_prepare_call calls[WS_COUNT];
    ws_descs descs[WS_COUNT];
    clsort_prepare_desc pd;
    int w;
    memset(&pd, 0, sizeof pd);
    pd.calls = calls;
    pd.count = WS_COUNT;
    for (w = 0; w < WS_COUNT; ++w) ws_prepare_call(w, n, &calls[w], &descs[w]);
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
    case WS_SELECT_U32: { /* out: the kept count (u32), the kept keys, the kept values (b: the indices) */
        clsort_select_desc sel;
        uint32_t kept;
        memset(&sel, 0, sizeof sel);
        sel.compare = CLSORT_COMPARE_GREATER;
        sel.a = &ws_select_bound;
        r = clsort_select_if_host(cs, CLSORT_U32, a, b, out + 4, a + 2 * n, n, &sel, &count); /* values kept in a[2n..3n) */
        kept = (uint32_t)count;
        memcpy(out, &kept, 4);
        memcpy(out + 4 + count * 4, a + 2 * n, count * 4);
        *bytes = 4 + count * 8;
        break;
    }
    case WS_SEARCH_U32: /* out: the lower bound of each of a[n..2n) in the sorted a[0..n) */
        ws_search_inputs(a, n);
        r = clsort_lower_bound_host(cs, CLSORT_U32, a, n, a + n, n, out, NULL);
        *bytes = n * 4;
        break;
    case WS_MERGE_U32: { /* out: the n keys, then their indices in the sorted halves (stable) */
        size_t h = n / 2;
        qsort(a, h, 4, ws_cmp_u32);
        qsort(a + h, n - h, 4, ws_cmp_u32);
        r = clsort_merge_host(cs, CLSORT_U32, a, b, h, a + h, b + h, n - h, out, out + n * 4, NULL);
        *bytes = n * 8;
        break;
    }
    case WS_TOP_K_U32: { /* out: the n / 8 smallest keys, sorted, then their indices */
        clsort_top_k_desc td;
        ws_top_k(&td, n);
        r = clsort_top_k_host(cs, CLSORT_U32, a, b, n, out, out + td.k * 4, &td);
        *bytes = td.k * 8;
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

/* The select call against a host pass: the keys above the bound and their
 * indices, in input order. */
static int ws_check_select(size_t n, const unsigned char *out, const uint32_t *a)
{
    const uint32_t *u = (const uint32_t *)out;
    size_t i, k = 0, kept = u[0];
    for (i = 0; i < n; ++i)
        if (a[i] > ws_select_bound) {
            if (k >= kept || u[1 + k] != a[i] || u[1 + kept + k] != (uint32_t)i) return 0;
            ++k;
        }
    return k == kept;
}

/* Checks the sorts, the scan, the gather, the reductions, the tree and the
 * select against the inputs (order, sums, a host reference); the rest is
 * compared across contexts by the callers. */
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
    case WS_MERGE_U32: /* sorted; equal keys: the first half's (lower indices) first */
        for (i = 1; i < n; ++i)
            if (u[i - 1] > u[i] || (u[i - 1] == u[i] && u[n + i - 1] > u[n + i])) return 0;
        return 1;
    case WS_TOP_K_U32: /* the first n / 8 of the sorted input, each with its index */
        a = (uint32_t *)malloc(n * 16 + 16), b = (uint32_t *)malloc(n * 16 + 16);
        if (!a || !b) ok = 0;
        if (ok) {
            ws_inputs(which, n, a, b);
            for (i = 0; i < n / 8 && ok; ++i) ok = u[n / 8 + i] < n && a[u[n / 8 + i]] == u[i];
            qsort(a, n, 4, ws_cmp_u32);
            for (i = 0; i < n / 8 && ok; ++i) ok = a[i] == u[i];
        }
        free(a);
        free(b);
        return ok;
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
    case WS_SELECT_U32:
    case WS_SEARCH_U32:
        a = (uint32_t *)malloc(n * 16 + 16), b = (uint32_t *)malloc(n * 16 + 16);
        if (!a || !b) ok = 0;
        if (ok) ws_inputs(which, n, a, b);
        if (ok && which == WS_GATHER_12B) {
            ws_gather_inputs(a, b, n);
            for (i = 0; i < n && ok; ++i) ok = memcmp(out + 12 * i, (const unsigned char *)a + 12 * (size_t)b[i], 12) == 0;
        } else if (ok && which == WS_TREE_BH) {
            ok = ws_check_tree(n, f, a);
        } else if (ok && which == WS_SELECT_U32) {
            ok = ws_check_select(n, out, a);
        } else if (ok && which == WS_SEARCH_U32) { /* a[lb - 1] < needle <= a[lb] */
            ws_search_inputs(a, n);
            for (i = 0; i < n && ok; ++i)
                ok = u[i] <= n && (u[i] == 0 || a[u[i] - 1] < a[n + i]) && (u[i] == n || a[u[i]] >= a[n + i]);
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
