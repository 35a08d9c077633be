/* test_clsort, budget: the loop budget.
 *
 * Mesa llvmpipe stops a work-item's loops once all of them together have run
 * 65535 passes and goes on with wrong values (tests/llvmpipe_loop_limit.c);
 * the library shapes every launch whose loops grow with n, a tile count or a
 * wait to stay within that budget (clsort.h >>loop budget). Each case below
 * needs more than 65535 passes per work-item on llvmpipe without it (run on
 * rusticl with the loop_budget hook = 1, CLSORT_LOOP_BUDGET=off, it fails):
 * a reduction and histograms over one forced work-group (a work-item loops
 * over n / 16 elements; for 8-byte samples in bins that are not a power of
 * two each sample also runs a 96-pass division loop), the look-back scan and pack with 782 reversed tiles
 * (each tile's fallback sums every predecessor), radius queries that walk all
 * 2n - 1 nodes of a 40000-point tree, and on llvmpipe all-pairs N-body of
 * 66000 bodies. The same shaping runs on every device through the test hook
 * the loop_budget hook (a small budget): more work-groups and a second level
 * of partials, the portable passes instead of the look-back (and the
 * look-back where it still fits), the classic radix passes instead of the
 * one-sweep ones, N-body's sources in pieces and the tree walks in pieces;
 * N-body and Barnes-Hut results must then equal those of one launch bit for
 * bit (one j-slice; the same walk order: the one-launch contexts walk the
 * tree per body, as the pieces do, not per group, the GPUs' default).
 * Included by tests/test_clsort.c. */

/* A context on path under the test hook loop_budget = budget (0: the
 * device's), with extra's tuning and, reverse_tiles set, the tiles in reverse
 * start order. */
static clsort_context *budget_context(clsort_path path, unsigned long budget, int reverse_tiles,
                                      const clsort_tuning *extra, const char *what)
{
    clsort_context_desc desc;
    clsort_test_hooks h;
    clsort_context *cs = NULL;
    memset(&desc, 0, sizeof desc);
    memset(&h, 0, sizeof h);
    desc.path = path;
    if (extra) desc.tuning = *extra;
    h.loop_budget = budget;
    h.reverse_tiles = reverse_tiles;
    if (clsort_create_testing(&cs, &desc, &h) != CLSORT_SUCCESS) {
        check(0, what, 0, clsort_last_error(cs), 0, 0, 0);
        clsort_destroy(cs);
        return NULL;
    }
    return cs;
}

/* Reduce and histogram over one forced work-group (tuning.reduce_groups = 1);
 * under a tiny budget with 4-element tiles: reduce_final's loop over the
 * partials would pass it, so the partials are reduced once more; on the
 * look-back path under a budget the segmented family's portable passes, by
 * offsets too (mark_counts' grid-stride loop). */
