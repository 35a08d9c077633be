/* test_clsort, binning: clsort_cell_keys, clsort_cell_offsets and
 * clsort_bin (sort and atomic methods) on 2D and 3D grids, periodic and
 * closed, row-major and Morton, strided records, positions on cell edges,
 * outside the domain and NaN, against the documented cell rule in the
 * kernel's float operations and a stable counting sort. Included by
 * tests/test_clsort.c. */

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}


typedef struct bin_grid_case {
    const char *name;
    clsort_grid_desc g;
    int with_offsets; /* the key range is small enough for an offsets array */
} bin_grid_case;

/* The documented cell rule, in the same float operations as kernels/bin.cl. */
static uint32_t ref_axis(float p, float origin, float h, unsigned cells, int periodic)
{
    volatile float inv = 1.0f / h, t = floorf((p - origin) * inv);
    long long c;
    if (t != t) c = 0;
    else if (t >= 9223372036854775808.0f) c = LLONG_MAX;
    else if (t < -9223372036854775808.0f) c = LLONG_MIN;
    else c = (long long)t;
    if (periodic) {
        c %= (long long)cells;
        return (uint32_t)(c < 0 ? c + (long long)cells : c);
    }
    return (uint32_t)(c < 0 ? 0 : c >= (long long)cells ? (long long)cells - 1 : c);
}

static uint32_t ref_cell_key(const clsort_grid_desc *g, const float *p)
{
    unsigned dims = g->dims ? g->dims : 2, a, b;
    uint32_t c[3] = {0, 0, 0}, key = 0;
    for (a = 0; a < dims; ++a) c[a] = ref_axis(p[a], g->origin[a], g->cell_size[a], g->cells[a], g->periodic[a]);
    if (g->order == CLSORT_CELL_MORTON) {
        for (b = 0; b * dims < 32; ++b)
            for (a = 0; a < dims && b * dims + a < 32; ++a) key |= ((c[a] >> b) & 1u) << (b * dims + a);
        return key;
    }
    return (c[2] * (dims == 3 ? g->cells[1] : 1) + c[1]) * g->cells[0] + c[0];
}

enum { P_UNIFORM, P_EDGES, P_OUTSIDE, P_ONE_CELL, P_SPECIALS, P_CLUSTERED, P_COUNT };
static const char *pos_dist_names[] = {"uniform", "cell-edges", "outside-domain", "one-cell", "nan-inf-huge", "clustered"};

static float unit_rand(void) { return (float)((double)(rnd64() >> 40) / 16777216.0); }

/* One coordinate of distribution d along an axis of `cells` cells of edge h. */
static float pos_coord(int d, float origin, float h, unsigned cells, size_t i)
{
    float len = h * (float)cells;
    switch (d) {
    case P_UNIFORM: return origin + unit_rand() * len;
    case P_EDGES: return origin + h * (float)(rnd64() % (cells + 1)); /* includes the far boundary */
    case P_OUTSIDE: return origin - 2.0f * len + unit_rand() * 5.0f * len;
    case P_ONE_CELL: return origin + h * ((float)(cells / 2) + 0.5f);
    case P_SPECIALS: {
        static const float sp[8] = {0.0f, -0.0f, 1e30f, -1e30f, 3e38f, -3e38f, 0.0f, 0.0f};
        uint64_t r = rnd64() % 10;
        if (r < 6) return sp[r];
        if (r == 6) return (float)INFINITY * (i & 1 ? 1.0f : -1.0f);
        if (r == 7) return (float)NAN;
        return origin + unit_rand() * len;
    }
    default: return origin + h * (float)(rnd64() % 3) + unit_rand() * h * 0.999f;
    }
}

/* Positions as records of `stride` bytes with x at byte `offset`. */
static float *make_positions(const clsort_grid_desc *g, size_t n, int d, size_t *bytes)
{
    unsigned dims = g->dims ? g->dims : 2, a;
    size_t stride = g->stride ? g->stride : dims * 4, i, total = n ? (n - 1) * stride + g->offset + dims * 4 : 4;
    float *p = (float *)malloc(total + 16);
    for (i = 0; i < total / 4; ++i) p[i] = -7.25f; /* padding: any value, must not matter */
    for (i = 0; i < n; ++i)
        for (a = 0; a < dims; ++a)
            p[(i * stride + g->offset) / 4 + a] = pos_coord(d, g->origin[a], g->cell_size[a], g->cells[a], i);
    *bytes = total;
    return p;
}

