/* Tree phases and Barnes-Hut vs the all-pairs step (issue 21).
 *   build/tree_bench [log2 N ...]   (default 18; CLSORT_DEVICE picks the device)
 * Plummer sphere (float4 bodies, fixed seed). Per N: the phases of
 * clsort_tree_build timed one by one (clFinish, then a monotonic host clock
 * around each phase's commands: keys = box + codes, sort = radix sort with the
 * permutation, tree = points + radix tree, summaries), the whole build in one
 * call, the Barnes-Hut force pass (theta 0.5 and 0.3), one whole Barnes-Hut
 * step's evaluation (clsort_nbody_accel: build + walk), the interactions per
 * body (body-body + body-node, counted on the host from the tree for 4096
 * sampled bodies), the RMS and largest relative errors against the all-pairs
 * float step on those bodies, and the all-pairs step (clsort_nbody_accel
 * TILED) where BENCH_ALLPAIRS_MAX (default 2^20) allows. Median of BENCH_RUNS
 * (default 7) runs after a warm-up. One JSON line per N.
 *   build/tree_bench x [lo hi]   the crossover: Barnes-Hut step vs all-pairs
 *                                for N = 2^lo .. 2^hi (default 10 .. 20) */
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
static void plummer(float *pos, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        double r, z, ph, s;
        do r = 1.0 / sqrt(pow(urand() * 0.999 + 1e-9, -2.0 / 3.0) - 1.0); while (r > 20.0);
        z = 2.0 * urand() - 1.0; ph = 6.283185307179586 * urand(); s = sqrt(1.0 - z * z);
        pos[4 * i] = (float)(r * s * cos(ph)); pos[4 * i + 1] = (float)(r * s * sin(ph));
        pos[4 * i + 2] = (float)(r * z); pos[4 * i + 3] = (float)(1.0 / (double)n);
    }
}
#define CK(x) do { clsort_result r_ = (x); if (r_ != CLSORT_SUCCESS) { fprintf(stderr, "%s: %s\n", #x, clsort_last_error(cs)); exit(1); } } while (0)