static void test_budget_reduce(int tiny)
{
    clsort_tuning t;
    clsort_context *cs;
    const char *saved = path_name;
    path_name = "loop budget";
    memset(&t, 0, sizeof t);
    t.reduce_groups = 1;
    cs = budget_context(CLSORT_PATH_AUTO, 0, 0, &t, "clsort_create with tuning.reduce_groups");
    if (cs) {
        size_t n = tiny ? 20001 : 2000003;
        test_rd_reduce_case(cs, CLSORT_U32, CLSORT_OP_SUM, n, 0);
        test_rd_reduce_case(cs, CLSORT_I32, CLSORT_OP_MIN, n, 0);
        test_rd_hist_case(cs, CLSORT_U32, n, 7, 0);
        /* 8-byte samples in 7 bins over ranges of 4333 and 2^64 - 2^60 - 2^40:
         * a division loop per sample (reduce.cl rd_div96), which the budget
         * counts too (llvmpipe lost samples from n = 10705 when it did not) */
        test_rd_hist_case(cs, CLSORT_U64, n, 7, 0);
        test_rd_hist_case(cs, CLSORT_I64, n, 7, 0);
        clsort_destroy(cs);
    }
    memset(&t, 0, sizeof t);
    t.tile_wg = 2;
    t.tile_items = 2;
    cs = budget_context(CLSORT_PATH_AUTO, 256, 0, &t, "clsort_create with the loop_budget hook");
    if (cs) {
        size_t n = tiny ? 3001 : 100003;
        rd_depth = (double)n;
        test_rd_reduce_case(cs, CLSORT_U32, CLSORT_OP_SUM, n, 0);
        test_rd_reduce_case(cs, CLSORT_U64, CLSORT_OP_MAX, n, 0);
        test_rd_hist_case(cs, CLSORT_F32, n, 5000, 0);
        test_rd_hist_case(cs, CLSORT_U64, n, 7, 0);
        clsort_destroy(cs);
    }
    memset(&t, 0, sizeof t);
    t.tile_wg = 16;
    t.tile_items = 16;
    cs = budget_context(CLSORT_PATH_LOOKBACK, 4096, 0, &t, "clsort_create with the loop_budget hook (look-back)");
    if (cs) { /* the reduction family's look-back does not run under a budget: the portable passes */
        size_t n = tiny ? 3001 : 40001;
        rd_depth = (double)n;
        test_rd_seg_case(cs, CLSORT_U32, CLSORT_OP_SUM, CLSORT_SEGMENTS_KEYS, CLSORT_U32, n, SP_SHORT, 0, 1, 0, 0);
        test_rd_seg_case(cs, CLSORT_U32, CLSORT_OP_SUM, CLSORT_SEGMENTS_OFFSETS, CLSORT_U32, n, SP_SHORT, 0, 0, 0, 0);
        test_rd_seg_case(cs, CLSORT_I32, CLSORT_OP_MAX, CLSORT_SEGMENTS_FLAGS_U32, CLSORT_U32, n, SP_SHORT, 0, 1, 0, 0);
        test_rd_rle_case(cs, CLSORT_U32, n, SP_SHORT, 1);
        clsort_destroy(cs);
    }
    path_name = saved;
}

/* The look-back scan and pack with tiles taken in reverse start order: every
 * tile sums each predecessor itself (the decoupled fallback). */
static void test_budget_lookback(int tiny, int quick)
{
    clsort_tuning t;
    clsort_context *cs;
    const char *saved = path_name;
    memset(&t, 0, sizeof t);
    t.tile_wg = 16;
    t.tile_items = 16;
    if (!quick) { /* 782 tiles of 256, each summing its predecessors (--full) */
        path_name = "lookback, tiles reversed, 16 x 16";
        cs = budget_context(CLSORT_PATH_LOOKBACK, 0, 1, &t, "clsort_create with reversed 16 x 16 tiles");
        if (cs) {
            test_scan_case(cs, CLSORT_U32, 200001, D_RANDOM, 0, 0);
            test_split_case(cs, 4, 4, 200001, F_RANDOM, 0, 0);
            clsort_destroy(cs);
        }
    }
    /* under a budget of 4096: 8 tiles of 256 fit it (the look-back runs),
     * 79 do not (the portable passes) */
    path_name = "lookback, tiles reversed, loop budget 4096";
    cs = budget_context(CLSORT_PATH_LOOKBACK, 4096, 1, &t, "clsort_create with the loop_budget hook (look-back)");
    if (cs) {
        test_scan_case(cs, CLSORT_U32, 2001, D_RANDOM, 1, 0);
        test_split_case(cs, 4, 4, 2001, F_RANDOM, 0, 0);
        test_scan_case(cs, CLSORT_I32, tiny ? 5001 : 20001, D_RANDOM, 0, 0);
        test_split_case(cs, 8, 0, tiny ? 5001 : 20001, F_RANDOM, 2, 63);
        clsort_destroy(cs);
    }
    path_name = saved;
}

/* The sort on the look-back path under a budget: the one-sweep passes (on
 * CPUs) where their walk fits, the classic passes where it does not. */
