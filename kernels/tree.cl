/* clsort trees over points: Morton codes of float positions over a bounding
 * box (given, or a min/max reduction on the device), a binary radix tree over
 * the sorted codes (Karras 2012, one work-item per internal node), bottom-up
 * node summaries in one pass (atomic arrival counters: the second work-item
 * to reach a node computes it and climbs on), Barnes-Hut accelerations
 * (monopole + quadrupole) by a stack-based traversal per body, and radius
 * queries. Prepended by common.cl (morton_spread2/3) and nbody.cl (its
 * nb_integrate: the same integrator steps as the all-pairs kernel).
 *
 * Build-time macros (clsort__tree_program):
 *   WG        work-group size (the box reduction's local arrays)
 *   KEY_T     uint or ulong: the code type; KEY_BITS its width (32 or 64)
 *   DIMS      2 or 3
 *   BPA       bits per axis (3D: 10 or 21, 2D: 16 or 31)
 *   TR_PIECES    also tree_accel_piece and tree_radius_piece: the walks in
 *                pieces of a bounded number of moves, one launch each (a
 *                device with a loop budget, clsort.h >>loop budget)
 *   TR_GROUP     also tree_accel_group, Barnes-Hut walked once per group of
 *                at most GW points (a power of two; the groups are tree
 *                nodes) with a stack of GW_STACK words
 *
 * Device counts (common.cl COUNT_ARGS): every kernel over the points takes
 * the host's n as the capacity cap its launch is sized for and the point
 * count n = DEVICE_N(cap) from the device (dev_count NULL: cap). A build
 * with a device count first copies it, clamped, into the tree's own word
 * (tree_start); every later kernel of the build and of the tree's later
 * calls reads that word, so a caller who changes its count buffer after the
 * build changes nothing. Work-items at and past n (past n - 1 internal
 * nodes) exit at once: no kernel here has a barrier after its exit.
 *
 * Node numbering (n points, n >= 1): internal nodes 0 .. n-2 (node 0 is the
 * root when n >= 2), leaf j is node n-1+j, so the root is always node 0.
 * n = 0 has no node: nothing is written past the box and the count.
 * nodes[k] (internal k) = (left, right, first, last): the two children and the
 * range of sorted points [first, last] below it; the split gamma is the last
 * point of the left child. parents[node] = its internal parent, ~0 for node 0.
 * Summaries of internal node k: lo[k] = (min x, y, z, extent = the largest
 * side of the box), hi[k] = (max x, y, z, bmax = an upper bound on the
 * distance from the centre of mass to any point of the node), com[k] =
 * (centre of mass x, y, z, total mass), quad[2k], quad[2k + 1] = (Qxx, Qxy,
 * Qxz, Qyy), (Qyz, Qzz, I2, 0): the traceless quadrupole and the second
 * moment about the centre of mass. A leaf's summary is its point. */

#ifndef KEY_T
#define KEY_T uint
#define KEY_BITS 32
#endif
#ifndef DIMS
#define DIMS 3
#endif
#ifndef BPA
#define BPA 10
#endif

