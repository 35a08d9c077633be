/* Tree build and Barnes-Hut against the all-pairs step, through the public API.
 *   build/tree_bench [log2 N ...]   (default 18; CLSORT_DEVICE picks the device)
 * Plummer sphere (float4 bodies, fixed seed). Per N, each a median of
 * BENCH_RUNS (default 7) runs after a warm-up, host clock around clFinish:
 * the whole clsort_tree_build call; its sort phase alone (clsort_sort of the
 * same codes with the permutation); the build with the box given (so the
 * device's box reduction is build - build_box_given); the rest of the build
 * (codes, points, radix tree, summaries: build - sort - box); the Barnes-Hut
 * force pass at theta 0.5 and 0.3 (clsort_tree_accel); one whole Barnes-Hut
 * step's evaluation (clsort_nbody_accel: build + walk); the interactions per
 * body (body-body + body-node, counted on the host from the tree for 4096
 * sampled bodies); the RMS and largest relative errors against the all-pairs
 * float step on those bodies; and the all-pairs step (clsort_nbody_accel
 * TILED) where BENCH_ALLPAIRS_MAX (default 2^20) allows. One JSON line per N.
 *   build/tree_bench x [lo hi]   the crossover: Barnes-Hut step vs all-pairs
 *                                for N = 2^lo .. 2^hi (default 10 .. 20)
 *   build/tree_bench c [log2 N ...]  clustered sets (default 20): one
 *       Barnes-Hut step's evaluation (clsort_nbody_accel, theta 0.5,
 *       softening 0.01) per set, median of BENCH_RUNS after a warm-up, with
 *       the step as a multiple of the uniform set's (step_x_uniform, the
 *       same run), the interactions per body and the RMS / largest
 *       relative error against a double all-pairs sum on 256 sampled bodies. Sets: uniform
 *       (the cube [-1, 1]^3), plummer (scale 1), half_1e-6 (half the bodies
 *       uniform, half in a cube of side 1e-6), plummer_core (a Plummer
 *       sphere of scale 1 whose other half is a Plummer sphere of scale 1e-4
 *       at its centre), coincident (N/16 bodies at one point among uniform
 *       ones: 2^16 among 2^20). One JSON line per set and N. */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}
static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int k)
{
    qsort(v, (size_t)k, sizeof *v, cmpd);
    return v[k / 2];
}
static unsigned long long rs = 88172645463325252ull;
static double urand(void)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return (double)(rs >> 11) / 9007199254740992.0;
}
/* A Plummer sphere of scale a (truncated at 20 a), masses 1 / mass_n. */
static void plummer_scaled(float *pos, size_t n, double a, size_t mass_n)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        double r, z, ph, s;
        do r = 1.0 / sqrt(pow(urand() * 0.999 + 1e-9, -2.0 / 3.0) - 1.0); while (r > 20.0);
        r *= a;
        z = 2.0 * urand() - 1.0; ph = 6.283185307179586 * urand(); s = sqrt(1.0 - z * z);
        pos[4 * i] = (float)(r * s * cos(ph)); pos[4 * i + 1] = (float)(r * s * sin(ph));
        pos[4 * i + 2] = (float)(r * z); pos[4 * i + 3] = (float)(1.0 / (double)mass_n);
    }
}
static void plummer(float *pos, size_t n) { plummer_scaled(pos, n, 1.0, n); }

