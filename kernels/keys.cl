/* clsort key images, shared by radix.cl and bitonic.cl so that both sorts
 * order keys alike. Build-time macros: KEY_T, KEY_BYTES  uint/4 or ulong/8,
 * and for the radix sort also uchar/1 and ushort/2 (keys move as bit
 * patterns; there are no 8- or 16-bit float keys).
 *
 * Signed and float keys are sorted through an order-preserving
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

#if KEY_BYTES == 8
#define KEY_SIGN 0x8000000000000000UL
#define KEY_NEG_INF 0xfff0000000000000UL
#elif KEY_BYTES == 4
#define KEY_SIGN 0x80000000u
#define KEY_NEG_INF 0xff800000u
#elif KEY_BYTES == 2
#define KEY_SIGN ((ushort)0x8000u)
#else
#define KEY_SIGN ((uchar)0x80u)
#endif
#if KEY_BYTES >= 4
/* how many images the negative non-NaN floats take: -inf .. -0 */
#define KEY_NEG_COUNT (KEY_NEG_INF - KEY_SIGN + (KEY_T)1)
#endif

/* kind: 0 unsigned, 1 signed, 2 float; flip: 0 or ~0 (descending) */
inline KEY_T to_image(KEY_T x, uint kind, KEY_T flip)
{
    if (kind == 1) {
        x ^= KEY_SIGN;
    }
#if KEY_BYTES >= 4
    else if (kind == 2) {
        if (x & KEY_SIGN) x = x > KEY_NEG_INF ? x : KEY_NEG_INF - x;
        else x = x + KEY_NEG_COUNT;
    }
#endif
    return (KEY_T)(x ^ flip);
}

inline KEY_T from_image(KEY_T k, uint kind, KEY_T flip)
{
    k ^= flip;
    if (kind == 1) return (KEY_T)(k ^ KEY_SIGN);
#if KEY_BYTES >= 4
    if (kind == 2) {
        if (k < KEY_NEG_COUNT) return KEY_NEG_INF - k;
        if (k <= KEY_NEG_INF) return k - KEY_NEG_COUNT;
    }
#endif
    return k;
}
