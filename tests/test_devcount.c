/* test_clsort, device counts (clsort_enqueue.count): scan, enumerate / pack /
 * split, gather, the radix sort, cell keys / offsets and bin with their
 * element count read on the device, against a plain C reference run over
 * the first `count` elements (cell keys: the call itself with n = count):
 * counts 0, 1, around the tile edges, random, the capacity and past it
 * (clamped); the outputs past the count must keep their bytes. Then a cull
 * -> pack -> sort -> gather chain on events whose count never comes to the
 * host, and the refusals. Its cases join the scan, split, gather, radix and
 * binning parts; the tree part (builds, Barnes-Hut, radius queries, N-body)
 * and the select part use its functions for their own, and the reduction
 * family's cases, which take test_reduce.c's references, are in that file
 * and use the functions here. Included by tests/test_clsort.c first. */

#define DC_FILL 0xa5 /* the bytes outputs start with: past the count they must stay */
#define DC_AT 12     /* the count's byte offset in its buffer (the other words are noise) */

/* Capacities: several tiles of every family's default shape where the size
 * set allows. */
static size_t dc_capacities(const test_env *e, size_t *cap)
{
    size_t k = 0;
    cap[k++] = 1;
    cap[k++] = 257;
    cap[k++] = 4097;
    if (!e->tiny) cap[k++] = 20011;
    return k;
}

/* The counts tried for capacity cap: 0, 1, 2, tile edges below it, a random
 * one, cap - 1, cap and two past it (clamped to cap). */
static size_t dc_counts(size_t cap, size_t *out, int tiny)
{
    static const size_t edges[] = {255, 256, 257, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097,
                                   8191, 8192, 8193, 16383, 16384, 16385};
    size_t k = 0, i;
    out[k++] = 0;
    out[k++] = 1;
    if (cap > 2) out[k++] = 2;
    for (i = 0; i < sizeof edges / sizeof edges[0]; ++i)
        if (edges[i] < cap && (!tiny || i % 3 == 1)) out[k++] = edges[i];
    if (cap > 3) out[k++] = 3 + (size_t)(rnd64() % (cap - 3));
    if (cap > 1) out[k++] = cap - 1;
    out[k++] = cap;
    out[k++] = cap + 1;
    out[k++] = 0xffffffffu; /* clamped */
    return k;
}

/* The count's buffer: the uint32 at DC_AT, noise around it. */
static cl_mem dc_count_buffer(clsort_context *cs, size_t count)
{
    uint32_t w[8];
    int i;
    for (i = 0; i < 8; ++i) w[i] = 0xdeadbeefu;
    w[DC_AT / 4] = (uint32_t)count;
    return buffer(cs, sizeof w, w);
}

static void dc_enq(clsort_enqueue *q, cl_mem count)
{
    memset(q, 0, sizeof *q);
    q->count = count;
    q->count_offset = DC_AT;
}

/* A buffer of bytes bytes, all DC_FILL (or a copy of src). */
static cl_mem dc_out_buffer(clsort_context *cs, size_t bytes, unsigned char *host)
{
    memset(host, DC_FILL, bytes);
    return buffer(cs, bytes, host);
}

/* Whether bytes [from, to) of got equal those of want; else the first bad byte. */
static size_t dc_first_diff(const unsigned char *got, const unsigned char *want, size_t from, size_t to)
{
    size_t i;
    for (i = from; i < to; ++i)
        if (got[i] != want[i]) return i;
    return (size_t)-1;
}

/* ---- scan ---- */

static void dc_scan_one(clsort_context *cs, clsort_type t, size_t cap, size_t count, int d, int inclusive, int in_place)
{
    size_t es = clsort_type_size(t), m = count < cap ? count : cap, i, bad;
    unsigned char *in = (unsigned char *)malloc(cap * es + 8), *out = (unsigned char *)malloc(cap * es + 8);
    unsigned char *want = (unsigned char *)malloc(cap * es + 8), *got = (unsigned char *)malloc(cap * es + 8);
    uint64_t acc = 0, tot = 0;
    double facc = 0;
    cl_mem din, dout, dtot, dc;
    clsort_scan_desc desc;
    clsort_enqueue q;
    char what[96];
    int r;
    memset(in, 0, cap * es + 8); /* gcc -O1 cannot see that fill writes every element */
    if (t == CLSORT_F32) { /* small integers: every partial sum is exact */
        for (i = 0; i < cap; ++i) ((float *)in)[i] = d == D_ZERO ? 0.0f : (float)((int)(rnd64() % 201) - 100);
    } else {
        fill(in, t, cap, d);
    }
    din = buffer(cs, cap * es, in);
    dout = in_place ? din : dc_out_buffer(cs, cap * es, out);
    if (in_place) memcpy(out, in, cap * es);
    dtot = buffer(cs, 8, NULL);
    dc = dc_count_buffer(cs, count);
    memcpy(want, out, cap * es); /* past m: untouched */
    for (i = 0; i < m; ++i) {
        if (t == CLSORT_F32) {
            float before = (float)facc;
            facc += ((float *)in)[i];
            ((float *)want)[i] = inclusive ? (float)facc : before;
        } else if (es == 4) {
            uint32_t before = (uint32_t)acc;
            acc = (uint32_t)(acc + ((uint32_t *)in)[i]);
            ((uint32_t *)want)[i] = inclusive ? (uint32_t)acc : before;
        } else {
            uint64_t before = acc;
            acc += ((uint64_t *)in)[i];
            ((uint64_t *)want)[i] = inclusive ? acc : before;
        }
    }
    memset(&desc, 0, sizeof desc);
    desc.type = t;
    desc.inclusive = inclusive;
    desc.total = dtot;
    dc_enq(&q, dc);
    snprintf(what, sizeof what, "device count scan type %d%s%s cap %lu", (int)t, inclusive ? " inclusive" : "",
             in_place ? " in place" : "", (unsigned long)cap);
    r = clsort_scan(cs, din, dout, cap, &desc, &q);
    check(r == CLSORT_SUCCESS, what, count, dist_names[d], 0, 0, r);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    download(cs, dout, cap * es, got);
    download(cs, dtot, 8, &tot);
    bad = dc_first_diff(got, want, 0, cap * es);
    check(bad == (size_t)-1, what, count, dist_names[d], bad / es, bad == (size_t)-1 ? 0 : want[bad], bad == (size_t)-1 ? 0 : got[bad]);
    if (t == CLSORT_F32) {
        float g;
        memcpy(&g, &tot, 4);
        check(g == (float)facc, "device count scan f32 total", count, dist_names[d], 0, facc, g);
    } else if (es == 4) {
        check((uint32_t)tot == (uint32_t)acc, "device count scan total", count, dist_names[d], 0, (uint32_t)acc,
              (uint32_t)tot);
    } else {
        check(tot == acc, "device count scan total", count, dist_names[d], 0, (double)acc, (double)tot);
    }
    clReleaseMemObject(din);
    if (!in_place) clReleaseMemObject(dout);
    clReleaseMemObject(dtot);
    clReleaseMemObject(dc);
    free(in);
    free(out);
    free(want);
    free(got);
}

