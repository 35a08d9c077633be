/* test_clsort, split: clsort_enumerate, clsort_pack and clsort_split for
 * 1-, 2-, 4- and 8-byte keys with and without values, by u32 flags, u8 flags
 * and a key bit, against a host pass over the flags: indices, counts (host
 * and device), outputs, and the tail pack leaves untouched. Included by
 * tests/test_clsort.c. */

/* F_BLOCKS: runs of 4096 set then 4096 clear flags, starting 1000 into a
 * run, so that whole tiles keep everything or nothing and the runs' edges
 * fall inside tiles; F_SPARSE: one flag in 9973 (most tiles keep nothing,
 * their look-back adds zeros over many tiles). */
enum { F_RANDOM, F_ALTERNATE, F_NONE, F_ALL, F_BLOCKS, F_SPARSE, F_COUNT };
static const char *flag_names[] = {"random-flags", "alternating", "none-set", "all-set", "blocks-of-4096", "one-in-9973"};

static uint32_t flag_of(size_t i, int fd)
{
    switch (fd) {
    case F_RANDOM: return (uint32_t)(rnd64() & 1) * 7u;
    case F_ALTERNATE: return (uint32_t)(i & 1);
    case F_ALL: return 0xffu;
    case F_BLOCKS: return (uint32_t)(((i + 1000) >> 12) & 1);
    case F_SPARSE: return i % 9973 == 17;
    default: return 0;
    }
}

static void make_flags(uint32_t *f, size_t n, int fd)
{
    size_t i;
    for (i = 0; i < n; ++i) f[i] = flag_of(i, fd);
}

