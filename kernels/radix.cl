/* clsort radix sort kernels (need common.cl and keys.cl first, with T = uint).
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
 *   KEY_T, KEY_BYTES  uchar/1, ushort/2, uint/4 or ulong/8 (keys are moved as
 *                     bit patterns, loaded and stored at their own width)
 *   RADIX_BITS        digit width of the program, 1..12
 *   LBITS             bits ranked per local step of radix_reorder (4: 16
 *                     counters per work-item; radix_scatter, the CPUs' serial
 *                     form with WG == 1, does not use it)
 *   HAS_VALUES, VAL_T, VAL_BYTES  values moved with the keys: uchar, ushort,
 *                     uint (also the permutation), ulong or uint4 (16 bytes)
 *   RADIX_FILL        keys alone, one pass over every bit (classic programs):
 *                     radix_fill (below) after radix_count
 *   RADIX_FILL16      16-bit keys alone, all 16 bits: radix_key_histogram and
 *                     radix_fill16 (below) replace the second pass
 *   ONESWEEP          the one-sweep passes only (below); RADIX_HISTOGRAM the
 *                     one-sweep digit histograms only (radix_histogram, one
 *                     program per key width: digit width and passes are
 *                     arguments); SINGLE_TILE the single-tile sort only
 *                     (radix_tile_sort); without any the classic ones only:
 *                     a program holds the
 *                     kernels of one kind of pass, so that a driver that
 *                     compiles every kernel of a program (NVIDIA's PTX JIT)
 *                     compiles no kernel the call does not launch
 * Keys are ranked by their order-preserving images (keys.cl); descending
 * order xors the image with all ones (still stable). */

#ifndef RADIX_BITS
#define RADIX_BITS 8
#endif
#ifndef LBITS
#define LBITS 4
#endif
#define RADIX (1u << RADIX_BITS)
#define LRADIX (1u << LBITS)

inline uint digit_of(KEY_T k, uint shift, uint mask) { return (uint)(k >> shift) & mask; }

#ifdef HAS_VALUES
#define RADIX_VAL_ARGS , __global const VAL_T *vals_in, __global VAL_T *vals_out, uint iota
#else
#define RADIX_VAL_ARGS
#endif

#if !defined(ONESWEEP) && !defined(RADIX_HISTOGRAM)
/* Exclusive scan, in place, of the LRADIX * WG counters cnt[PAD(d * WG + w)]
 * in that (digit-major) order: work-item w then finds, for digit d, where its
 * first key of digit d goes. (T is uint in this program.) */
DEFINE_SCAN_RUNS(scan_counters, LRADIX)

/* One stable local sort step of radix_reorder and radix_tile_sort: the
 * tile's keys K[PAD(i)] (and their tile indices P[i]) reordered by the lmask
 * bits at lshift. Work-item w owns the consecutive keys w*ITEMS ..
 * w*ITEMS+ITEMS-1 and the counter column w, so counting needs no atomics and
 * ranks keep the keys' order. Ends with a barrier. */
#if WG > 1 /* (radix_scatter's programs have no local tile) */
#ifdef HAS_VALUES
#define LOCAL_STEP_P , __local ushort *P
#else
#define LOCAL_STEP_P
#endif
inline void radix_local_step(__local KEY_T *K LOCAL_STEP_P, __local uint *cnt, __local uint *s, uint lshift,
                             uint lmask)
{
    const uint lid = (uint)get_local_id(0);
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
#endif /* WG > 1 */
#endif /* !ONESWEEP */

#ifdef SINGLE_TILE
/* A whole sort of n <= TILE keys in one work-group, one launch: the keys'
 * images in local memory, stable local steps of LBITS bits over [begin, end)
 * (as radix_reorder's, LSD order), then written out in order, coalesced.
 * kind/flip: the image taken on load and undone on store. With HAS_VALUES,
 * vals_out receives vals_in in the keys' order, or with iota each key's
 * index. In place (keys_in == keys_out, vals_in == vals_out) allowed: every
 * read of the inputs precedes the barrier before the first write. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_tile_sort(__global const KEY_T *keys_in, __global KEY_T *keys_out, ulong n, uint begin, uint end,
                     uint kind, ulong flip RADIX_VAL_ARGS COUNT_ARGS)
{
    __local KEY_T K[TILE_PADDED];
#ifdef HAS_VALUES
    __local ushort P[TILE]; /* each key's index */
#endif
    __local uint cnt[PAD(LRADIX * WG) + 1];
    __local uint s[PAD(WG) + 1];
    const uint lid = (uint)get_local_id(0);
    const uint tile_n = (uint)DEVICE_N(n);
    /* past the end keys of all ones: they rank last in every step and are
     * never written */
    for (uint j = 0; j < ITEMS; ++j) {
        uint k = j * WG + lid;
        K[PAD(k)] = k < tile_n ? to_image(keys_in[k], kind, (KEY_T)flip) : ~(KEY_T)0;
#ifdef HAS_VALUES
        P[k] = (ushort)k;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint sb = begin; sb < end; sb += LBITS)
        radix_local_step(K
#ifdef HAS_VALUES
                         , P
#endif
                         , cnt, s, sb, (1u << min((uint)LBITS, end - sb)) - 1u);
#ifdef HAS_VALUES
    VAL_T v[ITEMS]; /* read all before any is written: in place */
    for (uint j = 0; j < ITEMS; ++j) {
        uint i = j * WG + lid;
        if (i < tile_n) v[j] = iota ? (VAL_T)P[i] : vals_in[P[i]];
    }
#endif
    barrier(CLK_GLOBAL_MEM_FENCE);
    for (uint j = 0; j < ITEMS; ++j) {
        uint i = j * WG + lid;
        if (i < tile_n) {
            keys_out[i] = from_image(K[PAD(i)], kind, (KEY_T)flip);
#ifdef HAS_VALUES
            vals_out[i] = v[j];
#endif
        }
    }
}
#endif

#if !defined(ONESWEEP) && !defined(SINGLE_TILE) && !defined(RADIX_HISTOGRAM) /* the classic passes */
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
                 __global uint *counts COUNT_ARGS)
{
    __local uint hist[HIST_COPIES * RADIX];
    const uint lid = (uint)get_local_id(0);
    const uint g = (uint)get_group_id(0);
    const ulong base = (ulong)g * TILE;
    const uint mask = (1u << bits) - 1u;
    n = DEVICE_N(n); /* an idle tile's counts: 0 (the scan reads every tile's) */
#ifdef IDLE_EXIT
    if (g > LAST_TILE(n)) {
        for (uint d = lid; d < RADIX; d += WG) counts[(ulong)d * get_num_groups(0) + g] = 0;
        return;
    }
#endif
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
        counts[(ulong)d * groups + g] = sum; /* 64-bit: 4096 digits x 2^20 tiles pass 2^32 */
    }
}

#if WG == 1
/* CPUs: one work-item per tile (a long serial loop, which is what a CPU core
 * runs best), so the pass is a plain counting-sort scatter: each key, in
 * input order, goes to the next free slot of its digit, starting from
 * offsets[d * groups + g]. Stable; no local memory, no barriers.
 * Same arguments as radix_reorder. */
