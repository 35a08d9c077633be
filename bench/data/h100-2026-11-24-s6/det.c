/* Determinism and correctness at large n on one device: sorts checked on the
 * host, repeated; tree builds repeated, each stage's buffers hashed. */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"
#include <stdio.h>
#include <stdlib.h>
static unsigned long long rs = 88172645463325252ull;
static unsigned long long xr(void) { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }
static double urand(void) { return (xr() >> 11) * (1.0 / 9007199254740992.0); }
static unsigned long long h64(const void *p, size_t n, unsigned long long h)
{ const unsigned char *b = (const unsigned char *)p; size_t i; for (i = 0; i < n; ++i) h = (h ^ b[i]) * 1099511628211ull; return h; }
static int cmpu32(const void *a, const void *b) { unsigned x = *(const unsigned *)a, y = *(const unsigned *)b; return x < y ? -1 : x > y; }
static int cmpu64(const void *a, const void *b) { unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b; return x < y ? -1 : x > y; }
static cl_mem buf(clsort_context *cs, size_t bytes, const void *src)
{ cl_int e; return clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | (src ? CL_MEM_COPY_HOST_PTR : 0), bytes, (void *)src, &e); }
static void rd(clsort_context *cs, cl_mem m, size_t bytes, void *dst) { clEnqueueReadBuffer(clsort_cl_queue(cs), m, CL_TRUE, 0, bytes, dst, 0, NULL, NULL); }

static void sorts(clsort_context *cs, size_t n, int reps)
{
    unsigned *k = (unsigned *)malloc(n * 4), *ref = (unsigned *)malloc(n * 4), *o = (unsigned *)malloc(n * 4), *v = (unsigned *)malloc(n * 4);
    unsigned long long *k64 = (unsigned long long *)malloc(n * 8), *r64 = (unsigned long long *)malloc(n * 8), *o64 = (unsigned long long *)malloc(n * 8);
    size_t i; int r, mode;
    for (i = 0; i < n; ++i) { k[i] = (unsigned)xr(); k64[i] = xr() >> 1; }
    memcpy(ref, k, n * 4); qsort(ref, n, 4, cmpu32);
    memcpy(r64, k64, n * 8); qsort(r64, n, 8, cmpu64);
    for (mode = 0; mode < 4; ++mode) {
        int bad = 0;
        for (r = 0; r < reps; ++r) {
            clsort_sort_desc d; cl_mem a, b, c = NULL, pv = NULL; size_t errs = 0;
            memset(&d, 0, sizeof d);
            if (mode == 3) { a = buf(cs, n * 8, k64); b = buf(cs, n * 8, NULL); d.type = CLSORT_U64; }
            else { a = buf(cs, n * 4, k); b = buf(cs, n * 4, NULL); }
            if (mode == 1) { for (i = 0; i < n; ++i) v[i] = (unsigned)i; c = buf(cs, n * 4, v); pv = buf(cs, n * 4, NULL); d.values_in = c; d.values_out = pv; d.value_size = 4; }
            if (mode == 2 || mode == 3) { pv = buf(cs, n * 4, NULL); d.permutation = pv; }
            if (mode == 2) d.end_bit = 10;
            if (clsort_sort(cs, a, b, n, &d, NULL) != CLSORT_SUCCESS) { printf("sort: %s\n", clsort_last_error(cs)); exit(1); }
            if (mode == 3) {
                rd(cs, b, n * 8, o64);
                for (i = 0; i < n; ++i) errs += o64[i] != r64[i];
            } else {
                rd(cs, b, n * 4, o);
                if (mode != 2) for (i = 0; i < n; ++i) errs += o[i] != ref[i];
                else for (i = 1; i < n; ++i) errs += (o[i - 1] & 1023u) > (o[i] & 1023u);
            }
            if (pv) {
                rd(cs, pv, n * 4, v);
                for (i = 0; i < n; ++i) {
                    if (v[i] >= n) { errs++; continue; }
                    if (mode == 3 ? k64[v[i]] != o64[i] : k[v[i]] != o[i]) errs++;
                    if (i && (mode == 3 ? o64[i] == o64[i - 1] : (mode == 2 ? (o[i] & 1023u) == (o[i - 1] & 1023u) : o[i] == o[i - 1])) && v[i] <= v[i - 1]) errs++;
                }
            }
            if (errs) { bad++; printf("  n %lu mode %d rep %d: %lu wrong\n", (unsigned long)n, mode, r, (unsigned long)errs); }
            clReleaseMemObject(a); clReleaseMemObject(b); if (c) clReleaseMemObject(c); if (pv) clReleaseMemObject(pv);
        }
        printf("sort n %lu mode %d (0 u32, 1 pairs, 2 10-bit+perm, 3 u64+perm): %d of %d runs wrong\n", (unsigned long)n, mode, bad, reps);
    }
    free(k); free(ref); free(o); free(v); free(k64); free(r64); free(o64);
}