/* Order-preserving image of a float as uint (for atomic_min / atomic_max). */
inline uint tr_image(float f)
{
    uint u = as_uint(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
inline float tr_from_image(uint u) { return as_float((u & 0x80000000u) ? (u & 0x7fffffffu) : ~u); }

/* box: words 0..2 min images, 4..6 max images (the reduction); floats 8..11
 * = (lo x, y, z, scale), 12..15 = (hi x, y, z, 0) (tree_box_final); word
 * TR_RUN_FLAG the long-run flag (tree_runs). */
#define TR_RUN_FLAG 16

/* The start of a build, one work-group: what & 1, own[0] = the build's
 * device count clamped to the capacity: the tree's own copy, which the rest
 * of the build and the tree's later calls read (own may be dev_count
 * itself: the tree's count given back as the next build's; work-item 0
 * alone reads it, before writing it); what & 2, the box reduction's words
 * (the box not given). */
__kernel void tree_start(__global uint *own, __global uint *box, uint cap, uint what COUNT_ARGS)
{
    const uint i = (uint)get_global_id(0);
    if (i == 0u && (what & 1u)) own[0] = (uint)DEVICE_N(cap);
    if ((what & 2u) && i < 8u) box[i] = i < 4u ? 0xffffffffu : 0u;
}

/* Min and max of every finite coordinate: a grid-stride loop per work-item,
 * a local reduction, one atomic per work-group and axis. Every work-item
 * reaches the barriers (past the count its loop is empty). */
__kernel void tree_box_reduce(__global const float *pos, uint cap, ulong stride, ulong offset,
                              __global uint *box COUNT_ARGS)
{
    __local uint smin[3][WG], smax[3][WG];
    const uint lid = (uint)get_local_id(0), n = (uint)DEVICE_N(cap);
    uint mn[3] = {0xffffffffu, 0xffffffffu, 0xffffffffu}, mx[3] = {0u, 0u, 0u};
    for (uint i = (uint)get_global_id(0); i < n; i += (uint)get_global_size(0)) {
        __global const float *p = pos + (ulong)i * stride + offset;
        for (uint a = 0; a < DIMS; ++a) {
            const float x = p[a];
            if (x - x == 0.0f) { /* finite */
                const uint u = tr_image(x);
                mn[a] = min(mn[a], u);
                mx[a] = max(mx[a], u);
            }
        }
    }
    for (uint a = 0; a < 3u; ++a) {
        smin[a][lid] = mn[a];
        smax[a][lid] = mx[a];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = WG >> 1; d > 0u; d >>= 1) {
        if (lid < d)
            for (uint a = 0; a < 3u; ++a) {
                smin[a][lid] = min(smin[a][lid], smin[a][lid + d]);
                smax[a][lid] = max(smax[a][lid], smax[a][lid + d]);
            }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid < DIMS) {
        atomic_min(&box[lid], smin[lid][0]);
        atomic_max(&box[4u + lid], smax[lid][0]);
    }
}

/* One work-item: the box as floats (given by the host, or from the images:
 * no finite coordinate gives the box [0, 0]) and the quantization scale
 * 2^BPA / (the largest side): cubic Morton cells. */
__kernel void tree_box_final(__global uint *box, uint given, float4 glo, float4 ghi)
{
    if (get_global_id(0) != 0) return;
    float lo[3], hi[3], ext = 0.0f;
    for (uint a = 0; a < 3u; ++a) {
        if (given) {
            lo[a] = a == 0u ? glo.x : a == 1u ? glo.y : glo.z;
            hi[a] = a == 0u ? ghi.x : a == 1u ? ghi.y : ghi.z;
        } else if (a < DIMS && box[a] <= box[4u + a]) {
            lo[a] = tr_from_image(box[a]);
            hi[a] = tr_from_image(box[4u + a]);
        } else {
            lo[a] = hi[a] = 0.0f;
        }
        if (a < DIMS) ext = max(ext, hi[a] - lo[a]);
    }
    float scale = ext > 0.0f ? (float)(1ul << BPA) / ext : 0.0f;
    if (!(scale <= 3.0e38f)) scale = 3.0e38f; /* a box too small for its 2^BPA cells */
    __global float *f = (__global float *)box;
    for (uint a = 0; a < 3u; ++a) {
        f[8u + a] = lo[a];
        f[12u + a] = hi[a];
    }
    f[11] = scale;
    f[15] = 0.0f;
    box[TR_RUN_FLAG] = 0u; /* no long run (yet): tree_runs sets it */
}

/* The cell of coordinate p along an axis: floor((p - lo) * scale) clamped
 * into [0, 2^BPA) (NaN: 0). */
inline ulong tr_cell(float p, float lo, float scale)
{
    const float t = (p - lo) * scale;
    const float top = (float)(1ul << BPA);
    return t >= 0.0f ? (t < top ? (ulong)t : (1ul << BPA) - 1ul) : 0ul;
}

/* codes[i] = the Morton code of point i (x in the lowest bit). */
__kernel void tree_keys(__global const float *pos, __global KEY_T *codes, uint cap, ulong stride, ulong offset,
                        __global const float *box COUNT_ARGS)
{
    const uint i = (uint)get_global_id(0);
    if (i >= DEVICE_N(cap)) return;
    __global const float *p = pos + (ulong)i * stride + offset;
    const float scale = box[11];
    ulong c = tr_cell(p[0], box[8], scale), key;
#if DIMS == 3
    key = morton_spread3(c) | (morton_spread3(tr_cell(p[1], box[9], scale)) << 1) |
          (morton_spread3(tr_cell(p[2], box[10], scale)) << 2);
#else
    key = morton_spread2(c) | (morton_spread2(tr_cell(p[1], box[9], scale)) << 1);
#endif
    codes[i] = (KEY_T)key;
}

/* points[i] = (x, y, z (0 in 2D), mass (1 without masses)) of the record
 * perm[i]: the points in Morton order. Where a run was long (the flag,
 * box[TR_RUN_FLAG], set), first the final order from the sort of the long
 * runs (sorted keys and order, the first sort's permutation in perm_copy:
 * tree_refine): perm[i] and sub[i] (the low words of the sorted keys: 0
 * outside the long runs). */
__kernel void tree_points(__global const float *pos, __global uint *perm, __global float4 *points, uint cap,
                          ulong stride, ulong offset, ulong mass_offset, uint has_mass, __global const uint *box,
                          __global const ulong *sorted, __global const uint *order, __global const uint *perm_copy,
                          __global uint *sub COUNT_ARGS)
{
    const uint i = (uint)get_global_id(0);
    if (i >= DEVICE_N(cap)) return;
    uint pi;
    if (box[TR_RUN_FLAG] != 0u) {
        pi = perm_copy[order[i]];
        perm[i] = pi;
        sub[i] = (uint)sorted[i];
    } else {
        pi = perm[i];
    }
    __global const float *r = pos + (ulong)pi * stride;
    /* scalar stores: oclgrind 21.10 calls the lanes of a vector built from
     * scalars uninitialized */
    __global float *q = (__global float *)(points + i);
    q[0] = r[offset];
    q[1] = r[offset + 1];
    q[2] = DIMS == 3 ? r[offset + 2] : 0.0f;
    q[3] = has_mass ? r[mass_offset] : 1.0f;
}

/* ---- long runs of equal codes: refined codes -------------------------------
 * Points closer than a Morton cell share a code; split by index alone, a
 * run of them makes nodes that are not compact (a Plummer core of 1e-4 in
 * a cell of 0.04: each body walked nearly the whole run). A run of more
 * than RUN_MIN equal codes (sorted positions [first, last]) gets a second
 * Morton code, sub, of SUB_BPA bits per axis over the run's own box, and
 * the run is sorted by it (a stable radix sort of the 64-bit keys (first,
 * sub), the other points keyed (position, 0) so that they stay): the tree
 * is then Karras' over (code, sub, index). Kernels in order: tree_runs
 * (every point: its run, the run's box slot, the flag), tree_run_box,
 * tree_refine and the sort, the last three with the flag as their device
 * count (the flag is the point count where some run is long, else 0: they
 * then do nothing), and tree_points, which takes the sort's order where
 * the flag is set. Scratch of the build, borrowed before
 * tree_build writes it: the run boxes in lo / hi at the run's first
 * position (min / max images, tr_image), the keys in com, the sorted keys
 * in quad, the sort's permutation in parents, the first sort's in nodes. */
#ifndef RUN_MIN
#define RUN_MIN 16
#endif
#if DIMS == 3
#define SUB_BPA 10
#else
#define SUB_BPA 16
#endif
#define TR_LONG 0x80000000u /* sub[i] between tree_runs and tree_refine: TR_LONG | first */

/* Point i's run of equal codes: its first position by galloping back, long
 * when the code at first + RUN_MIN is the same. sub[i] = TR_LONG | first
 * for a point of a long run, else 0 (its final value). The run's first
 * point opens its box slot and sets the flag (box word TR_RUN_FLAG = n,
 * cleared by tree_box_final). */
__kernel void tree_runs(__global const KEY_T *codes, uint cap, __global uint *sub, __global uint4 *slo,
                        __global uint4 *shi, __global uint *box COUNT_ARGS)
{
    const uint i = (uint)get_global_id(0), n = (uint)DEVICE_N(cap);
    if (i >= n) return;
    const KEY_T c = codes[i];
    uint first = i, step = 1u;
    while (step <= first && codes[first - step] == c) { /* first - step is in the run */
        first -= step;
        step <<= 1;
    }
    for (step >>= 1; step > 0u; step >>= 1) /* the run starts in (first - 2 step, first] */
        if (step <= first && codes[first - step] == c) first -= step;
    const int is_long = first + RUN_MIN < n && codes[first + RUN_MIN] == c;
    sub[i] = is_long ? TR_LONG | first : 0u;
    if (is_long && first == i) {
        slo[i] = (uint4)(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu);
        shi[i] = (uint4)(0u, 0u, 0u, 0u);
        (void)atomic_max(&box[TR_RUN_FLAG], n);
    }
}

/* The box of each long run (min / max images of its finite coordinates):
 * a segmented scan over the work-group's points (runs are contiguous: the
 * point lid - d is in point lid's run when its position is >= first), then
 * the last point of each run in the work-group adds its run's part by
 * atomics. A work-group holding no point of a long run skips the scan (the
 * test is the same in all its work-items); launched with the flag as the
 * count, so with no long run every work-group returns at once. */
__kernel void tree_run_box(__global const float *pos, __global const uint *perm, uint cap, ulong stride, ulong offset,
                           __global const uint *sub, volatile __global uint *slo, volatile __global uint *shi
                           COUNT_ARGS)
{
    __local uint smin[3][WG], smax[3][WG];
    __local uint any;
    const uint i = (uint)get_global_id(0), lid = (uint)get_local_id(0), n = (uint)DEVICE_N(cap);
    if (n == 0u) return; /* the same in every work-item */
    const uint st = i < n ? sub[i] : 0u, first = st & ~TR_LONG;
    const int in_long = (st & TR_LONG) != 0u;
    if (lid == 0u) any = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (in_long) (void)atomic_or(&any, 1u);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (any == 0u) return; /* the same in every work-item */
    uint mn[3] = {0xffffffffu, 0xffffffffu, 0xffffffffu}, mx[3] = {0u, 0u, 0u};
    if (in_long) {
        __global const float *p = pos + (ulong)perm[i] * stride + offset;
        for (uint a = 0; a < DIMS; ++a) {
            const float x = p[a];
            if (x - x == 0.0f) { /* finite */
                mn[a] = tr_image(x);
                mx[a] = mn[a];
            }
        }
    }
    for (uint a = 0; a < 3u; ++a) {
        smin[a][lid] = mn[a];
        smax[a][lid] = mx[a];
    }
    for (uint d = 1u; d < (uint)WG; d <<= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        const int take = in_long && lid >= d && i - d >= first;
        for (uint a = 0; a < 3u; ++a)
            if (take) {
                mn[a] = min(mn[a], smin[a][lid - d]);
                mx[a] = max(mx[a], smax[a][lid - d]);
            }
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint a = 0; a < 3u; ++a) {
            smin[a][lid] = mn[a];
            smax[a][lid] = mx[a];
        }
    }
    if (in_long && (lid + 1u == (uint)WG || i + 1u >= n || sub[i + 1u] != st))
        for (uint a = 0; a < DIMS; ++a) {
            (void)atomic_min(&slo[4UL * first + a], mn[a]);
            (void)atomic_max(&shi[4UL * first + a], mx[a]);
        }
}

/* The refined cell of coordinate p in a run's box: floor((p - lo) * scale)
 * clamped into [0, 2^SUB_BPA) (NaN: 0), scale a power of two (tr_sub_scale). */
inline uint tr_sub_cell(float p, float lo, float scale)
{
    const float t = (p - lo) * scale;
    const float top = (float)(1u << SUB_BPA);
    return t >= 0.0f ? (t < top ? (uint)t : (1u << SUB_BPA) - 1u) : 0u;
}

/* 2^(SUB_BPA - e) for the run's largest side ext < 2^e (ext normal, from
 * its exponent bits; at most 2^127): an exact scale, so that (p - lo) *
 * scale < 2^SUB_BPA is one rounding, the subtraction's (a host reproduces
 * it bit for bit). ext 0 (or not normal): 0, every point in cell 0. */
inline float tr_sub_scale(float ext)
{
    const int be = (int)((as_uint(ext) >> 23) & 0xffu); /* ext in [2^(be - 127), 2^(be - 126)) */
    if (!(ext > 0.0f) || be == 0 || be == 255) return 0.0f;
    const int k = SUB_BPA + 126 - be; /* the scale's exponent */
    return as_float((uint)(min(k, 127) + 127) << 23);
}

/* keys[i]: (first << 32 | sub) for a point of a long run, sub its Morton
 * code over the run's box (SUB_BPA bits per axis, x lowest), (i << 32)
 * for any other point (its place); perm_copy[i] = perm[i]. */
__kernel void tree_refine(__global const float *pos, __global const uint *perm, uint cap, ulong stride,
                          ulong offset, __global const uint *sub, __global const uint4 *slo,
                          __global const uint4 *shi, __global ulong *keys, __global uint *perm_copy COUNT_ARGS)
{
    const uint i = (uint)get_global_id(0), n = (uint)DEVICE_N(cap);
    if (i >= n) return;
    const uint st = sub[i], pi = perm[i];
    perm_copy[i] = pi;
    if (!(st & TR_LONG)) {
        keys[i] = (ulong)i << 32;
        return;
    }
    const uint first = st & ~TR_LONG;
    const uint4 l = slo[first], h = shi[first];
    const uint li[3] = {l.x, l.y, l.z}, hi_[3] = {h.x, h.y, h.z};
    float lo[3], ext = 0.0f;
    for (uint a = 0; a < 3u; ++a) {
        const int finite = a < DIMS && li[a] <= hi_[a]; /* else no finite coordinate: [0, 0] */
        lo[a] = finite ? tr_from_image(li[a]) : 0.0f;
        const float hf = finite ? tr_from_image(hi_[a]) : 0.0f;
        ext = fmax(ext, hf - lo[a]);
    }
    const float scale = tr_sub_scale(ext);
    __global const float *p = pos + (ulong)pi * stride + offset;
#if DIMS == 3
    const ulong code = morton_spread3(tr_sub_cell(p[0], lo[0], scale)) |
                       (morton_spread3(tr_sub_cell(p[1], lo[1], scale)) << 1) |
                       (morton_spread3(tr_sub_cell(p[2], lo[2], scale)) << 2);
#else
    const ulong code = morton_spread2(tr_sub_cell(p[0], lo[0], scale)) |
                       (morton_spread2(tr_sub_cell(p[1], lo[1], scale)) << 1);
#endif
    keys[i] = (ulong)first << 32 | (ulong)(uint)code;
}

/* Karras' delta: the length of the common prefix of the augmented keys
 * (code, sub, index) of points i and j: KEY_BITS + 32 + 32 bits, sub the
 * refined code within a long run of equal codes (tree_refine; 0 outside
 * one), the index the tie-breaker for equal (code, sub); -1 outside [0, n).
 * The sub codes are read only where the codes are equal. */
inline int tr_delta(__global const KEY_T *codes, __global const uint *sub, long n, long i, long j)
{
    if (j < 0 || j >= n) return -1;
    const KEY_T a = codes[i], b = codes[j];
    if (a != b) return (int)clz(a ^ b);
    const uint sa = sub[i], sb = sub[j];
    if (sa != sb) return KEY_BITS + (int)clz(sa ^ sb);
    return KEY_BITS + 32 + (int)clz((uint)i ^ (uint)j);
}

/* The words tree_summaries passes between work-items start as TR_UNSET
 * (see tr_child below); tree_build sets its node's, a launch before
 * tree_summaries reads them. */
#define TR_UNSET 0xffffffffu

/* Internal node i of n - 1 (Karras 2012, figure 4): its range's direction,
 * length by exponential then binary search, split by binary search. Also
 * the node's start for tree_summaries: its arrival counter 0 and its
 * summary words TR_UNSET (written here rather than by host fills over the
 * capacity, so that the cost follows the count); the launch has at least
 * one work-item, which marks the root of a single point (node 0, the leaf
 * itself) with the parent ~0. */
__kernel void tree_build(__global const KEY_T *codes, __global const uint *sub, uint cap, __global uint4 *nodes,
                         __global uint *parents, __global uint *flags, __global uint *lo, __global uint *hi,
                         __global uint *com, __global uint *quad COUNT_ARGS)
{
    const long n = (long)DEVICE_N(cap), i = (long)get_global_id(0);
    if (n == 1 && i == 0) parents[0] = 0xffffffffu;
    if (i >= n - 1) return;
    flags[i] = 0u;
    const uint4 unset = (uint4)(TR_UNSET, TR_UNSET, TR_UNSET, TR_UNSET); /* whole 16-byte stores */
    ((__global uint4 *)lo)[i] = unset;
    ((__global uint4 *)hi)[i] = unset;
    ((__global uint4 *)com)[i] = unset;
    ((__global uint4 *)quad)[2 * i] = unset;
    ((__global uint4 *)quad)[2 * i + 1] = unset;
    const int d = tr_delta(codes, sub, n, i, i + 1) - tr_delta(codes, sub, n, i, i - 1) >= 0 ? 1 : -1;
    const int dmin = tr_delta(codes, sub, n, i, i - d);
    long lmax = 2;
    while (tr_delta(codes, sub, n, i, i + lmax * d) > dmin) lmax *= 2;
    long l = 0;
    for (long t = lmax / 2; t >= 1; t /= 2)
        if (tr_delta(codes, sub, n, i, i + (l + t) * d) > dmin) l += t;
    const long j = i + l * d;
    const int dnode = tr_delta(codes, sub, n, i, j);
    long s = 0, t = l;
    do {
        t = (t + 1) / 2;
        if (tr_delta(codes, sub, n, i, i + (s + t) * d) > dnode) s += t;
    } while (t > 1);
    const long gamma = i + s * d + (d < 0 ? -1 : 0);
    const long first = min(i, j), last = max(i, j);
    const uint left = (uint)(first == gamma ? n - 1 + gamma : gamma);
    const uint right = (uint)(last == gamma + 1 ? n - 1 + gamma + 1 : gamma + 1);
    __global uint *o = (__global uint *)(nodes + i); /* scalar stores, as tree_points */
    o[0] = left;
    o[1] = right;
    o[2] = (uint)first;
    o[3] = (uint)last;
    parents[left] = (uint)i;
    parents[right] = (uint)i;
    if (i == 0) parents[0] = 0xffffffffu;
}

/* Summaries cross work-items inside tree_summaries (the first to arrive at a
 * node wrote its child, the second reads it): the words a parent needs go
 * through atomics both ways, as reduce.cl's look-back values, so that no
 * cache serves a stale copy and no plain read races with a plain write (an
 * atomic exchange to write, an atomic or of 0 to read). Each word proves
 * itself: tree_build sets them to TR_UNSET, a NaN that tr_put never
 * stores (it stores another NaN instead), and tr_child waits until each
 * word holds something else. So no order between the 17 words of a node and its
 * arrival counter is needed, which OpenCL 1.2 does not give across work-groups:
 * its mem_fence orders a work-item's own accesses, and NVIDIA compiles
 * mem_fence(CLK_GLOBAL_MEM_FENCE) to membar.cta (work-group scope). With a
 * fence before and after the counter, as this kernel had, the H100 read
 * summary words that did not yet hold their node's values at 2^20 points
 * (box, centre and mass hashes changed from build to build; boxes too
 * small: radius queries missed 5 to 68 of 998702844 pairs in 3 of 17
 * builds). The wait ends: the word's writer issued its exchange before the
 * counter increment that let this work-item in. */
/* One word's atomic read (an or of 0). */
#define TR_READ(p) atomic_or((volatile __global uint *)(p), 0u)

/* TR_WORDS64 (the host sets it where the device has
 * cl_khr_int64_base_atomics, unless tuning.testing.status32): the words go
 * in pairs, one 64-bit atomic each (a node's box, centre and moments in 10
 * accesses rather than 17), the pair unset while its low word is TR_UNSET
 * (tr_word never stores that in either half). The extent and bmax share a
 * pair with a box corner's z, so they are published with it. */
#ifdef TR_WORDS64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
inline uint tr_word(float v)
{
    const uint w = as_uint(v);
    return w == TR_UNSET ? 0x7fc00000u : w;
}
inline void tr_put2(volatile __global float *p, float a, float b)
{
    (void)atom_xchg((volatile __global ulong *)p, (ulong)tr_word(a) | (ulong)tr_word(b) << 32);
}
#define TR_READ2(p) atom_add((volatile __global ulong *)(p), (ulong)0)
#define TR_UNSET2(w) ((uint)(w) == TR_UNSET)
#define TR_LOW(w) as_float((uint)(w))
#define TR_HIGH(w) as_float((uint)((w) >> 32))
#endif
inline void tr_put(volatile __global float *p, float v)
{
    const uint w = as_uint(v);
    (void)atomic_xchg((volatile __global uint *)p, w == TR_UNSET ? 0x7fc00000u : w);
}

/* What a parent needs of a child: its box, centre of mass and mass, the
 * quadrupole (xx, xy, xz, yy, yz, zz) and the second moment I2. Named
 * scalars: oclgrind 21.10 loses track of the lanes of private vectors and
 * arrays written through a pointer (and calls them uninitialized). */
typedef struct tr_node {
    float lx, ly, lz, hx, hy, hz, cx, cy, cz, m, qxx, qxy, qxz, qyy, qyz, qzz, i2;
} tr_node;

/* Node c's: a leaf's from its point (moments 0), an internal node's as
 * tree_summaries wrote it. */
inline tr_node tr_child(uint c, uint n, __global const float *points, volatile __global float *lo,
                        volatile __global float *hi, volatile __global float *com, volatile __global float *quad)
{
    tr_node r;
    if (c >= n - 1u) {
        __global const float *p = points + 4UL * (c - (n - 1u));
        r.lx = r.hx = r.cx = p[0];
        r.ly = r.hy = r.cy = p[1];
        r.lz = r.hz = r.cz = p[2];
        r.m = p[3];
        r.qxx = r.qxy = r.qxz = r.qyy = r.qyz = r.qzz = r.i2 = 0.0f;
        return r;
    }
    const ulong k = 4UL * c, k8 = 8UL * c; /* 64-bit: nodes past 2^29 (n < 2^31 points) have 8c > 2^32 */
    /* The 17 words as one batch, read again while any is unset: every read
     * is issued before any is tested, so a step of the climb waits about
     * one memory round trip rather than 17 in a row (a word waited for
     * alone, as before, made the summaries latency-bound: 146 us for 4096
     * points on an H100, bench/RESULTS.md). A word once set keeps its value
     * for the build, so rereading the set ones changes nothing. */
#ifdef TR_WORDS64
    ulong p0, p1, p2, p3, p4, p5, p6, p7, p8, p9; /* (lx, ly) (lz, -) (hx, hy) (hz, -) (cx, cy) (cz, m) quad */
    do {
        p0 = TR_READ2(lo + k); p1 = TR_READ2(lo + k + 2u); p2 = TR_READ2(hi + k); p3 = TR_READ2(hi + k + 2u);
        p4 = TR_READ2(com + k); p5 = TR_READ2(com + k + 2u);
        p6 = TR_READ2(quad + k8); p7 = TR_READ2(quad + k8 + 2u); p8 = TR_READ2(quad + k8 + 4u);
        p9 = TR_READ2(quad + k8 + 6u);
    } while (TR_UNSET2(p0) || TR_UNSET2(p1) || TR_UNSET2(p2) || TR_UNSET2(p3) || TR_UNSET2(p4) ||
             TR_UNSET2(p5) || TR_UNSET2(p6) || TR_UNSET2(p7) || TR_UNSET2(p8) || TR_UNSET2(p9));
    r.lx = TR_LOW(p0); r.ly = TR_HIGH(p0); r.lz = TR_LOW(p1);
    r.hx = TR_LOW(p2); r.hy = TR_HIGH(p2); r.hz = TR_LOW(p3);
    r.cx = TR_LOW(p4); r.cy = TR_HIGH(p4); r.cz = TR_LOW(p5); r.m = TR_HIGH(p5);
    r.qxx = TR_LOW(p6); r.qxy = TR_HIGH(p6); r.qxz = TR_LOW(p7);
    r.qyy = TR_HIGH(p7); r.qyz = TR_LOW(p8); r.qzz = TR_HIGH(p8);
    r.i2 = TR_LOW(p9);
    return r;
#else
    uint w0, w1, w2, w3, w4, w5, w6, w7, w8, w9, w10, w11, w12, w13, w14, w15, w16;
    do {
        w0 = TR_READ(lo + k); w1 = TR_READ(lo + k + 1u); w2 = TR_READ(lo + k + 2u);
        w3 = TR_READ(hi + k); w4 = TR_READ(hi + k + 1u); w5 = TR_READ(hi + k + 2u);
        w6 = TR_READ(com + k); w7 = TR_READ(com + k + 1u); w8 = TR_READ(com + k + 2u); w9 = TR_READ(com + k + 3u);
        w10 = TR_READ(quad + k8); w11 = TR_READ(quad + k8 + 1u); w12 = TR_READ(quad + k8 + 2u);
        w13 = TR_READ(quad + k8 + 3u); w14 = TR_READ(quad + k8 + 4u); w15 = TR_READ(quad + k8 + 5u);
        w16 = TR_READ(quad + k8 + 6u);
    } while (w0 == TR_UNSET || w1 == TR_UNSET || w2 == TR_UNSET || w3 == TR_UNSET || w4 == TR_UNSET ||
             w5 == TR_UNSET || w6 == TR_UNSET || w7 == TR_UNSET || w8 == TR_UNSET || w9 == TR_UNSET ||
             w10 == TR_UNSET || w11 == TR_UNSET || w12 == TR_UNSET || w13 == TR_UNSET || w14 == TR_UNSET ||
             w15 == TR_UNSET || w16 == TR_UNSET);
    r.lx = as_float(w0); r.ly = as_float(w1); r.lz = as_float(w2);
    r.hx = as_float(w3); r.hy = as_float(w4); r.hz = as_float(w5);
    r.cx = as_float(w6); r.cy = as_float(w7); r.cz = as_float(w8); r.m = as_float(w9);
    r.qxx = as_float(w10); r.qxy = as_float(w11); r.qxz = as_float(w12);
    r.qyy = as_float(w13); r.qyz = as_float(w14); r.qzz = as_float(w15);
    r.i2 = as_float(w16);
    return r;
#endif
}

/* Moves child a's moments to the parent's centre (cx, cy, cz) and adds them
 * to r's (parallel-axis rule). */
inline void tr_shift(tr_node *r, tr_node a)
{
    const float dx = a.cx - r->cx, dy = a.cy - r->cy, dz = a.cz - r->cz, m = a.m;
    const float d2 = dx * dx + dy * dy + dz * dz;
    r->qxx += a.qxx + m * (3.0f * dx * dx - d2);
    r->qxy += a.qxy + m * (3.0f * dx * dy);
    r->qxz += a.qxz + m * (3.0f * dx * dz);
    r->qyy += a.qyy + m * (3.0f * dy * dy - d2);
    r->qyz += a.qyz + m * (3.0f * dy * dz);
    r->qzz += a.qzz + m * (3.0f * dz * dz - d2);
    r->i2 += a.i2 + m * d2;
}

/* The parent of A (left) and B (right): the box around both, the mass, the
 * centre of mass (clamped into the box; the box's centre without mass) and
 * the moments moved to it (tr_shift). */
inline tr_node tr_merge(tr_node A, tr_node B)
{
    tr_node r;
    r.lx = fmin(A.lx, B.lx); r.ly = fmin(A.ly, B.ly); r.lz = fmin(A.lz, B.lz);
    r.hx = fmax(A.hx, B.hx); r.hy = fmax(A.hy, B.hy); r.hz = fmax(A.hz, B.hz);
    r.m = A.m + B.m;
    if (r.m > 0.0f) { /* rounding may leave the centre a hair outside the box: clamped */
        r.cx = clamp((A.m * A.cx + B.m * B.cx) / r.m, r.lx, r.hx);
        r.cy = clamp((A.m * A.cy + B.m * B.cy) / r.m, r.ly, r.hy);
        r.cz = clamp((A.m * A.cz + B.m * B.cz) / r.m, r.lz, r.hz);
    } else {
        r.cx = 0.5f * (r.lx + r.hx);
        r.cy = 0.5f * (r.ly + r.hy);
        r.cz = 0.5f * (r.lz + r.hz);
    }
    r.qxx = r.qxy = r.qxz = r.qyy = r.qyz = r.qzz = r.i2 = 0.0f;
    tr_shift(&r, A);
    tr_shift(&r, B);
    return r;
}

/* bmax, the farthest box corner from the centre (ex, ey, ez the largest
 * distances to the box's sides per axis), rounded up (relative 2^-20), in
 * the scaled form em * |e / em| (em the largest of ex, ey, ez): the squares
 * of sides below about 1e-19 underflow, which made bmax 0 for such nodes,
 * and an upper bound is what the walk needs (a node holding the body is
 * opened). A half-extent past the float range (coordinates near +-3.4e38:
 * cx - lx overflows) is +inf, which bounds every distance; scaled it was
 * inf / inf, a NaN, which bounds none. The product may round up to +inf:
 * still a bound. */
inline float tr_bmax(float ex, float ey, float ez)
{
    const float em = fmax(fmax(ex, ey), ez);
    float bmax = 0.0f;
    if (em > 0.0f && em <= FLT_MAX) {
        const float sx = ex / em, sy = ey / em, sz = ez / em;
        bmax = em * sqrt(sx * sx + sy * sy + sz * sz) * 1.000001f;
    } else if (em > 0.0f) {
        bmax = INFINITY;
    }
    return bmax;
}

/* Publishes node p's summary r for the sibling's climb (tr_put, tr_put2:
 * atomics, each word proving itself), with the extent (largest side) and
 * bmax, which later kernels read. */
inline void tr_publish(uint p, tr_node r, volatile __global float *lo, volatile __global float *hi,
                       volatile __global float *com, volatile __global float *quad)
{
    const float ex = fmax(r.cx - r.lx, r.hx - r.cx), ey = fmax(r.cy - r.ly, r.hy - r.cy),
                ez = fmax(r.cz - r.lz, r.hz - r.cz);
    const ulong k = 4UL * p, k8 = 8UL * p; /* 64-bit, as in tr_child */
    const float extent = fmax(fmax(r.hx - r.lx, r.hy - r.ly), r.hz - r.lz);
    const float bmax = tr_bmax(ex, ey, ez);
#ifdef TR_WORDS64
    tr_put2(lo + k, r.lx, r.ly); tr_put2(lo + k + 2u, r.lz, extent);
    tr_put2(hi + k, r.hx, r.hy); tr_put2(hi + k + 2u, r.hz, bmax);
    tr_put2(com + k, r.cx, r.cy); tr_put2(com + k + 2u, r.cz, r.m);
    tr_put2(quad + k8, r.qxx, r.qxy); tr_put2(quad + k8 + 2u, r.qxz, r.qyy);
    tr_put2(quad + k8 + 4u, r.qyz, r.qzz); tr_put2(quad + k8 + 6u, r.i2, 0.0f);
#else
    tr_put(lo + k, r.lx); tr_put(lo + k + 1u, r.ly); tr_put(lo + k + 2u, r.lz);
    tr_put(hi + k, r.hx); tr_put(hi + k + 1u, r.hy); tr_put(hi + k + 2u, r.hz);
    tr_put(com + k, r.cx); tr_put(com + k + 1u, r.cy); tr_put(com + k + 2u, r.cz); tr_put(com + k + 3u, r.m);
    tr_put(quad + k8, r.qxx); tr_put(quad + k8 + 1u, r.qxy); tr_put(quad + k8 + 2u, r.qxz);
    tr_put(quad + k8 + 3u, r.qyy); tr_put(quad + k8 + 4u, r.qyz); tr_put(quad + k8 + 5u, r.qzz);
    tr_put(quad + k8 + 6u, r.i2);
    /* read by later kernels only: plain stores */
    lo[k + 3u] = extent;
    hi[k + 3u] = bmax;
    quad[k8 + 7u] = 0.0f;
#endif
}

/* One work-item per leaf climbs towards the root: at each parent it
 * increments the parent's arrival counter (cleared by tree_build); the first
 * to arrive stops, the second (both children are then complete) computes
 * the parent from its two children and climbs on. No assumption on the
 * order in which work-groups run: each node is computed exactly once, after
 * both children. A node's words are written (atomics) before the counter
 * increment that lets another work-item read them (atomics, each word
 * waited for: tr_child). No mem_fence: besides the scope above, Mesa llvmpipe
 * loses the stores that follow a mem_fence in the later iterations of a
 * divergent loop (tests/llvmpipe_fence_loop.c).
 * The quadrupole of a node about its centre of mass c (traceless, Q_ab =
 * sum m (3 x_a x_b - |x|^2 delta_ab), x = point - c) is the children's
 * moved to c by the parallel-axis rule: Q = Q1 + Q2 + sum_k m_k (3 d_k d_k^T -
 * |d_k|^2 I), d_k = c_k - c; likewise the second moment I2 = sum m |x|^2
 * (I2_1 + I2_2 + sum_k m_k |d_k|^2), which the softened expansion needs. */
__kernel void tree_summaries(__global const float *points, __global const uint4 *nodes,
                             __global const uint *parents, volatile __global uint *flags, volatile __global float *lo,
                             volatile __global float *hi, volatile __global float *com, volatile __global float *quad,
                             uint cap COUNT_ARGS)
{
    const uint j = (uint)get_global_id(0), n = (uint)DEVICE_N(cap);
    if (j >= n || n < 2u) return;
    uint node = n - 1u + j;
    /* the summary of the node climbed from, kept in registers: only the
     * sibling's is read back (by atomics: another work-item wrote it) */
    tr_node cur = tr_child(node, n, points, lo, hi, com, quad);
    for (;;) {
        const uint p = parents[node];
        if (p == 0xffffffffu) return;
        if (atomic_inc(&flags[p]) == 0u) return; /* the sibling's subtree is not done yet */
        const uint4 nd = nodes[p];
        const tr_node sib = tr_child(nd.x == node ? nd.y : nd.x, n, points, lo, hi, com, quad);
        const tr_node A = nd.x == node ? cur : sib, B = nd.x == node ? sib : cur; /* left, right */
        const tr_node r = tr_merge(A, B);
        tr_publish(p, r, lo, hi, com, quad);
        cur = r;
        node = p;
    }
}

/* Barnes-Hut accelerations: work-item i takes sorted point i (Morton order:
 * neighbouring work-items walk nearly the same nodes) and walks the tree
 * depth first with a stack. An internal node is accepted as one body (its
 * mass at its centre of mass plus its quadrupole) when the body lies farther
 * from its centre than bmax / theta and than bmax: open2 = max(1 / theta^2,
 * 1), accepted when r^2 > bmax^2 * open2. Every point of the node lies within
 * bmax of the centre, so the body is outside that ball: a node holding the
 * body itself is always opened, and theta -> 0 opens everything (the exact
 * sum). A leaf is one body; the body itself is skipped. Softening as the
 * all-pairs kernel; r^2 + eps^2 = 0 contributes nothing. An accepted node
 * (mass M, quadrupole Q, second moment I2, d = centre - body, rho^2 = |d|^2 +
 * eps^2) adds the second-order Taylor expansion of the softened sum:
 * M d / rho^3 - Q d / rho^5 + 5/2 (d.Q d - eps^2 I2) d / rho^7 (the I2 term
 * is the trace part, which vanishes without softening). The result goes to
 * the point's record perm[i] through nb_integrate (nbody.cl).
 *   The softening rule: a node with bmax <= bsoft (the host's theta eps /
 * 32, rounded down; 0 without softening) is accepted at any distance, the
 * body inside it or not. Its expansion is then within 4 M (b / eps)^3 /
 * (eps^2 (1 - b / eps)^5) <= 1.5e-4 theta^3 M / eps^2 of its bodies' sum
 * (the Taylor remainder of the softened kernel, whose k-th derivatives are
 * at most k! / rho^(k+1)); a node of coincident points (bmax 0) is exact.
 * So bodies at one point, or closer than eps / 32, which share a Morton
 * code and are split by index into nodes that are not compact, cost one
 * node each rather than all of them. An accepted node at d = 0 adds
 * nothing (each term carries d; without softening, as a coincident body).
 * Depth <= the
 * code bits + 64 (the augmented key (code, sub, index) has that many bits
 * and a child's prefix is longer than its parent's), so the stack never
 * overflows. */
#define TR_STACK (KEY_BITS + 66)

/* The terms of an acceleration (the per-body walks and the group walk add
 * the same ones): a body b (position, mass b.w) at d = b - body, softened;
 * and an accepted node (centre of mass and mass b, quadrupole q0, q1) at
 * d = centre - body, d2 = |d|^2 > 0, so r2 > 0. */
inline void tr_add_body(float4 b, float4 pi, float eps2, float *ax, float *ay, float *az)
{
    const float dx = b.x - pi.x, dy = b.y - pi.y, dz = b.z - pi.z;
    const float r2 = dx * dx + dy * dy + dz * dz + eps2;
    const float inv = r2 > 0.0f ? rsqrt(r2) : 0.0f;
    const float s = b.w * inv * inv * inv;
    *ax += s * dx;
    *ay += s * dy;
    *az += s * dz;
}

inline void tr_add_node(float4 b, float4 q0, float4 q1, float dx, float dy, float dz, float d2, float eps2, float *ax,
                        float *ay, float *az)
{
    const float r2 = d2 + eps2, inv = rsqrt(r2), inv2 = inv * inv, inv3 = inv * inv2, inv5 = inv3 * inv2;
    const float qx = q0.x * dx + q0.y * dy + q0.z * dz;
    const float qy = q0.y * dx + q0.w * dy + q1.x * dz;
    const float qz = q0.z * dx + q1.x * dy + q1.y * dz;
    const float s = b.w * inv3 + 2.5f * (dx * qx + dy * qy + dz * qz - eps2 * q1.z) * inv5 * inv2;
    *ax += s * dx - qx * inv5;
    *ay += s * dy - qy * inv5;
    *az += s * dz - qz * inv5;
}

/* One node c of body i's walk (tree_accel and tree_accel_piece share it, so
 * that the two forms add the same terms: the same bits): a leaf's body or an
 * accepted node added to (ax, ay, az); returns 1 when c is an internal node
 * to open instead (nothing added). */
inline int tr_accel_visit(uint c, uint i, uint n, float4 pi, __global const float4 *points,
                          __global const float4 *hi, __global const float4 *com, __global const float4 *quad,
                          float open2, float eps2, float bsoft, float *ax, float *ay, float *az)
{
    if (c >= n - 1u) {
        const uint j = c - (n - 1u);
        if (j != i) tr_add_body(points[j], pi, eps2, ax, ay, az);
        return 0;
    }
    const float4 b = com[c];
    const float dx = b.x - pi.x, dy = b.y - pi.y, dz = b.z - pi.z;
    const float d2 = dx * dx + dy * dy + dz * dz, bm = hi[c].w;
    if (!(d2 > bm * bm * open2) && !(bm <= bsoft)) return 1;
    if (d2 > 0.0f) tr_add_node(b, quad[2u * c], quad[2u * c + 1u], dx, dy, dz, d2, eps2, ax, ay, az);
    return 0;
}

/* Body i's whole walk, depth first with a stack (tree_accel; and the group
 * walk's bodies when its stack is too small). */
inline void tr_walk_body(uint i, uint n, float4 pi, __global const float4 *points, __global const uint4 *nodes,
                         __global const float4 *hi, __global const float4 *com, __global const float4 *quad,
                         float open2, float eps2, float bsoft, float *ax, float *ay, float *az)
{
    uint stack[TR_STACK];
    uint sp = 0;
    stack[sp++] = 0u;
    while (sp > 0u) {
        const uint c = stack[--sp];
        if (tr_accel_visit(c, i, n, pi, points, hi, com, quad, open2, eps2, bsoft, ax, ay, az)) {
            const uint4 nd = nodes[c];
            stack[sp++] = nd.y;
            stack[sp++] = nd.x; /* the left child first */
        }
    }
}

__kernel void tree_accel(__global const float4 *points, __global const uint4 *nodes, __global const float4 *hi,
                         __global const float4 *com, __global const float4 *quad, __global const uint *perm, uint cap,
                         float open2, float eps2, float bsoft, float G, float dt, __global const float4 *pos_old,
                         __global float4 *pos_new, __global float4 *vel, __global float4 *acc_out,
                         uint mode COUNT_ARGS)
{
    const uint i = (uint)get_global_id(0), n = (uint)DEVICE_N(cap);
    if (i >= n) return;
    const float4 pi = points[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    tr_walk_body(i, n, pi, points, nodes, hi, com, quad, open2, eps2, bsoft, &ax, &ay, &az);
    nb_integrate(perm[i], G * ax, G * ay, G * az, pos_old, pos_new, vel, acc_out, dt, mode);
}

/* ---- radius queries: for query i (dims floats at queries[i * stride +
 * offset]), the points p with d2(p) <= r2, d2 = (dx * dx + dy * dy) + dz * dz
 * in float with no contraction (dx = p.x - q.x; dz = 0 in 2D), r2 = r * r
 * rounded by the host. A node is skipped when its box's d2 (per axis the
 * distance to [lo, hi], 0 inside, in the same operations) exceeds r2: every
 * operation is monotone, so no point of a skipped node has d2 <= r2 and the
 * result is exactly the brute-force set, points on the radius included.
 * fill = 0: counts[i] = how many; fill = 1: their records perm[j] to
 * indices[offsets[i] ...] in Morton order.
 *   Periodic axes (periodic = 1): per axis a length L (+inf on an open
 * axis), and the distance along it is the minimum image
 *     a = min(|p - q|, L),  d = min(a, L - a)
 * in float (d = |p - q| when L = +inf). A node's bound along an axis is 0
 * when q is inside [lo, hi]; else from the near edge a(near) and the far
 * edge L - a(far): a(p) grows and L - a(p) shrinks as p moves away from q,
 * each monotone in float, so min(a(near), L - a(far)) bounds d over the
 * node and the skipped nodes again hold no accepted point. The walks are
 * compiled twice (periodic a constant of the inlined walk), so that the
 * open walk keeps its instructions. */
inline float tr_d2(float dx, float dy, float dz)
{
#pragma OPENCL FP_CONTRACT OFF
    const float x2 = dx * dx, y2 = dy * dy, z2 = dz * dz;
    const float s = x2 + y2;
    return s + z2;
}

inline float tr_gap(float q, float lo, float hi)
{
    return q < lo ? lo - q : q > hi ? q - hi : 0.0f;
}

/* a capped at L (a NaN stays NaN, so a NaN coordinate never counts). */
inline float tr_cap(float a, float L)
{
    return a > L ? L : a;
}

/* The minimum image of a = |p - q| in a period L. On an open axis (L =
 * +inf) a difference that overflowed to +inf leaves c = +inf and L - c =
 * inf - inf, a NaN: the far image is taken only when it is smaller (a NaN
 * never is), so such a point is +inf away, as the open rule has it (counted
 * when r^2 is +inf), and a NaN difference stays NaN (c is then NaN). */
inline float tr_min_image(float a, float L)
{
    const float c = tr_cap(a, L), o = L - c;
    return o < c ? o : c;
}

/* The periodic bound over [lo, hi] (see above); the far edge's L - a as in
 * tr_min_image, taken only when smaller (inf - inf on an open axis: the near
 * edge's distance, which bounds every point of the node there). */
inline float tr_gap_periodic(float q, float lo, float hi, float L)
{
    if (q < lo) {
        const float n = tr_cap(lo - q, L), f = L - tr_cap(hi - q, L);
        return f < n ? f : n;
    }
    if (q > hi) {
        const float n = tr_cap(q - hi, L), f = L - tr_cap(q - lo, L);
        return f < n ? f : n;
    }
    return 0.0f;
}

/* A query's walk (tree_radius and tree_radius_piece share both): leaf j's
 * point counted when within the radius (with fill, its record written); and
 * whether the radius reaches internal node c's box (the walk opens it). Two
 * functions, the leaf test left in the loops: one visit returning a flag for
 * both cases compiled on NVIDIA to that flag and a second branch on it,
 * which made tree_radius about 4% slower on an H100. */
inline void tr_radius_leaf(uint j, float qx, float qy, float qz, __global const float4 *points,
                           __global const uint *perm, float r2, __global uint *indices, uint base, uint fill,
                           uint *count, float4 L, const int periodic)
{
    const float4 p = points[j];
    float dx = p.x - qx, dy = p.y - qy, dz = p.z - qz;
    if (periodic) {
        dx = tr_min_image(fabs(dx), L.x);
        dy = tr_min_image(fabs(dy), L.y);
        dz = tr_min_image(fabs(dz), L.z);
    }
    if (tr_d2(dx, dy, dz) <= r2) {
        if (fill) indices[base + *count] = perm[j];
        ++*count;
    }
}

inline int tr_radius_reaches(uint c, float qx, float qy, float qz, __global const float4 *lo,
                             __global const float4 *hi, float r2, float4 L, const int periodic)
{
    const float4 l = lo[c], h = hi[c];
    if (periodic)
        return !(tr_d2(tr_gap_periodic(qx, l.x, h.x, L.x), tr_gap_periodic(qy, l.y, h.y, L.y),
                       tr_gap_periodic(qz, l.z, h.z, L.z)) > r2);
    return !(tr_d2(tr_gap(qx, l.x, h.x), tr_gap(qy, l.y, h.y), tr_gap(qz, l.z, h.z)) > r2);
}

/* A query's whole walk from the root; count (with fill, the records written). */
inline uint tr_radius_walk(float qx, float qy, float qz, __global const float4 *points, __global const uint4 *nodes,
                           __global const float4 *lo, __global const float4 *hi, __global const uint *perm, uint n,
                           float r2, __global uint *indices, uint base, uint fill, float4 L, const int periodic)
{
    uint count = 0;
    uint stack[TR_STACK];
    uint sp = 0;
    stack[sp++] = 0u; /* the root; for n = 1 the leaf 0 */
    while (sp > 0u) {
        const uint c = stack[--sp];
        if (c >= n - 1u) {
            tr_radius_leaf(c - (n - 1u), qx, qy, qz, points, perm, r2, indices, base, fill, &count, L, periodic);
            continue;
        }
        if (!tr_radius_reaches(c, qx, qy, qz, lo, hi, r2, L, periodic)) continue;
        const uint4 nd = nodes[c];
        stack[sp++] = nd.y;
        stack[sp++] = nd.x;
    }
    return count;
}

__kernel void tree_radius(__global const float *queries, uint nq, ulong stride, ulong offset,
                          __global const float4 *points, __global const uint4 *nodes, __global const float4 *lo,
                          __global const float4 *hi, __global const uint *perm, uint cap, float r2,
                          __global uint *counts, __global const uint *offsets, __global uint *indices,
                          uint fill, float4 period, uint periodic COUNT_ARGS)
{
    const uint i = (uint)get_global_id(0), n = (uint)DEVICE_N(cap);
    if (i >= nq) return;
    if (n == 0u) { /* a tree of no point: no node to walk */
        if (!fill) counts[i] = 0u;
        return;
    }
    __global const float *qr = queries + (ulong)i * stride + offset;
    const float qx = qr[0], qy = qr[1], qz = DIMS == 3 ? qr[2] : 0.0f;
    const uint base = fill ? offsets[i] : 0u;
    const uint count = periodic ? tr_radius_walk(qx, qy, qz, points, nodes, lo, hi, perm, n, r2, indices, base, fill,
                                                 period, 1)
                                : tr_radius_walk(qx, qy, qz, points, nodes, lo, hi, perm, n, r2, indices, base, fill,
                                                 period, 0);
    if (!fill) counts[i] = count;
}

#ifdef TR_PIECES
/* ---- the walks in pieces ------------------------------------------------------
 * On a device that stops a work-item's loops after a fixed number of passes
 * (Mesa llvmpipe: 65535; clsort.h >>loop budget) a walk of up to 2n - 1
 * nodes runs as several launches of at most `steps` moves each. The same
 * depth-first order, left child first, as tree_accel and tree_radius, but
 * without a stack: from a node whose subtree is done the walk moves to its
 * right sibling, or, being a right child, up to its parent (parents[]), so
 * its whole state is the node and a bit, kept between launches in ws (8
 * words per query: node, state: bit 0 the subtree is done, bit 1 the walk
 * is done; then the sums). A walk of all nodes makes 2 (2n - 1) moves. The
 * nodes are visited by tree_accel's and tree_radius's own functions
 * (tr_accel_visit; tr_radius_leaf, tr_radius_reaches) in the same order, so
 * the bodies' sums are the same operations in the same order: the same
 * bits. piece: bit 0, not the first (ws holds the state); bit 1, the last
 * (the walk is then done: the host launches enough pieces). */
#define TR_DONE 1u
#define TR_FINISHED 2u

/* The move after node c's subtree is done (*st TR_DONE): to its sibling, up
 * to its parent, or the end of the walk at the root. */
inline uint tr_next(__global const uint4 *nodes, __global const uint *parents, uint c, uint *st)
{
    if (c == 0u) {
        *st = TR_FINISHED;
        return c;
    }
    const uint p = parents[c];
    const uint4 nd = nodes[p];
    if (nd.x == c) {
        *st = 0u;
        return nd.y;
    }
    return p;
}

__kernel void tree_accel_piece(__global const float4 *points, __global const uint4 *nodes, __global const uint *parents,
                               __global const float4 *hi, __global const float4 *com, __global const float4 *quad,
                               __global const uint *perm, uint cap, float open2, float eps2, float bsoft, float G,
                               float dt,
                               __global const float4 *pos_old, __global float4 *pos_new, __global float4 *vel,
                               __global float4 *acc_out, uint mode, __global uint *ws, uint steps,
                               uint piece COUNT_ARGS)
{
    const uint i = (uint)get_global_id(0), n = (uint)DEVICE_N(cap);
    if (i >= n) return;
    __global uint *w = ws + 8UL * i;
    const float4 pi = points[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    uint c = 0u, st = 0u;
    if (piece & 1u) {
        c = w[0];
        st = w[1];
        ax = as_float(w[2]);
        ay = as_float(w[3]);
        az = as_float(w[4]);
    }
    for (uint k = 0; k < steps && st != TR_FINISHED; ++k) {
        if (st == TR_DONE) {
            c = tr_next(nodes, parents, c, &st);
            continue;
        }
        st = TR_DONE;
        if (tr_accel_visit(c, i, n, pi, points, hi, com, quad, open2, eps2, bsoft, &ax, &ay, &az)) {
            c = nodes[c].x; /* opened: the left child next */
            st = 0u;
        }
    }
    if (!(piece & 2u)) {
        w[0] = c;
        w[1] = st;
        w[2] = as_uint(ax);
        w[3] = as_uint(ay);
        w[4] = as_uint(az);
        return;
    }
    nb_integrate(perm[i], G * ax, G * ay, G * az, pos_old, pos_new, vel, acc_out, dt, mode);
}

__kernel void tree_radius_piece(__global const float *queries, uint nq, ulong stride, ulong offset,
                                __global const float4 *points, __global const uint4 *nodes,
                                __global const uint *parents, __global const float4 *lo, __global const float4 *hi,
                                __global const uint *perm, uint cap, float r2, __global uint *counts,
                                __global const uint *offsets, __global uint *indices, uint fill, float4 period,
                                uint periodic, __global uint *ws, uint steps, uint piece COUNT_ARGS)
{
    const uint i = (uint)get_global_id(0), n = (uint)DEVICE_N(cap);
    if (i >= nq) return;
    if (n == 0u) { /* a tree of no point: no node to walk */
        if ((piece & 2u) && !fill) counts[i] = 0u;
        return;
    }
    __global uint *w = ws + 8UL * i;
    __global const float *qr = queries + (ulong)i * stride + offset;
    const float qx = qr[0], qy = qr[1], qz = DIMS == 3 ? qr[2] : 0.0f;
    const uint base = fill ? offsets[i] : 0u;
    uint count = 0u, c = 0u, st = 0u;
    if (piece & 1u) {
        c = w[0];
        st = w[1];
        count = w[2];
    }
    for (uint k = 0; k < steps && st != TR_FINISHED; ++k) {
        if (st == TR_DONE) {
            c = tr_next(nodes, parents, c, &st);
            continue;
        }
        st = TR_DONE;
        if (c >= n - 1u) {
            tr_radius_leaf(c - (n - 1u), qx, qy, qz, points, perm, r2, indices, base, fill, &count, period,
                           periodic != 0u);
            continue;
        }
        if (!tr_radius_reaches(c, qx, qy, qz, lo, hi, r2, period, periodic != 0u)) continue;
        c = nodes[c].x; /* the left child next */
        st = 0u;
    }
    if (!(piece & 2u)) {
        w[0] = c;
        w[1] = st;
        w[2] = count;
        return;
    }
    if (!fill) counts[i] = count;
}
#endif

/* offsets[nq] = the total (the scan's, from total[0]). */
__kernel void tree_radius_total(__global uint *offsets, uint nq, __global const uint *total)
{
    if (get_global_id(0) == 0) offsets[nq] = total[0];
}

#ifdef TR_GROUP
/* ---- Barnes-Hut per group of bodies (tree_accel_group), as Bonsai walks:
 * the groups are the tree's nodes of at most GW points whose parent holds
 * more (one node, the root, when n <= GW). A group's points are close
 * together (a cell of the Morton order), so its box is small: 64 points
 * taken in a row instead straddle the edges of large cells, and their boxes
 * open nearly every node (measured: a few groups listed nearly every point
 * of the tree). Work-group g takes the groups whose first point lies in
 * [g GW, (g + 1) GW), one after another, work-item k on the group's point
 * k: every point in exactly one group, every group in one work-group.
 * A group walks the tree once, for its box (lo, hi of its node). A node is
 * accepted for the whole group when the box lies farther from the node's
 * centre than bmax / theta and than bmax (per axis the distance to the box,
 * 0 inside: every point of the group is at least that far, so each would
 * accept the node too, and a node holding a point of the group is always
 * opened); leaves are points. Accepted nodes and leaves go to an
 * interaction list in local memory, which every point of the group then
 * applies in list order (the point itself skipped), with the terms of the
 * per-body walk (tr_add_body, tr_add_node). Each step takes up to GW nodes
 * off a stack in local memory, one per work-item; where the children pushed
 * and the list entries go comes from a prefix sum, not from atomics, so the
 * list, its order and the sums are the same on every run. The list is
 * applied when a step could overfill it. The walk opens at least the nodes
 * every point's own walk opens (the box is nearer than any of its points),
 * so its error is at most the per-body walk's; it applies more terms, but
 * each is read from local memory by every point at once.
 * A stack that cannot hold a step's children (GW_STACK words; not reached
 * by the tests' distributions, but no depth bound excludes it) ends that
 * group's walk: its points then walk alone, as in tree_accel. */
#ifndef GW
#define GW 64
#endif
#ifndef GW_STACK
#define GW_STACK (32 * GW)
#endif
#define GW_LIST (4 * GW)
#define GW_NODE 0xffffffffu /* a list entry that is an accepted node, not a leaf */

/* Exclusive prefix sum of one uint per work-item over the GW of a group,
 * *total the sum; s is free again once every work-item has returned and
 * reached the next barrier (the next call starts with one). */
inline uint gw_scan(uint x, __local uint *s, uint *total)
{
    const uint lid = (uint)get_local_id(0);
    barrier(CLK_LOCAL_MEM_FENCE);
    s[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = 1u; d < (uint)GW; d <<= 1) {
        const uint t = lid >= d ? s[lid - d] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        s[lid] += t;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    *total = s[GW - 1];
    return s[lid] - x;
}

/* The points below node c: [first, last] (a leaf: its one point). */
inline uint2 tr_range(uint c, uint n, __global const uint4 *nodes)
{
    if (c >= n - 1u) return (uint2)(c - (n - 1u), c - (n - 1u));
    const uint4 nd = nodes[c];
    return (uint2)(nd.z, nd.w);
}

/* The group of point `mine` (< n): the highest node above its leaf with at
 * most GW points. */
inline uint gw_group_of(uint mine, uint n, __global const uint *parents, __global const uint4 *nodes)
{
    uint c = n - 1u + mine;
    while (c != 0u) {
        const uint up = parents[c];
        const uint2 r = tr_range(up, n, nodes);
        if (r.y - r.x + 1u > (uint)GW) break;
        c = up;
    }
    return c;
}

/* What a work-item takes off the stack in a step of the group walk: a leaf
 * (its point) or an accepted node (centre, mass, quadrupole) to list, or a
 * node to open (its children). */
typedef struct gw_pop {
    uint listing, opening, leaf;
    float4 e, q0, q1;
    uint4 nd;
} gw_pop;

/* Work-item lid's pop of a step (lid < take: stack[base + lid]; else
 * nothing): a node is accepted for the whole group when the box (blo, bhi)
 * lies far enough from its centre. */
inline gw_pop gw_take(__local const uint *stack, uint base, uint take, uint n, float4 blo, float4 bhi,
                      __global const float4 *points, __global const uint4 *nodes, __global const float4 *hi,
                      __global const float4 *com, __global const float4 *quad, float open2, float bsoft)
{
    gw_pop t;
    t.listing = 0u;
    t.opening = 0u;
    t.leaf = GW_NODE;
    t.e = (float4)(0.0f, 0.0f, 0.0f, 0.0f);
    t.q0 = t.e;
    t.q1 = t.e;
    t.nd = (uint4)(0u, 0u, 0u, 0u);
    if ((uint)get_local_id(0) < take) {
        const uint k = stack[base + (uint)get_local_id(0)];
        if (k >= n - 1u) {
            t.leaf = k - (n - 1u);
            t.e = points[t.leaf];
            t.listing = 1u;
        } else {
            t.e = com[k];
            const float bm = hi[k].w;
            const float d2 =
                tr_d2(tr_gap(t.e.x, blo.x, bhi.x), tr_gap(t.e.y, blo.y, bhi.y), tr_gap(t.e.z, blo.z, bhi.z));
            if (d2 > bm * bm * open2 || bm <= bsoft) {
                t.q0 = quad[2u * k];
                t.q1 = quad[2u * k + 1u];
                t.listing = 1u;
            } else {
                t.nd = nodes[k];
                t.opening = 1u;
            }
        }
    }
    return t;
}

/* The pop's writes at its places from the prefix sum o (listing in the low
 * 16 bits, opening in the high): an opened node's children onto the stack
 * (the left child on top), a listed entry into the interaction list. */
inline void gw_push_list(gw_pop t, uint o, uint base, uint listed, __local uint *stack, __local float4 *l_pos,
                         __local float4 *l_q0, __local float4 *l_q1, __local uint *l_leaf)
{
    if (t.opening) {
        stack[base + 2u * (o >> 16)] = t.nd.y;
        stack[base + 2u * (o >> 16) + 1u] = t.nd.x; /* the left child on top */
    }
    if (t.listing) {
        const uint lt = listed + (o & 0xffffu);
        l_pos[lt] = t.e;
        l_q0[lt] = t.q0;
        l_q1[lt] = t.q1;
        l_leaf[lt] = t.leaf;
    }
}

/* The list's first `listed` entries applied to point i at pi, in list order
 * (the point itself skipped). */
inline void gw_apply(uint listed, uint i, float4 pi, __local const float4 *l_pos, __local const float4 *l_q0,
                     __local const float4 *l_q1, __local const uint *l_leaf, float eps2, float *ax, float *ay,
                     float *az)
{
    for (uint t = 0; t < listed; ++t) {
        const float4 b = l_pos[t];
        const uint j = l_leaf[t];
        if (j != GW_NODE) {
            if (j != i) tr_add_body(b, pi, eps2, ax, ay, az);
        } else {
            const float dx = b.x - pi.x, dy = b.y - pi.y, dz = b.z - pi.z;
            const float d2 = dx * dx + dy * dy + dz * dz;
            if (d2 > 0.0f) tr_add_node(b, l_q0[t], l_q1[t], dx, dy, dz, d2, eps2, ax, ay, az);
        }
    }
}

/* One group's walk (every work-item of the work-group: it has barriers),
 * from the root, for its box (blo, bhi): steps of up to GW pops, the list
 * applied to point i at pi (live) when a step could overfill it and at the
 * end. Returns 1 if the stack could not hold a step's children (the walk
 * then ended early; *ax, *ay, *az partial). */
inline int gw_walk(uint n, uint i, int live, float4 pi, float4 blo, float4 bhi, __local uint *stack,
                   __local uint *scan, __local float4 *l_pos, __local float4 *l_q0, __local float4 *l_q1,
                   __local uint *l_leaf, __global const float4 *points, __global const uint4 *nodes,
                   __global const float4 *hi, __global const float4 *com, __global const float4 *quad, float open2,
                   float eps2, float bsoft, float *ax, float *ay, float *az)
{
    uint sp = 1u, listed = 0u;
    barrier(CLK_LOCAL_MEM_FENCE); /* the previous group's last stack reads are done */
    if (get_local_id(0) == 0u) stack[0] = 0u; /* the root (node 0 also for n = 1, where it is the leaf) */
    while (sp > 0u) {
        uint take = min(sp, (uint)GW);
        if (take > (uint)GW_STACK - sp) take = (uint)GW_STACK - sp; /* room for two children each */
        if (take == 0u) return 1;
        barrier(CLK_LOCAL_MEM_FENCE); /* the stack's last pushes (and the root) are visible */
        const uint base = sp - take;
        const gw_pop t = gw_take(stack, base, take, n, blo, bhi, points, nodes, hi, com, quad, open2, bsoft);
        uint total;
        const uint o = gw_scan(t.listing | (t.opening << 16), scan, &total); /* its first barrier: every pop read */
        gw_push_list(t, o, base, listed, stack, l_pos, l_q0, l_q1, l_leaf);
        sp = base + 2u * (total >> 16);
        listed += total & 0xffffu;
        if (listed + (uint)GW > (uint)GW_LIST || sp == 0u) { /* apply the list */
            barrier(CLK_LOCAL_MEM_FENCE);
            if (live) gw_apply(listed, i, pi, l_pos, l_q0, l_q1, l_leaf, eps2, ax, ay, az);
            listed = 0u;
            barrier(CLK_LOCAL_MEM_FENCE); /* every point has read the list before the next step writes it */
        }
    }
    return 0;
}

__kernel __attribute__((reqd_work_group_size(GW, 1, 1)))
void tree_accel_group(__global const float4 *points, __global const uint4 *nodes, __global const uint *parents,
                      __global const float4 *lo, __global const float4 *hi, __global const float4 *com,
                      __global const float4 *quad, __global const uint *perm, uint cap, float open2, float eps2,
                      float bsoft, float G, float dt, __global const float4 *pos_old, __global float4 *pos_new,
                      __global float4 *vel, __global float4 *acc_out, uint mode COUNT_ARGS)
{
    __local float4 l_pos[GW_LIST], l_q0[GW_LIST], l_q1[GW_LIST];
    __local uint l_leaf[GW_LIST], stack[GW_STACK], scan[GW], groups[GW];
    const uint lid = (uint)get_local_id(0), n = (uint)DEVICE_N(cap);
    const uint mine = (uint)get_group_id(0) * (uint)GW + lid;
    uint starts = 0u, c = 0u;
    if (mine < n) {
        c = gw_group_of(mine, n, parents, nodes);
        starts = tr_range(c, n, nodes).x == mine;
    }
    uint count;
    const uint at = gw_scan(starts, scan, &count);
    if (starts) groups[at] = c;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint g = 0; g < count; ++g) { /* count, and every loop bound below, is the same in every work-item */
        const uint gc = groups[g];
        const uint2 r = tr_range(gc, n, nodes);
        const uint i = r.x + lid;
        const int live = i <= r.y;
        float4 blo, bhi;
        if (gc >= n - 1u) {
            blo = points[r.x];
            bhi = blo;
        } else {
            blo = lo[gc];
            bhi = hi[gc];
        }
        const float4 pi = live ? points[i] : (float4)(0.0f, 0.0f, 0.0f, 0.0f);
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        const int overflow = gw_walk(n, i, live, pi, blo, bhi, stack, scan, l_pos, l_q0, l_q1, l_leaf, points, nodes,
                                     hi, com, quad, open2, eps2, bsoft, &ax, &ay, &az);
        if (overflow) { /* each point of the group alone, from the start */
            ax = ay = az = 0.0f;
            if (live) tr_walk_body(i, n, pi, points, nodes, hi, com, quad, open2, eps2, bsoft, &ax, &ay, &az);
        }
        if (live) nb_integrate(perm[i], G * ax, G * ay, G * az, pos_old, pos_new, vel, acc_out, dt, mode);
    }
}
#endif /* TR_GROUP */
