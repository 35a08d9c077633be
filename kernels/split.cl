/* clsort compaction kernels: pack, split, partition, select_if (needs
 * common.cl and scan.cl first; built with LOAD_FLAGS and T = uint so tile
 * scans count flags).
 *
 *   KEY_T   element type moved as bits (uchar, ushort, uint or ulong)
 *   VAL_T   value type (uint or ulong), when HAS_VALUES
 *   ELEM_T  the wider of key and value, at least uint: the local staging type
 *   SRC_T   the flags' type (uchar or uint flags), or KEY_T where the flag
 *           comes from the key: KEY_BIT (bit `bit` of the key) or FLAGS_CMP
 *           (the comparison of common.cl's cmp_pass, KT the key's type)
 *
 * One tile-level agent serves every layout (MODE, a kernel argument):
 *   MODE_PACK       the flagged elements, to the front (pack, select_if)
 *   MODE_SPLIT      the unflagged first, then the flagged (clsort_split)
 *   MODE_PARTITION  the flagged first, then the unflagged (clsort_partition)
 * all stable. A tile loads its keys (and values) into registers once, with
 * their flags (from the flag array, or from the key in the register), ranks
 * the flags in local memory (scan_tile_local), learns the flagged count
 * before it (`off`: the decoupled look-back in one pass, compact_lookback;
 * or the tile offsets of a flag scan, compact_tiles), then moves its
 * elements to their ranks in local memory and writes them out with
 * consecutive work-items on consecutive addresses (the scatter as coalesced
 * as the data allows).
 *
 * SPLIT and PARTITION need the flagged total for the second part's start:
 * `ones_total`, counted before the tile pass (count_flags on the look-back
 * path, the flag scan's total on the portable one). The stable unflagged
 * part cannot be placed by a single pass without it: writing it from the
 * end (CUB's DevicePartition) reverses it, and a fix-up pass then reads and
 * writes it again (2 x (key + value) bytes per unflagged element) where the
 * count reads the flags once more (1 or 4 bytes per element for flag
 * arrays, the key for key bits and comparisons). */

#ifndef KEY_T
#define KEY_T uint
#endif
#ifndef ELEM_T
#define ELEM_T uint
#endif
#ifdef HAS_VALUES
#define VAL_ARGS , __global const VAL_T *vals_in, __global VAL_T *vals_out
#else
#define VAL_ARGS
#endif
#if defined(KEY_BIT) || defined(FLAGS_CMP)
#define FLAG_FROM_KEY /* the flag is a function of the key: read once */
#endif

#define MODE_PACK 0u
#define MODE_SPLIT 1u
#define MODE_PARTITION 2u
#define NO_RANK 0xffffffffu
/* count_flags adds tile g's count to word total_at + (g % COUNT_SLOTS) of
 * the status (the host's CLSORT__COUNT_SLOTS): 32 words in different places
 * of the memory system rather than one word every tile's atomic waits on */
#define COUNT_SLOTS 32u
#define RANK_OF(r) ((r) & 0x7fffffffu)
#define FLAG_OF(r) ((r) >> 31)

/* Writes the staged elements buf[0..count) to dst: the first `split_at` go to
 * dst0 + i, the rest to dst1 + (i - split_at). */
#define WRITE_STAGED(buf, count, split_at, dst0, dst1, TYPE)                  \
    for (uint i_ = lid; i_ < (count); i_ += WG) {                             \
        if (i_ < (split_at)) (dst0)[i_] = (TYPE)(buf)[i_];                    \
        else (dst1)[i_ - (split_at)] = (TYPE)(buf)[i_];                       \
    }

/* Phase 1 of a tile: this work-item's elements j*WG+lid (j < ITEMS) into
 * registers (key[], val[]: only the elements a pack keeps, where the flags
 * come first), their exclusive ranks among the tile's flagged elements with
 * the flag in the top bit (rank[]: RANK_OF, FLAG_OF; one register per
 * element, not two), through `tile` (TILE_PADDED words of local memory; free
 * again on return). Returns the tile's flagged count. */
