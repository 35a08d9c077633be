/* clsort fault injection and OpenCL object accounting.
 *
 * Built with -Wl,--wrap=clX for the OpenCL calls the library makes, so every
 * call goes through a counter here (the Makefile's FAULT_WRAPS lists them). Two things
 * are checked:
 *   1. Accounting: every OpenCL object the library (or this test) creates -
 *      buffers, sub-buffers, programs, kernels, contexts, queues, events - is
 *      released by the end: clsort_destroy leaks nothing.
 *   2. Faults: for each scenario (a call of a primitive), the number K of
 *      OpenCL calls it makes is counted; then for every k in 1..K the k-th
 *      call fails with an OpenCL error (allocation failure, out of resources,
 *      build failure, ...) on a fresh context. The call must return an error
 *      whose message names the failing OpenCL call's error, leave its input
 *      buffers as they were (the documented in-place exception aside), leak
 *      nothing, and the same context must then run the call correctly.
 * Every family of the registry (CLSORT_FAMILIES) has at least one scenario
 * (checked first). Also: clsort_create with no platform / failing context
 * creation. test_faults [--quick | --full [FIRST]]: --quick fails every
 * eighth call only; FIRST: only the scenarios from FIRST on (and create).
 * Ends with "N passed, N failed". */
#define CLSORT_IMPLEMENTATION
#define CLSORT_TESTING /* clsort_create_testing */
#include "clsort.h"

#include <CL/cl_ext.h> /* CL_PLATFORM_NOT_FOUND_KHR */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

static int passed, failed;
static void check(int ok, const char *what, int k)
{
    if (ok) { ++passed; return; }
    ++failed;
    if (failed <= 40) printf("FAIL %s (fault at call %d)\n", what, k);
}

/* ---- the wrapped OpenCL calls ---- */

enum { O_MEM, O_PROGRAM, O_KERNEL, O_CONTEXT, O_QUEUE, O_EVENT, O_KINDS };
static const char *kind_names[O_KINDS] = {"mem objects", "programs", "kernels", "contexts", "queues", "events"};
static long live[O_KINDS];
static long calls;   /* wrapped calls so far */
static long fail_at; /* the call number that fails (0 = none) */

/* 1 when this call is the one to fail */
static int inject(void)
{
    ++calls;
    return fail_at != 0 && calls == fail_at;
}

#define WRAP_CREATE(ret, name, kind, params, args, errarg, code)                      \
    ret __real_##name params;                                                         \
    ret __wrap_##name params;                                                         \
    ret __wrap_##name params                                                          \
    {                                                                                 \
        ret r;                                                                        \
        if (inject()) {                                                               \
            if (errarg) *(errarg) = (code);                                           \
            return NULL;                                                              \
        }                                                                             \
        r = __real_##name args;                                                       \
        if (r) ++live[kind];                                                          \
        return r;                                                                     \
    }

WRAP_CREATE(cl_mem, clCreateBuffer, O_MEM, (cl_context c, cl_mem_flags f, size_t s, void *h, cl_int *e),
            (c, f, s, h, e), e, CL_MEM_OBJECT_ALLOCATION_FAILURE)
WRAP_CREATE(cl_mem, clCreateSubBuffer, O_MEM,
            (cl_mem b, cl_mem_flags f, cl_buffer_create_type t, const void *i, cl_int *e), (b, f, t, i, e), e,
            CL_OUT_OF_RESOURCES)
WRAP_CREATE(cl_program, clCreateProgramWithSource, O_PROGRAM,
            (cl_context c, cl_uint n, const char **s, const size_t *l, cl_int *e), (c, n, s, l, e), e,
            CL_OUT_OF_HOST_MEMORY)
WRAP_CREATE(cl_kernel, clCreateKernel, O_KERNEL, (cl_program p, const char *n, cl_int *e), (p, n, e), e,
            CL_OUT_OF_RESOURCES)
WRAP_CREATE(cl_context, clCreateContext, O_CONTEXT,
            (const cl_context_properties *p, cl_uint n, const cl_device_id *d,
             void(CL_CALLBACK *f)(const char *, const void *, size_t, void *), void *u, cl_int *e),
            (p, n, d, f, u, e), e, CL_OUT_OF_HOST_MEMORY)
WRAP_CREATE(cl_command_queue, clCreateCommandQueue, O_QUEUE,
            (cl_context c, cl_device_id d, cl_command_queue_properties p, cl_int *e), (c, d, p, e), e,
            CL_OUT_OF_RESOURCES)

#define WRAP_RELEASE(name, type, kind)                  \
    cl_int __real_##name(type x);                       \
    cl_int __wrap_##name(type x);                       \
    cl_int __wrap_##name(type x)                        \
    {                                                   \
        cl_int r = __real_##name(x);                    \
        if (r == CL_SUCCESS) --live[kind];              \
        return r;                                       \
    }
WRAP_RELEASE(clReleaseMemObject, cl_mem, O_MEM)

/* A retain is one more reference to release (the context retains a caller's
 * desc.temp while it keeps views of it): counted, never failed. */
cl_int __real_clRetainMemObject(cl_mem x);
cl_int __wrap_clRetainMemObject(cl_mem x);
cl_int __wrap_clRetainMemObject(cl_mem x)
{
    cl_int r = __real_clRetainMemObject(x);
    if (r == CL_SUCCESS) ++live[O_MEM];
    return r;
}
WRAP_RELEASE(clReleaseProgram, cl_program, O_PROGRAM)
WRAP_RELEASE(clReleaseKernel, cl_kernel, O_KERNEL)
WRAP_RELEASE(clReleaseContext, cl_context, O_CONTEXT)
WRAP_RELEASE(clReleaseCommandQueue, cl_command_queue, O_QUEUE)
WRAP_RELEASE(clReleaseEvent, cl_event, O_EVENT)

/* ---- device queries an implementation may answer differently (faked) ----
 * Not fault points (no inject()): the wrapped calls pass through unless a
 * fake is set, so the fault scenarios' call counts do not change. */
static cl_device_type fake_type;  /* CL_DEVICE_TYPE answer (0: the real one) */
static const char *fake_vendor;   /* CL_DEVICE_VENDOR answer (NULL: the real one) */
static int fake_no_devices;       /* clGetDeviceIDs: 1 CL_DEVICE_NOT_FOUND, 2 CL_SUCCESS with no device */

cl_int __real_clGetDeviceIDs(cl_platform_id p, cl_device_type t, cl_uint n, cl_device_id *d, cl_uint *nd);
cl_int __wrap_clGetDeviceIDs(cl_platform_id p, cl_device_type t, cl_uint n, cl_device_id *d, cl_uint *nd);
cl_int __wrap_clGetDeviceIDs(cl_platform_id p, cl_device_type t, cl_uint n, cl_device_id *d, cl_uint *nd)
{
    if (fake_no_devices) {
        if (nd) *nd = 0;
        return fake_no_devices == 1 ? CL_DEVICE_NOT_FOUND : CL_SUCCESS;
    }
    return __real_clGetDeviceIDs(p, t, n, d, nd);
}

