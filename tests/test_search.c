/* test_clsort, search: clsort_lower_bound / clsort_upper_bound and their
 * host forms against a plain C binary search with a plain C comparison of
 * the key type (floats: numbers first, -0 before +0, then the NaNs with the
 * sign bit clear, then those with it set, each by bit pattern: clsort_sort's
 * order): every key type x bound x order x distribution (random, all equal,
 * few distinct, the type's extremes, float specials), needles drawn from the
 * keys, between them, below and above all of them; arbitrary and sorted
 * needles (merge path and, for needles far fewer than keys, the binary
 * search), uint32 and uint64 results; sizes 0, 1, primes, 2^k +- 1, around
 * the tiles and the sample; the GPU shape on any device; device counts;
 * events; clsort_prepare; bad arguments. Included by tests/test_clsort.c. */

enum { SR_RANDOM, SR_EQUAL, SR_FEW, SR_EXTREMES, SR_SPECIAL, SR_COUNT };
static const char *search_dist_names[] = {"random", "all-equal", "few-distinct", "extremes", "float-specials"};

/* Float classes of the order: numbers (0), NaNs with the sign clear (1), with it set (2). */
static int search_fclass(int nan, int sign) { return nan ? 1 + sign : 0; }

#define SEARCH_CMP_INT(T) \
    do { T x_ = *(const T *)a, y_ = *(const T *)b; return (x_ > y_) - (x_ < y_); } while (0)

/* -1, 0, 1: key a before, equal to, after key b in type t's ascending order. */
static int search_cmp(const void *a, const void *b, clsort_type t)
{
    switch (t) {
    case CLSORT_U8: SEARCH_CMP_INT(uint8_t);
    case CLSORT_I8: SEARCH_CMP_INT(int8_t);
    case CLSORT_U16: SEARCH_CMP_INT(uint16_t);
    case CLSORT_I16: SEARCH_CMP_INT(int16_t);
    case CLSORT_U32: SEARCH_CMP_INT(uint32_t);
    case CLSORT_I32: SEARCH_CMP_INT(int32_t);
    case CLSORT_U64: SEARCH_CMP_INT(uint64_t);
    case CLSORT_I64: SEARCH_CMP_INT(int64_t);
    case CLSORT_F32: {
        float x = *(const float *)a, y = *(const float *)b;
        uint32_t bx, by;
        int cx, cy;
        memcpy(&bx, &x, 4), memcpy(&by, &y, 4);
        cx = search_fclass(x != x, (int)(bx >> 31)), cy = search_fclass(y != y, (int)(by >> 31));
        if (cx != cy) return cx < cy ? -1 : 1;
        if (cx) return (bx > by) - (bx < by);
        if (x != y) return x < y ? -1 : 1;
        return (int)(by >> 31) - (int)(bx >> 31); /* -0 before +0 */
    }
    default: {
        double x = *(const double *)a, y = *(const double *)b;
        uint64_t bx, by;
        int cx, cy;
        memcpy(&bx, &x, 8), memcpy(&by, &y, 8);
        cx = search_fclass(x != x, (int)(bx >> 63)), cy = search_fclass(y != y, (int)(by >> 63));
        if (cx != cy) return cx < cy ? -1 : 1;
        if (cx) return (bx > by) - (bx < by);
        if (x != y) return x < y ? -1 : 1;
        return (int)(by >> 63) - (int)(bx >> 63);
    }
    }
}

static clsort_type search_sort_type;
static int search_sort_desc;
static int search_qsort_cmp(const void *a, const void *b)
{
    int c = search_cmp(a, b, search_sort_type);
    return search_sort_desc ? -c : c;
}

static void search_sort(void *keys, size_t n, clsort_type t, int descending)
{
    search_sort_type = t, search_sort_desc = descending;
    if (n > 1) qsort(keys, n, clsort_type_size(t), search_qsort_cmp);
}

