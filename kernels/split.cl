/* clsort split / pack kernels (needs common.cl and scan.cl first; built with
 * LOAD_FLAGS and T = uint so tile scans count flags).
 *
 *   KEY_T   element type moved as bits (uint or ulong)
 *   VAL_T   value type (uint or ulong), when HAS_VALUES
 *   ELEM_T  the wider of the two: the local staging buffer's type
 *
 * Both kernels rank the elements of one tile in local memory and then write
 * the tile's output with consecutive work-items on consecutive addresses, so
 * the scatter is as coalesced as the data allows. */

#ifndef KEY_T
#define KEY_T uint
#endif
#ifndef ELEM_T
#define ELEM_T KEY_T
#endif
#ifdef HAS_VALUES
#define VAL_ARGS , __global const VAL_T *vals_in, __global VAL_T *vals_out
#else
#define VAL_ARGS
#endif

/* Writes the staged elements buf[0..count) to dst: the first `split_at` go to
 * dst0 + i, the rest to dst1 + (i - split_at). */
#define WRITE_STAGED(buf, count, split_at, dst0, dst1, TYPE)                  \
    for (uint i_ = lid; i_ < (count); i_ += WG) {                             \
        if (i_ < (split_at)) (dst0)[i_] = (TYPE)(buf)[i_];                    \
        else (dst1)[i_ - (split_at)] = (TYPE)(buf)[i_];                       \
    }

/* Moves this tile's keys (and values), held by the work-items in registers
 * (key[j], val[j]: element j*WG+lid), to their ranks in local memory, then
 * writes them out. rank[j] is the tile rank of element j*WG+lid, or ~0 to drop. */
inline void stage_and_write(const KEY_T *key, __global KEY_T *keys_out0, __global KEY_T *keys_out1,
#ifdef HAS_VALUES
                            const VAL_T *val, __global VAL_T *vals_out0, __global VAL_T *vals_out1,
#endif
                            const uint *rank, uint count, uint split_at, __local ELEM_T *buf)
{
    const uint lid = (uint)get_local_id(0);
    for (uint j = 0; j < ITEMS; ++j)
        if (rank[j] != 0xffffffffu) buf[rank[j]] = (ELEM_T)key[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    WRITE_STAGED(buf, count, split_at, keys_out0, keys_out1, KEY_T)
#ifdef HAS_VALUES
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < ITEMS; ++j)
        if (rank[j] != 0xffffffffu) buf[rank[j]] = (ELEM_T)val[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    WRITE_STAGED(buf, count, split_at, vals_out0, vals_out1, VAL_T)
#endif
}

/* ---- a tile's flags and their ranks, in registers ----
 * The flags of row j (element j*WG+lid of every work-item) are counted in
 * one bit field of RF_BITS bits; RF_PER rows share a word, so one
 * work-group scan of RF_WORDS words per work-item (rf_scan_words) gives
 * every element its rank among the set flags of the tile: the ones of the
 * rows before its own plus those of its row left of it. A field holds at
 * most WG (a whole row set), so fields never carry into each other, and
 * nothing goes through a local copy of the tile. */
#if WG < 128
#define RF_BITS 8u
#elif WG < 1024
#define RF_BITS 10u
#else
#define RF_BITS 16u
#endif
#define RF_PER (32u / RF_BITS)
#define RF_WORDS ((ITEMS + RF_PER - 1) / RF_PER)
#define RF_FIELD(words, j) (((words)[(j) / RF_PER] >> (RF_BITS * ((j) % RF_PER))) & ((1u << RF_BITS) - 1u))
/* rf_scan_words' local scratch, in words */
#define RF_SCRATCH (RF_WORDS * WG)

/* The scan of RF_WORDS words per work-item at once: x becomes its exclusive
 * prefix over the work-group, tot the work-group's sums. Two levels: an
 * inclusive scan within each warp of RF_RW consecutive work-items, then
 * every work-item adds the totals of the warps before its own. The warp is
 * the algorithm's, a hardware warp only with -DNV_PTX (shuffles, no barrier);
 * elsewhere Hillis and Steele's steps in local memory between barriers
 * emulate it, so no sub-group width is assumed. The scratch s: RF_WORDS * WG
 * words. Ends with a barrier. */
#define RF_RW (WG < 32 ? WG : 32)
#define RF_NW (WG / RF_RW)
#if defined(NV_PTX) && WG >= 32
#define RF_PTX 1
#endif

/* x[w] becomes its inclusive scan over this work-item's warp. */
inline void rf_warp_scan(uint *x, __local uint *s)
{
    const uint lid = (uint)get_local_id(0), lane = lid % RF_RW;
#ifdef RF_PTX
    (void)s;
    for (uint d = 1; d < RF_RW; d <<= 1)
        for (uint w = 0; w < RF_WORDS; ++w) {
            uint t = wg_shfl_up(x[w], d);
            if (lane >= d) x[w] += t;
        }
#else
    for (uint w = 0; w < RF_WORDS; ++w) s[w * WG + lid] = x[w];
    for (uint d = 1; d < RF_RW; d <<= 1) {
        uint t[RF_WORDS];
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint w = 0; w < RF_WORDS; ++w) t[w] = lane >= d ? s[w * WG + lid - d] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint w = 0; w < RF_WORDS; ++w) s[w * WG + lid] = x[w] += t[w];
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* s is the warp totals' next */
#endif
}

