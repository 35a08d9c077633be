/* libFuzzer harness: random calls of the public API on the default device
 * (PoCL in CI), each result checked against a C reference.
 *
 *   make fuzz                     bounded run (FUZZ_SECONDS, default 60) over tests/fuzz_corpus
 *   build/fuzz_clsort -runs=N     by hand
 *
 * The input's first bytes choose the primitive, type, size, bit range,
 * radix width, flags and order; the rest (repeated) is the data. Arguments
 * are often out of range on purpose: the call must then fail cleanly with a
 * message and leave the buffers untouched. A wrong result aborts (libFuzzer
 * keeps the input as a crash file). One context for the whole run. */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static clsort_context *cs;

static void fail(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_clsort: %s %s\n", what, detail ? detail : "");
    abort();
}

typedef struct reader {
    const uint8_t *p;
    size_t n, at;
} reader;

static unsigned byte_of(reader *r)
{
    return r->at < r->n ? r->p[r->at++] : 0u;
}

/* The data: the input bytes after the header, repeated, as 64-bit words. */
static uint64_t word_of(const reader *r, size_t i)
{
    uint64_t w = 0;
    size_t k, avail = r->n > r->at ? r->n - r->at : 0;
    for (k = 0; k < 8; ++k) {
        size_t j = i * 8 + k;
        w = w << 8 | (avail ? r->p[r->at + j % avail] : (uint8_t)(j * 131u));
    }
    return w ^ (uint64_t)i * 0x9E3779B97F4A7C15ull;
}

static const clsort_type types[10] = {CLSORT_U32, CLSORT_I32, CLSORT_F32, CLSORT_U64, CLSORT_I64, CLSORT_F64,
                                      CLSORT_U8,  CLSORT_I8,  CLSORT_U16, CLSORT_I16};

/* Total order of the sort on the key's image (see clsort.h). */
static uint64_t image(uint64_t x, clsort_type t)
{
    switch (t) {
    case CLSORT_I8: return (x ^ 0x80u) & 0xffu;
    case CLSORT_I16: return (x ^ 0x8000u) & 0xffffu;
    case CLSORT_I32: return (x ^ 0x80000000u) & 0xffffffffu;
    case CLSORT_I64: return x ^ 0x8000000000000000ull;
    case CLSORT_F32:
        x &= 0xffffffffu;
        if (x & 0x80000000u) return x > 0xff800000u ? x : 0xff800000u - x;
        return x + (0xff800000u - 0x80000000u + 1u);
    case CLSORT_F64:
        if (x & 0x8000000000000000ull) return x > 0xfff0000000000000ull ? x : 0xfff0000000000000ull - x;
        return x + (0xfff0000000000000ull - 0x8000000000000000ull + 1u);
    default: return x;
    }
}

static cl_mem upload(const void *p, size_t bytes)
{
    cl_int e;
    cl_mem m = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, bytes ? bytes : 8, NULL, &e);
    if (e != CL_SUCCESS) fail("clCreateBuffer", NULL);
    if (p && bytes && clEnqueueWriteBuffer(clsort_cl_queue(cs), m, CL_TRUE, 0, bytes, p, 0, NULL, NULL) != CL_SUCCESS)
        fail("clEnqueueWriteBuffer", NULL);
    return m;
}

static void download(cl_mem m, size_t bytes, void *p)
{
    if (bytes && clEnqueueReadBuffer(clsort_cl_queue(cs), m, CL_TRUE, 0, bytes, p, 0, NULL, NULL) != CL_SUCCESS)
        fail("clEnqueueReadBuffer", NULL);
}

static uint64_t get(const void *p, size_t ks, size_t i)
{
    uint64_t x = 0;
    memcpy(&x, (const unsigned char *)p + i * ks, ks); /* little-endian: the key's bits */
    return x;
}