__kernel __attribute__((reqd_work_group_size(1, 1, 1)))
void radix_scatter(__global const KEY_T *keys_in, __global KEY_T *keys_out, ulong n, uint shift, uint bits,
                   uint kind_in, ulong flip_in, uint kind_out, ulong flip_out, __global const uint *offsets
                   RADIX_VAL_ARGS COUNT_ARGS)
{
    uint next[RADIX];
    const uint g = (uint)get_group_id(0), groups = (uint)get_num_groups(0);
    const ulong base = (ulong)g * TILE;
    n = DEVICE_N(n);
    if (base >= n) return; /* idle */
    const uint tile_n = (uint)min((ulong)TILE, n - base);
    const uint mask = (1u << bits) - 1u;
    for (uint d = 0; d <= mask; ++d) next[d] = offsets[(ulong)d * groups + g];
    for (uint i = 0; i < tile_n; ++i) {
        KEY_T k = to_image(keys_in[base + i], kind_in, (KEY_T)flip_in);
        uint dst = next[digit_of(k, shift, mask)]++;
        keys_out[dst] = from_image(k, kind_out, (KEY_T)flip_out);
#ifdef HAS_VALUES
        vals_out[dst] = iota ? (VAL_T)(base + i) : vals_in[base + i];
#endif
    }
}
#else
/* The steps of radix_reorder, in the order it calls them (every work-item
 * calls each; each ends with a barrier but the last). Coalesced load of the
 * tile's tile_n keys to K (their images) and, with values, their tile
 * indices to P. Past the end, keys of all ones: they rank last in every step
 * and are never written. */
