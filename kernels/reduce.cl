/* clsort reduction family (needs common.cl first): reduce, segmented scan
 * (head flags, keys, offsets), segmented reduce, reduce-by-key, run-length
 * encode, unique, histogram.
 *
 * Build-time macros (besides common.cl's WG, ITEMS, T):
 *   TK      the clsort_type of T: 0 u32, 1 i32, 2 f32, 3 u64, 4 i64, 5 f64
 *   OP      0 sum (integers wrap), 1 min, 2 max (floats: NaNs ignored, i.e.
 *           read as the identity, so a segment of NaNs gives +-inf)
 *   SEG     how segments are given (the host's CLSORT__SEG_* mirror these):
 *           SEG_NONE (one segment), SEG_FLAGS head flags (SEG_T uchar or
 *           uint, nonzero = a segment starts here), SEG_KEYS keys (SEG_T uint
 *           or ulong: a segment starts where the key's bits change),
 *           SEG_COUNTS counts (SEG_T uint: cnt[i] segment boundaries at i, as
 *           built from offsets by mark_counts; also the tile carries)
 *   VAL_ONE every value is 1 (run lengths: T uint, OP sum); no values read
 *           (RD_HEADS only)
 *   MV_T    uint or ulong: the type of values moved unreduced (unique;
 *           RD_HEADS only)
 *   RD_UT   a caller's operator (clsort_user_op), from the source the host
 *           puts before common.cl: RD_UT the element type (T from here on;
 *           common.cl keeps uint), RD_UOP(a, b) the operator, RD_UIDENT
 *           its identity (TK and OP unused)
 *   RD_UCOMMUTES  the caller's operator commutes (user_op.commutative):
 *           reduce_partials and reduce_final fold strided elements, as for
 *           the built-in operators (else RD_ORDERED: in input order)
 *   RD_XF   a caller's transform: RD_XF(x, i) of each input value x (type
 *           RD_IN_T, at index i) as it is read, before rd_clean (not in
 *           the carries' program, whose values are T already)
 *
 * The operator on (count, value) pairs. Every element is a pair (inc, v):
 * inc = how many segment boundaries sit just before it (0 or 1, any number
 * with offsets: empty segments), v its value. Pairs combine as
 *     (c1, v1) + (c2, v2) = (c1 + c2, c2 ? v2 : v1 op v2)
 * which is associative, so an inclusive scan of the pairs gives at element i
 * C(i) = the index of i's segment and V(i) = the segmented inclusive scan.
 * A tile's carry is the sum of its pairs; carries scan with the same
 * operator (SEG_COUNTS: counts = the carries' c). Reduce-by-key and its kin write
 * V at each segment's last element to out[C], the key at its first to
 * keys_out[C].
 *
 * Combination order is fixed by the shape (WG, ITEMS) and n: a work-item
 * folds its ITEMS elements left to right, work-items combine by raking
 * (see rd_wg_scan) or (RD_V3) in a Kogge-Stone tree inside each 32-wide warp and a left fold over the
 * warps (the same tree whether the shuffles are PTX or emulated), tiles by the
 * reduce-then-scan tree (portable) or by a left fold (look-back, see
 * rd_lookback), so float results repeat bit for bit from run to run.
 *
 *   (none)   variant 1: the elements staged through local memory, the
 *            raking work-group scan
 *   RD_V3    variant 3 (see "variant 3" below): elements in registers from
 *            load to output, the pair scan by warp shuffles; NV_PTX with it
 *            makes the shuffles and warp barriers inline PTX (NVIDIA sm_70+)
 *   RD_HEADS unique and run-length encode: the heads_* kernels only (see
 *            "heads" below) */

/* RD_KSET: the kernels a program holds, a mask of the RD_K_* bits below
 * (the host's CLSORT__RD_K_* in the same order) that the host passes, so
 * that a program holds only the kernels its calls launch: NVIDIA's driver
 * compiles every kernel of a program when it builds it. Absent: every
 * kernel. */
#define RD_K_HEADS_REDUCE_TILES       0x1
#define RD_K_HEADS_SCATTER_TILES      0x2
#define RD_K_SEG_REDUCE_TILES         0x4
#define RD_K_SEG_SCAN_TILES           0x8
#define RD_K_SEG_SCATTER_TILES        0x10
#define RD_K_SEG_SCAN_LOOKBACK        0x20
#define RD_K_SEG_SCATTER_LOOKBACK     0x40
#define RD_K_HEADS_SCATTER_LOOKBACK   0x80
#define RD_K_ZERO_COUNTS              0x100
#define RD_K_MARK_COUNTS              0x200
#define RD_K_REDUCE_PARTIALS          0x400
#define RD_K_REDUCE_FINAL             0x800
#define RD_K_HISTOGRAM_EVEN           0x1000
#define RD_K_OFFSETS_PARTITION        0x2000
#define RD_K_OFFSETS_REDUCE_TILES     0x4000
#define RD_K_OFFSETS_FIXUP            0x8000
#ifndef RD_KSET
#define RD_KSET 0xffff
#endif
#define RD_HAS(k) ((RD_KSET) & (k))

#ifndef TK
#define TK 0
#endif
#ifndef OP
#define OP 0
#endif
#define SEG_NONE 0
#define SEG_FLAGS 1
#define SEG_KEYS 2
#define SEG_COUNTS 3
#ifndef SEG
#define SEG SEG_NONE
#endif
/* The scans' modes (the kernel argument mode; the host's CLSORT__RD_SCAN_*
 * mirror these): see rd_scan_out. */
#define RD_SCAN_SEGMENTED 0u
#define RD_SCAN_INCLUSIVE 1u
#define RD_SCAN_CARRIES 2u
#ifndef SEG_T
#define SEG_T uint
#endif
/* The segment source as staged in local memory: head flags as one byte
 * (only nonzero matters), so u32 flags take the u8 flags' local memory and
 * tile (H100: bench/RESULTS.md, reduction family); keys and counts as
 * they are. */
#if (defined(VAL_ONE) || defined(MV_T)) && !defined(RD_HEADS)
#error "VAL_ONE and MV_T: run-length encode and unique, on the heads kernels (RD_HEADS)"
#endif
#if SEG == SEG_FLAGS
#define LS_T uchar
#else
#define LS_T SEG_T
#endif
#ifndef MV_T
#define MV_T uint
#endif
#ifdef RD_UT
#undef T
#define T RD_UT
#endif
#ifndef RD_IN_T
#define RD_IN_T T
#endif

#if TK >= 3
#define TB ulong
#else
#define TB uint
#endif
#if TK == 2
#define RD_BITS(x) as_uint(x)
#define RD_FROM_BITS(b) as_float(b)
#elif TK == 5
#define RD_BITS(x) as_ulong(x)
#define RD_FROM_BITS(b) as_double(b)
#else
#define RD_BITS(x) ((TB)(x))
#define RD_FROM_BITS(b) ((T)(b))
#endif
#ifdef RD_UT /* a caller's type (up to 16 bytes): its bits as 32-bit words */
#define RD_WORDS ((sizeof(T) + 3) / 4)
typedef union {
    T t;
    uint w[RD_WORDS];
} rd_words;
inline rd_words rd_to_words(T x)
{
    rd_words u;
    u.t = x;
    return u;
}
#undef TB
#define TB rd_words
#undef RD_BITS
#define RD_BITS(x) rd_to_words(x)
#undef RD_FROM_BITS
#define RD_FROM_BITS(b) ((b).t)
#endif

/* the operator's identity */
#if OP == 0
#define IDENT ((T)0)
#elif OP == 1
#if TK == 0
#define IDENT ((T)UINT_MAX)
#elif TK == 1
#define IDENT ((T)INT_MAX)
#elif TK == 3
#define IDENT ((T)ULONG_MAX)
#elif TK == 4
#define IDENT ((T)LONG_MAX)
#else
#define IDENT ((T)INFINITY)
#endif
#else
#if TK == 0 || TK == 3
#define IDENT ((T)0)
#elif TK == 1
#define IDENT ((T)INT_MIN)
#elif TK == 4
#define IDENT ((T)LONG_MIN)
#else
#define IDENT ((T)(-INFINITY))
#endif
#endif
#ifdef RD_UOP
#undef IDENT
#define IDENT (RD_UIDENT)
#endif

#if defined(RD_UOP) && !defined(RD_UCOMMUTES) /* a caller's operator, combined in input order */
#define RD_ORDERED 1
#endif
#ifdef RD_UOP /* a caller's operator: values are read as they are */
inline T rd_op(T a, T b) { return RD_UOP(a, b); }
inline T rd_clean(T v) { return v; }
#else
/* a then b (a earlier in the sequence) */
inline T rd_op(T a, T b)
{
#if OP == 0
#if TK == 1
    return as_int(as_uint(a) + as_uint(b)); /* wraps, no signed overflow */
#elif TK == 4
    return as_long(as_ulong(a) + as_ulong(b));
#else
    return a + b;
#endif
#elif OP == 1
    return b < a ? b : a;
#else
    return b > a ? b : a;
#endif
}

/* a value as read: NaNs become the identity of min and max */
inline T rd_clean(T v)
{
#if OP != 0 && (TK == 2 || TK == 5)
    return isnan(v) ? IDENT : v;
#else
    return v;
#endif
}
#endif

/* Element k of p, global index gi, as a value: transformed (RD_XF), cleaned. */
#ifdef RD_XF
#define RD_LOAD(p, k, gi) rd_clean(RD_XF((p)[k], gi))
#else
#define RD_LOAD(p, k, gi) rd_clean((p)[k])
#endif

/* Device counts (common.cl COUNT_ARGS): every kernel over the elements
 * takes n from the device (DEVICE_N); the carries' scan, whose words are
 * all valid, takes none. A tile past LAST_TILE(n) is idle:
 * it reads and writes no element. On GPUs (IDLE_EXIT) its work-group
 * returns at once, after writing the carry (0, identity) that the carries'
 * scan reads (RD_IDLE_CARRY) and, on the look-back path, after taking its
 * ticket (no tile with elements waits on a later one); elsewhere it runs on
 * as an empty tile, whose carry and look-back status are that same pair.
 * With n = 0 no element writes the run count, so tile 0 writes 0
 * (RD_ZERO_COUNT): a count left on the device is always written. */
#ifdef IDLE_EXIT
#define RD_IDLE_CARRY(n, carry_c, carry_v)           \
    if (get_group_id(0) > LAST_TILE(n)) {            \
        if (get_local_id(0) == 0) {                  \
            (carry_c)[get_group_id(0)] = 0u;         \
            (carry_v)[get_group_id(0)] = IDENT;      \
        }                                            \
        return;                                      \
    }
#else
#define RD_IDLE_CARRY(n, carry_c, carry_v) (void)0
#endif
#define RD_ZERO_COUNT(count, n, g) \
    if ((count) && (n) == 0 && (g) == 0 && get_local_id(0) == 0) (count)[0] = 0u

/* Segment source of tile index k (-1 .. TILE) lives at ls[PAD(k + 1)]. */
#define LS_SIZE (PAD(TILE + 1) + 1)

/* inc of the element at tile index k, global index gi (< n) */
inline uint rd_inc(__local const LS_T *ls, int k, ulong gi)
{
#if SEG == SEG_NONE
    (void)ls; (void)k; (void)gi;
    return 0;
#elif SEG == SEG_FLAGS
    return gi > 0 && ls[PAD(k + 1)] != 0;
#elif SEG == SEG_KEYS
    return gi > 0 && ls[PAD(k + 1)] != ls[PAD(k)];
#else
    (void)gi;
    return (uint)ls[PAD(k + 1)];
#endif
}

/* Loads tile `base` coalesced into local memory: values (NaNs cleaned for
 * min/max), the segment source, for keys the key before the tile and, when
 * need_next, the segment source of the element after it. */
