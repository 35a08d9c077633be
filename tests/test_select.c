/* test_clsort, select: clsort_select_if and clsort_select_if_host against a
 * plain C pass (keep the keys whose C comparison with the bounds holds, in
 * input order): every key type x comparison x distribution (floats with NaN,
 * -0, +0 and infinities), with and without values (the input index, so the
 * order of equal keys is checked too), counts on the host and the device,
 * the tail of the outputs left untouched; sizes around the tiles; events;
 * clsort_prepare; bad arguments; the manual's other promises (bounds read
 * during the call, NaN bounds, the host form's descriptor, refusals that
 * keep *count). Included by tests/test_clsort.c. */

enum { SD_RANDOM, SD_FEW, SD_EQUAL, SD_SORTED, SD_SPECIAL, SD_COUNT };
static const char *select_dist_names[] = {"random", "few-distinct", "all-equal", "sorted", "float-specials"};
static const char *compare_names[] = {"less", "less-equal", "greater", "greater-equal", "equal", "not-equal",
                                      "in-range"};

/* Key i of type t as a double for the FAIL line (bits of 8-byte integers may round). */
static double select_key_value(const void *keys, clsort_type t, size_t i)
{
    switch (t) {
    case CLSORT_U8: return ((const uint8_t *)keys)[i];
    case CLSORT_I8: return ((const int8_t *)keys)[i];
    case CLSORT_U16: return ((const uint16_t *)keys)[i];
    case CLSORT_I16: return ((const int16_t *)keys)[i];
    case CLSORT_U32: return ((const uint32_t *)keys)[i];
    case CLSORT_I32: return ((const int32_t *)keys)[i];
    case CLSORT_F32: return ((const float *)keys)[i];
    case CLSORT_U64: return (double)((const uint64_t *)keys)[i];
    case CLSORT_I64: return (double)((const int64_t *)keys)[i];
    default: return ((const double *)keys)[i];
    }
}

#define SELECT_TEST(T)                                                                                   \
    do {                                                                                                  \
        T k_ = ((const T *)keys)[i], a_ = *(const T *)a, b_ = *(const T *)b;                             \
        switch (cmp) {                                                                                    \
        case CLSORT_COMPARE_LESS: return k_ < a_;                                                         \
        case CLSORT_COMPARE_LESS_EQUAL: return k_ <= a_;                                                  \
        case CLSORT_COMPARE_GREATER: return k_ > a_;                                                      \
        case CLSORT_COMPARE_GREATER_EQUAL: return k_ >= a_;                                               \
        case CLSORT_COMPARE_EQUAL: return k_ == a_;                                                       \
        case CLSORT_COMPARE_NOT_EQUAL: return k_ != a_;                                                   \
        default: return a_ <= k_ && k_ < b_;                                                              \
        }                                                                                                 \
    } while (0)

/* The reference predicate: C's comparison of key i of type t with a (and b). */
static int select_passes(const void *keys, clsort_type t, size_t i, clsort_compare cmp, const void *a, const void *b)
{
    switch (t) {
    case CLSORT_U8: SELECT_TEST(uint8_t);
    case CLSORT_I8: SELECT_TEST(int8_t);
    case CLSORT_U16: SELECT_TEST(uint16_t);
    case CLSORT_I16: SELECT_TEST(int16_t);
    case CLSORT_U32: SELECT_TEST(uint32_t);
    case CLSORT_I32: SELECT_TEST(int32_t);
    case CLSORT_F32: SELECT_TEST(float);
    case CLSORT_U64: SELECT_TEST(uint64_t);
    case CLSORT_I64: SELECT_TEST(int64_t);
    default: SELECT_TEST(double);
    }
}

/* n keys of type t in distribution d (SD_SPECIAL: floats only). */
static void select_fill(unsigned char *keys, clsort_type t, size_t n, int d)
{
    size_t ks = clsort_type_size(t), i, b;
    for (i = 0; i < n; ++i) {
        uint64_t r = rnd64();
        if (t == CLSORT_F32 || t == CLSORT_F64) {
            double v = (double)(r >> 11) / 9007199254740992.0 * 200.0 - 100.0;
            if (d == SD_FEW) v = (double)(r % 5) - 2.0;
            else if (d == SD_EQUAL) v = 1.5;
            else if (d == SD_SORTED) v = (double)i - (double)n / 2;
            else if (d == SD_SPECIAL) {
                static const double special[6] = {0.0, -0.0, 1.0 / 0.0, -1.0 / 0.0, 0.0 / 0.0, -2.5};
                v = r % 3 ? special[r % 6] : v;
            }
            if (t == CLSORT_F32) ((float *)keys)[i] = (float)v;
            else ((double *)keys)[i] = v;
            continue;
        }
        if (d == SD_FEW) r = r % 5 * 0x0101010101010101ull; /* the same value in every byte: the top ones too */
        else if (d == SD_EQUAL) r = 0x8081828384858687ull;
        else if (d == SD_SORTED) r = (uint64_t)i; /* ascending (narrow keys wrap around) */
        for (b = 0; b < ks; ++b) keys[i * ks + b] = (unsigned char)(r >> (8 * b));
    }
}

