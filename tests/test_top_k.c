/* test_clsort, top_k: clsort_top_k and clsort_top_k_host against a plain C
 * reference: a stable qsort of (key image, index) (the order clsort_sort
 * documents, flipped for the largest) whose first k are the answer, so the
 * k-th order statistic and the ties at it (the earliest indices) are both
 * checked. Unsorted, the output is those keys in input order, exactly (a
 * stronger check than the multiset); sorted, the first k of the stable sort,
 * exactly. Every key type, smallest and largest, k = 0, 1, at a run of equal
 * keys, n; distributions random, few distinct, all equal, extremes, float
 * specials (merge_fill, test_merge.c); values (the input index: which of the
 * equal keys came) 0, 4, 8 bytes; sizes of the size set, around the tiles
 * and large; the tail of keys_out untouched; events; clsort_prepare; bad
 * arguments. Included by tests/test_clsort.c after test_merge.c. */

/* The reference's items: the image (flipped for the largest) and index. */
static int top_k_item_cmp(const void *x, const void *y) { return merge_item_cmp(x, y); }

static int top_k_index_cmp(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* One clsort_top_k (device form; host form with `host`) of n keys of t in
 * distribution d against the reference. */
static void test_top_k_case(clsort_context *cs, clsort_type t, size_t n, size_t k, int d, int desc, int sorted,
                            size_t vs, int host)
{
    size_t ks = clsort_type_size(t), i, bad = (size_t)-1;
    unsigned char *keys = (unsigned char *)malloc(n * ks + 8), *out = (unsigned char *)malloc(k * ks + 16);
    unsigned char *vals = (unsigned char *)malloc(n * 8 + 8), *vout = (unsigned char *)malloc(k * 8 + 16);
    merge_item *it = (merge_item *)malloc(n * sizeof *it + 1);
    uint64_t *want = (uint64_t *)malloc(k * 8 + 8); /* the indices, in output order */
    clsort_top_k_desc td;
    char what[112];
    clsort_result r;
    merge_fill(keys, t, n, d);
    for (i = 0; i < n; ++i) {
        uint64_t v = vs == 4 ? (uint64_t)i : (uint64_t)i << 32 | (uint64_t)(n - i);
        memcpy(vals + i * 8, &v, 8);
        it[i].image = merge_image(keys + i * ks, t) ^ (desc ? ~0ull : 0);
        it[i].tag = i;
    }
    if (vs == 4)
        for (i = 0; i < n; ++i) memcpy(vals + i * 4, vals + i * 8, 4); /* packed 4-byte values */
    qsort(it, n, sizeof *it, top_k_item_cmp);
    for (i = 0; i < k; ++i) want[i] = it[i].tag;
    if (!sorted) qsort(want, k, 8, top_k_index_cmp);
    memset(out, 0xa5, k * ks + 16);
    memset(vout, 0xa5, k * 8 + 16);
    memset(&td, 0, sizeof td);
    td.type = t;
    td.k = k;
    td.descending = desc;
    td.sorted = sorted;
    td.value_size = vs;
    snprintf(what, sizeof what, "top_k%s %s %s k %lu %s values %lu", host ? "_host" : "", clsort__types[t].name,
             desc ? "largest" : "smallest", (unsigned long)k, sorted ? "sorted" : "unsorted", (unsigned long)vs);
    if (host) {
        r = clsort_top_k_host(cs, t, keys, vs ? vals : NULL, n, out, vs ? vout : NULL, &td);
    } else {
        cl_mem dk = buffer(cs, n * ks, keys), dko = buffer(cs, k * ks + 16, out), dv = NULL, dvo = NULL;
        if (vs) {
            td.values_in = dv = buffer(cs, n * vs, vals);
            td.values_out = dvo = buffer(cs, k * vs + 16, vout);
        }
        r = clsort_top_k(cs, dk, dko, n, &td, NULL);
        download(cs, dko, k * ks + 16, out);
        if (vs) download(cs, dvo, k * vs + 16, vout);
        clReleaseMemObject(dk), clReleaseMemObject(dko);
        if (vs) clReleaseMemObject(dv), clReleaseMemObject(dvo);
    }
    check(r == CLSORT_SUCCESS, what, n, merge_dist_names[d], 0, 0, r);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    for (i = 0; i < k && bad == (size_t)-1; ++i)
        if (memcmp(out + i * ks, keys + (size_t)want[i] * ks, ks) != 0) bad = i;
    check(bad == (size_t)-1, what, n, merge_dist_names[d], bad,
          bad < k ? (double)merge_image(keys + (size_t)want[bad] * ks, t) : 0,
          bad < k ? (double)merge_image(out + bad * ks, t) : 0);
    if (!host) {
        for (i = k * ks, bad = (size_t)-1; i < k * ks + 16 && bad == (size_t)-1; ++i)
            if (out[i] != 0xa5) bad = i / ks;
        check(bad == (size_t)-1, "top_k leaves keys_out past k", n, merge_dist_names[d], bad, 0xa5, 0);
    }
    if (vs) {
        for (i = 0, bad = (size_t)-1; i < k && bad == (size_t)-1; ++i)
            if (memcmp(vout + i * vs, vals + (size_t)want[i] * vs, vs) != 0) bad = i;
        check(bad == (size_t)-1, "top_k values (ties: the earliest indices)", n, merge_dist_names[d], bad,
              bad < k ? (double)want[bad] : 0, 0);
    }
    free(keys), free(out), free(vals), free(vout), free(it), free(want);
}

static const clsort_type top_k_types[10] = {CLSORT_U8, CLSORT_I8, CLSORT_U16, CLSORT_I16, CLSORT_U32,
                                            CLSORT_I32, CLSORT_F32, CLSORT_U64, CLSORT_I64, CLSORT_F64};

/* Every key type x distribution x k (0, 1, a third, n - 1, n), smallest and
 * largest, sorted or not, values 0, 4, 8 in turn. */
static void top_k_types_dists(const test_env *e)
{
    int fp64 = merge_has_fp64(e->cs), ti, d;
    size_t s, round = 0;
    for (s = 0; s < e->nsizes; ++s)
        for (ti = 0; ti < 10; ++ti) {
            clsort_type t = top_k_types[ti];
            int is_float = t == CLSORT_F32 || t == CLSORT_F64;
            size_t n = e->sizes[s];
            if (t == CLSORT_F64 && !fp64) continue;
            for (d = 0; d < MD_COUNT; ++d) {
                size_t ks[5], j;
                if (e->quick && d != (int)((s + (size_t)ti) % MD_COUNT)) continue;
                ks[0] = 0, ks[1] = n ? 1 : 0, ks[2] = n / 3, ks[3] = n ? n - 1 : 0, ks[4] = n;
                for (j = 0; j < 5; ++j) {
                    if (e->quick && j != (round % 5) && j != 2) continue;
                    ++round;
                    test_top_k_case(e->cs, t, n, ks[j], d == MD_SPECIAL && !is_float ? MD_FEW : d, (int)(round % 2),
                                    (int)(round / 2 % 2), (round % 3) * 4, 0);
                }
            }
        }
}

/* Around the tiles (4096 keys: 256 x 16), large n with the bench's k, k
 * inside a run of equal keys. */
static void top_k_sizes(const test_env *e)
{
    static const size_t sizes[][2] = {{4095, 100}, {4096, 4096}, {4097, 2049}, {8191, 1}, {8193, 8192},
                                      {12289, 6000}, {65537, 65536}, {100003, 100}, {262147, 65536},
                                      {300007, 100}};
    size_t s;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        if (e->tiny && sizes[s][0] > 20000) continue;
        test_top_k_case(e->cs, s % 2 ? CLSORT_U32 : CLSORT_F32, sizes[s][0], sizes[s][1],
                        s % 3 == 0 ? MD_FEW : MD_RANDOM, (int)(s % 2), (int)(s / 2 % 2), (s % 3) * 4, 0);
    }
    test_top_k_case(e->cs, CLSORT_I64, 20011, 7000, MD_FEW, 0, 0, 8, 0); /* the threshold inside a run of equal keys */
    test_top_k_case(e->cs, CLSORT_U16, 20011, 10000, MD_EQUAL, 1, 1, 4, 0);
    test_top_k_case(e->cs, merge_has_fp64(e->cs) ? CLSORT_F64 : CLSORT_F32, 30011, 15000,
                    MD_SPECIAL, 1, 0, 4, 0);
    if (!e->quick) test_top_k_case(e->cs, CLSORT_U32, (size_t)1 << 22, (size_t)1 << 20, MD_RANDOM, 1, 1, 4, 0);
}