inline void rd_stage(__global const RD_IN_T *vals, __global const SEG_T *seg, ulong base, ulong n, int need_next,
                     __local T *lv, __local LS_T *ls)
{
    const uint lid = (uint)get_local_id(0);
    for (uint j = 0; j < ITEMS; ++j) {
        uint k = j * WG + lid;
        ulong gi = base + k;
#ifndef VAL_ONE
        lv[PAD(k)] = gi < n ? RD_LOAD(vals, gi, gi) : IDENT;
#endif
#if SEG != SEG_NONE
#if SEG == SEG_FLAGS
        ls[PAD(k + 1)] = (LS_T)(gi < n && seg[gi] != 0);
#else
        ls[PAD(k + 1)] = gi < n ? seg[gi] : (SEG_T)0;
#endif
#endif
    }
#if SEG != SEG_NONE
    if (lid == 0) {
#if SEG == SEG_KEYS
        ls[PAD(0)] = base > 0 && base <= n ? seg[base - 1] : (SEG_T)0; /* (an idle tile reads nothing) */
#endif
#if SEG == SEG_FLAGS
        ls[PAD(TILE + 1)] = (LS_T)(need_next && base + TILE < n && seg[base + TILE] != 0);
#else
        ls[PAD(TILE + 1)] = (need_next && base + TILE < n) ? seg[base + TILE] : (SEG_T)0;
#endif
    }
#else
    (void)seg; (void)need_next; (void)ls;
#endif
#ifdef VAL_ONE
    (void)vals; (void)lv;
#endif
    /* global too in the scans: in place (the carries' scan), work-items
     * later write elements other work-items read here (need_next, the same
     * for the whole work-group, marks the scatter kernels, which are never
     * in place) */
    if (need_next) barrier(CLK_LOCAL_MEM_FENCE);
    else barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
}

/* A work-item's segment starts as bits of one word when its ITEMS fit, so
 * that the output loops do not read the segment source from local memory
 * again (H100: bench/RESULTS.md, reduction family). Not for SEG_COUNTS, whose
 * "starts" are the carries' counts. */
#if ITEMS <= 32 && SEG != SEG_COUNTS
#define RD_MASK 1
#define RD_HEAD(hm, ls, k, k0, gi) (((hm) >> ((k) - (k0))) & 1u)
#else
#define RD_HEAD(hm, ls, k, k0, gi) rd_inc(ls, (int)(k), gi)
#endif

/* This work-item's ITEMS consecutive elements folded left to right; *hm
 * gets their segment starts (bit k - lid * ITEMS) where RD_MASK. */
inline void rd_fold(__local const T *lv, __local const LS_T *ls, ulong base, ulong n, uint *c, T *v, uint *hm)
{
    const uint lid = (uint)get_local_id(0);
    uint cc = 0, m = 0;
    T vv = IDENT;
    for (uint k = lid * ITEMS; k < lid * ITEMS + ITEMS; ++k) {
        ulong gi = base + k;
        if (gi >= n) break;
        uint i = rd_inc(ls, (int)k, gi);
        T x = lv[PAD(k)];
        vv = i ? x : rd_op(vv, x);
        cc += i;
#ifdef RD_MASK
        m |= i << (k - lid * ITEMS);
#endif
    }
    *c = cc;
    *v = vv;
    *hm = m;
}

#if defined(RD_V3)
/* ---- variant 3 --------------------------------------------------------------
 * What variant 1 pays per tile, besides the bytes: every element goes
 * through local memory three times (staged, read by the fold, read again by
 * the output loop; keys twice by the fold: k and k - 1), every element of
 * the output loop is visited although a run of 1000 elements has one start
 * and one end, and the pair scan of the work-items takes 4 work-group
 * barriers with one work-item folding the 32 lanes' sums alone (raking).
 * On the H100 reduce-by-key ran at 58% of its
 * 8 B/element floor while the plain scan, which stages once, reaches 85%.
 * Variant 3:
 *  - loads stay per warp (RW = 32 work-items, or WG when smaller): a warp
 *    reads its RW * ITEMS consecutive elements coalesced, lane-minor, and
 *    hands them to their owners (work-item i owns ITEMS consecutive ones)
 *    through its own part of one local array, so a warp barrier is enough
 *    (PTX bar.warp.sync; a work-group barrier when emulated). The segment
 *    source goes first and leaves only bits (hm: which of my elements
 *    starts a segment; nh: whether the element after my last does), the
 *    values then through the same array (one array: half the local memory
 *    of variant 1) into registers, where the fold and the output loop
 *    take them: each element read from local memory once;
 *  - the pair scan is a Kogge-Stone scan inside each warp by shuffles
 *    (log2 RW steps, 2-3 shuffles each; rd_up_pair), then one work-group
 *    barrier, after which each work-item folds the warps' totals left to
 *    right: 1 barrier with PTX shuffles;
 *  - the reduce-by-key / run output loop runs only in work-items that hold
 *    a segment start or end (hm, nh) or element 0 or n - 1; keys_out reads
 *    the head's key from global memory (once per run);
 *  - a full tile (all but the last) loads and stores without index checks.
 * The order of every combination is fixed by WG and ITEMS (the warp tree,
 * then the left fold over warps), whether the shuffles are PTX or emulated:
 * the same bits every run. The emulation (local memory and work-group
 * barriers) assumes no sub-group width: RW is the algorithm's warp, a
 * hardware warp only with -DNV_PTX on NVIDIA, where 32 consecutive local ids
 * are one warp. Needs ITEMS <= 32, a power of two (the host's shapes). */
#if ITEMS > 32 && !defined(RD_HEADS)
#error "RD_V3: at most 32 items per work-item (their segment starts are one word)"
#endif
#define RW (WG < 32 ? WG : 32)
#define RD_NW (WG / RW)
#if defined(NV_PTX) && WG >= 32
#define RD_PTX 1
#endif
#ifdef RD_UT /* a caller's type: the emulated shuffles (the same tree, the same bits) */
#undef RD_PTX
#endif

#ifdef RD_PTX
/* the warp's barrier: local and global accesses before it are seen after it
 * by the warp's lanes (PTX ISA: bar.warp.sync orders memory among them) */
inline void rd_wsync(void) { asm volatile("bar.warp.sync 0xffffffff;" ::: "memory"); }
inline void rd_wsync_g(void) { asm volatile("bar.warp.sync 0xffffffff;" ::: "memory"); }
#else
inline void rd_wsync(void) { barrier(CLK_LOCAL_MEM_FENCE); }
/* global too: a carries' scan runs in place, and each work-item writes its
 * counts where other work-items of its warp read them */
inline void rd_wsync_g(void) { barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE); }
#endif

/* (*c, *v) of the lane d below in this warp; lanes < d keep their own. The
 * emulation passes them through xc, xv (WG words each). Every work-item
 * calls it (shfl.sync with the full mask; barriers when emulated). */
inline void rd_up_pair(uint *c, T *v, uint d, __local uint *xc, __local T *xv)
{
#ifdef RD_PTX
    (void)xc;
    (void)xv;
    *c = wg_shfl_up(*c, d);
#if TK >= 3
    {
        TB b = RD_BITS(*v);
        *v = RD_FROM_BITS((TB)wg_shfl_up((uint)b, d) | (TB)wg_shfl_up((uint)(b >> 32), d) << 32);
    }
#else
    *v = RD_FROM_BITS((TB)wg_shfl_up((uint)RD_BITS(*v), d));
#endif
#else
    const uint lid = (uint)get_local_id(0);
    uint yc = *c;
    T yv = *v;
    xc[lid] = yc;
    xv[lid] = yv;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid % RW >= d) {
        yc = xc[lid - d];
        yv = xv[lid - d];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    *c = yc;
    *v = yv;
#endif
}

/* Exclusive scan of one pair per work-item: inclusive Kogge-Stone inside
 * the warp, shifted by one lane; the warps' totals at sc[WG + w], sv[WG +
 * w] (one barrier), and each work-item folds those before its warp left to
 * right (every work-item the same order), and all of them for the tile's
 * total (*tc, *tv). sc, sv[0 .. WG): the emulation's exchange. No barrier at
 * the end: nothing after it writes sc or sv at WG or beyond. */
#define RD_SCAN_SIZE (WG + RD_NW)

inline void rd_wg_scan(uint *c, T *v, __local uint *sc, __local T *sv, uint *tc, T *tv)
{
    const uint lid = (uint)get_local_id(0), lane = lid % RW, w = lid / RW;
    uint ic = *c, ec, ac = 0, pc = 0;
    T iv = *v, ev, av = IDENT, pv = IDENT;
    for (uint d = 1; d < RW; d <<= 1) {
        uint yc = ic;
        T yv = iv;
        rd_up_pair(&yc, &yv, d, sc, sv);
        if (lane >= d) { /* (yc, yv) + (ic, iv): y is earlier */
            iv = ic ? iv : rd_op(yv, iv);
            ic += yc;
        }
    }
    ec = ic;
    ev = iv;
    rd_up_pair(&ec, &ev, 1, sc, sv);
    if (lane == 0) {
        ec = 0;
        ev = IDENT;
    }
    if (lane == RW - 1) {
        sc[WG + w] = ic;
        sv[WG + w] = iv;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint u = 0; u < RD_NW; ++u) {
        uint xc = sc[WG + u];
        T xv = sv[WG + u];
        if (u == w) {
            pc = ac;
            pv = av;
        }
        av = xc ? xv : rd_op(av, xv);
        ac += xc;
    }
    *c = pc + ec;
    *v = ec ? ev : rd_op(pv, ev);
    *tc = ac;
    *tv = av;
}

#ifndef RD_HEADS /* the heads kernels take variant 1's tile with this scan */
/* One local array carries the segment source, then the values, then (scan
 * mode) the results: tile index k at PAD(k), each warp in its own part. */
typedef union {
    T t;
    LS_T s;
} rd3_cell;

/* the segment source as staged: flags as 0/1 bytes, keys and counts as they are */
#if SEG == SEG_FLAGS
#define RD3_SRC(x) ((LS_T)((x) != 0))
#else
#define RD3_SRC(x) ((LS_T)(x))
#endif

/* Item i's inc: SEG_COUNTS the count (ci[i]), else bit i of hm. */
#if SEG == SEG_COUNTS
#define RD3_INC(i) (ci[i])
#else
#define RD3_INC(i) ((hm >> (i)) & 1u)
#endif

/* The steps of rd3_tile_scan, in the order it calls them. The private arrays
 * (xr, sr as loaded; x, ci as owned) pass between them by pointer to inline
 * functions: once inlined and unrolled, every index is a constant, so the
 * arrays can live in registers, as if written in one function. */

/* All loads first (2 * ITEMS in flight), lane-minor: the warp's RW * ITEMS
 * elements from wg0, the values (NaNs cleaned for min/max) to xr, the
 * segment source as staged to sr; a full tile without index checks. Past n:
 * values IDENT, sources 0. SEG_KEYS: lane 0 also the key before the warp's
 * first (*prev); with need_next, the last lane the source of the element
 * after the warp's last (*after). */