/* The bounds: keys of the data where there are some (so that comparisons
 * split it), a and b in order for IN_RANGE. */
static void select_bounds(const unsigned char *keys, clsort_type t, size_t n, unsigned char *a, unsigned char *b)
{
    size_t ks = clsort_type_size(t);
    if (n > 0) {
        memcpy(a, keys + (size_t)(rnd64() % n) * ks, ks);
        memcpy(b, keys + (size_t)(rnd64() % n) * ks, ks);
    } else {
        memset(a, 0, ks);
        memset(b, 0x7f, ks);
    }
    /* IN_RANGE wants a <= b: swap where b < a (the reference's own compare) */
    if (select_passes(b, t, 0, CLSORT_COMPARE_LESS, a, a)) {
        unsigned char tmp[8];
        memcpy(tmp, a, ks);
        memcpy(a, b, ks);
        memcpy(b, tmp, ks);
    }
}

/* One call of clsort_select_if (values: 0, 4 or 8 bytes, the input index)
 * against the reference: the count (host and device), the kept keys and
 * values in order, the tails untouched. */
static void test_select_case(clsort_context *cs, clsort_type t, clsort_compare cmp, size_t n, int d, size_t vs)
{
    size_t ks = clsort_type_size(t), i, count = 0, ref = 0, bad = (size_t)-1;
    unsigned char *keys = (unsigned char *)malloc(n * ks + 8), *out = (unsigned char *)malloc(n * ks + 8);
    unsigned char *vals = (unsigned char *)malloc(n * 8 + 8), *vout = (unsigned char *)malloc(n * 8 + 8);
    unsigned char *refk = (unsigned char *)malloc(n * ks + 8);
    uint64_t *refv = (uint64_t *)malloc(n * 8 + 8);
    unsigned char a[8], b[8];
    uint32_t dev_count = 0xdeadbeefu;
    cl_mem dk, dko, dv = NULL, dvo = NULL, dc;
    clsort_select_desc desc;
    char what[96];
    select_fill(keys, t, n, d);
    select_bounds(keys, t, n, a, b);
    for (i = 0; i < n; ++i) {
        if (vs == 4) ((uint32_t *)vals)[i] = (uint32_t)i;
        if (vs == 8) ((uint64_t *)vals)[i] = (uint64_t)i << 32 | (uint64_t)(n - i);
        if (select_passes(keys, t, i, cmp, a, b)) {
            memcpy(refk + ref * ks, keys + i * ks, ks);
            refv[ref++] = vs == 8 ? (uint64_t)i << 32 | (uint64_t)(n - i) : (uint64_t)i;
        }
    }
    memset(out, 0xa5, n * ks + 8);
    memset(vout, 0xa5, n * 8 + 8);
    dk = buffer(cs, n * ks, keys);
    dko = buffer(cs, n * ks, out);
    if (vs) {
        dv = buffer(cs, n * vs, vals);
        dvo = buffer(cs, n * vs, vout);
    }
    dc = buffer(cs, 4, &dev_count);
    memset(&desc, 0, sizeof desc);
    desc.type = t;
    desc.compare = cmp;
    desc.a = a;
    desc.b = b;
    desc.values_in = dv;
    desc.values_out = dvo;
    desc.value_size = vs;
    desc.count = dc;
    snprintf(what, sizeof what, "select_if %s %s values %lu", clsort__types[t].name, compare_names[cmp],
             (unsigned long)vs);
    check(clsort_select_if(cs, dk, dko, n, &desc, &count, NULL) == CLSORT_SUCCESS, what, n, select_dist_names[d], 0, 0,
          0);
    download(cs, dko, n * ks, out);
    if (vs) download(cs, dvo, n * vs, vout);
    download(cs, dc, 4, &dev_count);
    check(count == ref, "select_if count (host)", n, select_dist_names[d], 0, (double)ref, (double)count);
    check(dev_count == ref, "select_if count (desc.count)", n, select_dist_names[d], 0, (double)ref,
          (double)dev_count);
    for (i = 0; i < ref && bad == (size_t)-1; ++i)
        if (memcmp(out + i * ks, refk + i * ks, ks) != 0) bad = i;
    check(bad == (size_t)-1, what, n, select_dist_names[d], bad, bad < ref ? select_key_value(refk, t, bad) : 0,
          bad < ref ? select_key_value(out, t, bad) : 0);
    for (i = ref * ks, bad = (size_t)-1; i < n * ks && bad == (size_t)-1; ++i)
        if (out[i] != 0xa5) bad = i / ks;
    check(bad == (size_t)-1, "select_if leaves keys_out's tail", n, select_dist_names[d], bad, 0xa5, 0);
    if (vs) {
        for (i = 0, bad = (size_t)-1; i < ref && bad == (size_t)-1; ++i) {
            uint64_t v = vs == 4 ? ((uint32_t *)vout)[i] : ((uint64_t *)vout)[i];
            if (v != refv[i]) bad = i;
        }
        check(bad == (size_t)-1, "select_if values (stable order)", n, select_dist_names[d], bad,
              bad < ref ? (double)refv[bad] : 0, 0);
        for (i = ref * vs, bad = (size_t)-1; i < n * vs && bad == (size_t)-1; ++i)
            if (vout[i] != 0xa5) bad = i / vs;
        check(bad == (size_t)-1, "select_if leaves values_out's tail", n, select_dist_names[d], bad, 0xa5, 0);
    }
    clReleaseMemObject(dk);
    clReleaseMemObject(dko);
    if (dv) clReleaseMemObject(dv);
    if (dvo) clReleaseMemObject(dvo);
    clReleaseMemObject(dc);
    free(keys); free(out); free(vals); free(vout); free(refk); free(refv);
}