/* Many small tiles (CLSORT_TILE 4 x 2: 8 keys a tile), so that the
 * offsets kernel walks many chunks of tiles and the threshold's equal keys
 * spread over many tiles. */
static void top_k_small_tiles(const test_env *e)
{
    clsort_context *cs = tile_context(e->cs, 4, 2);
    if (!cs) return;
    test_top_k_case(cs, CLSORT_U32, 5003, 2500, MD_FEW, 0, 0, 4, 0);
    test_top_k_case(cs, CLSORT_F32, 3001, 17, MD_SPECIAL, 1, 1, 8, 0);
    test_top_k_case(cs, CLSORT_I8, 4099, 4000, MD_RANDOM, 1, 0, 0, 0);
    test_top_k_case(cs, CLSORT_U64, 2053, 1000, MD_EQUAL, 0, 1, 4, 0);
    clsort_destroy(cs);
}

/* The host form, with and without values. */
static void top_k_host(const test_env *e)
{
    size_t s;
    for (s = 0; s < e->nsizes; ++s)
        test_top_k_case(e->cs, s % 2 ? CLSORT_F32 : CLSORT_I8, e->sizes[s], e->sizes[s] / 2,
                        s % 2 ? MD_SPECIAL : MD_FEW, (int)(s % 2), (int)(s / 2 % 2), s % 3 == 2 ? 0 : 8, 1);
}

