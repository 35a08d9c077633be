/* test_clsort, scan: every 4- and 8-byte type, inclusive and exclusive, in
 * place and not, with the total, against a sequential C sum (floats within the
 * documented depth * u * sum |x| bound). Included by tests/test_clsort.c. */

static double elem_as_double(const void *p, clsort_type t, size_t i)
{
    switch (t) {
    case CLSORT_U32: return ((const uint32_t *)p)[i];
    case CLSORT_I32: return ((const int32_t *)p)[i];
    case CLSORT_F32: return ((const float *)p)[i];
    case CLSORT_U64: return (double)((const uint64_t *)p)[i];
    case CLSORT_I64: return (double)((const int64_t *)p)[i];
    default: return ((const double *)p)[i];
    }
}

static void test_scan_case(clsort_context *cs, clsort_type t, size_t n, int d, int inclusive, int in_place)
{
    static const char *tn[] = {"u32", "i32", "f32", "u64", "i64", "f64"};
    size_t es = clsort_type_size(t), i, bad = n;
    unsigned char *in = (unsigned char *)malloc(n * es + 8), *out = (unsigned char *)malloc(n * es + 8);
    uint64_t tot_dev = 0, acc = 0;
    double facc = 0, fabs_acc = 0, tot_ref = 0;
    /* the documented depth, maximized over tile shapes: tiles of >= 2048 items,
     * <= 1024 items per work-item (never more than n), <= 1024 work-items */
    double depth = ceil((double)n / 2048.0) + (double)(n < 1024 ? n : 1024) + 2 * 10 + 2;
    cl_mem din, dout, dtot;
    clsort_scan_desc desc;
    char what[96];
    int r, ok = 1;
    fill(in, t, n, d);
    din = buffer(cs, n * es, in);
    dout = in_place ? din : buffer(cs, n * es, NULL);
    dtot = buffer(cs, 8, NULL);
    memset(&desc, 0, sizeof desc);
    desc.type = t;
    desc.inclusive = inclusive;
    desc.total = dtot;
    snprintf(what, sizeof what, "scan %s %s%s", tn[t], inclusive ? "inclusive" : "exclusive", in_place ? " in-place" : "");
    r = clsort_scan(cs, din, dout, n, &desc, NULL);
    if (t == CLSORT_F64 && r == CLSORT_ERROR_UNSUPPORTED) {
        check(strstr(clsort_last_error(cs), "cl_khr_fp64") != NULL, "scan f64 unsupported message", n, "-", 0, 0, 0);
        goto done;
    }
    check(r == CLSORT_SUCCESS, what, n, dist_names[d], 0, 0, r);
    if (r != CLSORT_SUCCESS) { printf("  %s\n", clsort_last_error(cs)); goto done; }
    download(cs, dout, n * es, out);
    download(cs, dtot, es, &tot_dev);
    for (i = 0; i < n && ok; ++i) {
        double x = elem_as_double(in, t, i);
        if (t == CLSORT_F32 || t == CLSORT_F64) {
            double before = facc, g = elem_as_double(out, t, i), want;
            facc += x;
            fabs_acc += fabs(x);
            want = inclusive ? facc : before;
            /* documented bound: depth * unit roundoff * sum of |x| so far */
            ok = fabs(g - want) <= depth * (t == CLSORT_F32 ? ldexp(1, -24) : ldexp(1, -53)) * fabs_acc;
            if (!ok) check(0, what, n, dist_names[d], i, want, g);
        } else if (es == 4) {
            uint32_t before = (uint32_t)acc, g = ((uint32_t *)out)[i];
            acc = (uint32_t)(acc + ((uint32_t *)in)[i]);
            ok = g == (inclusive ? (uint32_t)acc : before);
            if (!ok) check(0, what, n, dist_names[d], i, inclusive ? (uint32_t)acc : before, g);
        } else {
            uint64_t before = acc, g = ((uint64_t *)out)[i];
            acc += ((uint64_t *)in)[i];
            ok = g == (inclusive ? acc : before);
            if (!ok) check(0, what, n, dist_names[d], i, (double)(inclusive ? acc : before), (double)g);
        }
        if (!ok) bad = i;
    }
    if (ok) ++passed;
    (void)bad;
    /* the total */
    if (t == CLSORT_F32) {
        float g;
        memcpy(&g, &tot_dev, 4);
        tot_ref = facc;
        check(fabs(g - tot_ref) <= depth * ldexp(1, -24) * fabs_acc, "scan f32 total", n, dist_names[d], 0, tot_ref, g);
    } else if (t == CLSORT_F64) {
        double g;
        memcpy(&g, &tot_dev, 8);
        check(fabs(g - facc) <= depth * ldexp(1, -53) * fabs_acc, "scan f64 total", n, dist_names[d], 0, facc, g);
    } else if (es == 4) {
        check((uint32_t)tot_dev == (uint32_t)acc, "scan total", n, dist_names[d], 0, (uint32_t)acc, (uint32_t)tot_dev);
    } else {
        check(tot_dev == acc, "scan total", n, dist_names[d], 0, (double)acc, (double)tot_dev);
    }
done:
    clReleaseMemObject(din);
    if (!in_place) clReleaseMemObject(dout);
    clReleaseMemObject(dtot);
    free(in);
    free(out);
}