/* Whether the device takes f64 keys (a refusal says UNSUPPORTED). */
static int select_has_fp64(clsort_context *cs)
{
    double k = 1.0, a = 2.0;
    size_t count = 0;
    clsort_select_desc d;
    memset(&d, 0, sizeof d);
    d.type = CLSORT_F64;
    d.a = &a;
    return clsort_select_if_host(cs, d.type, &k, NULL, &k, NULL, 1, &d, &count) == CLSORT_SUCCESS && count == 1;
}

static void select_types_compares(const test_env *e)
{
    static const clsort_type types[10] = {CLSORT_U8, CLSORT_I8, CLSORT_U16, CLSORT_I16, CLSORT_U32,
                                          CLSORT_I32, CLSORT_F32, CLSORT_U64, CLSORT_I64, CLSORT_F64};
    int fp64 = select_has_fp64(e->cs), ti, c, d;
    size_t s, round = 0;
    for (s = 0; s < e->nsizes; ++s)
        for (ti = 0; ti < 10; ++ti) {
            clsort_type t = types[ti];
            int is_float = t == CLSORT_F32 || t == CLSORT_F64;
            if (t == CLSORT_F64 && !fp64) continue;
            for (c = 0; c <= CLSORT_COMPARE_IN_RANGE; ++c)
                for (d = 0; d < SD_COUNT; ++d) {
                    /* --quick and --tiny: one distribution per size, type and
                     * comparison, in turn; --full: each */
                    if (e->quick && d != (int)((s + (size_t)ti + (size_t)c) % SD_COUNT)) continue;
                    ++round;
                    test_select_case(e->cs, t, (clsort_compare)c, e->sizes[s], d == SD_SPECIAL && !is_float ? SD_FEW : d,
                                     round % 3 == 0 ? 0 : round % 3 == 1 ? 4 : 8);
                }
        }
}

/* Primes, 2^k +- 1 and multiples of the tiles pack takes (4096 elements on
 * GPUs and CPUs by default, 16 x 256 and 4 x 1024) +- 1, past the common sizes. */
static void select_tile_sizes(const test_env *e)
{
    static const size_t sizes[] = {12287, 12288, 12289, 16383, 16385, 32771, 65535, 65536, 65537, 100003, 262147};
    size_t s;
    int c;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        if (e->quick && sizes[s] > 70000) continue;
        for (c = 0; c <= CLSORT_COMPARE_IN_RANGE; ++c)
            test_select_case(e->cs, c % 2 ? CLSORT_I32 : CLSORT_F32, (clsort_compare)c, sizes[s],
                             c == CLSORT_COMPARE_EQUAL ? SD_FEW : SD_RANDOM, (size_t)(c % 3) * 4);
    }
    if (!e->quick) test_select_case(e->cs, CLSORT_U64, CLSORT_COMPARE_GREATER, ((size_t)1 << 21) + 7, SD_RANDOM, 8);
}