/* A wait list and a returned event, sorted (the event is the sort's). */
static void top_k_events(const test_env *e)
{
    size_t n = 5000, k = 300, i;
    uint32_t *keys = (uint32_t *)malloc(n * 4), *out = (uint32_t *)malloc(k * 4);
    cl_int err;
    cl_event user = clCreateUserEvent(clsort_cl_context(e->cs), &err), done = NULL;
    cl_mem dk, dko;
    clsort_top_k_desc d;
    clsort_enqueue enq;
    int ok = 1;
    for (i = 0; i < n; ++i) keys[i] = (uint32_t)((i * 2654435761u) % n); /* a permutation of 0 .. n-1 */
    dk = buffer(e->cs, n * 4, keys);
    dko = buffer(e->cs, k * 4, NULL);
    memset(&d, 0, sizeof d);
    d.k = k;
    d.descending = 1;
    d.sorted = 1;
    memset(&enq, 0, sizeof enq);
    enq.num_events_in_wait_list = 1;
    enq.event_wait_list = &user;
    enq.event = &done;
    check(err == CL_SUCCESS && clsort_top_k(e->cs, dk, dko, n, &d, &enq) == CLSORT_SUCCESS && done,
          "top_k with a wait list and an event", n, "permutation", 0, 0, 0);
    clSetUserEventStatus(user, CL_COMPLETE);
    check(done && clWaitForEvents(1, &done) == CL_SUCCESS, "top_k's event completes", n, "permutation", 0, 0, 0);
    download(e->cs, dko, k * 4, out);
    for (i = 0; i < k; ++i) ok &= out[i] == (uint32_t)(n - 1 - i);
    check(ok, "top_k (largest, sorted) after the event", n, "permutation", 0, 0, 0);
    if (done) clReleaseEvent(done);
    clReleaseEvent(user);
    clReleaseMemObject(dk), clReleaseMemObject(dko);
    free(keys), free(out);
}

/* clsort_prepare builds every program a call takes (the sort's of k with
 * desc.sorted): the call builds none. */
static void top_k_prepare(const test_env *e)
{
    clsort_tuning none;
    clsort_context *cs;
    clsort_prepare_call call;
    clsort_prepare_desc pd;
    clsort_top_k_desc d;
    clsort_cache_stats before, after;
    float keys[3000], out[700];
    uint32_t vals[3000], vout[700];
    size_t i;
    memset(&none, 0, sizeof none);
    cs = tuned_context(e->cs, &none, "context for top_k prepare");
    if (!cs) return;
    for (i = 0; i < 3000; ++i) keys[i] = (float)(rnd64() % 1000) - 500.0f, vals[i] = (uint32_t)i;
    memset(&d, 0, sizeof d);
    d.type = CLSORT_F32;
    d.k = 700;
    d.sorted = 1;
    d.values_in = d.values_out = CLSORT_PREPARE_PRESENT;
    memset(&call, 0, sizeof call);
    call.op = CLSORT_PREPARE_TOP_K;
    call.n = 3000;
    call.top_k = &d;
    memset(&pd, 0, sizeof pd);
    pd.calls = &call;
    pd.count = 1;
    check(clsort_prepare(cs, &pd) == CLSORT_SUCCESS, "clsort_prepare(top_k)", 3000, "-", 0, 0, 0);
    clsort_cache_stats_get(cs, &before);
    check(clsort_top_k_host(cs, CLSORT_F32, keys, vals, 3000, out, vout, &d) == CLSORT_SUCCESS, "top_k after prepare",
          3000, "-", 0, 0, 0);
    clsort_cache_stats_get(cs, &after);
    check(after.builds == before.builds, "top_k after prepare builds no program", 3000, "-", 0, (double)before.builds,
          (double)after.builds);
    clsort_destroy(cs);
}