static cl_int fake_answer(const void *x, size_t len, size_t size, void *v, size_t *ret)
{
    if (ret) *ret = len;
    if (v) {
        if (size < len) return CL_INVALID_VALUE;
        memcpy(v, x, len);
    }
    return CL_SUCCESS;
}

cl_int __real_clGetDeviceInfo(cl_device_id d, cl_device_info what, size_t size, void *v, size_t *ret);
cl_int __wrap_clGetDeviceInfo(cl_device_id d, cl_device_info what, size_t size, void *v, size_t *ret);
cl_int __wrap_clGetDeviceInfo(cl_device_id d, cl_device_info what, size_t size, void *v, size_t *ret)
{
    if (what == CL_DEVICE_TYPE && fake_type) return fake_answer(&fake_type, sizeof fake_type, size, v, ret);
    if (what == CL_DEVICE_VENDOR && fake_vendor) return fake_answer(fake_vendor, strlen(fake_vendor) + 1, size, v, ret);
    return __real_clGetDeviceInfo(d, what, size, v, ret);
}

/* Device commands enqueued successfully that run on the device: kernel
 * launches, fills and copies (reads to the host not counted), for the
 * launches-per-call checks. */
static long device_commands;

/* Calls that return a cl_int and may create an event (its last argument);
 * counted: a device command. */
#define WRAP_STATUS_COUNTED(name, params, args, ev, code, counted) \
    cl_int __real_##name params;                            \
    cl_int __wrap_##name params;                            \
    cl_int __wrap_##name params                             \
    {                                                       \
        cl_int r;                                           \
        if (inject()) return (code);                        \
        r = __real_##name args;                             \
        if (r == CL_SUCCESS && (ev) && *(ev)) ++live[O_EVENT]; \
        if (r == CL_SUCCESS && (counted)) ++device_commands; \
        return r;                                           \
    }
#define WRAP_STATUS(name, params, args, ev, code) WRAP_STATUS_COUNTED(name, params, args, ev, code, 0)
#define NO_EVENT ((cl_event *)NULL)

WRAP_STATUS(clGetPlatformIDs, (cl_uint n, cl_platform_id *p, cl_uint *np), (n, p, np), NO_EVENT,
            CL_PLATFORM_NOT_FOUND_KHR)
WRAP_STATUS(clBuildProgram,
            (cl_program p, cl_uint n, const cl_device_id *d, const char *o,
             void(CL_CALLBACK *f)(cl_program, void *), void *u),
            (p, n, d, o, f, u), NO_EVENT, CL_BUILD_PROGRAM_FAILURE)
WRAP_STATUS(clSetKernelArg, (cl_kernel k, cl_uint i, size_t s, const void *v), (k, i, s, v), NO_EVENT,
            CL_OUT_OF_RESOURCES)
WRAP_STATUS_COUNTED(clEnqueueNDRangeKernel,
                    (cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o, const size_t *g, const size_t *l,
                     cl_uint nw, const cl_event *w, cl_event *e),
                    (q, k, d, o, g, l, nw, w, e), e, CL_OUT_OF_RESOURCES, 1)
WRAP_STATUS(clEnqueueReadBuffer,
            (cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t s, void *p, cl_uint nw, const cl_event *w,
             cl_event *e),
            (q, b, bl, o, s, p, nw, w, e), e, CL_OUT_OF_RESOURCES)
WRAP_STATUS(clEnqueueWriteBuffer,
            (cl_command_queue q, cl_mem b, cl_bool bl, size_t o, size_t s, const void *p, cl_uint nw,
             const cl_event *w, cl_event *e),
            (q, b, bl, o, s, p, nw, w, e), e, CL_OUT_OF_RESOURCES)
WRAP_STATUS_COUNTED(clEnqueueCopyBuffer,
                    (cl_command_queue q, cl_mem a, cl_mem b, size_t oa, size_t ob, size_t s, cl_uint nw,
                     const cl_event *w, cl_event *e),
                    (q, a, b, oa, ob, s, nw, w, e), e, CL_MEM_OBJECT_ALLOCATION_FAILURE, 1)
WRAP_STATUS_COUNTED(clEnqueueFillBuffer,
                    (cl_command_queue q, cl_mem b, const void *p, size_t ps, size_t o, size_t s, cl_uint nw,
                     const cl_event *w, cl_event *e),
                    (q, b, p, ps, o, s, nw, w, e), e, CL_OUT_OF_RESOURCES, 1)
WRAP_STATUS(clEnqueueMarkerWithWaitList, (cl_command_queue q, cl_uint nw, const cl_event *w, cl_event *e),
            (q, nw, w, e), e, CL_OUT_OF_HOST_MEMORY)

/* ---- scenarios ---- */

#define N 5000

typedef struct bufs {
    cl_mem keys, out, vals, vals_out, perm, flags, pos, attr, attr_out, off;
    cl_mem body, bvel; /* N-body: float4 positions + mass, velocities (advanced in place) */
    cl_mem acc;        /* the tree scenario's accelerations (float4 per body) */
} bufs;

static uint32_t h_keys[N], h_vals[N], h_flags[N], h_attr[N * 3];
static uint32_t h_offsets[6] = {0, 7, 7, 2000, 4999, N}; /* segments for the reduction scenarios */
static const uint32_t select_bound = 0x80000000u;         /* the select scenario keeps the keys above it */
static size_t select_count;                               /* its count (the host receives it) */
static float h_pos[N * 2];

