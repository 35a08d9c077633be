/* clsort bitonic sort kernels (need common.cl and keys.cl first: WG, ITEMS,
 * TILE, PAD, KEY_T and the key image to_image / from_image, so that the
 * bitonic and the radix sort order keys identically).
 *
 * The network is the "flip" form of Batcher's bitonic sort: stage k (k = 2,
 * 4, .. P, P = the segment length rounded up to a power of two) first
 * compares position i with its mirror i ^ (k-1) inside each k-block, then
 * runs half-cleaners of strides k/4 .. 1 (i with i ^ j). Every block ends
 * sorted ascending, so positions past the end of a segment can be virtual
 * +inf keys: they are never stored, and a comparison with one never moves a
 * real key (the smaller, real key stays at the lower position). Keys are
 * sorted as their order-preserving images (keys.cl), xor all ones for
 * descending, so the sort itself is always ascending on unsigned integers.
 *
 * Kernels:
 *   bitonic_local:     one tile of TILE = WG*ITEMS keys in local memory.
 *                      kstage == 0: a whole sort of every power-of-two slot of
 *                      the tile (one short segment per slot, or one TILE-block
 *                      of a long segment); kstage > 0: the steps of stride
 *                      TILE/2 .. 1 of stage kstage of a long segment.
 *                      Steps of stride < ITEMS run in registers on ITEMS
 *                      consecutive keys per work-item, the others through
 *                      local memory, two steps per barrier (4 keys per
 *                      work-item) where two remain.
 *   bitonic_packed:    variable segments of up to TILE keys, several per
 *                      work-group in power-of-two slots (a plan from the
 *                      host); the same local sort, each slot stopping at its
 *                      own size.
 *   bitonic_global<S>: S consecutive steps (strides >= TILE) of one stage of
 *                      a long segment, 2^S keys per work-item kept in
 *                      registers (S <= 6: 64 keys; the host takes fewer for
 *                      8-byte keys or with the index): one read and one write
 *                      of the keys per S steps. With flip, the first step is
 *                      the stage's mirror step (2^S-element sets closed under
 *                      i ^ (k-1) and i ^ j).
 *
 * Build-time macros (set by the host):
 *   KEY_T, KEY_BYTES   uint/4 or ulong/8 (keys move as bit patterns)
 *   HAS_IDX            a uint index moves with each key (the key's position
 *                      in keys_in; 0xffffffff for the +inf padding) and breaks
 *                      ties, so equal keys keep their input order.
 *   GSTEPS             the most steps the host runs per global pass (1..6):
 *                      only bitonic_global1 .. bitonic_global<GSTEPS> exist
 *   PACKED             bitonic_packed exists (variable segments' programs)
 * A program holds only the kernels its calls launch: NVIDIA's driver
 * compiles every kernel of a program, from PTX, at each build, even one
 * from the program cache. */

#define BITONIC_PAD_IDX 0xffffffffu
#ifndef GSTEPS
#define GSTEPS 6
#endif
#define BITONIC_GSTEPS_MAX GSTEPS

#ifdef HAS_IDX
#define IDX_ARG , __local uint *I
#define IDX_PASS , I
/* register compare-exchange of r[x] (lower position) and r[y] */
#define CMPX(x, y)                                                         \
    do {                                                                   \
        if (r[x] > r[y] || (r[x] == r[y] && ir[x] > ir[y])) {              \
            KEY_T tk_ = r[x]; r[x] = r[y]; r[y] = tk_;                     \
            uint ti_ = ir[x]; ir[x] = ir[y]; ir[y] = ti_;                  \
        }                                                                  \
    } while (0)
#else
#define IDX_ARG
#define IDX_PASS
#define CMPX(x, y)                                                         \
    do {                                                                   \
        KEY_T lo_ = min(r[x], r[y]);                                       \
        r[y] = max(r[x], r[y]);                                            \
        r[x] = lo_;                                                        \
    } while (0)
#endif