static void trees(clsort_context *cs, size_t n, int reps, float radius)
{
    float *pos = (float *)malloc(n * 16);
    size_t i, total = 0; int r;
    cl_mem dp, dc, doff;
    void *h = malloc(n * 32);
    clsort_tree_desc td; clsort_tree_radius_desc rdsc;
    rs = 88172645463325252ull;
    for (i = 0; i < n; ++i) {
        double q = urand(); q = q * q;
        pos[4 * i] = (float)((urand() * 2 - 1) * q); pos[4 * i + 1] = (float)((urand() * 2 - 1) * q);
        pos[4 * i + 2] = (float)((urand() * 2 - 1) * q); pos[4 * i + 3] = (float)(0.5 + urand()) / (float)n;
    }
    dp = buf(cs, n * 16, pos); dc = buf(cs, n * 4, NULL); doff = buf(cs, n * 4 + 4, NULL);
    memset(&td, 0, sizeof td); td.has_mass = 1; td.mass_offset = 12;
    for (r = 0; r < reps; ++r) {
        clsort_tree *tree = NULL; clsort_tree_view v;
        clsort_tree_create(cs, &tree);
        if (clsort_tree_build(cs, tree, dp, n, &td, NULL) != CLSORT_SUCCESS) { printf("build: %s\n", clsort_last_error(cs)); exit(1); }
        clsort_tree_get_view(tree, &v);
        printf("tree rep %d:", r);
        rd(cs, v.codes, n * v.code_size, h); printf(" codes %016llx", h64(h, n * v.code_size, 1469598103934665603ull));
        rd(cs, v.permutation, n * 4, h); printf(" perm %016llx", h64(h, n * 4, 1469598103934665603ull));
        rd(cs, v.points, n * 16, h); printf(" points %016llx", h64(h, n * 16, 1469598103934665603ull));
        rd(cs, v.nodes, (n - 1) * 16, h); printf(" nodes %016llx", h64(h, (n - 1) * 16, 1469598103934665603ull));
        rd(cs, v.box_lo, (n - 1) * 16, h); printf(" lo %016llx", h64(h, (n - 1) * 16, 1469598103934665603ull));
        rd(cs, v.box_hi, (n - 1) * 16, h); printf(" hi %016llx", h64(h, (n - 1) * 16, 1469598103934665603ull));
        rd(cs, v.com, (n - 1) * 16, h); printf(" com %016llx", h64(h, (n - 1) * 16, 1469598103934665603ull));
        { int q; for (q = 0; q < 3; ++q) {
        clsort_nbody_desc nd; cl_mem da = buf(cs, n * 16, NULL);
        memset(&rdsc, 0, sizeof rdsc); rdsc.radius = radius; rdsc.counts = dc; rdsc.offsets = doff;
        if (clsort_tree_radius(cs, tree, dp, n, &rdsc, &total, NULL) != CLSORT_SUCCESS) { printf("radius: %s\n", clsort_last_error(cs)); exit(1); }
        rd(cs, dc, n * 4, h); printf("\n   radius total %lu counts %016llx", (unsigned long)total, h64(h, n * 4, 1469598103934665603ull));
        memset(&nd, 0, sizeof nd); nd.softening2 = 1e-4f; nd.theta = 0.5f; nd.G = 1;
        if (clsort_tree_accel(cs, tree, da, &nd, NULL) != CLSORT_SUCCESS) { printf("accel: %s\n", clsort_last_error(cs)); exit(1); }
        rd(cs, da, n * 16, h); printf(" accel %016llx", h64(h, n * 16, 1469598103934665603ull));
        clReleaseMemObject(da); } printf("\n"); }
        clsort_tree_destroy(tree);
    }
    clReleaseMemObject(dp); clReleaseMemObject(dc); clReleaseMemObject(doff); free(pos); free(h);
}

int main(int argc, char **argv)
{
    clsort_context *cs = NULL; clsort_context_desc cd;
    int what = argc > 1 ? atoi(argv[1]) : 3;
    memset(&cd, 0, sizeof cd);
    if (clsort_create(&cs, &cd) != CLSORT_SUCCESS) { printf("create: %s\n", clsort_last_error(cs)); return 1; }
    printf("device %s\n", clsort_device_name(cs));
    if (what & 1) { sorts(cs, (size_t)1 << 20, 4); sorts(cs, ((size_t)1 << 22) + 77, 3); sorts(cs, (size_t)1 << 24, 2); }
    if (what & 2) trees(cs, (size_t)1 << 20, 5, 0.0008f);
    clsort_destroy(cs);
    return 0;
}
