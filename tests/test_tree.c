/* test_clsort, tree: Morton codes, the permutation, every radix-tree node
 * and parent and the summaries against a host reference from the same sorted
 * codes; Barnes-Hut against all pairs (error bounds per theta, exactness at
 * theta 1e-6), clsort_nbody with Barnes-Hut, repeated builds bit for bit,
 * radius queries, the host forms and bad arguments. Included by
 * tests/test_clsort.c. */

static const char *tree_dist_names[] = {"uniform", "all-equal", "duplicates", "clustered", "plummer", "two spheres",
                                        "disc", "half within 1e-6", "plummer 1e-4 core", "n/16 coincident"};
enum { T_UNIFORM, T_EQUAL, T_DUP, T_CLUSTER, T_PLUMMER, T_SPHERES, T_DISC, T_HALF, T_CORE, T_COINC, T_COUNT };

/* n float4 bodies (x, y, z, m). */
static void tree_points_make(float *pos, size_t n, int dist)
{
    size_t i;
    float *vel = NULL;
    if (dist == T_PLUMMER || dist == T_SPHERES || dist == T_CORE) {
        vel = (float *)malloc(n * 16 + 16);
        plummer(pos, vel, n, 1.0);
        /* a core: every other body 1e-4 times as far from the centre (a
         * Plummer sphere of scale 1e-4 holding half the mass) */
        for (i = 0; i < n && dist == T_CORE; i += 2) {
            pos[4 * i] *= 1e-4f;
            pos[4 * i + 1] *= 1e-4f;
            pos[4 * i + 2] *= 1e-4f;
        }
        free(vel);
        /* two spheres: every other body moved to a second sphere, half the size, 6 away */
        for (i = 1; i < n && dist == T_SPHERES; i += 2) {
            pos[4 * i] = pos[4 * i] * 0.5f + 6.0f;
            pos[4 * i + 1] *= 0.5f;
            pos[4 * i + 2] = pos[4 * i + 2] * 0.5f + 1.0f;
        }
        return;
    }
    if (dist == T_DISC) { /* exponential disc, scale length 1, thickness 0.05, a small bulge */
        for (i = 0; i < n; ++i) {
            double r = -log(1.0 - urand() * 0.9999), ph = 6.283185307179586 * urand();
            if (i % 8 == 0) r *= 0.1;
            pos[4 * i] = (float)(r * cos(ph));
            pos[4 * i + 1] = (float)(r * sin(ph));
            pos[4 * i + 2] = (float)(0.05 * (urand() + urand() - 1.0));
            pos[4 * i + 3] = 1.0f / (float)n;
        }
        return;
    }
    for (i = 0; i < n; ++i) {
        float *p = pos + 4 * i;
        int a;
        if (dist == T_UNIFORM || (dist == T_HALF && i % 2) || (dist == T_COINC && i % 16))
            for (a = 0; a < 3; ++a) p[a] = (float)(urand() * 2.0 - 1.0);
        else if (dist == T_HALF) /* a cube of side 1e-6 */
            p[0] = 0.25f + (float)(1e-6 * (urand() - 0.5)), p[1] = -0.25f + (float)(1e-6 * (urand() - 0.5)),
            p[2] = 0.125f + (float)(1e-6 * (urand() - 0.5));
        else if (dist == T_COINC) p[0] = 0.25f, p[1] = -0.25f, p[2] = 0.125f;
        else if (dist == T_EQUAL) p[0] = 0.25f, p[1] = -1.5f, p[2] = 3.0f;
        else if (dist == T_DUP) for (a = 0; a < 3; ++a) p[a] = (float)(rnd64() % 3) * 0.5f;
        else { /* two Gaussian-ish spheres and a thin disc */
            int which = (int)(i % 3);
            double r = pow(urand(), 2.0) * (which == 2 ? 3.0 : 0.5), z = 2.0 * urand() - 1.0,
                   ph = 6.283185307179586 * urand(), s = sqrt(1.0 - z * z);
            double cx = which == 0 ? -2.0 : which == 1 ? 2.5 : 0.0;
            p[0] = (float)(cx + r * s * cos(ph));
            p[1] = (float)(r * s * sin(ph));
            p[2] = (float)(which == 2 ? 0.01 * (urand() - 0.5) : r * z);
        }
        p[3] = (float)(0.5 + urand()) / (float)n;
    }
}

/* Karras' delta on the host: common prefix of the keys (code, sub, index). */
static int tree_delta(const uint64_t *c, const uint32_t *sub, size_t n, unsigned kb, long i, long j)
{
    uint64_t x;
    int k = 0;
    if (j < 0 || (size_t)j >= n) return -1;
    if (c[i] == c[j]) {
        uint32_t y = sub[i] != sub[j] ? sub[i] ^ sub[j] : (uint32_t)i ^ (uint32_t)j;
        while (k < 32 && !(y & (0x80000000u >> k))) ++k;
        return (int)kb + (sub[i] != sub[j] ? 0 : 32) + k;
    }
    x = c[i] ^ c[j];
    while (k < (int)kb && !(x & ((uint64_t)1 << (kb - 1 - (unsigned)k)))) ++k;
    return k;
}

/* The radix tree of the sorted codes, top-down: the node of range [f, l]
 * (index idx) splits after the last i whose prefix with f is longer than the
 * range's; its children are internal g / g + 1 or leaves. */
static void tree_reference(const uint64_t *c, const uint32_t *sub, size_t n, unsigned kb, uint32_t *nodes,
                           uint32_t *parents)
{
    long *st = (long *)malloc(3 * 2 * n * sizeof(long) + 64);
    size_t sp = 0;
    parents[0] = 0xffffffffu; /* the root: node 0, the leaf itself for n = 1 */
    if (n < 2) { free(st); return; }
    st[sp++] = 0; st[sp++] = (long)n - 1; st[sp++] = 0;
    while (sp) {
        long idx = st[--sp], l = st[--sp], f = st[--sp], g = f, i;
        int common = tree_delta(c, sub, n, kb, f, l);
        uint32_t left, right;
        for (i = f + 1; i < l; ++i) if (tree_delta(c, sub, n, kb, f, i) > common) g = i;
        left = g == f ? (uint32_t)(n - 1 + (size_t)g) : (uint32_t)g;
        right = g + 1 == l ? (uint32_t)(n - 1 + (size_t)l) : (uint32_t)(g + 1);
        nodes[4 * idx] = left; nodes[4 * idx + 1] = right;
        nodes[4 * idx + 2] = (uint32_t)f; nodes[4 * idx + 3] = (uint32_t)l;
        parents[left] = parents[right] = (uint32_t)idx;
        if (g > f) { st[sp++] = f; st[sp++] = g; st[sp++] = g; }
        if (g + 1 < l) { st[sp++] = g + 1; st[sp++] = l; st[sp++] = g + 1; }
    }
    free(st);
}

static uint64_t tree_spread(uint64_t x, unsigned dims)
{
    uint64_t r = 0;
    unsigned b;
    for (b = 0; b < 32; ++b) if (x >> b & 1) r |= (uint64_t)1 << (b * dims);
    return r;
}

static uint64_t tree_cell(float p, float lo, float scale, unsigned bpa)
{
    float t = (p - lo) * scale, top = (float)((uint64_t)1 << bpa);
    return t >= 0.0f ? (t < top ? (uint64_t)t : ((uint64_t)1 << bpa) - 1) : 0;
}

static uint64_t tree_code_at(const void *codes, size_t ks, size_t i)
{
    return ks == 8 ? ((const uint64_t *)codes)[i] : ((const uint32_t *)codes)[i];
}

