/* clsort all-pairs N-body step: accelerations by a local-memory tile of
 * positions (the seed tutorial's kernel), with register blocking and a split
 * of the j range, then one integrator step. Prepended by common.cl.
 *
 * Build-time macros (chosen by the host from the device and n, see
 * clsort__nbody_shape; clsort_tuning.nbody_* or CLSORT_NBODY="wg:ib:js[:flags]"
 * override, flags n = native_rsqrt, f = fast math, p = precise):
 *   WG      work-items per work-group = NB_P body lanes x JS j-slices
 *   IB      bodies per work-item (register blocking: each position read from
 *           the tile serves IB bodies)
 *   JS      j-slices: the JS work-items of one lane split the j range into JS
 *           chunks and add their partial sums through local memory at the end
 *           (small n: more work-items than bodies)
 *   NB_FP64 double4 positions/velocities (cl_khr_fp64), else float4
 *   NATIVE_RSQRT  native_rsqrt instead of rsqrt (float only)
 *   SOFT_ZERO     softening 0: r = 0 (a body with itself, coincident bodies)
 *                 contributes nothing instead of 0 * inf = NaN
 *   NB_PAIRS      the pair kernels (nbody_pairs, nbody_apply: CLSORT_NBODY_ATOMIC)
 *                 instead of nbody_step
 *   NB_HELPERS    no kernels, only the integrator (tree.cl's Barnes-Hut step)
 *   NB_JSPLIT     nbody_step over the sources [j_begin, j_end) only, the sums
 *                 carried between launches in acc_part (a device with a loop
 *                 budget: the host splits the sources, clsort.h >>loop budget)
 * A program holds only the kernels its calls launch (NVIDIA's driver compiles
 * every kernel of a program at each build, also from the program cache).
 *
 * Positions are (x, y, z, mass); velocities (vx, vy, vz, unused). A body's sum
 * runs over j in a fixed order for a given shape (chunk q of the j range by
 * slices, the tiles of a chunk in order, the partial sums of slices 0, 1, ..
 * added in order), whatever the group or the body's position in it: results
 * repeat bit for bit across runs, bursts and device splits of one shape. */

#ifndef IB
#define IB 1
#endif
#ifndef JS
#define JS 1
#endif
#define NB_P (WG / JS) /* body lanes per work-group; also the tile of one j-slice */

#ifdef NB_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real;
typedef double4 real4;
#define NB_RSQRT(x) rsqrt(x)
#else
typedef float real;
typedef float4 real4;
#ifdef NATIVE_RSQRT
#define NB_RSQRT(x) native_rsqrt(x)
#else
#define NB_RSQRT(x) rsqrt(x)
#endif
#endif

#ifdef SOFT_ZERO
#define NB_INV(r2) ((r2) > (real)0 ? NB_RSQRT(r2) : (real)0)
#else
#define NB_INV(r2) NB_RSQRT(r2)
#endif

/* Evaluation modes (the host's CLSORT__NB_MODE_* mirror these): */
#define NB_MODE_ACCEL 0u      /* accelerations only */
#define NB_MODE_TUTORIAL 1u   /* the tutorial's step: x += v dt + a dt^2/2, v += a dt */
#define NB_MODE_OPEN 2u       /* leapfrog opening kick + drift */
#define NB_MODE_KICK_KICK 3u  /* leapfrog closing kick, opening kick, drift */
#define NB_MODE_CLOSE 4u      /* leapfrog closing kick only */
#define NB_MODE_WRITE_ACC 8u  /* added to a mode: also write the accelerations */
/* The two half kicks of NB_MODE_KICK_KICK stay two additions so that k steps
 * in one call equal k calls of one step bit for bit. */
