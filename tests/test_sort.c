/* test_clsort, sort: clsort_sort and clsort_sort_host for every key type
 * (8 to 64 bits, signed, float with -0, NaN and infinities), distribution,
 * value size and the permutation, bit ranges and digit widths, in place and
 * with a caller's temp, against a stable C sort; the refusals of the narrow
 * types by the other families, and bad arguments. Included by
 * tests/test_clsort.c. */

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
        if (n & 2) { /* a sub-buffer of a larger buffer: 4096 bytes in */
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

/* Every key type, distribution and mode over the sizes (descending, in place
 * and a caller's temp rotating). */
static void radix_types(const test_env *e)
{
    size_t s, rot = 0;
    int t, d;
    for (s = 0; s < e->nsizes; ++s)
        for (t = CLSORT_U32; t < T_WIDE_END; ++t)
            for (d = 0; d < S_COUNT; ++d) {
                int mode = (int)(rot % M_COUNT);
                size_t n = e->sizes[s];
                if (d == S_SPECIALS && t != CLSORT_F32 && t != CLSORT_F64) continue;
                if (e->tiny && d != S_RANDOM && d != S_SPECIALS) continue;
                if (n > 70000 && (t != CLSORT_U32 || (d != S_RANDOM && d != S_FEW))) continue;
                if (n > 10000 && t != CLSORT_U32 && t != CLSORT_F32 && d != S_RANDOM) continue;
                ++rot;
                test_sort_case(e->cs, (clsort_type)t, n, d, 0, 0, 0, (int)(rot / 3 % 2), mode, (int)(rot % 4 == 1),
                               (int)(rot % 7 == 3));
            }
}

/* Bit ranges: 10 bits, 1 bit, begin > 0, end not a multiple of r; bits
 * outside the range are random and must survive untouched. */
static void radix_bit_ranges(const test_env *e)
{
    size_t s;
    clsort_context *cs = e->cs;
    for (s = 0; s < e->nsizes; ++s) {
        size_t n = e->sizes[s];
        if (n > 70000) continue;
        /* --quick: the ranges split between the paths */
        if (quick_variant(e, 0)) test_sort_case(cs, CLSORT_U32, n, S_RANDOM, 0, 10, 0, 0, M_PERM, 0, 0);
        if (quick_variant(e, 1)) test_sort_case(cs, CLSORT_U32, n, S_RANDOM, 0, 1, 0, s & 1, M_VAL4, 0, 0);
        if (quick_variant(e, 0)) test_sort_case(cs, CLSORT_U32, n, S_RANDOM, 7, 29, 6, 0, M_PERM, (int)(s & 1), 0);
        if (quick_variant(e, 1)) test_sort_case(cs, CLSORT_I32, n, S_RANDOM, 12, 32, 0, 1, M_PERM, 0, 0);
        if (e->tiny) continue;
        if (quick_variant(e, 0)) test_sort_case(cs, CLSORT_U64, n, S_RANDOM, 20, 47, 5, 0, M_PERM, 0, 1);
        if (quick_variant(e, 1)) test_sort_case(cs, CLSORT_I64, n, S_AND3, 1, 64, 7, 0, M_VAL8, 0, 0);
        if (quick_variant(e, 0)) test_sort_case(cs, CLSORT_U32, n, S_AND3, 3, 16, 0, 0, M_PERM, 1, 0);
    }
}

/* Every radix width on one size that spans several tiles. */
static void radix_widths(const test_env *e)
{
    unsigned r;
    for (r = 1; r <= 12; ++r)
        if (quick_variant(e, r)) /* --quick: the widths split between the paths */
            test_sort_case(e->cs, CLSORT_U32, 20011, S_RANDOM, 0, r == 1 ? 9 : 32, r, r & 1, M_PERM, 0, 0);
}

/* More specializations than the context keeps (the test hook max_programs
 * = 8): 16 sorts of different digit widths and streams, twice, so that the
 * least recently used programs are released while others are in use, then
 * rebuilt. */
static void radix_program_cache(const test_env *e)
{
    clsort_tuning t;
    clsort_test_hooks h;
    clsort_context *cs;
    unsigned r, rep;
    memset(&t, 0, sizeof t);
    memset(&h, 0, sizeof h);
    h.max_programs = 8;
    cs = tuned_context_hooks(e->cs, &t, &h, "context with the test hook max_programs = 8");
    if (!cs) return;
    for (rep = 0; rep < 2; ++rep)
        for (r = 1; r <= (e->tiny ? 6u : 16u); ++r)
            test_sort_case(cs, r % 2 ? CLSORT_U32 : CLSORT_U64, 300 + 100 * rep, S_RANDOM, 0, 0, (r + 1) / 2 + 2, 0,
                           (int)(r % M_COUNT), 0, 0);
    clsort_destroy(cs);
}

/* Wide digits, one pass: 10 and 12 bits with the permutation, 11 with values. */
static void radix_wide_digits(const test_env *e)
{
    size_t s;
    for (s = 0; s < e->nsizes; ++s) {
        size_t n = e->sizes[s];
        if (n > 70000 || (e->tiny && n > 5000)) continue;
        test_sort_case(e->cs, CLSORT_U32, n, S_RANDOM, 0, 10, 10, 0, M_PERM, 0, 0);
        if (e->tiny) continue;
        test_sort_case(e->cs, CLSORT_U32, n, S_FEW, 0, 12, 12, 1, M_PERM, 0, 0);
        test_sort_case(e->cs, CLSORT_I32, n, S_RANDOM, 4, 26, 11, 0, M_VAL4, 1, 0);
    }
}

/* The plan's own digit widths on the look-back path, keys alone: bit ranges
 * of 9, 10, 17, 18 and 27 bits of 4-byte keys, where the one-sweep passes
 * take 9- and 10-bit digits (clsort__widen_digits), and, for contrast, 11
 * bits and 27 and 63 bits of u64 keys, where they keep 8 or fewer; over
 * several tiles, descending at times. */
static void radix_plan_digit_widths(const test_env *e)
{
    static const struct {
        clsort_type t;
        unsigned begin, end;
    } ranges[] = {{CLSORT_U32, 0, 9},   {CLSORT_U32, 0, 10}, {CLSORT_I32, 5, 22}, {CLSORT_U32, 3, 21},
                  {CLSORT_U32, 0, 27},  {CLSORT_U64, 20, 47}, {CLSORT_U32, 0, 11}, {CLSORT_U64, 0, 63}};
    static const size_t ns[] = {20011, 70001, 3001};
    static const int dists[] = {S_RANDOM, S_FEW, S_REVERSED};
    size_t r, i;
    for (r = 0; r < sizeof ranges / sizeof ranges[0]; ++r)
        for (i = 0; i < (e->tiny ? 1u : 3u); ++i) {
            size_t n = e->tiny ? 9000 : ns[i];
            if (e->tiny && r % 3 != 0) continue;
            test_sort_case(e->cs, ranges[r].t, n, dists[(r + i) % 3], ranges[r].begin, ranges[r].end, 0,
                           (int)((r + i) % 2), M_KEYS, (int)(i == 1), 0);
        }
}

/* tuning.onesweep on the look-back path: OFF (the classic passes) and ON
 * (one-sweep wherever the device allows it), each against the reference
 * over several tiles, with values, a permutation and 64-bit keys. */
static void radix_onesweep_knob(const test_env *e)
{
    static const size_t ns[] = {3001, 20011, 70001};
    int k;
    for (k = 0; k < 2; ++k) {
        clsort_tuning t;
        clsort_context *cs;
        size_t i;
        memset(&t, 0, sizeof t);
        t.onesweep = k ? CLSORT_ONESWEEP_ON : CLSORT_ONESWEEP_OFF;
        cs = tuned_context(e->cs, &t, k ? "context with tuning.onesweep ON" : "context with tuning.onesweep OFF");
        if (!cs) continue;
        for (i = 0; i < (e->tiny ? 1u : 3u); ++i) {
            test_sort_case(cs, CLSORT_U32, ns[i], S_RANDOM, 0, 0, 0, 0, M_VAL4, 0, 0);
            test_sort_case(cs, CLSORT_U64, ns[i], S_FEW, 0, 0, 0, (int)(i & 1), M_PERM, (int)(i == 1), 0);
        }
        clsort_destroy(cs);
    }
}

/* The one-sweep tile's edges on the look-back path: n one key short of 1,
 * 2 (and, but at --quick, 3) tiles of the tile the plan takes, exactly that,
 * and one key more, for 4-byte keys alone, with 4-byte values, with the
 * permutation, and 8-byte keys (each kind its own tile), and digits wider
 * than one a work-item (11 bits of u32 keys, 10 of u64 keys with values):
 * whole tiles take the unchecked loads and writes, and the last tile is one
 * key short, full, or one key. --tiny (oclgrind): two full tiles of pairs
 * (one would be the single-tile sort where the one-sweep tile shrinks to it),
 * at 8 and 11 bits. */
static void radix_onesweep_tile_edges(const test_env *e)
{
    static const struct {
        clsort_type t;
        int mode;
        unsigned bits; /* digit width (0: the plan's, 8) */
    } kinds[] = {{CLSORT_U32, M_KEYS, 0},  {CLSORT_F32, M_VAL4, 0}, {CLSORT_I32, M_PERM, 0},
                 {CLSORT_U64, M_KEYS, 0},  {CLSORT_U32, M_KEYS, 11}, {CLSORT_U64, M_VAL4, 10},
                 {CLSORT_F32, M_VAL4, 11}};
    size_t k, m, d;
    for (k = 0; k < sizeof kinds / sizeof kinds[0]; ++k) {
        size_t ks = clsort_type_size(kinds[k].t), vs = kinds[k].mode == M_KEYS ? 0 : 4, w = 0, it = 0;
        unsigned bits = kinds[k].bits ? kinds[k].bits : 8;
        /* (a device without the one-sweep tile sorts these sizes by the classic passes) */
        size_t tile = clsort__onesweep_shape(e->cs, ks, vs, bits, &w, &it) ? w * it : 4096;
        if (e->tiny && kinds[k].mode != M_VAL4) continue;
        if (e->tiny && kinds[k].t == CLSORT_U64) continue;
        for (m = 1; m <= (e->quick ? 2u : 3u); ++m)
            for (d = 0; d < 3; ++d) {
                size_t n = m * tile + d - 1;
                if (e->tiny && (d != 1 || m != 2)) continue;
                test_sort_case(e->cs, kinds[k].t, n, d == 0 ? S_FEW : d == 1 ? S_RANDOM : S_REVERSED, 0, 0,
                               kinds[k].bits, (int)(d == 2), kinds[k].mode, (int)(m == 2), 0);
            }
    }
}

/* Keys alone as streaming stores (the test hook stream_out_any_size: the
 * form NVIDIA takes past 64 MiB a pass, here at test sizes; other devices
 * sort as always): every 4- and 8-byte key type, both directions, around
 * the type's one-sweep tile (as the tile-edges case finds it), then a bit
 * range, a 9-bit digit and a u64 range. */
static void radix_stream_out(const test_env *e)
{
    static const clsort_type types[] = {CLSORT_U32, CLSORT_I32, CLSORT_F32, CLSORT_U64, CLSORT_I64, CLSORT_F64};
    static const int dists[] = {S_RANDOM, S_EQUAL, S_SORTED, S_REVERSED, S_FEW, S_EXTREMES, S_SPECIALS};
    clsort_tuning t;
    clsort_test_hooks h;
    clsort_context *cs;
    size_t ti, s, d, n = 0;
    memset(&t, 0, sizeof t);
    memset(&h, 0, sizeof h);
    t.onesweep = CLSORT_ONESWEEP_ON;
    h.stream_out_any_size = 1;
    cs = tuned_context_hooks(e->cs, &t, &h, "context with one-sweep passes and stream_out_any_size");
    if (!cs) return;
    for (ti = 0; ti < sizeof types / sizeof types[0]; ++ti) {
        size_t w = 0, it = 0;
        size_t tile = clsort__onesweep_shape(cs, clsort_type_size(types[ti]), 0, 8, &w, &it) ? w * it : 4096;
        const size_t sizes[] = {0, 1, 31, tile - 1, tile, tile + 1, 3 * tile + 7, 65537};
        for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
            for (d = 0; d < sizeof dists / sizeof dists[0]; ++d) {
                int fl = types[ti] == CLSORT_F32 || types[ti] == CLSORT_F64;
                if (dists[d] == S_SPECIALS && !fl) continue;
                if (e->quick && !e->tiny && (s + d) % 2 != 0) continue;
                if (e->tiny && s != 1 && s != 5) continue; /* 1 and tile + 1 (oclgrind: about 2 s a check) */
                if (e->tiny && dists[d] != S_RANDOM && dists[d] != S_SPECIALS) continue;
                test_sort_case(cs, types[ti], sizes[s], dists[d], 0, 0, 0, (int)((s + d) % 2), M_KEYS, (int)(s % 3 == 1),
                               0);
            }
        if (types[ti] == CLSORT_U32) n = tile + 1;
    }
    if (!e->tiny) n = 3 * n + 7;
    test_sort_case(cs, CLSORT_U32, n, S_RANDOM, 3, 30, 0, 0, M_KEYS, 0, 0); /* bits [3, 30) */
    test_sort_case(cs, CLSORT_U32, n, S_RANDOM, 0, 9, 0, 1, M_KEYS, 0, 0);  /* one 9-bit digit */
    test_sort_case(cs, CLSORT_U64, n, S_RANDOM, 8, 44, 0, 0, M_KEYS, 1, 0); /* u64 bits [8, 44) */
    clsort_destroy(cs);
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
    check(clsort_sort_host(cs, CLSORT_U32, hk, hv, hp, 9, NULL) == CLSORT_SUCCESS && memcmp(hk, want_k, sizeof hk) == 0 &&
          memcmp(hp, want_p, sizeof hp) == 0 && hv[0] == 104 && hv[8] == 102, "sort_host keys + values + permutation",
          9, "-", 0, 0, 0);
    clReleaseMemObject(small); clReleaseMemObject(a); clReleaseMemObject(b); clReleaseMemObject(c);
}

/* ---- 8- and 16-bit keys, 1- to 16-byte values ---- */

static const clsort_type narrow_types[4] = {CLSORT_U8, CLSORT_I8, CLSORT_U16, CLSORT_I16};

/* Every 8- and 16-bit key type, distribution and value size (rotated) over
 * the sizes and a few more (the CPUs' 16384-key tiles, 2^16+1, a large one),
 * every value size with every type, bit ranges and digit widths. */
static void test_sort_narrow(clsort_context *cs, const size_t *sizes, size_t nsizes, int tiny, int quick,
                             const test_env *env)
{
    static const int dists[] = {S_RANDOM, S_EQUAL, S_SORTED, S_REVERSED, S_FEW, S_EXTREMES, S_AND3};
    static const size_t extra[] = {16383, 16384, 16385, 65537, 300007};
    size_t s, rot = 0, ne = tiny ? 0 : sizeof extra / sizeof extra[0];
    int ti, di, m;
    for (s = 0; s < nsizes + ne; ++s) {
        size_t n = s < nsizes ? sizes[s] : extra[s - nsizes];
        if (n > 70000 && s < nsizes) continue; /* the full run's 2^20+1: the large one below instead */
        for (ti = 0; ti < 4; ++ti)
            for (di = 0; di < (int)(sizeof dists / sizeof dists[0]) && quick_variant(env, (unsigned)ti / 2); ++di) {
                int d = dists[di];
                /* oclgrind (tiny): two types per size, random and extremes */
                if (tiny && ((d != S_RANDOM && d != S_EXTREMES) || (size_t)ti % 2 != s % 2)) continue;
                if (n > 10000 && d != S_RANDOM && d != S_FEW && d != S_REVERSED) continue;
                if (n > 70000 && (d != S_RANDOM || (quick && ti % 2))) continue;
                ++rot;
                m = (int)(rot % (quick && !tiny ? M_COUNT : M_ALL)); /* --quick: the other value sizes below */
                test_sort_case(cs, narrow_types[ti], n, d, 0, 0, 0, (int)(rot / 3 % 2), m, (int)(rot % 4 == 1),
                               (int)(rot % 7 == 3));
            }
    }
    /* every value size (and the permutation) with every key type, on tiles of
     * every path (several tiles; in place and out of place) */
    for (ti = 0; ti < 4; ++ti)
        for (m = 0; m < M_ALL; ++m) {
            if (tiny && m % 4 != ti) continue; /* oclgrind: each mode with one type */
            if (!quick_few(env, (unsigned)(m + ti))) continue;
            test_sort_case(cs, narrow_types[ti], tiny ? 301 : (size_t)(20011 + m), m % 3 ? S_RANDOM : S_FEW, 0, 0, 0,
                           m & 1, m, m % 3 == 1, m == M_VAL16);
        }
    /* bit ranges and digit widths; bits outside the range survive */
    for (s = 0; s < nsizes; ++s) {
        size_t n = sizes[s];
        if (n > 70000 || (tiny && n > 300)) continue;
        if (!quick_variant(env, (unsigned)s)) continue; /* --quick: the sizes split between the paths */
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
 * starts), sparse ones (the global search), one value, both signs, at the
 * sizes from min_n to max_n; few: at --tiny only random, few-distinct and
 * extreme keys. */
static void test_sort_fill16(clsort_context *cs, int tiny, size_t min_n, size_t max_n, int few)
{
    static const size_t fn16[] = {2, 4097, 16385, 65537, 300007};
    static const int fd[] = {S_RANDOM, S_EQUAL, S_SORTED, S_REVERSED, S_FEW, S_EXTREMES, S_AND3};
    size_t k;
    int di;
    for (k = 0; k < sizeof fn16 / sizeof fn16[0]; ++k) {
        if ((tiny && fn16[k] > 5000) || fn16[k] < min_n || fn16[k] > max_n) continue;
        for (di = 0; di < (int)(sizeof fd / sizeof fd[0]); ++di) {
            if (fn16[k] > 70000 && fd[di] != S_RANDOM && fd[di] != S_FEW) continue;
            if (few && tiny && fd[di] != S_RANDOM && fd[di] != S_FEW && fd[di] != S_EXTREMES) continue;
            test_sort_case(cs, di % 2 ? CLSORT_I16 : CLSORT_U16, fn16[k], fd[di], 0, 0, 0, (int)((k + (size_t)di) % 2),
                           M_KEYS, di % 3 == 1, di == 2);
        }
    }
}

/* The host forms, keys at odd addresses (host-pointer buffers), tile
 * shapes that make the CPU run the GPU kernels, and the errors. */
static void test_sort_narrow_more(clsort_context *cs, int tiny, const test_env *env)
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
            if (!quick_few(env, (unsigned)(k + (size_t)ti))) continue;
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
            r = clsort_sort_host(cs, t, keys, vals, perm, n, &sd);
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
            if (!quick_few(env, (unsigned)m)) continue;
            size_t n = tiny ? 1001 : 3001; /* oclgrind: 8 tiles of 128, 4 of 256 */
            if (t324) test_sort_case(t324, narrow_types[m % 4], n + (size_t)m, S_RANDOM, 0, 0, 0, m & 1, m, m % 4 == 2, 0);
            if (t2561) test_sort_case(t2561, narrow_types[(m + 1) % 4], n - 2 + (size_t)m, m % 2 ? S_FEW : S_RANDOM, 0, 0,
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
        NARROW_REFUSED(clsort_bitonic_sort_host(cs, t, back, NULL, NULL, 64, &bd), "clsort_bitonic_sort_host");
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
        memset(&pd, 0, sizeof pd);
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
        EXPECT_ERR(clsort_sort_host(cs, sd.type, back, back, NULL, 8, &sd), CLSORT_ERROR_INVALID_ARGUMENT,
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


static void radix_narrow(const test_env *e) { test_sort_narrow(e->cs, e->sizes, e->nsizes, e->tiny, e->quick, e); }
static void radix_narrow_more(const test_env *e) { test_sort_narrow_more(e->cs, e->tiny, e); }
/* 16-bit keys alone: the plan's choice (on the look-back path of CPUs and
 * NVIDIA GPUs, below 2^24 keys, two one-sweep passes), then with one-sweep
 * passes forced on and the test hook fill16_any_size: the fill after one
 * one-sweep pass, which the plan takes only from 2^24 keys on. */
static void radix_fill16(const test_env *e)
{
    clsort_tuning t;
    clsort_test_hooks h;
    clsort_context *cs;
    test_sort_fill16(e->cs, e->tiny, 0, (size_t)-1, 0);
    if (clsort_context_path(e->cs) != CLSORT_PATH_LOOKBACK) return;
    memset(&t, 0, sizeof t);
    memset(&h, 0, sizeof h);
    t.onesweep = CLSORT_ONESWEEP_ON;
    h.fill16_any_size = 1;
    cs = tuned_context_hooks(e->cs, &t, &h, "context with one-sweep passes and fill16_any_size");
    if (!cs) return;
    test_sort_fill16(cs, e->tiny, 4097, 70000, 1); /* past one tile: the single-tile sort takes less */
    clsort_destroy(cs);
}

static void radix_narrow_refusals(const test_env *e) { test_narrow_refusals(e->cs); }

static void radix_large(const test_env *e)
{
    test_sort_case(e->cs, CLSORT_U32, (size_t)1 << 22, S_RANDOM, 0, 0, 0, 0, M_VAL4, 0, 0);
    test_sort_case(e->cs, CLSORT_F32, ((size_t)1 << 21) + 3, S_RANDOM, 0, 0, 0, 1, M_PERM, 1, 0);
}

static void radix_arguments(const test_env *e) { test_sort_arguments(e->cs); }

static const test_case sort_cases[] = {
    {"types x distributions x modes", radix_types, ON_BOTH, ANY_SIZE},
    {"bit ranges", radix_bit_ranges, ON_BOTH, ANY_SIZE},
    {"every radix width", radix_widths, ON_BOTH, NOT_TINY},
    {"more programs than the context keeps", radix_program_cache, ON_PORTABLE, LIMITS_ANY},
    {"wide digits", radix_wide_digits, ON_BOTH, ANY_SIZE},
    {"digit widths of the plan (keys alone)", radix_plan_digit_widths, ON_LOOKBACK, ANY_SIZE},
    {"one-sweep off and on (tuning.onesweep)", radix_onesweep_knob, ON_LOOKBACK, ANY_SIZE},
    {"one-sweep tile edges", radix_onesweep_tile_edges, ON_LOOKBACK, ANY_SIZE},
    {"keys alone as streaming stores", radix_stream_out, ON_LOOKBACK, ANY_SIZE},
    {"8- and 16-bit keys", radix_narrow, ON_BOTH, LIMITS_ANY},
    {"host forms, odd addresses, tile shapes", radix_narrow_more, ON_BOTH, LIMITS_ANY},
    {"16-bit keys alone (fill)", radix_fill16, ON_BOTH, ANY_SIZE},
    {"narrow types refused elsewhere", radix_narrow_refusals, ON_BOTH, ANY_SIZE},
    {"2^22 u32 pairs, 2^21 f32 permutation", radix_large, ON_BOTH, IN_FULL},
    {"arguments", radix_arguments, ON_BOTH, ANY_SIZE},
    {"device count", radix_device_count, ON_BOTH, ANY_SIZE},
    {"device count: cull, pack, sort, gather on events", radix_device_count_chain, ON_BOTH, ANY_SIZE},
    {"device count refusals", radix_device_count_refusals, ON_BOTH, ANY_SIZE},
    {"device count promises: capacity checks, counts over outputs, counts fed to the next call", radix_device_count_promises, ON_BOTH, ANY_SIZE},
    {"device count on small tiles (scan, split family, sort)", radix_device_count_small_tiles, ON_BOTH, LIMITS_ANY},
};
static const test_part sort_part = TEST_PART(sort, "clsort_sort, clsort_sort_host", CTX_SHARED, 72);