/* Every type and distribution over the sizes (inclusive / in place rotating). */
static void scan_types(const test_env *e)
{
    size_t s;
    int t, d;
    for (s = 0; s < e->nsizes; ++s)
        for (t = CLSORT_U32; t < T_WIDE_END; ++t)
            for (d = 0; d < D_COUNT; ++d) {
                if (e->tiny && d != D_RANDOM && d != D_ONES) continue;
                if (e->sizes[s] > 70000 && (t != CLSORT_U32 || d > D_ONES)) continue;
                if (d != D_RANDOM && d != D_ONES && t != CLSORT_U32 && e->sizes[s] > 300) continue;
                test_scan_case(e->cs, (clsort_type)t, e->sizes[s], d, (int)((s + (size_t)d) & 1),
                               (int)((s + (size_t)t) % 3 == 0));
            }
}

static void scan_inclusive_in_place(const test_env *e)
{
    size_t s;
    for (s = 0; s < e->nsizes; ++s) test_scan_case(e->cs, CLSORT_U32, e->sizes[s], D_RANDOM, 1, 1);
}

static void scan_large(const test_env *e) { test_scan_case(e->cs, CLSORT_U32, ((size_t)1 << 22), D_RANDOM, 0, 0); }

/* clsort_scan's float prefix sums within its documented bound (clsort_scan:
 * depth * u * sum_j<=i |in[j]|, depth = ceil(n / tile) + items + 2 log2(wg)
 * + 2, here at its largest as in test_scan_case) on the ill-conditioned
 * sets of check.h, inclusive with the total: f32 and f64 at 2^20 (and
 * 2^22 + 3 in the full run), where a long fold of one work-item would pass
 * it (the reduction's partials did on CPUs). */
static void scan_ill_conditioned(const test_env *e)
{
    static const size_t sizes[2] = {(size_t)1 << 20, ((size_t)1 << 22) + 3};
    int s, t, set;
    for (s = 0; s < (e->quick ? 1 : 2); ++s) {
        const size_t n = sizes[s];
        const double depth = ceil((double)n / 2048.0) + 1024 + 2 * 10 + 2;
        void *in = malloc(n * 8), *out = malloc(n * 8);
        cl_mem dout = buffer(e->cs, n * 8, NULL), dtot = buffer(e->cs, 8, NULL);
        for (t = 0; t < 2; ++t)
            for (set = 0; set < 3; ++set) {
                const size_t es = t ? 8 : 4;
                const double half_u = t ? ldexp(1.0, -54) : ldexp(1.0, -25), u = 2 * half_u, sign = ill_sign(set);
                double B = 0, K = 0, want = 0, got = 0;
                union { float f; double d; } tot;
                size_t i;
                unsigned b, k;
                clsort_scan_desc desc;
                cl_mem din;
                char what[128];
                int r;
                for (i = 0; i < n; ++i) {
                    double x;
                    ill_term(set, i, &b, &k);
                    x = sign * ((double)b + (double)k * half_u);
                    if (t) ((double *)in)[i] = x;
                    else ((float *)in)[i] = (float)x;
                }
                din = buffer(e->cs, n * es, in);
                memset(&desc, 0, sizeof desc);
                desc.type = t ? CLSORT_F64 : CLSORT_F32;
                desc.inclusive = 1;
                desc.total = dtot;
                r = clsort_scan(e->cs, din, dout, n, &desc, NULL);
                clReleaseMemObject(din);
                if (t && r == CLSORT_ERROR_UNSUPPORTED) break; /* no fp64 */
                check(r == CLSORT_SUCCESS, "clsort_scan", n, clsort_last_error(e->cs), 0, 0, r);
                if (r != CLSORT_SUCCESS) continue;
                download(e->cs, dout, n * es, out);
                download(e->cs, dtot, es, &tot);
                for (i = 0; i < n; ++i) {
                    ill_term(set, i, &b, &k);
                    B += b;
                    K += k;
                    want = sign * (B + K * half_u);
                    got = t ? ((double *)out)[i] : (double)((float *)out)[i];
                    if (!(fabs(got - want) <= depth * u * (B + K * half_u))) break;
                }
                snprintf(what, sizeof what, "scan %s inclusive: each prefix within depth * u * sum|x|", t ? "f64" : "f32");
                check(i == n, what, n, ill_names[set], i, want, got);
                want = sign * (B + K * half_u);
                got = t ? tot.d : (double)tot.f;
                snprintf(what, sizeof what, "scan %s total within depth * u * sum|x|", t ? "f64" : "f32");
                check(fabs(got - want) <= depth * u * (B + K * half_u), what, n, ill_names[set], 0, want, got);
            }
        clReleaseMemObject(dout);
        clReleaseMemObject(dtot);
        free(in);
        free(out);
    }
}

static const test_case scan_cases[] = {
    {"types x distributions", scan_types, ON_BOTH, ANY_SIZE},
    {"u32 inclusive in place", scan_inclusive_in_place, ON_BOTH, ANY_SIZE},
    {"2^22 u32", scan_large, ON_BOTH, IN_FULL},
    {"float sums within the error bound: 1 then many u/2", scan_ill_conditioned, ON_BOTH, NOT_TINY},
    {"device count", scan_device_count, ON_BOTH, ANY_SIZE},
};
static const test_part scan_part = TEST_PART(scan, "clsort_scan", CTX_SHARED, 3);