/* The host form, values moved, against the same reference. */
static void select_host(const test_env *e)
{
    size_t s, i;
    for (s = 0; s < e->nsizes; ++s) {
        size_t n = e->sizes[s], count = 0, ref = 0, bad = (size_t)-1;
        float *keys = (float *)malloc(n * 4 + 4), *out = (float *)malloc(n * 4 + 4);
        uint64_t *vals = (uint64_t *)malloc(n * 8 + 8), *vout = (uint64_t *)malloc(n * 8 + 8);
        float a = -10.0f, b = 25.0f;
        clsort_select_desc d;
        select_fill((unsigned char *)keys, CLSORT_F32, n, SD_SPECIAL);
        for (i = 0; i < n; ++i) vals[i] = (uint64_t)i * 3;
        memset(&d, 0, sizeof d);
        d.type = CLSORT_F32;
        d.compare = CLSORT_COMPARE_IN_RANGE;
        d.a = &a;
        d.b = &b;
        d.value_size = 8;
        check(clsort_select_if_host(e->cs, d.type, keys, vals, out, vout, n, &d, &count) == CLSORT_SUCCESS,
              "select_if_host", n, "float-specials", 0, 0, 0);
        for (i = 0; i < n; ++i)
            if (a <= keys[i] && keys[i] < b) {
                if (bad == (size_t)-1 && (ref >= count || memcmp(&out[ref], &keys[i], 4) != 0 || vout[ref] != vals[i]))
                    bad = ref;
                ++ref;
            }
        check(count == ref, "select_if_host count", n, "float-specials", 0, (double)ref, (double)count);
        check(bad == (size_t)-1, "select_if_host keys and values", n, "float-specials", bad, 0, 0);
        free(keys); free(out); free(vals); free(vout);
    }
}

/* A wait list and a returned event: the call waits for a user event and its
 * event completes after the keys are written. */
static void select_events(const test_env *e)
{
    size_t n = 5000, i, ref = 0, kept = 0;
    uint32_t *keys = (uint32_t *)malloc(n * 4), *out = (uint32_t *)malloc(n * 4), a = 1u << 31, dev_count = 0;
    cl_int err;
    cl_event user = clCreateUserEvent(clsort_cl_context(e->cs), &err), done = NULL;
    cl_mem dk, dko;
    clsort_select_desc d;
    clsort_enqueue enq;
    for (i = 0; i < n; ++i) ref += (keys[i] = (uint32_t)rnd64()) >= a;
    dk = buffer(e->cs, n * 4, keys);
    dko = buffer(e->cs, n * 4, NULL);
    memset(&d, 0, sizeof d);
    d.compare = CLSORT_COMPARE_GREATER_EQUAL;
    d.a = &a;
    d.count = buffer(e->cs, 4, NULL);
    memset(&enq, 0, sizeof enq);
    enq.num_events_in_wait_list = 1;
    enq.event_wait_list = &user;
    enq.event = &done;
    check(err == CL_SUCCESS && clsort_select_if(e->cs, dk, dko, n, &d, NULL, &enq) == CLSORT_SUCCESS && done,
          "select_if with a wait list and an event", n, "random", 0, 0, 0);
    clSetUserEventStatus(user, CL_COMPLETE);
    check(done && clWaitForEvents(1, &done) == CL_SUCCESS, "select_if's event completes", n, "random", 0, 0, 0);
    download(e->cs, d.count, 4, &dev_count);
    check(dev_count == ref, "select_if count after the event", n, "random", 0, (double)ref, (double)dev_count);
    download(e->cs, dko, n * 4, out);
    for (i = 0; i < n; ++i)
        if (keys[i] >= a) kept += kept < n && out[kept] == keys[i];
    check(kept == ref, "select_if keys after the event", n, "random", 0, (double)ref, (double)kept);
    if (done) clReleaseEvent(done);
    clReleaseEvent(user);
    clReleaseMemObject(dk); clReleaseMemObject(dko); clReleaseMemObject(d.count);
    free(keys); free(out);
}

/* clsort_prepare builds every program a call takes: the call builds none. */
static void select_prepare(const test_env *e)
{
    clsort_tuning none;
    clsort_context *cs;
    clsort_prepare_call call;
    clsort_prepare_desc pd;
    clsort_select_desc d;
    clsort_cache_stats before, after;
    int16_t keys[300], out[300], a = 7, b = 900;
    uint32_t vals[300], vout[300];
    size_t i, count = 0;
    memset(&none, 0, sizeof none);
    cs = tuned_context(e->cs, &none, "context for select prepare"); /* a program cache of its own */
    if (!cs) return;
    for (i = 0; i < 300; ++i) keys[i] = (int16_t)(rnd64() % 2000 - 1000), vals[i] = (uint32_t)i;
    memset(&d, 0, sizeof d);
    d.type = CLSORT_I16;
    d.compare = CLSORT_COMPARE_IN_RANGE;
    d.values_in = CLSORT_PREPARE_PRESENT;
    memset(&call, 0, sizeof call);
    call.op = CLSORT_PREPARE_SELECT;
    call.select = &d;
    memset(&pd, 0, sizeof pd);
    pd.calls = &call;
    pd.count = 1;
    check(clsort_prepare(cs, &pd) == CLSORT_SUCCESS, "clsort_prepare(select)", 300, "-", 0, 0, 0);
    clsort_cache_stats_get(cs, &before);
    d.values_in = NULL;
    d.a = &a;
    d.b = &b;
    check(clsort_select_if_host(cs, d.type, keys, vals, out, vout, 300, &d, &count) == CLSORT_SUCCESS, "select after prepare",
          300, "-", 0, 0, 0);
    clsort_cache_stats_get(cs, &after);
    check(after.builds == before.builds, "select after prepare builds no program", 300, "-", 0,
          (double)before.builds, (double)after.builds);
    clsort_destroy(cs);
}