inline void nb_integrate(uint i, real ax, real ay, real az, __global const real4 *pos_old, __global real4 *pos_new,
                         __global real4 *vel, __global real4 *acc_out, real dt, uint mode)
{
    const uint m = mode & ~NB_MODE_WRITE_ACC;
    /* component by component: no 3-vectors, whose unused lane oclgrind
     * 21.10 tracks as uninitialized (and crashes on) */
    if (mode & NB_MODE_WRITE_ACC) { /* scalar stores: oclgrind calls the lanes of an optimized (real4)(ax, ay, az, 0) uninitialized */
        __global real *o = (__global real *)(acc_out + i);
        o[0] = ax;
        o[1] = ay;
        o[2] = az;
        o[3] = (real)0;
    }
    if (m == NB_MODE_ACCEL) return;
    real4 x = pos_old[i], v = vel[i];
    if (m == NB_MODE_TUTORIAL) {
        const real h2 = (real)0.5 * dt * dt;
        x.x += v.x * dt + h2 * ax;
        x.y += v.y * dt + h2 * ay;
        x.z += v.z * dt + h2 * az;
        v.x += ax * dt;
        v.y += ay * dt;
        v.z += az * dt;
    } else {
        const real h = (real)0.5 * dt;
        v.x += ax * h;
        v.y += ay * h;
        v.z += az * h;
        if (m == NB_MODE_KICK_KICK) {
            v.x += ax * h;
            v.y += ay * h;
            v.z += az * h;
        }
        if (m != NB_MODE_CLOSE) {
            x.x += v.x * dt;
            x.y += v.y * dt;
            x.z += v.z * dt;
        }
    }
    vel[i] = v;
    if (m != NB_MODE_CLOSE) pos_new[i] = x;
}

/* Bodies i_base .. i_base + i_count - 1 against all n positions of pos_old.
 * Group g holds NB_P * IB bodies: lane p's bodies are first + b * NB_P + p
 * (b < IB), so loads and stores of a group are contiguous. */
#if !defined(NB_PAIRS) && !defined(NB_HELPERS)
#ifdef NB_JSPLIT
/* piece: bit 0, not the first piece (acc_part holds the sums of the sources
 * before j_begin); bit 1, the last (integrate) */
#define NB_JSPLIT_ARGS , uint j_begin, uint j_end, __global real4 *acc_part, uint piece
#define NB_J_BEGIN j_begin
#define NB_J_END j_end
#else
#define NB_JSPLIT_ARGS
#define NB_J_BEGIN 0u
#define NB_J_END n
#endif

/* The steps of nbody_step. The j range [begin, end) split into JS slices:
 * slice q covers [begin + q * chunk, begin + (q + 1) * chunk), chunk (the
 * result) a multiple of NB_P. */
inline uint nb_slice_chunk(uint begin, uint end)
{
    return (end - begin + JS * NB_P - 1) / (JS * NB_P) * NB_P;
}

/* Body li's position (li < i_count), else zeros. */
inline real4 nb_body(__global const real4 *pos_old, uint i_base, uint li, uint i_count)
{
    return li < i_count ? pos_old[i_base + li] : (real4)(0, 0, 0, 0);
}

/* Source j's position where j < end; past the end: mass 0 at the origin,
 * which adds exactly 0 (r^2 + eps2 > 0, or SOFT_ZERO's guard at r = 0). */
inline real4 nb_source(__global const real4 *pos_old, uint j, uint end)
{
    return j < end ? pos_old[j] : (real4)(0, 0, 0, 0);
}

/* The sum a of body pi with source pj's pull added (.w unchanged). Scalar
 * components: the same code on GPUs (which have no vector units), and
 * oclgrind 21.10's --uninitialized crashes on the float3 form. */
inline real4 nb_pull(real4 a, real4 pi, real4 pj, real eps2)
{
    const real dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
    const real r2 = dx * dx + dy * dy + dz * dz + eps2;
    const real inv = NB_INV(r2);
    const real s = pj.w * inv * inv * inv;
    a.x += s * dx;
    a.y += s * dy;
    a.z += s * dz;
    return a;
}

#if JS > 1
/* Lane p's sum a of its body b with the partial sums of slices 1 .. JS - 1
 * added in order. */