static const uint64_t *tree_sort_codes;
static int tree_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (tree_sort_codes[x] != tree_sort_codes[y]) return tree_sort_codes[x] < tree_sort_codes[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The order-preserving image of a float (tree.cl tr_image) and back. */
static uint32_t tree_order_image(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
static float tree_from_image(uint32_t u)
{
    float f;
    u = (u & 0x80000000u) ? (u & 0x7fffffffu) : ~u;
    memcpy(&f, &u, 4);
    return f;
}

/* tree.cl tr_sub_scale: 2^(bits - e) for ext < 2^e (normal ext), at most 2^127; else 0. */
static float tree_sub_scale(float ext, unsigned bits)
{
    uint32_t u;
    int be, k;
    float r;
    memcpy(&u, &ext, 4);
    be = (int)((u >> 23) & 0xffu);
    if (!(ext > 0.0f) || be == 0 || be == 255) return 0.0f;
    k = (int)bits + 126 - be;
    if (k > 127) k = 127;
    u = (uint32_t)(k + 127) << 23;
    memcpy(&r, &u, 4);
    return r;
}

/* The refinement of the long runs (tree.cl tree_runs .. tree_compose) on
 * the host: in perm (sorted by code, then index), every run of more than
 * 16 equal codes gets the Morton code of its points over the run's box
 * (bits per axis: 10 in 3D, 16 in 2D; the box of the finite coordinates,
 * [0, 0] on an axis without one; the scale tree_sub_scale) in sub, and is
 * sorted by it, stably; sub = 0 elsewhere. rec: records of stride floats,
 * coordinates at off. */
static const uint32_t *tree_sort_sub;
static int tree_sub_cmp(const void *a, const void *b)
{
    const uint32_t *x = (const uint32_t *)a, *y = (const uint32_t *)b;
    if (tree_sort_sub[x[0]] != tree_sort_sub[y[0]]) return tree_sort_sub[x[0]] < tree_sort_sub[y[0]] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1]; /* stable: the earlier position first */
}
static void tree_refine_host(const uint64_t *codes, uint32_t *perm, uint32_t *sub, size_t n, const float *rec,
                             size_t stride, size_t off, unsigned dims)
{
    size_t i = 0, j, k;
    unsigned bits = dims == 3 ? 10u : 16u, a;
    uint32_t *by = (uint32_t *)malloc(n * 4 + 4), *pair = (uint32_t *)malloc(n * 8 + 8);
    memset(sub, 0, n * 4);
    while (i < n) {
        for (j = i; j < n && codes[perm[j]] == codes[perm[i]]; ++j) {}
        if (j - i > 16) {
            float lo[3] = {0, 0, 0}, ext = 0.0f, scale;
            for (a = 0; a < dims; ++a) {
                uint32_t mn = 0xffffffffu, mx = 0;
                for (k = i; k < j; ++k) {
                    float x = rec[(size_t)perm[k] * stride + off + a];
                    if (x - x == 0.0f) {
                        uint32_t u = tree_order_image(x);
                        mn = u < mn ? u : mn;
                        mx = u > mx ? u : mx;
                    }
                }
                if (mn <= mx) {
                    float h = tree_from_image(mx);
                    lo[a] = tree_from_image(mn);
                    ext = h - lo[a] > ext ? h - lo[a] : ext;
                }
            }
            scale = tree_sub_scale(ext, bits);
            for (k = i; k < j; ++k) {
                uint64_t c = 0;
                for (a = 0; a < dims; ++a)
                    c |= tree_spread(tree_cell(rec[(size_t)perm[k] * stride + off + a], lo[a], scale, bits), dims) << a;
                by[perm[k]] = (uint32_t)c;
                pair[2 * (k - i)] = perm[k];
                pair[2 * (k - i) + 1] = (uint32_t)k;
            }
            tree_sort_sub = by;
            qsort(pair, j - i, 8, tree_sub_cmp);
            for (k = i; k < j; ++k) {
                perm[k] = pair[2 * (k - i)];
                sub[k] = by[perm[k]];
            }
        }
        i = j;
    }
    free(by);
    free(pair);
}

/* One build of n points: records of `stride` floats (coordinates at `off`,
 * mass at `moff` or none), checked against the host: the box, every code, the
 * sorted codes and permutation (runs of more than 16 equal codes sorted by
 * their sub codes: tree_refine_host), the sub codes, the points, every node
 * (children, range, split: Karras over (code, sub code, index)) and parent,
 * and the summaries (boxes and extent exact, masses exact: the same float
 * additions in the same order, centres within 1e-6 of the box of their node
 * recomputed from the device's children, bmax an upper bound of every
 * point's distance from the centre). */
static void test_tree_case(clsort_context *cs, clsort_tree *tree, size_t n, int dist, unsigned dims, unsigned code_bits,
                           size_t stride, size_t off, int has_mass, int box_given)
{
    const char *dn = tree_dist_names[dist];
    char what[160];
    float *bodies = (float *)malloc(n * 16 + 16), *rec = (float *)calloc(n * stride + 4, 4), bounds[16];
    size_t i, ks, moff = off + dims, bad;
    unsigned bpa, a, kb;
    clsort_tree_desc td;
    clsort_tree_view v;
    clsort_result r;
    cl_mem pos;
    uint64_t *codes, *sorted;
    uint32_t *perm, *ref_perm, *nodes, *parents, *rnodes, *rparents, *subs, *ref_subs;
    float *points, *lo, *hi, *com, *quad;
    snprintf(what, sizeof what, "tree %uD %u-bit stride %lu%s%s", dims, code_bits ? code_bits : 32,
             (unsigned long)stride, has_mass ? " masses" : "", box_given ? " given box" : "");
    tree_points_make(bodies, n, dist);
    for (i = 0; i < n; ++i) {
        for (a = 0; a < dims; ++a) rec[i * stride + off + a] = bodies[4 * i + a];
        if (has_mass) rec[i * stride + moff] = bodies[4 * i + 3];
    }
    memset(&td, 0, sizeof td);
    td.dims = dims;
    td.code_bits = code_bits;
    td.stride = stride * 4;
    td.offset = off * 4;
    td.has_mass = has_mass;
    td.mass_offset = moff * 4;
    if (box_given) for (a = 0; a < 3; ++a) td.box_lo[a] = -1.5f, td.box_hi[a] = 0.75f;
    td.box_given = box_given;
    pos = buffer(cs, n * stride * 4 + 16, rec);
    r = clsort_tree_build(cs, tree, pos, n, &td, NULL);
    check(r == CLSORT_SUCCESS, what, n, clsort_last_error(cs), 0, 0, r);
    clsort_tree_get_view(tree, &v);
    check(v.n == n, "tree view n", n, dn, 0, (double)n, (double)v.n);
    if (r != CLSORT_SUCCESS || n == 0) { clReleaseMemObject(pos); free(bodies); free(rec); return; }
    ks = v.code_size;
    kb = (unsigned)(8 * ks);
    bpa = v.code_bits / dims;
    codes = (uint64_t *)malloc(n * 8); sorted = (uint64_t *)malloc(n * 8);
    perm = (uint32_t *)malloc(n * 4); ref_perm = (uint32_t *)malloc(n * 4);
    subs = (uint32_t *)malloc(n * 4); ref_subs = (uint32_t *)malloc(n * 4);
    nodes = (uint32_t *)malloc(n * 16); rnodes = (uint32_t *)calloc(n, 16);
    parents = (uint32_t *)malloc(n * 8); rparents = (uint32_t *)calloc(n, 8);
    points = (float *)malloc(n * 16); lo = (float *)malloc(n * 16); hi = (float *)malloc(n * 16);
    com = (float *)malloc(n * 16); quad = (float *)malloc(n * 32);
    {
        void *raw = malloc(n * ks);
        download(cs, v.codes, n * ks, raw);
        for (i = 0; i < n; ++i) sorted[i] = tree_code_at(raw, ks, i);
        free(raw);
    }
    download(cs, v.bounds, 64, bounds);
    download(cs, v.permutation, n * 4, perm);
    download(cs, v.subcodes, n * 4, subs);
    download(cs, v.points, n * 16, points);
    download(cs, v.parents, (2 * n - 1) * 4, parents);
    if (n > 1) {
        download(cs, v.nodes, (n - 1) * 16, nodes);
        download(cs, v.box_lo, (n - 1) * 16, lo);
        download(cs, v.box_hi, (n - 1) * 16, hi);
        download(cs, v.com, (n - 1) * 16, com);
        download(cs, v.quad, (n - 1) * 32, quad);
    }
    /* the box */
    for (a = 0; a < dims; ++a) {
        float mn = box_given ? td.box_lo[a] : rec[off + a], mx = box_given ? td.box_hi[a] : rec[off + a];
        for (i = 0; i < n && !box_given; ++i) {
            float x = rec[i * stride + off + a];
            mn = x < mn ? x : mn;
            mx = x > mx ? x : mx;
        }
        check(bounds[8 + a] == mn && bounds[12 + a] == mx, "tree box", n, dn, a, mn, bounds[8 + a]);
    }
    /* codes from the device's box and scale, then the stable order */
    for (i = 0; i < n; ++i) {
        uint64_t k = 0;
        for (a = 0; a < dims; ++a)
            k |= tree_spread(tree_cell(rec[i * stride + off + a], bounds[8 + a], bounds[11], bpa), dims) << a;
        codes[i] = k;
        ref_perm[i] = (uint32_t)i;
    }
    tree_sort_codes = codes;
    qsort(ref_perm, n, 4, tree_cmp);
    tree_refine_host(codes, ref_perm, ref_subs, n, rec, stride, off, dims);
    for (bad = 0; bad < n && perm[bad] == ref_perm[bad] && sorted[bad] == codes[ref_perm[bad]]; ++bad) {}
    check(bad == n, "tree codes and permutation", n, dn, bad, bad < n ? (double)codes[ref_perm[bad]] : 0,
          bad < n ? (double)sorted[bad] : 0);
    for (bad = 0; bad < n && subs[bad] == ref_subs[bad]; ++bad) {}
    check(bad == n, "tree sub codes of the long runs", n, dn, bad, bad < n ? (double)ref_subs[bad] : 0,
          bad < n ? (double)subs[bad] : 0);
    for (bad = 0; bad < n; ++bad) {
        const float *p = points + 4 * bad, *q = rec + (size_t)perm[bad % n] * stride;
        if (perm[bad] >= n || p[0] != q[off] || p[1] != q[off + 1] || p[2] != (dims == 3 ? q[off + 2] : 0.0f) ||
            p[3] != (has_mass ? q[moff] : 1.0f))
            break;
    }
    check(bad == n, "tree points", n, dn, bad, 0, 0);
    /* the structure against the host's, from the same sorted codes */
    tree_reference(sorted, ref_subs, n, kb, rnodes, rparents);
    for (bad = 0; bad + 1 < n && !memcmp(nodes + 4 * bad, rnodes + 4 * bad, 16); ++bad) {}
    check(n < 2 || bad == n - 1, "tree nodes (children, range, split)", n, dn, bad,
          bad + 1 < n ? rnodes[4 * bad + 2] * 1e6 + rnodes[4 * bad + 3] : 0,
          bad + 1 < n ? nodes[4 * bad + 2] * 1e6 + nodes[4 * bad + 3] : 0);
    for (bad = 0; bad < 2 * n - 1 && parents[bad] == rparents[bad]; ++bad) {}
    check(bad == 2 * n - 1, "tree parents", n, dn, bad, bad < 2 * n - 1 ? rparents[bad] : 0,
          bad < 2 * n - 1 ? parents[bad] : 0);
    /* summaries, bottom-up check of every node from its children */
    for (bad = 0; n > 1 && bad < n - 1; ++bad) {
        const uint32_t *nd = rnodes + 4 * bad;
        float cl[2][4], ch[2][4], cm[2][4], mass, e, bm2 = 0.0f;
        int s, ok = 1;
        size_t j;
        for (s = 0; s < 2; ++s) {
            uint32_t c = nd[s];
            const float *src = c >= n - 1 ? points + 4 * (c - (n - 1)) : NULL;
            for (a = 0; a < 4; ++a) {
                cl[s][a] = src ? (a < 3 ? src[a] : 0.0f) : lo[4 * c + a];
                ch[s][a] = src ? (a < 3 ? src[a] : 0.0f) : hi[4 * c + a];
                cm[s][a] = src ? src[a] : com[4 * c + a];
            }
        }
        mass = cm[0][3] + cm[1][3];
        if (com[4 * bad + 3] != mass) ok = 0;
        e = 0.0f;
        for (a = 0; a < 3; ++a) {
            float l = cl[0][a] < cl[1][a] ? cl[0][a] : cl[1][a], h = ch[0][a] > ch[1][a] ? ch[0][a] : ch[1][a];
            double want = mass > 0 ? ((double)cm[0][3] * cm[0][a] + (double)cm[1][3] * cm[1][a]) / mass : 0.5 * (l + h);
            if (lo[4 * bad + a] != l || hi[4 * bad + a] != h) ok = 0;
            if (fabs(com[4 * bad + a] - want) > 1e-6 * (fabs(want) + (h - l)) + 1e-30) ok = 0;
            if (h - l > e) e = h - l;
        }
        if (lo[4 * bad + 3] != e) ok = 0;
        for (j = nd[2]; j <= nd[3]; ++j) { /* bmax bounds every point of the node */
            float d2 = 0.0f;
            for (a = 0; a < 3; ++a) d2 += (points[4 * j + a] - com[4 * bad + a]) * (points[4 * j + a] - com[4 * bad + a]);
            if (d2 > bm2) bm2 = d2;
        }
        if (!(sqrt((double)bm2) <= (double)hi[4 * bad + 3] * (1 + 1e-6))) ok = 0;
        { /* the moments about the device's centre, from the node's points in double. Bound: the
           * parallel-axis sums round relative to I2, and each offset d = child centre - centre
           * carries the rounding of centres near |x| = R: |dQ| <= 1e-4 I2 + 64 * 6 u M R bmax
           * (u = 2^-24; 64 levels, 6 roundings a level) */
            double Q[7] = {0, 0, 0, 0, 0, 0, 0}, R = 0, tol;
            const float *c = com + 4 * bad;
            int q;
            for (j = nd[2]; j <= nd[3]; ++j) {
                double x = (double)points[4 * j] - c[0], y = (double)points[4 * j + 1] - c[1],
                       z = (double)points[4 * j + 2] - c[2], m = points[4 * j + 3], r2 = x * x + y * y + z * z;
                Q[0] += m * (3 * x * x - r2); Q[1] += m * 3 * x * y; Q[2] += m * 3 * x * z;
                Q[3] += m * (3 * y * y - r2); Q[4] += m * 3 * y * z; Q[5] += m * (3 * z * z - r2); Q[6] += m * r2;
            }
            for (a = 0; a < 3; ++a) R = fmax(R, fmax(fabs(lo[4 * bad + a]), fabs(hi[4 * bad + a])));
            tol = 1e-4 * Q[6] + 384.0 * ldexp(1, -24) * com[4 * bad + 3] * R * hi[4 * bad + 3] + 1e-30;
            for (q = 0; q < 7; ++q)
                if (!(fabs(quad[8 * bad + q] - Q[q]) <= tol)) ok = 0;
            if (quad[8 * bad + 7] != 0.0f) ok = 0;
        }
        if (!ok) break;
    }
    check(n < 2 || bad == n - 1, "tree summaries (box, extent, mass, centre, bmax, quadrupole, I2)", n, dn, bad, 0, 0);
    clReleaseMemObject(pos);
    free(bodies); free(rec); free(codes); free(sorted); free(perm); free(ref_perm); free(subs); free(ref_subs);
    free(nodes); free(rnodes);
    free(parents); free(rparents); free(points); free(lo); free(hi); free(com); free(quad);
}

/* Barnes-Hut accelerations of n bodies against the double all-pairs
 * reference on `sample` bodies spread over the set (all when sample >= n):
 * the RMS relative error sqrt(sum |a - ref|^2 / sum |ref|^2) and the largest
 * per-body error |a - ref| / |S|, S the body's sum of absolute contributions
 * per component (|ref| alone is ill-conditioned where a body's forces nearly
 * cancel: a clustered set's largest |a - ref| / |ref| went from 0.18 to 1.34
 * with the data's seed, the RMS staying near 2e-3); with exact (n small: every
 * node opened costs n^2 on the device) theta 1e-6 too: every node opened,
 * the all-pairs sum in another order, within the all-pairs bound (N + 16) u
 * S per component, and clsort_nbody_accel with the method equal to the kept
 * tree's bit for bit. */
static void test_tree_accel(clsort_context *cs, clsort_tree *tree, size_t n, size_t sample, int dist, double eps2,
                            const double *thetas, size_t nth, const double *rms_bound, const double *max_bound,
                            int exact)
{
    float *pos = (float *)malloc(n * 16 + 16), *acc = (float *)malloc(n * 16 + 16);
    size_t ns = sample < n ? sample : n, step = n / (ns ? ns : 1), i, k, t;
    double *ref = (double *)malloc(ns * 24 + 8), *sabs = (double *)malloc(ns * 8 + 8), worst = 0, tiny_worst = 0;
    cl_mem dpos, dacc;
    clsort_tree_desc td;
    clsort_nbody_desc nd;
    char what[200];
    tree_points_make(pos, n, dist);
    for (k = 0; k < ns; ++k) {
        double S[3];
        ref_accel_row(pos, n, k * step, eps2, 1.0, ref + 3 * k, S);
        sabs[k] = sqrt(S[0] * S[0] + S[1] * S[1] + S[2] * S[2]);
    }
    dpos = buffer(cs, n * 16, pos);
    dacc = buffer(cs, n * 16, NULL);
    memset(&td, 0, sizeof td);
    td.has_mass = 1;
    td.mass_offset = 12;
    check(clsort_tree_build(cs, tree, dpos, n, &td, NULL) == CLSORT_SUCCESS, "tree build for BH", n,
          clsort_last_error(cs), 0, 0, 0);
    memset(&nd, 0, sizeof nd);
    nd.softening2 = eps2;
    nd.method = CLSORT_NBODY_BARNES_HUT;
    for (t = 0; t < nth + (exact ? 1u : 0u); ++t) {
        double se = 0, sr = 0, mx = 0, rms;
        int ok = 1;
        nd.theta = t < nth ? thetas[t] : 1e-6;
        check(clsort_tree_accel(cs, tree, dacc, &nd, NULL) == CLSORT_SUCCESS, "clsort_tree_accel", n,
              clsort_last_error(cs), 0, 0, 0);
        download(cs, dacc, n * 16, acc);
        for (k = 0; k < ns; ++k) {
            double e2 = 0, r2 = 0;
            int c;
            i = k * step;
            for (c = 0; c < 3; ++c) {
                double d = acc[4 * i + c] - ref[3 * k + c];
                e2 += d * d;
                r2 += ref[3 * k + c] * ref[3 * k + c];
            }
            se += e2;
            sr += r2;
            if (sabs[k] > 0 && sqrt(e2) / sabs[k] > mx) mx = sqrt(e2) / sabs[k];
        }
        if (t == nth)
            for (i = 0; i < n; ++i)
                if (!accel_ok(pos, acc, 0, n, i, eps2, 1.0, (double)n + 16, &tiny_worst)) ok = 0;
        rms = sr > 0 ? sqrt(se / sr) : 0;
        if (t < nth) {
            snprintf(what, sizeof what, "BH theta %.1f %s n=%lu (%lu sampled): RMS rel %.2e (bound %.0e), max |da|/|S| %.2e (bound %.0e)",
                     thetas[t], tree_dist_names[dist], (unsigned long)n, (unsigned long)ns, rms, rms_bound[t], mx,
                     max_bound[t]);
            printf("    %s\n", what);
            check(rms <= rms_bound[t] && mx <= max_bound[t], what, n, tree_dist_names[dist], 0, rms_bound[t], rms);
        } else {
            check(ok, "BH theta 1e-6 = all-pairs within (N+16) u S", n, tree_dist_names[dist], 0, 0, tiny_worst);
            if (tiny_worst > worst) worst = tiny_worst;
        }
    }
    /* clsort_nbody_accel with the method: the same as the kept tree's (theta 0.5) */
    if (exact) {
        float *acc2 = (float *)malloc(n * 16 + 16);
        nd.theta = 0.5;
        check(clsort_tree_accel(cs, tree, dacc, &nd, NULL) == CLSORT_SUCCESS, "clsort_tree_accel", n, "", 0, 0, 0);
        download(cs, dacc, n * 16, acc);
        check(clsort_nbody_accel(cs, dpos, dacc, n, &nd, NULL) == CLSORT_SUCCESS, "clsort_nbody_accel BH", n,
              clsort_last_error(cs), 0, 0, 0);
        download(cs, dacc, n * 16, acc2);
        check(memcmp(acc, acc2, n * 16) == 0, "clsort_nbody_accel BH = clsort_tree_accel bit for bit", n,
              tree_dist_names[dist], 0, 0, 0);
        free(acc2);
    }
    if (worst > nb_max_ratio) nb_max_ratio = worst;
    clReleaseMemObject(dpos); clReleaseMemObject(dacc);
    free(pos); free(acc); free(ref); free(sabs);
}

/* clsort_nbody with BARNES_HUT: theta tiny follows the TILED run within
 * rounding over a few steps; leapfrog energy and momentum at theta 0.5. */
static void test_tree_nbody(clsort_context *cs, size_t n, unsigned steps)
{
    float *pos = (float *)malloc(n * 16), *vel = (float *)malloc(n * 16), *p1 = (float *)malloc(n * 16),
          *p2 = (float *)malloc(n * 16), *v1 = (float *)malloc(n * 16);
    clsort_nbody_desc d;
    double e0, e1, maxd = 0, mom[3] = {0, 0, 0}, m0 = 0, dp;
    size_t i;
    int c;
    plummer(pos, vel, n, 1.0);
    nb_desc(&d, 0.01, 1e-4, 4, CLSORT_NBODY_LEAPFROG);
    check(nb_run(cs, pos, vel, n, &d, 1, p1, v1) == CLSORT_SUCCESS, "nbody TILED", n, clsort_last_error(cs), 0, 0, 0);
    d.method = CLSORT_NBODY_BARNES_HUT;
    d.theta = 1e-6;
    check(nb_run(cs, pos, vel, n, &d, 1, p2, v1) == CLSORT_SUCCESS, "nbody BARNES_HUT", n, clsort_last_error(cs), 0, 0, 0);
    for (i = 0; i < 4 * n; ++i) if ((i & 3) != 3 && fabs(p1[i] - p2[i]) > maxd) maxd = fabs(p1[i] - p2[i]);
    check(maxd < 1e-5, "nbody BH theta 1e-6 follows TILED over 4 steps (max |dx| < 1e-5)", n, "plummer", 0, 1e-5, maxd);
    e0 = energy(pos, vel, n, 1e-4, 1.0);
    d.theta = 0.5;
    d.steps = steps;
    check(nb_run(cs, pos, vel, n, &d, 1, p2, v1) == CLSORT_SUCCESS, "nbody BARNES_HUT", n, clsort_last_error(cs), 0, 0, 0);
    e1 = energy(p2, v1, n, 1e-4, 1.0);
    /* Barnes-Hut forces are not antisymmetric (a node seen from a body is
     * not the body seen from the node), so momentum drifts with the force
     * error: the change of the total momentum, against sum m |v| */
    for (i = 0; i < n; ++i) {
        for (c = 0; c < 3; ++c) mom[c] += (double)p2[4 * i + 3] * ((double)v1[4 * i + c] - vel[4 * i + c]);
        m0 += (double)p2[4 * i + 3] * sqrt((double)vel[4 * i] * vel[4 * i] + (double)vel[4 * i + 1] * vel[4 * i + 1] +
                                           (double)vel[4 * i + 2] * vel[4 * i + 2]);
    }
    dp = sqrt(mom[0] * mom[0] + mom[1] * mom[1] + mom[2] * mom[2]) / m0;
    printf("    BH leapfrog n=%lu, %u steps, theta 0.5: relative energy change %.2e, |momentum change| / sum m|v| %.2e\n",
           (unsigned long)n, steps, fabs(e1 - e0) / fabs(e0), dp);
    check(fabs(e1 - e0) <= 1e-3 * fabs(e0), "BH leapfrog energy within 1e-3", n, "plummer", 0, e0, e1);
    check(dp <= 2e-3, "BH leapfrog momentum change within 2e-3 of sum m|v|", n, "plummer", 0, 2e-3, dp);
    free(pos); free(vel); free(p1); free(p2); free(v1);
}

/* d2 as tree_radius evaluates it: float, no contraction (one operation per statement). */
static float tree_d2(float dx, float dy, float dz)
{
    float x2 = dx * dx, y2 = dy * dy, z2 = dz * dz, s;
    s = x2 + y2;
    return s + z2;
}

/* The minimum image of a = |p - q| in a period L, as tree_radius evaluates it
 * (a capped at L, then min(a, L - a); a NaN stays NaN). */
static float tree_image(float a, float L)
{
    float c = a > L ? L : a, o = L - c;
    return o < c ? o : c; /* L - c a NaN (L = c = +inf): c */
}

/* Whether point p (float4) is within r2 of query q (dims floats): open axes
 * (period NULL or 0) as tree_d2's differences, periodic ones by their
 * minimum image, in tree_radius's float operations. */
static int tree_within(const float *p, const float *q, unsigned dims, const float *period, float r2)
{
    float d[3];
    int a;
    for (a = 0; a < 3; ++a) {
        d[a] = a < (int)dims ? p[a] - q[a] : 0.0f;
        if (period && period[a] > 0.0f && a < (int)dims) d[a] = tree_image(fabsf(d[a]), period[a]);
    }
    return tree_d2(d[0], d[1], d[2]) <= r2;
}

static int cmp_u32_asc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Radius queries of nq query points against a tree of n points (float4
 * records), dims 2 or 3: grid = 1 puts points and queries on a grid of
 * step 1/4 with r = 1/2 (many points exactly on the radius, every operation
 * exact); grid = 3: random, a quarter of the coordinates NaN; grid = 2 takes
 * each coordinate from -3e38, -1, 0, 1, 3e38 (open
 * axes' differences overflow to +-inf); else random points and queries with
 * radius r. Counts, offsets, the
 * total and every list (as a set) against a brute-force host search with the
 * same float operations; then the capacity check (indices one short:
 * the error, indices untouched). */
static const float tree_huge[5] = {-3e38f, -1.0f, 0.0f, 1.0f, 3e38f};
static float tree_nan_or(float x) { return rnd64() % 4 ? x : (float)NAN; }
static void test_tree_radius(clsort_context *cs, clsort_tree *tree, size_t n, size_t nq, unsigned dims, int grid,
                             float r, const float *period)
{
    float *pts = (float *)malloc(n * 16 + 16), *qs = (float *)malloc(nq * 32 + 32);
    uint32_t *cnt = (uint32_t *)malloc(nq * 4 + 4), *off = (uint32_t *)malloc(nq * 4 + 8), *idx, *ref;
    size_t i, j, total = 0, want = 0, bad = 0, cap;
    cl_mem dp, dq, dc, doff, di;
    clsort_tree_desc td;
    clsort_tree_radius_desc rd;
    clsort_result res;
    char what[160];
    float r2 = r * r;
    snprintf(what, sizeof what, "tree radius %uD %s r=%g nq=%lu%s", dims,
             grid == 3 ? "NaN coordinates" : grid == 2 ? "+-3e38" : grid ? "grid" : "random", (double)r,
             (unsigned long)nq, period ? " periodic" : "");
    for (i = 0; i < n; ++i) {
        int a;
        for (a = 0; a < 3; ++a)
            pts[4 * i + a] = a >= (int)dims ? 0.0f
                             : grid == 3   ? tree_nan_or((float)(urand() * 4 - 2))
                             : grid == 2   ? tree_huge[rnd64() % 5]
                             : grid        ? (float)((int)(rnd64() % 17) - 8) * 0.25f
                                           : (float)(urand() * 4 - 2);
        pts[4 * i + 3] = 1.0f;
    }
    for (i = 0; i < nq; ++i) { /* 8-float query records, x at float 2 */
        int a;
        for (a = 0; a < 8; ++a) qs[8 * i + a] = -7.0f;
        for (a = 0; a < (int)dims; ++a)
            qs[8 * i + 2 + a] = grid == 3 ? tree_nan_or((float)(urand() * 5 - 2.5))
                              : grid == 2 ? tree_huge[rnd64() % 5]
                              : grid      ? (float)((int)(rnd64() % 21) - 10) * 0.25f
                                          : (float)(urand() * 5 - 2.5);
    }
    for (i = 0; i < nq; ++i) {
        uint32_t c = 0;
        for (j = 0; j < n; ++j)
            if (tree_within(pts + 4 * j, qs + 8 * i + 2, dims, period, r2)) ++c;
        want += c;
    }
    idx = (uint32_t *)malloc(want * 4 + 8);
    ref = (uint32_t *)malloc(want * 4 + 8);
    dp = buffer(cs, n * 16 + 16, pts);
    dq = buffer(cs, nq * 32 + 32, qs);
    dc = buffer(cs, nq * 4 + 4, NULL);
    doff = buffer(cs, nq * 4 + 8, NULL);
    cap = want ? want : 1;
    di = buffer(cs, cap * 4, NULL);
    memset(&td, 0, sizeof td);
    td.dims = dims;
    check(clsort_tree_build(cs, tree, dp, n, &td, NULL) == CLSORT_SUCCESS, "tree build for radius", n,
          clsort_last_error(cs), 0, 0, 0);
    memset(&rd, 0, sizeof rd);
    rd.radius = r;
    rd.stride = 32;
    rd.offset = 8;
    rd.counts = dc;
    rd.offsets = doff;
    rd.indices = di;
    rd.capacity = cap;
    if (period) memcpy(rd.period, period, sizeof rd.period);
    res = clsort_tree_radius(cs, tree, dq, nq, &rd, &total, NULL);
    check(res == CLSORT_SUCCESS, what, n, clsort_last_error(cs), 0, 0, res);
    check(total == want, "tree radius total = brute force", n, what, 0, (double)want, (double)total);
    if (nq) download(cs, dc, nq * 4, cnt);
    download(cs, doff, nq * 4 + 4, off);
    if (want) download(cs, di, want * 4, idx);
    { /* each list in the tree's (Morton) order: the records' sorted positions increase */
        uint32_t *perm = (uint32_t *)malloc(n * 4 + 4), *pos = (uint32_t *)malloc(n * 4 + 4);
        clsort_tree_view v;
        size_t k, ordered = 0;
        clsort_tree_get_view(tree, &v);
        if (n) download(cs, v.permutation, n * 4, perm);
        for (k = 0; k < n; ++k) pos[perm[k] < n ? perm[k] : 0] = (uint32_t)k;
        for (i = 0; i < nq && res == CLSORT_SUCCESS && off[i + 1] <= want; ++i) {
            for (k = off[i] + 1; k < off[i + 1] && idx[k] < n && idx[k - 1] < n && pos[idx[k - 1]] < pos[idx[k]]; ++k) {}
            if (k < off[i + 1]) break;
            ++ordered;
        }
        check(res != CLSORT_SUCCESS || ordered == nq, "tree radius lists in the tree's (Morton) order", n, what,
              ordered, 0, 0);
        free(perm), free(pos);
    }
    for (i = 0, j = 0; i < nq && res == CLSORT_SUCCESS; ++i) {
        size_t k, c = 0;
        for (k = 0; k < n; ++k)
            if (tree_within(pts + 4 * k, qs + 8 * i + 2, dims, period, r2)) ref[j + c++] = (uint32_t)k;
        if (cnt[i] != c || off[i] != j) break;
        qsort(idx + j, c, 4, cmp_u32_asc);
        if (c && memcmp(idx + j, ref + j, c * 4) != 0) break;
        j += c;
    }
    bad = i;
    check(bad == nq && off[nq] == want, "tree radius counts, offsets and lists = brute force", n, what, bad,
          bad < nq ? (double)off[bad] : (double)want, bad < nq ? (double)cnt[bad] : (double)off[nq]);
    if (want > 0) { /* one index short: the error names the need, the indices stay as they were */
        uint32_t *back = (uint32_t *)malloc(want * 4 + 8);
        download(cs, di, want * 4, idx); /* as the device left them (the lists above were sorted on the host) */
        rd.capacity = want - 1;
        total = 0;
        res = clsort_tree_radius(cs, tree, dq, nq, &rd, &total, NULL);
        download(cs, di, want * 4, back);
        check(res == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "capacity") &&
                  memcmp(back, idx, want * 4) == 0 && total == want,
              "tree radius capacity one short: error, indices untouched", n, clsort_last_error(cs), 0, 0, res);
        free(back);
    }
    { /* counts only, no offsets, no total */
        memset(&rd, 0, sizeof rd);
        rd.radius = r;
        rd.stride = 32;
        rd.offset = 8;
        rd.counts = dc;
        if (period) memcpy(rd.period, period, sizeof rd.period);
        res = clsort_tree_radius(cs, tree, dq, nq, &rd, NULL, NULL);
        if (nq) download(cs, dc, nq * 4, off);
        check(res == CLSORT_SUCCESS && (nq == 0 || memcmp(off, cnt, nq * 4) == 0), "tree radius counts only", n, what,
              0, 0, res);
    }
    clReleaseMemObject(dp); clReleaseMemObject(dq); clReleaseMemObject(dc); clReleaseMemObject(doff);
    clReleaseMemObject(di);
    free(pts); free(qs); free(cnt); free(off); free(idx); free(ref);
}

/* The host forms against the device forms: accelerations bit for bit, radius counts and lists. */
static void test_tree_host(clsort_context *cs, clsort_tree *tree, size_t n)
{
    float *pos = (float *)malloc(n * 16 + 16), *acc = (float *)malloc(n * 16 + 16), *acc2 = (float *)malloc(n * 16 + 16);
    uint32_t *cnt = (uint32_t *)malloc(n * 4 + 4), *off = (uint32_t *)malloc(n * 4 + 8), *cnt2 = (uint32_t *)malloc(n * 4 + 4),
             *idx;
    size_t i, j, total = 0, want = 0;
    clsort_tree_desc td;
    clsort_nbody_desc nd;
    cl_mem dp, da;
    int ok = 1;
    tree_points_make(pos, n, T_PLUMMER);
    memset(&nd, 0, sizeof nd);
    nd.softening2 = 1e-4;
    nd.theta = 0.6;
    dp = buffer(cs, n * 16 + 16, pos);
    da = buffer(cs, n * 16 + 16, NULL);
    memset(&td, 0, sizeof td);
    td.has_mass = 1;
    td.mass_offset = 12;
    check(clsort_tree_build(cs, tree, dp, n, &td, NULL) == CLSORT_SUCCESS &&
              clsort_tree_accel(cs, tree, da, &nd, NULL) == CLSORT_SUCCESS,
          "tree accel for the host form", n, clsort_last_error(cs), 0, 0, 0);
    download(cs, da, n * 16, acc);
    check(clsort_tree_accel_host(cs, pos, n, acc2, &nd) == CLSORT_SUCCESS && memcmp(acc, acc2, n * 16) == 0,
          "clsort_tree_accel_host = clsort_tree_accel bit for bit", n, clsort_last_error(cs), 0, 0, 0);
    for (i = 0; i < n; ++i) {
        uint32_t c = 0;
        for (j = 0; j < n; ++j)
            if (tree_d2(pos[4 * j] - pos[4 * i], pos[4 * j + 1] - pos[4 * i + 1], pos[4 * j + 2] - pos[4 * i + 2]) <=
                0.25f * 0.25f)
                ++c;
        cnt2[i] = c;
        want += c;
    }
    idx = (uint32_t *)malloc(want * 4 + 4);
    check(clsort_tree_radius_host(cs, pos, n, pos, n, 0.25f, NULL, cnt, off, idx, want, &total) == CLSORT_SUCCESS,
          "clsort_tree_radius_host", n, clsort_last_error(cs), 0, 0, 0);
    for (i = 0; i < n; ++i) {
        int self = 0;
        if (cnt[i] != cnt2[i]) ok = 0;
        for (j = off[i]; j < off[i + 1] && j < want; ++j) self |= idx[j] == i; /* each point finds itself */
        if (!self) ok = 0;
    }
    check(ok && total == want && off[n] == want, "clsort_tree_radius_host counts = brute force, self in every list", n,
          "plummer", 0, (double)want, (double)total);
    { /* the host form's period: x and y periodic with length 1, z open, the
       * points wrapped into [0, 1) on x and y */
        static const float period[3] = {1.0f, 1.0f, 0.0f};
        size_t pwant = 0, ptotal = 0;
        for (i = 0; i < n; ++i)
            for (j = 0; j < 2; ++j) pos[4 * i + j] -= floorf(pos[4 * i + j]);
        for (i = 0; i < n; ++i) {
            uint32_t c = 0;
            for (j = 0; j < n; ++j) c += (uint32_t)tree_within(pos + 4 * j, pos + 4 * i, 3, period, 0.25f * 0.25f);
            cnt2[i] = c;
            pwant += c;
        }
        check(clsort_tree_radius_host(cs, pos, n, pos, n, 0.25f, period, cnt, NULL, NULL, 0, &ptotal) ==
                      CLSORT_SUCCESS &&
                  memcmp(cnt, cnt2, n * 4) == 0 && ptotal == pwant,
              "clsort_tree_radius_host with a period: counts = brute force (minimum images)", n, "plummer wrapped", 0,
              (double)pwant, (double)ptotal);
    }
    clReleaseMemObject(dp); clReleaseMemObject(da);
    free(pos); free(acc); free(acc2); free(cnt); free(off); free(cnt2); free(idx);
}

static void test_tree_arguments(clsort_context *cs, clsort_tree *tree)
{
    float pos[64], acc[64], acc0[64];
    cl_mem dpos, dacc, small;
    clsort_tree_desc td;
    clsort_nbody_desc nd;
    clsort_tree *t2 = NULL;
    clsort_context *other = NULL;
    int k;
    for (k = 0; k < 64; ++k) pos[k] = (float)k, acc0[k] = -1.0f;
    dpos = buffer(cs, sizeof pos, pos);
    dacc = buffer(cs, sizeof acc0, acc0);
    small = buffer(cs, 20, NULL);
    memset(&td, 0, sizeof td);
    td.has_mass = 1;
    td.mass_offset = 12;
    check(clsort_tree_build(cs, tree, dpos, 16, &td, NULL) == CLSORT_SUCCESS, "tree build", 16, "", 0, 0, 0);
#define TREE_BAD(expr, what, want)                                                                        \
    do {                                                                                                  \
        clsort_result r_ = (expr);                                                                        \
        check(r_ == (want) && clsort_last_error(cs)[0], what, 0, clsort_last_error(cs), 0, (double)(want), r_); \
    } while (0)
    TREE_BAD(clsort_tree_build(cs, NULL, dpos, 16, &td, NULL), "tree build NULL tree", CLSORT_ERROR_INVALID_ARGUMENT);
    TREE_BAD(clsort_tree_build(cs, tree, NULL, 16, &td, NULL), "tree build NULL positions", CLSORT_ERROR_INVALID_ARGUMENT);
    TREE_BAD(clsort_tree_build(cs, tree, dpos, 17, &td, NULL), "tree build n past the end", CLSORT_ERROR_INVALID_ARGUMENT);
    TREE_BAD(clsort_tree_build(cs, tree, small, 2, &td, NULL), "tree build small buffer", CLSORT_ERROR_INVALID_ARGUMENT);
    td.dims = 4;
    TREE_BAD(clsort_tree_build(cs, tree, dpos, 4, &td, NULL), "tree build dims 4", CLSORT_ERROR_INVALID_ARGUMENT);
    td.dims = 3; td.code_bits = 48;
    TREE_BAD(clsort_tree_build(cs, tree, dpos, 4, &td, NULL), "tree build code_bits 48", CLSORT_ERROR_INVALID_ARGUMENT);
    td.code_bits = 0; td.stride = 18;
    TREE_BAD(clsort_tree_build(cs, tree, dpos, 4, &td, NULL), "tree build stride 18", CLSORT_ERROR_INVALID_ARGUMENT);
    td.stride = 0; td.box_given = 1; td.box_lo[0] = 1.0f; td.box_hi[0] = 0.0f;
    TREE_BAD(clsort_tree_build(cs, tree, dpos, 4, &td, NULL), "tree build box lo > hi", CLSORT_ERROR_INVALID_ARGUMENT);
    td.box_hi[0] = (float)NAN;
    TREE_BAD(clsort_tree_build(cs, tree, dpos, 4, &td, NULL), "tree build NaN box", CLSORT_ERROR_INVALID_ARGUMENT);
    td.box_given = 0;
    TREE_BAD(clsort_tree_build(cs, tree, dpos, (size_t)1 << 31, &td, NULL), "tree build n = 2^31",
             CLSORT_ERROR_INVALID_ARGUMENT);
    TREE_BAD(clsort_tree_create(cs, NULL), "tree create NULL out", CLSORT_ERROR_INVALID_ARGUMENT);
    /* the tree still holds the 16-point build: accel with bad arguments */
    memset(&nd, 0, sizeof nd);
    nd.method = CLSORT_NBODY_BARNES_HUT;
    nd.theta = -1.0;
    TREE_BAD(clsort_tree_accel(cs, tree, dacc, &nd, NULL), "tree accel theta -1", CLSORT_ERROR_INVALID_ARGUMENT);
    nd.theta = 2.5;
    TREE_BAD(clsort_tree_accel(cs, tree, dacc, &nd, NULL), "tree accel theta 2.5", CLSORT_ERROR_INVALID_ARGUMENT);
    nd.theta = (double)NAN;
    TREE_BAD(clsort_nbody_accel(cs, dpos, dacc, 16, &nd, NULL), "nbody accel BH theta NaN", CLSORT_ERROR_INVALID_ARGUMENT);
    nd.theta = 0.5;
    TREE_BAD(clsort_tree_accel(cs, tree, small, &nd, NULL), "tree accel small buffer", CLSORT_ERROR_INVALID_ARGUMENT);
    TREE_BAD(clsort_tree_accel(cs, tree, NULL, &nd, NULL), "tree accel NULL buffer", CLSORT_ERROR_INVALID_ARGUMENT);
    TREE_BAD(clsort_tree_accel(cs, tree, dacc, NULL, NULL), "tree accel NULL desc", CLSORT_ERROR_INVALID_ARGUMENT);
    { /* radius queries (the tree of 16 points): counts into dacc, which must stay as it was */
        clsort_tree_radius_desc rd;
        memset(&rd, 0, sizeof rd);
        rd.radius = 1.0f;
        rd.counts = dacc;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, NULL, NULL, NULL), "radius NULL desc", CLSORT_ERROR_INVALID_ARGUMENT);
        TREE_BAD(clsort_tree_radius(cs, NULL, dpos, 16, &rd, NULL, NULL), "radius NULL tree", CLSORT_ERROR_INVALID_ARGUMENT);
        TREE_BAD(clsort_tree_radius(cs, tree, NULL, 16, &rd, NULL, NULL), "radius NULL queries", CLSORT_ERROR_INVALID_ARGUMENT);
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 17, &rd, NULL, NULL), "radius nq past the queries",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        TREE_BAD(clsort_tree_radius(cs, tree, small, 2, &rd, NULL, NULL), "radius queries too small",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        rd.radius = -1.0f;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius -1", CLSORT_ERROR_INVALID_ARGUMENT);
        rd.radius = (float)NAN;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius NaN", CLSORT_ERROR_INVALID_ARGUMENT);
        rd.radius = (float)INFINITY;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius inf", CLSORT_ERROR_INVALID_ARGUMENT);
        rd.radius = 1.0f;
        rd.period[1] = -1.0f;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius period -1", CLSORT_ERROR_INVALID_ARGUMENT);
        rd.period[1] = (float)NAN;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius period NaN", CLSORT_ERROR_INVALID_ARGUMENT);
        rd.period[2] = (float)INFINITY;
        rd.period[1] = 0.0f;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius period inf", CLSORT_ERROR_INVALID_ARGUMENT);
        rd.period[2] = 0.0f;
        rd.stride = 18;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 4, &rd, NULL, NULL), "radius stride 18", CLSORT_ERROR_INVALID_ARGUMENT);
        rd.stride = 0;
        rd.counts = NULL;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius NULL counts", CLSORT_ERROR_INVALID_ARGUMENT);
        rd.counts = small;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius counts too small",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        rd.counts = dacc;
        rd.indices = small;
        rd.capacity = 5;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius indices without offsets",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        rd.indices = NULL;
        rd.offsets = small;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 16, &rd, NULL, NULL), "radius offsets too small",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        rd.offsets = dacc;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 8, &rd, NULL, NULL), "radius counts and offsets alias",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        rd.offsets = NULL;
        rd.counts = dpos;
        TREE_BAD(clsort_tree_radius(cs, tree, dpos, 8, &rd, NULL, NULL), "radius counts over the queries",
                 CLSORT_ERROR_INVALID_ARGUMENT);
    }
    nd.fp64 = 1;
    {
        clsort_result r = clsort_nbody_accel(cs, dpos, dacc, 8, &nd, NULL);
        check(r == CLSORT_ERROR_UNSUPPORTED, "nbody BH fp64 unsupported", 0, clsort_last_error(cs), 0, 0, r);
    }
    nd.fp64 = 0;
    { /* the tree's own buffers (its view) as the caller's argument: building
       * from view.points would rewrite (or release) what it reads */
        clsort_tree_view v;
        cl_mem part = NULL, ro;
        cl_buffer_region reg;
        cl_int e;
        float before[64], after[64];
        clsort_tree_get_view(tree, &v);
        download(cs, v.points, sizeof before, before);
        TREE_BAD(clsort_tree_build(cs, tree, v.points, 16, &td, NULL), "tree build from its own view.points",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        check(strstr(clsort_last_error(cs), "view.points") != NULL, "tree build aliasing message names view.points", 0,
              clsort_last_error(cs), 0, 0, 0);
        TREE_BAD(clsort_tree_accel(cs, tree, v.points, &nd, NULL), "tree accel into its own view.points",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        reg.origin = 0;
        reg.size = 64;
        part = clCreateSubBuffer(v.com, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &e);
        if (e == CL_SUCCESS) {
            TREE_BAD(clsort_tree_accel(cs, tree, part, &nd, NULL), "tree accel into a sub-buffer of view.com",
                     CLSORT_ERROR_INVALID_ARGUMENT);
            clReleaseMemObject(part);
        }
        ro = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_ONLY, 16 * 16, NULL, &e);
        TREE_BAD(clsort_tree_accel(cs, tree, ro, &nd, NULL), "tree accel into a read-only buffer",
                 CLSORT_ERROR_INVALID_ARGUMENT);
        clReleaseMemObject(ro);
        download(cs, v.points, sizeof after, after);
        check(memcmp(before, after, sizeof after) == 0, "tree aliasing refused: view.points unchanged", 0, "-", 0, 0, 0);
    }
    if (clsort_create(&other, NULL) == CLSORT_SUCCESS && clsort_tree_create(other, &t2) == CLSORT_SUCCESS)
        TREE_BAD(clsort_tree_build(cs, t2, dpos, 4, &td, NULL), "tree of another context", CLSORT_ERROR_INVALID_ARGUMENT);
    clsort_tree_destroy(t2);
    clsort_destroy(other);
    download(cs, dacc, sizeof acc, acc);
    check(memcmp(acc, acc0, sizeof acc) == 0, "tree bad arguments: accelerations unchanged", 0, "-", 0, 0, 0);
    download(cs, dpos, sizeof acc, acc);
    check(memcmp(acc, pos, sizeof acc) == 0, "tree bad arguments: positions unchanged", 0, "-", 0, 0, 0);
#undef TREE_BAD
    clReleaseMemObject(dpos); clReleaseMemObject(dacc); clReleaseMemObject(small);
}