inline void rd3_load(__global const RD_IN_T *vals, __global const SEG_T *seg, ulong wg0, ulong n, int full, int need_next,
                     T *xr, LS_T *sr, LS_T *prev, LS_T *after)
{
    const uint lane = (uint)get_local_id(0) % RW;
    if (full) {
        __global const RD_IN_T *vp = vals + wg0 + lane;
#pragma unroll
        for (uint j = 0; j < ITEMS; ++j) xr[j] = RD_LOAD(vp, j * RW, wg0 + lane + j * RW);
#if SEG != SEG_NONE
        __global const SEG_T *sp = seg + wg0 + lane;
#pragma unroll
        for (uint j = 0; j < ITEMS; ++j) sr[j] = RD3_SRC(sp[j * RW]);
#endif
    } else {
#pragma unroll
        for (uint j = 0; j < ITEMS; ++j) {
            ulong gi = wg0 + j * RW + lane;
            xr[j] = gi < n ? RD_LOAD(vals, gi, gi) : IDENT;
#if SEG != SEG_NONE
            sr[j] = gi < n ? RD3_SRC(seg[gi]) : (LS_T)0;
#endif
        }
    }
#if SEG == SEG_KEYS
    if (lane == 0 && wg0 > 0 && wg0 < n) *prev = seg[wg0 - 1]; /* the key before the warp's first */
#else
    (void)prev;
#endif
#if SEG != SEG_NONE
    if (need_next && lane == RW - 1 && wg0 + RW * ITEMS < n) *after = RD3_SRC(seg[wg0 + RW * ITEMS]);
#else
    (void)seg;
    (void)need_next;
    (void)sr;
    (void)after;
#endif
}

/* The segment source handed from the loading lanes to the owners through
 * buf (each warp its own part: warp barriers) and kept as bits: *hm_out,
 * which of my elements start a segment (bit i; not element 0, none at or
 * past `left`, my elements before n); *nh, with need_next, whether the
 * element after my last starts one; SEG_COUNTS also the counts in ci[] and their
 * sum *cc. prev (SEG_KEYS): lane 0's key before the warp; after: the last
 * lane's source after the warp. Ends with a warp barrier (SEG_NONE has none). */
inline void rd3_heads(__local rd3_cell *buf, const LS_T *sr, LS_T prev, LS_T after, ulong base, int need_next,
                      uint left, uint *ci, uint *cc, uint *hm_out, uint *nh)
{
#if SEG != SEG_NONE
    const uint lid = (uint)get_local_id(0), lane = lid % RW, wb = lid / RW * (RW * ITEMS);
    const uint k0 = lid * ITEMS, kb = PAD(k0); /* PAD(k0 + i) = kb + i: ITEMS divides 32 */
    uint hm = 0, c = 0;
#pragma unroll
    for (uint j = 0; j < ITEMS; ++j) buf[PAD(wb + j * RW + lane)].s = sr[j];
    rd_wsync_g();
#if SEG == SEG_KEYS
    if (lane) prev = buf[PAD(k0 - 1)].s;
#else
    (void)prev;
#endif
#pragma unroll
    for (uint i = 0; i < ITEMS; ++i) {
        LS_T s = buf[kb + i].s;
#if SEG == SEG_FLAGS
        hm |= (uint)(s != 0) << i;
#elif SEG == SEG_KEYS
        hm |= (uint)(s != prev) << i;
        prev = s;
#else
        ci[i] = s;
        c += s;
        hm |= (uint)(s != 0) << i;
#endif
    }
#if SEG != SEG_COUNTS
    (void)ci;
#endif
    *nh = 0;
    if (need_next) {
        LS_T s = lane < RW - 1 ? buf[PAD(k0 + ITEMS)].s : after;
#if SEG == SEG_KEYS
        *nh = s != prev; /* prev: my last key */
#else
        *nh = s != 0;
#endif
    }
#if SEG != SEG_COUNTS
    if (base + k0 == 0) hm &= ~1u; /* element 0 starts the first segment: no boundary */
#endif
    if (left < ITEMS) hm &= (1u << left) - 1u; /* no segment starts past n */
    rd_wsync(); /* the warp has read the source: the values take its place */
    *hm_out = hm;
    *cc = c;
#else
    (void)buf;
    (void)sr;
    (void)prev;
    (void)after;
    (void)base;
    (void)need_next;
    (void)left;
    (void)ci;
    *nh = 0;
    *hm_out = 0;
    *cc = 0;
#endif
}

/* The values handed over the same way, through the same cells: x[i] = the
 * value at tile index k0 + i, each read from local memory once. */
inline void rd3_values_to_owners(__local rd3_cell *buf, const T *xr, T *x)
{
    const uint lid = (uint)get_local_id(0), lane = lid % RW, wb = lid / RW * (RW * ITEMS);
    const uint kb = PAD(lid * ITEMS);
#pragma unroll
    for (uint j = 0; j < ITEMS; ++j) buf[PAD(wb + j * RW + lane)].t = xr[j];
    rd_wsync();
#pragma unroll
    for (uint i = 0; i < ITEMS; ++i) x[i] = buf[kb + i].t;
}

/* My first `left` elements (those before n) folded left to right into
 * (*xc, *xv): *xc their segment starts (SEG_COUNTS: cc, the sum of their counts). */
inline void rd3_fold(const T *x, const uint *ci, uint hm, uint cc, uint left, uint *xc, T *xv)
{
    T vv = IDENT;
#pragma unroll
    for (uint i = 0; i < ITEMS; ++i)
        if (i < left) vv = RD3_INC(i) ? x[i] : rd_op(vv, x[i]);
#if SEG == SEG_COUNTS
    (void)hm;
    *xc = cc;
#else
    (void)ci;
    (void)cc;
    *xc = (uint)popcount(hm);
#endif
    *xv = vv;
}

/* Loads tile `base` and leaves this work-item's ITEMS elements (tile index
 * k0 + i, k0 = lid * ITEMS) in x[i], their segment starts as bits of *hm_out
 * (SEG_COUNTS also the counts in ci[]), with need_next whether the element after
 * its last starts a segment (*nh), folds them to (*xc, *xv) and scans: then
 * (*xc, *xv) = the pairs before this work-item's elements inside the tile,
 * (*tc, *tv) = the tile's carry. Past n: values IDENT, no segment starts
 * (none of it reaches an output: it only follows the last element). */
inline void rd3_tile_scan(__global const RD_IN_T *vals, __global const SEG_T *seg, ulong base, ulong n, int need_next,
                          __local rd3_cell *buf, __local uint *sc, __local T *sv, T *x, uint *ci, uint *hm_out,
                          uint *nh, uint *xc, T *xv, uint *tc, T *tv)
{
    const uint lid = (uint)get_local_id(0), wb = lid / RW * (RW * ITEMS);
    const uint k0 = lid * ITEMS;
    const ulong wg0 = base + wb; /* the warp's first element */
    const int full = base + TILE <= n;
    /* my elements before n: the fold stops there, as variant 1's (an
     * IDENT folded in is not always a no-op: -0.0f + 0.0f) */
    const uint left = full ? ITEMS : n > base + k0 ? (uint)min(n - base - k0, (ulong)ITEMS) : 0u; /* idle tiles: 0 */
    T xr[ITEMS];                         /* as loaded, lane-minor */
    LS_T sr[ITEMS], prev = 0, after = 0; /* (SEG_NONE: unused) */
    uint cc;
    rd3_load(vals, seg, wg0, n, full, need_next, xr, sr, &prev, &after);
    rd3_heads(buf, sr, prev, after, base, need_next, left, ci, &cc, hm_out, nh);
    rd3_values_to_owners(buf, xr, x);
    rd3_fold(x, ci, *hm_out, cc, left, xc, xv);
    rd_wg_scan(xc, xv, sc, sv, tc, tv);
}

/* Scan mode (as rd_scan_out) from the registers: results to this work-item's
 * own cells, a warp barrier, out written lane-minor (each work-item writes
 * what it loaded: in == out is safe). */
inline void rd3_scan_out(__local rd3_cell *buf, ulong base, ulong n, uint pc, T pv, uint xc, T xv, const T *x,
                         const uint *ci, uint hm, uint mode, __global T *out, __global uint *out_c)
{
    const uint lid = (uint)get_local_id(0), lane = lid % RW, wb = lid / RW * (RW * ITEMS);
    const uint k0 = lid * ITEMS, kb = PAD(k0);
    const ulong g0 = base + k0, wg0 = base + wb;
    uint rc = pc + xc;
    T rv = xc ? xv : rd_op(pv, xv);
#pragma unroll
    for (uint i = 0; i < ITEMS; ++i) {
        uint h = RD3_INC(i);
        T ev = rv;
        uint ec = rc;
        rv = h ? x[i] : rd_op(rv, x[i]);
        rc += h;
        buf[kb + i].t = mode == RD_SCAN_INCLUSIVE ? rv : (mode == RD_SCAN_SEGMENTED && (h || g0 + i == 0)) ? IDENT : ev;
        if (out_c && g0 + i < n) out_c[g0 + i] = ec;
    }
#if SEG != SEG_COUNTS
    (void)ci;
#else
    (void)hm;
#endif
    rd_wsync();
    if (base + TILE <= n) {
        __global T *op = out + wg0 + lane;
#pragma unroll
        for (uint j = 0; j < ITEMS; ++j) op[j * RW] = buf[PAD(wb + j * RW + lane)].t;
    } else {
#pragma unroll
        for (uint j = 0; j < ITEMS; ++j)
            if (wg0 + j * RW + lane < n) out[wg0 + j * RW + lane] = buf[PAD(wb + j * RW + lane)].t;
    }
}

/* Scatter mode (as rd_scatter_out) from the registers, in the work-items
 * that hold a segment start or end, element 0 or element n - 1 (the others
 * have nothing to write). */
inline void rd3_scatter_out(__global const SEG_T *seg, ulong base, ulong n, uint pc, T pv, uint xc, T xv,
                            const T *x, const uint *ci, uint hm, uint nh, __global SEG_T *keys_out,
                            __global T *vals_out, __global uint *count)
{
    const ulong g0 = base + (ulong)get_local_id(0) * ITEMS;
    uint rc = pc + xc;
    T rv = xc ? xv : rd_op(pv, xv);
#if SEG != SEG_COUNTS
    (void)ci;
#endif
#if SEG != SEG_KEYS
    (void)seg;
    (void)keys_out;
#endif
    if (g0 >= n || (hm == 0 && !nh && g0 != 0 && n - g0 > ITEMS)) return;
#pragma unroll
    for (uint i = 0; i < ITEMS; ++i) {
        const ulong gi = g0 + i;
        if (gi >= n) break;
        uint h = RD3_INC(i);
        rv = h ? x[i] : rd_op(rv, x[i]);
        rc += h;
#if SEG == SEG_KEYS
        if (keys_out && (h || gi == 0)) keys_out[rc] = seg[gi];
#endif
        const int last = gi + 1 == n;
        if (last || (i + 1 < ITEMS ? (hm >> (i + 1)) & 1u : nh)) {
            if (vals_out) vals_out[rc] = rv;
            if (last && count) count[0] = rc + 1;
        }
    }
}

#define RD_TILE_LOCALS                         \
    __local rd3_cell buf[TILE_PADDED];         \
    __local uint sc[RD_SCAN_SIZE];             \
    __local T sv[RD_SCAN_SIZE];
/* a work-item's registers between rd3_tile_scan and the output */
#define RD_TILE_REGS                           \
    T x[ITEMS];                                \
    uint ci[SEG == SEG_COUNTS ? ITEMS : 1];    \
    uint hm, nh;
/* The tile kernels' steps (see RD_TILE_SCAN below) */
#define RD_TILE_SCAN(need_next) \
    rd3_tile_scan(vals, seg, base, n, need_next, buf, sc, sv, x, ci, &hm, &nh, &xc, &xv, &tc, &tv)
#define RD_SCAN_OUT(out_c) rd3_scan_out(buf, base, n, pc, pv, xc, xv, x, ci, hm, mode, out, out_c)
#define RD_SCATTER_OUT() rd3_scatter_out(seg, base, n, pc, pv, xc, xv, x, ci, hm, nh, keys_out, vals_out, count)
#endif /* RD_HEADS */
#else
/* Exclusive scan of one pair per work-item, raking (4 barriers where a
 * Hillis-Steele tree takes 2 * log2(WG)): RK_LANES work-items each fold
 * RK_SPAN consecutive pairs left to right, work-item 0 folds the lanes'
 * sums left to right, each work-item combines its lane's prefix with its
 * place in the lane. A fixed order for a given WG: the same bits every run.
 * Lane l's pairs sit at l * (RK_SPAN + 1) + q (RK_AT), so the lanes' reads
 * fall on different banks; the lanes' prefixes and the total follow at
 * RK_TOT. *tc, *tv receive the work-group's total. Ends with a barrier. */