/* Radix sort with random type, bit range, radix width, order, permutation. */
static void fuzz_sort(reader *r)
{
    clsort_type t = types[byte_of(r) % 10];
    size_t ks = clsort_type_size(t), n = (byte_of(r) << 8 | byte_of(r)) % 9000, i;
    unsigned width = (unsigned)ks * 8, begin = byte_of(r) % (width + 2), end = byte_of(r) % (width + 2);
    unsigned radix = byte_of(r) % 14, flags = byte_of(r);
    clsort_sort_desc d;
    unsigned char *in = (unsigned char *)malloc(n * ks + 8), *out = (unsigned char *)malloc(n * ks + 8);
    uint32_t *perm = (uint32_t *)malloc(n * 4 + 4);
    cl_mem din, dout, dperm;
    clsort_result res;
    int valid;
    for (i = 0; i < n; ++i) {
        uint64_t w = word_of(r, i);
        if (flags & 16) w &= 0x0f0f; /* few distinct */
        memcpy(in + i * ks, &w, ks); /* little-endian: the low ks bytes */
    }
    memset(&d, 0, sizeof d);
    d.type = t;
    d.begin_bit = begin;
    d.end_bit = end;
    d.radix_bits = radix;
    d.descending = flags & 1;
    din = upload(in, n * ks);
    dout = flags & 2 ? din : upload(NULL, n * ks);
    dperm = upload(NULL, n * 4);
    d.permutation = flags & 4 ? dperm : NULL;
    if (t == CLSORT_F64 && !(flags & 8)) d.type = CLSORT_U64; /* keep f64 rare: it needs fp64 */
    res = clsort_sort(cs, din, dout, n, &d, NULL);
    valid = (end == 0 ? width : end) > begin && (end == 0 ? width : end) <= width && radix <= 12;
    if (!valid) {
        if (res == CLSORT_SUCCESS && n > 0) fail("sort accepted a bad bit range / radix", NULL);
        if (n > 0) {
            download(din, n * ks, out);
            if (memcmp(in, out, n * ks) != 0) fail("sort changed its input on an argument error", NULL);
        }
    } else if (res == CLSORT_ERROR_UNSUPPORTED) {
        /* f64 without cl_khr_fp64 */
    } else if (res != CLSORT_SUCCESS) {
        fail("sort failed", clsort_last_error(cs));
    } else if (n > 0) {
        unsigned e = end == 0 ? width : end;
        uint64_t mask = (e - begin >= 64 ? ~0ull : ((1ull << (e - begin)) - 1)) << begin;
        unsigned char *seen = (unsigned char *)calloc(n, 1);
        download(dout, n * ks, out);
        if (d.permutation) download(dperm, n * 4, perm);
        for (i = 0; i < n; ++i) {
            uint64_t cur = image(get(out, ks, i), d.type) & mask;
            if (i > 0) {
                uint64_t prev = image(get(out, ks, i - 1), d.type) & mask;
                if (d.descending ? prev < cur : prev > cur) fail("sort: keys out of order", NULL);
            }
            if (d.permutation) {
                if (perm[i] >= n || seen[perm[i]]) fail("sort: permutation is not one", NULL);
                seen[perm[i]] = 1;
                if (get(in, ks, perm[i]) != get(out, ks, i)) fail("sort: permutation does not match", NULL);
                if (i > 0 && (image(get(out, ks, i - 1), d.type) & mask) == cur && perm[i - 1] > perm[i])
                    fail("sort: not stable", NULL);
            }
        }
        free(seen);
    }
    clReleaseMemObject(din);
    if (dout != din) clReleaseMemObject(dout);
    clReleaseMemObject(dperm);
    free(in); free(out); free(perm);
}

/* Scan (u32/u64 wraps exactly) and pack with flags from the data. */
static void fuzz_scan_pack(reader *r)
{
    size_t n = (byte_of(r) << 8 | byte_of(r)) % 20000, i, count = 0, k = 0;
    unsigned flags = byte_of(r);
    int wide = flags & 1, inclusive = (flags >> 1) & 1;
    size_t ks = wide ? 8 : 4;
    unsigned char *in = (unsigned char *)malloc(n * ks + 8), *out = (unsigned char *)malloc(n * ks + 8);
    uint32_t *fl = (uint32_t *)malloc(n * 4 + 4);
    clsort_scan_desc sd;
    clsort_split_desc pd;
    cl_mem din, dout, dfl;
    uint64_t acc = 0;
    for (i = 0; i < n; ++i) {
        uint64_t w = word_of(r, i);
        if (wide) ((uint64_t *)in)[i] = w;
        else ((uint32_t *)in)[i] = (uint32_t)w;
        fl[i] = (flags & 4) ? (uint32_t)(w >> 40 & 1) : (uint32_t)(w >> 33 & 7) == 0;
    }
    din = upload(in, n * ks);
    dout = upload(NULL, n * ks);
    dfl = upload(fl, n * 4);
    memset(&sd, 0, sizeof sd);
    sd.type = wide ? CLSORT_U64 : CLSORT_U32;
    sd.inclusive = inclusive;
    if (clsort_scan(cs, din, dout, n, &sd, NULL) != CLSORT_SUCCESS) fail("scan failed", clsort_last_error(cs));
    download(dout, n * ks, out);
    for (i = 0; i < n; ++i) {
        uint64_t x = get(in, ks, i), before = acc;
        acc += x;
        if (!wide) acc &= 0xffffffffu;
        if (get(out, ks, i) != (inclusive ? acc : before)) fail("scan: wrong sum", NULL);
    }
    memset(&pd, 0, sizeof pd);
    pd.type = sd.type;
    pd.flags = dfl;
    if (clsort_pack(cs, din, dout, n, &pd, &count, NULL) != CLSORT_SUCCESS) fail("pack failed", clsort_last_error(cs));
    download(dout, count * ks, out);
    for (i = 0; i < n; ++i)
        if (fl[i]) {
            if (k >= count || get(out, ks, k) != get(in, ks, i)) fail("pack: wrong element", NULL);
            ++k;
        }
    if (k != count) fail("pack: wrong count", NULL);
    clReleaseMemObject(din); clReleaseMemObject(dout); clReleaseMemObject(dfl);
    free(in); free(out); free(fl);
}

