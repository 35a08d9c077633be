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
 * nothing. One element per work-item: every array's element is read first,
 * then every one written, so that a work-item has all its reads in flight at
 * once (a read after another array's write would wait for it: the buffers
 * may alias as far as the compiler knows; RESULTS.md, Search, gather_many). */
/* Word k of x, and x with word k or'ed with v (no private arrays: oclgrind's
 * uninitialized-value check fails on them here). */
inline uint word_of(uint4 x, uint k) { return k == 0 ? x.x : k == 1 ? x.y : k == 2 ? x.z : x.w; }
inline uint4 or_word(uint4 x, uint k, uint v)
{
    return x | (uint4)(k == 0 ? v : 0u, k == 1 ? v : 0u, k == 2 ? v : 0u, k == 3 ? v : 0u);
}

/* Element `at` of an array of `shape` as 16 bytes (the rest zero), or zeros where !ok. */
inline uint4 read_element(__global const uchar *src, ulong at, int ok, uint shape)
{
    const uint units = shape >> 4, piece = shape & 15u;
    uint4 x = (uint4)(0u);
    if (!ok) return x;
    for (uint u = 0; u < units; ++u) { /* little-endian pieces into the words; most elements are one piece */
        ulong k = at * units + u;
        switch (piece) {
        case 4: x = ((__global const uint4 *)src)[k]; break;
        case 3: {
            uint2 p = ((__global const uint2 *)src)[k];
            x = or_word(or_word(x, 2 * u, p.x), 2 * u + 1, p.y);
            break;
        }
        case 2: x = or_word(x, u, ((__global const uint *)src)[k]); break;
        case 1: x = or_word(x, u >> 1, (uint)((__global const ushort *)src)[k] << (16 * (u & 1))); break;
        default: x = or_word(x, u >> 2, (uint)src[k] << (8 * (u & 3))); break;
        }
    }
    return x;
}

/* Writes element `at` of an array of `shape` from the 16 bytes of x. */
inline void write_element(__global uchar *dst, ulong at, uint4 x, uint shape)
{
    const uint units = shape >> 4, piece = shape & 15u;
    for (uint u = 0; u < units; ++u) {
        ulong k = at * units + u;
        switch (piece) {
        case 4: ((__global uint4 *)dst)[k] = x; break;
        case 3: ((__global uint2 *)dst)[k] = (uint2)(word_of(x, 2 * u), word_of(x, 2 * u + 1)); break;
        case 2: ((__global uint *)dst)[k] = word_of(x, u); break;
        case 1: ((__global ushort *)dst)[k] = (ushort)(word_of(x, u >> 1) >> (16 * (u & 1))); break;
        default: dst[k] = (uchar)(word_of(x, u >> 2) >> (8 * (u & 3))); break;
        }
    }
}

#define ARRAY_ARGS(k) , __global const uchar *src##k, __global uchar *dst##k, ulong count##k, uint shape##k
/* array k's element into x[k] (gather: from idx[i], zero past count; scatter: from i where idx[i] is below count) */
#define READ_ARRAY(k) \
    const uint4 x##k = arrays > k ? read_element(src##k, scatter ? i : j, j < count##k, shape##k) : (uint4)(0u);
#define WRITE_ARRAY(k) \
    if (arrays > k && (!scatter || j < count##k)) write_element(dst##k, scatter ? j : i, x##k, shape##k);
__kernel void gather_many(__global const uint *idx, ulong n, uint arrays, uint scatter ARRAY_ARGS(0) ARRAY_ARGS(1)
                          ARRAY_ARGS(2) ARRAY_ARGS(3) ARRAY_ARGS(4) ARRAY_ARGS(5) ARRAY_ARGS(6) ARRAY_ARGS(7)
                          COUNT_ARGS)
{
    ulong i = get_global_id(0);
    if (i >= DEVICE_N(n)) return;
    ulong j = idx[i];
    READ_ARRAY(0) READ_ARRAY(1) READ_ARRAY(2) READ_ARRAY(3) READ_ARRAY(4) READ_ARRAY(5) READ_ARRAY(6) READ_ARRAY(7)
    WRITE_ARRAY(0) WRITE_ARRAY(1) WRITE_ARRAY(2) WRITE_ARRAY(3) WRITE_ARRAY(4) WRITE_ARRAY(5) WRITE_ARRAY(6)
    WRITE_ARRAY(7)
}
#endif
