/* test_clsort, bitonic: clsort_bitonic_sort and its host form for every
 * key type, order, value mode and segmentation (one, equal, device and host
 * offsets) against a stable C sort, the zero-one principle on the device's
 * and tiny tiles, and bad arguments. Included by tests/test_clsort.c. */

enum { G_ONE, G_EQUAL, G_DEV, G_HOST, G_COUNT };
static const char *seg_names[] = {"one-segment", "equal-segments", "device-offsets", "host-offsets"};

/* Random segment offsets over n keys: empty, 1-key, short, about a tile and
 * longer than a tile (2048 keys on CPUs) segments. Returns the count. */
static size_t bt_short_max; /* nonzero: every segment 0 .. bt_short_max keys */
static const size_t bitonic_lens[] = {5000, 2049, 2048, 1024, 1000, 100, 16, 7, 3, 2, 1}; /* equal segments */

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
    EXPECT_ERR(clsort_bitonic_sort_host(cs, CLSORT_U32, data, NULL, NULL, 64, &bd), CLSORT_ERROR_INVALID_ARGUMENT,
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
    check(clsort_bitonic_sort_host(cs, CLSORT_U32, hk, hv, hp, 9, NULL) == CLSORT_SUCCESS && memcmp(hk, want_k, sizeof hk) == 0 &&
          memcmp(hp, want_p, sizeof hp) == 0 && hv[0] == 104 && hv[8] == 102,
          "bitonic_host keys + values + permutation", 9, "-", 0, 0, 0);
    bd.type = CLSORT_F32; bd.descending = 1;
    check(clsort_bitonic_sort_host(cs, CLSORT_F32, hf, NULL, NULL, 6, &bd) == CLSORT_SUCCESS && hf[0] == 1e30f && hf[1] == 1.5f &&
          hf[2] == 0.0f && !signbit(hf[2]) && signbit(hf[3]) && hf[4] == -2.0f && hf[5] == -1e30f,
          "bitonic_host f32 descending, +0 before -0", 6, "-", 0, 0, 0);
    clReleaseMemObject(small); clReleaseMemObject(a); clReleaseMemObject(b); clReleaseMemObject(c);
    clReleaseMemObject(dbad); clReleaseMemObject(dpast); clReleaseMemObject(dfirst);
}


/* ---- a caller's comparator (desc.user_op) ----
 * The kernels' snippets and their C mirrors; the sort keeps equal keys (under
 * the comparator) in input order, so the reference is a stable C sort and
 * keys, values and permutation compare exactly. */
enum { BC_DESC, BC_HIGH, BC_NANLAST, BC_COUNT };
static const char *const bc_src[BC_COUNT] = {
    "/* largest first */\nint after_first(uint a, uint b)\n{\n    return a > b;\n}\n",
    "int high_bits(uint a, uint b) { return (a >> 8) < (b >> 8); }\n",
    "int nan_last(float a, float b) { return isnan(b) ? !isnan(a) : a < b; }\n"};
static const char *const bc_name[BC_COUNT] = {"after_first", "high_bits", "nan_last"};
static const char *const bc_what[BC_COUNT] = {"a > b", "(a >> 8) < (b >> 8)", "NaN last"};
static struct { int which, descending; const uint32_t *keys; } bc;

static int bc_before(uint32_t a, uint32_t b)
{
    float fa, fb;
    if (bc.which == BC_DESC) return a > b;
    if (bc.which == BC_HIGH) return (a >> 8) < (b >> 8);
    memcpy(&fa, &a, 4);
    memcpy(&fb, &b, 4);
    return isnan(fb) ? !isnan(fa) : fa < fb;
}

static int bc_cmp(const void *x, const void *y)
{
    uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y, a = bc.keys[i], b = bc.keys[j];
    if (bc.descending) a = bc.keys[j], b = bc.keys[i];
    if (bc_before(a, b)) return -1;
    if (bc_before(b, a)) return 1;
    return i < j ? -1 : i > j;
}