static void test_budget_sort(int tiny)
{
    clsort_tuning t;
    clsort_context *cs;
    const char *saved = path_name;
    memset(&t, 0, sizeof t);
    path_name = "lookback, loop budget 20000";
    cs = budget_context(CLSORT_PATH_LOOKBACK, 20000, 0, &t, "clsort_create with the loop_budget hook (sort)");
    if (cs) {
        test_sort_case(cs, CLSORT_U32, tiny ? 3001 : 70001, S_RANDOM, 0, 0, 0, 0, M_VAL4, 0, 0);
        test_sort_case(cs, CLSORT_U32, 1001, S_RANDOM, 0, 0, 4, 0, M_KEYS, 0, 0);
        clsort_destroy(cs);
    }
    path_name = saved;
}

/* Accelerations (and with steps, positions) of n bodies on cs and on a
 * context with the same N-body shape under a small budget: bit for bit. */
static void budget_nbody_compare(clsort_context *cs, clsort_context *cb, size_t n, int method, unsigned steps)
{
    float *pos = (float *)malloc(n * 16 + 16), *vel = (float *)malloc(n * 16 + 16);
    float *a1 = (float *)malloc(n * 16 + 16), *a2 = (float *)malloc(n * 16 + 16);
    float *p1 = (float *)malloc(n * 16 + 16), *p2 = (float *)malloc(n * 16 + 16);
    float *v1 = (float *)malloc(n * 16 + 16), *v2 = (float *)malloc(n * 16 + 16);
    size_t i, bad = n;
    double worst = 0;
    clsort_nbody_desc d;
    cl_mem dp1, dp2, da1, da2;
    char what[128];
    int r1, r2, ok = 1;
    for (i = 0; i < n; ++i) {
        int c;
        for (c = 0; c < 3; ++c) pos[4 * i + c] = (float)(urand() * 2.0 - 1.0), vel[4 * i + c] = (float)(urand() - 0.5);
        pos[4 * i + 3] = (float)(0.5 + urand());
        vel[4 * i + 3] = 0.0f;
    }
    dp1 = buffer(cs, n * 16, pos);
    dp2 = buffer(cb, n * 16, pos);
    da1 = buffer(cs, n * 16, NULL);
    da2 = buffer(cb, n * 16, NULL);
    nb_desc(&d, 0, 1e-4, 1, 0);
    d.G = 0.75;
    d.method = (clsort_nbody_method)method;
    if (method == CLSORT_NBODY_BARNES_HUT) d.theta = steps ? 0.5 : 1e-6;
    r1 = clsort_nbody_accel(cs, dp1, da1, n, &d, NULL);
    r2 = clsort_nbody_accel(cb, dp2, da2, n, &d, NULL);
    snprintf(what, sizeof what, "loop budget: nbody accel %s in pieces", method == CLSORT_NBODY_ATOMIC ? "atomic"
             : method == CLSORT_NBODY_BARNES_HUT ? (steps ? "Barnes-Hut theta 0.5" : "Barnes-Hut theta 1e-6") : "tiled");
    check(r1 == CLSORT_SUCCESS && r2 == CLSORT_SUCCESS, what, n, clsort_last_error(r1 ? cs : cb), 0, 0, r1 ? r1 : r2);
    download(cs, da1, n * 16, a1);
    download(cb, da2, n * 16, a2);
    if (method == CLSORT_NBODY_ATOMIC) { /* the pairs' atomics add in any order: against the reference */
        for (i = 0; i < n && ok; ++i)
            if (!accel_ok(pos, a2, 0, n, i, 1e-4, 0.75, 2.0 * (double)n + 16.0, &worst)) ok = 0, bad = i;
    } else {
        for (i = 0; i < n && ok; ++i)
            if (memcmp(a1 + 4 * i, a2 + 4 * i, 16) != 0) ok = 0, bad = i;
    }
    check(ok, what, n, method == CLSORT_NBODY_ATOMIC ? "within the bound" : "bit for bit", bad,
          bad < n ? (double)a1[4 * bad] : 0, bad < n ? (double)a2[4 * bad] : 0);
    if (steps && method != CLSORT_NBODY_ATOMIC) {
        nb_desc(&d, 0.01, 1e-4, steps, 0);
        d.method = (clsort_nbody_method)method;
        if (method == CLSORT_NBODY_BARNES_HUT) d.theta = 0.5;
        r1 = nb_run(cs, pos, vel, n, &d, 1, p1, v1);
        r2 = nb_run(cb, pos, vel, n, &d, 1, p2, v2);
        check(r1 == CLSORT_SUCCESS && r2 == CLSORT_SUCCESS && memcmp(p1, p2, n * 16) == 0 && memcmp(v1, v2, n * 16) == 0,
              "loop budget: nbody steps in pieces, bit for bit", n, what, 0, 0, 0);
    }
    clReleaseMemObject(dp1); clReleaseMemObject(dp2); clReleaseMemObject(da1); clReleaseMemObject(da2);
    free(pos); free(vel); free(a1); free(a2); free(p1); free(p2); free(v1); free(v2);
}

