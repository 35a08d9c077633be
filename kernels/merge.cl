/* clsort_merge (needs common.cl and keys.cl first): a stable merge of two
 * sorted key arrays a (n keys) and b (m keys) by merge path (Green,
 * McColl & Bader 2012; Odeh et al. 2012), with optional values.
 *
 * Keys compare as their images (keys.cl: to_image with kind and flip, the
 * order of clsort_sort, descending with flip = ~0). On equal images a's key
 * comes first, so the merge is stable. Output q of the merge lies on
 * diagonal q of the grid a x b: the split of diagonal d is the count i of
 * a's keys among the first d outputs (the rest, d - i, are b's).
 *
 *   merge_partition  one work-item per tile boundary: the split of diagonal
 *                    t * TILE, by binary search over a and b in global
 *                    memory (tiles + 1 splits).
 *   merge_tiles      one work-group per tile of TILE outputs: loads its
 *                    ranges of a and b (images) into local memory, each
 *                    work-item finds the split of its ITEMS outputs by a
 *                    binary search there and merges them serially, the
 *                    merged tile goes back through local memory and out
 *                    coalesced (values: read from a's or b's range by the
 *                    source position each output kept).
 *
 * a_off, b_off and out_off: where a, b and out (and their values) start in
 * their buffers, in items, so that one buffer of runs can be merged pairwise
 * in place of sub-buffers (whose origins must be aligned); 0 for
 * clsort_merge. n + m < 2^32 (the host checks). Unsorted inputs give an unspecified order
 * but every read and write stays inside the arrays: a tile's share of a is
 * clamped to what both arrays hold. Build-time macros: WG, ITEMS (common.cl),
 * KEY_T and KEY_BYTES (keys.cl), HAS_VALUES with VAL_T. */

#define MERGE_LOCAL (PAD(TILE) + 1)

/* The split of diagonal d: how many of the first d outputs come from a. */
inline uint merge_split(__global const KEY_T *a, uint n, __global const KEY_T *b, uint m, uint d, uint kind,
                        KEY_T flip)
{
    uint lo = max(d, m) - m, hi = min(d, n);
    while (lo < hi) {
        uint mid = lo + (hi - lo) / 2u;
        if (to_image(a[mid], kind, flip) <= to_image(b[d - 1u - mid], kind, flip)) lo = mid + 1u;
        else hi = mid;
    }
    return lo;
}

__kernel void merge_partition(__global const KEY_T *a, uint n, __global const KEY_T *b, uint m,
                              __global uint *splits, uint tiles, uint kind, KEY_T flip, uint a_off, uint b_off)
{
    uint t = (uint)get_global_id(0);
    if (t > tiles) return;
    a += a_off;
    b += b_off;
    ulong d = (ulong)t * TILE;
    ulong total = (ulong)n + m;
    splits[t] = merge_split(a, n, b, m, (uint)(d < total ? d : total), kind, flip);
}

__kernel void merge_tiles(__global const KEY_T *a, uint n, __global const KEY_T *b, uint m,
                          __global const uint *splits, __global KEY_T *out, uint kind, KEY_T flip, uint a_off,
                          uint b_off, uint out_off
#ifdef HAS_VALUES
                          , __global const VAL_T *va, __global const VAL_T *vb, __global VAL_T *vout
#endif
                          )
{
    __local KEY_T s[MERGE_LOCAL];
#ifdef HAS_VALUES
    __local uint from[MERGE_LOCAL];
#endif
    const uint lid = (uint)get_local_id(0), g = (uint)get_group_id(0);
    const uint total = n + m, d0 = g * (uint)TILE;
    const uint cnt = min(total - d0, (uint)TILE);
    const uint i0 = splits[g], i1 = splits[g + 1u], j0 = d0 - i0;
    /* a's share of the tile, within what a and b hold past i0 and j0 */
    /* (max(x, y) - y rather than x > y ? x - y : 0, which clang makes an
     * llvm.usub.sat that oclgrind lacks) */
    const uint lo = max(cnt, m - j0) - (m - j0), hi = min(cnt, n - i0);
    const uint na = min(max(max(i1, i0) - i0, lo), hi);
    const uint nb = cnt - na;
    a += a_off, b += b_off, out += out_off; /* the runs of one buffer (the MPI sort's merge) */
#ifdef HAS_VALUES
    va += a_off, vb += b_off, vout += out_off;
#endif
    for (uint q = lid; q < cnt; q += WG) s[PAD(q)] = to_image(q < na ? a[i0 + q] : b[j0 + (q - na)], kind, flip);
    barrier(CLK_LOCAL_MEM_FENCE);

    /* this work-item's outputs [dd, dd + ITEMS): the split of dd in the tile */
    const uint dd = lid * ITEMS < cnt ? lid * ITEMS : cnt;
    uint l = max(dd, nb) - nb, h = min(dd, na);
    while (l < h) {
        uint mid = l + (h - l) / 2u;
        if (s[PAD(mid)] <= s[PAD(na + dd - 1u - mid)]) l = mid + 1u;
        else h = mid;
    }
    uint ia = l, ib = dd - l;
    KEY_T k[ITEMS];
    uint src[ITEMS];
    for (uint j = 0; j < ITEMS; ++j) {
        int take_a = ia < na && (ib >= nb || s[PAD(ia)] <= s[PAD(na + ib)]);
        uint q = take_a ? ia : na + ib;
        k[j] = q < cnt ? s[PAD(q)] : (KEY_T)0;
        src[j] = q;
        ia += take_a ? 1u : 0u;
        ib += take_a ? 0u : 1u;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < ITEMS; ++j)
        if (dd + j < cnt) {
            s[PAD(dd + j)] = k[j];
#ifdef HAS_VALUES
            from[PAD(dd + j)] = src[j];
#endif
        }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint q = lid; q < cnt; q += WG) {
        out[d0 + q] = from_image(s[PAD(q)], kind, flip);
#ifdef HAS_VALUES
        uint f = from[PAD(q)];
        vout[d0 + q] = f < na ? va[i0 + f] : vb[j0 + (f - na)];
#endif
    }
}