/* Binning: random grid (dims, cells, order, periodic), positions from the data. */
static void fuzz_bin(reader *r)
{
    size_t n = (byte_of(r) << 8 | byte_of(r)) % 6000, i, cells = 0;
    unsigned dims = 2 + (byte_of(r) & 1), a, bits = 0, flags = byte_of(r);
    clsort_bin_desc bd;
    float *pos;
    uint32_t *keys, *perm;
    cl_mem dpos, dkeys, dperm;
    clsort_result res;
    memset(&bd, 0, sizeof bd);
    bd.grid.dims = dims;
    bd.grid.order = (flags & 1) ? CLSORT_CELL_MORTON : CLSORT_CELL_ROW_MAJOR;
    bd.method = (flags & 2) ? CLSORT_BIN_ATOMIC : CLSORT_BIN_SORT;
    for (a = 0; a < dims; ++a) {
        bd.grid.cells[a] = 1 + byte_of(r) % 40;
        bd.grid.cell_size[a] = (float)(1 + byte_of(r) % 8) * 0.125f;
        bd.grid.origin[a] = (float)((int)byte_of(r) - 128) * 0.25f;
        bd.grid.periodic[a] = (int)((flags >> (2 + a)) & 1);
    }
    pos = (float *)malloc(n * dims * 4 + 4);
    keys = (uint32_t *)malloc(n * 4 + 4);
    perm = (uint32_t *)malloc(n * 4 + 4);
    for (i = 0; i < n * dims; ++i) pos[i] = (float)((int64_t)(word_of(r, i) % 20001) - 10000) * 0.01f;
    dpos = upload(pos, n * dims * 4);
    dkeys = upload(NULL, n * 4);
    dperm = upload(NULL, n * 4);
    bd.cell_keys = dkeys;
    bd.permutation = dperm;
    res = clsort_bin(cs, dpos, n, &bd, NULL);
    if (res != CLSORT_SUCCESS) fail("bin failed", clsort_last_error(cs));
    if (clsort_grid_keys(cs, &bd.grid, &cells, &bits) != CLSORT_SUCCESS) fail("grid_keys failed", NULL);
    download(dkeys, n * 4, keys);
    download(dperm, n * 4, perm);
    for (i = 0; i < n; ++i) {
        if (keys[i] >= cells) fail("bin: key out of range", NULL);
        if (i > 0 && keys[i - 1] > keys[i]) fail("bin: keys out of order", NULL);
        if (perm[i] >= n) fail("bin: bad permutation", NULL);
        if (bd.method == CLSORT_BIN_SORT && i > 0 && keys[i - 1] == keys[i] && perm[i - 1] > perm[i])
            fail("bin: sort method not stable", NULL);
    }
    clReleaseMemObject(dpos); clReleaseMemObject(dkeys); clReleaseMemObject(dperm);
    free(pos); free(keys); free(perm);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r;
    if (!cs) {
        if (clsort_create(&cs, NULL) != CLSORT_SUCCESS) fail("clsort_create", clsort_last_error(cs));
    }
    r.p = data;
    r.n = size;
    r.at = 0;
    switch (byte_of(&r) % 3) {
    case 0: fuzz_sort(&r); break;
    case 1: fuzz_scan_pack(&r); break;
    default: fuzz_bin(&r); break;
    }
    return 0;
}
