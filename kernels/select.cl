/* clsort_select_if's flags (needs common.cl first): flags[i] = 1 where key i
 * passes the comparison cmp (clsort_compare) with the bounds a (and b), else
 * 0; the split family's pack then keeps the keys whose flag is set. KT is the
 * key's OpenCL C type, compared as a number of that type (floats by IEEE
 * rules: a NaN key passes only NOT_EQUAL). The comparison is an argument, so
 * that one program per key type serves all of them (every work-item takes
 * the same case).
 * One key per work-item; with a device count (COUNT_ARGS) the keys below it
 * only: the pack that follows reads no flag past it. */
__kernel void select_flags(__global const KT *keys, __global uchar *flags, ulong cap, KT a, KT b,
                           uint cmp COUNT_ARGS)
{
    ulong i = get_global_id(0);
    if (i >= DEVICE_N(cap)) return;
    KT k = keys[i];
    int pass;
    switch (cmp) {
    case 0: pass = k < a; break;
    case 1: pass = k <= a; break;
    case 2: pass = k > a; break;
    case 3: pass = k >= a; break;
    case 4: pass = k == a; break;
    case 5: pass = k != a; break;
    default: pass = a <= k && k < b; break;
    }
    flags[i] = pass ? (uchar)1 : (uchar)0;
}