/* Keys for comparator w: repeats under it (and NaNs, zeros, infinities). */
static uint32_t bc_key(int w, size_t n)
{
    static const uint32_t special[] = {0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x80000000u, 0u, 0x7f800000u,
                                       0xff800000u, 0x3f800000u};
    uint64_t r = rnd64();
    float f;
    if (w == BC_DESC) return (uint32_t)(r % (n + 1));
    if (w == BC_HIGH) return (uint32_t)(((r >> 40) % (n / 8 + 2)) << 8 | (r & 0xff));
    if (r % 5 == 0) return special[(r >> 8) % 8];
    f = (float)((int64_t)(r >> 20) % 2000) / 8.0f;
    memcpy(&r, &f, 4);
    return (uint32_t)r;
}

/* Segment offsets in off (nseg + 1) for segmentation g, the descriptor's
 * segments set (dev: the device copy). Returns the segment count. */
static size_t bc_segments(clsort_context *cs, clsort_bitonic_desc *bd, uint32_t *off, size_t n, int g, size_t L,
                          cl_mem *dev)
{
    size_t s, nseg = 1;
    off[0] = 0; off[1] = (uint32_t)n;
    if (g == G_EQUAL) {
        nseg = n / L;
        for (s = 0; s <= nseg; ++s) off[s] = (uint32_t)(s * L);
        bd->segment_length = L;
    } else if (g == G_DEV || g == G_HOST) {
        nseg = random_offsets(off, n + 3, n);
        bd->segment_count = nseg;
        if (g == G_DEV) bd->segment_offsets = *dev = buffer(cs, (nseg + 1) * 4, off);
        else bd->segment_offsets_host = off;
    }
    return nseg;
}

/* One sort by comparator w against the stable reference: keys (and, by
 * mode, values 4 bytes and the permutation) exact. */
static void test_bitonic_cmp_case(clsort_context *cs, int w, size_t n, int g, size_t L, int descending, int extras,
                                  int in_place)
{
    uint32_t *keys = (uint32_t *)malloc(n * 4 + 4), *vals = (uint32_t *)malloc(n * 4 + 4);
    uint32_t *idx = (uint32_t *)malloc(n * 4 + 4), *off = (uint32_t *)malloc((n + 3) * 4 + 8);
    uint32_t *ok = (uint32_t *)malloc(n * 4 + 4), *ov = (uint32_t *)malloc(n * 4 + 4), *op = (uint32_t *)malloc(n * 4 + 4);
    cl_mem kin, kout, vin = NULL, vout = NULL, pm = NULL, doff = NULL;
    clsort_bitonic_desc bd;
    size_t i, s, nseg, bad = (size_t)-1;
    clsort_result r;
    char what[200];
    memset(&bd, 0, sizeof bd);
    bd.type = w == BC_NANLAST ? CLSORT_F32 : CLSORT_U32;
    bd.descending = descending;
    bd.user_op.source = bc_src[w];
    bd.user_op.name = bc_name[w];
    for (i = 0; i < n; ++i) keys[i] = bc_key(w, n), vals[i] = (uint32_t)rnd64(), idx[i] = (uint32_t)i;
    nseg = bc_segments(cs, &bd, off, n, g, L, &doff);
    bc.which = w; bc.descending = descending; bc.keys = keys;
    for (s = 0; s < nseg; ++s)
        if (off[s + 1] - off[s] > 1) qsort(idx + off[s], off[s + 1] - off[s], 4, bc_cmp);
    kin = buffer(cs, n * 4, keys);
    kout = in_place ? kin : buffer(cs, n * 4, NULL);
    if (extras) {
        vin = buffer(cs, n * 4, vals);
        vout = in_place ? vin : buffer(cs, n * 4, NULL);
        bd.values_in = vin; bd.values_out = vout;
        if (extras > 1) bd.permutation = pm = buffer(cs, n * 4, NULL);
    }
    snprintf(what, sizeof what, "bitonic comparator %s%s %s L=%lu segs=%lu%s%s", bc_what[w],
             descending ? " descending" : "", seg_names[g], (unsigned long)L, (unsigned long)nseg,
             extras ? extras > 1 ? " values+permutation" : " values" : "", in_place ? " in-place" : "");
    r = clsort_bitonic_sort(cs, kin, kout, n, &bd, NULL);
    if (r != CLSORT_SUCCESS) printf("  %s: %s\n", what, clsort_last_error(cs));
    check(r == CLSORT_SUCCESS, what, n, "comparator", 0, 0, r);
    if (n) download(cs, kout, n * 4, ok);
    for (i = 0; i < n && bad == (size_t)-1; ++i)
        if (ok[i] != keys[idx[i]]) bad = i;
    check(bad == (size_t)-1, what, n, "comparator", bad, bad < n ? keys[idx[bad]] : 0, bad < n ? ok[bad] : 0);
    if (extras && n) {
        download(cs, vout, n * 4, ov);
        if (pm) download(cs, pm, n * 4, op);
        for (i = 0, bad = (size_t)-1; i < n && bad == (size_t)-1; ++i)
            if (ov[i] != vals[idx[i]] || (pm && op[i] != idx[i])) bad = i;
        check(bad == (size_t)-1, "bitonic comparator: values (and permutation) follow their keys", n, "comparator",
              bad, bad < n ? idx[bad] : 0, bad < n && pm ? op[bad] : 0);
    }
    release_sort_buffers(kin, kout, vin, vout, pm, doff, in_place);
    free(keys); free(vals); free(idx); free(off); free(ok); free(ov); free(op);
}