/* One key of type t at p from distribution d. */
static void search_key(unsigned char *p, clsort_type t, int d, uint64_t few_seed)
{
    size_t ks = clsort_type_size(t);
    uint64_t r = rnd64();
    if (d == SR_EQUAL) r = 0x4142434445464748ull;
    if (d == SR_FEW) r = (r % 5) * 0x0123456789abcdefull + few_seed;
    if (d == SR_EXTREMES) { /* the type's least and greatest values and their neighbours */
        static const uint64_t ext[6] = {0, 1, ~0ull, ~0ull - 1, 0x8000000000000000ull, 0x7fffffffffffffffull};
        r = ext[r % 6];
        if (ks < 8) { /* the sign bit of the narrower types */
            uint64_t sb = 1ull << (ks * 8 - 1);
            if (r == 0x8000000000000000ull) r = sb;
            else if (r == 0x7fffffffffffffffull) r = sb - 1;
        }
    }
    if (t == CLSORT_F32 || t == CLSORT_F64) {
        double v = (double)(int64_t)(r % 2001) / 8.0 - 125.0;
        if (d == SR_SPECIAL || d == SR_EXTREMES) {
            static const double sp[8] = {0.0, -0.0, 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, -2.5, 3.4e38, -1e-30};
            v = sp[rnd64() % 8];
        }
        if (d == SR_EQUAL) v = 1.5;
        if (t == CLSORT_F32) {
            float f = (float)v;
            uint32_t b;
            memcpy(&b, &f, 4);
            if (v != v) b = (uint32_t)(0x7fc00000u | (rnd64() & 0x3fffff) | (rnd64() & 1 ? 0x80000000u : 0)); /* NaNs of both signs */
            memcpy(p, &b, 4);
        } else {
            uint64_t b;
            memcpy(&b, &v, 8);
            if (v != v) b = 0x7ff8000000000000ull | (rnd64() & 0xfffff) | (rnd64() & 1 ? 0x8000000000000000ull : 0);
            memcpy(p, &b, 8);
        }
        return;
    }
    memcpy(p, &r, ks); /* little-endian: the low bytes */
}

/* The reference: std::lower_bound / upper_bound by search_cmp. */
static uint64_t search_ref(const unsigned char *hay, size_t n, const unsigned char *x, clsort_type t, int desc,
                           int upper)
{
    size_t ks = clsort_type_size(t), lo = 0, len = n;
    while (len > 0) {
        size_t half = len / 2;
        int c = search_cmp(hay + (lo + half) * ks, x, t);
        if (desc) c = -c;
        if (upper ? c <= 0 : c < 0) lo += half + 1, len -= half + 1;
        else len = half;
    }
    return lo;
}

/* Needles: keys of the haystack, keys between (fresh draws), the type's
 * extremes (below and above every key), in that mix. */
static void search_needles(unsigned char *nd, size_t m, const unsigned char *hay, size_t n, clsort_type t, int d,
                           uint64_t few_seed)
{
    size_t ks = clsort_type_size(t), j;
    for (j = 0; j < m; ++j) {
        unsigned w = (unsigned)(rnd64() % 8);
        if (w < 3 && n > 0) memcpy(nd + j * ks, hay + (size_t)(rnd64() % n) * ks, ks);
        else if (w == 3) search_key(nd + j * ks, t, SR_EXTREMES, few_seed);
        else search_key(nd + j * ks, t, w == 4 ? SR_RANDOM : d, few_seed);
    }
}

/* One call against the reference: n keys, m needles, the given desc
 * (sorted_needles: the needles are sorted first). 0 when it failed. */