/* Refusals: a code, a message, nothing written. */
static void top_k_arguments(const test_env *e)
{
    clsort_context *cs = e->cs;
    uint32_t keys[64], out[64], sentinel = 0x5a5a5a5au;
    size_t i;
    cl_mem dk, dko, ro, dc;
    clsort_top_k_desc d;
    clsort_enqueue q;
    cl_int err;
    for (i = 0; i < 64; ++i) keys[i] = (uint32_t)(64 - i), out[i] = sentinel;
    dk = buffer(cs, sizeof keys, keys);
    dko = buffer(cs, sizeof out, out);
    dc = buffer(cs, 4, NULL);
    ro = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_ONLY, sizeof out, NULL, &err);
    memset(&d, 0, sizeof d);
    d.k = 10;
    check(clsort_top_k(NULL, dk, dko, 64, &d, NULL) == CLSORT_ERROR_INVALID_ARGUMENT, "top_k: NULL context", 0,
          "bad-argument", 0, 0, 0);
    EXPECT_ERR(clsort_top_k(cs, dk, dko, 64, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "top_k: NULL desc");
    d.type = (clsort_type)99;
    EXPECT_ERR(clsort_top_k(cs, dk, dko, 64, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "top_k: unknown type");
    d.type = CLSORT_U32;
    d.k = 65;
    EXPECT_ERR(clsort_top_k(cs, dk, dko, 64, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "top_k: k > n");
    d.k = 10;
    EXPECT_ERR(clsort_top_k(cs, dk, dko, 65, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "top_k: n past keys_in");
    EXPECT_ERR(clsort_top_k(cs, dk, dk, 64, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "top_k: in place");
    if (err == CL_SUCCESS)
        EXPECT_ERR(clsort_top_k(cs, dk, ro, 64, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "top_k: read-only keys_out");
    EXPECT_ERR(clsort_top_k(cs, dk, dko, (size_t)0x100000000ull, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "top_k: n >= 2^32");
    d.values_in = dk;
    EXPECT_ERR(clsort_top_k(cs, dk, dko, 64, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "top_k: values_in without values_out");
    d.values_out = dko;
    EXPECT_ERR(clsort_top_k(cs, dk, dko, 64, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "top_k: values_out is keys_out");
    d.values_in = d.values_out = NULL;
    memset(&q, 0, sizeof q);
    q.count = dc;
    EXPECT_ERR(clsort_top_k(cs, dk, dko, 64, &d, &q), CLSORT_ERROR_INVALID_ARGUMENT, "top_k: a device count");
    EXPECT_ERR(clsort_top_k_host(cs, CLSORT_U32, keys, keys, 64, out, NULL, &d), CLSORT_ERROR_INVALID_ARGUMENT,
               "top_k_host: values without values_out");
    d.type = CLSORT_I32;
    EXPECT_ERR(clsort_top_k_host(cs, CLSORT_F32, keys, NULL, 64, out, NULL, &d), CLSORT_ERROR_INVALID_ARGUMENT,
               "top_k_host: desc.type i32, argument f32");
    download(cs, dko, sizeof out, out);
    for (i = 0; i < 64 && out[i] == sentinel; ++i) {}
    check(i == 64, "top_k refusals write nothing", 64, "bad-argument", i, sentinel, i < 64 ? out[i] : 0);
    clReleaseMemObject(dk), clReleaseMemObject(dko), clReleaseMemObject(dc);
    if (err == CL_SUCCESS) clReleaseMemObject(ro);
}

static const test_case top_k_cases[] = {
    {"key types x distributions x k", top_k_types_dists, ON_PORTABLE, ANY_SIZE},
    {"sizes around the tiles, large, ties", top_k_sizes, ON_BOTH, ANY_SIZE}, /* sorted: the sort on either path */
    {"small tiles (CLSORT_TILE 4 x 2)", top_k_small_tiles, ON_PORTABLE, NOT_TINY},
    {"host form", top_k_host, ON_PORTABLE, ANY_SIZE},
    {"events", top_k_events, ON_PORTABLE, NOT_TINY},
    {"prepare", top_k_prepare, ON_PORTABLE, NOT_TINY},
    {"bad arguments", top_k_arguments, ON_PORTABLE, NOT_TINY},
};
static const test_part top_k_part = TEST_PART(top_k, "clsort_top_k", CTX_SHARED, 8);