/* The clustered sets of `tree_bench c` (see the top): mass 1 / n each. */
static const char *const cluster_sets[] = {"uniform", "plummer", "half_1e-6", "plummer_core", "coincident"};
static void cluster_set(float *pos, size_t n, int set)
{
    size_t i, m = set == 4 ? n / 16 : n / 2;
    int a;
    if (set == 1 || set == 3) {
        plummer_scaled(pos, n, 1.0, n);
        if (set == 3) plummer_scaled(pos, m, 1e-4, n); /* the core: the first half */
        return;
    }
    for (i = 0; i < n; ++i) {
        for (a = 0; a < 3; ++a) pos[4 * i + a] = (float)(2.0 * urand() - 1.0);
        pos[4 * i + 3] = (float)(1.0 / (double)n);
    }
    for (i = 0; set >= 2 && i < m; ++i) /* every 2nd (half_1e-6) or 16th body (coincident) */
        for (a = 0; a < 3; ++a) {
            size_t j = set == 2 ? 2 * i : 16 * i;
            double c = a == 0 ? 0.25 : a == 1 ? -0.25 : 0.125;
            pos[4 * j + a] = (float)(set == 2 ? c + 1e-6 * (urand() - 0.5) : c);
        }
}
#define CK(x) do { clsort_result r_ = (x); if (r_ != CLSORT_SUCCESS) { fprintf(stderr, "%s: %s\n", #x, clsort_last_error(cs)); exit(1); } } while (0)
#define CKCL(x) do { cl_int e_ = (x); if (e_ != CL_SUCCESS) { fprintf(stderr, "%s: OpenCL error %d\n", #x, (int)e_); exit(1); } } while (0)

/* The build's sort phase on its own, through the public API: the codes the
 * build sorted (its sorted codes put back in record order by its permutation,
 * on the host) sorted again by clsort_sort with the permutation, as the build
 * does. The inputs are made once; sort_phase_ms times one call. */
typedef struct sort_phase {
    cl_mem codes_in, codes_out, perm;
    clsort_sort_desc d;
    size_t n;
} sort_phase;

static void sort_phase_init(clsort_context *cs, const clsort_tree *tree, sort_phase *sp)
{
    clsort_tree_view v;
    cl_command_queue q = clsort_cl_queue(cs);
    unsigned char *sorted, *unsorted;
    unsigned *perm;
    size_t i, cs_bytes;
    cl_int e;
    CK(clsort_tree_get_view(tree, &v));
    cs_bytes = v.code_size;
    sorted = (unsigned char *)malloc(v.n * cs_bytes);
    unsorted = (unsigned char *)malloc(v.n * cs_bytes);
    perm = (unsigned *)malloc(v.n * 4);
    if (!sorted || !unsorted || !perm) { fprintf(stderr, "out of host memory\n"); exit(1); }
    CKCL(clEnqueueReadBuffer(q, v.codes, CL_TRUE, 0, v.n * cs_bytes, sorted, 0, NULL, NULL));
    CKCL(clEnqueueReadBuffer(q, v.permutation, CL_TRUE, 0, v.n * 4, perm, 0, NULL, NULL));
    for (i = 0; i < v.n; ++i) memcpy(unsorted + (size_t)perm[i] * cs_bytes, sorted + i * cs_bytes, cs_bytes);
    sp->n = v.n;
    sp->codes_in = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, v.n * cs_bytes, unsorted, &e);
    CKCL(e);
    sp->codes_out = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, v.n * cs_bytes, NULL, &e);
    CKCL(e);
    sp->perm = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, v.n * 4, NULL, &e);
    CKCL(e);
    memset(&sp->d, 0, sizeof sp->d);
    sp->d.type = cs_bytes == 8 ? CLSORT_U64 : CLSORT_U32;
    sp->d.end_bit = v.code_bits;
    sp->d.permutation = sp->perm;
    free(sorted), free(unsorted), free(perm);
}

static double sort_phase_ms(clsort_context *cs, const sort_phase *sp)
{
    double t0;
    CKCL(clFinish(clsort_cl_queue(cs)));
    t0 = now();
    CK(clsort_sort(cs, sp->codes_in, sp->codes_out, sp->n, &sp->d, NULL));
    CKCL(clFinish(clsort_cl_queue(cs)));
    return now() - t0;
}

