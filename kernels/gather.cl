/* clsort gather and copy kernels (need common.cl first). Used by the radix
 * sort (values through the permutation), the bitonic sort, binning
 * (attributes) and clsort_gather. */

/* dst[i] = src[idx[i]] for elements of `unit` TYPEs: gather_vec4 / vec2 /
 * words move 16-, 8- or 4-byte pieces (the widest that divides the element),
 * gather_bytes bytes, for sizes not a multiple of 4. An index at or past
 * src_count yields a zero element (never a read outside src). One piece per
 * work-item; the element number comes from a 32-bit division where it fits
 * (64-bit division is a long software routine on GPUs) and from none when an
 * element is one piece. */
#ifndef GATHER_MANY
#define DEFINE_GATHER(name, TYPE)                                                                   \
    __kernel void name(__global const TYPE *src, __global TYPE *dst, __global const uint *idx, ulong n, \
                       uint unit, ulong src_count COUNT_ARGS)                                       \
    {                                                                                               \
        ulong i = get_global_id(0), e, w;                                                           \
        n = DEVICE_N(n);                                                                            \
        if (i >= n * unit) return;                                                                  \
        if (unit == 1) e = i, w = 0;                                                                \
        else if (i <= 0xffffffffUL) e = (uint)i / unit, w = (uint)i - (uint)e * unit;               \
        else e = i / unit, w = i - e * unit;                                                        \
        uint from = idx[e];                                                                         \
        dst[i] = from < src_count ? src[(ulong)from * unit + w] : (TYPE)(0);                        \
    }
DEFINE_GATHER(gather_vec4, uint4)
DEFINE_GATHER(gather_vec2, uint2)
DEFINE_GATHER(gather_words, uint)
DEFINE_GATHER(gather_bytes, uchar)

/* dst[i] = src[i] for count 32-bit words (with a device count: at most
 * unit words per counted element): the sort's copies into its scratch
 * (a kernel rather than clEnqueueCopyBuffer, so that kernel checkers such as
 * oclgrind see the sub-buffer's words as initialized). */
__kernel void copy_words(__global const uint *src, __global uint *dst, ulong count, ulong unit COUNT_ARGS)
{
    ulong i = get_global_id(0);
    if (dev_count) count = min(count, (ulong)dev_count[dev_count_at] * unit);
    if (i < count) dst[i] = src[i];
}

/* The same for count bytes: copies of 8- or 16-bit keys or of 1- and 2-byte
 * values whose size is not a multiple of 4, or of buffers at odd addresses. */
__kernel void copy_bytes(__global const uchar *src, __global uchar *dst, ulong count, ulong unit COUNT_ARGS)
{
    ulong i = get_global_id(0);
    if (dev_count) count = min(count, (ulong)dev_count[dev_count_at] * unit);
    if (i < count) dst[i] = src[i];
}

/* A caller's sort key (clsort_sort with desc.user_op.transform; the host
 * puts the generated source of >>reduce's clsort__user_text first, which
 * defines RD_XF, RD_IN_T the record and T the key type): keys[i] = the key
 * of record i. */
#ifdef RD_XF
__kernel void user_keys(__global const RD_IN_T *rec, __global T *keys, ulong n COUNT_ARGS)
{
    ulong i = get_global_id(0);
    n = DEVICE_N(n);
    if (i < n) keys[i] = RD_XF(rec[i], i);
}
#endif
#else
/* clsort_gather_many (its own program, -DGATHER_MANY): one index array
 * applied to up to 8 arrays in one launch, the index read once. Array a has
 * elements of shape: (units << 4) | log2(piece), units pieces of 1, 2, 4, 8
 * or 16 bytes (the widest that divides the element and both buffers'
 * alignment), and holds count elements on its indexed side (gather: src,
 * scatter: dst). Gather: dst[i] = src[idx[i]], an index at or past count
 * gives a zero element; scatter: dst[idx[i]] = src[i], such an index writes
 * nothing. One element per work-item, every array in turn. */
#define MOVE_PIECES(TYPE)                                                                             \
    {                                                                                                 \
        __global const TYPE *s_ = (__global const TYPE *)src;                                         \
        __global TYPE *d_ = (__global TYPE *)dst;                                                     \
        if (units == 1) d_[to] = ok ? s_[from] : (TYPE)(0); /* most elements: one piece */          \
        else for (u = 0; u < units; ++u) d_[to * units + u] = ok ? s_[from * units + u] : (TYPE)(0);  \
    }
inline void move_element(__global const uchar *src, __global uchar *dst, ulong from, ulong to, int ok, uint shape)
{
    uint units = shape >> 4, u;
    switch (shape & 15u) {
    case 4: MOVE_PIECES(uint4) break;
    case 3: MOVE_PIECES(uint2) break;
    case 2: MOVE_PIECES(uint) break;
    case 1: MOVE_PIECES(ushort) break;
    default: MOVE_PIECES(uchar) break;
    }
}

#define ARRAY_ARGS(k) , __global const uchar *src##k, __global uchar *dst##k, ulong count##k, uint shape##k
#define MOVE_ARRAY(k)                                                                                  \
    if (arrays > k) {                                                                                  \
        if (scatter) {                                                                                 \
            if (j < count##k) move_element(src##k, dst##k, i, j, 1, shape##k);                        \
        } else {                                                                                       \
            move_element(src##k, dst##k, j, i, j < count##k, shape##k);                               \
        }                                                                                              \
    }
__kernel void gather_many(__global const uint *idx, ulong n, uint arrays, uint scatter ARRAY_ARGS(0) ARRAY_ARGS(1)
                          ARRAY_ARGS(2) ARRAY_ARGS(3) ARRAY_ARGS(4) ARRAY_ARGS(5) ARRAY_ARGS(6) ARRAY_ARGS(7)
                          COUNT_ARGS)
{
    ulong i = get_global_id(0);
    if (i >= DEVICE_N(n)) return;
    ulong j = idx[i];
    MOVE_ARRAY(0) MOVE_ARRAY(1) MOVE_ARRAY(2) MOVE_ARRAY(3) MOVE_ARRAY(4) MOVE_ARRAY(5) MOVE_ARRAY(6) MOVE_ARRAY(7)
}
#endif
