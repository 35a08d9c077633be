/* test_clsort, reduce: clsort_reduce, clsort_segmented_scan and _reduce
 * (by flags, keys and offsets), clsort_reduce_by_key, run-length encode,
 * unique and the even histogram, every type and operator, against left to
 * right C references; determinism, the tile kernel variants, bad arguments
 * and the host forms. Included by tests/test_clsort.c. */

/* ---- references ----
 * References work on bit patterns (uint64_t) with the operator of each type,
 * left to right. Integer results and min/max must match exactly (min/max by
 * value: -0.0 == +0.0); float sums within the bound of the REDUCE notes:
 * depth * u * (sum of |x| over the segment so far), depth = ceil(n / 2048) +
 * 4 * (1024 + 64) + 8 for the default tiles, n for tuned tiles (any order). */

#include <pthread.h> /* the watchdog of "no wait on the host" */

__extension__ typedef unsigned __int128 rd_u128;
static const char *rd_tn[] = {"u32", "i32", "f32", "u64", "i64", "f64"};
static const char *rd_opn[] = {"sum", "min", "max"};
static double rd_depth; /* set per context */
/* The float sums' depth of a call of n elements on the default tiles. */
static double rd_depth_of(size_t n) { return ceil((double)n / 2048.0) + 4 * (1024 + 64) + 8; }

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
                float x = ((float *)in)[i], lo = (float)hd.lower, sc = (float)((double)bins / (hd.upper - hd.lower)), f;
                if (!((double)x >= hd.lower && (double)x < hd.upper)) continue; /* the bounds are floats here */
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

/* ---- device counts (clsort_enqueue.count) ----
 * Each call of the family with its element count read on the device (the
 * capacities, counts, count buffers and DC_FILL outputs of
 * tests/test_devcount.c), against the references above over the first
 * `count` elements (clamped to the capacity): outputs per element or per
 * run are written below the count (the run count) only and keep their bytes
 * past it, every segment of a segmented reduce is written (its elements past
 * the count left out), the sums and histogram counts are those of the first
 * count elements, and the run counts left on the device are the
 * references'. */

/* Segmented scan of cap elements with the count on the device; for offsets
 * the segmented reduce too, for keys reduce-by-key (the same programs).
 * Offsets: device (host_offsets 0), host (1, over the capacity as the
 * check asks) or device offsets clamped to the count (2: as the cell
 * offsets of a culled stream binned with the same count), the same
 * segments either way. */
static void rd_dc_seg_one(clsort_context *cs, clsort_type t, clsort_op op, clsort_segments sk, clsort_type kt,
                          size_t cap, size_t count, int sp, int inclusive, int in_place, int host_offsets)
{
    static const char *skn[] = {"none", "flags-u32", "flags-u8", "keys", "offsets"};
    size_t es = clsort_type_size(t), ks = clsort_type_size(kt), m = count < cap ? count : cap, i, bad = (size_t)-1;
    unsigned char *in = (unsigned char *)malloc(cap * es + 8), *init = (unsigned char *)malloc(cap * es + 8);
    unsigned char *got = (unsigned char *)malloc(cap * es + 8);
    uint64_t acc = 0, want = 0;
    double mag = 0;
    rd_segs s;
    clsort_reduce_desc d_;
    clsort_enqueue q;
    cl_mem din, dout, dseg = NULL, dc;
    char what[192];
    int r;
    rd_fill(in, t, cap, (int)(count % 3));
    rd_segs_make(&s, cap, sp);
    memset(&d_, 0, sizeof d_);
    d_.type = t;
    d_.op = op;
    d_.inclusive = inclusive;
    d_.segments = sk;
    d_.key_type = kt;
    din = buffer(cs, cap * es, in);
    if (in_place) memcpy(init, in, cap * es);
    dout = in_place ? din : dc_out_buffer(cs, cap * es, init);
    if (sk == CLSORT_SEGMENTS_FLAGS_U8) dseg = buffer(cs, cap, s.f8);
    else if (sk == CLSORT_SEGMENTS_FLAGS_U32) dseg = buffer(cs, cap * 4, s.f32);
    else if (sk == CLSORT_SEGMENTS_KEYS) dseg = buffer(cs, cap * ks, ks == 4 ? (void *)s.k32 : (void *)s.k64);
    else if (sk == CLSORT_SEGMENTS_OFFSETS) {
        d_.segment_count = s.count;
        if (host_offsets == 1) d_.segment_data_host = s.off;
        else {
            for (i = 0; i <= s.count && host_offsets == 2; ++i) s.off[i] = s.off[i] < m ? s.off[i] : (uint32_t)m;
            dseg = buffer(cs, (s.count + 1) * 4, s.off);
        }
    }
    d_.segment_data = dseg;
    dc = dc_count_buffer(cs, count);
    dc_enq(&q, dc);
    snprintf(what, sizeof what, "device count segmented scan %s %s %s%s %s%s%s cap %lu", rd_tn[t], rd_opn[op], skn[sk],
             sk == CLSORT_SEGMENTS_KEYS ? (ks == 4 ? "-u32" : "-u64") : "", inclusive ? "inclusive" : "exclusive",
             in_place ? " in-place" : "",
             sk != CLSORT_SEGMENTS_OFFSETS ? "" : host_offsets == 1 ? " host-offsets" : host_offsets ? " offsets-to-count" : "",
             (unsigned long)cap);
    r = clsort_segmented_scan(cs, din, dout, cap, &d_, &q);
    if (t == CLSORT_F64 && r == CLSORT_ERROR_UNSUPPORTED) goto done; /* no fp64 */
    check(r == CLSORT_SUCCESS, what, count, sp_names[sp], 0, 0, r);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    download(cs, dout, cap * es, got);
    for (i = 0; i < m && bad == (size_t)-1; ++i) {
        uint64_t x = rd_clean(t, op, rd_get(in, t, i)), before;
        double ax = fabs(rd_as_double(t, x));
        int head = i == 0 || rd_inc(&s, sk, i) != 0;
        if (head) { acc = rd_ident(t, op); mag = 0; }
        before = acc;
        acc = rd_apply(t, op, acc, x);
        if (ax == ax) mag += ax;
        want = inclusive ? acc : head ? rd_ident(t, op) : before;
        if (!rd_match(t, op, rd_get(got, t, i), want, mag)) bad = i;
    }
    check(bad == (size_t)-1, what, count, sp_names[sp], bad, rd_as_double(t, want),
          bad == (size_t)-1 ? 0 : rd_as_double(t, rd_get(got, t, bad)));
    bad = dc_first_diff(got, init, m * es, cap * es);
    check(bad == (size_t)-1, "device count segmented scan: the elements past the count keep their bytes", count,
          sp_names[sp], bad / es, 0, 0);
    if (sk == CLSORT_SEGMENTS_OFFSETS || sk == CLSORT_SEGMENTS_KEYS) {
        /* segmented reduce (offsets) or reduce-by-key (keys): results per
         * segment or run, the elements below the count only */
        size_t outs = sk == CLSORT_SEGMENTS_OFFSETS ? s.count : cap, seg = 0, runs = 0, got_count = 12345;
        unsigned char *vinit = (unsigned char *)malloc((outs + 4) * es), *vgot = (unsigned char *)malloc((outs + 4) * es);
        unsigned char *kinit = (unsigned char *)malloc(cap * ks + 8), *kgot = (unsigned char *)malloc(cap * ks + 8);
        uint64_t *ref = (uint64_t *)malloc((outs + 1) * 8);
        double *rmag = (double *)calloc(outs + 1, sizeof(double));
        cl_mem dvo = dc_out_buffer(cs, (outs + 4) * es, vinit), dko = dc_out_buffer(cs, cap * ks, kinit);
        cl_mem dcnt = dc_count_buffer(cs, 0xdeadbeefu); /* desc.count: every word 0xdeadbeef until word 0 is written */
        uint32_t dev_count = 0;
        size_t written;
        if (in_place) clEnqueueWriteBuffer(clsort_cl_queue(cs), din, CL_TRUE, 0, cap * es, in, 0, NULL, NULL);
        for (i = 0; i < outs; ++i) ref[i] = rd_ident(t, op);
        for (i = 0; i < m; ++i) {
            uint64_t x = rd_clean(t, op, rd_get(in, t, i));
            double ax = fabs(rd_as_double(t, x));
            if (sk == CLSORT_SEGMENTS_OFFSETS) seg += s.inc[i];
            else if (i > 0 && s.k32[i] != s.k32[i - 1]) ++seg;
            ref[seg] = rd_apply(t, op, ref[seg], x);
            if (ax == ax) rmag[seg] += ax;
        }
        if (sk == CLSORT_SEGMENTS_OFFSETS) {
            r = clsort_segmented_reduce(cs, din, dvo, cap, &d_, &q);
            snprintf(what, sizeof what, "device count segmented reduce %s %s%s cap %lu", rd_tn[t], rd_opn[op],
                     host_offsets == 1 ? " host-offsets" : host_offsets ? " offsets-to-count" : "", (unsigned long)cap);
            written = outs; /* every segment, clipped to the count */
        } else {
            clsort_by_key_desc bk;
            clsort_enqueue bq = q;
            runs = m ? seg + 1 : 0;
            memset(&bk, 0, sizeof bk);
            bk.key_type = kt;
            bk.type = t;
            bk.op = op;
            bk.count = dcnt;
            r = clsort_reduce_by_key(cs, dseg, din, dko, dvo, cap, &bk, &got_count, &bq);
            snprintf(what, sizeof what, "device count reduce by key %s %s keys %s cap %lu", rd_tn[t], rd_opn[op],
                     ks == 4 ? "u32" : "u64", (unsigned long)cap);
            written = runs;
        }
        check(r == CLSORT_SUCCESS, what, count, sp_names[sp], 0, 0, r);
        if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
        download(cs, dvo, (outs + 4) * es, vgot);
        for (i = 0, bad = (size_t)-1; i < written && bad == (size_t)-1; ++i)
            if (!rd_match(t, op, rd_get(vgot, t, i), ref[i], rmag[i])) bad = i;
        check(bad == (size_t)-1, what, count, sp_names[sp], bad, bad == (size_t)-1 ? 0 : rd_as_double(t, ref[bad]),
              bad == (size_t)-1 ? 0 : rd_as_double(t, rd_get(vgot, t, bad)));
        bad = dc_first_diff(vgot, vinit, written * es, (outs + 4) * es);
        check(bad == (size_t)-1, "device count: the results past the last segment or run keep their bytes", count,
              sp_names[sp], bad / es, 0, 0);
        if (sk == CLSORT_SEGMENTS_KEYS) {
            size_t j = 0;
            download(cs, dko, cap * ks, kgot);
            download(cs, dcnt, 4, &dev_count);
            check(got_count == runs && dev_count == runs, "device count reduce by key: the run count (host, device)",
                  count, sp_names[sp], 0, (double)runs, (double)dev_count);
            for (i = 0, bad = (size_t)-1; i < m && bad == (size_t)-1; ++i)
                if (i == 0 || s.k32[i] != s.k32[i - 1]) {
                    if (ks == 4 ? ((uint32_t *)kgot)[j] != s.k32[i] : ((uint64_t *)kgot)[j] != s.k64[i]) bad = j;
                    ++j;
                }
            if (bad == (size_t)-1) bad = dc_first_diff(kgot, kinit, runs * ks, cap * ks);
            check(bad == (size_t)-1, "device count reduce by key: the keys, and past the run count their bytes",
                  count, sp_names[sp], bad, 0, 0);
        }
        clReleaseMemObject(dvo), clReleaseMemObject(dko), clReleaseMemObject(dcnt);
        free(vinit), free(vgot), free(kinit), free(kgot), free(ref), free(rmag);
    }
done:
    clReleaseMemObject(din);
    if (!in_place) clReleaseMemObject(dout);
    if (dseg) clReleaseMemObject(dseg);
    clReleaseMemObject(dc);
    rd_segs_free(&s);
    free(in), free(init), free(got);
}

/* Run-length encode and unique (values of 0, 4 or 8 bytes) of cap keys of kt
 * with the count on the device. */