static void sort_phase_release(sort_phase *sp)
{
    clReleaseMemObject(sp->codes_in), clReleaseMemObject(sp->codes_out), clReleaseMemObject(sp->perm);
}

/* The box of the bodies (the build's box when it computes it): lets a build
 * with the box given be timed against one that finds it on the device. */
static void host_box(const float *pos, size_t n, float lo[3], float hi[3])
{
    size_t i;
    int a;
    for (a = 0; a < 3; ++a) lo[a] = hi[a] = pos[a];
    for (i = 1; i < n; ++i)
        for (a = 0; a < 3; ++a) {
            if (pos[4 * i + a] < lo[a]) lo[a] = pos[4 * i + a];
            if (pos[4 * i + a] > hi[a]) hi[a] = pos[4 * i + a];
        }
}

/* One clsort_tree_build, host clock around clFinish. */
static double build_ms(clsort_context *cs, clsort_tree *tree, cl_mem pos, size_t n, const clsort_tree_desc *td)
{
    double t0;
    CKCL(clFinish(clsort_cl_queue(cs)));
    t0 = now();
    CK(clsort_tree_build(cs, tree, pos, n, td, NULL));
    CKCL(clFinish(clsort_cl_queue(cs)));
    return now() - t0;
}

/* Interactions per body of the walk at open2 (the kernel's criterion, with
 * softening eps2: a node of bmax <= theta eps / 32 accepted at any distance) for
 * `ns` bodies spread over the set, on the host from the built tree:
 * body-body (leaves) and body-node (accepted internal nodes). */
static void interactions_soft(clsort_context *cs, const clsort_tree *tree, size_t n, double theta, double eps2,
                              size_t ns, double *leaves, double *nodes_acc)
{
    float bsoft = (float)(theta * sqrt(eps2) / 32.0);
    clsort_tree_view v;
    cl_command_queue q = clsort_cl_queue(cs);
    float *pts = (float *)malloc(n * 16), *hi = (float *)malloc(n * 16), *com = (float *)malloc(n * 16);
    unsigned *nodes = (unsigned *)malloc(n * 16), stack[128];
    double o = 1.0 / (theta * theta), lv = 0, nd = 0;
    float open2 = (float)(o > 1.0 ? o : 1.0);
    size_t k;
    if (!pts || !hi || !com || !nodes) { fprintf(stderr, "out of host memory\n"); exit(1); }
    CK(clsort_tree_get_view(tree, &v));
    CKCL(clEnqueueReadBuffer(q, v.points, CL_TRUE, 0, n * 16, pts, 0, NULL, NULL));
    CKCL(clEnqueueReadBuffer(q, v.box_hi, CL_TRUE, 0, (n - 1) * 16, hi, 0, NULL, NULL));
    CKCL(clEnqueueReadBuffer(q, v.com, CL_TRUE, 0, (n - 1) * 16, com, 0, NULL, NULL));
    CKCL(clEnqueueReadBuffer(q, v.nodes, CL_TRUE, 0, (n - 1) * 16, nodes, 0, NULL, NULL));
    for (k = 0; k < ns; ++k) {
        size_t i = (k * 2654435761u) % n;
        int sp = 0;
        stack[sp++] = 0;
        while (sp) {
            unsigned c = stack[--sp];
            float dx, dy, dz, d2, bm;
            if (c >= n - 1) {
                lv += c - (n - 1) != i;
                continue;
            }
            dx = com[4 * c] - pts[4 * i], dy = com[4 * c + 1] - pts[4 * i + 1], dz = com[4 * c + 2] - pts[4 * i + 2];
            d2 = dx * dx + dy * dy + dz * dz, bm = hi[4 * c + 3];
            if (!(d2 > bm * bm * open2) && !(bm <= bsoft)) {
                stack[sp++] = nodes[4 * c + 1];
                stack[sp++] = nodes[4 * c];
            } else {
                nd += 1;
            }
        }
    }
    *leaves = lv / (double)ns;
    *nodes_acc = nd / (double)ns;
    free(pts); free(hi); free(com); free(nodes);
}
static void interactions(clsort_context *cs, const clsort_tree *tree, size_t n, double theta, size_t ns,
                         double *leaves, double *nodes_acc)
{
    interactions_soft(cs, tree, n, theta, 1e-4, ns, leaves, nodes_acc);
}

