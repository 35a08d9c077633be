/* clsort on several devices of one cl_context, every result against a plain
 * C reference. Ends with "N passed, N failed"; exit status 1 on any failure.
 *   test_multidev [--platform NAME] [--allow-one-device] [--bodies N] [--family-device K]
 * The cl_context holds every device of one platform: the platform whose name
 * or vendor contains NAME (case-insensitive), else the platform of the device
 * clsort_create picks by default ($CLSORT_DEVICE, see the manual). Then:
 *   1. clsort_nbody_multi over 2 .. D devices (even splits, and one uneven
 *      split over all D), against a double-precision reference: with the
 *      overlap (the default), and serial, bit for bit against clsort_nbody
 *      on one device; the uneven split through both exchange paths (the
 *      same bits), a split by measured speed, EVEN, and bad desc.multi flags;
 *   2. a clsort context on device K (default 1: the second) of the shared
 *      context, with a queue of ours, runs one call of every family: scan,
 *      split and pack, gather, radix sort (keys, pairs, u64 keys with the
 *      permutation), bitonic sort, binning, reduce, reduce by key (also with
 *      a device count), segmented scan, histogram, N-body accelerations, tree build, Barnes-Hut, radius
 *      queries, select_if (family_tests: every family of the registry has a
 *      row, checked).
 * Fewer than two devices is a failure (this test exists to run several),
 * unless --allow-one-device (a machine with one GPU): the parts then share
 * the one device. PoCL puts several CPU devices in one platform:
 * POCL_DEVICES="pthread pthread pthread" (make multidev).
 *
 * Why the wrappers below: OpenCL lets a program be built for a subset of its
 * context's devices, and then an implementation need not list the program's
 * kernels. NVIDIA's driver answers CL_PROGRAM_NUM_KERNELS,
 * CL_PROGRAM_KERNEL_NAMES and clCreateKernelsInProgram with errors (-47, -45,
 * -47) for a program that is not built for the context's first device, while
 * clCreateKernel by name works. PoCL lists them. The build links this file
 * with -Wl,--wrap= clGetProgramInfo, clCreateKernelsInProgram and
 * clBuildProgram (to know which devices a program was built for), so that
 * every implementation answers as NVIDIA does: a library that needs the
 * listing fails here on PoCL too. A self-check proves the wrappers are in. */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 16 /* clsort_nbody_multi takes at most 16 parts */

static int passed, failed;

static void check(int ok, const char *what, const char *detail)
{
    if (ok) {
        ++passed;
        return;
    }
    ++failed;
    printf("FAIL %s%s%s\n", what, detail && *detail ? ": " : "", detail ? detail : "");
}

/* ---- NVIDIA's answers for a program not built for the context's first device ---- */

cl_int __real_clGetProgramInfo(cl_program p, cl_program_info what, size_t size, void *value, size_t *size_ret);
cl_int __wrap_clGetProgramInfo(cl_program p, cl_program_info what, size_t size, void *value, size_t *size_ret);
cl_int __real_clCreateKernelsInProgram(cl_program p, cl_uint n, cl_kernel *kernels, cl_uint *n_ret);
cl_int __wrap_clCreateKernelsInProgram(cl_program p, cl_uint n, cl_kernel *kernels, cl_uint *n_ret);
cl_int __real_clBuildProgram(cl_program p, cl_uint nd, const cl_device_id *devs, const char *options,
                             void(CL_CALLBACK *notify)(cl_program, void *), void *user);
cl_int __wrap_clBuildProgram(cl_program p, cl_uint nd, const cl_device_id *devs, const char *options,
                             void(CL_CALLBACK *notify)(cl_program, void *), void *user);

/* Which programs were built for their context's first device, as the
 * builds asked: the build status cannot tell (PoCL 3.1 answers
 * CL_BUILD_SUCCESS for every device of the context after a build for one).
 * A released program's handle may come back for a new program, which is
 * built before anything asks for its kernels: the newest build of a handle
 * counts. File scope, as the refusal count: a --wrap function has no other
 * place to keep it (the library's own state is untouched). */
#define MAX_BUILDS 4096
static struct {
    cl_program program;
    int for_first;
} builds[MAX_BUILDS];
static unsigned builds_used, builds_next;
static unsigned long listings_refused; /* kernel listings the wrappers refused */

static void record_build(cl_program p, int for_first)
{
    unsigned i;
    for (i = 0; i < builds_used && builds[i].program != p; ++i) {}
    if (i == builds_used) {
        if (builds_used < MAX_BUILDS) {
            ++builds_used;
        } else { /* full: the oldest slot goes */
            i = builds_next;
            builds_next = (builds_next + 1) % MAX_BUILDS;
        }
    }
    builds[i].program = p;
    builds[i].for_first = for_first;
}

/* The first device of p's context (NULL when a query fails). */
static cl_device_id first_device_of(cl_program p)
{
    cl_context c = NULL;
    cl_device_id devs[64];
    if (__real_clGetProgramInfo(p, CL_PROGRAM_CONTEXT, sizeof c, &c, NULL) != CL_SUCCESS ||
        clGetContextInfo(c, CL_CONTEXT_DEVICES, sizeof devs, devs, NULL) != CL_SUCCESS)
        return NULL;
    return devs[0];
}

cl_int __wrap_clBuildProgram(cl_program p, cl_uint nd, const cl_device_id *devs, const char *options,
                             void(CL_CALLBACK *notify)(cl_program, void *), void *user)
{
    cl_device_id first = first_device_of(p);
    cl_uint k;
    int for_first = nd == 0 || devs == NULL || first == NULL; /* no list: every device of the context */
    for (k = 0; k < nd && devs && !for_first; ++k) for_first = devs[k] == first;
    record_build(p, for_first);
    return __real_clBuildProgram(p, nd, devs, options, notify, user);
}

/* Whether p was built for the first device of its context (a program this
 * file did not see built: left to the implementation, 1). */
static int built_for_first_device(cl_program p)
{
    unsigned i;
    for (i = 0; i < builds_used; ++i)
        if (builds[i].program == p) return builds[i].for_first;
    return 1;
}

cl_int __wrap_clGetProgramInfo(cl_program p, cl_program_info what, size_t size, void *value, size_t *size_ret)
{
    if ((what == CL_PROGRAM_NUM_KERNELS || what == CL_PROGRAM_KERNEL_NAMES) && !built_for_first_device(p)) {
        ++listings_refused;
        return what == CL_PROGRAM_NUM_KERNELS ? CL_INVALID_KERNEL_DEFINITION : CL_INVALID_PROGRAM_EXECUTABLE;
    }
    return __real_clGetProgramInfo(p, what, size, value, size_ret);
}

cl_int __wrap_clCreateKernelsInProgram(cl_program p, cl_uint n, cl_kernel *kernels, cl_uint *n_ret)
{
    if (!built_for_first_device(p)) {
        ++listings_refused;
        return CL_INVALID_KERNEL_DEFINITION;
    }
    return __real_clCreateKernelsInProgram(p, n, kernels, n_ret);
}

/* The wrappers are linked in and answer as NVIDIA does: a program built for
 * `other` alone (not the context's first device) lists nothing, and its
 * kernel is still created by name; built for the first device, it lists. */
static void test_emulation(cl_context cc, cl_device_id first, cl_device_id other)
{
    static const char *src = "kernel void probe(global int *a) { a[get_global_id(0)] = 1; }";
    cl_device_id devs[2];
    int d;
    devs[0] = other;
    devs[1] = first;
    for (d = 0; d < 2; ++d) {
        cl_int e;
        cl_program p = clCreateProgramWithSource(cc, 1, &src, NULL, &e);
        char names[64] = "";
        size_t nk = 0;
        cl_kernel k = NULL;
        cl_uint made = 0;
        cl_int en, ek, el;
        if (e == CL_SUCCESS) e = clBuildProgram(p, 1, &devs[d], "", NULL, NULL);
        check(e == CL_SUCCESS, "probe program builds", NULL);
        if (e != CL_SUCCESS) {
            if (p) clReleaseProgram(p);
            continue;
        }
        en = clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL);
        el = clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, NULL);
        ek = clCreateKernelsInProgram(p, 1, &k, &made);
        if (ek == CL_SUCCESS && k) clReleaseKernel(k);
        if (d == 0)
            check(en == CL_INVALID_KERNEL_DEFINITION && el == CL_INVALID_PROGRAM_EXECUTABLE &&
                      ek == CL_INVALID_KERNEL_DEFINITION,
                  "a program built for a non-first device lists no kernels (wrapped as NVIDIA answers)",
                  "build with -Wl,--wrap= clGetProgramInfo, clCreateKernelsInProgram and clBuildProgram");
        else
            check(en == CL_SUCCESS && nk == 1 && el == CL_SUCCESS && strcmp(names, "probe") == 0 &&
                      ek == CL_SUCCESS && made == 1,
                  "a program built for the first device lists its kernels", NULL);
        k = clCreateKernel(p, "probe", &e);
        check(e == CL_SUCCESS, "clCreateKernel by name works either way", NULL);
        if (e == CL_SUCCESS) clReleaseKernel(k);
        clReleaseProgram(p);
    }
}

/* ---- buffers, random numbers, stable orders ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd64(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static uint32_t rnd32(void) { return (uint32_t)(rnd64() >> 32); }
static double urand(void) { return (double)(rnd64() >> 11) / 9007199254740992.0; } /* [0, 1) */

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        printf("test_multidev: out of host memory\n");
        exit(1);
    }
    return p;
}

/* A buffer of the shared context, filled through cs's queue (src NULL: left as it is). */
static cl_mem upload(clsort_context *cs, size_t bytes, const void *src)
{
    cl_int e;
    cl_mem m = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &e);
    if (e != CL_SUCCESS) {
        printf("test_multidev: clCreateBuffer(%lu bytes): %d\n", (unsigned long)bytes, (int)e);
        exit(1);
    }
    if (src && bytes) {
        e = clEnqueueWriteBuffer(clsort_cl_queue(cs), m, CL_TRUE, 0, bytes, src, 0, NULL, NULL);
        if (e != CL_SUCCESS) {
            printf("test_multidev: clEnqueueWriteBuffer: %d\n", (int)e);
            exit(1);
        }
    }
    return m;
}

static void download(clsort_context *cs, cl_mem m, size_t bytes, void *dst)
{
    cl_int e = clEnqueueReadBuffer(clsort_cl_queue(cs), m, CL_TRUE, 0, bytes, dst, 0, NULL, NULL);
    if (e != CL_SUCCESS) {
        printf("test_multidev: clEnqueueReadBuffer: %d\n", (int)e);
        exit(1);
    }
}

/* Checks that a call returned CLSORT_SUCCESS; says why when not. */
static int call_ok(clsort_context *cs, clsort_result r, const char *what)
{
    check(r == CLSORT_SUCCESS, what, NULL);
    if (r != CLSORT_SUCCESS) printf("  %s: %s\n", clsort_result_string(r), cs ? clsort_last_error(cs) : "no context");
    return r == CLSORT_SUCCESS;
}

