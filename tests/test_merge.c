/* test_clsort, merge: clsort_merge and clsort_merge_host against a plain C
 * merge of the same arrays (each sorted by a stable C sort on the key
 * image, the order clsort_sort documents: -0 before +0, NaNs after +inf),
 * a's keys first on ties: every key type, ascending and descending,
 * distributions random, few distinct, all equal, extremes and float
 * specials, with and without values (which array and index each key came
 * from, so that stability is checked), sizes 0, 1, primes, 2^k +- 1, around
 * the tile (2048 outputs) and large, one side empty, the tail of out
 * untouched; events; clsort_prepare; bad arguments. Included by
 * tests/test_clsort.c (test_top_k.c uses merge_image and merge_fill). */

enum { MD_RANDOM, MD_FEW, MD_EQUAL, MD_EXTREME, MD_SPECIAL, MD_COUNT };
static const char *merge_dist_names[] = {"random", "few-distinct", "all-equal", "extremes", "float-specials"};

/* The key's image as keys.cl makes it (ascending order = the image's). */
static uint64_t merge_image(const unsigned char *key, clsort_type t)
{
    size_t ks = clsort_type_size(t), b;
    uint64_t x = 0, sign = (uint64_t)1 << (8 * ks - 1);
    for (b = 0; b < ks; ++b) x |= (uint64_t)key[b] << (8 * b);
    if (t == CLSORT_I8 || t == CLSORT_I16 || t == CLSORT_I32 || t == CLSORT_I64) return x ^ sign;
    if (t == CLSORT_F32 || t == CLSORT_F64) {
        uint64_t neg_inf = ks == 4 ? 0xff800000ull : 0xfff0000000000000ull;
        uint64_t mask = ks == 4 ? 0xffffffffull : ~0ull;
        if (x & sign) return x > neg_inf ? x : neg_inf - x;
        return (x + (neg_inf - sign + 1)) & mask;
    }
    return x;
}

/* n keys of type t in distribution d (MD_SPECIAL: floats only). */
static void merge_fill(unsigned char *keys, clsort_type t, size_t n, int d)
{
    size_t ks = clsort_type_size(t), i, b;
    for (i = 0; i < n; ++i) {
        uint64_t r = rnd64();
        if (t == CLSORT_F32 || t == CLSORT_F64) {
            double v = (double)(r >> 11) / 9007199254740992.0 * 200.0 - 100.0;
            if (d == MD_FEW) v = (double)(r % 5) - 2.0;
            else if (d == MD_EQUAL) v = -0.0;
            else if (d == MD_EXTREME) v = r % 2 ? 1e300 : -1e300; /* f32: +-inf */
            else if (d == MD_SPECIAL) {
                static const double special[6] = {0.0, -0.0, 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, -2.5};
                v = r % 3 ? special[r % 6] : v;
                if (r % 6 == 4 && (r >> 8) % 2) v = -v; /* a negative NaN too */
            }
            if (t == CLSORT_F32) ((float *)keys)[i] = (float)v;
            else ((double *)keys)[i] = v;
            continue;
        }
        if (d == MD_FEW) r = r % 5 * 0x0101010101010101ull;
        else if (d == MD_EQUAL) r = 0x8081828384858687ull;
        else if (d == MD_EXTREME) r = r % 3 == 0 ? 0 : r % 3 == 1 ? ~0ull : 0x7f7f7f7f7f7f7f7full ^ (r & 1) * ~0ull;
        for (b = 0; b < ks; ++b) keys[i * ks + b] = (unsigned char)(r >> (8 * b));
    }
}

/* A key and where it came from, for the reference's stable sorts. */
typedef struct merge_item {
    uint64_t image;
    uint64_t tag; /* (array << 32) | index */
} merge_item;

static int merge_item_cmp(const void *x, const void *y)
{
    const merge_item *a = (const merge_item *)x, *b = (const merge_item *)y;
    if (a->image != b->image) return a->image < b->image ? -1 : 1;
    return a->tag < b->tag ? -1 : a->tag > b->tag;
}