/* Refusals: a code, a message, nothing written. */
static void select_arguments(const test_env *e)
{
    clsort_context *cs = e->cs;
    uint32_t keys[64], out[64], a = 5, sentinel = 0x5a5a5a5au;
    size_t i, count = 0;
    cl_mem dk, dko, ro;
    clsort_select_desc d;
    cl_int err;
    for (i = 0; i < 64; ++i) keys[i] = (uint32_t)i, out[i] = sentinel;
    dk = buffer(cs, sizeof keys, keys);
    dko = buffer(cs, sizeof out, out);
    ro = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_ONLY, sizeof out, NULL, &err);
    memset(&d, 0, sizeof d);
    d.a = &a;
    check(clsort_select_if(NULL, dk, dko, 64, &d, &count, NULL) == CLSORT_ERROR_INVALID_ARGUMENT,
          "select_if: NULL context", 0, "bad-argument", 0, 0, 0);
    EXPECT_ERR(clsort_select_if(cs, dk, dko, 64, NULL, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "select_if: NULL desc");
    d.a = NULL;
    EXPECT_ERR(clsort_select_if(cs, dk, dko, 64, &d, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "select_if: NULL bound");
    d.a = &a;
    d.compare = CLSORT_COMPARE_IN_RANGE;
    EXPECT_ERR(clsort_select_if(cs, dk, dko, 64, &d, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "select_if: IN_RANGE without b");
    d.compare = (clsort_compare)7;
    EXPECT_ERR(clsort_select_if(cs, dk, dko, 64, &d, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "select_if: unknown compare");
    d.compare = CLSORT_COMPARE_LESS;
    d.type = (clsort_type)99;
    EXPECT_ERR(clsort_select_if(cs, dk, dko, 64, &d, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "select_if: unknown type");
    d.type = CLSORT_U32;
    EXPECT_ERR(clsort_select_if(cs, dk, dko, 65, &d, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "select_if: n past the buffers");
    EXPECT_ERR(clsort_select_if(cs, dk, dk, 64, &d, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "select_if: in place");
    if (err == CL_SUCCESS)
        EXPECT_ERR(clsort_select_if(cs, dk, ro, 64, &d, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "select_if: read-only keys_out");
    EXPECT_ERR(clsort_select_if(cs, dk, dko, (size_t)0x100000000ull, &d, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "select_if: n >= 2^32");
    d.values_in = dk;
    EXPECT_ERR(clsort_select_if(cs, dk, dko, 64, &d, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "select_if: values_in without values_out");
    d.values_out = dko;
    EXPECT_ERR(clsort_select_if(cs, dk, dko, 64, &d, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "select_if: values_out is keys_out");
    d.values_in = d.values_out = NULL;
    EXPECT_ERR(clsort_select_if_host(cs, d.type, keys, keys, out, NULL, 64, &d, &count), CLSORT_ERROR_INVALID_ARGUMENT, "select_if_host: values without values_out");
    download(cs, dko, sizeof out, out);
    for (i = 0; i < 64 && out[i] == sentinel; ++i) {}
    check(i == 64, "select_if refusals write nothing", 64, "bad-argument", i, sentinel, i < 64 ? out[i] : 0);
    clReleaseMemObject(dk);
    clReleaseMemObject(dko);
    if (err == CL_SUCCESS) clReleaseMemObject(ro);
}

/* The manual's promises beyond the sweeps: the bounds are read during the
 * call (changed while it waits on its wait list: the old ones hold); a NaN
 * bound under every comparison (IEEE: only NOT_EQUAL passes) against the C
 * comparison; the host form ignores desc's cl_mem fields; refusals (the host form's desc.type neither 0 nor its type,
 * value_size 3, desc.count over an output or the input) keep *count and
 * the outputs. */
static void select_promises(const test_env *e)
{
    clsort_context *cs = e->cs;
    enum { N = 300 };
    float keys[N], out[N], a = 0.25f, nan_a = (float)NAN;
    uint32_t back[N], sentinel = 0x5a5a5a5au, fill[N];
    size_t i, count, ref;
    int c, ok;
    cl_int err;
    cl_event user = clCreateUserEvent(clsort_cl_context(cs), &err);
    cl_mem dk, dko, dv, dvo;
    clsort_select_desc d;
    clsort_enqueue q;
    select_fill((unsigned char *)keys, CLSORT_F32, N, SD_SPECIAL);
    for (i = 0; i < N; ++i) fill[i] = sentinel;
    dk = buffer(cs, sizeof keys, keys), dv = buffer(cs, sizeof keys, keys);
    dko = buffer(cs, sizeof fill, fill), dvo = buffer(cs, sizeof fill, fill);
    memset(&d, 0, sizeof d);
    d.type = CLSORT_F32;
    d.compare = CLSORT_COMPARE_GREATER;
    d.a = &a;
    d.count = buffer(cs, 4, NULL);
    memset(&q, 0, sizeof q);
    q.num_events_in_wait_list = 1;
    q.event_wait_list = &user;
    ok = err == CL_SUCCESS && clsort_select_if(cs, dk, dko, N, &d, NULL, &q) == CLSORT_SUCCESS;
    a = -1e30f; /* after the call returned, before its kernels may run */
    clSetUserEventStatus(user, CL_COMPLETE);
    download(cs, d.count, 4, back);
    download(cs, dko, sizeof out, out);
    for (i = 0, ref = 0; i < N; ++i)
        if (keys[i] > 0.25f) ok = ok && ref < back[0] && memcmp(&out[ref++], &keys[i], 4) == 0;
    check(ok && back[0] == ref, "select_if reads the bounds during the call (changed after it: the old ones)", N,
          "float-specials", 0, (double)ref, (double)back[0]);
    clReleaseEvent(user);
    clReleaseMemObject(dko);
    dko = buffer(cs, sizeof fill, fill);
    for (c = 0; c <= CLSORT_COMPARE_IN_RANGE; ++c) { /* NaN bounds */
        d.compare = (clsort_compare)c;
        d.a = d.b = &nan_a;
        count = 12345;
        ok = clsort_select_if_host(cs, CLSORT_F32, keys, NULL, out, NULL, N, &d, &count) == CLSORT_SUCCESS;
        for (i = 0, ref = 0; i < N; ++i)
            if (select_passes(keys, CLSORT_F32, i, (clsort_compare)c, &nan_a, &nan_a))
                ok = ok && ref < count && memcmp(&out[ref++], &keys[i], 4) == 0;
        check(ok && count == ref && ref == (c == CLSORT_COMPARE_NOT_EQUAL ? (size_t)N : 0),
              "select_if with a NaN bound: IEEE comparisons", N, compare_names[c], 0, (double)ref, (double)count);
    }
    { /* the host form ignores desc's cl_mem fields (here a 4-byte buffer in each) */
        cl_mem tiny = buffer(cs, 4, NULL), kept_count = d.count;
        float vout[N];
        d.compare = CLSORT_COMPARE_GREATER_EQUAL;
        d.a = &a;
        d.values_in = d.values_out = d.count = tiny;
        ok = clsort_select_if_host(cs, CLSORT_F32, keys, keys, out, vout, N, &d, &count) == CLSORT_SUCCESS;
        for (i = 0, ref = 0; i < N; ++i)
            if (keys[i] >= a) ok = ok && ref < count && !memcmp(&out[ref], &keys[i], 4) && !memcmp(&vout[ref++], &keys[i], 4);
        check(ok && count == ref, "select_if_host ignores desc's cl_mem fields", N, "float-specials", 0, (double)ref,
              (double)count);
        d.values_in = d.values_out = NULL;
        d.count = kept_count;
        clReleaseMemObject(tiny);
    }
    d.compare = CLSORT_COMPARE_LESS;
    d.type = CLSORT_I32;
    count = 12345;
    EXPECT_ERR(clsort_select_if_host(cs, CLSORT_F32, keys, NULL, out, NULL, N, &d, &count),
               CLSORT_ERROR_INVALID_ARGUMENT, "select_if_host: desc.type neither 0 nor type");
    d.type = CLSORT_F32;
    d.values_in = dv, d.values_out = dvo, d.value_size = 3;
    EXPECT_ERR(clsort_select_if(cs, dk, dko, N, &d, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "select_if: value_size 3");
    d.value_size = 4;
    for (c = 0; c < 3; ++c) {
        clReleaseMemObject(d.count);
        d.count = c == 0 ? dko : c == 1 ? dvo : dk;
        clRetainMemObject(d.count);
        EXPECT_ERR(clsort_select_if(cs, dk, dko, N, &d, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
                   c == 0 ? "select_if: desc.count is keys_out" : c == 1 ? "select_if: desc.count is values_out"
                                                                 : "select_if: desc.count is keys_in");
    }
    download(cs, dko, sizeof back, back);
    for (i = 0; i < N && back[i] == sentinel; ++i) {}
    download(cs, dvo, sizeof back, back);
    for (c = 0; c < N && back[c] == sentinel; ++c) {}
    check(count == 12345 && i == N && c == N, "select_if refusals keep *count, keys_out and values_out", N,
          "bad-argument", i, 12345, (double)count);
    clReleaseMemObject(dk), clReleaseMemObject(dv), clReleaseMemObject(dko), clReleaseMemObject(dvo);
    clReleaseMemObject(d.count);
}

/* One device-count call (test_devcount.c's functions): keys of type t with
 * u32 values (the input index), capacity cap, count at DC_AT of a noisy
 * buffer; against the reference over the first min(count, cap) keys: the
 * kept keys and values in order, the outputs' bytes past the kept count as
 * they were, desc.count and the host count. Then desc.count as the next
 * call's enq->count: the kept keys selected again by a second bound, against
 * the reference over the kept ones. */
static void select_dc_one(clsort_context *cs, clsort_type t, clsort_compare cmp, size_t cap, size_t count, int d)
{
    const size_t ks = clsort_type_size(t), m = count < cap ? count : cap;
    unsigned char *keys = (unsigned char *)malloc(cap * ks + 8), *ko = (unsigned char *)malloc(cap * ks + 8);
    unsigned char *wk = (unsigned char *)malloc(cap * ks + 8), *gk = (unsigned char *)malloc(cap * ks + 8);
    unsigned char *k2 = (unsigned char *)malloc(cap * ks + 8), *w2 = (unsigned char *)malloc(cap * ks + 8);
    uint32_t *vals = (uint32_t *)malloc(cap * 4 + 4), *wv = (uint32_t *)malloc(cap * 4 + 4);
    uint32_t *gv = (uint32_t *)malloc(cap * 4 + 4), dev_count = 0, dev2 = 0;
    unsigned char a[8], b[8], a2[8];
    cl_mem dk, dv, dko, dvo, dkc, dco, dc, dc2;
    clsort_select_desc sd;
    clsort_enqueue q;
    size_t i, kept = 0, kept2 = 0, host_count = 12345, bad;
    char what[120];
    int r;
    select_fill(keys, t, cap, d);
    select_bounds(keys, t, m, a, b);
    select_bounds(keys, t, m, a2, a2);
    for (i = 0; i < cap; ++i) vals[i] = (uint32_t)i;
    dk = buffer(cs, cap * ks, keys);
    dv = buffer(cs, cap * 4, vals);
    dko = dc_out_buffer(cs, cap * ks, ko);
    dvo = dc_out_buffer(cs, cap * 4, (unsigned char *)gv);
    dkc = dc_out_buffer(cs, cap * ks, k2);
    dco = buffer(cs, 4, NULL);
    dc2 = buffer(cs, 4, NULL);
    dc = dc_count_buffer(cs, count);
    memcpy(wk, ko, cap * ks);
    memcpy(wv, gv, cap * 4);
    memcpy(w2, k2, cap * ks);
    for (i = 0; i < m; ++i)
        if (select_passes(keys, t, i, cmp, a, b)) {
            memcpy(wk + kept * ks, keys + i * ks, ks);
            wv[kept++] = (uint32_t)i;
        }
    for (i = 0; i < kept; ++i) /* the second selection: GREATER_EQUAL a2 among the kept */
        if (select_passes(wk, t, i, CLSORT_COMPARE_GREATER_EQUAL, a2, a2)) memcpy(w2 + kept2++ * ks, wk + i * ks, ks);
    memset(&sd, 0, sizeof sd);
    sd.type = t;
    sd.compare = cmp;
    sd.a = a;
    sd.b = b;
    sd.values_in = dv;
    sd.values_out = dvo;
    sd.count = dco;
    dc_enq(&q, dc);
    snprintf(what, sizeof what, "device count select_if %s %s cap %lu", clsort__types[t].name, compare_names[cmp],
             (unsigned long)cap);
    r = clsort_select_if(cs, dk, dko, cap, &sd, &host_count, &q);
    check(r == CLSORT_SUCCESS, what, count, select_dist_names[d], 0, 0, r);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    /* desc.count as the next call's count, no read-back in between */
    memset(&sd, 0, sizeof sd);
    sd.type = t;
    sd.compare = CLSORT_COMPARE_GREATER_EQUAL;
    sd.a = a2;
    sd.count = dc2;
    memset(&q, 0, sizeof q);
    q.count = dco;
    r = clsort_select_if(cs, dko, dkc, cap, &sd, NULL, &q);
    check(r == CLSORT_SUCCESS, "device count select_if: desc.count as the next call's enq->count", count,
          select_dist_names[d], 0, 0, r);
    download(cs, dko, cap * ks, gk);
    download(cs, dvo, cap * 4, gv);
    download(cs, dco, 4, &dev_count);
    download(cs, dc2, 4, &dev2);
    bad = dc_first_diff(gk, wk, 0, cap * ks);
    check(bad == (size_t)-1, what, count, select_dist_names[d], bad / ks, 0, 0);
    bad = dc_first_diff((unsigned char *)gv, (unsigned char *)wv, 0, cap * 4);
    check(bad == (size_t)-1, "device count select_if values (stable), untouched past the kept", count,
          select_dist_names[d], bad / 4, bad == (size_t)-1 ? 0 : wv[bad / 4], bad == (size_t)-1 ? 0 : gv[bad / 4]);
    check(dev_count == kept && host_count == kept, "device count select_if: desc.count and the host count", count,
          select_dist_names[d], 0, (double)kept, (double)dev_count);
    download(cs, dkc, cap * ks, gk);
    bad = dc_first_diff(gk, w2, 0, cap * ks);
    check(bad == (size_t)-1 && dev2 == kept2, "device count select_if chained: the kept keys selected again", count,
          select_dist_names[d], bad / ks, (double)kept2, (double)dev2);
    clReleaseMemObject(dk), clReleaseMemObject(dv), clReleaseMemObject(dko), clReleaseMemObject(dvo);
    clReleaseMemObject(dkc), clReleaseMemObject(dco), clReleaseMemObject(dc2), clReleaseMemObject(dc);
    free(keys), free(ko), free(wk), free(gk), free(k2), free(w2), free(vals), free(wv), free(gv);
}

/* The capacities and counts of test_devcount.c, the key types and
 * comparisons in turn (types the part's other cases build: no program of
 * its own); the count buffer shared with desc.count is refused. */
static void select_device_count(const test_env *e)
{
    static const clsort_type types[4] = {CLSORT_U32, CLSORT_F32, CLSORT_I64, CLSORT_I8};
    size_t caps[8], counts[40], nc, nk, c, k, round = 0;
    nc = dc_capacities(e, caps);
    for (c = 0; c < nc; ++c) {
        nk = dc_counts(caps[c], counts, e->tiny);
        for (k = 0; k < nk; ++k, ++round)
            select_dc_one(e->cs, types[round % 4], (clsort_compare)(round % 7), caps[c], counts[k],
                          (int)(round % 4)); /* not SD_SPECIAL: the chained GREATER_EQUAL needs ordered keys */
    }
    {
        uint32_t a = 3;
        cl_mem dk = buffer(e->cs, 64 * 4, NULL), dko = buffer(e->cs, 64 * 4, NULL), dc = dc_count_buffer(e->cs, 10);
        clsort_select_desc sd;
        clsort_enqueue q;
        clsort_context *cs = e->cs;
        memset(&sd, 0, sizeof sd);
        sd.a = &a;
        sd.count = dc;
        dc_enq(&q, dc);
        EXPECT_ERR(clsort_select_if(cs, dk, dko, 64, &sd, NULL, &q), CLSORT_ERROR_INVALID_ARGUMENT,
                   "select_if: desc.count shared with enq->count");
        sd.count = NULL;
        q.count_offset = 2;
        EXPECT_ERR(clsort_select_if(cs, dk, dko, 64, &sd, NULL, &q), CLSORT_ERROR_INVALID_ARGUMENT,
                   "select_if: enq->count_offset not a multiple of 4");
        clReleaseMemObject(dk), clReleaseMemObject(dko), clReleaseMemObject(dc);
    }
}

static const test_case select_cases[] = {
    {"key types x comparisons x distributions", select_types_compares, ON_BOTH, ANY_SIZE},
    {"sizes around the tiles", select_tile_sizes, ON_BOTH, NOT_TINY},
    {"host form", select_host, ON_PORTABLE, ANY_SIZE},
    {"events", select_events, ON_BOTH, NOT_TINY},
    {"prepare", select_prepare, ON_BOTH, NOT_TINY},
    {"bad arguments", select_arguments, ON_PORTABLE, NOT_TINY},
    {"device count", select_device_count, ON_BOTH, ANY_SIZE},
    {"manual promises: bounds read during the call, NaN bounds, refusals", select_promises, ON_PORTABLE, ANY_SIZE},
};
static const test_part select_part = TEST_PART(select, "clsort_select_if", CTX_SHARED, 11);