/* "first difference at i" when bad < n */
static void check_index(size_t bad, size_t n, const char *what)
{
    char buf[80];
    snprintf(buf, sizeof buf, "first difference at index %lu of %lu", (unsigned long)bad, (unsigned long)n);
    check(bad >= n, what, buf);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Stable order by a 64-bit key image: a permutation sorted by (key, index). */
static const uint64_t *sort_images;
static int cmp_by_image(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (sort_images[x] != sort_images[y]) return sort_images[x] < sort_images[y] ? -1 : 1;
    return (x > y) - (x < y);
}
static void stable_order(const uint64_t *images, size_t n, uint32_t *order)
{
    size_t i;
    for (i = 0; i < n; ++i) order[i] = (uint32_t)i;
    sort_images = images;
    qsort(order, n, sizeof *order, cmp_by_image);
}

/* ---- N-body reference: double-precision direct summation ---- */

/* acc = G a_i at double positions x (n float4-like records of doubles), and
 * per component S = G sum_j |m_j d_c| / (r^2 + eps2)^1.5, the scale of the
 * library's documented bound (the manual, NBODY: per component
 * |a - exact| <= (n + 16) u S). A body exerts no force on one at the same point. */
static void ref_accel(const double *x, size_t n, size_t i, double eps2, double G, double acc[3], double S[3])
{
    size_t j;
    int c;
    for (c = 0; c < 3; ++c) acc[c] = S[c] = 0.0;
    for (j = 0; j < n; ++j) {
        double d[3], r2 = eps2, f;
        for (c = 0; c < 3; ++c) {
            d[c] = x[4 * j + c] - x[4 * i + c];
            r2 += d[c] * d[c];
        }
        if (r2 == 0.0) continue;
        f = G * x[4 * j + 3] / (r2 * sqrt(r2));
        for (c = 0; c < 3; ++c) {
            acc[c] += f * d[c];
            S[c] += fabs(f * d[c]);
        }
    }
}

/* acc = G a at every body; A += w (n + 16) u S: the velocity error bound of
 * a kick of weight w with these forces. */
static void accel_all(const double *x, size_t n, double eps2, double G, double *acc, double *A, double w, double u)
{
    size_t i;
    int c;
    for (i = 0; i < n; ++i) {
        double S[3];
        ref_accel(x, n, i, eps2, G, acc + 3 * i, S);
        for (c = 0; c < 3; ++c) A[3 * i + c] += w * ((double)n + 16.0) * u * S[c];
    }
}

/* The reference run and what each coordinate may differ from it. */
typedef struct nbody_ref {
    double *x, *v;       /* final positions (x, y, z, m) and velocities, 4 per body */
    double *tol_x, *tol_v; /* per body and component (3 per body) */
} nbody_ref;

/* desc's leapfrog (kick-drift-kick, G = 1) in double from the float inputs,
 * and the tolerance of a float run of the library against it.
 * Why that tolerance (per body i and component c, u = 2^-24, k steps):
 *  - each of the k + 1 force evaluations errs by at most (n + 16) u S_c at
 *    the positions it sees (the documented bound, which the manual says holds
 *    with the GPUs' fast math too); the kicks weigh them dt / 2, dt, ..., dt,
 *    dt / 2, so the velocity takes at most A = sum_e w_e (n + 16) u S_c(e),
 *    with S from the reference's own positions at each evaluation;
 *  - each kick rounds v + a dt / 2 (<= 2 u max|v| each, two a step) and each
 *    drift x + v dt (<= 2 u (max|x| + max|v| dt));
 *  - a velocity error moves the positions by at most k dt times itself;
 *  - position errors feed back into the forces through the tidal field:
 *    |da/dx| ~ 4 pi G rho / 3 ~ 4 here, ~10 with the nearest neighbours
 *    (softening 0.1), so over k dt = 0.04 a position error of tol_x adds
 *    about 0.04 * 10 * 2.3e-6 ~ 1e-6 to the velocity, 2% of tol_v; the
 *    factor 2 covers that, the rounding of dt / 2 and of the products.
 * tol_v = 2 (A + 4 k u max|v|), tol_x = 2 (k dt A + 2 k u (max|x| + max|v| dt)).
 * At n = 4096 (dt 0.01, 4 steps, softening 0.1) that is tol_v 3.9e-5 and
 * tol_x 1.9e-6 on average; PoCL's runs stay within 0.06 of it. What the
 * test is for is far above: with one exchange between the parts left out
 * (a mutation of the library; every part then computes one step against
 * positions of the other slices one step old) the largest error was 5.8 to
 * 340 times the tolerance, whichever exchange was dropped. */
static nbody_ref nbody_reference(const float *pos, const float *vel, size_t n, const clsort_nbody_desc *d)
{
    nbody_ref r;
    double *acc = (double *)xmalloc(n * 3 * sizeof(double)), *A = (double *)xmalloc(n * 3 * sizeof(double));
    double *xmax = (double *)xmalloc(n * sizeof(double)), *vmax = (double *)xmalloc(n * sizeof(double));
    double u = ldexp(1.0, -24), dt = d->dt, eps2 = d->softening2, G = d->G != 0.0 ? d->G : 1.0;
    unsigned k = d->steps ? d->steps : 1, s;
    size_t i;
    int c;
    r.x = (double *)xmalloc(n * 4 * sizeof(double));
    r.v = (double *)xmalloc(n * 4 * sizeof(double));
    r.tol_x = (double *)xmalloc(n * 3 * sizeof(double));
    r.tol_v = (double *)xmalloc(n * 3 * sizeof(double));
    for (i = 0; i < 4 * n; ++i) {
        r.x[i] = pos[i];
        r.v[i] = vel[i];
    }
    for (i = 0; i < n; ++i) {
        xmax[i] = vmax[i] = 0.0;
        for (c = 0; c < 3; ++c) {
            A[3 * i + c] = 0.0;
            xmax[i] = fmax(xmax[i], fabs(r.x[4 * i + c]));
            vmax[i] = fmax(vmax[i], fabs(r.v[4 * i + c]));
        }
    }
    accel_all(r.x, n, eps2, G, acc, A, 0.5 * dt, u);
    for (s = 0; s < k; ++s) { /* kick dt / 2, drift dt, forces, kick dt / 2 */
        for (i = 0; i < n; ++i)
            for (c = 0; c < 3; ++c) r.v[4 * i + c] += 0.5 * dt * acc[3 * i + c];
        for (i = 0; i < n; ++i)
            for (c = 0; c < 3; ++c) r.x[4 * i + c] += r.v[4 * i + c] * dt;
        /* this evaluation closes step s and opens step s + 1: weight dt, dt / 2 for the last */
        accel_all(r.x, n, eps2, G, acc, A, s + 1 < k ? dt : 0.5 * dt, u);
        for (i = 0; i < n; ++i)
            for (c = 0; c < 3; ++c) {
                r.v[4 * i + c] += 0.5 * dt * acc[3 * i + c];
                xmax[i] = fmax(xmax[i], fabs(r.x[4 * i + c]));
                vmax[i] = fmax(vmax[i], fabs(r.v[4 * i + c]));
            }
    }
    for (i = 0; i < n; ++i)
        for (c = 0; c < 3; ++c) {
            r.tol_v[3 * i + c] = 2.0 * (A[3 * i + c] + 4.0 * k * u * vmax[i]);
            r.tol_x[3 * i + c] = 2.0 * (k * dt * A[3 * i + c] + 2.0 * k * u * (xmax[i] + vmax[i] * dt));
        }
    free(acc); free(A); free(xmax); free(vmax);
    return r;
}

static void nbody_ref_free(nbody_ref *r)
{
    free(r->x); free(r->v); free(r->tol_x); free(r->tol_v);
}

/* Final positions and velocities of a float run against the reference:
 * within the tolerance, masses and the w components unchanged. */
static void check_nbody_against_ref(const float *x, const float *v, const float *x0, const float *v0, size_t n,
                                    const nbody_ref *r, const char *what)
{
    size_t i, bad = n;
    double worst = 0;
    char buf[200];
    for (i = 0; i < n; ++i) {
        int c, ok = x[4 * i + 3] == x0[4 * i + 3] && v[4 * i + 3] == v0[4 * i + 3];
        for (c = 0; c < 3; ++c) {
            double ex = fabs((double)x[4 * i + c] - r->x[4 * i + c]), ev = fabs((double)v[4 * i + c] - r->v[4 * i + c]);
            if (!(ex <= r->tol_x[3 * i + c]) || !(ev <= r->tol_v[3 * i + c])) ok = 0;
            worst = fmax(worst, fmax(ex / r->tol_x[3 * i + c], ev / r->tol_v[3 * i + c]));
        }
        if (!ok && bad == n) bad = i;
    }
    snprintf(buf, sizeof buf, "largest error / tolerance %.3g, first body out %lu", worst, (unsigned long)bad);
    check(bad == n, what, buf);
    printf("    %s: largest error / tolerance %.3g\n", what, worst);
}

/* ---- 1. clsort_nbody_multi ---- */

/* Whether every device of the list reports the same name and driver: the
 * library then picks one kernel shape for all, and the split must give
 * clsort_nbody's bits (the manual, NBODY). */
static int devices_alike(const cl_device_id *devs, unsigned nd)
{
    char a[512], b[512], va[128], vb[128];
    unsigned k;
    if (clGetDeviceInfo(devs[0], CL_DEVICE_NAME, sizeof a, a, NULL) != CL_SUCCESS ||
        clGetDeviceInfo(devs[0], CL_DRIVER_VERSION, sizeof va, va, NULL) != CL_SUCCESS)
        return 0;
    for (k = 1; k < nd; ++k)
        if (clGetDeviceInfo(devs[k], CL_DEVICE_NAME, sizeof b, b, NULL) != CL_SUCCESS ||
            clGetDeviceInfo(devs[k], CL_DRIVER_VERSION, sizeof vb, vb, NULL) != CL_SUCCESS || strcmp(a, b) != 0 ||
            strcmp(va, vb) != 0)
            return 0;
    return 1;
}

/* One clsort_nbody_multi run over parts 0 .. count - 1 (counts NULL: the
 * library splits), every part's positions and velocities filled first
 * through its own queue; `at` (count + 1 entries) is the split the call must
 * make. On return every part's positions and the velocities of its slice
 * are read back: all parts' positions must agree bit for bit, and each
 * part's velocities outside its slice must be as they were (a part that
 * advanced other bodies than its slice shows there). */
static int run_multi(clsort_context **cs, unsigned count, const size_t *counts, const size_t *at, size_t n,
                     const float *pos, const float *vel, const clsort_nbody_desc *d, float *x_out, float *v_out,
                     const char *what)
{
    clsort_nbody_part parts[MAX_DEVICES];
    cl_mem p[MAX_DEVICES], v[MAX_DEVICES];
    float *xk = (float *)xmalloc(n * 16), *vk = (float *)xmalloc(n * 16);
    unsigned k;
    clsort_result r;
    int same = 1, kept = 1;
    memset(parts, 0, sizeof parts);
    for (k = 0; k < count; ++k) {
        p[k] = upload(cs[k], n * 16, pos);
        v[k] = upload(cs[k], n * 16, vel);
        parts[k].ctx = cs[k];
        parts[k].positions = p[k];
        parts[k].velocities = v[k];
        parts[k].first = counts ? at[k] : 0;
        parts[k].count = counts ? counts[k] : 0;
    }
    r = clsort_nbody_multi(parts, count, n, d);
    call_ok(cs[0], r, what);
    for (k = 0; k < count && r == CLSORT_SUCCESS; ++k) {
        download(cs[k], p[k], n * 16, k == 0 ? x_out : xk);
        if (k > 0 && memcmp(xk, x_out, n * 16) != 0) same = 0;
        download(cs[k], v[k], n * 16, vk);
        memcpy(v_out + 4 * at[k], vk + 4 * at[k], (at[k + 1] - at[k]) * 16);
        if (memcmp(vk, vel, at[k] * 16) != 0 || memcmp(vk + 4 * at[k + 1], vel + 4 * at[k + 1], (n - at[k + 1]) * 16) != 0)
            kept = 0;
    }
    if (r == CLSORT_SUCCESS) {
        char buf[240];
        snprintf(buf, sizeof buf, "%.180s: every part's positions the same bits", what);
        check(same, buf, NULL);
        snprintf(buf, sizeof buf, "%.180s: each part advanced its own slice only", what);
        check(kept, buf, NULL);
    }
    for (k = 0; k < count; ++k) {
        clReleaseMemObject(p[k]);
        clReleaseMemObject(v[k]);
    }
    free(xk); free(vk);
    return r == CLSORT_SUCCESS;
}

/* The split [at[k], at[k + 1]) of n bodies over count parts: even, or in
 * proportion to weights (the manual: shares by measured speed). */
static void split_at(size_t n, unsigned count, const double *weight, size_t *at)
{
    double total = 0, sum = 0;
    unsigned k;
    for (k = 0; k < count && weight; ++k) total += weight[k];
    for (k = 0; k <= count; ++k) {
        at[k] = weight ? (size_t)((double)n * sum / total + 0.5) : n * k / count;
        if (k < count && weight) sum += weight[k];
    }
    at[count] = n;
}

/* A multi run that must fail with INVALID_ARGUMENT (bad desc.multi). */
static void multi_refused(clsort_context **cs, size_t n, const float *pos, const clsort_nbody_desc *d, const char *what)
{
    clsort_nbody_part parts[2];
    cl_mem b[4];
    clsort_result r;
    int i;
    for (i = 0; i < 4; ++i) b[i] = upload(cs[i / 2], n * 16, pos);
    memset(parts, 0, sizeof parts);
    parts[0].ctx = cs[0]; parts[0].positions = b[0]; parts[0].velocities = b[1];
    parts[1].ctx = cs[1]; parts[1].positions = b[2]; parts[1].velocities = b[3];
    r = clsort_nbody_multi(parts, 2, n, d);
    check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs[0]), "desc.multi") != NULL, what,
          clsort_last_error(cs[0]));
    for (i = 0; i < 4; ++i) clReleaseMemObject(b[i]);
}