inline void rr_load(__global const KEY_T *keys_in, ulong base, uint tile_n, uint kind_in, ulong flip_in,
                    __local KEY_T *K LOCAL_STEP_P)
{
    const uint lid = (uint)get_local_id(0);
    for (uint j = 0; j < ITEMS; ++j) {
        uint k = j * WG + lid;
        K[PAD(k)] = k < tile_n ? to_image(keys_in[base + k], kind_in, (KEY_T)flip_in) : ~(KEY_T)0;
#ifdef HAS_VALUES
        P[k] = (ushort)k;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* start[d]: the global position of local position 0 for digit d <= mask of
 * the sorted tile K (offsets[d * groups + g]: where tile g's keys of digit d
 * start in the output). First the local position of d's first key (tile_n
 * if none): each boundary between runs writes the digits it skips over. */
inline void rr_digit_starts(__local const KEY_T *K, uint tile_n, uint shift, uint mask, __global const uint *offsets,
                            uint g, __local uint *start)
{
    const uint lid = (uint)get_local_id(0);
    for (uint d = lid; d < RADIX; d += WG) start[d] = tile_n;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < tile_n; i += WG) {
        uint d = digit_of(K[PAD(i)], shift, mask);
        int prev = i == 0 ? -1 : (int)digit_of(K[PAD(i - 1)], shift, mask);
        for (int e = prev + 1; e <= (int)d; ++e) start[e] = i;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint groups = (uint)get_num_groups(0);
    for (uint d = lid; d < RADIX; d += WG)
        if (d <= mask) start[d] = offsets[(ulong)d * groups + g] - start[d];
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* One pass over one tile: load, stable local sort by the digit, write out.
 * offsets[d * groups + g]: where tile g's keys of digit d start in the output.
 * kind_in/flip_in: image taken on load (first pass), kind_out/flip_out: undone
 * on store (last pass); 0 in between. With HAS_VALUES, vals_out receives
 * vals_in moved like the keys, or, with iota, each key's original index. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_reorder(__global const KEY_T *keys_in, __global KEY_T *keys_out, ulong n, uint shift, uint bits,
                   uint kind_in, ulong flip_in, uint kind_out, ulong flip_out, __global const uint *offsets
                   RADIX_VAL_ARGS COUNT_ARGS)
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
    /* Past the device count a tile holds no keys: it skips the local sort
     * and writes nothing; it returns early only with IDLE_EXIT (PoCL's CPU
     * device mis-ran this kernel with an early return, even never taken:
     * values out of place with 256 x 1 tiles, 16-bit keys). */
    n = DEVICE_N(n);
    const uint tile_n = base < n ? (uint)min((ulong)TILE, n - base) : 0u;
    const uint mask = (1u << bits) - 1u;
    const uint sort_bits = tile_n ? bits : 0u; /* the same for the whole work-group */
    IDLE_RETURN(tile_n == 0u);
    rr_load(keys_in, base, tile_n, kind_in, flip_in, K
#ifdef HAS_VALUES
            , P
#endif
            );
    /* stable local sort, LBITS digit bits per step */
    for (uint sb = 0; sb < sort_bits; sb += LBITS)
        radix_local_step(K
#ifdef HAS_VALUES
                         , P
#endif
                         , cnt, s, shift + sb, (1u << min((uint)LBITS, bits - sb)) - 1u);
    rr_digit_starts(K, tile_n, shift, mask, offsets, g, start);
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
#endif /* WG == 1 */
#endif /* the classic passes */

#ifdef RADIX_HISTOGRAM
/* ---- One-sweep digit histograms (a program of its own) -------------------
 * hist[(p << pass_bits) + d] += keys whose digit of pass p is d, for every
 * pass at once (hist = hist_buf + hist_off; zero on entry, and so is the tile
 * counter hist[passes << pass_bits]). The digit width and the passes are
 * arguments, so one program per key width serves every one-sweep sort of
 * that width (keys alone, pairs, any value size, any digit width up to 8
 * bits; wider digits, a program per HIST_WORDS): on NVIDIA this kernel took
 * more of ptxas's time (0.37-0.50 s) than the pass kernel, once in every sort
 * program. Each work-group takes the
 * next tile from the counter until none is left, so that groups which start
 * late, or run beside fewer others, do less: with a fixed share each (tiles
 * g, g + groups, ...) the last wave of groups ran alone. Counters of every
 * pass in local memory: at most KEY_BYTES * 256 of them for digits up to 8
 * bits (a narrower digit needs more passes but fewer counters in all), and
 * HIST_WORDS, set by the host, for wider ones. */
#ifndef HIST_WORDS /* (the host sets it for digits of 9 bits or more: passes << pass_bits) */
#define HIST_WORDS (KEY_BYTES * 256u)
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_histogram(__global const KEY_T *keys, ulong n, uint begin, uint pass_bits, uint passes, uint end,
                     uint kind, ulong flip, __global volatile uint *hist_buf, ulong hist_off LB_SPARE_ARGS
                     COUNT_ARGS)
{
    __local uint h[HIST_WORDS];
    __local uint next[2]; /* the group's next tile, alternating: one barrier per tile */
    __global volatile uint *hist = hist_buf + hist_off;
    const uint lid = (uint)get_local_id(0), words = passes << pass_bits;
    LB_SPARE_CLEAR();
    n = DEVICE_N(n);
    for (uint i = lid; i < words; i += WG) h[i] = 0;
    for (uint step = 0;; ++step) {
        if (lid == 0) next[step & 1] = atomic_inc(&hist[words]);
        barrier(CLK_LOCAL_MEM_FENCE);
        const ulong t = next[step & 1];
        if (t * TILE >= n) break;
        KEY_T k[ITEMS]; /* all loads first: ITEMS of them in flight */
#pragma unroll
        for (uint j = 0; j < ITEMS; ++j) {
            ulong i = t * TILE + j * WG + lid;
            k[j] = i < n ? keys[i] : 0;
        }
        /* a condition, not a break: the loop unrolls and k stays in
         * registers (with the break ptxas kept k in a 64-byte stack frame) */
#pragma unroll
        for (uint j = 0; j < ITEMS; ++j) {
            if (t * TILE + j * WG + lid < n) {
                KEY_T x = to_image(k[j], kind, (KEY_T)flip);
                for (uint p = 0; p < passes; ++p) {
                    uint shift = begin + p * pass_bits;
                    uint mask = (1u << min(pass_bits, end - shift)) - 1u;
                    atomic_inc(&h[(p << pass_bits) + digit_of(x, shift, mask)]);
                }
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint i = lid; i < words; i += WG)
        if (h[i]) atomic_add(&hist[i], h[i]);
}
#endif /* RADIX_HISTOGRAM */

#ifdef ONESWEEP
/* ---- One-sweep passes (Adinets & Merrill's Onesweep, 2022) ----------------
 * Built with -DONESWEEP on the look-back path. One upfront read of the keys
 * builds the digit histograms of every pass (radix_histogram, above), and then each
 * pass is one kernel, radix_onesweep: a tile turns its pass's histogram into
 * each digit's first output position (a work-group scan of RADIX counts, read
 * from L2: no kernel of its own), ranks its keys by the digit, learns from
 * the tiles before it how many keys of each digit they hold (decoupled
 * look-back, one status word per tile and digit), and writes its keys out.
 * A sort is 1 + passes launches: the status words and histograms need no
 * clear launch (each kernel zeroes the next one's, LB_SPARE_ARGS; the host's
 * clsort__status). Bytes per key and pass: read once, written once (the
 * classic passes above read twice).
 *
 * Ranking is by 32-work-item warps: per key step, the work-items holding the
 * same digit find each other (match_any), the lowest of them adds their count
 * to the warp's counter of that digit, and each takes the counter's old value
 * plus the number of its peers on lower lanes. Keys of warp w are its
 * consecutive 32 * ITEMS keys, lane-minor, so ranks keep the input order
 * (stable). With -DNV_PTX (NVIDIA, sm_70+) match_any is RADIX_BITS warp
 * ballots and warp_sync a warp barrier, in inline PTX; otherwise both are
 * emulated with local memory and work-group barriers (slow, but the same
 * algorithm: that is what PoCL and oclgrind check; the host uses this form
 * on CPUs' look-back path only). Needs WG a multiple of 32, n < 2^30.
 *
 * Digits wider than WG allows one per work-item (9-11 bits at WG = 256): the
 * steps over digits take OS_DPW consecutive digits each (work-item l the
 * digits l * OS_DPW ...), so that one scan of a sum per work-item orders
 * them all, and the warps' counters shrink to 16 bits (a warp counts at most
 * 32 * ITEMS keys of a digit, and an offset is below TILE <= 65536), so that
 * 8 warps of 2048 counters take 32 KiB, not 64. What a work-item keeps per
 * digit across the scatter to local memory (its count and one offset) is in
 * registers beside the keys and their ranks. */
#define OS_WARP 32u
#define OS_WARPS (WG / OS_WARP)
#define OS_DPW ((RADIX + WG - 1u) / WG)
#if RADIX > 256
typedef ushort os_count_t;
typedef ushort os_digit_t;
#else
typedef uint os_count_t;
typedef uchar os_digit_t;
#endif
#define OS_FLAG_AGG 0x40000000u
#define OS_FLAG_PREFIX 0x80000000u
#define OS_COUNT 0x3fffffffu
#ifndef OS_LB_WINDOW /* tiles a digit's look-back reads at once (os_look_back) */
#define OS_LB_WINDOW 1
#endif

#ifdef NV_PTX
/* One ballot per digit bit, as CUB's MatchAny: match.any.sync, one
 * instruction, made the whole sort 1.46x slower on the H100 (2^28 u32 keys
 * 13.4 ms against 9.2). The bit's test and the complement stay inside the
 * PTX, predicated, as in CUB: ptxas then tests the digit's bits as
 * predicates, about 3 instructions a bit where a select in C took 5. */
inline uint os_match_any(uint x, __local uint *scratch)
{
    uint r = 0xffffffffu;
    (void)scratch;
    for (uint b = 0; b < RADIX_BITS; ++b) {
        uint m;
        asm volatile("{ .reg .pred p; .reg .b32 t; and.b32 t, %1, %2; setp.ne.u32 p, t, 0;"
                     " vote.sync.ballot.b32 %0, p, 0xffffffff; @!p not.b32 %0, %0; }"
                     : "=r"(m) : "r"(x), "r"(1u << b));
        r &= m;
    }
    return r;
}
inline void os_warp_sync(void) { asm volatile("bar.warp.sync 0xffffffff;" ::: "memory"); }
/* x of the lane delta below (its own x on the lowest delta lanes) */
inline uint2 os_shfl_up2(uint2 x, uint delta, __local uint *sa, __local uint *sb)
{
    uint2 r;
    (void)sa;
    (void)sb;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r.x) : "r"(x.x), "r"(delta));
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r.y) : "r"(x.y), "r"(delta));
    return r;
}
#else
inline uint os_match_any(uint x, __local uint *scratch)
{
    const uint lid = (uint)get_local_id(0), first = lid & ~(OS_WARP - 1u);
    uint r = 0;
    scratch[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint l = 0; l < OS_WARP; ++l) r |= (scratch[first + l] == x ? 1u : 0u) << l;
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}
inline void os_warp_sync(void) { barrier(CLK_LOCAL_MEM_FENCE); }
inline uint2 os_shfl_up2(uint2 x, uint delta, __local uint *sa, __local uint *sb)
{
    const uint lid = (uint)get_local_id(0), lane = lid & (OS_WARP - 1u);
    uint2 r = x;
    sa[lid] = x.x;
    sb[lid] = x.y;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lane >= delta) r = (uint2)(sa[lid - delta], sb[lid - delta]);
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}
#endif

/* Exclusive scan of two counts per work-item at once (the sums over its
 * digits; 0 past RADIX): a scan inside each warp by shuffles, then each warp
 * adds the totals of the warps before it (wt: 2 * OS_WARPS words). On NVIDIA
 * two work-group barriers, where a Blelloch scan of 256 takes 19 (two of
 * those per tile made the 2^28 sort 5% slower). Ends with a barrier. */
inline uint2 os_digit_scan2(uint2 x, __local uint *wt, __local uint *sa, __local uint *sb)
{
    const uint lid = (uint)get_local_id(0), lane = lid & (OS_WARP - 1u), w = lid / OS_WARP;
    uint2 inc = x, pre = (uint2)(0u, 0u);
    for (uint o = 1; o < OS_WARP; o <<= 1) {
        uint2 y = os_shfl_up2(inc, o, sa, sb);
        if (lane >= o) inc += y;
    }
    if (lane == OS_WARP - 1u) {
        wt[2 * w] = inc.x;
        wt[2 * w + 1] = inc.y;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint v = 0; v < OS_WARPS; ++v) /* (a constant bound: unrolled) */
        if (v < w) pre += (uint2)(wt[2 * v], wt[2 * v + 1]);
    barrier(CLK_LOCAL_MEM_FENCE);
    return inc - x + pre;
}

