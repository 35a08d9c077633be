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

static const test_case gather_cases[] = {
    {"element widths 4, 12, 3, 8, 32", gather_widths, ON_BOTH, ANY_SIZE},
    {"device count", gather_device_count, ON_BOTH, ANY_SIZE},
};
static const test_part gather_part = TEST_PART(gather, "clsort_gather", CTX_SHARED, 1);