/* The summaries cross work-items (tree_summaries: the second child to arrive
 * reads the first's words): on the H100, with a mem_fence that NVIDIA scopes
 * to the work-group, 2^20 points with a dense centre gave other box and mass
 * words in about one build in three. Several builds of the same points must
 * give the same words bit for bit, and every internal node's box and mass
 * must be exactly its children's (fmin, fmax and one addition: exact). */
static void test_tree_repeat(clsort_context *cs, size_t n, int builds)
{
    float *pos = (float *)malloc(n * 16), *lo = (float *)malloc((n - 1) * 16), *hi = (float *)malloc((n - 1) * 16);
    float *com = (float *)malloc((n - 1) * 16), *pts = (float *)malloc(n * 16);
    unsigned char *first = (unsigned char *)malloc((n - 1) * 64), *now = (unsigned char *)malloc((n - 1) * 64);
    uint32_t *nodes = (uint32_t *)malloc((n - 1) * 16);
    cl_mem dp;
    size_t i, bad = 0, differ = 0;
    int b;
    clsort_tree_desc td;
    memset(&td, 0, sizeof td);
    td.has_mass = 1;
    td.mass_offset = 12;
    for (i = 0; i < n; ++i) { /* denser towards the centre: deep, unbalanced subtrees */
        double r = (double)(rnd64() >> 11) / 9007199254740992.0;
        int k;
        r *= r;
        for (k = 0; k < 3; ++k) pos[4 * i + k] = (float)(((double)(rnd64() >> 11) / 4503599627370496.0 - 1.0) * r);
        pos[4 * i + 3] = (float)(0.5 + (double)(rnd64() >> 11) / 9007199254740992.0) / (float)n;
    }
    dp = buffer(cs, n * 16, pos);
    for (b = 0; b < builds; ++b) {
        clsort_tree *tree = NULL;
        clsort_tree_view v;
        if (clsort_tree_create(cs, &tree) != CLSORT_SUCCESS || clsort_tree_build(cs, tree, dp, n, &td, NULL) != CLSORT_SUCCESS ||
            clsort_tree_get_view(tree, &v) != CLSORT_SUCCESS) {
            check(0, "tree repeat: build", n, clsort_last_error(cs), 0, 0, 0);
            clsort_tree_destroy(tree);
            break;
        }
        download(cs, v.box_lo, (n - 1) * 16, lo);
        download(cs, v.box_hi, (n - 1) * 16, hi);
        download(cs, v.com, (n - 1) * 16, com);
        download(cs, v.nodes, (n - 1) * 16, nodes);
        download(cs, v.points, n * 16, pts);
        memcpy(now, lo, (n - 1) * 16);
        memcpy(now + (n - 1) * 16, hi, (n - 1) * 16);
        memcpy(now + (n - 1) * 32, com, (n - 1) * 16);
        download(cs, v.quad, (n - 1) * 16, now + (n - 1) * 48); /* the first half of the quadrupole words */
        if (b == 0) memcpy(first, now, (n - 1) * 64);
        else if (memcmp(first, now, (n - 1) * 64) != 0) differ++;
        for (i = 0; b == 0 && i < n - 1; ++i) { /* node i from its two children (leaves: their points) */
            float cl[2][3], ch[2][3], cm[2];
            int c, k;
            for (c = 0; c < 2; ++c) {
                uint32_t ch_node = nodes[4 * i + (size_t)c];
                const float *q = ch_node >= n - 1 ? pts + 4 * (ch_node - (n - 1)) : NULL;
                for (k = 0; k < 3; ++k) {
                    cl[c][k] = q ? q[k] : lo[4 * (size_t)ch_node + (size_t)k];
                    ch[c][k] = q ? q[k] : hi[4 * (size_t)ch_node + (size_t)k];
                }
                cm[c] = q ? q[3] : com[4 * (size_t)ch_node + 3];
            }
            for (k = 0; k < 3; ++k)
                if (lo[4 * i + (size_t)k] != fminf(cl[0][k], cl[1][k]) || hi[4 * i + (size_t)k] != fmaxf(ch[0][k], ch[1][k])) bad++;
            if (com[4 * i + 3] != cm[0] + cm[1]) bad++;
        }
        clsort_tree_destroy(tree);
    }
    check(differ == 0, "tree repeat: the same summaries from every build", n, "dense centre", 0, 0, (double)differ);
    check(bad == 0, "tree repeat: boxes and masses exactly the children's", n, "dense centre", 0, 0, (double)bad);
    clReleaseMemObject(dp);
    free(pos); free(lo); free(hi); free(com); free(pts); free(first); free(now); free(nodes);
}