#define RK_LANES (WG < 32 ? WG : 32)
#define RK_SPAN (WG / RK_LANES)
#define RK_AT(i) ((i) + (i) / RK_SPAN)
#define RK_TOT (WG + RK_LANES)
#define RD_SCAN_SIZE (RK_TOT + RK_LANES + 1)

inline void rd_wg_scan(uint *c, T *v, __local uint *sc, __local T *sv, uint *tc, T *tv)
{
    const uint lid = (uint)get_local_id(0);
    sc[RK_AT(lid)] = *c;
    sv[RK_AT(lid)] = *v;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid < RK_LANES) {
        uint ac = 0;
        T av = IDENT;
        for (uint q = 0; q < RK_SPAN; ++q) {
            uint i = RK_AT(lid * RK_SPAN + q), xc = sc[i];
            T xv = sv[i];
            sc[i] = ac;
            sv[i] = av;
            av = xc ? xv : rd_op(av, xv);
            ac += xc;
        }
        sc[RK_TOT + lid] = ac;
        sv[RK_TOT + lid] = av;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) {
        uint ac = 0;
        T av = IDENT;
        for (uint l = 0; l < RK_LANES; ++l) {
            uint xc = sc[RK_TOT + l];
            T xv = sv[RK_TOT + l];
            sc[RK_TOT + l] = ac;
            sv[RK_TOT + l] = av;
            av = xc ? xv : rd_op(av, xv);
            ac += xc;
        }
        sc[RK_TOT + RK_LANES] = ac;
        sv[RK_TOT + RK_LANES] = av;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    {
        uint lc = sc[RK_TOT + lid / RK_SPAN], xc = sc[RK_AT(lid)];
        T lv = sv[RK_TOT + lid / RK_SPAN], xv = sv[RK_AT(lid)];
        *c = lc + xc;
        *v = xc ? xv : rd_op(lv, xv);
        *tc = sc[RK_TOT + RK_LANES];
        *tv = sv[RK_TOT + RK_LANES];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

#ifndef RD_V3
#define RD_TILE_LOCALS                       \
    __local T lv[TILE_PADDED];               \
    __local LS_T ls[LS_SIZE];                \
    __local uint sc[RD_SCAN_SIZE];           \
    __local T sv[RD_SCAN_SIZE];
#define RD_TILE_REGS uint hm;
/* The tile kernels' steps, one form for both variants, over the kernels'
 * variables of these names (RD_TILE_LOCALS, RD_TILE_REGS; the tile's base,
 * its pairs xc, xv, its carry tc, tv, the prefix pc, pv): stage, fold and
 * scan the tile, then the scan's output or the scatter's. */
#define RD_TILE_SCAN(need_next) \
    rd_tile_scan(vals, seg, base, n, need_next, lv, ls, sc, sv, &xc, &xv, &tc, &tv, &hm)
#define RD_SCAN_OUT(out_c) rd_scan_out(lv, ls, base, n, pc, pv, xc, xv, hm, mode, out, out_c)
#define RD_SCATTER_OUT() rd_scatter_out(lv, ls, base, n, pc, pv, xc, xv, hm, keys_out, vals_out, count)
#endif

/* Stage, fold and scan one tile: (*xc, *xv) = the pairs before this
 * work-item's elements inside the tile, (*tc, *tv) = the tile's carry. */
inline void rd_tile_scan(__global const RD_IN_T *vals, __global const SEG_T *seg, ulong base, ulong n, int need_next,
                         __local T *lv, __local LS_T *ls, __local uint *sc, __local T *sv, uint *xc, T *xv, uint *tc,
                         T *tv, uint *hm)
{
    rd_stage(vals, seg, base, n, need_next, lv, ls);
    rd_fold(lv, ls, base, n, xc, xv, hm);
    rd_wg_scan(xc, xv, sc, sv, tc, tv);
}

/* Scan mode: RD_SCAN_SEGMENTED exclusive (identity at each segment's first
 * element), RD_SCAN_INCLUSIVE, RD_SCAN_CARRIES exclusive of the pair operator
 * (no reset; used for the tile carries, with the counts' exclusive prefix to
 * out_c). Results are staged in lv and written coalesced (in == out allowed). */
inline void rd_scan_out(__local T *lv, __local const LS_T *ls, ulong base, ulong n, uint pc, T pv, uint xc, T xv,
                        uint hm, uint mode, __global T *out, __global uint *out_c)
{
    const uint lid = (uint)get_local_id(0), k0 = lid * ITEMS;
    uint rc = pc + xc;
    T rv = xc ? xv : rd_op(pv, xv);
    for (uint k = lid * ITEMS; k < lid * ITEMS + ITEMS; ++k) {
        ulong gi = base + k;
        if (gi >= n) break;
        uint i = RD_HEAD(hm, ls, k, k0, gi);
        T x = lv[PAD(k)];
        T ev = rv;
        uint ec = rc;
        rv = i ? x : rd_op(rv, x);
        rc += i;
        lv[PAD(k)] = mode == RD_SCAN_INCLUSIVE ? rv : (mode == RD_SCAN_SEGMENTED && (i || gi == 0)) ? IDENT : ev;
        if (out_c) out_c[gi] = ec;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < ITEMS; ++j) {
        uint k = j * WG + lid;
        if (base + k < n) out[base + k] = lv[PAD(k)];
    }
}

/* Scatter mode (reduce-by-key): at each segment's first
 * element keys_out[C] = its key (SEG_KEYS); at its last vals_out[C] = V;
 * count[0] = C(n-1) + 1. */
inline void rd_scatter_out(__local const T *lv, __local const LS_T *ls, ulong base, ulong n, uint pc, T pv, uint xc,
                           T xv, uint hm, __global SEG_T *keys_out, __global T *vals_out, __global uint *count)
{
    const uint lid = (uint)get_local_id(0), k0 = lid * ITEMS;
    uint rc = pc + xc;
    T rv = xc ? xv : rd_op(pv, xv);
    for (uint k = lid * ITEMS; k < lid * ITEMS + ITEMS; ++k) {
        ulong gi = base + k;
        if (gi >= n) break;
        uint i = RD_HEAD(hm, ls, k, k0, gi);
        T x = lv[PAD(k)];
        rv = i ? x : rd_op(rv, x);
        rc += i;
#if SEG == SEG_KEYS
        if (keys_out && (i || gi == 0)) keys_out[rc] = ls[PAD(k + 1)];
#endif
        int last = gi + 1 == n;
        if (last || (k + 1 < k0 + ITEMS ? RD_HEAD(hm, ls, k + 1, k0, gi + 1) : rd_inc(ls, (int)k + 1, gi + 1))) {
            if (vals_out) vals_out[rc] = rv;
            if (last && count) count[0] = rc + 1;
        }
    }
#if SEG != SEG_KEYS
    (void)keys_out;
#endif
}

/* ---- heads: unique and run-length encode ------------------------------------
 * Built with RD_HEADS (SEG_KEYS, VAL_ONE, T uint, OP sum). The element at
 * global index i is a head when i == 0 or its key differs from key[i - 1];
 * the head with C heads after element 0 before and at it goes to slot C
 * (C = the pair scan's count: element 0 is a head but no boundary). No value
 * is reduced: a work-item's pair is (boundaries among its elements, 1 + the
 * index of its last head, or 0 when it has none), and the pair operator
 * with OP sum then carries the newest head's index + 1 from pair to pair (a
 * pair with no boundary adds 0 to it, or, the first work-item of tile 0,
 * adds its element 0's 1 to the identity 0). So the scan of the heads is
 * that of counts and positions, with no values to stage or fold. Slot C
 * gets the key (keys_out), the head's moved value (mv_out) and, for the head
 * before it, the run length lengths[C - 1] = i - that head's index;
 * the last element writes the last run's length and count[0]. */
#ifdef RD_HEADS
#if SEG != SEG_KEYS || !defined(VAL_ONE) || TK != 0 || OP != 0
#error "RD_HEADS: keys (SEG_KEYS), VAL_ONE, T uint, OP sum"
#endif

/* Whether the element at tile index k, global index gi (< n), is a head. */
inline uint rd_is_head(__local const LS_T *ls, int k, ulong gi)
{
    return gi == 0 || ls[PAD(k + 1)] != ls[PAD(k)];
}

/* This work-item's pair (*c boundaries, *v = 1 + its last head's global
 * index or 0) and, where ITEMS fit a word, its heads as bits (*hm). */
inline void rd_heads_fold(__local const LS_T *ls, ulong base, ulong n, uint *c, uint *v, uint *hm)
{
    const uint k0 = (uint)get_local_id(0) * ITEMS;
    uint cc = 0, last = 0, m = 0;
    for (uint k = k0; k < k0 + ITEMS; ++k) {
        ulong gi = base + k;
        if (gi >= n) break;
        uint h = rd_is_head(ls, (int)k, gi);
        cc += h && gi > 0;
        last = h ? (uint)gi + 1u : last;
#ifdef RD_MASK
        m |= h << (k - k0);
#endif
    }
    *c = cc;
    *v = last;
    *hm = m;
}

/* One head: slot *rc (after counting it), index gi; *rv = 1 + the index of
 * the head before it (0: none). */
inline void rd_head_out(__global const SEG_T *seg, ulong gi, uint *rc, uint *rv, __global SEG_T *keys_out,
                        __global uint *lengths, __global const MV_T *mv_in, __global MV_T *mv_out)
{
    uint slot = *rc + (gi > 0);
    if (keys_out) keys_out[slot] = seg[gi];
    if (mv_out) mv_out[slot] = mv_in[gi];
    if (lengths && gi > 0) lengths[slot - 1] = (uint)gi + 1u - *rv;
    *rc = slot;
    *rv = (uint)gi + 1u;
}

/* Writes this work-item's heads from the pair before it (pc, pv) and its
 * place in the tile (xc, xv). */
inline void rd_heads_out(__local const LS_T *ls, __global const SEG_T *seg, ulong base, ulong n, uint pc, uint pv,
                         uint xc, uint xv, uint hm, __global SEG_T *keys_out, __global uint *lengths, __global const MV_T *mv_in,
                         __global MV_T *mv_out, __global uint *count)
{
    const uint k0 = (uint)get_local_id(0) * ITEMS;
    uint rc = pc + xc, rv = xc ? xv : pv + xv;
#ifdef RD_MASK
    (void)n;
    /* the set bits, lowest first (OpenCL 1.2 has clz, not ctz) */
    for (uint m = hm; m != 0; m &= m - 1u) {
        uint k = k0 + 31u - (uint)clz(m & (0u - m));
        rd_head_out(seg, base + k, &rc, &rv, keys_out, lengths, mv_in, mv_out);
    }
    (void)ls;
#else
    (void)hm;
    for (uint k = k0; k < k0 + ITEMS && base + k < n; ++k)
        if (rd_is_head(ls, (int)k, base + k)) rd_head_out(seg, base + k, &rc, &rv, keys_out, lengths, mv_in, mv_out);
#endif
    if (n - 1 >= base + k0 && n - 1 < base + k0 + ITEMS) { /* the last element is mine */
        if (lengths) lengths[rc] = (uint)n + 1u - rv;
        if (count) count[0] = rc + 1u;
    }
}

/* Stage the keys, fold, scan: as rd_tile_scan without values. */
inline void rd_heads_tile_scan(__global const SEG_T *seg, ulong base, ulong n, __local LS_T *ls, __local uint *sc,
                               __local T *sv, uint *xc, uint *xv, uint *tc, uint *tv, uint *hm)
{
    rd_stage(0, seg, base, n, 1, 0, ls); /* need_next 1: never in place (the next tile's first flag staged too, unused) */
    rd_heads_fold(ls, base, n, xc, xv, hm);
    rd_wg_scan(xc, xv, sc, sv, tc, tv);
}

#define RD_HEADS_LOCALS              \
    __local LS_T ls[LS_SIZE];        \
    __local uint sc[RD_SCAN_SIZE];   \
    __local T sv[RD_SCAN_SIZE];

/* Portable path, as seg_reduce_tiles: carry_c[g], carry_v[g] = tile g's pair
 * (vals unused: the seg_* kernels' arguments). */
#if RD_HAS(RD_K_HEADS_REDUCE_TILES)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void heads_reduce_tiles(__global const T *vals, __global const SEG_T *seg, ulong n, __global uint *carry_c,
                        __global T *carry_v COUNT_ARGS)
{
    RD_HEADS_LOCALS
    const ulong base = (ulong)get_group_id(0) * TILE;
    uint xc, xv, tc, tv, hm;
    (void)vals;
    n = DEVICE_N(n);
    RD_IDLE_CARRY(n, carry_c, carry_v);
    rd_heads_tile_scan(seg, base, n, ls, sc, sv, &xc, &xv, &tc, &tv, &hm);
    if (get_local_id(0) == 0) {
        carry_c[get_group_id(0)] = tc;
        carry_v[get_group_id(0)] = tv;
    }
}
#endif

/* Portable path, as seg_scatter_tiles (vals_out: the run lengths). */
#if RD_HAS(RD_K_HEADS_SCATTER_TILES)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void heads_scatter_tiles(__global const T *vals, __global const SEG_T *seg, ulong n, __global const uint *pre_c,
                         __global const T *pre_v, __global SEG_T *keys_out, __global T *vals_out,
                         __global const MV_T *mv_in, __global MV_T *mv_out, __global uint *count COUNT_ARGS)
{
    RD_HEADS_LOCALS
    const uint g = (uint)get_group_id(0);
    const ulong base = (ulong)g * TILE;
    uint xc, xv, tc, tv, hm;
    n = DEVICE_N(n);
    IDLE_RETURN(g > LAST_TILE(n));
    RD_ZERO_COUNT(count, n, g);
    const uint pc = pre_c ? pre_c[g] : 0u, pv = pre_v ? pre_v[g] : 0u;
    (void)vals;
    rd_heads_tile_scan(seg, base, n, ls, sc, sv, &xc, &xv, &tc, &tv, &hm);
    rd_heads_out(ls, seg, base, n, pc, pv, xc, xv, hm, keys_out, vals_out, mv_in, mv_out, count);
}
#endif
#endif

