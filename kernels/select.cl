/* clsort_select_if's and clsort_partition's flags, computed where the split
 * family's kernels load them (comes before common.cl, scan.cl and split.cl):
 * LOAD_PRED makes every load of a flag (common.cl's LOAD) the predicate of
 * the key itself, so that select_if is clsort_pack's pass and partition is
 * clsort_split's, reading each key once and no flag array at all. KT is the
 * key's OpenCL C type; the split family's SRC_T is KT and its flag input is
 * the keys.
 *
 * load_pred(k, i, bit, ...) is 1 where key k (index i) passes, with the
 * result inverted where bit's bit 8 is set: the split puts flag 0 first, so
 * partition inverts to put the keys that pass first. The low byte of bit is
 * the comparison (clsort_compare) for the built-in form; it is an argument,
 * so that one program per key type serves all six and the range.
 *
 * Built in (no SEL_PRED): key k against the bounds a (and b), compared as
 * numbers of KT (floats by IEEE rules: a NaN key passes only NOT_EQUAL).
 *
 * SEL_PRED: a caller's predicate (clsort_user_op), sel_user_pred(k, values,
 * i) from the generated text before this file: the caller's name(k) or,
 * with the values' type SEL_VT, name(k, values[i]); values is the keys
 * where the predicate takes no value (never read then). */
#define LOAD_PRED 1
/* A key of KT from its bits (split.cl holds keys as bits): as_float, as_int, ... */
#define SEL_PASTE2(a, b) a##b
#define SEL_PASTE(a, b) SEL_PASTE2(a, b)
#define KT_OF_BITS(bits) SEL_PASTE(as_, KT)(bits)
#if defined(cl_khr_fp64) && defined(NEED_FP64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

#ifdef SEL_PRED
#define LOAD_CTX_ARGS , __global const SEL_VT *sel_values
#define LOAD_CTX , sel_values
inline uint load_pred(KT k, ulong i, uint bit, __global const SEL_VT *values)
{
    return sel_user_pred(k, values, i) ^ (bit >> 8);
}

/* The flags of a work-item's keys at once (split.cl's rank_flags): flag[j]
 * of key[j], the bits of element j*WG+lid of the tile at base, 0 past
 * tile_n (where the predicate is never called: it may read values[i]). */
inline void sel_flags(const KEY_T *key, uint *flag, ulong base, uint tile_n, uint bit,
                      __global const SEL_VT *values)
{
    const uint lid = (uint)get_local_id(0);
    for (uint j = 0; j < ITEMS; ++j) {
        uint k = j * WG + lid;
        flag[j] = k < tile_n ? load_pred(KT_OF_BITS(key[j]), base + k, bit, values) : 0u;
    }
}
#else
#define LOAD_CTX_ARGS , KT sel_a, KT sel_b
#define LOAD_CTX , sel_a, sel_b
/* The comparisons by their code (clsort_compare), each case the statement
 * EACH(the condition on a key k against a and b); one list for load_pred and
 * sel_flags. */
#define SEL_CASES(EACH)        \
    case 0: EACH(k < a);       \
    case 1: EACH(k <= a);      \
    case 2: EACH(k > a);       \
    case 3: EACH(k >= a);      \
    case 4: EACH(k == a);      \
    case 5: EACH(k != a);      \
    default: EACH(a <= k && k < b)

#define SEL_ONE(cond) \
    pass = (cond);    \
    break
inline uint load_pred(KT k, ulong i, uint bit, KT a, KT b)
{
    uint pass;
    (void)i;
    switch (bit & 0xffu) { SEL_CASES(SEL_ONE); }
    return pass ^ (bit >> 8);
}

/* flag[j] = the comparison of every key[j] (a row of keys per case) */
#define SEL_ROW(cond)                          \
    for (uint j = 0; j < ITEMS; ++j) {         \
        KT k = KT_OF_BITS(key[j]);             \
        flag[j] = (cond) ? 1u : 0u;            \
    }                                          \
    break

/* The flags of a work-item's keys at once (split.cl's rank_flags): flag[j]
 * of key[j], the bits of element j*WG+lid of the tile at base, 0 past
 * tile_n. The comparison is chosen once for all of them, not per key, and
 * the keys past tile_n (0, see LOAD_STRIPED) are compared and then dropped. */
inline void sel_flags(const KEY_T *key, uint *flag, ulong base, uint tile_n, uint bit, KT a, KT b)
{
    const uint lid = (uint)get_local_id(0), invert = bit >> 8;
    (void)base;
    switch (bit & 0xffu) { SEL_CASES(SEL_ROW); }
    for (uint j = 0; j < ITEMS; ++j) flag[j] ^= invert;
    if (tile_n != WG * ITEMS)
        for (uint j = 0; j < ITEMS; ++j)
            if (j * WG + lid >= tile_n) flag[j] = 0u;
}
#endif