/* The host form: keys, values and permutation on the host, variable segments. */
static void test_bitonic_cmp_host(clsort_context *cs)
{
    uint32_t keys[300], want[300], vals[300], perm[300], idx[300], off[4] = {0, 7, 7, 300};
    clsort_bitonic_desc bd;
    size_t i, s;
    int ok = 1;
    for (i = 0; i < 300; ++i) keys[i] = want[i] = bc_key(BC_HIGH, 300), vals[i] = (uint32_t)i * 3u, idx[i] = (uint32_t)i;
    bc.which = BC_HIGH; bc.descending = 1; bc.keys = want;
    for (s = 0; s < 3; ++s) qsort(idx + off[s], off[s + 1] - off[s], 4, bc_cmp);
    memset(&bd, 0, sizeof bd);
    bd.descending = 1;
    bd.segment_offsets_host = off; bd.segment_count = 3;
    bd.user_op.source = bc_src[BC_HIGH]; bd.user_op.name = bc_name[BC_HIGH];
    ok = clsort_bitonic_sort_host(cs, CLSORT_U32, keys, vals, perm, 300, &bd) == CLSORT_SUCCESS;
    for (i = 0; i < 300 && ok; ++i) ok = keys[i] == want[idx[i]] && vals[i] == idx[i] * 3u && perm[i] == idx[i];
    check(ok, "bitonic_host comparator descending, host offsets, values + permutation", 300, "comparator", i, 0, 0);
}

/* 8-byte keys: f64 by magnitude (as_double on the bit patterns), equal
 * segments, the permutation against a stable C sort. */
static const double *bc_dkeys;
static int bc_abs_cmp(const void *x, const void *y)
{
    uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
    double a = fabs(bc_dkeys[i]), b = fabs(bc_dkeys[j]);
    return a < b ? -1 : b < a ? 1 : i < j ? -1 : i > j;
}