/* ---- portable path: reduce tiles, scan the carries, rescan ---------------- */
#ifndef RD_HEADS /* a heads program runs the heads_* kernels only */

/* carry_c[g], carry_v[g] = the pair sum of tile g. */
#if RD_HAS(RD_K_SEG_REDUCE_TILES)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_reduce_tiles(__global const RD_IN_T *vals, __global const SEG_T *seg, ulong n, __global uint *carry_c,
                      __global T *carry_v COUNT_ARGS)
{
    RD_TILE_LOCALS
    const ulong base = (ulong)get_group_id(0) * TILE;
    uint xc, tc;
    T xv, tv;
    n = DEVICE_N(n);
    RD_IDLE_CARRY(n, carry_c, carry_v);
    RD_TILE_REGS
    RD_TILE_SCAN(0);
    if (get_local_id(0) == 0) {
        carry_c[get_group_id(0)] = tc;
        carry_v[get_group_id(0)] = tv;
    }
}
#endif

/* Scans each tile from its prefix pair (pre_c, pre_v: NULL = identity). */
#if RD_HAS(RD_K_SEG_SCAN_TILES)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_scan_tiles(__global const RD_IN_T *vals, __global const SEG_T *seg, ulong n, __global const uint *pre_c,
                    __global const T *pre_v, uint mode, __global T *out, __global uint *out_c COUNT_ARGS)
{
    RD_TILE_LOCALS
    const uint g = (uint)get_group_id(0);
    const ulong base = (ulong)g * TILE;
    uint xc, tc;
    T xv, tv;
    n = DEVICE_N(n);
    IDLE_RETURN(g > LAST_TILE(n));
    /* read the prefix before the tile: in place, other tiles are written */
    const uint pc = pre_c ? pre_c[g] : 0u;
    const T pv = pre_v ? pre_v[g] : IDENT;
    RD_TILE_REGS
    RD_TILE_SCAN(0);
    RD_SCAN_OUT(out_c);
}
#endif

/* mv_in, mv_out: unused (the heads kernels' arguments: the host passes one
 * argument list to both). */
#if RD_HAS(RD_K_SEG_SCATTER_TILES)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_scatter_tiles(__global const RD_IN_T *vals, __global const SEG_T *seg, ulong n, __global const uint *pre_c,
                       __global const T *pre_v, __global SEG_T *keys_out, __global T *vals_out,
                       __global const MV_T *mv_in, __global MV_T *mv_out, __global uint *count COUNT_ARGS)
{
    RD_TILE_LOCALS
    const uint g = (uint)get_group_id(0);
    const ulong base = (ulong)g * TILE;
    uint xc, tc;
    T xv, tv;
    n = DEVICE_N(n);
    IDLE_RETURN(g > LAST_TILE(n));
    RD_ZERO_COUNT(count, n, g);
    const uint pc = pre_c ? pre_c[g] : 0u;
    const T pv = pre_v ? pre_v[g] : IDENT;
    (void)mv_in;
    (void)mv_out;
    RD_TILE_REGS
    RD_TILE_SCAN(1);
    RD_SCATTER_OUT();
}
#endif

#endif

/* ---- look-back path: one pass, deterministic ------------------------------
 * One buffer of 32-bit words, all zero on entry: 2 * groups status words
 * (common.cl's status of a tile: flag and the tile's boundary count c, as a
 * 32-bit pair or one 64-bit word), the ticket,
 * then the aggregates' and the inclusive prefixes' value bits, RD_CHUNKS words
 * each (agg_v, incl_v). Only 32-bit atomics: a value is written as 16-bit
 * chunks, each word marked written (bit 16), before the status words that
 * announce it; a reader waits until every chunk reads as written (its
 * writer has already stored them: the wait is for visibility, not for
 * another work-group to run), so no value is taken torn and no ordering
 * between the words is assumed.
 *
 * Determinism: the inclusive prefix of tile g is defined as the left fold
 *     incl(g) = incl(g - 1) + agg(g),  incl(0) = agg(0)
 * (pair operator). A tile walks back to the newest predecessor j that has
 * published incl(j) (rd_lookback) and folds
 *     ((incl(j) + agg(j + 1)) + agg(j + 2)) + ... + agg(g - 1)
 * in that order, which repeats the definition step for step, so incl(g - 1)
 * and every output come out with the same bits whichever predecessors
 * happened to be done. (The usual look-back adds whatever it finds, newest
 * first, and its float results change with the timing.) The wait cannot
 * deadlock where started work-groups run to completion or work-groups run
 * one after another: tiles take indices from a ticket in start order, tile 0
 * publishes its prefix at once, and each tile publishes its own once it has
 * found one. (No decoupled fallback here: summing a predecessor would need
 * its whole pair scan again in this work-group's local memory.) */

#ifdef HAVE_LOOKBACK
#ifdef RD_UT /* a caller's type: each 32-bit word as two chunks (the host sizes 4 words per word) */
#define RD_CHUNKS (2u * (uint)RD_WORDS)

inline void rd_store_bits(__global volatile uint *p, TB b)
{
    for (uint k = 0; k < RD_CHUNKS; ++k) atomic_xchg(&p[k], 0x10000u | ((b.w[k / 2] >> (16 * (k % 2))) & 0xffffu));
}

inline TB rd_load_bits(__global volatile uint *p)
{
    for (;;) {
        TB v;
        uint written = 0x10000u;
        for (uint k = 0; k < RD_CHUNKS; k += 2) {
            uint lo = atomic_add(&p[k], 0u), hi = atomic_add(&p[k + 1], 0u);
            written &= lo & hi;
            v.w[k / 2] = (lo & 0xffffu) | (hi & 0xffffu) << 16;
        }
        if (written) return v;
    }
}
#else
#define RD_CHUNKS (TK >= 3 ? 4u : 2u)

inline void rd_store_bits(__global volatile uint *p, TB b)
{
    for (uint k = 0; k < RD_CHUNKS; ++k) atomic_xchg(&p[k], 0x10000u | (uint)((b >> (16 * k)) & 0xffffu));
}

/* The value at p, once every chunk reads as written (see above). */
inline TB rd_load_bits(__global volatile uint *p)
{
    for (;;) {
        TB v = (TB)0;
        uint written = 0x10000u;
        for (uint k = 0; k < RD_CHUNKS; ++k) {
            uint w = atomic_add(&p[k], 0u);
            written &= w;
            v |= (TB)(w & 0xffffu) << (16 * k);
        }
        if (written) return v;
    }
}
#endif

#define RD_WIN (WG < 32 ? WG : 32)

/* The aggregates' and the inclusive prefixes' value bits (see above). */
inline __global volatile uint *rd_agg_bits(__global volatile uint *status)
{
    return status + 2 * get_num_groups(0) + 1;
}
inline __global volatile uint *rd_incl_bits(__global volatile uint *status)
{
    return rd_agg_bits(status) + get_num_groups(0) * RD_CHUNKS;
}

/* The tile this work-group scans: the next ticket (the word after the
 * 2 * groups status words), in the order the work-groups start (see above:
 * why the wait cannot deadlock). Ends with a barrier. */