static void test_nbody_multi(cl_context cc, const cl_device_id *devs, unsigned nd, size_t n)
{
    /* with one device (--allow-one-device) three contexts share it */
    unsigned used = nd > 1 ? nd : 3, k, d;
    int alike = nd == 1 || devices_alike(devs, nd), serial;
    clsort_context *cs[MAX_DEVICES];
    float *pos = (float *)xmalloc(n * 16), *vel = (float *)xmalloc(n * 16);
    float *x1 = (float *)xmalloc(n * 16), *v1 = (float *)xmalloc(n * 16);
    float *xm = (float *)xmalloc(n * 16), *vm = (float *)xmalloc(n * 16);
    float *xo = (float *)xmalloc(n * 16), *vo = (float *)xmalloc(n * 16);
    clsort_nbody_desc desc;
    nbody_ref ref;
    size_t i, counts[MAX_DEVICES], at[MAX_DEVICES + 1];
    double weight[MAX_DEVICES];
    char what[160], buf[200];
    clsort_result r;
    printf("clsort_nbody_multi: %lu bodies, %u contexts on %u device(s)%s\n", (unsigned long)n, used, nd,
           alike ? "" : " (unlike devices: the split is checked against the reference only)");
    fflush(stdout);
    for (k = 0; k < used; ++k) { /* context + device, no queue: the library makes one */
        clsort_context_desc cd;
        memset(&cd, 0, sizeof cd);
        cd.context = cc;
        cd.device = devs[nd > 1 ? k : 0];
        cs[k] = NULL;
        r = clsort_create(&cs[k], &cd);
        snprintf(what, sizeof what, "clsort_create on device %u of the shared context", nd > 1 ? k : 0);
        if (!call_ok(cs[k], r, what)) {
            for (d = 0; d <= k; ++d) clsort_destroy(cs[d]);
            free(pos); free(vel); free(x1); free(v1); free(xm); free(vm); free(xo); free(vo);
            return;
        }
    }
    /* a uniform cube of side 1 and total mass ~1 (masses 0.5 .. 1.5 / n), velocities in [-1, 1) */
    for (i = 0; i < n; ++i) {
        int c;
        for (c = 0; c < 3; ++c) {
            pos[4 * i + c] = (float)(urand() - 0.5);
            vel[4 * i + c] = (float)(2.0 * urand() - 1.0);
        }
        pos[4 * i + 3] = (float)((0.5 + urand()) / (double)n);
        vel[4 * i + 3] = (float)i; /* the w component is kept as it is */
    }
    memset(&desc, 0, sizeof desc);
    desc.dt = 0.01;
    desc.softening2 = 0.01;
    desc.steps = 4;
    ref = nbody_reference(pos, vel, n, &desc);
    { /* one device: clsort_nbody */
        cl_mem p = upload(cs[0], n * 16, pos), v = upload(cs[0], n * 16, vel);
        r = clsort_nbody(cs[0], p, v, n, &desc, NULL);
        if (call_ok(cs[0], r, "clsort_nbody on device 0")) {
            download(cs[0], p, n * 16, x1);
            download(cs[0], v, n * 16, v1);
            check_nbody_against_ref(x1, v1, pos, vel, n, &ref, "clsort_nbody on device 0 vs the double reference");
        }
        clReleaseMemObject(p);
        clReleaseMemObject(v);
    }
    /* each split with the overlap (the default: own slice first, then the
     * others') and serial (clsort_nbody's bits on alike devices) */
    for (d = 2; d <= used + 1; ++d)
        for (serial = 0; serial < 2; ++serial) { /* d = used + 1: an uneven split over all the contexts */
            unsigned count = d <= used ? d : used;
            const size_t *cnt = NULL;
            const char *how = serial ? ", serial" : "";
            desc.multi = serial ? CLSORT_NBODY_MULTI_SERIAL : 0;
            if (d > used) {
                for (k = 0; k < used; ++k) weight[k] = k + 1; /* part k gets a share ~ k + 1 */
                split_at(n, used, weight, at);
                for (k = 0; k < used; ++k) counts[k] = at[k + 1] - at[k];
                cnt = counts;
                snprintf(what, sizeof what, "clsort_nbody_multi over %u parts, uneven (%lu .. %lu bodies)%s", count,
                         (unsigned long)counts[0], (unsigned long)counts[used - 1], how);
            } else {
                split_at(n, count, NULL, at);
                snprintf(what, sizeof what, "clsort_nbody_multi over %u parts%s", count, how);
            }
            if (!run_multi(cs, count, cnt, at, n, pos, vel, &desc, xm, vm, what)) continue;
            check_nbody_against_ref(xm, vm, pos, vel, n, &ref, what);
            if (alike && serial) {
                snprintf(buf, sizeof buf, "%s = clsort_nbody bit for bit", what);
                check(memcmp(xm, x1, n * 16) == 0 && memcmp(vm, v1, n * 16) == 0, buf, NULL);
            }
            if (d > used && !serial) { /* the uneven overlapped run: kept for the exchange paths below */
                memcpy(xo, xm, n * 16);
                memcpy(vo, vm, n * 16);
            }
        }
    /* the uneven split with the overlap again, through each exchange path:
     * the same bits (the exchange moves positions, it adds nothing) */
    for (d = 0; d < 3; ++d) {
        static const unsigned path[3] = {0, CLSORT_NBODY_MULTI_HOST, CLSORT_NBODY_MULTI_DEVICE};
        static const char *const name[3] = {"again", "through pinned host memory", "by copies in the context"};
        desc.multi = path[d];
        snprintf(what, sizeof what, "clsort_nbody_multi over %u parts, uneven, %s", used, name[d]);
        if (!run_multi(cs, used, counts, at, n, pos, vel, &desc, xm, vm, what)) continue;
        snprintf(buf, sizeof buf, "%s: the same bits as the first uneven run", what);
        check(memcmp(xm, xo, n * 16) == 0 && memcmp(vm, vo, n * 16) == 0, buf, NULL);
    }
    /* counts 0 with BALANCE: shares by each context's measured speed. Speeds
     * set here to 1 : 2 : .. make the split known; the call measures anew. */
    for (k = 0; k < used; ++k) weight[k] = cs[k]->nbody_rate = k + 1;
    split_at(n, used, weight, at);
    desc.multi = CLSORT_NBODY_MULTI_BALANCE;
    snprintf(what, sizeof what, "clsort_nbody_multi over %u parts, split by speed", used);
    if (run_multi(cs, used, NULL, at, n, pos, vel, &desc, xm, vm, what)) {
        int measured = 1;
        check_nbody_against_ref(xm, vm, pos, vel, n, &ref, what);
        for (k = 0; k < used; ++k)
            if (!(cs[k]->nbody_rate > 1e3)) measured = 0; /* interactions/s; any device does more than 1000 */
        snprintf(buf, sizeof buf, "%s: every part's speed measured anew", what);
        check(measured, buf, NULL);
    }
    /* counts 0 with EVEN: an even split whatever the speeds */
    split_at(n, used, NULL, at);
    desc.multi = CLSORT_NBODY_MULTI_EVEN;
    snprintf(what, sizeof what, "clsort_nbody_multi over %u parts, EVEN", used);
    if (run_multi(cs, used, NULL, at, n, pos, vel, &desc, xm, vm, what))
        check_nbody_against_ref(xm, vm, pos, vel, n, &ref, what);
    desc.multi = 64;
    multi_refused(cs, n, pos, &desc, "clsort_nbody_multi refuses an unknown desc.multi flag");
    desc.multi = CLSORT_NBODY_MULTI_EVEN | CLSORT_NBODY_MULTI_BALANCE;
    multi_refused(cs, n, pos, &desc, "clsort_nbody_multi refuses EVEN with BALANCE");
    desc.multi = CLSORT_NBODY_MULTI_HOST | CLSORT_NBODY_MULTI_DEVICE;
    multi_refused(cs, n, pos, &desc, "clsort_nbody_multi refuses HOST with DEVICE");
    nbody_ref_free(&ref);
    for (k = 0; k < used; ++k) clsort_destroy(cs[k]);
    free(pos); free(vel); free(x1); free(v1); free(xm); free(vm); free(xo); free(vo);
}

/* ---- 2. every family on one clsort context of a non-first device ---- */