static void scan_device_count(const test_env *e)
{
    static const clsort_type types[] = {CLSORT_U32, CLSORT_F32, CLSORT_U64, CLSORT_I32};
    size_t caps[8], counts[40], nc, nk, c, k;
    unsigned t;
    nc = dc_capacities(e, caps);
    for (c = 0; c < nc; ++c) {
        nk = dc_counts(caps[c], counts, e->tiny);
        for (k = 0; k < nk; ++k)
            for (t = 0; t < 4; ++t)
                dc_scan_one(e->cs, types[t], caps[c], counts[k], (int)((k + t) % D_COUNT), (int)((k + t) & 1),
                            (int)((k + c + t) % 3 == 0));
    }
}

/* ---- enumerate / pack / split ---- */

/* call 0: enumerate, 1: pack, 2: split; u32 keys with u32 values, u32 flags
 * (mode 0 random, 1 all set, 2 none). */
static void dc_split_one(clsort_context *cs, int call, size_t cap, size_t count, int d, int mode)
{
    static const char *names[3] = {"device count enumerate", "device count pack", "device count split"};
    size_t m = count < cap ? count : cap, i, k = 0, ones = 0, bad, host_count = 12345;
    uint32_t *keys = (uint32_t *)malloc(cap * 4 + 4), *vals = (uint32_t *)malloc(cap * 4 + 4);
    uint32_t *flags = (uint32_t *)malloc(cap * 4 + 4);
    unsigned char *ko = (unsigned char *)malloc(cap * 4 + 4), *vo = (unsigned char *)malloc(cap * 4 + 4);
    uint32_t *wk = (uint32_t *)malloc(cap * 4 + 4), *wv = (uint32_t *)malloc(cap * 4 + 4);
    uint32_t *gk = (uint32_t *)malloc(cap * 4 + 4), *gv = (uint32_t *)malloc(cap * 4 + 4), dev_count = 0;
    cl_mem dk, dv, df, dko, dvo, dcount, dc;
    clsort_split_desc sd;
    clsort_enqueue q;
    int r;
    fill(keys, CLSORT_U32, cap, d);
    for (i = 0; i < cap; ++i) {
        vals[i] = (uint32_t)(i * 3u + 1u);
        flags[i] = mode == 0 ? (uint32_t)(rnd64() & 1u) * (uint32_t)(1u + (rnd64() & 7u)) : mode == 1 ? 1u : 0u;
    }
    dk = buffer(cs, cap * 4, keys);
    dv = buffer(cs, cap * 4, vals);
    df = buffer(cs, cap * 4, flags);
    dko = dc_out_buffer(cs, cap * 4, ko);
    dvo = dc_out_buffer(cs, cap * 4, vo);
    dcount = buffer(cs, 4, NULL);
    dc = dc_count_buffer(cs, count);
    memcpy(wk, ko, cap * 4);
    memcpy(wv, vo, cap * 4);
    for (i = 0; i < m; ++i) ones += flags[i] != 0;
    if (call == 0) {
        for (i = 0; i < m; ++i) { wk[i] = (uint32_t)k; k += flags[i] != 0; }
    } else if (call == 1) {
        for (i = 0; i < m; ++i)
            if (flags[i]) wk[k] = keys[i], wv[k++] = vals[i];
    } else {
        for (i = 0; i < m; ++i)
            if (!flags[i]) wk[k] = keys[i], wv[k++] = vals[i];
        for (i = 0; i < m; ++i)
            if (flags[i]) wk[k] = keys[i], wv[k++] = vals[i];
    }
    memset(&sd, 0, sizeof sd);
    sd.flags = df;
    sd.count = dcount;
    if (call) sd.values_in = dv, sd.values_out = dvo;
    dc_enq(&q, dc);
    r = call == 0 ? clsort_enumerate(cs, dk, dko, cap, &sd, &host_count, &q)
      : call == 1 ? clsort_pack(cs, dk, dko, cap, &sd, &host_count, &q)
                  : clsort_split(cs, dk, dko, cap, &sd, &host_count, &q);
    check(r == CLSORT_SUCCESS, names[call], count, dist_names[d], 0, 0, r);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    download(cs, dko, cap * 4, gk);
    download(cs, dvo, cap * 4, gv);
    download(cs, dcount, 4, &dev_count);
    bad = dc_first_diff((unsigned char *)gk, (unsigned char *)wk, 0, cap * 4);
    check(bad == (size_t)-1, names[call], count, dist_names[d], bad / 4, bad == (size_t)-1 ? 0 : wk[bad / 4],
          bad == (size_t)-1 ? 0 : gk[bad / 4]);
    bad = dc_first_diff((unsigned char *)gv, (unsigned char *)wv, 0, cap * 4);
    check(bad == (size_t)-1, "device count values", count, dist_names[d], bad / 4, 0, 0);
    /* the counts: set flags (enumerate, pack) or zeros (split) among the first m */
    check(dev_count == (uint32_t)(call == 2 ? m - ones : ones), "device count: desc.count", count, dist_names[d], 0,
          (double)(call == 2 ? m - ones : ones), dev_count);
    check(host_count == (call == 2 ? m - ones : ones), "device count: the host count", count, dist_names[d], 0,
          (double)(call == 2 ? m - ones : ones), (double)host_count);
    clReleaseMemObject(dk);
    clReleaseMemObject(dv);
    clReleaseMemObject(df);
    clReleaseMemObject(dko);
    clReleaseMemObject(dvo);
    clReleaseMemObject(dcount);
    clReleaseMemObject(dc);
    free(keys), free(vals), free(flags), free(ko), free(vo), free(wk), free(wv), free(gk), free(gv);
}

