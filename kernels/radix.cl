/* clsort radix sort kernels (needs common.cl first, with T = uint).
 *
 * One pass sorts the keys of [0, n) stably by one digit: `bits` (<= RADIX_BITS)
 * bits of the key's order-preserving image starting at bit `shift`.
 *   1. radix_count:   per tile of TILE keys, how many keys have each digit;
 *                     written digit-major: counts[d * groups + g].
 *   2. (host) an exclusive scan of counts turns it into, for every (digit,
 *      tile), the first output position of that tile's keys with that digit
 *      (all smaller digits of every tile, then this digit in earlier tiles).
 *   3. radix_reorder: each tile sorts itself by the digit in local memory
 *      (stable, LBITS bits per step), then writes the keys out in that order:
 *      consecutive work-items write consecutive addresses inside each digit's
 *      run, so the scatter is as coalesced as the digit distribution allows.
 * Bytes per key and pass: read twice, written once (plus values: read once,
 * written once); the counts add 8 bytes per tile and digit.
 *
 * Build-time macros (set by the host):
 *   KEY_T, KEY_BYTES  uint/4 or ulong/8 (keys are moved as bit patterns)
 *   RADIX_BITS        digit width of the program, 1..12
 *   LBITS             bits ranked per local step (4 on GPUs: 16 counters per
 *                     work-item; 8 on CPUs, whose work-groups are a few long loops)
 *   HAS_VALUES, VAL_T values moved with the keys (uint or ulong)
 *
 * Key images. Signed and float keys are sorted through an order-preserving
 * bijection to unsigned integers, applied when a sort's first pass reads the
 * keys and undone when its last pass writes them:
 *   signed: flip the sign bit.
 *   float:  -inf .. -0 map to 0 .. (negatives reversed), +0 .. +inf and the
 *           positive NaNs follow, the negative NaNs come last. So -0 < +0,
 *           every NaN sorts after +inf, and every bit pattern survives.
 * Descending order xors the image with all ones (still stable). */

#ifndef KEY_T
#define KEY_T uint
#define KEY_BYTES 4
#endif
#ifndef RADIX_BITS
#define RADIX_BITS 8
#endif
#ifndef LBITS
#define LBITS 4
#endif
#define RADIX (1u << RADIX_BITS)
#define LRADIX (1u << LBITS)

#if KEY_BYTES == 8
#define KEY_SIGN 0x8000000000000000UL
#define KEY_NEG_INF 0xfff0000000000000UL
#else
#define KEY_SIGN 0x80000000u
#define KEY_NEG_INF 0xff800000u
#endif
/* how many images the negative non-NaN floats take: -inf .. -0 */
#define KEY_NEG_COUNT (KEY_NEG_INF - KEY_SIGN + (KEY_T)1)

/* kind: 0 unsigned, 1 signed, 2 float; flip: 0 or ~0 (descending) */
inline KEY_T to_image(KEY_T x, uint kind, KEY_T flip)
{
    if (kind == 1) {
        x ^= KEY_SIGN;
    } else if (kind == 2) {
        if (x & KEY_SIGN) x = x > KEY_NEG_INF ? x : KEY_NEG_INF - x;
        else x = x + KEY_NEG_COUNT;
    }
    return x ^ flip;
}

inline KEY_T from_image(KEY_T k, uint kind, KEY_T flip)
{
    k ^= flip;
    if (kind == 1) return k ^ KEY_SIGN;
    if (kind == 2) {
        if (k < KEY_NEG_COUNT) return KEY_NEG_INF - k;
        if (k <= KEY_NEG_INF) return k - KEY_NEG_COUNT;
    }
    return k;
}

inline uint digit_of(KEY_T k, uint shift, uint mask) { return (uint)(k >> shift) & mask; }

#ifndef BITONIC /* the bitonic program takes only the key image and the copy/gather kernels */

/* Copies of the local histogram, so that work-items of one hardware wave
 * counting the same digit (few distinct keys) do not all hit one counter. */