inline uint rd_take_tile(__global volatile uint *status, __local uint *tile_id)
{
    if (get_local_id(0) == 0) *tile_id = atomic_inc(&status[2 * get_num_groups(0)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    return *tile_id;
}

/* The steps of rd_lookback, in the order it calls them (every work-item
 * calls each; work-item 0 does the serial parts). */

/* Work-item 0 publishes the tile's aggregate (tc, tv); tile 0's is its
 * inclusive prefix. */
inline void rd_publish_aggregate(__global volatile uint *status, __global volatile uint *agg_v,
                                 __global volatile uint *incl_v, uint g, uint tc, T tv)
{
    if (get_local_id(0) == 0) {
        if (g == 0) {
            rd_store_bits(&incl_v[0], RD_BITS(tv));
            lb_publish(status, 0, LB_PREFIX, tc);
        } else {
            rd_store_bits(&agg_v[g * RD_CHUNKS], RD_BITS(tv));
            lb_publish(status, g, LB_AGGREGATE, tc);
        }
    }
}

/* The walk (tile g > 0): *lc sums the counts of the tiles before g, *from
 * becomes the fold's first tile, with *lv_ its starting value (see
 * rd_lookback). Ends with a barrier. */
inline void rd_walk_back(__global volatile uint *status, __global volatile uint *agg_v, __global volatile uint *incl_v,
                         uint g, __local uint *win, __local int *step, __local uint *lc, __local T *lv_,
                         __local int *from)
{
    const uint lid = (uint)get_local_id(0);
    int j = (int)g - 1; /* newest predecessor not yet added */
    int restart = -1;   /* work-item 0: newest tile after p with count != 0 */
    if (lid == 0) *lc = 0;
    for (;;) {
        if (lid < RD_WIN) {
            int idx = j - (int)lid;
            uint bits = 0u, f = LB_PREFIX; /* before tile 0: (0, identity) */
            if (idx >= 0) f = lb_read(status, (uint)idx, &bits);
            win[2 * lid] = f;
            win[2 * lid + 1] = bits;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            int used = 0, done = 0;
            uint c = 0;
            for (; used < RD_WIN; ++used) {
                uint f = win[2 * used], wc = win[2 * used + 1];
                if (f == LB_EMPTY) break;
                c += wc;
                if (f == LB_PREFIX) { done = 1; break; }
                if (wc != 0 && restart < 0) restart = j - used;
            }
            *lc += c;
            if (done) {
                int p = j - used;
                if (restart >= 0) {
                    *from = restart;
                    *lv_ = RD_FROM_BITS(rd_load_bits(&agg_v[(uint)restart * RD_CHUNKS]));
                } else {
                    *from = p;
                    *lv_ = p >= 0 ? RD_FROM_BITS(rd_load_bits(&incl_v[(uint)p * RD_CHUNKS])) : IDENT;
                }
            }
            *step = done ? -1 : used;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        int st = *step;
        if (st == -1) break;
        j -= st;
        barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read *step before it changes */
    }
}

/* The fold: v, then the aggregates of tiles first .. g - 1, oldest first,
 * WG aggregates at a time (loaded by all, folded by work-item 0 through fv).
 * The result is work-item 0's. */
inline T rd_fold_aggregates(__global volatile uint *agg_v, uint g, int first, T v, __local T *fv)
{
    const uint lid = (uint)get_local_id(0);
    for (int b = first; b < (int)g; b += WG) {
        int idx = b + (int)lid;
        if (idx < (int)g) fv[lid] = RD_FROM_BITS(rd_load_bits(&agg_v[(uint)idx * RD_CHUNKS]));
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) {
            int m = (int)g - b < WG ? (int)g - b : WG;
            for (int q = 0; q < m; ++q) v = rd_op(v, fv[q]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return v;
}

/* Work-item 0 publishes the tile's inclusive prefix, (*lc, v) + (tc, tv),
 * and shares its exclusive prefix (*lc, v) with all: (*pc, *pv). */
inline void rd_publish_prefix(__global volatile uint *status, __global volatile uint *incl_v, uint g, uint tc, T tv,
                              T v, __local uint *lc, __local T *lv_, uint *pc, T *pv)
{
    /* everyone has read *lv_ before work-item 0 overwrites it (with no
     * aggregate to fold rd_fold_aggregates has no barrier: oclgrind reported
     * the read and the write below as a local-memory race) */
    barrier(CLK_LOCAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        uint ic = *lc + tc;
        T iv = tc ? tv : rd_op(v, tv);
        rd_store_bits(&incl_v[g * RD_CHUNKS], RD_BITS(iv));
        lb_publish(status, g, LB_PREFIX, ic);
        *lv_ = v;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    *pc = *lc;
    *pv = *lv_;
}

/* Called by every work-item (it has barriers): publishes the tile's
 * aggregate, finds its exclusive prefix (*pc, *pv), publishes its inclusive
 * prefix. fv is WG elements of the caller's __local scratch; win 2 * RD_WIN
 * words (flag, count per predecessor); step, lc, lv_, from single words
 * shared by the walk and the fold.
 *
 * Two steps. The walk (as the scan's lb_lookback): windows of RD_WIN status
 * word pairs, newest first, adding up the counts (integers: any order gives
 * the same sum) back to the newest inclusive prefix p, re-reading a window
 * that meets a tile which has published nothing yet. It also notes the newest
 * tile r after p whose aggregate restarts a segment (count != 0). The fold:
 * the value is the left fold from r (whose aggregate is then the value
 * itself) or from incl(p), over the aggregates after it, oldest first, read
 * again from agg_v (a tile's aggregate never changes once published, while
 * its status may since have become its prefix). So the walk may reach back
 * any distance, and the bits are still those of the definition. */
inline void rd_lookback(__global volatile uint *status, __global volatile uint *agg_v, __global volatile uint *incl_v,
                        uint g, uint tc, T tv, __local uint *win, __local T *fv, __local int *step,
                        __local uint *lc, __local T *lv_, __local int *from, uint *pc, T *pv)
{
    rd_publish_aggregate(status, agg_v, incl_v, g, tc, tv);
    if (g == 0) {
        *pc = 0;
        *pv = IDENT;
        return;
    }
    rd_walk_back(status, agg_v, incl_v, g, win, step, lc, lv_, from);
    const T v = rd_fold_aggregates(agg_v, g, *from + 1, *lv_, fv);
    rd_publish_prefix(status, incl_v, g, tc, tv, v, lc, lv_, pc, pv);
}

/* The look-back's local memory: the ticket's word and rd_lookback's scratch. */
#define RD_LB_LOCALS                 \
    __local uint tile_id;            \
    __local uint win[2 * RD_WIN];    \
    __local int step;                \
    __local uint lbc;                \
    __local T lbv;                   \
    __local int from;

#ifndef RD_HEADS
#if RD_HAS(RD_K_SEG_SCAN_LOOKBACK)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_scan_lookback(__global const RD_IN_T *vals, __global const SEG_T *seg, ulong n, __global volatile uint *status
                       LB_SPARE_ARGS, uint mode, __global T *out COUNT_ARGS)
{
    RD_TILE_LOCALS
    RD_LB_LOCALS
    LB_SPARE_CLEAR();
    n = DEVICE_N(n);
    const uint g = rd_take_tile(status, &tile_id);
    IDLE_RETURN(g > LAST_TILE(n)); /* publishing nothing: no tile with elements waits on a later one */
    const ulong base = (ulong)g * TILE;
    __global volatile uint *agg_v = rd_agg_bits(status), *incl_v = rd_incl_bits(status);
    uint xc, tc, pc;
    T xv, tv, pv;
    RD_TILE_REGS
    RD_TILE_SCAN(0);
    rd_lookback(status, agg_v, incl_v, g, tc, tv, win, sv, &step, &lbc, &lbv, &from, &pc, &pv);
    RD_SCAN_OUT(0);
}
#endif

/* mv_in, mv_out: unused, as in seg_scatter_tiles. */
#if RD_HAS(RD_K_SEG_SCATTER_LOOKBACK)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void seg_scatter_lookback(__global const RD_IN_T *vals, __global const SEG_T *seg, ulong n,
                          __global volatile uint *status LB_SPARE_ARGS, __global SEG_T *keys_out,
                          __global T *vals_out, __global const MV_T *mv_in, __global MV_T *mv_out,
                          __global uint *count COUNT_ARGS)
{
    RD_TILE_LOCALS
    RD_LB_LOCALS
    LB_SPARE_CLEAR();
    n = DEVICE_N(n);
    const uint g = rd_take_tile(status, &tile_id);
    IDLE_RETURN(g > LAST_TILE(n)); /* publishing nothing: no tile with elements waits on a later one */
    RD_ZERO_COUNT(count, n, g);
    const ulong base = (ulong)g * TILE;
    __global volatile uint *agg_v = rd_agg_bits(status), *incl_v = rd_incl_bits(status);
    uint xc, tc, pc;
    T xv, tv, pv;
    (void)mv_in;
    (void)mv_out;
    RD_TILE_REGS
    RD_TILE_SCAN(1);
    rd_lookback(status, agg_v, incl_v, g, tc, tv, win, sv, &step, &lbc, &lbv, &from, &pc, &pv);
    RD_SCATTER_OUT();
}
#endif
#endif

#ifdef RD_HEADS
/* Look-back path, as seg_scatter_lookback: the tiles' pairs go through
 * rd_lookback (integers: the same result in any order). */
#if RD_HAS(RD_K_HEADS_SCATTER_LOOKBACK)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void heads_scatter_lookback(__global const T *vals, __global const SEG_T *seg, ulong n,
                            __global volatile uint *status LB_SPARE_ARGS, __global SEG_T *keys_out,
                            __global T *vals_out, __global const MV_T *mv_in, __global MV_T *mv_out,
                            __global uint *count COUNT_ARGS)
{
    RD_HEADS_LOCALS
    RD_LB_LOCALS
    LB_SPARE_CLEAR();
    n = DEVICE_N(n);
    const uint g = rd_take_tile(status, &tile_id);
    IDLE_RETURN(g > LAST_TILE(n)); /* publishing nothing: no tile with elements waits on a later one */
    RD_ZERO_COUNT(count, n, g);
    const ulong base = (ulong)g * TILE;
    __global volatile uint *agg_v = rd_agg_bits(status), *incl_v = rd_incl_bits(status);
    uint xc, xv, tc, tv, pc, pv, hm;
    (void)vals;
    rd_heads_tile_scan(seg, base, n, ls, sc, sv, &xc, &xv, &tc, &tv, &hm);
    rd_lookback(status, agg_v, incl_v, g, tc, tv, win, sv, &step, &lbc, &lbv, &from, &pc, &pv);
    rd_heads_out(ls, seg, base, n, pc, pv, xc, xv, hm, keys_out, vals_out, mv_in, mv_out, count);
}
#endif
#endif
#endif

/* ---- offsets to boundary counts ---------------------------------------------- */

/* cnt[0 .. n) = 0 (n: the device count where there is one; the words past
 * it are never read). */
#if RD_HAS(RD_K_ZERO_COUNTS)
__kernel void zero_counts(__global uint *cnt, ulong n COUNT_ARGS)
{
    n = DEVICE_N(n);
    for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) cnt[i] = 0u;
}
#endif

/* cnt (n words, zero on entry): cnt[off[s]] += 1 for s = 1 .. segments - 1
 * with off[s] < n, so that the segment of element i is the number of
 * boundaries at or before i (empty segments included). With a device count,
 * n is the count: a boundary at or past it starts no segment among the
 * elements (its segments are empty). Offsets out of order give wrong
 * results but never an access out of bounds. */
#if RD_HAS(RD_K_MARK_COUNTS)
__kernel void mark_counts(__global const uint *off, uint segments, ulong n, __global volatile uint *cnt COUNT_ARGS)
{
    n = DEVICE_N(n);
    for (size_t s = get_global_id(0) + 1; s < segments; s += get_global_size(0)) {
        uint o = off[s];
        if (o < n) atomic_inc(&cnt[o]);
    }
}
#endif

/* ---- segmented reduce by offsets: tiles of the merged list ------------------
 * clsort_segmented_reduce reads each value once and each offset about once,
 * whatever the segments' lengths. Its work is the merge of two sorted lists:
 * the elements 0 .. n - 1 (n: the count) and the ends of the S segments,
 * E(k) = off[k + 1] clipped to n (E(S - 1) = n), where the end of segment k
 * comes just before element E(k). Walking the merged list, an element is
 * folded into the open segment and an end closes it: its result is written
 * (the identity for an empty segment). The list has n + S entries; tile t
 * walks entries [t TILE, (t + 1) TILE), so every tile has the same work
 * whether the segments are few and long or many and short. (A work-group
 * or a team of work-items per segment left the device idle with few
 * segments, and ran one load at a time per lane with many:
 * bench/RESULTS.md, reduction family.)
 *   offsets_partition     where each tile starts: part[t] = the ends among
 *                         the first t TILE entries (a binary search); its
 *                         elements start at t TILE - part[t].
 *   offsets_reduce_tiles  a tile's values and ends into local memory; each
 *                         work-item walks ITEMS entries from its own start
 *                         (a search in the tile), writing the segments that
 *                         it opens and closes; the pair scan of the
 *                         work-items' (ends, open fold) gives each the fold
 *                         before its first end; the tile's pair is its carry.
 *   offsets_fixup         after the carries' scan (seg_scan_tiles in
 *                         RD_SCAN_CARRIES mode): each tile's first end gets
 *                         the fold of the tiles before it.
 * On both paths: tiles whose first ends wait on a look-back ran slower on
 * the H100 than tiles that leave them to the fixup (bench/RESULTS.md,
 * reduction family), and the carries are a tile's worth of words.
 * Results combine in input order, so an operator need not commute.
 * Device offsets are not checked on the host. A tile finds those out of
 * order in its part (its ends must lie in its elements' range, in order;
 * its start must not pass its end), sets the flag word part[tiles + 1], and
 * offsets_fixup then writes the identity to every out[s]: the documented
 * rule. Every access stays in bounds whatever the offsets hold. */
#if RD_HAS(RD_K_OFFSETS_PARTITION | RD_K_OFFSETS_REDUCE_TILES)
/* E(k1 - 1), the end of segment k1 - 1, from o = off[k1]: n for the last
 * segment, else o clipped to n. */
inline ulong sr_end(ulong o, ulong k1, uint segs, ulong n) { return k1 >= segs ? n : o < n ? o : n; }
#endif

#if RD_HAS(RD_K_OFFSETS_PARTITION)
/* part[t], t = 0 .. tiles: the ends among the first d = min(t TILE, n +
 * segs) entries, the largest k with E(k - 1) + k <= d (E(k - 1) + k - 1 is
 * end k - 1's place in the list); it lies in [d - n, d] so that the tile's
 * element start is in [0, n] whatever the offsets. A binary search: a
 * 16-way one, its probes' loads in flight together, measured slower on the
 * H100 in a later run (2^24, mean length 1000: 14 against 9 us; 2^28, mean
 * length 10: 73 against 29).
 * Work-item 0 clears the flag word part[tiles + 1]. */
__kernel void offsets_partition(__global const uint *off, uint segs, ulong n, ulong tiles, __global uint *part COUNT_ARGS)
{
    n = DEVICE_N(n);
    const ulong t = get_global_id(0), len = n + segs, d = t * TILE < len ? t * TILE : len;
    if (t == 0) part[tiles + 1] = 0u;
    if (t > tiles) return;
    /* max(d, n) - n: d > n ? d - n : 0 is an llvm.usub.sat that oclgrind lacks */
    ulong lo = max(d, n) - n, hi = min(d, (ulong)segs);
    while (lo < hi) {
        const ulong mid = (lo + hi + 1) / 2; /* mid <= segs: within the segs + 1 offsets */
        if (sr_end(off[mid], mid, segs, n) + mid <= d) lo = mid; /* E(mid - 1) */
        else hi = mid - 1;
    }
    part[t] = (uint)lo;
}
#endif

#if !defined(RD_HEADS) && RD_HAS(RD_K_OFFSETS_REDUCE_TILES)
/* A tile's part of the list: elements [i0, i0 + ni) and ends [k0, k0 + nk). */
typedef struct {
    ulong i0;
    uint k0, ni, nk;
} sr_part;

/* Tile t's part; an empty one and the flag set where the partition is out of
 * order (a start past the end). */
inline sr_part sr_part_of(__global const uint *part, uint t, uint segs, ulong n, __global volatile uint *bad)
{
    sr_part p;
    const ulong len = n + segs, d0 = (ulong)t * TILE < len ? (ulong)t * TILE : len,
                d1 = d0 + TILE < len ? d0 + TILE : len;
    const uint k0 = part[t], k1 = part[t + 1];
    const ulong i1 = d1 - k1;
    p.k0 = k0;
    p.i0 = d0 - k0;
    p.ni = p.nk = 0;
    if (k1 >= k0 && i1 >= p.i0) {
        p.nk = k1 - k0;
        p.ni = (uint)(i1 - p.i0);
    } else if (get_local_id(0) == 0) {
        atomic_xchg(bad, 1u);
    }
    return p;
}

/* The part's values into lv (padded), its ends into le as offsets from i0;
 * an end outside [i0, i0 + ni] or below the one before it sets the flag.
 * Ends with a barrier. */
inline void sr_stage(__global const RD_IN_T *vals, __global const uint *off, uint segs, ulong n, sr_part p,
                     __global volatile uint *bad, __local T *lv, __local uint *le)
{
    const uint lid = (uint)get_local_id(0);
    int out_of_order = 0;
    T v[ITEMS];
    /* the values' loads first, in flight together; unrolled, so that v
     * lives in registers (an array indexed in a loop that is not unrolled
     * lives in memory). Against items staged as loaded, on the H100: long
     * segments faster, mean length 10 slower (62 registers against 31;
     * bench/RESULTS.md, Reduce). A CPU's tiles of a thousand
     * items a work-item stay loops. */
#if ITEMS <= 32
#pragma unroll
#endif
    for (uint q = 0; q < ITEMS; ++q) {
        const uint j = lid + q * WG;
        v[q] = j < p.ni ? RD_LOAD(vals, p.i0 + j, p.i0 + j) : IDENT;
    }
    for (uint q = 0; q < ITEMS; ++q) { /* the ends: few where segments are long */
        const uint j = lid + q * WG;
        if (j < p.nk) {
            const ulong k1 = (ulong)p.k0 + j + 1; /* k0 + j < segs: within the segs + 1 offsets */
            const ulong e = sr_end(off[k1], k1, segs, n); /* E(k0 + j) */
            out_of_order |= e < p.i0 || e > p.i0 + p.ni;
            le[j] = (uint)min(max(e, p.i0) - p.i0, (ulong)p.ni);
        }
    }
#if ITEMS <= 32
#pragma unroll
#endif
    for (uint q = 0; q < ITEMS; ++q) {
        const uint j = lid + q * WG;
        if (j < p.ni) lv[PAD(j)] = v[q];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint q = 0; q < ITEMS; ++q) {
        const uint j = lid + q * WG;
        if (j > 0 && j < p.nk) out_of_order |= le[j - 1] > le[j];
    }
    if (out_of_order) atomic_xchg(bad, 1u);
}

/* Work-item lid's walk over entries [lid ITEMS, lid ITEMS + ITEMS) of the
 * part: it starts after the largest k ends with le[k - 1] + k <= its first
 * entry. The segments it closes after its first are whole: written to out.
 * *nc = the ends it met, *fk, *fv = the first one and the fold before it,
 * *acc = the fold after the last one (all of its elements where nc = 0). An
 * entry index past the part's elements is an end and past its ends an
 * element, so no access leaves the part (with offsets in order the list
 * decides the same). */
inline void sr_walk(__local const T *lv, __local const uint *le, sr_part p, __global T *out, uint *nc, uint *fk,
                    T *fv, T *acc)
{
    const uint total = p.ni + p.nk, d = (uint)get_local_id(0) * ITEMS < total ? (uint)get_local_id(0) * ITEMS : total;
    uint lo = max(d, p.ni) - p.ni, hi = min(d, p.nk); /* (as offsets_partition's) */
    while (lo < hi) {
        uint mid = (lo + hi + 1) / 2;
        if (le[mid - 1] + mid <= d) lo = mid;
        else hi = mid - 1;
    }
    uint k = lo, i = d - lo, c = 0;
    T a = IDENT, f = IDENT;
    *fk = 0;
    for (uint q = 0; q < ITEMS; ++q) {
        if (d + q >= total) break;
        if (k < p.nk && (i >= p.ni || le[k] <= i)) {
            if (c == 0) {
                *fk = k;
                f = a;
            } else {
                out[p.k0 + k] = a;
            }
            ++c;
            ++k;
            a = IDENT;
        } else {
            a = rd_op(a, lv[PAD(i)]);
            ++i;
        }
    }
    *nc = c;
    *fv = f;
    *acc = a;
}

/* The steps of a tile: stage, walk, then the pair scan of
 * the work-items' (ends, open fold): (*xc, *xv) = the pairs before this
 * work-item in the tile, (*tc, *tv) the tile's (its carry or aggregate). */
inline void sr_tile(__global const RD_IN_T *vals, __global const uint *off, uint segs, ulong n, sr_part p,
                    __global volatile uint *bad, __global T *out, __local T *lv, __local uint *le, __local uint *sc,
                    __local T *sv, uint *nc, uint *fk, T *fv, uint *xc, T *xv, uint *tc, T *tv)
{
    sr_stage(vals, off, segs, n, p, bad, lv, le);
    sr_walk(lv, le, p, out, nc, fk, fv, xv);
    *xc = *nc;
    rd_wg_scan(xc, xv, sc, sv, tc, tv);
}

#define SR_LOCALS                  \
    __local T lv[TILE_PADDED];     \
    __local uint le[TILE];         \
    __local uint sc[RD_SCAN_SIZE]; \
    __local T sv[RD_SCAN_SIZE];
#endif

/* The tiles by work-group index. The first end of a work-item gets the
 * fold before it inside the tile; offsets_fixup adds the tiles' before it.
 * carry_c, carry_v (NULL with one tile): the tile's (ends, open fold), for
 * the carries' scan. */
#if !defined(RD_HEADS) && RD_HAS(RD_K_OFFSETS_REDUCE_TILES)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void offsets_reduce_tiles(__global const RD_IN_T *vals, __global const uint *off, uint segs, ulong n,
                          __global uint *part, ulong tiles, __global uint *carry_c, __global T *carry_v,
                          __global T *out COUNT_ARGS)
{
    SR_LOCALS
    n = DEVICE_N(n);
    const uint t = (uint)get_group_id(0);
    uint nc, fk, xc, tc;
    T fv, xv, tv;
#ifdef IDLE_EXIT
    if (t > 0 && (ulong)t * TILE >= n + segs) { /* idle: the carry (0, identity) */
        if (carry_c && get_local_id(0) == 0) {
            carry_c[t] = 0u;
            carry_v[t] = IDENT;
        }
        return;
    }
#endif
    const sr_part p = sr_part_of(part, t, segs, n, &part[tiles + 1]);
    sr_tile(vals, off, segs, n, p, &part[tiles + 1], out, lv, le, sc, sv, &nc, &fk, &fv, &xc, &xv, &tc, &tv);
    if (nc) out[p.k0 + fk] = rd_op(xv, fv);
    if (carry_c && get_local_id(0) == 0) {
        carry_c[t] = tc;
        carry_v[t] = tv;
    }
}
#endif

/* After the tiles: offsets out of order (the flag) give the identity in
 * every out[s]; else (pre_v: the tiles' exclusive prefixes, from the
 * carries' scan; NULL with one tile) a tile's first end gets the fold of the
 * tiles before it. A grid-stride loop (>>loop budget). */
#if RD_HAS(RD_K_OFFSETS_FIXUP)
__kernel void offsets_fixup(__global const uint *part, ulong tiles, uint segs, __global const T *pre_v,
                            __global T *out)
{
    if (part[tiles + 1]) {
        for (size_t s = get_global_id(0); s < segs; s += get_global_size(0)) out[s] = IDENT;
        return;
    }
    if (!pre_v) return;
    for (size_t t = get_global_id(0); t < tiles; t += get_global_size(0)) {
        uint k0 = part[t];
        if (part[t + 1] > k0) out[k0] = rd_op(pre_v[t], out[k0]);
    }
}
#endif

/* ---- reduce: partial per work-group, then one work-group ------------------- */

/* Tree over one value per work-item (fixed order), for operators that
 * commute (an ordered fold: rd_fold_partials). Ends with a barrier. */
inline T rd_wg_reduce(T x, __local T *s)
{
    const uint lid = (uint)get_local_id(0);
    s[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = WG >> 1; d > 0; d >>= 1) {
        if (lid < d) s[lid] = rd_op(s[lid], s[lid + d]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    T r = s[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

#ifdef RD_ORDERED
/* A caller's operator need not commute: work-group g folds the contiguous
 * tiles [tiles g / groups, tiles (g + 1) / groups) in input order.
 * It walks them in chunks of WG runs of RD_URUN elements (64 bytes where
 * local memory allows). A chunk is loaded at consecutive addresses by
 * consecutive work-items into local memory; work-item lid folds run lid into
 * a partial. The partials of RD_UROUND chunks lie in input order in local
 * memory, and are folded by rd_fold_partials into the group's aggregate.
 * The next chunk's loads are issued before the current one is folded.
 * A work-item that read its own contiguous part kept a warp's loads on 32
 * lines at once, and reduce by an operator ran at a third of the built-in's
 * speed (bench/RESULTS.md, caller's operators). */
#define RD_URUN_BYTES (64 / sizeof(RD_IN_T)) /* RD_IN_T: at most 16 bytes */
#define RD_URUN_FIT (16384 / (WG * sizeof(RD_IN_T)))
#define RD_URUN (RD_URUN_FIT < 2 ? 1 : RD_URUN_BYTES < RD_URUN_FIT ? RD_URUN_BYTES : RD_URUN_FIT)
#define RD_URUN_STRIDE (RD_URUN == 1 ? 1 : RD_URUN + 1) /* a run's local row, padded off the banks of its neighbours' */
#define RD_UCHUNK (WG * RD_URUN)
#define RD_UROUND_FIT (8192 / (WG * sizeof(T))) /* chunks whose partials fit 8 KB */
#define RD_UROUND (RD_UROUND_FIT < 1 ? 1 : RD_UROUND_FIT > 16 ? 16 : RD_UROUND_FIT)

/* Element k * WG + lid of the chunk at base into r[k] (none at or past hi). */
inline void rd_load_chunk(__global const RD_IN_T *in, ulong base, ulong hi, RD_IN_T *r)
{
    __global const RD_IN_T *p = in + base + get_local_id(0);
    if (base + RD_UCHUNK <= hi) {
        for (uint k = 0; k < RD_URUN; ++k) r[k] = p[k * WG];
    } else {
        for (uint k = 0; k < RD_URUN; ++k)
            if (base + k * WG + get_local_id(0) < hi) r[k] = p[k * WG];
    }
}

/* rd_load_chunk's r into the rows of buf: element idx in row idx / RD_URUN. */
inline void rd_store_chunk(const RD_IN_T *r, ulong base, ulong hi, __local RD_IN_T *buf)
{
    const uint lid = (uint)get_local_id(0);
    const int full = base + RD_UCHUNK <= hi;
    for (uint k = 0; k < RD_URUN; ++k) {
        uint idx = k * WG + lid;
        if (full || base + idx < hi) buf[idx / RD_URUN * RD_URUN_STRIDE + idx % RD_URUN] = r[k];
    }
}

/* acc op ps[0] op ps[1] op ... op ps[count - 1], in work-item 0 (count <=
 * RD_UROUND WG): folds of 16 neighbours in place, each level's into the first
 * of them. Every work-item calls it; the partials are written before it. */
inline T rd_fold_partials(T acc, __local T *ps, uint count)
{
    const uint lid = (uint)get_local_id(0);
    for (uint w = 1; w < count; w *= 16) {
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint first = lid * 16 * w; first < count; first += WG * 16 * w) {
            T x = ps[first];
            for (uint j = 1; j < 16 && first + j * w < count; ++j) x = rd_op(x, ps[first + j * w]);
            ps[first] = x;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return lid == 0 ? rd_op(acc, ps[0]) : acc;
}

/* The group's aggregate of in[lo .. hi), in work-item 0. */
inline T rd_fold_range(__global const RD_IN_T *in, ulong lo, ulong hi, __local RD_IN_T *buf, __local T *ps)
{
    const uint lid = (uint)get_local_id(0);
    const ulong chunks = (max(hi, lo) - lo + RD_UCHUNK - 1) / RD_UCHUNK;
    T acc = IDENT;
    RD_IN_T r[RD_URUN];
    if (chunks) rd_load_chunk(in, lo, hi, r);
    for (ulong c = 0; c < chunks; ++c) { /* the same trip count in every work-item */
        const ulong base = lo + c * RD_UCHUNK, mine = base + lid * RD_URUN;
        const uint slot = (uint)(c % RD_UROUND);
        rd_store_chunk(r, base, hi, buf);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (c + 1 < chunks) rd_load_chunk(in, base + RD_UCHUNK, hi, r);
        T p = IDENT;
        for (uint k = 0; k < RD_URUN; ++k)
            if (mine + k < hi) p = rd_op(p, RD_LOAD(buf, lid * RD_URUN_STRIDE + k, mine + k));
        ps[slot * WG + lid] = p;
        if (slot + 1 == RD_UROUND || c + 1 == chunks) acc = rd_fold_partials(acc, ps, (slot + 1) * WG);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    return acc;
}
#endif

/* partials[group] = the reduction of tiles group, group + groups, ... (each
 * work-item folds its strided elements in order); a caller's operator: of
 * the group's contiguous tiles (rd_fold_range). */
#if RD_HAS(RD_K_REDUCE_PARTIALS)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_partials(__global const RD_IN_T *in, ulong n, __global T *partials COUNT_ARGS)
{
    const uint lid = (uint)get_local_id(0);
    T acc = IDENT;
    n = DEVICE_N(n); /* a work-group with no tile below it: the identity */
#ifdef RD_ORDERED
    __local RD_IN_T runs[WG * RD_URUN_STRIDE];
    __local T ps[RD_UROUND * WG];
    const ulong tiles = (n + TILE - 1) / TILE, g = get_group_id(0), groups = get_num_groups(0);
    acc = rd_fold_range(in, min(tiles * g / groups * TILE, n), min(tiles * (g + 1) / groups * TILE, n), runs, ps);
    if (lid == 0) partials[g] = acc;
#else
    __local T s[WG];
    for (ulong base = (ulong)get_group_id(0) * TILE; base < n; base += (ulong)get_num_groups(0) * TILE) {
        if (base + TILE <= n) {
            for (uint j = 0; j < ITEMS; ++j) acc = rd_op(acc, RD_LOAD(in, base + j * WG + lid, base + j * WG + lid));
        } else {
            for (uint j = 0; j < ITEMS; ++j) {
                ulong i = base + j * WG + lid;
                if (i < n) acc = rd_op(acc, RD_LOAD(in, i, i));
            }
        }
    }
    T r = rd_wg_reduce(acc, s);
    if (lid == 0) partials[get_group_id(0)] = r;
#endif
}
#endif

/* out[0] = the reduction of partials[0 .. count) (identity when count = 0). */
#if RD_HAS(RD_K_REDUCE_FINAL)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_final(__global const T *partials, uint count, __global T *out)
{
    __local T s[WG];
    const uint lid = (uint)get_local_id(0);
    T acc = IDENT;
#ifdef RD_ORDERED /* in order: work-item lid folds a contiguous part, then the parts in order */
    const uint per = (count + WG - 1) / WG, a = lid * per, b = min(a + per, count);
    for (uint i = a; i < b; ++i) acc = rd_op(acc, partials[i]);
    s[lid] = acc;
    T r = rd_fold_partials(IDENT, s, WG);
#else
    for (uint i = lid; i < count; i += WG) acc = rd_op(acc, partials[i]);
    T r = rd_wg_reduce(acc, s);
#endif
    if (lid == 0) out[0] = r;
}
#endif

/* ---- histogram with even bins -----------------------------------------------
 * Sample x counts when lo <= x < hi (NaN never does); its bin is
 *   floats:   (uint)((x - lo) * scale), scale = bins / (hi - lo) rounded to T
 *             on the host, capped at bins - 1 (rounding near hi)
 *   integers: floor((x - lo) * bins / (hi - lo)), exact (128-bit for 64-bit samples)
 * lo, hi, scale are passed as T's bits in ulong; range = hi - lo as an
 * unsigned integer (integers: x counts when x >= lo and x - lo < range);
 * shift < 64 when range = bins << shift (the bin is then (x - lo) >> shift). counts (bins words) must be zero or hold counts to add to.
 * RD_XF: the bin is the caller's RD_XF(x, i) instead (T uint; x of RD_IN_T),
 * counted where it is below bins; lo, hi, scale, range and shift unused.
 * Work-groups count in local memory when bins <= LBINS (each work-item
 * apart when bins * WG <= LBINS). */
#ifndef RD_UT /* no histogram of a caller's type */
#ifndef LBINS
#define LBINS 1024
#endif

/* floor(P / m) for the 96-bit P = p2:p1:p0 (32-bit limbs) < m * 2^32:
 * restoring division, a bit per step (no funnel shifts: oclgrind lacks them) */
inline uint rd_div96(uint p2, uint p1, uint p0, ulong m)
{
    ulong r = 0;
    uint q = 0;
    for (int i = 95; i >= 0; --i) {
        uint limb = i >= 64 ? p2 : i >= 32 ? p1 : p0;
        ulong top = r >> 63;
        r = (r << 1) + (ulong)((limb >> (i & 31)) & 1u);
        q += q;
        if (top || r >= m) {
            r -= m;
            q += 1u;
        }
    }
    return q;
}

inline int rd_bin(T x, T lo, T hi, T scale, ulong range, uint bins, uint shift, uint *b)
{
#if TK == 2 || TK == 5
    (void)range; (void)shift;
    if (!(x >= lo && x < hi)) return 0;
    T f = (x - lo) * scale;
    *b = f >= (T)bins ? bins - 1 : (uint)f;
    return 1;
#else
    (void)scale; (void)hi;
    if (!(x >= lo)) return 0;
    TB d = (TB)(RD_BITS(x) - RD_BITS(lo));
    if ((ulong)d >= range) return 0; /* x >= hi (hi itself may not fit T: 2^32 for u32) */
    /* range = bins << shift: the same bin, no division. The shift is done
     * in ulong: one bin over a 4-byte type's whole range gives shift 32,
     * and OpenCL takes a 32-bit value's shift count modulo 32. */
    if (shift < 64) {
        *b = (uint)((ulong)d >> shift);
        return 1;
    }
#if TK >= 3
    {   /* the 96-bit product d * bins from 32-bit halves */
        ulong lo_part = (d & 0xffffffffUL) * bins, hi_part = (d >> 32) * bins + (lo_part >> 32);
        *b = rd_div96((uint)(hi_part >> 32), (uint)hi_part, (uint)lo_part, range);
    }
#else
    *b = (uint)(((ulong)d * bins) / range);
#endif
    return 1;
#endif
}

#if RD_HAS(RD_K_HISTOGRAM_EVEN)
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void histogram_even(__global const RD_IN_T *in, ulong n, ulong lo_b, ulong hi_b, ulong scale_b, ulong range, uint bins,
                    uint shift, __global volatile uint *counts COUNT_ARGS)
{
    __local uint h[LBINS];
    const uint lid = (uint)get_local_id(0);
    n = DEVICE_N(n); /* the chunks split the count, not the capacity */
    const T lo = RD_FROM_BITS((TB)lo_b), hi = RD_FROM_BITS((TB)hi_b), scale = RD_FROM_BITS((TB)scale_b);
    /* a histogram per work-item when they all fit (no atomics: CPUs, few
     * bins), else one per work-group with local atomics, else global atomics */
    const int own = (ulong)bins * WG <= LBINS, local_bins = bins <= LBINS;
    const uint words = own ? bins * WG : local_bins ? bins : 0;
    for (uint i = lid; i < words; i += WG) h[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* each work-group a contiguous chunk (work-items WG apart inside it) */
    const ulong chunk = (n + get_num_groups(0) * WG - 1) / (get_num_groups(0) * WG) * WG;
    const ulong end = min(n, (get_group_id(0) + 1) * chunk);
    for (ulong i = get_group_id(0) * chunk + lid; i < end; i += WG) {
        uint b;
#ifdef RD_XF /* a caller's bin (T uint): counted below bins */
        b = RD_XF(in[i], i);
        if (b < bins) {
#else
        if (rd_bin(in[i], lo, hi, scale, range, bins, shift, &b)) {
#endif
            if (own) h[lid * bins + b]++;
            else if (local_bins) atomic_inc(&h[b]);
            else atomic_inc(&counts[b]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (local_bins)
        for (uint i = lid; i < bins; i += WG) {
            uint sum = h[i];
            if (own)
                for (uint w = 1; w < WG; ++w) sum += h[w * bins + i];
            if (sum) atomic_add(&counts[i], sum);
        }
}
#endif
#endif