static void ref_keys(const clsort_grid_desc *g, const float *pos, size_t n, uint32_t *keys)
{
    unsigned dims = g->dims ? g->dims : 2;
    size_t stride = g->stride ? g->stride : dims * 4, i;
    for (i = 0; i < n; ++i) keys[i] = ref_cell_key(g, pos + (i * stride + g->offset) / 4);
}

static const uint32_t *ref_bin_keys;
static int cmp_by_key_then_index(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t kx = ref_bin_keys[x], ky = ref_bin_keys[y];
    return kx != ky ? (kx > ky) - (kx < ky) : (x > y) - (x < y);
}

/* Stable counting sort by key (keys < cells): the expected permutation and
 * offsets; without offsets (huge key ranges) a qsort by (key, index). */
static void ref_bin(const uint32_t *keys, size_t n, size_t cells, uint32_t *perm, uint32_t *offsets)
{
    size_t i, c;
    uint32_t *cur;
    if (!offsets) {
        for (i = 0; i < n; ++i) perm[i] = (uint32_t)i;
        ref_bin_keys = keys;
        qsort(perm, n, 4, cmp_by_key_then_index);
        return;
    }
    cur = (uint32_t *)calloc(cells + 1, 4);
    for (i = 0; i < n; ++i) cur[keys[i] + 1]++;
    for (c = 0; c < cells; ++c) cur[c + 1] += cur[c];
    if (offsets) memcpy(offsets, cur, (cells + 1) * 4);
    for (i = 0; i < n; ++i) perm[cur[keys[i]]++] = (uint32_t)i;
    free(cur);
}

static size_t first_diff_u32(const uint32_t *a, const uint32_t *b, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        if (a[i] != b[i]) return i;
    return (size_t)-1;
}

/* clsort_cell_keys and clsort_bin on one grid, distribution and size; both
 * methods; attributes of 4, 12, 16 and 40 bytes, one of them in place. */