static void split_device_count(const test_env *e)
{
    size_t caps[8], counts[40], nc, nk, c, k;
    int call;
    nc = dc_capacities(e, caps);
    for (c = 0; c < nc; ++c) {
        nk = dc_counts(caps[c], counts, e->tiny);
        for (k = 0; k < nk; ++k)
            for (call = 0; call < 3; ++call)
                dc_split_one(e->cs, call, caps[c], counts[k], (int)((k + (size_t)call) % D_COUNT),
                             (int)((k + c + (size_t)call) % 3));
    }
}

/* ---- gather ---- */

static void dc_gather_one(clsort_context *cs, size_t es, size_t cap, size_t count)
{
    size_t m = count < cap ? count : cap, i, bad;
    unsigned char *src = (unsigned char *)malloc(cap * es + 1), *dst = (unsigned char *)malloc(cap * es + 1);
    unsigned char *want = (unsigned char *)malloc(cap * es + 1), *got = (unsigned char *)malloc(cap * es + 1);
    uint32_t *idx = (uint32_t *)malloc(cap * 4 + 4);
    cl_mem ds, dd, di, dc;
    clsort_enqueue q;
    int r;
    for (i = 0; i < cap * es; ++i) src[i] = (unsigned char)rnd64();
    for (i = 0; i < cap; ++i) idx[i] = (uint32_t)(rnd64() % cap);
    ds = buffer(cs, cap * es, src);
    dd = dc_out_buffer(cs, cap * es, dst);
    di = buffer(cs, cap * 4, idx);
    dc = dc_count_buffer(cs, count);
    memcpy(want, dst, cap * es);
    for (i = 0; i < m; ++i) memcpy(want + i * es, src + (size_t)idx[i] * es, es);
    dc_enq(&q, dc);
    r = clsort_gather(cs, ds, dd, di, cap, es, &q);
    check(r == CLSORT_SUCCESS, "device count gather", count, "-", 0, 0, r);
    download(cs, dd, cap * es, got);
    bad = dc_first_diff(got, want, 0, cap * es);
    check(bad == (size_t)-1, "device count gather", count, "-", bad / es, (double)es, 0);
    clReleaseMemObject(ds), clReleaseMemObject(dd), clReleaseMemObject(di), clReleaseMemObject(dc);
    free(src), free(dst), free(want), free(got), free(idx);
}

static void gather_device_count(const test_env *e)
{
    static const size_t widths[] = {4, 3, 8, 16};
    size_t caps[8], counts[40], nc, nk, c, k;
    nc = dc_capacities(e, caps);
    for (c = 0; c < nc; ++c) {
        nk = dc_counts(caps[c], counts, e->tiny);
        for (k = 0; k < nk; ++k) dc_gather_one(e->cs, widths[(k + c) % 4], caps[c], counts[k]);
    }
}

/* ---- radix sort ---- */

/* The key's order as an unsigned 64-bit number (signed and float keys
 * numerically, by their bit patterns' image, as the sort orders them). */
static uint64_t dc_key_image(const unsigned char *keys, clsort_type t, size_t i)
{
    switch (t) {
    case CLSORT_U8: return keys[i];
    case CLSORT_U16: return ((const uint16_t *)keys)[i];
    case CLSORT_U32: return ((const uint32_t *)keys)[i];
    case CLSORT_I32: return ((const uint32_t *)keys)[i] ^ 0x80000000u;
    case CLSORT_F32: {
        uint32_t b = ((const uint32_t *)keys)[i];
        return b & 0x80000000u ? ~b : b | 0x80000000u;
    }
    default: return ((const uint64_t *)keys)[i];
    }
}

static const unsigned char *dc_sort_keys;
static clsort_type dc_sort_type;
static int dc_by_key(const void *a, const void *b)
{
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    uint64_t x = dc_key_image(dc_sort_keys, dc_sort_type, i), y = dc_key_image(dc_sort_keys, dc_sort_type, j);
    return x < y ? -1 : x > y ? 1 : i < j ? -1 : i > j; /* stable: ties by index */
}