/* Fills every buffer with known contents (not counted as injected calls). */
static void reset(clsort_context *cs, bufs *b)
{
    cl_command_queue q = clsort_cl_queue(cs);
    long saved = fail_at;
    fail_at = 0;
    clEnqueueWriteBuffer(q, b->keys, CL_TRUE, 0, sizeof h_keys, h_keys, 0, NULL, NULL);
    clEnqueueWriteBuffer(q, b->vals, CL_TRUE, 0, sizeof h_vals, h_vals, 0, NULL, NULL);
    clEnqueueWriteBuffer(q, b->flags, CL_TRUE, 0, sizeof h_flags, h_flags, 0, NULL, NULL);
    clEnqueueWriteBuffer(q, b->pos, CL_TRUE, 0, sizeof h_pos, h_pos, 0, NULL, NULL);
    clEnqueueWriteBuffer(q, b->attr, CL_TRUE, 0, sizeof h_attr, h_attr, 0, NULL, NULL);
    { /* the search scenario's haystack: i << 22 */
        static uint32_t hay[1024];
        size_t i;
        for (i = 0; i < 1024; ++i) hay[i] = (uint32_t)(i << 22);
        clEnqueueWriteBuffer(q, b->off, CL_TRUE, 0, sizeof hay, hay, 0, NULL, NULL);
    }
    { /* bodies: positions from the 2D data, z = 0, mass 1/N; at rest */
        static float bodies[N * 4], vels[N * 4];
        size_t i;
        for (i = 0; i < N; ++i) {
            bodies[4 * i] = h_pos[2 * i]; bodies[4 * i + 1] = h_pos[2 * i + 1];
            bodies[4 * i + 2] = 0.0f; bodies[4 * i + 3] = 1.0f / N;
        }
        clEnqueueWriteBuffer(q, b->body, CL_TRUE, 0, sizeof bodies, bodies, 0, NULL, NULL);
        clEnqueueWriteBuffer(q, b->bvel, CL_TRUE, 0, sizeof vels, vels, 0, NULL, NULL);
    }
    fail_at = saved;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Input buffers as they were before the call? (with_bodies: the bodies too,
 * for the calls that only read them) */
static int inputs_intact(clsort_context *cs, const bufs *b, int in_place, int with_bodies)
{
    static uint32_t back[N * 3];
    cl_command_queue q = clsort_cl_queue(cs);
    int ok = 1;
    long saved = fail_at;
    fail_at = 0;
    clFinish(q);
    clEnqueueReadBuffer(q, b->keys, CL_TRUE, 0, sizeof h_keys, back, 0, NULL, NULL);
    if (!in_place) {
        ok = ok && memcmp(back, h_keys, sizeof h_keys) == 0;
    } else { /* the documented exception: in place, the keys may come back
              * permuted (passes already run), never anything else */
        static uint32_t want[N];
        memcpy(want, h_keys, sizeof want);
        qsort(want, N, 4, cmp_u32);
        qsort(back, N, 4, cmp_u32);
        ok = ok && memcmp(back, want, sizeof want) == 0;
    }
    clEnqueueReadBuffer(q, b->vals, CL_TRUE, 0, sizeof h_vals, back, 0, NULL, NULL);
    ok = ok && memcmp(back, h_vals, sizeof h_vals) == 0;
    clEnqueueReadBuffer(q, b->flags, CL_TRUE, 0, sizeof h_flags, back, 0, NULL, NULL);
    ok = ok && memcmp(back, h_flags, sizeof h_flags) == 0;
    clEnqueueReadBuffer(q, b->pos, CL_TRUE, 0, sizeof h_pos, back, 0, NULL, NULL);
    ok = ok && memcmp(back, h_pos, sizeof h_pos) == 0;
    clEnqueueReadBuffer(q, b->attr, CL_TRUE, 0, sizeof h_attr, back, 0, NULL, NULL);
    ok = ok && memcmp(back, h_attr, sizeof h_attr) == 0;
    if (with_bodies) {
        static float bodies[N * 4];
        size_t i;
        clEnqueueReadBuffer(q, b->body, CL_TRUE, 0, sizeof bodies, bodies, 0, NULL, NULL);
        for (i = 0; i < N; ++i)
            if (bodies[4 * i] != h_pos[2 * i] || bodies[4 * i + 1] != h_pos[2 * i + 1] || bodies[4 * i + 2] != 0.0f ||
                bodies[4 * i + 3] != 1.0f / N)
                ok = 0;
    }
    fail_at = saved;
    return ok;
}

/* The scenarios, in the order test_faults --full FIRST counts them: X(id,
 * family, name), family the ID of its row in CLSORT_FAMILIES (every family
 * has one: checked at the start). */
#define SCENARIO_TABLE(X)  \
    X(S_SCAN, SCAN, "scan") \
    X(S_PACK, SPLIT, "pack") \
    X(S_SORT_PAIRS, RADIX, "sort keys+values+permutation") \
    X(S_SORT_IN_PLACE, RADIX, "sort in place") \
    X(S_GATHER, GATHER, "gather") \
    X(S_BIN_SORT, BINNING, "bin (sort)") \
    X(S_BIN_ATOMIC, BINNING, "bin (atomic)") \
    X(S_BITONIC, BITONIC, "bitonic one array + values + permutation") \
    X(S_BITONIC_SEGMENTS, BITONIC, "bitonic 1000-key segments") \
    X(S_NBODY, NBODY, "n-body 2 steps") \
    X(S_SORT_ONESWEEP, RADIX, "sort keys+values+permutation, one-sweep passes (look-back path)") \
    X(S_REDUCE_BY_KEY, REDUCE, "reduce by key (flags as keys)") \
    X(S_SEGSCAN_OFFSETS, REDUCE, "segmented scan, host offsets") \
    X(S_SEGSCAN_FLAGS, REDUCE, "segmented scan, u32 flags (look-back path)") \
    X(S_HISTOGRAM, REDUCE, "histogram 64 bins") \
    X(S_REDUCE, REDUCE, "reduce u32 sum to the host") \
    X(S_TREE, TREE, "tree build + Barnes-Hut + radius queries (a kept tree)") \
    X(S_NBODY_BH, NBODY, "n-body Barnes-Hut 1 step") \
    X(S_SELECT, SELECT, "select_if u32 > 2^31 with values, count to the host") \
    X(S_SEARCH, SEARCH, "lower_bound of the keys in 1024 sorted u32") \
    X(S_MERGE, MERGE, "merge of two sorted halves with values") \
    X(S_TOP_K, TOP_K, "top_k 1000 largest, sorted, with values") \
    X(S_PARTITION_PRED, SELECT, "partition by a caller's predicate u32 > 2^31 with values, count to the host")

#define SCENARIO_ID(id, family, name) id,
#define SCENARIO_FAMILY(id, family, name) CLSORT_FAMILY_##family,
#define SCENARIO_NAME(id, family, name) name,
enum { SCENARIO_TABLE(SCENARIO_ID) SCENARIOS };
static const clsort_family scenario_family[SCENARIOS] = {SCENARIO_TABLE(SCENARIO_FAMILY)};
static const char *const scenario_names[SCENARIOS] = {SCENARIO_TABLE(SCENARIO_NAME)};
#undef SCENARIO_ID
#undef SCENARIO_FAMILY
#undef SCENARIO_NAME

/* Result of the scenario checked against a C reference (fault-free run). */
static int result_ok(clsort_context *cs, const bufs *b, int s)
{
    static uint32_t got[N], want[N];
    cl_command_queue q = clsort_cl_queue(cs);
    size_t i, k = 0;
    uint32_t acc = 0;
    clFinish(q);
    switch (s) {
    case S_SCAN: /* exclusive scan */
        for (i = 0; i < N; ++i) want[i] = acc, acc += h_keys[i];
        clEnqueueReadBuffer(q, b->out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
        return memcmp(got, want, sizeof got) == 0;
    case S_PACK: /* pack */
        for (i = 0; i < N; ++i)
            if (h_flags[i]) want[k++] = h_keys[i];
        clEnqueueReadBuffer(q, b->out, CL_TRUE, 0, k * 4, got, 0, NULL, NULL);
        return memcmp(got, want, k * 4) == 0;
    case S_GATHER: { /* gather of 12-byte elements by vals */
        static uint32_t attr[N * 3];
        clEnqueueReadBuffer(q, b->attr_out, CL_TRUE, 0, sizeof attr, attr, 0, NULL, NULL);
        for (i = 0; i < N; ++i)
            if (memcmp(attr + 3 * i, h_attr + 3 * (size_t)h_vals[i], 12) != 0) return 0;
        return 1;
    }
    case S_SORT_PAIRS: case S_SORT_IN_PLACE: case S_BITONIC: case S_SORT_ONESWEEP: /* sorts: keys ascending */
        memcpy(want, h_keys, sizeof want);
        qsort(want, N, 4, cmp_u32);
        clEnqueueReadBuffer(q, s == S_SORT_IN_PLACE ? b->keys : b->out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
        return memcmp(got, want, sizeof got) == 0;
    case S_BITONIC_SEGMENTS: /* bitonic, 1000-key segments: each ascending */
        memcpy(want, h_keys, sizeof want);
        for (k = 0; k < N; k += 1000) qsort(want + k, 1000, 4, cmp_u32);
        clEnqueueReadBuffer(q, b->out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
        return memcmp(got, want, sizeof got) == 0;
    case S_TREE: { /* tree + Barnes-Hut: RMS error against the all-pairs sum in double below 1e-2 */
        static float acc[N * 4];
        static double ref[N * 3];
        static int have_ref;
        double se = 0, sr = 0;
        if (!have_ref) {
            for (i = 0; i < N; ++i) {
                size_t j;
                ref[3 * i] = ref[3 * i + 1] = ref[3 * i + 2] = 0;
                for (j = 0; j < N; ++j) {
                    double dx = (double)h_pos[2 * j] - h_pos[2 * i], dy = (double)h_pos[2 * j + 1] - h_pos[2 * i + 1];
                    double r2 = dx * dx + dy * dy + 1e-2, f = (double)(1.0f / N) / (r2 * sqrt(r2));
                    if (j == i) continue;
                    ref[3 * i] += f * dx;
                    ref[3 * i + 1] += f * dy;
                }
            }
            have_ref = 1;
        }
        clEnqueueReadBuffer(q, b->acc, CL_TRUE, 0, sizeof acc, acc, 0, NULL, NULL);
        for (i = 0; i < N; ++i) {
            int c;
            for (c = 0; c < 3; ++c) {
                double d = acc[4 * i + c] - ref[3 * i + c];
                se += d * d;
                sr += ref[3 * i + c] * ref[3 * i + c];
            }
        }
        if (!(sqrt(se / sr) < 1e-2)) return 0;
        { /* radius counts of the first 1000 bodies (within 0.01, the kernel's float test) and their offsets */
            static uint32_t cnt[1000], off[1001];
            uint32_t sum = 0;
            clEnqueueReadBuffer(q, b->out, CL_TRUE, 0, sizeof cnt, cnt, 0, NULL, NULL);
            clEnqueueReadBuffer(q, b->off, CL_TRUE, 0, sizeof off, off, 0, NULL, NULL);
            for (i = 0; i < 1000; ++i) {
                size_t j;
                uint32_t c = 0;
                for (j = 0; j < N; ++j) {
                    float dx = h_pos[2 * j] - h_pos[2 * i], dy = h_pos[2 * j + 1] - h_pos[2 * i + 1], x2 = dx * dx,
                          y2 = dy * dy, s2 = x2 + y2, z = 0.0f * 0.0f, d2 = s2 + z;
                    if (d2 <= 0.01f * 0.01f) ++c;
                }
                if (cnt[i] != c || off[i] != sum) return 0;
                sum += c;
            }
            return off[1000] == sum;
        }
    }
    case S_NBODY: case S_NBODY_BH: { /* N-body: finite positions after the step */
        static float bodies[N * 4];
        clEnqueueReadBuffer(q, b->body, CL_TRUE, 0, sizeof bodies, bodies, 0, NULL, NULL);
        for (i = 0; i < N * 4; ++i)
            if (!(bodies[i] - bodies[i] == 0.0f)) return 0;
        return 1;
    }
    case S_REDUCE_BY_KEY: { /* reduce by key: runs of equal flags, values summed */
        static uint32_t vsum[N], gotv[N];
        size_t r = 0;
        for (i = 0; i < N; ++i) {
            if (i > 0 && h_flags[i] != h_flags[i - 1]) ++r;
            if (i == 0 || h_flags[i] != h_flags[i - 1]) { want[r] = h_flags[i]; vsum[r] = 0; }
            vsum[r] += h_vals[i];
        }
        ++r;
        clEnqueueReadBuffer(q, b->out, CL_TRUE, 0, r * 4, got, 0, NULL, NULL);
        clEnqueueReadBuffer(q, b->vals_out, CL_TRUE, 0, r * 4, gotv, 0, NULL, NULL);
        return memcmp(got, want, r * 4) == 0 && memcmp(gotv, vsum, r * 4) == 0;
    }
    case S_SEGSCAN_OFFSETS: case S_SEGSCAN_FLAGS: { /* inclusive segmented sums */
        size_t seg = 0;
        for (i = 0; i < N; ++i) {
            int head = i == 0;
            if (s == S_SEGSCAN_OFFSETS) while (seg + 1 < 5 && h_offsets[seg + 1] <= i) { ++seg; head = 1; }
            else head = head || h_flags[i] != 0;
            acc = head ? h_keys[i] : acc + h_keys[i];
            want[i] = acc;
        }
        clEnqueueReadBuffer(q, b->out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
        return memcmp(got, want, sizeof got) == 0;
    }
    case S_SELECT: case S_PARTITION_PRED: { /* the keys above the bound and their values, in input order
                                              (a partition: then the others, in input order) */
        static uint32_t wantv[N], gotv[N];
        size_t passes = 0;
        int round;
        for (round = 0; round < (s == S_PARTITION_PRED ? 2 : 1); ++round)
            for (i = 0; i < N; ++i)
                if ((h_keys[i] > select_bound) == !round) want[k] = h_keys[i], wantv[k++] = h_vals[i], passes += !round;
        clEnqueueReadBuffer(q, b->out, CL_TRUE, 0, k * 4, got, 0, NULL, NULL);
        clEnqueueReadBuffer(q, b->vals_out, CL_TRUE, 0, k * 4, gotv, 0, NULL, NULL);
        return select_count == passes && memcmp(got, want, k * 4) == 0 && memcmp(gotv, wantv, k * 4) == 0;
    }
    case S_SEARCH: /* the keys' lower bounds in i << 22, i < 1024: ceil(key / 2^22) */
        for (i = 0; i < N; ++i) want[i] = (h_keys[i] >> 22) + ((h_keys[i] & 0x3fffffu) != 0);
        clEnqueueReadBuffer(q, b->out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
        return memcmp(got, want, sizeof got) == 0;
    case S_MERGE: { /* attr's first N/2 words (0 0 0 1 1 1 ...) merged with themselves: per key a's
                     * copies (values: vals) before b's (values: keys) */
        static uint32_t wantv[N], gotv[N];
        size_t x = 0, y = 0;
        for (i = 0; i < N; ++i) {
            if (x < N / 2 && (y >= N / 2 || h_attr[x] <= h_attr[y])) want[i] = h_attr[x], wantv[i] = h_vals[x], ++x;
            else want[i] = h_attr[y], wantv[i] = h_keys[y], ++y;
        }
        clEnqueueReadBuffer(q, b->out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
        clEnqueueReadBuffer(q, b->vals_out, CL_TRUE, 0, sizeof gotv, gotv, 0, NULL, NULL);
        return memcmp(got, want, sizeof got) == 0 && memcmp(gotv, wantv, sizeof gotv) == 0;
    }
    case S_TOP_K: { /* the 1000 largest keys (distinct), largest first, with their values */
        static uint32_t wantv[1000], gotv[1000];
        memcpy(want, h_keys, sizeof want);
        qsort(want, N, 4, cmp_u32);
        for (i = 0; i < 1000; ++i) {
            size_t j;
            want[i] = want[N - 1 - i];
            for (j = 0; j < N && h_keys[j] != want[i]; ++j) {}
            wantv[i] = j < N ? h_vals[j] : 0;
        }
        clEnqueueReadBuffer(q, b->out, CL_TRUE, 0, 4000, got, 0, NULL, NULL);
        clEnqueueReadBuffer(q, b->vals_out, CL_TRUE, 0, 4000, gotv, 0, NULL, NULL);
        return memcmp(got, want, 4000) == 0 && memcmp(gotv, wantv, 4000) == 0;
    }
    case S_REDUCE: /* reduce: the sum in b->off[0] */
        for (i = 0; i < N; ++i) acc += h_keys[i];
        clEnqueueReadBuffer(q, b->off, CL_TRUE, 0, 4, got, 0, NULL, NULL);
        return got[0] == acc;
    case S_HISTOGRAM: /* histogram of vals (all in [0, N)) */
        memset(want, 0, 64 * 4);
        for (i = 0; i < N; ++i) want[(uint64_t)h_vals[i] * 64 / N]++;
        clEnqueueReadBuffer(q, b->out, CL_TRUE, 0, 64 * 4, got, 0, NULL, NULL);
        return memcmp(got, want, 64 * 4) == 0;
    case S_BIN_SORT: { /* bin: cell keys ascending and offsets[1024] == N */
        uint32_t last = 0;
        clEnqueueReadBuffer(q, b->out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL);
        for (i = 1; i < N; ++i)
            if (got[i - 1] > got[i]) return 0;
        clEnqueueReadBuffer(q, b->off, CL_TRUE, 1024 * 4, 4, &last, 0, NULL, NULL);
        return last == N;
    }
    default: return 1;
    }
}


/* A context for scenario s: the one-sweep scenario asks for the look-back path. */
static clsort_result create_for(int s, clsort_context **cs)
{
    clsort_context_desc d;
    memset(&d, 0, sizeof d);
    if (s == S_SORT_ONESWEEP || s == S_SEGSCAN_FLAGS) d.path = CLSORT_PATH_LOOKBACK;
    d.cache_off = 1; /* every program built from source: call counts never depend on a cache */
    return clsort_create(cs, &d);
}

static clsort_result run_scenario(clsort_context *cs, bufs *b, int s)
{
    clsort_scan_desc sd;
    clsort_split_desc pd;
    clsort_sort_desc so;
    clsort_bin_desc bd;
    clsort_attribute at;
    size_t count;
    memset(&sd, 0, sizeof sd);
    memset(&pd, 0, sizeof pd);
    memset(&so, 0, sizeof so);
    memset(&bd, 0, sizeof bd);
    switch (s) {
    case S_SCAN: return clsort_scan(cs, b->keys, b->out, N, &sd, NULL);
    case S_PACK: pd.flags = b->flags; return clsort_pack(cs, b->keys, b->out, N, &pd, &count, NULL);
    case S_SORT_PAIRS: case S_SORT_ONESWEEP:
        so.values_in = b->vals; so.values_out = b->vals_out; so.permutation = b->perm;
        return clsort_sort(cs, b->keys, b->out, N, &so, NULL);
    case S_SORT_IN_PLACE: return clsort_sort(cs, b->keys, b->keys, N, &so, NULL);
    case S_GATHER: return clsort_gather(cs, b->attr, b->attr_out, b->vals, N, 12, NULL); /* vals < N */
    case S_BITONIC: {
        clsort_bitonic_desc td;
        memset(&td, 0, sizeof td);
        td.values_in = b->vals; td.values_out = b->vals_out; td.permutation = b->perm;
        return clsort_bitonic_sort(cs, b->keys, b->out, N, &td, NULL);
    }
    case S_BITONIC_SEGMENTS: {
        clsort_bitonic_desc td;
        memset(&td, 0, sizeof td);
        td.segment_length = 1000;
        return clsort_bitonic_sort(cs, b->keys, b->out, N, &td, NULL);
    }
    case S_NBODY: case S_NBODY_BH: {
        clsort_nbody_desc nd;
        memset(&nd, 0, sizeof nd);
        nd.dt = 1e-3;
        nd.softening2 = 1e-2;
        nd.steps = 2;
        if (s == S_NBODY_BH) { /* one evaluation (tree into the context's scratch, then the walk): later ones repeat its calls */
            nd.method = CLSORT_NBODY_BARNES_HUT;
            nd.integrator = CLSORT_NBODY_TUTORIAL;
            nd.steps = 1;
        }
        return clsort_nbody(cs, b->body, b->bvel, N, &nd, NULL);
    }
    case S_TREE: { /* a tree object made, built, used and destroyed within the call */
        clsort_tree *tree = NULL;
        clsort_tree_desc td;
        clsort_nbody_desc nd;
        clsort_result r;
        memset(&td, 0, sizeof td);
        td.has_mass = 1;
        td.mass_offset = 12;
        memset(&nd, 0, sizeof nd);
        nd.softening2 = 1e-2;
        nd.theta = 0.5;
        r = clsort_tree_create(cs, &tree);
        if (r == CLSORT_SUCCESS) r = clsort_tree_build(cs, tree, b->body, N, &td, NULL);
        if (r == CLSORT_SUCCESS) r = clsort_tree_accel(cs, tree, b->acc, &nd, NULL);
        if (r == CLSORT_SUCCESS) { /* radius queries of the first 1000 bodies: counts, offsets, lists */
            clsort_tree_radius_desc rd;
            size_t total = 0;
            memset(&rd, 0, sizeof rd);
            rd.radius = 0.01f;
            rd.counts = b->out;
            rd.offsets = b->off;
            rd.indices = b->attr_out;
            rd.capacity = 3 * N;
            r = clsort_tree_radius(cs, tree, b->body, 1000, &rd, &total, NULL);
        }
        clsort_tree_destroy(tree);
        return r;
    }
    case S_REDUCE_BY_KEY: {
        clsort_by_key_desc kd;
        memset(&kd, 0, sizeof kd);
        return clsort_reduce_by_key(cs, b->flags, b->vals, b->out, b->vals_out, N, &kd, &count, NULL);
    }
    case S_SEGSCAN_OFFSETS: case S_SEGSCAN_FLAGS: {
        clsort_reduce_desc rd;
        memset(&rd, 0, sizeof rd);
        rd.inclusive = 1;
        if (s == S_SEGSCAN_OFFSETS) {
            rd.segments = CLSORT_SEGMENTS_OFFSETS;
            rd.segment_data_host = h_offsets;
            rd.segment_count = 5;
        } else {
            rd.segments = CLSORT_SEGMENTS_FLAGS_U32;
            rd.segment_data = b->flags;
        }
        return clsort_segmented_scan(cs, b->keys, b->out, N, &rd, NULL);
    }
    case S_HISTOGRAM: {
        clsort_histogram_desc hd;
        memset(&hd, 0, sizeof hd);
        hd.bins = 64;
        hd.lower_int = 0;
        hd.upper_int = (int64_t)N;
        return clsort_histogram_even(cs, b->vals, N, b->out, &hd, NULL);
    }
    case S_SELECT: {
        clsort_select_desc sel;
        memset(&sel, 0, sizeof sel);
        sel.compare = CLSORT_COMPARE_GREATER;
        sel.a = &select_bound;
        sel.values_in = b->vals;
        sel.values_out = b->vals_out;
        select_count = 0;
        return clsort_select_if(cs, b->keys, b->out, N, &sel, &select_count, NULL);
    }
    case S_PARTITION_PRED: {
        clsort_select_desc sel;
        memset(&sel, 0, sizeof sel);
        sel.user_op.source = "int above(uint k) { return k > 0x80000000u; }";
        sel.user_op.name = "above";
        sel.values_in = b->vals;
        sel.values_out = b->vals_out;
        select_count = 0;
        return clsort_partition(cs, b->keys, b->out, N, &sel, &select_count, NULL);
    }
    case S_SEARCH:
        return clsort_lower_bound(cs, b->off, 1024, b->keys, N, b->out, NULL, NULL);
    case S_MERGE: {
        clsort_merge_desc md;
        memset(&md, 0, sizeof md);
        md.values_a = b->vals;
        md.values_b = b->keys;
        md.values_out = b->vals_out;
        return clsort_merge(cs, b->attr, N / 2, b->attr, N / 2, b->out, &md, NULL);
    }
    case S_TOP_K: {
        clsort_top_k_desc td;
        memset(&td, 0, sizeof td);
        td.k = 1000;
        td.descending = 1;
        td.sorted = 1;
        td.values_in = b->vals;
        td.values_out = b->vals_out;
        return clsort_top_k(cs, b->keys, b->out, N, &td, NULL);
    }
    case S_REDUCE: {
        clsort_reduce_desc rd;
        static uint32_t sum;
        memset(&rd, 0, sizeof rd);
        rd.result = b->off;
        return clsort_reduce(cs, b->keys, N, &rd, &sum, NULL);
    }
    default:
        bd.grid.cells[0] = bd.grid.cells[1] = 32;
        bd.grid.cell_size[0] = bd.grid.cell_size[1] = 1.0f / 32;
        bd.grid.periodic[0] = bd.grid.periodic[1] = 1;
        bd.method = s == S_BIN_ATOMIC ? CLSORT_BIN_ATOMIC : CLSORT_BIN_SORT;
        bd.cell_keys = b->out;
        bd.cell_offsets = b->off;
        at.src = b->attr; at.dst = b->attr_out; at.elem_size = 12;
        bd.attributes = &at;
        bd.attribute_count = 1;
        return clsort_bin(cs, b->pos, N, &bd, NULL);
    }
}

static void make_bufs(clsort_context *cs, bufs *b)
{
    cl_context c = clsort_cl_context(cs);
    cl_int e;
    b->keys = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 4, NULL, &e);
    b->out = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 4, NULL, &e);
    b->vals = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 4, NULL, &e);
    b->vals_out = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 4, NULL, &e);
    b->perm = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 4, NULL, &e);
    b->flags = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 4, NULL, &e);
    b->pos = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 8, NULL, &e);
    b->attr = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 12, NULL, &e);
    b->attr_out = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 12, NULL, &e);
    b->off = clCreateBuffer(c, CL_MEM_READ_WRITE, 1025 * 4, NULL, &e);
    b->body = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 16, NULL, &e);
    b->bvel = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 16, NULL, &e);
    b->acc = clCreateBuffer(c, CL_MEM_READ_WRITE, N * 16, NULL, &e);
}

