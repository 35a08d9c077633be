/* clsort_top_k (needs common.cl and keys.cl first): the k smallest keys of n
 * by radix select on the key images (keys.cl: to_image with kind and flip,
 * the order of clsort_sort; flip = ~0 makes the k largest the k smallest
 * images), then a stable compaction.
 *
 * The threshold: the image of the k-th smallest key, found 8 bits at a time
 * from the top. Pass p counts, in 256 bins, the digit at `shift` of the keys
 * whose higher bits equal the prefix found so far (top_k_hist), then
 * top_k_pick finds the bin that holds the rem-th of them, appends its digit
 * to the prefix and takes the keys of the lower bins off rem. After the last
 * digit the prefix is the threshold T and rem = need, how many keys equal
 * to T belong to the k (at least 1): the keys below T and the first need
 * keys equal to T, in input order.
 *
 * The compaction (reduce, scan, write): top_k_count counts per tile the keys
 * below T and equal to T, top_k_offsets (one work-group) turns the counts
 * into each tile's output offset and its share of the equal keys,
 * top_k_write writes each tile's chosen keys (values) in input order; a
 * tile that holds none reads nothing.
 *
 * The words of `w` (context scratch, cleared by the host before pass 0):
 *   w[0] rem, w[2], w[3] the prefix (low, high word), w[HIST .. HIST + 256)
 *   the bins, w[TILES + 2t], w[TILES + 2t + 1] tile t's counts (below,
 *   equal) and then its output offset and share of the equal keys,
 *   w[TILES + 2 tiles] = k (the end of the last tile's output).
 * Build-time macros: WG, ITEMS (common.cl; T is uint), KEY_T and KEY_BYTES
 * (keys.cl), HAS_VALUES with VAL_T. */

#define TK_HIST 16u
#define TK_TILES (TK_HIST + 256u)
#define TK_KEY_BITS (KEY_BYTES * 8u)

inline KEY_T tk_prefix(__global const uint *w)
{
#if KEY_BYTES == 8
    return (KEY_T)w[2] | ((KEY_T)w[3] << 32);
#else
    return (KEY_T)w[2];
#endif
}

/* The bits above digit `shift` (none for the top digit). */
inline KEY_T tk_high_mask(uint shift)
{
    return shift + 8u >= TK_KEY_BITS ? (KEY_T)0 : (KEY_T)(~(KEY_T)0 << (shift + 8u));
}

/* Rows of the histogram pass: TK_ROW keys per work-item, loaded before any
 * is counted (loads in flight while the local atomics run). */
#define TK_ROW 4u

/* Bins of the digit at shift over the keys that match the prefix above it:
 * work-group g takes rows g, g + groups, ... of WG x TK_ROW keys, counts in
 * local memory, then adds its non-zero bins to the global ones. */