/* mode 0: keys, 1: keys and u32 values, 2: keys and the permutation. */
static void dc_sort_one(clsort_context *cs, clsort_type t, int mode, size_t cap, size_t count, int d, int in_place)
{
    static const char *modes[3] = {"keys", "pairs", "permutation"};
    size_t es = clsort_type_size(t), m = count < cap ? count : cap, i, bad;
    unsigned char *keys = (unsigned char *)malloc(cap * es + 8), *ko = (unsigned char *)malloc(cap * es + 8);
    unsigned char *wk = (unsigned char *)malloc(cap * es + 8), *gk = (unsigned char *)malloc(cap * es + 8);
    unsigned char *vo = (unsigned char *)malloc(cap * 4 + 4);
    uint32_t *vals = (uint32_t *)malloc(cap * 4 + 4), *order = (uint32_t *)malloc(cap * 4 + 4);
    uint32_t *wv = (uint32_t *)malloc(cap * 4 + 4), *gv = (uint32_t *)malloc(cap * 4 + 4);
    cl_mem dk, dko, dv = NULL, dvo = NULL, dc;
    clsort_sort_desc sd;
    clsort_enqueue q;
    char what[128];
    int r;
    if (es < 4) { /* fill writes 4 or 8 bytes an element: 8- and 16-bit keys from u32 ones */
        uint32_t *wide = (uint32_t *)malloc(cap * 4 + 4);
        fill(wide, CLSORT_U32, cap, d);
        for (i = 0; i < cap; ++i) {
            if (es == 1) keys[i] = (unsigned char)wide[i];
            else ((uint16_t *)keys)[i] = (uint16_t)wide[i];
        }
        free(wide);
    } else {
        fill(keys, t, cap, d);
    }
    for (i = 0; i < cap; ++i) vals[i] = (uint32_t)(i * 7u + 5u), order[i] = (uint32_t)i;
    dk = buffer(cs, cap * es, keys);
    if (in_place) {
        dko = dk;
        memcpy(ko, keys, cap * es);
    } else {
        dko = dc_out_buffer(cs, cap * es, ko);
    }
    memset(&sd, 0, sizeof sd);
    sd.type = t;
    if (mode == 1) {
        dv = buffer(cs, cap * 4, vals);
        if (in_place) {
            dvo = dv;
            memcpy(vo, vals, cap * 4);
        } else {
            dvo = dc_out_buffer(cs, cap * 4, vo);
        }
        sd.values_in = dv;
        sd.values_out = dvo;
    } else if (mode == 2) {
        dvo = dc_out_buffer(cs, cap * 4, vo);
        sd.permutation = dvo;
    }
    dc = dc_count_buffer(cs, count);
    dc_sort_keys = keys;
    dc_sort_type = t;
    qsort(order, m, 4, dc_by_key);
    memcpy(wk, ko, cap * es);
    memcpy(wv, vo, cap * 4);
    for (i = 0; i < m; ++i) {
        memcpy(wk + i * es, keys + (size_t)order[i] * es, es);
        wv[i] = mode == 1 ? vals[order[i]] : order[i];
    }
    dc_enq(&q, dc);
    snprintf(what, sizeof what, "device count sort type %d %s%s cap %lu", (int)t, modes[mode],
             in_place ? " in place" : "", (unsigned long)cap);
    r = clsort_sort(cs, dk, dko, cap, &sd, &q);
    check(r == CLSORT_SUCCESS, what, count, dist_names[d], 0, 0, r);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    download(cs, dko, cap * es, gk);
    bad = dc_first_diff(gk, wk, 0, cap * es);
    check(bad == (size_t)-1, what, count, dist_names[d], bad / es, bad == (size_t)-1 ? 0 : wk[bad], bad == (size_t)-1 ? 0 : gk[bad]);
    if (mode) {
        download(cs, dvo, cap * 4, gv);
        bad = dc_first_diff((unsigned char *)gv, (unsigned char *)wv, 0, cap * 4);
        check(bad == (size_t)-1, mode == 1 ? "device count sort values" : "device count sort permutation", count,
              dist_names[d], bad / 4, bad == (size_t)-1 ? 0 : wv[bad / 4], bad == (size_t)-1 ? 0 : gv[bad / 4]);
    }
    clReleaseMemObject(dk);
    if (!in_place) clReleaseMemObject(dko);
    if (dv) clReleaseMemObject(dv);
    if (dvo && dvo != dv) clReleaseMemObject(dvo);
    clReleaseMemObject(dc);
    free(keys), free(ko), free(wk), free(gk), free(vo), free(vals), free(order), free(wv), free(gv);
}

static void radix_device_count(const test_env *e)
{
    /* 8-bit keys take the fill, 16-bit keys alone the 16-bit fill */
    static const clsort_type types[] = {CLSORT_U32, CLSORT_F32, CLSORT_I32, CLSORT_U64, CLSORT_U8, CLSORT_U16};
    size_t caps[8], counts[40], nc, nk, c, k;
    unsigned t;
    int mode;
    nc = dc_capacities(e, caps);
    for (c = 0; c < nc; ++c) {
        if (e->tiny && caps[c] > 1000) continue; /* oclgrind: many tiles are the small-tiles case's */
        nk = dc_counts(caps[c], counts, e->tiny);
        for (k = 0; k < nk; ++k)
            for (t = 0; t < 6; ++t)
                for (mode = 0; mode < 3; ++mode) {
                    /* every type and mode at every count in --full; else a
                     * third of them, rotating with the count (a ninth in --tiny) */
                    if (e->quick && (k + t + (size_t)mode) % 3) continue;
                    if (e->tiny && (k + t) % 3) continue;
                    dc_sort_one(e->cs, types[t], mode, caps[c], counts[k], (int)((k + t + (size_t)mode) % D_COUNT),
                                (int)((k + c + t + (size_t)mode) % 4 == 0) && mode != 2);
                }
    }
}

/* A frame of an engine: cull (flags), pack the visible keys with their
 * indices (the count stays on the device), sort them as pairs and gather a
 * 16-byte payload in that order, each call waiting on the one before by
 * its event; nothing is read back until the end. Against the same steps on
 * the host. */
static void radix_device_count_chain(const test_env *e)
{
    clsort_context *cs = e->cs;
    const size_t n = e->tiny ? 3001 : 50021;
    uint32_t *depth = (uint32_t *)malloc(n * 4), *flags = (uint32_t *)malloc(n * 4), *idx = (uint32_t *)malloc(n * 4);
    uint32_t *order = (uint32_t *)malloc(n * 4), count = 0;
    unsigned char *payload = (unsigned char *)malloc(n * 16), *want = (unsigned char *)malloc(n * 16);
    unsigned char *got = (unsigned char *)malloc(n * 16);
    cl_mem dd, df, di, dkc, dvc, dks, dvs, dp, dout, dcount;
    cl_event ev[3] = {NULL, NULL, NULL};
    clsort_split_desc pd;
    clsort_sort_desc sd;
    clsort_enqueue q;
    size_t i, m = 0, bad;
    int r;
    for (i = 0; i < n; ++i) {
        depth[i] = (uint32_t)(rnd64() & 0xffffffu);
        flags[i] = (uint32_t)(rnd64() % 5 < 2);
        idx[i] = (uint32_t)i;
    }
    for (i = 0; i < n * 16; ++i) payload[i] = (unsigned char)rnd64();
    dd = buffer(cs, n * 4, depth);
    df = buffer(cs, n * 4, flags);
    di = buffer(cs, n * 4, idx);
    dkc = buffer(cs, n * 4, NULL);
    dvc = buffer(cs, n * 4, NULL);
    dks = buffer(cs, n * 4, NULL);
    dvs = buffer(cs, n * 4, NULL);
    dp = buffer(cs, n * 16, payload);
    dout = dc_out_buffer(cs, n * 16, want);
    dcount = buffer(cs, 4, NULL);
    /* pack: the visible ones and their indices, the count into dcount */
    memset(&pd, 0, sizeof pd);
    pd.flags = df;
    pd.values_in = di;
    pd.values_out = dvc;
    pd.count = dcount;
    memset(&q, 0, sizeof q);
    q.event = &ev[0];
    r = clsort_pack(cs, dd, dkc, n, &pd, NULL, &q);
    check(r == CLSORT_SUCCESS, "device count chain: pack", n, "-", 0, 0, r);
    /* sort of the visible ones by 24-bit depth, count from the pack */
    memset(&sd, 0, sizeof sd);
    sd.end_bit = 24;
    sd.values_in = dvc;
    sd.values_out = dvs;
    memset(&q, 0, sizeof q);
    q.count = dcount;
    q.num_events_in_wait_list = 1;
    q.event_wait_list = &ev[0];
    q.event = &ev[1];
    r = clsort_sort(cs, dkc, dks, n, &sd, &q);
    check(r == CLSORT_SUCCESS, "device count chain: sort", n, "-", 0, 0, r);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    /* the payload in draw order */
    memset(&q, 0, sizeof q);
    q.count = dcount;
    q.num_events_in_wait_list = 1;
    q.event_wait_list = &ev[1];
    q.event = &ev[2];
    r = clsort_gather(cs, dp, dout, dvs, n, 16, &q);
    check(r == CLSORT_SUCCESS, "device count chain: gather", n, "-", 0, 0, r);
    if (ev[2]) clWaitForEvents(1, &ev[2]);
    for (i = 0; i < 3; ++i)
        if (ev[i]) clReleaseEvent(ev[i]);
    /* the host's frame */
    for (i = 0; i < n; ++i)
        if (flags[i]) order[m++] = (uint32_t)i;
    dc_sort_keys = (const unsigned char *)depth;
    dc_sort_type = CLSORT_U32;
    qsort(order, m, 4, dc_by_key);
    for (i = 0; i < m; ++i) memcpy(want + i * 16, payload + (size_t)order[i] * 16, 16);
    download(cs, dout, n * 16, got);
    download(cs, dcount, 4, &count);
    check(count == m, "device count chain: the count", n, "-", 0, (double)m, count);
    bad = dc_first_diff(got, want, 0, n * 16);
    check(bad == (size_t)-1, "device count chain: payload in draw order", n, "-", bad / 16, 0, 0);
    clReleaseMemObject(dd), clReleaseMemObject(df), clReleaseMemObject(di), clReleaseMemObject(dkc);
    clReleaseMemObject(dvc), clReleaseMemObject(dks), clReleaseMemObject(dvs), clReleaseMemObject(dp);
    clReleaseMemObject(dout), clReleaseMemObject(dcount);
    free(depth), free(flags), free(idx), free(order), free(payload), free(want), free(got);
}

