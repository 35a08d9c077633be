/* clsort scan kernels (needs common.cl first).
 *
 * Two ways to scan any n, chosen by the host per device:
 *  - portable reduce-then-scan: reduce_tiles writes one sum per tile, the tile
 *    sums are scanned (recursively, the seed's "scan of arbitrary size arrays"),
 *    and scan_tiles rescans each tile starting from its tile's prefix.
 *    Reads the input twice, writes it once; needs no inter-work-group waiting.
 *  - scan_lookback: one pass, decoupled look-back. Reads once, writes once.
 *    Only for 32-bit T (a tile's status carries flag + 32 payload bits).
 * With LOAD_FLAGS the same kernels count/enumerate flags (split.cl).
 *
 * SP_KSET: the kernels a split-family program holds, a mask of the SP_K_*
 * bits below (the host's CLSORT__SP_K_* in the same order): each call of
 * the family builds only those it launches, since NVIDIA's driver compiles
 * every kernel of a program at its build. A scan program defines none and
 * holds every kernel of this file. */
#define SP_K_REDUCE_TILES  0x1
#define SP_K_SCAN_TILES    0x2
#define SP_K_SCAN_LOOKBACK 0x4
#define SP_K_PACK_TILES    0x8
#define SP_K_SPLIT_TILES   0x10
#define SP_K_PACK_LOOKBACK 0x20
#define SP_K_COUNT_ZEROS   0x40
#ifndef SP_KSET
#define SP_KSET 0x7f
#endif
#define SP_HAS(k) ((SP_KSET) & (k))

#if SP_HAS(SP_K_REDUCE_TILES)
/* sums[g] = sum of tile g. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void reduce_tiles(__global const SRC_T *in, ulong n, uint bit, __global T *sums LOAD_CTX_ARGS COUNT_ARGS)
{
    __local T s[WG];
    const uint lid = (uint)get_local_id(0);
    n = DEVICE_N(n); /* an idle tile's sum: 0 */
#ifdef IDLE_EXIT
    if (get_group_id(0) > LAST_TILE(n)) {
        if (lid == 0) sums[get_group_id(0)] = (T)0;
        return;
    }
#endif
    const ulong base = (ulong)get_group_id(0) * TILE;
    T sum = (T)0;
    for (uint j = 0; j < ITEMS; ++j) sum += LOAD(in, base + j * WG + lid, n, bit);
    T r = wg_reduce(sum, s);
    if (lid == 0) sums[get_group_id(0)] = r;
}
#endif

#if SP_HAS(SP_K_SCAN_TILES)
/* Scans each tile, starting from offsets[g] (NULL: 0). in may equal out.
 * The last tile with elements writes the grand total to total[0] when total
 * is not NULL. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_tiles(__global const SRC_T *in, __global T *out, ulong n, uint bit,
                __global const T *offsets, uint inclusive, __global T *total LOAD_CTX_ARGS COUNT_ARGS)
{
    __local T tile[TILE_PADDED];
    __local T s[PAD(WG) + 1];
    const uint lid = (uint)get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * TILE;
    n = DEVICE_N(n);
    IDLE_RETURN(get_group_id(0) > LAST_TILE(n));
    const T offset = offsets ? offsets[get_group_id(0)] : (T)0;
    load_tile(in, base, n, bit, tile LOAD_CTX);
    /* keep the inputs for the inclusive variant: reread from local memory */
    T own[ITEMS];
    if (inclusive)
        for (uint j = 0; j < ITEMS; ++j) own[j] = tile[PAD(j * WG + lid)];
    T tsum = scan_tile_local(tile, s);
    for (uint j = 0; j < ITEMS; ++j) {
        uint k = j * WG + lid;
        if (base + k < n) {
            T r = offset + tile[PAD(k)];
            if (inclusive) r += own[j];
            out[base + k] = r;
        }
    }
    if (total && lid == 0 && get_group_id(0) == LAST_TILE(n)) total[0] = offset + tsum;
}
#endif

#if defined(HAVE_LOOKBACK) && SP_HAS(SP_K_SCAN_LOOKBACK)
/* One-pass scan. status holds two words per tile and then the ticket
 * counter, all zero on entry; spare words [lo, hi) are zeroed for the next
 * call (LB_SPARE_ARGS). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_lookback(__global const SRC_T *in, __global T *out, ulong n, uint bit,
                   __global volatile uint *status LB_SPARE_ARGS, uint inclusive, __global T *total
                   LOAD_CTX_ARGS COUNT_ARGS)
{
    __local T tile[TILE_PADDED];
    __local T s[PAD(WG) + 1];
    __local uint tile_id;
    __local T prefix;
    __local uint win[2 * LB_WINDOW];
    __local int step;
    __local T lb_acc;
    const uint lid = (uint)get_local_id(0);
    LB_SPARE_CLEAR();
    n = DEVICE_N(n);
    const uint g = lb_ticket(status, &tile_id); /* an idle tile publishes 0 */
    IDLE_RETURN(g > LAST_TILE(n)); /* (or nothing: no tile with elements waits on a later one) */
    const ulong base = (ulong)g * TILE;
    load_tile(in, base, n, bit, tile LOAD_CTX);
    T own[ITEMS];
    if (inclusive)
        for (uint j = 0; j < ITEMS; ++j) own[j] = tile[PAD(j * WG + lid)];
    T tsum = scan_tile_local(tile, s);
    const T offset = lb_exclusive_prefix(status, g, LAST_TILE(n), tsum, total, win, &lb_acc, &step, &prefix LB_INPUT(in, n, bit, s));
    for (uint j = 0; j < ITEMS; ++j) {
        uint k = j * WG + lid;
        if (base + k < n) {
            T r = offset + tile[PAD(k)];
            if (inclusive) r += own[j];
            out[base + k] = r;
        }
    }
}
#endif