static void test_scan(clsort_context *cs)
{
    size_t n = 10007, i, bad;
    uint32_t *in = (uint32_t *)xmalloc(n * 4), *out = (uint32_t *)xmalloc(n * 4), total = 0, sum = 0;
    cl_mem din, dout, dtot;
    clsort_scan_desc sd;
    for (i = 0; i < n; ++i) in[i] = rnd32(); /* full range: the sums wrap */
    din = upload(cs, n * 4, in);
    dout = upload(cs, n * 4, NULL);
    dtot = upload(cs, 4, NULL);
    memset(&sd, 0, sizeof sd);
    sd.total = dtot;
    if (call_ok(cs, clsort_scan(cs, din, dout, n, &sd, NULL), "clsort_scan u32 exclusive")) {
        download(cs, dout, n * 4, out);
        download(cs, dtot, 4, &total);
        for (bad = 0; bad < n && out[bad] == sum; sum += in[bad], ++bad) {}
        if (bad == n) bad = total == sum ? n : n - 1;
        check_index(bad, n, "clsort_scan u32 exclusive (and total) = reference");
    }
    clReleaseMemObject(din); clReleaseMemObject(dout); clReleaseMemObject(dtot);
    free(in); free(out);
}

static void test_split_pack(clsort_context *cs)
{
    size_t n = 9001, i, bad, zeros = 0, kept = 0, z = 0, want_kept = 0, at;
    uint32_t *keys = (uint32_t *)xmalloc(n * 4), *vals = (uint32_t *)xmalloc(n * 4), *flags = (uint32_t *)xmalloc(n * 4);
    uint32_t *ko = (uint32_t *)xmalloc(n * 4), *vo = (uint32_t *)xmalloc(n * 4), *rk = (uint32_t *)xmalloc(n * 4);
    uint32_t *rv = (uint32_t *)xmalloc(n * 4);
    uint64_t *k64 = (uint64_t *)xmalloc(n * 8), *o64 = (uint64_t *)xmalloc(n * 8), *r64 = (uint64_t *)xmalloc(n * 8);
    uint8_t *f8 = (uint8_t *)xmalloc(n);
    cl_mem dk, dv, df, dko, dvo, d64, do64, df8;
    clsort_split_desc sd;
    for (i = 0; i < n; ++i) {
        keys[i] = rnd32();
        vals[i] = (uint32_t)i;
        flags[i] = rnd32() % 3 == 0 ? rnd32() | 1u : 0u; /* any nonzero value is set */
        k64[i] = rnd64();
        f8[i] = (uint8_t)(rnd32() % 5 == 0 ? 0 : 1 + rnd32() % 255);
    }
    /* split: flag-0 keys first, then the rest, each in input order, values along */
    for (i = 0; i < n; ++i) if (!flags[i]) z++;
    for (i = 0, at = 0; i < n; ++i) if (!flags[i]) rk[at] = keys[i], rv[at++] = vals[i];
    for (i = 0; i < n; ++i) if (flags[i]) rk[at] = keys[i], rv[at++] = vals[i];
    dk = upload(cs, n * 4, keys); dv = upload(cs, n * 4, vals); df = upload(cs, n * 4, flags);
    dko = upload(cs, n * 4, NULL); dvo = upload(cs, n * 4, NULL);
    memset(&sd, 0, sizeof sd);
    sd.flags_kind = CLSORT_FLAGS_U32;
    sd.flags = df;
    sd.values_in = dv;
    sd.values_out = dvo;
    if (call_ok(cs, clsort_split(cs, dk, dko, n, &sd, &zeros, NULL), "clsort_split u32 keys + values")) {
        download(cs, dko, n * 4, ko);
        download(cs, dvo, n * 4, vo);
        for (bad = 0; bad < n && ko[bad] == rk[bad] && vo[bad] == rv[bad]; ++bad) {}
        if (zeros != z) bad = 0;
        check_index(bad, n, "clsort_split (keys, values, zeros count) = reference");
    }
    /* pack: 8-byte keys with u8 flags */
    for (i = 0; i < n; ++i) if (f8[i]) r64[want_kept++] = k64[i];
    d64 = upload(cs, n * 8, k64); do64 = upload(cs, n * 8, NULL); df8 = upload(cs, n, f8);
    memset(&sd, 0, sizeof sd);
    sd.type = CLSORT_U64;
    sd.flags_kind = CLSORT_FLAGS_U8;
    sd.flags = df8;
    if (call_ok(cs, clsort_pack(cs, d64, do64, n, &sd, &kept, NULL), "clsort_pack u64 keys, u8 flags")) {
        download(cs, do64, n * 8, o64);
        for (bad = 0; bad < want_kept && o64[bad] == r64[bad]; ++bad) {}
        if (kept != want_kept) bad = 0;
        check_index(bad, want_kept, "clsort_pack (keys, count) = reference");
    }
    clReleaseMemObject(dk); clReleaseMemObject(dv); clReleaseMemObject(df); clReleaseMemObject(dko);
    clReleaseMemObject(dvo); clReleaseMemObject(d64); clReleaseMemObject(do64); clReleaseMemObject(df8);
    free(keys); free(vals); free(flags); free(ko); free(vo); free(rk); free(rv); free(k64); free(o64); free(r64);
    free(f8);
}

static void test_gather(clsort_context *cs)
{
    size_t n = 7001, ns = 5003, es = 12, i, bad; /* 12-byte elements; some indices past the end of src */
    unsigned char *src = (unsigned char *)xmalloc(ns * es), *dst = (unsigned char *)xmalloc(n * es);
    uint32_t *idx = (uint32_t *)xmalloc(n * 4);
    static const unsigned char zero[12] = {0};
    cl_mem ds, dd, di;
    for (i = 0; i < ns * es; ++i) src[i] = (unsigned char)rnd32();
    for (i = 0; i < n; ++i) idx[i] = i % 50 == 7 ? (uint32_t)(ns + rnd32() % 1000) : rnd32() % (uint32_t)ns;
    ds = upload(cs, ns * es, src); dd = upload(cs, n * es, NULL); di = upload(cs, n * 4, idx);
    if (call_ok(cs, clsort_gather(cs, ds, dd, di, n, es, NULL), "clsort_gather 12-byte elements")) {
        download(cs, dd, n * es, dst);
        for (bad = 0; bad < n; ++bad)
            if (memcmp(dst + bad * es, idx[bad] < ns ? src + (size_t)idx[bad] * es : zero, es) != 0) break;
        check_index(bad, n, "clsort_gather (out-of-range indices give zeros) = reference");
    }
    clReleaseMemObject(ds); clReleaseMemObject(dd); clReleaseMemObject(di);
    free(src); free(dst); free(idx);
}

/* The order-preserving image of a float's bits (the manual, SORT): -0 before +0. */
static uint64_t f32_image(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return (b & 0x80000000u) ? (uint64_t)(~b) : (uint64_t)(b | 0x80000000u);
}

static void test_sort(clsort_context *cs)
{
    size_t n = 20011, i, bad;
    uint32_t *k32 = (uint32_t *)xmalloc(n * 4), *o32 = (uint32_t *)xmalloc(n * 4), *vals = (uint32_t *)xmalloc(n * 4);
    uint32_t *ov = (uint32_t *)xmalloc(n * 4), *order = (uint32_t *)xmalloc(n * 4), *perm = (uint32_t *)xmalloc(n * 4);
    float *kf = (float *)xmalloc(n * 4), *of = (float *)xmalloc(n * 4);
    uint64_t *k64 = (uint64_t *)xmalloc(n * 8), *o64 = (uint64_t *)xmalloc(n * 8), *img = (uint64_t *)xmalloc(n * 8);
    cl_mem dk, dko, dv, dvo, dp;
    clsort_sort_desc sd;
    /* keys alone, u32, in place */
    for (i = 0; i < n; ++i) k32[i] = i % 3 ? rnd32() : rnd32() % 100; /* duplicates too */
    dk = upload(cs, n * 4, k32);
    memset(&sd, 0, sizeof sd);
    if (call_ok(cs, clsort_sort(cs, dk, dk, n, &sd, NULL), "clsort_sort u32 keys in place")) {
        download(cs, dk, n * 4, o32);
        for (i = 0; i < n; ++i) img[i] = k32[i];
        stable_order(img, n, order);
        for (bad = 0; bad < n && o32[bad] == k32[order[bad]]; ++bad) {}
        check_index(bad, n, "clsort_sort u32 keys = reference");
    }
    clReleaseMemObject(dk);
    /* pairs: f32 keys (negative, -0, +0, duplicates) with u32 values = the input index: stable */
    for (i = 0; i < n; ++i) {
        kf[i] = i % 5 == 0 ? (float)((int)(rnd32() % 7) - 3) : (float)(urand() * 200.0 - 100.0);
        if (i % 97 == 1) kf[i] = (i / 97) % 2 ? -0.0f : 0.0f;
        vals[i] = (uint32_t)i;
        img[i] = f32_image(kf[i]);
    }
    dk = upload(cs, n * 4, kf); dko = upload(cs, n * 4, NULL); dv = upload(cs, n * 4, vals); dvo = upload(cs, n * 4, NULL);
    memset(&sd, 0, sizeof sd);
    sd.type = CLSORT_F32;
    sd.values_in = dv;
    sd.values_out = dvo;
    if (call_ok(cs, clsort_sort(cs, dk, dko, n, &sd, NULL), "clsort_sort f32 keys + u32 values")) {
        download(cs, dko, n * 4, of);
        download(cs, dvo, n * 4, ov);
        stable_order(img, n, order);
        for (bad = 0; bad < n && memcmp(&of[bad], &kf[order[bad]], 4) == 0 && ov[bad] == order[bad]; ++bad) {}
        check_index(bad, n, "clsort_sort f32 pairs (numeric, stable, -0 before +0) = reference");
    }
    clReleaseMemObject(dk); clReleaseMemObject(dko); clReleaseMemObject(dv); clReleaseMemObject(dvo);
    /* u64 keys, descending, with the permutation */
    for (i = 0; i < n; ++i) {
        k64[i] = i % 4 ? rnd64() : rnd64() % 1000;
        img[i] = ~k64[i]; /* descending = ascending by the complement, still stable */
    }
    dk = upload(cs, n * 8, k64); dko = upload(cs, n * 8, NULL); dp = upload(cs, n * 4, NULL);
    memset(&sd, 0, sizeof sd);
    sd.type = CLSORT_U64;
    sd.descending = 1;
    sd.permutation = dp;
    if (call_ok(cs, clsort_sort(cs, dk, dko, n, &sd, NULL), "clsort_sort u64 keys descending + permutation")) {
        download(cs, dko, n * 8, o64);
        download(cs, dp, n * 4, perm);
        stable_order(img, n, order);
        for (bad = 0; bad < n && o64[bad] == k64[order[bad]] && perm[bad] == order[bad]; ++bad) {}
        check_index(bad, n, "clsort_sort u64 descending (keys, permutation) = reference");
    }
    clReleaseMemObject(dk); clReleaseMemObject(dko); clReleaseMemObject(dp);
    free(k32); free(o32); free(vals); free(ov); free(order); free(perm); free(kf); free(of); free(k64); free(o64);
    free(img);
}