/* A call without device counts refuses one (bitonic; the tree's accel and
 * radius queries, which read the tree's own count; all-pairs N-body); a
 * bad offset, a count buffer too small or shared with an output are
 * refused. The tree calls run on a tree never built: refused before any
 * program is needed. */
static void radix_device_count_refusals(const test_env *e)
{
    clsort_context *cs = e->cs;
    cl_mem k = buffer(cs, 64 * 4, NULL), o = buffer(cs, 64 * 4, NULL), dc = dc_count_buffer(cs, 5);
    cl_mem small = buffer(cs, 4, NULL);
    clsort_bitonic_desc bd;
    clsort_split_desc pd;
    clsort_enqueue q;
    memset(&bd, 0, sizeof bd);
    dc_enq(&q, dc);
    EXPECT_ERR(clsort_bitonic_sort(cs, k, o, 64, &bd, &q), CLSORT_ERROR_INVALID_ARGUMENT,
               "bitonic refuses enq->count");
    check(strstr(clsort_last_error(cs), "enq->count") != NULL, "the refusal names enq->count", 0, "-", 0, 0, 0);
    q.count_offset = 2;
    EXPECT_ERR(clsort_sort(cs, k, o, 64, NULL, &q), CLSORT_ERROR_INVALID_ARGUMENT, "count_offset not a multiple of 4");
    q.count = small;
    q.count_offset = 4;
    EXPECT_ERR(clsort_gather(cs, k, o, k, 64, 4, &q), CLSORT_ERROR_INVALID_ARGUMENT, "count buffer too small");
    memset(&pd, 0, sizeof pd);
    pd.flags = k;
    pd.count = dc;
    dc_enq(&q, dc);
    EXPECT_ERR(clsort_pack(cs, k, o, 64, &pd, NULL, &q), CLSORT_ERROR_INVALID_ARGUMENT,
               "pack's desc.count shared with enq->count");
    EXPECT_ERR(clsort_sort(cs, k, dc, 8, NULL, &q), CLSORT_ERROR_INVALID_ARGUMENT, "sort's output is enq->count");
    {
        clsort_tree *tree = NULL;
        clsort_nbody_desc nd;
        clsort_tree_radius_desc rd;
        memset(&nd, 0, sizeof nd);
        nd.method = CLSORT_NBODY_BARNES_HUT;
        nd.theta = 0.5;
        memset(&rd, 0, sizeof rd);
        rd.radius = 1.0f;
        rd.counts = o;
        if (clsort_tree_create(cs, &tree) == CLSORT_SUCCESS) {
            EXPECT_ERR(clsort_tree_accel(cs, tree, o, &nd, &q), CLSORT_ERROR_INVALID_ARGUMENT,
                       "tree accel refuses enq->count");
            check(strstr(clsort_last_error(cs), "enq->count") != NULL, "the refusal names enq->count", 0, "-", 0, 0, 0);
            EXPECT_ERR(clsort_tree_radius(cs, tree, k, 4, &rd, NULL, &q), CLSORT_ERROR_INVALID_ARGUMENT,
                       "tree radius refuses enq->count");
            clsort_tree_destroy(tree);
        }
        nd.method = CLSORT_NBODY_TILED;
        nd.dt = 1e-3;
        EXPECT_ERR(clsort_nbody(cs, k, o, 16, &nd, &q), CLSORT_ERROR_INVALID_ARGUMENT,
                   "all-pairs nbody refuses enq->count");
        check(strstr(clsort_last_error(cs), "BARNES_HUT") != NULL, "the refusal names the method that takes one", 0,
              "-", 0, 0, 0);
        nd.method = CLSORT_NBODY_BARNES_HUT;
        EXPECT_ERR(clsort_nbody_accel(cs, k, dc, 2, &nd, &q), CLSORT_ERROR_INVALID_ARGUMENT,
                   "Barnes-Hut nbody_accel's output is enq->count");
        check(strstr(clsort_last_error(cs), "shares memory") != NULL, "the refusal says the count is shared", 0, "-",
              0, 0, 0);
    }
    clReleaseMemObject(k), clReleaseMemObject(o), clReleaseMemObject(dc), clReleaseMemObject(small);
}

