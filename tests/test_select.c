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

/* How a case calls: clsort_select_if or clsort_partition, by the built-in
 * comparison or by a caller's predicate that restates it (SM_PRED). */
enum { SM_PRED = 1, SM_PARTITION = 2 };

/* The comparison a type's predicate restates (one program per key type, not
 * per type and comparison: the predicate cases build few programs). */
static clsort_compare select_pred_cmp(clsort_type t) { return (clsort_compare)((int)t % 7); }

/* The predicate cases' bounds: fixed per type (the bounds are in the
 * predicate's text, and a text of its own is a program of its own), a <= b,
 * within the ranges select_fill gives. */
static void select_fixed_bounds(clsort_type t, unsigned char *a, unsigned char *b)
{
    size_t ks = clsort_type_size(t), i;
    uint64_t av, bv;
    switch (t) {
    case CLSORT_F32: { float fa = -10.0f, fb = 50.0f; memcpy(a, &fa, 4); memcpy(b, &fb, 4); return; }
    case CLSORT_F64: { double da = -10.0, db = 50.0; memcpy(a, &da, 8); memcpy(b, &db, 8); return; }
    case CLSORT_I8: case CLSORT_I16: case CLSORT_I32: case CLSORT_I64: /* -2^(bits-3) .. 2^(bits-2) */
        av = (uint64_t)0 - ((uint64_t)1 << (8 * ks - 3)), bv = (uint64_t)1 << (8 * ks - 2);
        break;
    default: /* 2^(bits-1) .. 3 * 2^(bits-2) */
        av = (uint64_t)1 << (8 * ks - 1), bv = (uint64_t)3 << (8 * ks - 2);
        break;
    }
    for (i = 0; i < ks; ++i) a[i] = (unsigned char)(av >> (8 * i)), b[i] = (unsigned char)(bv >> (8 * i));
}

/* The bits of a key (little-endian bytes) as a number. */
static unsigned long long select_bits(const unsigned char *k, size_t ks)
{
    unsigned long long v = 0;
    size_t i;
    for (i = ks; i-- > 0;) v = v << 8 | k[i];
    return v;
}

/* A caller's predicate "pass" restating comparison cmp with the bounds a and
 * b as the bits of keys of type t (as_<type>: NaN and -0 bounds too). */
static void select_pred_source(char *src, size_t cap, clsort_type t, clsort_compare cmp, const unsigned char *a,
                               const unsigned char *b)
{
    static const char *const tests[7] = {"k < a", "k <= a", "k > a", "k >= a", "k == a", "k != a", "a <= k && k < b"};
    const char *kt = clsort__types[t].cl_name, *bits = clsort__types[t].bits_name;
    size_t ks = clsort_type_size(t);
    snprintf(src, cap, "/* the built-in %s, restated */\nint pass(%s k)\n{\n    %s a = as_%s((%s)0x%llxul);\n"
             "    %s b = as_%s((%s)0x%llxul);\n    return %s;\n}\n", compare_names[cmp], kt, kt, kt, bits,
             select_bits(a, ks), kt, kt, bits, select_bits(b, ks), tests[cmp]);
}

/* The reference: keys (and values) that pass in input order, then for a
 * partition those that fail, in input order; returns how many pass. */
static size_t select_reference(const unsigned char *keys, clsort_type t, size_t n, clsort_compare cmp,
                               const unsigned char *a, const unsigned char *b, size_t vs, int partition,
                               unsigned char *refk, uint64_t *refv)
{
    size_t ks = clsort_type_size(t), i, at = 0, passed = 0;
    int round;
    for (round = 0; round < (partition ? 2 : 1); ++round)
        for (i = 0; i < n; ++i) {
            int pass = select_passes(keys, t, i, cmp, a, b);
            if (pass != !round) continue;
            memcpy(refk + at * ks, keys + i * ks, ks);
            refv[at++] = vs == 8 ? (uint64_t)i << 32 | (uint64_t)(n - i) : (uint64_t)i;
            passed += pass;
        }
    return passed;
}