/* The error bounds of Barnes-Hut against all pairs at theta 0.3, 0.5, 0.7, 1.0. */
static const double tree_thetas[] = {0.3, 0.5, 0.7, 1.0};
    /* quadrupoles: RMS errors measured on PoCL (2026-11-24), bounds with 1.2-2x margins: 4096
 * bodies (few per node: larger errors) Plummer 9.8e-4, 8.0e-3, 2.9e-2, 0.11 at theta 0.3, 0.5,
 * 0.7, 1.0, clustered 3.6e-4 .. 1.1e-2; 2^16 bodies Plummer 4.1e-4, 2.8e-3, 8.9e-3, 3.2e-2, two
 * spheres 5.1e-4 .. 4.6e-2, disc 2.9e-4 .. 1.6e-2, clustered 1.8e-4 .. 6.4e-3 */
/* the largest per-body |da| / |S| over the data of several seeds (PoCL): 4096 bodies up to
 * 1.4e-2, 3.1e-2, 0.13, 0.51; 2^16 bodies up to 1.6e-3, 1.2e-2, 4.4e-2, 0.14 (the worst of the
 * four sets). The tail is long (clustered 4096, theta 0.3: 3.0e-3 to 1.4e-2 from one seed to
 * another), so the bounds leave 3-12x */
static const double rms_s[] = {2e-3, 1.2e-2, 4.5e-2, 1.6e-1}, max_s[] = {4e-2, 0.25, 0.8, 3.0};
/* 2^16 bodies: the bar */
static const double rms_b[] = {1e-3, 5e-3, 2e-2, 7e-2}, max_b[] = {2e-2, 0.1, 0.3, 1.0};

/* A tree object for one case (NULL and a failed check when none). */
static clsort_tree *tree_for_case(clsort_context *cs)
{
    clsort_tree *tree = NULL;
    if (clsort_tree_create(cs, &tree) != CLSORT_SUCCESS) {
        check(0, "clsort_tree_create", 0, clsort_last_error(cs), 0, 0, 0);
        return NULL;
    }
    return tree;
}

/* Builds over the sizes and distributions, 2D and 3D, code widths, strides, boxes. */
static void tree_builds(const test_env *e)
{
    static const size_t sizes[] = {0, 1, 2, 3, 4, 5, 7, 13, 31, 63, 64, 65, 127, 129, 255, 257, 1009, 1023, 1025,
                                   4093, 8191, 8193, 65537};
    clsort_tree *tree = tree_for_case(e->cs);
    size_t s;
    int d;
    if (!tree) return;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        size_t n = sizes[s];
        if (e->tiny && n != 0 && n != 1 && n != 2 && n != 3 && n != 65 && n != 257) continue;
        if (e->quick && n > 8193) continue;
        for (d = 0; d < T_COUNT; ++d) {
            if (n > 1100 && d != T_UNIFORM && d != T_DUP) continue;
            test_tree_case(e->cs, tree, n, d, 3, 0, 4, 0, 1, 0);
        }
        if (n <= 1025) {
            test_tree_case(e->cs, tree, n, T_UNIFORM, 3, 64, 4, 0, 1, 0);
            test_tree_case(e->cs, tree, n, T_CLUSTER, 2, 0, 5, 1, 0, 0);
            test_tree_case(e->cs, tree, n, T_DUP, 2, 64, 3, 0, 1, 1);
            test_tree_case(e->cs, tree, n, T_UNIFORM, 3, 0, 6, 2, 1, 1);
        }
    }
    clsort_tree_destroy(tree);
}

/* A context whose Barnes-Hut walks the way asked (tuning.tree_walk), with
 * the group walk's stack hook; NULL (a failed check) when it cannot be made. */
static clsort_context *walk_context(clsort_context *cs, clsort_tree_walk walk, unsigned stack)
{
    clsort_tuning t;
    clsort_test_hooks h;
    memset(&t, 0, sizeof t);
    memset(&h, 0, sizeof h);
    t.tree_walk = walk;
    h.tree_group_stack = stack;
    return tuned_context_hooks(cs, &t, &h, "a context with the Barnes-Hut walk asked for");
}

/* Exactness (theta 1e-6 costs n^2 on the device) and the errors on all
 * bodies of 4096; the accuracy bar (RMS <= 5e-3 at theta 0.5) where nodes
 * hold many bodies: 2^16 (and a 2^18 Plummer sphere in the full run), the
 * reference on 1024 bodies. Each walk on every device: the per-body walk,
 * and the group walk (the GPUs' default), which must not be less accurate. */
static void tree_barnes_hut_walk(const test_env *e, clsort_tree_walk walk)
{
    clsort_context *cs = walk_context(e->cs, walk, 0);
    clsort_tree *tree = cs ? tree_for_case(cs) : NULL;
    int d;
    if (tree) {
        test_tree_accel(cs, tree, 4096, 4096, T_PLUMMER, 1e-4, tree_thetas, 4, rms_s, max_s, 1);
        test_tree_accel(cs, tree, 4096, 4096, T_CLUSTER, 1e-4, tree_thetas, 4, rms_s, max_s, 1);
        test_tree_accel(cs, tree, 1000, 1000, T_DUP, 0.0, tree_thetas, 0, rms_s, max_s, 1); /* coincident bodies */
        for (d = T_CLUSTER; d <= T_DISC; ++d) /* --quick: the group walk on the Plummer sphere alone */
            if (!e->quick || walk == CLSORT_TREE_WALK_BODY || d == T_PLUMMER)
                test_tree_accel(cs, tree, 65536, 1024, d, 1e-4, tree_thetas, 4, rms_b, max_b, 0);
        if (!e->quick) test_tree_accel(cs, tree, 262144, 1024, T_PLUMMER, 1e-4, tree_thetas, 4, rms_b, max_b, 0);
        clsort_tree_destroy(tree);
    }
    clsort_destroy(cs);
}

static void tree_barnes_hut(const test_env *e) { tree_barnes_hut_walk(e, CLSORT_TREE_WALK_BODY); }