static void free_bufs(bufs *b)
{
    clReleaseMemObject(b->keys); clReleaseMemObject(b->out); clReleaseMemObject(b->vals);
    clReleaseMemObject(b->vals_out); clReleaseMemObject(b->perm); clReleaseMemObject(b->flags);
    clReleaseMemObject(b->pos); clReleaseMemObject(b->attr); clReleaseMemObject(b->attr_out);
    clReleaseMemObject(b->off);
    clReleaseMemObject(b->body); clReleaseMemObject(b->bvel); clReleaseMemObject(b->acc);
}

static int balanced(void)
{
    int k, ok = 1;
    for (k = 0; k < O_KINDS; ++k)
        if (live[k] != 0) {
            printf("  %ld %s not released\n", live[k], kind_names[k]);
            ok = 0;
        }
    return ok;
}

/* Fault k of scenario s on a fresh context: error, message, inputs, then a
 * correct fault-free call on the same context; nothing leaked at the end. */
static void fault_case(int s, long k)
{
    clsort_context *cs = NULL;
    bufs b;
    clsort_result r;
    char what[160];
    fail_at = 0;
    if (create_for(s, &cs) != CLSORT_SUCCESS) {
        check(0, "clsort_create (no fault)", 0);
        clsort_destroy(cs);
        return;
    }
    make_bufs(cs, &b);
    reset(cs, &b);
    calls = 0;
    fail_at = k;
    r = run_scenario(cs, &b, s);
    fail_at = 0;
    snprintf(what, sizeof what, "%s: an injected OpenCL error is returned", scenario_names[s]);
    check(r != CLSORT_SUCCESS, what, (int)k);
    snprintf(what, sizeof what, "%s: the message names the OpenCL error", scenario_names[s]);
    check(strstr(clsort_last_error(cs), "CL_") != NULL, what, (int)k);
    snprintf(what, sizeof what, "%s: the message begins with the public function's name", scenario_names[s]);
    check(strncmp(clsort_last_error(cs), "clsort_", 7) == 0, what, (int)k);
    if (strncmp(clsort_last_error(cs), "clsort_", 7) != 0) printf("  message: %s\n", clsort_last_error(cs));
    snprintf(what, sizeof what, "%s: inputs unchanged after the fault", scenario_names[s]);
    check(inputs_intact(cs, &b, s == S_SORT_IN_PLACE, s == S_TREE), what, (int)k);
    reset(cs, &b);
    r = run_scenario(cs, &b, s);
    snprintf(what, sizeof what, "%s: the context works after the fault", scenario_names[s]);
    check(r == CLSORT_SUCCESS && result_ok(cs, &b, s), what, (int)k);
    if (r != CLSORT_SUCCESS) printf("  rerun: %s\n", clsort_last_error(cs));
    free_bufs(&b);
    clsort_destroy(cs);
    snprintf(what, sizeof what, "%s: no OpenCL object leaked", scenario_names[s]);
    check(balanced(), what, (int)k);
}