/* One gather of the first min(count, cap) u32 of src (identity indices)
 * into a DC_FILL buffer, the count the uint32 at byte 0 of dcount, against
 * the reference: src below `want`, DC_FILL from there. */
static void dc_gather_by(clsort_context *cs, cl_mem src, cl_mem idx, const uint32_t *host, size_t cap, cl_mem dcount,
                         size_t want, const char *what)
{
    unsigned char *wb = (unsigned char *)malloc(cap * 4 + 4), *gb = (unsigned char *)malloc(cap * 4 + 4);
    cl_mem dst = dc_out_buffer(cs, cap * 4, wb);
    clsort_enqueue q;
    size_t bad;
    int r;
    memset(&q, 0, sizeof q);
    q.count = dcount;
    memcpy(wb, host, want * 4);
    r = clsort_gather(cs, src, dst, idx, cap, 4, &q);
    download(cs, dst, cap * 4, gb);
    bad = dc_first_diff(gb, wb, 0, cap * 4);
    check(r == CLSORT_SUCCESS && bad == (size_t)-1, what, cap, "random", bad / 4, (double)want, r);
    clReleaseMemObject(dst);
    free(wb), free(gb);
}

/* DEVICE COUNTS: "scan's desc.total (u32), enumerate's desc.count, split's
 * zeros desc.count ... can be the next call's enq->count directly": each,
 * written under a device count, feeds a gather's enq->count (byte 0) with
 * no read-back; against the counts of the first min(count, cap) flags. */
static void dc_counts_feed(clsort_context *cs, size_t cap, size_t count)
{
    size_t m = count < cap ? count : cap, i, ones = 0, host = 12345;
    uint32_t *flags = (uint32_t *)malloc(cap * 4 + 4), *idx = (uint32_t *)malloc(cap * 4 + 4);
    uint32_t *data = (uint32_t *)malloc(cap * 4 + 4);
    cl_mem df, di, dd, scanned, tmp, total, ecount, zcount, dc = dc_count_buffer(cs, count);
    clsort_scan_desc scd;
    clsort_split_desc sd;
    clsort_enqueue q;
    int r;
    for (i = 0; i < cap; ++i) flags[i] = (uint32_t)(rnd64() & 1u), idx[i] = (uint32_t)i, data[i] = (uint32_t)rnd64();
    for (i = 0; i < m; ++i) ones += flags[i];
    df = buffer(cs, cap * 4, flags), di = buffer(cs, cap * 4, idx), dd = buffer(cs, cap * 4, data);
    scanned = buffer(cs, cap * 4, NULL), tmp = buffer(cs, cap * 4, NULL);
    total = buffer(cs, 4, NULL), ecount = buffer(cs, 4, NULL), zcount = buffer(cs, 4, NULL);
    dc_enq(&q, dc);
    memset(&scd, 0, sizeof scd);
    scd.total = total;
    r = clsort_scan(cs, df, scanned, cap, &scd, &q);
    memset(&sd, 0, sizeof sd);
    sd.flags = df;
    sd.count = ecount;
    if (r == CLSORT_SUCCESS) r = clsort_enumerate(cs, dd, tmp, cap, &sd, NULL, &q);
    sd.count = zcount;
    if (r == CLSORT_SUCCESS) r = clsort_split(cs, dd, tmp, cap, &sd, &host, &q);
    check(r == CLSORT_SUCCESS && host == m - ones, "device count: scan, enumerate, split under one count", count,
          clsort_last_error(cs), 0, (double)(m - ones), (double)host);
    dc_gather_by(cs, dd, di, data, cap, total, ones, "device count: scan's desc.total as a gather's enq->count");
    dc_gather_by(cs, dd, di, data, cap, ecount, ones, "device count: enumerate's desc.count as a gather's enq->count");
    dc_gather_by(cs, dd, di, data, cap, zcount, m - ones, "device count: split's zeros as a gather's enq->count");
    clReleaseMemObject(df), clReleaseMemObject(di), clReleaseMemObject(dd), clReleaseMemObject(scanned);
    clReleaseMemObject(tmp), clReleaseMemObject(total), clReleaseMemObject(ecount), clReleaseMemObject(zcount);
    clReleaseMemObject(dc);
    free(flags), free(idx), free(data);
}

/* "n is then the capacity: buffers are checked for n elements" (a small
 * count does not let a short buffer through) and "no output of the call may
 * share its [the count's] memory", in the families the sort part's
 * refusals leave out; every buffer keeps its bytes. Then the feeds above. */
static void radix_device_count_promises(const test_env *e)
{
    enum { N = 64 };
    clsort_context *cs = e->cs;
    uint32_t words[N], back[N];
    cl_mem k, o, shorter, dc;
    clsort_scan_desc scd;
    clsort_split_desc sd;
    clsort_search_desc hd;
    clsort_enqueue q;
    size_t i, caps[8], counts[40], nc, nk, c, j;
    int ok;
    for (i = 0; i < N; ++i) words[i] = i == DC_AT / 4 ? 3u : (uint32_t)i * 7u;
    k = buffer(cs, sizeof words, words), o = buffer(cs, sizeof words, words);
    shorter = buffer(cs, (N - 1) * 4, words), dc = buffer(cs, sizeof words, words);
    dc_enq(&q, dc);
    memset(&scd, 0, sizeof scd);
    memset(&sd, 0, sizeof sd);
    memset(&hd, 0, sizeof hd);
    sd.flags = k;
    EXPECT_ERR(clsort_scan(cs, k, shorter, N, &scd, &q), CLSORT_ERROR_INVALID_ARGUMENT, "scan: out short of the capacity");
    EXPECT_ERR(clsort_gather(cs, k, o, shorter, N, 4, &q), CLSORT_ERROR_INVALID_ARGUMENT, "gather: indices short of the capacity");
    EXPECT_ERR(clsort_scan(cs, k, dc, N, &scd, &q), CLSORT_ERROR_INVALID_ARGUMENT, "scan's out is enq->count");
    scd.total = dc;
    EXPECT_ERR(clsort_scan(cs, k, o, N, &scd, &q), CLSORT_ERROR_INVALID_ARGUMENT, "scan's desc.total is enq->count");
    EXPECT_ERR(clsort_gather(cs, k, dc, k, N, 4, &q), CLSORT_ERROR_INVALID_ARGUMENT, "gather's dst is enq->count");
    EXPECT_ERR(clsort_enumerate(cs, k, dc, N, &sd, NULL, &q), CLSORT_ERROR_INVALID_ARGUMENT, "enumerate's indices are enq->count");
    EXPECT_ERR(clsort_split(cs, k, dc, N, &sd, NULL, &q), CLSORT_ERROR_INVALID_ARGUMENT, "split's keys_out is enq->count");
    EXPECT_ERR(clsort_lower_bound(cs, k, N, k, N, dc, &hd, &q), CLSORT_ERROR_INVALID_ARGUMENT, "lower_bound's indices are enq->count");
    download(cs, o, sizeof back, back);
    ok = memcmp(back, words, sizeof words) == 0;
    download(cs, dc, sizeof back, back);
    ok = ok && memcmp(back, words, sizeof words) == 0;
    download(cs, shorter, (N - 1) * 4, back);
    check(ok && memcmp(back, words, (N - 1) * 4) == 0, "device count refusals keep every buffer", N, "-", 0, 0, 0);
    clReleaseMemObject(k), clReleaseMemObject(o), clReleaseMemObject(shorter), clReleaseMemObject(dc);
    nc = dc_capacities(e, caps);
    for (c = 0; c < nc; ++c) {
        nk = dc_counts(caps[c], counts, e->tiny);
        for (j = 0; j < nk; j += e->quick || e->tiny ? 3 : 1) dc_counts_feed(cs, caps[c], counts[j]);
    }
}