/* Bodies closer than a Morton cell (one code, split by index into nodes
 * that are not compact): half of them within 1e-6, a Plummer sphere with
 * half its bodies in a core of scale 1e-4, every 16th body at one point.
 * The softening rule (a node of bmax <= theta eps / 32 accepted at any distance)
 * keeps them cheap; its error bound: at theta 1e-6 (every other node
 * opened) each body within (N + 16) u S (the all-pairs bound, per
 * component) + 1.5e-4 G M / eps^2 (the rule's, M the total mass: the nodes
 * it accepts are disjoint) of the double all-pairs sum; at theta 0.3 ..
 * 1.0 the table's bounds (RMS and largest per-body error). Each walk;
 * 4096 bodies (before the rule a walk opened about every node of such a
 * set: 32 s for 2^16 bodies half within 1e-6 on PoCL, 0.6 s after). */
static void tree_barnes_hut_clustered(const test_env *e)
{
    static const int sets[] = {T_HALF, T_CORE, T_COINC};
    /* half within 1e-6: at theta 0.3 an RMS of 3.4e-3 on PoCL (theta 0.5
     * 3.6e-3, 1.0 8.5e-3): the cluster's node is accepted whole, and its
     * centre of mass, a float near 0.25, is rounded by up to half an ulp
     * (1.5e-8) against offsets of about 5e-7 inside the cluster */
    static const double rms_h[] = {2e-2, 2e-2, 4.5e-2, 1.6e-1};
    clsort_tree_walk walk;
    for (walk = CLSORT_TREE_WALK_BODY; walk <= CLSORT_TREE_WALK_GROUP; walk = (clsort_tree_walk)(walk + 1)) {
        clsort_context *cs = walk_context(e->cs, walk, 0);
        clsort_tree *tree = cs ? tree_for_case(cs) : NULL;
        size_t k, n = e->tiny ? 300 : 4096, i;
        for (k = 0; tree && k < sizeof sets / sizeof sets[0]; ++k) {
            float *pos = (float *)malloc(n * 16), *acc = (float *)malloc(n * 16);
            double eps2 = 1e-4, mtot = 0, worst = 0;
            size_t bad = n;
            cl_mem dpos, dacc;
            clsort_tree_desc td;
            clsort_nbody_desc nd;
            char what[200];
            if (!e->tiny)
                test_tree_accel(cs, tree, n, n, sets[k], eps2, tree_thetas, 4, sets[k] == T_HALF ? rms_h : rms_s,
                                max_s, 0);
            tree_points_make(pos, n, sets[k]);
            for (i = 0; i < n; ++i) mtot += pos[4 * i + 3];
            dpos = buffer(cs, n * 16, pos);
            dacc = buffer(cs, n * 16, NULL);
            memset(&td, 0, sizeof td);
            td.has_mass = 1;
            td.mass_offset = 12;
            memset(&nd, 0, sizeof nd);
            nd.softening2 = eps2;
            nd.theta = 1e-6;
            nd.method = CLSORT_NBODY_BARNES_HUT;
            check(clsort_tree_build(cs, tree, dpos, n, &td, NULL) == CLSORT_SUCCESS &&
                      clsort_tree_accel(cs, tree, dacc, &nd, NULL) == CLSORT_SUCCESS,
                  "BH clustered: build and accel", n, clsort_last_error(cs), 0, 0, 0);
            download(cs, dacc, n * 16, acc);
            for (i = 0; i < n; ++i) {
                double ref[3], S[3], e2 = 0, b2 = 0, rule = 1.5e-4 * mtot / eps2, u = ldexp(1, -24), r;
                int c;
                ref_accel_row(pos, n, i, eps2, 1.0, ref, S);
                for (c = 0; c < 3; ++c) {
                    double d = acc[4 * i + c] - ref[c], b = ((double)n + 16) * u * S[c];
                    e2 += d * d;
                    b2 += b * b;
                }
                r = sqrt(e2) / (sqrt(b2) + rule);
                if (!(r <= 1.0) && bad == n) bad = i;
                if (r > worst) worst = r;
            }
            snprintf(what, sizeof what,
                     "BH theta 1e-6 %s n=%lu (%s walk): within (N+16) u |S| + 1.5e-4 G M / eps^2 (worst %.2e of it)",
                     tree_dist_names[sets[k]], (unsigned long)n, walk == CLSORT_TREE_WALK_BODY ? "body" : "group",
                     worst);
            printf("    %s\n", what);
            check(bad == n, what, n, tree_dist_names[sets[k]], bad, 1.0, worst);
            clReleaseMemObject(dpos), clReleaseMemObject(dacc);
            free(pos), free(acc);
        }
        clsort_tree_destroy(tree);
        clsort_destroy(cs);
    }
}
static void tree_barnes_hut_group(const test_env *e) { tree_barnes_hut_walk(e, CLSORT_TREE_WALK_GROUP); }

/* Few bodies: exactness only, each walk (the groups are then the root or a
 * few small nodes). */
static void tree_barnes_hut_exact(const test_env *e)
{
    clsort_tree_walk walk;
    for (walk = CLSORT_TREE_WALK_BODY; walk <= CLSORT_TREE_WALK_GROUP; walk = (clsort_tree_walk)(walk + 1)) {
        clsort_context *cs = walk_context(e->cs, walk, 0);
        clsort_tree *tree = cs ? tree_for_case(cs) : NULL;
        if (tree) {
            test_tree_accel(cs, tree, 70, 70, T_PLUMMER, 1e-4, tree_thetas, 0, rms_s, max_s, 1);
            test_tree_accel(cs, tree, 3, 3, T_UNIFORM, 0.0, tree_thetas, 0, rms_s, max_s, 1);
            clsort_tree_destroy(tree);
        }
        clsort_destroy(cs);
    }
}

/* The group walk's stack full (the test hook tree_group_stack = 2: full
 * at its second step, for any tree of two points or more): every group
 * falls back to its points' own walks, whose accelerations are the
 * per-body walk's bit for bit (the same function, the same order). Sizes
 * around the group of 64: one group, a group and a point, several. */
static void tree_barnes_hut_group_full(const test_env *e)
{
    static const size_t sizes[] = {2, 63, 64, 65, 130, 1000, 4097};
    clsort_context *body = walk_context(e->cs, CLSORT_TREE_WALK_BODY, 0);
    clsort_context *full = walk_context(e->cs, CLSORT_TREE_WALK_GROUP, 2);
    size_t k, n, count = e->tiny ? 5 : sizeof sizes / sizeof sizes[0]; /* --tiny (oclgrind): up to 130 */
    for (k = 0; body && full && k < count; ++k) {
        float *pos, *a, *b;
        clsort_nbody_desc nd;
        char what[120];
        n = sizes[k];
        pos = (float *)malloc(n * 16);
        a = (float *)malloc(n * 16);
        b = (float *)malloc(n * 16);
        if (!pos || !a || !b) {
            check(0, "group walk, full stack: host memory", n, "-", 0, 0, 0);
            free(pos), free(a), free(b);
            break;
        }
        tree_points_make(pos, n, k % 2 ? T_CLUSTER : T_PLUMMER);
        memset(&nd, 0, sizeof nd);
        nd.method = CLSORT_NBODY_BARNES_HUT;
        nd.theta = 0.5;
        nd.softening2 = 1e-4;
        nd.G = 1.0;
        memset(a, 0x55, n * 16);
        memset(b, 0xaa, n * 16);
        snprintf(what, sizeof what, "group walk with its stack full: the per-body walk's accelerations, n=%lu",
                 (unsigned long)n);
        check(clsort_tree_accel_host(body, pos, n, a, &nd) == CLSORT_SUCCESS &&
                  clsort_tree_accel_host(full, pos, n, b, &nd) == CLSORT_SUCCESS && memcmp(a, b, n * 16) == 0,
              what, n, clsort_last_error(full), 0, 0, 0);
        free(pos), free(a), free(b);
    }
    clsort_destroy(body);
    clsort_destroy(full);
}

static void tree_nbody(const test_env *e) { test_tree_nbody(e->cs, 1024, e->quick ? 100 : 1000); }

/* 2^20 points where the race showed (GPUs); CPUs check the nesting on fewer. */
static void tree_repeat(const test_env *e)
{
    int cpu = e->cs->dev.cpu;
    test_tree_repeat(e->cs, cpu ? (size_t)1 << (e->quick ? 14 : 17) : (size_t)1 << 20, cpu ? 2 : 6);
}

/* The summaries' words one by one (the test hook status32) and in 64-bit
 * pairs (the default where int64 atomics exist): every buffer of the view
 * the same bytes, from a cold start (the first build of each context) and a
 * second build. Where the device has no int64 atomics both are the 32-bit
 * form and must still agree. */
static void tree_summary_words(const test_env *e)
{
    static const size_t sizes[] = {1, 2, 3, 64, 1000, 4097, 65537};
    clsort_tuning t;
    clsort_test_hooks h;
    clsort_context *narrow;
    size_t k;
    memset(&t, 0, sizeof t);
    memset(&h, 0, sizeof h);
    h.status32 = 1;
    narrow = tuned_context_hooks(e->cs, &t, &h, "a context with 32-bit summary words");
    for (k = 0; narrow && k < sizeof sizes / sizeof sizes[0]; ++k) {
        size_t n = sizes[k], i, differ = 0, bytes[7];
        float *pos;
        clsort_tree *ta = NULL, *tb = NULL;
        clsort_tree_view va, vb;
        clsort_tree_desc td;
        cl_mem dp, ma[7], mb[7];
        int b, j;
        if (e->tiny && n > 1000) break;
        pos = (float *)malloc(n * 16);
        if (!pos) break;
        tree_points_make(pos, n, k % 2 ? T_CLUSTER : T_PLUMMER);
        dp = buffer(e->cs, n * 16, pos);
        memset(&td, 0, sizeof td);
        td.has_mass = 1;
        td.mass_offset = 12;
        if (clsort_tree_create(e->cs, &ta) != CLSORT_SUCCESS || clsort_tree_create(narrow, &tb) != CLSORT_SUCCESS) {
            check(0, "summary words: tree create", n, clsort_last_error(e->cs), 0, 0, 0);
            clsort_tree_destroy(ta), clsort_tree_destroy(tb);
            clReleaseMemObject(dp), free(pos);
            break;
        }
        for (b = 0; b < 2; ++b) {
            int ok = clsort_tree_build(e->cs, ta, dp, n, &td, NULL) == CLSORT_SUCCESS &&
                     clsort_tree_build(narrow, tb, dp, n, &td, NULL) == CLSORT_SUCCESS &&
                     clsort_tree_get_view(ta, &va) == CLSORT_SUCCESS && clsort_tree_get_view(tb, &vb) == CLSORT_SUCCESS;
            check(ok, "summary words: both builds", n, clsort_last_error(e->cs), 0, 0, 0);
            if (!ok) break;
            ma[0] = va.points, mb[0] = vb.points, bytes[0] = n * 16;
            ma[1] = va.parents, mb[1] = vb.parents, bytes[1] = (2 * n - 1) * 4;
            ma[2] = va.nodes, mb[2] = vb.nodes, bytes[2] = (n - 1) * 16;
            ma[3] = va.box_lo, mb[3] = vb.box_lo, bytes[3] = (n - 1) * 16;
            ma[4] = va.box_hi, mb[4] = vb.box_hi, bytes[4] = (n - 1) * 16;
            ma[5] = va.com, mb[5] = vb.com, bytes[5] = (n - 1) * 16;
            ma[6] = va.quad, mb[6] = vb.quad, bytes[6] = (n - 1) * 32;
            for (j = 0; j < 7; ++j) {
                unsigned char *x, *y;
                if (bytes[j] == 0) continue;
                x = (unsigned char *)malloc(bytes[j]);
                y = (unsigned char *)malloc(bytes[j]);
                if (x && y) {
                    download(e->cs, ma[j], bytes[j], x);
                    download(narrow, mb[j], bytes[j], y);
                    for (i = 0; i < bytes[j]; ++i) differ += x[i] != y[i];
                }
                free(x), free(y);
            }
        }
        check(differ == 0, "tree summaries: 32-bit words and 64-bit pairs, the same bytes", n,
              k % 2 ? "clusters" : "plummer", 0, 0, (double)differ);
        clsort_tree_destroy(ta);
        clsort_tree_destroy(tb);
        clReleaseMemObject(dp);
        free(pos);
    }
    clsort_destroy(narrow);
}

/* Grids (points on the radius), random points, 2D and 3D, few and many points. */
static void tree_radius(const test_env *e)
{
    static const size_t rn[] = {1, 2, 3, 31, 257, 1009, 4099};
    clsort_tree *tree = tree_for_case(e->cs);
    int tiny = e->tiny;
    size_t s;
    if (!tree) return;
    for (s = 0; s < sizeof rn / sizeof rn[0]; ++s) {
        if (tiny && rn[s] > 300) continue;
        test_tree_radius(e->cs, tree, rn[s], tiny ? 17 : 301, 3, 1, 0.5f, NULL);
        test_tree_radius(e->cs, tree, rn[s], tiny ? 17 : 301, 2, 1, 0.75f, NULL);
        if (!tiny) test_tree_radius(e->cs, tree, rn[s], 300, 3, 0, 0.3f, NULL);
        if (!tiny) test_tree_radius(e->cs, tree, rn[s], 300, 2, 0, 0.0f, NULL);
    }
    test_tree_radius(e->cs, tree, 100, 0, 3, 0, 0.5f, NULL);    /* no query */
    test_tree_radius(e->cs, tree, 300, 50, 3, 1, 100.0f, NULL); /* every point of every query */
    clsort_tree_destroy(tree);
}

/* Periodic boxes: the grid's 17 values per axis, -2 .. 2 in steps of 1/4,
 * with a period of 17/4 make a periodic lattice (every operation exact, many
 * images exactly on the radius); random points in [-2, 2) with a period of
 * 4, queries also outside the box (the rule, capped at one period, still
 * holds); each axis periodic alone, all three, and radii past half a
 * period. Against the brute force under the same rule. */
static void tree_radius_periodic(const test_env *e)
{
    static const size_t rn[] = {1, 2, 31, 257, 1009, 4099};
    static const float lattice[][3] = {{4.25f, 4.25f, 4.25f}, {4.25f, 0, 0}, {0, 0, 4.25f}, {0, 4.25f, 4.25f}},
                       box[][3] = {{4, 4, 4}, {0, 4, 0}, {4, 0, 4}};
    clsort_tree *tree = tree_for_case(e->cs);
    int tiny = e->tiny;
    size_t s, k;
    if (!tree) return;
    for (s = 0; s < sizeof rn / sizeof rn[0]; ++s) {
        if (tiny && rn[s] > 300) continue;
        for (k = 0; k < sizeof lattice / sizeof lattice[0]; ++k) {
            if (tiny && k % 2) continue;
            test_tree_radius(e->cs, tree, rn[s], tiny ? 17 : 101, 3, 1, 0.5f, lattice[k]);
            test_tree_radius(e->cs, tree, rn[s], tiny ? 17 : 101, 2, 1, 0.75f, lattice[k]);
        }
        for (k = 0; !tiny && k < sizeof box / sizeof box[0]; ++k) {
            test_tree_radius(e->cs, tree, rn[s], 100, 3, 0, 0.3f, box[k]);
            test_tree_radius(e->cs, tree, rn[s], 100, 2, 0, 0.6f, box[k]);
        }
    }
    test_tree_radius(e->cs, tree, 300, tiny ? 9 : 50, 3, 1, 2.5f, lattice[0]);  /* past half the period */
    test_tree_radius(e->cs, tree, 300, 20, 3, 0, 100.0f, box[0]);               /* every point */
    /* Coordinates +-3e38: an open axis's difference overflows to +inf (its
     * minimum image inf - inf, a NaN, before: never counted), which the open
     * rule counts when r^2 is +inf (r = 1e20) and never otherwise; every
     * axis open, one or two periodic, 2D and 3D. */
    for (k = 0; k < 4; ++k) {
        static const float huge_box[][3] = {{0, 0, 0}, {4, 0, 0}, {0, 4, 0}, {4, 0, 4}};
        test_tree_radius(e->cs, tree, tiny ? 40 : 200, tiny ? 9 : 40, 3, 2, 1e20f, huge_box[k]);
        test_tree_radius(e->cs, tree, tiny ? 40 : 200, tiny ? 9 : 40, 2, 2, 1e20f, huge_box[k]);
        test_tree_radius(e->cs, tree, tiny ? 40 : 200, tiny ? 9 : 40, 3, 2, 2.0f, huge_box[k]);
        /* a NaN coordinate never counts, also where r^2 is +inf (r = FLT_MAX) */
        test_tree_radius(e->cs, tree, tiny ? 40 : 200, tiny ? 9 : 40, 3, 3, FLT_MAX, huge_box[k]);
        test_tree_radius(e->cs, tree, tiny ? 40 : 200, tiny ? 9 : 40, 2, 3, 1.0f, huge_box[k]);
    }
    clsort_tree_destroy(tree);
}

