/* test_clsort, gather: clsort_gather through a random permutation with an
 * out-of-range index, against a host copy. Included by tests/test_clsort.c. */

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


static void gather_widths(const test_env *e)
{
    size_t s;
    for (s = 0; s < e->nsizes; ++s) test_gather(e->cs, e->sizes[s]);
}

/* clsort_gather_many against a C loop: `count` arrays of the sizes es[],
 * gather or scatter by a permutation (scatter) or random indices with some
 * past the end (gather: zero elements); the bytes past n elements of each
 * dst untouched; with dcount (not (size_t)-1) a device count. */
static void test_gather_many_one(clsort_context *cs, size_t n, unsigned count, const size_t *es, int scatter,
                                 size_t dcount)
{
    clsort_gather_many_desc d;
    unsigned char *src[CLSORT_GATHER_MANY_MAX], *got[CLSORT_GATHER_MANY_MAX], *want[CLSORT_GATHER_MANY_MAX];
    cl_mem dsrc[CLSORT_GATHER_MANY_MAX], ddst[CLSORT_GATHER_MANY_MAX], dc = NULL;
    uint32_t *idx = (uint32_t *)malloc(n * 4 + 4);
    size_t i, lim = dcount == (size_t)-1 ? n : (dcount < n ? dcount : n), bad = 0;
    unsigned a;
    char what[160];
    clsort_enqueue q;
    cl_mem di;
    clsort_result r;
    for (i = 0; i < n; ++i) idx[i] = (uint32_t)i;
    for (i = n; i > 1; --i) { size_t j = rnd64() % i; uint32_t t = idx[i - 1]; idx[i - 1] = idx[j]; idx[j] = t; }
    if (!scatter)
        for (i = 0; i < n; ++i)
            if (rnd64() % 16 == 0) idx[i] = (uint32_t)(n + rnd64() % 5); /* past the end: a zero element */
    memset(&d, 0, sizeof d);
    d.count = count, d.scatter = scatter;
    for (a = 0; a < count; ++a) {
        size_t bytes = n * es[a] + 16;
        src[a] = (unsigned char *)malloc(bytes), got[a] = (unsigned char *)malloc(bytes), want[a] = (unsigned char *)malloc(bytes);
        for (i = 0; i < bytes; ++i) src[a][i] = (unsigned char)rnd64(), want[a][i] = 0xa5;
        for (i = 0; i < lim; ++i) {
            size_t from = scatter ? i : idx[i], to = scatter ? idx[i] : i;
            if (from < n) memcpy(want[a] + to * es[a], src[a] + from * es[a], es[a]);
            else memset(want[a] + to * es[a], 0, es[a]);
        }
        dsrc[a] = buffer(cs, n * es[a], src[a]);
        ddst[a] = buffer(cs, n * es[a] + 16, NULL);
        {
            unsigned char fillb = 0xa5;
            clEnqueueFillBuffer(clsort_cl_queue(cs), ddst[a], &fillb, 1, 0, n * es[a] + 16, 0, NULL, NULL);
        }
        d.arrays[a].src = dsrc[a], d.arrays[a].dst = ddst[a], d.arrays[a].elem_size = es[a];
    }
    di = buffer(cs, n * 4, idx);
    memset(&q, 0, sizeof q);
    if (dcount != (size_t)-1) dc = dc_count_buffer(cs, dcount), dc_enq(&q, dc);
    r = clsort_gather_many(cs, di, n, &d, dc ? &q : NULL);
    for (a = 0; a < count && r == CLSORT_SUCCESS; ++a) {
        download(cs, ddst[a], n * es[a] + 16, got[a]);
        for (i = 0; i < n * es[a] + 16 && !bad; ++i)
            if (got[a][i] != want[a][i]) bad = i + 1;
        if (bad) {
            snprintf(what, sizeof what, "gather_many %s array %u of %u (%lu bytes)", scatter ? "scatter" : "gather", a,
                     count, (unsigned long)es[a]);
            check(0, what, n, dcount == (size_t)-1 ? "random" : "device-count", (bad - 1) / es[a], want[a][bad - 1],
                  got[a][bad - 1]);
            break;
        }
    }
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    snprintf(what, sizeof what, "gather_many %s, %u arrays", scatter ? "scatter" : "gather", count);
    check(r == CLSORT_SUCCESS && !bad, what, n, dcount == (size_t)-1 ? "random" : "device-count", 0, 0, r);
    for (a = 0; a < count; ++a) {
        clReleaseMemObject(dsrc[a]), clReleaseMemObject(ddst[a]);
        free(src[a]), free(got[a]), free(want[a]);
    }
    clReleaseMemObject(di);
    if (dc) clReleaseMemObject(dc);
    free(idx);
}

