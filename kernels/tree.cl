/* clsort trees over points: Morton codes of float positions over a bounding
 * box (given, or a min/max reduction on the device), a binary radix tree over
 * the sorted codes (Karras 2012, one work-item per internal node), bottom-up
 * node summaries in one pass (atomic arrival counters: the second work-item
 * to reach a node computes it and climbs on), and Barnes-Hut accelerations by
 * a stack-based traversal per body. Prepended by common.cl and nbody.cl (its
 * nb_integrate: the same integrator steps as the all-pairs kernel).
 *
 * Build-time macros (clsort__tree_program):
 *   WG        work-group size (the box reduction's local arrays)
 *   KEY_T     uint or ulong: the code type; KEY_BITS its width (32 or 64)
 *   DIMS      2 or 3
 *   BPA       bits per axis (3D: 10 or 21, 2D: 16 or 31)
 *
 * Node numbering (n points, n >= 1): internal nodes 0 .. n-2 (node 0 is the
 * root when n >= 2), leaf j is node n-1+j, so the root is always node 0.
 * nodes[k] (internal k) = (left, right, first, last): the two children and the
 * range of sorted points [first, last] below it; the split gamma is the last
 * point of the left child. parents[node] = its internal parent, ~0 for node 0.
 * Summaries of internal node k: lo[k] = (min x, y, z, extent = the largest
 * side of the box), hi[k] = (max x, y, z, bmax = an upper bound on the
 * distance from the centre of mass to any point of the node), com[k] =
 * (centre of mass x, y, z, total mass). A leaf's summary is its point. */

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
 * = (lo x, y, z, scale), 12..15 = (hi x, y, z, 0) (tree_box_final). */
__kernel void tree_box_init(__global uint *box)
{
    const uint i = (uint)get_global_id(0);
    if (i < 8u) box[i] = i < 4u ? 0xffffffffu : 0u;
}

/* Min and max of every finite coordinate: a grid-stride loop per work-item,
 * a local reduction, one atomic per work-group and axis. */
__kernel void tree_box_reduce(__global const float *pos, uint n, ulong stride, ulong offset, __global uint *box)
{
    __local uint smin[3][WG], smax[3][WG];
    const uint lid = (uint)get_local_id(0);
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
}

/* Spreads the low 21 bits of x to every third bit (3D), or the low 32 to the
 * even bits (2D). */
