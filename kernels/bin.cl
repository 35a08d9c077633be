/* clsort particle binning: cell keys from positions, the start of every cell
 * in a sorted key list, and the atomic-counting alternative to the sort.
 * Prepended by common.cl. Build-time macros: WG (work-group size).
 *
 * A particle's cell along one axis is floor((p - origin) * inv), inv being
 * 1/cell_size rounded to float on the host; then wrapped (periodic axis) or
 * clamped (closed axis) into [0, cells). The host reference in the tests does
 * the same float operations, so keys agree bit for bit. */

/* The cell index along one axis. Saturating conversion: NaN -> 0, +-inf and
 * huge values -> the extremes of long, then wrapped or clamped. */
inline uint axis_cell(float p, float origin, float inv, uint cells, uint periodic)
{
    /* NaN counts as cell 0 and out-of-range values saturate, both by hand:
     * the specification's convert_long_sat(NaN) == 0 is not what every
     * driver does (NVIDIA's returns LONG_MIN, which a periodic axis then
     * wrapped into cell cells/2) */
    float f = floor((p - origin) * inv);
    if (isnan(f)) return 0u;
    long c = f >= 0x1p63f ? LONG_MAX : f < -0x1p63f ? LONG_MIN : convert_long(f); /* saturate by hand too */
    if (periodic) {
        c %= (long)cells;
        return (uint)(c < 0 ? c + (long)cells : c);
    }
    return (uint)(c < 0 ? 0 : c >= (long)cells ? (long)cells - 1 : c);
}

/* Morton order (common.cl's morton_spread*): 16 bits per axis in 2D, 10 in 3D. */
inline uint spread2(uint x) { return (uint)morton_spread2(x & 0xffffu); }
inline uint spread3(uint x) { return (uint)morton_spread3(x & 0x3ffu); }

/* keys[i] = the cell of particle i, whose position is the floats at
 * pos[i * stride + offset + axis] (stride and offset in floats).
 * geom = (origin.xyz, -), inv = (1/cell_size.xyz, -); cells.w = dims,
 * flags: CELL_PERIODIC_X/Y/Z, CELL_MORTON (the host's CLSORT__CELL_* mirror them). */
#define CELL_PERIODIC_X 1u
#define CELL_PERIODIC_Y 2u
#define CELL_PERIODIC_Z 4u
#define CELL_MORTON 8u

__kernel void cell_keys(__global const float *pos, __global uint *keys, ulong n, ulong stride, ulong offset,
                        float4 origin, float4 inv, uint4 cells, uint flags COUNT_ARGS)
{
    const ulong i = get_global_id(0);
    if (i >= DEVICE_N(n)) return;
    __global const float *p = pos + i * stride + offset;
    uint cx = axis_cell(p[0], origin.x, inv.x, cells.x, flags & CELL_PERIODIC_X);
    uint cy = axis_cell(p[1], origin.y, inv.y, cells.y, flags & CELL_PERIODIC_Y);
    uint cz = cells.w == 3 ? axis_cell(p[2], origin.z, inv.z, cells.z, flags & CELL_PERIODIC_Z) : 0u;
    uint key;
    if (flags & CELL_MORTON)
        key = cells.w == 3 ? spread3(cx) | (spread3(cy) << 1) | (spread3(cz) << 2) : spread2(cx) | (spread2(cy) << 1);
    else
        key = (cz * cells.y + cy) * cells.x + cx; /* x fastest */
    keys[i] = key;
}

/* offsets[c] = the first index of the ascending keys[0..n) holding a key >= c,
 * for c in [0, cells]: cell c's particles are [offsets[c], offsets[c+1]).
 * One work-item per cell, a binary search each: every cell is written once,
 * no atomics, no clearing, and the work per item is bounded (log2 n reads)
 * whatever the distribution (a particle-parallel "mark the boundaries" pass
 * would loop over every empty cell between two keys). */
__kernel void cell_offsets(__global const uint *keys, ulong n, ulong cells, __global uint *offsets COUNT_ARGS)
{
    const ulong c = get_global_id(0);
    if (c > cells) return;
    n = DEVICE_N(n);
    ulong lo = 0, hi = n;
    while (lo < hi) {
        ulong mid = lo + (hi - lo) / 2;
        if (keys[mid] < c) lo = mid + 1;
        else hi = mid;
    }
    offsets[c] = (uint)lo;
}

/* The atomic-counting alternative (counting sort with atomics, the course's
 * "grid with atomic operations"): counts[key]++ for every particle... */
__kernel void bin_count(__global const uint *keys, ulong n, __global uint *counts COUNT_ARGS)
{
    const ulong i = get_global_id(0);
    if (i < DEVICE_N(n)) atomic_inc(&counts[keys[i]]);
}

/* ...then, after an exclusive scan of the counts into offsets, each particle
 * takes the next free slot of its cell. The order inside a cell depends on
 * the scheduling (not stable). cursor starts zeroed (common.cl's clear_words,
 * a kernel: oclgrind does not see clEnqueueFillBuffer's writes to atomics). */
__kernel void bin_scatter(__global const uint *keys, ulong n, __global const uint *offsets,
                          __global uint *cursor, __global uint *sorted_keys, __global uint *permutation COUNT_ARGS)
{
    const ulong i = get_global_id(0);
    if (i >= DEVICE_N(n)) return;
    uint k = keys[i];
    uint slot = offsets[k] + atomic_inc(&cursor[k]);
    sorted_keys[slot] = k;
    permutation[slot] = (uint)i;
}