__kernel void top_k_hist(__global const KEY_T *keys, uint n, __global uint *w, uint shift, uint kind, KEY_T flip)
{
    __local uint h[256];
    const uint lid = (uint)get_local_id(0);
    const KEY_T prefix = tk_prefix(w), high = tk_high_mask(shift);
    for (uint i = lid; i < 256u; i += WG) h[i] = 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong stride = (ulong)get_num_groups(0) * WG * TK_ROW;
    for (ulong base = (ulong)get_group_id(0) * WG * TK_ROW; base < n; base += stride) {
        KEY_T x[TK_ROW];
        for (uint j = 0; j < TK_ROW; ++j) {
            ulong i = base + (ulong)j * WG + lid;
            x[j] = i < n ? keys[i] : (KEY_T)0;
        }
        for (uint j = 0; j < TK_ROW; ++j) {
            KEY_T y = to_image(x[j], kind, flip);
            if (base + (ulong)j * WG + lid < n && ((y ^ prefix) & high) == (KEY_T)0)
                atomic_inc(&h[(uint)(y >> shift) & 255u]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < 256u; i += WG)
        if (h[i]) atomic_add(&w[TK_HIST + i], h[i]);
}

/* One work-item: the bin of the rem-th key (rem = k on the first pass),
 * its digit into the prefix, the bins cleared for the next pass. */
__kernel void top_k_pick(__global uint *w, uint k, uint shift, uint first)
{
    if (get_global_id(0) != 0) return;
    uint rem = first ? k : w[0], below = 0u, d = 0u;
    for (; d < 255u; ++d) {
        uint c = w[TK_HIST + d];
        if (below + c >= rem) break;
        below += c;
    }
    KEY_T prefix = tk_prefix(w) | ((KEY_T)d << shift);
    w[0] = rem - below;
    w[2] = (uint)prefix;
#if KEY_BYTES == 8
    w[3] = (uint)(prefix >> 32);
#endif
    for (uint i = 0; i < 256u; ++i) w[TK_HIST + i] = 0u;
}

/* Tile g (TILE keys, rows of WG): how many keys lie below T and how many
 * equal it. */
__kernel void top_k_count(__global const KEY_T *keys, uint n, __global uint *w, uint kind, KEY_T flip)
{
    __local uint s[WG];
    const uint lid = (uint)get_local_id(0), g = (uint)get_group_id(0);
    const KEY_T t = tk_prefix(w);
    const ulong base = (ulong)g * TILE;
    uint below = 0u, equal = 0u;
    for (uint r = 0; r < ITEMS; ++r) {
        ulong i = base + (ulong)r * WG + lid;
        if (i < n) {
            KEY_T x = to_image(keys[i], kind, flip);
            below += x < t ? 1u : 0u;
            equal += x == t ? 1u : 0u;
        }
    }
    /* at most TILE <= 32768 of each: both in one word */
    uint both = wg_reduce(below | (equal << 16), s);
    if (lid == 0) {
        w[TK_TILES + 2u * g] = both & 0xffffu;
        w[TK_TILES + 2u * g + 1u] = both >> 16;
    }
}

/* One work-group over the tiles' counts in chunks of WG x ITEMS tiles,
 * ITEMS consecutive ones per work-item: tile t's output offset (the chosen
 * keys of the tiles before it) and its share of the equal keys (those of
 * the first need in input order), in place; then k at the end. */
__kernel void top_k_offsets(__global uint *w, uint tiles, uint k)
{
    __local uint s[PAD(WG) + 1];
    const uint lid = (uint)get_local_id(0), need = w[0];
    uint out_carry = 0u, eq_carry = 0u;
    for (uint c = 0; c < tiles; c += TILE) {
        const uint first = c + lid * ITEMS;
        uint eq_sum = 0u, chosen = 0u, total;
        for (uint j = 0; j < ITEMS; ++j)
            if (first + j < tiles) eq_sum += w[TK_TILES + 2u * (first + j) + 1u];
        const uint eq_before = eq_carry + wg_exclusive_scan(eq_sum, s, &total);
        eq_carry += total;
        uint e = eq_before;
        for (uint j = 0; j < ITEMS; ++j)
            if (first + j < tiles) {
                uint equal = w[TK_TILES + 2u * (first + j) + 1u];
                chosen += w[TK_TILES + 2u * (first + j)] + (e >= need ? 0u : min(equal, need - e));
                e += equal;
            }
        uint off = out_carry + wg_exclusive_scan(chosen, s, &total);
        out_carry += total;
        e = eq_before;
        for (uint j = 0; j < ITEMS; ++j)
            if (first + j < tiles) {
                uint t = first + j, below = w[TK_TILES + 2u * t], equal = w[TK_TILES + 2u * t + 1u];
                uint share = e >= need ? 0u : min(equal, need - e);
                w[TK_TILES + 2u * t] = off;
                w[TK_TILES + 2u * t + 1u] = share;
                off += below + share;
                e += equal;
            }
    }
    if (lid == 0) w[TK_TILES + 2u * tiles] = k;
}

/* Tile g's chosen keys (values) to their places: the keys below T and the
 * first `share` keys equal to T, in input order. One scan per row of the
 * counts below and equal (packed); a tile that holds none runs no row. */
__kernel void top_k_write(__global const KEY_T *keys, uint n, __global const uint *w, __global KEY_T *keys_out,
                          uint kind, KEY_T flip
#ifdef HAS_VALUES
                          , __global const VAL_T *values, __global VAL_T *values_out
#endif
                          )
{
    __local uint s[PAD(WG) + 1];
    const uint lid = (uint)get_local_id(0), g = (uint)get_group_id(0);
    const KEY_T t = tk_prefix(w);
    const uint off = w[TK_TILES + 2u * g], share = w[TK_TILES + 2u * g + 1u], end = w[TK_TILES + 2u * g + 2u];
    const ulong base = (ulong)g * TILE;
    const uint rows = end > off ? ITEMS : 0u; /* the same for the whole work-group */
    uint below_carry = 0u, eq_carry = 0u;
    for (uint r = 0; r < rows; ++r) {
        ulong i = base + (ulong)r * WG + lid;
        KEY_T raw = (KEY_T)0, x = (KEY_T)0;
        uint below = 0u, equal = 0u, total;
        if (i < n) {
            raw = keys[i];
            x = to_image(raw, kind, flip);
            below = x < t ? 1u : 0u;
            equal = x == t ? 1u : 0u;
        }
        uint before = wg_exclusive_scan(below | (equal << 16), s, &total);
        uint eq_rank = eq_carry + (before >> 16);
        uint pos = below_carry + (before & 0xffffu) + min(eq_rank, share);
        if (below || (equal && eq_rank < share)) {
            keys_out[off + pos] = raw;
#ifdef HAS_VALUES
            values_out[off + pos] = values[i];
#endif
        }
        below_carry += total & 0xffffu;
        eq_carry += total >> 16;
    }
}