#if WG < 8
#define HIST_COPIES WG
#elif RADIX_BITS <= 9
#define HIST_COPIES 8
#else /* wide digits (up to 12 bits): 16 KiB of copies in all */
#define HIST_COPIES ((4096 >> RADIX_BITS) > 0 ? (4096 >> RADIX_BITS) : 1)
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_count(__global const KEY_T *keys, ulong n, uint shift, uint bits, uint kind, ulong flip,
                 __global uint *counts)
{
    __local uint hist[HIST_COPIES * RADIX];
    const uint lid = (uint)get_local_id(0);
    const uint g = (uint)get_group_id(0);
    const ulong base = (ulong)g * TILE;
    const uint mask = (1u << bits) - 1u;
    for (uint i = lid; i < HIST_COPIES * RADIX; i += WG) hist[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    __local uint *mine = hist + (lid % HIST_COPIES) * RADIX;
    for (uint j = 0; j < ITEMS; ++j) {
        ulong i = base + j * WG + lid;
        if (i < n) {
            uint d = digit_of(to_image(keys[i], kind, (KEY_T)flip), shift, mask);
#if HIST_COPIES == WG
            mine[d] += 1u; /* a copy per work-item (CPUs): no atomics needed */
#else
            atomic_inc(&mine[d]);
#endif
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint groups = (uint)get_num_groups(0);
    for (uint d = lid; d < RADIX; d += WG) {
        uint sum = 0;
        for (uint c = 0; c < HIST_COPIES; ++c) sum += hist[c * RADIX + d];
        counts[d * groups + g] = sum;
    }
}

/* Exclusive scan, in place, of the LRADIX * WG counters cnt[PAD(d * WG + w)]
 * in that (digit-major) order: work-item w then finds, for digit d, where its
 * first key of digit d goes. (T is uint in this program.) */
DEFINE_SCAN_RUNS(scan_counters, LRADIX)

#ifdef HAS_VALUES
#define RADIX_VAL_ARGS , __global const VAL_T *vals_in, __global VAL_T *vals_out, uint iota
#else
#define RADIX_VAL_ARGS
#endif

/* One pass over one tile: load, stable local sort by the digit, write out.
 * offsets[d * groups + g]: where tile g's keys of digit d start in the output.
 * kind_in/flip_in: image taken on load (first pass), kind_out/flip_out: undone
 * on store (last pass); 0 in between. With HAS_VALUES, vals_out receives
 * vals_in moved like the keys, or, with iota, each key's original index. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_reorder(__global const KEY_T *keys_in, __global KEY_T *keys_out, ulong n, uint shift, uint bits,
                   uint kind_in, ulong flip_in, uint kind_out, ulong flip_out, __global const uint *offsets
                   RADIX_VAL_ARGS)
{
    __local KEY_T K[TILE_PADDED];
#ifdef HAS_VALUES
    __local ushort P[TILE]; /* each key's index inside the tile */
#endif
    __local uint cnt[PAD(LRADIX * WG) + 1];
    __local uint s[PAD(WG) + 1];
    __local uint start[RADIX];
    const uint lid = (uint)get_local_id(0);
    const uint g = (uint)get_group_id(0);
    const ulong base = (ulong)g * TILE;
    const uint tile_n = (uint)min((ulong)TILE, n - base);
    const uint mask = (1u << bits) - 1u;

    /* Coalesced load. Past the end, keys of all ones: they rank last in
     * every step and are never written. */
    for (uint j = 0; j < ITEMS; ++j) {
        uint k = j * WG + lid;
        K[PAD(k)] = k < tile_n ? to_image(keys_in[base + k], kind_in, (KEY_T)flip_in) : ~(KEY_T)0;
#ifdef HAS_VALUES
        P[k] = (ushort)k;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    /* Stable local sort, LBITS digit bits per step. Work-item w owns the
     * consecutive keys w*ITEMS .. w*ITEMS+ITEMS-1 and the counter column w,
     * so counting needs no atomics and ranks keep the keys' order. */
    for (uint sb = 0; sb < bits; sb += LBITS) {
        const uint lshift = shift + sb;
        const uint lmask = (1u << min((uint)LBITS, bits - sb)) - 1u;
        KEY_T k[ITEMS];
        uint r[ITEMS];
#ifdef HAS_VALUES
        ushort p[ITEMS];
#endif
        for (uint d = 0; d < LRADIX; ++d) cnt[PAD(d * WG + lid)] = 0;
        for (uint j = 0; j < ITEMS; ++j) {
            k[j] = K[PAD(lid * ITEMS + j)];
#ifdef HAS_VALUES
            p[j] = P[lid * ITEMS + j];
#endif
            uint c = PAD(digit_of(k[j], lshift, lmask) * WG + lid);
            r[j] = cnt[c];
            cnt[c] = r[j] + 1;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        scan_counters(cnt, s);
        for (uint j = 0; j < ITEMS; ++j) {
            uint pos = cnt[PAD(digit_of(k[j], lshift, lmask) * WG + lid)] + r[j];
            K[PAD(pos)] = k[j];
#ifdef HAS_VALUES
            P[pos] = p[j];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    /* start[d]: the first local position of digit d (tile_n if none). Each
     * boundary between runs writes the digits it skips over. */
    for (uint d = lid; d < RADIX; d += WG) start[d] = tile_n;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < tile_n; i += WG) {
        uint d = digit_of(K[PAD(i)], shift, mask);
        int prev = i == 0 ? -1 : (int)digit_of(K[PAD(i - 1)], shift, mask);
        for (int e = prev + 1; e <= (int)d; ++e) start[e] = i;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* start[d] becomes the global position of local position 0 for digit d */
    const uint groups = (uint)get_num_groups(0);
    for (uint d = lid; d < RADIX; d += WG)
        if (d <= mask) start[d] = offsets[d * groups + g] - start[d];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < tile_n; i += WG) {
        KEY_T k = K[PAD(i)];
        uint dst = start[digit_of(k, shift, mask)] + i;
        keys_out[dst] = from_image(k, kind_out, (KEY_T)flip_out);
#ifdef HAS_VALUES
        uint src = P[i];
        vals_out[dst] = iota ? (VAL_T)(base + src) : vals_in[base + src];
#endif
    }
}

#endif /* BITONIC */

/* dst[i] = src[idx[i]] for elements of `unit` TYPEs: gather_vec4 / vec2 /
 * words move 16-, 8- or 4-byte pieces (the widest that divides the element),
 * gather_bytes bytes, for sizes not a multiple of 4. An index at or past
 * src_count yields a zero element (never a read outside src). One piece per
 * work-item; the element number comes from a 32-bit division where it fits
 * (64-bit division is a long software routine on GPUs) and from none when an
 * element is one piece. */
#define DEFINE_GATHER(name, TYPE)                                                                   \
    __kernel void name(__global const TYPE *src, __global TYPE *dst, __global const uint *idx, ulong n, \
                       uint unit, ulong src_count)                                                  \
    {                                                                                               \
        ulong i = get_global_id(0), e, w;                                                           \
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

/* dst[i] = src[i] for count 32-bit words: the sort's copies into its scratch
 * (a kernel rather than clEnqueueCopyBuffer, so that kernel checkers such as
 * oclgrind see the sub-buffer's words as initialized). */
__kernel void copy_words(__global const uint *src, __global uint *dst, ulong count)
{
    ulong i = get_global_id(0);
    if (i < count) dst[i] = src[i];
}