/* n keys of t in distribution d, sorted (stable, by image, flipped for
 * descending) in place; tags[i] receives (array << 32 | original index). */
static void merge_sorted_input(unsigned char *keys, uint64_t *tags, clsort_type t, size_t n, int d, int desc,
                               uint64_t array)
{
    size_t ks = clsort_type_size(t), i;
    unsigned char *copy = (unsigned char *)malloc(n * ks + 8);
    merge_item *it = (merge_item *)malloc(n * sizeof *it + 1);
    merge_fill(keys, t, n, d);
    memcpy(copy, keys, n * ks);
    for (i = 0; i < n; ++i) {
        it[i].image = merge_image(keys + i * ks, t) ^ (desc ? ~0ull : 0);
        it[i].tag = array << 32 | (uint64_t)i;
    }
    qsort(it, n, sizeof *it, merge_item_cmp);
    for (i = 0; i < n; ++i) {
        memcpy(keys + i * ks, copy + (size_t)(it[i].tag & 0xffffffffu) * ks, ks);
        tags[i] = it[i].tag;
    }
    free(copy);
    free(it);
}

/* A value of vs bytes (4 or 8) naming a tag. */
static uint64_t merge_value(uint64_t tag, size_t vs) { return vs == 4 ? (tag >> 32) << 31 | (tag & 0x7fffffffu) : tag * 3 + 1; }

/* One clsort_merge (device form; host form with `host`) of n + m keys
 * against the C merge: keys, values (stability), out's tail untouched. */