static void test_bin_case(clsort_context *cs, const bin_grid_case *gc, size_t n, int d, clsort_bin_method method)
{
    static const size_t attr_size[4] = {4, 12, 16, 40};
    const clsort_grid_desc *g = &gc->g;
    size_t pbytes, num_cells = 0, i, at, bad;
    unsigned key_bits = 0;
    float *pos = make_positions(g, n, d, &pbytes);
    uint32_t *want_k = (uint32_t *)malloc(n * 4 + 4), *got = (uint32_t *)malloc(n * 4 + 4);
    uint32_t *want_p = (uint32_t *)malloc(n * 4 + 4), *got_p = (uint32_t *)malloc(n * 4 + 4);
    uint32_t *want_o = NULL, *got_o = NULL, *sorted_ref = (uint32_t *)malloc(n * 4 + 4);
    unsigned char *src[4], *dst = (unsigned char *)malloc(n * 40 + 40);
    cl_mem dpos, dkeys, dperm, doff = NULL, dsrc[4], ddst[4];
    clsort_attribute attrs[4];
    clsort_bin_desc bd;
    char what[160];
    int r;
    check(clsort_grid_keys(cs, g, &num_cells, &key_bits) == CLSORT_SUCCESS, "grid_keys", n, gc->name, 0, 0, 0);
    ref_keys(g, pos, n, want_k);
    dpos = buffer(cs, pbytes, pos);
    dkeys = buffer(cs, n * 4, NULL);
    dperm = buffer(cs, n * 4, NULL);
    /* cell keys alone */
    snprintf(what, sizeof what, "cell_keys %s", gc->name);
    r = clsort_cell_keys(cs, dpos, dkeys, n, g, NULL);
    check(r == CLSORT_SUCCESS, what, n, pos_dist_names[d], 0, 0, r);
    download(cs, dkeys, n * 4, got);
    bad = first_diff_u32(want_k, got, n);
    check(bad == (size_t)-1, what, n, pos_dist_names[d], bad, bad < n ? want_k[bad] : 0, bad < n ? got[bad] : 0);
    /* the whole binning */
    if (gc->with_offsets) {
        want_o = (uint32_t *)malloc((num_cells + 1) * 4);
        got_o = (uint32_t *)malloc((num_cells + 1) * 4);
        doff = buffer(cs, (num_cells + 1) * 4, NULL);
    }
    ref_bin(want_k, n, num_cells, want_p, want_o);
    for (i = 0; i < n; ++i) sorted_ref[i] = want_k[want_p[i]];
    for (at = 0; at < 4; ++at) {
        size_t b, sz = n * attr_size[at];
        src[at] = (unsigned char *)malloc(sz + 1);
        for (b = 0; b < sz; ++b) src[at][b] = (unsigned char)rnd64();
        dsrc[at] = buffer(cs, sz, src[at]);
        ddst[at] = at == 2 ? dsrc[at] : buffer(cs, sz, NULL); /* the 16-byte one in place */
        attrs[at].src = dsrc[at];
        attrs[at].dst = ddst[at];
        attrs[at].elem_size = attr_size[at];
    }
    memset(&bd, 0, sizeof bd);
    bd.grid = *g;
    bd.method = method;
    bd.cell_keys = dkeys;
    bd.permutation = dperm;
    bd.cell_offsets = doff;
    bd.attributes = attrs;
    bd.attribute_count = 4;
    snprintf(what, sizeof what, "bin %s %s", method == CLSORT_BIN_SORT ? "sort" : "atomic", gc->name);
    r = clsort_bin(cs, dpos, n, &bd, NULL);
    check(r == CLSORT_SUCCESS, what, n, pos_dist_names[d], 0, 0, r);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    download(cs, dkeys, n * 4, got);
    download(cs, dperm, n * 4, got_p);
    bad = first_diff_u32(sorted_ref, got, n);
    snprintf(what, sizeof what, "bin %s %s: sorted keys", method == CLSORT_BIN_SORT ? "sort" : "atomic", gc->name);
    check(bad == (size_t)-1, what, n, pos_dist_names[d], bad, bad < n ? sorted_ref[bad] : 0, bad < n ? got[bad] : 0);
    if (method == CLSORT_BIN_SORT) { /* stable: exactly the counting sort's permutation */
        bad = first_diff_u32(want_p, got_p, n);
        snprintf(what, sizeof what, "bin sort %s: stable permutation", gc->name);
        check(bad == (size_t)-1, what, n, pos_dist_names[d], bad, bad < n ? want_p[bad] : 0, bad < n ? got_p[bad] : 0);
    } else { /* a permutation whose keys are the sorted keys */
        unsigned char *seen = (unsigned char *)calloc(n + 1, 1);
        bad = (size_t)-1;
        for (i = 0; i < n && bad == (size_t)-1; ++i) {
            if (got_p[i] >= n || seen[got_p[i]] || want_k[got_p[i]] != got[i]) bad = i;
            else seen[got_p[i]] = 1;
        }
        snprintf(what, sizeof what, "bin atomic %s: permutation of the sorted keys", gc->name);
        check(bad == (size_t)-1, what, n, pos_dist_names[d], bad, 0, bad < n ? got_p[bad] : 0);
        free(seen);
    }
    if (doff) {
        download(cs, doff, (num_cells + 1) * 4, got_o);
        bad = first_diff_u32(want_o, got_o, num_cells + 1);
        snprintf(what, sizeof what, "bin %s %s: cell offsets", method == CLSORT_BIN_SORT ? "sort" : "atomic", gc->name);
        check(bad == (size_t)-1, what, n, pos_dist_names[d], bad, bad <= num_cells ? want_o[bad] : 0,
              bad <= num_cells ? got_o[bad] : 0);
    }
    for (at = 0; at < 4; ++at) { /* dst[i] = src[perm[i]] with the permutation the call returned */
        size_t es = attr_size[at];
        download(cs, ddst[at], n * es, dst);
        bad = (size_t)-1;
        for (i = 0; i < n && bad == (size_t)-1; ++i)
            if (got_p[i] >= n || memcmp(dst + i * es, src[at] + (size_t)got_p[i] * es, es) != 0) bad = i;
        snprintf(what, sizeof what, "bin %s: %lu-byte attribute%s", gc->name, (unsigned long)es, at == 2 ? " in place" : "");
        check(bad == (size_t)-1, what, n, pos_dist_names[d], bad, 0, 0);
        clReleaseMemObject(dsrc[at]);
        if (at != 2) clReleaseMemObject(ddst[at]);
        free(src[at]);
    }
    download(cs, dpos, pbytes, dst);
    check(memcmp(dst, pos, pbytes) == 0, "bin leaves positions untouched", n, pos_dist_names[d], 0, 0, 0);
    clReleaseMemObject(dpos); clReleaseMemObject(dkeys); clReleaseMemObject(dperm);
    if (doff) clReleaseMemObject(doff);
    free(pos); free(want_k); free(got); free(want_p); free(got_p); free(want_o); free(got_o); free(sorted_ref); free(dst);
}

