/* clsort demo: scan, pack, split, radix and bitonic sort on the default device
 * (CLSORT_DEVICE overrides), each checked against the CPU and timed; the exit
 * status is 1 when a result is wrong.
 *   demo [n]    n elements (default 2^22) */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static int fail(clsort_context *cs, const char *what)
{
    fprintf(stderr, "demo: %s failed: %s\n", what, clsort_last_error(cs));
    clsort_destroy(cs);
    return 1;
}

int main(int argc, char **argv)
{
    const size_t n = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : (size_t)1 << 22;
    uint32_t *in = (uint32_t *)malloc(n * 4), *flags = (uint32_t *)malloc(n * 4);
    uint32_t *out = (uint32_t *)malloc(n * 4), *ref = (uint32_t *)malloc(n * 4), total = 0, sum = 0;
    size_t i, kept = 0, ref_kept = 0, zeros = 0, errors = 0;
    unsigned seed = 12345;
    double t0, t_scan, t_pack, t_split;
    clsort_context *cs = NULL;

    if (n < 4096 || n > ((size_t)1 << 28)) {
        fprintf(stderr, "usage: demo [n, 4096 .. 2^28]\n");
        return 2;
    }
    if (!in || !flags || !out || !ref) {
        fprintf(stderr, "demo: out of host memory\n");
        return 1;
    }
    if (clsort_create(&cs, NULL) != CLSORT_SUCCESS) return fail(cs, "clsort_create");
    printf("device: %s (%s path)\n", clsort_device_name(cs),
           clsort_context_path(cs) == CLSORT_PATH_LOOKBACK ? "look-back" : "portable");
    for (i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        in[i] = seed >> 8;
        flags[i] = (seed >> 3) & 1;
    }

    /* warm-up builds the programs; the timed calls include upload and download */
    if (clsort_scan_host(cs, CLSORT_U32, 0, in, out, n, &total) != CLSORT_SUCCESS) return fail(cs, "scan");
    t0 = now_ms();
    if (clsort_scan_host(cs, CLSORT_U32, 0, in, out, n, &total) != CLSORT_SUCCESS) return fail(cs, "scan");
    t_scan = now_ms() - t0;
    for (i = 0; i < n; ++i) { errors += out[i] != sum; sum += in[i]; }
    errors += total != sum;
    printf("scan   %lu u32: %s, total %u, %.2f ms with transfers\n", (unsigned long)n,
           errors ? "WRONG" : "matches the CPU", total, t_scan);

    if (clsort_pack_host(cs, CLSORT_U32, in, flags, out, n, &kept) != CLSORT_SUCCESS) return fail(cs, "pack");
    t0 = now_ms();
    if (clsort_pack_host(cs, CLSORT_U32, in, flags, out, n, &kept) != CLSORT_SUCCESS) return fail(cs, "pack");
    t_pack = now_ms() - t0;
    for (i = 0; i < n; ++i) if (flags[i]) ref[ref_kept++] = in[i];
    {
        int ok = kept == ref_kept && memcmp(out, ref, kept * 4) == 0;
        errors += !ok;
        printf("pack   %lu u32, flags half set: %s, kept %lu, %.2f ms with transfers\n", (unsigned long)n,
               ok ? "matches the CPU" : "WRONG", (unsigned long)kept, t_pack);
    }

    if (clsort_split_host(cs, CLSORT_U32, in, flags, out, n, &zeros) != CLSORT_SUCCESS) return fail(cs, "split");
    t0 = now_ms();
    if (clsort_split_host(cs, CLSORT_U32, in, flags, out, n, &zeros) != CLSORT_SUCCESS) return fail(cs, "split");
    t_split = now_ms() - t0;
    {
        size_t z = 0, o = n - ref_kept;
        int ok = zeros == n - ref_kept;
        for (i = 0; i < n && ok; ++i) ok = flags[i] ? out[o++] == in[i] : out[z++] == in[i];
        errors += !ok;
        printf("split  %lu u32 (stable, flag 0 first): %s, %lu zeros, %.2f ms with transfers\n", (unsigned long)n,
               ok ? "matches the CPU" : "WRONG", (unsigned long)zeros, t_split);
    }
    /* radix sort, as a particle code uses it: 10-bit cell indices sorted in
     * 2 passes with the permutation, then the particles gathered by it */
    {
        typedef struct { float x, y, z, mass; uint32_t id; } particle; /* 20 bytes */
        particle *parts = (particle *)malloc(n * sizeof *parts), *sorted = (particle *)malloc(n * sizeof *parts);
        uint32_t *cells = (uint32_t *)malloc(n * 4), *perm = (uint32_t *)malloc(n * 4);
        clsort_sort_desc sd;
        cl_int e;
        cl_mem dparts, dsorted, dperm;
        double t_sort;
        int ok = parts && sorted && cells && perm;
        for (i = 0; ok && i < n; ++i) {
            parts[i].x = (float)(in[i] % 1000u); parts[i].y = 0; parts[i].z = 0; parts[i].mass = 1;
            parts[i].id = (uint32_t)i;
            cells[i] = (in[i] >> 3) & 1023u;
        }
        memset(&sd, 0, sizeof sd);
        sd.end_bit = 10; /* keys below 1024: 2 passes instead of 4 */
        if (!ok || clsort_sort_host(cs, CLSORT_U32, cells, NULL, perm, n, &sd) != CLSORT_SUCCESS)
            return fail(cs, "sort");
        memcpy(out, cells, n * 4);
        for (i = 0; i < n; ++i) cells[i] = (in[i] >> 3) & 1023u;
        t0 = now_ms();
        if (clsort_sort_host(cs, CLSORT_U32, cells, NULL, perm, n, &sd) != CLSORT_SUCCESS)
            return fail(cs, "sort");
        t_sort = now_ms() - t0;
        for (i = 0; i < n; ++i) { /* sorted, stable, each key the one its index names */
            ok = ok && cells[i] == ((in[perm[i]] >> 3) & 1023u) && cells[i] == out[i];
            if (i > 0) ok = ok && (cells[i - 1] < cells[i] || (cells[i - 1] == cells[i] && perm[i - 1] < perm[i]));
        }
        dparts = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * sizeof *parts, parts, &e);
        dsorted = e == CL_SUCCESS ? clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, n * sizeof *parts, NULL, &e) : NULL;
        dperm = e == CL_SUCCESS ? clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, perm, &e)
                                : NULL;
        if (e != CL_SUCCESS) {
            fprintf(stderr, "demo: clCreateBuffer failed (%d)\n", (int)e);
            return 1;
        }
        if (clsort_gather(cs, dparts, dsorted, dperm, n, sizeof *parts, NULL) != CLSORT_SUCCESS) return fail(cs, "gather");
        if (clEnqueueReadBuffer(clsort_cl_queue(cs), dsorted, CL_TRUE, 0, n * sizeof *parts, sorted, 0, NULL, NULL) !=
            CL_SUCCESS)
            return fail(cs, "reading the gathered particles");
        for (i = 0; i < n; ++i) ok = ok && sorted[i].id == perm[i];
        errors += !ok;
        printf("sort   %lu 10-bit cell keys + permutation, then gather of 20-byte particles: %s, %.2f ms with transfers\n",
               (unsigned long)n, ok ? "sorted and stable" : "WRONG", t_sort);
        clReleaseMemObject(dparts); clReleaseMemObject(dsorted); clReleaseMemObject(dperm);
        free(parts); free(sorted); free(cells); free(perm);
    }
    /* bitonic sort, batched: per-tile lists of f32 depths (a renderer's
     * tiles, variable lengths 0..1023 given by offsets), each list sorted
     * front to back with the index of each depth, in one call */
    {
        const size_t tiles = n / 1024; /* fewer than 1024 entries each: m < n */
        uint32_t *off = (uint32_t *)malloc((tiles + 1) * 4), *perm = (uint32_t *)malloc(n * 4);
        float *depth = (float *)malloc(n * 4), *orig = (float *)malloc(n * 4);
        clsort_bitonic_desc bd;
        size_t t, m;
        double t_bitonic;
        int ok = off && perm && depth && orig;
        for (t = 0, m = 0; ok && t < tiles; ++t) {
            off[t] = (uint32_t)m;
            m += (in[t] >> 4) % 1024u; /* 0 .. 1023 entries per tile */
        }
        if (ok) off[tiles] = (uint32_t)m; /* m < n entries in all */
        for (i = 0; ok && i < m; ++i) orig[i] = depth[i] = (float)(in[i] % 100000u) * 0.01f - 10.0f;
        memset(&bd, 0, sizeof bd);
        bd.type = CLSORT_F32;
        bd.segment_offsets_host = off;
        bd.segment_count = tiles;
        if (!ok || clsort_bitonic_sort_host(cs, CLSORT_F32, depth, NULL, perm, m, &bd) != CLSORT_SUCCESS)
            return fail(cs, "bitonic sort");
        memcpy(depth, orig, m * 4);
        t0 = now_ms();
        if (clsort_bitonic_sort_host(cs, CLSORT_F32, depth, NULL, perm, m, &bd) != CLSORT_SUCCESS)
            return fail(cs, "bitonic sort");
        t_bitonic = now_ms() - t0;
        for (t = 0; t < tiles; ++t) /* each list sorted, each depth the one its index names, in its own tile */
            for (i = off[t]; i < off[t + 1]; ++i) {
                ok = ok && perm[i] >= off[t] && perm[i] < off[t + 1] && depth[i] == orig[perm[i]];
                if (i > off[t]) ok = ok && depth[i - 1] <= depth[i];
            }
        errors += !ok;
        printf("bitonic %lu f32 depths in %lu per-tile lists of 0..1023 + permutation: %s, %.2f ms with transfers\n",
               (unsigned long)m, (unsigned long)tiles, ok ? "every list sorted" : "WRONG", t_bitonic);
        free(off); free(perm); free(depth); free(orig);
    }
    printf("device-only timings: make bench\n");
    clsort_destroy(cs);
    free(in); free(flags); free(out); free(ref);
    return errors ? 1 : 0;
}
