/* Radius queries where particle codes use them, through the public API:
 *   build/radius_bench [log2 N ...]   (default 20; CLSORT_DEVICE picks the device)
 * N points uniform in the unit cube (fixed seed), every point a query, r
 * chosen for BENCH_NEIGHBOURS (default 32) points within r on average (the
 * query itself included). Two routes, open and periodic (period 1 per axis):
 *   tree: clsort_tree_build, then clsort_tree_radius with the tree's own
 *         sorted points as queries: counts, the offsets' scan, the total read
 *         back, the CSR lists;
 *   grid: clsort_bin (cells of edge >= r, row-major, the positions reordered
 *         as an attribute), then this program's query kernel over the 27
 *         neighbouring cells (counts), clsort_scan with the total, the
 *         total read back, the kernel again (lists).
 * The query kernel applies the library's rule (clsort.h TREE: d2 in float
 * without contraction, minimum images on periodic axes), so both routes
 * give the same sets; the program checks the totals and every count, and
 * the lists of 256 sampled queries as sets, against each other and a brute
 * force over those queries. Each figure is a median of BENCH_RUNS (default
 * 7) runs after a warm-up, host monotonic clock around clFinish: the
 * structure (build / bin), the queries (count + scan + total + fill), and
 * both. One JSON line per N and boundary. */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(x) do { clsort_result r_ = (x); if (r_ != CLSORT_SUCCESS) { fprintf(stderr, "%s: %s\n", #x, clsort_last_error(cs)); exit(1); } } while (0)
#define CKCL(x) do { cl_int e_ = (x); if (e_ != CL_SUCCESS) { fprintf(stderr, "%s: OpenCL error %d\n", #x, (int)e_); exit(1); } } while (0)

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
static int cmpu(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}
static unsigned long long rs = 88172645463325252ull;
static double urand(void)
{
    rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17;
    return (double)(rs >> 11) / 9007199254740992.0;
}

/* The grid route's query: the cells within one of the query's cell (27,
 * fewer at a closed edge; on an open grid a row of 3 cells is one range of
 * the row-major order), each point tested by the library's rule. */
static const char *grid_source =
    "inline float d2f(float dx, float dy, float dz)\n"
    "{\n"
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "    const float x2 = dx * dx, y2 = dy * dy, z2 = dz * dz;\n"
    "    const float s = x2 + y2;\n"
    "    return s + z2;\n"
    "}\n"
    "inline float image(float a, float L)\n"
    "{\n"
    "    const float c = a > L ? L : a, o = L - c;\n"
    "    return c < o ? c : o;\n"
    "}\n"
    "inline int cell_of(float p, float inv, int c)\n"
    "{\n"
    "    const int k = (int)floor(p * inv);\n"
    "    return k < 0 ? 0 : k >= c ? c - 1 : k;\n"
    "}\n"
    "inline void visit(uint b, uint e, float4 q, __global const float4 *pts, __global const uint *perm, float r2,\n"
    "                  float L, uint periodic, __global uint *indices, uint base, uint fill, uint *cnt)\n"
    "{\n"
    "    for (uint j = b; j < e; ++j) {\n"
    "        const float4 p = pts[j];\n"
    "        float dx = p.x - q.x, dy = p.y - q.y, dz = p.z - q.z;\n"
    "        if (periodic) { dx = image(fabs(dx), L); dy = image(fabs(dy), L); dz = image(fabs(dz), L); }\n"
    "        if (d2f(dx, dy, dz) <= r2) { if (fill) indices[base + *cnt] = perm[j]; ++*cnt; }\n"
    "    }\n"
    "}\n"
    "__kernel void grid_radius(__global const float4 *pts, __global const uint *offs, __global const uint *perm,\n"
    "                          uint n, int c, float inv, float r2, float L, uint periodic, __global uint *counts,\n"
    "                          __global const uint *starts, __global uint *indices, uint fill)\n"
    "{\n"
    "    const uint i = (uint)get_global_id(0);\n"
    "    if (i >= n) return;\n"
    "    const float4 q = pts[i];\n"
    "    const int cx = cell_of(q.x, inv, c), cy = cell_of(q.y, inv, c), cz = cell_of(q.z, inv, c);\n"
    "    const uint base = fill ? starts[i] : 0u;\n"
    "    uint cnt = 0;\n"
    "    for (int dz = -1; dz <= 1; ++dz) {\n"
    "        int z = cz + dz;\n"
    "        if (periodic) z = (z + c) % c; else if (z < 0 || z >= c) continue;\n"
    "        for (int dy = -1; dy <= 1; ++dy) {\n"
    "            int y = cy + dy;\n"
    "            if (periodic) y = (y + c) % c; else if (y < 0 || y >= c) continue;\n"
    "            const int row = (z * c + y) * c;\n"
    "            if (!periodic) {\n"
    "                const int x0 = cx > 0 ? cx - 1 : 0, x1 = cx < c - 1 ? cx + 1 : c - 1;\n"
    "                visit(offs[row + x0], offs[row + x1 + 1], q, pts, perm, r2, L, 0u, indices, base, fill, &cnt);\n"
    "                continue;\n"
    "            }\n"
    "            for (int dx = -1; dx <= 1; ++dx) {\n"
    "                const int x = (cx + dx + c) % c;\n"
    "                visit(offs[row + x], offs[row + x + 1], q, pts, perm, r2, L, 1u, indices, base, fill, &cnt);\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "    if (!fill) counts[i] = cnt;\n"
    "}\n";

typedef struct grid_route {
    cl_program prog;
    cl_kernel k;
    cl_mem keys, perm, offs, sorted, counts, starts, total, indices;
    size_t cap;
    int cells;
    clsort_bin_desc bd;
    clsort_attribute attr;
} grid_route;

static cl_mem make_buffer(clsort_context *cs, size_t bytes)
{
    cl_int e;
    cl_mem m = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &e);
    CKCL(e);
    return m;
}

static void grid_init(clsort_context *cs, grid_route *g, cl_mem pos, size_t n, float r, size_t cap)
{
    cl_int e;
    cl_device_id dev = clsort_cl_device(cs);
    int a;
    g->cells = (int)floor(1.0 / r); /* cells of edge 1 / cells >= r: the neighbours hold every point within r */
    g->prog = clCreateProgramWithSource(clsort_cl_context(cs), 1, &grid_source, NULL, &e);
    CKCL(e);
    if (clBuildProgram(g->prog, 1, &dev, "-cl-std=CL1.2", NULL, NULL) != CL_SUCCESS) {
        char log[4096];
        clGetProgramBuildInfo(g->prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "grid_radius: %s\n", log);
        exit(1);
    }
    g->k = clCreateKernel(g->prog, "grid_radius", &e);
    CKCL(e);
    g->keys = make_buffer(cs, n * 4);
    g->perm = make_buffer(cs, n * 4);
    g->offs = make_buffer(cs, ((size_t)g->cells * g->cells * g->cells + 1) * 4);
    g->sorted = make_buffer(cs, n * 16);
    g->counts = make_buffer(cs, n * 4);
    g->starts = make_buffer(cs, n * 4);
    g->total = make_buffer(cs, 4);
    g->indices = make_buffer(cs, cap * 4);
    g->cap = cap;
    memset(&g->bd, 0, sizeof g->bd);
    g->bd.grid.dims = 3;
    for (a = 0; a < 3; ++a) {
        g->bd.grid.cells[a] = (unsigned)g->cells;
        g->bd.grid.cell_size[a] = 1.0f / (float)g->cells;
        g->bd.grid.periodic[a] = 0; /* points lie in [0, 1): the keys need no wrap either way */
    }
    g->bd.grid.stride = 16;
    g->bd.cell_keys = g->keys;
    g->bd.permutation = g->perm;
    g->bd.cell_offsets = g->offs;
    g->attr.src = pos;
    g->attr.dst = g->sorted;
    g->attr.elem_size = 16;
    g->bd.attributes = &g->attr;
    g->bd.attribute_count = 1;
}

static void grid_bin(clsort_context *cs, grid_route *g, cl_mem pos, size_t n)
{
    CK(clsort_bin(cs, pos, n, &g->bd, NULL));
}

static void grid_pass(clsort_context *cs, grid_route *g, cl_uint n, float r2, int periodic, cl_uint fill)
{
    cl_int c = g->cells;
    cl_float inv = 1.0f / g->bd.grid.cell_size[0], L = 1.0f; /* the library's cell formula */
    cl_uint per = (cl_uint)periodic;
    size_t gs = ((size_t)n + 255) / 256 * 256, ls = 256;
    CKCL(clSetKernelArg(g->k, 0, sizeof(cl_mem), &g->sorted));
    CKCL(clSetKernelArg(g->k, 1, sizeof(cl_mem), &g->offs));
    CKCL(clSetKernelArg(g->k, 2, sizeof(cl_mem), &g->perm));
    CKCL(clSetKernelArg(g->k, 3, sizeof n, &n));
    CKCL(clSetKernelArg(g->k, 4, sizeof c, &c));
    CKCL(clSetKernelArg(g->k, 5, sizeof inv, &inv));
    CKCL(clSetKernelArg(g->k, 6, sizeof r2, &r2));
    CKCL(clSetKernelArg(g->k, 7, sizeof L, &L));
    CKCL(clSetKernelArg(g->k, 8, sizeof per, &per));
    CKCL(clSetKernelArg(g->k, 9, sizeof(cl_mem), &g->counts));
    CKCL(clSetKernelArg(g->k, 10, sizeof(cl_mem), &g->starts));
    CKCL(clSetKernelArg(g->k, 11, sizeof(cl_mem), &g->indices));
    CKCL(clSetKernelArg(g->k, 12, sizeof fill, &fill));
    CKCL(clEnqueueNDRangeKernel(clsort_cl_queue(cs), g->k, 1, NULL, &gs, &ls, 0, NULL, NULL));
}

/* Counts, their scan and total (read back), the lists: the queries' part. */
static size_t grid_query(clsort_context *cs, grid_route *g, size_t n, float r2, int periodic)
{
    clsort_scan_desc sd;
    cl_uint tot = 0;
    grid_pass(cs, g, (cl_uint)n, r2, periodic, 0);
    memset(&sd, 0, sizeof sd);
    sd.total = g->total;
    CK(clsort_scan(cs, g->counts, g->starts, n, &sd, NULL));
    CKCL(clEnqueueReadBuffer(clsort_cl_queue(cs), g->total, CL_TRUE, 0, 4, &tot, 0, NULL, NULL));
    if (tot > g->cap) { fprintf(stderr, "grid: %u indices, capacity %lu\n", tot, (unsigned long)g->cap); exit(1); }
    grid_pass(cs, g, (cl_uint)n, r2, periodic, 1);
    return tot;
}

static void grid_release(grid_route *g)
{
    clReleaseKernel(g->k);
    clReleaseProgram(g->prog);
    clReleaseMemObject(g->keys); clReleaseMemObject(g->perm); clReleaseMemObject(g->offs);
    clReleaseMemObject(g->sorted); clReleaseMemObject(g->counts); clReleaseMemObject(g->starts);
    clReleaseMemObject(g->total); clReleaseMemObject(g->indices);
}

static float image(float a, float L)
{
    float c = a > L ? L : a, o = L - c;
    return c < o ? c : o;
}
static int within(const float *p, const float *q, int periodic, float r2)
{
    float d[3], x2, y2, z2, s;
    int a;
    for (a = 0; a < 3; ++a) {
        d[a] = p[a] - q[a];
        if (periodic) d[a] = image(fabsf(d[a]), 1.0f);
    }
    x2 = d[0] * d[0]; y2 = d[1] * d[1]; z2 = d[2] * d[2];
    s = x2 + y2;
    return s + z2 <= r2;
}

/* Query i's list from (counts, starts, indices) on the host, sorted. */
static void list_of(const uint32_t *cnt, const uint32_t *st, const uint32_t *idx, size_t i, uint32_t *out)
{
    memcpy(out, idx + st[i], cnt[i] * 4);
    qsort(out, cnt[i], 4, cmpu);
}

int main(int argc, char **argv)
{
    clsort_context *cs = NULL;
    int runs = getenv("BENCH_RUNS") ? atoi(getenv("BENCH_RUNS")) : 7, a, k, periodic;
    double nb = getenv("BENCH_NEIGHBOURS") ? atof(getenv("BENCH_NEIGHBOURS")) : 32.0;
    if (runs > 64) runs = 64;
    if (runs < 1) runs = 1;
    if (clsort_create(&cs, NULL) != CLSORT_SUCCESS) { fprintf(stderr, "%s\n", clsort_last_error(cs)); return 1; }
    fprintf(stderr, "device: %s\n", clsort_device_name(cs));
    for (a = 1; a < argc || a == 1; ++a) {
        unsigned lg = argc > 1 ? (unsigned)atoi(argv[a]) : 20u;
        size_t n = (size_t)1 << lg, cap = (size_t)(n * nb * 1.5) + 1024, i;
        float r = (float)cbrt(nb * 3.0 / (4.0 * 3.141592653589793 * (double)n)), r2 = r * r;
        float *pos = (float *)malloc(n * 16), *tp = (float *)malloc(n * 16);
        uint32_t *tc = (uint32_t *)malloc(n * 4), *ts = (uint32_t *)malloc(n * 4 + 4), *ti = (uint32_t *)malloc(cap * 4),
                 *gc = (uint32_t *)malloc(n * 4), *gs = (uint32_t *)malloc(n * 4), *gi = (uint32_t *)malloc(cap * 4),
                 *la = (uint32_t *)malloc(4096 * 4), *lb = (uint32_t *)malloc(4096 * 4);
        cl_mem dpos, dc, doff, di;
        clsort_tree *tree = NULL;
        clsort_tree_view v;
        clsort_tree_desc td;
        grid_route g;
        cl_int e;
        if (!pos || !tp || !tc || !ts || !ti || !gc || !gs || !gi || !la || !lb) { fprintf(stderr, "out of host memory\n"); return 1; }
        for (i = 0; i < 4 * n; ++i) pos[i] = (i % 4 == 3) ? 1.0f : (float)urand();
        dpos = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 16, pos, &e);
        CKCL(e);
        dc = make_buffer(cs, n * 4);
        doff = make_buffer(cs, n * 4 + 4);
        di = make_buffer(cs, cap * 4);
        memset(&td, 0, sizeof td);
        CK(clsort_tree_create(cs, &tree));
        grid_init(cs, &g, dpos, n, r, cap);
        for (periodic = 0; periodic < 2; ++periodic) {
            double tb[64], tq[64], gb[64], gq[64], t0;
            size_t ttot = 0, gtot = 0, bad_counts = 0, bad_lists = 0, bad_brute = 0, s;
            clsort_tree_radius_desc rd;
            for (k = -1; k < runs; ++k) {
                t0 = now();
                CK(clsort_tree_build(cs, tree, dpos, n, &td, NULL));
                CKCL(clFinish(clsort_cl_queue(cs)));
                if (k >= 0) tb[k] = now() - t0;
                CK(clsort_tree_get_view(tree, &v));
                memset(&rd, 0, sizeof rd);
                rd.radius = r;
                rd.counts = dc;
                rd.offsets = doff;
                rd.indices = di;
                rd.capacity = cap;
                if (periodic) rd.period[0] = rd.period[1] = rd.period[2] = 1.0f;
                t0 = now();
                CK(clsort_tree_radius(cs, tree, v.points, n, &rd, &ttot, NULL));
                CKCL(clFinish(clsort_cl_queue(cs)));
                if (k >= 0) tq[k] = now() - t0;
                t0 = now();
                grid_bin(cs, &g, dpos, n);
                CKCL(clFinish(clsort_cl_queue(cs)));
                if (k >= 0) gb[k] = now() - t0;
                t0 = now();
                gtot = grid_query(cs, &g, n, r2, periodic);
                CKCL(clFinish(clsort_cl_queue(cs)));
                if (k >= 0) gq[k] = now() - t0;
            }
            /* Check: the tree's queries are its sorted points, the grid's its own sorted points; compare per
             * original point (the permutations map both back), lists as sets. */
            {
                uint32_t *tperm = (uint32_t *)malloc(n * 4), *gperm = (uint32_t *)malloc(n * 4),
                         *tat = (uint32_t *)malloc(n * 4), *gat = (uint32_t *)malloc(n * 4);
                cl_command_queue q = clsort_cl_queue(cs);
                if (!tperm || !gperm || !tat || !gat) { fprintf(stderr, "out of host memory\n"); return 1; }
                CKCL(clEnqueueReadBuffer(q, v.permutation, CL_TRUE, 0, n * 4, tperm, 0, NULL, NULL));
                CKCL(clEnqueueReadBuffer(q, g.perm, CL_TRUE, 0, n * 4, gperm, 0, NULL, NULL));
                CKCL(clEnqueueReadBuffer(q, dc, CL_TRUE, 0, n * 4, tc, 0, NULL, NULL));
                CKCL(clEnqueueReadBuffer(q, doff, CL_TRUE, 0, n * 4, ts, 0, NULL, NULL));
                CKCL(clEnqueueReadBuffer(q, di, CL_TRUE, 0, ttot * 4, ti, 0, NULL, NULL));
                CKCL(clEnqueueReadBuffer(q, g.counts, CL_TRUE, 0, n * 4, gc, 0, NULL, NULL));
                CKCL(clEnqueueReadBuffer(q, g.starts, CL_TRUE, 0, n * 4, gs, 0, NULL, NULL));
                CKCL(clEnqueueReadBuffer(q, g.indices, CL_TRUE, 0, gtot * 4, gi, 0, NULL, NULL));
                for (i = 0; i < n; ++i) tat[tperm[i]] = (uint32_t)i, gat[gperm[i]] = (uint32_t)i;
                for (i = 0; i < n; ++i)
                    if (tc[tat[i]] != gc[gat[i]]) ++bad_counts;
                for (s = 0; s < 256; ++s) { /* sampled queries: lists equal, and equal to a brute force */
                    size_t p = (size_t)(urand() * (double)n), j, m = 0;
                    uint32_t c = tc[tat[p]];
                    if (c > 4096 || gc[gat[p]] != c) { ++bad_lists; continue; }
                    list_of(tc, ts, ti, tat[p], la);
                    list_of(gc, gs, gi, gat[p], lb);
                    if (memcmp(la, lb, c * 4) != 0) ++bad_lists;
                    for (j = 0; j < n; ++j)
                        if (within(pos + 4 * j, pos + 4 * p, periodic, r2)) {
                            if (m >= c || la[m] != j) { ++bad_brute; break; }
                            ++m;
                        }
                    if (m != c) ++bad_brute;
                }
                free(tperm); free(gperm); free(tat); free(gat);
            }
            {
                double b = median(tb, runs), qt = median(tq, runs), bg = median(gb, runs), qg = median(gq, runs);
                printf("{\"n\": %lu, \"device\": \"%s\", \"boundary\": \"%s\", \"radius\": %.6g, "
                       "\"neighbours_per_query\": %.2f, \"tree_build_ms\": %.3f, \"tree_queries_ms\": %.3f, "
                       "\"tree_total_ms\": %.3f, \"grid_bin_ms\": %.3f, \"grid_queries_ms\": %.3f, "
                       "\"grid_total_ms\": %.3f, \"grid_cells_per_axis\": %d, \"totals_equal\": %s, "
                       "\"counts_differ\": %lu, \"lists_differ_of_256\": %lu, \"brute_force_differ_of_256\": %lu}\n",
                       (unsigned long)n, clsort_device_name(cs), periodic ? "periodic" : "open", (double)r,
                       (double)ttot / (double)n, 1e3 * b, 1e3 * qt, 1e3 * (b + qt), 1e3 * bg, 1e3 * qg,
                       1e3 * (bg + qg), g.cells, ttot == gtot ? "true" : "false", (unsigned long)bad_counts,
                       (unsigned long)bad_lists, (unsigned long)bad_brute);
                fflush(stdout);
                if (ttot != gtot || bad_counts || bad_lists || bad_brute) {
                    fprintf(stderr, "radius_bench: the routes disagree\n");
                    return 1;
                }
            }
        }
        grid_release(&g);
        clsort_tree_destroy(tree);
        clReleaseMemObject(dpos); clReleaseMemObject(dc); clReleaseMemObject(doff); clReleaseMemObject(di);
        free(pos); free(tp); free(tc); free(ts); free(ti); free(gc); free(gs); free(gi); free(la); free(lb);
    }
    clsort_destroy(cs);
    return 0;
}