static int search_case(clsort_context *cs, size_t n, size_t m, int d, const clsort_search_desc *desc, int upper,
                       int host)
{
    clsort_type t = desc->type;
    size_t ks = clsort_type_size(t), is = desc->index_size ? desc->index_size : 4, j, bad = m;
    unsigned char *hay = (unsigned char *)malloc(n * ks + 1), *nd = (unsigned char *)malloc(m * ks + 1);
    unsigned char *out = (unsigned char *)malloc(m * is + 8);
    uint64_t few = rnd64(), want = 0, got = 0;
    char what[160];
    clsort_result r;
    for (j = 0; j < n; ++j) search_key(hay + j * ks, t, d, few);
    search_sort(hay, n, t, desc->descending);
    search_needles(nd, m, hay, n, t, d, few);
    if (desc->sorted_needles) search_sort(nd, m, t, desc->descending);
    memset(out, 0xa5, m * is + 8);
    if (host) {
        r = upper ? clsort_upper_bound_host(cs, t, hay, n, nd, m, out, desc)
                  : clsort_lower_bound_host(cs, t, hay, n, nd, m, out, desc);
    } else {
        cl_mem dh = buffer(cs, n * ks, hay), dn = buffer(cs, m * ks, nd), di = buffer(cs, m * is + 8, out);
        r = upper ? clsort_upper_bound(cs, dh, n, dn, m, di, desc, NULL) : clsort_lower_bound(cs, dh, n, dn, m, di, desc, NULL);
        download(cs, di, m * is + 8, out);
        clReleaseMemObject(dh), clReleaseMemObject(dn), clReleaseMemObject(di);
    }
    for (j = 0; j < m && r == CLSORT_SUCCESS; ++j) {
        uint64_t g = 0;
        memcpy(&g, out + j * is, is);
        want = search_ref(hay, n, nd + j * ks, t, desc->descending, upper);
        if (g != want) { bad = j, got = g; break; }
    }
    if (r == CLSORT_SUCCESS && bad == m) { /* nothing past the m results */
        for (j = m * is; j < m * is + (host ? 0 : 8); ++j)
            if (out[j] != 0xa5) bad = m, want = 0xa5, got = out[j], r = CLSORT_ERROR_OPENCL;
    }
    snprintf(what, sizeof what, "%s%s %s %s%s%s idx%u m=%lu", upper ? "upper_bound" : "lower_bound", host ? "_host" : "",
             clsort__types[t].name, desc->descending ? "descending" : "ascending",
             desc->sorted_needles ? " sorted-needles" : "", r != CLSORT_SUCCESS && bad == m ? " (call failed)" : "",
             (unsigned)is, (unsigned long)m);
    if (r != CLSORT_SUCCESS && bad == m) printf("  %s\n", clsort_last_error(cs));
    check(r == CLSORT_SUCCESS && bad == m, what, n, search_dist_names[d], bad, (double)want, (double)got);
    free(hay), free(nd), free(out);
    return r == CLSORT_SUCCESS && bad == m;
}

static const clsort_type search_types[10] = {CLSORT_U8,  CLSORT_I8,  CLSORT_U16, CLSORT_I16, CLSORT_U32,
                                             CLSORT_I32, CLSORT_F32, CLSORT_U64, CLSORT_I64, CLSORT_F64};

/* Every type x bound x order x distribution, both forms; uint64 results on
 * every other variant (all of them in --full). */
static void search_types_orders(const test_env *e)
{
    size_t ti, k = 0;
    for (ti = 0; ti < 10; ++ti) {
        clsort_type t = search_types[ti];
        int d, upper, desc, sorted;
        for (sorted = 0; sorted < 2; ++sorted) {
            for (d = 0; d < SR_COUNT; ++d) {
                int isf = t == CLSORT_F32 || t == CLSORT_F64;
                if (d == SR_SPECIAL && !isf) continue;
                for (upper = 0; upper < 2; ++upper)
                    for (desc = 0; desc < 2; ++desc, ++k) {
                        clsort_search_desc sd;
                        size_t n = e->tiny ? 97 : (k % 3 == 0 ? 5003 : 1031), m = e->tiny ? 61 : (k % 2 ? 2053 : 777);
                        memset(&sd, 0, sizeof sd);
                        sd.type = t, sd.descending = desc, sd.sorted_needles = sorted;
                        sd.index_size = ((k + ti) % 2 || !e->quick) && (upper == desc) ? 8 : 4;
                        if (!quick_variant(e, (unsigned)(ti + (size_t)d))) continue;
                        search_case(e->cs, n, m, d, &sd, upper, 0);
                    }
            }
        }
    }
}

/* n and m over 0, 1, primes, 2^k +- 1 and the edges of the tiles (merge
 * tiles of 1024 and 2048, samples of 255, 2047 and 4095). */
static void search_sizes(const test_env *e)
{
    static const size_t ns[] = {0, 1, 2, 3, 7, 31, 254, 255, 256, 257, 1023, 1025, 2047, 2048, 2049, 4095, 4096, 4097,
                                65537, 100003, 1048577};
    static const size_t ms[] = {0, 1, 3, 13, 255, 257, 1024, 2047, 2049, 4097, 65535, 262147};
    size_t a, b, k = 0;
    for (a = 0; a < sizeof ns / sizeof ns[0]; ++a)
        for (b = 0; b < sizeof ms / sizeof ms[0]; ++b, ++k) {
            clsort_search_desc sd;
            size_t n = ns[a], m = ms[b];
            if (e->tiny && (n > 4097 || m > 4097)) continue;
            if (e->quick && (n > 100003 || m > 65535) && k % 5) continue;
            memset(&sd, 0, sizeof sd);
            sd.type = k % 3 == 2 ? CLSORT_F32 : CLSORT_U32;
            sd.sorted_needles = (int)(k % 2);
            sd.descending = (int)(k % 5 == 3);
            search_case(e->cs, n, m, (int)(k % 3 == 1 ? SR_FEW : SR_RANDOM), &sd, (int)(k % 4 >= 2), 0);
        }
}