static void test_bitonic_cmp_f64(clsort_context *cs)
{
    enum { N = 3000, L = 1000 };
    double *k = (double *)malloc(N * sizeof(double)), *want = (double *)malloc(N * sizeof(double));
    uint32_t *idx = (uint32_t *)malloc(N * 4), *perm = (uint32_t *)malloc(N * 4);
    clsort_bitonic_desc bd;
    clsort_result r;
    size_t i;
    int ok;
    for (i = 0; i < N; ++i) want[i] = k[i] = (double)((int64_t)(rnd64() % 201) - 100) / 4.0, idx[i] = (uint32_t)i;
    bc_dkeys = want;
    for (i = 0; i < N; i += L) qsort(idx + i, L, 4, bc_abs_cmp);
    memset(&bd, 0, sizeof bd);
    bd.segment_length = L;
    bd.user_op.source = "int by_abs(double a, double b) { return fabs(a) < fabs(b); }";
    bd.user_op.name = "by_abs";
    r = clsort_bitonic_sort_host(cs, CLSORT_F64, k, NULL, perm, N, &bd);
    if (r == CLSORT_ERROR_UNSUPPORTED) { /* no cl_khr_fp64: refused, keys untouched */
        check(strstr(clsort_last_error(cs), "cl_khr_fp64") && memcmp(k, want, N * sizeof(double)) == 0,
              "bitonic comparator on f64 without fp64: refused", N, "comparator", 0, 0, 0);
        free(k); free(want); free(idx); free(perm);
        return;
    }
    ok = r == CLSORT_SUCCESS;
    for (i = 0; i < N && ok; ++i) ok = perm[i] == idx[i] && memcmp(&k[i], &want[idx[i]], 8) == 0;
    check(ok, "bitonic_host comparator on f64 by magnitude, equal segments, permutation", N, "comparator", i, 0, 0);
    free(k); free(want); free(idx); free(perm);
}

/* Every size of the list, rotating segmentations, values and order. --quick:
 * one program per comparator (fixed segments for two, offsets for one). */
static void bitonic_comparators(const test_env *e)
{
    static const size_t sizes[] = {1048577, 65537, 8193, 4099, 4097, 4096, 2049, 2048, 2047, 1031, 1025, 1024,
                                   1023, 257, 256, 255, 65, 63, 31, 5, 3, 2, 1, 0};
    size_t s, rot = 0, L;
    int w, g;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        size_t n = sizes[s];
        if (n > (e->tiny ? 2049 : e->quick ? 65537 : 1048577)) continue;
        for (w = 0; w < BC_COUNT; ++w) {
            ++rot;
            g = (int)(rot % G_COUNT);
            if (e->quick) g = w == BC_HIGH ? G_DEV + (int)(rot & 1) : (int)(rot & 1);
            L = bitonic_lens[rot % (sizeof bitonic_lens / sizeof bitonic_lens[0])];
            if (g == G_EQUAL && (n == 0 || n % L != 0)) L = n % 7 == 0 && n ? 7 : n % 3 == 0 && n ? 3 : 1;
            test_bitonic_cmp_case(e->cs, w, n, g, g == G_EQUAL ? L : 0, w == BC_HIGH && rot % 3 == 0,
                                  (int)(rot % 3), (int)(rot % 4 == 1));
        }
    }
    test_bitonic_cmp_host(e->cs);
    if (!e->quick && !e->tiny) { /* long segments through every global pass of a small tile */
        clsort_context *t44 = tile_context(e->cs, 4, 4);
        test_bitonic_cmp_f64(e->cs);
        if (t44) {
            test_bitonic_cmp_case(t44, BC_NANLAST, 3001, G_ONE, 0, 0, 2, 0);
            test_bitonic_cmp_case(t44, BC_HIGH, 20000, G_DEV, 0, 1, 1, 1);
            test_bitonic_cmp_case(t44, BC_DESC, 20000, G_EQUAL, 500, 0, 0, 0);
        }
        clsort_destroy(t44);
    }
}