/* kind: 0 u32 flags, 1 u8 flags, 2 key bit `bit` */
static void test_split_case(clsort_context *cs, size_t key_size, size_t value_size, size_t n, int fd, int kind,
                            unsigned bit)
{
    size_t i, es = key_size, vs = value_size, count = 0, zeros = 0, ref_count = 0;
    unsigned char *keys = (unsigned char *)malloc(n * es + 8), *vals = (unsigned char *)malloc(n * 8 + 8);
    unsigned char *out = (unsigned char *)malloc(n * es + 8), *vout = (unsigned char *)malloc(n * 8 + 8);
    unsigned char *ref = (unsigned char *)malloc(n * es + 8), *vref = (unsigned char *)malloc(n * 8 + 8);
    /* the sentinel fills both outputs: as long as the wider of key and value (8 bytes at most) */
    unsigned char *sentinel = (unsigned char *)malloc(n * 8 + 8);
    uint32_t *flags = (uint32_t *)malloc(n * 4 + 4), *idx = (uint32_t *)malloc(n * 4 + 4), *set = (uint32_t *)malloc(n * 4 + 4);
    uint8_t *flags8 = (uint8_t *)malloc(n + 1);
    cl_mem dk, dv = NULL, dko, dvo = NULL, df = NULL, didx, dcount;
    clsort_split_desc desc;
    char what[128];
    int r;
    uint32_t dev_count = 0;
    clsort_type kt = es == 1 ? CLSORT_U8 : es == 2 ? CLSORT_U16 : es == 4 ? CLSORT_U32 : CLSORT_U64;
    if (es >= 4) fill(keys, kt, n, D_RANDOM);
    else for (i = 0; i < n * es; ++i) keys[i] = (unsigned char)rnd64();
    fill(vals, CLSORT_U64, n, D_RANDOM);
    make_flags(flags, n, fd);
    for (i = 0; i < n; ++i) {
        uint64_t k = 0;
        memcpy(&k, keys + i * es, es); /* little-endian host: the key's bits */
        if (kind == 2) { /* the pattern in the key's bit */
            k = (k & ~((uint64_t)1 << bit)) | (uint64_t)(flags[i] != 0) << bit;
            memcpy(keys + i * es, &k, es);
        }
        flags8[i] = (uint8_t)(flags[i] ? 1 + (i % 200) : 0);
        set[i] = kind == 2 ? (uint32_t)((k >> bit) & 1) : flags[i] != 0;
    }
    memset(sentinel, 0xA5, n * 8 + 8);
    dk = buffer(cs, n * es, keys);
    dko = buffer(cs, n * es, sentinel);
    if (vs) { dv = buffer(cs, n * vs, vals); dvo = buffer(cs, n * vs, sentinel); }
    if (kind == 0) df = buffer(cs, n * 4, flags);
    if (kind == 1) df = buffer(cs, n, flags8);
    didx = buffer(cs, n * 4, NULL);
    dcount = buffer(cs, 4, NULL);
    memset(&desc, 0, sizeof desc);
    desc.type = kt;
    desc.flags_kind = kind == 0 ? CLSORT_FLAGS_U32 : kind == 1 ? CLSORT_FLAGS_U8 : CLSORT_FLAGS_KEY_BIT;
    desc.flags = df;
    desc.bit = bit;
    desc.values_in = dv;
    desc.values_out = dvo;
    desc.value_size = vs;

    /* enumerate */
    snprintf(what, sizeof what, "enumerate key%lu flags%d bit%u", (unsigned long)es * 8, kind, bit);
    desc.count = dcount;
    r = clsort_enumerate(cs, dk, didx, n, &desc, &count, NULL);
    check(r == CLSORT_SUCCESS, what, n, flag_names[fd], 0, 0, r);
    if (r == CLSORT_SUCCESS) {
        uint32_t c = 0, bad = 0;
        download(cs, didx, n * 4, idx);
        download(cs, dcount, 4, &dev_count);
        for (i = 0; i < n; ++i) {
            if (idx[i] != c && !bad) { bad = 1; check(0, what, n, flag_names[fd], i, c, idx[i]); }
            c += set[i];
        }
        if (!bad) ++passed;
        check(count == c && dev_count == c, "enumerate count", n, flag_names[fd], 0, c, (double)count);
    }

    /* pack */
    snprintf(what, sizeof what, "pack key%lu val%lu flags%d bit%u", (unsigned long)es * 8, (unsigned long)vs * 8, kind, bit);
    r = clsort_pack(cs, dk, dko, n, &desc, &count, NULL);
    check(r == CLSORT_SUCCESS, what, n, flag_names[fd], 0, 0, r);
    if (r == CLSORT_SUCCESS) {
        size_t k = 0;
        for (i = 0; i < n; ++i)
            if (set[i]) {
                memcpy(ref + k * es, keys + i * es, es);
                if (vs) memcpy(vref + k * vs, vals + i * vs, vs);
                ++k;
            }
        ref_count = k;
        download(cs, dko, n * es, out);
        download(cs, dcount, 4, &dev_count);
        check(count == ref_count && dev_count == ref_count, "pack count", n, flag_names[fd], 0, (double)ref_count,
              (double)count);
        check(memcmp(out, ref, ref_count * es) == 0, what, n, flag_names[fd], 0, 0, 0);
        check(memcmp(out + ref_count * es, sentinel, (n - ref_count) * es) == 0, "pack leaves the tail untouched", n,
              flag_names[fd], 0, 0, 0);
        if (vs) {
            download(cs, dvo, n * vs, vout);
            check(memcmp(vout, vref, ref_count * vs) == 0, "pack values", n, flag_names[fd], 0, 0, 0);
        }
    }

    /* split */
    snprintf(what, sizeof what, "split key%lu val%lu flags%d bit%u", (unsigned long)es * 8, (unsigned long)vs * 8, kind, bit);
    dev_count = 0xdeadbeefu;
    r = clsort_split(cs, dk, dko, n, &desc, &zeros, NULL); /* desc.count: the zeros count on the device */
    check(r == CLSORT_SUCCESS, what, n, flag_names[fd], 0, 0, r);
    if (r == CLSORT_SUCCESS) {
        size_t z = 0, o, k;
        for (i = 0; i < n; ++i) z += !set[i];
        o = z;
        k = 0;
        for (i = 0; i < n; ++i) {
            size_t dst = set[i] ? o++ : k++;
            memcpy(ref + dst * es, keys + i * es, es);
            if (vs) memcpy(vref + dst * vs, vals + i * vs, vs);
        }
        download(cs, dko, n * es, out);
        download(cs, dcount, 4, &dev_count);
        check(zeros == z && dev_count == z, "split zeros (host and device)", n, flag_names[fd], 0, (double)z,
              (double)dev_count);
        check(memcmp(out, ref, n * es) == 0, what, n, flag_names[fd], 0, 0, 0);
        if (vs) {
            download(cs, dvo, n * vs, vout);
            check(memcmp(vout, vref, n * vs) == 0, "split values", n, flag_names[fd], 0, 0, 0);
        }
    }
    clReleaseMemObject(dk);
    clReleaseMemObject(dko);
    if (dv) { clReleaseMemObject(dv); clReleaseMemObject(dvo); }
    if (df) clReleaseMemObject(df);
    clReleaseMemObject(didx);
    clReleaseMemObject(dcount);
    free(keys); free(vals); free(out); free(vout); free(ref); free(vref); free(sentinel);
    free(flags); free(idx); free(set); free(flags8);
}