inline real4 nb_add_slices(__local const real4 *part, uint b, uint p, real4 a)
{
    for (uint s = 1; s < JS; ++s) {
        const real4 o = part[(s * IB + b) * NB_P + p];
        a.x += o.x;
        a.y += o.y;
        a.z += o.z;
    }
    return a;
}
#endif

#ifdef NB_JSPLIT
/* The earlier pieces' sum of a body (.w 0): slice 0 goes on from it, with
 * one slice the same additions in the same order as one launch over all
 * sources. */
inline real4 nb_carried(__global const real4 *acc)
{
    __global const real *c = (__global const real *)acc;
    real4 a = (real4)(0, 0, 0, 0);
    a.x = c[0];
    a.y = c[1];
    a.z = c[2];
    return a;
}

/* A body's sum a kept for the next piece (component by component, as
 * nb_integrate's stores). */
inline void nb_keep(__global real4 *acc, real4 a)
{
    __global real *c = (__global real *)acc;
    c[0] = a.x;
    c[1] = a.y;
    c[2] = a.z;
    c[3] = (real)0;
}
#endif

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void nbody_step(__global const real4 *pos_old, __global real4 *pos_new, __global real4 *vel,
                __global real4 *acc_out, uint n, uint i_base, uint i_count, real dt, real eps2, real G, uint mode
                NB_JSPLIT_ARGS)
{
    __local real4 tile[WG];
#if JS > 1
    __local real4 part[WG * IB];
#endif
    const uint lid = get_local_id(0), p = lid % NB_P, q = lid / NB_P;
    const uint first = (uint)get_group_id(0) * (NB_P * IB);
    const uint chunk = nb_slice_chunk(NB_J_BEGIN, NB_J_END), j0 = NB_J_BEGIN + q * chunk;
    real4 pi[IB], a[IB]; /* .w unused */
#pragma unroll
    for (uint b = 0; b < IB; ++b) {
        const uint li = first + b * NB_P + p;
        pi[b] = nb_body(pos_old, i_base, li, i_count);
        a[b] = (real4)(0, 0, 0, 0);
#ifdef NB_JSPLIT
        if ((piece & 1u) && q == 0u && li < i_count) a[b] = nb_carried(acc_part + i_base + li);
#endif
    }
    for (uint t = 0; t < chunk; t += NB_P) {
        tile[lid] = nb_source(pos_old, j0 + t + p, NB_J_END);
        barrier(CLK_LOCAL_MEM_FENCE);
        __local const real4 *sub = tile + q * NB_P;
#pragma unroll 8
        for (uint k = 0; k < NB_P; ++k) {
            const real4 pj = sub[k];
#pragma unroll
            for (uint b = 0; b < IB; ++b) a[b] = nb_pull(a[b], pi[b], pj, eps2);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#if JS > 1
#pragma unroll
    for (uint b = 0; b < IB; ++b) part[(q * IB + b) * NB_P + p] = a[b];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (q != 0u) return; /* no barrier below */
#pragma unroll
    for (uint b = 0; b < IB; ++b) a[b] = nb_add_slices(part, b, p, a[b]);
#endif
#ifdef NB_JSPLIT
    if (!(piece & 2u)) { /* all but the last piece leave the sums in acc_part */
#pragma unroll
        for (uint b = 0; b < IB; ++b) {
            const uint li = first + b * NB_P + p;
            if (li < i_count) nb_keep(acc_part + i_base + li, a[b]);
        }
        return;
    }
#endif
#pragma unroll
    for (uint b = 0; b < IB; ++b) {
        const uint li = first + b * NB_P + p;
        if (li < i_count)
            nb_integrate(i_base + li, G * a[b].x, G * a[b].y, G * a[b].z, pos_old, pos_new, vel, acc_out, dt, mode);
    }
}
#endif

#if defined(NB_PAIRS) && !defined(NB_FP64)
/* ---- Newton's third law with float atomics (the seed note's variant) ----
 * Each pair once: group I takes bodies I*WG .. and the tiles J <= I (in the
 * diagonal tile only j < i). A pair's force adds to body i in registers and
 * is subtracted from body j through a local accumulator of tile J (atomic
 * compare-exchange on the bit pattern, OpenCL 1.2 has no float atomics),
 * which goes to global memory by one atomic add per body and component.
 * acc (3 floats per body, zeroed by the host) then feeds nbody_apply. The
 * order of the atomic additions varies: results vary in the last bits. */

inline void nb_atomic_add_local(volatile __local float *p, float v)
{
    uint old = 0u, prev; /* a guess (0.0f), never a plain read: the exchange returns the value */
    while ((prev = atomic_cmpxchg((volatile __local uint *)p, old, as_uint(as_float(old) + v))) != old) old = prev;
}

inline void nb_atomic_add_global(volatile __global float *p, float v)
{
    uint old = 0u, prev;
    while ((prev = atomic_cmpxchg((volatile __global uint *)p, old, as_uint(as_float(old) + v))) != old) old = prev;
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void nbody_pairs(__global const float4 *pos, __global float *acc, uint n, float eps2)
{
    __local float4 tile[WG];
    __local float tacc[3 * WG];
    const uint lid = get_local_id(0), I = get_group_id(0), i = I * WG + lid;
    const float4 pi = i < n ? pos[i] : (float4)(0, 0, 0, 0);
    float ax = 0.0f, ay = 0.0f, az = 0.0f;
    for (uint J = 0; J <= I; ++J) {
        const uint jl = J * WG + lid;
        tile[lid] = jl < n ? pos[jl] : (float4)(0, 0, 0, 0);
        tacc[lid] = tacc[WG + lid] = tacc[2 * WG + lid] = 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (uint kk = 0; kk < WG; ++kk) {
            const uint k = (lid + kk) % WG; /* staggered: work-items hit different j at once */
            if (i < n && J * WG + k < n && (J < I || k < lid)) {
                const float4 pj = tile[k];
                const float dx = pj.x - pi.x, dy = pj.y - pi.y, dz = pj.z - pi.z;
                const float r2 = dx * dx + dy * dy + dz * dz + eps2;
                const float inv = NB_INV(r2);
                const float s = inv * inv * inv;
                ax += pj.w * s * dx;
                ay += pj.w * s * dy;
                az += pj.w * s * dz;
                nb_atomic_add_local(&tacc[k], -pi.w * s * dx);
                nb_atomic_add_local(&tacc[WG + k], -pi.w * s * dy);
                nb_atomic_add_local(&tacc[2 * WG + k], -pi.w * s * dz);
            }
        }
        barrier(CLK_LOCAL_MEM_FENCE);
        if (jl < n) { /* 3 * jl in 64 bits: n < 2^31 bodies have 3n > 2^32 components */
            nb_atomic_add_global(&acc[3UL * jl], tacc[lid]);
            nb_atomic_add_global(&acc[3UL * jl + 1], tacc[WG + lid]);
            nb_atomic_add_global(&acc[3UL * jl + 2], tacc[2 * WG + lid]);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (i < n) {
        nb_atomic_add_global(&acc[3UL * i], ax);
        nb_atomic_add_global(&acc[3UL * i + 1], ay);
        nb_atomic_add_global(&acc[3UL * i + 2], az);
    }
}

/* The integrator step of nbody_step from the accumulated accelerations. */
__kernel void nbody_apply(__global const float *acc, __global const float4 *pos_old, __global float4 *pos_new,
                          __global float4 *vel, __global float4 *acc_out, uint n, float dt, float G, uint mode)
{
    const uint i = get_global_id(0);
    if (i >= n) return;
    nb_integrate(i, G * acc[3UL * i], G * acc[3UL * i + 1], G * acc[3UL * i + 2], pos_old, pos_new, vel, acc_out, dt,
                 mode);
}
#endif