/* A bad comparator: the error, its message, and every buffer untouched. */
static void bitonic_cmp_expect(clsort_context *cs, const char *src, const char *name, const char *identity,
                               clsort_result code, const char *in_log, const char *what)
{
    uint32_t data[64], back[64];
    cl_mem a, b, v, p;
    clsort_bitonic_desc bd;
    size_t i;
    int ok;
    for (i = 0; i < 64; ++i) data[i] = (uint32_t)i * 2654435761u;
    a = buffer(cs, 256, data); b = buffer(cs, 256, data); v = buffer(cs, 256, data); p = buffer(cs, 256, data);
    memset(&bd, 0, sizeof bd);
    bd.user_op.source = src; bd.user_op.name = name; bd.user_op.identity = identity;
    bd.values_in = bd.values_out = v; bd.permutation = p;
    bd.segment_offsets_host = NULL;
    EXPECT_ERR(clsort_bitonic_sort(cs, a, b, 64, &bd, NULL), code, what);
    if (in_log && !strstr(clsort_last_error(cs), in_log)) printf("  %s: %s\n", what, clsort_last_error(cs));
    check(!in_log || strstr(clsort_last_error(cs), in_log) != NULL, what, 64, in_log ? in_log : "-", 0, 0, 0);
    download(cs, a, 256, back); ok = memcmp(back, data, 256) == 0;
    download(cs, b, 256, back); ok = ok && memcmp(back, data, 256) == 0;
    download(cs, v, 256, back); ok = ok && memcmp(back, data, 256) == 0;
    download(cs, p, 256, back); ok = ok && memcmp(back, data, 256) == 0;
    check(ok, "bitonic bad comparator leaves every buffer untouched", 64, what, 0, 0, 0);
    clReleaseMemObject(a); clReleaseMemObject(b); clReleaseMemObject(v); clReleaseMemObject(p);
}