/* The GPU shape (256 x 8: samples of 4095, merge tiles of 2048) and a
 * narrow one, on any device. */
static void search_shapes(const test_env *e)
{
    static const unsigned shapes[2][2] = {{256, 8}, {32, 2}};
    static const size_t ns[] = {1, 4094, 4095, 4096, 65537, 300007};
    static const size_t ms[] = {1, 2047, 2048, 2049, 40961};
    int s;
    for (s = 0; s < 2; ++s) {
        clsort_context *cs = tile_context(e->cs, shapes[s][0], shapes[s][1]);
        size_t a, b, k = 0;
        if (!cs) return;
        for (a = 0; a < sizeof ns / sizeof ns[0]; ++a)
            for (b = 0; b < sizeof ms / sizeof ms[0]; ++b, ++k) {
                clsort_search_desc sd;
                if (e->tiny && (ns[a] > 4096 || ms[b] > 2049)) continue;
                memset(&sd, 0, sizeof sd);
                sd.type = k % 3 == 0 ? CLSORT_I64 : k % 3 == 1 ? CLSORT_U32 : CLSORT_U16;
                sd.sorted_needles = (int)(k % 2);
                sd.descending = (int)(k % 4 == 1);
                search_case(cs, ns[a], ms[b], k % 5 == 4 ? SR_FEW : SR_RANDOM, &sd, (int)(k % 3 == 2), 0);
            }
        clsort_destroy(cs);
    }
}

/* The host forms, desc NULL included. */
static void search_host(const test_env *e)
{
    clsort_search_desc sd;
    uint32_t hay[5] = {1, 3, 3, 5, 9}, nd[4] = {0, 3, 4, 10}, out[4], lo_want[4] = {0, 1, 3, 5}, up_want[4] = {0, 3, 3, 5};
    clsort_context *cs = e->cs;
    check(clsort_lower_bound_host(cs, CLSORT_U32, hay, 5, nd, 4, out, NULL) == CLSORT_SUCCESS &&
              memcmp(out, lo_want, sizeof out) == 0, "lower_bound_host, desc NULL", 5, "-", 0, 0, 0);
    check(clsort_upper_bound_host(cs, CLSORT_U32, hay, 5, nd, 4, out, NULL) == CLSORT_SUCCESS &&
              memcmp(out, up_want, sizeof out) == 0, "upper_bound_host, desc NULL", 5, "-", 0, 0, 0);
    memset(&sd, 0, sizeof sd);
    sd.type = CLSORT_I16, sd.sorted_needles = 1;
    search_case(cs, 3001, 1500, SR_FEW, &sd, 0, 1);
    sd.type = CLSORT_F64, sd.sorted_needles = 0, sd.descending = 1, sd.index_size = 8;
    search_case(cs, 3001, 1500, SR_SPECIAL, &sd, 1, 1);
    sd.type = CLSORT_U8, sd.index_size = 4;
    search_case(cs, 0, 100, SR_RANDOM, &sd, 0, 1);
    search_case(cs, 100, 0, SR_RANDOM, &sd, 1, 1);
}