static void tree_host(const test_env *e)
{
    clsort_tree *tree = tree_for_case(e->cs);
    if (!tree) return;
    test_tree_host(e->cs, tree, e->tiny ? 40 : 1000);
    clsort_tree_destroy(tree);
}

static void tree_arguments(const test_env *e)
{
    clsort_tree *tree = tree_for_case(e->cs);
    if (!tree) return;
    test_tree_arguments(e->cs, tree);
    clsort_tree_destroy(tree);
}

/* One point, 2D and 3D: the leaf is the root, node 0, and its parent word
 * must read 0xffffffff as for any root. The word is set to 0 between two
 * builds, so that a build that leaves it unwritten cannot pass by the
 * buffer's earlier contents. */
static void tree_one_point(const test_env *e)
{
    static const float rec[4] = {0.25f, -3.0f, 7.5f, 1.0f};
    clsort_tree *tree = tree_for_case(e->cs);
    cl_mem pos = buffer(e->cs, sizeof rec, rec);
    unsigned dims;
    int build;
    for (dims = 2; tree && dims <= 3; ++dims)
        for (build = 0; build < 2; ++build) {
            clsort_tree_desc td;
            clsort_tree_view v;
            uint32_t parent = 0;
            const cl_uint zero = 0;
            clsort_result r;
            memset(&td, 0, sizeof td);
            td.dims = dims;
            r = clsort_tree_build(e->cs, tree, pos, 1, &td, NULL);
            check(r == CLSORT_SUCCESS, "tree build of one point", 1, clsort_last_error(e->cs), 0, 0, r);
            if (r != CLSORT_SUCCESS || clsort_tree_get_view(tree, &v) != CLSORT_SUCCESS) continue;
            download(e->cs, v.parents, 4, &parent);
            check(parent == 0xffffffffu, dims == 2 ? "one-point 2D tree: the root's parent" : "one-point 3D tree: the root's parent",
                  1, build ? "after a stale 0" : "first build", 0, 0xffffffffu, parent);
            if (clEnqueueFillBuffer(clsort_cl_queue(e->cs), v.parents, &zero, 4, 0, 4, 0, NULL, NULL) != CL_SUCCESS ||
                clFinish(clsort_cl_queue(e->cs)) != CL_SUCCESS)
                check(0, "clEnqueueFillBuffer of view.parents", 1, "-", 0, 0, 0);
        }
    clReleaseMemObject(pos);
    if (tree) clsort_tree_destroy(tree);
}

/* Every field of clsort_tree_view the manual documents, at the edge sizes:
 * n = 0 (nothing else), 1, 2 (apart and at one point), 3 (two at one
 * point), and builds with a device count m = 0, 1, 2 of capacity 5; 2D and
 * 3D, 32- and 64-bit codes. Each build follows one of 5 other points into
 * the same tree, whose every view buffer is then filled with 0xa5a5a5a5, so
 * that a word the build leaves unwritten cannot pass: view.n, dims, code_bits, code_size; the count
 * word; the box and the code scale in bounds (2^bits / the largest side);
 * codes from that box and scale, the permutation (stable by code), the
 * points (record order through it, z = 0 in 2D, unit masses); parents (the
 * root's 0xffffffff), nodes, box_lo/box_hi (.w the extent and bmax), com,
 * quad's unused word 0 (m - 1 internal nodes), subcodes 0 (m < 17: no long
 * run; the garbage also covers the long-run flag after the box in bounds). */
static void tree_view_edges(const test_env *e)
{
    static const float stale[20] = {9, 8, 7, 1, -6, 5, 4, 1, 3, -2, 1, 1, 0.5f, 0.25f, -0.125f, 1, 11, 12, 13, 1};
    static const float sets[4][12] = {{0.25f, -3.0f, 7.5f, 1, 0, 0, 0, 1, 0, 0, 0, 1},
                                      {0.25f, -3.0f, 7.5f, 1, -1.0f, 2.0f, 7.75f, 1, 0, 0, 0, 1},
                                      {0.5f, 0.5f, 0.5f, 1, 0.5f, 0.5f, 0.5f, 1, 0, 0, 0, 1},
                                      {0.5f, 0.5f, 0.5f, 1, -0.5f, 1.5f, 2.0f, 1, 0.5f, 0.5f, 0.5f, 1}};
    static const size_t set_n[4] = {1, 2, 2, 3};
    clsort_tree *tree = tree_for_case(e->cs);
    cl_mem sp = buffer(e->cs, sizeof stale, stale);
    int k, t;
    for (t = 0; tree && t < 4; ++t)
        for (k = -1; k < 4 + 3; ++k) { /* k: -1 n = 0; 0..3 the sets; 4..6 device counts 0, 1, 2 */
            const unsigned dims = t & 1 ? 3u : 2u, cbits = t & 2 ? 64u : 32u;
            const size_t m = k < 0 ? 0 : k < 4 ? set_n[k] : (size_t)(k - 4), n = k < 4 ? m : 5;
            const float *rec = k >= 4 ? sets[3] : k >= 0 ? sets[k] : NULL;
            float recs[20], bounds[16], points[20], lo[16], hi[16], com[16], quad[32];
            uint32_t perm[5], parents[9], nodes[16], word = 0;
            uint64_t codes[5];
            unsigned char raw[40];
            clsort_tree_desc td;
            clsort_tree_view v;
            clsort_enqueue enq;
            cl_mem cnt = NULL, p = NULL;
            clsort_result r;
            char what[120];
            size_t i, a, bad = 0;
            unsigned bpa = dims == 3 ? (cbits == 64 ? 21u : 10u) : (cbits == 64 ? 31u : 16u);
            float ext = 0.0f, scale;
            memset(&td, 0, sizeof td);
            td.dims = dims;
            td.code_bits = cbits;
            snprintf(what, sizeof what, "tree view at the edges: %uD %u-bit, n = %lu%s", dims, cbits, (unsigned long)m,
                     k >= 4 ? " (device count, capacity 5)" : k == 2 ? " at one point" : k == 3 ? ", two at one point" : "");
            r = clsort_tree_build(e->cs, tree, sp, 5, &td, NULL); /* the stale tree */
            check(r == CLSORT_SUCCESS, "tree view at the edges: the 5-point build before", 5, clsort_last_error(e->cs), 0,
                  0, r);
            if (r == CLSORT_SUCCESS && clsort_tree_get_view(tree, &v) == CLSORT_SUCCESS) { /* then garbage in every word */
                const cl_mem all[12] = {v.codes, v.permutation, v.points, v.nodes, v.parents, v.box_lo,
                                        v.box_hi, v.com, v.quad, v.bounds, v.count, v.subcodes};
                const cl_uint garbage = 0xa5a5a5a5u;
                size_t bytes = 0;
                for (i = 0; i < 12; ++i)
                    if (clGetMemObjectInfo(all[i], CL_MEM_SIZE, sizeof bytes, &bytes, NULL) != CL_SUCCESS ||
                        clEnqueueFillBuffer(clsort_cl_queue(e->cs), all[i], &garbage, 4, 0, bytes, 0, NULL, NULL) !=
                            CL_SUCCESS)
                        check(0, "tree view at the edges: garbage over the stale tree", 5, "-", i, 0, 0);
            }
            memset(recs, 0, sizeof recs);
            if (rec) memcpy(recs, rec, 12 * sizeof(float));
            if (k >= 4) recs[12] = 3.0f, recs[13] = 4.0f, recs[14] = 5.0f, recs[15] = 1.0f; /* past the count */
            p = buffer(e->cs, sizeof recs, recs);
            memset(&enq, 0, sizeof enq);
            if (k >= 4) {
                cl_uint c32 = (cl_uint)m;
                cnt = buffer(e->cs, 4, &c32);
                enq.count = cnt;
            }
            r = clsort_tree_build(e->cs, tree, p, n, &td, k >= 4 ? &enq : NULL);
            check(r == CLSORT_SUCCESS, what, m, clsort_last_error(e->cs), 0, 0, r);
            if (r != CLSORT_SUCCESS || clsort_tree_get_view(tree, &v) != CLSORT_SUCCESS) goto next;
            if (n == 0) {
                check(v.n == 0 && v.dims == 0 && v.code_bits == 0 && v.code_size == 0 && !v.codes && !v.permutation &&
                          !v.points && !v.nodes && !v.parents && !v.box_lo && !v.box_hi && !v.com && !v.quad &&
                          !v.bounds && !v.count && !v.subcodes,
                      "tree view of n = 0: n 0, every other field 0 or NULL", 0, what, 0, 0, (double)v.n);
                goto next;
            }
            check(v.n == n && v.dims == dims && v.code_bits == (dims == 3 ? (cbits == 64 ? 63u : 30u) : (cbits == 64 ? 62u : 32u)) &&
                      v.code_size == cbits / 8 && v.count != NULL,
                  "tree view: n, dims, code_bits, code_size, count", m, what, 0, (double)n, (double)v.n);
            download(e->cs, v.count, 4, &word);
            check(word == (uint32_t)m, "tree view: the count word", m, what, 0, (double)m, word);
            if (m == 0) goto next;
            download(e->cs, v.bounds, 64, bounds);
            for (a = 0; a < dims; ++a) {
                float mn = rec[a], mx = rec[a];
                for (i = 1; i < m; ++i) mn = rec[4 * i + a] < mn ? rec[4 * i + a] : mn, mx = rec[4 * i + a] > mx ? rec[4 * i + a] : mx;
                check(bounds[8 + a] == mn && bounds[12 + a] == mx, "tree view: bounds, the box", m, what, a, mn, bounds[8 + a]);
                if (mx - mn > ext) ext = mx - mn;
            }
            scale = ext > 0.0f ? (float)((uint64_t)1 << bpa) / ext : 0.0f;
            check(bounds[11] == scale, "tree view: bounds[11], the code scale 2^bits / the largest side (0: a point)", m,
                  what, 11, scale, bounds[11]);
            download(e->cs, v.codes, m * v.code_size, raw);
            download(e->cs, v.permutation, m * 4, perm);
            download(e->cs, v.points, m * 16, points);
            download(e->cs, v.parents, (2 * m - 1) * 4, parents);
            for (i = 0; i < m; ++i) {
                uint64_t c = 0;
                const uint32_t j = perm[i];
                if (j >= m) { bad = i + 1; break; }
                for (a = 0; a < dims; ++a) c |= tree_spread(tree_cell(rec[4 * j + a], bounds[8 + a], bounds[11], bpa), dims) << a;
                codes[i] = tree_code_at(raw, v.code_size, i);
                if (codes[i] != c || (i > 0 && (codes[i - 1] > c || (codes[i - 1] == c && perm[i - 1] >= j))) ||
                    points[4 * i] != rec[4 * j] || points[4 * i + 1] != rec[4 * j + 1] ||
                    points[4 * i + 2] != (dims == 3 ? rec[4 * j + 2] : 0.0f) || points[4 * i + 3] != 1.0f) {
                    bad = i + 1;
                    break;
                }
            }
            check(bad == 0, "tree view: codes, permutation (stable by code), points", m, what, bad ? bad - 1 : 0, 0, 0);
            check(parents[0] == 0xffffffffu, "tree view: the root's parent 0xffffffff", m, what, 0, 0xffffffffu, parents[0]);
            {
                uint32_t subs[5];
                download(e->cs, v.subcodes, m * 4, subs);
                for (i = 0; i < m && subs[i] == 0; ++i) {}
                check(i == m, "tree view: subcodes 0 (no run of more than 16 equal codes)", m, what, i, 0, 0);
            }
            if (m == 1) goto next;
            download(e->cs, v.nodes, (m - 1) * 16, nodes);
            download(e->cs, v.box_lo, (m - 1) * 16, lo);
            download(e->cs, v.box_hi, (m - 1) * 16, hi);
            download(e->cs, v.com, (m - 1) * 16, com);
            download(e->cs, v.quad, (m - 1) * 32, quad);
            for (i = 1; i < 2 * m - 1; ++i)
                if (parents[i] >= m - 1 || (nodes[4 * parents[i]] != i && nodes[4 * parents[i] + 1] != i)) bad = i;
            check(bad == 0, "tree view: every node's parent has it as a child", m, what, bad, 0, 0);
            {
                float l[3] = {points[0], points[1], points[2]}, h[3] = {points[0], points[1], points[2]}, c[3] = {0, 0, 0};
                float e3 = 0.0f, d2max = 0.0f;
                for (i = 0; i < m; ++i)
                    for (a = 0; a < 3; ++a) {
                        float x = points[4 * i + a];
                        l[a] = x < l[a] ? x : l[a], h[a] = x > h[a] ? x : h[a];
                        c[a] += x / (float)m;
                    }
                for (a = 0; a < 3; ++a) e3 = h[a] - l[a] > e3 ? h[a] - l[a] : e3;
                for (i = 0; i < m; ++i) {
                    float d2 = 0.0f;
                    for (a = 0; a < 3; ++a) d2 += (points[4 * i + a] - com[a]) * (points[4 * i + a] - com[a]);
                    d2max = d2 > d2max ? d2 : d2max;
                }
                check(nodes[2] == 0 && nodes[3] == m - 1 && lo[0] == l[0] && lo[1] == l[1] && lo[2] == l[2] &&
                          hi[0] == h[0] && hi[1] == h[1] && hi[2] == h[2] && lo[3] == e3 &&
                          sqrt((double)d2max) <= (double)hi[3] * (1 + 1e-6) && com[3] == (float)m &&
                          fabs(com[0] - c[0]) <= 1e-6f * (1 + e3) && fabs(com[1] - c[1]) <= 1e-6f * (1 + e3) &&
                          fabs(com[2] - c[2]) <= 1e-6f * (1 + e3),
                      "tree view: the root's range, box, extent, bmax, centre and mass", m, what, 0, 0, 0);
                for (i = 0; i + 1 < m; ++i)
                    if (quad[8 * i + 7] != 0.0f) bad = i + 1;
                check(bad == 0, "tree view: quad[2k + 1].w = 0", m, what, bad, 0, bad ? quad[8 * (bad - 1) + 7] : 0);
            }
        next:
            if (p) clReleaseMemObject(p);
            if (cnt) clReleaseMemObject(cnt);
        }
    clReleaseMemObject(sp);
    if (tree) clsort_tree_destroy(tree);
}

/* bmax (view.box_hi[k].w) bounds the distance from node k's centre of mass
 * to each of its points, computed in double, at scales where the squares of
 * the distances underflow in float: 21 points 2^-80 apart near 2^-60, and
 * points at x = 2^-k (k < 120); where they and the sides overflow: 60 points
 * of coordinates up to +-3.4e38 (float's largest is 3.4028e38), and
 * x = +-2^k (k < 128, both signs); a unit-scale set as a control. An
 * infinite bmax bounds every distance (the walk opens the node); a NaN
 * bounds none. */
