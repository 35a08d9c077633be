/* clsort_lower_bound / clsort_upper_bound (needs common.cl and keys.cl
 * first): for each needle, the first position of the sorted haystack whose
 * key is not before it (lower bound: hay[i] >= x in the sort's order) or is
 * after it (upper bound: hay[i] > x). Keys are compared through their images
 * (keys.cl: the order of clsort_sort, -0 before +0, NaNs after +inf; flip ~0
 * for a descending haystack), so one program serves both orders and both
 * bounds (the argument `upper`). Build-time macros: KEY_T / KEY_BYTES (the
 * key's bits), KIND (0 unsigned, 1 signed, 2 float), IDX_T (uint or ulong:
 * the result, and the positions' arithmetic), WG, ITEMS, and either
 * SAMPLE_MAX (the binary search: search_sample, search_bound) or
 * SEARCH_MERGE (sorted needles by merge path: search_partition,
 * search_merge). */

#ifndef IDX_T
#define IDX_T uint
#endif

/* Key image a comes before needle image b in the merged order: a < b
 * (lower bound: needles go before equal keys) or a <= b (upper bound). */
#define BEFORE(a, b) (upper ? (a) <= (b) : (a) < (b))
#define IMG(x) to_image((x), KIND, flip)

#ifndef SEARCH_MERGE
/* The top of the search in local memory: s = 2^k - 1 keys of the haystack,
 * the images of hay[p_j], p_j = ((j + 1) * n) >> k, j < s (a shift, not a
 * 64-bit division), written once per call to scratch by search_sample and
 * read, coalesced, by each work-group of search_bound. A needle's first k
 * steps then run in local memory: the count c of samples before it bounds
 * its answer to [p_{c-1} + 1, p_c] (0 and n at the ends), about n / 2^k
 * keys, searched in global memory. */
__kernel void search_sample(__global const KEY_T *hay, ulong n, uint k, KEY_T flip, __global KEY_T *sample)
{
    uint j = get_global_id(0);
    if (j >= (1u << k) - 1u) return;
    sample[j] = IMG(hay[((ulong)(j + 1) * n) >> k]);
}

/* ITEMS needles per work-item (WG apart: the loads coalesce), searched in
 * lock step so that each step's ITEMS global loads are in flight together.
 * With a device count (COUNT_ARGS) the needles below it only. */
__kernel void search_bound(__global const KEY_T *hay, ulong n, __global const KEY_T *needles, ulong m,
                           __global const KEY_T *sample, uint k, KEY_T flip, uint upper, __global IDX_T *out COUNT_ARGS)
{
    __local KEY_T top[SAMPLE_MAX];
    uint s = (1u << k) - 1u, lid = get_local_id(0), j, i;
    for (j = lid; j < s; j += WG) top[j] = sample[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    m = DEVICE_N(m);
    ulong base = (ulong)get_group_id(0) * (WG * ITEMS) + lid;
    KEY_T x[ITEMS];
    IDX_T lo[ITEMS], len[ITEMS];
#pragma unroll
    for (i = 0; i < ITEMS; ++i) {
        ulong e = base + (ulong)i * WG;
        x[i] = e < m ? IMG(needles[e]) : (KEY_T)0;
        /* in local memory: c = the samples before the needle */
        uint c = 0, l = e < m ? s : 0u;
        while (l > 0) {
            uint hw = l >> 1;
            if (BEFORE(top[c + hw], x[i])) c += hw + 1, l -= hw + 1;
            else l = hw;
        }
        IDX_T a = c ? (IDX_T)((((ulong)c * n) >> k) + 1) : (IDX_T)0;
        IDX_T b = c < s ? (IDX_T)(((ulong)(c + 1) * n) >> k) : (IDX_T)n;
        lo[i] = a;
        len[i] = e < m ? b - a : (IDX_T)0;
    }
    /* in global memory, all ITEMS needles a step at a time */
    for (;;) {
        int busy = 0;
#pragma unroll
        for (i = 0; i < ITEMS; ++i) {
            if (len[i] > 0) {
                IDX_T hw = len[i] >> 1;
                if (BEFORE(IMG(hay[lo[i] + hw]), x[i])) lo[i] += hw + 1, len[i] -= hw + 1;
                else len[i] = hw;
                busy = 1;
            }
        }
        if (!busy) break;
    }
    for (i = 0; i < ITEMS; ++i) {
        ulong e = base + (ulong)i * WG;
        if (e < m) out[e] = lo[i];
    }
}
#else
/* Sorted needles: the merge of the haystack (A, n keys) and the needles (B,
 * m keys), A[i] before B[j] when BEFORE(A[i], B[j]); a needle's answer is
 * the number of keys merged before it. Work-group g takes the merged items
 * [g TILE, (g + 1) TILE): search_partition finds, for each tile start d,
 * how many of its first d items are keys (a binary search along the
 * diagonal, one work-item per tile), and search_merge loads its keys and
 * needles to local memory (each read once, coalesced), splits its tile
 * among its work-items the same way, merges ITEMS items each and writes
 * its needles' answers coalesced. The haystack is read once: for m needles
 * far fewer than the n keys the host takes the binary search instead.
 * Needles out of order give answers in [0, n] without meaning. */
__kernel void search_partition(__global const KEY_T *hay, ulong n, __global const KEY_T *needles, ulong m,
                               KEY_T flip, uint upper, __global ulong *part, ulong tiles COUNT_ARGS)
{
    ulong t = get_global_id(0);
    if (t > tiles) return;
    m = DEVICE_N(m);
    ulong total = n + m, d = min(t * TILE, total);
    ulong lo = max(d, m) - m, hi = min(d, n);
    while (lo < hi) {
        ulong mid = lo + ((hi - lo) >> 1);
        if (BEFORE(IMG(hay[mid]), IMG(needles[d - 1 - mid]))) lo = mid + 1;
        else hi = mid;
    }
    part[t] = lo;
}

__kernel void search_merge(__global const KEY_T *hay, ulong n, __global const KEY_T *needles, ulong m,
                           KEY_T flip, uint upper, __global const ulong *part, __global IDX_T *out COUNT_ARGS)
{
    __local KEY_T v[TILE];    /* the tile's keys, then its needles */
    __local uint where[TILE]; /* per needle: the keys of the tile before it */
    uint lid = get_local_id(0), j;
    m = DEVICE_N(m);
    ulong g = get_group_id(0), total = n + m;
    ulong d0 = min(g * TILE, total), d1 = min(d0 + TILE, total);
    ulong a0 = part[g], a1 = part[g + 1];
    ulong b0 = d0 - a0;
    uint na = (uint)(a1 - a0), nt = (uint)(d1 - d0), nb = nt - na;
    for (j = lid; j < nt; j += WG) v[j] = j < na ? IMG(hay[a0 + j]) : IMG(needles[b0 + (j - na)]);
    barrier(CLK_LOCAL_MEM_FENCE);
    uint dd = min(lid * ITEMS, nt), lo = max(dd, nb) - nb, hi = min(dd, na);
    while (lo < hi) {
        uint mid = (lo + hi) >> 1;
        if (BEFORE(v[mid], v[na + dd - 1 - mid])) lo = mid + 1;
        else hi = mid;
    }
    uint ai = lo, bi = dd - lo, end = min(dd + ITEMS, nt);
    for (j = dd; j < end; ++j) {
        if (ai < na && (bi >= nb || BEFORE(v[ai], v[na + bi]))) ++ai;
        else where[bi++] = ai;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (j = lid; j < nb; j += WG) out[b0 + j] = (IDX_T)(a0 + where[j]);
}
#endif
