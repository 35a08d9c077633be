/* test_clsort, stress: the look-back under stress: tiles taken in reverse
 * start order (only the decoupled fallback lets them finish) and the status
 * slots with sizes and families alternating on one context. Included by
 * tests/test_clsort.c. */

/* The look-back scan, pack and one-sweep sort with their tiles taken in
 * reverse start order (the test hook reverse_tiles, a test hook): the first
 * work-group to start takes the last tile, so every tile waits on tiles no
 * work-group has started. Only the decoupled fallback (common.cl LB_FALLBACK:
 * a tile that sees no progress sums its predecessor from the input) lets them
 * finish; without it this hangs on PoCL (2 threads), PoCL basic, rusticl and
 * oclgrind. It caught the fallback's double count (a window that found the
 * prefix on the 64th idle read fell back too): wrong sums on PoCL pthread. */
static void test_reverse_tiles(int tiny, int status32)
{
    static const size_t sizes[] = {4097, 8193, 65537, 300001};
    clsort_context *cs = NULL;
    clsort_context_desc desc;
    clsort_test_hooks h;
    size_t s;
    memset(&desc, 0, sizeof desc);
    memset(&h, 0, sizeof h);
    desc.path = CLSORT_PATH_LOOKBACK;
    h.reverse_tiles = 1;
    h.status32 = status32;
    path_name = status32 ? "lookback, tiles reversed, 32-bit status pairs" : "lookback, tiles reversed";
    if (clsort_create_testing(&cs, &desc, &h) != CLSORT_SUCCESS) {
        check(0, "clsort_create with the test hook reverse_tiles", 0, clsort_last_error(cs), 0, 0, 0);
        clsort_destroy(cs);
        return;
    }
    for (s = 0; s < sizeof sizes / sizeof sizes[0] && (!tiny || sizes[s] < 10000) && (!status32 || s < 2); ++s) {
        test_scan_case(cs, CLSORT_U32, sizes[s], D_RANDOM, 0, 0);
        test_scan_case(cs, CLSORT_F32, sizes[s], D_RANDOM, 1, 1);
        test_scan_case(cs, CLSORT_I32, sizes[s], D_ONES, 1, 0);
        test_split_case(cs, 4, 4, sizes[s], F_RANDOM, 0, 0);
        test_split_case(cs, 8, 0, sizes[s], F_RANDOM, 2, 63);
        /* The one-sweep fallback has each digit's work-item count a tile's
         * keys serially (RADIX x TILE steps): small sorts, and under
         * oclgrind (--tiny) 4-bit digits over 8 bits (2 passes, 16 digits) */
        if (tiny && s == 0) test_sort_case(cs, CLSORT_U32, sizes[s], S_RANDOM, 0, 8, 4, 0, M_VAL4, 0, 0);
        if (!tiny && sizes[s] <= 65537) test_sort_case(cs, CLSORT_U32, sizes[s], S_RANDOM, 0, 0, 0, 0, M_VAL4, 0, 0);
        if (!tiny && sizes[s] <= 8193) test_sort_case(cs, CLSORT_U64, sizes[s], S_RANDOM, 0, 0, 0, 0, M_PERM, 0, 0);
    }
    clsort_destroy(cs);
}

/* The look-back status slots (clsort__status_begin): calls of every
 * look-back family with sizes going up and down (around the tile, one tile,
 * a few, 2^k +- 1), alternating on one context, so that each call finds its
 * slot's regions in every state the bookkeeping can leave them (clean,
 * partly cleaned after a larger call, grown). form 0: the default status,
 * 1: the test hook status32, 2: 16-element tiles, with which a large call's status
 * passes what a small call's kernel zeroes of it (clsort__status_budget).
 * Each call is checked against the C reference. */