/* Device counts: the first count needles, the results past it untouched. */
static void search_device_count(const test_env *e)
{
    size_t caps[8], counts[40], nc, nk, c, k, round = 0;
    clsort_context *cs = e->cs;
    nc = dc_capacities(e, caps);
    for (c = 0; c < nc; ++c) {
        nk = dc_counts(caps[c], counts, e->tiny);
        for (k = 0; k < nk; ++k, ++round) {
            size_t m = caps[c], n = 3001, cnt = counts[k] < m ? counts[k] : m, j, bad = m;
            uint32_t *hay = (uint32_t *)malloc(n * 4), *nd = (uint32_t *)malloc(m * 4), *out = (uint32_t *)malloc(m * 4);
            clsort_search_desc sd;
            clsort_enqueue q;
            cl_mem dh, dn, di, dc;
            uint64_t want = 0, got = 0;
            clsort_result r;
            memset(&sd, 0, sizeof sd);
            sd.sorted_needles = (int)(round % 2);
            for (j = 0; j < n; ++j) hay[j] = (uint32_t)(rnd64() % 100000);
            search_sort(hay, n, CLSORT_U32, 0);
            for (j = 0; j < m; ++j) nd[j] = (uint32_t)(rnd64() % 100000);
            if (sd.sorted_needles) search_sort(nd, m, CLSORT_U32, 0);
            memset(out, 0xa5, m * 4);
            dh = buffer(cs, n * 4, hay), dn = buffer(cs, m * 4, nd), di = buffer(cs, m * 4, out);
            dc = dc_count_buffer(cs, counts[k]);
            dc_enq(&q, dc);
            r = (round % 3 == 1) ? clsort_upper_bound(cs, dh, n, dn, m, di, &sd, &q)
                                 : clsort_lower_bound(cs, dh, n, dn, m, di, &sd, &q);
            download(cs, di, m * 4, out);
            for (j = 0; j < m && r == CLSORT_SUCCESS; ++j) {
                uint64_t w = j < cnt ? search_ref((const unsigned char *)hay, n, (const unsigned char *)(nd + j),
                                                  CLSORT_U32, 0, round % 3 == 1)
                                     : 0xa5a5a5a5u;
                if (out[j] != w) { bad = j, want = w, got = out[j]; break; }
            }
            check(r == CLSORT_SUCCESS && bad == m, sd.sorted_needles ? "search sorted needles, device count"
                                                                     : "search, device count",
                  m, "random", bad, (double)want, (double)got);
            clReleaseMemObject(dh), clReleaseMemObject(dn), clReleaseMemObject(di), clReleaseMemObject(dc);
            free(hay), free(nd), free(out);
        }
    }
}

/* A user event in the wait list: nothing runs before it, the returned
 * event completes with the results. */
static void search_events(const test_env *e)
{
    clsort_context *cs = e->cs;
    size_t n = 5000, m = 3000, j, bad = 0;
    uint32_t *hay = (uint32_t *)malloc(n * 4), *nd = (uint32_t *)malloc(m * 4), *out = (uint32_t *)malloc(m * 4);
    cl_int err;
    cl_event user = clCreateUserEvent(clsort_cl_context(cs), &err), done = NULL;
    cl_mem dh, dn, di;
    clsort_enqueue q;
    clsort_result r;
    for (j = 0; j < n; ++j) hay[j] = (uint32_t)(2 * j);
    for (j = 0; j < m; ++j) nd[j] = (uint32_t)(rnd64() % (2 * n + 10));
    dh = buffer(cs, n * 4, hay), dn = buffer(cs, m * 4, nd), di = buffer(cs, m * 4, NULL);
    memset(&q, 0, sizeof q);
    q.num_events_in_wait_list = 1;
    q.event_wait_list = &user;
    q.event = &done;
    r = clsort_lower_bound(cs, dh, n, dn, m, di, NULL, &q);
    check(r == CLSORT_SUCCESS && done != NULL, "lower_bound with a user event returns an event", m, "-", 0, 0, r);
    clSetUserEventStatus(user, CL_COMPLETE);
    if (done) clWaitForEvents(1, &done);
    download(cs, di, m * 4, out);
    for (j = 0; j < m; ++j)
        if (out[j] != (nd[j] >= 2 * n ? n : (nd[j] + 1) / 2)) { bad = j + 1; break; }
    check(bad == 0, "lower_bound after the event", m, "-", bad, 0, 0);
    if (done) clReleaseEvent(done);
    clReleaseEvent(user);
    clReleaseMemObject(dh), clReleaseMemObject(dn), clReleaseMemObject(di);
    free(hay), free(nd), free(out);
}