/* Compare-exchange of local positions i < p: the smaller key goes to i. */
inline void bitonic_lcmpx(__local KEY_T *K IDX_ARG, uint i, uint p)
{
    KEY_T a = K[PAD(i)], b = K[PAD(p)];
#ifdef HAS_IDX
    uint ia = I[PAD(i)], ib = I[PAD(p)];
    if (a > b || (a == b && ia > ib)) {
        K[PAD(i)] = b; K[PAD(p)] = a;
        I[PAD(i)] = ib; I[PAD(p)] = ia;
    }
#else
    if (a > b) { K[PAD(i)] = b; K[PAD(p)] = a; }
#endif
}

/* Whether stage k applies at position i: always, except in bitonic_packed,
 * where PL holds log2 of the slot size of each position (its segment's
 * padded length; 0 outside segments) and a slot's sort ends at its size.
 * (PL is a null constant elsewhere, so the test folds away.) */
inline int bitonic_on(__local const uchar *PL, uint i, uint k) { return !PL || k <= (1u << PL[i]); }

/* The mirror step of stage k over the first `span` positions (k > ITEMS). */
inline void bitonic_local_flip(__local KEY_T *K IDX_ARG, __local const uchar *PL, uint k, uint span)
{
    const uint h = k >> 1;
    for (uint p = (uint)get_local_id(0); p < (span >> 1); p += WG) {
        uint i = ((p & ~(h - 1)) << 1) | (p & (h - 1));
        if (bitonic_on(PL, i, k)) bitonic_lcmpx(K IDX_PASS, i, i ^ (k - 1));
    }
}

/* A half-cleaner step of stride j of stage k over the first `span` positions. */
inline void bitonic_local_half(__local KEY_T *K IDX_ARG, __local const uchar *PL, uint k, uint j, uint span)
{
    for (uint p = (uint)get_local_id(0); p < (span >> 1); p += WG) {
        uint i = ((p & ~(j - 1)) << 1) | (p & (j - 1));
        if (bitonic_on(PL, i, k)) bitonic_lcmpx(K IDX_PASS, i, i + j);
    }
}

/* S steps of stage k through local memory with one barrier: strides jtop,
 * jtop/2 .. jtop/2^(S-1) (>= 1), or, with flip (jtop = k/2), the mirror
 * step and then the half-cleaners. Each work-item takes the 2^S positions
 * closed under those steps, pos0 + t * jtop/2^(S-1) (t < 2^S), the upper
 * half mirrored in the k-block with flip (as bitonic_global_steps), and
 * runs the steps in registers. Fewer, wider groups mean fewer barriers and
 * local round trips per stage (H100, 1024-key segments: see
 * bench/RESULTS.md). Positions are gated by their group's first one: all
 * lie in one k-block. One function per S (constant loop bounds keep the
 * arrays in registers). */
#ifdef HAS_IDX
#define BITONIC_GROUP_IDX_DECL(n) uint ir[n];
#define BITONIC_GROUP_IDX_LOAD(t) ir[t] = I[PAD(pos[t])];
#define BITONIC_GROUP_IDX_STORE(t) I[PAD(pos[t])] = ir[t];
#else
#define BITONIC_GROUP_IDX_DECL(n)
#define BITONIC_GROUP_IDX_LOAD(t)
#define BITONIC_GROUP_IDX_STORE(t)
#endif
#define DEFINE_BITONIC_LOCAL_GROUP(name, S)                                                                    \
    inline void name(__local KEY_T *K IDX_ARG, __local const uchar *PL, uint k, uint jtop, int flip, uint span)  \
    {                                                                                                          \
        const uint lo = 31 - (S - 1) - (uint)clz(jtop), low = (1u << lo) - 1, mirror = (1u << (lo + S)) - 1;   \
        const uint hv = 1u << (S - 1);                                                                         \
        for (uint q = (uint)get_local_id(0); q < (span >> S); q += WG) {                                       \
            const uint pos0 = ((q & ~low) << S) | (q & low);                                                   \
            uint pos[1u << S];                                                                                 \
            KEY_T r[1u << S];                                                                                  \
            BITONIC_GROUP_IDX_DECL(1u << S)                                                                    \
            if (!bitonic_on(PL, pos0, k)) continue;                                                            \
            for (uint t = 0; t < (1u << S); ++t) {                                                             \
                pos[t] = (flip && t >= hv) ? ((pos0 | ((t - hv) << lo)) ^ mirror) : (pos0 | (t << lo));    \
                r[t] = K[PAD(pos[t])];                                                                         \
                BITONIC_GROUP_IDX_LOAD(t)                                                                      \
            }                                                                                                  \
            for (uint t = 0; t < hv; ++t) CMPX(t, t + hv);                                                     \
            for (uint h = hv >> 1; h > 0; h >>= 1)                                                             \
                for (uint t = 0; t < (1u << S); ++t) {                                                         \
                    if (t & h) continue;                                                                       \
                    if (flip && t >= hv) CMPX(t | h, t);   /* mirrored: the higher t is the lower position */  \
                    else CMPX(t, t | h);                                                                       \
                }                                                                                              \
            for (uint t = 0; t < (1u << S); ++t) {                                                             \
                K[PAD(pos[t])] = r[t];                                                                         \
                BITONIC_GROUP_IDX_STORE(t)                                                                     \
            }                                                                                                  \
        }                                                                                                      \
    }