static void bitonic_bad_comparators(const test_env *e)
{
    clsort_context *cs = e->cs;
    static const char *syntax = "int cmp(uint a, uint b)\n{\n    return a < b\n}\n";
    clsort_bitonic_desc bd;
    clsort_prepare_call call;
    clsort_prepare_desc pd;
    uint32_t hk[5] = {5, 4, 3, 2, 1};
    bitonic_cmp_expect(cs, syntax, "cmp", NULL, CLSORT_ERROR_BUILD, "user_op.source:3:", "bitonic comparator syntax error");
    bitonic_cmp_expect(cs, "int one(uint a) { return 1; }\n", "one", NULL, CLSORT_ERROR_BUILD, "user_op.name:1:",
                       "bitonic comparator wrong signature");
    bitonic_cmp_expect(cs, "", "cmp", NULL, CLSORT_ERROR_INVALID_ARGUMENT, "empty", "bitonic comparator empty source");
    bitonic_cmp_expect(cs, bc_src[BC_DESC], NULL, NULL, CLSORT_ERROR_INVALID_ARGUMENT, "identifier",
                       "bitonic comparator without a name");
    bitonic_cmp_expect(cs, bc_src[BC_DESC], bc_name[BC_DESC], "0u", CLSORT_ERROR_INVALID_ARGUMENT, "identity",
                       "bitonic comparator with an identity");
    memset(&bd, 0, sizeof bd);
    bd.user_op.source = bc_src[BC_DESC]; bd.user_op.name = bc_name[BC_DESC]; bd.user_op.with_index = 1;
    EXPECT_ERR(clsort_bitonic_sort_host(cs, CLSORT_U32, hk, NULL, NULL, 5, &bd), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic_host comparator with with_index");
    check(hk[0] == 5 && hk[4] == 1, "bitonic_host bad comparator leaves the keys", 5, "-", 0, 0, 0);
    memset(&bd, 0, sizeof bd);
    bd.user_op.source = syntax; bd.user_op.name = "cmp";
    memset(&call, 0, sizeof call);
    memset(&pd, 0, sizeof pd);
    call.op = CLSORT_PREPARE_BITONIC; call.bitonic = &bd;
    pd.calls = &call; pd.count = 1;
    EXPECT_ERR(clsort_prepare(cs, &pd), CLSORT_ERROR_BUILD, "clsort_prepare(bitonic) comparator syntax error");
    bd.user_op.source = bc_src[BC_DESC]; bd.user_op.name = bc_name[BC_DESC];
    check(clsort_prepare(cs, &pd) == CLSORT_SUCCESS, "clsort_prepare(bitonic) with a comparator", 0, "-", 0, 0, 0);
}

/* The largest scratch the context will need first (index, values copy). */
static void bitonic_largest_first(const test_env *e)
{
    size_t max_n = e->tiny ? 50000 : e->quick ? 65537 : (size_t)1 << 22;
    test_bitonic_case(e->cs, CLSORT_U64, max_n, S_RANDOM, 1, M_PERM_VAL8, 1, G_DEV, 0);
    test_bitonic_case(e->cs, CLSORT_U32, 50000, S_EXTREMES, 1, M_VAL4, 0, G_DEV, 0);
}

/* Every key type, order, mode and segmentation over the sizes. */
static void bitonic_types(const test_env *e)
{
    static const size_t sizes[] = {4194304, 1048577, 65537, 8193, 4097, 4096, 2049, 2048, 2047, 1025, 1024, 1023,
                                   257, 256, 255, 65, 64, 63, 33, 32, 31, 5, 3, 2, 1, 0};
    size_t s, rot = 0, L;
    int t, d, g;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        size_t n = sizes[s];
        if (n > (e->tiny ? 4097 : e->quick ? 65537 : (size_t)1 << 22)) continue;
        for (t = CLSORT_U32; t < T_WIDE_END; ++t)
            for (d = 0; d < S_COUNT && quick_sample(e, (unsigned)t, 3); ++d) { /* --quick: u32, u64 */
                int mode = (int)(rot % M_COUNT);
                if (d == S_SPECIALS && t != CLSORT_F32 && t != CLSORT_F64) continue;
                if (e->tiny && d != S_RANDOM && d != S_SPECIALS) continue;
                if (n > 70000 && (t != CLSORT_U32 && t != CLSORT_F32)) continue;
                if (n > 70000 && d != S_RANDOM && d != S_SPECIALS) continue;
                if (n > 5000 && t != CLSORT_U32 && t != CLSORT_F32 && t != CLSORT_U64 && d != S_RANDOM) continue;
                ++rot;
                g = (int)(rot % G_COUNT);
                L = bitonic_lens[rot % (sizeof bitonic_lens / sizeof bitonic_lens[0])];
                if (g == G_EQUAL && (n == 0 || n % L != 0)) L = n % 7 == 0 && n ? 7 : n % 3 == 0 && n ? 3 : 1;
                if (n > 1200000) g = d == S_RANDOM ? G_ONE : G_EQUAL, L = 1024;
                test_bitonic_case(e->cs, (clsort_type)t, n, d, (int)(rot / 5 % 2), mode, (int)(rot % 3 == 1), g,
                                  g == G_EQUAL ? L : 0);
            }
    }
}

/* Many short variable segments: work-groups packed up to their segment cap. */
static void bitonic_short_segments(const test_env *e)
{
    size_t L;
    for (L = 2; L <= 40; L = L * 3 + 1) { /* 2, 7, 22 */
        bt_short_max = L;
        test_bitonic_case(e->cs, CLSORT_U32, e->tiny ? 3000 : 30000, S_RANDOM, (int)(L & 1), L == 7 ? M_PERM : M_KEYS, 0,
                          L == 22 ? G_HOST : G_DEV, 0);
        test_bitonic_case(e->cs, CLSORT_F64, e->tiny ? 1000 : 10000, S_SPECIALS, 0, M_VAL4, 1, G_HOST, 0);
    }
    bt_short_max = 0;
}