/* clsort_cell_offsets on sorted keys with empty cells, everything in one
 * cell (first, middle, last), keys past num_cells. */
static void test_cell_offsets(clsort_context *cs, size_t n, size_t cells, int pattern)
{
    uint32_t *keys = (uint32_t *)malloc(n * 4 + 4), *want = (uint32_t *)malloc(cells * 4 + 8),
             *got = (uint32_t *)malloc(cells * 4 + 8);
    size_t i, c, bad;
    cl_mem dk, doff;
    static const char *pn[] = {"random", "one-cell-first", "one-cell-middle", "one-cell-last", "keys-past-cells", "sparse"};
    for (i = 0; i < n; ++i)
        keys[i] = pattern == 0 ? (uint32_t)(rnd64() % cells) : pattern == 1 ? 0u : pattern == 2 ? (uint32_t)(cells / 2)
                : pattern == 3 ? (uint32_t)(cells - 1) : pattern == 4 ? (uint32_t)(rnd64() % (cells + 5))
                : (uint32_t)(rnd64() % 4 * (cells / 4));
    qsort(keys, n, 4, cmp_u32);
    for (c = 0; c <= cells; ++c) { /* first index with key >= c, by counting */
        size_t k = 0;
        if (c > 0) k = want[c - 1];
        while (k < n && keys[k] < c) ++k;
        want[c] = (uint32_t)k;
    }
    dk = buffer(cs, n * 4, keys);
    doff = buffer(cs, (cells + 1) * 4, NULL);
    check(clsort_cell_offsets(cs, dk, n, cells, doff, NULL) == CLSORT_SUCCESS, "cell_offsets", n, pn[pattern], 0, 0, 0);
    download(cs, doff, (cells + 1) * 4, got);
    bad = first_diff_u32(want, got, cells + 1);
    check(bad == (size_t)-1, cells >= ((size_t)1 << 20) ? "cell_offsets 2^20 cells" : "cell_offsets", n, pn[pattern],
          bad, bad <= cells ? want[bad] : 0, bad <= cells ? got[bad] : 0);
    clReleaseMemObject(dk); clReleaseMemObject(doff);
    free(keys); free(want); free(got);
}