/* The same on small tiles (tuning.tile_wg/items: 32 x 4 and 256 x 1), so
 * that a few thousand elements span many tiles, and work-group passes run
 * where the default shape is one work-item per tile (CPUs): the classic
 * radix_reorder, the 16-bit fill, and one-sweep with 256-item tiles. */
static void radix_device_count_small_tiles(const test_env *e)
{
    static const unsigned shapes[2][2] = {{32, 4}, {256, 1}};
    static const size_t caps[2] = {1000, 3001};
    size_t counts[40], nk, c, k;
    int s, mode, call;
    for (s = 0; s < 2; ++s) {
        clsort_context *cs;
        /* --quick and --tiny (oclgrind, where this case was the slowest of
         * all): each shape on one path */
        if (!quick_variant(e, (unsigned)s)) continue;
        cs = tile_context(e->cs, shapes[s][0], shapes[s][1]);
        if (!cs) continue;
        for (c = 0; c < (e->tiny ? 1u : 2u); ++c) {
            nk = dc_counts(caps[c], counts, e->tiny);
            for (k = 0; k < nk; ++k) {
                int d = (int)((k + c) % D_COUNT);
                /* oclgrind (--tiny): 0, a middle count and the capacity, one
                 * split call and one sort mode each, in turn */
                if (e->tiny && k != 0 && k != nk / 2 && k + 1 != nk) continue;
                dc_scan_one(cs, k % 2 ? CLSORT_F32 : CLSORT_U32, caps[c], counts[k], d, (int)(k & 1), (int)(k % 3 == 0));
                for (call = 0; call < 3; ++call)
                    if (!e->tiny || (size_t)call == k % 3)
                        dc_split_one(cs, call, caps[c], counts[k], d, (int)((k + (size_t)call) % 3));
                for (mode = 0; mode < 3; ++mode)
                    if (!e->tiny || (size_t)mode == (k + 1) % 3)
                        dc_sort_one(cs, mode == 2 ? CLSORT_U64 : CLSORT_U32, mode, caps[c], counts[k], d,
                                    (int)(k % 4 == 0) && mode != 2);
                dc_sort_one(cs, CLSORT_U16, 0, caps[c], counts[k], d, (int)(k % 3 == 0));
            }
        }
        clsort_destroy(cs);
    }
}

/* ---- binning: cell keys, cell offsets, bin ---- */

/* cap particles (float2 records, some outside the domain) on a 3 x 3 grid of
 * 16 cells a side (row-major; Morton when morton): cell keys, offsets and
 * clsort_bin (method) with a 12-byte attribute, in place when in_place,
 * with a device count, against the same calls run with n = count and a
 * stable sort of their keys on the host. */