/* `tree_bench c`: the clustered sets (see the top). */
static void clustered(clsort_context *cs, size_t n, int runs)
{
    float *pos = (float *)malloc(n * 16), *acc = (float *)malloc(n * 16);
    int set, k;
    double uniform_ms = 0, step_ms;
    if (!pos || !acc) { fprintf(stderr, "out of host memory\n"); exit(1); }
    for (set = 0; set < 5; ++set) {
        double t[64], t0, lv, nd_acc, e2 = 0, r2 = 0, mx = 0;
        cl_int e;
        cl_mem dpos, dacc;
        clsort_nbody_desc nd;
        clsort_tree *tree = NULL;
        clsort_tree_desc td;
        size_t s, ns = 256;
        cluster_set(pos, n, set);
        dpos = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 16, pos, &e);
        CKCL(e);
        dacc = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, n * 16, NULL, &e);
        CKCL(e);
        memset(&nd, 0, sizeof nd);
        nd.softening2 = 1e-4;
        nd.method = CLSORT_NBODY_BARNES_HUT;
        nd.theta = 0.5;
        for (k = -1; k < runs; ++k) {
            CKCL(clFinish(clsort_cl_queue(cs)));
            t0 = now();
            CK(clsort_nbody_accel(cs, dpos, dacc, n, &nd, NULL));
            CKCL(clFinish(clsort_cl_queue(cs)));
            if (k >= 0) t[k] = now() - t0;
        }
        CKCL(clEnqueueReadBuffer(clsort_cl_queue(cs), dacc, CL_TRUE, 0, n * 16, acc, 0, NULL, NULL));
        memset(&td, 0, sizeof td); td.has_mass = 1; td.mass_offset = 12;
        CK(clsort_tree_create(cs, &tree));
        CK(clsort_tree_build(cs, tree, dpos, n, &td, NULL));
        interactions_soft(cs, tree, n, 0.5, 1e-4, 1024, &lv, &nd_acc);
        clsort_tree_destroy(tree);
        for (s = 0; s < ns; ++s) { /* the double all-pairs sum of sampled bodies */
            size_t i = (s * 2654435761u) % n, j;
            double a[3] = {0, 0, 0}, ee = 0, rr = 0;
            int c;
            for (j = 0; j < n; ++j) {
                double d[3], q;
                if (j == i) continue;
                for (c = 0; c < 3; ++c) d[c] = (double)pos[4 * j + c] - pos[4 * i + c];
                q = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + 1e-4;
                q = pos[4 * j + 3] / (q * sqrt(q));
                for (c = 0; c < 3; ++c) a[c] += q * d[c];
            }
            for (c = 0; c < 3; ++c) {
                ee += (acc[4 * i + c] - a[c]) * (acc[4 * i + c] - a[c]);
                rr += a[c] * a[c];
            }
            e2 += ee, r2 += rr;
            if (rr > 0 && sqrt(ee / rr) > mx) mx = sqrt(ee / rr);
        }
        step_ms = 1e3 * median(t, runs);
        if (set == 0) uniform_ms = step_ms;
        printf("{\"set\": \"%s\", \"n\": %lu, \"device\": \"%s\", \"bh_step_theta0.5_ms\": %.3f, "
               "\"step_x_uniform\": %.2f, \"interactions_per_body_theta0.5\": %.0f, \"body_body_theta0.5\": %.0f, "
               "\"bh_rms_rel_err_theta0.5\": %.3g, \"bh_max_rel_err_theta0.5\": %.3g}\n",
               cluster_sets[set], (unsigned long)n, clsort_device_name(cs), step_ms,
               uniform_ms > 0 ? step_ms / uniform_ms : 0.0, lv + nd_acc, lv, r2 > 0 ? sqrt(e2 / r2) : 0.0, mx);
        fflush(stdout);
        clReleaseMemObject(dpos); clReleaseMemObject(dacc);
    }
    free(pos); free(acc);
}