static void test_merge_case(clsort_context *cs, clsort_type t, size_t n, size_t m, int d, int desc, size_t vs, int host)
{
    size_t ks = clsort_type_size(t), i, j, q, total = n + m, bad = (size_t)-1;
    unsigned char *a = (unsigned char *)malloc(n * ks + 8), *b = (unsigned char *)malloc(m * ks + 8);
    unsigned char *out = (unsigned char *)malloc(total * ks + 16), *ref = (unsigned char *)malloc(total * ks + 8);
    uint64_t *ta = (uint64_t *)malloc(n * 8 + 8), *tb = (uint64_t *)malloc(m * 8 + 8);
    uint64_t *rt = (uint64_t *)malloc(total * 8 + 8);
    unsigned char *va = (unsigned char *)malloc(n * 8 + 8), *vb = (unsigned char *)malloc(m * 8 + 8);
    unsigned char *vout = (unsigned char *)malloc(total * 8 + 16);
    clsort_merge_desc md;
    char what[96];
    clsort_result r;
    merge_sorted_input(a, ta, t, n, d, desc, 0);
    merge_sorted_input(b, tb, t, m, d, desc, 1);
    for (i = 0; i < n; ++i) {
        uint64_t v = merge_value(ta[i], vs);
        memcpy(va + i * vs, &v, vs); /* little-endian hosts: the low bytes */
    }
    for (i = 0; i < m; ++i) {
        uint64_t v = merge_value(tb[i], vs);
        memcpy(vb + i * vs, &v, vs);
    }
    /* the reference: a's first on equal images */
    for (i = 0, j = 0, q = 0; q < total; ++q) {
        int take_a = i < n && (j >= m || (merge_image(a + i * ks, t) ^ (desc ? ~0ull : 0)) <=
                                             (merge_image(b + j * ks, t) ^ (desc ? ~0ull : 0)));
        if (take_a) memcpy(ref + q * ks, a + i * ks, ks), rt[q] = ta[i++];
        else memcpy(ref + q * ks, b + j * ks, ks), rt[q] = tb[j++];
    }
    memset(out, 0xa5, total * ks + 16);
    memset(vout, 0xa5, total * 8 + 16);
    memset(&md, 0, sizeof md);
    md.type = t;
    md.descending = desc;
    md.value_size = vs;
    snprintf(what, sizeof what, "merge%s %s %s values %lu m %lu", host ? "_host" : "", clsort__types[t].name,
             desc ? "descending" : "ascending", (unsigned long)vs, (unsigned long)m);
    if (host) {
        r = clsort_merge_host(cs, t, a, vs ? va : NULL, n, b, vs ? vb : NULL, m, out, vs ? vout : NULL, &md);
    } else {
        cl_mem da = buffer(cs, n * ks, a), db = buffer(cs, m * ks, b), dout = buffer(cs, total * ks + 16, out);
        cl_mem dva = NULL, dvb = NULL, dvo = NULL;
        if (vs) {
            md.values_a = dva = buffer(cs, n * vs, va);
            md.values_b = dvb = buffer(cs, m * vs, vb);
            md.values_out = dvo = buffer(cs, total * vs + 16, vout);
        }
        r = clsort_merge(cs, da, n, db, m, dout, &md, NULL);
        download(cs, dout, total * ks + 16, out);
        if (vs) download(cs, dvo, total * vs + 16, vout);
        clReleaseMemObject(da), clReleaseMemObject(db), clReleaseMemObject(dout);
        if (vs) clReleaseMemObject(dva), clReleaseMemObject(dvb), clReleaseMemObject(dvo);
    }
    check(r == CLSORT_SUCCESS, what, total, merge_dist_names[d], 0, 0, r);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    for (q = 0; q < total && bad == (size_t)-1; ++q)
        if (memcmp(out + q * ks, ref + q * ks, ks) != 0) bad = q;
    check(bad == (size_t)-1, what, total, merge_dist_names[d], bad,
          bad < total ? (double)merge_image(ref + bad * ks, t) : 0, bad < total ? (double)merge_image(out + bad * ks, t) : 0);
    if (!host) {
        for (q = total * ks, bad = (size_t)-1; q < total * ks + 16 && bad == (size_t)-1; ++q)
            if (out[q] != 0xa5) bad = q / ks;
        check(bad == (size_t)-1, "merge leaves out's tail", total, merge_dist_names[d], bad, 0xa5, 0);
    }
    if (vs) {
        for (q = 0, bad = (size_t)-1; q < total && bad == (size_t)-1; ++q) {
            uint64_t v = 0, want = merge_value(rt[q], vs);
            memcpy(&v, vout + q * vs, vs);
            if (vs == 4) want &= 0xffffffffu;
            if (v != want) bad = q;
        }
        check(bad == (size_t)-1, "merge values (stable: a's first, each array in order)", total, merge_dist_names[d],
              bad, bad < total ? (double)rt[bad] : 0, 0);
    }
    free(a), free(b), free(out), free(ref), free(ta), free(tb), free(rt), free(va), free(vb), free(vout);
}

/* Whether the device takes f64 keys. */
static int merge_has_fp64(clsort_context *cs)
{
    double a = 1.0, b = 2.0, out[2];
    clsort_merge_desc d;
    memset(&d, 0, sizeof d);
    d.type = CLSORT_F64;
    return clsort_merge_host(cs, CLSORT_F64, &a, NULL, 1, &b, NULL, 1, out, NULL, &d) == CLSORT_SUCCESS &&
           out[0] == 1.0 && out[1] == 2.0;
}

static const clsort_type merge_types[10] = {CLSORT_U8, CLSORT_I8, CLSORT_U16, CLSORT_I16, CLSORT_U32,
                                            CLSORT_I32, CLSORT_F32, CLSORT_U64, CLSORT_I64, CLSORT_F64};

/* Every key type x distribution x order, sizes of a from the size set and
 * of b another of them; values 0, 4, 8 in turn. */