/* The phases of clsort__tree_build_run, each followed by clFinish. */
static void phases(clsort_context *cs, cl_mem pos, size_t n, double t[4])
{
    clsort__tree_plan pl;
    clsort__tree_bufs b;
    clsort__chain c;
    clsort__program *p;
    clsort__kargs ka;
    clsort__sort_plan sp;
    clsort_sort_desc sd;
    clsort_tree_desc td;
    cl_uint n32 = (cl_uint)n, given = 0, has_mass = 1;
    cl_ulong stride = 4, offset = 0, moff = 3;
    cl_float4 z;
    size_t groups;
    double t0;
    memset(&z, 0, sizeof z);
    clsort__tree_body_desc(&td);
    CK(clsort__plan_tree(cs, "bench", n, &td, &pl));
    CK(clsort__tree_buffers(cs, NULL, n, pl.key_size, &b));
    CK(clsort__tree_program(cs, 3, pl.key_size, pl.bpa, &p));
    CK(clsort__chain_begin(&c, cs, NULL));
    clFinish(clsort_cl_queue(cs));
    t0 = now();
    clsort__kargs_init(&ka); CLSORT__KARG(&ka, b.bounds);
    CK(clsort__tree_launch(&c, p, "tree_box_init", 8, &ka));
    groups = (n + p->wg - 1) / p->wg; if (groups > 1024) groups = 1024;
    clsort__kargs_init(&ka); CLSORT__KARG(&ka, pos); CLSORT__KARG(&ka, n32); CLSORT__KARG(&ka, stride);
    CLSORT__KARG(&ka, offset); CLSORT__KARG(&ka, b.bounds);
    CK(clsort__run(&c, p, "tree_box_reduce", &ka, groups, p->wg));
    clsort__kargs_init(&ka); CLSORT__KARG(&ka, b.bounds); CLSORT__KARG(&ka, given); CLSORT__KARG(&ka, z); CLSORT__KARG(&ka, z);
    CK(clsort__tree_launch(&c, p, "tree_box_final", 1, &ka));
    clsort__kargs_init(&ka); CLSORT__KARG(&ka, pos); CLSORT__KARG(&ka, b.codes_in); CLSORT__KARG(&ka, n32);
    CLSORT__KARG(&ka, stride); CLSORT__KARG(&ka, offset); CLSORT__KARG(&ka, b.bounds);
    CK(clsort__tree_launch(&c, p, "tree_keys", n, &ka));
    clFinish(clsort_cl_queue(cs)); t[0] = now() - t0; t0 = now();
    memset(&sd, 0, sizeof sd); sd.end_bit = pl.code_bits; sd.permutation = b.perm;
    CK(clsort__plan_sort(cs, "bench", n, &sd, &sp));
    CK(clsort__sort_run(&c, &sp, b.codes_in, b.codes, n));
    clFinish(clsort_cl_queue(cs)); t[1] = now() - t0; t0 = now();
    clsort__kargs_init(&ka); CLSORT__KARG(&ka, pos); CLSORT__KARG(&ka, b.perm); CLSORT__KARG(&ka, b.points);
    CLSORT__KARG(&ka, n32); CLSORT__KARG(&ka, stride); CLSORT__KARG(&ka, offset); CLSORT__KARG(&ka, moff);
    CLSORT__KARG(&ka, has_mass);
    CK(clsort__tree_launch(&c, p, "tree_points", n, &ka));
    CK(clsort__clear(&c, p, b.flags, (n - 1) * 4));
    CK(clsort__clear(&c, p, b.lo, (n - 1) * 16)); CK(clsort__clear(&c, p, b.hi, (n - 1) * 16));
    CK(clsort__clear(&c, p, b.com, (n - 1) * 16)); CK(clsort__clear(&c, p, b.quad, (n - 1) * 32));
    clsort__kargs_init(&ka); CLSORT__KARG(&ka, b.codes); CLSORT__KARG(&ka, n32); CLSORT__KARG(&ka, b.nodes);
    CLSORT__KARG(&ka, b.parents);
    CK(clsort__tree_launch(&c, p, "tree_build", n - 1, &ka));
    clFinish(clsort_cl_queue(cs)); t[2] = now() - t0; t0 = now();
    clsort__kargs_init(&ka); CLSORT__KARG(&ka, b.points); CLSORT__KARG(&ka, b.nodes); CLSORT__KARG(&ka, b.parents);
    CLSORT__KARG(&ka, b.flags); CLSORT__KARG(&ka, b.lo); CLSORT__KARG(&ka, b.hi); CLSORT__KARG(&ka, b.com); CLSORT__KARG(&ka, b.quad);
    CLSORT__KARG(&ka, n32);
    CK(clsort__tree_launch(&c, p, "tree_summaries", n, &ka));
    clFinish(clsort_cl_queue(cs)); t[3] = now() - t0;
    CK(clsort__chain_end(&c, NULL, CLSORT_SUCCESS));
}

/* Interactions per body of the walk at open2 (the kernel's criterion) for
 * `ns` bodies spread over the set, on the host from the built tree:
 * body-body (leaves) and body-node (accepted internal nodes). */