inline void rf_scan_words(uint *x, uint *tot, __local uint *s)
{
    const uint lid = (uint)get_local_id(0), warp = lid / RF_RW;
    uint inc[RF_WORDS];
    for (uint w = 0; w < RF_WORDS; ++w) inc[w] = x[w];
    rf_warp_scan(inc, s);
    if (lid % RF_RW == RF_RW - 1)
        for (uint w = 0; w < RF_WORDS; ++w) s[w * RF_NW + warp] = inc[w];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint w = 0; w < RF_WORDS; ++w) {
        uint before = 0u, all = 0u;
        for (uint k = 0; k < RF_NW; ++k) {
            uint v = s[w * RF_NW + k];
            before += k < warp ? v : 0u;
            all += v;
        }
        x[w] = before + inc[w] - x[w];
        tot[w] = all;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The element's flag, from its key bits where the flag is a key bit, else
 * from the flags at index i (select.cl's predicate: its sel_flags). */
#if defined(KEY_BIT)
#define FLAG_OF(key, flags, i, bit) (((key) >> (bit)) & 1u)
#else
#define FLAG_OF(key, flags, i, bit) ((flags)[i] != 0)
#endif

/* Loads this work-item's elements of the tile at src (element j*WG+lid into
 * dst[j]; past tile_n, 0), without a bound per element when the tile
 * is full. */
#define LOAD_STRIPED(dst, src, tile_n)                                                 \
    do {                                                                               \
        const uint l_ = (uint)get_local_id(0);                                         \
        if ((tile_n) == TILE)                                                          \
            for (uint j_ = 0; j_ < ITEMS; ++j_) (dst)[j_] = (src)[j_ * WG + l_];       \
        else                                                                           \
            for (uint j_ = 0; j_ < ITEMS; ++j_)                                        \
                (dst)[j_] = j_ * WG + l_ < (tile_n) ? (src)[j_ * WG + l_] : 0;         \
    } while (0)

/* The tile's elements (tile_n of them from base) into registers: key[j] (and
 * val[j]) is element j*WG+lid; flag[j] its flag (0 past the end), rank[j]
 * its exclusive rank among the tile's set flags. Returns the tile's count
 * of set flags. */
inline uint rank_flags(__global const KEY_T *keys, __global const SRC_T *flags, ulong base, uint tile_n,
                       uint bit, __local uint *s, KEY_T *key, uint *flag, uint *rank LOAD_CTX_ARGS)
{
    uint x[RF_WORDS], tot[RF_WORDS];
    LOAD_STRIPED(key, keys + base, tile_n);
#ifdef LOAD_PRED
    (void)flags;
    sel_flags(key, flag, base, tile_n, bit LOAD_CTX);
#else
    for (uint j = 0; j < ITEMS; ++j) {
        uint k = j * WG + (uint)get_local_id(0);
        flag[j] = k < tile_n ? (uint)FLAG_OF(key[j], flags, base + k, bit) : 0u;
    }
#endif
    for (uint w = 0; w < RF_WORDS; ++w) x[w] = 0u;
    for (uint j = 0; j < ITEMS; ++j) x[j / RF_PER] += flag[j] << (RF_BITS * (j % RF_PER));
    rf_scan_words(x, tot, s);
    uint ones = 0u;
    for (uint j = 0; j < ITEMS; ++j) {
        rank[j] = ones + RF_FIELD(x, j);
        ones += RF_FIELD(tot, j);
    }
    return ones;
}

/* The tile at base: how many of n's elements it holds. */
inline uint tile_elements(ulong base, ulong n) { return base < n ? (uint)min((ulong)TILE, n - base) : 0u; }

/* A kernel's values in registers beside its keys (VALS_LOAD), and what
 * stage_and_write takes of them (VALS_FWD). */
#ifdef HAS_VALUES
#define VALS_LOAD(base, tile_n) \
    VAL_T val[ITEMS];           \
    LOAD_STRIPED(val, vals_in + (base), tile_n);
#define VALS_FWD(o0, o1) val, (o0), (o1),
#else
#define VALS_LOAD(base, tile_n)
#define VALS_FWD(o0, o1)
#endif

/* The locals of every kernel below: the rank scan's scratch (also the
 * look-back fallback's WG words) and the staging buffer. */
#define SPLIT_LOCALS                 \
    __local uint s[RF_SCRATCH];      \
    __local ELEM_T buf[TILE];        \
    KEY_T key[ITEMS];                \
    uint flag[ITEMS], rank[ITEMS]

#if !defined(HAVE_LOOKBACK) && SP_HAS(SP_K_PACK_TILES) /* the look-back path packs with pack_lookback only */
/* Stable compaction, portable path. offsets[g] = set flags before tile g
 * (from reduce_tiles + a scan); the last tile with elements writes the kept
 * count. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void pack_tiles(__global const KEY_T *keys_in, __global const SRC_T *flags, ulong n, uint bit,
                __global const uint *offsets, __global KEY_T *keys_out, __global uint *count
                VAL_ARGS LOAD_CTX_ARGS COUNT_ARGS)
{
    SPLIT_LOCALS;
    const uint lid = (uint)get_local_id(0);
    const uint g = (uint)get_group_id(0);
    const ulong base = (ulong)g * TILE;
    n = DEVICE_N(n); /* an idle tile keeps nothing */
    IDLE_RETURN(g > LAST_TILE(n));
    const uint tile_n = tile_elements(base, n);
    uint ones = rank_flags(keys_in, flags, base, tile_n, bit, s, key, flag, rank LOAD_CTX);
    VALS_LOAD(base, tile_n)
    for (uint j = 0; j < ITEMS; ++j) if (!flag[j]) rank[j] = 0xffffffffu;
    const uint off = offsets[g];
    stage_and_write(key, keys_out + off, keys_out + off, VALS_FWD(vals_out + off, vals_out + off)
                    rank, ones, ones, buf);
    if (lid == 0 && g == LAST_TILE(n)) count[0] = off + ones;
}
#endif

#if SP_HAS(SP_K_SPLIT_TILES)
/* Stable split: elements with flag 0 first, then flag 1, both in input order.
 * offsets[g] = ones before tile g; ones_total[0] = ones in all n elements. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void split_tiles(__global const KEY_T *keys_in, __global const SRC_T *flags, ulong n, uint bit,
                 __global const uint *offsets, __global const uint *ones_total,
                 __global KEY_T *keys_out VAL_ARGS LOAD_CTX_ARGS COUNT_ARGS)
{
    SPLIT_LOCALS;
    const uint lid = (uint)get_local_id(0);
    const uint g = (uint)get_group_id(0);
    const ulong base = (ulong)g * TILE;
    n = DEVICE_N(n);
    IDLE_RETURN(g > LAST_TILE(n));
    const uint tile_n = tile_elements(base, n); /* idle: 0 */
    uint ones = rank_flags(keys_in, flags, base, tile_n, bit, s, key, flag, rank LOAD_CTX);
    VALS_LOAD(base, tile_n)
    const uint zeros = tile_n - ones;
    for (uint j = 0; j < ITEMS; ++j) {
        uint k = j * WG + lid;
        rank[j] = k >= tile_n ? 0xffffffffu : flag[j] ? zeros + rank[j] : k - rank[j];
    }
    const uint ones_before = offsets[g];
    const ulong zeros_before = base - ones_before;
    const ulong ones_dst = (n - ones_total[0]) + ones_before;
    stage_and_write(key, keys_out + zeros_before, keys_out + ones_dst,
                    VALS_FWD(vals_out + zeros_before, vals_out + ones_dst) rank, tile_n, zeros, buf);
}
#endif