static void merge_types_dists(const test_env *e)
{
    int fp64 = merge_has_fp64(e->cs), ti, d;
    size_t s, round = 0;
    for (s = 0; s < e->nsizes; ++s)
        for (ti = 0; ti < 10; ++ti) {
            clsort_type t = merge_types[ti];
            int is_float = t == CLSORT_F32 || t == CLSORT_F64;
            if (t == CLSORT_F64 && !fp64) continue;
            for (d = 0; d < MD_COUNT; ++d) {
                if (e->quick && d != (int)((s + (size_t)ti) % MD_COUNT)) continue;
                ++round;
                test_merge_case(e->cs, t, e->sizes[s], e->sizes[(s * 7 + 3) % e->nsizes],
                                d == MD_SPECIAL && !is_float ? MD_FEW : d, (int)(round % 2), (round % 3) * 4, 0);
            }
        }
}

/* Around the tile (2048 outputs: 256 x 8), one side empty, and large. */
static void merge_tile_sizes(const test_env *e)
{
    static const size_t sizes[][2] = {{1024, 1024}, {1024, 1025}, {2047, 2}, {2048, 0}, {0, 2049}, {1, 4095},
                                      {6143, 2049}, {4096, 4096}, {12289, 1}, {1, 12289}, {65537, 65521},
                                      {100003, 7}, {150001, 150000}};
    size_t s;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        if (e->tiny && sizes[s][0] + sizes[s][1] > 20000) continue;
        test_merge_case(e->cs, s % 2 ? CLSORT_I32 : CLSORT_F32, sizes[s][0], sizes[s][1],
                        s % 3 == 0 ? MD_FEW : MD_RANDOM, (int)(s % 2), (s % 3) * 4, 0);
    }
    if (!e->quick) test_merge_case(e->cs, CLSORT_U64, (size_t)1 << 20, ((size_t)1 << 20) + 7, MD_RANDOM, 1, 8, 0);
    /* one key type's extremes at a tile edge: all of a before b, and after */
    test_merge_case(e->cs, CLSORT_U32, 2049, 2047, MD_EXTREME, 0, 4, 0);
    test_merge_case(e->cs, CLSORT_I64, 4097, 3000, MD_EQUAL, 1, 8, 0);
}

/* Many small tiles (CLSORT_TILE 4 x 2: 8 outputs a tile), so that tile
 * boundaries fall everywhere in runs of equal keys. */
static void merge_small_tiles(const test_env *e)
{
    clsort_context *cs = tile_context(e->cs, 4, 2);
    if (!cs) return;
    test_merge_case(cs, CLSORT_U32, 1000, 1003, MD_FEW, 0, 4, 0);
    test_merge_case(cs, CLSORT_F32, 777, 2049, MD_SPECIAL, 1, 8, 0);
    test_merge_case(cs, CLSORT_I16, 9, 4000, MD_RANDOM, 0, 0, 0);
    test_merge_case(cs, CLSORT_U64, 4097, 0, MD_EQUAL, 1, 4, 0);
    clsort_destroy(cs);
}

/* The host form, with and without values. */
static void merge_host(const test_env *e)
{
    size_t s;
    for (s = 0; s < e->nsizes; ++s)
        test_merge_case(e->cs, s % 2 ? CLSORT_F32 : CLSORT_U16, e->sizes[s], e->sizes[e->nsizes - 1 - s],
                        s % 2 ? MD_SPECIAL : MD_RANDOM, (int)(s % 2), s % 3 == 2 ? 0 : 8, 1);
}

/* A wait list and a returned event: the merge waits for a user event and
 * its event completes after out is written. */