inline uint tile_load_rank(__global const KEY_T *keys_in, __global const SRC_T *flags,
#ifdef HAS_VALUES
                           __global const VAL_T *vals_in, VAL_T *val,
#endif
                           ulong base, ulong n, FLAG_PARAM bit, uint mode, KEY_T *key, uint *rank,
                           __local uint *tile, __local uint *s)
{
    const uint lid = (uint)get_local_id(0);
    for (uint j = 0; j < ITEMS; ++j) {
        const uint k = j * WG + lid;
        const ulong i = base + k;
        KEY_T x = (KEY_T)0;
        uint f = 0u;
#ifdef FLAG_FROM_KEY
        if (i < n) {
            x = keys_in[i];
            f = KEY_FLAG(x, bit);
        }
#else
        f = (uint)LOAD(flags, i, n, bit);
        if (i < n && (f || mode != MODE_PACK)) x = keys_in[i]; /* a pack reads only the keys it keeps */
#endif
        key[j] = x;
#ifdef HAS_VALUES
        val[j] = i < n && (f || mode != MODE_PACK) ? vals_in[i] : (VAL_T)0;
#endif
        rank[j] = f << 31;
        tile[PAD(k)] = f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint ones = scan_tile_local(tile, s);
    for (uint j = 0; j < ITEMS; ++j) rank[j] |= tile[PAD(j * WG + lid)];
    barrier(CLK_LOCAL_MEM_FENCE); /* tile is buf: every rank read before the staging */
    return ones;
}

/* Phase 2, once `ones_before` (the flagged elements before the tile) is
 * known: every element to its place in the tile's output order in local
 * memory (buf, TILE elements), then out to global memory. The first part
 * (the flagged for PACK and PARTITION, the unflagged for SPLIT) starts at
 * its global offset, the second at its own (not for PACK). */
inline void tile_scatter(__global KEY_T *keys_out,
#ifdef HAS_VALUES
                         __global VAL_T *vals_out, const VAL_T *val,
#endif
                         ulong base, ulong n, uint mode, ulong ones_before, ulong ones_total, uint ones,
                         const KEY_T *key, const uint *rank, __local ELEM_T *buf)
{
    const uint lid = (uint)get_local_id(0);
    const uint tile_n = base < n ? (uint)min((ulong)TILE, n - base) : 0u; /* an idle tile: 0 */
    const uint zeros = tile_n - ones;
    const ulong zeros_before = base - ones_before;
    uint first, count; /* the first part's length, the tile's output length */
    ulong dst0, dst1;  /* the parts' global starts */
    if (mode == MODE_PACK) {
        first = count = ones;
        dst0 = dst1 = ones_before;
    } else if (mode == MODE_SPLIT) {
        first = zeros;
        count = tile_n;
        dst0 = zeros_before;
        dst1 = (n - ones_total) + ones_before;
    } else {
        first = ones;
        count = tile_n;
        dst0 = ones_before;
        dst1 = ones_total + zeros_before;
    }
    uint pos[ITEMS];
    for (uint j = 0; j < ITEMS; ++j) {
        const uint k = j * WG + lid;
        uint p = NO_RANK;
        if (base + k < n) {
            const uint r = RANK_OF(rank[j]);
            if (FLAG_OF(rank[j])) p = mode == MODE_SPLIT ? zeros + r : r;
            else if (mode == MODE_SPLIT) p = k - r;
            else if (mode == MODE_PARTITION) p = ones + (k - r);
        }
        pos[j] = p;
        if (p != NO_RANK) buf[p] = (ELEM_T)key[j];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    WRITE_STAGED(buf, count, first, keys_out + dst0, keys_out + dst1, KEY_T)
#ifdef HAS_VALUES
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < ITEMS; ++j)
        if (pos[j] != NO_RANK) buf[pos[j]] = (ELEM_T)val[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    WRITE_STAGED(buf, count, first, vals_out + dst0, vals_out + dst1, VAL_T)
#endif
}

#ifdef HAS_VALUES
#define VAL_REGS VAL_T val[ITEMS];
#define VALS_LOAD vals_in, val,
#define VALS_OUT vals_out, val,
#else
#define VAL_REGS
#define VALS_LOAD
#define VALS_OUT
#endif

/* What the last tile with elements writes to count[0] (when not NULL): the
 * flagged total, for SPLIT the unflagged total. */
#define WRITE_COUNT(g, n, mode, total)                                                        \
    if (count && get_local_id(0) == 0 && (g) == LAST_TILE(n))                                 \
        count[0] = (uint)((mode) == MODE_SPLIT ? (n) - (total) : (total))

/* The local memory of a tile: the flag scan's words and the staging share
 * buf (TILE_PADDED >= TILE elements, of at least 4 bytes). */
#define TILE_LOCALS                                  \
    __local ELEM_T buf[TILE_PADDED];                 \
    __local uint s[PAD(WG) + 1];                     \
    __local uint *tile = (__local uint *)buf;

#ifndef HAVE_LOOKBACK /* the look-back path compacts with compact_lookback only */
/* Portable path: offsets[g] = flagged elements before tile g (reduce_tiles
 * and a scan of the tile sums), ones_total[0] their total (SPLIT,
 * PARTITION). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void compact_tiles(__global const KEY_T *keys_in, __global const SRC_T *flags, ulong n, FLAG_KARGS,
                   __global const uint *offsets, __global const uint *ones_total, __global KEY_T *keys_out,
                   __global uint *count, uint mode VAL_ARGS COUNT_ARGS)
{
    TILE_LOCALS
    FLAG_INIT(bit);
    const uint g = (uint)get_group_id(0);
    const ulong base = (ulong)g * TILE;
    n = DEVICE_N(n); /* an idle tile writes nothing */
    IDLE_RETURN(g > LAST_TILE(n));
    KEY_T key[ITEMS];
    uint rank[ITEMS];
    VAL_REGS
    const uint ones = tile_load_rank(keys_in, flags, VALS_LOAD base, n, bit, mode, key, rank, tile, s);
    const ulong off = offsets[g];
    const ulong total = mode == MODE_PACK ? off + ones : (ulong)ones_total[0];
    tile_scatter(keys_out, VALS_OUT base, n, mode, off, total, ones, key, rank, buf);
    WRITE_COUNT(g, n, mode, off + ones);
}
#endif

#ifdef HAVE_LOOKBACK
/* One pass with the decoupled look-back (status and the spare as in
 * scan_lookback); SPLIT and PARTITION read the flagged total count_flags
 * added up into status[total_at ..] first. The tile loads its keys and
 * values before the look-back, so that their reads overlap the wait. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void compact_lookback(__global const KEY_T *keys_in, __global const SRC_T *flags, ulong n, FLAG_KARGS,
                      __global volatile uint *status LB_SPARE_ARGS, ulong total_at, __global KEY_T *keys_out,
                      __global uint *count, uint mode VAL_ARGS COUNT_ARGS)
{
    TILE_LOCALS
    __local uint tile_id, prefix;
    __local uint win[2 * LB_WINDOW];
    __local int step;
    __local uint lb_acc;
    FLAG_INIT(bit);
    LB_SPARE_CLEAR();
    n = DEVICE_N(n);
    const uint g = lb_ticket(status, &tile_id); /* an idle tile publishes 0 */
    IDLE_RETURN(g > LAST_TILE(n)); /* (or nothing: no tile with elements waits on a later one) */
    const ulong base = (ulong)g * TILE;
    KEY_T key[ITEMS];
    uint rank[ITEMS];
    VAL_REGS
    const uint ones = tile_load_rank(keys_in, flags, VALS_LOAD base, n, bit, mode, key, rank, tile, s);
    ulong total = 0;
    if (mode != MODE_PACK) { /* the same for the whole work-group: its barriers are reached by all */
        uint part = 0u;
        for (uint k = get_local_id(0); k < COUNT_SLOTS; k += WG) part += status[total_at + k];
        total = wg_reduce(part, s);
    }
#ifdef FLAG_FROM_KEY
#define LB_SRC keys_in /* the fallback sums a tile's flags from its source */
#else
#define LB_SRC flags
#endif
    const uint off = lb_exclusive_prefix(status, g, LAST_TILE(n), ones, (__global uint *)0, win, &lb_acc, &step,
                                         &prefix LB_INPUT(LB_SRC, n, bit, s));
    if (mode == MODE_PACK) total = (ulong)off + ones;
    tile_scatter(keys_out, VALS_OUT base, n, mode, off, total, ones, key, rank, buf);
    WRITE_COUNT(g, n, mode, (ulong)off + ones);
}