static void interactions(clsort_context *cs, const clsort_tree *tree, size_t n, double theta, size_t ns,
                         double *leaves, double *nodes_acc)
{
    clsort_tree_view v;
    cl_command_queue q = clsort_cl_queue(cs);
    float *pts = (float *)malloc(n * 16), *hi = (float *)malloc(n * 16), *com = (float *)malloc(n * 16);
    unsigned *nodes = (unsigned *)malloc(n * 16), stack[128];
    double o = 1.0 / (theta * theta), lv = 0, nd = 0;
    float open2 = (float)(o > 1.0 ? o : 1.0);
    size_t k;
    clsort_tree_get_view(tree, &v);
    clEnqueueReadBuffer(q, v.points, CL_TRUE, 0, n * 16, pts, 0, NULL, NULL);
    clEnqueueReadBuffer(q, v.box_hi, CL_TRUE, 0, (n - 1) * 16, hi, 0, NULL, NULL);
    clEnqueueReadBuffer(q, v.com, CL_TRUE, 0, (n - 1) * 16, com, 0, NULL, NULL);
    clEnqueueReadBuffer(q, v.nodes, CL_TRUE, 0, (n - 1) * 16, nodes, 0, NULL, NULL);
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
            if (!(d2 > bm * bm * open2)) {
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
        plummer(pos, n);
        dpos = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 16, pos, &e);
        dacc = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, n * 16, NULL, &e);
        memset(&nd, 0, sizeof nd);
        nd.softening2 = 1e-4;
        for (k = -1; k < runs; ++k) {
            nd.method = CLSORT_NBODY_BARNES_HUT;
            nd.theta = 0.5;
            clFinish(clsort_cl_queue(cs)); t0 = now();
            CK(clsort_nbody_accel(cs, dpos, dacc, n, &nd, NULL));
            clFinish(clsort_cl_queue(cs)); if (k >= 0) bh[k] = now() - t0;
            nd.method = CLSORT_NBODY_TILED;
            nd.theta = 0;
            t0 = now();
            CK(clsort_nbody_accel(cs, dpos, dacc, n, &nd, NULL));
            clFinish(clsort_cl_queue(cs)); if (k >= 0) ap[k] = now() - t0;
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
    int runs = getenv("BENCH_RUNS") ? atoi(getenv("BENCH_RUNS")) : 7, a, k, q;
    size_t apmax = getenv("BENCH_ALLPAIRS_MAX") ? (size_t)atof(getenv("BENCH_ALLPAIRS_MAX")) : ((size_t)1 << 20);
    if (runs > 64) runs = 64;
    if (runs < 1) runs = 1;
    if (clsort_create(&cs, NULL) != CLSORT_SUCCESS) { fprintf(stderr, "%s\n", clsort_last_error(cs)); return 1; }
    fprintf(stderr, "device: %s\n", clsort_device_name(cs));
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
        double ph[4][64], build[64], bh5[64], bh3[64], step5[64], ap[64], t0, rms5 = -1, mx5 = -1, rms3 = -1, mx3 = -1,
               lv5, nd5, lv3, nd3;
        cl_mem dpos, dacc, dref;
        clsort_tree *tree = NULL;
        clsort_tree_desc td;
        clsort_nbody_desc nd;
        int have_ap = n <= apmax;
        cl_int e;
        plummer(pos, n);
        dpos = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 16, pos, &e);
        dacc = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, n * 16, NULL, &e);
        dref = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, n * 16, NULL, &e);
        memset(&td, 0, sizeof td); td.has_mass = 1; td.mass_offset = 12;
        memset(&nd, 0, sizeof nd); nd.softening2 = 1e-4; nd.method = CLSORT_NBODY_BARNES_HUT;
        CK(clsort_tree_create(cs, &tree));
        for (k = -1; k < runs; ++k) {
            double t[4];
            phases(cs, dpos, n, t);
            if (k >= 0) for (q = 0; q < 4; ++q) ph[q][k] = t[q];
            clFinish(clsort_cl_queue(cs)); t0 = now();
            CK(clsort_tree_build(cs, tree, dpos, n, &td, NULL));
            clFinish(clsort_cl_queue(cs)); if (k >= 0) build[k] = now() - t0;
            nd.theta = 0.5; t0 = now();
            CK(clsort_tree_accel(cs, tree, dacc, &nd, NULL));
            clFinish(clsort_cl_queue(cs)); if (k >= 0) bh5[k] = now() - t0;
            nd.theta = 0.3; t0 = now();
            CK(clsort_tree_accel(cs, tree, dref, &nd, NULL));
            clFinish(clsort_cl_queue(cs)); if (k >= 0) bh3[k] = now() - t0;
            nd.theta = 0.5; t0 = now(); /* one whole step's evaluation: build + walk in one call */
            CK(clsort_nbody_accel(cs, dpos, dacc, n, &nd, NULL));
            clFinish(clsort_cl_queue(cs)); if (k >= 0) step5[k] = now() - t0;
        }
        nd.theta = 0.5;
        CK(clsort_tree_accel(cs, tree, dacc, &nd, NULL));
        clEnqueueReadBuffer(clsort_cl_queue(cs), dacc, CL_TRUE, 0, n * 16, acc, 0, NULL, NULL);
        nd.theta = 0.3;
        CK(clsort_tree_accel(cs, tree, dacc, &nd, NULL));
        clEnqueueReadBuffer(clsort_cl_queue(cs), dacc, CL_TRUE, 0, n * 16, acc3, 0, NULL, NULL);
        interactions(cs, tree, n, 0.5, ns, &lv5, &nd5);
        interactions(cs, tree, n, 0.3, ns, &lv3, &nd3);
        if (have_ap) {
            clsort_nbody_desc tdsc;
            int r3 = runs < 3 ? runs : 3;
            memset(&tdsc, 0, sizeof tdsc); tdsc.softening2 = 1e-4;
            for (k = -1; k < r3; ++k) {
                t0 = now();
                CK(clsort_nbody_accel(cs, dpos, dref, n, &tdsc, NULL));
                clFinish(clsort_cl_queue(cs)); if (k >= 0) ap[k] = now() - t0;
            }
            clEnqueueReadBuffer(clsort_cl_queue(cs), dref, CL_TRUE, 0, n * 16, ref, 0, NULL, NULL);
            errors(acc, ref, n, ns, &rms5, &mx5);
            errors(acc3, ref, n, ns, &rms3, &mx3);
        }
        printf("{\"n\": %lu, \"device\": \"%s\", \"keys_ms\": %.3f, \"sort_ms\": %.3f, \"tree_ms\": %.3f, "
               "\"summaries_ms\": %.3f, \"build_call_ms\": %.3f, \"bh_force_theta0.5_ms\": %.3f, "
               "\"bh_force_theta0.3_ms\": %.3f, \"bh_step_theta0.5_ms\": %.3f, \"allpairs_ms\": %.3f, "
               "\"speedup_step_vs_allpairs\": %.2f, \"interactions_per_body_theta0.5\": %.0f, "
               "\"body_body_theta0.5\": %.0f, \"body_node_theta0.5\": %.0f, \"interactions_per_body_theta0.3\": %.0f, "
               "\"bh_rms_rel_err_theta0.5\": %.3g, \"bh_max_rel_err_theta0.5\": %.3g, "
               "\"bh_rms_rel_err_theta0.3\": %.3g, \"bh_max_rel_err_theta0.3\": %.3g}\n",
               (unsigned long)n, clsort_device_name(cs), 1e3 * median(ph[0], runs), 1e3 * median(ph[1], runs),
               1e3 * median(ph[2], runs), 1e3 * median(ph[3], runs), 1e3 * median(build, runs),
               1e3 * median(bh5, runs), 1e3 * median(bh3, runs), 1e3 * median(step5, runs),
               have_ap ? 1e3 * median(ap, runs < 3 ? runs : 3) : -1.0,
               have_ap ? median(ap, runs < 3 ? runs : 3) / median(step5, runs) : -1.0, lv5 + nd5, lv5, nd5, lv3 + nd3,
               rms5, mx5, rms3, mx3);
        fflush(stdout);
        clsort_tree_destroy(tree);
        clReleaseMemObject(dpos); clReleaseMemObject(dacc); clReleaseMemObject(dref);
        free(pos); free(acc); free(ref); free(acc3);
    }
    clsort_destroy(cs);
    return 0;
}