#if defined(HAVE_LOOKBACK) && SP_HAS(SP_K_PACK_LOOKBACK)
/* One-pass stable compaction with decoupled look-back (fast path). status
 * and the spare as in scan_lookback. The tile's keys (and values) are read
 * once, before the look-back, and wait in registers. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void pack_lookback(__global const KEY_T *keys_in, __global const SRC_T *flags, ulong n, uint bit,
                   __global volatile uint *status LB_SPARE_ARGS, __global KEY_T *keys_out, __global uint *count
                   VAL_ARGS LOAD_CTX_ARGS COUNT_ARGS)
{
    SPLIT_LOCALS;
    __local uint tile_id, prefix;
    __local uint win[2 * LB_WINDOW];
    __local int step;
    __local uint lb_acc;
    LB_SPARE_CLEAR();
    n = DEVICE_N(n);
    const uint g = lb_ticket(status, &tile_id); /* an idle tile publishes 0 */
    IDLE_RETURN(g > LAST_TILE(n)); /* (or nothing: no tile with elements waits on a later one) */
    const ulong base = (ulong)g * TILE;
    const uint tile_n = tile_elements(base, n);
    uint ones = rank_flags(keys_in, flags, base, tile_n, bit, s, key, flag, rank LOAD_CTX);
    VALS_LOAD(base, tile_n)
    for (uint j = 0; j < ITEMS; ++j) if (!flag[j]) rank[j] = 0xffffffffu;
    const uint off = lb_exclusive_prefix(status, g, LAST_TILE(n), ones, count, win, &lb_acc, &step, &prefix
                                         LB_INPUT(flags, n, bit, s));
    stage_and_write(key, keys_out + off, keys_out + off, VALS_FWD(vals_out + off, vals_out + off)
                    rank, ones, ones, buf);
}
#endif

#if SP_HAS(SP_K_COUNT_ZEROS)
/* count[0] = the number of zero flags: n minus the ones split_tiles counted
 * (so that a split's zeros count can stay on the device). One work-item. */
__kernel void count_zeros(__global const uint *ones_total, ulong n, __global uint *count COUNT_ARGS)
{
    n = DEVICE_N(n);
    if (get_global_id(0) == 0) count[0] = (uint)(n - ones_total[0]);
}
#endif