/* RMS and largest relative error of acc against ref over `ns` sampled bodies. */
static void errors(const float *acc, const float *ref, size_t n, size_t ns, double *rms, double *mx)
{
    double e2 = 0, r2 = 0;
    size_t k;
    *mx = 0;
    for (k = 0; k < ns; ++k) {
        size_t j = (k * 2654435761u) % n;
        double e = 0, r = 0;
        int c;
        for (c = 0; c < 3; ++c) {
            double d = (double)acc[4 * j + c] - ref[4 * j + c];
            e += d * d;
            r += (double)ref[4 * j + c] * ref[4 * j + c];
        }
        e2 += e;
        r2 += r;
        if (r > 0 && sqrt(e / r) > *mx) *mx = sqrt(e / r);
    }
    *rms = sqrt(e2 / r2);
}

/* The crossover: for N = 2^lo .. 2^hi, one Barnes-Hut step (clsort_nbody_accel:
 * the tree built, then the walk, theta 0.5) against the all-pairs step. */
static void crossover(clsort_context *cs, unsigned lo, unsigned hi, int runs)
{
    unsigned lg;
    size_t from = 0;
    for (lg = lo; lg <= hi; ++lg) {
        size_t n = (size_t)1 << lg;
        float *pos = (float *)malloc(n * 16);
        double bh[64], ap[64], t0;
        cl_int e;
        cl_mem dpos, dacc;
        clsort_nbody_desc nd;
        int k;
        if (!pos) { fprintf(stderr, "out of host memory\n"); exit(1); }
        plummer(pos, n);
        dpos = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 16, pos, &e);
        CKCL(e);
        dacc = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, n * 16, NULL, &e);
        CKCL(e);
        memset(&nd, 0, sizeof nd);
        nd.softening2 = 1e-4;
        for (k = -1; k < runs; ++k) {
            nd.method = CLSORT_NBODY_BARNES_HUT;
            nd.theta = 0.5;
            CKCL(clFinish(clsort_cl_queue(cs))); t0 = now();
            CK(clsort_nbody_accel(cs, dpos, dacc, n, &nd, NULL));
            CKCL(clFinish(clsort_cl_queue(cs))); if (k >= 0) bh[k] = now() - t0;
            nd.method = CLSORT_NBODY_TILED;
            nd.theta = 0;
            t0 = now();
            CK(clsort_nbody_accel(cs, dpos, dacc, n, &nd, NULL));
            CKCL(clFinish(clsort_cl_queue(cs))); if (k >= 0) ap[k] = now() - t0;
        }
        {
            double b = median(bh, runs), a = median(ap, runs);
            printf("{\"crossover_n\": %lu, \"bh_step_ms\": %.4f, \"allpairs_ms\": %.4f, \"bh_faster\": %s}\n",
                   (unsigned long)n, 1e3 * b, 1e3 * a, b < a ? "true" : "false");
            if (b >= a) from = 0; /* the smallest N from which Barnes-Hut stays faster */
            else if (!from) from = n;
        }
        fflush(stdout);
        clReleaseMemObject(dpos); clReleaseMemObject(dacc);
        free(pos);
    }
    printf("{\"bh_faster_from_n\": %lu}\n", (unsigned long)from); /* 0: not within the sizes run */
}

