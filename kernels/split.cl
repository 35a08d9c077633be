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

/* Moves this tile's keys (and values) to their ranks in local memory, then
 * writes them out. rank[j] is the tile rank of element j*WG+lid, or ~0 to drop. */
inline void stage_and_write(__global const KEY_T *keys_in, __global KEY_T *keys_out0,
                            __global KEY_T *keys_out1,
#ifdef HAS_VALUES
                            __global const VAL_T *vals_in, __global VAL_T *vals_out0,
                            __global VAL_T *vals_out1,
#endif
                            ulong base, ulong n, const uint *rank, uint count, uint split_at,
                            __local ELEM_T *buf)
{
    const uint lid = (uint)get_local_id(0);
    for (uint j = 0; j < ITEMS; ++j) {
        uint k = j * WG + lid;
        if (base + k < n && rank[j] != 0xffffffffu) buf[rank[j]] = (ELEM_T)keys_in[base + k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    WRITE_STAGED(buf, count, split_at, keys_out0, keys_out1, KEY_T)
#ifdef HAS_VALUES
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < ITEMS; ++j) {
        uint k = j * WG + lid;
        if (base + k < n && rank[j] != 0xffffffffu) buf[rank[j]] = (ELEM_T)vals_in[base + k];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    WRITE_STAGED(buf, count, split_at, vals_out0, vals_out1, VAL_T)
#endif
}

/* Flags of this work-item's elements (striped) and their exclusive ranks among
 * the set flags of the tile. Returns the tile's count of set flags. */
inline uint rank_flags(__global const SRC_T *flags, ulong base, ulong n, uint bit,
                       __local uint *tile, __local uint *s, uint *flag, uint *pos LOAD_CTX_ARGS)
{
    const uint lid = (uint)get_local_id(0);
    load_tile(flags, base, n, bit, tile LOAD_CTX);
    for (uint j = 0; j < ITEMS; ++j) flag[j] = tile[PAD(j * WG + lid)];
    uint ones = scan_tile_local(tile, s);
    for (uint j = 0; j < ITEMS; ++j) pos[j] = tile[PAD(j * WG + lid)];
    return ones;
}

#ifdef HAS_VALUES
#define VALS_FWD(o0, o1) vals_in, (o0), (o1),
#else
#define VALS_FWD(o0, o1)
#endif

#if !defined(HAVE_LOOKBACK) && SP_HAS(SP_K_PACK_TILES) /* the look-back path packs with pack_lookback only */
/* Stable compaction, portable path. offsets[g] = set flags before tile g
 * (from reduce_tiles + a scan); the last tile with elements writes the kept
 * count. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void pack_tiles(__global const KEY_T *keys_in, __global const SRC_T *flags, ulong n, uint bit,
                __global const uint *offsets, __global KEY_T *keys_out, __global uint *count
                VAL_ARGS LOAD_CTX_ARGS COUNT_ARGS)
{
    __local uint tile[TILE_PADDED];
    __local uint s[PAD(WG) + 1];
    __local ELEM_T buf[TILE];
    const uint lid = (uint)get_local_id(0);
    const uint g = (uint)get_group_id(0);
    const ulong base = (ulong)g * TILE;
    n = DEVICE_N(n); /* an idle tile keeps nothing */
    IDLE_RETURN(g > LAST_TILE(n));
    uint flag[ITEMS], rank[ITEMS];
    uint ones = rank_flags(flags, base, n, bit, tile, s, flag, rank LOAD_CTX);
    for (uint j = 0; j < ITEMS; ++j) if (!flag[j]) rank[j] = 0xffffffffu;
    const uint off = offsets[g];
    stage_and_write(keys_in, keys_out + off, keys_out + off, VALS_FWD(vals_out + off, vals_out + off)
                    base, n, rank, ones, ones, buf);
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
    __local uint tile[TILE_PADDED];
    __local uint s[PAD(WG) + 1];
    __local ELEM_T buf[TILE];
    const uint lid = (uint)get_local_id(0);
    const uint g = (uint)get_group_id(0);
    const ulong base = (ulong)g * TILE;
    n = DEVICE_N(n);
    IDLE_RETURN(g > LAST_TILE(n));
    const uint tile_n = base < n ? (uint)min((ulong)TILE, n - base) : 0u; /* idle: 0 */
    uint flag[ITEMS], rank[ITEMS];
    uint ones = rank_flags(flags, base, n, bit, tile, s, flag, rank LOAD_CTX);
    const uint zeros = tile_n - ones;
    for (uint j = 0; j < ITEMS; ++j) {
        uint k = j * WG + lid;
        rank[j] = flag[j] ? zeros + rank[j] : k - rank[j];
    }
    const uint ones_before = offsets[g];
    const ulong zeros_before = base - ones_before;
    const ulong ones_dst = (n - ones_total[0]) + ones_before;
    stage_and_write(keys_in, keys_out + zeros_before, keys_out + ones_dst,
                    VALS_FWD(vals_out + zeros_before, vals_out + ones_dst)
                    base, n, rank, tile_n, zeros, buf);
}
#endif

#if defined(HAVE_LOOKBACK) && SP_HAS(SP_K_PACK_LOOKBACK)
/* One-pass stable compaction with decoupled look-back (fast path). status
 * and the spare as in scan_lookback. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void pack_lookback(__global const KEY_T *keys_in, __global const SRC_T *flags, ulong n, uint bit,
                   __global volatile uint *status LB_SPARE_ARGS, __global KEY_T *keys_out, __global uint *count
                   VAL_ARGS LOAD_CTX_ARGS COUNT_ARGS)
{
    __local uint tile[TILE_PADDED];
    __local uint s[PAD(WG) + 1];
    __local ELEM_T buf[TILE];
    __local uint tile_id, prefix;
    __local uint win[2 * LB_WINDOW];
    __local int step;
    __local uint lb_acc;
    LB_SPARE_CLEAR();
    n = DEVICE_N(n);
    const uint g = lb_ticket(status, &tile_id); /* an idle tile publishes 0 */
    IDLE_RETURN(g > LAST_TILE(n)); /* (or nothing: no tile with elements waits on a later one) */
    const ulong base = (ulong)g * TILE;
    uint flag[ITEMS], rank[ITEMS];
    uint ones = rank_flags(flags, base, n, bit, tile, s, flag, rank LOAD_CTX);
    for (uint j = 0; j < ITEMS; ++j) if (!flag[j]) rank[j] = 0xffffffffu;
    const uint off = lb_exclusive_prefix(status, g, LAST_TILE(n), ones, count, win, &lb_acc, &step, &prefix LB_INPUT(flags, n, bit, s));
    stage_and_write(keys_in, keys_out + off, keys_out + off, VALS_FWD(vals_out + off, vals_out + off)
                    base, n, rank, ones, ones, buf);
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