static void merge_events(const test_env *e)
{
    size_t n = 3000, m = 2500, i;
    uint32_t *a = (uint32_t *)malloc(n * 4), *b = (uint32_t *)malloc(m * 4), *out = (uint32_t *)malloc((n + m) * 4);
    cl_int err;
    cl_event user = clCreateUserEvent(clsort_cl_context(e->cs), &err), done = NULL;
    cl_mem da, db, dout;
    clsort_enqueue enq;
    int ok = 1;
    for (i = 0; i < n; ++i) a[i] = (uint32_t)(2 * i);
    for (i = 0; i < m; ++i) b[i] = (uint32_t)(2 * i + 1);
    da = buffer(e->cs, n * 4, a);
    db = buffer(e->cs, m * 4, b);
    dout = buffer(e->cs, (n + m) * 4, NULL);
    memset(&enq, 0, sizeof enq);
    enq.num_events_in_wait_list = 1;
    enq.event_wait_list = &user;
    enq.event = &done;
    check(err == CL_SUCCESS && clsort_merge(e->cs, da, n, db, m, dout, NULL, &enq) == CLSORT_SUCCESS && done,
          "merge with a wait list and an event", n + m, "interleaved", 0, 0, 0);
    clSetUserEventStatus(user, CL_COMPLETE);
    check(done && clWaitForEvents(1, &done) == CL_SUCCESS, "merge's event completes", n + m, "interleaved", 0, 0, 0);
    download(e->cs, dout, (n + m) * 4, out);
    /* interleaved 0 .. 2m-1, then a's evens 2m, 2m+2, ... */
    for (i = 0; i < n + m; ++i) ok &= out[i] == (i < 2 * m ? (uint32_t)i : (uint32_t)(2 * (i - m)));
    check(ok, "merge output after the event", n + m, "interleaved", 0, 0, 0);
    if (done) clReleaseEvent(done);
    clReleaseEvent(user);
    clReleaseMemObject(da), clReleaseMemObject(db), clReleaseMemObject(dout);
    free(a), free(b), free(out);
}

/* clsort_prepare builds every program a call takes: the call builds none. */
static void merge_prepare(const test_env *e)
{
    clsort_tuning none;
    clsort_context *cs;
    clsort_prepare_call call;
    clsort_prepare_desc pd;
    clsort_merge_desc d;
    clsort_cache_stats before, after;
    int16_t a[300], b[200], out[500];
    uint64_t va[300], vb[200], vo[500];
    size_t i;
    memset(&none, 0, sizeof none);
    cs = tuned_context(e->cs, &none, "context for merge prepare");
    if (!cs) return;
    for (i = 0; i < 300; ++i) a[i] = (int16_t)(i * 3 - 400), va[i] = i;
    for (i = 0; i < 200; ++i) b[i] = (int16_t)(i * 5 - 300), vb[i] = i;
    memset(&d, 0, sizeof d);
    d.type = CLSORT_I16;
    d.value_size = 8;
    d.values_a = d.values_b = d.values_out = CLSORT_PREPARE_PRESENT;
    memset(&call, 0, sizeof call);
    call.op = CLSORT_PREPARE_MERGE;
    call.merge = &d;
    memset(&pd, 0, sizeof pd);
    pd.calls = &call;
    pd.count = 1;
    check(clsort_prepare(cs, &pd) == CLSORT_SUCCESS, "clsort_prepare(merge)", 500, "-", 0, 0, 0);
    clsort_cache_stats_get(cs, &before);
    check(clsort_merge_host(cs, CLSORT_I16, a, va, 300, b, vb, 200, out, vo, &d) == CLSORT_SUCCESS,
          "merge after prepare", 500, "-", 0, 0, 0);
    clsort_cache_stats_get(cs, &after);
    check(after.builds == before.builds, "merge after prepare builds no program", 500, "-", 0, (double)before.builds,
          (double)after.builds);
    clsort_destroy(cs);
}