static void tree_bmax_tiny(const test_env *e)
{
    enum { NMAX = 160 };
    clsort_tree *tree = tree_for_case(e->cs);
    float rec[4 * NMAX];
    int set;
    for (set = 0; tree && set < 5; ++set) {
        size_t n = set == 0 ? 21 : set == 1 ? 119 : set == 2 ? NMAX : set == 3 ? 60 : 127, i, c, j, bad_node = 0,
               bad = 0;
        double worst = 0.0, worst_b = 0.0;
        float points[4 * NMAX], hi[4 * NMAX], com[4 * NMAX];
        uint32_t nodes[4 * NMAX];
        clsort_tree_desc td;
        clsort_tree_view v;
        clsort_result r;
        cl_mem pos;
        const char *name = set == 0   ? "21 points 2^-80 apart near 2^-60"
                           : set == 1 ? "x = 2^-k, k < 120"
                           : set == 2 ? "unit cube"
                           : set == 3 ? "coordinates up to +-3.4e38"
                                      : "x = +-2^k, k < 128";
        for (i = 0; i < n; ++i) {
            double u = (double)(rnd64() >> 11) / 9007199254740992.0;
            if (set == 0) {
                rec[4 * i] = (float)(ldexp(1.0, -60) + ldexp((double)i, -80));
                rec[4 * i + 1] = (float)(ldexp(1.0, -60) + ldexp((double)((i * 7) % 21), -80));
                rec[4 * i + 2] = (float)(ldexp(1.0, -60) - ldexp((double)((i * 5) % 21), -80));
            } else if (set == 1) {
                rec[4 * i] = (float)ldexp(1.0, -(int)(i + 1));
                rec[4 * i + 1] = (float)ldexp(u, -(int)(i % 100) - 20);
                rec[4 * i + 2] = 0.0f;
            } else if (set == 2) {
                rec[4 * i] = (float)u;
                rec[4 * i + 1] = (float)((double)(rnd64() >> 11) / 9007199254740992.0);
                rec[4 * i + 2] = (float)((double)(rnd64() >> 11) / 9007199254740992.0);
            } else if (set == 3) { /* half of them at the corners of the largest box */
                rec[4 * i] = (float)(i % 2 ? 3.4e38 : -3.4e38 * u);
                rec[4 * i + 1] = (float)(i % 4 < 2 ? -3.4e38 : 3.4e38 * u);
                rec[4 * i + 2] = (float)(i % 3 ? 3.4e38 * (2.0 * u - 1.0) : -3.4e38);
            } else {
                rec[4 * i] = (float)(i % 2 ? -ldexp(1.0, (int)i) : ldexp(1.0, (int)i));
                rec[4 * i + 1] = (float)ldexp(u, (int)(i % 100));
                rec[4 * i + 2] = (float)-ldexp(u, 127 - (int)i);
            }
            rec[4 * i + 3] = 1.0f + (float)(i % 3);
        }
        memset(&td, 0, sizeof td);
        td.dims = 3;
        td.has_mass = 1;
        td.mass_offset = 12;
        pos = buffer(e->cs, n * 16, rec);
        r = clsort_tree_build(e->cs, tree, pos, n, &td, NULL);
        check(r == CLSORT_SUCCESS, "tree build (bmax)", n, clsort_last_error(e->cs), 0, 0, r);
        clReleaseMemObject(pos);
        if (r != CLSORT_SUCCESS || clsort_tree_get_view(tree, &v) != CLSORT_SUCCESS) continue;
        download(e->cs, v.points, n * 16, points);
        download(e->cs, v.nodes, (n - 1) * 16, nodes);
        download(e->cs, v.box_hi, (n - 1) * 16, hi);
        download(e->cs, v.com, (n - 1) * 16, com);
        for (c = 0; c + 1 < n; ++c)
            for (j = nodes[4 * c + 2]; j <= nodes[4 * c + 3] && j < n; ++j) {
                double dx = (double)points[4 * j] - com[4 * c], dy = (double)points[4 * j + 1] - com[4 * c + 1],
                       dz = (double)points[4 * j + 2] - com[4 * c + 2], d = sqrt(dx * dx + dy * dy + dz * dz);
                if (!(d <= (double)hi[4 * c + 3])) {
                    if (!bad) bad_node = c, worst = d, worst_b = hi[4 * c + 3];
                    ++bad;
                }
            }
        check(bad == 0, "tree bmax: an upper bound of each point's distance to its node's centre", n, name, bad_node,
              worst, worst_b);
    }
    if (tree) clsort_tree_destroy(tree);
}

/* Radius queries whose outputs are the tree's own buffers: refused with a
 * message naming both, and the tree untouched (the codes, the parents and
 * the quadrupoles as counts, offsets and indices). */
static void tree_radius_into_tree(const test_env *e)
{
    enum { N = 64, NQ = 16 };
    clsort_tree *tree = tree_for_case(e->cs);
    float rec[4 * N];
    uint32_t before[N], after[N];
    clsort_tree_desc td;
    clsort_tree_view v;
    clsort_tree_radius_desc rd;
    cl_mem pos, counts, offsets;
    size_t i;
    int k;
    if (!tree) return;
    for (i = 0; i < 4 * N; ++i) rec[i] = (float)((double)(rnd64() >> 11) / 9007199254740992.0);
    pos = buffer(e->cs, sizeof rec, rec);
    counts = buffer(e->cs, NQ * 4, NULL);
    offsets = buffer(e->cs, (NQ + 1) * 4, NULL);
    memset(&td, 0, sizeof td);
    check(clsort_tree_build(e->cs, tree, pos, N, &td, NULL) == CLSORT_SUCCESS && clsort_tree_get_view(tree, &v) == CLSORT_SUCCESS,
          "tree build (radius into the tree)", N, clsort_last_error(e->cs), 0, 0, 0);
    for (k = 0; k < 3; ++k) {
        static const char *what[3] = {"radius: desc.counts = the tree's view.codes refused, the tree untouched",
                                      "radius: desc.offsets = the tree's view.parents refused, the tree untouched",
                                      "radius: desc.indices = the tree's view.quad refused, the tree untouched"};
        cl_mem victim = k == 0 ? v.codes : k == 1 ? v.parents : v.quad;
        clsort_result r;
        memset(&rd, 0, sizeof rd);
        rd.radius = 0.5f;
        rd.counts = k == 0 ? v.codes : counts;
        rd.offsets = k == 1 ? v.parents : offsets;
        rd.indices = k == 2 ? v.quad : NULL;
        rd.capacity = k == 2 ? N : 0;
        download(e->cs, victim, sizeof before, before);
        r = clsort_tree_radius(e->cs, tree, pos, NQ, &rd, NULL, NULL);
        clFinish(clsort_cl_queue(e->cs));
        download(e->cs, victim, sizeof after, after);
        check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(e->cs), "of the tree") != NULL &&
                  memcmp(before, after, sizeof before) == 0,
              what[k], NQ, clsort_last_error(e->cs), 0, CLSORT_ERROR_INVALID_ARGUMENT, r);
    }
    /* the other memory the outputs may not share (the argument table has no
     * radius row): the queries, each other (one handle; overlapping
     * sub-buffers), and a read-only counts buffer; every buffer unchanged */
    {
        uint32_t pattern[64];
        cl_int err = CL_SUCCESS, e2 = CL_SUCCESS;
        cl_mem parent, sub_a, sub_b, ro;
        cl_buffer_region ra, rb;
        cl_uint align = 0;
        size_t al;
        for (i = 0; i < 64; ++i) pattern[i] = 0x5eed0000u + (uint32_t)i;
        clGetDeviceInfo(clsort_cl_device(e->cs), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align, &align, NULL);
        al = align / 8 > 64 ? align / 8 : 64;
        parent = buffer(e->cs, 4 * al, NULL);
        ra.origin = 0, ra.size = 2 * al; /* sub_b starts inside sub_a */
        rb.origin = al, rb.size = 2 * al;
        sub_a = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &ra, &err);
        sub_b = clCreateSubBuffer(parent, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &rb, &e2);
        ro = clCreateBuffer(clsort_cl_context(e->cs), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, NQ * 4, pattern, &err);
        for (k = 0; k < 4 && err == CL_SUCCESS && e2 == CL_SUCCESS; ++k) {
            static const char *what2[4] = {"radius: desc.counts = queries refused, the queries untouched",
                                           "radius: desc.counts = desc.offsets refused, untouched",
                                           "radius: desc.indices over desc.offsets (sub-buffers) refused, untouched",
                                           "radius: a CL_MEM_READ_ONLY desc.counts refused, untouched"};
            static const char *say[4] = {"queries", "desc.counts", "sub-buffers", "CL_MEM_READ_ONLY"};
            cl_mem watch = k == 0 ? pos : k == 1 ? offsets : k == 2 ? parent : ro;
            clsort_result r;
            unsigned char b0[4 * N], b1[4 * N];
            size_t bytes = k == 0 ? sizeof b0 : k == 1 ? (NQ + 1) * 4 : k == 2 ? 4 * al : NQ * 4;
            if (bytes > sizeof b0) bytes = sizeof b0;
            memset(&rd, 0, sizeof rd);
            rd.radius = 0.5f;
            rd.counts = k == 0 ? pos : k == 1 ? offsets : k == 3 ? ro : counts;
            rd.offsets = k == 2 ? sub_a : offsets;
            rd.indices = k == 2 ? sub_b : NULL;
            rd.capacity = k == 2 ? (2 * al) / 4 : 0;
            download(e->cs, watch, bytes, b0);
            r = clsort_tree_radius(e->cs, tree, pos, k == 2 ? (al / 4 - 1 < NQ ? al / 4 - 1 : NQ) : NQ, &rd, NULL, NULL);
            clFinish(clsort_cl_queue(e->cs));
            download(e->cs, watch, bytes, b1);
            check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(e->cs), say[k]) != NULL &&
                      memcmp(b0, b1, bytes) == 0,
                  what2[k], NQ, clsort_last_error(e->cs), 0, CLSORT_ERROR_INVALID_ARGUMENT, r);
        }
        check(err == CL_SUCCESS && e2 == CL_SUCCESS, "radius refusals: sub-buffers and a read-only buffer", NQ, "-", 0,
              0, err);
        if (sub_b && e2 == CL_SUCCESS) clReleaseMemObject(sub_b);
        if (sub_a && err == CL_SUCCESS) clReleaseMemObject(sub_a);
        if (ro && err == CL_SUCCESS) clReleaseMemObject(ro);
        clReleaseMemObject(parent);
    }
    clReleaseMemObject(pos);
    clReleaseMemObject(counts);
    clReleaseMemObject(offsets);
    clsort_tree_destroy(tree);
}

/* ---- device counts (clsort_enqueue.count; test_devcount.c's functions) ---- */

/* The view's arrays as (buffer, element bytes, elements for m points), in
 * one order: codes, permutation, points, nodes, parents, box_lo, box_hi,
 * com, quad. */
enum { TDC_ARRAYS = 9 };
static void tree_dc_arrays(const clsort_tree_view *v, size_t m, cl_mem *buf, size_t *elem, size_t *valid)
{
    size_t in = m > 1 ? m - 1 : 0, k;
    buf[0] = v->codes, elem[0] = v->code_size, valid[0] = m;
    buf[1] = v->permutation, elem[1] = 4, valid[1] = m;
    buf[2] = v->points, elem[2] = 16, valid[2] = m;
    buf[3] = v->nodes, elem[3] = 16, valid[3] = in;
    buf[4] = v->parents, elem[4] = 4, valid[4] = m ? 2 * m - 1 : 0;
    buf[5] = v->box_lo, buf[6] = v->box_hi, buf[7] = v->com;
    for (k = 5; k < 8; ++k) elem[k] = 16, valid[k] = in;
    buf[8] = v->quad, elem[8] = 32, valid[8] = in;
}

static size_t tree_dc_bytes(cl_mem m)
{
    size_t bytes = 0;
    clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
    return bytes;
}

static uint32_t tree_dc_word(clsort_context *cs, cl_mem m)
{
    uint32_t w = 0xdeadbeefu;
    download(cs, m, 4, &w);
    return w;
}

/* One count of a capacity: tree `a` (capacity cap, kept between counts:
 * its buffers hold an earlier build) built from the first min(count, cap)
 * = m records with enq->count against a tree built with n = m: every array
 * of the view below m byte for byte (the box and scale too), the count word,
 * the arrays' bytes past m as they were before the build (parents[0] set
 * to 0 first: a build must write the root's ~0 again, m = 0 none); then,
 * for 3D trees, with the caller's count word changed after the build (the
 * tree keeps its own), Barnes-Hut and radius queries of both trees equal
 * (accelerations past m untouched, radius counts brute force), exactness
 * against direct sums for m <= exact_max (theta 1e-6), the RMS error at theta 0.5
 * for m >= 4000, and (nbody) clsort_nbody_accel / clsort_nbody with the
 * method and the count against the same calls with n = m. */