/* clsort_prepare builds every program a call takes: the call builds none. */
static void search_prepare(const test_env *e)
{
    clsort_tuning none;
    clsort_context *cs;
    clsort_prepare_call call;
    clsort_prepare_desc pd;
    clsort_search_desc sd;
    clsort_cache_stats before, after;
    int s;
    memset(&none, 0, sizeof none);
    cs = tuned_context(e->cs, &none, "context for search prepare");
    if (!cs) return;
    for (s = 0; s < 2; ++s) {
        memset(&sd, 0, sizeof sd);
        sd.type = s ? CLSORT_F32 : CLSORT_I64, sd.sorted_needles = s, sd.index_size = s ? 4 : 8;
        memset(&call, 0, sizeof call);
        call.op = CLSORT_PREPARE_SEARCH, call.search = &sd, call.n = 1000;
        memset(&pd, 0, sizeof pd);
        pd.calls = &call, pd.count = 1;
        check(clsort_prepare(cs, &pd) == CLSORT_SUCCESS, "clsort_prepare(search)", 1000, "-", 0, 0, 0);
        clsort_cache_stats_get(cs, &before);
        search_case(cs, 1000, 1000, SR_RANDOM, &sd, 1, 0);  /* merge path where sorted */
        search_case(cs, 200000, 1000, SR_RANDOM, &sd, 0, 1); /* the binary search */
        clsort_cache_stats_get(cs, &after);
        check(after.builds == before.builds, "search after prepare builds no program", 1000, "-", 0,
              (double)before.builds, (double)after.builds);
    }
    clsort_destroy(cs);
}

/* Refusals: a code, a message, nothing written. */
static void search_arguments(const test_env *e)
{
    clsort_context *cs = e->cs;
    clsort_search_desc sd;
    uint32_t h[64], o[64];
    cl_mem dh = buffer(cs, 64 * 4, NULL), dn = buffer(cs, 64 * 4, NULL), di = buffer(cs, 64 * 4, NULL);
    memset(&sd, 0, sizeof sd);
    memset(h, 0, sizeof h);
    sd.type = (clsort_type)99;
    EXPECT_ERR(clsort_lower_bound(cs, dh, 64, dn, 64, di, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "lower_bound: unknown type");
    sd.type = CLSORT_U32, sd.index_size = 2;
    EXPECT_ERR(clsort_lower_bound(cs, dh, 64, dn, 64, di, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "lower_bound: index_size 2");
    sd.index_size = 8;
    EXPECT_ERR(clsort_lower_bound(cs, dh, 64, dn, 64, di, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "lower_bound: indices too small for uint64 results");
    sd.index_size = 0;
    EXPECT_ERR(clsort_upper_bound(cs, dh, 65, dn, 64, di, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "upper_bound: haystack too small");
    EXPECT_ERR(clsort_upper_bound(cs, dh, 64, dn, 64, dn, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "upper_bound: indices over the needles");
    EXPECT_ERR(clsort_upper_bound(cs, dh, 64, dn, 64, dh, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "upper_bound: indices over the haystack");
    EXPECT_ERR(clsort_lower_bound(cs, NULL, 64, dn, 64, di, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "lower_bound: haystack NULL");
    sd.sorted_needles = 2;
    EXPECT_ERR(clsort_lower_bound(cs, dh, 64, dn, 64, di, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "lower_bound: sorted_needles 2");
    sd.sorted_needles = 0;
    if (sizeof(size_t) > 4)
        EXPECT_ERR(clsort_lower_bound(cs, dh, (size_t)0xffffffffu + 1u, dn, 64, di, &sd, NULL),
                   CLSORT_ERROR_INVALID_ARGUMENT, "lower_bound: n = 2^32 with uint32 results");
    sd.type = CLSORT_I32;
    EXPECT_ERR(clsort_lower_bound_host(cs, CLSORT_F32, h, 64, h, 64, o, &sd), CLSORT_ERROR_INVALID_ARGUMENT,
               "lower_bound_host: desc.type i32, argument f32");
    EXPECT_ERR(clsort_upper_bound_host(cs, CLSORT_U32, h, 64, NULL, 64, o, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "upper_bound_host: needles NULL");
    clReleaseMemObject(dh), clReleaseMemObject(dn), clReleaseMemObject(di);
}

static const test_case search_cases[] = {
    {"key types x bounds x orders x distributions", search_types_orders, ON_BOTH, ANY_SIZE},
    {"sizes: 0, 1, primes, 2^k +- 1, tiles", search_sizes, ON_PORTABLE, ANY_SIZE},
    {"tile shapes (the GPU's on any device)", search_shapes, ON_PORTABLE, ANY_SIZE},
    {"host form", search_host, ON_PORTABLE, ANY_SIZE},
    {"device count", search_device_count, ON_PORTABLE, ANY_SIZE},
    {"events", search_events, ON_PORTABLE, NOT_TINY},
    {"prepare", search_prepare, ON_PORTABLE, NOT_TINY},
    {"bad arguments", search_arguments, ON_PORTABLE, NOT_TINY},
};
static const test_part search_part = TEST_PART(search, "clsort_lower_bound / clsort_upper_bound", CTX_SHARED, 20);