static void test_bitonic(clsort_context *cs)
{
    size_t n = 3001, seg = 0, i, bad; /* not a power of two */
    uint32_t *keys = (uint32_t *)xmalloc(n * 4), *vals = (uint32_t *)xmalloc(n * 4), *ko = (uint32_t *)xmalloc(n * 4);
    uint32_t *vo = (uint32_t *)xmalloc(n * 4), *order = (uint32_t *)xmalloc(n * 4);
    uint32_t off[5] = {0, 1000, 1000, 2500, 3001}; /* variable segments on the host, one empty */
    uint64_t *img = (uint64_t *)xmalloc(n * 8);
    cl_mem dk, dv, dko, dvo;
    clsort_bitonic_desc bd;
    for (i = 0; i < n; ++i) {
        keys[i] = rnd32() % 500; /* duplicates: with values, equal keys keep their input order */
        vals[i] = (uint32_t)i;
    }
    dk = upload(cs, n * 4, keys); dv = upload(cs, n * 4, vals); dko = upload(cs, n * 4, NULL); dvo = upload(cs, n * 4, NULL);
    memset(&bd, 0, sizeof bd);
    bd.values_in = dv;
    bd.values_out = dvo;
    bd.segment_offsets_host = off;
    bd.segment_count = 4;
    if (call_ok(cs, clsort_bitonic_sort(cs, dk, dko, n, &bd, NULL), "clsort_bitonic_sort u32 + values, 4 segments")) {
        download(cs, dko, n * 4, ko);
        download(cs, dvo, n * 4, vo);
        for (i = 0; i < n; ++i) { /* segment, then key, then index */
            while (seg + 1 < 4 && i >= off[seg + 1]) ++seg;
            img[i] = (uint64_t)seg << 32 | keys[i];
        }
        stable_order(img, n, order);
        for (bad = 0; bad < n && ko[bad] == keys[order[bad]] && vo[bad] == order[bad]; ++bad) {}
        check_index(bad, n, "clsort_bitonic_sort segments (keys, values, stable) = reference");
    }
    clReleaseMemObject(dk); clReleaseMemObject(dv); clReleaseMemObject(dko); clReleaseMemObject(dvo);
    free(keys); free(vals); free(ko); free(vo); free(order); free(img);
}

static void test_binning(clsort_context *cs)
{
    /* 2D grid of 16 x 16 cells of side 1/16 from 0 (exact in float), closed
     * axes: positions in [-0.25, 1.25) so that some clamp into edge cells */
    size_t n = 5003, cells = 256, i, bad;
    float *pos = (float *)xmalloc(n * 8), *po = (float *)xmalloc(n * 8);
    uint32_t *keys = (uint32_t *)xmalloc(n * 4), *ko = (uint32_t *)xmalloc(n * 4), *perm = (uint32_t *)xmalloc(n * 4);
    uint32_t *order = (uint32_t *)xmalloc(n * 4), *off = (uint32_t *)xmalloc((cells + 1) * 4);
    uint64_t *img = (uint64_t *)xmalloc(n * 8);
    cl_mem dp, dk, dperm, doff, dpo;
    clsort_bin_desc bd;
    clsort_attribute attr;
    for (i = 0; i < 2 * n; ++i) pos[i] = (float)(urand() * 1.5 - 0.25);
    for (i = 0; i < n; ++i) {
        long cx = (long)floorf(pos[2 * i] * 16.0f), cy = (long)floorf(pos[2 * i + 1] * 16.0f);
        cx = cx < 0 ? 0 : cx > 15 ? 15 : cx;
        cy = cy < 0 ? 0 : cy > 15 ? 15 : cy;
        keys[i] = (uint32_t)(cx + 16 * cy);
        img[i] = keys[i];
    }
    stable_order(img, n, order);
    dp = upload(cs, n * 8, pos); dk = upload(cs, n * 4, NULL); dperm = upload(cs, n * 4, NULL);
    doff = upload(cs, (cells + 1) * 4, NULL); dpo = upload(cs, n * 8, NULL);
    memset(&bd, 0, sizeof bd);
    bd.grid.dims = 2;
    bd.grid.cells[0] = bd.grid.cells[1] = 16;
    bd.grid.cell_size[0] = bd.grid.cell_size[1] = 0.0625f;
    bd.cell_keys = dk;
    bd.permutation = dperm;
    bd.cell_offsets = doff;
    attr.src = dp;
    attr.dst = dpo;
    attr.elem_size = 8;
    bd.attributes = &attr;
    bd.attribute_count = 1;
    if (call_ok(cs, clsort_bin(cs, dp, n, &bd, NULL), "clsort_bin 2D 16 x 16")) {
        size_t c, at = 0;
        download(cs, dk, n * 4, ko);
        download(cs, dperm, n * 4, perm);
        download(cs, doff, (cells + 1) * 4, off);
        download(cs, dpo, n * 8, po);
        for (bad = 0; bad < n && perm[bad] == order[bad] && ko[bad] == keys[order[bad]] &&
                      memcmp(po + 2 * bad, pos + 2 * (size_t)order[bad], 8) == 0;
             ++bad) {}
        check_index(bad, n, "clsort_bin (cell keys, stable permutation, reordered attribute) = reference");
        for (c = 0; c <= cells; ++c) { /* the first sorted index whose key is >= c */
            while (at < n && keys[order[at]] < c) ++at;
            if (off[c] != at) break;
        }
        check_index(c, cells + 1, "clsort_bin cell offsets = reference");
    }
    clReleaseMemObject(dp); clReleaseMemObject(dk); clReleaseMemObject(dperm); clReleaseMemObject(doff);
    clReleaseMemObject(dpo);
    free(pos); free(po); free(keys); free(ko); free(perm); free(order); free(off); free(img);
}

static void test_reduce_family(clsort_context *cs)
{
    size_t n = 12007, i, bad, runs = 0, count = 0;
    uint32_t *u = (uint32_t *)xmalloc(n * 4), sum = 0, got = 0;
    uint32_t *keys = (uint32_t *)xmalloc(n * 4), *rk = (uint32_t *)xmalloc(n * 4), *rv = (uint32_t *)xmalloc(n * 4);
    uint32_t *ko = (uint32_t *)xmalloc(n * 4), *vo = (uint32_t *)xmalloc(n * 4), *heads = (uint32_t *)xmalloc(n * 4);
    int32_t *s = (int32_t *)xmalloc(n * 4), *so = (int32_t *)xmalloc(n * 4);
    uint32_t hist[37], ref_hist[37];
    cl_mem du, dk, dko, dvo, dh, ds, dso, dc;
    clsort_reduce_desc rd;
    clsort_by_key_desc bk;
    clsort_histogram_desc hd;
    /* reduce: u32 sum (wraps) */
    for (i = 0; i < n; ++i) sum += u[i] = rnd32();
    du = upload(cs, n * 4, u);
    memset(&rd, 0, sizeof rd);
    if (call_ok(cs, clsort_reduce(cs, du, n, &rd, &got, NULL), "clsort_reduce u32 sum"))
        check(got == sum, "clsort_reduce u32 sum = reference", NULL);
    /* reduce by key: runs of 1 .. 40 equal keys, u32 values summed */
    for (i = 0; i < n;) {
        size_t len = 1 + rnd32() % 40, j;
        uint32_t k = rnd32() % 64; /* a key may repeat in the next run: then the two runs are one */
        for (j = 0; j < len && i < n; ++j, ++i) keys[i] = k;
    }
    for (i = 0; i < n; ++i) {
        if (i == 0 || keys[i] != keys[i - 1]) rk[runs] = keys[i], rv[runs++] = 0;
        rv[runs - 1] += u[i];
    }
    dk = upload(cs, n * 4, keys); dko = upload(cs, n * 4, NULL); dvo = upload(cs, n * 4, NULL);
    memset(&bk, 0, sizeof bk);
    if (call_ok(cs, clsort_reduce_by_key(cs, dk, du, dko, dvo, n, &bk, &count, NULL), "clsort_reduce_by_key u32 sum")) {
        download(cs, dko, n * 4, ko);
        download(cs, dvo, n * 4, vo);
        for (bad = 0; bad < runs && ko[bad] == rk[bad] && vo[bad] == rv[bad]; ++bad) {}
        if (count != runs) bad = 0;
        check_index(bad, runs, "clsort_reduce_by_key (keys, sums, run count) = reference");
    }
    { /* the same with its count on the device (DEVICE COUNTS): the runs of the first m keys, the run count
       * left in desc.count */
        const size_t m = 5003;
        uint32_t words[2], dev_runs = 0;
        size_t runs_m = 0, got_m = 0;
        cl_mem dcount, druns = upload(cs, 4, NULL);
        clsort_enqueue q;
        words[0] = 0xdeadbeefu;
        words[1] = (uint32_t)m;
        dcount = upload(cs, sizeof words, words);
        for (i = 0; i < m; ++i) {
            if (i == 0 || keys[i] != keys[i - 1]) rk[runs_m] = keys[i], rv[runs_m++] = 0;
            rv[runs_m - 1] += u[i];
        }
        memset(&q, 0, sizeof q);
        q.count = dcount;
        q.count_offset = 4;
        bk.count = druns;
        if (call_ok(cs, clsort_reduce_by_key(cs, dk, du, dko, dvo, n, &bk, &got_m, &q),
                    "clsort_reduce_by_key u32 sum, device count")) {
            download(cs, dko, n * 4, ko);
            download(cs, dvo, n * 4, vo);
            download(cs, druns, 4, &dev_runs);
            for (bad = 0; bad < runs_m && ko[bad] == rk[bad] && vo[bad] == rv[bad]; ++bad) {}
            if (got_m != runs_m || dev_runs != runs_m) bad = 0;
            check_index(bad, runs_m, "clsort_reduce_by_key with a device count (keys, sums, run counts) = reference");
        }
        bk.count = NULL;
        clReleaseMemObject(dcount);
        clReleaseMemObject(druns);
    }
    /* segmented scan: i32 inclusive max, segments by u32 head flags */
    for (i = 0; i < n; ++i) {
        s[i] = (int32_t)rnd32();
        heads[i] = rnd32() % 13 == 0 ? 1u + rnd32() % 7 : 0u;
    }
    dh = upload(cs, n * 4, heads); ds = upload(cs, n * 4, s); dso = upload(cs, n * 4, NULL);
    memset(&rd, 0, sizeof rd);
    rd.type = CLSORT_I32;
    rd.op = CLSORT_OP_MAX;
    rd.inclusive = 1;
    rd.segments = CLSORT_SEGMENTS_FLAGS_U32;
    rd.segment_data = dh;
    if (call_ok(cs, clsort_segmented_scan(cs, ds, dso, n, &rd, NULL), "clsort_segmented_scan i32 max")) {
        int32_t m = 0;
        download(cs, dso, n * 4, so);
        for (bad = 0; bad < n; ++bad) {
            m = (bad == 0 || heads[bad] || s[bad] > m) ? s[bad] : m;
            if (so[bad] != m) break;
        }
        check_index(bad, n, "clsort_segmented_scan i32 inclusive max by head flags = reference");
    }
    /* histogram: i32 samples in [-100, 300), 37 even bins over [-50, 250) */
    for (i = 0; i < 37; ++i) ref_hist[i] = 0;
    for (i = 0; i < n; ++i) {
        s[i] = (int32_t)(rnd32() % 400) - 100;
        if (s[i] >= -50 && s[i] < 250) ref_hist[(s[i] + 50) * 37 / 300]++;
    }
    clReleaseMemObject(ds);
    ds = upload(cs, n * 4, s);
    dc = upload(cs, sizeof hist, NULL);
    memset(&hd, 0, sizeof hd);
    hd.type = CLSORT_I32;
    hd.bins = 37;
    hd.lower_int = -50;
    hd.upper_int = 250;
    if (call_ok(cs, clsort_histogram_even(cs, ds, n, dc, &hd, NULL), "clsort_histogram_even i32 37 bins")) {
        download(cs, dc, sizeof hist, hist);
        for (bad = 0; bad < 37 && hist[bad] == ref_hist[bad]; ++bad) {}
        check_index(bad, 37, "clsort_histogram_even = reference");
    }
    clReleaseMemObject(du); clReleaseMemObject(dk); clReleaseMemObject(dko); clReleaseMemObject(dvo);
    clReleaseMemObject(dh); clReleaseMemObject(ds); clReleaseMemObject(dso); clReleaseMemObject(dc);
    free(u); free(keys); free(rk); free(rv); free(ko); free(vo); free(heads); free(s); free(so);
}