DEFINE_BITONIC_LOCAL_GROUP(bitonic_local_pair, 2)
DEFINE_BITONIC_LOCAL_GROUP(bitonic_local_triple, 3)
DEFINE_BITONIC_LOCAL_GROUP(bitonic_local_quad, 4)

/* The local-memory steps of stage k from stride jtop (the mirror step when
 * flip) down to ITEMS, up to LOCAL_GROUP (2..4) per barrier. 4 measured
 * fastest on the H100 (1024-key segments, 2^28 keys: 2.69 ms at 4, 2.75 at
 * 3, 3.19 at 2 steps per barrier; one 2^24 array 2.43 against 2.51 ms). */
#ifndef LOCAL_GROUP
#define LOCAL_GROUP 4
#endif
inline void bitonic_local_steps(__local KEY_T *K IDX_ARG, __local const uchar *PL, uint k, uint jtop, int flip,
                                uint span)
{
    for (uint j = jtop; j >= ITEMS && j > 0;) {
        if (LOCAL_GROUP >= 4 && (j >> 3) >= ITEMS && (j >> 3) > 0) {
            bitonic_local_quad(K IDX_PASS, PL, k, j, flip, span);
            j >>= 4;
        } else if (LOCAL_GROUP >= 3 && (j >> 2) >= ITEMS && (j >> 2) > 0) {
            bitonic_local_triple(K IDX_PASS, PL, k, j, flip, span);
            j >>= 3;
        } else if ((j >> 1) >= ITEMS && (j >> 1) > 0) {
            bitonic_local_pair(K IDX_PASS, PL, k, j, flip, span);
            j >>= 2;
        } else {
            if (flip) bitonic_local_flip(K IDX_PASS, PL, k, span);
            else bitonic_local_half(K IDX_PASS, PL, k, j, span);
            j >>= 1;
        }
        flip = 0;
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The steps of stride < ITEMS, in registers, on the chunks of ITEMS
 * consecutive positions below span. full: stages 2 .. min(P, ITEMS) (a sort
 * of every ITEMS-chunk, or of every P-block inside it); else the strides
 * ITEMS/2 .. 1 that end stage k > ITEMS. Loops have constant
 * bounds so that the arrays stay in registers. */
inline void bitonic_chunks(__local KEY_T *K IDX_ARG, __local const uchar *PL, uint span, uint P, int full, uint k)
{
    for (uint c = (uint)get_local_id(0); c < span / ITEMS; c += WG) {
        KEY_T r[ITEMS];
#ifdef HAS_IDX
        uint ir[ITEMS];
#endif
        for (uint t = 0; t < ITEMS; ++t) {
            r[t] = K[PAD(c * ITEMS + t)];
#ifdef HAS_IDX
            ir[t] = I[PAD(c * ITEMS + t)];
#endif
        }
        if (full) {
            for (uint kk = 2; kk <= ITEMS; kk <<= 1) {
                if (kk > P) continue; /* not break: a loop without early exit unrolls fully */
                for (uint t = 0; t < ITEMS; ++t)
                    if (!(t & (kk >> 1)) && bitonic_on(PL, c * ITEMS + t, kk)) CMPX(t, t ^ (kk - 1));
                for (uint j = kk >> 2; j > 0; j >>= 1)
                    for (uint t = 0; t < ITEMS; ++t)
                        if (!(t & j) && bitonic_on(PL, c * ITEMS + t, kk)) CMPX(t, t | j);
            }
        } else {
            for (uint j = ITEMS >> 1; j > 0; j >>= 1)
                for (uint t = 0; t < ITEMS; ++t)
                    if (!(t & j) && bitonic_on(PL, c * ITEMS + t, k)) CMPX(t, t | j);
        }
        for (uint t = 0; t < ITEMS; ++t) {
            K[PAD(c * ITEMS + t)] = r[t];
#ifdef HAS_IDX
            I[PAD(c * ITEMS + t)] = ir[t];
#endif
        }
    }
}

/* A whole sort of the first `span` positions in local memory: every
 * P-block (or, with PL, every segment's slot) independently. */
inline void bitonic_tile_sort(__local KEY_T *K IDX_ARG, __local const uchar *PL, uint span, uint P)
{
    bitonic_chunks(K IDX_PASS, PL, span, P, 1, 0);
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint k = 2 * ITEMS; k <= P; k <<= 1) {
        bitonic_local_steps(K IDX_PASS, PL, k, k >> 1, 1, span);
        bitonic_chunks(K IDX_PASS, PL, span, P, 0, k);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

/* The steps of stride TILE/2 .. 1 of stage kstage > TILE on a full tile. */
inline void bitonic_tile_merge(__local KEY_T *K IDX_ARG, uint kstage)
{
    __local const uchar *PL = 0;
    bitonic_local_steps(K IDX_PASS, PL, kstage, TILE >> 1, 0, TILE);
    bitonic_chunks(K IDX_PASS, PL, TILE, TILE, 0, kstage);
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* Where tile position q comes from: the global index (from keys_in's start)
 * and whether it is a real key (else +inf padding). The tile holds
 * TILE >> plog slots of 2^plog positions; slot s holds chunk
 * first_chunk + s, chunk c being keys [c * chunk_len, c * chunk_len +
 * chunk_len) of the segment, cut at total. */
inline int bitonic_source(uint q, uint plog, ulong seg_base, ulong first_chunk, uint chunk_len, ulong total,
                          ulong *gi)
{
    const ulong c = first_chunk + (q >> plog);
    const uint r = q & ((1u << plog) - 1u);
    const ulong cstart = c * chunk_len;
    *gi = seg_base + cstart + r;
    return r < chunk_len && cstart + r < total;
}

/* Launch shapes (host): equal short segments of length L: chunk_len = L,
 * plog = log2 P, gps = groups, seg_stride = 0, total = n. Blocks of long
 * segments: chunk_len = TILE, plog = log2 TILE, gps = groups per segment,
 * seg_stride = segment length = total. kind/flip: key image taken on load
 * (first pass) and undone on store (last pass); 0 in between. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void bitonic_local(__global const KEY_T *keys_in, __global KEY_T *keys_out, __global uint *idx, ulong base,
                   ulong seg_stride, uint gps, ulong total, uint chunk_len, uint plog, uint kstage, uint kind_in,
                   ulong flip_in, uint kind_out, ulong flip_out)
{
    __local KEY_T K[TILE_PADDED];
#ifdef HAS_IDX
    __local uint I[TILE_PADDED];
#endif
    const uint lid = (uint)get_local_id(0);
    const uint g = (uint)get_group_id(0);
    /* g - seg * gps rather than g % gps: LLVM turns a div/rem pair into a
     * freeze instruction that oclgrind cannot run */
    const uint seg = g / gps;
    const ulong seg_base = base + (ulong)seg * seg_stride;
    const ulong first_chunk = (ulong)(g - seg * gps) << (TILE_LOG - plog);
    const uint span = TILE, P = 1u << plog;
    __local const uchar *PL = 0; /* every stage applies everywhere */

    for (uint q = lid; q < span; q += WG) {
        ulong gi;
        int real = bitonic_source(q, plog, seg_base, first_chunk, chunk_len, total, &gi);
        K[PAD(q)] = real ? to_image(keys_in[gi], kind_in, (KEY_T)flip_in) : ~(KEY_T)0;
#ifdef HAS_IDX
        I[PAD(q)] = real ? (kstage ? idx[gi] : (uint)gi) : BITONIC_PAD_IDX;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    if (kstage == 0) bitonic_tile_sort(K IDX_PASS, PL, span, P);
    else bitonic_tile_merge(K IDX_PASS, kstage);

    for (uint q = lid; q < span; q += WG) {
        ulong gi;
        if (bitonic_source(q, plog, seg_base, first_chunk, chunk_len, total, &gi)) {
            keys_out[gi] = from_image(K[PAD(q)], kind_out, (KEY_T)flip_out);
#ifdef HAS_IDX
            idx[gi] = I[PAD(q)];
#endif
        }
    }
}

#ifdef PACKED
/* Segments per work-group in bitonic_packed (the host caps its groups). */
#define PACK_SEGS (TILE >= 4 ? TILE / 4 : 1)

/* Variable segments that fit in a tile, several per work-group. groups[4g ..
 * 4g+3] = (first segment, segment count, log2 of the largest slot, positions
 * used rounded up to ITEMS): work-group g sorts those consecutive segments, whose keys form one contiguous range;
 * segment s sits in the slot of 2^ceil(log2 len) positions at slot[s], aligned
 * to its size (planned on the host). Loads and stores walk the range
 * coalesced, each key finding its segment by binary search of the offsets. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void bitonic_packed(__global const KEY_T *keys_in, __global KEY_T *keys_out, __global uint *idx,
                    __global const uint *offsets, __global const uint *groups, __global const uint *slot,
                    uint kind, ulong flip)
{
    __local KEY_T K[TILE_PADDED];
#ifdef HAS_IDX
    __local uint I[TILE_PADDED];
#endif
    __local uchar PL[TILE];
    __local uint OFF[PACK_SEGS + 1], SL[PACK_SEGS];
    const uint lid = (uint)get_local_id(0), g = (uint)get_group_id(0);
    const uint s0 = groups[4 * g], ns = groups[4 * g + 1], P = 1u << groups[4 * g + 2], span = groups[4 * g + 3];
    for (uint q = lid; q < TILE; q += WG) {
        K[PAD(q)] = ~(KEY_T)0;
#ifdef HAS_IDX
        I[PAD(q)] = BITONIC_PAD_IDX;
#endif
        PL[q] = 0;
    }
    for (uint i = lid; i <= ns; i += WG) OFF[i] = offsets[s0 + i];
    for (uint i = lid; i < ns; i += WG) SL[i] = slot[s0 + i];
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint begin = OFF[0], count = OFF[ns] - begin;
    for (uint e = lid; e < count; e += WG) {
        const uint gi = begin + e;
        uint lo = 0, hi = ns - 1; /* the last segment starting at or before gi holds it */
        while (lo < hi) {
            uint mid = (lo + hi + 1) >> 1;
            if (OFF[mid] <= gi) lo = mid;
            else hi = mid - 1;
        }
        const uint len = OFF[lo + 1] - OFF[lo], q = SL[lo] + (gi - OFF[lo]);
        K[PAD(q)] = to_image(keys_in[gi], kind, (KEY_T)flip);
#ifdef HAS_IDX
        I[PAD(q)] = gi;
#endif
        PL[q] = (uchar)(len <= 1 ? 0 : 32 - clz(len - 1));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    bitonic_tile_sort(K IDX_PASS, PL, span, P);
    for (uint e = lid; e < count; e += WG) {
        const uint gi = begin + e;
        uint lo = 0, hi = ns - 1;
        while (lo < hi) {
            uint mid = (lo + hi + 1) >> 1;
            if (OFF[mid] <= gi) lo = mid;
            else hi = mid - 1;
        }
        const uint q = SL[lo] + (gi - OFF[lo]);
        keys_out[gi] = from_image(K[PAD(q)], kind, (KEY_T)flip);
#ifdef HAS_IDX
        idx[gi] = I[PAD(q)];
#endif
    }
}
#endif /* PACKED */

/* S steps of one stage of a long segment, strides 2^(lo+S-1) .. 2^lo (all
 * >= TILE), on keys (images) in place. Work-item w holds the 2^S positions
 * pos0 | t << lo, pos0 = w with S zero bits inserted at bit lo; with flip the
 * upper half (top bit of t set) is mirrored in the stage's block instead:
 * (pos0 | (t & half-1) << lo) ^ (2^(lo+S) - 1), and the first step compares
 * each position with its mirror. count: work-items with pos0 < total (the
 * others would hold only padding). Segment g / gps starts at base + (g /
 * gps) * seg_stride. */
inline void bitonic_global_steps(__global KEY_T *keys, __global uint *idx, ulong base, ulong seg_stride, uint gps,
                                 ulong total, ulong count, uint lo, uint flip, const uint S)
{
    const uint g = (uint)get_group_id(0), seg = g / gps;
    const ulong w = (ulong)(g - seg * gps) * WG + get_local_id(0);
    if (w >= count) return;
    const ulong seg_base = base + (ulong)seg * seg_stride;
    const ulong low = ((ulong)1 << lo) - 1;
    const ulong pos0 = ((w & ~low) << S) | (w & low);
    const uint E = 1u << S, upper = E >> 1;
    const ulong mirror = ((ulong)1 << (lo + S)) - 1;
    KEY_T r[1 << BITONIC_GSTEPS_MAX];
#ifdef HAS_IDX
    uint ir[1 << BITONIC_GSTEPS_MAX];
#endif
    /* positions are recomputed for the stores rather than kept: registers */
#define BITONIC_POS(t) \
    ((flip && (t) >= upper) ? ((pos0 | ((ulong)((t) - upper) << lo)) ^ mirror) : (pos0 | ((ulong)(t) << lo)))
    for (uint t = 0; t < E; ++t) {
        const ulong pos = BITONIC_POS(t);
        const int real = pos < total;
        r[t] = real ? keys[seg_base + pos] : ~(KEY_T)0;
#ifdef HAS_IDX
        ir[t] = real ? idx[seg_base + pos] : BITONIC_PAD_IDX;
#endif
    }
    for (uint b = S; b-- > 0;) {
        const uint bit = 1u << b;
        for (uint t = 0; t < E; ++t) {
            if (t & bit) continue;
            /* in the mirrored half, a higher t is a lower position */
            if (flip && b + 1 < S && t >= upper) CMPX(t | bit, t);
            else CMPX(t, t | bit);
        }
    }
    for (uint t = 0; t < E; ++t) {
        const ulong pos = BITONIC_POS(t);
        if (pos < total) {
            keys[seg_base + pos] = r[t];
#ifdef HAS_IDX
            idx[seg_base + pos] = ir[t];
#endif
        }
    }
#undef BITONIC_POS
}

#define DEFINE_BITONIC_GLOBAL(name, S)                                                                       \
    __kernel __attribute__((reqd_work_group_size(WG, 1, 1)))                                                 \
    void name(__global KEY_T *keys, __global uint *idx, ulong base, ulong seg_stride, uint gps, ulong total, \
              ulong count, uint lo, uint flip)                                                               \
    {                                                                                                        \
        bitonic_global_steps(keys, idx, base, seg_stride, gps, total, count, lo, flip, S);                   \
    }
DEFINE_BITONIC_GLOBAL(bitonic_global1, 1)
#if GSTEPS >= 2
DEFINE_BITONIC_GLOBAL(bitonic_global2, 2)
#endif
#if GSTEPS >= 3
DEFINE_BITONIC_GLOBAL(bitonic_global3, 3)
#endif
#if GSTEPS >= 4
DEFINE_BITONIC_GLOBAL(bitonic_global4, 4)
#endif
#if GSTEPS >= 5
DEFINE_BITONIC_GLOBAL(bitonic_global5, 5)
#endif
#if GSTEPS >= 6
DEFINE_BITONIC_GLOBAL(bitonic_global6, 6)
#endif