/* Every element size 1 .. 16 across the calls, 1 to 8 arrays, gather and
 * scatter, sizes around the work-groups; device counts. */
static void gather_many_sizes(const test_env *e)
{
    static const size_t sizes[] = {1, 2, 7, 255, 256, 257, 4097, 65537};
    static const size_t es[16] = {4, 16, 8, 1, 2, 3, 12, 5, 6, 7, 9, 10, 11, 13, 14, 15};
    size_t k, s;
    unsigned count;
    for (s = 0, k = 0; s < sizeof sizes / sizeof sizes[0]; ++s)
        for (count = 1; count <= CLSORT_GATHER_MANY_MAX; count = count * 2 + (count == 1), ++k) {
            size_t n = sizes[s], pick[CLSORT_GATHER_MANY_MAX];
            unsigned a;
            if (e->tiny && n > 4097) continue;
            for (a = 0; a < CLSORT_GATHER_MANY_MAX; ++a) pick[a] = es[(a + k * 3) % 16];
            test_gather_many_one(e->cs, n, count, pick, (int)(k % 2), (size_t)-1);
        }
    {
        static const size_t all[8] = {16, 1, 12, 2, 8, 3, 4, 5};
        test_gather_many_one(e->cs, 1000, 8, all, 0, 333);
        test_gather_many_one(e->cs, 1000, 8, all, 1, 0);
        test_gather_many_one(e->cs, 1000, 8, all, 1, 999);
        test_gather_many_one(e->cs, 1000, 4, all + 4, 0, 5000);
    }
}

/* Refusals: a code, a message. */
static void gather_many_arguments(const test_env *e)
{
    clsort_context *cs = e->cs;
    clsort_gather_many_desc d;
    cl_mem a = buffer(cs, 256, NULL), b = buffer(cs, 256, NULL), c = buffer(cs, 256, NULL), ix = buffer(cs, 256, NULL);
    memset(&d, 0, sizeof d);
    EXPECT_ERR(clsort_gather_many(cs, ix, 16, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "gather_many: desc NULL");
    EXPECT_ERR(clsort_gather_many(cs, ix, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "gather_many: count 0");
    d.count = 9;
    EXPECT_ERR(clsort_gather_many(cs, ix, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "gather_many: count 9");
    d.count = 2;
    d.arrays[0].src = a, d.arrays[0].dst = b, d.arrays[0].elem_size = 4;
    d.arrays[1].src = a, d.arrays[1].dst = c, d.arrays[1].elem_size = 17;
    EXPECT_ERR(clsort_gather_many(cs, ix, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "gather_many: elem_size 17");
    d.arrays[1].elem_size = 4, d.arrays[1].dst = b;
    EXPECT_ERR(clsort_gather_many(cs, ix, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "gather_many: two dsts alike");
    d.arrays[1].dst = ix;
    EXPECT_ERR(clsort_gather_many(cs, ix, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "gather_many: a dst over the indices");
    d.arrays[1].dst = c, d.arrays[1].elem_size = 16;
    EXPECT_ERR(clsort_gather_many(cs, ix, 64, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "gather_many: a dst too small");
    d.scatter = 1;
    EXPECT_ERR(clsort_gather_many(cs, ix, 64, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "gather_many: a src too small (scatter)");
    d.scatter = 2;
    EXPECT_ERR(clsort_gather_many(cs, ix, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "gather_many: scatter 2");
    d.scatter = 0;
    check(clsort_gather_many(cs, ix, 0, &d, NULL) == CLSORT_SUCCESS, "gather_many: n = 0", 0, "-", 0, 0, 0);
    clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(c), clReleaseMemObject(ix);
}

static const test_case gather_cases[] = {
    {"element widths 4, 12, 3, 8, 32", gather_widths, ON_BOTH, ANY_SIZE},
    {"device count", gather_device_count, ON_BOTH, ANY_SIZE},
    {"gather_many: 1 to 8 arrays of 1 to 16 bytes, gather and scatter", gather_many_sizes, ON_PORTABLE, ANY_SIZE},
    {"gather_many: bad arguments", gather_many_arguments, ON_PORTABLE, NOT_TINY},
};
static const test_part gather_part = TEST_PART(gather, "clsort_gather", CTX_SHARED, 1);