static void test_budget_nbody(int tiny)
{
    clsort_tuning t = nbody_tuning("64:2:1");
    clsort_context *cs;
    clsort_context *cb;
    t.tree_walk = CLSORT_TREE_WALK_BODY; /* the walk the pieces take (under a budget every walk is per body) */
    cs = budget_context(CLSORT_PATH_AUTO, 0, 0, &t, "clsort_create with an N-body shape");
    cb = budget_context(CLSORT_PATH_AUTO, tiny ? 256 : 700, 0, &t, "clsort_create with the loop_budget hook");
    const char *saved = path_name;
    path_name = "loop budget";
    if (cs && cb) {
        budget_nbody_compare(cs, cb, tiny ? 300 : 3001, CLSORT_NBODY_TILED, 2); /* 6 pieces of 512 sources */
        budget_nbody_compare(cs, cb, tiny ? 70 : 1500, CLSORT_NBODY_ATOMIC, 0); /* the tiled kernel instead */
    }
    if (cs && !tiny && strncmp(clsort_device_name(cs), "llvmpipe", 8) == 0) {
        /* llvmpipe's own budget: one launch would loop 258 x 258 passes per
         * work-item (its 256-wide tiles of sources); two pieces */
        clsort_context *dev = budget_context(CLSORT_PATH_AUTO, 0, 0, NULL, "clsort_create");
        if (dev) {
            size_t n = 66000, i, bad = n;
            float *pos = (float *)malloc(n * 16), *acc = (float *)malloc(n * 16);
            double worst = 0;
            clsort_nbody_desc d;
            cl_mem dp, da;
            int r, ok = 1;
            for (i = 0; i < n; ++i) {
                int c;
                for (c = 0; c < 3; ++c) pos[4 * i + c] = (float)(urand() * 2.0 - 1.0);
                pos[4 * i + 3] = (float)(0.5 + urand());
            }
            dp = buffer(dev, n * 16, pos);
            da = buffer(dev, n * 16, NULL);
            nb_desc(&d, 0, 1e-4, 1, 0);
            d.G = 0.75;
            r = clsort_nbody_accel(dev, dp, da, n, &d, NULL);
            check(r == CLSORT_SUCCESS, "loop budget: nbody accel, 66000 bodies", n, clsort_last_error(dev), 0, 0, r);
            download(dev, da, n * 16, acc);
            for (i = 0; i < n && ok; i += 1031)
                if (!accel_ok(pos, acc, 0, n, i, 1e-4, 0.75, (double)n + 16.0, &worst)) ok = 0, bad = i;
            check(ok, "loop budget: nbody accel, 66000 bodies (every 1031st row)", n, "uniform", bad, 0, worst);
            clReleaseMemObject(dp); clReleaseMemObject(da);
            free(pos); free(acc);
            clsort_destroy(dev);
        }
    }
    clsort_destroy(cs);
    clsort_destroy(cb);
    path_name = saved;
}

/* Trees built with a device count (capacity cap, counts 0 and 2/3 of it):
 * Barnes-Hut and radius counts with the walks in pieces (cb) equal those of
 * one walk over a tree of n = count (cs), bit for bit; past the count the
 * accelerations keep their bytes. */
