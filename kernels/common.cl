/* clsort common kernel code: configuration, loads, work-group Blelloch scan,
 * tile scan and decoupled look-back helpers. Prepended to every program.
 *
 * Build-time macros (set by the host from the device's limits):
 *   WG      work-group size (power of two)
 *   ITEMS   elements per work-item, so one tile is WG*ITEMS elements
 *   T       the arithmetic type of the scan (uint, int, float, ulong, long, double)
 *   SRC_T   the type read from the input (T for a plain scan; flags or keys otherwise)
 *   LOAD_FLAGS  when defined, loads turn the source into 0/1 flags (see LOAD)
 *   KEY_BIT     with LOAD_FLAGS: the flag is bit `bit` of the source word
 *   LOAD_PRED   loads turn each source element into the 0/1 flag of a
 *               predicate, load_pred(element, index, bit LOAD_CTX), defined
 *               before this file (select.cl); LOAD_CTX_ARGS / LOAD_CTX name
 *               and pass what it needs besides (the bounds, or the values),
 *               a parameter of every function and kernel that loads
 *   LB_STATUS64 the look-back status form (below; the host sets it only
 *               where cl_khr_int64_base_atomics is offered)
 * OpenCL C 1.2 only: no sub-groups, no C11 atomics, 64-bit atomics only
 * behind LB_STATUS64, so it builds on NVIDIA, PoCL, rusticl and oclgrind
 * alike. */

#ifndef WG
#define WG 256
#endif
#ifndef ITEMS
#define ITEMS 16
#endif
#ifndef T
#define T uint
#endif
#ifndef SRC_T
#define SRC_T T
#endif

#define TILE (WG * ITEMS)

/* What a LOAD needs besides its input: nothing unless LOAD_PRED's file says */
#ifndef LOAD_CTX_ARGS
#define LOAD_CTX_ARGS
#define LOAD_CTX
#endif

/* Device counts (clsort_enqueue.count). A kernel with COUNT_ARGS takes its
 * element count from the device: the host's n is the capacity the launch is
 * sized for, the count is the uint32 dev_count[dev_count_at] clamped to it
 * (dev_count NULL: n itself). Tiles past LAST_TILE(count) are idle: they
 * load nothing and write nothing. Kernels without barriers return at once.
 * A kernel with barriers returns at IDLE_RETURN only where the host builds
 * it with -DIDLE_EXIT (GPUs); elsewhere the idle tile runs on to the end as
 * an empty tile (PoCL's CPU device mis-ran kernels that returned before a
 * barrier, even where the return was never taken). Every kernel is correct
 * either way; the condition is the same for the whole work-group. */
#ifdef IDLE_EXIT
#define IDLE_RETURN(idle) if (idle) return
#else
#define IDLE_RETURN(idle) (void)0
#endif
#define COUNT_ARGS , __global const uint *dev_count, ulong dev_count_at
#define DEVICE_N(cap) (dev_count ? min((ulong)(cap), (ulong)dev_count[dev_count_at]) : (ulong)(cap))
/* The last tile that holds elements of n (tile 0 for n = 0): it writes the totals. */
#define LAST_TILE(n) ((n) ? (uint)(((n) - 1) / TILE) : 0u)

#if defined(cl_khr_fp64) && defined(NEED_FP64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

/* Local arrays are padded by one word per 32 so that work-item i reading
 * element i*ITEMS+k does not hit the same bank as its neighbours. */
#define PAD(i) ((i) + ((i) >> 5))
#define TILE_PADDED (PAD(TILE) + 1)

/* Element i of the input as a value of T (0 past the end: the identity). */
#if defined(LOAD_FLAGS) && defined(KEY_BIT)
#define LOAD(p, i, n, bit) ((i) < (n) ? (T)(((p)[i] >> (bit)) & 1) : (T)0)
#elif defined(LOAD_FLAGS)
#define LOAD(p, i, n, bit) ((i) < (n) ? (T)((p)[i] != 0) : (T)0)
#elif defined(LOAD_PRED)
#define LOAD(p, i, n, bit) ((i) < (n) ? (T)load_pred((p)[i], (i), (bit) LOAD_CTX) : (T)0)
#else
#define LOAD(p, i, n, bit) ((i) < (n) ? (T)((p)[i]) : (T)0)
#endif