/* Refusals: a code, a message, nothing written. */
static void merge_arguments(const test_env *e)
{
    clsort_context *cs = e->cs;
    uint32_t a[64], out[128], sentinel = 0x5a5a5a5au;
    size_t i;
    cl_mem da, dout, ro, dc;
    clsort_merge_desc d;
    clsort_enqueue q;
    cl_int err;
    for (i = 0; i < 64; ++i) a[i] = (uint32_t)i;
    for (i = 0; i < 128; ++i) out[i] = sentinel;
    da = buffer(cs, sizeof a, a);
    dout = buffer(cs, sizeof out, out);
    dc = buffer(cs, 4, NULL);
    ro = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_ONLY, sizeof out, NULL, &err);
    memset(&d, 0, sizeof d);
    check(clsort_merge(NULL, da, 64, da, 64, dout, &d, NULL) == CLSORT_ERROR_INVALID_ARGUMENT, "merge: NULL context", 0,
          "bad-argument", 0, 0, 0);
    d.type = (clsort_type)99;
    EXPECT_ERR(clsort_merge(cs, da, 64, da, 64, dout, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "merge: unknown type");
    d.type = CLSORT_U32;
    EXPECT_ERR(clsort_merge(cs, da, 65, da, 63, dout, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "merge: n past a");
    EXPECT_ERR(clsort_merge(cs, da, 64, da, 65, dout, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "merge: out too small");
    EXPECT_ERR(clsort_merge(cs, da, 32, dout, 32, dout, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "merge: out is b");
    if (err == CL_SUCCESS)
        EXPECT_ERR(clsort_merge(cs, da, 32, da, 32, ro, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "merge: read-only out");
    EXPECT_ERR(clsort_merge(cs, da, (size_t)0x80000000u, da, (size_t)0x80000000u, dout, &d, NULL),
               CLSORT_ERROR_INVALID_ARGUMENT, "merge: n + m >= 2^32");
    EXPECT_ERR(clsort_merge(cs, da, 0, NULL, 1, dout, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "merge: NULL b");
    d.values_a = da;
    EXPECT_ERR(clsort_merge(cs, da, 8, da, 8, dout, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "merge: values_a without values_b and values_out");
    d.values_b = da;
    d.values_out = dout;
    EXPECT_ERR(clsort_merge(cs, da, 8, da, 8, dout, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "merge: values_out is out");
    d.value_size = 2;
    EXPECT_ERR(clsort_merge(cs, da, 8, da, 8, dout, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "merge: value_size 2");
    d.values_a = d.values_b = d.values_out = NULL;
    d.value_size = 0;
    memset(&q, 0, sizeof q);
    q.count = dc;
    EXPECT_ERR(clsort_merge(cs, da, 8, da, 8, dout, &d, &q), CLSORT_ERROR_INVALID_ARGUMENT, "merge: a device count");
    EXPECT_ERR(clsort_merge_host(cs, CLSORT_U32, a, a, 8, a, NULL, 8, out, out, &d), CLSORT_ERROR_INVALID_ARGUMENT,
               "merge_host: values of a alone");
    d.type = CLSORT_I32;
    EXPECT_ERR(clsort_merge_host(cs, CLSORT_F32, a, NULL, 8, a, NULL, 8, out, NULL, &d), CLSORT_ERROR_INVALID_ARGUMENT,
               "merge_host: desc.type i32, argument f32");
    download(cs, dout, sizeof out, out);
    for (i = 0; i < 128 && out[i] == sentinel; ++i) {}
    check(i == 128, "merge refusals write nothing", 128, "bad-argument", i, sentinel, i < 128 ? out[i] : 0);
    clReleaseMemObject(da), clReleaseMemObject(dout), clReleaseMemObject(dc);
    if (err == CL_SUCCESS) clReleaseMemObject(ro);
}

static const test_case merge_cases[] = {
    {"key types x distributions x orders", merge_types_dists, ON_PORTABLE, ANY_SIZE},
    {"sizes around the tiles", merge_tile_sizes, ON_PORTABLE, ANY_SIZE},
    {"small tiles (CLSORT_TILE 4 x 2)", merge_small_tiles, ON_PORTABLE, NOT_TINY},
    {"host form", merge_host, ON_PORTABLE, ANY_SIZE},
    {"events", merge_events, ON_PORTABLE, NOT_TINY},
    {"prepare", merge_prepare, ON_PORTABLE, NOT_TINY},
    {"bad arguments", merge_arguments, ON_PORTABLE, NOT_TINY},
};
static const test_part merge_part = TEST_PART(merge, "clsort_merge", CTX_SHARED, 6);