static void budget_tree_device_count(clsort_context *cs, clsort_context *cb, size_t cap)
{
    float *pos = (float *)malloc(cap * 16), *q = (float *)malloc(64 * 16);
    unsigned char *ga = (unsigned char *)malloc(cap * 16), *wa = (unsigned char *)malloc(cap * 16);
    uint32_t gc[64], wc[64];
    size_t counts[2], k, i;
    for (i = 0; i < cap * 4; ++i) pos[i] = (float)(urand() * 2 - 1) + (i % 4 == 3 ? 1.5f : 0.0f);
    for (i = 0; i < 64 * 4; ++i) q[i] = (float)(urand() * 2 - 1);
    counts[0] = 0;
    counts[1] = cap * 2 / 3;
    for (k = 0; k < 2; ++k) {
        clsort_tree *tb = NULL, *tr = NULL;
        /* two contexts, each its own OpenCL context: buffers for each */
        cl_mem dp = buffer(cb, cap * 16, pos), dq = buffer(cb, 64 * 16, q), dc = dc_count_buffer(cb, counts[k]);
        cl_mem dp_r = buffer(cs, cap * 16, pos), dq_r = buffer(cs, 64 * 16, q);
        cl_mem acc_b = dc_out_buffer(cb, cap * 16, ga), acc_r = dc_out_buffer(cs, cap * 16, wa);
        cl_mem cnt_b = buffer(cb, 64 * 4, NULL), cnt_r = buffer(cs, 64 * 4, NULL);
        clsort_tree_desc td;
        clsort_nbody_desc nd;
        clsort_tree_radius_desc rd;
        clsort_enqueue e;
        int ok;
        memset(&td, 0, sizeof td);
        td.has_mass = 1;
        td.mass_offset = 12;
        memset(&nd, 0, sizeof nd);
        nd.softening2 = 1e-3;
        nd.theta = 0.3;
        nd.method = CLSORT_NBODY_BARNES_HUT;
        memset(&rd, 0, sizeof rd);
        rd.radius = 0.4f;
        dc_enq(&e, dc);
        ok = clsort_tree_create(cb, &tb) == CLSORT_SUCCESS && clsort_tree_create(cs, &tr) == CLSORT_SUCCESS &&
             clsort_tree_build(cb, tb, dp, cap, &td, &e) == CLSORT_SUCCESS &&
             clsort_tree_accel(cb, tb, acc_b, &nd, NULL) == CLSORT_SUCCESS;
        rd.counts = cnt_b;
        ok = ok && clsort_tree_radius(cb, tb, dq, 64, &rd, NULL, NULL) == CLSORT_SUCCESS;
        if (counts[k]) {
            rd.counts = cnt_r;
            ok = ok && clsort_tree_build(cs, tr, dp_r, counts[k], &td, NULL) == CLSORT_SUCCESS &&
                 clsort_tree_accel(cs, tr, acc_r, &nd, NULL) == CLSORT_SUCCESS &&
                 clsort_tree_radius(cs, tr, dq_r, 64, &rd, NULL, NULL) == CLSORT_SUCCESS;
        }
        check(ok, "loop budget: device count tree calls", counts[k], clsort_last_error(cb), 0, 0, 0);
        download(cb, acc_b, cap * 16, ga);
        download(cs, acc_r, cap * 16, wa);
        download(cb, cnt_b, sizeof gc, gc);
        if (counts[k]) download(cs, cnt_r, sizeof wc, wc);
        else memset(wc, 0, sizeof wc);
        check(memcmp(ga, wa, cap * 16) == 0, "loop budget: device count BH in pieces = one walk of n = count, none past it",
              counts[k], "pieces", 0, 0, 0);
        check(memcmp(gc, wc, sizeof gc) == 0, "loop budget: device count radius in pieces = one walk of n = count",
              counts[k], "pieces", 0, 0, 0);
        clReleaseMemObject(dp), clReleaseMemObject(dq), clReleaseMemObject(dc), clReleaseMemObject(acc_b);
        clReleaseMemObject(acc_r), clReleaseMemObject(cnt_b), clReleaseMemObject(cnt_r);
        clReleaseMemObject(dp_r), clReleaseMemObject(dq_r);
        clsort_tree_destroy(tb);
        clsort_tree_destroy(tr);
    }
    free(pos), free(q), free(ga), free(wa);
}