/* Accelerations against the double all-pairs sum within the documented bound
 * (n + 16) u S per component (u = 2^-24); returns the largest error / bound. */
static int accel_within_bound(const float *pos, const float *acc, size_t n, double eps2, double G, double *worst)
{
    double *x = (double *)xmalloc(n * 4 * sizeof(double)), u = ldexp(1.0, -24);
    size_t i;
    int ok = 1;
    for (i = 0; i < 4 * n; ++i) x[i] = pos[i];
    for (i = 0; i < n; ++i) {
        double a[3], S[3];
        int c;
        ref_accel(x, n, i, eps2, G, a, S);
        for (c = 0; c < 3; ++c) {
            double err = fabs((double)acc[4 * i + c] - a[c]), bound = ((double)n + 16.0) * u * S[c];
            if (!(err <= bound) && !(bound == 0.0 && acc[4 * i + c] == 0.0f)) ok = 0;
            if (bound > 0.0) *worst = fmax(*worst, err / bound);
        }
        if (acc[4 * i + 3] != 0.0f) ok = 0;
    }
    free(x);
    return ok;
}

static void test_nbody_accel(clsort_context *cs)
{
    size_t n = 1000, i;
    float *pos = (float *)xmalloc(n * 16), *acc = (float *)xmalloc(n * 16);
    double worst = 0;
    char buf[120];
    cl_mem dp, da;
    clsort_nbody_desc nd;
    for (i = 0; i < n; ++i) {
        int c;
        for (c = 0; c < 3; ++c) pos[4 * i + c] = (float)(urand() * 2.0 - 1.0);
        pos[4 * i + 3] = (float)(0.5 + urand());
        if (i % 97 == 5) memcpy(&pos[4 * i], &pos[4 * (i - 1)], 12); /* coincident pairs */
    }
    dp = upload(cs, n * 16, pos);
    da = upload(cs, n * 16, NULL);
    memset(&nd, 0, sizeof nd);
    nd.softening2 = 0.01;
    nd.G = 0.75;
    if (call_ok(cs, clsort_nbody_accel(cs, dp, da, n, &nd, NULL), "clsort_nbody_accel")) {
        int ok;
        download(cs, da, n * 16, acc);
        ok = accel_within_bound(pos, acc, n, 0.01, 0.75, &worst);
        snprintf(buf, sizeof buf, "largest error / bound %.3g", worst);
        check(ok, "clsort_nbody_accel within (n + 16) u S of the double reference", buf);
    }
    clReleaseMemObject(dp); clReleaseMemObject(da);
    free(pos); free(acc);
}

/* The radix tree over sorted 32-bit codes, top down (Karras; equal codes
 * told apart by their index): internal node idx covers [f, l] and splits
 * after the last i whose common prefix with f is longer than the range's. */
static int prefix_length(const uint32_t *c, size_t n, long i, long j)
{
    uint32_t x;
    int k = 0;
    if (j < 0 || (size_t)j >= n) return -1;
    x = c[i] != c[j] ? c[i] ^ c[j] : (uint32_t)i ^ (uint32_t)j;
    while (k < 32 && !(x & (0x80000000u >> k))) ++k;
    return c[i] != c[j] ? k : 32 + k;
}
static void radix_tree_reference(const uint32_t *c, size_t n, uint32_t *nodes, uint32_t *parents)
{
    long *st = (long *)xmalloc(6 * n * sizeof(long));
    size_t sp = 0;
    st[sp++] = 0; st[sp++] = (long)n - 1; st[sp++] = 0;
    parents[0] = 0xffffffffu;
    while (sp) {
        long idx = st[--sp], l = st[--sp], f = st[--sp], g = f, i;
        int common = prefix_length(c, n, f, l);
        uint32_t left, right;
        for (i = f + 1; i < l; ++i) if (prefix_length(c, n, f, i) > common) g = i;
        left = g == f ? (uint32_t)(n - 1 + (size_t)g) : (uint32_t)g;
        right = g + 1 == l ? (uint32_t)(n - 1 + (size_t)l) : (uint32_t)(g + 1);
        nodes[4 * idx] = left; nodes[4 * idx + 1] = right;
        nodes[4 * idx + 2] = (uint32_t)f; nodes[4 * idx + 3] = (uint32_t)l;
        parents[left] = parents[right] = (uint32_t)idx;
        if (g > f) { st[sp++] = f; st[sp++] = g; st[sp++] = g; }
        if (g + 1 < l) { st[sp++] = g + 1; st[sp++] = l; st[sp++] = g + 1; }
    }
    free(st);
}

/* 10 bits of a cell spread to every third bit */
static uint32_t spread3(uint32_t x)
{
    uint32_t r = 0;
    int b;
    for (b = 0; b < 10; ++b) r |= ((x >> b) & 1u) << (3 * b);
    return r;
}

/* d2 as the radius query evaluates it: float, one operation per statement (no contraction). */
static float radius_d2(float dx, float dy, float dz)
{
    float x2 = dx * dx, y2 = dy * dy, z2 = dz * dz, s;
    s = x2 + y2;
    return s + z2;
}

/* Returns whether the build ran (the queries below need the tree). */
static int test_tree_build(clsort_context *cs, clsort_tree *tree, const float *pos, size_t n, cl_mem dp)
{
    uint32_t *codes = (uint32_t *)xmalloc(n * 4), *sorted = (uint32_t *)xmalloc(n * 4), *perm = (uint32_t *)xmalloc(n * 4);
    uint32_t *order = (uint32_t *)xmalloc(n * 4), *nodes = (uint32_t *)xmalloc(n * 16);
    uint32_t *rnodes = (uint32_t *)xmalloc(n * 16), *parents = (uint32_t *)xmalloc(n * 8);
    uint32_t *rparents = (uint32_t *)xmalloc(n * 8);
    float *points = (float *)xmalloc(n * 16), com[4], bounds[16];
    uint64_t *img = (uint64_t *)xmalloc(n * 8);
    double mass = 0;
    size_t i, bad;
    int built;
    clsort_tree_desc td;
    clsort_tree_view v;
    char buf[160];
    memset(&td, 0, sizeof td); /* 3D float4 records, 32-bit codes */
    td.has_mass = 1;
    td.mass_offset = 12;
    td.box_given = 1; /* the unit cube: scale = 2^10 / 1, cells floor(p * 1024) exact in float */
    td.box_hi[0] = td.box_hi[1] = td.box_hi[2] = 1.0f;
    built = call_ok(cs, clsort_tree_build(cs, tree, dp, n, &td, NULL), "clsort_tree_build");
    if (!built) goto done;
    clsort_tree_get_view(tree, &v);
    check(v.n == n && v.code_size == 4, "clsort_tree_get_view: n and 32-bit codes", NULL);
    if (v.n != n || v.code_size != 4) goto done;
    download(cs, v.codes, n * 4, sorted);
    download(cs, v.permutation, n * 4, perm);
    download(cs, v.points, n * 16, points);
    download(cs, v.nodes, (n - 1) * 16, nodes);
    download(cs, v.parents, (2 * n - 1) * 4, parents);
    download(cs, v.com, 16, com);
    download(cs, v.bounds, 64, bounds);
    check(bounds[11] == 1024.0f, "tree code scale 2^10 for the unit box", NULL);
    for (i = 0; i < n; ++i) {
        uint32_t k = 0;
        int a;
        for (a = 0; a < 3; ++a) {
            float t = pos[4 * i + a] * 1024.0f;
            k |= spread3(t < 1024.0f ? (uint32_t)t : 1023u) << a;
        }
        codes[i] = k;
        img[i] = k;
        mass += pos[4 * i + 3];
    }
    stable_order(img, n, order);
    for (bad = 0; bad < n && sorted[bad] == codes[order[bad]] && perm[bad] == order[bad] &&
                  memcmp(points + 4 * bad, pos + 4 * (size_t)order[bad], 16) == 0;
         ++bad) {}
    check_index(bad, n, "clsort_tree_build (Morton codes, permutation, sorted points) = reference");
    for (i = 0; i < n; ++i) order[i] = codes[order[i]]; /* the reference's sorted codes */
    radix_tree_reference(order, n, rnodes, rparents);
    for (bad = 0; bad + 1 < n && memcmp(nodes + 4 * bad, rnodes + 4 * bad, 16) == 0; ++bad) {}
    check_index(bad, n - 1, "clsort_tree_build nodes (children, ranges) = reference");
    for (bad = 0; bad < 2 * n - 1 && parents[bad] == rparents[bad]; ++bad) {}
    check_index(bad, 2 * n - 1, "clsort_tree_build parents = reference");
    /* the root's mass: n float additions in some order, within n u of the sum */
    snprintf(buf, sizeof buf, "%.9g against %.9g", (double)com[3], mass);
    check(fabs(com[3] - mass) <= (double)n * ldexp(1.0, -24) * mass, "tree root mass = sum of masses", buf);
done:
    free(codes); free(sorted); free(perm); free(order); free(nodes); free(rnodes); free(parents); free(rparents);
    free(points); free(img);
    return built;
}

/* Barnes-Hut on the built tree: theta 1e-6 opens every node (the all-pairs
 * sum in another order: the documented bound); theta 0.5 against the RMS
 * relative error the manual reports (TREE: 8.0e-3 for 4096 Plummer bodies;
 * a uniform cube clusters less), with room: 2e-2. */
static void test_barnes_hut(clsort_context *cs, clsort_tree *tree, const float *pos, size_t n)
{
    float *acc = (float *)xmalloc(n * 16);
    double *x = (double *)xmalloc(n * 4 * sizeof(double)), worst = 0, se = 0, sr = 0;
    cl_mem da = upload(cs, n * 16, NULL);
    clsort_nbody_desc nd;
    size_t i;
    char buf[120];
    memset(&nd, 0, sizeof nd);
    nd.softening2 = 1e-4;
    nd.theta = 1e-6;
    if (call_ok(cs, clsort_tree_accel(cs, tree, da, &nd, NULL), "clsort_tree_accel theta 1e-6")) {
        int ok;
        download(cs, da, n * 16, acc);
        ok = accel_within_bound(pos, acc, n, 1e-4, 1.0, &worst);
        snprintf(buf, sizeof buf, "largest error / bound %.3g", worst);
        check(ok, "clsort_tree_accel theta 1e-6 within (n + 16) u S of the double reference", buf);
    }
    nd.theta = 0.5;
    if (call_ok(cs, clsort_tree_accel(cs, tree, da, &nd, NULL), "clsort_tree_accel theta 0.5")) {
        double rms;
        download(cs, da, n * 16, acc);
        for (i = 0; i < 4 * n; ++i) x[i] = pos[i];
        for (i = 0; i < n; ++i) {
            double a[3], S[3];
            int c;
            ref_accel(x, n, i, 1e-4, 1.0, a, S);
            for (c = 0; c < 3; ++c) {
                se += (acc[4 * i + c] - a[c]) * (acc[4 * i + c] - a[c]);
                sr += a[c] * a[c];
            }
        }
        rms = sqrt(se / sr);
        snprintf(buf, sizeof buf, "RMS relative force error %.3g (bound 2e-2)", rms);
        check(rms <= 2e-2, "clsort_tree_accel theta 0.5 against the double all-pairs sum", buf);
        printf("    Barnes-Hut theta 0.5: %s\n", buf);
    }
    clReleaseMemObject(da);
    free(acc); free(x);
}