static void rd_dc_rle_one(clsort_context *cs, clsort_type kt, size_t cap, size_t count, int sp, int with_values)
{
    size_t ks = clsort_type_size(kt), vs = with_values == 2 ? 8 : with_values ? 4 : 0;
    size_t m = count < cap ? count : cap, runs = 0, got = 12345, i, j, bad;
    rd_segs s;
    unsigned char *vals = (unsigned char *)malloc(cap * 8 + 8), *kinit = (unsigned char *)malloc(cap * ks + 8);
    unsigned char *kgot = (unsigned char *)malloc(cap * ks + 8), *linit = (unsigned char *)malloc(cap * 4 + 4);
    unsigned char *vinit = (unsigned char *)malloc(cap * 8 + 8), *vgot = (unsigned char *)malloc(cap * 8 + 8);
    uint32_t *lgot = (uint32_t *)malloc(cap * 4 + 4), run = 0, dev_count = 0;
    cl_mem dk, dko, dlen, dv, dvo, dcnt, dc;
    clsort_by_key_desc bk;
    clsort_enqueue q;
    int r;
    rd_segs_make(&s, cap, sp);
    for (i = 0; i < cap * 8; ++i) vals[i] = (unsigned char)rnd64();
    for (i = 0; i < m; ++i) runs += i == 0 || s.k32[i] != s.k32[i - 1];
    dk = buffer(cs, cap * ks, ks == 4 ? (void *)s.k32 : (void *)s.k64);
    dko = dc_out_buffer(cs, cap * ks, kinit);
    dlen = dc_out_buffer(cs, cap * 4, linit);
    dv = buffer(cs, cap * 8, vals);
    dvo = dc_out_buffer(cs, cap * 8, vinit);
    dcnt = dc_count_buffer(cs, 0xdeadbeefu);
    dc = dc_count_buffer(cs, count);
    memset(&bk, 0, sizeof bk);
    bk.key_type = kt;
    bk.count = dcnt;
    dc_enq(&q, dc);
    r = clsort_run_length_encode(cs, dk, dko, dlen, cap, &bk, &got, &q);
    check(r == CLSORT_SUCCESS, "device count run-length encode", count, sp_names[sp], 0, 0, r);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    download(cs, dko, cap * ks, kgot);
    download(cs, dlen, cap * 4, lgot);
    download(cs, dcnt, 4, &dev_count);
    check(got == runs && dev_count == runs, "device count run-length encode: the run count (host, device)", count,
          sp_names[sp], 0, (double)runs, (double)dev_count);
    for (i = 0, j = 0, bad = (size_t)-1; i < m && bad == (size_t)-1; ++i) {
        ++run;
        if (i + 1 == m || s.k32[i + 1] != s.k32[i]) {
            if (lgot[j] != run || (ks == 4 ? ((uint32_t *)kgot)[j] != s.k32[i] : ((uint64_t *)kgot)[j] != s.k64[i]))
                bad = j;
            ++j;
            run = 0;
        }
    }
    if (bad == (size_t)-1) bad = dc_first_diff(kgot, kinit, runs * ks, cap * ks);
    if (bad == (size_t)-1) bad = dc_first_diff((unsigned char *)lgot, linit, runs * 4, cap * 4);
    check(bad == (size_t)-1, "device count run-length encode: keys, lengths, and past the run count their bytes",
          count, sp_names[sp], bad, 0, 0);
    /* unique: the first key of each run (and its value) */
    clReleaseMemObject(dko);
    dko = dc_out_buffer(cs, cap * ks, kinit);
    if (vs) {
        bk.values_in = dv;
        bk.values_out = dvo;
        bk.value_size = vs;
    }
    got = 12345;
    r = clsort_unique(cs, dk, dko, cap, &bk, &got, &q);
    check(r == CLSORT_SUCCESS, "device count unique", count, sp_names[sp], 0, 0, r);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    download(cs, dko, cap * ks, kgot);
    download(cs, dvo, cap * 8, vgot);
    download(cs, dcnt, 4, &dev_count);
    check(got == runs && dev_count == runs, "device count unique: the run count (host, device)", count, sp_names[sp], 0,
          (double)runs, (double)dev_count);
    for (i = 0, j = 0, bad = (size_t)-1; i < m && bad == (size_t)-1; ++i)
        if (i == 0 || s.k32[i] != s.k32[i - 1]) {
            if ((ks == 4 ? ((uint32_t *)kgot)[j] != s.k32[i] : ((uint64_t *)kgot)[j] != s.k64[i]) ||
                (vs && memcmp(vgot + j * vs, vals + i * vs, vs) != 0))
                bad = j;
            ++j;
        }
    if (bad == (size_t)-1) bad = dc_first_diff(kgot, kinit, runs * ks, cap * ks);
    if (bad == (size_t)-1) bad = dc_first_diff(vgot, vinit, runs * vs, cap * 8);
    check(bad == (size_t)-1, vs ? "device count unique: keys, first values, and past the run count their bytes"
                                : "device count unique: keys, and past the run count their bytes",
          count, sp_names[sp], bad, 0, 0);
    clReleaseMemObject(dk), clReleaseMemObject(dko), clReleaseMemObject(dlen), clReleaseMemObject(dv);
    clReleaseMemObject(dvo), clReleaseMemObject(dcnt), clReleaseMemObject(dc);
    rd_segs_free(&s);
    free(vals), free(kinit), free(kgot), free(linit), free(vinit), free(vgot), free(lgot);
}

/* clsort_reduce of cap elements with the count on the device: the result
 * to the host and to desc.result. */
static void rd_dc_reduce_one(clsort_context *cs, clsort_type t, clsort_op op, size_t cap, size_t count)
{
    size_t es = clsort_type_size(t), m = count < cap ? count : cap, i;
    unsigned char *in = (unsigned char *)malloc(cap * es + 8);
    uint64_t acc = rd_ident(t, op), got = 0, got_dev = 0;
    double mag = 0;
    cl_mem din, dres, dc;
    clsort_reduce_desc rd;
    clsort_enqueue q;
    char what[96];
    int r, d = (int)(count % 3);
    rd_fill(in, t, cap, d);
    for (i = 0; i < m; ++i) {
        uint64_t x = rd_clean(t, op, rd_get(in, t, i));
        double ax = fabs(rd_as_double(t, x));
        acc = rd_apply(t, op, acc, x);
        if (ax == ax) mag += ax;
    }
    din = buffer(cs, cap * es, in);
    dres = buffer(cs, 8, NULL);
    dc = dc_count_buffer(cs, count);
    memset(&rd, 0, sizeof rd);
    rd.type = t;
    rd.op = op;
    rd.result = dres;
    dc_enq(&q, dc);
    rd_depth = rd_depth_of(cap);
    snprintf(what, sizeof what, "device count reduce %s %s cap %lu", rd_tn[t], rd_opn[op], (unsigned long)cap);
    r = clsort_reduce(cs, din, cap, &rd, &got, &q);
    check(r == CLSORT_SUCCESS, what, count, clsort_last_error(cs), 0, 0, r);
    download(cs, dres, es, &got_dev);
    check(rd_match(t, op, got, acc, mag) && got == got_dev, what, count,
          d == 0 ? "random" : d == 1 ? "max (wraps)" : "small", 0, rd_as_double(t, acc), rd_as_double(t, got));
    clReleaseMemObject(din), clReleaseMemObject(dres), clReleaseMemObject(dc);
    free(in);
}

/* The even histogram of cap samples with the count on the device: bins over
 * [0, 900) of samples in [-50, 1050) (negative ones wrap far out of range
 * for unsigned types; floats: every 97th NaN), added to counts that held a
 * pattern (accumulate) or overwriting them; the words past counts keep it. */