/* One call of clsort_select_if or clsort_partition (mode: SM_*; values: 0,
 * 4 or 8 bytes, the input index) against the reference: the count (host and
 * device), the keys and values in order, the tails untouched. */
static void test_select_case(clsort_context *cs, clsort_type t, clsort_compare cmp, size_t n, int d, size_t vs,
                             int mode)
{
    size_t ks = clsort_type_size(t), i, count = 0, ref, total, bad = (size_t)-1;
    unsigned char *keys = (unsigned char *)malloc(n * ks + 8), *out = (unsigned char *)malloc(n * ks + 8);
    unsigned char *vals = (unsigned char *)malloc(n * 8 + 8), *vout = (unsigned char *)malloc(n * 8 + 8);
    unsigned char *refk = (unsigned char *)malloc(n * ks + 8);
    uint64_t *refv = (uint64_t *)malloc(n * 8 + 8);
    unsigned char a[8], b[8];
    uint32_t dev_count = 0xdeadbeefu;
    cl_mem dk, dko, dv = NULL, dvo = NULL, dc;
    clsort_select_desc desc;
    const char *call = mode & SM_PARTITION ? "partition" : "select_if";
    char what[96], src[512];
    int r;
    select_fill(keys, t, n, d);
    if (mode & SM_PRED) select_fixed_bounds(t, a, b);
    else select_bounds(keys, t, n, a, b);
    for (i = 0; i < n; ++i) {
        if (vs == 4) ((uint32_t *)vals)[i] = (uint32_t)i;
        if (vs == 8) ((uint64_t *)vals)[i] = (uint64_t)i << 32 | (uint64_t)(n - i);
    }
    ref = select_reference(keys, t, n, cmp, a, b, vs, mode & SM_PARTITION, refk, refv);
    total = mode & SM_PARTITION ? n : ref;
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
    desc.values_in = dv;
    desc.values_out = dvo;
    desc.value_size = vs;
    desc.count = dc;
    if (mode & SM_PRED) {
        select_pred_source(src, sizeof src, t, cmp, a, b);
        desc.user_op.source = src;
        desc.user_op.name = "pass";
    } else {
        desc.compare = cmp;
        desc.a = a;
        desc.b = b;
    }
    snprintf(what, sizeof what, "%s %s %s%s values %lu", call, clsort__types[t].name, compare_names[cmp],
             mode & SM_PRED ? " (a predicate)" : "", (unsigned long)vs);
    r = mode & SM_PARTITION ? clsort_partition(cs, dk, dko, n, &desc, &count, NULL)
                            : clsort_select_if(cs, dk, dko, n, &desc, &count, NULL);
    check(r == CLSORT_SUCCESS, what, n, select_dist_names[d], 0, 0, r);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    download(cs, dko, n * ks, out);
    if (vs) download(cs, dvo, n * vs, vout);
    download(cs, dc, 4, &dev_count);
    check(count == ref, "select count (host)", n, what, 0, (double)ref, (double)count);
    check(dev_count == ref, "select count (desc.count)", n, what, 0, (double)ref, (double)dev_count);
    for (i = 0; i < total && bad == (size_t)-1; ++i)
        if (memcmp(out + i * ks, refk + i * ks, ks) != 0) bad = i;
    check(bad == (size_t)-1, what, n, select_dist_names[d], bad, bad < total ? select_key_value(refk, t, bad) : 0,
          bad < total ? select_key_value(out, t, bad) : 0);
    for (i = total * ks, bad = (size_t)-1; i < n * ks && bad == (size_t)-1; ++i)
        if (out[i] != 0xa5) bad = i / ks;
    check(bad == (size_t)-1, "select leaves keys_out's tail", n, what, bad, 0xa5, 0);
    if (vs) {
        for (i = 0, bad = (size_t)-1; i < total && bad == (size_t)-1; ++i) {
            uint64_t v = vs == 4 ? ((uint32_t *)vout)[i] : ((uint64_t *)vout)[i];
            if (v != refv[i]) bad = i;
        }
        check(bad == (size_t)-1, "select values (stable order)", n, what, bad, bad < total ? (double)refv[bad] : 0,
              0);
        for (i = total * vs, bad = (size_t)-1; i < n * vs && bad == (size_t)-1; ++i)
            if (vout[i] != 0xa5) bad = i / vs;
        check(bad == (size_t)-1, "select leaves values_out's tail", n, what, bad, 0xa5, 0);
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
                    /* partition every other case; the type's own comparison
                     * also restated by a caller's predicate (--quick: of
                     * three types, a program each) */
                    test_select_case(e->cs, t, (clsort_compare)c, e->sizes[s], d == SD_SPECIAL && !is_float ? SD_FEW : d,
                                     round % 3 == 0 ? 0 : round % 3 == 1 ? 4 : 8, round % 2 ? SM_PARTITION : 0);
                    if (c == (int)select_pred_cmp(t) && (!e->quick || t == CLSORT_I8 || t == CLSORT_F32 || t == CLSORT_U64))
                        test_select_case(e->cs, t, (clsort_compare)c, e->sizes[s],
                                         d == SD_SPECIAL && !is_float ? SD_FEW : d, round % 3 == 2 ? 0 : 4,
                                         SM_PRED | (round % 2 ? 0 : SM_PARTITION));
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
                             c == CLSORT_COMPARE_EQUAL ? SD_FEW : SD_RANDOM, (size_t)(c % 3) * 4,
                             (int)(s + (size_t)c) % 2 ? SM_PARTITION : 0);
        test_select_case(e->cs, CLSORT_F32, select_pred_cmp(CLSORT_F32), sizes[s], SD_SPECIAL, 8,
                         SM_PRED | (s % 2 ? SM_PARTITION : 0));
    }
    if (!e->quick) test_select_case(e->cs, CLSORT_U64, CLSORT_COMPARE_GREATER, ((size_t)1 << 21) + 7, SD_RANDOM, 8, 0);
    if (!e->quick)
        test_select_case(e->cs, CLSORT_U64, select_pred_cmp(CLSORT_U64), ((size_t)1 << 21) + 7, SD_RANDOM, 8,
                         SM_PRED | SM_PARTITION);
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
    /* the partition takes the same programs; a caller's predicate, prepared, the same */
    check(clsort_partition_host(cs, d.type, keys, vals, out, vout, 300, &d, &count) == CLSORT_SUCCESS,
          "partition after prepare", 300, "-", 0, 0, 0);
    memset(&d, 0, sizeof d);
    d.type = CLSORT_I16;
    d.values_in = CLSORT_PREPARE_PRESENT;
    d.user_op.source = "int odd(short k, uint v) { return (k & 1) != 0 && v < 200u; }";
    d.user_op.name = "odd";
    d.user_op.type = "uint";
    d.user_op.size = 4;
    check(clsort_prepare(cs, &pd) == CLSORT_SUCCESS, "clsort_prepare(select) with a predicate", 300, "-", 0, 0, 0);
    d.values_in = NULL;
    clsort_cache_stats_get(cs, &before);
    check(clsort_partition_host(cs, d.type, keys, vals, out, vout, 300, &d, &count) == CLSORT_SUCCESS &&
              clsort_select_if_host(cs, d.type, keys, vals, out, vout, 300, &d, &count) == CLSORT_SUCCESS,
          "partition and select_if with a prepared predicate", 300, "-", 0, 0, 0);
    clsort_cache_stats_get(cs, &after);
    check(after.builds == before.builds, "partition and select_if after prepare build no program", 300, "-", 0,
          (double)before.builds, (double)after.builds);
    clsort_destroy(cs);
}