/* Device commands (launches, fills, copies) of scenario s on cs, checked. */
static long commands_of(clsort_context *cs, bufs *b, int s, const char *what)
{
    long before;
    clsort_result r;
    char name[200];
    reset(cs, b);
    before = device_commands;
    r = run_scenario(cs, b, s);
    snprintf(name, sizeof name, "%s: %s is correct", what, scenario_names[s]);
    check(r == CLSORT_SUCCESS && result_ok(cs, b, s), name, 0);
    return device_commands - before;
}

/* Launches per call on the look-back path: the look-back status
 * needs no clear launch once a slot's spare region is clean, so a call after
 * one of the same size (or smaller) is one launch: scan, pack, the
 * segmented scan, select_if; the same with families alternating on one context, and
 * after a call that failed at any of its OpenCL calls (the slot's
 * bookkeeping then clears again). Both status forms (the test hook status32). */
static void launches_per_call(void)
{
    /* one launch each (select_if: pack's), then the one-sweep sort */
    static const int fam[] = {S_SCAN, S_PACK, S_SEGSCAN_FLAGS, S_SELECT, S_SORT_ONESWEEP};
    const int fams = (int)(sizeof fam / sizeof fam[0]), one_launch = fams - 1;
    int form, i, round;
    char what[200];
    for (form = 0; form < 2; ++form) {
        clsort_context *cs = NULL;
        clsort_context_desc d;
        clsort_test_hooks h;
        bufs b;
        memset(&d, 0, sizeof d);
        memset(&h, 0, sizeof h);
        d.path = CLSORT_PATH_LOOKBACK;
        d.cache_off = 1;
        h.status32 = form;
        fail_at = 0;
        if (clsort_create_testing(&cs, &d, &h) != CLSORT_SUCCESS) {
            check(0, "clsort_create (look-back path)", 0);
            clsort_destroy(cs);
            continue;
        }
        make_bufs(cs, &b);
        for (i = 0; i < one_launch; ++i) {
            long first_call, second;
            snprintf(what, sizeof what, "status%s, first call", form ? "32" : "64/auto");
            first_call = commands_of(cs, &b, fam[i], what);
            second = commands_of(cs, &b, fam[i], "second call");
            snprintf(what, sizeof what, "status%s: a second %s of the same size makes exactly 1 launch (first %ld, "
                     "second %ld)", form ? "32" : "64/auto", scenario_names[fam[i]], first_call, second);
            check(second == 1, what, 0);
            printf("  %s\n", what);
        }
        { /* the one-sweep sort of u32 keys: histograms + 4 passes, no clear */
            clsort_sort_desc so;
            long before, got[3];
            int ok = 1, j;
            static uint32_t back[N], want[N];
            memset(&so, 0, sizeof so);
            memcpy(want, h_keys, sizeof want);
            qsort(want, N, 4, cmp_u32);
            for (j = 0; j < 3; ++j) {
                reset(cs, &b);
                before = device_commands;
                ok &= clsort_sort(cs, b.keys, b.out, N, &so, NULL) == CLSORT_SUCCESS;
                got[j] = device_commands - before;
                clEnqueueReadBuffer(clsort_cl_queue(cs), b.out, CL_TRUE, 0, sizeof back, back, 0, NULL, NULL);
                ok &= memcmp(back, want, sizeof back) == 0;
                if (j == 0) commands_of(cs, &b, S_SCAN, "a scan between two sorts"); /* another slot in between */
            }
            snprintf(what, sizeof what, "status%s: u32 sort (one-sweep) %ld, then %ld and %ld launches (1 + 4 passes)",
                     form ? "32" : "64/auto", got[0], got[1], got[2]);
            printf("  %s\n", what);
            check(ok, "one-sweep sort on the launch-count context is correct", 0);
            check(got[1] == 5 && got[2] == 5, what, 0);
        }
        { /* the single-tile sort: n <= one tile (4096 keys on CPUs, 2048 with values on GPUs), one launch */
            clsort_sort_desc so;
            long before, got;
            int ok;
            size_t m = 1000;
            static uint32_t back[N], want[N];
            memset(&so, 0, sizeof so);
            so.descending = 1;
            memcpy(want, h_keys, m * 4);
            qsort(want, m, 4, cmp_u32);
            reset(cs, &b);
            before = device_commands;
            ok = clsort_sort(cs, b.keys, b.keys, m, &so, NULL) == CLSORT_SUCCESS; /* in place */
            got = device_commands - before;
            clEnqueueReadBuffer(clsort_cl_queue(cs), b.keys, CL_TRUE, 0, m * 4, back, 0, NULL, NULL);
            for (i = 0; i < (int)m; ++i) ok &= back[i] == want[m - 1 - (size_t)i];
            check(ok, "single-tile sort (1000 keys, descending, in place) is correct", 0);
            snprintf(what, sizeof what, "single-tile sort of 1000 keys: %ld launch(es), 1 expected", got);
            check(got == 1, what, 0);
            if (got != 1) printf("  %s\n", what);
        }
        for (round = 0; round < 3; ++round) /* families alternating: each still one launch */
            for (i = 0; i < one_launch; ++i) {
                long n = commands_of(cs, &b, fam[i], "alternating");
                snprintf(what, sizeof what, "alternating families: %s makes exactly 1 launch (%ld)",
                         scenario_names[fam[i]], n);
                check(n == 1, what, 0);
            }
        for (i = 0; i < fams; ++i) { /* a failure at every OpenCL call of a call, then correct calls */
            long total, k;
            reset(cs, &b);
            run_scenario(cs, &b, fam[i]); /* its programs built: the calls counted next are a warm call's */
            reset(cs, &b);
            calls = 0;
            run_scenario(cs, &b, fam[i]);
            total = calls;
            for (k = 1; k <= total; ++k) {
                clsort_result r;
                long n;
                reset(cs, &b);
                calls = 0;
                fail_at = k;
                r = run_scenario(cs, &b, fam[i]);
                fail_at = 0;
                snprintf(what, sizeof what, "%s on a warm look-back context: the injected error is returned",
                         scenario_names[fam[i]]);
                check(r != CLSORT_SUCCESS, what, (int)k);
                commands_of(cs, &b, fam[i], "after a failed call");
                n = commands_of(cs, &b, fam[i], "after a failed call and one more");
                snprintf(what, sizeof what, "%s: as few launches again after a failed call and a correct one (%ld)",
                         scenario_names[fam[i]], n);
                check(n == (fam[i] == S_SORT_ONESWEEP ? 6 : 1), what, (int)k); /* the sort: histograms, 4 passes, the gather */
            }
        }
        free_bufs(&b);
        clsort_destroy(cs);
        check(balanced(), "launches per call: nothing leaked", 0);
    }
    printf("launches per call on the look-back path: checked\n");
}