/* Every flag kind and pattern over the sizes; 8-byte keys and the 8- and
 * 16-bit ones on the smaller sizes. */
static void split_flag_kinds(const test_env *e)
{
    size_t s;
    int f, kind;
    for (s = 0; s < e->nsizes; ++s)
        for (f = 0; f < F_COUNT; ++f)
            for (kind = 0; kind < 3; ++kind) {
                size_t n = e->sizes[s];
                if (e->tiny && f != F_RANDOM && f != F_NONE) continue;
                if (n > 70000 && ((f != F_RANDOM && f != F_BLOCKS) || kind != 0)) continue;
                test_split_case(e->cs, 4, kind == 0 ? 4 : 0, n, f, kind, kind == 2 ? (unsigned)(s % 3 == 0 ? 31 : 5) : 0);
                if (n < 10000 && f == F_RANDOM && quick_variant(e, (unsigned)kind))
                    test_split_case(e->cs, 8, kind == 1 ? 8 : kind == 0 ? 4 : 0, n, f, kind, kind == 2 ? 63 : 0);
                if (n < 10000 && (f == F_RANDOM || f == F_ALTERNATE) && quick_variant(e, (unsigned)kind + 1))
                    /* 8- and 16-bit keys move as bits */
                    test_split_case(e->cs, (size_t)(kind == 1 ? 2 : 1), kind == 0 ? 4 : kind == 1 ? 8 : 0, n, f, kind,
                                    kind == 2 ? (unsigned)(s % 2 ? 7 : 0) : 0);
            }
}

/* Small tiles (tuning.tile_wg/items), so that a few ten thousand elements
 * span thousands of tiles (long look-back chains, the portable path's
 * recursive tile counts) and the rank's packed row counts take each width:
 * 8-bit fields with 1 and 16 rows a work-item, 10-bit with 2, 16-bit with
 * 1 (split.cl RF_BITS). */
static void split_small_tiles(const test_env *e)
{
    static const unsigned shapes[4][2] = {{32, 1}, {16, 16}, {256, 2}, {1024, 1}};
    static const int pats[4] = {F_RANDOM, F_BLOCKS, F_SPARSE, F_ALL};
    size_t n = e->tiny ? 3001 : e->quick ? 65537 : 200003;
    int s, p;
    for (s = 0; s < 4; ++s) {
        clsort_context *cs;
        if (!quick_variant(e, (unsigned)s) || (e->quick && !e->tiny && s > 1)) continue; /* --quick: two shapes */
        cs = tile_context(e->cs, shapes[s][0], shapes[s][1]);
        if (!cs) continue; /* a shape past the device's limits */
        for (p = 0; p < 4; ++p) {
            if (e->tiny && p != s % 4) continue;
            if (e->quick && !e->tiny) { /* one program per shape (each shape's programs are built): u32 flags */
                if (p == 1 || p == 2) test_split_case(cs, 4, 4, n, pats[p], 0, 0u);
                continue;
            }
            test_split_case(cs, 4, p % 2 ? 4 : 0, n, pats[p], p % 3, p % 3 == 2 ? 9u : 0u);
        }
        clsort_destroy(cs);
    }
}

static const test_case split_cases[] = {
    {"flag kinds x patterns x key widths", split_flag_kinds, ON_BOTH, ANY_SIZE},
    {"small tiles: thousands of tiles, every rank width", split_small_tiles, ON_BOTH, ANY_SIZE},
    {"device count", split_device_count, ON_BOTH, ANY_SIZE},
};
static const test_part split_part = TEST_PART(split, "clsort_enumerate, clsort_pack, clsort_split", CTX_SHARED, 16);