/* A predicate on the key and the value: particles (x the key, (y, z) the
 * 8-byte value) inside a sphere, and a u32 key against an int value; whole
 * numbers, so that the device's float sums are exact and the C reference
 * agrees. Both calls, and the host form of the partition. */
static const char select_sphere_src[] = "/* inside the sphere of radius^2 300 */\n"
                                        "int inside(float x, float2 yz)\n{\n"
                                        "    return x * x + yz.x * yz.x + yz.y * yz.y < 300.0f;\n}\n";
static const char select_pair_src[] = "bool below(uint k, int v) { return (int)(k % 7u) < v; }\n";

static void select_pair_one(clsort_context *cs, size_t n, int partition)
{
    float *x = (float *)malloc(n * 4 + 4), *xo = (float *)malloc(n * 4 + 4), *ref = (float *)malloc(n * 4 + 4);
    float *yz = (float *)malloc(n * 8 + 8), *yzo = (float *)malloc(n * 8 + 8), *refyz = (float *)malloc(n * 8 + 8);
    uint32_t *k = (uint32_t *)malloc(n * 4 + 4), *ko = (uint32_t *)malloc(n * 4 + 4), *refk = (uint32_t *)malloc(n * 4 + 4);
    int32_t *v = (int32_t *)malloc(n * 4 + 4), *vo = (int32_t *)malloc(n * 4 + 4), *refv = (int32_t *)malloc(n * 4 + 4);
    size_t i, round, at, ins = 0, below = 0, count = 0, count2 = 0, total;
    clsort_select_desc d;
    int r, r2;
    for (i = 0; i < n; ++i) {
        x[i] = (float)((int)(rnd64() % 41) - 20), yz[2 * i] = (float)((int)(rnd64() % 41) - 20);
        yz[2 * i + 1] = (float)((int)(rnd64() % 41) - 20);
        k[i] = (uint32_t)rnd64(), v[i] = (int32_t)(rnd64() % 14) - 3;
    }
    for (round = 0, at = 0; round < (partition ? 2u : 1u); ++round)
        for (i = 0; i < n; ++i)
            if ((x[i] * x[i] + yz[2 * i] * yz[2 * i] + yz[2 * i + 1] * yz[2 * i + 1] < 300.0f) == !round) {
                ref[at] = x[i], refyz[2 * at] = yz[2 * i], refyz[2 * at + 1] = yz[2 * i + 1];
                ++at, ins += !round;
            }
    for (round = 0, at = 0; round < (partition ? 2u : 1u); ++round)
        for (i = 0; i < n; ++i)
            if (((int)(k[i] % 7u) < v[i]) == !round) refk[at] = k[i], refv[at++] = v[i], below += !round;
    memset(&d, 0, sizeof d);
    d.type = CLSORT_F32;
    d.value_size = 8;
    d.user_op.source = select_sphere_src;
    d.user_op.name = "inside";
    d.user_op.type = "float2";
    d.user_op.size = 8;
    r = partition ? clsort_partition_host(cs, d.type, x, yz, xo, yzo, n, &d, &count)
                  : clsort_select_if_host(cs, d.type, x, yz, xo, yzo, n, &d, &count);
    memset(&d, 0, sizeof d);
    d.user_op.source = select_pair_src;
    d.user_op.name = "below";
    d.user_op.type = "int";
    d.user_op.size = 4;
    r2 = partition ? clsort_partition_host(cs, CLSORT_U32, k, v, ko, vo, n, &d, &count2)
                   : clsort_select_if_host(cs, CLSORT_U32, k, v, ko, vo, n, &d, &count2);
    total = partition ? n : ins;
    check(r == CLSORT_SUCCESS && count == ins && memcmp(xo, ref, total * 4) == 0 && memcmp(yzo, refyz, total * 8) == 0,
          partition ? "partition_host: f32 particles inside a sphere (key and float2 value)"
                    : "select_if_host: f32 particles inside a sphere (key and float2 value)",
          n, "random", 0, (double)ins, (double)count);
    total = partition ? n : below;
    check(r2 == CLSORT_SUCCESS && count2 == below && memcmp(ko, refk, total * 4) == 0 && memcmp(vo, refv, total * 4) == 0,
          partition ? "partition_host: u32 key against its int value (bool predicate)"
                    : "select_if_host: u32 key against its int value (bool predicate)",
          n, "random", 0, (double)below, (double)count2);
    if (r != CLSORT_SUCCESS || r2 != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    free(x), free(xo), free(ref), free(yz), free(yzo), free(refyz), free(k), free(ko), free(refk), free(v), free(vo),
        free(refv);
}

static void select_pair_predicates(const test_env *e)
{
    size_t s;
    for (s = 0; s < e->nsizes; ++s) select_pair_one(e->cs, e->sizes[s], (int)(s % 2));
    if (!e->tiny) select_pair_one(e->cs, 100003, 1);
}

/* A caller's predicate that is refused or does not build: a code, a
 * message naming the snippet's line or field, nothing written (the keys,
 * values, desc.count and the host count as they were); then the context
 * goes on. */
static void select_pred_expect(clsort_context *cs, cl_mem dk, cl_mem dko, const clsort_select_desc *d, int partition,
                               clsort_result want, const char *says, const char *what)
{
    size_t count = 777;
    clsort_result r = partition ? clsort_partition(cs, dk, dko, 64, d, &count, NULL)
                                : clsort_select_if(cs, dk, dko, 64, d, &count, NULL);
    const char *msg = clsort_last_error(cs);
    check(r == want && strstr(msg, partition ? "clsort_partition" : "clsort_select_if") == msg &&
              strstr(msg, says) != NULL && count == 777,
          what, 64, msg, 0, (double)want, (double)r);
}

static void select_pred_errors(const test_env *e)
{
    clsort_context *cs = e->cs;
    uint32_t keys[64], out[64], vals[64], sentinel = 0x5a5a5a5au, dcount = 0x5a5a5a5au;
    size_t i;
    cl_mem dk, dko, dv, dvo, dc;
    clsort_select_desc d;
    for (i = 0; i < 64; ++i) keys[i] = vals[i] = (uint32_t)i, out[i] = sentinel;
    dk = buffer(cs, sizeof keys, keys);
    dko = buffer(cs, sizeof out, out);
    dv = buffer(cs, sizeof vals, vals);
    dvo = buffer(cs, sizeof out, out);
    dc = buffer(cs, 4, &dcount);
    memset(&d, 0, sizeof d);
    d.count = dc;
    d.user_op.name = "pass";
    d.user_op.source = "int pass(uint k)\n{\n    return k < 5u\n}\n"; /* no ';' on line 3 */
    select_pred_expect(cs, dk, dko, &d, 0, CLSORT_ERROR_BUILD, "user_op.source:3:",
                       "select_if predicate: a syntax error, the snippet's line in the log");
    select_pred_expect(cs, dk, dko, &d, 1, CLSORT_ERROR_BUILD, "user_op.source:3:",
                       "partition predicate: a syntax error, the snippet's line in the log");
    d.user_op.source = "int pass(uint k, uint j) { return k < j; }\n";
    select_pred_expect(cs, dk, dko, &d, 0, CLSORT_ERROR_BUILD, "user_op.name:1:",
                       "select_if predicate: a wrong signature (two keys), named at user_op.name");
    d.user_op.source = "int pass(uint k) { return k < 5u; }\n";
    d.user_op.name = "passes";
    select_pred_expect(cs, dk, dko, &d, 1, CLSORT_ERROR_BUILD, "user_op.name:1:",
                       "partition predicate: a name the source lacks, named at user_op.name");
    d.user_op.name = "pass";
    d.user_op.source = "";
    select_pred_expect(cs, dk, dko, &d, 0, CLSORT_ERROR_INVALID_ARGUMENT, "user_op.source is empty",
                       "select_if predicate: an empty source");
    d.user_op.source = "int pass(uint k) { return k < 5u; }\n";
    d.user_op.name = "";
    select_pred_expect(cs, dk, dko, &d, 1, CLSORT_ERROR_INVALID_ARGUMENT, "not an identifier",
                       "partition predicate: an empty name");
    d.user_op.name = "pass";
    d.user_op.identity = "0";
    select_pred_expect(cs, dk, dko, &d, 0, CLSORT_ERROR_INVALID_ARGUMENT, "no identity",
                       "select_if predicate: an operator's field (identity)");
    d.user_op.identity = NULL;
    d.user_op.type = "uint";
    d.user_op.size = 4;
    select_pred_expect(cs, dk, dko, &d, 0, CLSORT_ERROR_INVALID_ARGUMENT, "without values",
                       "select_if predicate: the values' type without values");
    d.values_in = dv;
    d.values_out = dvo;
    d.user_op.size = 8;
    select_pred_expect(cs, dk, dko, &d, 1, CLSORT_ERROR_INVALID_ARGUMENT, "not the values' size",
                       "partition predicate: user_op.size other than the values'");
    d.user_op.size = 4;
    d.user_op.type = "uint2";
    select_pred_expect(cs, dk, dko, &d, 0, CLSORT_ERROR_BUILD, "user_op.size:1:",
                       "select_if predicate: a type of another size, named at user_op.size");
    d.user_op.type = "uint";
    select_pred_expect(cs, dk, dko, &d, 1, CLSORT_ERROR_BUILD, "user_op.name:1:",
                       "partition predicate: a key-only predicate given the values' type");
    download(cs, dko, sizeof out, out);
    for (i = 0; i < 64 && out[i] == sentinel; ++i) {}
    download(cs, dvo, sizeof vals, vals);
    download(cs, dc, 4, &dcount);
    check(i == 64 && vals[0] == sentinel && vals[63] == sentinel && dcount == sentinel,
          "select predicate errors write nothing (keys_out, values_out, desc.count)", 64, "bad-snippet", i, sentinel,
          i < 64 ? out[i] : dcount);
    d.user_op.source = "int pass(uint k, uint v) { return k < 5u && v < 3u; }\n";
    check(clsort_partition(cs, dk, dko, 64, &d, &i, NULL) == CLSORT_SUCCESS && i == 3,
          "partition predicate: the context goes on after the errors", 64, "bad-snippet", 0, 3, (double)i);
    clReleaseMemObject(dk), clReleaseMemObject(dko), clReleaseMemObject(dv), clReleaseMemObject(dvo);
    clReleaseMemObject(dc);
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

/* The bounds are read during the call: changed while the call waits on a
 * user event in its wait list, the old ones hold. Not --tiny, as every case
 * gated by a user event: PoCL 3.1's basic driver deadlocks in
 * clSetUserEventStatus once a kernel waits on the event
 * (tests/pocl_basic_user_event.c). */
static void select_bounds_read_during_call(const test_env *e)
{
    clsort_context *cs = e->cs;
    enum { N = 300 };
    float keys[N], out[N], a = 0.25f;
    uint32_t back[1] = {0}, sentinel = 0x5a5a5a5au, fill[N];
    size_t i, ref;
    int ok;
    cl_int err;
    cl_event user = clCreateUserEvent(clsort_cl_context(cs), &err);
    cl_mem dk, dko;
    clsort_select_desc d;
    clsort_enqueue q;
    select_fill((unsigned char *)keys, CLSORT_F32, N, SD_SPECIAL);
    for (i = 0; i < N; ++i) fill[i] = sentinel;
    dk = buffer(cs, sizeof keys, keys);
    dko = buffer(cs, sizeof fill, fill);
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
    clReleaseMemObject(dk), clReleaseMemObject(dko), clReleaseMemObject(d.count);
}

/* The manual's promises beyond the sweeps: a NaN bound under every
 * comparison (IEEE: only NOT_EQUAL passes) against the C comparison; the
 * host form ignores desc's cl_mem fields; refusals (the host form's
 * desc.type neither 0 nor its type, value_size 3, desc.count over an output
 * or the input) keep *count and the outputs. */
static void select_promises(const test_env *e)
{
    clsort_context *cs = e->cs;
    enum { N = 300 };
    float keys[N], out[N], a = 0.25f, nan_a = (float)NAN;
    uint32_t back[N], sentinel = 0x5a5a5a5au, fill[N];
    size_t i, count, ref;
    int c, ok;
    cl_mem dk, dko, dv, dvo;
    clsort_select_desc d;
    select_fill((unsigned char *)keys, CLSORT_F32, N, SD_SPECIAL);
    for (i = 0; i < N; ++i) fill[i] = sentinel;
    dk = buffer(cs, sizeof keys, keys), dv = buffer(cs, sizeof keys, keys);
    dko = buffer(cs, sizeof fill, fill), dvo = buffer(cs, sizeof fill, fill);
    memset(&d, 0, sizeof d);
    d.type = CLSORT_F32;
    d.count = buffer(cs, 4, NULL);
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
static void select_dc_one(clsort_context *cs, clsort_type t, clsort_compare cmp, size_t cap, size_t count, int d,
                          int mode)
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
    size_t i, kept = 0, kept2 = 0, host_count = 12345, bad, at;
    char what[120], src[512];
    int r, round;
    select_fill(keys, t, cap, d);
    if (mode & SM_PRED) select_fixed_bounds(t, a, b);
    else select_bounds(keys, t, m, a, b);
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
    for (round = 0, at = 0; round < (mode & SM_PARTITION ? 2 : 1); ++round) /* a partition: then those that fail */
        for (i = 0; i < m; ++i)
            if (select_passes(keys, t, i, cmp, a, b) == !round) {
                memcpy(wk + at * ks, keys + i * ks, ks);
                wv[at++] = (uint32_t)i;
                kept += !round;
            }
    for (i = 0; i < kept; ++i) /* the second selection: GREATER_EQUAL a2 among the kept */
        if (select_passes(wk, t, i, CLSORT_COMPARE_GREATER_EQUAL, a2, a2)) memcpy(w2 + kept2++ * ks, wk + i * ks, ks);
    memset(&sd, 0, sizeof sd);
    sd.type = t;
    if (mode & SM_PRED) {
        select_pred_source(src, sizeof src, t, cmp, a, b);
        sd.user_op.source = src;
        sd.user_op.name = "pass";
    } else {
        sd.compare = cmp;
        sd.a = a;
        sd.b = b;
    }
    sd.values_in = dv;
    sd.values_out = dvo;
    sd.count = dco;
    dc_enq(&q, dc);
    snprintf(what, sizeof what, "device count %s %s %s%s cap %lu", mode & SM_PARTITION ? "partition" : "select_if",
             clsort__types[t].name, compare_names[cmp], mode & SM_PRED ? " (a predicate)" : "", (unsigned long)cap);
    r = mode & SM_PARTITION ? clsort_partition(cs, dk, dko, cap, &sd, &host_count, &q)
                            : clsort_select_if(cs, dk, dko, cap, &sd, &host_count, &q);
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
        for (k = 0; k < nk; ++k, ++round) { /* not SD_SPECIAL: the chained GREATER_EQUAL needs ordered keys */
            clsort_type t = types[round % 4];
            /* partition every other call; a predicate on every third of the
             * types the predicate cases build anyway (f32, i8) */
            int mode = (round % 2 ? SM_PARTITION : 0) | ((t == CLSORT_F32 || t == CLSORT_I8) && round % 3 == 0 ? SM_PRED : 0);
            select_dc_one(e->cs, t, mode & SM_PRED ? select_pred_cmp(t) : (clsort_compare)(round % 7), caps[c],
                          counts[k], (int)(round % 4), mode);
        }
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
    {"predicates on key and value (sphere), host forms", select_pair_predicates, ON_BOTH, ANY_SIZE},
    {"predicate errors: build log lines, refusals", select_pred_errors, ON_PORTABLE, NOT_TINY},
    {"bounds read during the call (a user event in the wait list)", select_bounds_read_during_call, ON_PORTABLE, NOT_TINY},
    {"manual promises: NaN bounds, the host form, refusals", select_promises, ON_PORTABLE, ANY_SIZE},
};
static const test_part select_part = TEST_PART(select, "clsort_select_if, clsort_partition", CTX_SHARED, 11);