static void test_radius(clsort_context *cs, clsort_tree *tree, const float *pos, size_t n)
{
    size_t nq = 400, i, j, total = 0, want = 0, bad;
    float *q = (float *)xmalloc(nq * 16), r = 0.1f, r2 = r * r;
    uint32_t *cnt = (uint32_t *)xmalloc(nq * 4), *off = (uint32_t *)xmalloc((nq + 1) * 4), *idx, *ref;
    cl_mem dq, dc, doff, di;
    clsort_tree_radius_desc rd;
    for (i = 0; i < 4 * nq; ++i) q[i] = (float)(urand() * 1.2 - 0.1);
    for (i = 0; i < nq; ++i)
        for (j = 0; j < n; ++j)
            if (radius_d2(pos[4 * j] - q[4 * i], pos[4 * j + 1] - q[4 * i + 1], pos[4 * j + 2] - q[4 * i + 2]) <= r2) ++want;
    idx = (uint32_t *)xmalloc(want * 4 + 4);
    ref = (uint32_t *)xmalloc(want * 4 + 4);
    dq = upload(cs, nq * 16, q); dc = upload(cs, nq * 4, NULL); doff = upload(cs, (nq + 1) * 4, NULL);
    di = upload(cs, want * 4 + 4, NULL);
    memset(&rd, 0, sizeof rd);
    rd.radius = r;
    rd.counts = dc;
    rd.offsets = doff;
    rd.indices = di;
    rd.capacity = want + 1;
    if (call_ok(cs, clsort_tree_radius(cs, tree, dq, nq, &rd, &total, NULL), "clsort_tree_radius")) {
        size_t at = 0;
        download(cs, dc, nq * 4, cnt);
        download(cs, doff, (nq + 1) * 4, off);
        if (want) download(cs, di, want * 4, idx);
        for (bad = 0; bad < nq && total == want; ++bad) { /* each list as a set */
            size_t c = 0;
            for (j = 0; j < n; ++j)
                if (radius_d2(pos[4 * j] - q[4 * bad], pos[4 * j + 1] - q[4 * bad + 1], pos[4 * j + 2] - q[4 * bad + 2]) <= r2)
                    ref[at + c++] = (uint32_t)j;
            if (cnt[bad] != c || off[bad] != at) break;
            qsort(idx + at, c, 4, cmp_u32);
            if (c && memcmp(idx + at, ref + at, c * 4) != 0) break;
            at += c;
        }
        if (bad == nq && off[nq] != want) bad = nq - 1;
        check_index(total == want ? bad : 0, nq, "clsort_tree_radius (counts, offsets, lists, total) = brute force");
    }
    clReleaseMemObject(dq); clReleaseMemObject(dc); clReleaseMemObject(doff); clReleaseMemObject(di);
    free(q); free(cnt); free(off); free(idx); free(ref);
}

/* The tree rebuilt from the first m points with the count on the device
 * (enq->count, n the capacity): view.count holds m, and radius queries
 * count the points among those m (brute force). */
static void test_tree_device_count(clsort_context *cs, clsort_tree *tree, const float *pos, size_t n, cl_mem dp)
{
    const size_t nq = 64, m = n * 2 / 3;
    uint32_t m32 = (uint32_t)m, got = 0, cnt[64];
    float q[64 * 4], r = 0.15f;
    cl_mem dm = upload(cs, 4, &m32), dq, dc;
    clsort_tree_desc td;
    clsort_tree_view v;
    clsort_tree_radius_desc rd;
    clsort_enqueue e;
    size_t i, j, bad = nq;
    for (i = 0; i < 4 * nq; ++i) q[i] = (float)urand();
    dq = upload(cs, sizeof q, q);
    dc = upload(cs, sizeof cnt, NULL);
    memset(&td, 0, sizeof td);
    td.has_mass = 1;
    td.mass_offset = 12;
    memset(&e, 0, sizeof e);
    e.count = dm;
    memset(&rd, 0, sizeof rd);
    rd.radius = r;
    rd.counts = dc;
    if (call_ok(cs, clsort_tree_build(cs, tree, dp, n, &td, &e), "clsort_tree_build with a device count") &&
        call_ok(cs, clsort_tree_radius(cs, tree, dq, nq, &rd, NULL, NULL), "clsort_tree_radius (device count tree)")) {
        clsort_tree_get_view(tree, &v);
        download(cs, v.count, 4, &got);
        check(v.n == n && got == m32, "device count tree: view.n the capacity, view.count the count", NULL);
        download(cs, dc, sizeof cnt, cnt);
        for (bad = 0; bad < nq; ++bad) {
            uint32_t c = 0;
            for (j = 0; j < m; ++j)
                c += radius_d2(pos[4 * j] - q[4 * bad], pos[4 * j + 1] - q[4 * bad + 1], pos[4 * j + 2] - q[4 * bad + 2]) <=
                     r * r;
            if (cnt[bad] != c) break;
        }
    }
    check_index(bad, nq, "device count tree: radius counts over the first count points = brute force");
    clReleaseMemObject(dm); clReleaseMemObject(dq); clReleaseMemObject(dc);
}

static void test_tree(clsort_context *cs)
{
    size_t n = 3001, i;
    float *pos = (float *)xmalloc(n * 16);
    clsort_tree *tree = NULL;
    cl_mem dp;
    for (i = 0; i < n; ++i) {
        int c;
        for (c = 0; c < 3; ++c) pos[4 * i + c] = (float)urand();
        pos[4 * i + 3] = (float)(0.5 + urand()) / (float)n;
        if (i % 101 == 3) memcpy(&pos[4 * i], &pos[4 * (i - 1)], 12); /* equal codes */
    }
    dp = upload(cs, n * 16, pos);
    if (call_ok(cs, clsort_tree_create(cs, &tree), "clsort_tree_create")) {
        if (test_tree_build(cs, tree, pos, n, dp)) {
            test_barnes_hut(cs, tree, pos, n);
            test_radius(cs, tree, pos, n);
            test_tree_device_count(cs, tree, pos, n, dp);
        } else {
            check(0, "Barnes-Hut and radius queries (not run: no tree)", NULL);
        }
    }
    clsort_tree_destroy(tree);
    clReleaseMemObject(dp);
    free(pos);
}

/* select_if of i32 keys in a range, with values: the kept keys and values
 * in input order, the count on the device. */
static void test_select(clsort_context *cs)
{
    size_t n = 8191, i, k = 0, bad;
    int32_t *keys = (int32_t *)xmalloc(n * 4), *ko = (int32_t *)xmalloc(n * 4), *rk = (int32_t *)xmalloc(n * 4);
    uint32_t *vals = (uint32_t *)xmalloc(n * 4), *vo = (uint32_t *)xmalloc(n * 4), *ri = (uint32_t *)xmalloc(n * 4);
    uint32_t count = 0;
    static const int32_t lo = -1000000, hi = 50000000;
    cl_mem dk, dv, dko, dvo, dc;
    clsort_select_desc sd;
    for (i = 0; i < n; ++i) {
        keys[i] = (int32_t)(rnd32() % 200000000u) - 100000000;
        vals[i] = (uint32_t)i;
        if (keys[i] >= lo && keys[i] < hi) rk[k] = keys[i], ri[k++] = (uint32_t)i;
    }
    dk = upload(cs, n * 4, keys); dv = upload(cs, n * 4, vals);
    dko = upload(cs, n * 4, NULL); dvo = upload(cs, n * 4, NULL); dc = upload(cs, 4, NULL);
    memset(&sd, 0, sizeof sd);
    sd.type = CLSORT_I32;
    sd.compare = CLSORT_COMPARE_IN_RANGE;
    sd.a = &lo;
    sd.b = &hi;
    sd.values_in = dv;
    sd.values_out = dvo;
    sd.count = dc;
    if (call_ok(cs, clsort_select_if(cs, dk, dko, n, &sd, NULL, NULL), "clsort_select_if i32 in a range, values")) {
        download(cs, dc, 4, &count);
        download(cs, dko, k * 4, ko);
        download(cs, dvo, k * 4, vo);
        for (bad = 0; bad < k && ko[bad] == rk[bad] && vo[bad] == ri[bad]; ++bad) {}
        check_index(count == k ? bad : 0, k, "clsort_select_if (count, keys, values in input order) = reference");
    }
    clReleaseMemObject(dk); clReleaseMemObject(dv); clReleaseMemObject(dko); clReleaseMemObject(dvo);
    clReleaseMemObject(dc);
    free(keys); free(ko); free(rk); free(vals); free(vo); free(ri);
}

/* lower_bound (arbitrary needles) and upper_bound (sorted needles: merge
 * path) of u32 needles in 20011 sorted keys with repeats: the counts of keys
 * below (at most) each needle. */
static void test_search(clsort_context *cs)
{
    size_t n = 20011, m = 5003, i, bad;
    uint32_t *hay = (uint32_t *)xmalloc(n * 4), *nd = (uint32_t *)xmalloc(m * 4), *out = (uint32_t *)xmalloc(m * 4);
    cl_mem dh, dn, di;
    clsort_search_desc sd;
    int upper;
    for (i = 0; i < n; ++i) hay[i] = (uint32_t)(i / 3) * 7; /* keys 0, 0, 0, 7, 7, 7, ... */
    for (i = 0; i < m; ++i) nd[i] = (uint32_t)(i * 9); /* sorted */
    dh = upload(cs, n * 4, hay); dn = upload(cs, m * 4, nd); di = upload(cs, m * 4, NULL);
    for (upper = 0; upper < 2; ++upper) {
        memset(&sd, 0, sizeof sd);
        sd.sorted_needles = upper;
        if (call_ok(cs, upper ? clsort_upper_bound(cs, dh, n, dn, m, di, &sd, NULL)
                              : clsort_lower_bound(cs, dh, n, dn, m, di, &sd, NULL),
                    upper ? "clsort_upper_bound u32, sorted needles" : "clsort_lower_bound u32")) {
            download(cs, di, m * 4, out);
            for (bad = 0; bad < m; ++bad) { /* keys < x (<= x): 3 per multiple of 7 below (at most) x */
                size_t below = upper ? (size_t)(nd[bad] / 7 + 1) * 3 : (size_t)((nd[bad] + 6) / 7) * 3;
                if (out[bad] != (below < n ? below : n)) break;
            }
            check_index(bad, m, upper ? "clsort_upper_bound = reference" : "clsort_lower_bound = reference");
        }
    }
    clReleaseMemObject(dh); clReleaseMemObject(dn); clReleaseMemObject(di);
    free(hay); free(nd); free(out);
}