static void tree_dc_one(clsort_context *cs, clsort_tree *a, cl_mem pos, const float *host, size_t cap, size_t count,
                        const clsort_tree_desc *td, size_t exact_max, int radius, int nbody)
{
    const size_t m = count < cap ? count : cap;
    const int three = td->dims != 2;
    clsort_tree *b = tree_for_case(cs);
    clsort_tree_view va, vb;
    cl_mem bufa[TDC_ARRAYS], bufb[TDC_ARRAYS], dc, acc_a, acc_b;
    size_t elem[TDC_ARRAYS], valid[TDC_ARRAYS], elemb[TDC_ARRAYS], validb[TDC_ARRAYS], k, i, bad;
    unsigned char *before[TDC_ARRAYS], *got, *want;
    float bounds_a[16], bounds_b[16];
    const cl_uint zero = 0;
    clsort_enqueue q;
    clsort_nbody_desc nd;
    char what[160];
    int r;
    if (!b) return;
    snprintf(what, sizeof what, "device count tree %uD %u-bit cap %lu", three ? 3u : 2u, td->code_bits ? td->code_bits : 32,
             (unsigned long)cap);
    /* the state before: parents[0] = 0, then every array's bytes */
    clsort_tree_get_view(a, &va);
    if (va.parents) clEnqueueFillBuffer(clsort_cl_queue(cs), va.parents, &zero, 4, 0, 4, 0, NULL, NULL);
    tree_dc_arrays(&va, 0, bufa, elem, valid);
    for (k = 0; k < TDC_ARRAYS; ++k) {
        before[k] = (unsigned char *)malloc(tree_dc_bytes(bufa[k]) + 1);
        download(cs, bufa[k], tree_dc_bytes(bufa[k]), before[k]);
    }
    dc = dc_count_buffer(cs, count);
    dc_enq(&q, dc);
    r = clsort_tree_build(cs, a, pos, cap, td, &q);
    check(r == CLSORT_SUCCESS, what, count, clsort_last_error(cs), 0, 0, r);
    r = clsort_tree_build(cs, b, pos, m, td, NULL);
    check(r == CLSORT_SUCCESS, "device count tree: the reference build (n = count)", m, clsort_last_error(cs), 0, 0, r);
    clsort_tree_get_view(a, &va);
    clsort_tree_get_view(b, &vb);
    check(va.n == cap && vb.n == m, "device count tree: view.n is the capacity", count, "-", 0, (double)cap, (double)va.n);
    check(va.count != NULL && tree_dc_word(cs, va.count) == (uint32_t)m, "device count tree: view.count holds the count",
          count, "-", 0, (double)m, va.count ? tree_dc_word(cs, va.count) : -1.0);
    check(m == 0 || tree_dc_word(cs, vb.count) == (uint32_t)m, "tree view.count = n without a device count", m, "-", 0,
          (double)m, m ? tree_dc_word(cs, vb.count) : 0);
    /* the caller's count changes once the build is enqueued: the tree keeps its own */
    {
        uint32_t other = (uint32_t)(cap - m / 2);
        clEnqueueWriteBuffer(clsort_cl_queue(cs), dc, CL_TRUE, DC_AT, 4, &other, 0, NULL, NULL);
    }
    tree_dc_arrays(&va, m, bufa, elem, valid);
    tree_dc_arrays(&vb, m, bufb, elemb, validb);
    download(cs, va.bounds, 64, bounds_a);
    if (m) download(cs, vb.bounds, 64, bounds_b);
    check(m == 0 || memcmp(bounds_a + 8, bounds_b + 8, 32) == 0, "device count tree: the box and scale", count, "-", 0,
          m ? bounds_b[8] : 0, bounds_a[8]);
    for (k = 0; k < TDC_ARRAYS; ++k) {
        static const char *names[TDC_ARRAYS] = {"codes", "permutation", "points", "nodes", "parents", "box_lo",
                                                "box_hi", "com", "quad"};
        size_t total = tree_dc_bytes(bufa[k]), vbytes = valid[k] * elem[k];
        char w2[96];
        got = (unsigned char *)malloc(total + 1);
        want = (unsigned char *)malloc(vbytes + 1);
        download(cs, bufa[k], total, got);
        download(cs, bufb[k], vbytes, want);
        bad = dc_first_diff(got, want, 0, vbytes);
        snprintf(w2, sizeof w2, "device count tree: view.%s below the count = the tree of n = count", names[k]);
        check(bad == (size_t)-1, w2, count, what, bad / elem[k], 0, 0);
        bad = dc_first_diff(got, before[k], vbytes, total);
        snprintf(w2, sizeof w2, "device count tree: view.%s past the count keeps its bytes", names[k]);
        check(bad == (size_t)-1, w2, count, what, bad / elem[k], bad == (size_t)-1 ? 0 : before[k][bad],
              bad == (size_t)-1 ? 0 : got[bad]);
        free(got);
        free(want);
        free(before[k]);
    }
    if (!three) {
        clReleaseMemObject(dc);
        clsort_tree_destroy(b);
        return;
    }
    /* Barnes-Hut: the same accelerations as the tree of n = m, none past m */
    got = (unsigned char *)malloc(cap * 16 + 16);
    want = (unsigned char *)malloc(cap * 16 + 16);
    acc_a = dc_out_buffer(cs, cap * 16, got);
    acc_b = dc_out_buffer(cs, cap * 16, want);
    memset(&nd, 0, sizeof nd);
    nd.softening2 = 1e-4;
    nd.theta = 0.5;
    nd.method = CLSORT_NBODY_BARNES_HUT;
    r = clsort_tree_accel(cs, a, acc_a, &nd, NULL);
    check(r == CLSORT_SUCCESS, "device count tree: accel", count, clsort_last_error(cs), 0, 0, r);
    if (m) clsort_tree_accel(cs, b, acc_b, &nd, NULL);
    download(cs, acc_a, cap * 16, got);
    download(cs, acc_b, cap * 16, want);
    bad = dc_first_diff(got, want, 0, cap * 16);
    check(bad == (size_t)-1, "device count tree: accel = the tree of n = count's, untouched past it", count, what,
          bad / 16, 0, 0);
    if (m >= 4000) { /* the error against direct sums, within the tree part's bounds for 4096 bodies */
        size_t ns = 256, step = m / ns;
        double se = 0, sr = 0, ref[3], S[3];
        for (k = 0; k < ns; ++k) {
            int c;
            ref_accel_row(host, m, k * step, 1e-4, 1.0, ref, S);
            for (c = 0; c < 3; ++c) {
                double d = ((float *)got)[4 * k * step + (size_t)c] - ref[c];
                se += d * d;
                sr += ref[c] * ref[c];
            }
        }
        check(sr > 0 && sqrt(se / sr) <= rms_s[1], "device count tree: BH theta 0.5 RMS error against direct sums",
              count, what, 0, rms_s[1], sr > 0 ? sqrt(se / sr) : -1);
    }
    if (m > 0 && m <= exact_max) { /* every node opened: the direct sum within (N + 16) u S */
        double worst = 0;
        int ok = 1;
        nd.theta = 1e-6;
        r = clsort_tree_accel(cs, a, acc_a, &nd, NULL);
        download(cs, acc_a, cap * 16, got);
        for (i = 0; i < m; ++i)
            if (!accel_ok(host, got, 0, m, i, 1e-4, 1.0, (double)m + 16, &worst)) ok = 0;
        check(r == CLSORT_SUCCESS && ok, "device count tree: BH theta 1e-6 = direct sums within (N+16) u S", count,
              what, 0, 0, worst);
        if (worst > nb_max_ratio) nb_max_ratio = worst;
        nd.theta = 0.5;
    }
    if (radius) { /* radius queries: 37 points of the set (the count's first, where it has some) and a few outside */
        enum { NQ = 37 };
        uint32_t ca[NQ], cb[NQ], oa[NQ + 1], ob[NQ + 1], ref;
        cl_mem dq = buffer(cs, NQ * 16, NULL), dca = buffer(cs, NQ * 4, NULL), dcb = buffer(cs, NQ * 4, NULL);
        cl_mem doa = buffer(cs, NQ * 4 + 4, NULL), dob = buffer(cs, NQ * 4 + 4, NULL);
        float qs[NQ * 4];
        clsort_tree_radius_desc rd;
        size_t ta = 0, tb = 0, j;
        int ok = 1;
        for (i = 0; i < NQ; ++i)
            for (k = 0; k < 4; ++k)
                qs[4 * i + k] = i < 30 && m ? host[4 * ((i * 7919) % m) + k] : (float)(urand() * 4 - 2);
        clEnqueueWriteBuffer(clsort_cl_queue(cs), dq, CL_TRUE, 0, sizeof qs, qs, 0, NULL, NULL);
        memset(&rd, 0, sizeof rd);
        rd.radius = 0.3f;
        rd.counts = dca;
        rd.offsets = doa;
        r = clsort_tree_radius(cs, a, dq, NQ, &rd, &ta, NULL);
        rd.counts = dcb;
        rd.offsets = dob;
        if (m) clsort_tree_radius(cs, b, dq, NQ, &rd, &tb, NULL);
        download(cs, dca, sizeof ca, ca);
        download(cs, doa, sizeof oa, oa);
        if (m) download(cs, dcb, sizeof cb, cb), download(cs, dob, sizeof ob, ob);
        for (i = 0; i < NQ; ++i) { /* brute force over the first m points, in tree_radius's float operations */
            for (j = 0, ref = 0; j < m; ++j)
                ref += tree_d2(host[4 * j] - qs[4 * i], host[4 * j + 1] - qs[4 * i + 1], host[4 * j + 2] - qs[4 * i + 2]) <=
                       0.3f * 0.3f;
            if (ca[i] != ref || (m && (cb[i] != ca[i] || ob[i] != oa[i]))) ok = 0;
        }
        check(r == CLSORT_SUCCESS && ok && ta == tb && oa[NQ] == ta,
              "device count tree: radius counts = brute force over the count, = the tree of n = count's", count, what,
              0, (double)tb, (double)ta);
        clReleaseMemObject(dq), clReleaseMemObject(dca), clReleaseMemObject(dcb), clReleaseMemObject(doa);
        clReleaseMemObject(dob);
    }
    if (nbody) { /* the N-body calls with Barnes-Hut and the (changed back) count */
        uint32_t cw = (uint32_t)count;
        float *p1 = (float *)malloc(cap * 16 + 16), *v1 = (float *)malloc(cap * 16 + 16);
        float *p2 = (float *)malloc(cap * 16 + 16), *v2 = (float *)malloc(cap * 16 + 16);
        cl_mem dp1, dv1, dp2, dv2;
        for (i = 0; i < cap * 4; ++i) v1[i] = (float)(urand() - 0.5) * 0.1f;
        clEnqueueWriteBuffer(clsort_cl_queue(cs), dc, CL_TRUE, DC_AT, 4, &cw, 0, NULL, NULL);
        memset(got, DC_FILL, cap * 16);
        clEnqueueWriteBuffer(clsort_cl_queue(cs), acc_a, CL_TRUE, 0, cap * 16, got, 0, NULL, NULL);
        r = clsort_nbody_accel(cs, pos, acc_a, cap, &nd, &q);
        check(r == CLSORT_SUCCESS, "device count nbody_accel (Barnes-Hut)", count, clsort_last_error(cs), 0, 0, r);
        download(cs, acc_a, cap * 16, got);
        bad = dc_first_diff(got, want, 0, cap * 16);
        check(bad == (size_t)-1, "device count nbody_accel BH = tree accel of n = count, untouched past it", count,
              what, bad / 16, 0, 0);
        /* 3 leapfrog steps: moved with the count, against n = m; past m untouched */
        nd.dt = 1e-3;
        nd.steps = 3;
        nd.integrator = CLSORT_NBODY_LEAPFROG;
        dp1 = buffer(cs, cap * 16, host);
        dv1 = buffer(cs, cap * 16, v1);
        dp2 = buffer(cs, cap * 16, host);
        dv2 = buffer(cs, cap * 16, v1);
        r = clsort_nbody(cs, dp1, dv1, cap, &nd, &q);
        check(r == CLSORT_SUCCESS, "device count nbody (Barnes-Hut)", count, clsort_last_error(cs), 0, 0, r);
        if (m) clsort_nbody(cs, dp2, dv2, m, &nd, NULL);
        download(cs, dp1, cap * 16, p1);
        download(cs, dv1, cap * 16, v2);
        download(cs, dp2, cap * 16, p2);
        bad = dc_first_diff((unsigned char *)p1, (unsigned char *)p2, 0, cap * 16);
        check(bad == (size_t)-1 && (m == 0 || memcmp(p1, host, 16) != 0),
              "device count nbody BH: positions = n = count's, untouched past it", count, what, bad / 16, 0, 0);
        download(cs, dv2, cap * 16, p2);
        bad = dc_first_diff((unsigned char *)v2, (unsigned char *)p2, 0, cap * 16);
        check(bad == (size_t)-1, "device count nbody BH: velocities = n = count's, untouched past it", count, what,
              bad / 16, 0, 0);
        clReleaseMemObject(dp1), clReleaseMemObject(dv1), clReleaseMemObject(dp2), clReleaseMemObject(dv2);
        free(p1), free(v1), free(p2), free(v2);
    }
    clReleaseMemObject(acc_a), clReleaseMemObject(acc_b), clReleaseMemObject(dc);
    free(got), free(want);
    clsort_tree_destroy(b);
}

/* The device count over the capacities and counts of test_devcount.c: 3D
 * bodies (Plummer, duplicates, clustered) in turn, and 2D points with 64-bit
 * codes and a given box; --quick samples (below); the tree's own view.count
 * as the next build's enq->count; a tree grown by a counted build. */
static void tree_device_count(const test_env *e)
{
    static const int dists[3] = {T_PLUMMER, T_DUP, T_CLUSTER};
    clsort_context *cs = e->cs;
    size_t caps[8], counts[40], nc, nk, c, k, i;
    nc = dc_capacities(e, caps);
    if (e->tiny) nc = 2; /* oclgrind: capacities 1 and 257 (the sort's tiles are the sort part's) */
    for (c = 0; c < nc; ++c) {
        const size_t cap = caps[c];
        float *host = (float *)malloc(cap * 16 + 16);
        clsort_tree *a = tree_for_case(cs), *a2 = tree_for_case(cs);
        clsort_tree_desc td, td2;
        cl_mem pos, pos2;
        if (!a || !a2) break;
        tree_points_make(host, cap, dists[c % 3]);
        pos = buffer(cs, cap * 16, host);
        memset(&td, 0, sizeof td);
        td.has_mass = 1;
        td.mass_offset = 12;
        /* 2D, 64-bit codes, a given box, 5-float records with x at float 1 */
        memset(&td2, 0, sizeof td2);
        td2.dims = 2;
        td2.code_bits = 64;
        td2.stride = 20;
        td2.offset = 4;
        td2.box_given = 1;
        td2.box_lo[0] = td2.box_lo[1] = -1.0f;
        td2.box_hi[0] = td2.box_hi[1] = 1.5f;
        {
            float *rec = (float *)malloc(cap * 20 + 20);
            for (i = 0; i < cap * 5; ++i) rec[i] = (float)(urand() * 3 - 1.25);
            pos2 = buffer(cs, cap * 20, rec);
            free(rec);
        }
        /* a first build with the whole capacity: the bytes later builds must leave */
        check(clsort_tree_build(cs, a, pos, cap, &td, NULL) == CLSORT_SUCCESS &&
                  clsort_tree_build(cs, a2, pos2, cap, &td2, NULL) == CLSORT_SUCCESS,
              "device count tree: the first build", cap, clsort_last_error(cs), 0, 0, 0);
        nk = dc_counts(cap, counts, e->tiny);
        for (k = 0; k < nk; ++k) {
            /* --quick: 4097 at every other count, 20011 at every fourth, the
             * N-body calls at every third count of the others; radius queries and
             * N-body (path-independent kernels over the build) and the 2D
             * variant on one path, the builds and Barnes-Hut (the sort is
             * the path's) on both */
            if (e->quick && !e->tiny && (cap > 5000 ? k % 4 : cap > 4000 ? k % 2 : 0)) continue;
            /* --tiny (oclgrind): exactness up to 70 bodies, N-body at one count */
            tree_dc_one(cs, a, pos, host, cap, counts[k], &td, e->tiny ? 70 : 700, quick_variant(e, 0),
                        quick_variant(e, 0) && (e->tiny ? k == nk / 2 : !e->quick || (k % 3 == 0 && cap < 5000)));
            if (quick_variant(e, 0) && (!e->quick || k % (e->tiny ? 3u : 2u) == 0))
                tree_dc_one(cs, a2, pos2, NULL, cap, counts[k], &td2, 0, 0, 0);
        }
        { /* view.count as the next build's enq->count: the same tree again */
            clsort_tree_view v1, v2;
            clsort_enqueue q;
            uint32_t w1, w2;
            clsort_tree_get_view(a, &v1);
            w1 = tree_dc_word(cs, v1.count);
            memset(&q, 0, sizeof q);
            q.count = v1.count;
            check(clsort_tree_build(cs, a, pos, cap, &td, &q) == CLSORT_SUCCESS &&
                      clsort_tree_get_view(a, &v2) == CLSORT_SUCCESS && v2.count == v1.count,
                  "device count tree: view.count as the next build's enq->count", cap, clsort_last_error(cs), 0, 0, 0);
            w2 = tree_dc_word(cs, v2.count);
            check(w1 == w2, "device count tree: view.count given back keeps the count", cap, "-", 0, w1, w2);
            /* another of the tree's buffers as the count: refused */
            q.count = v2.parents;
            EXPECT_ERR(clsort_tree_build(cs, a, pos, cap, &td, &q), CLSORT_ERROR_INVALID_ARGUMENT,
                       "device count tree: enq->count over the tree's view.parents refused");
        }
        clReleaseMemObject(pos), clReleaseMemObject(pos2);
        clsort_tree_destroy(a), clsort_tree_destroy(a2);
        free(host);
    }
    { /* a tree grown by a counted build: its count buffer is kept (the handle of view.count) */
        clsort_tree *t = tree_for_case(cs);
        float host[4 * 300];
        cl_mem p, dc;
        clsort_tree_desc td;
        clsort_tree_view v1, v2;
        clsort_enqueue q;
        if (!t) return;
        tree_points_make(host, 300, T_UNIFORM);
        p = buffer(cs, sizeof host, host);
        memset(&td, 0, sizeof td);
        check(clsort_tree_build(cs, t, p, 10, &td, NULL) == CLSORT_SUCCESS && clsort_tree_get_view(t, &v1) == CLSORT_SUCCESS,
              "device count tree: a small build", 10, clsort_last_error(cs), 0, 0, 0);
        dc = dc_count_buffer(cs, 150);
        dc_enq(&q, dc);
        check(clsort_tree_build(cs, t, p, 300, &td, &q) == CLSORT_SUCCESS && clsort_tree_get_view(t, &v2) == CLSORT_SUCCESS &&
                  v2.count == v1.count && v2.n == 300 && tree_dc_word(cs, v2.count) == 150,
              "device count tree: grown by a counted build, view.count kept", 300, clsort_last_error(cs), 0, 0, 0);
        clReleaseMemObject(p), clReleaseMemObject(dc);
        clsort_tree_destroy(t);
    }
}

/* Path-independent: once, on a context of the part's own, like the N-body part. */
static const test_case tree_cases[] = {
    {"builds: sizes x distributions", tree_builds, ON_PORTABLE, ANY_SIZE},
    {"one point: the root's parent", tree_one_point, ON_PORTABLE, ANY_SIZE},
    {"view fields at the edge sizes", tree_view_edges, ON_PORTABLE, ANY_SIZE},
    {"bmax: an upper bound at tiny scales", tree_bmax_tiny, ON_PORTABLE, ANY_SIZE},
    {"radius outputs over the tree's buffers: refused", tree_radius_into_tree, ON_PORTABLE, ANY_SIZE},
    {"Barnes-Hut errors and exactness", tree_barnes_hut, ON_PORTABLE, NOT_TINY},
    {"Barnes-Hut group walk: errors and exactness", tree_barnes_hut_group, ON_LOOKBACK, NOT_TINY},
    {"Barnes-Hut on bodies closer than a Morton cell", tree_barnes_hut_clustered, ON_PORTABLE, ANY_SIZE},
    {"Barnes-Hut group walk with its stack full: the per-body walk", tree_barnes_hut_group_full, ON_PORTABLE,
     ANY_SIZE},
    {"Barnes-Hut exactness, few bodies", tree_barnes_hut_exact, ON_PORTABLE, IN_TINY},
    {"clsort_nbody with Barnes-Hut", tree_nbody, ON_PORTABLE, NOT_TINY},
    {"repeated builds, summaries bit for bit", tree_repeat, ON_PORTABLE, NOT_TINY},
    {"summaries in 32-bit words and 64-bit pairs, the same bytes", tree_summary_words, ON_PORTABLE, ANY_SIZE},
    {"radius queries", tree_radius, ON_PORTABLE, ANY_SIZE},
    {"radius queries in periodic boxes", tree_radius_periodic, ON_PORTABLE, ANY_SIZE},
    {"host forms", tree_host, ON_PORTABLE, ANY_SIZE},
    {"arguments", tree_arguments, ON_PORTABLE, ANY_SIZE},
    {"device count: builds, Barnes-Hut, radius, N-body", tree_device_count, ON_BOTH, ANY_SIZE},
};
static const test_part tree_part = TEST_PART(tree, "clsort_tree_build, Barnes-Hut, radius queries", CTX_OWN, 26);