static void rd_dc_hist_one(clsort_context *cs, clsort_type t, size_t cap, size_t count, unsigned bins, int accumulate)
{
    enum { GUARD = 8 };
    size_t es = clsort_type_size(t), m = count < cap ? count : cap, i;
    unsigned char *in = (unsigned char *)calloc(cap * es + 8, 1);
    uint32_t *ref = (uint32_t *)malloc((bins + GUARD) * 4), *got = (uint32_t *)malloc((bins + GUARD) * 4);
    clsort_histogram_desc hd;
    clsort_enqueue q;
    cl_mem ds, dcounts, dc;
    char what[96];
    int r, fl = t == CLSORT_F32 || t == CLSORT_F64;
    for (i = 0; i < bins + GUARD; ++i) ref[i] = 0xa5a5a5a5u + (uint32_t)i;
    dcounts = buffer(cs, (bins + GUARD) * 4, ref);
    if (!accumulate)
        for (i = 0; i < bins; ++i) ref[i] = 0;
    for (i = 0; i < cap; ++i) {
        int64_t v = (int64_t)(rnd64() % 1100) - 50;
        double x = (double)v + 0.25;
        if (t == CLSORT_F32) ((float *)in)[i] = i % 97 == 5 ? NAN : (float)x;
        else if (t == CLSORT_F64) ((double *)in)[i] = i % 97 == 5 ? NAN : x;
        else if (es == 4) ((uint32_t *)in)[i] = (uint32_t)v;
        else ((uint64_t *)in)[i] = (uint64_t)v;
    }
    for (i = 0; i < m; ++i) {
        if (t == CLSORT_F32) {
            float x = ((float *)in)[i], sc = (float)((double)bins / 900.0);
            volatile float f;
            if (!(x >= 0.0f && x < 900.0f)) continue;
            f = x - 0.0f;
            f = f * sc;
            ref[f >= (float)bins ? bins - 1 : (uint32_t)f]++;
        } else if (t == CLSORT_F64) {
            double x = ((double *)in)[i], f;
            if (!(x >= 0.0 && x < 900.0)) continue;
            f = (x - 0.0) * ((double)bins / 900.0);
            ref[f >= (double)bins ? bins - 1 : (uint32_t)f]++;
        } else {
            uint64_t x = rd_get(in, t, i);
            int64_t v = t == CLSORT_I32 ? (int64_t)(int32_t)(uint32_t)x : (int64_t)x;
            if (t == CLSORT_U32 || t == CLSORT_U64 ? x < 900 : v >= 0 && v < 900)
                ref[(uint32_t)(x * bins / 900)]++;
        }
    }
    memset(&hd, 0, sizeof hd);
    hd.type = t;
    hd.bins = bins;
    hd.accumulate = accumulate;
    if (fl) hd.upper = 900.0;
    else hd.upper_int = 900;
    ds = buffer(cs, cap * es, in);
    dc = dc_count_buffer(cs, count);
    dc_enq(&q, dc);
    snprintf(what, sizeof what, "device count histogram %s, %u bins%s, cap %lu", rd_tn[t], bins,
             accumulate ? " accumulate" : "", (unsigned long)cap);
    r = clsort_histogram_even(cs, ds, cap, dcounts, &hd, &q);
    check(r == CLSORT_SUCCESS, what, count, clsort_last_error(cs), 0, 0, r);
    download(cs, dcounts, (bins + GUARD) * 4, got);
    for (i = 0; i < bins + GUARD && got[i] == ref[i]; ++i) {}
    check(i == bins + GUARD, what, count, i < bins ? "a bin" : "a word past counts", i, i < bins + GUARD ? ref[i] : 0,
          i < bins + GUARD ? got[i] : 0);
    clReleaseMemObject(ds), clReleaseMemObject(dcounts), clReleaseMemObject(dc);
    free(in), free(ref), free(got);
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

/* The tile kernels (clsort_tuning.reduce_tiles): RAKING (variant 1: the
 * raking pair scan, the heads kernels) at GPU-like widths: 256 work-items
 * (32 lanes of 8), 128 (lanes of 4), 64 (lanes of 2) and 32 (lanes of 1),
 * and REGISTERS (variant 3: registers, warp-shuffle pair scan) at the
 * device's tile, 256 x 4 (8 warps), 64 x 32 (a whole word of segment starts
 * per work-item) and 16 x 2 (one warp of 16), around tile borders, for each
 * head pattern; REGISTERS also with every segment kind, 8-byte values (two
 * shuffles per value), min / max and in place, since its tile code is its
 * own. */
/* The shapes v whose bit (1u << v) is set in `shapes_run`. */
static void test_rd_variants(clsort_context *cs, int tiny, unsigned shapes_run)
{
    enum { RAKE = CLSORT_REDUCE_TILES_RAKING, REGS = CLSORT_REDUCE_TILES_REGISTERS };
    static const unsigned shapes[][3] = {{RAKE, 32, 4},  {RAKE, 256, 4}, {RAKE, 64, 2},  {RAKE, 128, 8},
                                         {REGS, 0, 0},   {REGS, 256, 4}, {REGS, 64, 32}, {REGS, 16, 2}}; /* reduce_tiles, wg, items */
    static const int pats[] = {SP_NONE, SP_ALL, SP_SHORT, SP_ENDS, SP_TILES};
    int v, p;
    size_t i;
    for (v = 0; v < (int)(sizeof shapes / sizeof shapes[0]); ++v) {
        clsort_tuning tu;
        clsort_context *vc;
        size_t tile, ns[6];
        if (!(shapes_run >> v & 1)) continue;
        memset(&tu, 0, sizeof tu);
        tu.reduce_tiles = (clsort_reduce_tiles)shapes[v][0];
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
                /* the largest n also with a device count (the same
                 * programs): past one tile, at a tile edge, in the last
                 * tile, 0 and past the capacity */
                const int dev = i + 1 == (tiny ? 4u : 6u);
                const size_t dcount = p == 0 ? tile + 1 : p == 1 ? n - 1 : p == 2 ? 2 * tile : p == 3 ? 0 : n + 9;
                if (tiny && p != 1 && p != 4) continue;
                test_rd_rle_case(vc, (i + (size_t)p) & 1 ? CLSORT_U64 : CLSORT_U32, n, pats[p], (int)((i + (size_t)p) % 3));
                if (dev)
                    rd_dc_rle_one(vc, (i + (size_t)p) & 1 ? CLSORT_U64 : CLSORT_U32, n, dcount, pats[p],
                                  (int)((i + (size_t)p) % 3));
                if ((i + (size_t)p) % 2 == 0) {
                    test_rd_seg_case(vc, p & 1 ? CLSORT_F32 : CLSORT_U32, CLSORT_OP_SUM, CLSORT_SEGMENTS_KEYS,
                                     CLSORT_U32, n, pats[p], 0, 1, 0, 0);
                    if (dev)
                        rd_dc_seg_one(vc, p & 1 ? CLSORT_F32 : CLSORT_U32, CLSORT_OP_SUM, CLSORT_SEGMENTS_KEYS,
                                      CLSORT_U32, n, dcount, pats[p], 1, 0, 0);
                }
                if (shapes[v][0] == REGS && (!tiny || (i + (size_t)p) % 2)) {
                    /* variant 3: another segment kind, type and operator each time */
                    static const clsort_type vt[] = {CLSORT_U64, CLSORT_F64, CLSORT_I32, CLSORT_F32, CLSORT_I64};
                    int sk = (int)((i + (size_t)p) % 5), k = (int)((i * 5 + (size_t)p) % 5);
                    test_rd_seg_case(vc, vt[k], (clsort_op)((i + (size_t)p) % 3), (clsort_segments)sk,
                                     p & 1 ? CLSORT_U64 : CLSORT_U32, n, pats[p], (int)(i % 3), (int)(p & 1),
                                     (int)(i & 1), (int)(p == 2));
                    if (dev)
                        rd_dc_seg_one(vc, vt[k], (clsort_op)((i + (size_t)p) % 3), (clsort_segments)sk,
                                      p & 1 ? CLSORT_U64 : CLSORT_U32, n, dcount, pats[p], (int)(p & 1), (int)(i & 1),
                                      (int)(p == 2));
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
    check(clsort_segmented_scan_host(cs, CLSORT_U32, in, out, 8, &d) == CLSORT_SUCCESS && memcmp(out, want_scan, sizeof out) == 0,
          "segmented_scan_host", 8, "-", 0, 0, 0);
    d.segments = CLSORT_SEGMENTS_OFFSETS;
    d.segment_data_host = off;
    d.segment_count = 4;
    check(clsort_segmented_reduce_host(cs, CLSORT_U32, in, out, 8, &d) == CLSORT_SUCCESS && memcmp(out, want_red, sizeof want_red) == 0,
          "segmented_reduce_host (an empty segment: 0)", 8, "-", 0, 0, 0);
    check(clsort_reduce_by_key_host(cs, CLSORT_U32, CLSORT_U32, keys, in, ko, vo, 8, &bk, &cnt) == CLSORT_SUCCESS && cnt == 3 &&
          memcmp(ko, want_k, 12) == 0 && memcmp(vo, want_v, 12) == 0, "reduce_by_key_host", 8, "-", 0, 3, (double)cnt);
    check(clsort_run_length_encode_host(cs, CLSORT_U32, keys, ko, len, 8, &bk, &cnt) == CLSORT_SUCCESS && cnt == 3 &&
          memcmp(ko, want_k, 12) == 0 && memcmp(len, want_len, 12) == 0, "run_length_encode_host", 8, "-", 0, 3, (double)cnt);
    check(clsort_unique_host(cs, CLSORT_U32, keys, in, ko, vo, 8, &bk, &cnt) == CLSORT_SUCCESS && cnt == 3 &&
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
        check(clsort_histogram_even_host(cs, CLSORT_F32, f2, 5, counts, &hd) == CLSORT_SUCCESS && counts[0] == 1 && counts[1] == 1 &&
              counts[2] == 1 && counts[3] == 1, "histogram_even_host f32 (NaN not counted)", 5, "-", 0, 0, 0);
    }
    hd.type = CLSORT_U32;
    hd.lower_int = 1;
    hd.upper_int = 9;
    check(clsort_histogram_even_host(cs, CLSORT_U32, in, 8, counts, &hd) == CLSORT_SUCCESS && memcmp(counts, want_h, 16) == 0,
          "histogram_even_host u32 (9 above the range)", 8, "-", 0, 0, 0);
}

static const size_t rd_sizes[] = {0, 1, 2, 7, 31, 257, 1009, 2047, 2048, 2049, 4095, 4096, 4097, 8193, 65537, 300007};

/* How many of rd_sizes a case walks. */
static size_t rd_kmax(const test_env *e)
{
    return e->tiny ? 6 : e->quick ? 14 : sizeof rd_sizes / sizeof rd_sizes[0];
}

/* --quick: half of the types and operators, each on one of the paths
 * (quick_few); --full and --tiny take every operator of every type on both. */
static int rd_ops_here(const test_env *e, int t, int op) { return quick_few(e, (unsigned)(t + op)); }

/* Every type and operator: reduce, and segmented scans with u32 flags. */
static void rd_types(const test_env *e)
{
    size_t s, kmax = rd_kmax(e);
    int t, op;
    for (t = CLSORT_U32; t < T_WIDE_END; ++t)
        for (op = 0; op < 3; ++op)
            for (s = 0; s < kmax && rd_ops_here(e, t, op); s += e->tiny ? 1 : 2) {
                size_t n = rd_sizes[s];
                rd_depth = rd_depth_of(n);
                test_rd_reduce_case(e->cs, (clsort_type)t, (clsort_op)op, n, (int)(s % 3));
                test_rd_seg_case(e->cs, (clsort_type)t, (clsort_op)op, CLSORT_SEGMENTS_FLAGS_U32, CLSORT_U32, n,
                                 (int)((s + (size_t)t) % SP_COUNT), (int)(s % 3), (int)(s / 2 & 1), (int)(s % 4 == 1), 0);
            }
}

/* Every segmentation kind and pattern on u32 sums and f32 (sum, max). */
static void rd_segmentations(const test_env *e)
{
    size_t s, kmax = rd_kmax(e);
    int sp, sk, quick = e->quick && !e->tiny;
    for (sk = CLSORT_SEGMENTS_NONE; sk <= CLSORT_SEGMENTS_OFFSETS; ++sk)
        for (sp = 0; sp < SP_COUNT && quick_variant(e, (unsigned)sk); ++sp)
            for (s = (size_t)quick * (size_t)(sp & 1); s < kmax; s += quick ? 2 : 1) {
                size_t n = rd_sizes[s];
                if (e->tiny && sp > SP_SHORT && sp != SP_TILES) continue;
                if (n > 70000 && sp != SP_SHORT && sp != SP_LONG) continue;
                rd_depth = rd_depth_of(n);
                test_rd_seg_case(e->cs, CLSORT_U32, CLSORT_OP_SUM, (clsort_segments)sk, s & 1 ? CLSORT_U64 : CLSORT_U32,
                                 n, sp, 2, (int)(s & 1), (int)(s % 3 == 0), (int)(s & 2));
                if ((s + (size_t)sp) % 3 == 0)
                    test_rd_seg_case(e->cs, CLSORT_F32, (s & 4) ? CLSORT_OP_MAX : CLSORT_OP_SUM, (clsort_segments)sk,
                                     CLSORT_U32, n, sp, 0, (int)((s & 1) ^ 1), 0, (int)(s & 1));
            }
}

/* Reduce-by-key, segmented reduce: every type and operator. */
static void rd_by_key(const test_env *e)
{
    int t, op;
    for (t = CLSORT_U32; t < T_WIDE_END; ++t)
        for (op = 0; op < 3; ++op) {
            size_t n = e->tiny ? 4097 : e->quick ? 8193 : 65537;
            if (!rd_ops_here(e, t, op)) continue;
            rd_depth = rd_depth_of(n);
            /* --quick: by key or by offsets, in turn */
            if (quick_sample(e, (unsigned)(t + op) / 2, 2))
                test_rd_seg_case(e->cs, (clsort_type)t, (clsort_op)op, CLSORT_SEGMENTS_KEYS,
                                 op == 1 ? CLSORT_U64 : CLSORT_U32, n, op == 2 ? SP_TILES : SP_SHORT, t % 3, 1, 0, 0);
            if (quick_sample(e, (unsigned)(t + op) / 2 + 1, 2))
                test_rd_seg_case(e->cs, (clsort_type)t, (clsort_op)op, CLSORT_SEGMENTS_OFFSETS, CLSORT_U32, n,
                                 SP_SHORT, t % 3, 0, 0, op & 1);
        }
}

static void rd_rle_unique(const test_env *e)
{
    size_t s, kmax = rd_kmax(e);
    int sp;
    for (s = 0; s < kmax; ++s)
        for (sp = 0; sp < SP_COUNT; ++sp) {
            if ((e->tiny || rd_sizes[s] > 70000) && sp != SP_SHORT && sp != SP_TILES) continue;
            test_rd_rle_case(e->cs, (s + (size_t)sp) & 1 ? CLSORT_U64 : CLSORT_U32, rd_sizes[s], sp,
                             (int)((s + (size_t)sp) % 3));
        }
}

static void rd_histogram(const test_env *e)
{
    static const unsigned bins[] = {1, 7, 256, 5000};
    int t, b;
    for (t = CLSORT_U32; t < T_WIDE_END; ++t)
        for (b = 0; b < 4; ++b) {
            test_rd_hist_case(e->cs, (clsort_type)t, e->tiny ? 1000 : e->quick ? 20000 : 300007, bins[b], b == 2);
            if (!e->tiny) test_rd_hist_case(e->cs, (clsort_type)t, (size_t)b, bins[b], 0);
        }
}

/* Histogram bins at the edge of the sample type's width: one bin over a
 * whole 4-byte range (range = bins << 32), 2 and 4 bins there (shifts 31
 * and 30), 64-bit ranges of 2^63 (shift 63) and 2^64 - 1 (a division), with
 * samples at both ends of the type. Counts against floor((x - lower) * bins
 * / (upper - lower)); the words after counts must stay untouched. */
static void rd_hist_type_width(const test_env *e)
{
    static const struct { clsort_type t; unsigned bins; int64_t lo, hi; } hc[] = {
        {CLSORT_U32, 1, 0, (int64_t)1 << 32},
        {CLSORT_U32, 2, 0, (int64_t)1 << 32},
        {CLSORT_U32, 1, 5, (int64_t)1 << 32},
        {CLSORT_I32, 1, -2147483647 - 1, 2147483648ll},
        {CLSORT_I32, 4, -2147483647 - 1, 2147483648ll},
        {CLSORT_U64, 1, 0, INT64_MIN}, /* upper 2^63, read as uint64_t */
        {CLSORT_I64, 1, -((int64_t)1 << 62), (int64_t)1 << 62},
        {CLSORT_I64, 3, INT64_MIN, INT64_MAX},
    };
    enum { GUARD = 64 };
    const size_t n = 4099;
    size_t k, i;
    for (k = 0; k < sizeof hc / sizeof hc[0]; ++k) {
        clsort_type t = hc[k].t;
        size_t es = clsort_type_size(t);
        unsigned bins = hc[k].bins;
        uint64_t range = (uint64_t)hc[k].hi - (uint64_t)hc[k].lo;
        uint64_t edge[10];
        unsigned char *in = (unsigned char *)malloc(n * es);
        uint32_t ref[4] = {0, 0, 0, 0}, got[4 + GUARD];
        clsort_histogram_desc hd;
        cl_mem ds, dc;
        char what[80];
        int r;
        if (es == 4) range &= 0x1ffffffffull; /* 2^32 for a whole 4-byte range */
        edge[0] = (uint64_t)hc[k].lo; edge[1] = (uint64_t)hc[k].hi - 1; edge[2] = (uint64_t)hc[k].hi;
        edge[3] = 0; edge[4] = ~0ull; edge[5] = 1; edge[6] = 0x7fffffffull; edge[7] = 0x80000000ull;
        edge[8] = 0xfffffff0ull; edge[9] = 0x8000000000000000ull;
        for (i = 0; i < n; ++i) {
            uint64_t x = i < 10 ? edge[i] : rnd64();
            if (es == 4) ((uint32_t *)in)[i] = (uint32_t)(i >= 10 ? x >> 32 : x);
            else ((uint64_t *)in)[i] = x;
        }
        for (i = 0; i < n; ++i) {
            uint64_t x = rd_get(in, t, i), d;
            int inside;
            if (t == CLSORT_I32) inside = (int32_t)x >= hc[k].lo && (int32_t)x < hc[k].hi;
            else if (t == CLSORT_I64) inside = (int64_t)x >= hc[k].lo && (int64_t)x < hc[k].hi;
            else inside = x >= (uint64_t)hc[k].lo && (es == 4 || x < (uint64_t)hc[k].hi);
            if (!inside) continue;
            d = (x - (uint64_t)hc[k].lo) & (es == 4 ? 0xffffffffull : ~0ull);
            ref[(uint32_t)(((rd_u128)d * bins) / range)]++;
        }
        memset(&hd, 0, sizeof hd);
        hd.type = t;
        hd.bins = bins;
        hd.lower_int = hc[k].lo;
        hd.upper_int = hc[k].hi;
        for (i = 0; i < 4 + GUARD; ++i) got[i] = 0xa5a5a5a5u;
        ds = buffer(e->cs, n * es, in);
        dc = buffer(e->cs, sizeof got, got);
        snprintf(what, sizeof what, "histogram %s, %u bins from %lld, range %llu", rd_tn[t], bins, (long long)hc[k].lo,
                 (unsigned long long)range);
        r = clsort_histogram_even(e->cs, ds, n, dc, &hd, NULL);
        check(r == CLSORT_SUCCESS, what, n, clsort_last_error(e->cs), 0, 0, r);
        download(e->cs, dc, sizeof got, got);
        for (i = 0; i < bins && got[i] == ref[i]; ++i) {}
        check(i == bins, what, n, "type edges", i, i < bins ? ref[i] : 0, i < bins ? got[i] : 0);
        for (i = bins; i < 4 + GUARD && got[i] == 0xa5a5a5a5u; ++i) {}
        check(i == 4 + GUARD, "histogram writes no word past counts", n, what, i, 0xa5a5a5a5u,
              i < 4 + GUARD ? got[i] : 0);
        clReleaseMemObject(ds);
        clReleaseMemObject(dc);
        free(in);
    }
}

/* f32 histograms by the documented formula where the range is not a float
 * or its bounds are not floats: bin of x = (x - lower) * scale in float,
 * scale = bins / (upper - lower) in double rounded to float once, lower
 * taken as the smallest float >= lower, x counted when lower <= x < upper
 * exactly. Samples within 3 ulps of every bin edge, of both bounds, and
 * random ones. */
static void rd_hist_f32_formula(const test_env *e)
{
    static const struct { double lo, hi; unsigned bins; } hc[] = {
        {-3.0, 16777216.0, 1000},   /* upper - lower = 16777219: not a float */
        {0.1, 0.7, 7},              /* bounds not floats */
        {-1e-3, 12345.678, 333},
        {1.0, 16777217.0, 3},       /* upper between two floats: 16777216 is inside */
        {-16777217.0, -1.0, 5},     /* lower between two floats */
    };
    size_t k;
    for (k = 0; k < sizeof hc / sizeof hc[0]; ++k) {
        unsigned bins = hc[k].bins, b;
        size_t cap = (size_t)(bins + 3) * 7 + 4000, n = 0, i;
        float *in = (float *)malloc(cap * 4), lo = (float)hc[k].lo, sc = (float)((double)bins / (hc[k].hi - hc[k].lo));
        uint32_t *ref = (uint32_t *)calloc(bins, 4), *got = (uint32_t *)malloc(bins * 4);
        clsort_histogram_desc hd;
        cl_mem ds, dc;
        char what[96];
        int r;
        if ((double)lo < hc[k].lo) lo = nextafterf(lo, INFINITY);
        for (b = 0; b <= bins + 1; ++b) { /* each edge, both bounds: 3 floats either side */
            double edge = b <= bins ? hc[k].lo + (hc[k].hi - hc[k].lo) * b / bins : hc[k].hi;
            float x = (float)edge;
            int u;
            for (u = 0; u < 3; ++u) x = nextafterf(x, -INFINITY);
            for (u = 0; u < 7; ++u, x = nextafterf(x, INFINITY)) in[n++] = x;
        }
        while (n < cap) in[n++] = (float)(hc[k].lo + (hc[k].hi - hc[k].lo) * ((double)(rnd64() >> 11) / 9007199254740992.0));
        for (i = 0; i < n; ++i) {
            volatile float f;
            if (!((double)in[i] >= hc[k].lo && (double)in[i] < hc[k].hi)) continue;
            f = in[i] - lo;
            f = f * sc;
            ref[f >= (float)bins ? bins - 1 : (uint32_t)f]++;
        }
        memset(&hd, 0, sizeof hd);
        hd.type = CLSORT_F32;
        hd.bins = bins;
        hd.lower = hc[k].lo;
        hd.upper = hc[k].hi;
        ds = buffer(e->cs, n * 4, in);
        dc = buffer(e->cs, bins * 4, NULL);
        snprintf(what, sizeof what, "histogram f32, %u bins over [%.9g, %.9g): the documented formula", bins, hc[k].lo,
                 hc[k].hi);
        r = clsort_histogram_even(e->cs, ds, n, dc, &hd, NULL);
        check(r == CLSORT_SUCCESS, what, n, clsort_last_error(e->cs), 0, 0, r);
        download(e->cs, dc, bins * 4, got);
        for (i = 0; i < bins && got[i] == ref[i]; ++i) {}
        check(i == bins, what, n, "bin edges and bounds", i, i < bins ? ref[i] : 0, i < bins ? got[i] : 0);
        clReleaseMemObject(ds);
        clReleaseMemObject(dc);
        free(in); free(ref); free(got);
    }
}

/* Float histograms whose scale bins / (upper - lower) passes the sample
 * type's largest finite value: the sample at lower would take the bin
 * 0 * inf = NaN, an undefined index. Refused (the message names the scale,
 * counts untouched); the largest scales that fit are accepted and count the
 * samples at lower in bin 0 (upper itself is out). Ranges of one ulp of
 * normal numbers: f32 2^-123 at 2^-100 (31 bins fit, 32 do not), f64 2^-1022
 * at 2^-970 (3 fit, 4 do not). */
static void rd_hist_scale_refused(const test_env *e)
{
    static const struct { clsort_type t; int lo_exp, ulp_exp; unsigned bins; int refused; } hc[] = {
        {CLSORT_F32, -100, -123, 31, 0}, {CLSORT_F32, -100, -123, 32, 1},
        {CLSORT_F64, -970, -1022, 3, 0}, {CLSORT_F64, -970, -1022, 4, 1},
    };
    enum { N = 64, WORDS = 40 };
    size_t k, i;
    for (k = 0; k < sizeof hc / sizeof hc[0]; ++k) {
        clsort_type t = hc[k].t;
        double lo = ldexp(1.0, hc[k].lo_exp), hi = lo + ldexp(1.0, hc[k].ulp_exp);
        unsigned bins = hc[k].bins;
        union { float f[N]; double d[N]; } in;
        uint32_t got[WORDS];
        clsort_histogram_desc hd;
        cl_mem ds, dc;
        char what[96];
        clsort_result r;
        for (i = 0; i < N; ++i) { /* lower and upper in turn */
            if (t == CLSORT_F32) in.f[i] = (float)(i & 1 ? hi : lo);
            else in.d[i] = i & 1 ? hi : lo;
        }
        for (i = 0; i < WORDS; ++i) got[i] = 0xa5a5a5a5u;
        memset(&hd, 0, sizeof hd);
        hd.type = t;
        hd.bins = bins;
        hd.lower = lo;
        hd.upper = hi;
        snprintf(what, sizeof what, "histogram %s, %u bins over one ulp at 2^%d: scale %s", rd_tn[t], bins,
                 hc[k].lo_exp, hc[k].refused ? "past the type, refused" : "fits");
        ds = buffer(e->cs, sizeof in, &in);
        dc = buffer(e->cs, sizeof got, got);
        r = clsort_histogram_even(e->cs, ds, N, dc, &hd, NULL);
        if (t == CLSORT_F64 && r == CLSORT_ERROR_UNSUPPORTED) { /* no fp64 */
            clReleaseMemObject(ds); clReleaseMemObject(dc);
            continue;
        }
        if (hc[k].refused)
            check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(e->cs), "scale") != NULL, what, N,
                  clsort_last_error(e->cs), 0, CLSORT_ERROR_INVALID_ARGUMENT, r);
        else
            check(r == CLSORT_SUCCESS, what, N, clsort_last_error(e->cs), 0, CLSORT_SUCCESS, r);
        download(e->cs, dc, sizeof got, got);
        for (i = 0; i < WORDS; ++i) {
            uint32_t want = r != CLSORT_SUCCESS || i >= bins ? 0xa5a5a5a5u : i == 0 ? N / 2 : 0u;
            if (got[i] != want) break;
        }
        check(i == WORDS, what, N, "samples at lower and upper", i, 0, i < WORDS ? got[i] : 0);
        clReleaseMemObject(ds);
        clReleaseMemObject(dc);
    }
}

/* Float sums of the reduction family within the documented bound (REDUCE):
 * |error| <= depth * u * sum |x| over the segment so far, depth =
 * ceil(n / 2048) + 4 * (1024 + 64) + 8 (the manual's formula at its largest:
 * tiles of >= 2048 elements, <= 1024 items), u = 2^-24 (f32), 2^-53 (f64),
 * on the ill-conditioned sets of check.h (ill_term: a long left-to-right
 * fold loses nearly every term), each prefix's exact sum +-(B + K u/2)
 * from integer counts, one rounding in double. The calls: clsort_reduce (to the host),
 * clsort_segmented_reduce (one segment, host offsets), clsort_reduce_by_key
 * (one run), each twice (the same bits: Determinism, REDUCE), and
 * clsort_segmented_scan (inclusive, every prefix against its bound).
 * clsort_reduce's partials over a grid of 4 work-groups per compute unit
 * broke the bound on CPUs (PoCL on 2 cores: 15887 u sum|x| at 2^20, sets 0
 * and 1); the tile kernels kept it. */
static void rd_sum_bound(const test_env *e)
{
    static const size_t sizes[3] = {(size_t)1 << 20, ((size_t)1 << 22) + 3, (size_t)1 << 24};
    static const char *fn_names[3] = {"clsort_reduce", "clsort_segmented_reduce (one segment)",
                                      "clsort_reduce_by_key (one run)"};
    /* --quick: 2^20 and 2^22 + 3 on the portable path, 2^20 on the look-back */
    int nsz = !e->quick ? 3 : e->path == CLSORT_PATH_LOOKBACK ? 1 : 2, s;
    for (s = 0; s < nsz; ++s) {
        const size_t n = sizes[s];
        const double depth = ceil((double)n / 2048.0) + 4 * (1024 + 64) + 8;
        const uint32_t off[2] = {0, (uint32_t)n};
        cl_mem dkeys = buffer(e->cs, n * 4, NULL), dout = buffer(e->cs, n * 8, NULL);
        void *in = malloc(n * 8), *out = malloc(n * 8);
        uint32_t zero = 0;
        int t, set, f;
        clEnqueueFillBuffer(clsort_cl_queue(e->cs), dkeys, &zero, 4, 0, n * 4, 0, NULL, NULL);
        for (t = 0; t < 2; ++t)
            for (set = 0; set < 3; ++set) {
                const size_t es = t ? 8 : 4;
                const double half_u = t ? ldexp(1.0, -54) : ldexp(1.0, -25), u = 2 * half_u;
                const double sign = ill_sign(set);
                double B = 0, K = 0, exact, bound;
                size_t i, bad;
                unsigned b, k;
                cl_mem din;
                int unsupported = 0;
                char what[192];
                for (i = 0; i < n; ++i) {
                    double x;
                    ill_term(set, i, &b, &k);
                    x = sign * ((double)b + (double)k * half_u); /* exact: b or k is 0 */
                    if (t) ((double *)in)[i] = x;
                    else ((float *)in)[i] = (float)x;
                    B += b;
                    K += k;
                }
                exact = sign * (B + K * half_u);
                bound = depth * u * (B + K * half_u);
                din = buffer(e->cs, n * es, in);
                for (f = 0; f < 3 && !unsupported; ++f) {
                    union { float f; double d; } res[2];
                    int run;
                    for (run = 0; run < 2; ++run) {
                        clsort_result r;
                        size_t cnt = 0;
                        if (f == 0) {
                            clsort_reduce_desc rd;
                            memset(&rd, 0, sizeof rd);
                            rd.type = t ? CLSORT_F64 : CLSORT_F32;
                            r = clsort_reduce(e->cs, din, n, &rd, &res[run], NULL);
                        } else if (f == 1) {
                            clsort_reduce_desc rd;
                            memset(&rd, 0, sizeof rd);
                            rd.type = t ? CLSORT_F64 : CLSORT_F32;
                            rd.segments = CLSORT_SEGMENTS_OFFSETS;
                            rd.segment_data_host = off;
                            rd.segment_count = 1;
                            r = clsort_segmented_reduce(e->cs, din, dout, n, &rd, NULL);
                            if (r == CLSORT_SUCCESS) download(e->cs, dout, es, &res[run]);
                        } else {
                            clsort_by_key_desc bk;
                            memset(&bk, 0, sizeof bk);
                            bk.type = t ? CLSORT_F64 : CLSORT_F32;
                            r = clsort_reduce_by_key(e->cs, dkeys, din, NULL, dout, n, &bk, &cnt, NULL);
                            if (r == CLSORT_SUCCESS) download(e->cs, dout, es, &res[run]);
                            if (r == CLSORT_SUCCESS) check(cnt == 1, "clsort_reduce_by_key: one run", n, "keys 0", 0, 1, (double)cnt);
                        }
                        if (t && r == CLSORT_ERROR_UNSUPPORTED) { /* no fp64 */
                            unsupported = 1;
                            break;
                        }
                        check(r == CLSORT_SUCCESS, fn_names[f], n, clsort_last_error(e->cs), 0, 0, r);
                        if (r != CLSORT_SUCCESS) break;
                    }
                    if (run < 2) continue;
                    snprintf(what, sizeof what, "%s %s sum: within depth * u * sum|x|", fn_names[f], t ? "f64" : "f32");
                    check(fabs((t ? res[0].d : (double)res[0].f) - exact) <= bound, what, n, ill_names[set], 0, exact,
                          t ? res[0].d : (double)res[0].f);
                    snprintf(what, sizeof what, "%s %s sum: the same bits on a second run", fn_names[f], t ? "f64" : "f32");
                    check(memcmp(&res[0], &res[1], es) == 0, what, n, ill_names[set], 0, t ? res[0].d : (double)res[0].f,
                          t ? res[1].d : (double)res[1].f);
                }
                if (!unsupported) { /* the segmented scan: every prefix within its own bound */
                    clsort_reduce_desc rd;
                    clsort_result r;
                    double want = 0, got = 0;
                    memset(&rd, 0, sizeof rd);
                    rd.type = t ? CLSORT_F64 : CLSORT_F32;
                    rd.segments = CLSORT_SEGMENTS_OFFSETS;
                    rd.segment_data_host = off;
                    rd.segment_count = 1;
                    rd.inclusive = 1;
                    r = clsort_segmented_scan(e->cs, din, dout, n, &rd, NULL);
                    check(r == CLSORT_SUCCESS, "clsort_segmented_scan", n, clsort_last_error(e->cs), 0, 0, r);
                    download(e->cs, dout, n * es, out);
                    B = K = 0;
                    for (bad = 0; bad < n; ++bad) {
                        ill_term(set, bad, &b, &k);
                        B += b;
                        K += k;
                        want = sign * (B + K * half_u);
                        got = t ? ((double *)out)[bad] : (double)((float *)out)[bad];
                        if (!(fabs(got - want) <= depth * u * (B + K * half_u))) break;
                    }
                    snprintf(what, sizeof what, "clsort_segmented_scan %s, inclusive: each prefix within depth * u * sum|x|",
                             t ? "f64" : "f32");
                    check(r == CLSORT_SUCCESS && bad == n, what, n, ill_names[set], bad, want, got);
                }
                clReleaseMemObject(din);
            }
        clReleaseMemObject(dkeys);
        clReleaseMemObject(dout);
        free(in);
        free(out);
    }
}

/* 64-bit histograms whose bins are not powers of two: each sample's bin is
 * a division by a loop (rd_div96), which a device with a loop budget
 * (llvmpipe: 65535 passes per work-item) counts; the launch must be shaped
 * for it, or samples go uncounted without an error. u64 and i64 samples in
 * [0, 1000) and a few outside, 10 and 8 bins, 10^6 + 3 samples. */
static void rd_hist_div_budget(const test_env *e)
{
    static const struct { clsort_type t; unsigned bins; } hc[] = {{CLSORT_U64, 10}, {CLSORT_I64, 8}};
    const size_t n = 1000003;
    uint64_t *in = (uint64_t *)malloc(n * 8);
    size_t k, i;
    for (k = 0; k < sizeof hc / sizeof hc[0]; ++k) {
        unsigned bins = hc[k].bins;
        uint32_t ref[10], got[10];
        clsort_histogram_desc hd;
        cl_mem ds, dc;
        char what[96];
        int r;
        memset(ref, 0, sizeof ref);
        for (i = 0; i < n; ++i) {
            uint64_t x = rnd64();
            in[i] = x % 97 == 0 ? x : x % 1000; /* about 1% outside (negative for i64) */
            if (in[i] < 1000) ref[in[i] * bins / 1000]++;
        }
        memset(&hd, 0, sizeof hd);
        hd.type = hc[k].t;
        hd.bins = bins;
        hd.lower_int = 0;
        hd.upper_int = 1000;
        ds = buffer(e->cs, n * 8, in);
        dc = buffer(e->cs, bins * 4, NULL);
        snprintf(what, sizeof what, "histogram %s, %u bins over [0, 1000) (a division per sample)",
                 hc[k].t == CLSORT_U64 ? "u64" : "i64", bins);
        r = clsort_histogram_even(e->cs, ds, n, dc, &hd, NULL);
        check(r == CLSORT_SUCCESS, what, n, clsort_last_error(e->cs), 0, 0, r);
        download(e->cs, dc, bins * 4, got);
        for (i = 0; i < bins && got[i] == ref[i]; ++i) {}
        check(i == bins, what, n, "every sample counted", i, i < bins ? ref[i] : 0, i < bins ? got[i] : 0);
        clReleaseMemObject(ds);
        clReleaseMemObject(dc);
    }
    free(in);
}

/* Segment offsets, both forms under one contract (clsort_segmented_reduce):
 * offsets that keep it (off[0] = 0, non-decreasing, off[segment_count] = n)
 * give the same segments from the device and from the host; offsets that
 * break it are refused from the host and, from the device (not checked),
 * used by the documented rule: off[0] and off[segment_count] unread, a
 * boundary at or past n taken as n; then element i is in segment #{s : 1 <=
 * s < segment_count, off[s] <= i} for the scan (boundaries in any order as
 * if sorted), while the reduce writes the identity to every out[s] where
 * the boundaries are out of order. The reference applies the rule;
 * segmented reduce (every out[s]) and inclusive scan, a guard word after
 * each output; n = 64. */
static void rd_device_offsets(const test_env *e)
{
    enum { N = 64, MAXS = 4, GUARD = 0x5eed5eed };
    static const struct { uint32_t off[MAXS + 1]; size_t count; int valid; const char *name; } oc[] = {
        {{0, 10, 20}, 2, 0, "{0, 10, 20}: the last segment to n"},
        {{5, 10, 99}, 2, 0, "{5, 10, 99}: off[0] and off[2] unread"},
        {{0, 30, 10, 64}, 3, 0, "{0, 30, 10, 64}: boundaries out of order"},
        {{0, 99, 64, 70, 64}, 4, 0, "{0, 99, 64, 70, 64}: boundaries at or past n make none"},
        {{0, 10, 10, 64}, 3, 1, "{0, 10, 10, 64}: valid (an empty segment)"},
    };
    uint32_t in[N], got[N + 1], want_scan[N], want_red[MAXS];
    cl_mem din = buffer(e->cs, sizeof in, NULL), dout = buffer(e->cs, sizeof got, NULL), doff;
    size_t i, s, k;
    for (i = 0; i < N; ++i) in[i] = (uint32_t)(i * 7 + 1);
    clEnqueueWriteBuffer(clsort_cl_queue(e->cs), din, CL_TRUE, 0, sizeof in, in, 0, NULL, NULL);
    for (k = 0; k < sizeof oc / sizeof oc[0]; ++k) {
        const size_t count = oc[k].count;
        const uint32_t guard = GUARD;
        clsort_reduce_desc rd;
        clsort_result r;
        char what[160];
        int in_order = 1;
        memset(want_red, 0, sizeof want_red);
        for (s = 1; s + 1 < count; ++s) /* boundaries taken as at most n, out of order */
            in_order &= (oc[k].off[s] < N ? oc[k].off[s] : N) <= (oc[k].off[s + 1] < N ? oc[k].off[s + 1] : N);
        for (i = 0; i < N && in_order; ++i) { /* the rule (the identity everywhere when out of order) */
            size_t seg = 0;
            for (s = 1; s < count; ++s) seg += oc[k].off[s] <= i;
            want_red[seg] += in[i];
        }
        for (i = 0; i < N; ++i) { /* inclusive scan restarting where the segment changes */
            size_t seg = 0, prev = 0;
            for (s = 1; s < count; ++s) {
                seg += oc[k].off[s] <= i;
                prev += i > 0 && oc[k].off[s] <= i - 1;
            }
            want_scan[i] = (i > 0 && seg == prev ? want_scan[i - 1] : 0) + in[i];
        }
        doff = buffer(e->cs, (count + 1) * 4, oc[k].off);
        memset(&rd, 0, sizeof rd);
        rd.segments = CLSORT_SEGMENTS_OFFSETS;
        rd.segment_data = doff;
        rd.segment_count = count;
        rd.inclusive = 1;
        clEnqueueWriteBuffer(clsort_cl_queue(e->cs), dout, CL_TRUE, count * 4, 4, &guard, 0, NULL, NULL);
        r = clsort_segmented_reduce(e->cs, din, dout, N, &rd, NULL);
        download(e->cs, dout, (count + 1) * 4, got);
        for (s = 0; s < count && got[s] == want_red[s]; ++s) {}
        snprintf(what, sizeof what, "device offsets %s: segmented reduce by the rule", oc[k].name);
        check(r == CLSORT_SUCCESS && s == count, what, N, clsort_last_error(e->cs), s, s < count ? want_red[s] : 0,
              s < count ? got[s] : 0);
        check(got[count] == GUARD, "device offsets: segmented reduce writes nothing past out[segment_count - 1]", N,
              oc[k].name, count, GUARD, got[count]);
        clEnqueueWriteBuffer(clsort_cl_queue(e->cs), dout, CL_TRUE, N * 4, 4, &guard, 0, NULL, NULL);
        r = clsort_segmented_scan(e->cs, din, dout, N, &rd, NULL);
        download(e->cs, dout, sizeof got, got);
        for (i = 0; i < N && got[i] == want_scan[i]; ++i) {}
        snprintf(what, sizeof what, "device offsets %s: segmented scan by the rule", oc[k].name);
        check(r == CLSORT_SUCCESS && i == N, what, N, clsort_last_error(e->cs), i, i < N ? want_scan[i] : 0,
              i < N ? got[i] : 0);
        check(got[N] == GUARD, "device offsets: segmented scan writes nothing past out[n - 1]", N, oc[k].name, N,
              GUARD, got[N]);
        /* the same offsets from the host: refused when they break the
         * contract (nothing written), the device's answer when they keep it */
        rd.segment_data = NULL;
        rd.segment_data_host = oc[k].off;
        memset(got, 0xab, sizeof got);
        clEnqueueWriteBuffer(clsort_cl_queue(e->cs), dout, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
        r = clsort_segmented_reduce(e->cs, din, dout, N, &rd, NULL);
        download(e->cs, dout, count * 4, got);
        for (s = 0; s < count && got[s] == (oc[k].valid ? want_red[s] : 0xababababu); ++s) {}
        snprintf(what, sizeof what, "host offsets %s: %s", oc[k].name,
                 oc[k].valid ? "the device form's segments" : "refused, out untouched");
        check((oc[k].valid ? r == CLSORT_SUCCESS : r == CLSORT_ERROR_INVALID_ARGUMENT) && s == count, what, N,
              clsort_last_error(e->cs), s, oc[k].valid ? CLSORT_SUCCESS : CLSORT_ERROR_INVALID_ARGUMENT, r);
        clReleaseMemObject(doff);
    }
    clReleaseMemObject(din);
    clReleaseMemObject(dout);
}

/* The four host arrays of the offsets tests (in, off, want, got), of the
 * given lengths in words: all, or none and a failed check. */
static int rd_offsets_arrays(const char *what, size_t n, const size_t words[4], uint32_t **in, uint32_t **off,
                             uint32_t **want, uint32_t **got)
{
    *in = (uint32_t *)malloc(words[0] * 4), *off = (uint32_t *)malloc(words[1] * 4);
    *want = (uint32_t *)malloc(words[2] * 4), *got = (uint32_t *)malloc(words[3] * 4);
    if (*in && *off && *want && *got) return 1;
    check(0, what, n, "-", 0, 0, 0);
    free(*in), free(*off), free(*want), free(*got);
    return 0;
}

/* Device offsets over many tiles (the segmented reduce's merged list): in
 * order, the reference's sums; with one pair of neighbouring boundaries
 * swapped (first, middle, last interior pair, and one reaching past n), the
 * identity in every out[s], the guard after out untouched. */
static void rd_offsets_out_of_order(const test_env *e)
{
    const size_t n = e->tiny ? 20000 : 300000, cap = n / 8 + 2;
    const size_t words[4] = {n, cap + 1, cap, cap + 1};
    const uint32_t guard = 0x5eed5eed;
    uint32_t *in, *off, *want, *got;
    size_t count = 0, i, s, k, at[5];
    uint32_t rng = 12345u;
    cl_mem din, dout, doff;
    clsort_reduce_desc rd;
    if (!rd_offsets_arrays("device offsets out of order: host memory", n, words, &in, &off, &want, &got)) return;
    for (i = 0; i < n; ++i) in[i] = (uint32_t)(i * 2654435761u) >> 8;
    off[0] = 0;
    for (i = 0; i < n && count + 1 < cap;) { /* lengths 1 .. 16, a few empty */
        rng = rng * 1664525u + 1013904223u;
        i += (rng >> 28) == 0 ? 0 : (rng >> 24) % 16 + 1;
        if (i > n) i = n;
        off[++count] = (uint32_t)i;
    }
    off[count] = (uint32_t)n;
    din = buffer(e->cs, n * 4, in);
    dout = buffer(e->cs, (cap + 1) * 4, NULL);
    memset(&rd, 0, sizeof rd);
    rd.segments = CLSORT_SEGMENTS_OFFSETS;
    rd.segment_count = count;
    at[0] = 0, at[1] = 1, at[2] = count / 2, at[3] = count - 2, at[4] = count / 3;
    for (k = 0; k < 5; ++k) {
        char what[128];
        uint32_t *o = (uint32_t *)malloc((count + 1) * 4);
        clsort_result r;
        if (!o) break;
        memcpy(o, off, (count + 1) * 4);
        for (s = 0; s < count; ++s) want[s] = 0;
        if (k == 0) { /* in order: the reference */
            for (s = 0; s < count; ++s)
                for (i = off[s]; i < off[s + 1]; ++i) want[s] += in[i];
            snprintf(what, sizeof what, "device offsets in order, %lu segments: the sums", (unsigned long)count);
        } else if (k == 4) { /* a boundary past n, then one below it */
            while (at[k] + 2 < count && o[at[k]] == o[at[k] + 1]) ++at[k];
            o[at[k]] = (uint32_t)n + 1000u; /* taken as n, above off[at + 1] < n */
            snprintf(what, sizeof what, "device offsets: off[%lu] past n before smaller ones: the identity everywhere",
                     (unsigned long)at[k]);
        } else { /* swap the pair (at, at + 1) of different boundaries */
            uint32_t t;
            while (at[k] + 2 < count && o[at[k]] == o[at[k] + 1]) ++at[k];
            while (at[k] > 1 && o[at[k]] == o[at[k] + 1]) --at[k];
            t = o[at[k]], o[at[k]] = o[at[k] + 1], o[at[k] + 1] = t;
            snprintf(what, sizeof what, "device offsets: off[%lu] and off[%lu] swapped: the identity everywhere",
                     (unsigned long)at[k], (unsigned long)at[k] + 1);
        }
        doff = buffer(e->cs, (count + 1) * 4, o);
        rd.segment_data = doff;
        for (s = 0; s <= count; ++s) got[s] = s == count ? guard : 0xabababab;
        clEnqueueWriteBuffer(clsort_cl_queue(e->cs), dout, CL_TRUE, 0, (count + 1) * 4, got, 0, NULL, NULL);
        r = clsort_segmented_reduce(e->cs, din, dout, n, &rd, NULL);
        download(e->cs, dout, (count + 1) * 4, got);
        for (s = 0; s < count && got[s] == want[s]; ++s) {}
        check(r == CLSORT_SUCCESS && s == count && got[count] == guard, what, n, clsort_last_error(e->cs), s,
              s < count ? want[s] : guard, s < count ? got[s] : got[count]);
        clReleaseMemObject(doff);
        free(o);
    }
    clReleaseMemObject(din);
    clReleaseMemObject(dout);
    free(in), free(off), free(want), free(got);
}

/* Segment shapes for the segmented reduce's merged list: one segment over
 * every tile; long segments then tens of thousands of empty ones (tiles of
 * ends only); more segments than elements, most of them empty; all empty
 * but the last. u32 sums against the reference, device and host offsets. */
static void rd_offsets_shapes(const test_env *e)
{
    const size_t n = e->tiny ? 3000 : 300000;
    const size_t words[4] = {n, 4 * n + 1, 4 * n, 4 * n};
    uint32_t *in, *off, *want, *got;
    size_t shape, i, s;
    uint32_t rng = 777u;
    cl_mem din;
    if (!rd_offsets_arrays("segment shapes: host memory", n, words, &in, &off, &want, &got)) return;
    for (i = 0; i < n; ++i) in[i] = (uint32_t)(i * 2246822519u) >> 7;
    din = buffer(e->cs, n * 4, in);
    for (shape = 0; shape < 4; ++shape) {
        static const char *names[4] = {"one segment", "3 long segments, then n / 6 empty ones",
                                       "4 n segments, most empty", "all empty but the last"};
        size_t count = 0, host;
        off[0] = 0;
        if (shape == 0) count = 1;
        if (shape == 1) {
            off[1] = (uint32_t)(n / 3), off[2] = (uint32_t)(2 * n / 3);
            count = 3 + n / 6;
            for (s = 3; s < count; ++s) off[s] = (uint32_t)n;
        }
        if (shape == 2) {
            count = 4 * n;
            for (s = 1; s < count; ++s) {
                rng = rng * 1664525u + 1013904223u;
                off[s] = off[s - 1] + ((rng >> 27) == 0 && off[s - 1] < n ? 1u + (rng >> 20) % 64u : 0u);
                if (off[s] > n) off[s] = (uint32_t)n;
            }
        }
        if (shape == 3) {
            count = n / 2;
            for (s = 1; s < count; ++s) off[s] = 0;
        }
        off[count] = (uint32_t)n;
        for (s = 0; s < count; ++s) {
            want[s] = 0;
            for (i = off[s]; i < off[s + 1]; ++i) want[s] += in[i];
        }
        for (host = 0; host < 2; ++host) {
            clsort_reduce_desc rd;
            clsort_result r;
            char what[128];
            cl_mem doff = host ? NULL : buffer(e->cs, (count + 1) * 4, off), dout = buffer(e->cs, count * 4, NULL);
            memset(&rd, 0, sizeof rd);
            rd.segments = CLSORT_SEGMENTS_OFFSETS;
            rd.segment_count = count;
            rd.segment_data = doff;
            rd.segment_data_host = host ? off : NULL;
            r = clsort_segmented_reduce(e->cs, din, dout, n, &rd, NULL);
            download(e->cs, dout, count * 4, got);
            for (s = 0; s < count && got[s] == want[s]; ++s) {}
            snprintf(what, sizeof what, "segmented reduce, %s offsets: %s (%lu segments)", host ? "host" : "device",
                     names[shape], (unsigned long)count);
            check(r == CLSORT_SUCCESS && s == count, what, n, clsort_last_error(e->cs), s, s < count ? want[s] : 0,
                  s < count ? got[s] : 0);
            if (doff) clReleaseMemObject(doff);
            clReleaseMemObject(dout);
        }
    }
    clReleaseMemObject(din);
    free(in), free(off), free(want), free(got);
}

/* A watchdog thread for a call whose wait list holds `gate`, a user event
 * the host sets after the call: it waits up to 20 s for `returned` (set by
 * the caller when the call is back), notes whether that timed out, then
 * sets `gate`, so that a call that waits on its wait list fails the check
 * instead of hanging the run. Events carry the signals: thread-safe. */
typedef struct rd_watch {
    cl_event gate, returned;
    int timed_out; /* read after pthread_join */
} rd_watch;

static void *rd_watchdog(void *arg)
{
    rd_watch *w = (rd_watch *)arg;
    struct timespec pause = {0, 5000000};
    int k;
    cl_int st = CL_SUBMITTED;
    for (k = 0; k < 4000; ++k) {
        if (clGetEventInfo(w->returned, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL) != CL_SUCCESS ||
            st == CL_COMPLETE)
            break;
        nanosleep(&pause, NULL);
    }
    w->timed_out = st != CL_COMPLETE;
    clSetUserEventStatus(w->gate, CL_COMPLETE);
    return NULL;
}

/* Device-level calls return before the events of their wait list complete
 * (no call that takes an enqueue waits on the host inside, the results it
 * returns to host pointers aside), and their commands still wait for that
 * list: segmented reduce and scan (host offsets uploaded), bitonic sort by
 * segments (host offsets and its plan uploaded), clsort_reduce to
 * desc.result, reduce by key with desc.count. Each runs once without a wait
 * list (its programs built), then with a wait list of a user event the host
 * sets only after the call returns and a write on a second queue, gated by
 * that event, that brings the input (garbage before it): a call that runs
 * before its wait list reads garbage. The host offsets are scribbled over
 * as soon as the call returns (the upload must hold its own copy). Results
 * are checked against the host once the event is set. */
static void rd_no_wait_on_host(const test_env *e)
{
    enum { N = 3000, SEGS = 7, CALLS = 5 };
    static const uint32_t off[SEGS + 1] = {0, 5, 5, 700, 701, 2048, 2999, N};
    static const char *names[CALLS] = {"clsort_segmented_reduce, host offsets", "clsort_segmented_scan, host offsets",
                                       "clsort_bitonic_sort, host offsets", "clsort_reduce to desc.result",
                                       "clsort_reduce_by_key with desc.count"};
    uint32_t *in = (uint32_t *)malloc(N * 4), *junk = (uint32_t *)malloc(N * 4), *keys = (uint32_t *)malloc(N * 4);
    uint32_t *got = (uint32_t *)malloc(N * 4), *want = (uint32_t *)malloc(N * 4), hoff[SEGS + 1];
    cl_mem din = buffer(e->cs, N * 4, NULL), dout = buffer(e->cs, N * 4, NULL), dkeys, dres = buffer(e->cs, 4, NULL);
    cl_int err;
    cl_command_queue q2 = clCreateCommandQueue(clsort_cl_context(e->cs), clsort_cl_device(e->cs), 0, &err);
    int call, run;
    size_t i, s;
    check(err == CL_SUCCESS, "clCreateCommandQueue (a second queue)", 0, "-", 0, CL_SUCCESS, err);
    for (s = 0; s < SEGS; ++s)
        for (i = off[s]; i < off[s + 1]; ++i) keys[i] = (uint32_t)s; /* the runs: the nonempty segments */
    dkeys = buffer(e->cs, N * 4, keys);
    for (i = 0; i < N; ++i) {
        in[i] = (uint32_t)(rnd64() >> 40);
        junk[i] = ~in[i];
    }
    for (call = 0; call < CALLS && err == CL_SUCCESS; ++call)
        for (run = 0; run < 2; ++run) {
            clsort_reduce_desc rd;
            clsort_bitonic_desc bd;
            clsort_by_key_desc bk;
            clsort_enqueue enq;
            cl_event wait[2];
            rd_watch w;
            pthread_t th;
            clsort_result r;
            size_t count = call == 0 ? SEGS : call == 3 ? 1 : call == 4 ? 0 : N, runs = 0;
            char what[128];
            memset(&enq, 0, sizeof enq);
            memset(&w, 0, sizeof w);
            memcpy(hoff, off, sizeof hoff);
            if (run == 0) {
                clEnqueueWriteBuffer(clsort_cl_queue(e->cs), din, CL_TRUE, 0, N * 4, in, 0, NULL, NULL);
            } else {
                clEnqueueWriteBuffer(clsort_cl_queue(e->cs), din, CL_TRUE, 0, N * 4, junk, 0, NULL, NULL);
                w.gate = clCreateUserEvent(clsort_cl_context(e->cs), &err);
                w.returned = clCreateUserEvent(clsort_cl_context(e->cs), &err);
                wait[0] = w.gate;
                clEnqueueWriteBuffer(q2, din, CL_FALSE, 0, N * 4, in, 1, &w.gate, &wait[1]);
                clFlush(q2);
                enq.num_events_in_wait_list = 2;
                enq.event_wait_list = wait;
                if (pthread_create(&th, NULL, rd_watchdog, &w) != 0) {
                    check(0, "pthread_create", 0, "-", 0, 0, 0);
                    break;
                }
            }
            memset(&rd, 0, sizeof rd);
            rd.segments = CLSORT_SEGMENTS_OFFSETS;
            rd.segment_data_host = hoff;
            rd.segment_count = SEGS;
            rd.inclusive = 1;
            memset(&bd, 0, sizeof bd);
            bd.segment_offsets_host = hoff;
            bd.segment_count = SEGS;
            memset(&bk, 0, sizeof bk);
            bk.count = dres;
            if (call == 3) {
                memset(&rd, 0, sizeof rd);
                rd.result = dres;
            }
            r = call == 0 ? clsort_segmented_reduce(e->cs, din, dout, N, &rd, &enq)
              : call == 1 ? clsort_segmented_scan(e->cs, din, dout, N, &rd, &enq)
              : call == 2 ? clsort_bitonic_sort(e->cs, din, dout, N, &bd, &enq)
              : call == 3 ? clsort_reduce(e->cs, din, N, &rd, NULL, &enq)
                          : clsort_reduce_by_key(e->cs, dkeys, din, NULL, dout, N, &bk, NULL, &enq);
            for (s = 0; s <= SEGS; ++s) hoff[s] = (uint32_t)(N - s * 400); /* the caller reuses its array */
            if (run == 1) {
                clSetUserEventStatus(w.returned, CL_COMPLETE);
                pthread_join(th, NULL);
                snprintf(what, sizeof what, "%s: returns before its wait list's user event is set", names[call]);
                check(!w.timed_out, what, N, "user event", 0, 0, 1);
            }
            check(r == CLSORT_SUCCESS, names[call], N, clsort_last_error(e->cs), 0, 0, r);
            clFinish(clsort_cl_queue(e->cs));
            clFinish(q2);
            for (s = 0; s < SEGS; ++s) { /* the host's answer per segment */
                uint32_t acc = 0;
                size_t lo = off[s], hi = off[s + 1];
                if (call == 2) {
                    memcpy(want + lo, in + lo, (hi - lo) * 4);
                    qsort(want + lo, hi - lo, 4, cmp_u32);
                    continue;
                }
                for (i = lo; i < hi; ++i) {
                    acc += in[i];
                    if (call == 1) want[i] = acc;
                }
                if (call == 0) want[s] = acc;
                if (call == 3) want[0] = (s ? want[0] : 0) + acc;
                if (call == 4 && hi > lo) want[runs++] = acc;
            }
            if (call == 4) { /* the run count on the device, then the runs' sums */
                uint32_t dc = 0;
                download(e->cs, dres, 4, &dc);
                check(dc == runs, "clsort_reduce_by_key: desc.count", N, run ? "after the user event" : "no wait list",
                      0, (double)runs, dc);
                count = runs;
            }
            download(e->cs, call == 3 ? dres : dout, count * 4, got);
            for (i = 0; i < count && got[i] == want[i]; ++i) {}
            check(i == count, names[call], N, run ? "after the user event" : "no wait list", i, i < count ? want[i] : 0,
                  i < count ? got[i] : 0);
            if (run == 1) {
                clReleaseEvent(w.gate);
                clReleaseEvent(w.returned);
                clReleaseEvent(wait[1]);
            }
        }
    if (q2) clReleaseCommandQueue(q2);
    clReleaseMemObject(din);
    clReleaseMemObject(dout);
    clReleaseMemObject(dkeys);
    clReleaseMemObject(dres);
    free(in); free(junk); free(keys); free(got); free(want);
}

/* Tiny tiles: many carry levels at small n (depth: any order). */
static void rd_small_tiles(const test_env *e)
{
    clsort_context *small = tile_context(e->cs, 4, 16); /* 64-element tiles (32 with 8-byte values) */
    int t, sk, quick = e->quick && !e->tiny;
    if (!small) return;
    rd_depth = 70000;
    for (t = CLSORT_U32; t < T_WIDE_END; t += 2)
        for (sk = CLSORT_SEGMENTS_NONE; sk <= CLSORT_SEGMENTS_OFFSETS; ++sk)
            if (!quick || (t / 2 + sk + (int)e->path) % 3 == 0) { /* --quick: a third, each path its own */
                const size_t n = e->tiny ? 300 : 65537;
                /* with a device count too (many idle tiles, carries of
                 * several levels): 0, a tile edge, mid-tile, the capacity */
                const size_t dcount = sk == 0 ? 0 : sk == 1 ? 64 * 3 : sk == 2 ? n / 3 + 7 : n;
                test_rd_seg_case(small, (clsort_type)t, (clsort_op)(sk % 3), (clsort_segments)sk, CLSORT_U32, n,
                                 SP_SHORT, 0, sk & 1, 0, 0);
                rd_dc_seg_one(small, (clsort_type)t, (clsort_op)(sk % 3), (clsort_segments)sk, CLSORT_U32, n, dcount,
                              SP_SHORT, sk & 1, 0, 0);
            }
    test_rd_rle_case(small, CLSORT_U32, e->tiny ? 300 : 65537, SP_SHORT, 1);
    rd_dc_rle_one(small, CLSORT_U32, e->tiny ? 300 : 65537, e->tiny ? 129 : 40000, SP_SHORT, 1);
    clsort_destroy(small);
}

static void rd_large(const test_env *e)
{
    rd_depth = rd_depth_of((size_t)1 << 22);
    test_rd_seg_case(e->cs, CLSORT_F32, CLSORT_OP_SUM, CLSORT_SEGMENTS_FLAGS_U8, CLSORT_U32, (size_t)1 << 22, SP_LONG, 0, 1,
                     0, 0);
    test_rd_seg_case(e->cs, CLSORT_U32, CLSORT_OP_SUM, CLSORT_SEGMENTS_KEYS, CLSORT_U32, ((size_t)1 << 22) + 1, SP_SHORT,
                     0, 0, 0, 0);
    test_rd_reduce_case(e->cs, CLSORT_F32, CLSORT_OP_SUM, (size_t)1 << 22, 0);
}

static void rd_determinism(const test_env *e)
{
    test_rd_determinism(e->cs, e->quick ? (size_t)1 << 18 : (size_t)1 << 22, e->quick ? 10 : 50);
}

static void rd_bykey_determinism(const test_env *e)
{
    test_rd_bykey_determinism(e->cs, e->quick ? (size_t)1 << 18 : (size_t)1 << 22, e->quick ? 4 : 10);
}

/* Each path takes half of the shapes (every shape runs, on one path): each
 * shape is a context of its own whose reduction programs are all compiled
 * anew, the slowest case of the part on CPU runtimes (--full on both paths
 * ran past 400 s on two cores). --quick takes one shape (registers 16 x 2,
 * on the portable path) and the tiny set of sizes and patterns; --tiny
 * takes four shapes, two per path. */
static void rd_variants(const test_env *e)
{
    int lookback = e->path == CLSORT_PATH_LOOKBACK, quick = e->quick && !e->tiny;
    /* --tiny: a raking and a registers shape per path */
    unsigned shapes_run = quick ? (lookback ? 0u : 1u << 7) : e->tiny ? (lookback ? 0x24u : 0x81u) : lookback ? 0xaau : 0x55u;
    test_rd_variants(e->cs, e->quick, shapes_run);
}
/* Device counts on the part's context, over the capacities and counts of
 * tests/test_devcount.c, with the programs this part's earlier cases built
 * on the same path (--quick and --tiny run the operators and segmentation
 * kinds each on one path: quick_few, quick_variant; --full builds them all):
 * clsort_reduce, the histogram (every sample type, the three counting
 * modes, accumulate), the segmented scan with its segmented reduce (offsets,
 * host and device) or reduce-by-key (keys), in place or not, run-length
 * encode and unique (values of 0, 4 or 8 bytes). --tiny (oclgrind): every
 * other count and the last, one call each in turn. */
static void rd_device_count(const test_env *e)
{
    typedef struct { clsort_type t; clsort_op op; } type_op;
    /* rd_types' operators on each path (quick_few), and the sums the histogram's programs hold */
    static const type_op red[2][6] = {
        {{CLSORT_U32, CLSORT_OP_SUM}, {CLSORT_F32, CLSORT_OP_MAX}, {CLSORT_U64, CLSORT_OP_MIN},
         {CLSORT_I64, CLSORT_OP_SUM}, {CLSORT_F32, CLSORT_OP_SUM}, {CLSORT_I32, CLSORT_OP_SUM}},
        {{CLSORT_U32, CLSORT_OP_MIN}, {CLSORT_I32, CLSORT_OP_SUM}, {CLSORT_U64, CLSORT_OP_MAX},
         {CLSORT_I64, CLSORT_OP_MIN}, {CLSORT_F32, CLSORT_OP_SUM}, {CLSORT_U32, CLSORT_OP_SUM}}};
    /* u32 sums of each kind the path built (rd_segmentations, rd_types, rd_by_key, rd_device_offsets) */
    static const clsort_segments kinds[2][4] = {
        {CLSORT_SEGMENTS_NONE, CLSORT_SEGMENTS_FLAGS_U8, CLSORT_SEGMENTS_KEYS, CLSORT_SEGMENTS_OFFSETS},
        {CLSORT_SEGMENTS_FLAGS_U32, CLSORT_SEGMENTS_KEYS, CLSORT_SEGMENTS_OFFSETS, CLSORT_SEGMENTS_KEYS}};
    static const clsort_type hist_t[4] = {CLSORT_U32, CLSORT_I32, CLSORT_F32, CLSORT_U64};
    static const unsigned bins[4] = {1, 7, 300, 5000}; /* per work-item, per work-group and global counters */
    const int lb = e->path == CLSORT_PATH_LOOKBACK;
    size_t caps[8], counts[40], nc, nk, c, k;
    nc = dc_capacities(e, caps);
    for (c = 0; c < nc; ++c) {
        nk = dc_counts(caps[c], counts, e->tiny);
        for (k = 0; k < nk; ++k) {
            const size_t cap = caps[c], cnt = counts[k], r = k + c;
            const int sp = (int)((k + 2 * c) % SP_COUNT), call = e->tiny ? (int)(k / 2 % 4) : -1;
            const clsort_segments sk = kinds[lb][r % 4];
            /* f32 sums where rd_segmentations built them: portable none, u8
             * flags, offsets; look-back u32 flags, u32 keys */
            const int f32 = r % 3 == 0 && (lb ? sk != CLSORT_SEGMENTS_OFFSETS : sk != CLSORT_SEGMENTS_KEYS);
            const clsort_type kt = lb && !f32 && r % 8 >= 4 ? CLSORT_U64 : CLSORT_U32;
            if (e->tiny && k % 2 && k + 1 != nk) continue;
            if (call < 0 || call == 0) rd_dc_reduce_one(e->cs, red[lb][r % 6].t, red[lb][r % 6].op, cap, cnt);
            if (call < 0 || call == 1)
                rd_dc_hist_one(e->cs, hist_t[r % 4], cap, cnt, bins[(k / 4 + c) % 4], (int)(k % 3 == 1));
            rd_depth = rd_depth_of(cap);
            if (call < 0 || call == 2)
                rd_dc_seg_one(e->cs, f32 ? CLSORT_F32 : CLSORT_U32, CLSORT_OP_SUM, sk, kt, cap, cnt, sp, (int)(r & 1),
                              (int)(r % 3 == 1), (int)(k / 2 % 3));
            if (call < 0 || call == 3)
                rd_dc_rle_one(e->cs, r & 1 ? CLSORT_U64 : CLSORT_U32, cap, cnt, sp, (int)(r % 3));
        }
    }
}

/* A culled stream whose counts never come to the host: pack the visible
 * elements of a key-sorted stream with their values (the visible count to
 * the device), reduce their values by key with that count (the run count to
 * the device), then with the run count the sum of the run sums
 * (clsort_reduce to desc.result) and a histogram of the run keys (one count
 * per key with a visible element), and unique of the visible keys with the
 * pack's count. Each call waits on the one before by its event; nothing is
 * read back until the end. Against the same steps on the host. */
static void rd_device_count_chain(const test_env *e)
{
    enum { KEYS = 512, GUARD = 8 };
    clsort_context *cs = e->cs;
    const size_t n = e->tiny ? 3001 : 50021;
    uint32_t *keys = (uint32_t *)malloc(n * 4), *vals = (uint32_t *)malloc(n * 4), *flags = (uint32_t *)malloc(n * 4);
    uint32_t *rk = (uint32_t *)malloc(n * 4), *rv = (uint32_t *)malloc(n * 4), *got = (uint32_t *)malloc(n * 4);
    uint32_t hist[KEYS + GUARD], ghist[KEYS + GUARD], vis = 0, runs = 0, total = 0, dvis_v = 0, druns_v = 0;
    uint32_t duniq_v = 0, dsum_v = 0;
    unsigned char *init = (unsigned char *)malloc(n * 4);
    cl_mem dk, dv, df, dkc, dvc, dvis, dko, dvo, druns, dsum, dhist, duk, duniq;
    cl_event ev[5] = {NULL, NULL, NULL, NULL, NULL};
    clsort_split_desc pd;
    clsort_by_key_desc bk;
    clsort_reduce_desc rd;
    clsort_histogram_desc hd;
    clsort_enqueue q;
    size_t i, bad;
    int r[5], j;
    for (i = 0; i < n; ++i) {
        keys[i] = (uint32_t)(i * KEYS / n); /* sorted: runs of about n / 512 */
        vals[i] = (uint32_t)(rnd64() >> 40);
        flags[i] = (uint32_t)(rnd64() % 7 < 2) * (uint32_t)(1 + rnd64() % 5);
    }
    for (i = 0; i < KEYS + GUARD; ++i) hist[i] = i < KEYS ? 0u : 0x5a5a5a5au;
    dk = buffer(cs, n * 4, keys);
    dv = buffer(cs, n * 4, vals);
    df = buffer(cs, n * 4, flags);
    dkc = buffer(cs, n * 4, NULL);
    dvc = buffer(cs, n * 4, NULL);
    dvis = buffer(cs, 4, NULL);
    dko = dc_out_buffer(cs, n * 4, init);
    dvo = dc_out_buffer(cs, n * 4, init);
    duk = dc_out_buffer(cs, n * 4, init);
    druns = buffer(cs, 4, NULL);
    duniq = buffer(cs, 4, NULL);
    dsum = buffer(cs, 4, NULL);
    dhist = buffer(cs, sizeof hist, hist);
    /* pack: the visible keys and values, their count into dvis */
    memset(&pd, 0, sizeof pd);
    pd.flags = df;
    pd.values_in = dv;
    pd.values_out = dvc;
    pd.count = dvis;
    memset(&q, 0, sizeof q);
    q.event = &ev[0];
    r[0] = clsort_pack(cs, dk, dkc, n, &pd, NULL, &q);
    /* reduce by key of the visible ones: the run count into druns */
    memset(&bk, 0, sizeof bk);
    bk.count = druns;
    memset(&q, 0, sizeof q);
    q.count = dvis;
    q.num_events_in_wait_list = 1;
    q.event_wait_list = &ev[0];
    q.event = &ev[1];
    r[1] = clsort_reduce_by_key(cs, dkc, dvc, dko, dvo, n, &bk, NULL, &q);
    /* the sum of the run sums, over the run count */
    memset(&rd, 0, sizeof rd);
    rd.result = dsum;
    q.count = druns;
    q.event_wait_list = &ev[1];
    q.event = &ev[2];
    r[2] = clsort_reduce(cs, dvo, n, &rd, NULL, &q);
    /* a histogram of the run keys, over the run count */
    memset(&hd, 0, sizeof hd);
    hd.bins = KEYS;
    hd.upper_int = KEYS;
    q.event_wait_list = &ev[2];
    q.event = &ev[3];
    r[3] = clsort_histogram_even(cs, dko, n, dhist, &hd, &q);
    /* unique of the visible keys, over the pack's count */
    memset(&bk, 0, sizeof bk);
    bk.count = duniq;
    q.count = dvis;
    q.event_wait_list = &ev[3];
    q.event = &ev[4];
    r[4] = clsort_unique(cs, dkc, duk, n, &bk, NULL, &q);
    for (j = 0; j < 5; ++j) {
        static const char *steps[5] = {"device count chain: pack", "device count chain: reduce by key",
                                       "device count chain: reduce", "device count chain: histogram",
                                       "device count chain: unique"};
        check(r[j] == CLSORT_SUCCESS, steps[j], n, clsort_last_error(cs), 0, 0, r[j]);
    }
    if (ev[4]) clWaitForEvents(1, &ev[4]);
    for (j = 0; j < 5; ++j)
        if (ev[j]) clReleaseEvent(ev[j]);
    /* the host's steps */
    for (i = 0; i < n; ++i) {
        if (!flags[i]) continue;
        if (vis == 0 || keys[i] != rk[runs - 1]) {
            rk[runs] = keys[i];
            rv[runs++] = 0;
            hist[keys[i]]++;
        }
        rv[runs - 1] += vals[i];
        total += vals[i];
        ++vis;
    }
    download(cs, dvis, 4, &dvis_v);
    download(cs, druns, 4, &druns_v);
    download(cs, duniq, 4, &duniq_v);
    download(cs, dsum, 4, &dsum_v);
    check(dvis_v == vis && druns_v == runs && duniq_v == runs, "device count chain: the counts (visible, runs, unique)",
          n, "-", 0, (double)runs, (double)druns_v);
    check(dsum_v == total, "device count chain: the sum of the run sums", n, "-", 0, total, dsum_v);
    download(cs, dko, n * 4, got);
    bad = dc_first_diff((unsigned char *)got, (unsigned char *)rk, 0, (size_t)runs * 4);
    if (bad == (size_t)-1) bad = dc_first_diff((unsigned char *)got, init, (size_t)runs * 4, n * 4);
    check(bad == (size_t)-1, "device count chain: the run keys, and past the run count their bytes", n, "-", bad / 4, 0,
          0);
    download(cs, duk, n * 4, got);
    bad = dc_first_diff((unsigned char *)got, (unsigned char *)rk, 0, (size_t)runs * 4);
    if (bad == (size_t)-1) bad = dc_first_diff((unsigned char *)got, init, (size_t)runs * 4, n * 4);
    check(bad == (size_t)-1, "device count chain: the unique keys, and past the run count their bytes", n, "-", bad / 4,
          0, 0);
    download(cs, dvo, n * 4, got);
    bad = dc_first_diff((unsigned char *)got, (unsigned char *)rv, 0, (size_t)runs * 4);
    if (bad == (size_t)-1) bad = dc_first_diff((unsigned char *)got, init, (size_t)runs * 4, n * 4);
    check(bad == (size_t)-1, "device count chain: the run sums, and past the run count their bytes", n, "-", bad / 4, 0,
          0);
    download(cs, dhist, sizeof ghist, ghist);
    for (i = 0; i < KEYS + GUARD && ghist[i] == hist[i]; ++i) {}
    check(i == KEYS + GUARD, "device count chain: the histogram of the run keys", n, "-", i,
          i < KEYS + GUARD ? hist[i] : 0, i < KEYS + GUARD ? ghist[i] : 0);
    clReleaseMemObject(dk), clReleaseMemObject(dv), clReleaseMemObject(df), clReleaseMemObject(dkc);
    clReleaseMemObject(dvc), clReleaseMemObject(dvis), clReleaseMemObject(dko), clReleaseMemObject(dvo);
    clReleaseMemObject(druns), clReleaseMemObject(dsum), clReleaseMemObject(dhist), clReleaseMemObject(duk);
    clReleaseMemObject(duniq);
    free(keys), free(vals), free(flags), free(rk), free(rv), free(got), free(init);
}

/* The family's refusals of a device count (before anything is enqueued:
 * every buffer unchanged): an offset that is not a multiple of 4, a count
 * buffer too small for it, and an output sharing the count's memory
 * (desc.result, out, desc.count, keys_out, counts), each naming enq->count. */
static void rd_device_count_refusals(const test_env *e)
{
    clsort_context *cs = e->cs;
    uint32_t in[64], pat[64], back[64], words[8];
    cl_mem a = buffer(cs, sizeof in, NULL), o = buffer(cs, sizeof pat, NULL), dc = dc_count_buffer(cs, 5);
    cl_mem small = buffer(cs, 4, NULL);
    clsort_reduce_desc rd;
    clsort_by_key_desc bk;
    clsort_histogram_desc hd;
    clsort_enqueue q;
    size_t i, cnt = 77;
    uint32_t res = 0;
    int ok;
    for (i = 0; i < 64; ++i) in[i] = (uint32_t)i, pat[i] = 0xdeadbeefu;
    clEnqueueWriteBuffer(clsort_cl_queue(cs), a, CL_TRUE, 0, sizeof in, in, 0, NULL, NULL);
    clEnqueueWriteBuffer(clsort_cl_queue(cs), o, CL_TRUE, 0, sizeof pat, pat, 0, NULL, NULL);
    clEnqueueWriteBuffer(clsort_cl_queue(cs), small, CL_TRUE, 0, 4, pat, 0, NULL, NULL);
    download(cs, dc, sizeof words, words);
    memset(&rd, 0, sizeof rd);
    memset(&bk, 0, sizeof bk);
    memset(&hd, 0, sizeof hd);
    dc_enq(&q, dc);
    q.count_offset = 6;
    EXPECT_ERR(clsort_reduce(cs, a, 64, &rd, &res, &q), CLSORT_ERROR_INVALID_ARGUMENT,
               "device count reduce: count_offset not a multiple of 4");
    q.count = small;
    q.count_offset = 4;
    rd.segments = CLSORT_SEGMENTS_FLAGS_U32;
    rd.segment_data = a;
    EXPECT_ERR(clsort_segmented_scan(cs, a, o, 64, &rd, &q), CLSORT_ERROR_INVALID_ARGUMENT,
               "device count segmented scan: count buffer too small");
    check(strstr(clsort_last_error(cs), "enq->count") != NULL, "the refusal names enq->count", 0,
          clsort_last_error(cs), 0, 0, 0);
    dc_enq(&q, dc);
    EXPECT_ERR(clsort_segmented_scan(cs, a, dc, 8, &rd, &q), CLSORT_ERROR_INVALID_ARGUMENT,
               "device count segmented scan: out is enq->count");
    memset(&rd, 0, sizeof rd);
    rd.result = dc;
    EXPECT_ERR(clsort_reduce(cs, a, 64, &rd, NULL, &q), CLSORT_ERROR_INVALID_ARGUMENT,
               "device count reduce: desc.result is enq->count");
    check(strstr(clsort_last_error(cs), "enq->count") != NULL, "the refusal names enq->count", 0,
          clsort_last_error(cs), 0, 0, 0);
    bk.count = dc;
    EXPECT_ERR(clsort_reduce_by_key(cs, a, a, o, small, 1, &bk, &cnt, &q), CLSORT_ERROR_INVALID_ARGUMENT,
               "device count reduce by key: desc.count is enq->count");
    bk.count = NULL;
    EXPECT_ERR(clsort_unique(cs, a, dc, 8, &bk, &cnt, &q), CLSORT_ERROR_INVALID_ARGUMENT,
               "device count unique: keys_out is enq->count");
    hd.bins = 4;
    hd.upper_int = 64;
    EXPECT_ERR(clsort_histogram_even(cs, a, 64, dc, &hd, &q), CLSORT_ERROR_INVALID_ARGUMENT,
               "device count histogram: counts is enq->count");
    check(strstr(clsort_last_error(cs), "enq->count") != NULL, "the refusal names enq->count", 0,
          clsort_last_error(cs), 0, 0, 0);
    download(cs, a, sizeof back, back);
    ok = memcmp(back, in, sizeof in) == 0;
    download(cs, o, sizeof back, back);
    ok = ok && memcmp(back, pat, sizeof pat) == 0;
    download(cs, small, 4, back);
    ok = ok && back[0] == pat[0];
    download(cs, dc, sizeof words, back);
    ok = ok && memcmp(back, words, sizeof words) == 0 && cnt == 77 && res == 0;
    check(ok, "device count refusals: every buffer, *count and *result unchanged", 64, "-", 0, 0, 0);
    clReleaseMemObject(a), clReleaseMemObject(o), clReleaseMemObject(dc), clReleaseMemObject(small);
}

static void rd_arguments(const test_env *e) { test_rd_arguments(e->cs); }
static void rd_host(const test_env *e) { test_rd_host(e->cs); }

#include "test_user_op.c" /* a caller's operator: USER_OP_CASES */

static const test_case reduce_cases[] = {
    {"reduce and flag-segmented scans: types x operators", rd_types, ON_BOTH, ANY_SIZE},
    {"segmentation kinds x patterns", rd_segmentations, ON_BOTH, LIMITS_ANY},
    {"reduce-by-key, segmented reduce: types x operators", rd_by_key, ON_BOTH, ANY_SIZE},
    {"run-length encode, unique", rd_rle_unique, ON_BOTH, ANY_SIZE},
    {"histogram", rd_histogram, ON_BOTH, ANY_SIZE},
    {"histogram: bins at the type's width", rd_hist_type_width, ON_PORTABLE, ANY_SIZE},
    {"histogram: f32 bins by the documented formula", rd_hist_f32_formula, ON_PORTABLE, ANY_SIZE},
    {"histogram: a float scale past the type refused", rd_hist_scale_refused, ON_PORTABLE, ANY_SIZE},
    {"float sums within the error bound: 1 then many u/2", rd_sum_bound, ON_BOTH, LIMITS_NOT_TINY},
    {"histogram: 64-bit division bins within the loop budget", rd_hist_div_budget, ON_PORTABLE, NOT_TINY},
    {"device offsets: the documented segments", rd_device_offsets, ON_BOTH, ANY_SIZE},
    {"device offsets out of order among many tiles", rd_offsets_out_of_order, ON_BOTH, ANY_SIZE},
    {"segment shapes: one, long then many empty, more segments than elements", rd_offsets_shapes, ON_BOTH, ANY_SIZE},
    {"64-element tiles", rd_small_tiles, ON_BOTH, LIMITS_ANY},
    {"2^22 elements", rd_large, ON_BOTH, IN_FULL},
    {"determinism of f32 scans and reductions", rd_determinism, ON_LOOKBACK, NOT_TINY},
    {"determinism of f32 reduce-by-key", rd_bykey_determinism, ON_BOTH, NOT_TINY},
    {"tile kernel variants", rd_variants, ON_BOTH, LIMITS_ANY},
    {"arguments", rd_arguments, ON_BOTH, ANY_SIZE},
    {"host forms", rd_host, ON_BOTH, ANY_SIZE},
    {"device count", rd_device_count, ON_BOTH, ANY_SIZE},
    {"device count: cull, reduce by key, reduce, histogram, unique on events", rd_device_count_chain, ON_BOTH, ANY_SIZE},
    {"device count refusals", rd_device_count_refusals, ON_BOTH, ANY_SIZE},
    {"no wait on the host: a user event in the wait list", rd_no_wait_on_host, ON_PORTABLE, NOT_TINY},
    USER_OP_CASES
};
static const test_part reduce_part =
    TEST_PART(reduce, "reduce, segmented scan and reduce, by key, run-length encode, unique, histogram", CTX_SHARED, 65);