/* Radius queries over every point of 40000 (a walk of all 79999 nodes), and
 * Barnes-Hut and radius queries with the walks in pieces (a small budget)
 * against one walk each, also over trees built with a device count. */
static clsort_tuning body_walk_tuning(void)
{
    clsort_tuning t;
    memset(&t, 0, sizeof t);
    t.tree_walk = CLSORT_TREE_WALK_BODY; /* the walk the pieces take */
    return t;
}

static void test_budget_tree(int tiny)
{
    const clsort_tuning body = body_walk_tuning();
    clsort_context *cs = budget_context(CLSORT_PATH_AUTO, 0, 0, &body, "clsort_create");
    clsort_context *cb =
        budget_context(CLSORT_PATH_AUTO, tiny ? 256 : 1000, 0, NULL, "clsort_create with the loop_budget hook");
    clsort_tree *tree = NULL;
    const char *saved = path_name;
    path_name = "loop budget";
    if (cs && !tiny && clsort_tree_create(cs, &tree) == CLSORT_SUCCESS) {
        test_tree_radius(cs, tree, 40000, 20, 3, 0, 100.0f, NULL);
        clsort_tree_destroy(tree);
        tree = NULL;
    }
    if (cs && cb) {
        budget_nbody_compare(cs, cb, tiny ? 200 : 3000, CLSORT_NBODY_BARNES_HUT, 0); /* theta 1e-6: every node */
        budget_nbody_compare(cs, cb, tiny ? 200 : 3000, CLSORT_NBODY_BARNES_HUT, 2); /* theta 0.5, 2 steps */
        if (clsort_tree_create(cb, &tree) == CLSORT_SUCCESS) {
            static const float lattice[3] = {4.25f, 0.0f, 4.25f}; /* the walk in pieces, periodic */
            test_tree_radius(cb, tree, tiny ? 150 : 3000, tiny ? 9 : 40, 3, 0, 100.0f, NULL);
            test_tree_radius(cb, tree, tiny ? 150 : 3000, tiny ? 9 : 40, 2, 1, 0.5f, NULL);
            test_tree_radius(cb, tree, tiny ? 150 : 3000, tiny ? 9 : 40, 3, 1, 0.5f, lattice);
            clsort_tree_destroy(tree);
        }
        budget_tree_device_count(cs, cb, tiny ? 150 : 2000);
    }
    clsort_destroy(cs);
    clsort_destroy(cb);
    path_name = saved;
}


static void budget_scan_split(const test_env *e) { test_budget_lookback(e->tiny, e->quick); }
static void budget_radix(const test_env *e) { test_budget_sort(e->tiny); }
static void budget_reduce(const test_env *e) { test_budget_reduce(e->tiny); }
static void budget_nbody(const test_env *e) { test_budget_nbody(e->tiny); }
static void budget_tree(const test_env *e) { test_budget_tree(e->tiny); }

/* Each case makes its own contexts. */
static const test_case budget_cases[] = {
    {"scan, split: look-back, tiles reversed", budget_scan_split, ON_BOTH, ANY_SIZE},
    {"radix: look-back passes", budget_radix, ON_BOTH, ANY_SIZE},
    {"reduce, histogram, segmented", budget_reduce, ON_BOTH, ANY_SIZE},
    {"nbody in pieces", budget_nbody, ON_BOTH, ANY_SIZE},
    {"tree walks in pieces", budget_tree, ON_BOTH, ANY_SIZE},
};
static const test_part budget_part = TEST_PART(budget, "the loop budget (launches shaped to bounded loops)", CTX_NONE, 24);