inline ulong tr_spread3(ulong x)
{
    x &= 0x1ffffful;
    x = (x | (x << 32)) & 0x1f00000000fffful;
    x = (x | (x << 16)) & 0x1f0000ff0000fful;
    x = (x | (x << 8)) & 0x100f00f00f00f00ful;
    x = (x | (x << 4)) & 0x10c30c30c30c30c3ul;
    x = (x | (x << 2)) & 0x1249249249249249ul;
    return x;
}
inline ulong tr_spread2(ulong x)
{
    x &= 0xfffffffful;
    x = (x | (x << 16)) & 0x0000ffff0000fffful;
    x = (x | (x << 8)) & 0x00ff00ff00ff00fful;
    x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0ful;
    x = (x | (x << 2)) & 0x3333333333333333ul;
    x = (x | (x << 1)) & 0x5555555555555555ul;
    return x;
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
__kernel void tree_keys(__global const float *pos, __global KEY_T *codes, uint n, ulong stride, ulong offset,
                        __global const float *box)
{
    const uint i = (uint)get_global_id(0);
    if (i >= n) return;
    __global const float *p = pos + (ulong)i * stride + offset;
    const float scale = box[11];
    ulong c = tr_cell(p[0], box[8], scale), key;
#if DIMS == 3
    key = tr_spread3(c) | (tr_spread3(tr_cell(p[1], box[9], scale)) << 1) |
          (tr_spread3(tr_cell(p[2], box[10], scale)) << 2);
#else
    key = tr_spread2(c) | (tr_spread2(tr_cell(p[1], box[9], scale)) << 1);
#endif
    codes[i] = (KEY_T)key;
}

/* points[i] = (x, y, z (0 in 2D), mass (1 without masses)) of the record
 * perm[i]: the points in Morton order. */
__kernel void tree_points(__global const float *pos, __global const uint *perm, __global float4 *points, uint n,
                          ulong stride, ulong offset, ulong mass_offset, uint has_mass)
{
    const uint i = (uint)get_global_id(0);
    if (i >= n) return;
    __global const float *r = pos + (ulong)perm[i] * stride;
    float4 q;
    q.x = r[offset];
    q.y = r[offset + 1];
    q.z = DIMS == 3 ? r[offset + 2] : 0.0f;
    q.w = has_mass ? r[mass_offset] : 1.0f;
    points[i] = q;
}

/* Karras' delta: the length of the common prefix of codes i and j, with the
 * index as tie-breaker for equal codes (KEY_BITS + the common prefix of
 * i and j); -1 outside [0, n). */
inline int tr_delta(__global const KEY_T *codes, long n, long i, long j)
{
    if (j < 0 || j >= n) return -1;
    const KEY_T a = codes[i], b = codes[j];
    if (a == b) return KEY_BITS + (int)clz((uint)i ^ (uint)j);
    return (int)clz(a ^ b);
}

/* Internal node i of n - 1 (Karras 2012, figure 4): its range's direction,
 * length by exponential then binary search, split by binary search. */
__kernel void tree_build(__global const KEY_T *codes, uint n32, __global uint4 *nodes, __global uint *parents)
{
    const long n = (long)n32, i = (long)get_global_id(0);
    if (i >= n - 1) return;
    const int d = tr_delta(codes, n, i, i + 1) - tr_delta(codes, n, i, i - 1) >= 0 ? 1 : -1;
    const int dmin = tr_delta(codes, n, i, i - d);
    long lmax = 2;
    while (tr_delta(codes, n, i, i + lmax * d) > dmin) lmax *= 2;
    long l = 0;
    for (long t = lmax / 2; t >= 1; t /= 2)
        if (tr_delta(codes, n, i, i + (l + t) * d) > dmin) l += t;
    const long j = i + l * d;
    const int dnode = tr_delta(codes, n, i, j);
    long s = 0, t = l;
    do {
        t = (t + 1) / 2;
        if (tr_delta(codes, n, i, i + (s + t) * d) > dnode) s += t;
    } while (t > 1);
    const long gamma = i + s * d + (d < 0 ? -1 : 0);
    const long first = min(i, j), last = max(i, j);
    const uint left = (uint)(first == gamma ? n - 1 + gamma : gamma);
    const uint right = (uint)(last == gamma + 1 ? n - 1 + gamma + 1 : gamma + 1);
    nodes[i] = (uint4)(left, right, (uint)first, (uint)last);
    parents[left] = (uint)i;
    parents[right] = (uint)i;
    if (i == 0) parents[0] = 0xffffffffu;
}

/* A node's summary: its point for a leaf, else what tree_summaries wrote
 * (read through volatile pointers: another work-item wrote it, possibly in
 * another work-group, before its arrival counter was incremented). */
inline void tr_summary(uint c, uint n, __global const float4 *points, volatile __global float *lo,
                       volatile __global float *hi, volatile __global float *com, float4 *l, float4 *h, float4 *m)
{
    if (c >= n - 1u) {
        const float4 p = points[c - (n - 1u)];
        *l = (float4)(p.x, p.y, p.z, 0.0f);
        *h = (float4)(p.x, p.y, p.z, 0.0f);
        *m = p;
        return;
    }
    const ulong k = 4UL * c; /* 64-bit: nodes past 2^30 (n < 2^31 points) have 4c > 2^32 */
    *l = (float4)(lo[k], lo[k + 1], lo[k + 2], lo[k + 3]);
    *h = (float4)(hi[k], hi[k + 1], hi[k + 2], hi[k + 3]);
    *m = (float4)(com[k], com[k + 1], com[k + 2], com[k + 3]);
}

/* One work-item per leaf climbs towards the root: at each parent it
 * increments the parent's arrival counter (cleared by the host); the first
 * to arrive stops, the second (both children are then complete) computes
 * the parent from its two children and climbs on. No assumption on the
 * order in which work-groups run: each node is computed exactly once, after
 * both children. The writes of a node precede (mem_fence) the counter
 * increment that lets another work-item read them; reads and writes of the
 * summaries are volatile, so they are not served from a non-coherent cache. */
__kernel void tree_summaries(__global const float4 *points, __global const uint4 *nodes,
                             __global const uint *parents, volatile __global uint *flags, volatile __global float *lo,
                             volatile __global float *hi, volatile __global float *com, uint n)
{
    const uint j = (uint)get_global_id(0);
    if (j >= n || n < 2u) return;
    uint node = n - 1u + j;
    for (;;) {
        const uint p = parents[node];
        if (p == 0xffffffffu) return;
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        if (atomic_inc(&flags[p]) == 0u) return; /* the sibling's subtree is not done yet */
        mem_fence(CLK_GLOBAL_MEM_FENCE);
        const uint4 nd = nodes[p];
        float4 la, ha, ma, lb, hb, mb;
        tr_summary(nd.x, n, points, lo, hi, com, &la, &ha, &ma);
        tr_summary(nd.y, n, points, lo, hi, com, &lb, &hb, &mb);
        /* scalar components: oclgrind 21.10 mistracks 3-vectors (see nbody.cl) */
        struct { float x, y, z; } l3, h3;
        l3.x = fmin(la.x, lb.x); l3.y = fmin(la.y, lb.y); l3.z = fmin(la.z, lb.z);
        h3.x = fmax(ha.x, hb.x); h3.y = fmax(ha.y, hb.y); h3.z = fmax(ha.z, hb.z);
        const float mass = ma.w + mb.w;
        float cx, cy, cz;
        if (mass > 0.0f) {
            cx = (ma.w * ma.x + mb.w * mb.x) / mass;
            cy = (ma.w * ma.y + mb.w * mb.y) / mass;
            cz = (ma.w * ma.z + mb.w * mb.z) / mass;
            /* rounding may leave the centre a hair outside the box */
            cx = clamp(cx, l3.x, h3.x);
            cy = clamp(cy, l3.y, h3.y);
            cz = clamp(cz, l3.z, h3.z);
        } else {
            cx = 0.5f * (l3.x + h3.x);
            cy = 0.5f * (l3.y + h3.y);
            cz = 0.5f * (l3.z + h3.z);
        }
        const float ex = fmax(cx - l3.x, h3.x - cx), ey = fmax(cy - l3.y, h3.y - cy), ez = fmax(cz - l3.z, h3.z - cz);
        /* the farthest corner from the centre, rounded up (relative 2^-20) */
        const float bmax = sqrt(ex * ex + ey * ey + ez * ez) * 1.000001f;
        const float extent = fmax(fmax(h3.x - l3.x, h3.y - l3.y), h3.z - l3.z);
        const ulong k = 4UL * p; /* 64-bit, as in tr_summary */
        lo[k] = l3.x; lo[k + 1] = l3.y; lo[k + 2] = l3.z; lo[k + 3] = extent;
        hi[k] = h3.x; hi[k + 1] = h3.y; hi[k + 2] = h3.z; hi[k + 3] = bmax;
        com[k] = cx; com[k + 1] = cy; com[k + 2] = cz; com[k + 3] = mass;
        node = p;
    }
}

/* Barnes-Hut accelerations: work-item i takes sorted point i (Morton order:
 * neighbouring work-items walk nearly the same nodes) and walks the tree
 * depth first with a stack. An internal node is accepted as one body (its
 * mass at its centre of mass) when the body lies farther from its centre
 * than bmax / theta and than bmax: open2 = max(1 / theta^2, 1), accepted when
 * r^2 > bmax^2 * open2. Every point of the node lies within bmax of the
 * centre, so the body is outside that ball: a node holding the body itself is
 * always opened, and theta -> 0 opens everything (the exact sum). A leaf is
 * one body; the body itself is skipped. Softening as the all-pairs kernel;
 * r^2 + eps^2 = 0 contributes nothing. The result goes to the point's record
 * perm[i] through nb_integrate (nbody.cl). Depth <= the code bits + 32 (the
 * augmented key (code, index) has that many bits and a child's prefix is
 * longer than its parent's), so the stack never overflows. */
#define TR_STACK (KEY_BITS + 34)
__kernel void tree_accel(__global const float4 *points, __global const uint4 *nodes, __global const float4 *hi,
                         __global const float4 *com, __global const uint *perm, uint n,
                         float open2, float eps2, float G, float dt, __global const float4 *pos_old,
                         __global float4 *pos_new, __global float4 *vel, __global float4 *acc_out, uint mode)
{
    const uint i = (uint)get_global_id(0);
    if (i >= n) return;
    const float4 pi = points[i];
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    uint stack[TR_STACK];
    uint sp = 0;
    stack[sp++] = 0u;
    while (sp > 0u) {
        const uint c = stack[--sp];
        float4 b;
        if (c >= n - 1u) {
            const uint j = c - (n - 1u);
            if (j == i) continue;
            b = points[j];
        } else {
            b = com[c];
            const float dx = b.x - pi.x, dy = b.y - pi.y, dz = b.z - pi.z;
            const float r2 = dx * dx + dy * dy + dz * dz, bm = hi[c].w;
            if (!(r2 > bm * bm * open2)) {
                const uint4 nd = nodes[c];
                stack[sp++] = nd.y;
                stack[sp++] = nd.x; /* the left child first */
                continue;
            }
        }
        const float dx = b.x - pi.x, dy = b.y - pi.y, dz = b.z - pi.z;
        const float r2 = dx * dx + dy * dy + dz * dz + eps2;
        const float inv = r2 > 0.0f ? rsqrt(r2) : 0.0f;
        const float s = b.w * inv * inv * inv;
        ax += s * dx;
        ay += s * dy;
        az += s * dz;
    }
    nb_integrate(perm[i], G * ax, G * ay, G * az, pos_old, pos_new, vel, acc_out, dt, mode);
}