/* Equal segments of every kind of length, short and long. */
static void bitonic_equal_segments(const test_env *e)
{
    size_t s, L;
    for (s = 0; s < sizeof bitonic_lens / sizeof bitonic_lens[0]; ++s) {
        L = bitonic_lens[s];
        test_bitonic_case(e->cs, CLSORT_U32, L * (e->quick ? 5 : 13), S_RANDOM, (int)(s & 1), (int)(s % M_COUNT), 0,
                          G_EQUAL, L);
        test_bitonic_case(e->cs, CLSORT_F64, L * 3, S_SPECIALS, (int)(~s & 1), M_PERM, (int)(s & 1), G_EQUAL, L);
    }
}

/* A small tile: long segments through every global pass. */
static void bitonic_small_tile(const test_env *e)
{
    clsort_context *t44 = tile_context(e->cs, 4, 4);
    int t;
    if (t44) {
        test_bitonic_case(t44, CLSORT_U32, 20000, S_FEW, 0, M_PERM_VAL8, 0, G_EQUAL, 500);
        if (quick_sample(e, 1, 2)) test_bitonic_case(t44, CLSORT_F32, 20000, S_SPECIALS, 1, M_VAL4, 1, G_DEV, 0);
        if (quick_sample(e, 1, 2)) test_bitonic_case(t44, CLSORT_I64, 20000, S_RANDOM, 0, M_PERM, 0, G_HOST, 0);
        for (t = CLSORT_U32; t < T_WIDE_END; ++t)
            if (quick_sample(e, (unsigned)t, 3))
                test_bitonic_case(t44, (clsort_type)t, 3001, S_RANDOM, t & 1, t % M_COUNT, t == 2, G_ONE, 0);
    }
    clsort_destroy(t44);
}

/* The zero-one check on the device's tile and on tiny tiles (2 x 1, 2 x 2
 * keys), which push every stride through the global passes (fused 1 to 4
 * steps, mirror steps). */
static void bitonic_zero_one(const test_env *e)
{
    clsort_context *t21 = tile_context(e->cs, 2, 1), *t22 = tile_context(e->cs, 2, 2);
    unsigned m;
    for (m = e->tiny ? 6 : e->quick ? 12 : 16; m >= 1; --m) {
        test_bitonic_zero_one(e->cs, m, 1, "device");
        if (m > 12) continue;
        if (t21) test_bitonic_zero_one(t21, m, !e->tiny, "2x1");
        if (t22) test_bitonic_zero_one(t22, m, 0, "2x2");
    }
    clsort_destroy(t21);
    clsort_destroy(t22);
}

static void bitonic_arguments(const test_env *e) { test_bitonic_arguments(e->cs); }

/* Path-independent: on the portable path's context alone. */
static const test_case bitonic_cases[] = {
    {"largest scratch first", bitonic_largest_first, ON_PORTABLE, ANY_SIZE},
    {"types x distributions x segmentations", bitonic_types, ON_PORTABLE, ANY_SIZE},
    {"short variable segments", bitonic_short_segments, ON_PORTABLE, ANY_SIZE},
    {"equal segments", bitonic_equal_segments, ON_PORTABLE, NOT_TINY},
    {"4 x 4 tile", bitonic_small_tile, ON_PORTABLE, NOT_TINY},
    {"zero-one principle", bitonic_zero_one, ON_PORTABLE, ANY_SIZE},
    {"arguments", bitonic_arguments, ON_PORTABLE, ANY_SIZE},
    {"caller's comparator", bitonic_comparators, ON_PORTABLE, ANY_SIZE},
    {"bad comparators", bitonic_bad_comparators, ON_PORTABLE, ANY_SIZE},
};
static const test_part bitonic_part = TEST_PART(bitonic, "clsort_bitonic_sort, clsort_bitonic_sort_host", CTX_SHARED, 39);
