/* clsort_select_if's and clsort_partition's flags (needs common.cl first):
 * flags[i] = 1 where key i passes, else 0 (invert = 1: the other way round,
 * for the split that puts flag 0 first); the split family's pack (select_if)
 * or split (partition) then moves the keys by them. KT is the key's OpenCL C
 * type. One key per work-item; with a device count (COUNT_ARGS) the keys
 * below it only: the pack or split that follows reads no flag past it.
 *
 * Built in (no SEL_PRED): the comparison cmp (clsort_compare) with the bounds
 * a (and b), compared as numbers of KT (floats by IEEE rules: a NaN key
 * passes only NOT_EQUAL). The comparison is an argument, so that one program
 * per key type serves all of them (every work-item takes the same case).
 *
 * SEL_PRED: a caller's predicate (clsort_user_op), sel_user_pred(k, values,
 * i) from the generated text before common.cl: the caller's name(k) or, with
 * the values' type SEL_VT, name(k, values[i]); values is keys_in where the
 * predicate takes no value (never read then). */
#ifdef SEL_PRED
__kernel void select_pred(__global const KT *keys, __global const SEL_VT *values, __global uchar *flags,
                          ulong cap, uint invert COUNT_ARGS)
{
    ulong i = get_global_id(0);
    if (i >= DEVICE_N(cap)) return;
    flags[i] = (uchar)(sel_user_pred(keys[i], values, i) ^ invert);
}
#else
__kernel void select_flags(__global const KT *keys, __global uchar *flags, ulong cap, KT a, KT b,
                           uint cmp, uint invert COUNT_ARGS)
{
    ulong i = get_global_id(0);
    if (i >= DEVICE_N(cap)) return;
    KT k = keys[i];
    uint pass;
    switch (cmp) {
    case 0: pass = k < a; break;
    case 1: pass = k <= a; break;
    case 2: pass = k > a; break;
    case 3: pass = k >= a; break;
    case 4: pass = k == a; break;
    case 5: pass = k != a; break;
    default: pass = a <= k && k < b; break;
    }
    flags[i] = (uchar)(pass ^ invert);
}
#endif