int main(int argc, char **argv)
{
    int s, quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int first = argc > 2 ? atoi(argv[2]) : 0; /* test_faults --full 11: scenarios 11 .. (and create) */
    long k, total;
    size_t i;
    for (i = 0; i < N; ++i) {
        h_keys[i] = (uint32_t)(i * 2654435761u) ^ 0x5bd1e995u;
        h_vals[i] = (uint32_t)((i * 7919u) % N);
        h_flags[i] = (uint32_t)(h_keys[i] >> 7 & 1u);
        h_pos[2 * i] = (float)((h_keys[i] >> 8) & 0xffff) / 65536.0f;
        h_pos[2 * i + 1] = (float)(h_keys[i] >> 24) / 256.0f;
        h_attr[3 * i] = h_attr[3 * i + 1] = h_attr[3 * i + 2] = (uint32_t)i;
    }
    { /* every family of the registry has a scenario */
        int f;
        for (f = 0; f < CLSORT_FAMILY_COUNT; ++f) {
            char what[120];
            int found = 0;
            for (s = 0; s < SCENARIOS; ++s) found |= scenario_family[s] == (clsort_family)f;
            snprintf(what, sizeof what, "the family %s has a fault scenario", clsort_family_name((clsort_family)f));
            check(found, what, 0);
        }
    }
    if (argc > 1 && strcmp(argv[1], "--launches") == 0) { /* only the launches-per-call checks */
        launches_per_call();
        printf("%d passed, %d failed\n", passed, failed);
        return failed ? 1 : 0;
    }
    /* clsort_create itself: every call of it failing in turn */
    {
        clsort_context *cs = NULL;
        calls = 0;
        fail_at = 0;
        if (clsort_create(&cs, NULL) != CLSORT_SUCCESS) {
            printf("clsort_create: %s\n0 passed, 1 failed\n", clsort_last_error(cs));
            return 1;
        }
        total = calls;
        clsort_destroy(cs);
        printf("clsort_create makes %ld wrapped calls\n", total);
        for (k = 1; k <= total; ++k) {
            clsort_result r;
            cs = NULL;
            calls = 0;
            fail_at = k;
            r = clsort_create(&cs, NULL);
            fail_at = 0;
            check(r != CLSORT_SUCCESS && clsort_last_error(cs)[0] != '\0', "clsort_create fails with a message", (int)k);
            if (k == 1) {
                check(r == CLSORT_ERROR_NO_DEVICE && strstr(clsort_last_error(cs), "platform") != NULL,
                      "clsort_create with no platform says so", (int)k);
            }
            clsort_destroy(cs);
            check(balanced(), "clsort_create failure leaks nothing", (int)k);
        }
    }
    /* Device queries answered as other implementations may: a device of type
     * CUSTOM, ACCELERATOR or DEFAULT only (none of CPU/GPU: the quirk table's
     * untuned rows), an "NVIDIA" GPU without the NVIDIA attribute query (the
     * GPU rows and the look-back default, no PTX), an empty vendor; every
     * scenario must still give correct results on both paths. Then a
     * platform without devices, as the specification says
     * (CL_DEVICE_NOT_FOUND) and as some loaders do (success, 0 devices). */
    if (first == 0) {
        static const struct {
            cl_device_type type;
            const char *vendor, *what;
        } fakes[] = {{CL_DEVICE_TYPE_CUSTOM, NULL, "type CUSTOM"},
                     {CL_DEVICE_TYPE_ACCELERATOR, NULL, "type ACCELERATOR"},
                     {CL_DEVICE_TYPE_DEFAULT, "", "type DEFAULT only, empty vendor"},
                     {CL_DEVICE_TYPE_GPU, "NVIDIA Corporation", "an NVIDIA GPU without its attribute query"}};
        size_t f;
        int ok;
        for (f = 0; f < sizeof fakes / sizeof fakes[0]; ++f) {
            int fails = 0;
            fake_type = fakes[f].type;
            fake_vendor = fakes[f].vendor;
            for (s = 0; s < SCENARIOS; ++s) {
                clsort_context *cs = NULL;
                bufs b;
                char what[200];
                clsort_result r = create_for(s, &cs);
                snprintf(what, sizeof what, "device %s: %s", fakes[f].what, scenario_names[s]);
                if (r == CLSORT_SUCCESS) {
                    make_bufs(cs, &b);
                    reset(cs, &b);
                    r = run_scenario(cs, &b, s);
                    ok = r == CLSORT_SUCCESS && result_ok(cs, &b, s);
                    free_bufs(&b);
                } else {
                    ok = 0;
                }
                if (!ok) printf("  %s: %s\n", what, clsort_last_error(cs)), ++fails;
                check(ok, what, 0);
                clsort_destroy(cs);
                check(balanced(), "no OpenCL object leaked (faked device query)", 0);
            }
            printf("device answering %s: %d scenarios, %d failed\n", fakes[f].what, SCENARIOS, fails);
        }
        fake_type = 0;
        fake_vendor = NULL;
        for (fake_no_devices = 1; fake_no_devices <= 2; ++fake_no_devices) {
            clsort_context *cs = NULL;
            clsort_result r = clsort_create(&cs, NULL);
            check(r == CLSORT_ERROR_NO_DEVICE && strstr(clsort_last_error(cs), "no OpenCL device") != NULL,
                  fake_no_devices == 1 ? "clsort_create on a platform without devices (CL_DEVICE_NOT_FOUND): "
                                         "CLSORT_ERROR_NO_DEVICE with a message"
                                       : "clsort_create on a platform without devices (CL_SUCCESS, 0 devices): "
                                         "CLSORT_ERROR_NO_DEVICE with a message",
                  0);
            clsort_destroy(cs);
            check(balanced(), "clsort_create without devices leaks nothing", 0);
        }
        fake_no_devices = 0;
    }
    { /* a caller's desc.temp released while the context keeps views of it, and
       * another temp passed next: the context holds its own reference (a new
       * buffer can then never come back with the released one's handle and get
       * its stale views); after destroy nothing is left */
        clsort_context *cs = NULL;
        clsort_sort_desc sd;
        size_t tb = 0, j;
        cl_mem keys, out, temp;
        cl_int e;
        int round, ok = 1;
        static uint32_t back[N];
        fail_at = 0;
        if (create_for(S_SCAN, &cs) == CLSORT_SUCCESS) {
            memset(&sd, 0, sizeof sd);
            clsort_sort_temp_size(cs, N, &sd, &tb);
            keys = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, N * 4, NULL, &e);
            out = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, N * 4, NULL, &e);
            for (round = 0; round < 3; ++round) {
                clEnqueueWriteBuffer(clsort_cl_queue(cs), keys, CL_TRUE, 0, N * 4, h_keys, 0, NULL, NULL);
                temp = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, tb, NULL, &e);
                sd.temp = temp;
                ok &= clsort_sort(cs, keys, out, N, &sd, NULL) == CLSORT_SUCCESS;
                clReleaseMemObject(temp); /* the caller's reference goes; the context's stays */
                clEnqueueReadBuffer(clsort_cl_queue(cs), out, CL_TRUE, 0, N * 4, back, 0, NULL, NULL);
                for (j = 1; j < N; ++j) ok &= back[j - 1] <= back[j];
            }
            check(ok, "sorts with a desc.temp released after each call", 0);
            clReleaseMemObject(keys);
            clReleaseMemObject(out);
        } else {
            check(0, "clsort_create for the desc.temp case", 0);
        }
        clsort_destroy(cs);
        check(balanced(), "desc.temp retained by the context is released at destroy", 0);
    }
    if (first == 0) launches_per_call();
    for (s = first; s < SCENARIOS; ++s) {
        clsort_context *cs = NULL;
        bufs b;
        long step;
        fail_at = 0;
        create_for(s, &cs);
        make_bufs(cs, &b);
        reset(cs, &b);
        calls = 0;
        {
            clsort_result r = run_scenario(cs, &b, s);
            total = calls; /* the scenario's own calls, not the checks' reads */
            check(r == CLSORT_SUCCESS && result_ok(cs, &b, s), scenario_names[s], 0);
        }
        free_bufs(&b);
        clsort_destroy(cs);
        check(balanced(), "no OpenCL object leaked (fault-free)", 0);
        printf("%s: %ld OpenCL calls, failing each in turn\n", scenario_names[s], total);
        fflush(stdout);
        step = quick ? (total + 7) / 8 : 1;
        for (k = 1; k <= total; k += step) fault_case(s, k);
    }
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