/* merge of two sorted u32 halves with values: a's keys first on ties. */
static void test_merge(clsort_context *cs)
{
    size_t n = 5000, m = 3001, i, j, q, bad;
    uint32_t *a = (uint32_t *)xmalloc(n * 4), *b = (uint32_t *)xmalloc(m * 4), *out = (uint32_t *)xmalloc((n + m) * 4);
    uint32_t *va = (uint32_t *)xmalloc(n * 4), *vb = (uint32_t *)xmalloc(m * 4), *vo = (uint32_t *)xmalloc((n + m) * 4);
    uint32_t *rk = (uint32_t *)xmalloc((n + m) * 4), *rv = (uint32_t *)xmalloc((n + m) * 4);
    cl_mem da, db, dout, dva, dvb, dvo;
    clsort_merge_desc md;
    for (i = 0; i < n; ++i) a[i] = (uint32_t)(i / 3), va[i] = (uint32_t)i;
    for (i = 0; i < m; ++i) b[i] = (uint32_t)(i / 2 + 7), vb[i] = (uint32_t)(100000 + i);
    for (i = 0, j = 0, q = 0; q < n + m; ++q) {
        if (i < n && (j >= m || a[i] <= b[j])) rk[q] = a[i], rv[q] = va[i], ++i;
        else rk[q] = b[j], rv[q] = vb[j], ++j;
    }
    da = upload(cs, n * 4, a); db = upload(cs, m * 4, b); dout = upload(cs, (n + m) * 4, NULL);
    dva = upload(cs, n * 4, va); dvb = upload(cs, m * 4, vb); dvo = upload(cs, (n + m) * 4, NULL);
    memset(&md, 0, sizeof md);
    md.values_a = dva;
    md.values_b = dvb;
    md.values_out = dvo;
    if (call_ok(cs, clsort_merge(cs, da, n, db, m, dout, &md, NULL), "clsort_merge u32 with values")) {
        download(cs, dout, (n + m) * 4, out);
        download(cs, dvo, (n + m) * 4, vo);
        for (bad = 0; bad < n + m && out[bad] == rk[bad] && vo[bad] == rv[bad]; ++bad) {}
        check_index(bad, n + m, "clsort_merge (keys, values: a's first on ties) = reference");
    }
    clReleaseMemObject(da); clReleaseMemObject(db); clReleaseMemObject(dout);
    clReleaseMemObject(dva); clReleaseMemObject(dvb); clReleaseMemObject(dvo);
    free(a); free(b); free(out); free(va); free(vb); free(vo); free(rk); free(rv);
}

/* top_k: the 100 largest of distinct u32 keys (a permutation), sorted. */
static void test_top_k(clsort_context *cs)
{
    size_t n = 20011, k = 100, i, bad;
    uint32_t *keys = (uint32_t *)xmalloc(n * 4), out[100];
    cl_mem dk, dko;
    clsort_top_k_desc td;
    for (i = 0; i < n; ++i) keys[i] = (uint32_t)((i * 7919u) % n);
    dk = upload(cs, n * 4, keys); dko = upload(cs, k * 4, NULL);
    memset(&td, 0, sizeof td);
    td.k = k;
    td.descending = 1;
    td.sorted = 1;
    if (call_ok(cs, clsort_top_k(cs, dk, dko, n, &td, NULL), "clsort_top_k u32 100 largest, sorted")) {
        download(cs, dko, k * 4, out);
        for (bad = 0; bad < k && out[bad] == (uint32_t)(n - 1 - bad); ++bad) {}
        check_index(bad, k, "clsort_top_k (the 100 largest, largest first) = reference");
    }
    clReleaseMemObject(dk); clReleaseMemObject(dko);
    free(keys);
}

/* The calls of each family, in the family order; every family of the
 * registry (CLSORT_FAMILIES) has one (checked). */
static const struct family_test {
    clsort_family family;
    void (*run)(clsort_context *cs);
} family_tests[] = {{CLSORT_FAMILY_SCAN, test_scan},       {CLSORT_FAMILY_SPLIT, test_split_pack},
                    {CLSORT_FAMILY_GATHER, test_gather},   {CLSORT_FAMILY_SORT, test_sort},
                    {CLSORT_FAMILY_BITONIC, test_bitonic}, {CLSORT_FAMILY_BINNING, test_binning},
                    {CLSORT_FAMILY_REDUCE, test_reduce_family}, {CLSORT_FAMILY_NBODY, test_nbody_accel},
                    {CLSORT_FAMILY_TREE, test_tree},       {CLSORT_FAMILY_SELECT, test_select},
                    {CLSORT_FAMILY_SEARCH, test_search},
                    {CLSORT_FAMILY_MERGE, test_merge},     {CLSORT_FAMILY_TOP_K, test_top_k}};


static void test_families(cl_context cc, cl_device_id dev, unsigned index)
{
    clsort_context *cs = NULL;
    clsort_context_desc cd;
    cl_int e;
    cl_command_queue q = clCreateCommandQueue(cc, dev, 0, &e); /* in-order, ours: the library must not release it */
    clsort_result r;
    char what[120];
    size_t k;
    int f;
    check(e == CL_SUCCESS, "clCreateCommandQueue on the family device", NULL);
    if (e != CL_SUCCESS) return;
    memset(&cd, 0, sizeof cd);
    cd.context = cc;
    cd.device = dev;
    cd.queue = q;
    snprintf(what, sizeof what, "clsort_create on device %u of the shared context, with our queue", index);
    r = clsort_create(&cs, &cd);
    if (call_ok(cs, r, what)) {
        printf("every family on device %u (%s), path %s\n", index, clsort_device_name(cs),
               clsort_context_path(cs) == CLSORT_PATH_LOOKBACK ? "look-back" : "portable");
        fflush(stdout);
        for (k = 0; k < sizeof family_tests / sizeof family_tests[0]; ++k) family_tests[k].run(cs);
    }
    for (f = 0; f < CLSORT_FAMILY_COUNT; ++f) {
        int found = 0;
        for (k = 0; k < sizeof family_tests / sizeof family_tests[0]; ++k) found |= family_tests[k].family == (clsort_family)f;
        snprintf(what, sizeof what, "the family %s has a call here", clsort_family_name((clsort_family)f));
        check(found, what, NULL);
    }
    clsort_destroy(cs);
    check(clReleaseCommandQueue(q) == CL_SUCCESS, "our queue outlives the clsort context", NULL);
}

/* ---- the context ---- */

static int contains_nocase(const char *hay, const char *needle)
{
    size_t i, j, nh = strlen(hay), nn = strlen(needle);
    for (i = 0; i + nn <= nh; ++i) {
        for (j = 0; j < nn && tolower((unsigned char)hay[i + j]) == tolower((unsigned char)needle[j]); ++j) {}
        if (j == nn) return 1;
    }
    return 0;
}

/* The platform named (name or vendor contains `name`), else the platform of
 * the device clsort_create picks by default. NULL with a message when none. */
static cl_platform_id pick_platform(const char *name)
{
    cl_platform_id plats[16], chosen = NULL;
    cl_uint np = 0, p;
    if (name) {
        if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) np = 0;
        for (p = 0; p < np && !chosen; ++p) {
            char pn[256] = "", pv[256] = "";
            clGetPlatformInfo(plats[p], CL_PLATFORM_NAME, sizeof pn, pn, NULL);
            clGetPlatformInfo(plats[p], CL_PLATFORM_VENDOR, sizeof pv, pv, NULL);
            if (contains_nocase(pn, name) || contains_nocase(pv, name)) chosen = plats[p];
        }
        if (!chosen) printf("test_multidev: no OpenCL platform named \"%s\" (%u platforms)\n", name, np);
    } else {
        clsort_context *cs = NULL;
        if (clsort_create(&cs, NULL) == CLSORT_SUCCESS &&
            clGetDeviceInfo(clsort_cl_device(cs), CL_DEVICE_PLATFORM, sizeof chosen, &chosen, NULL) == CL_SUCCESS)
            printf("platform of the default device (%s)\n", clsort_device_name(cs));
        else
            printf("test_multidev: no default device: %s\n", clsort_last_error(cs));
        clsort_destroy(cs);
    }
    return chosen;
}

static int usage(void)
{
    printf("usage: test_multidev [--platform NAME] [--allow-one-device] [--bodies N] [--family-device K]\n");
    printf("0 passed, 1 failed\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *platform_name = NULL;
    int allow_one = 0, a;
    size_t bodies = 4096;
    unsigned family_device = 1, nd = 0, k;
    unsigned long probe_refusals;
    cl_platform_id plat;
    cl_device_id devs[MAX_DEVICES];
    cl_context cc;
    cl_int e;
    char pname[256] = "";
    for (a = 1; a < argc; ++a) {
        if (strcmp(argv[a], "--platform") == 0 && a + 1 < argc)
            platform_name = argv[++a];
        else if (strcmp(argv[a], "--allow-one-device") == 0)
            allow_one = 1;
        else if (strcmp(argv[a], "--bodies") == 0 && a + 1 < argc && atol(argv[a + 1]) > 0)
            bodies = (size_t)atol(argv[++a]);
        else if (strcmp(argv[a], "--family-device") == 0 && a + 1 < argc && atoi(argv[a + 1]) >= 0)
            family_device = (unsigned)atoi(argv[++a]);
        else
            return usage();
    }
    plat = pick_platform(platform_name);
    if (plat) {
        cl_uint n = 0;
        clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
        if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, MAX_DEVICES, devs, &n) != CL_SUCCESS) n = 0;
        nd = n < MAX_DEVICES ? n : MAX_DEVICES;
    }
    printf("platform %s: %u device(s)\n", plat ? pname : "(none)", nd);
    if (nd == 0 || (nd < 2 && !allow_one)) {
        if (plat)
            printf("FAIL test_multidev needs an OpenCL platform with at least 2 devices in one context; %s has %u.\n"
                   "  PoCL: POCL_DEVICES=\"pthread pthread pthread\"; a machine with one GPU: --allow-one-device\n",
                   pname, nd);
        else
            printf("FAIL test_multidev found no OpenCL platform to run on\n");
        printf("%d passed, %d failed\n", passed, failed + 1);
        return 1;
    }
    if (family_device >= nd) family_device = nd - 1;
    if (nd == 1) printf("one device (--allow-one-device): the parts share it, and the non-first-device cases cannot run\n");
    for (k = 0; k < nd; ++k) {
        char dn[256] = "";
        clGetDeviceInfo(devs[k], CL_DEVICE_NAME, sizeof dn, dn, NULL);
        printf("  device %u: %s\n", k, dn);
    }
    cc = clCreateContext(NULL, nd, devs, NULL, NULL, &e);
    if (e != CL_SUCCESS) {
        printf("FAIL clCreateContext over %u devices: %d\n%d passed, %d failed\n", nd, (int)e, passed, failed + 1);
        return 1;
    }
    if (nd > 1) test_emulation(cc, devs[0], devs[family_device > 0 ? family_device : 1]);
    probe_refusals = listings_refused;
    test_nbody_multi(cc, devs, nd, bodies);
    test_families(cc, devs[family_device], family_device);
    if (nd > 1) {
        char buf[120];
        snprintf(buf, sizeof buf, "%lu kernel listings answered as NVIDIA does (-45), the kernels created by name",
                 listings_refused - probe_refusals);
        /* the library met the refusal (and went on): else the test would no
         * longer exercise what it is for */
        check(listings_refused > probe_refusals, "the library asked programs of non-first devices for their kernels", buf);
        printf("%s\n", buf);
    }
    clReleaseContext(cc);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