static void dc_bin_one(clsort_context *cs, size_t cap, size_t count, int method, int in_place, int morton)
{
    const size_t m = count < cap ? count : cap, cells = 256;
    float *pos = (float *)malloc(cap * 8 + 8);
    uint32_t *keys = (uint32_t *)malloc(cap * 4 + 4), *gk = (uint32_t *)malloc(cap * 4 + 4);
    uint32_t *order = (uint32_t *)malloc(cap * 4 + 4), *gp = (uint32_t *)malloc(cap * 4 + 4);
    uint32_t *off = (uint32_t *)malloc((cells + 1) * 4), *goff = (uint32_t *)malloc((cells + 1) * 4);
    unsigned char *attr = (unsigned char *)malloc(cap * 12 + 12), *ga = (unsigned char *)malloc(cap * 12 + 12);
    unsigned char *wa = (unsigned char *)malloc(cap * 12 + 12), *fillb = (unsigned char *)malloc(cap * 12 + 12);
    cl_mem dpos, dk, dkref, dsk, dp, doff, dattr, dattr_out, dc;
    clsort_grid_desc g;
    clsort_bin_desc bd;
    clsort_attribute at;
    clsort_enqueue q;
    size_t i, bad;
    int r, ok;
    for (i = 0; i < cap * 2; ++i) pos[i] = (float)((double)(rnd64() % 20000) / 10000.0 * 1.1 - 0.05);
    for (i = 0; i < cap * 12; ++i) attr[i] = (unsigned char)rnd64();
    memset(&g, 0, sizeof g);
    g.dims = 2;
    g.cells[0] = g.cells[1] = 16;
    g.cell_size[0] = g.cell_size[1] = 2.0f / 16;
    g.order = morton ? CLSORT_CELL_MORTON : CLSORT_CELL_ROW_MAJOR;
    dpos = buffer(cs, cap * 8, pos);
    dc = dc_count_buffer(cs, count);
    /* the reference keys: the call with n = count */
    dkref = buffer(cs, cap * 4, NULL);
    r = clsort_cell_keys(cs, dpos, dkref, m, &g, NULL);
    check(r == CLSORT_SUCCESS, "device count: reference cell keys", count, "-", 0, 0, r);
    download(cs, dkref, m * 4, keys);
    /* cell keys with the device count */
    dk = dc_out_buffer(cs, cap * 4, (unsigned char *)gk);
    dc_enq(&q, dc);
    r = clsort_cell_keys(cs, dpos, dk, cap, &g, &q);
    check(r == CLSORT_SUCCESS, "device count cell keys", count, "-", 0, 0, r);
    download(cs, dk, cap * 4, gk);
    for (i = 0, bad = (size_t)-1; i < cap && bad == (size_t)-1; ++i)
        if (i < m ? gk[i] != keys[i] : gk[i] != 0xa5a5a5a5u) bad = i;
    check(bad == (size_t)-1, "device count cell keys", count, "-", bad, 0, 0);
    /* host reference: the stable order by key, the offsets, the attribute */
    for (i = 0; i < m; ++i) order[i] = (uint32_t)i;
    dc_sort_keys = (const unsigned char *)keys;
    dc_sort_type = CLSORT_U32;
    qsort(order, m, 4, dc_by_key);
    {
        size_t c, k = 0;
        for (c = 0; c <= cells; ++c) {
            while (k < m && keys[order[k]] < c) ++k;
            off[c] = (uint32_t)k;
        }
    }
    memset(fillb, DC_FILL, cap * 12 + 12);
    memcpy(wa, in_place ? attr : fillb, cap * 12);
    for (i = 0; i < m; ++i) memcpy(wa + i * 12, attr + (size_t)order[i] * 12, 12);
    /* cell offsets of the (reference) sorted keys, with the device count */
    {
        uint32_t *sorted = (uint32_t *)malloc(cap * 4 + 4);
        cl_mem ds;
        for (i = 0; i < cap; ++i) sorted[i] = i < m ? keys[order[i]] : 0u; /* past the count: not sorted */
        ds = buffer(cs, cap * 4, sorted);
        doff = buffer(cs, (cells + 1) * 4, NULL);
        r = clsort_cell_offsets(cs, ds, cap, cells, doff, &q);
        check(r == CLSORT_SUCCESS, "device count cell offsets", count, "-", 0, 0, r);
        download(cs, doff, (cells + 1) * 4, goff);
        bad = dc_first_diff((unsigned char *)goff, (unsigned char *)off, 0, (cells + 1) * 4);
        check(bad == (size_t)-1, "device count cell offsets", count, "-", bad / 4, off[bad / 4 % (cells + 1)],
              goff[bad / 4 % (cells + 1)]);
        clReleaseMemObject(ds);
        free(sorted);
    }
    /* clsort_bin with the device count */
    dsk = dc_out_buffer(cs, cap * 4, (unsigned char *)gk);
    dp = dc_out_buffer(cs, cap * 4, (unsigned char *)gp);
    dattr = buffer(cs, cap * 12, attr);
    dattr_out = in_place ? dattr : dc_out_buffer(cs, cap * 12, ga);
    at.src = dattr;
    at.dst = dattr_out;
    at.elem_size = 12;
    memset(&bd, 0, sizeof bd);
    bd.grid = g;
    bd.method = method ? CLSORT_BIN_ATOMIC : CLSORT_BIN_SORT;
    bd.cell_keys = dsk;
    bd.permutation = dp;
    bd.cell_offsets = doff;
    bd.attributes = &at;
    bd.attribute_count = 1;
    r = clsort_bin(cs, dpos, cap, &bd, &q);
    check(r == CLSORT_SUCCESS, "device count bin", count, method ? "atomic" : "sort", 0, 0, r);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    download(cs, dsk, cap * 4, gk);
    download(cs, dp, cap * 4, gp);
    download(cs, doff, (cells + 1) * 4, goff);
    download(cs, dattr_out, cap * 12, ga);
    bad = dc_first_diff((unsigned char *)goff, (unsigned char *)off, 0, (cells + 1) * 4);
    check(bad == (size_t)-1, "device count bin offsets", count, method ? "atomic" : "sort", bad / 4, 0, 0);
    ok = 1;
    for (i = 0; i < cap && ok; ++i) {
        if (i >= m) ok = gk[i] == 0xa5a5a5a5u && gp[i] == 0xa5a5a5a5u;
        else if (!method) ok = gk[i] == keys[order[i]] && gp[i] == order[i];
        else ok = gp[i] < m && gk[i] == keys[gp[i]] && (i == 0 || gk[i - 1] <= gk[i]);
    }
    check(ok, "device count bin keys and permutation", count, method ? "atomic" : "sort", i - 1, 0, 0);
    if (!method) {
        bad = dc_first_diff(ga, wa, 0, cap * 12);
        check(bad == (size_t)-1, "device count bin attribute", count, in_place ? "in place" : "-", bad / 12, 0, 0);
    } else { /* atomic: the attribute follows the permutation; past m untouched */
        for (i = 0, ok = 1; i < cap && ok; ++i)
            ok = memcmp(ga + i * 12, i < m ? attr + (size_t)gp[i] * 12 : (in_place ? attr : fillb) + i * 12, 12) == 0;
        check(ok, "device count bin attribute (atomic)", count, in_place ? "in place" : "-", i - 1, 0, 0);
    }
    clReleaseMemObject(dpos), clReleaseMemObject(dk), clReleaseMemObject(dkref), clReleaseMemObject(dsk);
    clReleaseMemObject(dp), clReleaseMemObject(doff), clReleaseMemObject(dattr), clReleaseMemObject(dc);
    if (!in_place) clReleaseMemObject(dattr_out);
    free(pos), free(keys), free(gk), free(order), free(gp), free(off), free(goff), free(attr), free(ga), free(wa);
    free(fillb);
}

static void binning_device_count(const test_env *e)
{
    size_t caps[8], counts[40], nc, nk, c, k;
    nc = dc_capacities(e, caps);
    for (c = 0; c < nc; ++c) {
        nk = dc_counts(caps[c], counts, e->tiny);
        for (k = 0; k < nk; ++k)
            dc_bin_one(e->cs, caps[c], counts[k], (int)(k % 2), (int)((k + c) % 3 == 0), (int)((k / 2) % 2));
    }
}