/* The flagged total before compact_lookback's SPLIT or PARTITION: each tile
 * adds its count to status[total_at + g % COUNT_SLOTS] (zero on entry).
 * Work-group i counts tile groups - 1 - i: work-groups start roughly in
 * order, so the last input this pass reads is the first that
 * compact_lookback reads, still in the device's cache where it fits (the
 * whole input at 2^20 u32 keys on an H100's 50 MB L2, about its first
 * 50 MB beyond). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void count_flags(__global const SRC_T *in, ulong n, FLAG_KARGS, __global volatile uint *status, ulong total_at
                 COUNT_ARGS)
{
    __local uint s[WG];
    FLAG_INIT(bit);
    const uint lid = (uint)get_local_id(0);
    const uint g = (uint)(get_num_groups(0) - 1 - get_group_id(0));
    n = DEVICE_N(n);
    IDLE_RETURN(g > LAST_TILE(n));
    const ulong base = (ulong)g * TILE;
    uint sum = 0u;
    for (uint j = 0; j < ITEMS; ++j) sum += (uint)LOAD(in, base + j * WG + lid, n, bit);
    const uint r = wg_reduce(sum, s);
    if (lid == 0 && r) atomic_add(&status[total_at + (g & (COUNT_SLOTS - 1u))], r);
}
#endif