int main(int argc, char **argv)
{
    clsort_context *cs = NULL;
    int runs = getenv("BENCH_RUNS") ? atoi(getenv("BENCH_RUNS")) : 7, a, k;
    size_t apmax = getenv("BENCH_ALLPAIRS_MAX") ? (size_t)atof(getenv("BENCH_ALLPAIRS_MAX")) : ((size_t)1 << 20);
    if (runs > 64) runs = 64;
    if (runs < 1) runs = 1;
    if (clsort_create(&cs, NULL) != CLSORT_SUCCESS) { fprintf(stderr, "%s\n", clsort_last_error(cs)); return 1; }
    fprintf(stderr, "device: %s\n", clsort_device_name(cs));
    if (argc > 1 && argv[1][0] == 'c') { /* tree_bench c [log2 N ...]: the clustered sets */
        for (a = 2; a < argc || a == 2; ++a) clustered(cs, (size_t)1 << (argc > 2 ? atoi(argv[a]) : 20), runs);
        clsort_destroy(cs);
        return 0;
    }
    if (argc > 1 && argv[1][0] == 'x') { /* tree_bench x [lo hi]: the crossover only */
        crossover(cs, argc > 2 ? (unsigned)atoi(argv[2]) : 10, argc > 3 ? (unsigned)atoi(argv[3]) : 20, runs);
        clsort_destroy(cs);
        return 0;
    }
    for (a = 1; a < argc || a == 1; ++a) {
        unsigned lg = argc > 1 ? (unsigned)atoi(argv[a]) : 18u;
        size_t n = (size_t)1 << lg, ns = 4096;
        float *pos = (float *)malloc(n * 16), *acc = (float *)malloc(n * 16), *ref = (float *)malloc(n * 16),
              *acc3 = (float *)malloc(n * 16);
        double build[64], given[64], sorts[64], bh5[64], bh3[64], step5[64], ap[64], t0, rms5 = -1, mx5 = -1,
               rms3 = -1, mx3 = -1, lv5, nd5, lv3, nd3;
        cl_mem dpos, dacc, dref;
        clsort_tree *tree = NULL;
        clsort_tree_desc td, tdg;
        clsort_nbody_desc nd;
        sort_phase sp;
        int have_ap = n <= apmax;
        cl_int e;
        if (!pos || !acc || !ref || !acc3) { fprintf(stderr, "out of host memory\n"); return 1; }
        plummer(pos, n);
        dpos = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 16, pos, &e);
        CKCL(e);
        dacc = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, n * 16, NULL, &e);
        CKCL(e);
        dref = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, n * 16, NULL, &e);
        CKCL(e);
        memset(&td, 0, sizeof td); td.has_mass = 1; td.mass_offset = 12;
        tdg = td;
        tdg.box_given = 1;
        host_box(pos, n, tdg.box_lo, tdg.box_hi);
        memset(&nd, 0, sizeof nd); nd.softening2 = 1e-4; nd.method = CLSORT_NBODY_BARNES_HUT;
        CK(clsort_tree_create(cs, &tree));
        CK(clsort_tree_build(cs, tree, dpos, n, &td, NULL));
        sort_phase_init(cs, tree, &sp);
        for (k = -1; k < runs; ++k) {
            double tb = build_ms(cs, tree, dpos, n, &tdg), ts = sort_phase_ms(cs, &sp), tw = build_ms(cs, tree, dpos, n, &td);
            if (k >= 0) given[k] = tb, sorts[k] = ts, build[k] = tw;
            nd.theta = 0.5; t0 = now();
            CK(clsort_tree_accel(cs, tree, dacc, &nd, NULL));
            CKCL(clFinish(clsort_cl_queue(cs))); if (k >= 0) bh5[k] = now() - t0;
            nd.theta = 0.3; t0 = now();
            CK(clsort_tree_accel(cs, tree, dref, &nd, NULL));
            CKCL(clFinish(clsort_cl_queue(cs))); if (k >= 0) bh3[k] = now() - t0;
            nd.theta = 0.5; t0 = now(); /* one whole step's evaluation: build + walk in one call */
            CK(clsort_nbody_accel(cs, dpos, dacc, n, &nd, NULL));
            CKCL(clFinish(clsort_cl_queue(cs))); if (k >= 0) step5[k] = now() - t0;
        }
        sort_phase_release(&sp);
        nd.theta = 0.5;
        CK(clsort_tree_accel(cs, tree, dacc, &nd, NULL));
        CKCL(clEnqueueReadBuffer(clsort_cl_queue(cs), dacc, CL_TRUE, 0, n * 16, acc, 0, NULL, NULL));
        nd.theta = 0.3;
        CK(clsort_tree_accel(cs, tree, dacc, &nd, NULL));
        CKCL(clEnqueueReadBuffer(clsort_cl_queue(cs), dacc, CL_TRUE, 0, n * 16, acc3, 0, NULL, NULL));
        interactions(cs, tree, n, 0.5, ns, &lv5, &nd5);
        interactions(cs, tree, n, 0.3, ns, &lv3, &nd3);
        if (have_ap) {
            clsort_nbody_desc tdsc;
            int r3 = runs < 3 ? runs : 3;
            memset(&tdsc, 0, sizeof tdsc); tdsc.softening2 = 1e-4;
            for (k = -1; k < r3; ++k) {
                t0 = now();
                CK(clsort_nbody_accel(cs, dpos, dref, n, &tdsc, NULL));
                CKCL(clFinish(clsort_cl_queue(cs))); if (k >= 0) ap[k] = now() - t0;
            }
            CKCL(clEnqueueReadBuffer(clsort_cl_queue(cs), dref, CL_TRUE, 0, n * 16, ref, 0, NULL, NULL));
            errors(acc, ref, n, ns, &rms5, &mx5);
            errors(acc3, ref, n, ns, &rms3, &mx3);
        }
        {
            double b = median(build, runs), g = median(given, runs), so = median(sorts, runs);
            printf("{\"n\": %lu, \"device\": \"%s\", \"build_call_ms\": %.3f, \"sort_ms\": %.3f, "
                   "\"build_box_given_ms\": %.3f, \"box_ms\": %.3f, \"rest_of_build_ms\": %.3f, "
                   "\"bh_force_theta0.5_ms\": %.3f, \"bh_force_theta0.3_ms\": %.3f, \"bh_step_theta0.5_ms\": %.3f, "
                   "\"allpairs_ms\": %.3f, \"speedup_step_vs_allpairs\": %.2f, \"interactions_per_body_theta0.5\": %.0f, "
                   "\"body_body_theta0.5\": %.0f, \"body_node_theta0.5\": %.0f, \"interactions_per_body_theta0.3\": %.0f, "
                   "\"bh_rms_rel_err_theta0.5\": %.3g, \"bh_max_rel_err_theta0.5\": %.3g, "
                   "\"bh_rms_rel_err_theta0.3\": %.3g, \"bh_max_rel_err_theta0.3\": %.3g}\n",
                   (unsigned long)n, clsort_device_name(cs), 1e3 * b, 1e3 * so, 1e3 * g, 1e3 * (b - g),
                   1e3 * (g - so), 1e3 * median(bh5, runs), 1e3 * median(bh3, runs), 1e3 * median(step5, runs),
                   have_ap ? 1e3 * median(ap, runs < 3 ? runs : 3) : -1.0,
                   have_ap ? median(ap, runs < 3 ? runs : 3) / median(step5, runs) : -1.0, lv5 + nd5, lv5, nd5,
                   lv3 + nd3, rms5, mx5, rms3, mx3);
        }
        fflush(stdout);
        clsort_tree_destroy(tree);
        clReleaseMemObject(dpos); clReleaseMemObject(dacc); clReleaseMemObject(dref);
        free(pos); free(acc); free(ref); free(acc3);
    }
    clsort_destroy(cs);
    return 0;
}
