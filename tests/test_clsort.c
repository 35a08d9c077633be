/* clsort test suite: every primitive against a plain C reference, on both
 * cross-work-group paths (portable and look-back), on the default device
 * (CLSORT_DEVICE picks another). Ends with "N passed, N failed".
 *   test_clsort [--quick|--tiny|--full [base|sort|bin|bitonic|nbody|tree|reduce|reverse|status|budget]]
 *      (reverse: only the look-back with tiles in reverse start order, for stress loops;
 *      budget: only the loop-budget cases, issue 17, which the parts run too)
 *      --quick: sizes up to 2^13 (sanitizers); --tiny: a few sizes around tile
 *      edges (oclgrind); --full: the default; base|sort|bin|bitonic|nbody|tree|reduce: only that part */
#ifndef _POSIX_C_SOURCE
#endif
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int passed, failed;
/* the 4- and 8-byte types: every family takes them (8- and 16-bit ones only sort and split) */
#define T_WIDE_END (CLSORT_F64 + 1)
static const char *path_name;

static void check(int ok, const char *what, size_t n, const char *dist, size_t at, double want, double got)
{
    if (ok) { ++passed; return; }
    ++failed;
    printf("FAIL %s [%s] n=%lu dist=%s: first bad index %lu, expected %.17g, got %.17g\n", what, path_name,
           (unsigned long)n, dist, (unsigned long)at, want, got);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

enum { D_RANDOM, D_EQUAL, D_ZERO, D_ONES, D_MAX, D_SORTED, D_REVERSED, D_COUNT };
static const char *dist_names[] = {"random", "all-equal", "zero", "all-ones", "max", "sorted", "reversed"};

/* Fills n elements of type t following distribution d. */
static void fill(void *p, clsort_type t, size_t n, int d)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        uint64_t r = rnd64();
        switch (t) {
        case CLSORT_F32: {
            float v = d == D_RANDOM ? (float)((double)(r >> 11) / 9007199254740992.0 * 200.0 - 100.0)
                    : d == D_ZERO ? 0.0f : d == D_SORTED ? (float)i : d == D_REVERSED ? (float)(n - i) : 1.5f;
            ((float *)p)[i] = v;
            break;
        }
        case CLSORT_F64: {
            double v = d == D_RANDOM ? (double)(r >> 11) / 9007199254740992.0 * 200.0 - 100.0
                     : d == D_ZERO ? 0.0 : d == D_SORTED ? (double)i : 1.25;
            ((double *)p)[i] = v;
            break;
        }
        default: {
            uint64_t v = d == D_RANDOM ? r : d == D_EQUAL ? 0x12345677u : d == D_ZERO ? 0 : d == D_ONES ? ~0ull
                       : d == D_MAX ? (t == CLSORT_I32 ? 0x7fffffffu : t == CLSORT_I64 ? 0x7fffffffffffffffull : ~0ull)
                       : d == D_SORTED ? i : (uint64_t)(n - i);
            if (clsort_type_size(t) == 4) ((uint32_t *)p)[i] = (uint32_t)v;
            else ((uint64_t *)p)[i] = v;
        }
        }
    }
}

static cl_mem buffer(clsort_context *cs, size_t bytes, const void *src)
{
    cl_int e;
    cl_mem m = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &e);
    if (e != CL_SUCCESS) { printf("clCreateBuffer failed\n"); exit(2); }
    if (src && bytes) clEnqueueWriteBuffer(clsort_cl_queue(cs), m, CL_TRUE, 0, bytes, src, 0, NULL, NULL);
    return m;
}

static void download(clsort_context *cs, cl_mem m, size_t bytes, void *dst)
{
    if (bytes && clEnqueueReadBuffer(clsort_cl_queue(cs), m, CL_TRUE, 0, bytes, dst, 0, NULL, NULL) != CL_SUCCESS) {
        printf("clEnqueueReadBuffer failed\n");
        exit(2);
    }
}

/* ---- scan ---- */

static double elem_as_double(const void *p, clsort_type t, size_t i)
{
    switch (t) {
    case CLSORT_U32: return ((const uint32_t *)p)[i];
    case CLSORT_I32: return ((const int32_t *)p)[i];
    case CLSORT_F32: return ((const float *)p)[i];
    case CLSORT_U64: return (double)((const uint64_t *)p)[i];
    case CLSORT_I64: return (double)((const int64_t *)p)[i];
    default: return ((const double *)p)[i];
    }
}

static void test_scan_case(clsort_context *cs, clsort_type t, size_t n, int d, int inclusive, int in_place)
{
    static const char *tn[] = {"u32", "i32", "f32", "u64", "i64", "f64"};
    size_t es = clsort_type_size(t), i, bad = n;
    unsigned char *in = (unsigned char *)malloc(n * es + 8), *out = (unsigned char *)malloc(n * es + 8);
    uint64_t tot_dev = 0, acc = 0;
    double facc = 0, fabs_acc = 0, tot_ref = 0;
    /* the documented depth, maximized over tile shapes: tiles of >= 2048 items,
     * <= 1024 items per work-item (never more than n), <= 1024 work-items */
    double depth = ceil((double)n / 2048.0) + (double)(n < 1024 ? n : 1024) + 2 * 10 + 2;
    cl_mem din, dout, dtot;
    clsort_scan_desc desc;
    char what[96];
    int r, ok = 1;
    fill(in, t, n, d);
    din = buffer(cs, n * es, in);
    dout = in_place ? din : buffer(cs, n * es, NULL);
    dtot = buffer(cs, 8, NULL);
    memset(&desc, 0, sizeof desc);
    desc.type = t;
    desc.inclusive = inclusive;
    desc.total = dtot;
    snprintf(what, sizeof what, "scan %s %s%s", tn[t], inclusive ? "inclusive" : "exclusive", in_place ? " in-place" : "");
    r = clsort_scan(cs, din, dout, n, &desc, NULL);
    if (t == CLSORT_F64 && r == CLSORT_ERROR_UNSUPPORTED) {
        check(strstr(clsort_last_error(cs), "cl_khr_fp64") != NULL, "scan f64 unsupported message", n, "-", 0, 0, 0);
        goto done;
    }
    check(r == CLSORT_SUCCESS, what, n, dist_names[d], 0, 0, r);
    if (r != CLSORT_SUCCESS) { printf("  %s\n", clsort_last_error(cs)); goto done; }
    download(cs, dout, n * es, out);
    download(cs, dtot, es, &tot_dev);
    for (i = 0; i < n && ok; ++i) {
        double x = elem_as_double(in, t, i);
        if (t == CLSORT_F32 || t == CLSORT_F64) {
            double before = facc, g = elem_as_double(out, t, i), want;
            facc += x;
            fabs_acc += fabs(x);
            want = inclusive ? facc : before;
            /* documented bound: depth * unit roundoff * sum of |x| so far */
            ok = fabs(g - want) <= depth * (t == CLSORT_F32 ? ldexp(1, -24) : ldexp(1, -53)) * fabs_acc;
            if (!ok) check(0, what, n, dist_names[d], i, want, g);
        } else if (es == 4) {
            uint32_t before = (uint32_t)acc, g = ((uint32_t *)out)[i];
            acc = (uint32_t)(acc + ((uint32_t *)in)[i]);
            ok = g == (inclusive ? (uint32_t)acc : before);
            if (!ok) check(0, what, n, dist_names[d], i, inclusive ? (uint32_t)acc : before, g);
        } else {
            uint64_t before = acc, g = ((uint64_t *)out)[i];
            acc += ((uint64_t *)in)[i];
            ok = g == (inclusive ? acc : before);
            if (!ok) check(0, what, n, dist_names[d], i, (double)(inclusive ? acc : before), (double)g);
        }
        if (!ok) bad = i;
    }
    if (ok) ++passed;
    (void)bad;
    /* the total */
    if (t == CLSORT_F32) {
        float g;
        memcpy(&g, &tot_dev, 4);
        tot_ref = facc;
        check(fabs(g - tot_ref) <= depth * ldexp(1, -24) * fabs_acc, "scan f32 total", n, dist_names[d], 0, tot_ref, g);
    } else if (t == CLSORT_F64) {
        double g;
        memcpy(&g, &tot_dev, 8);
        check(fabs(g - facc) <= depth * ldexp(1, -53) * fabs_acc, "scan f64 total", n, dist_names[d], 0, facc, g);
    } else if (es == 4) {
        check((uint32_t)tot_dev == (uint32_t)acc, "scan total", n, dist_names[d], 0, (uint32_t)acc, (uint32_t)tot_dev);
    } else {
        check(tot_dev == acc, "scan total", n, dist_names[d], 0, (double)acc, (double)tot_dev);
    }
done:
    clReleaseMemObject(din);
    if (!in_place) clReleaseMemObject(dout);
    clReleaseMemObject(dtot);
    free(in);
    free(out);
}

/* ---- enumerate / pack / split ---- */

enum { F_RANDOM, F_ALTERNATE, F_NONE, F_ALL, F_COUNT };
static const char *flag_names[] = {"random-flags", "alternating", "none-set", "all-set"};

static void make_flags(uint32_t *f, size_t n, int fd)
{
    size_t i;
    for (i = 0; i < n; ++i)
        f[i] = fd == F_RANDOM ? (uint32_t)(rnd64() & 1) * 7u : fd == F_ALTERNATE ? (uint32_t)(i & 1) : fd == F_ALL ? 0xffu : 0;
}

/* kind: 0 u32 flags, 1 u8 flags, 2 key bit `bit` */
static void test_split_case(clsort_context *cs, size_t key_size, size_t value_size, size_t n, int fd, int kind,
                            unsigned bit)
{
    size_t i, es = key_size, vs = value_size, count = 0, zeros = 0, ref_count = 0;
    unsigned char *keys = (unsigned char *)malloc(n * es + 8), *vals = (unsigned char *)malloc(n * 8 + 8);
    unsigned char *out = (unsigned char *)malloc(n * es + 8), *vout = (unsigned char *)malloc(n * 8 + 8);
    unsigned char *ref = (unsigned char *)malloc(n * es + 8), *vref = (unsigned char *)malloc(n * 8 + 8);
    /* the sentinel fills both outputs: as long as the wider of key and value (8 bytes at most) */
    unsigned char *sentinel = (unsigned char *)malloc(n * 8 + 8);
    uint32_t *flags = (uint32_t *)malloc(n * 4 + 4), *idx = (uint32_t *)malloc(n * 4 + 4), *set = (uint32_t *)malloc(n * 4 + 4);
    uint8_t *flags8 = (uint8_t *)malloc(n + 1);
    cl_mem dk, dv = NULL, dko, dvo = NULL, df = NULL, didx, dcount;
    clsort_split_desc desc;
    char what[128];
    int r;
    uint32_t dev_count = 0;
    clsort_type kt = es == 1 ? CLSORT_U8 : es == 2 ? CLSORT_U16 : es == 4 ? CLSORT_U32 : CLSORT_U64;
    if (es >= 4) fill(keys, kt, n, D_RANDOM);
    else for (i = 0; i < n * es; ++i) keys[i] = (unsigned char)rnd64();
    fill(vals, CLSORT_U64, n, D_RANDOM);
    make_flags(flags, n, fd);
    for (i = 0; i < n; ++i) {
        uint64_t k = 0;
        memcpy(&k, keys + i * es, es); /* little-endian host: the key's bits */
        flags8[i] = (uint8_t)(flags[i] ? 1 + (i % 200) : 0);
        set[i] = kind == 2 ? (uint32_t)((k >> bit) & 1) : flags[i] != 0;
    }
    memset(sentinel, 0xA5, n * 8 + 8);
    dk = buffer(cs, n * es, keys);
    dko = buffer(cs, n * es, sentinel);
    if (vs) { dv = buffer(cs, n * vs, vals); dvo = buffer(cs, n * vs, sentinel); }
    if (kind == 0) df = buffer(cs, n * 4, flags);
    if (kind == 1) df = buffer(cs, n, flags8);
    didx = buffer(cs, n * 4, NULL);
    dcount = buffer(cs, 4, NULL);
    memset(&desc, 0, sizeof desc);
    desc.type = kt;
    desc.flags_kind = kind == 0 ? CLSORT_FLAGS_U32 : kind == 1 ? CLSORT_FLAGS_U8 : CLSORT_FLAGS_KEY_BIT;
    desc.flags = df;
    desc.bit = bit;
    desc.values_in = dv;
    desc.values_out = dvo;
    desc.value_size = vs;

    /* enumerate */
    snprintf(what, sizeof what, "enumerate key%lu flags%d bit%u", (unsigned long)es * 8, kind, bit);
    desc.count = dcount;
    r = clsort_enumerate(cs, dk, didx, n, &desc, &count, NULL);
    check(r == CLSORT_SUCCESS, what, n, flag_names[fd], 0, 0, r);
    if (r == CLSORT_SUCCESS) {
        uint32_t c = 0, bad = 0;
        download(cs, didx, n * 4, idx);
        download(cs, dcount, 4, &dev_count);
        for (i = 0; i < n; ++i) {
            if (idx[i] != c && !bad) { bad = 1; check(0, what, n, flag_names[fd], i, c, idx[i]); }
            c += set[i];
        }
        if (!bad) ++passed;
        check(count == c && dev_count == c, "enumerate count", n, flag_names[fd], 0, c, (double)count);
    }

    /* pack */
    snprintf(what, sizeof what, "pack key%lu val%lu flags%d bit%u", (unsigned long)es * 8, (unsigned long)vs * 8, kind, bit);
    r = clsort_pack(cs, dk, dko, n, &desc, &count, NULL);
    check(r == CLSORT_SUCCESS, what, n, flag_names[fd], 0, 0, r);
    if (r == CLSORT_SUCCESS) {
        size_t k = 0;
        for (i = 0; i < n; ++i)
            if (set[i]) {
                memcpy(ref + k * es, keys + i * es, es);
                if (vs) memcpy(vref + k * vs, vals + i * vs, vs);
                ++k;
            }
        ref_count = k;
        download(cs, dko, n * es, out);
        download(cs, dcount, 4, &dev_count);
        check(count == ref_count && dev_count == ref_count, "pack count", n, flag_names[fd], 0, (double)ref_count,
              (double)count);
        check(memcmp(out, ref, ref_count * es) == 0, what, n, flag_names[fd], 0, 0, 0);
        check(memcmp(out + ref_count * es, sentinel, (n - ref_count) * es) == 0, "pack leaves the tail untouched", n,
              flag_names[fd], 0, 0, 0);
        if (vs) {
            download(cs, dvo, n * vs, vout);
            check(memcmp(vout, vref, ref_count * vs) == 0, "pack values", n, flag_names[fd], 0, 0, 0);
        }
    }

    /* split */
    snprintf(what, sizeof what, "split key%lu val%lu flags%d bit%u", (unsigned long)es * 8, (unsigned long)vs * 8, kind, bit);
    dev_count = 0xdeadbeefu;
    r = clsort_split(cs, dk, dko, n, &desc, &zeros, NULL); /* desc.count: the zeros count on the device */
    check(r == CLSORT_SUCCESS, what, n, flag_names[fd], 0, 0, r);
    if (r == CLSORT_SUCCESS) {
        size_t z = 0, o, k;
        for (i = 0; i < n; ++i) z += !set[i];
        o = z;
        k = 0;
        for (i = 0; i < n; ++i) {
            size_t dst = set[i] ? o++ : k++;
            memcpy(ref + dst * es, keys + i * es, es);
            if (vs) memcpy(vref + dst * vs, vals + i * vs, vs);
        }
        download(cs, dko, n * es, out);
        download(cs, dcount, 4, &dev_count);
        check(zeros == z && dev_count == z, "split zeros (host and device)", n, flag_names[fd], 0, (double)z,
              (double)dev_count);
        check(memcmp(out, ref, n * es) == 0, what, n, flag_names[fd], 0, 0, 0);
        if (vs) {
            download(cs, dvo, n * vs, vout);
            check(memcmp(vout, vref, n * vs) == 0, "split values", n, flag_names[fd], 0, 0, 0);
        }
    }
    clReleaseMemObject(dk);
    clReleaseMemObject(dko);
    if (dv) { clReleaseMemObject(dv); clReleaseMemObject(dvo); }
    if (df) clReleaseMemObject(df);
    clReleaseMemObject(didx);
    clReleaseMemObject(dcount);
    free(keys); free(vals); free(out); free(vout); free(ref); free(vref); free(sentinel);
    free(flags); free(idx); free(set); free(flags8);
}

/* ---- bad arguments: a clear error and untouched buffers ---- */

static void test_bad_arguments(clsort_context *cs)
{
    uint32_t data[64], back[64];
    cl_mem small, a, b;
    clsort_scan_desc sd;
    clsort_split_desc pd;
    size_t count = 12345;
    int i;
    for (i = 0; i < 64; ++i) data[i] = (uint32_t)i * 2654435761u;
    small = buffer(cs, 16, data);
    a = buffer(cs, 256, data);
    b = buffer(cs, 256, data);
    memset(&sd, 0, sizeof sd);
    memset(&pd, 0, sizeof pd);
#define EXPECT_ERR(call, code, name)                                                                \
    do {                                                                                             \
        int r_ = (call);                                                                             \
        check(r_ == (code) && clsort_last_error(cs)[0] != '\0', name, 0, "bad-argument", 0, code, r_); \
    } while (0)
    check(clsort_scan(NULL, a, b, 64, &sd, NULL) == CLSORT_ERROR_INVALID_ARGUMENT, "scan NULL context", 0, "-", 0, 0, 0);
    EXPECT_ERR(clsort_scan(cs, NULL, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "scan NULL in");
    EXPECT_ERR(clsort_scan(cs, a, small, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "scan out too small");
    check(strstr(clsort_last_error(cs), "bytes") != NULL, "scan too-small message names the sizes", 0, "-", 0, 0, 0);
    sd.type = (clsort_type)99;
    EXPECT_ERR(clsort_scan(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "scan unknown type");
    sd.type = CLSORT_U32;
    sd.inclusive = 7;
    EXPECT_ERR(clsort_scan(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "scan inclusive not 0/1");
    sd.inclusive = 0;
    pd.flags_kind = CLSORT_FLAGS_KEY_BIT;
    pd.bit = 32;
    EXPECT_ERR(clsort_pack(cs, a, b, 64, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "pack bit out of range");
    pd.bit = 3;
    EXPECT_ERR(clsort_pack(cs, a, a, 64, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "pack in == out");
    EXPECT_ERR(clsort_split(cs, a, small, 64, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "split out too small");
    pd.flags_kind = CLSORT_FLAGS_U32;
    EXPECT_ERR(clsort_pack(cs, a, b, 64, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "pack NULL flags");
    pd.flags_kind = (clsort_flags_kind)42;
    EXPECT_ERR(clsort_split(cs, a, b, 64, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "split unknown flags kind");
    /* aliasing: an output sharing memory with an input or another output
     * (the same handle or overlapping sub-buffers) is refused (issue 19, item 6) */
    {
        cl_buffer_region reg;
        cl_mem lo, hi, apart;
        cl_int e;
        reg.origin = 0;
        reg.size = 192;
        lo = clCreateSubBuffer(a, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &e);
        check(e == CL_SUCCESS, "sub-buffer for aliasing tests", 0, "-", 0, 0, e);
        reg.origin = 0; /* the same bytes as lo through another handle */
        hi = clCreateSubBuffer(a, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &e);
        check(e == CL_SUCCESS, "second sub-buffer for aliasing tests", 0, "-", 0, 0, e);
        reg.origin = 0;
        reg.size = 64;
        apart = clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &e);
        check(e == CL_SUCCESS, "third sub-buffer for aliasing tests", 0, "-", 0, 0, e);
        sd.total = a;
        EXPECT_ERR(clsort_scan(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "scan total == in");
        sd.total = b;
        EXPECT_ERR(clsort_scan(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "scan total == out");
        sd.total = apart;
        EXPECT_ERR(clsort_scan(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "scan total inside out");
        sd.total = NULL;
        EXPECT_ERR(clsort_scan(cs, lo, hi, 48, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
                   "scan in and out: two handles over the same bytes");
        check(strstr(clsort_last_error(cs), "shares memory") != NULL, "aliasing message says so", 0, "-", 0, 0, 0);
        memset(&pd, 0, sizeof pd);
        pd.flags_kind = CLSORT_FLAGS_KEY_BIT;
        pd.count = a;
        EXPECT_ERR(clsort_pack(cs, a, b, 64, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "pack count == keys_in");
        pd.count = NULL;
        pd.values_in = small;
        pd.values_out = a;
        EXPECT_ERR(clsort_pack(cs, lo, b, 4, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
                   "pack values_out over keys_in");
        pd.values_in = pd.values_out = NULL;
        pd.flags_kind = CLSORT_FLAGS_U32;
        pd.flags = a;
        EXPECT_ERR(clsort_split(cs, lo, a, 16, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
                   "split keys_out == flags");
        EXPECT_ERR(clsort_enumerate(cs, NULL, hi, 16, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
                   "enumerate indices over the flags");
        memset(&pd, 0, sizeof pd);
        clReleaseMemObject(lo);
        clReleaseMemObject(hi);
        clReleaseMemObject(apart);
    }
    check(count == 12345, "count untouched after errors", 0, "bad-argument", 0, 12345, (double)count);
    download(cs, b, 256, back);
    check(memcmp(back, data, 256) == 0, "out buffer untouched after errors", 0, "bad-argument", 0, 0, 0);
    download(cs, small, 16, back);
    check(memcmp(back, data, 16) == 0, "small buffer untouched after errors", 0, "bad-argument", 0, 0, 0);
    download(cs, a, 256, back);
    check(memcmp(back, data, 256) == 0, "in buffer untouched after errors", 0, "bad-argument", 0, 0, 0);
    /* n = 0 with NULL buffers is fine */
    memset(&pd, 0, sizeof pd);
    check(clsort_scan(cs, NULL, NULL, 0, &sd, NULL) == CLSORT_SUCCESS, "scan n=0 NULL buffers", 0, "-", 0, 0, 0);
    check(clsort_pack(cs, NULL, NULL, 0, &pd, &count, NULL) == CLSORT_SUCCESS && count == 0, "pack n=0", 0, "-", 0, 0,
          (double)count);
    clReleaseMemObject(small);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
}

/* ---- radix sort ---- */

enum { S_RANDOM, S_EQUAL, S_SORTED, S_REVERSED, S_FEW, S_AND3, S_EXTREMES, S_SPECIALS, S_COUNT };
static const char *sort_dist_names[] = {"random-bits", "all-equal", "sorted", "reversed", "few-distinct",
                                        "and-of-3-randoms", "extremes", "float-specials"};

static int is_signed_type(clsort_type t)
{
    return t == CLSORT_I32 || t == CLSORT_I64 || t == CLSORT_I8 || t == CLSORT_I16;
}

/* The same for 8- and 16-bit keys: sorted / reversed climb (fall) through the
 * type's whole numeric range, extremes are min, max, 0, -1 (all ones), 1,
 * min + 1 and max - 1 of the type. */
static uint64_t narrow_key(clsort_type t, int d, size_t i, size_t n)
{
    unsigned bits = (unsigned)(8 * clsort_type_size(t));
    uint64_t r = rnd64(), mask = (1ull << bits) - 1, top = 1ull << (bits - 1);
    switch (d) {
    case S_EQUAL: return 0x5a5aull & mask;
    case S_SORTED: case S_REVERSED: {
        uint64_t v = n > 1 ? (uint64_t)i * mask / (n - 1) : 0; /* 0 .. mask, non-decreasing */
        if (d == S_REVERSED) v = mask - v;
        return is_signed_type(t) ? (v ^ top) & mask : v; /* signed: from min to max */
    }
    case S_FEW: return ((r % 5) * 0x9e37ull) & mask;
    case S_AND3: return (r & rnd64() & rnd64()) & mask;
    case S_EXTREMES: {
        uint64_t e[7];
        e[0] = 0; e[1] = mask; e[2] = 1; e[3] = top; e[4] = top - 1; e[5] = top + 1; e[6] = mask - 1;
        return e[r % 7];
    }
    default: return r & mask;
    }
}

/* Bit pattern of key i of n under distribution d (numeric order for sorted/reversed). */
static uint64_t sort_key(clsort_type t, int d, size_t i, size_t n)
{
    int w64 = clsort_type_size(t) == 8;
    if (clsort_type_size(t) < 4) return narrow_key(t, d, i, n);
    uint64_t r = rnd64(), mask = w64 ? ~0ull : 0xffffffffull;
    switch (d) {
    case S_EQUAL: return 0x5a5a5a5a5a5a5a5aull & mask;
    case S_SORTED: case S_REVERSED: {
        long long v = d == S_SORTED ? (long long)i - (long long)(n / 2) : (long long)(n / 2) - (long long)i;
        if (t == CLSORT_F32) { float f = (float)v * 0.5f; uint32_t b; memcpy(&b, &f, 4); return b; }
        if (t == CLSORT_F64) { double f = (double)v * 0.25; uint64_t b; memcpy(&b, &f, 8); return b; }
        if (t == CLSORT_U32 || t == CLSORT_U64) return (uint64_t)(d == S_SORTED ? i : n - i) & mask;
        return (uint64_t)v & mask;
    }
    case S_FEW: return ((r % 5) * 0x9e3779b97f4a7c15ull) & mask;
    case S_AND3: return (r & rnd64() & rnd64()) & mask;
    case S_EXTREMES: {
        static const uint64_t e[] = {0, 1, 0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull, 0xffffffffull,
                                     0x7fffffffull, 0x80000000ull};
        uint64_t v = e[r % 8];
        return w64 ? v : (v & 0xffffffffull) | ((v >> 32) & 0x80000000ull);
    }
    case S_SPECIALS: {
        static const uint32_t f[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                     0x7f800001u, 0xffbfffffu, 0x00000001u, 0x80000001u, 0x007fffffu, 0x3f800000u,
                                     0xbf800000u, 0x7f7fffffu, 0xff7fffffu};
        static const uint64_t g[] = {0, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                     0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                                     0xfff7ffffffffffffull, 1, 0x8000000000000001ull, 0x000fffffffffffffull,
                                     0x3ff0000000000000ull, 0xbff0000000000000ull, 0x7fefffffffffffffull,
                                     0xffefffffffffffffull};
        return w64 ? g[r % 15] : f[r % 15];
    }
    default: return r & mask;
    }
}

static uint64_t get_bits(const void *p, size_t ks, size_t i)
{
    if (ks == 1) return ((const uint8_t *)p)[i];
    if (ks == 2) return ((const uint16_t *)p)[i];
    if (ks == 4) return ((const uint32_t *)p)[i];
    return ((const uint64_t *)p)[i];
}

/* Element i of p (es bytes each) equals element j of q. */
static int same_elem(const unsigned char *p, size_t i, const unsigned char *q, size_t j, size_t es)
{
    return memcmp(p + i * es, q + j * es, es) == 0;
}

/* The reference: a stable sort of indices by a comparator written from the
 * documented order (numeric; floats: -0 < +0, NaNs last, positive before
 * negative, each by bit pattern), or by the bit range of the image. */
static struct {
    clsort_type t;
    const void *keys;
    unsigned begin, end;
    int by_range, descending;
} ref;

static int cmp_numeric(uint64_t a, uint64_t b)
{
    switch (ref.t) {
    case CLSORT_U32: case CLSORT_U64: case CLSORT_U8: case CLSORT_U16: return a < b ? -1 : a > b;
    case CLSORT_I8: return (int8_t)(uint8_t)a < (int8_t)(uint8_t)b ? -1 : (int8_t)(uint8_t)a > (int8_t)(uint8_t)b;
    case CLSORT_I16:
        return (int16_t)(uint16_t)a < (int16_t)(uint16_t)b ? -1 : (int16_t)(uint16_t)a > (int16_t)(uint16_t)b;
    case CLSORT_I32: return (int32_t)(uint32_t)a < (int32_t)(uint32_t)b ? -1 : (int32_t)(uint32_t)a > (int32_t)(uint32_t)b;
    case CLSORT_I64: return (int64_t)a < (int64_t)b ? -1 : (int64_t)a > (int64_t)b;
    default: {
        double fa, fb;
        int na, nb, sa, sb;
        if (ref.t == CLSORT_F32) {
            float x, y;
            uint32_t ua = (uint32_t)a, ub = (uint32_t)b;
            memcpy(&x, &ua, 4); memcpy(&y, &ub, 4);
            fa = x; fb = y;
            sa = (int)(ua >> 31); sb = (int)(ub >> 31);
        } else {
            memcpy(&fa, &a, 8); memcpy(&fb, &b, 8);
            sa = (int)(a >> 63); sb = (int)(b >> 63);
        }
        na = fa != fa; nb = fb != fb;
        if (na != nb) return na ? 1 : -1;
        if (na) return sa != sb ? (sa ? 1 : -1) : (a < b ? -1 : a > b);
        if (fa < fb) return -1;
        if (fa > fb) return 1;
        return sa != sb ? (sa ? -1 : 1) : 0; /* -0 before +0 */
    }
    }
}

/* the order-preserving image for bit-range sorts of integer keys */
static uint64_t int_image(uint64_t x)
{
    if (ref.t == CLSORT_I8) return x ^ 0x80ull;
    if (ref.t == CLSORT_I16) return x ^ 0x8000ull;
    if (ref.t == CLSORT_I32) return x ^ 0x80000000ull;
    if (ref.t == CLSORT_I64) return x ^ 0x8000000000000000ull;
    return x;
}

static int ref_cmp(const void *pa, const void *pb)
{
    uint32_t ia = *(const uint32_t *)pa, ib = *(const uint32_t *)pb;
    size_t ks = clsort_type_size(ref.t);
    uint64_t a = get_bits(ref.keys, ks, ia), b = get_bits(ref.keys, ks, ib);
    int c;
    if (ref.by_range) {
        unsigned span = ref.end - ref.begin;
        uint64_t m = span >= 64 ? ~0ull : ((1ull << span) - 1);
        a = (int_image(a) >> ref.begin) & m;
        b = (int_image(b) >> ref.begin) & m;
        c = a < b ? -1 : a > b;
    } else {
        c = cmp_numeric(a, b);
    }
    if (ref.descending) c = -c;
    return c ? c : (ia < ib ? -1 : 1); /* stable: input order breaks ties */
}

/* What moves with the keys. The first M_COUNT modes are the bitonic sort's
 * too (4- and 8-byte values); the radix sort also takes 1-, 2- and 16-byte ones. */
enum { M_KEYS, M_VAL4, M_VAL8, M_PERM, M_PERM_VAL8, M_COUNT, M_VAL1 = M_COUNT, M_VAL2, M_VAL16, M_PERM_VAL16,
       M_PERM_VAL1, M_PERM_VAL2, M_ALL };
static const char *mode_names[] = {"keys", "keys+u32", "keys+u64", "keys+permutation", "keys+u64+permutation",
                                   "keys+u8", "keys+u16", "keys+16B", "keys+16B+permutation", "keys+u8+permutation",
                                   "keys+u16+permutation"};
static const size_t mode_vs[] = {8, 4, 8, 8, 8, 1, 2, 16, 16, 1, 2}; /* value bytes (filled even when unused) */
static const int mode_vals[] = {0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1}, mode_perm[] = {0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1};
static const char *type_names[] = {"u32", "i32", "f32", "u64", "i64", "f64", "u8", "i8", "u16", "i16"};

/* "<name> <text>" in buf: the check names of the sorts' shared result checks. */
static const char *label(const char *name, const char *text, char *buf, size_t size)
{
    snprintf(buf, size, "%s %s", name, text);
    return buf;
}

/* The results of a sort call against the reference order idx (keys[idx[i]]
 * belongs at i): the keys, the permutation and the values when they moved,
 * and the inputs untouched out of place. name ("sort", "bitonic") prefixes
 * the check names. out, vout and perm are host scratch of n elements. */
static void check_sort_results(clsort_context *cs, const char *name, const char *perm_what, const char *what,
                               size_t n, int d, size_t ks, size_t vs, const unsigned char *keys,
                               const unsigned char *vals, const uint32_t *idx, int has_perm, int has_vals,
                               int in_place, cl_mem kin, cl_mem kout, cl_mem vin, cl_mem vout_m, cl_mem pm,
                               unsigned char *out, unsigned char *vout, uint32_t *perm)
{
    size_t i, bad = (size_t)-1;
    char buf[96];
    download(cs, kout, n * ks, out);
    for (i = 0; i < n && bad == (size_t)-1; ++i)
        if (get_bits(out, ks, i) != get_bits(keys, ks, idx[i])) bad = i;
    check(bad == (size_t)-1, what, n, sort_dist_names[d], bad, bad < n ? (double)get_bits(keys, ks, idx[bad]) : 0,
          bad < n ? (double)get_bits(out, ks, bad) : 0);
    if (has_perm) {
        download(cs, pm, n * 4, perm);
        for (i = 0, bad = (size_t)-1; i < n && bad == (size_t)-1; ++i)
            if (perm[i] != idx[i]) bad = i;
        check(bad == (size_t)-1, perm_what, n, sort_dist_names[d], bad, bad < n ? idx[bad] : 0,
              bad < n ? perm[bad] : 0);
    }
    if (has_vals) {
        download(cs, vout_m, n * vs, vout);
        for (i = 0, bad = (size_t)-1; i < n && bad == (size_t)-1; ++i)
            if (!same_elem(vout, i, vals, idx[i], vs)) bad = i;
        check(bad == (size_t)-1, label(name, "values follow their keys", buf, sizeof buf), n, sort_dist_names[d], bad, 0, 0);
    }
    if (!in_place && n > 0) {
        download(cs, kin, n * ks, out);
        check(memcmp(out, keys, n * ks) == 0, label(name, "leaves keys_in untouched", buf, sizeof buf), n, sort_dist_names[d], 0, 0, 0);
        if (has_vals) {
            download(cs, vin, n * vs, vout);
            check(memcmp(vout, vals, n * vs) == 0, label(name, "leaves values_in untouched", buf, sizeof buf), n, sort_dist_names[d], 0, 0, 0);
        }
    }
}

/* The buffers of one sort case (radix or bitonic); in place, the outputs are the inputs. */
static void release_sort_buffers(cl_mem kin, cl_mem kout, cl_mem vin, cl_mem vout, cl_mem perm, cl_mem extra,
                                 int in_place)
{
    clReleaseMemObject(kin);
    if (!in_place) clReleaseMemObject(kout);
    if (vin) clReleaseMemObject(vin);
    if (vout && !in_place) clReleaseMemObject(vout);
    if (perm) clReleaseMemObject(perm);
    if (extra) clReleaseMemObject(extra);
}

static void test_sort_case(clsort_context *cs, clsort_type t, size_t n, int d, unsigned begin, unsigned end,
                           unsigned radix_bits, int descending, int mode, int in_place, int caller_temp)
{
    const char *const *tn = type_names;
    size_t ks = clsort_type_size(t), vs = mode_vs[mode], i, tmp_bytes = 0;
    int has_vals = mode_vals[mode], has_perm = mode_perm[mode];
    unsigned char *keys = (unsigned char *)malloc(n * ks + 8), *out = (unsigned char *)malloc(n * ks + 8);
    unsigned char *vals = (unsigned char *)malloc(n * vs + 8), *vout = (unsigned char *)malloc(n * vs + 8);
    uint32_t *idx = (uint32_t *)malloc(n * 4 + 4), *perm = (uint32_t *)malloc(n * 4 + 4);
    cl_mem kin, kout, vin = NULL, vout_m = NULL, pm = NULL, temp = NULL, temp_parent = NULL;
    clsort_sort_desc sd;
    clsort_result r;
    char what[160];
    for (i = 0; i < n; ++i) {
        uint64_t k = sort_key(t, d, i, n);
        size_t b;
        memcpy(keys + i * ks, &k, ks); /* little-endian host: the low ks bytes */
        for (b = 0; b < vs; ++b) vals[i * vs + b] = (unsigned char)rnd64();
        idx[i] = (uint32_t)i;
    }
    ref.t = t; ref.keys = keys; ref.begin = begin; ref.end = end ? end : (unsigned)(8 * ks);
    ref.by_range = begin != 0 || ref.end != 8 * ks;
    ref.descending = descending;
    if (n > 1) qsort(idx, n, 4, ref_cmp);
    kin = buffer(cs, n * ks, keys);
    kout = in_place ? kin : buffer(cs, n * ks, NULL);
    memset(&sd, 0, sizeof sd);
    sd.type = t; sd.begin_bit = begin; sd.end_bit = end; sd.radix_bits = radix_bits; sd.descending = descending;
    if (has_vals) {
        vin = buffer(cs, n * vs, vals);
        vout_m = in_place ? vin : buffer(cs, n * vs, NULL);
        sd.values_in = vin; sd.values_out = vout_m; sd.value_size = vs == 4 && (n & 1) ? 0 : vs; /* 0 = 4 */
    }
    if (has_perm) sd.permutation = pm = buffer(cs, n * 4, NULL);
    if (caller_temp) {
        check(clsort_sort_temp_size(cs, n, &sd, &tmp_bytes) == CLSORT_SUCCESS, "sort_temp_size", n, "-", 0, 0, 0);
        if (n & 2) { /* a sub-buffer of a larger buffer (issue 19, item 7): 4096 bytes in */
            cl_buffer_region reg;
            cl_int e;
            temp_parent = buffer(cs, tmp_bytes + 4096, NULL);
            reg.origin = 4096;
            reg.size = tmp_bytes;
            temp = clCreateSubBuffer(temp_parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &e);
            check(e == CL_SUCCESS, "sub-buffer as the sort's temp", n, "-", 0, 0, e);
            sd.temp = temp;
        } else {
            sd.temp = temp = buffer(cs, tmp_bytes, NULL);
        }
    }
    snprintf(what, sizeof what, "sort %s %s bits [%u,%u) r=%u %s%s%s", tn[t], mode_names[mode], begin, ref.end,
             radix_bits, descending ? "descending" : "ascending", in_place ? " in-place" : "",
             caller_temp ? " caller-temp" : "");
    r = clsort_sort(cs, kin, kout, n, &sd, NULL);
    if (r != CLSORT_SUCCESS) printf("  %s: %s\n", what, clsort_last_error(cs));
    check(r == CLSORT_SUCCESS, what, n, sort_dist_names[d], 0, 0, r);
    check_sort_results(cs, "sort", "sort permutation (stability)", what, n, d, ks, vs, keys, vals, idx, has_perm, has_vals, in_place, kin, kout,
                       vin, vout_m, pm, out, vout, perm);
    release_sort_buffers(kin, kout, vin, vout_m, pm, temp, in_place);
    if (temp_parent) clReleaseMemObject(temp_parent);
    free(keys); free(out); free(vals); free(vout); free(idx); free(perm);
}

/* Every key type, distribution and mode over the sizes, plus bit ranges. */
static void test_sort(clsort_context *cs, const size_t *sizes, size_t nsizes, int tiny)
{
    size_t s, rot = 0;
    int t, d;
    unsigned r;
    for (s = 0; s < nsizes; ++s)
        for (t = CLSORT_U32; t < T_WIDE_END; ++t)
            for (d = 0; d < S_COUNT; ++d) {
                int mode = (int)(rot % M_COUNT);
                if (d == S_SPECIALS && t != CLSORT_F32 && t != CLSORT_F64) continue;
                if (tiny && d != S_RANDOM && d != S_SPECIALS) continue;
                if (sizes[s] > 70000 && (t != CLSORT_U32 || (d != S_RANDOM && d != S_FEW))) continue;
                if (sizes[s] > 10000 && t != CLSORT_U32 && t != CLSORT_F32 && d != S_RANDOM) continue;
                ++rot;
                test_sort_case(cs, (clsort_type)t, sizes[s], d, 0, 0, 0, (int)(rot / 3 % 2), mode, (int)(rot % 4 == 1),
                               (int)(rot % 7 == 3));
            }
    /* bit ranges: 10 bits, 1 bit, begin > 0, end not a multiple of r; bits
     * outside the range are random and must survive untouched */
    for (s = 0; s < nsizes; ++s) {
        size_t n = sizes[s];
        if (n > 70000) continue;
        test_sort_case(cs, CLSORT_U32, n, S_RANDOM, 0, 10, 0, 0, M_PERM, 0, 0);
        test_sort_case(cs, CLSORT_U32, n, S_RANDOM, 0, 1, 0, s & 1, M_VAL4, 0, 0);
        test_sort_case(cs, CLSORT_U32, n, S_RANDOM, 7, 29, 6, 0, M_PERM, (int)(s & 1), 0);
        test_sort_case(cs, CLSORT_I32, n, S_RANDOM, 12, 32, 0, 1, M_PERM, 0, 0);
        if (tiny) continue;
        test_sort_case(cs, CLSORT_U64, n, S_RANDOM, 20, 47, 5, 0, M_PERM, 0, 1);
        test_sort_case(cs, CLSORT_I64, n, S_AND3, 1, 64, 7, 0, M_VAL8, 0, 0);
        test_sort_case(cs, CLSORT_U32, n, S_AND3, 3, 16, 0, 0, M_PERM, 1, 0);
    }
    /* every radix width on one size that spans several tiles */
    for (r = 1; r <= 12 && !tiny; ++r)
        test_sort_case(cs, CLSORT_U32, 20011, S_RANDOM, 0, r == 1 ? 9 : 32, r, r & 1, M_PERM, 0, 0);
    /* more specializations than the program cache holds (48): the least
     * recently used are released and rebuilt when needed again */
    for (r = 1; r <= 12 && !tiny; ++r) {
        int m;
        for (m = 0; m < M_COUNT; ++m) test_sort_case(cs, r % 2 ? CLSORT_U32 : CLSORT_U64, 300, S_RANDOM, 0, 0, r, 0, m, 0, 0);
    }
    test_sort_case(cs, CLSORT_U32, 300, S_RANDOM, 0, 0, 1, 0, 0, 0, 0); /* the first one again, rebuilt */
    /* wide digits, one pass: 10 and 12 bits with the permutation, 11 with values */
    for (s = 0; s < nsizes; ++s) {
        if (sizes[s] > 70000 || (tiny && sizes[s] > 5000)) continue;
        test_sort_case(cs, CLSORT_U32, sizes[s], S_RANDOM, 0, 10, 10, 0, M_PERM, 0, 0);
        if (tiny) continue;
        test_sort_case(cs, CLSORT_U32, sizes[s], S_FEW, 0, 12, 12, 1, M_PERM, 0, 0);
        test_sort_case(cs, CLSORT_I32, sizes[s], S_RANDOM, 4, 26, 11, 0, M_VAL4, 1, 0);
    }
}

static void test_sort_arguments(clsort_context *cs)
{
    uint32_t data[64], back[64], hk[9] = {5, 3, 9, 3, 0, 7, 3, 1, 2}, hv[9], hp[9];
    static const uint32_t want_k[9] = {0, 1, 2, 3, 3, 3, 5, 7, 9}, want_p[9] = {4, 7, 8, 1, 3, 6, 0, 5, 2};
    cl_mem small, a, b, c;
    clsort_sort_desc sd;
    size_t bytes = 0, i;
    int ok = 1;
    for (i = 0; i < 64; ++i) data[i] = (uint32_t)i * 2654435761u;
    for (i = 0; i < 9; ++i) hv[i] = 100 + (uint32_t)i;
    small = buffer(cs, 16, data);
    a = buffer(cs, 256, data);
    b = buffer(cs, 256, data);
    c = buffer(cs, 256, data);
    memset(&sd, 0, sizeof sd);
    EXPECT_ERR(clsort_sort(cs, NULL, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "sort NULL keys");
    EXPECT_ERR(clsort_sort(cs, a, small, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "sort keys_out too small");
    sd.begin_bit = 8; sd.end_bit = 8;
    EXPECT_ERR(clsort_sort(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "sort empty bit range");
    check(strstr(clsort_last_error(cs), "empty") != NULL, "sort empty range message", 0, "-", 0, 0, 0);
    sd.begin_bit = 0; sd.end_bit = 33;
    EXPECT_ERR(clsort_sort(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "sort end_bit past the key");
    sd.end_bit = 0; sd.radix_bits = 13;
    EXPECT_ERR(clsort_sort(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "sort radix_bits 13");
    sd.radix_bits = 0; sd.values_in = a; sd.values_out = small;
    EXPECT_ERR(clsort_sort(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "sort values_out too small");
    sd.values_in = c; sd.values_out = NULL;
    EXPECT_ERR(clsort_sort(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "sort values_in without values_out");
    sd.values_out = c; sd.value_size = 6;
    EXPECT_ERR(clsort_sort(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "sort value_size 6");
    sd.value_size = 4; sd.values_out = b;
    EXPECT_ERR(clsort_sort(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "sort values_out == keys_out");
    memset(&sd, 0, sizeof sd);
    sd.permutation = small;
    EXPECT_ERR(clsort_sort(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "sort permutation too small");
    sd.permutation = NULL; sd.temp = small;
    EXPECT_ERR(clsort_sort(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "sort temp too small");
    sd.temp = NULL; sd.type = (clsort_type)77;
    EXPECT_ERR(clsort_sort(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "sort unknown type");
    EXPECT_ERR(clsort_sort_temp_size(cs, 64, &sd, &bytes), CLSORT_ERROR_INVALID_ARGUMENT, "sort_temp_size unknown type");
    EXPECT_ERR(clsort_gather(cs, a, b, c, 64, 0, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "gather elem_size 0");
    EXPECT_ERR(clsort_gather(cs, a, a, c, 64, 4, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "gather dst == src");
    EXPECT_ERR(clsort_gather(cs, a, small, c, 64, 4, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "gather dst too small");
    download(cs, a, 256, back);
    ok = memcmp(back, data, 256) == 0;
    download(cs, b, 256, back);
    ok = ok && memcmp(back, data, 256) == 0;
    download(cs, c, 256, back);
    ok = ok && memcmp(back, data, 256) == 0;
    download(cs, small, 16, back);
    check(ok && memcmp(back, data, 16) == 0, "sort/gather errors leave every buffer untouched", 0, "bad-argument", 0, 0, 0);
    memset(&sd, 0, sizeof sd);
    check(clsort_sort(cs, NULL, NULL, 0, &sd, NULL) == CLSORT_SUCCESS, "sort n=0 NULL buffers", 0, "-", 0, 0, 0);
    check(clsort_sort_host(cs, hk, hv, hp, 9, NULL) == CLSORT_SUCCESS && memcmp(hk, want_k, sizeof hk) == 0 &&
          memcmp(hp, want_p, sizeof hp) == 0 && hv[0] == 104 && hv[8] == 102, "sort_host keys + values + permutation",
          9, "-", 0, 0, 0);
    clReleaseMemObject(small); clReleaseMemObject(a); clReleaseMemObject(b); clReleaseMemObject(c);
}

/* ---- 8- and 16-bit keys, 1- to 16-byte values (issue 22) ---- */

static const clsort_type narrow_types[4] = {CLSORT_U8, CLSORT_I8, CLSORT_U16, CLSORT_I16};
static clsort_context *tile_context(clsort_context *cs, unsigned wg, unsigned items);

/* Every 8- and 16-bit key type, distribution and value size (rotated) over
 * the sizes and a few more (the CPUs' 16384-key tiles, 2^16+1, a large one),
 * every value size with every type, bit ranges and digit widths. */
static void test_sort_narrow(clsort_context *cs, const size_t *sizes, size_t nsizes, int tiny, int quick)
{
    static const int dists[] = {S_RANDOM, S_EQUAL, S_SORTED, S_REVERSED, S_FEW, S_EXTREMES, S_AND3};
    static const size_t extra[] = {16383, 16384, 16385, 65537, 300007};
    size_t s, rot = 0, ne = tiny ? 0 : sizeof extra / sizeof extra[0];
    int ti, di, m;
    for (s = 0; s < nsizes + ne; ++s) {
        size_t n = s < nsizes ? sizes[s] : extra[s - nsizes];
        if (n > 70000 && s < nsizes) continue; /* the full run's 2^20+1: the large one below instead */
        for (ti = 0; ti < 4; ++ti)
            for (di = 0; di < (int)(sizeof dists / sizeof dists[0]); ++di) {
                int d = dists[di];
                /* oclgrind (tiny): two types per size, random and extremes */
                if (tiny && ((d != S_RANDOM && d != S_EXTREMES) || (size_t)ti % 2 != s % 2)) continue;
                if (n > 10000 && d != S_RANDOM && d != S_FEW && d != S_REVERSED) continue;
                if (n > 70000 && (d != S_RANDOM || (quick && ti % 2))) continue;
                ++rot;
                m = (int)(rot % M_ALL);
                test_sort_case(cs, narrow_types[ti], n, d, 0, 0, 0, (int)(rot / 3 % 2), m, (int)(rot % 4 == 1),
                               (int)(rot % 7 == 3));
            }
    }
    /* every value size (and the permutation) with every key type, on tiles of
     * every path (several tiles; in place and out of place) */
    for (ti = 0; ti < 4; ++ti)
        for (m = 0; m < M_ALL; ++m) {
            if (tiny && m % 4 != ti) continue; /* oclgrind: each mode with one type */
            test_sort_case(cs, narrow_types[ti], tiny ? 301 : (size_t)(20011 + m), m % 3 ? S_RANDOM : S_FEW, 0, 0, 0,
                           m & 1, m, m % 3 == 1, m == M_VAL16);
        }
    /* bit ranges and digit widths; bits outside the range survive */
    for (s = 0; s < nsizes; ++s) {
        size_t n = sizes[s];
        if (n > 70000 || (tiny && n > 300)) continue;
        test_sort_case(cs, CLSORT_U16, n, S_RANDOM, 3, 13, 0, 0, M_PERM, 0, 0);      /* 2 passes of 5 */
        test_sort_case(cs, CLSORT_U8, n, S_RANDOM, 1, 7, 3, 0, M_VAL16, 0, 0);      /* 2 passes of 3 */
        test_sort_case(cs, CLSORT_I16, n, S_EXTREMES, 8, 16, 0, 1, M_VAL1, 0, 0);   /* sign byte only */
        test_sort_case(cs, CLSORT_I8, n, S_RANDOM, 0, 8, 1, (int)(s & 1), M_VAL2, 1, 0); /* 8 passes of 1 */
        /* 8-bit keys alone, all bits: the counting fill (radix_fill), in place and out */
        test_sort_case(cs, CLSORT_U8, n, S_FEW, 0, 0, 0, (int)(s & 1), M_KEYS, s % 3 == 0, s % 4 == 1);
        test_sort_case(cs, CLSORT_I8, n, S_EXTREMES, 0, 8, 0, (int)(~s & 1), M_KEYS, s % 3 == 1, 0);
        /* 16-bit keys alone, all bits: pass 0, then the count per value and radix_fill16 */
        test_sort_case(cs, CLSORT_U16, n, S_FEW, 0, 0, 0, (int)(s & 1), M_KEYS, s % 3 == 0, s % 4 == 1);
        test_sort_case(cs, CLSORT_I16, n, S_EXTREMES, 0, 16, 8, (int)(~s & 1), M_KEYS, s % 3 == 1, 0);
        if (tiny) continue;
        test_sort_case(cs, CLSORT_U16, n, S_RANDOM, 0, 0, 12, 0, M_VAL8, 0, 1);      /* 12 + 4: classic passes */
        test_sort_case(cs, CLSORT_I16, n, S_AND3, 0, 16, 5, 1, M_PERM_VAL16, (int)(s & 1), 0); /* 5+5+5+1 */
        test_sort_case(cs, CLSORT_U8, n, S_RANDOM, 7, 8, 0, 1, M_PERM_VAL1, 0, 0);  /* the top bit */
        test_sort_case(cs, CLSORT_I8, n, S_FEW, 0, 0, 8, 0, M_VAL4, 1, 0);
    }
}

/* 16-bit keys alone (radix_fill16): dense values (a local window of
 * starts), sparse ones (the global search), one value, both signs. */
static void test_sort_fill16(clsort_context *cs, int tiny)
{
    static const size_t fn16[] = {2, 4097, 16385, 65537, 300007};
    static const int fd[] = {S_RANDOM, S_EQUAL, S_SORTED, S_REVERSED, S_FEW, S_EXTREMES, S_AND3};
    size_t k;
    int di;
    for (k = 0; k < sizeof fn16 / sizeof fn16[0]; ++k) {
        if (tiny && fn16[k] > 5000) continue;
        for (di = 0; di < (int)(sizeof fd / sizeof fd[0]); ++di) {
            if (fn16[k] > 70000 && fd[di] != S_RANDOM && fd[di] != S_FEW) continue;
            test_sort_case(cs, di % 2 ? CLSORT_I16 : CLSORT_U16, fn16[k], fd[di], 0, 0, 0, (int)((k + (size_t)di) % 2),
                           M_KEYS, di % 3 == 1, di == 2);
        }
    }
}

/* The host forms, keys at odd addresses (host-pointer buffers), tile
 * shapes that make the CPU run the GPU kernels, and the errors. */
static void test_sort_narrow_more(clsort_context *cs, int tiny)
{
    static const size_t hn[] = {0, 1, 2, 3, 255, 1001, 20011};
    size_t i, k;
    int ti;
    /* clsort_sort_host: keys, values of every size, the permutation */
    for (k = 0; k < sizeof hn / sizeof hn[0]; ++k) {
        size_t n = hn[k];
        if (tiny && n > 300) continue;
        for (ti = 0; ti < 4; ++ti) {
            static const size_t vsz[] = {1, 2, 4, 8, 16, 0};
            clsort_type t = narrow_types[ti];
            size_t ks = clsort_type_size(t), vs = vsz[(k + (size_t)ti) % 6], ok = 1, bad = 0;
            unsigned char *keys = (unsigned char *)malloc(n * ks + 1), *orig = (unsigned char *)malloc(n * ks + 1);
            unsigned char *vals = (unsigned char *)malloc(n * 16 + 1), *vorig = (unsigned char *)malloc(n * 16 + 1);
            uint32_t *idx = (uint32_t *)malloc(n * 4 + 4), *perm = (uint32_t *)malloc(n * 4 + 4);
            clsort_sort_desc sd;
            char what[96];
            clsort_result r;
            for (i = 0; i < n; ++i) {
                uint64_t key = sort_key(t, (int)(k % 2 ? S_RANDOM : S_EXTREMES), i, n);
                memcpy(keys + i * ks, &key, ks);
                idx[i] = (uint32_t)i;
            }
            for (i = 0; i < n * 16; ++i) vals[i] = (unsigned char)rnd64();
            memcpy(orig, keys, n * ks);
            memcpy(vorig, vals, n * 16);
            memset(&sd, 0, sizeof sd);
            sd.type = t;
            sd.descending = (int)(k & 1);
            sd.value_size = vs; /* 0 = 4 */
            ref.t = t; ref.keys = orig; ref.begin = 0; ref.end = (unsigned)(8 * ks); ref.by_range = 0;
            ref.descending = sd.descending;
            if (n > 1) qsort(idx, n, 4, ref_cmp);
            snprintf(what, sizeof what, "sort_host %s values of %lu bytes%s + permutation", type_names[t],
                     (unsigned long)(vs ? vs : 4), sd.descending ? " descending" : "");
            r = clsort_sort_host(cs, keys, vals, perm, n, &sd);
            if (r != CLSORT_SUCCESS) printf("  %s: %s\n", what, clsort_last_error(cs));
            for (i = 0; i < n && ok && r == CLSORT_SUCCESS; ++i)
                if (!same_elem(keys, i, orig, idx[i], ks) || perm[i] != idx[i] ||
                    !same_elem(vals, i, vorig, idx[i], vs ? vs : 4))
                    ok = 0, bad = i;
            check(r == CLSORT_SUCCESS && ok, what, n, "-", bad, 0, r);
            free(keys); free(orig); free(vals); free(vorig); free(idx); free(perm);
        }
    }
    { /* u8 keys over a host pointer at an odd address: byte loads, a byte copy in place */
        size_t n = tiny ? 301 : 4099;
        unsigned char *host = (unsigned char *)malloc(n + 8), *orig = (unsigned char *)malloc(n + 8);
        unsigned char *back = (unsigned char *)malloc(n + 8);
        uint32_t *idx = (uint32_t *)malloc(n * 4);
        cl_int e;
        cl_mem hk, out;
        clsort_sort_desc sd;
        int rep;
        for (rep = 0; rep < 2; ++rep) {
            int in_place = rep == 1, ok;
            for (i = 0; i < n; ++i) orig[i] = (unsigned char)rnd64(), idx[i] = (uint32_t)i;
            memcpy(host + 1, orig, n);
            ref.t = CLSORT_I8; ref.keys = orig; ref.begin = 0; ref.end = 8; ref.by_range = 0; ref.descending = 0;
            qsort(idx, n, 4, ref_cmp);
            hk = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, n, host + 1, &e);
            check(e == CL_SUCCESS, "a host-pointer buffer at an odd address", n, "-", 0, 0, e);
            if (e != CL_SUCCESS) break;
            out = in_place ? hk : buffer(cs, n, NULL);
            memset(&sd, 0, sizeof sd);
            sd.type = CLSORT_I8;
            e = clsort_sort(cs, hk, out, n, &sd, NULL);
            if (e != CLSORT_SUCCESS) printf("  odd address: %s\n", clsort_last_error(cs));
            download(cs, out, n, back);
            for (i = 0, ok = e == CLSORT_SUCCESS; i < n && ok; ++i) ok = back[i] == orig[idx[i]];
            check(ok, in_place ? "i8 keys at an odd host address, in place" : "i8 keys at an odd host address",
                  n, "-", i, 0, 0);
            if (!in_place) {
                download(cs, hk, n, back);
                check(memcmp(back, orig, n) == 0, "i8 keys at an odd host address: keys_in untouched", n, "-", 0, 0, 0);
                clReleaseMemObject(out);
            }
            clReleaseMemObject(hk);
        }
        free(host); free(orig); free(back); free(idx);
    }
    { /* the work-group kernels on every device: 32 x 4 (classic radix_reorder),
       * 256 x 1 (one-sweep on the look-back path: many small tiles) */
        clsort_context *t324 = tile_context(cs, 32, 4), *t2561 = tile_context(cs, 256, 1);
        int m;
        for (m = 0; m < M_ALL; ++m) {
            if (tiny && m % 3) continue;
            if (t324) test_sort_case(t324, narrow_types[m % 4], 3001 + (size_t)m, S_RANDOM, 0, 0, 0, m & 1, m, m % 4 == 2, 0);
            if (t2561) test_sort_case(t2561, narrow_types[(m + 1) % 4], 2999 + (size_t)m, m % 2 ? S_FEW : S_RANDOM, 0, 0,
                                      0, m % 3 == 0, m, m % 4 == 1, 0);
        }
        if (t324) test_sort_case(t324, CLSORT_I16, 5003, S_RANDOM, 2, 15, 6, 1, M_PERM_VAL16, 0, 0);
        if (t2561) test_sort_case(t2561, CLSORT_U16, 5003, S_RANDOM, 2, 15, 0, 1, M_PERM_VAL2, 1, 0);
        if (t324) test_sort_case(t324, CLSORT_U16, 7001, S_RANDOM, 0, 0, 0, 0, M_KEYS, 1, 0);  /* radix_fill16 */
        if (t2561) test_sort_case(t2561, CLSORT_I16, 7001, S_FEW, 0, 0, 0, 1, M_KEYS, 0, 0);
        clsort_destroy(t324);
        clsort_destroy(t2561);
    }
}

/* The 8- and 16-bit types: refused with a message naming the function and
 * the type by every family that does not take them; value sizes. */
static void test_narrow_refusals(clsort_context *cs)
{
    uint32_t data[64], back[64];
    cl_mem a, b, c;
    clsort_sort_desc sd;
    clsort_scan_desc scd;
    clsort_bitonic_desc bd;
    clsort_reduce_desc rd;
    clsort_by_key_desc kd;
    clsort_histogram_desc hd;
    clsort_split_desc spd;
    clsort_prepare_call call;
    clsort_prepare_desc pd;
    size_t i, cnt = 0;
    uint32_t res[2];
    int ti, ok;
    char name[128];
#define NARROW_REFUSED(call_, fname)                                                                           \
    do {                                                                                                        \
        int r_ = (call_);                                                                                       \
        snprintf(name, sizeof name, "%s refuses %s keys with a message naming both", fname, type_names[t]);    \
        check(r_ == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), fname) != NULL &&          \
                  strstr(clsort_last_error(cs), type_names[t]) != NULL,                                        \
              name, 0, clsort_last_error(cs), 0, CLSORT_ERROR_INVALID_ARGUMENT, r_);                           \
    } while (0)
    check(clsort_type_size(CLSORT_U8) == 1 && clsort_type_size(CLSORT_I8) == 1 && clsort_type_size(CLSORT_U16) == 2 &&
              clsort_type_size(CLSORT_I16) == 2 && clsort_type_size(CLSORT_TYPE_COUNT) == 4,
          "clsort_type_size of the 8- and 16-bit types (and 4 for an unknown one)", 0, "-", 0, 0, 0);
    for (i = 0; i < 64; ++i) data[i] = (uint32_t)i * 2654435761u;
    a = buffer(cs, 256, data);
    b = buffer(cs, 256, data);
    c = buffer(cs, 256, data);
    for (ti = 0; ti < 4; ++ti) {
        clsort_type t = narrow_types[ti];
        memset(&scd, 0, sizeof scd);
        scd.type = t;
        NARROW_REFUSED(clsort_scan(cs, a, b, 64, &scd, NULL), "clsort_scan");
        NARROW_REFUSED(clsort_scan_host(cs, t, 0, data, back, 64, NULL), "clsort_scan_host");
        memset(&bd, 0, sizeof bd);
        bd.type = t;
        NARROW_REFUSED(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), "clsort_bitonic_sort");
        NARROW_REFUSED(clsort_bitonic_sort_host(cs, back, NULL, NULL, 64, &bd), "clsort_bitonic_sort_host");
        memset(&rd, 0, sizeof rd);
        rd.type = t;
        NARROW_REFUSED(clsort_reduce(cs, a, 64, &rd, res, NULL), "clsort_reduce");
        NARROW_REFUSED(clsort_reduce_host(cs, t, CLSORT_OP_SUM, data, 64, res), "clsort_reduce_host");
        NARROW_REFUSED(clsort_segmented_scan(cs, a, b, 64, &rd, NULL), "clsort_segmented_scan");
        rd.type = CLSORT_U32;
        rd.segments = CLSORT_SEGMENTS_KEYS;
        rd.segment_data = c;
        rd.key_type = t;
        NARROW_REFUSED(clsort_segmented_scan(cs, a, b, 64, &rd, NULL), "clsort_segmented_scan");
        memset(&kd, 0, sizeof kd);
        kd.key_type = t;
        NARROW_REFUSED(clsort_unique(cs, a, b, 64, &kd, &cnt, NULL), "clsort_unique");
        NARROW_REFUSED(clsort_run_length_encode(cs, a, b, c, 64, &kd, &cnt, NULL), "clsort_run_length_encode");
        kd.key_type = CLSORT_U32;
        kd.type = t;
        NARROW_REFUSED(clsort_reduce_by_key(cs, a, c, NULL, b, 64, &kd, &cnt, NULL), "clsort_reduce_by_key");
        memset(&hd, 0, sizeof hd);
        hd.type = t;
        hd.bins = 4;
        hd.upper_int = 100;
        NARROW_REFUSED(clsort_histogram_even(cs, a, 64, b, &hd, NULL), "clsort_histogram_even");
        memset(&call, 0, sizeof call);
        call.op = CLSORT_PREPARE_SCAN;
        call.scan = &scd;
        pd.calls = &call;
        pd.count = 1;
        NARROW_REFUSED(clsort_prepare(cs, &pd), "clsort_prepare(scan)");
        call.op = CLSORT_PREPARE_BITONIC;
        call.bitonic = &bd;
        NARROW_REFUSED(clsort_prepare(cs, &pd), "clsort_prepare(bitonic");
        /* what they do take: the radix sort (and its prepare), split */
        memset(&sd, 0, sizeof sd);
        sd.type = t;
        call.op = CLSORT_PREPARE_SORT;
        call.sort = &sd;
        snprintf(name, sizeof name, "clsort_prepare(sort) of %s keys", type_names[t]);
        check(clsort_prepare(cs, &pd) == CLSORT_SUCCESS, name, 0, "-", 0, 0, 0);
        memset(&spd, 0, sizeof spd);
        spd.type = t;
        spd.flags = c;
        snprintf(name, sizeof name, "clsort_pack of %s keys", type_names[t]);
        check(clsort_pack(cs, a, b, 64, &spd, &cnt, NULL) == CLSORT_SUCCESS, name, 0, "-", 0, 0, 0);
        /* value sizes: the radix sort takes 1, 2, 4, 8, 16; its message says so */
        sd.values_in = a; sd.values_out = c; sd.value_size = 3;
        EXPECT_ERR(clsort_sort(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "sort value_size 3");
        check(strstr(clsort_last_error(cs), "1, 2, 4, 8 or 16") != NULL, "sort value_size message lists 1, 2, 4, 8, 16",
              0, clsort_last_error(cs), 0, 0, 0);
        sd.value_size = 32;
        EXPECT_ERR(clsort_sort(cs, a, b, 8, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "sort value_size 32");
        sd.values_in = sd.values_out = NULL; sd.value_size = 12;
        EXPECT_ERR(clsort_sort_host(cs, back, back, NULL, 8, &sd), CLSORT_ERROR_INVALID_ARGUMENT,
                   "sort_host value_size 12");
        sd.value_size = 0; sd.end_bit = (unsigned)(8 * clsort_type_size(t) + 1);
        EXPECT_ERR(clsort_sort(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "sort end_bit past a narrow key");
        check(strstr(clsort_last_error(cs), ti < 2 ? "8-bit" : "16-bit") != NULL, "sort end_bit message names the width",
              0, clsort_last_error(cs), 0, 0, 0);
    }
    /* the other families keep 4- and 8-byte values */
    memset(&spd, 0, sizeof spd);
    spd.flags = c; spd.values_in = a; spd.values_out = b; spd.value_size = 16;
    EXPECT_ERR(clsort_pack(cs, a, c, 8, &spd, &cnt, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "pack value_size 16");
    check(strstr(clsort_last_error(cs), "4 or 8") != NULL, "pack value_size message: 4 or 8", 0, "-", 0, 0, 0);
    memset(&bd, 0, sizeof bd);
    bd.values_in = a; bd.values_out = b; bd.value_size = 2;
    EXPECT_ERR(clsort_bitonic_sort(cs, c, c, 8, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bitonic value_size 2");
    download(cs, a, 256, back);
    ok = memcmp(back, data, 256) == 0;
    download(cs, c, 256, back);
    ok = ok && memcmp(back, data, 256) == 0;
    check(ok, "refused narrow-type calls leave their inputs untouched", 0, "-", 0, 0, 0);
    clReleaseMemObject(a); clReleaseMemObject(b); clReleaseMemObject(c);
#undef NARROW_REFUSED
}

/* gather of elements of 4, 12, 3, 8 and 32 bytes (every piece width)
 * through a random permutation */
static void test_gather(clsort_context *cs, size_t n)
{
    static const size_t elem[5] = {4, 12, 3, 8, 32};
    static const char *names[5] = {"gather 4-byte", "gather 12-byte", "gather 3-byte", "gather 8-byte", "gather 32-byte"};
    int e;
    for (e = 0; e < 5; ++e) {
        size_t es = elem[e], i, bad = (size_t)-1;
        unsigned char *src = (unsigned char *)malloc(n * es + 1), *dst = (unsigned char *)malloc(n * es + 1);
        uint32_t *idx = (uint32_t *)malloc(n * 4 + 4);
        cl_mem ds, dd, di;
        for (i = 0; i < n * es; ++i) src[i] = (unsigned char)rnd64();
        for (i = 0; i < n; ++i) idx[i] = (uint32_t)i;
        for (i = n; i > 1; --i) { size_t j = rnd64() % i; uint32_t tmp = idx[i - 1]; idx[i - 1] = idx[j]; idx[j] = tmp; }
        if (n > 2) idx[n / 2] = 0xfffffff0u; /* out of range: a zero element */
        ds = buffer(cs, n * es, src); dd = buffer(cs, n * es, NULL); di = buffer(cs, n * 4, idx);
        check(clsort_gather(cs, ds, dd, di, n, es, NULL) == CLSORT_SUCCESS, "gather", n, "-", 0, 0, 0);
        download(cs, dd, n * es, dst);
        for (i = 0; i < n && bad == (size_t)-1; ++i) {
            size_t b;
            for (b = 0; b < es; ++b)
                if (dst[i * es + b] != (idx[i] < n ? src[(size_t)idx[i] * es + b] : 0)) bad = i;
        }
        check(bad == (size_t)-1, names[e], n, "-", bad, 0, 0);
        clReleaseMemObject(ds); clReleaseMemObject(dd); clReleaseMemObject(di);
        free(src); free(dst); free(idx);
    }
}

/* scan -> pack chained with events, no host wait in between */
static void test_events(clsort_context *cs)
{
    uint32_t in[1000], out[1000], flags[1000], ref[1000];
    size_t i, k = 0;
    cl_event ev = NULL, ev2 = NULL;
    clsort_enqueue enq;
    clsort_scan_desc sd;
    clsort_split_desc pd;
    cl_mem din, dscan, dflags, dout;
    uint32_t s = 0;
    for (i = 0; i < 1000; ++i) { in[i] = (uint32_t)(rnd64() & 0xff); flags[i] = (uint32_t)(i % 3 == 0); }
    din = buffer(cs, sizeof in, in);
    dscan = buffer(cs, sizeof in, NULL);
    dflags = buffer(cs, sizeof flags, flags);
    dout = buffer(cs, sizeof in, NULL);
    memset(&enq, 0, sizeof enq);
    memset(&sd, 0, sizeof sd);
    memset(&pd, 0, sizeof pd);
    enq.event = &ev;
    check(clsort_scan(cs, din, dscan, 1000, &sd, &enq) == CLSORT_SUCCESS && ev != NULL, "scan returns an event", 1000,
          "-", 0, 0, 0);
    enq.num_events_in_wait_list = 1;
    enq.event_wait_list = &ev;
    enq.event = &ev2;
    pd.flags = dflags;
    check(clsort_pack(cs, dscan, dout, 1000, &pd, NULL, &enq) == CLSORT_SUCCESS && ev2 != NULL,
          "pack waits on scan's event", 1000, "-", 0, 0, 0);
    check(clWaitForEvents(1, &ev2) == CL_SUCCESS, "pack event completes", 1000, "-", 0, 0, 0);
    download(cs, dout, sizeof out, out);
    for (i = 0; i < 1000; ++i) {
        if (flags[i]) ref[k++] = s;
        s += in[i];
    }
    check(memcmp(out, ref, k * 4) == 0, "scan -> pack chain", 1000, "-", 0, 0, 0);
    if (ev) clReleaseEvent(ev);
    if (ev2) clReleaseEvent(ev2);
    { /* the returned event, waited on by another queue: OpenCL 1.2 (5.13,
       * clFlush) requires the call's queue flushed first; rusticl submits
       * nothing before (the wait never ends). Polled for 10 s, not waited. */
        cl_int e;
        cl_command_queue q2 = clCreateCommandQueue(clsort_cl_context(cs), clsort_cl_device(cs), 0, &e);
        cl_event mark = NULL;
        cl_int status = CL_QUEUED;
        int polls = 0;
        time_t start;
        ev = NULL;
        enq.num_events_in_wait_list = 0;
        enq.event_wait_list = NULL;
        enq.event = &ev;
        check(e == CL_SUCCESS && clsort_scan(cs, din, dscan, 1000, &sd, &enq) == CLSORT_SUCCESS && ev != NULL &&
              clEnqueueMarkerWithWaitList(q2, 1, &ev, &mark) == CL_SUCCESS && clFlush(q2) == CL_SUCCESS,
              "scan's event in another queue's wait list", 1000, "-", 0, 0, 0);
        start = time(NULL);
        while (mark && polls++ < 100000000 && time(NULL) - start < 10 &&
               clGetEventInfo(mark, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL) == CL_SUCCESS &&
               status != CL_COMPLETE) {
        }
        check(status == CL_COMPLETE, "another queue's wait on the returned event completes (the call flushed)", 1000,
              "-", 0, CL_COMPLETE, status);
        clFinish(clsort_cl_queue(cs)); /* unblocks it when the call did not flush */
        if (q2) clFinish(q2);
        if (mark) clReleaseEvent(mark);
        if (ev) clReleaseEvent(ev);
        if (q2) clReleaseCommandQueue(q2);
    }
    clReleaseMemObject(din); clReleaseMemObject(dscan); clReleaseMemObject(dflags); clReleaseMemObject(dout);
}

static void test_host_level(clsort_context *cs)
{
    uint32_t in[5] = {3, 1, 4, 1, 5}, out[5], flags[5] = {1, 0, 1, 0, 9}, total = 0;
    uint32_t want_scan[5], want_pack[3] = {3, 4, 5};
    size_t count = 0, i;
    uint32_t s = 0;
    for (i = 0; i < 5; ++i) { want_scan[i] = s; s += in[i]; }
    check(clsort_scan_host(cs, CLSORT_U32, 0, in, out, 5, &total) == CLSORT_SUCCESS &&
          memcmp(out, want_scan, sizeof out) == 0 && total == s, "scan_host", 5, "-", 0, s, total);
    check(clsort_pack_host(cs, CLSORT_U32, in, flags, out, 5, &count) == CLSORT_SUCCESS && count == 3 &&
          memcmp(out, want_pack, sizeof want_pack) == 0, "pack_host", 5, "-", 0, 3, (double)count);
}

/* A context on cs's OpenCL context, device and queue whose kernels use the
 * tuning t (clsort_context_desc.tuning: the tests never touch the
 * environment); NULL (and a failed check) when the create fails. */
static clsort_context *tuned_context(clsort_context *cs, const clsort_tuning *t, const char *what)
{
    clsort_context_desc d;
    clsort_context *out = NULL;
    clsort_result r;
    memset(&d, 0, sizeof d);
    d.context = clsort_cl_context(cs);
    d.device = clsort_cl_device(cs);
    d.queue = clsort_cl_queue(cs);
    d.path = clsort_context_path(cs);
    d.tuning = *t;
    r = clsort_create(&out, &d);
    if (r != CLSORT_SUCCESS) {
        check(0, what, 0, clsort_last_error(out), 0, 0, r);
        clsort_destroy(out);
        return NULL;
    }
    return out;
}

static clsort_context *tile_context(clsort_context *cs, unsigned wg, unsigned items)
{
    clsort_tuning t;
    memset(&t, 0, sizeof t);
    t.tile_wg = wg;
    t.tile_items = items;
    return tuned_context(cs, &t, "context with a tile tuning");
}

/* "wg:ib:js[:flags]" (as CLSORT_NBODY) as a clsort_tuning. */
static clsort_tuning nbody_tuning(const char *shape)
{
    clsort_tuning t;
    unsigned wg = 0, ib = 0, js = 0;
    char flags[8] = "";
    memset(&t, 0, sizeof t);
    if (sscanf(shape, "%u:%u:%u:%7s", &wg, &ib, &js, flags) < 3) check(0, "nbody shape string", 0, shape, 0, 0, 0);
    t.nbody_wg = wg;
    t.nbody_ib = ib;
    t.nbody_js = js;
    if (strchr(flags, 'n')) t.nbody_flags |= CLSORT_TUNE_NATIVE_RSQRT;
    if (strchr(flags, 'f')) t.nbody_flags |= CLSORT_TUNE_FAST_MATH;
    if (strchr(flags, 'p')) t.nbody_flags |= CLSORT_TUNE_PRECISE;
    return t;
}

static void test_contexts(clsort_context *cs)
{
    clsort_context *bad = NULL, *borrowed = NULL;
    clsort_context_desc d;
    uint32_t in[3] = {1, 2, 3}, out[3], total = 0;
    memset(&d, 0, sizeof d);
    d.device_select = "4294967296:0"; /* 2^32: no wrap-around to platform 0 */
    check(clsort_create(&bad, &d) == CLSORT_ERROR_NO_DEVICE, "device index 2^32:0 selects nothing", 0, "-", 0, 0, 0);
    clsort_destroy(bad);
    bad = NULL;
    d.device_select = "no-such-device-xyz";
    check(clsort_create(&bad, &d) == CLSORT_ERROR_NO_DEVICE && strstr(clsort_last_error(bad), "no-such-device-xyz"),
          "unknown device gives CLSORT_ERROR_NO_DEVICE", 0, "-", 0, 0, 0);
    check(clsort_scan_host(bad, CLSORT_U32, 0, in, out, 3, &total) == CLSORT_ERROR_INVALID_ARGUMENT,
          "a failed context refuses work", 0, "-", 0, 0, 0);
    clsort_destroy(bad);
    { /* queues: an out-of-order queue or one of another cl_context is refused
       * by clsort_create and by a call's enq.queue alike (issue 19, items 2 and 8) */
        cl_int e;
        cl_context other_cc;
        cl_device_id dev = clsort_cl_device(cs);
        cl_command_queue ooo, foreign;
        cl_command_queue_properties qprops = 0;
        int has_ooo;
        clsort_context *qc = NULL;
        clsort_context_desc qd;
        clsort_enqueue enq;
        clsort_scan_desc sd;
        cl_mem qb;
        uint32_t qin[64], qout[64];
        size_t qi;
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
        /* out-of-order queues are optional (OpenCL 1.2 CL_DEVICE_QUEUE_PROPERTIES:
         * only profiling is mandated; rusticl has none) */
        if (clGetDeviceInfo(dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof qprops, &qprops, NULL) != CL_SUCCESS) qprops = 0;
        has_ooo = (qprops & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
        ooo = has_ooo ? clCreateCommandQueue(clsort_cl_context(cs), dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &e) : NULL;
        if (has_ooo) check(e == CL_SUCCESS, "an out-of-order queue for the queue checks", 0, "-", 0, 0, e);
        else printf("    the device has no out-of-order queues: those checks skipped\n");
        other_cc = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
        foreign = e == CL_SUCCESS ? clCreateCommandQueue(other_cc, dev, 0, &e) : NULL;
        check(e == CL_SUCCESS, "a queue of another cl_context for the queue checks", 0, "-", 0, 0, e);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
        memset(&qd, 0, sizeof qd);
        qd.context = clsort_cl_context(cs);
        qd.device = dev;
        qd.queue = ooo;
        if (has_ooo)
            check(ooo && clsort_create(&qc, &qd) == CLSORT_ERROR_INVALID_ARGUMENT &&
                      strstr(clsort_last_error(qc), "in-order"),
                  "clsort_create refuses an out-of-order queue", 0, "-", 0, 0, 0);
        clsort_destroy(qc);
        qc = NULL;
        qd.queue = foreign;
        check(foreign && clsort_create(&qc, &qd) == CLSORT_ERROR_INVALID_ARGUMENT &&
                  strstr(clsort_last_error(qc), "another OpenCL context"),
              "clsort_create refuses a queue of another cl_context", 0, "-", 0, 0, 0);
        clsort_destroy(qc);
        for (qi = 0; qi < 64; ++qi) qin[qi] = (uint32_t)qi * 7u;
        qb = buffer(cs, sizeof qin, qin);
        memset(&enq, 0, sizeof enq);
        enq.queue = ooo;
        memset(&sd, 0, sizeof sd);
        if (has_ooo)
            check(ooo && clsort_scan(cs, qb, qb, 64, &sd, &enq) == CLSORT_ERROR_INVALID_ARGUMENT &&
                      strstr(clsort_last_error(cs), "in-order"),
                  "a call refuses an out-of-order enq.queue", 64, "-", 0, 0, 0);
        download(cs, qb, sizeof qout, qout);
        check(memcmp(qin, qout, sizeof qin) == 0, "the refused call left its buffer unchanged", 64, "-", 0, 0, 0);
        clReleaseMemObject(qb);
        if (ooo) clReleaseCommandQueue(ooo);
        if (foreign) clReleaseCommandQueue(foreign);
        if (other_cc) clReleaseContext(other_cc);
    }
    { /* the smallest tiles the tuning allows (2 work-items x 1 item) work for
       * the sort and the scan (issue 19, item 9: they crashed or failed) */
        clsort_context *t21 = tile_context(cs, 2, 1);
        size_t tn = 5000, ti; /* small: oclgrind runs this part too */
        uint32_t *tk = (uint32_t *)malloc(tn * 4), *tv = (uint32_t *)malloc(tn * 4), ones[1000], sums[1000], tot = 0;
        int tok = 1;
        clsort_sort_desc tsd;
        memset(&tsd, 0, sizeof tsd);
        tsd.value_size = 4;
        for (ti = 0; ti < tn; ++ti) tk[ti] = (uint32_t)ti * 2654435761u, tv[ti] = (uint32_t)ti;
        for (ti = 0; ti < 1000; ++ti) ones[ti] = 1;
        if (t21 && tk && tv) {
            check(clsort_sort_host(t21, tk, tv, NULL, tn, &tsd) == CLSORT_SUCCESS, "sort with a 2x1 tile", tn, "-", 0, 0, 0);
            for (ti = 1; ti < tn && tok; ++ti) tok = tk[ti - 1] <= tk[ti] && tv[ti] * 2654435761u == tk[ti];
            check(tok, "sort with a 2x1 tile: sorted, values follow", tn, "random", ti, 0, 0);
            check(clsort_scan_host(t21, CLSORT_U32, 0, ones, sums, 1000, &tot) == CLSORT_SUCCESS && tot == 1000 &&
                      sums[999] == 999,
                  "scan of 1000 with a 2x1 tile (10 levels of tile sums)", 1000, "ones", 0, 1000, tot);
        }
        clsort_destroy(t21);
        free(tk);
        free(tv);
    }
    { /* host-pointer buffers over unaligned memory (issue 19, item 5): gather
       * narrows its pieces and stays correct; 8-byte keys and float4 bodies
       * are refused with a message instead of misaligned loads */
        static uint32_t host_src[4 * 64 + 4], host_keys[2 * 64 + 2];
        uint32_t idx[64], got[4 * 64];
        size_t gi;
        int gok = 1;
        cl_int e;
        cl_mem hsrc, hkeys, gidx, gdst;
        clsort_sort_desc ksd;
        clsort_nbody_desc nbd;
        for (gi = 0; gi < 4 * 64 + 4; ++gi) host_src[gi] = (uint32_t)gi * 2654435761u;
        for (gi = 0; gi < 64; ++gi) idx[gi] = (uint32_t)((gi * 37) % 64);
        hsrc = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 4 * 64 * 4, host_src + 1, &e);
        check(e == CL_SUCCESS, "a host-pointer buffer 4 bytes past 16-byte alignment", 0, "-", 0, 0, e);
        hkeys = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 2 * 64 * 4, host_keys + 1, &e);
        check(e == CL_SUCCESS, "a host-pointer key buffer 4 bytes past 8-byte alignment", 0, "-", 0, 0, e);
        gidx = buffer(cs, sizeof idx, idx);
        gdst = buffer(cs, sizeof got, NULL);
        check(clsort_gather(cs, hsrc, gdst, gidx, 64, 16, NULL) == CLSORT_SUCCESS, "gather 16-byte elements, src at +4",
              64, "-", 0, 0, 0);
        download(cs, gdst, sizeof got, got);
        for (gi = 0; gi < 64 && gok; ++gi) gok = memcmp(got + 4 * gi, host_src + 1 + 4 * idx[gi], 16) == 0;
        check(gok, "gather from an unaligned host pointer is correct", 64, "-", gi, 0, 0);
        memset(&ksd, 0, sizeof ksd);
        ksd.type = CLSORT_U64;
        check(clsort_sort(cs, hkeys, hkeys, 64, &ksd, NULL) == CLSORT_ERROR_INVALID_ARGUMENT &&
                  strstr(clsort_last_error(cs), "multiple of 8") != NULL,
              "u64 keys at an unaligned host pointer are refused", 64, "-", 0, 0, 0);
        memset(&nbd, 0, sizeof nbd);
        check(clsort_nbody(cs, hsrc, gdst, 16, &nbd, NULL) == CLSORT_ERROR_INVALID_ARGUMENT &&
                  strstr(clsort_last_error(cs), "multiple of 16") != NULL,
              "float4 bodies at an unaligned host pointer are refused", 16, "-", 0, 0, 0);
        clReleaseMemObject(hsrc);
        clReleaseMemObject(hkeys);
        clReleaseMemObject(gidx);
        clReleaseMemObject(gdst);
    }
    { /* invalid tuning is refused at create, naming the knob */
        static const struct { unsigned wg, items, steps, nwg, nib, njs, nflags; int classic, rbk; const char *knob; } bad_t[] = {
            {3, 16, 0, 0, 0, 0, 0, 0, 0, "tile"}, {256, 0, 0, 0, 0, 0, 0, 0, 0, "tile"}, {1, 16, 0, 0, 0, 0, 0, 0, 0, "tile"},
            {2048, 1, 0, 0, 0, 0, 0, 0, 0, "tile"}, {0, 0, 7, 0, 0, 0, 0, 0, 0, "bitonic_steps"},
            {0, 0, 0, 64, 16, 1, 0, 0, 0, "nbody"}, {0, 0, 0, 64, 2, 128, 0, 0, 0, "nbody"},
            {0, 0, 0, 48, 1, 1, 0, 0, 0, "nbody"}, {0, 0, 0, 0, 0, 0, 64, 0, 0, "nbody"},
            {0, 0, 0, 0, 0, 0, CLSORT_TUNE_FAST_MATH | CLSORT_TUNE_PRECISE, 0, 0, "nbody"},
            {0, 0, 0, 0, 0, 0, 0, 2, 0, "classic_passes"}, {0, 0, 0, 0, 0, 0, 0, 0, 9, "rbk_variant"},
            {0, 0, 0, 0, 0, 0, 0, 0, -1, "rbk_variant"}, {0, 0, 0, 0, 0, 0, 0, 0, 5, "rbk_variant"}};
        size_t i;
        for (i = 0; i < sizeof bad_t / sizeof bad_t[0]; ++i) {
            clsort_context_desc td;
            clsort_context *tc = NULL;
            char what[96];
            memset(&td, 0, sizeof td);
            td.context = clsort_cl_context(cs);
            td.device = clsort_cl_device(cs);
            td.tuning.tile_wg = bad_t[i].wg;
            td.tuning.tile_items = bad_t[i].items;
            td.tuning.bitonic_steps = bad_t[i].steps;
            td.tuning.nbody_wg = bad_t[i].nwg;
            td.tuning.nbody_ib = bad_t[i].nib;
            td.tuning.nbody_js = bad_t[i].njs;
            td.tuning.nbody_flags = bad_t[i].nflags;
            td.tuning.classic_passes = bad_t[i].classic;
            td.tuning.rbk_variant = bad_t[i].rbk;
            snprintf(what, sizeof what, "invalid tuning %lu (%s) refused at create", (unsigned long)i, bad_t[i].knob);
            check(clsort_create(&tc, &td) == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(tc), bad_t[i].knob),
                  what, 0, clsort_last_error(tc), 0, 0, 0);
            clsort_destroy(tc);
        }
    }
    memset(&d, 0, sizeof d);
    d.context = clsort_cl_context(cs);
    d.device = clsort_cl_device(cs);
    d.queue = clsort_cl_queue(cs);
    check(clsort_create(&borrowed, &d) == CLSORT_SUCCESS, "context from caller handles", 0, "-", 0, 0, 0);
    check(clsort_scan_host(borrowed, CLSORT_U32, 1, in, out, 3, &total) == CLSORT_SUCCESS && out[2] == 6 && total == 6,
          "scan on borrowed handles", 3, "-", 0, 6, out[2]);
    clsort_destroy(borrowed);
    check(clsort_scan_host(cs, CLSORT_U32, 1, in, out, 3, &total) == CLSORT_SUCCESS && out[2] == 6,
          "owner still works after the borrower is destroyed", 3, "-", 0, 6, out[2]);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* ---- particle binning ---- */

typedef struct bin_grid_case {
    const char *name;
    clsort_grid_desc g;
    int with_offsets; /* the key range is small enough for an offsets array */
} bin_grid_case;

/* The documented cell rule, in the same float operations as kernels/bin.cl. */
static uint32_t ref_axis(float p, float origin, float h, unsigned cells, int periodic)
{
    volatile float inv = 1.0f / h, t = floorf((p - origin) * inv);
    long long c;
    if (t != t) c = 0;
    else if (t >= 9223372036854775808.0f) c = LLONG_MAX;
    else if (t < -9223372036854775808.0f) c = LLONG_MIN;
    else c = (long long)t;
    if (periodic) {
        c %= (long long)cells;
        return (uint32_t)(c < 0 ? c + (long long)cells : c);
    }
    return (uint32_t)(c < 0 ? 0 : c >= (long long)cells ? (long long)cells - 1 : c);
}

static uint32_t ref_cell_key(const clsort_grid_desc *g, const float *p)
{
    unsigned dims = g->dims ? g->dims : 2, a, b;
    uint32_t c[3] = {0, 0, 0}, key = 0;
    for (a = 0; a < dims; ++a) c[a] = ref_axis(p[a], g->origin[a], g->cell_size[a], g->cells[a], g->periodic[a]);
    if (g->order == CLSORT_CELL_MORTON) {
        for (b = 0; b * dims < 32; ++b)
            for (a = 0; a < dims && b * dims + a < 32; ++a) key |= ((c[a] >> b) & 1u) << (b * dims + a);
        return key;
    }
    return (c[2] * (dims == 3 ? g->cells[1] : 1) + c[1]) * g->cells[0] + c[0];
}

enum { P_UNIFORM, P_EDGES, P_OUTSIDE, P_ONE_CELL, P_SPECIALS, P_CLUSTERED, P_COUNT };
static const char *pos_dist_names[] = {"uniform", "cell-edges", "outside-domain", "one-cell", "nan-inf-huge", "clustered"};

static float unit_rand(void) { return (float)((double)(rnd64() >> 40) / 16777216.0); }

/* One coordinate of distribution d along an axis of `cells` cells of edge h. */
static float pos_coord(int d, float origin, float h, unsigned cells, size_t i)
{
    float len = h * (float)cells;
    switch (d) {
    case P_UNIFORM: return origin + unit_rand() * len;
    case P_EDGES: return origin + h * (float)(rnd64() % (cells + 1)); /* includes the far boundary */
    case P_OUTSIDE: return origin - 2.0f * len + unit_rand() * 5.0f * len;
    case P_ONE_CELL: return origin + h * ((float)(cells / 2) + 0.5f);
    case P_SPECIALS: {
        static const float sp[8] = {0.0f, -0.0f, 1e30f, -1e30f, 3e38f, -3e38f, 0.0f, 0.0f};
        uint64_t r = rnd64() % 10;
        if (r < 6) return sp[r];
        if (r == 6) return (float)INFINITY * (i & 1 ? 1.0f : -1.0f);
        if (r == 7) return (float)NAN;
        return origin + unit_rand() * len;
    }
    default: return origin + h * (float)(rnd64() % 3) + unit_rand() * h * 0.999f;
    }
}

/* Positions as records of `stride` bytes with x at byte `offset`. */
static float *make_positions(const clsort_grid_desc *g, size_t n, int d, size_t *bytes)
{
    unsigned dims = g->dims ? g->dims : 2, a;
    size_t stride = g->stride ? g->stride : dims * 4, i, total = n ? (n - 1) * stride + g->offset + dims * 4 : 4;
    float *p = (float *)malloc(total + 16);
    for (i = 0; i < total / 4; ++i) p[i] = -7.25f; /* padding: any value, must not matter */
    for (i = 0; i < n; ++i)
        for (a = 0; a < dims; ++a)
            p[(i * stride + g->offset) / 4 + a] = pos_coord(d, g->origin[a], g->cell_size[a], g->cells[a], i);
    *bytes = total;
    return p;
}

static void ref_keys(const clsort_grid_desc *g, const float *pos, size_t n, uint32_t *keys)
{
    unsigned dims = g->dims ? g->dims : 2;
    size_t stride = g->stride ? g->stride : dims * 4, i;
    for (i = 0; i < n; ++i) keys[i] = ref_cell_key(g, pos + (i * stride + g->offset) / 4);
}

static const uint32_t *ref_bin_keys;
static int cmp_by_key_then_index(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t kx = ref_bin_keys[x], ky = ref_bin_keys[y];
    return kx != ky ? (kx > ky) - (kx < ky) : (x > y) - (x < y);
}

/* Stable counting sort by key (keys < cells): the expected permutation and
 * offsets; without offsets (huge key ranges) a qsort by (key, index). */
static void ref_bin(const uint32_t *keys, size_t n, size_t cells, uint32_t *perm, uint32_t *offsets)
{
    size_t i, c;
    uint32_t *cur;
    if (!offsets) {
        for (i = 0; i < n; ++i) perm[i] = (uint32_t)i;
        ref_bin_keys = keys;
        qsort(perm, n, 4, cmp_by_key_then_index);
        return;
    }
    cur = (uint32_t *)calloc(cells + 1, 4);
    for (i = 0; i < n; ++i) cur[keys[i] + 1]++;
    for (c = 0; c < cells; ++c) cur[c + 1] += cur[c];
    if (offsets) memcpy(offsets, cur, (cells + 1) * 4);
    for (i = 0; i < n; ++i) perm[cur[keys[i]]++] = (uint32_t)i;
    free(cur);
}

static size_t first_diff_u32(const uint32_t *a, const uint32_t *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        if (a[i] != b[i]) return i;
    return (size_t)-1;
}

/* clsort_cell_keys and clsort_bin on one grid, distribution and size; both
 * methods; attributes of 4, 12, 16 and 40 bytes, one of them in place. */
static void test_bin_case(clsort_context *cs, const bin_grid_case *gc, size_t n, int d, clsort_bin_method method)
{
    static const size_t attr_size[4] = {4, 12, 16, 40};
    const clsort_grid_desc *g = &gc->g;
    size_t pbytes, num_cells = 0, i, at, bad;
    unsigned key_bits = 0;
    float *pos = make_positions(g, n, d, &pbytes);
    uint32_t *want_k = (uint32_t *)malloc(n * 4 + 4), *got = (uint32_t *)malloc(n * 4 + 4);
    uint32_t *want_p = (uint32_t *)malloc(n * 4 + 4), *got_p = (uint32_t *)malloc(n * 4 + 4);
    uint32_t *want_o = NULL, *got_o = NULL, *sorted_ref = (uint32_t *)malloc(n * 4 + 4);
    unsigned char *src[4], *dst = (unsigned char *)malloc(n * 40 + 40);
    cl_mem dpos, dkeys, dperm, doff = NULL, dsrc[4], ddst[4];
    clsort_attribute attrs[4];
    clsort_bin_desc bd;
    char what[160];
    int r;
    check(clsort_grid_keys(cs, g, &num_cells, &key_bits) == CLSORT_SUCCESS, "grid_keys", n, gc->name, 0, 0, 0);
    ref_keys(g, pos, n, want_k);
    dpos = buffer(cs, pbytes, pos);
    dkeys = buffer(cs, n * 4, NULL);
    dperm = buffer(cs, n * 4, NULL);
    /* cell keys alone */
    snprintf(what, sizeof what, "cell_keys %s", gc->name);
    r = clsort_cell_keys(cs, dpos, dkeys, n, g, NULL);
    check(r == CLSORT_SUCCESS, what, n, pos_dist_names[d], 0, 0, r);
    download(cs, dkeys, n * 4, got);
    bad = first_diff_u32(want_k, got, n);
    check(bad == (size_t)-1, what, n, pos_dist_names[d], bad, bad < n ? want_k[bad] : 0, bad < n ? got[bad] : 0);
    /* the whole binning */
    if (gc->with_offsets) {
        want_o = (uint32_t *)malloc((num_cells + 1) * 4);
        got_o = (uint32_t *)malloc((num_cells + 1) * 4);
        doff = buffer(cs, (num_cells + 1) * 4, NULL);
    }
    ref_bin(want_k, n, num_cells, want_p, want_o);
    for (i = 0; i < n; ++i) sorted_ref[i] = want_k[want_p[i]];
    for (at = 0; at < 4; ++at) {
        size_t b, sz = n * attr_size[at];
        src[at] = (unsigned char *)malloc(sz + 1);
        for (b = 0; b < sz; ++b) src[at][b] = (unsigned char)rnd64();
        dsrc[at] = buffer(cs, sz, src[at]);
        ddst[at] = at == 2 ? dsrc[at] : buffer(cs, sz, NULL); /* the 16-byte one in place */
        attrs[at].src = dsrc[at];
        attrs[at].dst = ddst[at];
        attrs[at].elem_size = attr_size[at];
    }
    memset(&bd, 0, sizeof bd);
    bd.grid = *g;
    bd.method = method;
    bd.cell_keys = dkeys;
    bd.permutation = dperm;
    bd.cell_offsets = doff;
    bd.attributes = attrs;
    bd.attribute_count = 4;
    snprintf(what, sizeof what, "bin %s %s", method == CLSORT_BIN_SORT ? "sort" : "atomic", gc->name);
    r = clsort_bin(cs, dpos, n, &bd, NULL);
    check(r == CLSORT_SUCCESS, what, n, pos_dist_names[d], 0, 0, r);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    download(cs, dkeys, n * 4, got);
    download(cs, dperm, n * 4, got_p);
    bad = first_diff_u32(sorted_ref, got, n);
    snprintf(what, sizeof what, "bin %s %s: sorted keys", method == CLSORT_BIN_SORT ? "sort" : "atomic", gc->name);
    check(bad == (size_t)-1, what, n, pos_dist_names[d], bad, bad < n ? sorted_ref[bad] : 0, bad < n ? got[bad] : 0);
    if (method == CLSORT_BIN_SORT) { /* stable: exactly the counting sort's permutation */
        bad = first_diff_u32(want_p, got_p, n);
        snprintf(what, sizeof what, "bin sort %s: stable permutation", gc->name);
        check(bad == (size_t)-1, what, n, pos_dist_names[d], bad, bad < n ? want_p[bad] : 0, bad < n ? got_p[bad] : 0);
    } else { /* a permutation whose keys are the sorted keys */
        unsigned char *seen = (unsigned char *)calloc(n + 1, 1);
        bad = (size_t)-1;
        for (i = 0; i < n && bad == (size_t)-1; ++i) {
            if (got_p[i] >= n || seen[got_p[i]] || want_k[got_p[i]] != got[i]) bad = i;
            else seen[got_p[i]] = 1;
        }
        snprintf(what, sizeof what, "bin atomic %s: permutation of the sorted keys", gc->name);
        check(bad == (size_t)-1, what, n, pos_dist_names[d], bad, 0, bad < n ? got_p[bad] : 0);
        free(seen);
    }
    if (doff) {
        download(cs, doff, (num_cells + 1) * 4, got_o);
        bad = first_diff_u32(want_o, got_o, num_cells + 1);
        snprintf(what, sizeof what, "bin %s %s: cell offsets", method == CLSORT_BIN_SORT ? "sort" : "atomic", gc->name);
        check(bad == (size_t)-1, what, n, pos_dist_names[d], bad, bad <= num_cells ? want_o[bad] : 0,
              bad <= num_cells ? got_o[bad] : 0);
    }
    for (at = 0; at < 4; ++at) { /* dst[i] = src[perm[i]] with the permutation the call returned */
        size_t es = attr_size[at];
        download(cs, ddst[at], n * es, dst);
        bad = (size_t)-1;
        for (i = 0; i < n && bad == (size_t)-1; ++i)
            if (got_p[i] >= n || memcmp(dst + i * es, src[at] + (size_t)got_p[i] * es, es) != 0) bad = i;
        snprintf(what, sizeof what, "bin %s: %lu-byte attribute%s", gc->name, (unsigned long)es, at == 2 ? " in place" : "");
        check(bad == (size_t)-1, what, n, pos_dist_names[d], bad, 0, 0);
        clReleaseMemObject(dsrc[at]);
        if (at != 2) clReleaseMemObject(ddst[at]);
        free(src[at]);
    }
    download(cs, dpos, pbytes, dst);
    check(memcmp(dst, pos, pbytes) == 0, "bin leaves positions untouched", n, pos_dist_names[d], 0, 0, 0);
    clReleaseMemObject(dpos); clReleaseMemObject(dkeys); clReleaseMemObject(dperm);
    if (doff) clReleaseMemObject(doff);
    free(pos); free(want_k); free(got); free(want_p); free(got_p); free(want_o); free(got_o); free(sorted_ref); free(dst);
}

/* clsort_cell_offsets on sorted keys with empty cells, everything in one
 * cell (first, middle, last), keys past num_cells. */
static void test_cell_offsets(clsort_context *cs, size_t n, size_t cells, int pattern)
{
    uint32_t *keys = (uint32_t *)malloc(n * 4 + 4), *want = (uint32_t *)malloc(cells * 4 + 8),
             *got = (uint32_t *)malloc(cells * 4 + 8);
    size_t i, c, bad;
    cl_mem dk, doff;
    static const char *pn[] = {"random", "one-cell-first", "one-cell-middle", "one-cell-last", "keys-past-cells", "sparse"};
    for (i = 0; i < n; ++i)
        keys[i] = pattern == 0 ? (uint32_t)(rnd64() % cells) : pattern == 1 ? 0u : pattern == 2 ? (uint32_t)(cells / 2)
                : pattern == 3 ? (uint32_t)(cells - 1) : pattern == 4 ? (uint32_t)(rnd64() % (cells + 5))
                : (uint32_t)(rnd64() % 4 * (cells / 4));
    qsort(keys, n, 4, cmp_u32);
    for (c = 0; c <= cells; ++c) { /* first index with key >= c, by counting */
        size_t k = 0;
        if (c > 0) k = want[c - 1];
        while (k < n && keys[k] < c) ++k;
        want[c] = (uint32_t)k;
    }
    dk = buffer(cs, n * 4, keys);
    doff = buffer(cs, (cells + 1) * 4, NULL);
    check(clsort_cell_offsets(cs, dk, n, cells, doff, NULL) == CLSORT_SUCCESS, "cell_offsets", n, pn[pattern], 0, 0, 0);
    download(cs, doff, (cells + 1) * 4, got);
    bad = first_diff_u32(want, got, cells + 1);
    check(bad == (size_t)-1, cells >= ((size_t)1 << 20) ? "cell_offsets 2^20 cells" : "cell_offsets", n, pn[pattern],
          bad, bad <= cells ? want[bad] : 0, bad <= cells ? got[bad] : 0);
    clReleaseMemObject(dk); clReleaseMemObject(doff);
    free(keys); free(want); free(got);
}

static void test_bin_arguments(clsort_context *cs)
{
    float data[256];
    unsigned char back[1024];
    cl_mem pos, small, a, b, c;
    clsort_bin_desc bd, good;
    clsort_attribute at[2];
    size_t i, cells = 0;
    unsigned bits = 0;
    int ok;
    for (i = 0; i < 256; ++i) data[i] = (float)i * 0.01f;
    pos = buffer(cs, 1024, data);
    small = buffer(cs, 16, data);
    a = buffer(cs, 1024, data);
    b = buffer(cs, 1024, data);
    c = buffer(cs, 1024, data);
    memset(&good, 0, sizeof good);
    good.grid.cells[0] = good.grid.cells[1] = 8;
    good.grid.cell_size[0] = good.grid.cell_size[1] = 0.125f;
    good.cell_keys = a;
    good.permutation = b;
    bd = good; bd.grid.dims = 4;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin dims 4");
    bd = good; bd.grid.cells[1] = 0;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin zero cells");
    bd = good; bd.grid.cell_size[0] = 0.0f;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin cell_size 0");
    bd = good; bd.grid.cell_size[1] = -1.0f;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin negative cell_size");
    bd = good; bd.grid.cell_size[0] = (float)NAN;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin NaN cell_size");
    bd = good; bd.grid.origin[1] = (float)INFINITY;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin infinite origin");
    bd = good; bd.grid.periodic[0] = 2;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin periodic 2");
    bd = good; bd.grid.order = (clsort_cell_order)9;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin unknown order");
    bd = good; bd.grid.stride = 6;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin stride 6");
    bd = good; bd.grid.stride = 64;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin positions too small");
    check(strstr(clsort_last_error(cs), "positions") != NULL, "bin positions message", 0, "-", 0, 0, 0);
    bd = good; bd.grid.dims = 3; bd.grid.order = CLSORT_CELL_MORTON; bd.grid.cells[2] = 2048; bd.grid.cell_size[2] = 1;
    EXPECT_ERR(clsort_bin(cs, pos, 10, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin Morton key past 32 bits");
    bd = good; bd.grid.dims = 3; bd.grid.cells[0] = bd.grid.cells[1] = 65536; bd.grid.cells[2] = 2; bd.grid.cell_size[2] = 1;
    EXPECT_ERR(clsort_bin(cs, pos, 10, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin more than 2^32 cells");
    bd = good; bd.method = (clsort_bin_method)5;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin unknown method");
    bd = good; bd.radix_bits = 13;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin radix_bits 13");
    bd = good; bd.permutation = a;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin permutation == cell_keys");
    bd = good; bd.cell_keys = pos;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin cell_keys == positions");
    bd = good; bd.cell_offsets = small;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin offsets too small");
    bd = good; bd.attribute_count = 1;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin attribute_count without attributes");
    at[0].src = c; at[0].dst = small; at[0].elem_size = 4;
    bd = good; bd.attributes = at; bd.attribute_count = 1;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin attribute dst too small");
    at[0].dst = c; at[0].elem_size = 0;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin attribute elem_size 0");
    at[0].elem_size = 4; at[0].dst = b;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin attribute dst == permutation");
    at[0].src = c; at[0].dst = pos;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin attribute dst == positions");
    at[0].src = c; at[0].dst = small; at[1].src = small; at[1].dst = c; at[0].elem_size = at[1].elem_size = 4;
    bd.attribute_count = 2;
    EXPECT_ERR(clsort_bin(cs, pos, 4, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin attribute dst is another's src");
    EXPECT_ERR(clsort_bin(cs, pos, 64, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin NULL desc");
    EXPECT_ERR(clsort_cell_keys(cs, pos, small, 64, &good.grid, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "cell_keys keys too small");
    EXPECT_ERR(clsort_cell_keys(cs, pos, a, 64, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "cell_keys NULL grid");
    EXPECT_ERR(clsort_cell_offsets(cs, a, 64, 64, small, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "cell_offsets too small");
    EXPECT_ERR(clsort_cell_offsets(cs, a, 64, 16, a, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "cell_offsets aliasing keys");
    EXPECT_ERR(clsort_grid_keys(cs, NULL, &cells, &bits), CLSORT_ERROR_INVALID_ARGUMENT, "grid_keys NULL");
    ok = 1;
    download(cs, pos, 1024, back); ok = ok && memcmp(back, data, 1024) == 0;
    download(cs, a, 1024, back); ok = ok && memcmp(back, data, 1024) == 0;
    download(cs, b, 1024, back); ok = ok && memcmp(back, data, 1024) == 0;
    download(cs, c, 1024, back); ok = ok && memcmp(back, data, 1024) == 0;
    download(cs, small, 16, back); ok = ok && memcmp(back, data, 16) == 0;
    check(ok, "bin errors leave every buffer untouched", 0, "bad-argument", 0, 0, 0);
    /* the key ranges the header documents */
    check(clsort_grid_keys(cs, &good.grid, &cells, &bits) == CLSORT_SUCCESS && cells == 64 && bits == 6,
          "grid_keys 8x8 row-major: 64 cells, 6 bits", 0, "-", 0, (double)cells, bits);
    bd = good; bd.grid.cells[0] = 32; bd.grid.cells[1] = 32;
    check(clsort_grid_keys(cs, &bd.grid, &cells, &bits) == CLSORT_SUCCESS && cells == 1024 && bits == 10,
          "grid_keys 32x32: 1024 cells, 10 bits", 0, "-", 0, (double)cells, bits);
    bd.grid.dims = 3; bd.grid.cells[0] = 5; bd.grid.cells[1] = 3; bd.grid.cells[2] = 9; bd.grid.order = CLSORT_CELL_MORTON;
    bd.grid.cell_size[2] = 1.0f;
    check(clsort_grid_keys(cs, &bd.grid, &cells, &bits) == CLSORT_SUCCESS && cells == 4096 && bits == 12,
          "grid_keys Morton 5x3x9: 2^12 keys", 0, "-", 0, (double)cells, bits);
    good.cell_offsets = c; /* n = 0: offsets all zero */
    check(clsort_bin(cs, NULL, 0, &good, NULL) == CLSORT_SUCCESS, "bin n=0", 0, "-", 0, 0, 0);
    download(cs, c, 65 * 4, back);
    for (i = 0; i < 65 * 4 && back[i] == 0; ++i) {}
    check(i == 65 * 4, "bin n=0 writes zero offsets", 0, "-", i, 0, 0);
    clReleaseMemObject(pos); clReleaseMemObject(small); clReleaseMemObject(a); clReleaseMemObject(b); clReleaseMemObject(c);
}

static void test_bin(clsort_context *cs, int tiny, int quick)
{
    static const size_t sizes[] = {65537, 4097, 1009, 257, 31, 3, 2, 1, 0};
    bin_grid_case grids[7];
    size_t s, gi, ng = 0;
    int d, m;
    memset(grids, 0, sizeof grids);
    /* Helluy's grid: the periodic unit square, 32 x 32, packed float2 */
    grids[ng].name = "2D 32x32 periodic";
    grids[ng].g.cells[0] = grids[ng].g.cells[1] = 32;
    grids[ng].g.cell_size[0] = grids[ng].g.cell_size[1] = 1.0f / 32;
    grids[ng].g.periodic[0] = grids[ng].g.periodic[1] = 1;
    grids[ng++].with_offsets = 1;
    /* closed 7 x 5 box, origin off zero, float4 records */
    grids[ng].name = "2D 7x5 closed float4";
    grids[ng].g.cells[0] = 7; grids[ng].g.cells[1] = 5;
    grids[ng].g.origin[0] = -1.5f; grids[ng].g.origin[1] = 2.0f;
    grids[ng].g.cell_size[0] = 0.3f; grids[ng].g.cell_size[1] = 0.75f;
    grids[ng].g.stride = 16;
    grids[ng++].with_offsets = 1;
    /* 3D Morton, periodic in x and z only, 40-byte records with x at byte 12 */
    grids[ng].name = "3D 16x8x4 Morton 40-byte records";
    grids[ng].g.dims = 3;
    grids[ng].g.cells[0] = 16; grids[ng].g.cells[1] = 8; grids[ng].g.cells[2] = 4;
    grids[ng].g.cell_size[0] = grids[ng].g.cell_size[1] = grids[ng].g.cell_size[2] = 0.25f;
    grids[ng].g.periodic[0] = grids[ng].g.periodic[2] = 1;
    grids[ng].g.order = CLSORT_CELL_MORTON;
    grids[ng].g.stride = 40; grids[ng].g.offset = 12;
    grids[ng++].with_offsets = 1;
    /* 3D Morton, axes not powers of two, closed */
    grids[ng].name = "3D 5x3x7 Morton closed";
    grids[ng].g.dims = 3;
    grids[ng].g.cells[0] = 5; grids[ng].g.cells[1] = 3; grids[ng].g.cells[2] = 7;
    grids[ng].g.cell_size[0] = 1.0f; grids[ng].g.cell_size[1] = 2.0f; grids[ng].g.cell_size[2] = 0.5f;
    grids[ng].g.order = CLSORT_CELL_MORTON;
    grids[ng++].with_offsets = 1;
    /* 3D row-major 1 x 1 x 1: one cell */
    grids[ng].name = "3D one cell";
    grids[ng].g.dims = 3;
    grids[ng].g.cells[0] = grids[ng].g.cells[1] = grids[ng].g.cells[2] = 1;
    grids[ng].g.cell_size[0] = grids[ng].g.cell_size[1] = grids[ng].g.cell_size[2] = 1.0f;
    grids[ng++].with_offsets = 1;
    /* 2^20 cells */
    grids[ng].name = "2D 1024x1024 periodic";
    grids[ng].g.cells[0] = grids[ng].g.cells[1] = 1024;
    grids[ng].g.cell_size[0] = grids[ng].g.cell_size[1] = 1.0f / 1024;
    grids[ng].g.periodic[0] = grids[ng].g.periodic[1] = 1;
    grids[ng++].with_offsets = 1;
    /* 30-bit Morton keys (no offsets array: 2^30 cells) */
    grids[ng].name = "3D 1024^3 Morton";
    grids[ng].g.dims = 3;
    grids[ng].g.cells[0] = grids[ng].g.cells[1] = grids[ng].g.cells[2] = 1024;
    grids[ng].g.cell_size[0] = grids[ng].g.cell_size[1] = grids[ng].g.cell_size[2] = 1.0f / 1024;
    grids[ng].g.order = CLSORT_CELL_MORTON;
    grids[ng++].with_offsets = 0;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        size_t n = sizes[s];
        if (tiny && n != 1009 && n != 3 && n != 0) continue;
        if (quick && !tiny && n > 5000) continue;
        for (gi = 0; gi < ng; ++gi)
            for (d = 0; d < P_COUNT; ++d)
                for (m = 0; m < 2; ++m) {
                    if (tiny && (gi == 5 || gi == 6 || (d != P_UNIFORM && d != P_EDGES))) continue;
                    if (!grids[gi].with_offsets && m == CLSORT_BIN_ATOMIC) continue; /* a counter per key: 4 GiB */
                    if (n > 5000 && d != P_UNIFORM && d != (int)(gi % P_COUNT)) continue;
                    test_bin_case(cs, &grids[gi], n, d, (clsort_bin_method)m);
                }
    }
    if (!quick) { /* a million particles in Helluy's grid, both methods */
        test_bin_case(cs, &grids[0], ((size_t)1 << 20) + 1, P_UNIFORM, CLSORT_BIN_SORT);
        test_bin_case(cs, &grids[0], ((size_t)1 << 20) + 1, P_CLUSTERED, CLSORT_BIN_ATOMIC);
    }
    for (d = 0; d < 6; ++d) {
        test_cell_offsets(cs, tiny ? 300 : 5000, tiny ? 64 : 1000, d);
        if (!tiny) test_cell_offsets(cs, 0, 17, d);
    }
    if (!quick) test_cell_offsets(cs, (size_t)1 << 20, (size_t)1 << 20, 0);
    test_bin_arguments(cs);
}

/* ---- the argument table: every device-level function x every kind of bad
 * argument (issue: NULL, n past the buffer, byte-count overflow, a buffer or
 * queue of another context). Each must return its code with a message and
 * leave every buffer byte for byte as it was. ---- */

/* A_ALIAS: an output is the same handle as an input (or another output) where
 * the function allows no in place use; A_OVERLAP: an output and an input are
 * two sub-buffers over the same bytes of one buffer; A_READONLY: an output
 * created CL_MEM_READ_ONLY (issue 19). */
enum { A_NULL_CTX, A_NULL_BUF, A_SMALL, A_OVERFLOW, A_FOREIGN_BUF, A_FOREIGN_QUEUE, A_ALIAS, A_OVERLAP, A_READONLY,
       A_COUNT };
static const char *arg_case_names[A_COUNT] = {"NULL context", "NULL buffer", "n past the end of a buffer",
                                              "byte count overflows", "buffer of another context",
                                              "queue of another context", "an output aliasing an input",
                                              "an output over an input's bytes (sub-buffers)",
                                              "a CL_MEM_READ_ONLY output"};
/* what the message of each case must contain (NULL: any message) */
static const char *arg_case_text[A_COUNT] = {NULL, "NULL", "needed", "overflow", "another OpenCL context",
                                             "another", "shar", "shar", "CL_MEM_READ_ONLY"};
enum { F_SCAN, F_ENUMERATE, F_PACK, F_SPLIT, F_SORT, F_SORT_PERM, F_GATHER, F_CELL_KEYS, F_CELL_OFFSETS, F_BIN,
       F_BITONIC, F_NBODY, F_REDUCE, F_SEGSCAN, F_SEGREDUCE, F_REDUCE_BY_KEY, F_RLE, F_UNIQUE, F_HISTOGRAM,
       F_FUNCS, F_TREE_BUILD, F_TREE_ACCEL, F_NBODY_BH }; /* the tree rows: not in the table yet (its
       aliasing and read-only-output cases came with the merge; test_tree_arguments covers the tree calls) */
static const char *fn_names[F_FUNCS] = {"clsort_scan", "clsort_enumerate", "clsort_pack", "clsort_split",
                                        "clsort_sort", "clsort_sort (permutation)", "clsort_gather",
                                        "clsort_cell_keys", "clsort_cell_offsets", "clsort_bin",
                                        "clsort_bitonic_sort", "clsort_nbody", "clsort_reduce",
                                        "clsort_segmented_scan", "clsort_segmented_reduce", "clsort_reduce_by_key",
                                        "clsort_run_length_encode", "clsort_unique", "clsort_histogram_even"};

/* in and out are the buffers of the case (for A_ALIAS out == in; for A_OVERLAP
 * two sub-buffers over the same bytes; for A_READONLY out is read-only); where
 * a function may run in place (out == in), the aliased output is another. */
static clsort_result call_with(int f, int c, clsort_context *cs, cl_mem in, cl_mem out, cl_mem flags, cl_mem aux,
                               cl_command_queue foreign_queue)
{
    int alias = c == A_ALIAS;
    clsort_context *ctx = c == A_NULL_CTX ? NULL : cs;
    size_t n = c == A_OVERFLOW ? (size_t)-1 / 2 : 64, count = 0;
    clsort_enqueue enq;
    const clsort_enqueue *e = NULL;
    clsort_scan_desc sd;
    clsort_split_desc pd;
    clsort_sort_desc so;
    clsort_bin_desc bd;
    memset(&enq, 0, sizeof enq);
    memset(&sd, 0, sizeof sd);
    memset(&pd, 0, sizeof pd);
    memset(&so, 0, sizeof so);
    memset(&bd, 0, sizeof bd);
    if (c == A_FOREIGN_QUEUE) {
        enq.queue = foreign_queue;
        e = &enq;
    }
    pd.flags = f == F_ENUMERATE && (alias || c == A_OVERLAP) ? in : flags;
    bd.grid.cells[0] = bd.grid.cells[1] = 4;
    bd.grid.cell_size[0] = bd.grid.cell_size[1] = 0.25f;
    bd.cell_keys = out;
    bd.permutation = aux;
    if (f == F_SORT_PERM) so.permutation = aux;
    if (alias && f == F_SCAN) { /* out == in is in place: desc.total over the input instead */
        sd.total = in;
        out = aux;
    }
    if (alias && f == F_SORT) { /* values_out over keys_in */
        so.values_in = flags;
        so.values_out = in;
        out = aux;
    }
    if (alias && f == F_SORT_PERM) { /* the permutation over keys_in */
        so.permutation = in;
        out = aux;
    }
    switch (f) {
    case F_SCAN: return clsort_scan(ctx, in, out, n, &sd, e);
    case F_ENUMERATE: /* the indices are its only buffer besides the flags */
        return clsort_enumerate(ctx, NULL, c == A_NULL_BUF || c == A_FOREIGN_BUF ? in : out, n, &pd, &count, e);
    case F_PACK: return clsort_pack(ctx, in, out, n, &pd, &count, e);
    case F_SPLIT: return clsort_split(ctx, in, out, n, &pd, &count, e);
    case F_SORT: case F_SORT_PERM: return clsort_sort(ctx, in, out, n, &so, e);
    case F_GATHER: return clsort_gather(ctx, in, out, aux, n, 4, e);
    case F_CELL_KEYS: return clsort_cell_keys(ctx, in, out, n / 2, &bd.grid, e); /* float2 positions */
    case F_CELL_OFFSETS: return clsort_cell_offsets(ctx, in, c == A_OVERFLOW ? 64 : n, n / 2, out, e);
    case F_BITONIC: {
        clsort_bitonic_desc td;
        memset(&td, 0, sizeof td);
        if (alias) { /* the permutation over keys_in (keys in place is allowed) */
            td.permutation = in;
            out = aux;
        }
        return clsort_bitonic_sort(ctx, in, out, n, &td, e);
    }
    case F_NBODY: case F_NBODY_BH: { /* 16 bodies of 16 bytes: positions in, velocities out */
        clsort_nbody_desc nd;
        memset(&nd, 0, sizeof nd);
        nd.dt = 1e-3;
        nd.softening2 = 1e-2;
        if (f == F_NBODY_BH) nd.method = CLSORT_NBODY_BARNES_HUT;
        return clsort_nbody(ctx, in, out, n / 4, &nd, e);
    }
    case F_TREE_BUILD: case F_TREE_ACCEL: {
        /* a tree of the valid context; build: 16 float4 points (the short buffer for A_SMALL); accel:
         * a valid build from the flags buffer first, then the case on the accelerations (16 float4),
         * the context and the queue (its overflow case is the build's: accel takes no count) */
        clsort_tree *tree = NULL;
        clsort_tree_desc td;
        clsort_nbody_desc nd;
        clsort_result r;
        memset(&td, 0, sizeof td);
        memset(&nd, 0, sizeof nd);
        if (clsort_tree_create(cs, &tree) != CLSORT_SUCCESS) return CLSORT_ERROR_OPENCL;
        if (f == F_TREE_BUILD || c == A_OVERFLOW) {
            r = clsort_tree_build(ctx, tree, c == A_SMALL ? out : in, n / 4, &td, e);
        } else {
            r = clsort_tree_build(cs, tree, flags, 16, &td, NULL);
            if (r == CLSORT_SUCCESS)
                r = clsort_tree_accel(ctx, tree, c == A_NULL_BUF || c == A_FOREIGN_BUF ? in : out, &nd, e);
            else r = CLSORT_ERROR_OPENCL; /* the valid build failed: not what the table checks */
        }
        clsort_tree_destroy(tree);
        return r;
    }
    case F_REDUCE: case F_SEGSCAN: case F_SEGREDUCE: {
        /* reduce: the input is the short buffer for A_SMALL; segmented reduce: 8 segments of 8 */
        static const uint32_t off8[9] = {0, 8, 16, 24, 32, 40, 48, 56, 64};
        clsort_reduce_desc rd;
        memset(&rd, 0, sizeof rd);
        if (f == F_REDUCE) { /* its only output is desc.result */
            rd.result = alias || c == A_OVERLAP || c == A_READONLY ? out : aux;
            return clsort_reduce(ctx, c == A_SMALL ? out : in, n, &rd, NULL, e);
        }
        if (f == F_SEGSCAN) { /* in place is allowed: the aliasing output is out over the segment flags */
            rd.segments = CLSORT_SEGMENTS_FLAGS_U32;
            rd.segment_data = alias ? in : flags;
            return clsort_segmented_scan(ctx, alias ? flags : in, out, n, &rd, e);
        }
        rd.segments = CLSORT_SEGMENTS_OFFSETS;
        rd.segment_data_host = off8;
        rd.segment_count = 8;
        return clsort_segmented_reduce(ctx, in, out, n, &rd, e);
    }
    case F_REDUCE_BY_KEY: case F_RLE: case F_UNIQUE: {
        clsort_by_key_desc kd;
        memset(&kd, 0, sizeof kd);
        if (f == F_REDUCE_BY_KEY) return clsort_reduce_by_key(ctx, in, flags, out, aux, n, &kd, &count, e);
        if (f == F_RLE) return clsort_run_length_encode(ctx, in, out, aux, n, &kd, &count, e);
        return clsort_unique(ctx, in, out, n, &kd, &count, e);
    }
    case F_HISTOGRAM: { /* 64 bins: 256 bytes of counts (the short buffer is too small) */
        clsort_histogram_desc hd;
        memset(&hd, 0, sizeof hd);
        hd.bins = 64;
        hd.upper_int = 16;
        return clsort_histogram_even(ctx, in, n, out, &hd, e);
    }
    default: return clsort_bin(ctx, in, n / 2, &bd, e);
    }
}

/* Aliasing beyond the argument table (issue 19): sub-buffers over another
 * argument's bytes, the in place uses that stay allowed, read-only outputs
 * and images, for the functions and arguments the table does not reach. */
static cl_mem sub(cl_mem parent, size_t origin, size_t size)
{
    cl_buffer_region reg;
    cl_int e;
    cl_mem m;
    reg.origin = origin;
    reg.size = size;
    m = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &e);
    check(e == CL_SUCCESS, "clCreateSubBuffer for the aliasing tests", 0, "-", 0, 0, e);
    return m;
}

static void test_aliasing(clsort_context *cs)
{
    enum { B = 4096 };
    unsigned char data[B], back[B];
    cl_uint align_bits = 0;
    size_t al, k;
    cl_mem P, Q, X, Y, ro, s1, s2, s3;
    cl_int e;
    clsort_result r;
    clsort_sort_desc so;
    clsort_bin_desc bd;
    clsort_attribute at[2];
    clsort_nbody_desc nd;
    clsort_by_key_desc kd;
    clsort_bitonic_desc td;
    size_t count = 77;
    int ok;
    for (k = 0; k < B; ++k) data[k] = (unsigned char)(k * 37u >> 3);
    for (k = 0; k < B; k += 4) data[k + 1] = data[k + 2] = data[k + 3] = 0; /* small u32: valid indices, cells */
    clGetDeviceInfo(clsort_cl_device(cs), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    al = align_bits / 8 ? align_bits / 8 : 128;
    P = buffer(cs, B, data);
    Q = buffer(cs, B, data);
    X = buffer(cs, B, data);
    Y = buffer(cs, B, data);
    ro = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, B, data, &e);
    check(e == CL_SUCCESS, "aliasing: read-only buffer", 0, "-", 0, 0, e);
    s1 = sub(P, 0, 1024);                          /* bytes [0, 1024) of P */
    s2 = al < 1024 ? sub(P, al, 1024) : sub(P, 0, 1024); /* overlaps s1 partly (or wholly) */
    s3 = sub(ro, 0, 1024);                         /* inherits read-only */
#define AL_BAD(call, text, label)                                                                              \
    do {                                                                                                       \
        r = (call);                                                                                            \
        check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), text), label, 0, "aliasing", 0, \
              CLSORT_ERROR_INVALID_ARGUMENT, r);                                                               \
        if (r != CLSORT_ERROR_INVALID_ARGUMENT || !strstr(clsort_last_error(cs), text))                        \
            printf("  %s: got %d: %s\n", label, (int)r, clsort_last_error(cs));                               \
    } while (0)
    /* sort: desc.temp over keys_in's bytes; in place through two handles */
    memset(&so, 0, sizeof so);
    {
        size_t tb = 0;
        clsort_sort_temp_size(cs, 64, &so, &tb);
        if (tb <= B - 1024) {
            cl_mem t = sub(P, 0, tb < 1024 ? 1024 : tb);
            so.temp = t;
            AL_BAD(clsort_sort(cs, s2, X, 64, &so, NULL), "shares memory", "sort desc.temp over keys_in (sub-buffers)");
            so.temp = NULL;
            clReleaseMemObject(t);
        }
    }
    AL_BAD(clsort_sort(cs, s1, s2, 64, &so, NULL), "in place needs the same buffer", "sort in place through two handles");
    so.permutation = ro;
    AL_BAD(clsort_sort(cs, X, Y, 64, &so, NULL), "CL_MEM_READ_ONLY", "sort read-only permutation");
    so.permutation = NULL;
    AL_BAD(clsort_sort(cs, X, s3, 64, &so, NULL), "CL_MEM_READ_ONLY", "sort keys_out a sub-buffer of a read-only buffer");
    /* bitonic: the permutation over the segment offsets */
    memset(&td, 0, sizeof td);
    td.segment_offsets = s1;
    td.segment_count = 1;
    td.permutation = s2;
    {
        static const cl_uint off2[2] = {0, 64};
        clEnqueueWriteBuffer(clsort_cl_queue(cs), P, CL_TRUE, 0, 8, off2, 0, NULL, NULL);
        memcpy(data, off2, 8);
    }
    AL_BAD(clsort_bitonic_sort(cs, X, X, 64, &td, NULL), "shares memory", "bitonic permutation over segment_offsets");
    /* bin: attributes */
    memset(&bd, 0, sizeof bd);
    bd.grid.cells[0] = bd.grid.cells[1] = 4;
    bd.grid.cell_size[0] = bd.grid.cell_size[1] = 0.25f;
    bd.cell_keys = Y;
    bd.attributes = at;
    bd.attribute_count = 2;
    memset(at, 0, sizeof at);
    at[0].src = Q; at[0].dst = s1; at[0].elem_size = 4;
    at[1].src = s2; at[1].dst = X; at[1].elem_size = 4;
    AL_BAD(clsort_bin(cs, Q, 64, &bd, NULL), "shares memory", "bin attribute dst over another's src (sub-buffers)");
    at[1].src = Q; at[1].dst = s2;
    AL_BAD(clsort_bin(cs, Q, 64, &bd, NULL), "both are outputs", "bin two attribute dsts over one buffer's bytes");
    at[1].dst = ro;
    AL_BAD(clsort_bin(cs, Q, 64, &bd, NULL), "CL_MEM_READ_ONLY", "bin read-only attribute dst");
    bd.attribute_count = 0;
    bd.cell_offsets = s3;
    AL_BAD(clsort_bin(cs, Q, 64, &bd, NULL), "CL_MEM_READ_ONLY", "bin read-only cell_offsets (sub-buffer)");
    bd.cell_offsets = NULL;
    /* nbody: accelerations over positions, velocities over positions, read-only */
    memset(&nd, 0, sizeof nd);
    nd.dt = 1e-3;
    nd.softening2 = 1e-2;
    AL_BAD(clsort_nbody_accel(cs, s1, s2, 16, &nd, NULL), "shares memory", "nbody_accel sub-buffers over one buffer");
    AL_BAD(clsort_nbody_accel(cs, X, ro, 16, &nd, NULL), "CL_MEM_READ_ONLY", "nbody_accel read-only accelerations");
    AL_BAD(clsort_nbody(cs, s1, s2, 16, &nd, NULL), "both are outputs", "nbody positions and velocities over one buffer");
    AL_BAD(clsort_nbody(cs, ro, X, 16, &nd, NULL), "CL_MEM_READ_ONLY", "nbody read-only positions (written)");
    {
        clsort_context_desc cd;
        clsort_context *c2 = NULL;
        memset(&cd, 0, sizeof cd);
        cd.context = clsort_cl_context(cs);
        cd.device = clsort_cl_device(cs);
        if (clsort_create(&c2, &cd) == CLSORT_SUCCESS) {
            clsort_nbody_part parts[2];
            memset(parts, 0, sizeof parts);
            parts[0].ctx = cs; parts[0].positions = s1; parts[0].velocities = X;
            parts[1].ctx = c2; parts[1].positions = Q; parts[1].velocities = s2;
            AL_BAD(clsort_nbody_multi(parts, 2, 16, &nd), "share memory", "nbody_multi parts over one buffer");
            parts[1].velocities = ro;
            AL_BAD(clsort_nbody_multi(parts, 2, 16, &nd), "CL_MEM_READ_ONLY", "nbody_multi read-only velocities");
        } else {
            check(0, "aliasing: second context", 0, "-", 0, 0, 0);
        }
        clsort_destroy(c2);
    }
    /* the reduction family: desc.count over keys_in, in place through two handles */
    memset(&kd, 0, sizeof kd);
    kd.count = s2;
    AL_BAD(clsort_unique(cs, s1, X, 64, &kd, &count, NULL), "shares memory", "unique desc.count over keys_in");
    kd.count = ro;
    AL_BAD(clsort_run_length_encode(cs, X, Y, Q, 64, &kd, &count, NULL), "CL_MEM_READ_ONLY", "rle read-only desc.count");
    kd.count = NULL;
    {
        clsort_reduce_desc rd;
        memset(&rd, 0, sizeof rd);
        AL_BAD(clsort_segmented_scan(cs, s1, s2, 64, &rd, NULL), "in place needs the same buffer",
               "segmented scan in place through two handles");
        rd.result = s2;
        AL_BAD(clsort_reduce(cs, s1, 64, &rd, NULL, NULL), "shares memory", "reduce desc.result inside in");
    }
    /* an image is not a buffer */
    {
        cl_bool images = CL_FALSE;
        clGetDeviceInfo(clsort_cl_device(cs), CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL);
        if (images) {
            cl_image_format fmt;
            cl_image_desc idesc;
            cl_mem img;
            fmt.image_channel_order = CL_R;
            fmt.image_channel_data_type = CL_UNSIGNED_INT32;
            memset(&idesc, 0, sizeof idesc);
            idesc.image_type = CL_MEM_OBJECT_IMAGE2D;
            idesc.image_width = 64;
            idesc.image_height = 4;
            img = clCreateImage(clsort_cl_context(cs), CL_MEM_READ_WRITE, &fmt, &idesc, NULL, &e);
            if (e == CL_SUCCESS) {
                AL_BAD(clsort_gather(cs, X, img, Y, 64, 4, NULL), "image", "gather dst an image");
                clReleaseMemObject(img);
            }
        }
    }
    /* allowed: in place with the same handle, and inputs sharing memory */
    memset(&so, 0, sizeof so);
    r = clsort_sort(cs, Q, Q, 64, &so, NULL);
    check(r == CLSORT_SUCCESS, "sort in place (the same handle) allowed", 64, "-", 0, 0, r);
    r = clsort_gather(cs, s1, X, s2, 64, 4, NULL); /* src and indices over one buffer: both read */
    check(r == CLSORT_SUCCESS, "gather src and indices over one buffer allowed", 64, "-", 0, 0, r);
    at[0].src = at[0].dst = Y; at[0].elem_size = 4;
    bd.attribute_count = 1;
    bd.cell_keys = X;
    {
        cl_mem pos = buffer(cs, 512, NULL);
        float pf[128];
        for (k = 0; k < 128; ++k) pf[k] = (float)(k % 7) / 7.0f;
        clEnqueueWriteBuffer(clsort_cl_queue(cs), pos, CL_TRUE, 0, 512, pf, 0, NULL, NULL);
        at[1].src = at[1].dst = pos; at[1].elem_size = 8;
        bd.attribute_count = 2;
        r = clsort_bin(cs, pos, 64, &bd, NULL); /* attributes in place, one of them the positions */
        check(r == CLSORT_SUCCESS, "bin attributes in place (one over positions) allowed", 64, "-", 0, 0, r);
        if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
        clReleaseMemObject(pos);
    }
    /* the refused calls changed nothing (P and ro; X, Y and Q were written by the allowed calls) */
    ok = 1;
    download(cs, P, B, back); ok = ok && memcmp(back, data, B) == 0;
    check(ok, "aliasing: refused calls leave the buffers unchanged", 0, "-", 0, 0, 0);
    ok = 1;
    download(cs, ro, B, back);
    for (k = 0; k < B; ++k) ok = ok && (k < 8 || back[k] == data[k]);
    check(ok, "aliasing: read-only buffers unchanged", 0, "-", 0, 0, 0);
    check(count == 77, "aliasing: *count untouched by refused calls", 0, "-", 0, 77, (double)count);
#undef AL_BAD
    clReleaseMemObject(s1); clReleaseMemObject(s2); clReleaseMemObject(s3);
    clReleaseMemObject(P); clReleaseMemObject(Q); clReleaseMemObject(X); clReleaseMemObject(Y);
    clReleaseMemObject(ro);
}

/* Messages name the public function, the argument and the size (issue 19):
 * host staging past the device's largest allocation, device offsets the host
 * may not read, a queue check, an aliasing refusal. */
static void test_messages(clsort_context *cs)
{
    cl_ulong max_alloc = 0;
    uint64_t tiny[4] = {1, 2, 3, 4};
    clsort_result r;
    char want[96];
    const char *msg;
    clGetDeviceInfo(clsort_cl_device(cs), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    if (max_alloc > 0 && max_alloc / 8 + 1 < ((size_t)-1) / 8) {
        /* clCreateBuffer fails (CL_INVALID_BUFFER_SIZE) before the host array is read */
        size_t n = (size_t)(max_alloc / 8 + 1);
        r = clsort_scan_host(cs, CLSORT_U64, 0, tiny, tiny, n, NULL);
        msg = clsort_last_error(cs);
        snprintf(want, sizeof want, "%lu bytes", (unsigned long)(n * 8));
        check(r == CLSORT_ERROR_OPENCL && strncmp(msg, "clsort_scan_host: ", 18) == 0 && strstr(msg, "of in") &&
                  strstr(msg, want) && strstr(msg, "CL_"),
              "message: host staging names the function, the array and the bytes", 0, msg, 0, 0, r);
        printf("    e.g. %s\n", msg);
    }
    {
        cl_int e;
        uint32_t off[3] = {0, 10, 64}, keys[64];
        cl_mem doff = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS | CL_MEM_COPY_HOST_PTR,
                                     sizeof off, off, &e);
        cl_mem k = buffer(cs, sizeof keys, NULL);
        clsort_bitonic_desc bd;
        memset(&bd, 0, sizeof bd);
        bd.segment_offsets = doff;
        bd.segment_count = 2;
        r = clsort_bitonic_sort(cs, k, k, 64, &bd, NULL);
        msg = clsort_last_error(cs);
        check(r == CLSORT_ERROR_INVALID_ARGUMENT && strncmp(msg, "clsort_bitonic_sort: desc.segment_offsets", 41) == 0 &&
                  strstr(msg, "CL_MEM_HOST_NO_ACCESS") && strstr(msg, "12 bytes"),
              "message: bitonic offsets the host cannot read", 0, msg, 0, 0, r);
        clReleaseMemObject(doff);
        clReleaseMemObject(k);
    }
    {
        clsort_enqueue enq;
        cl_mem a = buffer(cs, 64, NULL);
        clsort_scan_desc sd;
        memset(&enq, 0, sizeof enq);
        memset(&sd, 0, sizeof sd);
        {
            cl_int e;
            cl_command_queue q = clCreateCommandQueue(clsort_cl_context(cs), clsort_cl_device(cs),
                                                      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &e);
            if (e == CL_SUCCESS) {
                enq.queue = q;
                r = clsort_scan(cs, a, a, 16, &sd, &enq);
                msg = clsort_last_error(cs);
                check(r == CLSORT_ERROR_INVALID_ARGUMENT && strncmp(msg, "clsort_scan: ", 13) == 0 &&
                          strstr(msg, "in-order"),
                      "message: an out-of-order per-call queue names the function", 0, msg, 0, 0, r);
                clReleaseCommandQueue(q);
            }
        }
        sd.total = a;
        enq.queue = NULL;
        {
            cl_mem b = buffer(cs, 64, NULL);
            r = clsort_scan(cs, a, b, 16, &sd, NULL);
            clReleaseMemObject(b);
        }
        msg = clsort_last_error(cs);
        check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(msg, "clsort_scan: the output desc.total shares memory with in"),
              "message: aliasing names both arguments", 0, msg, 0, 0, r);
        clReleaseMemObject(a);
    }
}

/* Issue 19 item 4: scratch growth stops at CL_DEVICE_MAX_MEM_ALLOC_SIZE (the
 * device profile's max_alloc, lowered here to 1 MiB: PoCL's real limit is the
 * host's memory); item 10: clsort_nbody_multi with no parts touches no
 * context's message. */
static void test_limits(clsort_context *cs)
{
    clsort_context *c2 = NULL;
    clsort_nbody_desc nd;
    clsort_nbody_part part;
    cl_mem m = NULL;
    size_t size = 0;
    clsort_result r;
    if (clsort_create(&c2, NULL) == CLSORT_SUCCESS) {
        c2->dev.max_alloc = (cl_ulong)1 << 20;
        r = clsort__scratch(c2, "test: capped", 600 * 1024, &m);
        r = r == CLSORT_SUCCESS ? clsort__scratch(c2, "test: capped", 700 * 1024, &m) : r;
        if (r == CLSORT_SUCCESS) clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, NULL);
        check(r == CLSORT_SUCCESS && size >= 700 * 1024 && size <= ((size_t)1 << 20),
              "scratch growth (600 KiB, then 700 KiB) capped at max_alloc 1 MiB", 0, "-", 0, 1 << 20, (double)size);
    } else {
        check(0, "clsort_create for the scratch cap", 0, "-", 0, 0, 0);
    }
    clsort_destroy(c2);
    memset(&nd, 0, sizeof nd);
    memset(&part, 0, sizeof part);
    part.ctx = cs;
    clsort_scan(cs, NULL, NULL, 5, NULL, NULL); /* leaves a message */
    {
        static char before[8192];
        snprintf(before, sizeof before, "%s", clsort_last_error(cs));
        r = clsort_nbody_multi(&part, 0, 16, &nd);
        check(r == CLSORT_ERROR_INVALID_ARGUMENT && before[0] && strcmp(before, clsort_last_error(cs)) == 0,
              "nbody_multi with 0 parts: an error, no context's message touched", 0, "-", 0, 0, r);
    }
}

static void test_argument_table(clsort_context *cs)
{
    uint32_t data[64], back[64];
    clsort_context *other = NULL;
    cl_mem big, out, small, flags, aux, foreign, parent, lo, hi, ro;
    cl_mem all[8];
    cl_buffer_region reg;
    cl_int err;
    int f, c, k;
    for (k = 0; k < 64; ++k) data[k] = (uint32_t)k * 2654435761u >> 28; /* small values: valid indices, cells */
    if (clsort_create(&other, NULL) != CLSORT_SUCCESS) { /* a second OpenCL context */
        check(0, "argument table: second context", 0, "-", 0, 0, 0);
        clsort_destroy(other);
        return;
    }
    big = buffer(cs, 256, data);
    out = buffer(cs, 256, data);
    small = buffer(cs, 16, data);
    flags = buffer(cs, 256, data);
    aux = buffer(cs, 256, data);
    foreign = buffer(other, 256, data);
    parent = buffer(cs, 256, data); /* lo and hi: two handles over its 256 bytes */
    reg.origin = 0;
    reg.size = 256;
    lo = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    check(err == CL_SUCCESS, "argument table: sub-buffer", 0, "-", 0, 0, err);
    hi = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    check(err == CL_SUCCESS, "argument table: second sub-buffer", 0, "-", 0, 0, err);
    ro = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, 256, data, &err);
    check(err == CL_SUCCESS, "argument table: read-only buffer", 0, "-", 0, 0, err);
    all[0] = big; all[1] = out; all[2] = small; all[3] = flags; all[4] = aux; all[5] = foreign; all[6] = parent;
    all[7] = ro;
    for (f = 0; f < F_FUNCS; ++f)
        for (c = 0; c < A_COUNT; ++c) {
            char what[160];
            clsort_result r, want = CLSORT_ERROR_INVALID_ARGUMENT;
            cl_mem in = c == A_NULL_BUF ? NULL : c == A_FOREIGN_BUF ? foreign : c == A_OVERLAP ? lo : big;
            cl_mem o = c == A_SMALL ? small : c == A_ALIAS ? in : c == A_OVERLAP ? hi : c == A_READONLY ? ro : out;
            const char *text;
            int ok = 1;
            for (k = 0; k < 8; ++k) { /* every buffer back to the data */
                clsort_context *owner = all[k] == foreign ? other : cs;
                clEnqueueWriteBuffer(clsort_cl_queue(owner), all[k], CL_TRUE, 0, all[k] == small ? 16 : 256, data, 0,
                                     NULL, NULL);
            }
            r = call_with(f, c, cs, in, o, flags, aux, clsort_cl_queue(other));
            clFinish(clsort_cl_queue(cs));
            /* the cases made for them must fail for that reason: the message says so */
            text = c >= A_ALIAS || c == A_NULL_BUF || c == A_FOREIGN_BUF || c == A_FOREIGN_QUEUE ? arg_case_text[c]
                                                                                                 : NULL;
            snprintf(what, sizeof what, "%s, %s: error code and message", fn_names[f], arg_case_names[c]);
            check(r == want && (c == A_NULL_CTX || clsort_last_error(cs)[0] != '\0') &&
                      (!text || strstr(clsort_last_error(cs), text)),
                  what, 0, "argument-table", 0, want, r);
            if (r != want || (c != A_NULL_CTX && !clsort_last_error(cs)[0]) ||
                (text && !strstr(clsort_last_error(cs), text)))
                printf("  got %d: %s\n", (int)r, clsort_last_error(cs));
            for (k = 0; k < 8; ++k) {
                clsort_context *owner = all[k] == foreign ? other : cs;
                size_t bytes = all[k] == small ? 16 : 256;
                download(owner, all[k], bytes, back);
                ok = ok && memcmp(back, data, bytes) == 0;
            }
            snprintf(what, sizeof what, "%s, %s: every buffer unchanged", fn_names[f], arg_case_names[c]);
            check(ok, what, 0, "argument-table", 0, 0, 0);
        }
    clReleaseMemObject(big); clReleaseMemObject(out); clReleaseMemObject(small);
    clReleaseMemObject(flags); clReleaseMemObject(aux); clReleaseMemObject(foreign);
    clReleaseMemObject(lo); clReleaseMemObject(hi); clReleaseMemObject(parent); clReleaseMemObject(ro);
    clsort_destroy(other);
}

/* ---- bitonic sort ---- */

enum { G_ONE, G_EQUAL, G_DEV, G_HOST, G_COUNT };
static const char *seg_names[] = {"one-segment", "equal-segments", "device-offsets", "host-offsets"};

/* Random segment offsets over n keys: empty, 1-key, short, about a tile and
 * longer than a tile (2048 keys on CPUs) segments. Returns the count. */
static size_t bt_short_max; /* nonzero: every segment 0 .. bt_short_max keys */

static size_t random_offsets(uint32_t *off, size_t max_segs, size_t n)
{
    size_t s = 0, at = 0;
    off[0] = 0;
    while (at < n && s + 2 < max_segs) {
        uint64_t r = rnd64(), len;
        switch (bt_short_max ? 8 : r % 8) {
        case 8: len = (r >> 8) % (bt_short_max + 1); break;
        case 0: len = 0; break;
        case 1: len = 1; break;
        case 2: case 3: len = (r >> 8) % 40; break;
        case 4: case 5: len = (r >> 8) % 3000; break;
        case 6: len = 2048 + (r >> 8) % 3; break;
        default: len = (r >> 8) % 12000; break;
        }
        if (len > n - at) len = n - at;
        at += (size_t)len;
        off[++s] = (uint32_t)at;
    }
    if (at < n) off[++s] = (uint32_t)n;
    return s;
}

/* One bitonic call against the stable reference (the bitonic sort breaks ties
 * by input index whenever an index moves, so the output is exact). */
static void test_bitonic_case(clsort_context *cs, clsort_type t, size_t n, int d, int descending, int mode,
                              int in_place, int segs, size_t seg_len)
{
    static const char *tn[] = {"u32", "i32", "f32", "u64", "i64", "f64"};
    size_t ks = clsort_type_size(t), vs = mode == M_VAL4 ? 4 : 8, i, s, nseg = 1;
    int has_vals = mode == M_VAL4 || mode == M_VAL8 || mode == M_PERM_VAL8, has_perm = mode >= M_PERM;
    unsigned char *keys = (unsigned char *)malloc(n * ks + 8), *out = (unsigned char *)malloc(n * ks + 8);
    unsigned char *vals = (unsigned char *)malloc(n * vs + 8), *vout = (unsigned char *)malloc(n * vs + 8);
    uint32_t *idx = (uint32_t *)malloc(n * 4 + 4), *perm = (uint32_t *)malloc(n * 4 + 4);
    uint32_t *off = (uint32_t *)malloc((n + 3) * 4 + 8);
    cl_mem kin, kout, vin = NULL, vout_m = NULL, pm = NULL, doff = NULL;
    clsort_bitonic_desc bd;
    clsort_result r;
    char what[200];
    for (i = 0; i < n; ++i) {
        uint64_t k = sort_key(t, d, i, n), v = rnd64();
        if (ks == 4) ((uint32_t *)keys)[i] = (uint32_t)k; else ((uint64_t *)keys)[i] = k;
        if (vs == 4) ((uint32_t *)vals)[i] = (uint32_t)v; else ((uint64_t *)vals)[i] = v;
        idx[i] = (uint32_t)i;
    }
    memset(&bd, 0, sizeof bd);
    bd.type = t;
    bd.descending = descending;
    off[0] = 0; off[1] = (uint32_t)n;
    if (segs == G_EQUAL) {
        nseg = n / seg_len;
        for (s = 0; s <= nseg; ++s) off[s] = (uint32_t)(s * seg_len);
        bd.segment_length = seg_len;
        bd.segment_count = (s & 1) ? nseg : 0; /* 0 = n / segment_length */
    } else if (segs == G_DEV || segs == G_HOST) {
        nseg = random_offsets(off, n + 3, n);
        bd.segment_count = nseg;
        if (segs == G_DEV) bd.segment_offsets = doff = buffer(cs, (nseg + 1) * 4, off);
        else bd.segment_offsets_host = off;
    }
    ref.t = t; ref.keys = keys; ref.by_range = 0; ref.descending = descending;
    for (s = 0; s < nseg; ++s)
        if (off[s + 1] - off[s] > 1) qsort(idx + off[s], off[s + 1] - off[s], 4, ref_cmp);
    kin = buffer(cs, n * ks, keys);
    kout = in_place ? kin : buffer(cs, n * ks, NULL);
    if (has_vals) {
        vin = buffer(cs, n * vs, vals);
        vout_m = in_place ? vin : buffer(cs, n * vs, NULL);
        bd.values_in = vin; bd.values_out = vout_m; bd.value_size = vs == 4 && (n & 1) ? 0 : vs; /* 0 = 4 */
    }
    if (has_perm) bd.permutation = pm = buffer(cs, n * 4, NULL);
    snprintf(what, sizeof what, "bitonic %s %s %s %s L=%lu segs=%lu%s", tn[t], mode_names[mode],
             descending ? "descending" : "ascending", seg_names[segs], (unsigned long)seg_len, (unsigned long)nseg,
             in_place ? " in-place" : "");
#ifdef BITONIC_VERBOSE
    printf("CASE %s n=%lu\n", what, (unsigned long)n);
    fflush(stdout);
#endif
    r = clsort_bitonic_sort(cs, kin, kout, n, &bd, NULL);
    if (r != CLSORT_SUCCESS) printf("  %s: %s\n", what, clsort_last_error(cs));
    check(r == CLSORT_SUCCESS, what, n, sort_dist_names[d], 0, 0, r);
    check_sort_results(cs, "bitonic", "bitonic permutation (input index, ties in input order)", what, n, d, ks, vs, keys, vals, idx, has_perm, has_vals, in_place, kin, kout,
                       vin, vout_m, pm, out, vout, perm);
    release_sort_buffers(kin, kout, vin, vout_m, pm, doff, in_place);
    free(keys); free(out); free(vals); free(vout); free(idx); free(perm); free(off);
}

/* Zero-one principle: a comparator network sorts every input iff it sorts
 * every 0/1 input. All 2^m 0/1 inputs of length m as 2^m equal segments of
 * length m in one batched call (and as variable segments through the
 * offsets path). Descending on odd m. */
static void test_bitonic_zero_one(clsort_context *cs, unsigned m, int with_offsets, const char *shape)
{
    size_t nseg = (size_t)1 << m, n = nseg * m, s, j, bad = (size_t)-1;
    uint32_t *keys = (uint32_t *)malloc(n * 4), *off = (uint32_t *)malloc((nseg + 1) * 4), *o = (uint32_t *)malloc(n * 4);
    int desc = (int)(m & 1), pass;
    cl_mem k;
    char what[96];
    for (s = 0; s < nseg; ++s)
        for (j = 0; j < m; ++j) keys[s * m + j] = (uint32_t)((s >> j) & 1) * 0x80000001u;
    for (s = 0; s <= nseg; ++s) off[s] = (uint32_t)(s * m);
    k = buffer(cs, n * 4, NULL);
    for (pass = 0; pass < (with_offsets ? 2 : 1); ++pass) {
        clsort_bitonic_desc bd;
        memset(&bd, 0, sizeof bd);
        bd.descending = desc;
        if (pass == 0) bd.segment_length = m;
        else bd.segment_offsets_host = off, bd.segment_count = nseg;
        clEnqueueWriteBuffer(clsort_cl_queue(cs), k, CL_TRUE, 0, n * 4, keys, 0, NULL, NULL);
        snprintf(what, sizeof what, "bitonic zero-one m=%u %s tile %s", m, pass ? "offsets" : "equal", shape);
        check(clsort_bitonic_sort(cs, k, k, n, &bd, NULL) == CLSORT_SUCCESS, what, n, "zero-one", 0, 0, 0);
        download(cs, k, n * 4, o);
        for (s = 0, bad = (size_t)-1; s < nseg && bad == (size_t)-1; ++s) {
            unsigned ones = 0;
            for (j = 0; j < m; ++j) ones += (unsigned)((s >> j) & 1);
            for (j = 0; j < m; ++j) {
                int one = desc ? j < ones : j >= m - ones;
                if (o[s * m + j] != (one ? 0x80000001u : 0u)) { bad = s * m + j; break; }
            }
        }
        check(bad == (size_t)-1, what, n, "zero-one", bad, 0, bad < n ? o[bad] : 0);
    }
    clReleaseMemObject(k);
    free(keys); free(off); free(o);
}

static void test_bitonic_arguments(clsort_context *cs)
{
    uint32_t data[64], back[64], off_bad[5] = {0, 10, 5, 40, 64}, off_past[5] = {0, 10, 20, 40, 65};
    uint32_t off_first[5] = {1, 10, 20, 40, 64}, off_ok[5] = {0, 10, 20, 40, 64};
    uint32_t hk[9] = {5, 3, 9, 3, 0, 7, 3, 1, 2}, hv[9], hp[9];
    static const uint32_t want_k[9] = {0, 1, 2, 3, 3, 3, 5, 7, 9}, want_p[9] = {4, 7, 8, 1, 3, 6, 0, 5, 2};
    float hf[6] = {1.5f, -0.0f, 0.0f, -2.0f, 1e30f, -1e30f};
    cl_mem small, a, b, c, dbad, dpast, dfirst;
    clsort_bitonic_desc bd;
    size_t i;
    int ok;
    for (i = 0; i < 64; ++i) data[i] = (uint32_t)i * 2654435761u;
    for (i = 0; i < 9; ++i) hv[i] = 100 + (uint32_t)i;
    small = buffer(cs, 16, data);
    a = buffer(cs, 256, data);
    b = buffer(cs, 256, data);
    c = buffer(cs, 256, data);
    dbad = buffer(cs, 20, off_bad);
    dpast = buffer(cs, 20, off_past);
    dfirst = buffer(cs, 20, off_first);
    memset(&bd, 0, sizeof bd);
    EXPECT_ERR(clsort_bitonic_sort(cs, NULL, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bitonic NULL keys_in");
    EXPECT_ERR(clsort_bitonic_sort(cs, a, NULL, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bitonic NULL keys_out");
    EXPECT_ERR(clsort_bitonic_sort(cs, a, small, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic keys_out too small");
    bd.type = (clsort_type)42;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bitonic unknown type");
    bd.type = CLSORT_U32; bd.descending = 2;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bitonic descending 2");
    bd.descending = 0; bd.values_in = c;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic values_in without values_out");
    bd.values_out = c; bd.value_size = 3;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bitonic value_size 3");
    bd.value_size = 4; bd.values_out = b;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic values_out == keys_out");
    bd.values_out = a;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic values_out == keys_in");
    memset(&bd, 0, sizeof bd);
    bd.permutation = b;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic permutation == keys_out");
    bd.permutation = small;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic permutation too small");
    memset(&bd, 0, sizeof bd);
    bd.segment_length = 7;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic n not a multiple of segment_length");
    check(strstr(clsort_last_error(cs), "multiple") != NULL, "bitonic segment_length message", 0, "-", 0, 0, 0);
    bd.segment_length = 8; bd.segment_count = 7;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic segment_count * segment_length != n");
    bd.segment_offsets = dbad; bd.segment_count = 4;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic segment_length and offsets");
    bd.segment_length = 0;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic device offsets out of order");
    check(strstr(clsort_last_error(cs), "decrease") != NULL, "bitonic offsets-order message", 0, "-", 0, 0, 0);
    bd.segment_offsets = dpast;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic device offsets past n");
    bd.segment_offsets = dfirst;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic device offsets not starting at 0");
    bd.segment_offsets = dbad; bd.segment_count = 5;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic offsets buffer too small for segment_count");
    bd.segment_offsets = b; bd.segment_count = 4;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic offsets == keys_out");
    bd.segment_offsets = c; bd.permutation = c;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic offsets == permutation");
    bd.segment_offsets = b; bd.permutation = NULL;
    bd.segment_offsets_host = off_ok;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic device and host offsets");
    bd.segment_offsets = NULL; bd.segment_offsets_host = off_past;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic host offsets past n");
    memset(&bd, 0, sizeof bd);
    bd.segment_count = 4;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic segment_count without segments");
    bd.segment_count = 0; bd.segment_offsets_host = off_bad; bd.segment_count = 4;
    EXPECT_ERR(clsort_bitonic_sort_host(cs, data, NULL, NULL, 64, &bd), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic_host offsets out of order");
    download(cs, a, 256, back);
    ok = memcmp(back, data, 256) == 0;
    download(cs, b, 256, back);
    ok = ok && memcmp(back, data, 256) == 0;
    download(cs, c, 256, back);
    ok = ok && memcmp(back, data, 256) == 0;
    download(cs, small, 16, back);
    ok = ok && memcmp(back, data, 16) == 0;
    for (i = 0; i < 64; ++i) ok = ok && data[i] == (uint32_t)i * 2654435761u;
    check(ok, "bitonic errors leave every buffer untouched", 0, "bad-argument", 0, 0, 0);
    memset(&bd, 0, sizeof bd);
    check(clsort_bitonic_sort(cs, NULL, NULL, 0, &bd, NULL) == CLSORT_SUCCESS, "bitonic n=0 NULL buffers", 0, "-", 0,
          0, 0);
    check(clsort_bitonic_sort_host(cs, hk, hv, hp, 9, NULL) == CLSORT_SUCCESS && memcmp(hk, want_k, sizeof hk) == 0 &&
          memcmp(hp, want_p, sizeof hp) == 0 && hv[0] == 104 && hv[8] == 102,
          "bitonic_host keys + values + permutation", 9, "-", 0, 0, 0);
    bd.type = CLSORT_F32; bd.descending = 1;
    check(clsort_bitonic_sort_host(cs, hf, NULL, NULL, 6, &bd) == CLSORT_SUCCESS && hf[0] == 1e30f && hf[1] == 1.5f &&
          hf[2] == 0.0f && !signbit(hf[2]) && signbit(hf[3]) && hf[4] == -2.0f && hf[5] == -1e30f,
          "bitonic_host f32 descending, +0 before -0", 6, "-", 0, 0, 0);
    clReleaseMemObject(small); clReleaseMemObject(a); clReleaseMemObject(b); clReleaseMemObject(c);
    clReleaseMemObject(dbad); clReleaseMemObject(dpast); clReleaseMemObject(dfirst);
}


/* Every key type, order, mode and segmentation; the zero-one check on the
 * device's tile and on tiny tiles (2 x 1, 2 x 2 keys), which push every
 * stride through the global passes (fused 1 to 4 steps, mirror steps). */
static void test_bitonic(clsort_context *cs, int quick, int tiny)
{
    static const size_t sizes[] = {4194304, 1048577, 65537, 8193, 4097, 4096, 2049, 2048, 2047, 1025, 1024, 1023,
                                   257, 256, 255, 65, 64, 63, 33, 32, 31, 5, 3, 2, 1, 0};
    static const size_t lens[] = {5000, 2049, 2048, 1024, 1000, 100, 16, 7, 3, 2, 1};
    clsort_context *t21 = NULL, *t22 = NULL;
    size_t s, rot = 0, L;
    unsigned m;
    int t, d, g;
    size_t max_n = tiny ? 50000 : quick ? 65537 : (size_t)1 << 22;
    printf("  bitonic sort...\n");
    fflush(stdout);
    /* first the largest scratch the context will need (index, values copy) */
    test_bitonic_case(cs, CLSORT_U64, max_n, S_RANDOM, 1, M_PERM_VAL8, 1, G_DEV, 0);
    test_bitonic_case(cs, CLSORT_U32, 50000, S_EXTREMES, 1, M_VAL4, 0, G_DEV, 0);
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        size_t n = sizes[s];
        if (n > (tiny ? 4097 : quick ? 65537 : (size_t)1 << 22)) continue;
        for (t = CLSORT_U32; t < T_WIDE_END; ++t)
            for (d = 0; d < S_COUNT; ++d) {
                int mode = (int)(rot % M_COUNT);
                if (d == S_SPECIALS && t != CLSORT_F32 && t != CLSORT_F64) continue;
                if (tiny && d != S_RANDOM && d != S_SPECIALS) continue;
                if (n > 70000 && (t != CLSORT_U32 && t != CLSORT_F32)) continue;
                if (n > 70000 && d != S_RANDOM && d != S_SPECIALS) continue;
                if (n > 5000 && t != CLSORT_U32 && t != CLSORT_F32 && t != CLSORT_U64 && d != S_RANDOM) continue;
                ++rot;
                g = (int)(rot % G_COUNT);
                L = lens[rot % (sizeof lens / sizeof lens[0])];
                if (g == G_EQUAL && (n == 0 || n % L != 0)) L = n % 7 == 0 && n ? 7 : n % 3 == 0 && n ? 3 : 1;
                if (n > 1200000) g = d == S_RANDOM ? G_ONE : G_EQUAL, L = 1024;
                test_bitonic_case(cs, (clsort_type)t, n, d, (int)(rot / 5 % 2), mode, (int)(rot % 3 == 1), g,
                                  g == G_EQUAL ? L : 0);
            }
    }
    /* many short variable segments: work-groups packed up to their segment cap */
    for (L = 2; L <= 40; L = L * 3 + 1) { /* 2, 7, 22 */
        bt_short_max = L;
        test_bitonic_case(cs, CLSORT_U32, tiny ? 3000 : 30000, S_RANDOM, (int)(L & 1), L == 7 ? M_PERM : M_KEYS, 0,
                          L == 22 ? G_HOST : G_DEV, 0);
        test_bitonic_case(cs, CLSORT_F64, tiny ? 1000 : 10000, S_SPECIALS, 0, M_VAL4, 1, G_HOST, 0);
    }
    bt_short_max = 0;
    /* equal segments of every kind of length, short and long */
    for (s = 0; s < sizeof lens / sizeof lens[0] && !tiny; ++s) {
        L = lens[s];
        test_bitonic_case(cs, CLSORT_U32, L * (quick ? 5 : 13), S_RANDOM, (int)(s & 1), (int)(s % M_COUNT), 0, G_EQUAL, L);
        test_bitonic_case(cs, CLSORT_F64, L * 3, S_SPECIALS, (int)(~s & 1), M_PERM, (int)(s & 1), G_EQUAL, L);
    }
    if (!tiny) { /* a small tile: long segments through every global pass */
        clsort_context *t44 = tile_context(cs, 4, 4);
        if (t44) {
            test_bitonic_case(t44, CLSORT_U32, 20000, S_FEW, 0, M_PERM_VAL8, 0, G_EQUAL, 500);
            test_bitonic_case(t44, CLSORT_F32, 20000, S_SPECIALS, 1, M_VAL4, 1, G_DEV, 0);
            test_bitonic_case(t44, CLSORT_I64, 20000, S_RANDOM, 0, M_PERM, 0, G_HOST, 0);
            for (t = CLSORT_U32; t < T_WIDE_END; ++t)
                test_bitonic_case(t44, (clsort_type)t, 3001, S_RANDOM, t & 1, t % M_COUNT, t == 2, G_ONE, 0);
        }
        clsort_destroy(t44);
    }
    t21 = tile_context(cs, 2, 1);
    t22 = tile_context(cs, 2, 2);
    for (m = tiny ? 6 : quick ? 12 : 16; m >= 1; --m) {
        test_bitonic_zero_one(cs, m, 1, "device");
        if (m > 12) continue;
        if (t21) test_bitonic_zero_one(t21, m, !tiny, "2x1");
        if (t22) test_bitonic_zero_one(t22, m, 0, "2x2");
    }
    clsort_destroy(t21);
    clsort_destroy(t22);
    test_bitonic_arguments(cs);
}

/* ---- N-body ---- */

/* Positions (x, y, z, m) and velocities of a Plummer sphere of n bodies, total
 * mass M, scale radius 1, G = 1, isotropic velocities from the distribution
 * function (Aarseth, Henon & Wielen 1974), as floats. */
static double urand(void) { return (double)(rnd64() >> 11) / 9007199254740992.0; }
static void plummer(float *pos, float *vel, size_t n, double M)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        double r, x, y, q, ve, z, c, ph, s, v;
        do r = 1.0 / sqrt(pow(urand() * 0.999 + 1e-9, -2.0 / 3.0) - 1.0); while (r > 20.0);
        z = 2.0 * urand() - 1.0; ph = 6.283185307179586 * urand(); s = sqrt(1.0 - z * z);
        pos[4 * i] = (float)(r * s * cos(ph)); pos[4 * i + 1] = (float)(r * s * sin(ph)); pos[4 * i + 2] = (float)(r * z);
        pos[4 * i + 3] = (float)(M / (double)n);
        do { x = urand(); y = urand() * 0.1; } while (y > x * x * pow(1.0 - x * x, 3.5));
        q = x; ve = sqrt(2.0 * M) * pow(1.0 + r * r, -0.25); v = q * ve;
        c = 2.0 * urand() - 1.0; ph = 6.283185307179586 * urand(); s = sqrt(1.0 - c * c);
        vel[4 * i] = (float)(v * s * cos(ph)); vel[4 * i + 1] = (float)(v * s * sin(ph)); vel[4 * i + 2] = (float)(v * c);
        vel[4 * i + 3] = 0.0f;
    }
}

/* The O(N^2) reference in double from the float inputs: acc = G * a_i, and
 * per component S = G * sum_j |m_j d_c / (r^2 + eps2)^1.5| for the bound. */
static void ref_accel_row(const float *pos, size_t n, size_t i, double eps2, double G, double acc[3], double S[3])
{
    size_t j;
    int c;
    for (c = 0; c < 3; ++c) acc[c] = S[c] = 0.0;
    for (j = 0; j < n; ++j) {
        double d[3], r2 = eps2, f;
        for (c = 0; c < 3; ++c) { d[c] = (double)pos[4 * j + c] - (double)pos[4 * i + c]; r2 += d[c] * d[c]; }
        if (r2 == 0.0) continue;
        f = (double)pos[4 * j + 3] / (r2 * sqrt(r2));
        for (c = 0; c < 3; ++c) { acc[c] += G * f * d[c]; S[c] += G * fabs(f * d[c]); }
    }
}

static double nb_max_ratio; /* largest error / bound seen, reported at the end */

/* Documented bound (the header manual, NBODY): per
 * component |a - a_ref| <= (N + 16) u S with u = 2^-24 (float) or 2^-53. Each
 * term carries <= ~12 roundings (difference 1, r^2 3, rsqrt 2 ulp, the cube
 * and mass 3, times d 1, G 1, pair ordering); a sum of N terms in any order
 * adds <= (N - 1) u S (Higham, recursive summation; the slices' partial sums
 * are sums too). The atomic method's order is a sum of the same terms in
 * another order, plus a second level (local then global): 2N + 16. */
static int accel_ok(const float *pos, const void *acc, int fp64, size_t n, size_t i, double eps2, double G,
                    double factor, double *worst)
{
    double ref[3], S[3], u = fp64 ? ldexp(1, -53) : ldexp(1, -24);
    int c, ok = 1;
    ref_accel_row(pos, n, i, eps2, G, ref, S);
    for (c = 0; c < 3; ++c) {
        double got = fp64 ? ((const double *)acc)[4 * i + c] : ((const float *)acc)[4 * i + c];
        double bound = factor * u * S[c], err = fabs(got - ref[c]);
        if (!(err <= bound) && !(bound == 0.0 && got == 0.0)) ok = 0;
        if (bound > 0 && err / bound > *worst) *worst = err / bound;
    }
    if (fp64 ? ((const double *)acc)[4 * i + 3] != 0.0 : ((const float *)acc)[4 * i + 3] != 0.0f) ok = 0;
    return ok;
}

static void nb_desc(clsort_nbody_desc *d, double dt, double eps2, unsigned steps, int integrator)
{
    memset(d, 0, sizeof *d);
    d->dt = dt;
    d->softening2 = eps2;
    d->steps = steps;
    d->integrator = (clsort_nbody_integrator)integrator;
}

/* Accelerations of n random bodies against the reference, for one shape
 * ("wg:ib:js[:flags]" as CLSORT_NBODY, NULL = automatic), method and precision. */
static void test_nbody_accel(clsort_context *base, size_t n, const char *shape, int method, int fp64, double eps2)
{
    clsort_tuning tune = nbody_tuning(shape ? shape : "0:0:0");
    clsort_context *cs = shape ? tuned_context(base, &tune, "context with an N-body shape") : base;
    float *pos = (float *)malloc(n * 16 + 16);
    double *posd = (double *)malloc(n * 32 + 32);
    unsigned char *acc = (unsigned char *)malloc(n * 32 + 32);
    size_t vec = fp64 ? 32 : 16, i, bad = n, rows = n > 2048 ? 256 : n;
    clsort_nbody_desc d;
    cl_mem dp, da;
    double worst = 0, factor = (method == CLSORT_NBODY_ATOMIC ? 2.0 * (double)n : (double)n) + 16.0;
    char what[128];
    int r, ok = 1;
    for (i = 0; i < n; ++i) {
        int c;
        for (c = 0; c < 3; ++c) pos[4 * i + c] = (float)(urand() * 2.0 - 1.0);
        pos[4 * i + 3] = (float)(0.5 + urand()); /* masses 0.5 .. 1.5 */
        if (i % 97 == 5 && i > 0) memcpy(&pos[4 * i], &pos[4 * (i - 1)], 12); /* coincident pairs */
    }
    for (i = 0; i < 4 * n; ++i) posd[i] = pos[i];
    if (!cs) {
        free(pos); free(posd); free(acc);
        return;
    }
    dp = buffer(cs, n * vec, fp64 ? (const void *)posd : (const void *)pos);
    da = buffer(cs, n * vec, NULL);
    nb_desc(&d, 0, eps2, 1, 0);
    d.G = 0.75;
    d.method = (clsort_nbody_method)method;
    d.fp64 = fp64;
    snprintf(what, sizeof what, "nbody accel %s %s shape %s eps2 %g", fp64 ? "f64" : "f32",
             method ? "atomic" : "tiled", shape ? shape : "auto", eps2);
    r = clsort_nbody_accel(cs, dp, da, n, &d, NULL);
    if (fp64 && r == CLSORT_ERROR_UNSUPPORTED) {
        check(strstr(clsort_last_error(cs), "cl_khr_fp64") != NULL, "nbody fp64 unsupported message", n, "-", 0, 0, 0);
        goto done;
    }
    check(r == CLSORT_SUCCESS, what, n, "-", 0, 0, r);
    if (r != CLSORT_SUCCESS) { printf("  %s\n", clsort_last_error(cs)); goto done; }
    download(cs, da, n * vec, acc);
    for (i = 0; i < rows && ok; ++i) {
        size_t row = rows == n ? i : (i * 7919u) % n; /* a sample of rows when n is large */
        if (!accel_ok(pos, acc, fp64, n, row, eps2, 0.75, factor, &worst)) ok = 0, bad = row;
    }
    if (worst > nb_max_ratio) nb_max_ratio = worst;
    check(ok, what, n, "uniform", bad, 0, worst);
done:
    if (cs != base) clsort_destroy(cs);
    clReleaseMemObject(dp);
    clReleaseMemObject(da);
    free(pos); free(posd); free(acc);
}

/* Runs steps on copies of pos/vel (float); results into pos_out/vel_out. */
static int nb_run(clsort_context *cs, const float *pos, const float *vel, size_t n, const clsort_nbody_desc *d,
                  unsigned calls, float *pos_out, float *vel_out)
{
    cl_mem dp = buffer(cs, n * 16, pos), dv = buffer(cs, n * 16, vel);
    unsigned c;
    int r = CLSORT_SUCCESS;
    for (c = 0; c < calls && r == CLSORT_SUCCESS; ++c) r = clsort_nbody(cs, dp, dv, n, d, NULL);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    download(cs, dp, n * 16, pos_out);
    download(cs, dv, n * 16, vel_out);
    clReleaseMemObject(dp);
    clReleaseMemObject(dv);
    return r;
}

static double energy(const float *pos, const float *vel, size_t n, double eps2, double G)
{
    double ek = 0, ep = 0;
    size_t i, j;
    for (i = 0; i < n; ++i) {
        double m = pos[4 * i + 3];
        ek += 0.5 * m * ((double)vel[4 * i] * vel[4 * i] + (double)vel[4 * i + 1] * vel[4 * i + 1] +
                         (double)vel[4 * i + 2] * vel[4 * i + 2]);
        for (j = i + 1; j < n; ++j) {
            double dx = (double)pos[4 * j] - pos[4 * i], dy = (double)pos[4 * j + 1] - pos[4 * i + 1],
                   dz = (double)pos[4 * j + 2] - pos[4 * i + 2];
            ep -= G * m * pos[4 * j + 3] / sqrt(dx * dx + dy * dy + dz * dz + eps2);
        }
    }
    return ek + ep;
}

/* Momentum, energy drift, the two-body orbit, N = 1, coincident bodies. */
static void test_nbody_physics(clsort_context *cs, int tiny)
{
    size_t n = tiny ? 40 : 256, i;
    unsigned steps = tiny ? 20 : 1000;
    float *pos = (float *)malloc(n * 16), *vel = (float *)malloc(n * 16);
    float *po = (float *)malloc(n * 16), *vo = (float *)malloc(n * 16);
    clsort_nbody_desc d;
    double e0, e1, p0[3] = {0, 0, 0}, p1[3] = {0, 0, 0}, scale = 0, drift, dp, Ssum = 0;
    int c, r;
    plummer(pos, vel, n, 1.0);
    /* momentum: exact arithmetic keeps sum m v; rounding moves it by at most
     * steps * dt * sum_i m_i |a_i error| (the acceleration bound, S_i from the
     * start, x2 for the motion) + 2 steps u sum m |v| (the velocity updates) */
    for (i = 0; i < n; ++i) {
        double a[3], S[3];
        ref_accel_row(pos, n, i, 0.0025, 1.0, a, S);
        Ssum += pos[4 * i + 3] * (S[0] + S[1] + S[2]);
        for (c = 0; c < 3; ++c) p0[c] += (double)pos[4 * i + 3] * vel[4 * i + c];
    }
    nb_desc(&d, 1e-3, 0.0025, tiny ? 20 : 100, CLSORT_NBODY_LEAPFROG);
    r = nb_run(cs, pos, vel, n, &d, 1, po, vo);
    check(r == CLSORT_SUCCESS, "nbody momentum run", n, "plummer", 0, 0, r);
    for (i = 0; i < n; ++i)
        for (c = 0; c < 3; ++c) {
            p1[c] += (double)po[4 * i + 3] * vo[4 * i + c];
            scale += (double)po[4 * i + 3] * fabs(vo[4 * i + c]);
        }
    dp = fabs(p1[0] - p0[0]) + fabs(p1[1] - p0[1]) + fabs(p1[2] - p0[2]);
    {
        double bound = d.steps * d.dt * 2.0 * ((double)n + 16) * ldexp(1, -24) * Ssum + 2.0 * d.steps * ldexp(1, -24) * scale;
        printf("    momentum: |dP| = %.3g after %u steps, bound %.3g (scale sum m|v| = %.3g)\n", dp, d.steps, bound, scale);
        check(dp <= bound, "nbody momentum conserved", n, "plummer", 0, bound, dp);
    }
    /* energy: leapfrog on a Plummer sphere (M = G = 1, softening 0.05), dt =
     * 1e-3: the closest-encounter time scale sqrt(eps^3 / (G m)) ~ 0.13 for
     * n = 256, so dt / t ~ 0.008 and the leapfrog's bounded energy error is of
     * order (dt / t)^2 / 12 ~ 1e-5 in close passes, less on average; float
     * rounding over 1000 steps adds ~1e-5. Bound 1e-4 relative. */
    e0 = energy(pos, vel, n, 0.0025, 1.0);
    nb_desc(&d, 1e-3, 0.0025, steps, CLSORT_NBODY_LEAPFROG);
    r = nb_run(cs, pos, vel, n, &d, 1, po, vo);
    e1 = energy(po, vo, n, 0.0025, 1.0);
    drift = fabs((e1 - e0) / e0);
    printf("    energy: E0 = %.6f, after %u leapfrog steps %.6f, relative drift %.3g (bound 1e-4)\n", e0, steps, e1, drift);
    check(r == CLSORT_SUCCESS && drift <= 1e-4, "nbody energy drift (leapfrog)", n, "plummer", 0, e0, e1);
    { /* the tutorial integrator on the same run: reported, drift bound 1e-2 */
        nb_desc(&d, 1e-3, 0.0025, steps, CLSORT_NBODY_TUTORIAL);
        r = nb_run(cs, pos, vel, n, &d, 1, po, vo);
        e1 = energy(po, vo, n, 0.0025, 1.0);
        printf("    energy: tutorial integrator drift %.3g (bound 1e-2)\n", fabs((e1 - e0) / e0));
        check(r == CLSORT_SUCCESS && fabs((e1 - e0) / e0) <= 1e-2, "nbody energy drift (tutorial)", n, "plummer", 0, e0, e1);
    }
    { /* two bodies of mass 1/2 at distance 1 (G = 1, no softening): a circular
       * orbit of period 2 pi. 2000 leapfrog steps: phase error (w dt)^2 / 24
       * per radian ~ 2.6e-6 per period, float rounding <= ~4 u per step and
       * coordinate ~ 5e-4 worst case: back within 1e-3 of the start. */
        float p2[8] = {0.5f, 0, 0, 0.5f, -0.5f, 0, 0, 0.5f}, v2[8] = {0, 0.5f, 0, 0, 0, -0.5f, 0, 0}, q2[8], w2[8];
        double err = 0;
        int k;
        nb_desc(&d, 6.283185307179586 / 2000.0, 0.0, 2000, CLSORT_NBODY_LEAPFROG);
        r = nb_run(cs, p2, v2, 2, &d, 1, q2, w2);
        for (k = 0; k < 8; ++k) if (k % 4 != 3) err = fmax(err, fabs((double)q2[k] - p2[k]));
        printf("    two-body orbit: max |x(T) - x(0)| = %.3g (bound 1e-3)\n", err);
        check(r == CLSORT_SUCCESS && err <= 1e-3, "nbody two-body period", 2, "circular", 0, 0, err);
    }
    { /* one step of each integrator against the host formulas in double
       * (a from the double reference): x and v within 1e-5 (float rounding of a
       * few operations on values of size ~1; the a dt^2/2 term is ~1e-3) */
        float ps[20], vs[20], qs[20], ws[20];
        int integ2, k2, ok2;
        for (k2 = 0; k2 < 20; ++k2) ps[k2] = (float)(urand() * 2 - 1), vs[k2] = (float)(urand() * 2 - 1);
        for (k2 = 3; k2 < 20; k2 += 4) ps[k2] = (float)(0.5 + urand()), vs[k2] = 0.0f;
        for (integ2 = 0; integ2 < 2; ++integ2) {
            double dts = 0.05, a0[5][3], a1[5][3], S[3], x1[5][3], v1[5][3], err = 0;
            float tmp[20];
            size_t b;
            nb_desc(&d, dts, 0.01, 1, integ2);
            d.G = 1.5;
            r = nb_run(cs, ps, vs, 5, &d, 1, qs, ws);
            for (b = 0; b < 5; ++b) ref_accel_row(ps, 5, b, 0.01, 1.5, a0[b], S);
            for (b = 0; b < 5; ++b)
                for (k2 = 0; k2 < 3; ++k2) {
                    if (integ2 == CLSORT_NBODY_TUTORIAL) {
                        x1[b][k2] = ps[4 * b + k2] + vs[4 * b + k2] * dts + 0.5 * dts * dts * a0[b][k2];
                        v1[b][k2] = vs[4 * b + k2] + a0[b][k2] * dts;
                    } else {
                        v1[b][k2] = vs[4 * b + k2] + 0.5 * dts * a0[b][k2];
                        x1[b][k2] = ps[4 * b + k2] + v1[b][k2] * dts;
                    }
                    tmp[4 * b + k2] = (float)x1[b][k2];
                }
            for (b = 0; b < 5; ++b) tmp[4 * b + 3] = ps[4 * b + 3];
            if (integ2 == CLSORT_NBODY_LEAPFROG) /* closing kick at the new positions */
                for (b = 0; b < 5; ++b) {
                    ref_accel_row(tmp, 5, b, 0.01, 1.5, a1[b], S);
                    for (k2 = 0; k2 < 3; ++k2) v1[b][k2] += 0.5 * dts * a1[b][k2];
                }
            for (b = 0; b < 5; ++b)
                for (k2 = 0; k2 < 3; ++k2) {
                    err = fmax(err, fabs(qs[4 * b + k2] - x1[b][k2]));
                    err = fmax(err, fabs(ws[4 * b + k2] - v1[b][k2]));
                }
            ok2 = r == CLSORT_SUCCESS && err <= 1e-5 && qs[3] == ps[3] && ws[3] == vs[3];
            check(ok2, integ2 ? "nbody one tutorial step vs host" : "nbody one leapfrog step vs host", 5, "-", 0, 0, err);
        }
    }
    { /* N = 1: no force, x += v dt exactly as the kernel computes it */
        float p1b[4] = {1, 2, 3, 5}, v1[4] = {0.25f, -0.5f, 1, 7}, q1[4], w1[4];
        nb_desc(&d, 0.5, 0.0, 3, CLSORT_NBODY_LEAPFROG);
        r = nb_run(cs, p1b, v1, 1, &d, 1, q1, w1);
        check(r == CLSORT_SUCCESS && q1[0] == 1.375f && q1[1] == 1.25f && q1[2] == 4.5f && q1[3] == 5 && w1[0] == 0.25f &&
              w1[3] == 7, "nbody N=1 zero force", 1, "-", 0, 4.5, q1[2]);
    }
    { /* coincident bodies: finite with eps > 0, and with eps = 0 (no self force) */
        float pc[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2}, vc[12] = {0}, qc[12], wc[12];
        int k, fin = 1;
        nb_desc(&d, 0.1, 1e-6, 5, CLSORT_NBODY_LEAPFROG);
        r = nb_run(cs, pc, vc, 3, &d, 1, qc, wc);
        for (k = 0; k < 12; ++k) fin &= isfinite(qc[k]) && isfinite(wc[k]) && qc[k] == pc[k];
        nb_desc(&d, 0.1, 0.0, 5, CLSORT_NBODY_TUTORIAL);
        r |= nb_run(cs, pc, vc, 3, &d, 1, qc, wc);
        for (k = 0; k < 12; ++k) fin &= isfinite(qc[k]) && isfinite(wc[k]) && qc[k] == pc[k];
        check(r == CLSORT_SUCCESS && fin, "nbody coincident bodies stay finite", 3, "-", 0, 0, 0);
    }
    free(pos); free(vel); free(po); free(vo);
}

static int same_bits(const float *a, const float *b, size_t n) { return memcmp(a, b, n * 16) == 0; }

/* "Identical": for one shape, bit for bit across runs, a burst of k steps vs
 * k calls of one step, and a split over two contexts; across shapes, the
 * accelerations of each meet the reference bound (tested above) and the
 * trajectories after 10 steps agree within 1e-5 (positions of size ~1). */
static void test_nbody_identical(clsort_context *cs, int tiny)
{
    static const char *shapes[] = {NULL, "4:1:1", "8:2:2", "32:4:8", "64:1:16"};
    size_t n = tiny ? 37 : 1000, i;
    float *pos = (float *)malloc(n * 16), *vel = (float *)malloc(n * 16);
    float *pa = (float *)malloc(n * 16), *va = (float *)malloc(n * 16), *pb = (float *)malloc(n * 16),
          *vb = (float *)malloc(n * 16), *p0 = (float *)malloc(n * 16);
    clsort_nbody_desc d;
    unsigned s, k = tiny ? 3 : 10;
    int integ, r;
    plummer(pos, vel, n, 1.0);
    for (s = 0; s < (tiny ? 3u : 5u); ++s) {
        char precise[32];
        /* the precise build (flag p): bit for bit; the default, which is
         * fast math on GPUs, may contract a burst's two half kicks into one */
        snprintf(precise, sizeof precise, "%s:p", shapes[s] ? shapes[s] : "0:0:0");
        for (integ = 0; integ < 2; ++integ) {
            char what[128];
            double worst = 0;
            clsort_tuning tp = nbody_tuning(precise), ts = nbody_tuning(shapes[s] ? shapes[s] : "0:0:0");
            clsort_context *cp = tuned_context(cs, &tp, "context with a precise N-body shape");
            clsort_context *csh = shapes[s] ? tuned_context(cs, &ts, "context with an N-body shape") : cs;
            if (!cp || !csh) {
                clsort_destroy(cp);
                if (csh != cs) clsort_destroy(csh);
                continue;
            }
            nb_desc(&d, 1e-3, 0.0025, k, integ);
            r = nb_run(cp, pos, vel, n, &d, 1, pa, va);
            r |= nb_run(cp, pos, vel, n, &d, 1, pb, vb);
            snprintf(what, sizeof what, "nbody repeat bitwise (%s, %s)", precise, integ ? "tutorial" : "leapfrog");
            check(r == CLSORT_SUCCESS && same_bits(pa, pb, n) && same_bits(va, vb, n), what, n, "plummer", 0, 0, 0);
            d.steps = 1;
            r = nb_run(cp, pos, vel, n, &d, k, pb, vb);
            snprintf(what, sizeof what, "nbody %u steps in one call = %u calls (%s, %s)", k, k, precise, integ ? "tutorial" : "leapfrog");
            check(r == CLSORT_SUCCESS && same_bits(pa, pb, n) && same_bits(va, vb, n), what, n, "plummer", 0, 0, 0);
            d.steps = k;
            r = nb_run(csh, pos, vel, n, &d, 1, pa, va);
            r |= nb_run(csh, pos, vel, n, &d, 1, pb, vb);
            snprintf(what, sizeof what, "nbody repeat bitwise (%s, %s)", shapes[s] ? shapes[s] : "auto", integ ? "tutorial" : "leapfrog");
            check(r == CLSORT_SUCCESS && same_bits(pa, pb, n) && same_bits(va, vb, n), what, n, "plummer", 0, 0, 0);
            d.steps = 1;
            r = nb_run(csh, pos, vel, n, &d, k, pb, vb);
            clsort_destroy(cp);
            if (csh != cs) clsort_destroy(csh);
            for (i = 0; i < 4 * n; ++i) worst = fmax(worst, fabs((double)pa[i] - pb[i]));
            snprintf(what, sizeof what, "nbody %u steps in one call = %u calls within 1e-6 (%s, %s)", k, k, shapes[s] ? shapes[s] : "auto", integ ? "tutorial" : "leapfrog");
            check(r == CLSORT_SUCCESS && worst <= 1e-6, what, n, "plummer", 0, 1e-6, worst);
            if (integ == 0 && s == 0) memcpy(p0, pa, n * 16);
            if (integ == 0 && s > 0) {
                double worst = 0;
                for (i = 0; i < 4 * n; ++i) worst = fmax(worst, fabs((double)pa[i] - p0[i]));
                snprintf(what, sizeof what, "nbody shape %s vs auto within 1e-5", shapes[s]);
                check(worst <= 1e-5, what, n, "plummer", 0, 1e-5, worst);
            }
        }
    }
    { /* two contexts on one cl_context (PoCL has one CPU
       * device: two queues on it stand for two devices), even and uneven splits, vs one context */
        clsort_context_desc cd;
        clsort_context *c2 = NULL;
        memset(&cd, 0, sizeof cd);
        cd.context = clsort_cl_context(cs);
        cd.device = clsort_cl_device(cs);
        r = clsort_create(&c2, &cd);
        check(r == CLSORT_SUCCESS, "nbody second context", n, "-", 0, 0, r);
        if (r == CLSORT_SUCCESS) {
            int integ2, split;
            for (integ2 = 0; integ2 < 2; ++integ2)
                for (split = 0; split < 3; ++split) {
                    clsort_nbody_part parts[2];
                    cl_mem b[4];
                    char what[128];
                    int ok;
                    nb_desc(&d, 1e-3, 0.0025, k, integ2);
                    r = nb_run(cs, pos, vel, n, &d, 1, pa, va);
                    b[0] = buffer(cs, n * 16, pos); b[1] = buffer(cs, n * 16, vel);
                    b[2] = buffer(cs, n * 16, pos); b[3] = buffer(cs, n * 16, vel);
                    memset(parts, 0, sizeof parts);
                    parts[0].ctx = cs; parts[0].positions = b[0]; parts[0].velocities = b[1];
                    parts[1].ctx = c2; parts[1].positions = b[2]; parts[1].velocities = b[3];
                    if (split == 1) { parts[0].first = 0; parts[0].count = n / 3; parts[1].first = n / 3; parts[1].count = n - n / 3; }
                    if (split == 2) { parts[0].count = 0; parts[1].first = 0; parts[1].count = n; parts[0].first = 0; }
                    r |= clsort_nbody_multi(parts, 2, n, &d);
                    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
                    download(cs, b[0], n * 16, pb);
                    ok = same_bits(pa, pb, n);
                    download(cs, b[2], n * 16, pb);
                    ok &= same_bits(pa, pb, n);
                    download(cs, b[1], n * 16, vb);
                    ok &= split == 2 || memcmp(va, vb, (split == 1 ? n / 3 : n / 2) * 16) == 0;
                    download(cs, b[3], n * 16, vb);
                    { size_t f = split == 0 ? n / 2 : split == 1 ? n / 3 : 0;
                      ok &= memcmp(va + 4 * f, vb + 4 * f, (n - f) * 16) == 0; }
                    snprintf(what, sizeof what, "nbody two contexts = one (%s, split %d)", integ2 ? "tutorial" : "leapfrog", split);
                    check(r == CLSORT_SUCCESS && ok, what, n, "plummer", 0, 0, r);
                    for (i = 0; i < 4; ++i) clReleaseMemObject(b[i]);
                }
            { /* bad parts: the same context twice, slices that do not tile */
                clsort_nbody_part parts[2];
                cl_mem b[4];
                for (i = 0; i < 4; ++i) b[i] = buffer(cs, n * 16, pos);
                memset(parts, 0, sizeof parts);
                parts[0].ctx = cs; parts[0].positions = b[0]; parts[0].velocities = b[1];
                parts[1].ctx = cs; parts[1].positions = b[2]; parts[1].velocities = b[3];
                r = clsort_nbody_multi(parts, 2, n, &d);
                check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "share"), "nbody multi same context", n, "-", 0, 0, r);
                parts[1].ctx = c2;
                parts[0].count = 10; parts[1].first = 11; parts[1].count = n - 11;
                r = clsort_nbody_multi(parts, 2, n, &d);
                check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "tile"), "nbody multi gap", n, "-", 0, 0, r);
                download(cs, b[0], n * 16, pb);
                check(same_bits(pb, pos, n), "nbody multi bad args leave buffers", n, "-", 0, 0, 0);
                for (i = 0; i < 4; ++i) clReleaseMemObject(b[i]);
            }
        }
        clsort_destroy(c2);
    }
    free(pos); free(vel); free(pa); free(va); free(pb); free(vb); free(p0);
}

static void test_nbody_arguments(clsort_context *cs)
{
    float pos[64], vel[64], back[64];
    cl_mem p, v, a, small;
    clsort_nbody_desc d;
    int r, i;
    for (i = 0; i < 64; ++i) pos[i] = (float)i * 0.125f, vel[i] = (float)i;
    p = buffer(cs, sizeof pos, pos);
    v = buffer(cs, sizeof vel, vel);
    a = buffer(cs, sizeof pos, vel);
    small = buffer(cs, 32, pos);
    nb_desc(&d, 0.01, 0.01, 2, 0);
#define NB_BAD(call, want, msg, label)                                                                   \
    do {                                                                                                 \
        r = (call);                                                                                      \
        check(r == (want) && strstr(clsort_last_error(cs), msg) != NULL, label, 16, "-", 0, want, r);    \
        if (r != (want) || !strstr(clsort_last_error(cs), msg)) printf("  got: %s\n", clsort_last_error(cs)); \
    } while (0)
    r = clsort_nbody(cs, p, v, 0, &d, NULL);
    check(r == CLSORT_SUCCESS, "nbody n = 0 is a no-op", 0, "-", 0, 0, r);
    r = clsort_nbody(cs, NULL, NULL, 0, &d, NULL);
    check(r == CLSORT_SUCCESS, "nbody n = 0 with NULL buffers", 0, "-", 0, 0, r);
    NB_BAD(clsort_nbody(cs, p, v, 16, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "desc is NULL", "nbody desc NULL");
    d.dt = NAN;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "desc.dt", "nbody dt NaN");
    d.dt = INFINITY;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "desc.dt", "nbody dt inf");
    d.dt = 0.01;
    d.softening2 = -1;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "softening2", "nbody negative softening");
    d.softening2 = 0.01;
    d.G = NAN;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "desc.G", "nbody G NaN");
    d.G = 0;
    d.integrator = (clsort_nbody_integrator)7;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "integrator", "nbody bad integrator");
    d.integrator = CLSORT_NBODY_LEAPFROG;
    d.method = (clsort_nbody_method)9;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "method", "nbody bad method");
    d.method = CLSORT_NBODY_TILED;
    NB_BAD(clsort_nbody(cs, small, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "positions holds 32 bytes",
           "nbody positions too small");
    NB_BAD(clsort_nbody(cs, p, small, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "velocities holds", "nbody velocities too small");
    NB_BAD(clsort_nbody(cs, p, v, 17, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "needed", "nbody n past the buffers");
    NB_BAD(clsort_nbody(cs, p, p, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "share memory", "nbody positions = velocities");
    d.accelerations = p;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "share memory", "nbody accelerations = positions");
    d.accelerations = NULL;
    d.temp = v;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "share memory", "nbody temp = velocities");
    d.temp = small;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "desc.temp", "nbody temp too small");
    d.temp = NULL;
    NB_BAD(clsort_nbody_accel(cs, p, p, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "shares memory", "nbody accel aliasing");
    NB_BAD(clsort_nbody(cs, p, v, (size_t)1 << 31, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "2^31", "nbody n too large");
    d.fp64 = 1;
    d.method = CLSORT_NBODY_ATOMIC;
    r = clsort_nbody(cs, p, v, 8, &d, NULL); /* 8 double4 = 256 bytes: fits */
    check(r == CLSORT_ERROR_UNSUPPORTED && (strstr(clsort_last_error(cs), "float only") || strstr(clsort_last_error(cs), "cl_khr_fp64")),
          "nbody fp64 atomic unsupported", 8, "-", 0, 0, r);
    d.method = CLSORT_NBODY_TILED;
    r = clsort_nbody(cs, p, v, 16, &d, NULL); /* 16 double4 = 512 bytes: too small, or no fp64 */
    {
        cl_bool has = 0;
        char ext[8192] = "";
        clGetDeviceInfo(clsort_cl_device(cs), CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
        has = strstr(ext, "cl_khr_fp64") != NULL;
        if (has) check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "512 needed"),
                       "nbody fp64 buffer size in double4", 16, "-", 0, 0, r);
        else check(r == CLSORT_ERROR_UNSUPPORTED && strstr(clsort_last_error(cs), "cl_khr_fp64"),
                   "nbody fp64 without cl_khr_fp64", 16, "-", 0, 0, r);
    }
#undef NB_BAD
    download(cs, p, sizeof back, back);
    check(memcmp(back, pos, sizeof pos) == 0, "nbody bad arguments leave positions", 16, "-", 0, 0, 0);
    download(cs, v, sizeof back, back);
    check(memcmp(back, vel, sizeof vel) == 0, "nbody bad arguments leave velocities", 16, "-", 0, 0, 0);
    clReleaseMemObject(p); clReleaseMemObject(v); clReleaseMemObject(a); clReleaseMemObject(small);
}

static void test_nbody(clsort_context *cs, int tiny, int quick)
{
    static const size_t sizes[] = {1, 2, 3, 5, 7, 13, 31, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1009, 1023, 1024,
                                   1025, 2047, 2049, 4099, 16384};
    static const char *shapes[] = {"4:1:1", "8:2:2", "16:4:4", "32:1:8", "64:2:1:n"};
    size_t s;
    unsigned k;
    nb_max_ratio = 0;
    printf("  n-body...\n");
    fflush(stdout);
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        size_t n = sizes[s];
        if (tiny && n != 1 && n != 3 && n != 65 && n != 129) continue;
        if (quick && n > 4099) continue;
        test_nbody_accel(cs, n, NULL, CLSORT_NBODY_TILED, 0, 1e-4);
        if (n <= 4099) test_nbody_accel(cs, n, NULL, CLSORT_NBODY_TILED, 0, 0.0);
        if (n <= 2049 && !tiny) test_nbody_accel(cs, n, NULL, CLSORT_NBODY_ATOMIC, 0, 1e-4);
        if (n <= 1025 && (!tiny || n < 100)) test_nbody_accel(cs, n, NULL, CLSORT_NBODY_TILED, 1, 1e-4);
        for (k = 0; k < 5 && n <= 1025; ++k) {
            if (tiny && k != 1) continue;
            test_nbody_accel(cs, n, shapes[k], CLSORT_NBODY_TILED, 0, 1e-4);
        }
    }
    if (tiny) test_nbody_accel(cs, 70, NULL, CLSORT_NBODY_ATOMIC, 0, 1e-4);
    printf("    accelerations: largest error / bound %.3g\n", nb_max_ratio);
    test_nbody_physics(cs, tiny);
    test_nbody_identical(cs, tiny);
    test_nbody_arguments(cs);
}

/* The look-back scan, pack and one-sweep sort with their tiles taken in
 * reverse start order (tuning.reverse_tiles, a test hook): the first
 * work-group to start takes the last tile, so every tile waits on tiles no
 * work-group has started. Only the decoupled fallback (common.cl LB_FALLBACK:
 * a tile that sees no progress sums its predecessor from the input) lets them
 * finish; without it this hangs on PoCL (2 threads), PoCL basic, rusticl and
 * oclgrind. It caught the fallback's double count (a window that found the
 * prefix on the 64th idle read fell back too): wrong sums on PoCL pthread. */
static void test_reverse_tiles(int tiny, int status32)
{
    static const size_t sizes[] = {4097, 8193, 65537, 300001};
    clsort_context *cs = NULL;
    clsort_context_desc desc;
    size_t s;
    memset(&desc, 0, sizeof desc);
    desc.path = CLSORT_PATH_LOOKBACK;
    desc.tuning.reverse_tiles = 1;
    desc.tuning.status32 = status32;
    path_name = status32 ? "lookback, tiles reversed, 32-bit status pairs" : "lookback, tiles reversed";
    printf("  look-back with tiles in reverse start order%s...\n", status32 ? " (32-bit status pairs)" : "");
    fflush(stdout);
    if (clsort_create(&cs, &desc) != CLSORT_SUCCESS) {
        check(0, "clsort_create with tuning.reverse_tiles", 0, clsort_last_error(cs), 0, 0, 0);
        clsort_destroy(cs);
        return;
    }
    for (s = 0; s < sizeof sizes / sizeof sizes[0] && (!tiny || sizes[s] < 10000) && (!status32 || s < 2); ++s) {
        test_scan_case(cs, CLSORT_U32, sizes[s], D_RANDOM, 0, 0);
        test_scan_case(cs, CLSORT_F32, sizes[s], D_RANDOM, 1, 1);
        test_scan_case(cs, CLSORT_I32, sizes[s], D_ONES, 1, 0);
        test_split_case(cs, 4, 4, sizes[s], F_RANDOM, 0, 0);
        test_split_case(cs, 8, 0, sizes[s], F_RANDOM, 2, 63);
        /* The one-sweep fallback has each digit's work-item count a tile's
         * keys serially (RADIX x TILE steps): small sorts, and under
         * oclgrind (--tiny) 4-bit digits over 8 bits (2 passes, 16 digits) */
        if (tiny && s == 0) test_sort_case(cs, CLSORT_U32, sizes[s], S_RANDOM, 0, 8, 4, 0, M_VAL4, 0, 0);
        if (!tiny && sizes[s] <= 65537) test_sort_case(cs, CLSORT_U32, sizes[s], S_RANDOM, 0, 0, 0, 0, M_VAL4, 0, 0);
        if (!tiny && sizes[s] <= 8193) test_sort_case(cs, CLSORT_U64, sizes[s], S_RANDOM, 0, 0, 0, 0, M_PERM, 0, 0);
    }
    clsort_destroy(cs);
}

/* ---- reductions: reduce, segmented scan / reduce, by key, run-length encode, unique, histogram ----
 * References work on bit patterns (uint64_t) with the operator of each type,
 * left to right. Integer results and min/max must match exactly (min/max by
 * value: -0.0 == +0.0); float sums within the bound of the REDUCE notes:
 * depth * u * (sum of |x| over the segment so far), depth = ceil(n / 2048) +
 * 4 * (1024 + 64) + 8 for the default tiles, n for tuned tiles (any order). */

__extension__ typedef unsigned __int128 rd_u128;
static const char *rd_tn[] = {"u32", "i32", "f32", "u64", "i64", "f64"};
static const char *rd_opn[] = {"sum", "min", "max"};
static double rd_depth; /* set per context */

static double rd_as_double(clsort_type t, uint64_t b)
{
    float f;
    double d;
    uint32_t u = (uint32_t)b;
    switch (t) {
    case CLSORT_U32: return (double)(uint32_t)b;
    case CLSORT_I32: return (double)(int32_t)(uint32_t)b;
    case CLSORT_F32: memcpy(&f, &u, 4); return f;
    case CLSORT_U64: return (double)b;
    case CLSORT_I64: return (double)(int64_t)b;
    default: memcpy(&d, &b, 8); return d;
    }
}

static uint64_t rd_get(const void *p, clsort_type t, size_t i)
{
    return clsort_type_size(t) == 4 ? ((const uint32_t *)p)[i] : ((const uint64_t *)p)[i];
}

static uint64_t rd_ident(clsort_type t, clsort_op op)
{
    float fi = op == CLSORT_OP_MIN ? INFINITY : -INFINITY;
    double di = op == CLSORT_OP_MIN ? INFINITY : -INFINITY;
    uint32_t u;
    uint64_t v;
    if (op == CLSORT_OP_SUM) return 0;
    switch (t) {
    case CLSORT_U32: return op == CLSORT_OP_MIN ? 0xffffffffu : 0;
    case CLSORT_I32: return op == CLSORT_OP_MIN ? 0x7fffffffu : 0x80000000u;
    case CLSORT_F32: memcpy(&u, &fi, 4); return u;
    case CLSORT_U64: return op == CLSORT_OP_MIN ? ~0ull : 0;
    case CLSORT_I64: return op == CLSORT_OP_MIN ? 0x7fffffffffffffffull : 0x8000000000000000ull;
    default: memcpy(&v, &di, 8); return v;
    }
}

/* a value as the kernels read it: NaNs are the identity of min and max */
static uint64_t rd_clean(clsort_type t, clsort_op op, uint64_t x)
{
    double v = rd_as_double(t, x);
    if (op != CLSORT_OP_SUM && (t == CLSORT_F32 || t == CLSORT_F64) && v != v) return rd_ident(t, op);
    return x;
}

static uint64_t rd_apply(clsort_type t, clsort_op op, uint64_t a, uint64_t b)
{
    int lt, gt;
    if (t == CLSORT_F32) {
        float x, y, z;
        uint32_t ua = (uint32_t)a, ub = (uint32_t)b, r;
        memcpy(&x, &ua, 4);
        memcpy(&y, &ub, 4);
        z = op == CLSORT_OP_SUM ? x + y : op == CLSORT_OP_MIN ? (y < x ? y : x) : (y > x ? y : x);
        memcpy(&r, &z, 4);
        return r;
    }
    if (t == CLSORT_F64) {
        double x, y, z;
        uint64_t r;
        memcpy(&x, &a, 8);
        memcpy(&y, &b, 8);
        z = op == CLSORT_OP_SUM ? x + y : op == CLSORT_OP_MIN ? (y < x ? y : x) : (y > x ? y : x);
        memcpy(&r, &z, 8);
        return r;
    }
    if (op == CLSORT_OP_SUM) return clsort_type_size(t) == 4 ? (uint32_t)(a + b) : a + b; /* wraps */
    switch (t) {
    case CLSORT_U32: lt = (uint32_t)b < (uint32_t)a; break;
    case CLSORT_I32: lt = (int32_t)(uint32_t)b < (int32_t)(uint32_t)a; break;
    case CLSORT_U64: lt = b < a; break;
    default: lt = (int64_t)b < (int64_t)a;
    }
    gt = !lt && a != b;
    return op == CLSORT_OP_MIN ? (lt ? b : a) : (gt ? b : a);
}

/* got matches want: exactly, or for float sums within depth * u * mag */
static int rd_match(clsort_type t, clsort_op op, uint64_t got, uint64_t want, double mag)
{
    double g, w;
    if (t != CLSORT_F32 && t != CLSORT_F64) return got == want;
    g = rd_as_double(t, got);
    w = rd_as_double(t, want);
    if (g != g || w != w) return g != g && w != w;
    if (op != CLSORT_OP_SUM) return g == w;
    return fabs(g - w) <= rd_depth * (t == CLSORT_F32 ? ldexp(1, -24) : ldexp(1, -53)) * mag;
}

/* Values: random (with NaNs for floats every 97th), or D_MAX-like extremes
 * (integer wrap), or small integers. */
static void rd_fill(void *p, clsort_type t, size_t n, int d)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        uint64_t r = rnd64();
        double v = (double)(r % 2000001) / 1000.0 - 1000.0;
        int nan = d == 0 && i % 97 == 5;
        switch (t) {
        case CLSORT_F32: ((float *)p)[i] = nan ? NAN : (float)v; break;
        case CLSORT_F64: ((double *)p)[i] = nan ? NAN : v; break;
        default: {
            uint64_t x = d == 0 ? r : d == 1 ? (t == CLSORT_I32 ? 0x7fffffffu - (r & 3) : t == CLSORT_I64 ? 0x7fffffffffffffffull - (r & 3) : ~0ull - (r & 3))
                       : (uint64_t)(int64_t)((int)(r % 201) - 100);
            if (clsort_type_size(t) == 4) ((uint32_t *)p)[i] = (uint32_t)x;
            else ((uint64_t *)p)[i] = x;
        }
        }
    }
}

enum { SP_NONE, SP_ALL, SP_ALTERNATE, SP_SHORT, SP_LONG, SP_ENDS, SP_TILES, SP_COUNT };
static const char *sp_names[] = {"no-heads", "all-heads", "alternating", "random-short", "random-long",
                                 "first-last", "across-tiles"};

/* head[i] (1 = a segment starts at i, i > 0) for pattern sp */
static void rd_heads(uint8_t *h, size_t n, int sp)
{
    size_t i, next = 0;
    for (i = 0; i < n; ++i) {
        switch (sp) {
        case SP_NONE: h[i] = 0; break;
        case SP_ALL: h[i] = 1; break;
        case SP_ALTERNATE: h[i] = (uint8_t)(i & 1); break;
        case SP_SHORT: h[i] = rnd64() % 5 == 0; break;
        case SP_LONG: h[i] = rnd64() % 6000 == 0; break;
        case SP_ENDS: h[i] = i == 0 || i + 1 == n; break;
        default: /* runs that end just around tile borders (2048, 4096 .. +-1) */
            if (i == next) { h[i] = 1; next = (i / 2048 + 1) * 2048 + (size_t)(rnd64() % 3) - 1; }
            else h[i] = 0;
        }
    }
}

/* One segmentation of n elements, as flags (u8/u32), keys (u32/u64) and
 * offsets with extra empty segments (leading, inside, trailing). */
typedef struct rd_segs {
    uint8_t *f8;
    uint32_t *f32, *k32, *off, *inc; /* inc[i]: boundaries at i (offsets), the reference's segment ids */
    uint64_t *k64;
    size_t count;                    /* offsets: number of segments */
} rd_segs;

static void rd_segs_make(rd_segs *s, size_t n, int sp)
{
    size_t i, j;
    uint8_t *h = (uint8_t *)malloc(n + 1);
    uint64_t key = 5;
    rd_heads(h, n, sp);
    s->f8 = (uint8_t *)malloc(n + 1);
    s->f32 = (uint32_t *)malloc(n * 4 + 4);
    s->k32 = (uint32_t *)malloc(n * 4 + 4);
    s->k64 = (uint64_t *)malloc(n * 8 + 8);
    s->inc = (uint32_t *)calloc(n + 1, 4);
    s->off = (uint32_t *)malloc((2 * n + 8) * 4);
    s->count = 0;
    if (sp != SP_NONE && rnd64() % 2) s->off[s->count++] = 0; /* a leading empty segment */
    s->off[s->count++] = 0;
    for (i = 0; i < n; ++i) {
        int head = i > 0 && h[i];
        s->f8[i] = head ? (uint8_t)(1 + rnd64() % 255) : (i == 0 ? (uint8_t)(rnd64() & 1) : 0); /* flag at 0: no effect */
        s->f32[i] = head ? (uint32_t)(1 + rnd64() % 1000000) : (i == 0 ? (uint32_t)(rnd64() & 1) : 0);
        if (head) {
            key += 1 + (rnd64() % 3 == 0 ? (rnd64() >> 20) : 0);
            s->off[s->count++] = (uint32_t)i;
            if (sp == SP_SHORT && rnd64() % 4 == 0) s->off[s->count++] = (uint32_t)i; /* an empty segment */
        }
        s->k32[i] = (uint32_t)key;
        s->k64[i] = key << 20 | (key & 0xfffff); /* 64-bit keys that differ above bit 32 too */
    }
    if (sp != SP_NONE && rnd64() % 2) s->off[s->count++] = (uint32_t)n; /* a trailing empty segment */
    s->off[s->count] = (uint32_t)n;
    for (j = 1; j < s->count; ++j)
        if (s->off[j] < n) s->inc[s->off[j]]++;
    free(h);
}

static void rd_segs_free(rd_segs *s)
{
    free(s->f8); free(s->f32); free(s->k32); free(s->k64); free(s->inc); free(s->off);
}

/* 1 if element i starts a segment for kind sk (keys: u32 keys) */
static uint32_t rd_inc(const rd_segs *s, clsort_segments sk, size_t i)
{
    switch (sk) {
    case CLSORT_SEGMENTS_NONE: return 0;
    case CLSORT_SEGMENTS_FLAGS_U8: return i > 0 && s->f8[i] != 0;
    case CLSORT_SEGMENTS_FLAGS_U32: return i > 0 && s->f32[i] != 0;
    case CLSORT_SEGMENTS_KEYS: return i > 0 && s->k32[i] != s->k32[i - 1];
    default: return s->inc[i];
    }
}

/* Segmented scan (both modes, in place or not) and, for offsets, the
 * segmented reduce; for keys the reduce-by-key. */
static void test_rd_seg_case(clsort_context *cs, clsort_type t, clsort_op op, clsort_segments sk, clsort_type kt,
                             size_t n, int sp, int d, int inclusive, int in_place, int host_offsets)
{
    static const char *skn[] = {"none", "flags-u32", "flags-u8", "keys", "offsets"};
    size_t es = clsort_type_size(t), ks = clsort_type_size(kt), i, bad = 0;
    unsigned char *in = (unsigned char *)malloc(n * es + 8), *out = (unsigned char *)malloc(n * es + 8);
    rd_segs s;
    clsort_reduce_desc d_;
    cl_mem din, dout, dseg = NULL;
    char what[160];
    uint64_t acc = 0;
    double mag = 0;
    int ok = 1, r;
    rd_fill(in, t, n, d);
    rd_segs_make(&s, n, sp);
    memset(&d_, 0, sizeof d_);
    d_.type = t;
    d_.op = op;
    d_.inclusive = inclusive;
    d_.segments = sk;
    d_.key_type = kt;
    din = buffer(cs, n * es, in);
    dout = in_place ? din : buffer(cs, n * es, NULL);
    if (sk == CLSORT_SEGMENTS_FLAGS_U8) dseg = buffer(cs, n, s.f8);
    else if (sk == CLSORT_SEGMENTS_FLAGS_U32) dseg = buffer(cs, n * 4, s.f32);
    else if (sk == CLSORT_SEGMENTS_KEYS) dseg = buffer(cs, n * ks, ks == 4 ? (void *)s.k32 : (void *)s.k64);
    else if (sk == CLSORT_SEGMENTS_OFFSETS) {
        d_.segment_count = s.count;
        if (host_offsets) d_.segment_data_host = s.off;
        else dseg = buffer(cs, (s.count + 1) * 4, s.off);
    }
    d_.segment_data = dseg;
    snprintf(what, sizeof what, "segmented scan %s %s %s%s %s%s%s", rd_tn[t], rd_opn[op], skn[sk],
             sk == CLSORT_SEGMENTS_KEYS ? (ks == 4 ? "-u32" : "-u64") : "", inclusive ? "inclusive" : "exclusive",
             in_place ? " in-place" : "", host_offsets ? " host-offsets" : "");
    r = clsort_segmented_scan(cs, din, dout, n, &d_, NULL);
    if (t == CLSORT_F64 && r == CLSORT_ERROR_UNSUPPORTED) goto done;
    check(r == CLSORT_SUCCESS, what, n, sp_names[sp], 0, 0, r);
    if (r != CLSORT_SUCCESS) { printf("  %s\n", clsort_last_error(cs)); goto done; }
    download(cs, dout, n * es, out);
    for (i = 0; i < n && ok; ++i) {
        uint64_t x = rd_clean(t, op, rd_get(in, t, i)), before, want;
        double ax = fabs(rd_as_double(t, x));
        int head = i == 0 || rd_inc(&s, sk, i) != 0;
        if (head) { acc = rd_ident(t, op); mag = 0; }
        before = acc;
        acc = rd_apply(t, op, acc, x);
        if (ax == ax) mag += ax;
        want = inclusive ? acc : head ? rd_ident(t, op) : before;
        ok = rd_match(t, op, rd_get(out, t, i), want, mag);
        if (!ok) { bad = i; check(0, what, n, sp_names[sp], i, rd_as_double(t, want), rd_as_double(t, rd_get(out, t, i))); }
    }
    if (ok) ++passed;
    (void)bad;
    if (sk == CLSORT_SEGMENTS_OFFSETS || sk == CLSORT_SEGMENTS_KEYS) {
        /* per-segment results: segmented reduce (offsets) or reduce-by-key (keys) */
        size_t outs = sk == CLSORT_SEGMENTS_OFFSETS ? s.count : n, runs = 0, got_count = 0, seg = 0;
        unsigned char *vo = (unsigned char *)malloc(outs * es + 8), *ko = (unsigned char *)malloc(n * ks + 8);
        uint64_t *ref = (uint64_t *)malloc((outs + 1) * 8);
        double *rmag = (double *)calloc(outs + 1, sizeof(double));
        cl_mem dvo = buffer(cs, outs * es, NULL), dko = buffer(cs, n * ks, NULL), dcnt = buffer(cs, 4, NULL);
        cl_mem kin = NULL;
        uint32_t dev_count = 0;
        din = in_place ? din : din; /* unchanged input: the scan above was out of place or rewrote it */
        if (in_place) clEnqueueWriteBuffer(clsort_cl_queue(cs), din, CL_TRUE, 0, n * es, in, 0, NULL, NULL);
        for (i = 0; i < outs; ++i) ref[i] = rd_ident(t, op);
        /* the reference */
        if (sk == CLSORT_SEGMENTS_OFFSETS) {
            for (i = 0; i < n; ++i) {
                uint64_t x = rd_clean(t, op, rd_get(in, t, i));
                double ax = fabs(rd_as_double(t, x));
                seg += s.inc[i];
                ref[seg] = rd_apply(t, op, ref[seg], x);
                if (ax == ax) rmag[seg] += ax;
            }
            r = clsort_segmented_reduce(cs, din, dvo, n, &d_, NULL);
            snprintf(what, sizeof what, "segmented reduce %s %s%s", rd_tn[t], rd_opn[op], host_offsets ? " host-offsets" : "");
        } else {
            clsort_by_key_desc bk;
            for (i = 0; i < n; ++i) {
                uint64_t x = rd_clean(t, op, rd_get(in, t, i));
                double ax = fabs(rd_as_double(t, x));
                if (i > 0 && s.k32[i] != s.k32[i - 1]) ++seg;
                ref[seg] = rd_apply(t, op, ref[seg], x);
                if (ax == ax) rmag[seg] += ax;
            }
            runs = n ? seg + 1 : 0;
            memset(&bk, 0, sizeof bk);
            bk.key_type = kt;
            bk.type = t;
            bk.op = op;
            bk.count = dcnt;
            kin = dseg;
            r = clsort_reduce_by_key(cs, kin, din, dko, dvo, n, &bk, &got_count, NULL);
            snprintf(what, sizeof what, "reduce by key %s %s keys %s", rd_tn[t], rd_opn[op], ks == 4 ? "u32" : "u64");
            outs = runs;
        }
        check(r == CLSORT_SUCCESS, what, n, sp_names[sp], 0, 0, r);
        if (r == CLSORT_SUCCESS) {
            download(cs, dvo, outs * es, vo);
            ok = 1;
            for (i = 0; i < outs && ok; ++i) {
                ok = rd_match(t, op, rd_get(vo, t, i), ref[i], rmag[i]);
                if (!ok) check(0, what, n, sp_names[sp], i, rd_as_double(t, ref[i]), rd_as_double(t, rd_get(vo, t, i)));
            }
            if (ok) ++passed;
            if (sk == CLSORT_SEGMENTS_KEYS) {
                size_t j = 0;
                download(cs, dko, runs * ks, ko);
                download(cs, dcnt, 4, &dev_count);
                check(got_count == runs && dev_count == runs, "reduce by key count (host and device)", n,
                      sp_names[sp], 0, (double)runs, (double)got_count);
                ok = 1;
                for (i = 0; i < n && ok; ++i)
                    if (i == 0 || s.k32[i] != s.k32[i - 1]) {
                        ok = ks == 4 ? ((uint32_t *)ko)[j] == s.k32[i] : ((uint64_t *)ko)[j] == s.k64[i];
                        ++j;
                    }
                check(ok, "reduce by key keys", n, sp_names[sp], j, 0, 0);
            }
        } else printf("  %s\n", clsort_last_error(cs));
        clReleaseMemObject(dvo); clReleaseMemObject(dko); clReleaseMemObject(dcnt);
        free(vo); free(ko); free(ref); free(rmag);
    }
done:
    clReleaseMemObject(din);
    if (!in_place) clReleaseMemObject(dout);
    if (dseg) clReleaseMemObject(dseg);
    rd_segs_free(&s);
    free(in);
    free(out);
}

/* Run-length encode and unique (with and without values) on keys of kt. */
static void test_rd_rle_case(clsort_context *cs, clsort_type kt, size_t n, int sp, int with_values)
{
    size_t ks = clsort_type_size(kt), i, runs = 0, got = 0, got2 = 0, j;
    rd_segs s;
    unsigned char *kout = (unsigned char *)malloc(n * ks + 8), *vals = (unsigned char *)malloc(n * 8 + 8);
    unsigned char *vout = (unsigned char *)malloc(n * 8 + 8);
    uint32_t *len = (uint32_t *)malloc(n * 4 + 4), run = 0, dev_count = 0;
    cl_mem dk, dko, dlen, dv, dvo, dcnt;
    clsort_by_key_desc bk;
    int r, ok = 1;
    rd_segs_make(&s, n, sp);
    for (i = 0; i < n * 8; ++i) vals[i] = (unsigned char)rnd64();
    dk = buffer(cs, n * ks, ks == 4 ? (void *)s.k32 : (void *)s.k64);
    dko = buffer(cs, n * ks, NULL);
    dlen = buffer(cs, n * 4, NULL);
    dv = buffer(cs, n * 8, vals);
    dvo = buffer(cs, n * 8, NULL);
    dcnt = buffer(cs, 4, NULL);
    memset(&bk, 0, sizeof bk);
    bk.key_type = kt;
    bk.count = dcnt;
    r = clsort_run_length_encode(cs, dk, dko, dlen, n, &bk, &got, NULL);
    check(r == CLSORT_SUCCESS, "run-length encode", n, sp_names[sp], 0, 0, r);
    for (i = 0; i < n; ++i) if (i == 0 || s.k32[i] != s.k32[i - 1]) ++runs;
    if (r == CLSORT_SUCCESS) {
        download(cs, dko, runs * ks, kout);
        download(cs, dlen, runs * 4, len);
        download(cs, dcnt, 4, &dev_count);
        check(got == runs && dev_count == runs, "run-length encode count", n, sp_names[sp], 0, (double)runs, (double)got);
        for (i = 0, j = 0; i < n && ok && got == runs; ++i) {
            ++run;
            if (i + 1 == n || s.k32[i + 1] != s.k32[i]) {
                ok = len[j] == run && (ks == 4 ? ((uint32_t *)kout)[j] == s.k32[i] : ((uint64_t *)kout)[j] == s.k64[i]);
                ++j;
                run = 0;
            }
        }
        check(ok, "run-length encode keys and lengths", n, sp_names[sp], j, 0, 0);
    }
    if (with_values) {
        bk.values_in = dv;
        bk.values_out = dvo;
        bk.value_size = with_values == 2 ? 8 : 4;
    }
    r = clsort_unique(cs, dk, dko, n, &bk, &got2, NULL);
    check(r == CLSORT_SUCCESS && got2 == runs, "unique", n, sp_names[sp], 0, (double)runs, (double)got2);
    if (r == CLSORT_SUCCESS && got2 == runs) {
        size_t vs = bk.value_size;
        download(cs, dko, runs * ks, kout);
        if (vs) download(cs, dvo, runs * vs, vout);
        ok = 1;
        for (i = 0, j = 0; i < n && ok; ++i)
            if (i == 0 || s.k32[i] != s.k32[i - 1]) {
                ok = (ks == 4 ? ((uint32_t *)kout)[j] == s.k32[i] : ((uint64_t *)kout)[j] == s.k64[i]) &&
                     (!vs || memcmp(vout + j * vs, vals + i * vs, vs) == 0);
                ++j;
            }
        check(ok, with_values ? "unique keys and first values" : "unique keys", n, sp_names[sp], j, 0, 0);
    }
    clReleaseMemObject(dk); clReleaseMemObject(dko); clReleaseMemObject(dlen);
    clReleaseMemObject(dv); clReleaseMemObject(dvo); clReleaseMemObject(dcnt);
    rd_segs_free(&s);
    free(kout); free(vals); free(vout); free(len);
}

/* clsort_reduce to the host and to a device buffer. */
static void test_rd_reduce_case(clsort_context *cs, clsort_type t, clsort_op op, size_t n, int d)
{
    size_t es = clsort_type_size(t), i;
    unsigned char *in = (unsigned char *)malloc(n * es + 8);
    uint64_t acc, got = 0, got_dev = 0;
    double mag = 0;
    cl_mem din, dres;
    clsort_reduce_desc rd;
    char what[64];
    int r;
    rd_fill(in, t, n, d);
    acc = rd_ident(t, op);
    for (i = 0; i < n; ++i) {
        uint64_t x = rd_clean(t, op, rd_get(in, t, i));
        double ax = fabs(rd_as_double(t, x));
        acc = rd_apply(t, op, acc, x);
        if (ax == ax) mag += ax;
    }
    din = buffer(cs, n * es, in);
    dres = buffer(cs, 8, NULL);
    memset(&rd, 0, sizeof rd);
    rd.type = t;
    rd.op = op;
    rd.result = dres;
    snprintf(what, sizeof what, "reduce %s %s", rd_tn[t], rd_opn[op]);
    r = clsort_reduce(cs, din, n, &rd, &got, NULL);
    if (!(t == CLSORT_F64 && r == CLSORT_ERROR_UNSUPPORTED)) {
        check(r == CLSORT_SUCCESS, what, n, "-", 0, 0, r);
        download(cs, dres, es, &got_dev);
        check(rd_match(t, op, got, acc, mag) && got == got_dev, what, n, d == 0 ? "random" : d == 1 ? "max (wraps)" : "small",
              0, rd_as_double(t, acc), rd_as_double(t, got));
    }
    clReleaseMemObject(din); clReleaseMemObject(dres);
    free(in);
}

/* Histogram: samples on bin edges, below, above, NaN; bins from 1 to past
 * the local-memory counters; accumulate. */
static void test_rd_hist_case(clsort_context *cs, clsort_type t, size_t n, unsigned bins, int accumulate)
{
    size_t es = clsort_type_size(t), i;
    unsigned char *in = (unsigned char *)calloc(n * es + 8, 1);
    uint32_t *ref = (uint32_t *)calloc(bins, 4), *got = (uint32_t *)malloc(bins * 4);
    clsort_histogram_desc hd;
    cl_mem ds, dc;
    char what[64];
    int r;
    memset(&hd, 0, sizeof hd);
    hd.type = t;
    hd.bins = bins;
    hd.accumulate = accumulate;
    for (i = 0; i < bins; ++i) ref[i] = accumulate ? (uint32_t)i * 3u : 0u;
    if (t == CLSORT_F32 || t == CLSORT_F64) {
        hd.lower = -5.0;
        hd.upper = 20.0;
        for (i = 0; i < n; ++i) {
            double v;
            uint64_t c = rnd64() % 8;
            v = c == 0 ? NAN : c == 1 ? hd.lower + (hd.upper - hd.lower) * (double)(rnd64() % (bins + 1)) / bins /* edges */
              : c == 2 ? hd.upper : c == 3 ? hd.lower : c == 4 ? -1e30 : (double)(rnd64() % 30001) / 1000.0 - 7.5;
            if (t == CLSORT_F32) ((float *)in)[i] = (float)v;
            else ((double *)in)[i] = v;
        }
        for (i = 0; i < n; ++i) {
            if (t == CLSORT_F32) {
                float x = ((float *)in)[i], lo = (float)hd.lower, hi = (float)hd.upper, sc = (float)bins / (hi - lo), f;
                if (!(x >= lo && x < hi)) continue;
                f = (x - lo) * sc;
                ref[f >= (float)bins ? bins - 1 : (uint32_t)f]++;
            } else {
                double x = ((double *)in)[i], sc = (double)bins / (hd.upper - hd.lower), f;
                if (!(x >= hd.lower && x < hd.upper)) continue;
                f = (x - hd.lower) * sc;
                ref[f >= (double)bins ? bins - 1 : (uint32_t)f]++;
            }
        }
    } else {
        int64_t lo, hi;
        if (t == CLSORT_I32 && bins == 256) { lo = -2147483647 - 1; hi = 2147483648ll; } /* the whole type */
        else if (t == CLSORT_U32 && bins == 256) { lo = 0; hi = (int64_t)1 << 32; }
        else if (t == CLSORT_I32 || t == CLSORT_I64) { lo = -1000; hi = 3333; }
        else if (t == CLSORT_U32) { lo = 7; hi = 0xfffffff0; }
        else { lo = (int64_t)(1ull << 40); hi = (int64_t)0xF000000000000000ull; }
        hd.lower_int = lo;
        hd.upper_int = hi;
        for (i = 0; i < n; ++i) {
            uint64_t r64 = rnd64(), c = r64 % 4, x;
            if (es == 4 && bins == 256) x = r64 >> 32;
            else if (t == CLSORT_I32 || t == CLSORT_I64) x = (uint64_t)(int64_t)((int64_t)(r64 >> 8) % 5000 - 1500);
            else x = r64 >> (t == CLSORT_U32 ? 32 : 0);
            if (c == 0) x = (uint64_t)lo; /* the lower edge */
            if (c == 1) x = (uint64_t)hi - (r64 >> 62); /* near and at the upper edge (hi itself is out) */
            if (es == 4) ((uint32_t *)in)[i] = (uint32_t)x;
            else ((uint64_t *)in)[i] = x;
        }
        for (i = 0; i < n; ++i) {
            uint64_t x = rd_get(in, t, i), d;
            int inside;
            if (t == CLSORT_I32) inside = (int32_t)x >= lo && (int32_t)x < hi;
            else if (t == CLSORT_I64) inside = (int64_t)x >= lo && (int64_t)x < hi;
            else inside = x >= (uint64_t)lo && x < (uint64_t)hi;
            if (!inside) continue;
            d = x - (uint64_t)lo;
            if (es == 4) d &= 0xffffffffu;
            { /* floor(d * bins / range), exact */
                uint64_t range = (uint64_t)hi - (uint64_t)lo;
                ref[(uint32_t)(((rd_u128)d * bins) / range)]++;
            }
        }
    }
    ds = buffer(cs, n * es, in);
    dc = buffer(cs, bins * 4, NULL);
    if (accumulate) { for (i = 0; i < bins; ++i) got[i] = (uint32_t)i * 3u; clEnqueueWriteBuffer(clsort_cl_queue(cs), dc, CL_TRUE, 0, bins * 4, got, 0, NULL, NULL); }
    snprintf(what, sizeof what, "histogram %s %u bins%s", rd_tn[t], bins, accumulate ? " accumulate" : "");
    r = clsort_histogram_even(cs, ds, n, dc, &hd, NULL);
    if (!(t == CLSORT_F64 && r == CLSORT_ERROR_UNSUPPORTED)) {
        check(r == CLSORT_SUCCESS, what, n, "edges/outside/NaN", 0, 0, r);
        download(cs, dc, bins * 4, got);
        for (i = 0; i < bins && got[i] == ref[i]; ++i) {}
        check(i == bins, what, n, "edges/outside/NaN", i, i < bins ? ref[i] : 0, i < bins ? got[i] : 0);
    }
    clReleaseMemObject(ds); clReleaseMemObject(dc);
    free(in); free(ref); free(got);
}

/* Determinism on the look-back path: repeated f32 scans (no segments, and
 * u8 flags) and reductions of the same input give the same bits every run. */
static void test_rd_determinism(clsort_context *cs, size_t n, int runs)
{
    float *in = (float *)malloc(n * 4), *a = (float *)malloc(n * 4), *b = (float *)malloc(n * 4);
    uint8_t *fl = (uint8_t *)malloc(n);
    size_t i;
    int k, j, same = 1, rsame = 1;
    float r0 = 0, r1 = 0;
    cl_mem din, dfl, dout;
    clsort_reduce_desc d;
    for (i = 0; i < n; ++i) { /* magnitudes over 2^16: many roundings, each order its own sum */
        in[i] = (float)((double)(rnd64() % 2000001) / 1000.0 - 1000.0) * (float)(1u << (rnd64() % 16));
        fl[i] = rnd64() % 50000 == 0;
    }
    din = buffer(cs, n * 4, in);
    dfl = buffer(cs, n, fl);
    dout = buffer(cs, n * 4, NULL);
    memset(&d, 0, sizeof d);
    d.type = CLSORT_F32;
    d.inclusive = 1;
    for (k = 0; k < 2 && same; ++k) { /* runs / 2 scans of each segmentation against its first */
        d.segments = k ? CLSORT_SEGMENTS_FLAGS_U8 : CLSORT_SEGMENTS_NONE;
        d.segment_data = k ? dfl : NULL;
        for (j = 0; j <= runs / 2 && same; ++j) {
            if (clsort_segmented_scan(cs, din, dout, n, &d, NULL) != CLSORT_SUCCESS) { same = 0; break; }
            download(cs, dout, n * 4, j ? b : a);
            if (j && memcmp(a, b, n * 4) != 0) same = 0;
        }
    }
    memset(&d, 0, sizeof d);
    d.type = CLSORT_F32;
    for (k = 0; k < runs && rsame; ++k) {
        if (clsort_reduce(cs, din, n, &d, k ? (void *)&r1 : (void *)&r0, NULL) != CLSORT_SUCCESS) rsame = 0;
        else if (k && memcmp(&r0, &r1, 4) != 0) rsame = 0;
    }
    check(same, "segmented scan f32: repeated runs bitwise equal", n, "random", 0, 0, 0);
    check(rsame, "reduce f32: repeated runs bitwise equal", n, "random", 0, r0, r1);
    printf("    determinism: %d runs of %lu-element f32 scans and reductions, bitwise %s\n", runs, (unsigned long)n,
           same && rsame ? "equal" : "DIFFERENT");
    clReleaseMemObject(din); clReleaseMemObject(dfl); clReleaseMemObject(dout);
    free(in); free(a); free(b); free(fl);
}

/* Reduce-by-key of f32 sums with runs across many tiles: repeated runs give
 * the same bits (the family's promise on both paths and every variant). */
static void test_rd_bykey_determinism(clsort_context *cs, size_t n, int runs)
{
    float *in = (float *)malloc(n * 4), *a = (float *)malloc(n * 4), *b = (float *)malloc(n * 4);
    uint32_t *keys = (uint32_t *)malloc(n * 4), key = 0;
    size_t i, c0 = 0, c1 = 0;
    int k, same = 1;
    cl_mem dk, dv, dko, dvo;
    clsort_by_key_desc bk;
    for (i = 0; i < n; ++i) {
        in[i] = (float)((double)(rnd64() % 2000001) / 1000.0 - 1000.0) * (float)(1u << (rnd64() % 16));
        if (rnd64() % 20000 == 0) ++key; /* runs of ~20000: each spans several tiles */
        keys[i] = key;
    }
    dk = buffer(cs, n * 4, keys);
    dv = buffer(cs, n * 4, in);
    dko = buffer(cs, n * 4, NULL);
    dvo = buffer(cs, n * 4, NULL);
    memset(&bk, 0, sizeof bk);
    bk.key_type = CLSORT_U32;
    bk.type = CLSORT_F32;
    for (k = 0; k < runs && same; ++k) {
        if (clsort_reduce_by_key(cs, dk, dv, dko, dvo, n, &bk, k ? &c1 : &c0, NULL) != CLSORT_SUCCESS) {
            same = 0;
            break;
        }
        download(cs, dvo, (k ? c1 : c0) * 4, k ? b : a);
        if (k && (c1 != c0 || memcmp(a, b, c0 * 4) != 0)) same = 0;
    }
    check(same && c0 == (size_t)key + 1, "reduce by key f32: repeated runs bitwise equal", n, "random", 0, (double)key + 1,
          (double)c0);
    clReleaseMemObject(dk); clReleaseMemObject(dv); clReleaseMemObject(dko); clReleaseMemObject(dvo);
    free(in); free(a); free(b); free(keys);
}

/* The tile kernel variants (clsort_tuning.rbk_variant): variant 0 (the
 * Hillis-Steele pair scan, unique and run-length encode on the general
 * pass) at the device's tile, variant 1 (the raking pair scan, the heads
 * kernels) at GPU-like widths: 256 work-items (32 lanes of 8) and 64 (lanes
 * of 2), variant 2 (keys staged as flags) at 256, and variant 3 (registers,
 * warp-shuffle pair scan) at the device's tile, 256 x 4 (8 warps), 64 x 32
 * (a whole word of segment starts per work-item) and 16 x 2 (one warp of 16),
 * around tile borders, for each head pattern; variant 3 also with every
 * segment kind, 8-byte values (two shuffles per value), min / max and in
 * place, since its tile code is its own. */
static void test_rd_variants(clsort_context *cs, int tiny)
{
    static const unsigned shapes[][3] = {{1, 0, 0},   {2, 256, 4}, {2, 64, 2}, {3, 256, 4},
                                         {4, 0, 0},   {4, 256, 4}, {4, 64, 32}, {4, 16, 2}}; /* rbk_variant, wg, items */
    static const int pats[] = {SP_NONE, SP_ALL, SP_SHORT, SP_ENDS, SP_TILES};
    int v, p;
    size_t i;
    for (v = 0; v < (int)(sizeof shapes / sizeof shapes[0]); ++v) {
        clsort_tuning tu;
        clsort_context *vc;
        size_t tile, ns[6];
        memset(&tu, 0, sizeof tu);
        tu.rbk_variant = (int)shapes[v][0];
        tu.tile_wg = shapes[v][1];
        tu.tile_items = shapes[v][2];
        vc = tuned_context(cs, &tu, "context with a reduction kernel variant");
        if (!vc) continue;
        /* u32 keys: the tile as asked; the default tile measured by its
         * largest (4096 on GPUs at 8 staged bytes; CPUs 4 x 1024) */
        tile = shapes[v][1] ? (size_t)shapes[v][1] * shapes[v][2] : 4096;
        ns[0] = 1; ns[1] = tile - 1; ns[2] = tile; ns[3] = tile + 1; ns[4] = 2 * tile + 1; ns[5] = 9 * tile + 7;
        rd_depth = 70000;
        for (i = 0; i < (tiny ? 4u : 6u); ++i)
            for (p = 0; p < 5; ++p) {
                size_t n = ns[i];
                if (tiny && p != 1 && p != 4) continue;
                test_rd_rle_case(vc, (i + (size_t)p) & 1 ? CLSORT_U64 : CLSORT_U32, n, pats[p], (int)((i + (size_t)p) % 3));
                if ((i + (size_t)p) % 2 == 0)
                    test_rd_seg_case(vc, p & 1 ? CLSORT_F32 : CLSORT_U32, CLSORT_OP_SUM, CLSORT_SEGMENTS_KEYS,
                                     CLSORT_U32, n, pats[p], 0, 1, 0, 0);
                if (shapes[v][0] == 4 && (!tiny || (i + (size_t)p) % 2)) {
                    /* variant 3: another segment kind, type and operator each time */
                    static const clsort_type vt[] = {CLSORT_U64, CLSORT_F64, CLSORT_I32, CLSORT_F32, CLSORT_I64};
                    int sk = (int)((i + (size_t)p) % 5), k = (int)((i * 5 + (size_t)p) % 5);
                    test_rd_seg_case(vc, vt[k], (clsort_op)((i + (size_t)p) % 3), (clsort_segments)sk,
                                     p & 1 ? CLSORT_U64 : CLSORT_U32, n, pats[p], (int)(i % 3), (int)(p & 1),
                                     (int)(i & 1), (int)(p == 2));
                }
            }
        if (!tiny) test_rd_bykey_determinism(vc, (size_t)1 << 17, 4);
        clsort_destroy(vc);
    }
}

/* Bad arguments: an error with a message, outputs untouched. */
static void test_rd_arguments(clsort_context *cs)
{
    uint32_t in[64], pat[64], back[64], off[4] = {0, 10, 5, 64};
    cl_mem din, dout, dsmall, dflags;
    clsort_reduce_desc d;
    clsort_by_key_desc bk;
    clsort_histogram_desc hd;
    size_t i, cnt = 77;
    uint32_t res = 0;
    struct { const char *what; clsort_result r; } c[24];
    int nc = 0, k;
    for (i = 0; i < 64; ++i) { in[i] = (uint32_t)i; pat[i] = 0xdeadbeefu; }
    din = buffer(cs, sizeof in, in);
    dout = buffer(cs, sizeof pat, pat);
    dsmall = buffer(cs, 16, pat);
    dflags = buffer(cs, sizeof in, in);
    memset(&d, 0, sizeof d);
    c[nc].what = "reduce: NULL context"; c[nc++].r = clsort_reduce(NULL, din, 64, &d, &res, NULL);
    c[nc].what = "reduce: no result asked"; c[nc++].r = clsort_reduce(cs, din, 64, &d, NULL, NULL);
    c[nc].what = "reduce: NULL in"; c[nc++].r = clsort_reduce(cs, NULL, 64, &d, &res, NULL);
    c[nc].what = "reduce: n past the end"; c[nc++].r = clsort_reduce(cs, dsmall, 64, &d, &res, NULL);
    d.op = (clsort_op)7;
    c[nc].what = "reduce: unknown op"; c[nc++].r = clsort_reduce(cs, din, 64, &d, &res, NULL);
    d.op = CLSORT_OP_SUM;
    c[nc].what = "segmented scan: out too small"; c[nc++].r = clsort_segmented_scan(cs, din, dsmall, 64, &d, NULL);
    d.inclusive = 2;
    c[nc].what = "segmented scan: inclusive 2"; c[nc++].r = clsort_segmented_scan(cs, din, dout, 64, &d, NULL);
    d.inclusive = 0;
    d.segments = (clsort_segments)9;
    c[nc].what = "segmented scan: unknown segments"; c[nc++].r = clsort_segmented_scan(cs, din, dout, 64, &d, NULL);
    d.segments = CLSORT_SEGMENTS_FLAGS_U32;
    c[nc].what = "segmented scan: NULL flags"; c[nc++].r = clsort_segmented_scan(cs, din, dout, 64, &d, NULL);
    d.segment_data = dout;
    c[nc].what = "segmented scan: flags are out"; c[nc++].r = clsort_segmented_scan(cs, din, dout, 64, &d, NULL);
    d.segment_data = dsmall;
    c[nc].what = "segmented scan: flags too small"; c[nc++].r = clsort_segmented_scan(cs, din, dout, 64, &d, NULL);
    d.segments = CLSORT_SEGMENTS_OFFSETS;
    d.segment_data = NULL;
    d.segment_data_host = off;
    d.segment_count = 3;
    c[nc].what = "segmented scan: decreasing offsets"; c[nc++].r = clsort_segmented_scan(cs, din, dout, 64, &d, NULL);
    off[2] = 20;
    d.segment_data = dflags;
    c[nc].what = "segmented reduce: offsets twice"; c[nc++].r = clsort_segmented_reduce(cs, din, dout, 64, &d, NULL);
    d.segment_data = NULL;
    d.segments = CLSORT_SEGMENTS_FLAGS_U8;
    c[nc].what = "segmented reduce: flags"; c[nc++].r = clsort_segmented_reduce(cs, din, dout, 64, &d, NULL);
    memset(&bk, 0, sizeof bk);
    c[nc].what = "reduce by key: out is in"; c[nc++].r = clsort_reduce_by_key(cs, din, dflags, dout, dflags, 64, &bk, &cnt, NULL);
    bk.key_type = (clsort_type)11;
    c[nc].what = "reduce by key: unknown key type"; c[nc++].r = clsort_reduce_by_key(cs, din, dflags, NULL, dout, 64, &bk, &cnt, NULL);
    bk.key_type = CLSORT_U32;
    c[nc].what = "unique: NULL keys_out"; c[nc++].r = clsort_unique(cs, din, NULL, 64, &bk, &cnt, NULL);
    bk.values_in = dflags;
    c[nc].what = "unique: values_in alone"; c[nc++].r = clsort_unique(cs, din, dout, 64, &bk, &cnt, NULL);
    bk.values_in = NULL;
    c[nc].what = "run-length encode: lengths too small"; c[nc++].r = clsort_run_length_encode(cs, din, NULL, dsmall, 64, &bk, &cnt, NULL);
    memset(&hd, 0, sizeof hd);
    c[nc].what = "histogram: 0 bins"; c[nc++].r = clsort_histogram_even(cs, din, 64, dout, &hd, NULL);
    hd.bins = 16;
    hd.lower_int = 5;
    hd.upper_int = 5;
    c[nc].what = "histogram: empty range"; c[nc++].r = clsort_histogram_even(cs, din, 64, dout, &hd, NULL);
    hd.type = CLSORT_F32;
    hd.lower = 0;
    hd.upper = NAN;
    c[nc].what = "histogram: NaN bound"; c[nc++].r = clsort_histogram_even(cs, din, 64, dout, &hd, NULL);
    hd.upper = 1;
    hd.bins = 100;
    c[nc].what = "histogram: counts too small"; c[nc++].r = clsort_histogram_even(cs, din, 64, dsmall, &hd, NULL);
    for (k = 0; k < nc; ++k)
        check(c[k].r == CLSORT_ERROR_INVALID_ARGUMENT && (k == 0 || clsort_last_error(cs)[0] != '\0'), c[k].what, 64,
              "-", 0, CLSORT_ERROR_INVALID_ARGUMENT, c[k].r);
    download(cs, dout, sizeof back, back);
    check(memcmp(back, pat, sizeof pat) == 0 && cnt == 77 && res == 0, "reduction family: outputs untouched by bad calls",
          64, "-", 0, 0, 0);
    download(cs, din, sizeof back, back);
    check(memcmp(back, in, sizeof in) == 0, "reduction family: inputs untouched by bad calls", 64, "-", 0, 0, 0);
    clReleaseMemObject(din); clReleaseMemObject(dout); clReleaseMemObject(dsmall); clReleaseMemObject(dflags);
}

static void test_rd_host(clsort_context *cs)
{
    uint32_t in[8] = {3, 1, 4, 1, 5, 9, 2, 6}, out[8], fl[8] = {0, 0, 1, 0, 0, 1, 0, 0}, off[5] = {0, 2, 2, 5, 8};
    uint32_t keys[8] = {7, 7, 1, 1, 1, 7, 7, 7}, ko[8], vo[8], len[8], counts[4], sum = 0;
    uint32_t want_scan[8] = {3, 4, 4, 5, 10, 9, 11, 17}, want_red[4] = {4, 0, 10, 17};
    uint32_t want_k[3] = {7, 1, 7}, want_v[3] = {4, 10, 17}, want_len[3] = {2, 3, 3}, want_h[4] = {3, 2, 2, 0};
    float fs[5] = {0.5f, NAN, 2.0f, -1.0f, 3.999f};
    size_t cnt = 0;
    clsort_reduce_desc d;
    clsort_by_key_desc bk;
    clsort_histogram_desc hd;
    memset(&d, 0, sizeof d);
    memset(&bk, 0, sizeof bk);
    memset(&hd, 0, sizeof hd);
    check(clsort_reduce_host(cs, CLSORT_U32, CLSORT_OP_SUM, in, 8, &sum) == CLSORT_SUCCESS && sum == 31, "reduce_host",
          8, "-", 0, 31, sum);
    d.inclusive = 1;
    d.segments = CLSORT_SEGMENTS_FLAGS_U32;
    d.segment_data_host = fl;
    check(clsort_segmented_scan_host(cs, in, out, 8, &d) == CLSORT_SUCCESS && memcmp(out, want_scan, sizeof out) == 0,
          "segmented_scan_host", 8, "-", 0, 0, 0);
    d.segments = CLSORT_SEGMENTS_OFFSETS;
    d.segment_data_host = off;
    d.segment_count = 4;
    check(clsort_segmented_reduce_host(cs, in, out, 8, &d) == CLSORT_SUCCESS && memcmp(out, want_red, sizeof want_red) == 0,
          "segmented_reduce_host (an empty segment: 0)", 8, "-", 0, 0, 0);
    check(clsort_reduce_by_key_host(cs, keys, in, ko, vo, 8, &bk, &cnt) == CLSORT_SUCCESS && cnt == 3 &&
          memcmp(ko, want_k, 12) == 0 && memcmp(vo, want_v, 12) == 0, "reduce_by_key_host", 8, "-", 0, 3, (double)cnt);
    check(clsort_run_length_encode_host(cs, keys, ko, len, 8, &bk, &cnt) == CLSORT_SUCCESS && cnt == 3 &&
          memcmp(ko, want_k, 12) == 0 && memcmp(len, want_len, 12) == 0, "run_length_encode_host", 8, "-", 0, 3, (double)cnt);
    check(clsort_unique_host(cs, keys, in, ko, vo, 8, &bk, &cnt) == CLSORT_SUCCESS && cnt == 3 &&
          memcmp(ko, want_k, 12) == 0 && vo[0] == 3 && vo[1] == 4 && vo[2] == 9, "unique_host with values", 8, "-", 0, 3,
          (double)cnt);
    hd.type = CLSORT_F32;
    hd.bins = 4;
    hd.lower = 0;
    hd.upper = 4;
    {
        float f2[5];
        memcpy(f2, fs, sizeof f2);
        f2[3] = 1.0f;
        check(clsort_histogram_even_host(cs, f2, 5, counts, &hd) == CLSORT_SUCCESS && counts[0] == 1 && counts[1] == 1 &&
              counts[2] == 1 && counts[3] == 1, "histogram_even_host f32 (NaN not counted)", 5, "-", 0, 0, 0);
    }
    hd.type = CLSORT_U32;
    hd.lower_int = 1;
    hd.upper_int = 9;
    check(clsort_histogram_even_host(cs, in, 8, counts, &hd) == CLSORT_SUCCESS && memcmp(counts, want_h, 16) == 0,
          "histogram_even_host u32 (9 above the range)", 8, "-", 0, 0, 0);
}

static void test_reduce(clsort_context *cs, int quick, int tiny, int lookback)
{
    static const size_t sizes[] = {0, 1, 2, 7, 31, 257, 1009, 2047, 2048, 2049, 4095, 4096, 4097, 8193, 65537, 300007};
    size_t nsz = sizeof sizes / sizeof sizes[0], s, kmax;
    int t, op, sp, sk;
    clsort_context *small;
    printf("  reductions: reduce, segmented scan / reduce, by key, run-length, unique, histogram...\n");
    fflush(stdout);
    rd_depth = 4 * (1024 + 64) + 8;
    kmax = tiny ? 6 : quick ? 14 : nsz;
    /* every type and operator: reduce, and segmented scans with u32 flags.
     * --quick on the look-back path (whose kernels differ from the portable
     * ones only in the cross-tile step, the same for every operator): sums of
     * every type, min and max of f32 and i64, to bound the kernel builds */
#define RD_OPS_HERE(t, op) (!quick || !lookback || (op) == CLSORT_OP_SUM || (t) == CLSORT_F32 || (t) == CLSORT_I64)
    for (t = CLSORT_U32; t < T_WIDE_END; ++t)
        for (op = 0; op < 3; ++op)
            for (s = 0; s < kmax && RD_OPS_HERE(t, op); s += tiny ? 1 : 2) {
                size_t n = sizes[s];
                rd_depth = ceil((double)n / 2048.0) + 4 * (1024 + 64) + 8;
                test_rd_reduce_case(cs, (clsort_type)t, (clsort_op)op, n, (int)(s % 3));
                test_rd_seg_case(cs, (clsort_type)t, (clsort_op)op, CLSORT_SEGMENTS_FLAGS_U32, CLSORT_U32, n,
                                 (int)((s + (size_t)t) % SP_COUNT), (int)(s % 3), (int)(s / 2 & 1), (int)(s % 4 == 1), 0);
            }
    /* every segmentation kind and pattern on u32 sums and f32 (sum, max) */
    for (sk = CLSORT_SEGMENTS_NONE; sk <= CLSORT_SEGMENTS_OFFSETS; ++sk)
        for (sp = 0; sp < SP_COUNT; ++sp)
            for (s = (size_t)(quick && !tiny) * (size_t)(sp & 1); s < kmax; s += quick && !tiny ? 2 : 1) {
                size_t n = sizes[s];
                if (tiny && sp > SP_SHORT && sp != SP_TILES) continue;
                if (n > 70000 && sp != SP_SHORT && sp != SP_LONG) continue;
                rd_depth = ceil((double)n / 2048.0) + 4 * (1024 + 64) + 8;
                test_rd_seg_case(cs, CLSORT_U32, CLSORT_OP_SUM, (clsort_segments)sk, s & 1 ? CLSORT_U64 : CLSORT_U32, n,
                                 sp, 2, (int)(s & 1), (int)(s % 3 == 0), (int)(s & 2));
                if ((s + (size_t)sp) % 3 == 0)
                    test_rd_seg_case(cs, CLSORT_F32, (s & 4) ? CLSORT_OP_MAX : CLSORT_OP_SUM, (clsort_segments)sk,
                                     CLSORT_U32, n, sp, 0, (int)((s & 1) ^ 1), 0, (int)(s & 1));
            }
    /* reduce-by-key, segmented reduce: every type and operator */
    for (t = CLSORT_U32; t < T_WIDE_END; ++t)
        for (op = 0; op < 3; ++op) {
            size_t n = tiny ? 4097 : quick ? 8193 : 65537;
            if (!RD_OPS_HERE(t, op)) continue;
            rd_depth = ceil((double)n / 2048.0) + 4 * (1024 + 64) + 8;
            test_rd_seg_case(cs, (clsort_type)t, (clsort_op)op, CLSORT_SEGMENTS_KEYS, op == 1 ? CLSORT_U64 : CLSORT_U32,
                             n, op == 2 ? SP_TILES : SP_SHORT, t % 3, 1, 0, 0);
            test_rd_seg_case(cs, (clsort_type)t, (clsort_op)op, CLSORT_SEGMENTS_OFFSETS, CLSORT_U32, n, SP_SHORT,
                             t % 3, 0, 0, op & 1);
        }
    /* run-length encode, unique */
    for (s = 0; s < kmax; ++s)
        for (sp = 0; sp < SP_COUNT; ++sp) {
            if ((tiny || sizes[s] > 70000) && sp != SP_SHORT && sp != SP_TILES) continue;
            test_rd_rle_case(cs, (s + (size_t)sp) & 1 ? CLSORT_U64 : CLSORT_U32, sizes[s], sp, (int)((s + (size_t)sp) % 3));
        }
    /* histogram */
    for (t = CLSORT_U32; t < T_WIDE_END; ++t) {
        static const unsigned bins[] = {1, 7, 256, 5000};
        int b;
        for (b = 0; b < 4; ++b) {
            test_rd_hist_case(cs, (clsort_type)t, tiny ? 1000 : quick ? 20000 : 300007, bins[b], b == 2);
            if (!tiny) test_rd_hist_case(cs, (clsort_type)t, (size_t)b, bins[b], 0);
        }
    }
    /* tiny tiles: many carry levels at small n (depth: any order) */
    small = tile_context(cs, 4, 16); /* 64-element tiles (32 with 8-byte values) */
    if (small) {
        rd_depth = 70000;
        for (t = CLSORT_U32; t < T_WIDE_END; t += 2)
            for (sk = CLSORT_SEGMENTS_NONE; sk <= CLSORT_SEGMENTS_OFFSETS; ++sk)
                test_rd_seg_case(small, (clsort_type)t, (clsort_op)(sk % 3), (clsort_segments)sk, CLSORT_U32,
                                 tiny ? 300 : 65537, SP_SHORT, 0, sk & 1, 0, 0);
        test_rd_rle_case(small, CLSORT_U32, tiny ? 300 : 65537, SP_SHORT, 1);
        clsort_destroy(small);
    }
    if (!quick) {
        rd_depth = ceil((double)(1 << 22) / 2048.0) + 4 * (1024 + 64) + 8;
        test_rd_seg_case(cs, CLSORT_F32, CLSORT_OP_SUM, CLSORT_SEGMENTS_FLAGS_U8, CLSORT_U32, (size_t)1 << 22, SP_LONG, 0, 1,
                         0, 0);
        test_rd_seg_case(cs, CLSORT_U32, CLSORT_OP_SUM, CLSORT_SEGMENTS_KEYS, CLSORT_U32, ((size_t)1 << 22) + 1, SP_SHORT,
                         0, 0, 0, 0);
        test_rd_reduce_case(cs, CLSORT_F32, CLSORT_OP_SUM, (size_t)1 << 22, 0);
    }
    if (lookback && !tiny) test_rd_determinism(cs, quick ? (size_t)1 << 18 : (size_t)1 << 22, quick ? 10 : 50);
    if (!tiny) test_rd_bykey_determinism(cs, quick ? (size_t)1 << 18 : (size_t)1 << 22, quick ? 4 : 10);
    test_rd_variants(cs, tiny);
    test_rd_arguments(cs);
    test_rd_host(cs);
}

/* ---- trees: Morton codes, radix tree, summaries, Barnes-Hut ---- */

static const char *tree_dist_names[] = {"uniform", "all-equal", "duplicates", "clustered", "plummer", "two spheres",
                                        "disc"};
enum { T_UNIFORM, T_EQUAL, T_DUP, T_CLUSTER, T_PLUMMER, T_SPHERES, T_DISC, T_COUNT };

/* n float4 bodies (x, y, z, m). */
static void tree_points_make(float *pos, size_t n, int dist)
{
    size_t i;
    float *vel = NULL;
    if (dist == T_PLUMMER || dist == T_SPHERES) {
        vel = (float *)malloc(n * 16 + 16);
        plummer(pos, vel, n, 1.0);
        free(vel);
        /* two spheres: every other body moved to a second sphere, half the size, 6 away */
        for (i = 1; i < n && dist == T_SPHERES; i += 2) {
            pos[4 * i] = pos[4 * i] * 0.5f + 6.0f;
            pos[4 * i + 1] *= 0.5f;
            pos[4 * i + 2] = pos[4 * i + 2] * 0.5f + 1.0f;
        }
        return;
    }
    if (dist == T_DISC) { /* exponential disc, scale length 1, thickness 0.05, a small bulge */
        for (i = 0; i < n; ++i) {
            double r = -log(1.0 - urand() * 0.9999), ph = 6.283185307179586 * urand();
            if (i % 8 == 0) r *= 0.1;
            pos[4 * i] = (float)(r * cos(ph));
            pos[4 * i + 1] = (float)(r * sin(ph));
            pos[4 * i + 2] = (float)(0.05 * (urand() + urand() - 1.0));
            pos[4 * i + 3] = 1.0f / (float)n;
        }
        return;
    }
    for (i = 0; i < n; ++i) {
        float *p = pos + 4 * i;
        int a;
        if (dist == T_UNIFORM) for (a = 0; a < 3; ++a) p[a] = (float)(urand() * 2.0 - 1.0);
        else if (dist == T_EQUAL) p[0] = 0.25f, p[1] = -1.5f, p[2] = 3.0f;
        else if (dist == T_DUP) for (a = 0; a < 3; ++a) p[a] = (float)(rnd64() % 3) * 0.5f;
        else { /* two Gaussian-ish spheres and a thin disc */
            int which = (int)(i % 3);
            double r = pow(urand(), 2.0) * (which == 2 ? 3.0 : 0.5), z = 2.0 * urand() - 1.0,
                   ph = 6.283185307179586 * urand(), s = sqrt(1.0 - z * z);
            double cx = which == 0 ? -2.0 : which == 1 ? 2.5 : 0.0;
            p[0] = (float)(cx + r * s * cos(ph));
            p[1] = (float)(r * s * sin(ph));
            p[2] = (float)(which == 2 ? 0.01 * (urand() - 0.5) : r * z);
        }
        p[3] = (float)(0.5 + urand()) / (float)n;
    }
}

/* Karras' delta on the host: common prefix of codes i, j with the index as tie-breaker. */
static int tree_delta(const uint64_t *c, size_t n, unsigned kb, long i, long j)
{
    uint64_t x;
    int k = 0;
    if (j < 0 || (size_t)j >= n) return -1;
    if (c[i] == c[j]) {
        uint32_t y = (uint32_t)i ^ (uint32_t)j;
        while (k < 32 && !(y & (0x80000000u >> k))) ++k;
        return (int)kb + k;
    }
    x = c[i] ^ c[j];
    while (k < (int)kb && !(x & ((uint64_t)1 << (kb - 1 - (unsigned)k)))) ++k;
    return k;
}

/* The radix tree of the sorted codes, top-down: the node of range [f, l]
 * (index idx) splits after the last i whose prefix with f is longer than the
 * range's; its children are internal g / g + 1 or leaves. */
static void tree_reference(const uint64_t *c, size_t n, unsigned kb, uint32_t *nodes, uint32_t *parents)
{
    long *st = (long *)malloc(3 * 2 * n * sizeof(long) + 64);
    size_t sp = 0;
    if (n < 2) { free(st); return; }
    st[sp++] = 0; st[sp++] = (long)n - 1; st[sp++] = 0;
    parents[0] = 0xffffffffu;
    while (sp) {
        long idx = st[--sp], l = st[--sp], f = st[--sp], g = f, i;
        int common = tree_delta(c, n, kb, f, l);
        uint32_t left, right;
        for (i = f + 1; i < l; ++i) if (tree_delta(c, n, kb, f, i) > common) g = i;
        left = g == f ? (uint32_t)(n - 1 + (size_t)g) : (uint32_t)g;
        right = g + 1 == l ? (uint32_t)(n - 1 + (size_t)l) : (uint32_t)(g + 1);
        nodes[4 * idx] = left; nodes[4 * idx + 1] = right;
        nodes[4 * idx + 2] = (uint32_t)f; nodes[4 * idx + 3] = (uint32_t)l;
        parents[left] = parents[right] = (uint32_t)idx;
        if (g > f) { st[sp++] = f; st[sp++] = g; st[sp++] = g; }
        if (g + 1 < l) { st[sp++] = g + 1; st[sp++] = l; st[sp++] = g + 1; }
    }
    free(st);
}

static uint64_t tree_spread(uint64_t x, unsigned dims)
{
    uint64_t r = 0;
    unsigned b;
    for (b = 0; b < 32; ++b) if (x >> b & 1) r |= (uint64_t)1 << (b * dims);
    return r;
}

static uint64_t tree_cell(float p, float lo, float scale, unsigned bpa)
{
    float t = (p - lo) * scale, top = (float)((uint64_t)1 << bpa);
    return t >= 0.0f ? (t < top ? (uint64_t)t : ((uint64_t)1 << bpa) - 1) : 0;
}

static uint64_t tree_code_at(const void *codes, size_t ks, size_t i)
{
    return ks == 8 ? ((const uint64_t *)codes)[i] : ((const uint32_t *)codes)[i];
}

static const uint64_t *tree_sort_codes;
static int tree_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (tree_sort_codes[x] != tree_sort_codes[y]) return tree_sort_codes[x] < tree_sort_codes[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* One build of n points: records of `stride` floats (coordinates at `off`,
 * mass at `moff` or none), checked against the host: the box, every code, the
 * sorted codes and permutation, the points, every node (children, range,
 * split) and parent, and the summaries (boxes and extent exact, masses exact:
 * the same float additions in the same order, centres within 1e-6 of the box
 * of their node recomputed from the device's children, bmax an upper bound
 * of every point's distance from the centre). */
static void test_tree_case(clsort_context *cs, clsort_tree *tree, size_t n, int dist, unsigned dims, unsigned code_bits,
                           size_t stride, size_t off, int has_mass, int box_given)
{
    const char *dn = tree_dist_names[dist];
    char what[160];
    float *bodies = (float *)malloc(n * 16 + 16), *rec = (float *)calloc(n * stride + 4, 4), bounds[16];
    size_t i, ks, moff = off + dims, bad;
    unsigned bpa, a, kb;
    clsort_tree_desc td;
    clsort_tree_view v;
    clsort_result r;
    cl_mem pos;
    uint64_t *codes, *sorted;
    uint32_t *perm, *ref_perm, *nodes, *parents, *rnodes, *rparents;
    float *points, *lo, *hi, *com, *quad;
    snprintf(what, sizeof what, "tree %uD %u-bit stride %lu%s%s", dims, code_bits ? code_bits : 32,
             (unsigned long)stride, has_mass ? " masses" : "", box_given ? " given box" : "");
    tree_points_make(bodies, n, dist);
    for (i = 0; i < n; ++i) {
        for (a = 0; a < dims; ++a) rec[i * stride + off + a] = bodies[4 * i + a];
        if (has_mass) rec[i * stride + moff] = bodies[4 * i + 3];
    }
    memset(&td, 0, sizeof td);
    td.dims = dims;
    td.code_bits = code_bits;
    td.stride = stride * 4;
    td.offset = off * 4;
    td.has_mass = has_mass;
    td.mass_offset = moff * 4;
    if (box_given) for (a = 0; a < 3; ++a) td.box_lo[a] = -1.5f, td.box_hi[a] = 0.75f;
    td.box_given = box_given;
    pos = buffer(cs, n * stride * 4 + 16, rec);
    r = clsort_tree_build(cs, tree, pos, n, &td, NULL);
    check(r == CLSORT_SUCCESS, what, n, clsort_last_error(cs), 0, 0, r);
    clsort_tree_get_view(tree, &v);
    check(v.n == n, "tree view n", n, dn, 0, (double)n, (double)v.n);
    if (r != CLSORT_SUCCESS || n == 0) { clReleaseMemObject(pos); free(bodies); free(rec); return; }
    ks = v.code_size;
    kb = (unsigned)(8 * ks);
    bpa = v.code_bits / dims;
    codes = (uint64_t *)malloc(n * 8); sorted = (uint64_t *)malloc(n * 8);
    perm = (uint32_t *)malloc(n * 4); ref_perm = (uint32_t *)malloc(n * 4);
    nodes = (uint32_t *)malloc(n * 16); rnodes = (uint32_t *)calloc(n, 16);
    parents = (uint32_t *)malloc(n * 8); rparents = (uint32_t *)calloc(n, 8);
    points = (float *)malloc(n * 16); lo = (float *)malloc(n * 16); hi = (float *)malloc(n * 16);
    com = (float *)malloc(n * 16); quad = (float *)malloc(n * 32);
    {
        void *raw = malloc(n * ks);
        download(cs, v.codes, n * ks, raw);
        for (i = 0; i < n; ++i) sorted[i] = tree_code_at(raw, ks, i);
        free(raw);
    }
    download(cs, v.bounds, 64, bounds);
    download(cs, v.permutation, n * 4, perm);
    download(cs, v.points, n * 16, points);
    if (n > 1) {
        download(cs, v.nodes, (n - 1) * 16, nodes);
        download(cs, v.parents, (2 * n - 1) * 4, parents);
        download(cs, v.box_lo, (n - 1) * 16, lo);
        download(cs, v.box_hi, (n - 1) * 16, hi);
        download(cs, v.com, (n - 1) * 16, com);
        download(cs, v.quad, (n - 1) * 32, quad);
    }
    /* the box */
    for (a = 0; a < dims; ++a) {
        float mn = box_given ? td.box_lo[a] : rec[off + a], mx = box_given ? td.box_hi[a] : rec[off + a];
        for (i = 0; i < n && !box_given; ++i) {
            float x = rec[i * stride + off + a];
            mn = x < mn ? x : mn;
            mx = x > mx ? x : mx;
        }
        check(bounds[8 + a] == mn && bounds[12 + a] == mx, "tree box", n, dn, a, mn, bounds[8 + a]);
    }
    /* codes from the device's box and scale, then the stable order */
    for (i = 0; i < n; ++i) {
        uint64_t k = 0;
        for (a = 0; a < dims; ++a)
            k |= tree_spread(tree_cell(rec[i * stride + off + a], bounds[8 + a], bounds[11], bpa), dims) << a;
        codes[i] = k;
        ref_perm[i] = (uint32_t)i;
    }
    tree_sort_codes = codes;
    qsort(ref_perm, n, 4, tree_cmp);
    for (bad = 0; bad < n && perm[bad] == ref_perm[bad] && sorted[bad] == codes[ref_perm[bad]]; ++bad) {}
    check(bad == n, "tree codes and permutation", n, dn, bad, bad < n ? (double)codes[ref_perm[bad]] : 0,
          bad < n ? (double)sorted[bad] : 0);
    for (bad = 0; bad < n; ++bad) {
        const float *p = points + 4 * bad, *q = rec + (size_t)perm[bad % n] * stride;
        if (perm[bad] >= n || p[0] != q[off] || p[1] != q[off + 1] || p[2] != (dims == 3 ? q[off + 2] : 0.0f) ||
            p[3] != (has_mass ? q[moff] : 1.0f))
            break;
    }
    check(bad == n, "tree points", n, dn, bad, 0, 0);
    /* the structure against the host's, from the same sorted codes */
    tree_reference(sorted, n, kb, rnodes, rparents);
    for (bad = 0; bad + 1 < n && !memcmp(nodes + 4 * bad, rnodes + 4 * bad, 16); ++bad) {}
    check(n < 2 || bad == n - 1, "tree nodes (children, range, split)", n, dn, bad,
          bad + 1 < n ? rnodes[4 * bad + 2] * 1e6 + rnodes[4 * bad + 3] : 0,
          bad + 1 < n ? nodes[4 * bad + 2] * 1e6 + nodes[4 * bad + 3] : 0);
    for (bad = 0; n > 1 && bad < 2 * n - 1 && parents[bad] == rparents[bad]; ++bad) {}
    check(n < 2 || bad == 2 * n - 1, "tree parents", n, dn, bad, 0, 0);
    /* summaries, bottom-up check of every node from its children */
    for (bad = 0; n > 1 && bad < n - 1; ++bad) {
        const uint32_t *nd = rnodes + 4 * bad;
        float cl[2][4], ch[2][4], cm[2][4], mass, e, bm2 = 0.0f;
        int s, ok = 1;
        size_t j;
        for (s = 0; s < 2; ++s) {
            uint32_t c = nd[s];
            const float *src = c >= n - 1 ? points + 4 * (c - (n - 1)) : NULL;
            for (a = 0; a < 4; ++a) {
                cl[s][a] = src ? (a < 3 ? src[a] : 0.0f) : lo[4 * c + a];
                ch[s][a] = src ? (a < 3 ? src[a] : 0.0f) : hi[4 * c + a];
                cm[s][a] = src ? src[a] : com[4 * c + a];
            }
        }
        mass = cm[0][3] + cm[1][3];
        if (com[4 * bad + 3] != mass) ok = 0;
        e = 0.0f;
        for (a = 0; a < 3; ++a) {
            float l = cl[0][a] < cl[1][a] ? cl[0][a] : cl[1][a], h = ch[0][a] > ch[1][a] ? ch[0][a] : ch[1][a];
            double want = mass > 0 ? ((double)cm[0][3] * cm[0][a] + (double)cm[1][3] * cm[1][a]) / mass : 0.5 * (l + h);
            if (lo[4 * bad + a] != l || hi[4 * bad + a] != h) ok = 0;
            if (fabs(com[4 * bad + a] - want) > 1e-6 * (fabs(want) + (h - l)) + 1e-30) ok = 0;
            if (h - l > e) e = h - l;
        }
        if (lo[4 * bad + 3] != e) ok = 0;
        for (j = nd[2]; j <= nd[3]; ++j) { /* bmax bounds every point of the node */
            float d2 = 0.0f;
            for (a = 0; a < 3; ++a) d2 += (points[4 * j + a] - com[4 * bad + a]) * (points[4 * j + a] - com[4 * bad + a]);
            if (d2 > bm2) bm2 = d2;
        }
        if (!(sqrt((double)bm2) <= (double)hi[4 * bad + 3] * (1 + 1e-6))) ok = 0;
        { /* the moments about the device's centre, from the node's points in double. Bound: the
           * parallel-axis sums round relative to I2, and each offset d = child centre - centre
           * carries the rounding of centres near |x| = R: |dQ| <= 1e-4 I2 + 64 * 6 u M R bmax
           * (u = 2^-24; 64 levels, 6 roundings a level) */
            double Q[7] = {0, 0, 0, 0, 0, 0, 0}, R = 0, tol;
            const float *c = com + 4 * bad;
            int q;
            for (j = nd[2]; j <= nd[3]; ++j) {
                double x = (double)points[4 * j] - c[0], y = (double)points[4 * j + 1] - c[1],
                       z = (double)points[4 * j + 2] - c[2], m = points[4 * j + 3], r2 = x * x + y * y + z * z;
                Q[0] += m * (3 * x * x - r2); Q[1] += m * 3 * x * y; Q[2] += m * 3 * x * z;
                Q[3] += m * (3 * y * y - r2); Q[4] += m * 3 * y * z; Q[5] += m * (3 * z * z - r2); Q[6] += m * r2;
            }
            for (a = 0; a < 3; ++a) R = fmax(R, fmax(fabs(lo[4 * bad + a]), fabs(hi[4 * bad + a])));
            tol = 1e-4 * Q[6] + 384.0 * ldexp(1, -24) * com[4 * bad + 3] * R * hi[4 * bad + 3] + 1e-30;
            for (q = 0; q < 7; ++q)
                if (!(fabs(quad[8 * bad + q] - Q[q]) <= tol)) ok = 0;
            if (quad[8 * bad + 7] != 0.0f) ok = 0;
        }
        if (!ok) break;
    }
    check(n < 2 || bad == n - 1, "tree summaries (box, extent, mass, centre, bmax, quadrupole, I2)", n, dn, bad, 0, 0);
    clReleaseMemObject(pos);
    free(bodies); free(rec); free(codes); free(sorted); free(perm); free(ref_perm); free(nodes); free(rnodes);
    free(parents); free(rparents); free(points); free(lo); free(hi); free(com); free(quad);
}

/* Barnes-Hut accelerations of n bodies against the double all-pairs
 * reference on `sample` bodies spread over the set (all when sample >= n):
 * the RMS relative error sqrt(sum |a - ref|^2 / sum |ref|^2) and the largest
 * per-body relative error |a - ref| / |ref|; with exact (n small: every
 * node opened costs n^2 on the device) theta 1e-6 too: every node opened,
 * the all-pairs sum in another order, within the all-pairs bound (N + 16) u
 * S per component, and clsort_nbody_accel with the method equal to the kept
 * tree's bit for bit. */
static void test_tree_accel(clsort_context *cs, clsort_tree *tree, size_t n, size_t sample, int dist, double eps2,
                            const double *thetas, size_t nth, const double *rms_bound, const double *max_bound,
                            int exact)
{
    float *pos = (float *)malloc(n * 16 + 16), *acc = (float *)malloc(n * 16 + 16);
    size_t ns = sample < n ? sample : n, step = n / (ns ? ns : 1), i, k, t;
    double *ref = (double *)malloc(ns * 24 + 8), worst = 0, tiny_worst = 0;
    cl_mem dpos, dacc;
    clsort_tree_desc td;
    clsort_nbody_desc nd;
    char what[200];
    tree_points_make(pos, n, dist);
    for (k = 0; k < ns; ++k) {
        double S[3];
        ref_accel_row(pos, n, k * step, eps2, 1.0, ref + 3 * k, S);
    }
    dpos = buffer(cs, n * 16, pos);
    dacc = buffer(cs, n * 16, NULL);
    memset(&td, 0, sizeof td);
    td.has_mass = 1;
    td.mass_offset = 12;
    check(clsort_tree_build(cs, tree, dpos, n, &td, NULL) == CLSORT_SUCCESS, "tree build for BH", n,
          clsort_last_error(cs), 0, 0, 0);
    memset(&nd, 0, sizeof nd);
    nd.softening2 = eps2;
    nd.method = CLSORT_NBODY_BARNES_HUT;
    for (t = 0; t < nth + (exact ? 1u : 0u); ++t) {
        double se = 0, sr = 0, mx = 0, rms;
        int ok = 1;
        nd.theta = t < nth ? thetas[t] : 1e-6;
        check(clsort_tree_accel(cs, tree, dacc, &nd, NULL) == CLSORT_SUCCESS, "clsort_tree_accel", n,
              clsort_last_error(cs), 0, 0, 0);
        download(cs, dacc, n * 16, acc);
        for (k = 0; k < ns; ++k) {
            double e2 = 0, r2 = 0;
            int c;
            i = k * step;
            for (c = 0; c < 3; ++c) {
                double d = acc[4 * i + c] - ref[3 * k + c];
                e2 += d * d;
                r2 += ref[3 * k + c] * ref[3 * k + c];
            }
            se += e2;
            sr += r2;
            if (r2 > 0 && sqrt(e2 / r2) > mx) mx = sqrt(e2 / r2);
        }
        if (t == nth)
            for (i = 0; i < n; ++i)
                if (!accel_ok(pos, acc, 0, n, i, eps2, 1.0, (double)n + 16, &tiny_worst)) ok = 0;
        rms = sr > 0 ? sqrt(se / sr) : 0;
        if (t < nth) {
            snprintf(what, sizeof what, "BH theta %.1f %s n=%lu (%lu sampled): RMS rel %.2e (bound %.0e), max %.2e (bound %.0e)",
                     thetas[t], tree_dist_names[dist], (unsigned long)n, (unsigned long)ns, rms, rms_bound[t], mx,
                     max_bound[t]);
            printf("    %s\n", what);
            check(rms <= rms_bound[t] && mx <= max_bound[t], what, n, tree_dist_names[dist], 0, rms_bound[t], rms);
        } else {
            check(ok, "BH theta 1e-6 = all-pairs within (N+16) u S", n, tree_dist_names[dist], 0, 0, tiny_worst);
            if (tiny_worst > worst) worst = tiny_worst;
        }
    }
    /* clsort_nbody_accel with the method: the same as the kept tree's (theta 0.5) */
    if (exact) {
        float *acc2 = (float *)malloc(n * 16 + 16);
        nd.theta = 0.5;
        check(clsort_tree_accel(cs, tree, dacc, &nd, NULL) == CLSORT_SUCCESS, "clsort_tree_accel", n, "", 0, 0, 0);
        download(cs, dacc, n * 16, acc);
        check(clsort_nbody_accel(cs, dpos, dacc, n, &nd, NULL) == CLSORT_SUCCESS, "clsort_nbody_accel BH", n,
              clsort_last_error(cs), 0, 0, 0);
        download(cs, dacc, n * 16, acc2);
        check(memcmp(acc, acc2, n * 16) == 0, "clsort_nbody_accel BH = clsort_tree_accel bit for bit", n,
              tree_dist_names[dist], 0, 0, 0);
        free(acc2);
    }
    if (worst > nb_max_ratio) nb_max_ratio = worst;
    clReleaseMemObject(dpos); clReleaseMemObject(dacc);
    free(pos); free(acc); free(ref);
}

/* clsort_nbody with BARNES_HUT: theta tiny follows the TILED run within
 * rounding over a few steps; leapfrog energy and momentum at theta 0.5. */
static void test_tree_nbody(clsort_context *cs, size_t n, unsigned steps)
{
    float *pos = (float *)malloc(n * 16), *vel = (float *)malloc(n * 16), *p1 = (float *)malloc(n * 16),
          *p2 = (float *)malloc(n * 16), *v1 = (float *)malloc(n * 16);
    clsort_nbody_desc d;
    double e0, e1, maxd = 0, mom[3] = {0, 0, 0}, m0 = 0, dp;
    size_t i;
    int c;
    plummer(pos, vel, n, 1.0);
    nb_desc(&d, 0.01, 1e-4, 4, CLSORT_NBODY_LEAPFROG);
    check(nb_run(cs, pos, vel, n, &d, 1, p1, v1) == CLSORT_SUCCESS, "nbody TILED", n, clsort_last_error(cs), 0, 0, 0);
    d.method = CLSORT_NBODY_BARNES_HUT;
    d.theta = 1e-6;
    check(nb_run(cs, pos, vel, n, &d, 1, p2, v1) == CLSORT_SUCCESS, "nbody BARNES_HUT", n, clsort_last_error(cs), 0, 0, 0);
    for (i = 0; i < 4 * n; ++i) if ((i & 3) != 3 && fabs(p1[i] - p2[i]) > maxd) maxd = fabs(p1[i] - p2[i]);
    check(maxd < 1e-5, "nbody BH theta 1e-6 follows TILED over 4 steps (max |dx| < 1e-5)", n, "plummer", 0, 1e-5, maxd);
    e0 = energy(pos, vel, n, 1e-4, 1.0);
    d.theta = 0.5;
    d.steps = steps;
    check(nb_run(cs, pos, vel, n, &d, 1, p2, v1) == CLSORT_SUCCESS, "nbody BARNES_HUT", n, clsort_last_error(cs), 0, 0, 0);
    e1 = energy(p2, v1, n, 1e-4, 1.0);
    /* Barnes-Hut forces are not antisymmetric (a node seen from a body is
     * not the body seen from the node), so momentum drifts with the force
     * error: the change of the total momentum, against sum m |v| */
    for (i = 0; i < n; ++i) {
        for (c = 0; c < 3; ++c) mom[c] += (double)p2[4 * i + 3] * ((double)v1[4 * i + c] - vel[4 * i + c]);
        m0 += (double)p2[4 * i + 3] * sqrt((double)vel[4 * i] * vel[4 * i] + (double)vel[4 * i + 1] * vel[4 * i + 1] +
                                           (double)vel[4 * i + 2] * vel[4 * i + 2]);
    }
    dp = sqrt(mom[0] * mom[0] + mom[1] * mom[1] + mom[2] * mom[2]) / m0;
    printf("    BH leapfrog n=%lu, %u steps, theta 0.5: relative energy change %.2e, |momentum change| / sum m|v| %.2e\n",
           (unsigned long)n, steps, fabs(e1 - e0) / fabs(e0), dp);
    check(fabs(e1 - e0) <= 1e-3 * fabs(e0), "BH leapfrog energy within 1e-3", n, "plummer", 0, e0, e1);
    check(dp <= 2e-3, "BH leapfrog momentum change within 2e-3 of sum m|v|", n, "plummer", 0, 2e-3, dp);
    free(pos); free(vel); free(p1); free(p2); free(v1);
}

/* d2 as tree_radius evaluates it: float, no contraction (one operation per statement). */
static float tree_d2(float dx, float dy, float dz)
{
    float x2 = dx * dx, y2 = dy * dy, z2 = dz * dz, s;
    s = x2 + y2;
    return s + z2;
}

static int cmp_u32_asc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Radius queries of nq query points against a tree of n points (float4
 * records), dims 2 or 3: grid = 1 puts points and queries on a grid of
 * step 1/4 with r = 1/2 (many points exactly on the radius, every operation
 * exact); else random points and queries with radius r. Counts, offsets, the
 * total and every list (as a set) against a brute-force host search with the
 * same float operations; then the capacity check (indices one short:
 * the error, indices untouched). */
static void test_tree_radius(clsort_context *cs, clsort_tree *tree, size_t n, size_t nq, unsigned dims, int grid,
                             float r)
{
    float *pts = (float *)malloc(n * 16 + 16), *qs = (float *)malloc(nq * 32 + 32);
    uint32_t *cnt = (uint32_t *)malloc(nq * 4 + 4), *off = (uint32_t *)malloc(nq * 4 + 8), *idx, *ref;
    size_t i, j, total = 0, want = 0, bad = 0, cap;
    cl_mem dp, dq, dc, doff, di;
    clsort_tree_desc td;
    clsort_tree_radius_desc rd;
    clsort_result res;
    char what[160];
    float r2 = r * r;
    snprintf(what, sizeof what, "tree radius %uD %s r=%g nq=%lu", dims, grid ? "grid" : "random", (double)r,
             (unsigned long)nq);
    for (i = 0; i < n; ++i) {
        int a;
        for (a = 0; a < 3; ++a)
            pts[4 * i + a] = a < (int)dims ? (grid ? (float)((int)(rnd64() % 17) - 8) * 0.25f : (float)(urand() * 4 - 2))
                                           : 0.0f;
        pts[4 * i + 3] = 1.0f;
    }
    for (i = 0; i < nq; ++i) { /* 8-float query records, x at float 2 */
        int a;
        for (a = 0; a < 8; ++a) qs[8 * i + a] = -7.0f;
        for (a = 0; a < (int)dims; ++a)
            qs[8 * i + 2 + a] = grid ? (float)((int)(rnd64() % 21) - 10) * 0.25f : (float)(urand() * 5 - 2.5);
    }
    for (i = 0; i < nq; ++i) {
        uint32_t c = 0;
        for (j = 0; j < n; ++j)
            if (tree_d2(pts[4 * j] - qs[8 * i + 2], pts[4 * j + 1] - qs[8 * i + 3],
                        dims == 3 ? pts[4 * j + 2] - qs[8 * i + 4] : 0.0f) <= r2)
                ++c;
        want += c;
    }
    idx = (uint32_t *)malloc(want * 4 + 8);
    ref = (uint32_t *)malloc(want * 4 + 8);
    dp = buffer(cs, n * 16 + 16, pts);
    dq = buffer(cs, nq * 32 + 32, qs);
    dc = buffer(cs, nq * 4 + 4, NULL);
    doff = buffer(cs, nq * 4 + 8, NULL);
    cap = want ? want : 1;
    di = buffer(cs, cap * 4, NULL);
    memset(&td, 0, sizeof td);
    td.dims = dims;
    check(clsort_tree_build(cs, tree, dp, n, &td, NULL) == CLSORT_SUCCESS, "tree build for radius", n,
          clsort_last_error(cs), 0, 0, 0);
    memset(&rd, 0, sizeof rd);
    rd.radius = r;
    rd.stride = 32;
    rd.offset = 8;
    rd.counts = dc;
    rd.offsets = doff;
    rd.indices = di;
    rd.capacity = cap;
    res = clsort_tree_radius(cs, tree, dq, nq, &rd, &total, NULL);
    check(res == CLSORT_SUCCESS, what, n, clsort_last_error(cs), 0, 0, res);
    check(total == want, "tree radius total = brute force", n, what, 0, (double)want, (double)total);
    if (nq) download(cs, dc, nq * 4, cnt);
    download(cs, doff, nq * 4 + 4, off);
    if (want) download(cs, di, want * 4, idx);
    for (i = 0, j = 0; i < nq && res == CLSORT_SUCCESS; ++i) {
        size_t k, c = 0;
        for (k = 0; k < n; ++k)
            if (tree_d2(pts[4 * k] - qs[8 * i + 2], pts[4 * k + 1] - qs[8 * i + 3],
                        dims == 3 ? pts[4 * k + 2] - qs[8 * i + 4] : 0.0f) <= r2)
                ref[j + c++] = (uint32_t)k;
        if (cnt[i] != c || off[i] != j) break;
        qsort(idx + j, c, 4, cmp_u32_asc);
        if (c && memcmp(idx + j, ref + j, c * 4) != 0) break;
        j += c;
    }
    bad = i;
    check(bad == nq && off[nq] == want, "tree radius counts, offsets and lists = brute force", n, what, bad,
          bad < nq ? (double)off[bad] : (double)want, bad < nq ? (double)cnt[bad] : (double)off[nq]);
    if (want > 0) { /* one index short: the error names the need, the indices stay as they were */
        uint32_t *back = (uint32_t *)malloc(want * 4 + 8);
        download(cs, di, want * 4, idx); /* as the device left them (the lists above were sorted on the host) */
        rd.capacity = want - 1;
        total = 0;
        res = clsort_tree_radius(cs, tree, dq, nq, &rd, &total, NULL);
        download(cs, di, want * 4, back);
        check(res == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "capacity") &&
                  memcmp(back, idx, want * 4) == 0 && total == want,
              "tree radius capacity one short: error, indices untouched", n, clsort_last_error(cs), 0, 0, res);
        free(back);
    }
    { /* counts only, no offsets, no total */
        memset(&rd, 0, sizeof rd);
        rd.radius = r;
        rd.stride = 32;
        rd.offset = 8;
        rd.counts = dc;
        res = clsort_tree_radius(cs, tree, dq, nq, &rd, NULL, NULL);
        if (nq) download(cs, dc, nq * 4, off);
        check(res == CLSORT_SUCCESS && (nq == 0 || memcmp(off, cnt, nq * 4) == 0), "tree radius counts only", n, what,
              0, 0, res);
    }
    clReleaseMemObject(dp); clReleaseMemObject(dq); clReleaseMemObject(dc); clReleaseMemObject(doff);
    clReleaseMemObject(di);
    free(pts); free(qs); free(cnt); free(off); free(idx); free(ref);
}

/* The host forms against the device forms: accelerations bit for bit, radius counts and lists. */
static void test_tree_host(clsort_context *cs, clsort_tree *tree, size_t n)
{
    float *pos = (float *)malloc(n * 16 + 16), *acc = (float *)malloc(n * 16 + 16), *acc2 = (float *)malloc(n * 16 + 16);
    uint32_t *cnt = (uint32_t *)malloc(n * 4 + 4), *off = (uint32_t *)malloc(n * 4 + 8), *cnt2 = (uint32_t *)malloc(n * 4 + 4),
             *idx;
    size_t i, j, total = 0, want = 0;
    clsort_tree_desc td;
    clsort_nbody_desc nd;
    cl_mem dp, da;
    int ok = 1;
    tree_points_make(pos, n, T_PLUMMER);
    memset(&nd, 0, sizeof nd);
    nd.softening2 = 1e-4;
    nd.theta = 0.6;
    dp = buffer(cs, n * 16 + 16, pos);
    da = buffer(cs, n * 16 + 16, NULL);
    memset(&td, 0, sizeof td);
    td.has_mass = 1;
    td.mass_offset = 12;
    check(clsort_tree_build(cs, tree, dp, n, &td, NULL) == CLSORT_SUCCESS &&
              clsort_tree_accel(cs, tree, da, &nd, NULL) == CLSORT_SUCCESS,
          "tree accel for the host form", n, clsort_last_error(cs), 0, 0, 0);
    download(cs, da, n * 16, acc);
    check(clsort_tree_accel_host(cs, pos, n, acc2, &nd) == CLSORT_SUCCESS && memcmp(acc, acc2, n * 16) == 0,
          "clsort_tree_accel_host = clsort_tree_accel bit for bit", n, clsort_last_error(cs), 0, 0, 0);
    for (i = 0; i < n; ++i) {
        uint32_t c = 0;
        for (j = 0; j < n; ++j)
            if (tree_d2(pos[4 * j] - pos[4 * i], pos[4 * j + 1] - pos[4 * i + 1], pos[4 * j + 2] - pos[4 * i + 2]) <=
                0.25f * 0.25f)
                ++c;
        cnt2[i] = c;
        want += c;
    }
    idx = (uint32_t *)malloc(want * 4 + 4);
    check(clsort_tree_radius_host(cs, pos, n, pos, n, 0.25f, cnt, off, idx, want, &total) == CLSORT_SUCCESS,
          "clsort_tree_radius_host", n, clsort_last_error(cs), 0, 0, 0);
    for (i = 0; i < n; ++i) {
        int self = 0;
        if (cnt[i] != cnt2[i]) ok = 0;
        for (j = off[i]; j < off[i + 1] && j < want; ++j) self |= idx[j] == i; /* each point finds itself */
        if (!self) ok = 0;
    }
    check(ok && total == want && off[n] == want, "clsort_tree_radius_host counts = brute force, self in every list", n,
          "plummer", 0, (double)want, (double)total);
    clReleaseMemObject(dp); clReleaseMemObject(da);
    free(pos); free(acc); free(acc2); free(cnt); free(off); free(cnt2); free(idx);
}

static void test_tree_arguments(clsort_context *cs, clsort_tree *tree)
{
    float pos[64], acc[64], acc0[64];
    cl_mem dpos, dacc, small;
    clsort_tree_desc td;
    clsort_nbody_desc nd;
    clsort_tree *t2 = NULL;
    clsort_context *other = NULL;
    int k;
    for (k = 0; k < 64; ++k) pos[k] = (float)k, acc0[k] = -1.0f;
    dpos = buffer(cs, sizeof pos, pos);
    dacc = buffer(cs, sizeof acc0, acc0);
    small = buffer(cs, 20, NULL);
    memset(&td, 0, sizeof td);
    td.has_mass = 1;
    td.mass_offset = 12;
    check(clsort_tree_build(cs, tree, dpos, 16, &td, NULL) == CLSORT_SUCCESS, "tree build", 16, "", 0, 0, 0);
#define TREE_BAD(expr, what, want)                                                                        \
    do {                                                                                                  \
        clsort_result r_ = (expr);                                                                        \
        check(r_ == (want) && clsort_last_error(cs)[0], what, 0, clsort_last_error(cs), 0, (double)(want), r_); \
    } while (0)
    TREE_BAD(clsort_tree_build(cs, NULL, dpos, 16, &td, NULL), "tree build NULL tree", CLSORT_ERROR_INVALID_ARGUMENT);
    TREE_BAD(clsort_tree_build(cs, tree, NULL, 16, &td, NULL), "tree build NULL positions", CLSORT_ERROR_INVALID_ARGUMENT);
    TREE_BAD(clsort_tree_build(cs, tree, dpos, 17, &td, NULL), "tree build n past the end", CLSORT_ERROR_INVALID_ARGUMENT);
    TREE_BAD(clsort_tree_build(cs, tree, small, 2, &td, NULL), "tree build small buffer", CLSORT_ERROR_INVALID_ARGUMENT);
    td.dims = 4;
    TREE_BAD(clsort_tree_build(cs, tree, dpos, 4, &td, NULL), "tree build dims 4", CLSORT_ERROR_INVALID_ARGUMENT);
    td.dims = 3; td.code_bits = 48;
    TREE_BAD(clsort_tree_build(cs, tree, dpos, 4, &td, NULL), "tree build code_bits 48", CLSORT_ERROR_INVALID_ARGUMENT);
    td.code_bits = 0; td.stride = 18;
    TREE_BAD(clsort_tree_build(cs, tree, dpos, 4, &td, NULL), "tree build stride 18", CLSORT_ERROR_INVALID_ARGUMENT);
    td.stride = 0; td.box_given = 1; td.box_lo[0] = 1.0f; td.box_hi[0] = 0.0f;
    TREE_BAD(clsort_tree_build(cs, tree, dpos, 4, &td, NULL), "tree build box lo > hi", CLSORT_ERROR_INVALID_ARGUMENT);
    td.box_hi[0] = (float)NAN;
    TREE_BAD(clsort_tree_build(cs, tree, dpos, 4, &td, NULL), "tree build NaN box", CLSORT_ERROR_INVALID_ARGUMENT);
    td.box_given = 0;
    TREE_BAD(clsort_tree_build(cs, tree, dpos, (size_t)1 << 31, &td, NULL), "tree build n = 2^31",
             CLSORT_ERROR_INVALID_ARGUMENT);
    TREE_BAD(clsort_tree_create(cs, NULL), "tree create NULL out", CLSORT_ERROR_INVALID_ARGUMENT);
    /* the tree still holds the 16-point build: accel with bad arguments */
    memset(&nd, 0, sizeof nd);
    nd.method = CLSORT_NBODY_BARNES_HUT;
    nd.theta = -1.0;
    TREE_BAD(clsort_tree_accel(cs, tree, dacc, &nd, NULL), "tree accel theta -1", CLSORT_ERROR_INVALID_ARGUMENT);
    nd.theta = 2.5;
    TREE_BAD(clsort_tree_accel(cs, tree, dacc, &nd, NULL), "tree accel theta 2.5", CLSORT_ERROR_INVALID_ARGUMENT);
    nd.theta = (double)NAN;
    TREE_BAD(clsort_nbody_accel(cs, dpos, dacc, 16, &nd, NULL), "nbody accel BH theta NaN", CLSORT_ERROR_INVALID_ARGUMENT);
    nd.theta = 0.5;
    TREE_BAD(clsort_tree_accel(cs, tree, small, &nd, NULL), "tree accel small buffer", CLSORT_ERROR_INVALID_ARGUMENT);
    TREE_BAD(clsort_tree_accel(cs, tree, NULL, &nd, NULL), "tree accel NULL buffer", CLSORT_ERROR_INVALID_ARGUMENT);
    TREE_BAD(clsort_tree_accel(cs, tree, dacc, NULL, NULL), "tree accel NULL desc", CLSORT_ERROR_INVALID_ARGUMENT);
    { /* radius queries (the tree of 16 points): counts into dacc, which must stay as it was */
        clsort_tree_radius_desc rd;
        memset(&rd, 0, sizeof rd);
        rd.radius = 1.0f;
        rd.counts = dacc;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, NULL, NULL, NULL), "radius NULL desc", CLSORT_ERROR_INVALID_ARGUMENT);
        TREE_BAD(clsort_tree_radius(cs, NULL, dpos, 16, &rd, NULL, NULL), "radius NULL tree", CLSORT_ERROR_INVALID_ARGUMENT);
        TREE_BAD(clsort_tree_radius(cs, tree, NULL, 16, &rd, NULL, NULL), "radius NULL queries", CLSORT_ERROR_INVALID_ARGUMENT);
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 17, &rd, NULL, NULL), "radius nq past the queries",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        TREE_BAD(clsort_tree_radius(cs, tree, small, 2, &rd, NULL, NULL), "radius queries too small",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        rd.radius = -1.0f;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius -1", CLSORT_ERROR_INVALID_ARGUMENT);
        rd.radius = (float)NAN;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius NaN", CLSORT_ERROR_INVALID_ARGUMENT);
        rd.radius = (float)INFINITY;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius inf", CLSORT_ERROR_INVALID_ARGUMENT);
        rd.radius = 1.0f;
        rd.stride = 18;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 4, &rd, NULL, NULL), "radius stride 18", CLSORT_ERROR_INVALID_ARGUMENT);
        rd.stride = 0;
        rd.counts = NULL;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius NULL counts", CLSORT_ERROR_INVALID_ARGUMENT);
        rd.counts = small;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius counts too small",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        rd.counts = dacc;
        rd.indices = small;
        rd.capacity = 5;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius indices without offsets",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        rd.indices = NULL;
        rd.offsets = small;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius offsets too small",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        rd.offsets = dacc;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 8, &rd, NULL, NULL), "radius counts and offsets alias",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        rd.offsets = NULL;
        rd.counts = dpos;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 8, &rd, NULL, NULL), "radius counts over the queries",
                 CLSORT_ERROR_INVALID_ARGUMENT);
    }
    nd.fp64 = 1;
    {
        clsort_result r = clsort_nbody_accel(cs, dpos, dacc, 8, &nd, NULL);
        check(r == CLSORT_ERROR_UNSUPPORTED, "nbody BH fp64 unsupported", 0, clsort_last_error(cs), 0, 0, r);
    }
    nd.fp64 = 0;
    { /* the tree's own buffers (its view) as the caller's argument: building
       * from view.points would rewrite (or release) what it reads; issue 19 */
        clsort_tree_view v;
        cl_mem part = NULL, ro;
        cl_buffer_region reg;
        cl_int e;
        float before[64], after[64];
        clsort_tree_get_view(tree, &v);
        download(cs, v.points, sizeof before, before);
        TREE_BAD(clsort_tree_build(cs, tree, v.points, 16, &td, NULL), "tree build from its own view.points",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        check(strstr(clsort_last_error(cs), "view.points") != NULL, "tree build aliasing message names view.points", 0,
              clsort_last_error(cs), 0, 0, 0);
        TREE_BAD(clsort_tree_accel(cs, tree, v.points, &nd, NULL), "tree accel into its own view.points",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        reg.origin = 0;
        reg.size = 64;
        part = clCreateSubBuffer(v.com, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &e);
        if (e == CL_SUCCESS) {
            TREE_BAD(clsort_tree_accel(cs, tree, part, &nd, NULL), "tree accel into a sub-buffer of view.com",
                     CLSORT_ERROR_INVALID_ARGUMENT);
            clReleaseMemObject(part);
        }
        ro = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_ONLY, 16 * 16, NULL, &e);
        TREE_BAD(clsort_tree_accel(cs, tree, ro, &nd, NULL), "tree accel into a read-only buffer",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        clReleaseMemObject(ro);
        download(cs, v.points, sizeof after, after);
        check(memcmp(before, after, sizeof after) == 0, "tree aliasing refused: view.points unchanged", 0, "-", 0, 0, 0);
    }
    if (clsort_create(&other, NULL) == CLSORT_SUCCESS && clsort_tree_create(other, &t2) == CLSORT_SUCCESS)
        TREE_BAD(clsort_tree_build(cs, t2, dpos, 4, &td, NULL), "tree of another context", CLSORT_ERROR_INVALID_ARGUMENT);
    clsort_tree_destroy(t2);
    clsort_destroy(other);
    download(cs, dacc, sizeof acc, acc);
    check(memcmp(acc, acc0, sizeof acc) == 0, "tree bad arguments: accelerations unchanged", 0, "-", 0, 0, 0);
    download(cs, dpos, sizeof acc, acc);
    check(memcmp(acc, pos, sizeof acc) == 0, "tree bad arguments: positions unchanged", 0, "-", 0, 0, 0);
#undef TREE_BAD
    clReleaseMemObject(dpos); clReleaseMemObject(dacc); clReleaseMemObject(small);
}

/* The summaries cross work-items (tree_summaries: the second child to arrive
 * reads the first's words): on the H100, with a mem_fence that NVIDIA scopes
 * to the work-group, 2^20 points with a dense centre gave other box and mass
 * words in about one build in three. Several builds of the same points must
 * give the same words bit for bit, and every internal node's box and mass
 * must be exactly its children's (fmin, fmax and one addition: exact). */
static void test_tree_repeat(clsort_context *cs, size_t n, int builds)
{
    float *pos = (float *)malloc(n * 16), *lo = (float *)malloc((n - 1) * 16), *hi = (float *)malloc((n - 1) * 16);
    float *com = (float *)malloc((n - 1) * 16), *pts = (float *)malloc(n * 16);
    unsigned char *first = (unsigned char *)malloc((n - 1) * 64), *now = (unsigned char *)malloc((n - 1) * 64);
    uint32_t *nodes = (uint32_t *)malloc((n - 1) * 16);
    cl_mem dp;
    size_t i, bad = 0, differ = 0;
    int b;
    clsort_tree_desc td;
    memset(&td, 0, sizeof td);
    td.has_mass = 1;
    td.mass_offset = 12;
    for (i = 0; i < n; ++i) { /* denser towards the centre: deep, unbalanced subtrees */
        double r = (double)(rnd64() >> 11) / 9007199254740992.0;
        int k;
        r *= r;
        for (k = 0; k < 3; ++k) pos[4 * i + k] = (float)(((double)(rnd64() >> 11) / 4503599627370496.0 - 1.0) * r);
        pos[4 * i + 3] = (float)(0.5 + (double)(rnd64() >> 11) / 9007199254740992.0) / (float)n;
    }
    dp = buffer(cs, n * 16, pos);
    for (b = 0; b < builds; ++b) {
        clsort_tree *tree = NULL;
        clsort_tree_view v;
        if (clsort_tree_create(cs, &tree) != CLSORT_SUCCESS || clsort_tree_build(cs, tree, dp, n, &td, NULL) != CLSORT_SUCCESS ||
            clsort_tree_get_view(tree, &v) != CLSORT_SUCCESS) {
            check(0, "tree repeat: build", n, clsort_last_error(cs), 0, 0, 0);
            clsort_tree_destroy(tree);
            break;
        }
        download(cs, v.box_lo, (n - 1) * 16, lo);
        download(cs, v.box_hi, (n - 1) * 16, hi);
        download(cs, v.com, (n - 1) * 16, com);
        download(cs, v.nodes, (n - 1) * 16, nodes);
        download(cs, v.points, n * 16, pts);
        memcpy(now, lo, (n - 1) * 16);
        memcpy(now + (n - 1) * 16, hi, (n - 1) * 16);
        memcpy(now + (n - 1) * 32, com, (n - 1) * 16);
        download(cs, v.quad, (n - 1) * 16, now + (n - 1) * 48); /* the first half of the quadrupole words */
        if (b == 0) memcpy(first, now, (n - 1) * 64);
        else if (memcmp(first, now, (n - 1) * 64) != 0) differ++;
        for (i = 0; b == 0 && i < n - 1; ++i) { /* node i from its two children (leaves: their points) */
            float cl[2][3], ch[2][3], cm[2];
            int c, k;
            for (c = 0; c < 2; ++c) {
                uint32_t ch_node = nodes[4 * i + (size_t)c];
                const float *q = ch_node >= n - 1 ? pts + 4 * (ch_node - (n - 1)) : NULL;
                for (k = 0; k < 3; ++k) {
                    cl[c][k] = q ? q[k] : lo[4 * (size_t)ch_node + (size_t)k];
                    ch[c][k] = q ? q[k] : hi[4 * (size_t)ch_node + (size_t)k];
                }
                cm[c] = q ? q[3] : com[4 * (size_t)ch_node + 3];
            }
            for (k = 0; k < 3; ++k)
                if (lo[4 * i + (size_t)k] != fminf(cl[0][k], cl[1][k]) || hi[4 * i + (size_t)k] != fmaxf(ch[0][k], ch[1][k])) bad++;
            if (com[4 * i + 3] != cm[0] + cm[1]) bad++;
        }
        clsort_tree_destroy(tree);
    }
    check(differ == 0, "tree repeat: the same summaries from every build", n, "dense centre", 0, 0, (double)differ);
    check(bad == 0, "tree repeat: boxes and masses exactly the children's", n, "dense centre", 0, 0, (double)bad);
    clReleaseMemObject(dp);
    free(pos); free(lo); free(hi); free(com); free(pts); free(first); free(now); free(nodes);
}

static void test_tree(clsort_context *cs, int tiny, int quick)
{
    static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 13, 31, 63, 64, 65, 127, 129, 255, 257, 1009, 1023, 1025,
                                   4093, 8191, 8193, 65537};
    static const double thetas[] = {0.3, 0.5, 0.7, 1.0};
    /* quadrupoles: RMS errors measured on PoCL (2026-11-24), bounds with 1.2-2x margins: 4096
     * bodies (few per node: larger errors) Plummer 9.8e-4, 8.0e-3, 2.9e-2, 0.11 at theta 0.3, 0.5,
     * 0.7, 1.0, clustered 3.6e-4 .. 1.1e-2; 2^16 bodies Plummer 4.1e-4, 2.8e-3, 8.9e-3, 3.2e-2, two
     * spheres 5.1e-4 .. 4.6e-2, disc 2.9e-4 .. 1.6e-2, clustered 1.8e-4 .. 6.4e-3 */
    static const double rms_s[] = {2e-3, 1.2e-2, 4.5e-2, 1.6e-1}, max_s[] = {0.1, 0.8, 1.5, 8.0};
    /* 2^16 bodies: the bar; the largest per-body errors (bodies whose acceleration nearly cancels)
     * vary from one realization to the next (clustered, theta 1.0: 0.71 and 1.66 seen), hence loose */
    static const double rms_b[] = {1e-3, 5e-3, 2e-2, 7e-2}, max_b[] = {5e-2, 0.3, 1.0, 4.0};
    clsort_tree *tree = NULL;
    size_t s;
    int d;
    printf("  trees...\n");
    fflush(stdout);
    if (clsort_tree_create(cs, &tree) != CLSORT_SUCCESS) {
        check(0, "clsort_tree_create", 0, clsort_last_error(cs), 0, 0, 0);
        return;
    }
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        size_t n = sizes[s];
        if (tiny && n != 0 && n != 1 && n != 2 && n != 3 && n != 65 && n != 257) continue;
        if (quick && n > 8193) continue;
        for (d = 0; d < T_COUNT; ++d) {
            if (n > 1100 && d != T_UNIFORM && d != T_DUP) continue;
            test_tree_case(cs, tree, n, d, 3, 0, 4, 0, 1, 0);
        }
        if (n <= 1025) {
            test_tree_case(cs, tree, n, T_UNIFORM, 3, 64, 4, 0, 1, 0);
            test_tree_case(cs, tree, n, T_CLUSTER, 2, 0, 5, 1, 0, 0);
            test_tree_case(cs, tree, n, T_DUP, 2, 64, 3, 0, 1, 1);
            test_tree_case(cs, tree, n, T_UNIFORM, 3, 0, 6, 2, 1, 1);
        }
    }
    if (!tiny) {
        /* exactness (theta 1e-6 costs n^2 on the device) and the errors on all bodies of 4096 */
        test_tree_accel(cs, tree, 4096, 4096, T_PLUMMER, 1e-4, thetas, 4, rms_s, max_s, 1);
        test_tree_accel(cs, tree, 4096, 4096, T_CLUSTER, 1e-4, thetas, 4, rms_s, max_s, 1);
        test_tree_accel(cs, tree, 1000, 1000, T_DUP, 0.0, thetas, 0, rms_s, max_s, 1); /* coincident bodies */
        /* the accuracy bar (RMS <= 5e-3 at theta 0.5) where nodes hold many bodies: 2^16 (and a
         * 2^18 Plummer sphere in the full run), the reference on 1024 bodies */
        for (d = T_CLUSTER; d < T_COUNT; ++d)
            test_tree_accel(cs, tree, 65536, 1024, d, 1e-4, thetas, 4, rms_b, max_b, 0);
        if (!quick) test_tree_accel(cs, tree, 262144, 1024, T_PLUMMER, 1e-4, thetas, 4, rms_b, max_b, 0);
        test_tree_nbody(cs, 1024, quick ? 100 : 1000);
        /* 2^20 points where the race showed (GPUs); CPUs check the nesting on fewer */
        test_tree_repeat(cs, cs->dev.cpu ? (size_t)1 << (quick ? 14 : 17) : (size_t)1 << 20, cs->dev.cpu ? 2 : 6);
    } else {
        test_tree_accel(cs, tree, 70, 70, T_PLUMMER, 1e-4, thetas, 0, rms_s, max_s, 1); /* few bodies: exactness only */
        test_tree_accel(cs, tree, 3, 3, T_UNIFORM, 0.0, thetas, 0, rms_s, max_s, 1);
    }
    { /* radius queries: grids (points on the radius), random points, 2D and 3D, few and many points */
        static const size_t rn[] = {1, 2, 3, 31, 257, 1009, 4099};
        for (s = 0; s < sizeof rn / sizeof rn[0]; ++s) {
            if (tiny && rn[s] > 300) continue;
            test_tree_radius(cs, tree, rn[s], tiny ? 17 : 301, 3, 1, 0.5f);
            test_tree_radius(cs, tree, rn[s], tiny ? 17 : 301, 2, 1, 0.75f);
            if (!tiny) test_tree_radius(cs, tree, rn[s], 300, 3, 0, 0.3f);
            if (!tiny) test_tree_radius(cs, tree, rn[s], 300, 2, 0, 0.0f);
        }
        test_tree_radius(cs, tree, 100, 0, 3, 0, 0.5f); /* no query */
        test_tree_radius(cs, tree, 300, 50, 3, 1, 100.0f); /* every point of every query */
    }
    test_tree_host(cs, tree, tiny ? 40 : 1000);
    test_tree_arguments(cs, tree);
    clsort_tree_destroy(tree);
}

/* ---- the loop budget (issue 17) ---------------------------------------------
 * Mesa llvmpipe stops a work-item's loops once all of them together have run
 * 65535 passes and goes on with wrong values (tests/llvmpipe_loop_limit.c);
 * the library shapes every launch whose loops grow with n, a tile count or a
 * wait to stay within that budget (clsort.h >>loop budget). Each case below
 * needs more than 65535 passes per work-item on llvmpipe without it (run on
 * rusticl with tuning.loop_budget = 1, CLSORT_LOOP_BUDGET=off, it fails):
 * a reduction and a histogram over one forced work-group (a work-item loops
 * over n / 16 elements), the look-back scan and pack with 782 reversed tiles
 * (each tile's fallback sums every predecessor), radius queries that walk all
 * 2n - 1 nodes of a 40000-point tree, and on llvmpipe all-pairs N-body of
 * 66000 bodies. The same shaping runs on every device through the test hook
 * tuning.loop_budget (a small budget): more work-groups and a second level
 * of partials, the portable passes instead of the look-back (and the
 * look-back where it still fits), the classic radix passes instead of the
 * one-sweep ones, N-body's sources in pieces and the tree walks in pieces;
 * N-body and Barnes-Hut results must then equal those of one launch bit for
 * bit (one j-slice; the same walk order). */

static clsort_context *budget_context(clsort_path path, unsigned long budget, const clsort_tuning *extra,
                                      const char *what)
{
    clsort_context_desc desc;
    clsort_context *cs = NULL;
    memset(&desc, 0, sizeof desc);
    desc.path = path;
    if (extra) desc.tuning = *extra;
    desc.tuning.loop_budget = budget;
    if (clsort_create(&cs, &desc) != CLSORT_SUCCESS) {
        check(0, what, 0, clsort_last_error(cs), 0, 0, 0);
        clsort_destroy(cs);
        return NULL;
    }
    return cs;
}

/* Reduce and histogram over one forced work-group (tuning.reduce_groups = 1);
 * under a tiny budget with 4-element tiles: reduce_final's loop over the
 * partials would pass it, so the partials are reduced once more; on the
 * look-back path under a budget the segmented family's portable passes, by
 * offsets too (mark_counts' grid-stride loop). */
static void test_budget_reduce(int tiny)
{
    clsort_tuning t;
    clsort_context *cs;
    const char *saved = path_name;
    printf("  loop budget: reduce, histogram...\n");
    fflush(stdout);
    path_name = "loop budget";
    memset(&t, 0, sizeof t);
    t.reduce_groups = 1;
    cs = budget_context(CLSORT_PATH_AUTO, 0, &t, "clsort_create with tuning.reduce_groups");
    if (cs) {
        size_t n = tiny ? 20001 : 2000003;
        test_rd_reduce_case(cs, CLSORT_U32, CLSORT_OP_SUM, n, 0);
        test_rd_reduce_case(cs, CLSORT_I32, CLSORT_OP_MIN, n, 0);
        test_rd_hist_case(cs, CLSORT_U32, n, 7, 0);
        clsort_destroy(cs);
    }
    memset(&t, 0, sizeof t);
    t.tile_wg = 2;
    t.tile_items = 2;
    cs = budget_context(CLSORT_PATH_AUTO, 256, &t, "clsort_create with tuning.loop_budget");
    if (cs) {
        size_t n = tiny ? 3001 : 100003;
        rd_depth = (double)n;
        test_rd_reduce_case(cs, CLSORT_U32, CLSORT_OP_SUM, n, 0);
        test_rd_reduce_case(cs, CLSORT_U64, CLSORT_OP_MAX, n, 0);
        test_rd_hist_case(cs, CLSORT_F32, n, 5000, 0);
        clsort_destroy(cs);
    }
    memset(&t, 0, sizeof t);
    t.tile_wg = 16;
    t.tile_items = 16;
    cs = budget_context(CLSORT_PATH_LOOKBACK, 4096, &t, "clsort_create with tuning.loop_budget (look-back)");
    if (cs) { /* the reduction family's look-back does not run under a budget: the portable passes */
        size_t n = tiny ? 3001 : 40001;
        rd_depth = (double)n;
        test_rd_seg_case(cs, CLSORT_U32, CLSORT_OP_SUM, CLSORT_SEGMENTS_KEYS, CLSORT_U32, n, SP_SHORT, 0, 1, 0, 0);
        test_rd_seg_case(cs, CLSORT_U32, CLSORT_OP_SUM, CLSORT_SEGMENTS_OFFSETS, CLSORT_U32, n, SP_SHORT, 0, 0, 0, 0);
        test_rd_seg_case(cs, CLSORT_I32, CLSORT_OP_MAX, CLSORT_SEGMENTS_FLAGS_U32, CLSORT_U32, n, SP_SHORT, 0, 1, 0, 0);
        test_rd_rle_case(cs, CLSORT_U32, n, SP_SHORT, 1);
        clsort_destroy(cs);
    }
    path_name = saved;
}

/* The look-back scan and pack with tiles taken in reverse start order: every
 * tile sums each predecessor itself (the decoupled fallback). */
static void test_budget_lookback(int tiny)
{
    clsort_tuning t;
    clsort_context *cs;
    const char *saved = path_name;
    printf("  loop budget: look-back scan and pack...\n");
    fflush(stdout);
    memset(&t, 0, sizeof t);
    t.reverse_tiles = 1;
    t.tile_wg = 16;
    t.tile_items = 16;
    if (!tiny) { /* 782 tiles of 256 */
        path_name = "lookback, tiles reversed, 16 x 16";
        cs = budget_context(CLSORT_PATH_LOOKBACK, 0, &t, "clsort_create with reversed 16 x 16 tiles");
        if (cs) {
            test_scan_case(cs, CLSORT_U32, 200001, D_RANDOM, 0, 0);
            test_split_case(cs, 4, 4, 200001, F_RANDOM, 0, 0);
            clsort_destroy(cs);
        }
    }
    /* under a budget of 4096: 8 tiles of 256 fit it (the look-back runs),
     * 79 do not (the portable passes) */
    path_name = "lookback, tiles reversed, loop budget 4096";
    cs = budget_context(CLSORT_PATH_LOOKBACK, 4096, &t, "clsort_create with tuning.loop_budget (look-back)");
    if (cs) {
        test_scan_case(cs, CLSORT_U32, 2001, D_RANDOM, 1, 0);
        test_split_case(cs, 4, 4, 2001, F_RANDOM, 0, 0);
        test_scan_case(cs, CLSORT_I32, tiny ? 5001 : 20001, D_RANDOM, 0, 0);
        test_split_case(cs, 8, 0, tiny ? 5001 : 20001, F_RANDOM, 2, 63);
        clsort_destroy(cs);
    }
    path_name = saved;
}

/* The sort on the look-back path under a budget: the one-sweep passes (on
 * CPUs) where their walk fits, the classic passes where it does not. */
static void test_budget_sort(int tiny)
{
    clsort_tuning t;
    clsort_context *cs;
    const char *saved = path_name;
    printf("  loop budget: sort...\n");
    fflush(stdout);
    memset(&t, 0, sizeof t);
    path_name = "lookback, loop budget 20000";
    cs = budget_context(CLSORT_PATH_LOOKBACK, 20000, &t, "clsort_create with tuning.loop_budget (sort)");
    if (cs) {
        test_sort_case(cs, CLSORT_U32, tiny ? 3001 : 70001, S_RANDOM, 0, 0, 0, 0, M_VAL4, 0, 0);
        test_sort_case(cs, CLSORT_U32, 1001, S_RANDOM, 0, 0, 4, 0, M_KEYS, 0, 0);
        clsort_destroy(cs);
    }
    path_name = saved;
}

/* Accelerations (and with steps, positions) of n bodies on cs and on a
 * context with the same N-body shape under a small budget: bit for bit. */
static void budget_nbody_compare(clsort_context *cs, clsort_context *cb, size_t n, int method, unsigned steps)
{
    float *pos = (float *)malloc(n * 16 + 16), *vel = (float *)malloc(n * 16 + 16);
    float *a1 = (float *)malloc(n * 16 + 16), *a2 = (float *)malloc(n * 16 + 16);
    float *p1 = (float *)malloc(n * 16 + 16), *p2 = (float *)malloc(n * 16 + 16);
    float *v1 = (float *)malloc(n * 16 + 16), *v2 = (float *)malloc(n * 16 + 16);
    size_t i, bad = n;
    double worst = 0;
    clsort_nbody_desc d;
    cl_mem dp1, dp2, da1, da2;
    char what[128];
    int r1, r2, ok = 1;
    for (i = 0; i < n; ++i) {
        int c;
        for (c = 0; c < 3; ++c) pos[4 * i + c] = (float)(urand() * 2.0 - 1.0), vel[4 * i + c] = (float)(urand() - 0.5);
        pos[4 * i + 3] = (float)(0.5 + urand());
        vel[4 * i + 3] = 0.0f;
    }
    dp1 = buffer(cs, n * 16, pos);
    dp2 = buffer(cb, n * 16, pos);
    da1 = buffer(cs, n * 16, NULL);
    da2 = buffer(cb, n * 16, NULL);
    nb_desc(&d, 0, 1e-4, 1, 0);
    d.G = 0.75;
    d.method = (clsort_nbody_method)method;
    if (method == CLSORT_NBODY_BARNES_HUT) d.theta = steps ? 0.5 : 1e-6;
    r1 = clsort_nbody_accel(cs, dp1, da1, n, &d, NULL);
    r2 = clsort_nbody_accel(cb, dp2, da2, n, &d, NULL);
    snprintf(what, sizeof what, "loop budget: nbody accel %s in pieces", method == CLSORT_NBODY_ATOMIC ? "atomic"
             : method == CLSORT_NBODY_BARNES_HUT ? (steps ? "Barnes-Hut theta 0.5" : "Barnes-Hut theta 1e-6") : "tiled");
    check(r1 == CLSORT_SUCCESS && r2 == CLSORT_SUCCESS, what, n, clsort_last_error(r1 ? cs : cb), 0, 0, r1 ? r1 : r2);
    download(cs, da1, n * 16, a1);
    download(cb, da2, n * 16, a2);
    if (method == CLSORT_NBODY_ATOMIC) { /* the pairs' atomics add in any order: against the reference */
        for (i = 0; i < n && ok; ++i)
            if (!accel_ok(pos, a2, 0, n, i, 1e-4, 0.75, 2.0 * (double)n + 16.0, &worst)) ok = 0, bad = i;
    } else {
        for (i = 0; i < n && ok; ++i)
            if (memcmp(a1 + 4 * i, a2 + 4 * i, 16) != 0) ok = 0, bad = i;
    }
    check(ok, what, n, method == CLSORT_NBODY_ATOMIC ? "within the bound" : "bit for bit", bad,
          bad < n ? (double)a1[4 * bad] : 0, bad < n ? (double)a2[4 * bad] : 0);
    if (steps && method != CLSORT_NBODY_ATOMIC) {
        nb_desc(&d, 0.01, 1e-4, steps, 0);
        d.method = (clsort_nbody_method)method;
        if (method == CLSORT_NBODY_BARNES_HUT) d.theta = 0.5;
        r1 = nb_run(cs, pos, vel, n, &d, 1, p1, v1);
        r2 = nb_run(cb, pos, vel, n, &d, 1, p2, v2);
        check(r1 == CLSORT_SUCCESS && r2 == CLSORT_SUCCESS && memcmp(p1, p2, n * 16) == 0 && memcmp(v1, v2, n * 16) == 0,
              "loop budget: nbody steps in pieces, bit for bit", n, what, 0, 0, 0);
    }
    clReleaseMemObject(dp1); clReleaseMemObject(dp2); clReleaseMemObject(da1); clReleaseMemObject(da2);
    free(pos); free(vel); free(a1); free(a2); free(p1); free(p2); free(v1); free(v2);
}

static void test_budget_nbody(int tiny)
{
    clsort_tuning t = nbody_tuning("64:2:1");
    clsort_context *cs = budget_context(CLSORT_PATH_AUTO, 0, &t, "clsort_create with an N-body shape");
    clsort_context *cb = budget_context(CLSORT_PATH_AUTO, tiny ? 256 : 700, &t, "clsort_create with tuning.loop_budget");
    const char *saved = path_name;
    printf("  loop budget: n-body...\n");
    fflush(stdout);
    path_name = "loop budget";
    if (cs && cb) {
        budget_nbody_compare(cs, cb, tiny ? 300 : 3001, CLSORT_NBODY_TILED, 2); /* 6 pieces of 512 sources */
        budget_nbody_compare(cs, cb, tiny ? 70 : 1500, CLSORT_NBODY_ATOMIC, 0); /* the tiled kernel instead */
    }
    if (cs && !tiny && strncmp(clsort_device_name(cs), "llvmpipe", 8) == 0) {
        /* llvmpipe's own budget: one launch would loop 258 x 258 passes per
         * work-item (its 256-wide tiles of sources); two pieces */
        clsort_context *dev = budget_context(CLSORT_PATH_AUTO, 0, NULL, "clsort_create");
        if (dev) {
            size_t n = 66000, i, bad = n;
            float *pos = (float *)malloc(n * 16), *acc = (float *)malloc(n * 16);
            double worst = 0;
            clsort_nbody_desc d;
            cl_mem dp, da;
            int r, ok = 1;
            for (i = 0; i < n; ++i) {
                int c;
                for (c = 0; c < 3; ++c) pos[4 * i + c] = (float)(urand() * 2.0 - 1.0);
                pos[4 * i + 3] = (float)(0.5 + urand());
            }
            dp = buffer(dev, n * 16, pos);
            da = buffer(dev, n * 16, NULL);
            nb_desc(&d, 0, 1e-4, 1, 0);
            d.G = 0.75;
            r = clsort_nbody_accel(dev, dp, da, n, &d, NULL);
            check(r == CLSORT_SUCCESS, "loop budget: nbody accel, 66000 bodies", n, clsort_last_error(dev), 0, 0, r);
            download(dev, da, n * 16, acc);
            for (i = 0; i < n && ok; i += 1031)
                if (!accel_ok(pos, acc, 0, n, i, 1e-4, 0.75, (double)n + 16.0, &worst)) ok = 0, bad = i;
            check(ok, "loop budget: nbody accel, 66000 bodies (every 1031st row)", n, "uniform", bad, 0, worst);
            clReleaseMemObject(dp); clReleaseMemObject(da);
            free(pos); free(acc);
            clsort_destroy(dev);
        }
    }
    clsort_destroy(cs);
    clsort_destroy(cb);
    path_name = saved;
}

/* Radius queries over every point of 40000 (a walk of all 79999 nodes), and
 * Barnes-Hut and radius queries with the walks in pieces (a small budget)
 * against one walk each. */
static void test_budget_tree(int tiny)
{
    clsort_context *cs = budget_context(CLSORT_PATH_AUTO, 0, NULL, "clsort_create");
    clsort_context *cb = budget_context(CLSORT_PATH_AUTO, tiny ? 256 : 1000, NULL, "clsort_create with tuning.loop_budget");
    clsort_tree *tree = NULL;
    const char *saved = path_name;
    printf("  loop budget: trees...\n");
    fflush(stdout);
    path_name = "loop budget";
    if (cs && !tiny && clsort_tree_create(cs, &tree) == CLSORT_SUCCESS) {
        test_tree_radius(cs, tree, 40000, 20, 3, 0, 100.0f);
        clsort_tree_destroy(tree);
        tree = NULL;
    }
    if (cs && cb) {
        budget_nbody_compare(cs, cb, tiny ? 200 : 3000, CLSORT_NBODY_BARNES_HUT, 0); /* theta 1e-6: every node */
        budget_nbody_compare(cs, cb, tiny ? 200 : 3000, CLSORT_NBODY_BARNES_HUT, 2); /* theta 0.5, 2 steps */
        if (clsort_tree_create(cb, &tree) == CLSORT_SUCCESS) {
            test_tree_radius(cb, tree, tiny ? 150 : 3000, tiny ? 9 : 40, 3, 0, 100.0f);
            test_tree_radius(cb, tree, tiny ? 150 : 3000, tiny ? 9 : 40, 2, 1, 0.5f);
            clsort_tree_destroy(tree);
        }
    }
    clsort_destroy(cs);
    clsort_destroy(cb);
    path_name = saved;
}

/* The look-back status slots (clsort__status_begin): calls of every
 * look-back family with sizes going up and down (around the tile, one tile,
 * a few, 2^k +- 1), alternating on one context, so that each call finds its
 * slot's regions in every state the bookkeeping can leave them (clean,
 * partly cleaned after a larger call, grown); both status forms
 * (tuning.status32), and 16-element tiles, with which a large call's status
 * passes what a small call's kernel zeroes of it (clsort__status_budget).
 * Each call is checked against the C reference. */
static void test_status_slots(int tiny, int base, int sort, int reduce)
{
    static const size_t sizes[] = {4097, 1, 12289, 4096, 300001, 4095, 65537, 2, 8193, 300001, 12289, 4097};
    size_t s, ns = sizeof sizes / sizeof sizes[0];
    int form;
    for (form = 0; form < 3; ++form) {
        clsort_context *cs = NULL;
        clsort_context_desc desc;
        memset(&desc, 0, sizeof desc);
        desc.path = CLSORT_PATH_LOOKBACK;
        desc.tuning.status32 = form == 1;
        if (form == 2) desc.tuning.tile_wg = 4, desc.tuning.tile_items = 4;
        path_name = form == 1 ? "lookback, 32-bit status pairs, sizes alternating"
                    : form == 2 ? "lookback, 16-element tiles, sizes alternating" : "lookback, sizes alternating";
        printf("  look-back status slots, sizes and families alternating%s...\n",
               form == 1 ? " (32-bit pairs)" : form == 2 ? " (16-element tiles)" : "");
        fflush(stdout);
        if (clsort_create(&cs, &desc) != CLSORT_SUCCESS) {
            check(0, "clsort_create for the status slots", 0, clsort_last_error(cs), 0, 0, 0);
            clsort_destroy(cs);
            return;
        }
        for (s = 0; s < ns; ++s) {
            size_t n = sizes[s];
            if ((tiny && n > 10000) || form == 2) continue;
            if (base) {
                test_scan_case(cs, CLSORT_U32, n, D_RANDOM, (int)(s & 1), 0);
                test_split_case(cs, 4, 4, n, F_RANDOM, 0, 0);
                if (n < 70000) test_scan_case(cs, CLSORT_F32, n, D_RANDOM, 1, (int)(s % 3 == 0));
            }
            if (reduce) {
                rd_depth = ceil((double)n / 2048.0) + 4 * (1024 + 10) + 8;
                test_rd_seg_case(cs, CLSORT_U32, CLSORT_OP_SUM, CLSORT_SEGMENTS_FLAGS_U32, CLSORT_U32, n, SP_SHORT, 0,
                                 (int)(s & 1), 0, 0);
            }
            if (sort && n < 70000) {
                test_sort_case(cs, CLSORT_U32, n, S_RANDOM, 0, 0, 0, 0, s & 1 ? M_VAL4 : M_KEYS, 0, (int)(s % 3 == 1));
                if (!tiny && n < 10000) test_sort_case(cs, CLSORT_U64, n, S_RANDOM, 0, 0, 0, 1, M_PERM, 0, 0);
            }
            if (base && !tiny) test_scan_case(cs, CLSORT_U32, n, D_ONES, 0, 1); /* in place */
        }
        /* 16-element tiles: a large call, one small call (which zeroes only
         * part of the large one's status), a large call again, on one slot */
        for (s = 0; s < 8 && form == 2 && base && !tiny; ++s) {
            size_t n = s % 2 ? (s % 4 == 1 ? 4095 : 1) : 300001;
            if (s < 4) test_scan_case(cs, CLSORT_U32, n, D_RANDOM, 0, 0);
            else test_split_case(cs, 4, 0, n, F_RANDOM, 0, 0);
        }
        clsort_destroy(cs);
    }
}

int main(int argc, char **argv)
{
    int tiny = argc > 1 && strcmp(argv[1], "--tiny") == 0;
    int quick = tiny || (argc > 1 && strcmp(argv[1], "--quick") == 0);
    /* a second argument base|sort|bin|bitonic|nbody|reduce runs only that part (make
     * oclgrind runs each part in a process of its own); a third, portable or
     * lookback, only that cross-work-group path (a long part in two processes) */
    const char *part = argc > 2 ? argv[2] : "all", *only_path = argc > 3 ? argv[3] : NULL;
    int all = strcmp(part, "all") == 0;
    int run_base = all || strcmp(part, "base") == 0, run_sort = all || strcmp(part, "sort") == 0;
    int run_bin = all || strcmp(part, "bin") == 0;
    int run_bitonic = all || strcmp(part, "bitonic") == 0;
    int run_nbody = all || strcmp(part, "nbody") == 0;
    int run_reduce = all || strcmp(part, "reduce") == 0;
    int run_tree = all || strcmp(part, "tree") == 0;
    int only_reverse = strcmp(part, "reverse") == 0; /* the reverse-tile stress alone (a loop of it) */
    int only_status = strcmp(part, "status") == 0;   /* the look-back status slots alone */
    int only_budget = strcmp(part, "budget") == 0;   /* the loop-budget cases alone (each part runs its own) */
    static const size_t base_sizes[] = {0, 1, 2, 3, 7, 31, 255, 256, 257, 1009, 2047, 2048, 2049, 4095, 4096, 4097,
                                        8191, 8192, 8193, 65537};
    size_t sizes[32], nsizes = 0, i;
    int p;
    for (i = 0; i < sizeof base_sizes / sizeof base_sizes[0]; ++i)
        if (tiny ? (i == 0 || i == 1 || i == 3 || i == 8 || i == 15) : (!quick || base_sizes[i] <= 8193))
            sizes[nsizes++] = base_sizes[i];
    if (!quick) sizes[nsizes++] = ((size_t)1 << 20) + 1;
    for (p = CLSORT_PATH_PORTABLE; p <= CLSORT_PATH_LOOKBACK && !only_reverse && !only_status && !only_budget; ++p) {
        clsort_context *cs = NULL;
        clsort_context_desc desc;
        size_t s;
        int t, d, f, kind;
        memset(&desc, 0, sizeof desc);
        desc.path = (clsort_path)p;
        path_name = p == CLSORT_PATH_PORTABLE ? "portable" : "lookback";
        if (only_path && strcmp(only_path, path_name) != 0) continue;
        if (clsort_create(&cs, &desc) != CLSORT_SUCCESS) {
            printf("clsort_create: %s\n", clsort_last_error(cs));
            clsort_destroy(cs);
            printf("%d passed, %d failed\n", passed, failed + 1);
            return 1;
        }
        printf("device: %s, path: %s\n", clsort_device_name(cs), path_name);
        printf("  scan...\n");
        fflush(stdout);
        for (s = 0; s < nsizes && run_base; ++s)
            for (t = CLSORT_U32; t < T_WIDE_END; ++t)
                for (d = 0; d < D_COUNT; ++d) {
                    if (tiny && d != D_RANDOM && d != D_ONES) continue;
                    if (sizes[s] > 70000 && (t != CLSORT_U32 || d > D_ONES)) continue;
                    if (d != D_RANDOM && d != D_ONES && t != CLSORT_U32 && sizes[s] > 300) continue;
                    test_scan_case(cs, (clsort_type)t, sizes[s], d, (int)((s + (size_t)d) & 1), (int)((s + (size_t)t) % 3 == 0));
                }
        for (s = 0; s < nsizes && run_base; ++s) test_scan_case(cs, CLSORT_U32, sizes[s], D_RANDOM, 1, 1);
        if (!quick && run_base) test_scan_case(cs, CLSORT_U32, ((size_t)1 << 22), D_RANDOM, 0, 0);
        printf("  enumerate / pack / split...\n");
        fflush(stdout);
        for (s = 0; s < nsizes && run_base; ++s)
            for (f = 0; f < F_COUNT; ++f)
                for (kind = 0; kind < 3; ++kind) {
                    if (tiny && f != F_RANDOM && f != F_NONE) continue;
                    if (sizes[s] > 70000 && (f != F_RANDOM || kind != 0)) continue;
                    test_split_case(cs, 4, kind == 0 ? 4 : 0, sizes[s], f, kind, kind == 2 ? (unsigned)(s % 3 == 0 ? 31 : 5) : 0);
                    if (sizes[s] < 10000 && f == F_RANDOM)
                        test_split_case(cs, 8, kind == 1 ? 8 : kind == 0 ? 4 : 0, sizes[s], f, kind, kind == 2 ? 63 : 0);
                    if (sizes[s] < 10000 && (f == F_RANDOM || f == F_ALTERNATE)) /* 8- and 16-bit keys move as bits */
                        test_split_case(cs, (size_t)(kind == 1 ? 2 : 1), kind == 0 ? 4 : kind == 1 ? 8 : 0, sizes[s], f,
                                        kind, kind == 2 ? (unsigned)(s % 2 ? 7 : 0) : 0);
                }
        printf("  radix sort, gather...\n");
        fflush(stdout);
        if (run_sort) test_sort(cs, sizes, nsizes, tiny);
        if (run_sort) test_sort_narrow(cs, sizes, nsizes, tiny, quick);
        if (run_sort) test_sort_narrow_more(cs, tiny);
        if (run_sort) test_sort_fill16(cs, tiny);
        if (run_sort) test_narrow_refusals(cs);
        if (!quick && run_sort) {
            test_sort_case(cs, CLSORT_U32, (size_t)1 << 22, S_RANDOM, 0, 0, 0, 0, M_VAL4, 0, 0);
            test_sort_case(cs, CLSORT_F32, ((size_t)1 << 21) + 3, S_RANDOM, 0, 0, 0, 1, M_PERM, 1, 0);
        }
        for (s = 0; s < nsizes && run_sort; ++s) test_gather(cs, sizes[s]);
        if (run_sort) test_sort_arguments(cs);
        printf("  particle binning...\n");
        fflush(stdout);
        if (run_bin) test_bin(cs, tiny, quick);
        if (run_bitonic && p == CLSORT_PATH_PORTABLE) test_bitonic(cs, quick, tiny); /* path-independent */
        /* once: the N-body kernels do not depend on the scan path; a context
         * of its own, whose program cache holds only the N-body shapes */
        if (run_nbody && p == CLSORT_PATH_PORTABLE) {
            clsort_context *nb = NULL;
            if (clsort_create(&nb, &desc) == CLSORT_SUCCESS) test_nbody(nb, tiny, quick);
            else check(0, "clsort_create for the n-body part", 0, "-", 0, 0, 0);
            clsort_destroy(nb);
        }
        if (run_reduce) test_reduce(cs, quick, tiny, p == CLSORT_PATH_LOOKBACK);
        if (run_tree && p == CLSORT_PATH_PORTABLE) { /* a context of its own, like the N-body part */
            clsort_context *tc = NULL;
            if (clsort_create(&tc, &desc) == CLSORT_SUCCESS) test_tree(tc, tiny, quick);
            else check(0, "clsort_create for the tree part", 0, "-", 0, 0, 0);
            clsort_destroy(tc);
        }
        printf("  arguments, events, host level, contexts...\n");
        if (run_base) {
            test_bad_arguments(cs);
            test_events(cs);
            test_host_level(cs);
            test_contexts(cs);
            test_argument_table(cs);
            test_aliasing(cs);
            test_messages(cs);
            test_limits(cs);
        }
        { /* with CLSORT_CACHE_DIR set (make test): how the programs came */
            clsort_cache_stats st;
            if (clsort_cache_stats_get(cs, &st) == CLSORT_SUCCESS && st.enabled)
                printf("  program cache %s: %lu built from source, %lu from the cache, %lu rejected, %lu stored (%lu as "
                       "cubin)%s%s\n",
                       st.dir, st.builds, st.hits, st.rejected, st.stores, st.cubins, st.warning[0] ? "; " : "",
                       st.warning);
        }
        clsort_destroy(cs);
    }
    if (run_base || only_reverse || only_budget) test_budget_lookback(tiny);
    if (run_sort || only_budget) test_budget_sort(tiny);
    if (run_nbody || only_budget) test_budget_nbody(tiny);
    if (run_reduce || only_budget) test_budget_reduce(tiny);
    if (run_tree || only_budget) test_budget_tree(tiny);
    if (run_base || only_reverse) test_reverse_tiles(tiny, 0);
    if (run_base || only_reverse) test_reverse_tiles(tiny, 1); /* the other status form (where there are two) */
    if (run_base || run_sort || run_reduce || only_status)
        test_status_slots(tiny, run_base || only_status, run_sort || only_status, run_reduce || only_status);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