static void test_bin_arguments(clsort_context *cs)
{
    float data[256];
    unsigned char back[1024];
    cl_mem pos, small, a, b, c;
    clsort_bin_desc bd, good;
    clsort_attribute at[2];
    size_t i, cells = 0;
    unsigned bits = 0;
    int ok;
    for (i = 0; i < 256; ++i) data[i] = (float)i * 0.01f;
    pos = buffer(cs, 1024, data);
    small = buffer(cs, 16, data);
    a = buffer(cs, 1024, data);
    b = buffer(cs, 1024, data);
    c = buffer(cs, 1024, data);
    memset(&good, 0, sizeof good);
    good.grid.cells[0] = good.grid.cells[1] = 8;
    good.grid.cell_size[0] = good.grid.cell_size[1] = 0.125f;
    good.cell_keys = a;
    good.permutation = b;
    bd = good; bd.grid.dims = 4;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin dims 4");
    bd = good; bd.grid.cells[1] = 0;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin zero cells");
    bd = good; bd.grid.cell_size[0] = 0.0f;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin cell_size 0");
    bd = good; bd.grid.cell_size[1] = -1.0f;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin negative cell_size");
    bd = good; bd.grid.cell_size[0] = (float)NAN;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin NaN cell_size");
    bd = good; bd.grid.origin[1] = (float)INFINITY;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin infinite origin");
    bd = good; bd.grid.periodic[0] = 2;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin periodic 2");
    bd = good; bd.grid.order = (clsort_cell_order)9;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin unknown order");
    bd = good; bd.grid.stride = 6;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin stride 6");
    bd = good; bd.grid.stride = 64;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin positions too small");
    check(strstr(clsort_last_error(cs), "positions") != NULL, "bin positions message", 0, "-", 0, 0, 0);
    bd = good; bd.grid.dims = 3; bd.grid.order = CLSORT_CELL_MORTON; bd.grid.cells[2] = 2048; bd.grid.cell_size[2] = 1;
    EXPECT_ERR(clsort_bin(cs, pos, 10, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin Morton key past 32 bits");
    bd = good; bd.grid.dims = 3; bd.grid.cells[0] = bd.grid.cells[1] = 65536; bd.grid.cells[2] = 2; bd.grid.cell_size[2] = 1;
    EXPECT_ERR(clsort_bin(cs, pos, 10, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin more than 2^32 cells");
    bd = good; bd.method = (clsort_bin_method)5;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin unknown method");
    bd = good; bd.radix_bits = 13;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin radix_bits 13");
    bd = good; bd.permutation = a;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin permutation == cell_keys");
    bd = good; bd.cell_keys = pos;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin cell_keys == positions");
    bd = good; bd.cell_offsets = small;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin offsets too small");
    bd = good; bd.attribute_count = 1;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin attribute_count without attributes");
    at[0].src = c; at[0].dst = small; at[0].elem_size = 4;
    bd = good; bd.attributes = at; bd.attribute_count = 1;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin attribute dst too small");
    at[0].dst = c; at[0].elem_size = 0;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin attribute elem_size 0");
    at[0].elem_size = 4; at[0].dst = b;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin attribute dst == permutation");
    at[0].src = c; at[0].dst = pos;
    EXPECT_ERR(clsort_bin(cs, pos, 64, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin attribute dst == positions");
    at[0].src = c; at[0].dst = small; at[1].src = small; at[1].dst = c; at[0].elem_size = at[1].elem_size = 4;
    bd.attribute_count = 2;
    EXPECT_ERR(clsort_bin(cs, pos, 4, &bd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin attribute dst is another's src");
    EXPECT_ERR(clsort_bin(cs, pos, 64, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "bin NULL desc");
    EXPECT_ERR(clsort_cell_keys(cs, pos, small, 64, &good.grid, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "cell_keys keys too small");
    EXPECT_ERR(clsort_cell_keys(cs, pos, a, 64, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "cell_keys NULL grid");
    EXPECT_ERR(clsort_cell_offsets(cs, a, 64, 64, small, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "cell_offsets too small");
    EXPECT_ERR(clsort_cell_offsets(cs, a, 64, 16, a, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "cell_offsets aliasing keys");
    EXPECT_ERR(clsort_grid_keys(cs, NULL, &cells, &bits), CLSORT_ERROR_INVALID_ARGUMENT, "grid_keys NULL");
    ok = 1;
    download(cs, pos, 1024, back); ok = ok && memcmp(back, data, 1024) == 0;
    download(cs, a, 1024, back); ok = ok && memcmp(back, data, 1024) == 0;
    download(cs, b, 1024, back); ok = ok && memcmp(back, data, 1024) == 0;
    download(cs, c, 1024, back); ok = ok && memcmp(back, data, 1024) == 0;
    download(cs, small, 16, back); ok = ok && memcmp(back, data, 16) == 0;
    check(ok, "bin errors leave every buffer untouched", 0, "bad-argument", 0, 0, 0);
    /* the key ranges the header documents */
    check(clsort_grid_keys(cs, &good.grid, &cells, &bits) == CLSORT_SUCCESS && cells == 64 && bits == 6,
          "grid_keys 8x8 row-major: 64 cells, 6 bits", 0, "-", 0, (double)cells, bits);
    bd = good; bd.grid.cells[0] = 32; bd.grid.cells[1] = 32;
    check(clsort_grid_keys(cs, &bd.grid, &cells, &bits) == CLSORT_SUCCESS && cells == 1024 && bits == 10,
          "grid_keys 32x32: 1024 cells, 10 bits", 0, "-", 0, (double)cells, bits);
    bd.grid.dims = 3; bd.grid.cells[0] = 5; bd.grid.cells[1] = 3; bd.grid.cells[2] = 9; bd.grid.order = CLSORT_CELL_MORTON;
    bd.grid.cell_size[2] = 1.0f;
    check(clsort_grid_keys(cs, &bd.grid, &cells, &bits) == CLSORT_SUCCESS && cells == 4096 && bits == 12,
          "grid_keys Morton 5x3x9: 2^12 keys", 0, "-", 0, (double)cells, bits);
    good.cell_offsets = c; /* n = 0: offsets all zero */
    check(clsort_bin(cs, NULL, 0, &good, NULL) == CLSORT_SUCCESS, "bin n=0", 0, "-", 0, 0, 0);
    download(cs, c, 65 * 4, back);
    for (i = 0; i < 65 * 4 && back[i] == 0; ++i) {}
    check(i == 65 * 4, "bin n=0 writes zero offsets", 0, "-", i, 0, 0);
    clReleaseMemObject(pos); clReleaseMemObject(small); clReleaseMemObject(a); clReleaseMemObject(b); clReleaseMemObject(c);
}

/* The grids: Helluy's periodic square, closed boxes, Morton orders, one
 * cell, 2^20 cells, 30-bit keys. Returns the count (at most 7). */
static size_t bin_grids(bin_grid_case *grids)
{
    size_t ng = 0;
    memset(grids, 0, 7 * sizeof *grids);
    /* Helluy's grid: the periodic unit square, 32 x 32, packed float2 */
    grids[ng].name = "2D 32x32 periodic";
    grids[ng].g.cells[0] = grids[ng].g.cells[1] = 32;
    grids[ng].g.cell_size[0] = grids[ng].g.cell_size[1] = 1.0f / 32;
    grids[ng].g.periodic[0] = grids[ng].g.periodic[1] = 1;
    grids[ng++].with_offsets = 1;
    /* closed 7 x 5 box, origin off zero, float4 records */
    grids[ng].name = "2D 7x5 closed float4";
    grids[ng].g.cells[0] = 7; grids[ng].g.cells[1] = 5;
    grids[ng].g.origin[0] = -1.5f; grids[ng].g.origin[1] = 2.0f;
    grids[ng].g.cell_size[0] = 0.3f; grids[ng].g.cell_size[1] = 0.75f;
    grids[ng].g.stride = 16;
    grids[ng++].with_offsets = 1;
    /* 3D Morton, periodic in x and z only, 40-byte records with x at byte 12 */
    grids[ng].name = "3D 16x8x4 Morton 40-byte records";
    grids[ng].g.dims = 3;
    grids[ng].g.cells[0] = 16; grids[ng].g.cells[1] = 8; grids[ng].g.cells[2] = 4;
    grids[ng].g.cell_size[0] = grids[ng].g.cell_size[1] = grids[ng].g.cell_size[2] = 0.25f;
    grids[ng].g.periodic[0] = grids[ng].g.periodic[2] = 1;
    grids[ng].g.order = CLSORT_CELL_MORTON;
    grids[ng].g.stride = 40; grids[ng].g.offset = 12;
    grids[ng++].with_offsets = 1;
    /* 3D Morton, axes not powers of two, closed */
    grids[ng].name = "3D 5x3x7 Morton closed";
    grids[ng].g.dims = 3;
    grids[ng].g.cells[0] = 5; grids[ng].g.cells[1] = 3; grids[ng].g.cells[2] = 7;
    grids[ng].g.cell_size[0] = 1.0f; grids[ng].g.cell_size[1] = 2.0f; grids[ng].g.cell_size[2] = 0.5f;
    grids[ng].g.order = CLSORT_CELL_MORTON;
    grids[ng++].with_offsets = 1;
    /* 3D row-major 1 x 1 x 1: one cell */
    grids[ng].name = "3D one cell";
    grids[ng].g.dims = 3;
    grids[ng].g.cells[0] = grids[ng].g.cells[1] = grids[ng].g.cells[2] = 1;
    grids[ng].g.cell_size[0] = grids[ng].g.cell_size[1] = grids[ng].g.cell_size[2] = 1.0f;
    grids[ng++].with_offsets = 1;
    /* 2^20 cells */
    grids[ng].name = "2D 1024x1024 periodic";
    grids[ng].g.cells[0] = grids[ng].g.cells[1] = 1024;
    grids[ng].g.cell_size[0] = grids[ng].g.cell_size[1] = 1.0f / 1024;
    grids[ng].g.periodic[0] = grids[ng].g.periodic[1] = 1;
    grids[ng++].with_offsets = 1;
    /* 30-bit Morton keys (no offsets array: 2^30 cells) */
    grids[ng].name = "3D 1024^3 Morton";
    grids[ng].g.dims = 3;
    grids[ng].g.cells[0] = grids[ng].g.cells[1] = grids[ng].g.cells[2] = 1024;
    grids[ng].g.cell_size[0] = grids[ng].g.cell_size[1] = grids[ng].g.cell_size[2] = 1.0f / 1024;
    grids[ng].g.order = CLSORT_CELL_MORTON;
    grids[ng++].with_offsets = 0;
    return ng;
}

static void bin_methods(const test_env *e)
{
    static const size_t sizes[] = {65537, 4097, 1009, 257, 31, 3, 2, 1, 0};
    bin_grid_case grids[7];
    size_t s, gi, ng = bin_grids(grids);
    int d, m;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        size_t n = sizes[s];
        if (e->tiny && n != 1009 && n != 3 && n != 0) continue;
        if (e->quick && !e->tiny && n > 5000) continue;
        for (gi = 0; gi < ng; ++gi)
            for (d = 0; d < P_COUNT; ++d)
                for (m = 0; m < 2; ++m) {
                    if (e->tiny && (gi == 5 || gi == 6 || (d != P_UNIFORM && d != P_EDGES))) continue;
                    if (!grids[gi].with_offsets && m == CLSORT_BIN_ATOMIC) continue; /* a counter per key: 4 GiB */
                    if (n > 5000 && d != P_UNIFORM && d != (int)(gi % P_COUNT)) continue;
                    test_bin_case(e->cs, &grids[gi], n, d, (clsort_bin_method)m);
                }
    }
}

/* A million particles in Helluy's grid, both methods. */
static void bin_large(const test_env *e)
{
    bin_grid_case grids[7];
    bin_grids(grids);
    test_bin_case(e->cs, &grids[0], ((size_t)1 << 20) + 1, P_UNIFORM, CLSORT_BIN_SORT);
    test_bin_case(e->cs, &grids[0], ((size_t)1 << 20) + 1, P_CLUSTERED, CLSORT_BIN_ATOMIC);
}

static void bin_offsets(const test_env *e)
{
    int d;
    for (d = 0; d < 6; ++d) {
        test_cell_offsets(e->cs, e->tiny ? 300 : 5000, e->tiny ? 64 : 1000, d);
        if (!e->tiny) test_cell_offsets(e->cs, 0, 17, d);
    }
    if (!e->quick) test_cell_offsets(e->cs, (size_t)1 << 20, (size_t)1 << 20, 0);
}

static void bin_arguments(const test_env *e) { test_bin_arguments(e->cs); }

/* clsort_prepare(CLSORT_PREPARE_BINNING) builds every program the clsort_bin
 * it describes needs: after it, the call builds nothing. Both methods, with
 * 4-, 12- and 16-byte attributes (apart and in place), cell offsets or
 * none, each in a fresh context (its program count starts at 0). */
static void bin_prepare_covers(const test_env *e)
{
    enum { N = 1000 };
    static const size_t sizes[3] = {4, 12, 16};
    float *rec = (float *)malloc(N * 16);
    cl_mem pos, src, dst, offs;
    size_t i;
    int m, a, in_place;
    for (i = 0; i < 4 * N; ++i) rec[i] = (float)((double)(rnd64() >> 11) / 9007199254740992.0);
    pos = buffer(e->cs, N * 16, rec);
    src = buffer(e->cs, N * 16, rec);
    dst = buffer(e->cs, N * 16, NULL);
    offs = buffer(e->cs, (32 * 32 + 1) * 4, NULL);
    for (m = CLSORT_BIN_SORT; m <= CLSORT_BIN_ATOMIC; ++m)
        for (a = -1; a < 3; ++a)
            for (in_place = 0; in_place < (a < 0 ? 1 : 2); ++in_place) {
                clsort_context *cs;
                clsort_bin_desc bd;
                clsort_attribute at;
                clsort_prepare_call call;
                clsort_prepare_desc pd;
                clsort_cache_stats st;
                unsigned long prepared;
                char what[160];
                cs = counting_context(e->cs, e->path, 0, "context with counting cache callbacks");
                if (!cs) continue;
                memset(&bd, 0, sizeof bd);
                bd.grid.dims = 2;
                bd.grid.cells[0] = bd.grid.cells[1] = 32;
                bd.grid.cell_size[0] = bd.grid.cell_size[1] = 1.0f / 32;
                bd.grid.stride = 16;
                bd.method = (clsort_bin_method)m;
                bd.cell_offsets = in_place ? offs : NULL;
                at.src = src;
                at.dst = in_place ? src : dst;
                at.elem_size = a < 0 ? 4 : sizes[a];
                bd.attributes = a < 0 ? NULL : &at;
                bd.attribute_count = a < 0 ? 0 : 1;
                memset(&call, 0, sizeof call);
                call.op = CLSORT_PREPARE_BINNING;
                call.n = N;
                call.bin = &bd;
                memset(&pd, 0, sizeof pd);
                pd.calls = &call;
                pd.count = 1;
                snprintf(what, sizeof what, "clsort_bin after clsort_prepare builds nothing: %s, %s%s",
                         m == CLSORT_BIN_SORT ? "sort" : "atomic",
                         a < 0 ? "no attribute" : a == 0 ? "4-byte attribute" : a == 1 ? "12-byte attribute"
                                                                                    : "16-byte attribute",
                         in_place ? " in place, offsets" : "");
                check(clsort_prepare(cs, &pd) == CLSORT_SUCCESS, "clsort_prepare(bin)", N, clsort_last_error(cs), 0, 0,
                      0);
                clsort_cache_stats_get(cs, &st);
                prepared = st.builds + st.hits;
                check(clsort_bin(cs, pos, N, &bd, NULL) == CLSORT_SUCCESS && clFinish(clsort_cl_queue(cs)) == CL_SUCCESS,
                      "clsort_bin", N, clsort_last_error(cs), 0, 0, 0);
                clsort_cache_stats_get(cs, &st);
                check(st.enabled && prepared > 0 && st.builds + st.hits == prepared, what, N, "-", 0, (double)prepared,
                      (double)(st.builds + st.hits));
                clsort_destroy(cs);
            }
    clReleaseMemObject(pos);
    clReleaseMemObject(src);
    clReleaseMemObject(dst);
    clReleaseMemObject(offs);
    free(rec);
}

static const test_case binning_cases[] = {
    {"grids x distributions x methods", bin_methods, ON_BOTH, ANY_SIZE},
    {"2^20 particles", bin_large, ON_BOTH, IN_FULL},
    {"cell offsets", bin_offsets, ON_BOTH, ANY_SIZE},
    {"arguments", bin_arguments, ON_BOTH, ANY_SIZE},
    {"prepare covers the call (methods x attributes)", bin_prepare_covers, ON_PORTABLE, ANY_SIZE},
    {"device count", binning_device_count, ON_BOTH, ANY_SIZE},
};
static const test_part binning_part = TEST_PART(binning, "clsort_cell_keys, clsort_cell_offsets, clsort_bin", CTX_SHARED, 4);