static void test_status_slots(int tiny, int form)
{
    static const size_t sizes[] = {4097, 1, 12289, 4096, 300001, 4095, 65537, 2, 8193, 300001, 12289, 4097};
    size_t s, ns = sizeof sizes / sizeof sizes[0];
    clsort_context *cs = NULL;
    clsort_context_desc desc;
    clsort_test_hooks h;
    memset(&desc, 0, sizeof desc);
    memset(&h, 0, sizeof h);
    desc.path = CLSORT_PATH_LOOKBACK;
    h.status32 = form == 1;
    if (form == 2) desc.tuning.tile_wg = 4, desc.tuning.tile_items = 4;
    path_name = form == 1 ? "lookback, 32-bit status pairs, sizes alternating"
                : form == 2 ? "lookback, 16-element tiles, sizes alternating" : "lookback, sizes alternating";
    if (clsort_create_testing(&cs, &desc, &h) != CLSORT_SUCCESS) {
        check(0, "clsort_create for the status slots", 0, clsort_last_error(cs), 0, 0, 0);
        clsort_destroy(cs);
        return;
    }
    for (s = 0; s < ns && form != 2; ++s) {
        size_t n = sizes[s];
        if (tiny && n > 10000) continue;
        test_scan_case(cs, CLSORT_U32, n, D_RANDOM, (int)(s & 1), 0);
        test_split_case(cs, 4, 4, n, F_RANDOM, 0, 0);
        if (n < 70000) test_scan_case(cs, CLSORT_F32, n, D_RANDOM, 1, (int)(s % 3 == 0));
        rd_depth = ceil((double)n / 2048.0) + 4 * (1024 + 10) + 8;
        test_rd_seg_case(cs, CLSORT_U32, CLSORT_OP_SUM, CLSORT_SEGMENTS_FLAGS_U32, CLSORT_U32, n, SP_SHORT, 0,
                         (int)(s & 1), 0, 0);
        if (n < 70000) {
            test_sort_case(cs, CLSORT_U32, n, S_RANDOM, 0, 0, 0, 0, s & 1 ? M_VAL4 : M_KEYS, 0, (int)(s % 3 == 1));
            if (!tiny && n < 10000) test_sort_case(cs, CLSORT_U64, n, S_RANDOM, 0, 0, 0, 1, M_PERM, 0, 0);
        }
        if (!tiny) test_scan_case(cs, CLSORT_U32, n, D_ONES, 0, 1); /* in place */
    }
    /* 16-element tiles: a large call, one small call (which zeroes only
     * part of the large one's status), a large call again, on one slot */
    for (s = 0; s < 8 && form == 2 && !tiny; ++s) {
        size_t n = s % 2 ? (s % 4 == 1 ? 4095 : 1) : 300001;
        if (s < 4) test_scan_case(cs, CLSORT_U32, n, D_RANDOM, 0, 0);
        else test_split_case(cs, 4, 0, n, F_RANDOM, 0, 0);
    }
    clsort_destroy(cs);
}


static void stress_reverse(const test_env *e) { test_reverse_tiles(e->tiny, 0); }
static void stress_reverse32(const test_env *e) { test_reverse_tiles(e->tiny, 1); } /* the other status form */
static void stress_status(const test_env *e) { test_status_slots(e->tiny, 0); }
static void stress_status32(const test_env *e) { test_status_slots(e->tiny, 1); }
static void stress_status_small_tiles(const test_env *e) { test_status_slots(e->tiny, 2); }

/* Each case makes its own look-back contexts. */
static const test_case stress_cases[] = {
    {"reverse tiles", stress_reverse, ON_BOTH, ANY_SIZE},
    {"reverse tiles, 32-bit status pairs", stress_reverse32, ON_BOTH, NOT_QUICK},
    {"status slots, sizes and families alternating", stress_status, ON_BOTH, ANY_SIZE},
    {"status slots, 32-bit status pairs", stress_status32, ON_BOTH, NOT_QUICK},
    {"status slots, 16-element tiles", stress_status_small_tiles, ON_BOTH, NOT_TINY},
};
static const test_part stress_part = TEST_PART(stress, "the look-back: tiles in reverse order, status slots", CTX_NONE, 21);