/* The scratch of a one-sweep sort: the status words of a pass (tiles *
 * RADIX, then the ticket counter; zero on entry), and the digit histograms of
 * all passes (radix_histogram, a program of its own below). Each kernel also
 * zeroes the spare words [lo, hi) that a later kernel takes as its status or
 * histograms (LB_SPARE_ARGS; the host says which). */

/* Status words carry their payload, so they need no ordering, only untorn
 * 32-bit accesses: plain volatile loads and stores on NVIDIA (an atomic per
 * access measured slower: 2^28 keys make 50 M of them per pass), atomics
 * elsewhere (so that race checkers see no race). */
#ifdef NV_PTX
#define OS_READ(p) (*(p))
#define OS_WRITE(p, x) (*(p) = (x))
#else
#define OS_READ(p) atomic_add((p), 0u)
#define OS_WRITE(p, x) atomic_xchg((p), (x))
#endif

#ifdef LB_FALLBACK
/* The decoupled fallback of the one-sweep look-back (common.cl LB_FALLBACK):
 * the keys of tile t whose digit is d, counted by one work-item from the
 * pass's input (past-the-end padding is not counted, as in the tile's own
 * published count). Serial: it runs only when tile t's work-group has
 * published nothing for LB_SPINS reads. */
inline uint os_tile_count(__global const KEY_T *keys_in, uint t, ulong n, uint shift, uint mask, uint d, uint kind,
                          ulong flip)
{
    const ulong end = min((ulong)(t + 1) * TILE, n);
    uint c = 0;
    for (ulong i = (ulong)t * TILE; i < end; ++i) c += digit_of(to_image(keys_in[i], kind, (KEY_T)flip), shift, mask) == d;
    return c;
}

/* A look-back read found tile *t - 1's word of digit d unpublished: after
 * LB_SPINS such reads in a row (*idle), the walk counts that tile's keys of
 * digit d itself (keys_in is never written) and steps past it. */
inline void os_wait_or_count(uint *idle, uint *t, uint *excl, __global const KEY_T *keys_in, ulong n, uint shift,
                             uint mask, uint d, uint kind_in, ulong flip_in)
{
    if (++*idle >= LB_SPINS) {
        *excl += os_tile_count(keys_in, *t - 1, n, shift, mask, d, kind_in, flip_in);
        *idle = 0;
        --*t;
    }
}
#endif

/* The steps of radix_onesweep, in the order it calls them. Every work-item
 * of the group calls each (some have barriers). The per-key private arrays
 * (k, rank, pos) are the kernel's, passed by pointer to inline functions:
 * once inlined and unrolled, every index is a constant, so the arrays can
 * live in registers, as if written in one function.
 *
 * The order is chosen for registers, which decide the speed on GPUs: a tile
 * lives a fixed time (its loads, its look-back), so throughput is tiles in
 * flight, work-groups per multiprocessor, bounded by registers per
 * work-item. The keys and their ranks are the long-lived ones (2 * ITEMS
 * registers), and the keys reach local memory before the look-back, which
 * then waits with them dead. A tile publishes its counts as soon as it has
 * them and looks back last, when the tiles before it have most likely
 * published. */

/* The ranks (os_rank_keys), in one of two forms, each where it measured
 * faster (H100, 2^28): keys alone, a rank and its digit a word (u64 keys
 * 17.3 ms against 19.6; 4-byte keys even); with values, two ranks a word and
 * the digit taken from the key again (u32 pairs 10.4 ms against 10.8).
 * TILE <= 65536, so a rank fits in 16 bits. */
#ifdef HAS_VALUES
#define OS_RANK_WORDS ((ITEMS + 1) / 2)
inline void os_rank_put(uint *rank, uint j, uint r, uint d)
{
    (void)d;
    if (j % 2 == 0) rank[j / 2] = r;
    else rank[j / 2] |= r << 16;
}
inline uint os_rank_at(const uint *rank, uint j) { return (rank[j / 2] >> (j % 2 * 16u)) & 0xffffu; }
inline uint os_digit_at(const uint *rank, uint j, KEY_T key, uint shift, uint mask)
{
    (void)rank;
    (void)j;
    return digit_of(key, shift, mask);
}
#else
#define OS_RANK_WORDS ITEMS
inline void os_rank_put(uint *rank, uint j, uint r, uint d) { rank[j] = r | d << 16; }
inline uint os_rank_at(const uint *rank, uint j) { return rank[j] & 0xffffu; }
inline uint os_digit_at(const uint *rank, uint j, KEY_T key, uint shift, uint mask)
{
    (void)key;
    (void)shift;
    (void)mask;
    return rank[j] >> 16;
}
#endif

/* The tile this work-group sorts: the next ticket (status[groups * RADIX]),
 * in the order the work-groups start, so that a tile waits in the look-back
 * only for tiles whose work-groups started before its own (the LB_REVERSE
 * test hook turns that around). Clears the warps' digit counters wh. Ends
 * with a barrier. */
inline uint os_take_tile(__global volatile uint *status, uint groups, __local os_count_t *wh, __local uint *tile_id)
{
    const uint lid = (uint)get_local_id(0);
    if (lid == 0) {
        uint t = atomic_inc(&status[(ulong)groups * RADIX]);
#if defined(LB_REVERSE) && defined(LB_FALLBACK)
        t = groups - 1u - t; /* test hook: the first to start takes the last tile */
#endif
        *tile_id = t;
    }
    for (uint i = lid; i < OS_WARPS * RADIX; i += WG) wh[i] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    return *tile_id;
}

/* Warp w's keys (from its first, wk = keys_in + wbase + lane), lane-minor,
 * as images. A full tile loads without bounds checks; past the end of a
 * partial one, keys of all ones (the largest digit, ranked after every real
 * key, never written). */
inline void os_load_keys(__global const KEY_T *wk, ulong wbase, uint lane, ulong n, int full, uint kind_in,
                         ulong flip_in, KEY_T *k)
{
    if (full) {
        for (uint j = 0; j < ITEMS; ++j) k[j] = to_image(wk[j * OS_WARP], kind_in, (KEY_T)flip_in);
    } else {
        for (uint j = 0; j < ITEMS; ++j)
            k[j] = wbase + j * OS_WARP + lane < n ? to_image(wk[j * OS_WARP], kind_in, (KEY_T)flip_in) : ~(KEY_T)0;
    }
}

/* Rank inside the warp: k[j]'s rank (os_rank_at) = how many of the warp's
 * keys with its digit come before it in the input (earlier steps j, then
 * lower lanes). my: the warp's counter of each digit
 * (zero on entry), which ends as the warp's count of the digit. Ends with a
 * barrier. */