/* Blelloch work-efficient exclusive scan of one value per work-item
 * (up-sweep builds a reduction tree in place, down-sweep pushes prefixes back
 * down). s holds PAD(WG)+1 elements. Returns the exclusive prefix of x;
 * *total receives the sum over the work-group. Ends with a barrier. */
inline T wg_exclusive_scan(T x, __local T *s, T *total)
{
    const uint lid = (uint)get_local_id(0);
    s[PAD(lid)] = x;
    uint offset = 1;
    for (uint d = WG >> 1; d > 0; d >>= 1) {
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            uint ai = offset * (2 * lid + 1) - 1;
            uint bi = offset * (2 * lid + 2) - 1;
            s[PAD(bi)] += s[PAD(ai)];
        }
        offset <<= 1;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    T sum = s[PAD(WG - 1)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (lid == 0) s[PAD(WG - 1)] = (T)0;
    for (uint d = 1; d < WG; d <<= 1) {
        offset >>= 1;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid < d) {
            uint ai = offset * (2 * lid + 1) - 1;
            uint bi = offset * (2 * lid + 2) - 1;
            T t = s[PAD(ai)];
            s[PAD(ai)] = s[PAD(bi)];
            s[PAD(bi)] += t;
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    T r = s[PAD(lid)];
    barrier(CLK_LOCAL_MEM_FENCE);
    *total = sum;
    return r;
}

#ifdef NV_PTX
/* x of the lane d below in this hardware warp, 32 consecutive local ids
 * (lanes < d: their own). Every lane of the warp calls it. NVIDIA only
 * (-DNV_PTX); the callers emulate it with local memory elsewhere. */
inline uint wg_shfl_up(uint x, uint d)
{
    uint r;
    asm volatile("shfl.sync.up.b32 %0, %1, %2, 0, 0xffffffff;" : "=r"(r) : "r"(x), "r"(d));
    return r;
}
#endif

/* Sum of one value per work-item (tree in local memory). Ends with a barrier. */
inline T wg_reduce(T x, __local T *s)
{
    const uint lid = (uint)get_local_id(0);
    s[lid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = WG >> 1; d > 0; d >>= 1) {
        if (lid < d) s[lid] += s[lid + d];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    T r = s[0];
    barrier(CLK_LOCAL_MEM_FENCE);
    return r;
}

/* Loads tile `base` coalesced (element j*WG+lid on step j) into the padded
 * local array `tile`. */
inline void load_tile(__global const SRC_T *in, ulong base, ulong n, uint bit, __local T *tile LOAD_CTX_ARGS)
{
    const uint lid = (uint)get_local_id(0);
    for (uint j = 0; j < ITEMS; ++j) {
        uint k = j * WG + lid;
        tile[PAD(k)] = LOAD(in, base + k, n, bit);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
}

/* DEFINE_SCAN_RUNS(name, RUN) defines `T name(__local T *a, __local T *s)`:
 * an exclusive scan, in place, of the WG * RUN elements a[PAD(i)]. Work-item w
 * scans its RUN consecutive elements serially, the per-work-item sums go
 * through the Blelloch scan. Returns the total. Ends with a barrier. */
#define DEFINE_SCAN_RUNS(name, RUN)                          \
    inline T name(__local T *a, __local T *s)                \
    {                                                        \
        const uint lid = (uint)get_local_id(0);              \
        T v[RUN];                                            \
        T sum = (T)0;                                        \
        for (uint k = 0; k < (RUN); ++k) {                   \
            v[k] = a[PAD(lid * (RUN) + k)];                  \
            sum += v[k];                                     \
        }                                                    \
        T total;                                             \
        T run = wg_exclusive_scan(sum, s, &total);           \
        for (uint k = 0; k < (RUN); ++k) {                   \
            a[PAD(lid * (RUN) + k)] = run;                   \
            run += v[k];                                     \
        }                                                    \
        barrier(CLK_LOCAL_MEM_FENCE);                        \
        return total;                                        \
    }

/* Exclusive scan of a tile (WG * ITEMS elements) held in local memory. */
DEFINE_SCAN_RUNS(scan_tile_local, ITEMS)

/* ---- decoupled look-back (Merrill & Garland 2016), 32-bit payloads ----
 * Status of tile t: 8 bytes, words status[2t] and status[2t + 1] of the
 * buffer, in one of two forms chosen by the host per device (the quirk
 * table's lb_status64 row), each all zero for "nothing published":
 *  - LB_STATUS64: one 64-bit word, flag << 32 | the 32 payload bits, written
 *    and read whole by cl_khr_int64_base_atomics functions (a plain volatile
 *    64-bit form on NVIDIA measured slower than the pairs on the H100, so
 *    NVIDIA takes the pairs: clsort.h, clsort__decide).
 *  - otherwise two 32-bit words, each flag << 16 | 16 payload bits (the low
 *    half, the high half). Only 32-bit atomics (OpenCL 1.2 core, 6.12.11):
 *    each word is written and read whole by an atomic function and names its
 *    own flag, so a reader takes a payload only when both words carry the
 *    same flag; then both halves belong to one value (a tile writes its
 *    aggregate once and its inclusive prefix once), in whatever order the
 *    two words became visible. A 64-bit word without int64 atomics could
 *    tear (OpenCL 1.2 promises nothing wider than 32 bits).
 * Neither form needs a fence between payload and flag: they travel in one
 * word, or each half names its flag. After the 2 * tiles words: the ticket
 * (a 32-bit word in both forms). Tiles take their index from the ticket, so
 * a tile only ever waits for tiles that have already started; the decoupled
 * fallback (LB_FALLBACK) removes even the assumption that a started
 * work-group keeps running. */
#define LB_EMPTY 0u
#define LB_AGGREGATE 1u
#define LB_PREFIX 2u

#ifdef LB_STATUS64
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif

#ifdef LB_STATUS64
#define LB_LOAD64(p) atom_add((p), (ulong)0)
#define LB_STORE64(p, x) atom_xchg((p), (x))
#define LB_WORD64(status, i) ((__global volatile ulong *)(status) + (i))

inline void lb_publish(__global volatile uint *status, uint tile, uint flag, uint bits)
{
    LB_STORE64(LB_WORD64(status, tile), (ulong)flag << 32 | (ulong)bits);
}

/* Tile i's flag and payload bits (*bits). */
inline uint lb_read(__global volatile uint *status, uint i, uint *bits)
{
    ulong w = LB_LOAD64(LB_WORD64(status, i));
    *bits = (uint)w;
    return (uint)(w >> 32);
}

/* Whether tile i has published nothing at all. */
inline int lb_untouched(__global volatile uint *status, uint i)
{
    return LB_LOAD64(LB_WORD64(status, i)) == 0;
}
#else
inline void lb_publish(__global volatile uint *status, uint tile, uint flag, uint bits)
{
    atomic_xchg(&status[2 * tile], flag << 16 | (bits & 0xffffu));
    atomic_xchg(&status[2 * tile + 1], flag << 16 | (bits >> 16));
}

/* Tile i's flag (LB_EMPTY while its two words disagree: it is still
 * publishing) and payload bits (*bits), read by atomics (an add of 0), so
 * that the hand-off between work-groups is atomic reads of atomic writes. */
inline uint lb_read(__global volatile uint *status, uint i, uint *bits)
{
    uint lo = atomic_add(&status[2 * i], 0u), hi = atomic_add(&status[2 * i + 1], 0u);
    *bits = (lo & 0xffffu) | (hi << 16);
    return (lo >> 16) == (hi >> 16) ? lo >> 16 : LB_EMPTY;
}

/* Whether tile i has published nothing at all (neither word written). */
inline int lb_untouched(__global volatile uint *status, uint i)
{
    return ((atomic_add(&status[2 * i], 0u) | atomic_add(&status[2 * i + 1], 0u)) >> 16) == 0;
}
#endif

/* ---- the spare status region (the host's clsort__status) ----
 * A look-back kernel gets its status words zeroed (`status`) and zeroes, as
 * it goes, words [lo, hi) of the other region (`spare`), which the next call
 * of the same scratch slot then finds clean: no clear launch per call. The
 * spare is no kernel's status while this one runs (calls of one context run
 * in order), so plain stores do, in any order; every work-item takes words
 * get_global_id(0), + get_global_size(0), ... */
#define LB_SPARE_ARGS , __global uint *lb_spare, ulong lb_spare_lo, ulong lb_spare_hi
#define LB_SPARE_CLEAR() lb_clear_spare(lb_spare, lb_spare_lo, lb_spare_hi)

inline void lb_clear_spare(__global uint *spare, ulong lo, ulong hi)
{
    for (ulong i = lo + get_global_id(0); i < hi; i += get_global_size(0)) spare[i] = 0u;
}

#if defined(T_IS_FLOAT)
#define AS_T(b) as_float(b)
#define AS_BITS(x) as_uint(x)
#elif defined(T_IS_INT)
#define AS_T(b) as_int(b)
#define AS_BITS(x) as_uint(x)
#else
#define AS_T(b) (b)
#define AS_BITS(x) (x)
#endif

/* Number of predecessors examined per look-back step (<= WG). */
#define LB_WINDOW (WG < 32 ? WG : 32)

/* Reads in a row that found the awaited predecessor unpublished before the
 * decoupled fallback takes over (LB_FALLBACK). */
#define LB_SPINS 64

#ifdef LB_FALLBACK
/* Decoupled fallback (Smith, Levien & Owens, SPAA 2025): a work-group whose
 * look-back sees the same predecessor publish nothing for LB_SPINS reads in a
 * row does not wait on: it sums that tile from the input itself and goes on
 * past it. Then no tile waits on another work-group being scheduled, so the
 * one-pass kernels are correct without forward progress between
 * work-groups (PoCL basic, rusticl, oclgrind run them one after another; the
 * LB_REVERSE test hook starts them in reverse tile order, so that the first
 * to start waits on tiles no work-group has taken). */
#define LB_ARGS , __global const SRC_T *lb_in, ulong lb_n, uint lb_bit, __local T *lb_s LOAD_CTX_ARGS
#define LB_PASS , lb_in, lb_n, lb_bit, lb_s LOAD_CTX
/* a kernel's input, length, flag bit and WG-element local scratch for lb_tile_sum */
#define LB_INPUT(in, n, bit, s) , in, n, bit, s LOAD_CTX

/* The sum of tile j's elements (as LOAD sees them), from the input; every
 * work-item gets it. Ends with a barrier. */
inline T lb_tile_sum(__global const SRC_T *in, uint j, ulong n, uint bit, __local T *s LOAD_CTX_ARGS)
{
    const ulong base = (ulong)j * TILE;
    T x = (T)0;
    for (uint k = 0; k < ITEMS; ++k) x += LOAD(in, base + (ulong)k * WG + get_local_id(0), n, bit);
    return wg_reduce(x, s);
}
#else
#define LB_ARGS
#define LB_PASS
#define LB_INPUT(in, n, bit, s)
#endif

/* The look-back's read: the first LB_WINDOW work-items read the status of
 * predecessors j, j - 1, ... at once into win (flag, bits per predecessor;
 * before tile 0: the prefix 0). */
inline void lb_read_window(__global volatile uint *status, int j, __local uint *win)
{
    const uint lid = (uint)get_local_id(0);
    if (lid < LB_WINDOW) {
        int idx = j - (int)lid;
        uint bits = 0u, f = LB_PREFIX; /* before tile 0: prefix 0 */
        if (idx >= 0) f = lb_read(status, (uint)idx, &bits);
        win[2 * lid] = f;
        win[2 * lid + 1] = bits;
    }
}

/* Work-item 0's step over the window: adds the predecessors up to the first
 * that published nothing or the nearest inclusive prefix to *acc and sets
 * *step (-1: finished; -2: sum tile j here, LB_FALLBACK; else the
 * predecessors consumed). Returns the new idle count (reads in a row that
 * found tile j empty). */
inline int lb_window_sum(__local const uint *win, __local T *acc, __local int *step, int idle)
{
    int used = 0, done = 0;
    T part = (T)0;
    for (; used < LB_WINDOW; ++used) {
        uint f = win[2 * used];
        if (f == LB_EMPTY) break;
        part += AS_T(win[2 * used + 1]);
        if (f == LB_PREFIX) { done = 1; break; }
    }
    *acc += part;
    /* progress (an aggregate or the prefix found) resets the count;
     * a window that ends the look-back never falls back (it did once,
     * when the 64th read found tile j's prefix: that prefix was added
     * here and then again after the fallback, too large by it) */
    idle = used || done ? 0 : idle + 1;
    *step = done ? -1 : used; /* -1: finished; else predecessors consumed */
#ifdef LB_FALLBACK
    if (!done && idle >= LB_SPINS) {
        *step = -2; /* sum tile j here */
        idle = 0;
    }
#endif
    return idle;
}

#ifdef LB_FALLBACK
/* The fallback's step (every work-item: it has barriers): tile j summed from
 * the input, added to *acc if tile j has still published nothing. Returns
 * the predecessors consumed (1, or 0: read tile j's status again). */
inline int lb_fallback_step(__global volatile uint *status, int j, __local T *acc, __local int *step LB_ARGS)
{
    T agg = lb_tile_sum(lb_in, (uint)j, lb_n, lb_bit, lb_s LOAD_CTX);
    /* In place (in == out), tile j may have started meanwhile, published
     * and overwritten its input: the sum counts only if tile j has
     * still published nothing after it was read (it writes its output
     * only after publishing, lb_exclusive_prefix); else read its status
     * again. The barrier orders every work-item's reads of tile j
     * before the status read. */
    barrier(CLK_GLOBAL_MEM_FENCE);
    if (get_local_id(0) == 0) {
        int still_empty = lb_untouched(status, (uint)j);
        if (still_empty) *acc += agg;
        *step = still_empty ? 1 : 0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return *step;
}
#endif

/* Called by every work-item of the tile's work-group (it has barriers):
 * returns the sum of all tiles before tile g (0 for g = 0). The first LB_WINDOW
 * work-items read LB_WINDOW predecessors' status at once (lb_read_window);
 * work-item 0 adds them up to the nearest inclusive prefix (lb_window_sum). A
 * window that starts with a tile that has published nothing yet is read again
 * (spin), or with LB_FALLBACK, after LB_SPINS such reads, that tile is summed
 * here (lb_fallback_step). Every branch that reaches a barrier depends only
 * on *step, read by all work-items after a barrier: the control flow is
 * uniform. */
inline T lb_lookback(__global volatile uint *status, uint g, __local uint *win, __local T *acc,
                     __local int *step LB_ARGS)
{
    const uint lid = (uint)get_local_id(0);
    int j = (int)g - 1; /* newest predecessor not yet added */
    int idle = 0;       /* work-item 0: reads in a row that found tile j empty */
    if (lid == 0) *acc = (T)0;
    for (;;) {
        lb_read_window(status, j, win);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (lid == 0) idle = lb_window_sum(win, acc, step, idle);
        barrier(CLK_LOCAL_MEM_FENCE);
        int st = *step;
        if (st == -1) break;
#ifdef LB_FALLBACK
        if (st == -2) /* the same for every work-item: the barriers inside are reached by all */
            st = lb_fallback_step(status, j, acc, step LB_PASS);
#endif
        j -= st;
        barrier(CLK_LOCAL_MEM_FENCE); /* everyone has read *step before it changes */
    }
    return *acc;
}

/* The tile index of this work-group from the ticket counter that follows the
 * status words (all zero on entry): tiles take indices in the order they
 * start, so a tile only ever waits for tiles that are already running. */
inline uint lb_ticket(__global volatile uint *status, __local uint *slot)
{
    if (get_local_id(0) == 0) {
        uint t = atomic_inc(&status[2 * get_num_groups(0)]);
#if defined(LB_REVERSE) && defined(LB_FALLBACK)
        t = (uint)get_num_groups(0) - 1u - t; /* test hook: the first to start takes the last tile */
#endif
        *slot = t;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    return *slot;
}

/* The whole look-back protocol for tile g whose own sum is tsum: publish the
 * aggregate, add up the predecessors (lb_lookback), publish the inclusive
 * prefix; the last tile with elements (`last`) writes the grand total to
 * total[0] (if not NULL).
 * Returns the exclusive prefix to every work-item (it has barriers: call it
 * from all of them). win (2 * LB_WINDOW words), acc, step and prefix are the
 * caller's __local scratch (OpenCL 1.2 declares __local variables only in
 * kernels). The caller writes its output only after this returns, that is
 * after the aggregate was published (the fallback's in-place rule). */
inline T lb_exclusive_prefix(__global volatile uint *status, uint g, uint last, T tsum, __global T *total,
                             __local uint *win, __local T *acc, __local int *step, __local T *prefix LB_ARGS)
{
    if (get_local_id(0) == 0) lb_publish(status, g, g == 0 ? LB_PREFIX : LB_AGGREGATE, AS_BITS(tsum));
    T excl = lb_lookback(status, g, win, acc, step LB_PASS); /* 0 for tile 0 */
    if (get_local_id(0) == 0) {
        if (g != 0) lb_publish(status, g, LB_PREFIX, AS_BITS(excl + tsum));
        *prefix = excl;
        if (total && g == last) total[0] = excl + tsum;
    }
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
    return *prefix;
}

/* Zeroes count 32-bit words: the look-back status words and ticket before a
 * pass. (A kernel rather than clEnqueueFillBuffer, so that kernel checkers
 * such as oclgrind see the words as initialized before the atomics read them.) */
__kernel void clear_words(__global uint *p, ulong count) /* 64-bit: 2^32 cells need 2^32 + 1 counters */
{
    /* a bounded grid strides over the words: one word per work-item made
     * 64 MiB of status words cost 0.24 ms on the H100 (launch-bound) */
    for (size_t i = get_global_id(0); i < count; i += get_global_size(0)) p[i] = 0;
}

/* Morton order: spreads the low 21 bits of x to every third bit (3D) or the
 * low 32 bits to the even bits (2D). One copy for bin.cl's cell keys (10 and
 * 16 bits per axis) and tree.cl's codes (10/21 and 16/31). */
inline ulong morton_spread3(ulong x)
{
    x &= 0x1ffffful;
    x = (x | (x << 32)) & 0x1f00000000fffful;
    x = (x | (x << 16)) & 0x1f0000ff0000fful;
    x = (x | (x << 8)) & 0x100f00f00f00f00ful;
    x = (x | (x << 4)) & 0x10c30c30c30c30c3ul;
    x = (x | (x << 2)) & 0x1249249249249249ul;
    return x;
}
inline ulong morton_spread2(ulong x)
{
    x &= 0xfffffffful;
    x = (x | (x << 16)) & 0x0000ffff0000fffful;
    x = (x | (x << 8)) & 0x00ff00ff00ff00fful;
    x = (x | (x << 4)) & 0x0f0f0f0f0f0f0f0ful;
    x = (x | (x << 2)) & 0x3333333333333333ul;
    x = (x | (x << 1)) & 0x5555555555555555ul;
    return x;
}