inline void os_rank_keys(const KEY_T *k, uint lane, uint shift, uint mask, __local os_count_t *my,
                         __local uint *scratch, uint *rank)
{
    const uint lt = (1u << lane) - 1u;
    for (uint j = 0; j < ITEMS; ++j) {
        uint d = digit_of(k[j], shift, mask);
        uint peers = os_match_any(d, scratch);
        os_warp_sync();
        uint old = my[d];
        os_warp_sync();
        if ((peers & lt) == 0) my[d] = (os_count_t)(old + popcount(peers)); /* the lowest lane of the peers */
        os_rank_put(rank, j, old + popcount(peers & lt), d);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The digits of this work-item: os_digit(i) for i < OS_DPW, consecutive
 * (RADIX or more for the work-items past the last digit). */
inline uint os_digit(uint i) { return (uint)get_local_id(0) * OS_DPW + i; }

/* Where digit os_digit(i) has its status word among its tile's RADIX: the
 * i-th digits of consecutive work-items side by side, so that each of a
 * warp's accesses to status words is one coalesced run (in digit order the
 * work-items' accesses were OS_DPW words apart: 11-bit digits of u32 keys
 * sorted 2^28 keys in 41.7 ms against 6.0 at 8 bits, bench/RESULTS.md, radix
 * digit width). The host takes WG | RADIX where WG < RADIX, so the slots
 * are 0 .. RADIX - 1. */
inline uint os_slot(uint i) { return i * WG + (uint)get_local_id(0); }

/* The pass's count of each of this work-item's digits (hist; 0 past RADIX). */
inline void os_pass_counts(__global const uint *hist, uint *hist_d)
{
    for (uint i = 0; i < OS_DPW; ++i) hist_d[i] = os_digit(i) < RADIX ? hist[os_digit(i)] : 0u;
}

/* The tile's count of each of this work-item's digits, the sum of the warps'
 * counts (0 past RADIX). */
inline void os_tile_digit_count(__local const os_count_t *wh, uint *count)
{
    for (uint i = 0; i < OS_DPW; ++i) {
        const uint d = os_digit(i);
        count[i] = 0;
        if (d < RADIX)
            for (uint v = 0; v < OS_WARPS; ++v) count[i] += wh[v * RADIX + d];
    }
}

/* Each digit d <= mask of this work-item: its tile's count published (tile
 * 0's is already its inclusive prefix). */
inline void os_publish_count(__global volatile uint *status, uint g, const uint *count, uint mask)
{
    for (uint i = 0; i < OS_DPW; ++i)
        if (os_digit(i) < RADIX && os_digit(i) <= mask)
            OS_WRITE(&status[(ulong)g * RADIX + os_slot(i)], (g == 0 ? OS_FLAG_PREFIX : OS_FLAG_AGG) | count[i]);
}

/* This work-item's digits, whose keys start at local position start (the
 * first digit's; each next digit's after the last one's keys): the warps'
 * counts of each digit d become where each warp's first key of digit d goes
 * in the tile. Ends with a barrier. */
inline void os_warp_offsets(__local os_count_t *wh, uint start)
{
    for (uint i = 0; i < OS_DPW; ++i) {
        const uint d = os_digit(i);
        if (d < RADIX) {
            for (uint v = 0; v < OS_WARPS; ++v) {
                uint c = wh[v * RADIX + d];
                wh[v * RADIX + d] = (os_count_t)start;
                start += c;
            }
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* The keys to local memory in digit order (K; with values, each position's
 * digit in D), pos[j] = k[j]'s local position; my: the warp's offsets. Ends
 * with a barrier. */
#ifdef HAS_VALUES
#define OS_DIGITS_P , __local os_digit_t *D
#else
#define OS_DIGITS_P
#endif
inline void os_scatter_keys_local(const KEY_T *k, const uint *rank, uint shift, uint mask,
                                  __local const os_count_t *my, __local KEY_T *K OS_DIGITS_P, uint *pos)
{
    for (uint j = 0; j < ITEMS; ++j) {
        uint d = os_digit_at(rank, j, k[j], shift, mask);
        pos[j] = my[d] + os_rank_at(rank, j);
        K[pos[j]] = k[j];
#ifdef HAS_VALUES
        D[pos[j]] = (os_digit_t)d;
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

#if OS_DPW == 1 && OS_LB_WINDOW == 1
/* The steps of os_look_back. One digit d's walk back from tile g, one
 * status word at a time (st: the digit's column); the keys of d in the
 * tiles before g. */
inline uint os_walk_back(__global volatile uint *st, uint g, __global const KEY_T *keys_in, ulong n, uint shift,
                         uint mask, uint d, uint kind_in, ulong flip_in)
{
    uint excl = 0, idle = 0; /* idle: reads in a row that found tile t - 1 unpublished */
    for (uint t = g; t > 0;) {
        uint word = OS_READ(&st[(ulong)(t - 1) * RADIX]);
        if ((word & (OS_FLAG_AGG | OS_FLAG_PREFIX)) == 0) { /* not yet published: wait */
#ifdef LB_FALLBACK
            os_wait_or_count(&idle, &t, &excl, keys_in, n, shift, mask, d, kind_in, flip_in);
#endif
            continue;
        }
        idle = 0;
        excl += word & OS_COUNT;
        if (word & OS_FLAG_PREFIX) break;
        --t;
    }
    (void)idle;
    return excl;
}
#elif OS_DPW == 1
/* The steps of os_look_back. One digit d's walk back from tile g, the
 * words of OS_LB_WINDOW tiles at a time (st: the digit's column); the keys
 * of d in the tiles before g. */
inline uint os_walk_back(__global volatile uint *st, uint g, __global const KEY_T *keys_in, ulong n, uint shift,
                         uint mask, uint d, uint kind_in, ulong flip_in)
{
    uint excl = 0, idle = 0; /* idle: reads in a row that found tile t - 1 unpublished */
    for (uint t = g; t > 0;) {
        /* the words of tiles t - 1 .. t - OS_LB_WINDOW at once (past tile
         * 0: an empty prefix), then taken newest first */
        uint word[OS_LB_WINDOW];
        for (uint k = 0; k < OS_LB_WINDOW; ++k)
            word[k] = t > k ? OS_READ(&st[(ulong)(t - 1 - k) * RADIX]) : OS_FLAG_PREFIX;
        uint taken = 0, done = 0;
        for (uint k = 0; k < OS_LB_WINDOW && !done; ++k) {
            if ((word[k] & (OS_FLAG_AGG | OS_FLAG_PREFIX)) == 0) break; /* not yet published: read again from it */
            excl += word[k] & OS_COUNT;
            done = (word[k] & OS_FLAG_PREFIX) != 0;
            ++taken;
        }
        if (done) break;
        t -= taken;
        if (taken > 0) {
            idle = 0;
            continue;
        }
#ifdef LB_FALLBACK
        os_wait_or_count(&idle, &t, &excl, keys_in, n, shift, mask, d, kind_in, flip_in);
#endif
    }
    (void)idle;
    return excl;
}
#else
/* The steps of os_look_back. The walk back of all this work-item's digits
 * at once, each round every read first; each digit's prefix published as
 * soon as it has it. */
inline void os_walk_back_digits(__global volatile uint *status, uint g, const uint *count, uint mask,
                                __global const KEY_T *keys_in, ulong n, uint shift, uint kind_in, ulong flip_in,
                                uint *excl)
{
    uint t[OS_DPW], idle[OS_DPW]; /* t: the tile to read next + 1 (0: done); idle: reads in a row that found it
                                     unpublished */
    uint walking = 0;             /* the digits still walking back */
    for (uint i = 0; i < OS_DPW; ++i) {
        excl[i] = 0;
        idle[i] = 0;
        t[i] = os_digit(i) < RADIX && os_digit(i) <= mask ? g : 0u;
        walking += t[i] != 0;
    }
    while (walking) {
        uint word[OS_DPW];
        for (uint i = 0; i < OS_DPW; ++i) /* every read first */
            word[i] = t[i] ? OS_READ(&status[(ulong)(t[i] - 1) * RADIX + os_slot(i)]) : 0u;
        for (uint i = 0; i < OS_DPW; ++i) {
            if (t[i] == 0) continue;
            if ((word[i] & (OS_FLAG_AGG | OS_FLAG_PREFIX)) == 0) { /* not yet published: wait */
#ifdef LB_FALLBACK
                os_wait_or_count(&idle[i], &t[i], &excl[i], keys_in, n, shift, mask, os_digit(i), kind_in, flip_in);
#endif
            } else {
                idle[i] = 0;
                excl[i] += word[i] & OS_COUNT;
                t[i] = word[i] & OS_FLAG_PREFIX ? 0u : t[i] - 1u;
            }
            if (t[i] == 0) {
                --walking;
                OS_WRITE(&status[(ulong)g * RADIX + os_slot(i)], OS_FLAG_PREFIX | (excl[i] + count[i]));
            }
        }
    }
    (void)idle;
}
#endif

/* The look-back, for each digit d <= mask of this work-item, after
 * os_publish_count: adds up the published counts of d of the tiles before
 * this one, newest first, back to the newest inclusive prefix (with
 * LB_FALLBACK counting a tile's keys itself when it stays unpublished), and
 * publishes its own prefix (count[i]: its tile's keys of digit d).
 * excl[i]: the keys of digit d in the tiles before this one (0 for the
 * other digits).
 *
 * With OS_LB_WINDOW > 1 (the host's choice) a digit reads the words of that
 * many tiles at once and takes them newest first, so a walk over published
 * tiles waits for one read in OS_LB_WINDOW: 4-byte keys alone at 4 sorted
 * 2^28 keys in 5.87 ms against 6.02 (H100), but pairs (9.98 against 9.67)
 * and u64 keys (18.1 against 17.5) ran slower with it, at their register
 * limits (bench/RESULTS.md, radix look-back window).
 *
 * A work-item of several digits (wide digits) walks back over all of them at
 * once: each round reads the next word of every digit still walking before
 * it tests any, so the reads are in flight together (tested one after the
 * other, each read waited for the last: 10-bit digits of u32 keys, four a
 * work-item, sorted 2^28 keys in 11.9 ms against 6.0 at 8 bits, bench/RESULTS.md,
 * radix digit width), and publishes each digit's prefix as soon as it has
 * it. */
inline void os_look_back(__global volatile uint *status, uint g, const uint *count, uint mask,
                         __global const KEY_T *keys_in, ulong n, uint shift, uint kind_in, ulong flip_in, uint *excl)
{
#if OS_DPW == 1
    const uint d = os_digit(0); /* (its slot too) */
    excl[0] = 0;
    if (d < RADIX && d <= mask && g != 0) {
        __global volatile uint *st = status + d;
        excl[0] = os_walk_back(st, g, keys_in, n, shift, mask, d, kind_in, flip_in);
        OS_WRITE(&st[(ulong)g * RADIX], OS_FLAG_PREFIX | (excl[0] + count[0]));
    }
#else
    os_walk_back_digits(status, g, count, mask, keys_in, n, shift, kind_in, flip_in, excl);
#endif
#ifndef LB_FALLBACK
    (void)keys_in;
    (void)n;
    (void)shift;
    (void)kind_in;
    (void)flip_in;
#endif
}

/* A key out: with -DOS_STREAM_OUT (the host's choice: keys alone of 4 or 8
 * bytes on NVIDIA, passes larger than the L2) as a streaming store
 * (st.global.cs: first to leave the L2, which keeps the status words and the
 * pass's input instead). H100: u64 keys 2^28 17.42 -> 17.10 ms, u32 keys
 * 5.84 -> 5.78, a 10-bit range 2.60 -> 2.50; with values the pass ran 1%
 * slower, and streaming loads of the keys were slower everywhere
 * (bench/RESULTS.md, radix sort: cache operators). */
#if defined(OS_STREAM_OUT) && defined(NV_PTX) && KEY_BYTES == 8
inline void os_put_key(__global KEY_T *p, KEY_T x)
{
    asm volatile("st.global.cs.u64 [%0], %1;" ::"l"(p), "l"((ulong)x) : "memory");
}
#elif defined(OS_STREAM_OUT) && defined(NV_PTX) && KEY_BYTES == 4
inline void os_put_key(__global KEY_T *p, KEY_T x)
{
    asm volatile("st.global.cs.u32 [%0], %1;" ::"l"(p), "r"((uint)x) : "memory");
}
#else
inline void os_put_key(__global KEY_T *p, KEY_T x) { *p = x; }
#endif

/* The tile's keys out, in local order: runs of one digit go to consecutive
 * addresses (out_base[d]: the output position of local position 0 for
 * digit d). A full tile takes ITEMS keys per work-item, unchecked. */
inline void os_write_keys(__local const KEY_T *K, __local const uint *out_base, uint tile_n, uint shift, uint mask,
                          uint kind_out, ulong flip_out, __global KEY_T *keys_out)
{
    const uint lid = (uint)get_local_id(0);
    if (tile_n == TILE) {
        for (uint j = 0; j < ITEMS; ++j) {
            uint i = lid + j * WG;
            KEY_T key = K[i];
            os_put_key(&keys_out[out_base[digit_of(key, shift, mask)] + i], from_image(key, kind_out, (KEY_T)flip_out));
        }
    } else {
        for (uint i = lid; i < tile_n; i += WG) {
            KEY_T key = K[i];
            os_put_key(&keys_out[out_base[digit_of(key, shift, mask)] + i], from_image(key, kind_out, (KEY_T)flip_out));
        }
    }
}

#ifdef HAS_VALUES
/* The values the way the keys went: loaded as the keys were (wv = vals_in +
 * wbase + lane; with iota each key's index; a full tile unchecked), to
 * local memory at the keys' positions (V takes the keys' local array, once
 * every work-item has read its keys: the barrier) and out at the digit's
 * base (D). */
inline void os_move_values(__global const VAL_T *wv, uint iota, ulong wbase, uint lane, ulong n, uint tile_n,
                           const uint *pos, __local VAL_T *V, __local const os_digit_t *D, __local const uint *out_base,
                           __global VAL_T *vals_out)
{
    const uint lid = (uint)get_local_id(0);
    VAL_T v[ITEMS];
    if (iota) {
        for (uint j = 0; j < ITEMS; ++j) v[j] = (VAL_T)(wbase + j * OS_WARP + lane);
    } else if (tile_n == TILE) {
        for (uint j = 0; j < ITEMS; ++j) v[j] = wv[j * OS_WARP];
    } else {
        for (uint j = 0; j < ITEMS; ++j) v[j] = wbase + j * OS_WARP + lane < n ? wv[j * OS_WARP] : (VAL_T)0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint j = 0; j < ITEMS; ++j) V[pos[j]] = v[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tile_n == TILE) {
        for (uint j = 0; j < ITEMS; ++j) {
            uint i = lid + j * WG;
            vals_out[out_base[D[i]] + i] = V[i];
        }
    } else {
        for (uint i = lid; i < tile_n; i += WG) vals_out[out_base[D[i]] + i] = V[i];
    }
}
#endif

/* The keys of this work-item's digits in the tile (*in_tile, with the
 * padding keys: they are placed locally) and in the pass (*in_pass; two
 * scalars: oclgrind's uninitialized-value check crashed on a uint2 summed
 * in this loop); count[i]: digit i's keys in the tile, published without
 * the padding; delta[i]: the pass's keys of my digits before digit i less
 * the tile's. */
inline void os_my_digit_counts(__local const os_count_t *wh, const uint *hist_d, uint tile_n, uint mask, uint *count,
                               uint *delta, uint *in_tile, uint *in_pass)
{
    uint tile_total[OS_DPW];
    os_tile_digit_count(wh, tile_total);
    for (uint i = 0; i < OS_DPW; ++i) {
        count[i] = os_digit(i) == mask ? tile_total[i] - (TILE - tile_n) : tile_total[i]; /* published without */
        delta[i] = *in_pass - *in_tile;
        *in_tile += tile_total[i];
        *in_pass += hist_d[i];
    }
}

/* out_base[d] for my digits d: the output position of local position 0.
 * Ends with a barrier. */
inline void os_out_bases(const uint *delta, const uint *excl, __local uint *out_base)
{
    for (uint i = 0; i < OS_DPW; ++i)
        if (os_digit(i) < RADIX) out_base[os_digit(i)] = delta[i] + excl[i];
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* radix_onesweep's local memory: the tile's keys (then values) in local
 * order, with values the digit at each local position (K is overwritten by
 * values); per warp and digit the count, then the first local position
 * (wh), and the global position of local position 0 per digit (out_base):
 * with more than 256 digits 16-bit counters, out_base taking their words
 * once the keys are in local memory. */
#if defined(HAS_VALUES) && VAL_BYTES > KEY_BYTES
#define OS_BUF_T VAL_T
#else
#define OS_BUF_T KEY_T
#endif
#ifdef HAS_VALUES
#define OS_DIGIT_LOCALS __local os_digit_t D[TILE];
#else
#define OS_DIGIT_LOCALS
#endif
#if RADIX > 256
#define OS_WARP_LOCALS                                                                    \
    __local uint wh_words[OS_WARPS * RADIX / 2 > RADIX ? OS_WARPS * RADIX / 2 : RADIX];  \
    __local os_count_t *wh = (__local os_count_t *)wh_words;                              \
    __local uint *out_base = wh_words;
#else
#define OS_WARP_LOCALS                  \
    __local uint wh[OS_WARPS * RADIX];  \
    __local uint out_base[RADIX];
#endif

/* One pass: status = status_buf + status_off (zero on entry), this pass's
 * digit counts at hist_buf + hist_off; the spare words as above. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_onesweep(__global const KEY_T *keys_in, __global KEY_T *keys_out, ulong n, uint shift, uint bits,
                    uint kind_in, ulong flip_in, uint kind_out, ulong flip_out, __global volatile uint *status_buf,
                    ulong status_off LB_SPARE_ARGS, __global const uint *hist_buf, ulong hist_off RADIX_VAL_ARGS
                    COUNT_ARGS)
{
    __global volatile uint *status = status_buf + status_off;
    __global const uint *hist = hist_buf + hist_off;
    __local OS_BUF_T buf[TILE]; /* keys, then values, in local order */
    __local KEY_T *K = (__local KEY_T *)buf;
    OS_DIGIT_LOCALS
    OS_WARP_LOCALS
    __local uint s[PAD(WG) + 1];
    __local uint scratch[WG];
    __local uint wt[2 * OS_WARPS];
    __local uint tile_id;
    const uint lid = (uint)get_local_id(0), lane = lid & (OS_WARP - 1u), w = lid / OS_WARP;
    const uint mask = (1u << bits) - 1u;
    const uint groups = (uint)get_num_groups(0);
    uint hist_d[OS_DPW]; /* the pass's count of each digit of this work-item */
    LB_SPARE_CLEAR();
    /* digit d's count in the pass: scanned with the tile's own counts below,
     * into the digit's first output position (every tile does it: RADIX
     * reads, no launch); one digit a work-item reads it early, behind the
     * ranking, more after it (registers) */
#if OS_DPW == 1
    os_pass_counts(hist, hist_d);
#endif
    n = DEVICE_N(n);
    const uint g = os_take_tile(status, groups, wh, &tile_id);
    const ulong base = (ulong)g * TILE, wbase = base + (ulong)w * (OS_WARP * ITEMS);
    IDLE_RETURN(g > LAST_TILE(n)); /* (or nothing: no tile with keys waits on a later one) */
    const uint tile_n = base < n ? (uint)min((ulong)TILE, n - base) : 0u; /* idle: publishes 0 counts */
    __local os_count_t *my = wh + w * RADIX; /* this warp's counter of each digit, then its offsets */
    KEY_T k[ITEMS];
    uint rank[OS_RANK_WORDS], pos[ITEMS], count[OS_DPW], excl[OS_DPW];
    uint delta[OS_DPW]; /* per digit: its first output position less its first local position (after the scan) */

    os_load_keys(keys_in + wbase + lane, wbase, lane, n, tile_n == TILE, kind_in, flip_in, k);
    os_rank_keys(k, lane, shift, mask, my, scratch, rank);
#if OS_DPW > 1
    os_pass_counts(hist, hist_d);
#endif
    uint in_tile = 0, in_pass = 0;
    os_my_digit_counts(wh, hist_d, tile_n, mask, count, delta, &in_tile, &in_pass);
    os_publish_count(status, g, count, mask);
    /* .x: the first local position of this work-item's first digit, .y: its first output position */
    const uint2 start = os_digit_scan2((uint2)(in_tile, in_pass), wt, scratch, s);
    for (uint i = 0; i < OS_DPW; ++i) delta[i] += start.y - start.x;
    os_warp_offsets(wh, start.x);
    os_scatter_keys_local(k, rank, shift, mask, my, K
#ifdef HAS_VALUES
                          , D
#endif
                          , pos);
    os_look_back(status, g, count, mask, keys_in, n, shift, kind_in, flip_in, excl);
    os_out_bases(delta, excl, out_base);
    os_write_keys(K, out_base, tile_n, shift, mask, kind_out, flip_out, keys_out);
#ifdef HAS_VALUES
    os_move_values(vals_in + wbase + lane, iota, wbase, lane, n, tile_n, pos, (__local VAL_T *)buf, D, out_base,
                   vals_out);
#endif
}
#endif /* ONESWEEP */

#ifdef RADIX_FILL
/* Keys alone, sorted by every bit in one pass (8-bit keys, all 8 bits; the
 * host builds this with -DRADIX_FILL): a digit is then the whole key's image,
 * so equal digits are equal keys and the sorted keys follow from the digit
 * counts alone (a counting sort): keys_out[i] = the key whose digit's run
 * holds i. The pass writes the keys once and reads nothing but the digit
 * starts: starts[d * stride], the first output position of digit d (the
 * one-sweep histograms' digit starts, stride 1, or the classic passes'
 * scanned counts, whose tile 0 column is the digit's start: stride = tiles). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_fill(__global KEY_T *keys_out, ulong n, uint bits, uint kind, ulong flip, __global const uint *starts,
                uint stride COUNT_ARGS)
{
    __local uint s[RADIX];
    const uint lid = (uint)get_local_id(0);
    for (uint d = lid; d < RADIX; d += WG) s[d] = d < (1u << bits) ? starts[(ulong)d * stride] : 0xffffffffu;
    barrier(CLK_LOCAL_MEM_FENCE);
    const ulong base = (ulong)get_group_id(0) * TILE + lid;
    n = DEVICE_N(n);
    if (base >= n) return;
    /* d: the last digit whose run starts at or before i (s is non-decreasing,
     * s[0] = 0; an empty digit's start equals the next digit's): a binary
     * search for this work-item's first i, then a walk (i only grows: at most
     * RADIX - 1 steps in all besides one check per key) */
    uint d = 0;
    for (uint step = RADIX >> 1; step > 0; step >>= 1)
        if (s[d + step] <= (uint)base) d += step;
    for (uint j = 0; j < ITEMS; ++j) {
        ulong i = base + j * WG;
        if (i >= n) break;
        while (d + 1 < RADIX && s[d + 1] <= (uint)i) ++d;
        keys_out[i] = from_image((KEY_T)d, kind, (KEY_T)flip);
    }
}
#endif /* RADIX_FILL */

#ifdef RADIX_FILL16
/* 16-bit keys alone, all 16 bits (-DRADIX_FILL16, with the usual pass
 * kernels): the first pass sorts by the low byte as always; then, instead of
 * a second ranking pass, the keys are counted per value and written out as
 * runs (a counting sort over 65536 values). The first pass makes the count
 * cheap: its output (images, sorted by the low byte) holds each low byte's
 * keys together, so a tile's keys have low bytes l0, l0 + 1, ... from its
 * first key's l0 on, and those of FILL_RUNS low bytes are counted in local
 * memory by their high byte; any others (a tile over many short runs) go to
 * the global counters directly. counts[k]: keys whose image is k (cleared
 * before). */
#define FILL_RUNS 4u
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_key_histogram(__global const KEY_T *keys, ulong n, __global uint *counts COUNT_ARGS)
{
    __local uint h[FILL_RUNS * 256];
    __local uint low0;
    const uint lid = (uint)get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * TILE;
    n = DEVICE_N(n); /* an idle tile counts nothing */
    IDLE_RETURN(base >= n);
    for (uint b = lid; b < FILL_RUNS * 256; b += WG) h[b] = 0;
    if (lid == 0) low0 = base < n ? (uint)keys[base] & 0xffu : 0u;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint l0 = low0;
    for (uint j = 0; j < ITEMS; ++j) {
        ulong i = base + j * WG + lid;
        if (i >= n) break;
        uint k = (uint)keys[i], r = (k & 0xffu) - l0; /* >= 0: the tile is sorted by the low byte */
        if (r < FILL_RUNS) {
#if WG == 1
            h[r * 256 + (k >> 8)] += 1u; /* one work-item (CPUs): no atomics needed */
#else
            atomic_inc(&h[r * 256 + (k >> 8)]);
#endif
        } else {
            atomic_inc(&counts[k]);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint b = lid; b < FILL_RUNS * 256; b += WG)
        if (h[b]) atomic_add(&counts[((b & 255u) << 8) | (l0 + (b >> 8))], h[b]);
}

/* The last d with starts[d] <= x, over 65536 non-decreasing starts with
 * starts[0] = 0: two rounds of 256 candidates each (every work-item reads
 * a few; the one candidate where the comparison turns says so), no long
 * chain of dependent reads. Ends with the result in *found for all. */
inline uint fill_find(__global const uint *starts, uint x, __local uint *found)
{
    const uint lid = (uint)get_local_id(0);
    for (uint c = lid; c < 256; c += WG)
        if (starts[c << 8] <= x && (c == 255 || starts[(c + 1) << 8] > x)) *found = c << 8;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint b = *found;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint c = lid; c < 256; c += WG)
        if (starts[b + c] <= x && (c == 255 || starts[b + c + 1] > x)) *found = b + c;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint d = *found;
    barrier(CLK_LOCAL_MEM_FENCE);
    return d;
}

/* The last d in [lo, hi] with starts[d] <= i (starts[lo] <= i). */
inline uint fill_search(__global const uint *starts, uint lo, uint hi, uint i)
{
    while (lo < hi) {
        uint mid = lo + (hi - lo + 1) / 2;
        if (starts[mid] <= i) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

/* After the exclusive scan of counts (65536 starts): out[i] = the key whose
 * run holds i (empty values share the next value's start, so the last value
 * starting at or before i is the one). A work-group finds the values
 * [lo, hi] of its tile's first and last positions and, when there are at
 * most FILL_WINDOW, copies their starts to local memory; each work-item then
 * searches its first position there and walks on (positions only grow). A
 * wider range (sparse keys) is searched in global memory, per position. */
#define FILL_WINDOW 1024u
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void radix_fill16(__global KEY_T *keys_out, ulong n, uint kind, ulong flip, __global const uint *starts
                  COUNT_ARGS)
{
    __local uint win[FILL_WINDOW + 1];
    __local uint found;
    const uint lid = (uint)get_local_id(0);
    const ulong base = (ulong)get_group_id(0) * TILE;
    n = DEVICE_N(n);
    const int live = base < n; /* an idle tile writes nothing (its return comes after the barriers) */
    IDLE_RETURN(!live);
    const uint last = live ? (uint)min(base + TILE, n) - 1u : (uint)base;
    const uint lo = fill_find(starts, (uint)base, &found);
    const uint hi = fill_find(starts, last, &found);
    const uint w = hi - lo;
    if (w < FILL_WINDOW)
        for (uint d = lid; d <= w; d += WG) win[d] = starts[lo + d];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (!live || base + lid > last) return;
    if (w < FILL_WINDOW) {
        uint d = 0; /* win[0 .. w]: the starts of lo .. hi */
        for (uint step = FILL_WINDOW; step > 0; step >>= 1)
            if (d + step <= w && win[d + step] <= (uint)(base + lid)) d += step;
        for (uint j = 0; j < ITEMS; ++j) {
            ulong i = base + j * WG + lid;
            if (i > last) break;
            while (d < w && win[d + 1] <= (uint)i) ++d;
            keys_out[i] = from_image((KEY_T)(lo + d), kind, (KEY_T)flip);
        }
    } else {
        for (uint j = 0; j < ITEMS; ++j) {
            ulong i = base + j * WG + lid;
            if (i > last) break;
            keys_out[i] = from_image((KEY_T)fill_search(starts, lo, hi, (uint)i), kind, (KEY_T)flip);
        }
    }
}
#endif /* RADIX_FILL16 */
