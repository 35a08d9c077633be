/* Large n: buffers past 2^32 bytes. Sorts 2^k u32 keys (default k = 31, an
 * 8 GiB buffer) and scans them, on the default device, checking the result
 * on the host: the keys in order, the same multiset (sum, xor and sum of
 * squares), the exclusive scan at sampled points. Needs ~3x the key bytes of
 * device memory and ~2x of host memory: a GPU-machine test, not part of CI.
 *   build/test_large [log2 n]
 *   build/test_large wide12   2^31 + 2^22 u32 keys with u32 values, 12-bit
 *                             digits: 4096 digits x the tiles pass 2^32
 *                             digit counts (the kernels once
 *                             indexed them in 32 bits); ~35 GB of device and
 *                             ~26 GB of host memory
 *   build/test_large bin32    clsort_bin (atomic counting) on a 65536 x 65536
 *                             grid: 2^32 cells, 2^32 + 1 counters that the
 *                             clear kernel counted in 32 bits (cleared 1
 *                             word; the same class of 32-bit index); run twice so the
 *                             second call finds the first's counts; ~40 GB
 *                             of device and ~17 GB of host memory
 *   build/test_large scan4    a u32 scan of 2^33 elements with 4 x 1 tiles
 *                             on the look-back path: 2^31 tiles, past the
 *                             look-back's int tile numbers (reduce-then-scan
 *                             runs there now); ~45 GB of device memory,
 *                             1 GiB of host memory
 *   build/test_large bitonic32 clsort_bitonic_sort of 2^31 + 2^20 u32 keys:
 *                             the last merge stage is 2^32, which the host
 *                             passed to the tile kernel truncated to 32 bits
 *                             (0: a tile sort instead of a merge); ~17 GB of
 *                             device and ~17 GB of host memory
 * Ends with "N passed, N failed". */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int passed, failed;
static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (ok) ++passed; else ++failed;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* In place, keys with their input index as value, 12-bit digits; checks
 * order, pairing (keys[i] == h[values[i]]), stability and that the values
 * are a permutation (sum and xor of the indices). */
static int test_wide12(void)
{
    size_t n = ((size_t)1 << 31) + ((size_t)1 << 22), i;
    uint32_t *h = (uint32_t *)malloc(n * 4), *kb = (uint32_t *)malloc(n * 4), *vb = (uint32_t *)malloc(n * 4);
    uint64_t x = 0x2545F4914F6CDD1Dull, vsum = 0;
    uint32_t vx = 0, ix = 0;
    clsort_context *cs = NULL;
    cl_command_queue q;
    cl_mem keys, vals;
    cl_int e;
    clsort_sort_desc sd;
    double t0, t1;
    int ok;
    if (!h || !kb || !vb || clsort_create(&cs, NULL) != CLSORT_SUCCESS) {
        printf("setup failed: %s\n0 passed, 1 failed\n", cs ? clsort_last_error(cs) : "host memory");
        return 1;
    }
    q = clsort_cl_queue(cs);
    printf("device %s, n = 2^31 + 2^22 u32 keys + u32 values, radix_bits 12\n", clsort_device_name(cs));
    for (i = 0; i < n; ++i) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        h[i] = (uint32_t)(x >> 40) * 257u; /* 2^24 distinct keys over all 32 bits: ~128 copies each, so stability is checked */
        kb[i] = (uint32_t)i;
        ix ^= (uint32_t)i;
    }
    keys = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, n * 4, NULL, &e);
    vals = e == CL_SUCCESS ? clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, n * 4, NULL, &e) : NULL;
    if (e != CL_SUCCESS || clEnqueueWriteBuffer(q, keys, CL_TRUE, 0, n * 4, h, 0, NULL, NULL) != CL_SUCCESS ||
        clEnqueueWriteBuffer(q, vals, CL_TRUE, 0, n * 4, kb, 0, NULL, NULL) != CL_SUCCESS) {
        printf("device buffers: error %d\n0 passed, 1 failed\n", (int)e);
        return 1;
    }
    memset(&sd, 0, sizeof sd);
    sd.radix_bits = 12;
    sd.values_in = sd.values_out = vals;
    t0 = now_s();
    ok = clsort_sort(cs, keys, keys, n, &sd, NULL) == CLSORT_SUCCESS;
    clFinish(q);
    t1 = now_s();
    if (!ok) printf("  %s\n", clsort_last_error(cs));
    printf("  sort (first call, with builds): %.1f ms\n", (t1 - t0) * 1e3);
    ok = ok && clEnqueueReadBuffer(q, keys, CL_TRUE, 0, n * 4, kb, 0, NULL, NULL) == CL_SUCCESS &&
         clEnqueueReadBuffer(q, vals, CL_TRUE, 0, n * 4, vb, 0, NULL, NULL) == CL_SUCCESS;
    {
        size_t bad = n;
        for (i = 0; i < n && ok; ++i) {
            if (vb[i] >= n || kb[i] != h[vb[i]] || (i && (kb[i - 1] > kb[i] || (kb[i - 1] == kb[i] && vb[i - 1] >= vb[i]))))
                ok = 0, bad = i;
            vsum += vb[i];
            vx ^= vb[i];
        }
        if (!ok && bad < n) printf("  first bad index %lu\n", (unsigned long)bad);
    }
    check(ok, "12-bit digits, 2^31 + 2^22 keys with values: sorted, stable, values follow their keys");
    check(ok && vsum == (uint64_t)n * (n - 1) / 2 && vx == ix, "12-bit digits, 2^31 + 2^22: values are a permutation");
    clReleaseMemObject(keys);
    clReleaseMemObject(vals);
    clsort_destroy(cs);
    free(h); free(kb); free(vb);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

/* clsort_bin, CLSORT_BIN_ATOMIC, 2^32 cells; the offsets checked whole
 * against the sorted keys (offsets[k] <= i < offsets[k + 1] for the particle
 * at sorted position i, non-decreasing, offsets[0] = 0, offsets[cells] = n). */
static int test_bin32(unsigned axis_log)
{
    const size_t n = (size_t)1 << 20, side = (size_t)1 << axis_log, cells = side * side;
    float *pos = (float *)malloc(n * 8);
    uint32_t *keys = (uint32_t *)malloc(n * 4), *perm = (uint32_t *)malloc(n * 4);
    uint32_t *off = (uint32_t *)malloc((cells + 1) * 4);
    uint64_t x = 0x2545F4914F6CDD1Dull;
    clsort_context *cs = NULL;
    cl_command_queue q;
    cl_mem dpos, dkeys, dperm, doff;
    cl_int e;
    clsort_bin_desc bd;
    size_t i, c;
    int round;
    if (!pos || !keys || !perm || !off || clsort_create(&cs, NULL) != CLSORT_SUCCESS) {
        printf("setup failed: %s\n0 passed, 1 failed\n", cs ? clsort_last_error(cs) : "host memory");
        return 1;
    }
    q = clsort_cl_queue(cs);
    printf("device %s, clsort_bin atomic, 2^20 particles on %lu x %lu cells\n", clsort_device_name(cs), (unsigned long)side,
           (unsigned long)side);
    for (i = 0; i < 2 * n; ++i) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        pos[i] = (float)(x >> 40) / 16777216.0f; /* [0, 1) */
    }
    dpos = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, n * 8, NULL, &e);
    dkeys = e == CL_SUCCESS ? clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, n * 4, NULL, &e) : NULL;
    dperm = e == CL_SUCCESS ? clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, n * 4, NULL, &e) : NULL;
    doff = e == CL_SUCCESS ? clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, (cells + 1) * 4, NULL, &e) : NULL;
    if (e != CL_SUCCESS || clEnqueueWriteBuffer(q, dpos, CL_TRUE, 0, n * 8, pos, 0, NULL, NULL) != CL_SUCCESS) {
        printf("device buffers: error %d\n0 passed, 1 failed\n", (int)e);
        return 1;
    }
    memset(&bd, 0, sizeof bd);
    bd.grid.dims = 2;
    bd.grid.cells[0] = bd.grid.cells[1] = (unsigned)side;
    bd.grid.cell_size[0] = bd.grid.cell_size[1] = 1.0f / (float)side;
    bd.method = CLSORT_BIN_ATOMIC;
    bd.cell_keys = dkeys;
    bd.permutation = dperm;
    bd.cell_offsets = doff;
    for (round = 0; round < 2; ++round) { /* the second finds the first's counts in the counters */
        char what[160];
        int ok = clsort_bin(cs, dpos, n, &bd, NULL) == CLSORT_SUCCESS, mono = 1, inside = 1, perm_ok = 1;
        if (!ok) printf("  %s\n", clsort_last_error(cs));
        ok = ok && clEnqueueReadBuffer(q, dkeys, CL_TRUE, 0, n * 4, keys, 0, NULL, NULL) == CL_SUCCESS &&
             clEnqueueReadBuffer(q, dperm, CL_TRUE, 0, n * 4, perm, 0, NULL, NULL) == CL_SUCCESS &&
             clEnqueueReadBuffer(q, doff, CL_TRUE, 0, (cells + 1) * 4, off, 0, NULL, NULL) == CL_SUCCESS;
        for (c = 0; ok && c < cells; ++c) mono &= off[c] <= off[c + 1];
        for (i = 0; ok && i < n; ++i) {
            uint32_t p = perm[i], k = keys[i];
            uint32_t cx = (uint32_t)(pos[2 * (size_t)p] * (float)side), cy = (uint32_t)(pos[2 * (size_t)p + 1] * (float)side);
            inside &= off[k] <= i && i < off[(size_t)k + 1];
            perm_ok &= p < n && k == cy * (uint32_t)side + cx;
        }
        snprintf(what, sizeof what, "bin atomic 2^32 cells, call %d: offsets[0] = 0, offsets[2^32] = n, non-decreasing",
                 round + 1);
        check(ok && off[0] == 0 && off[cells] == n && mono, what);
        snprintf(what, sizeof what, "bin atomic 2^32 cells, call %d: every particle inside its cell's range", round + 1);
        check(ok && inside, what);
        snprintf(what, sizeof what, "bin atomic 2^32 cells, call %d: keys are the particles' cells", round + 1);
        check(ok && perm_ok, what);
    }
    clReleaseMemObject(dpos); clReleaseMemObject(dkeys); clReleaseMemObject(dperm); clReleaseMemObject(doff);
    clsort_destroy(cs);
    free(pos); free(keys); free(perm); free(off);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

/* 2^33 u32 elements, exclusive scan in place with a 4 x 1 tile on the
 * look-back path; input x[i] = (i * 2654435761) >> 29 (0..7), written and
 * checked in 1 GiB chunks against a running sum. */
static int test_scan4(unsigned lg)
{
    const size_t n = (size_t)1 << lg, chunk = n < ((size_t)1 << 28) ? n : (size_t)1 << 28;
    uint32_t *h = (uint32_t *)malloc(chunk * 4), run = 0, total = 0;
    clsort_context *cs = NULL;
    clsort_context_desc cd;
    cl_command_queue q;
    cl_mem buf, tot;
    cl_int e;
    clsort_scan_desc sc;
    size_t i, at;
    double t0, t1;
    int ok, match = 1;
    memset(&cd, 0, sizeof cd);
    cd.path = CLSORT_PATH_LOOKBACK;
    cd.tuning.tile_wg = 4;
    cd.tuning.tile_items = 1;
    if (!h || clsort_create(&cs, &cd) != CLSORT_SUCCESS) {
        printf("setup failed: %s\n0 passed, 1 failed\n", cs ? clsort_last_error(cs) : "host memory");
        return 1;
    }
    q = clsort_cl_queue(cs);
    printf("device %s, scan of 2^%u u32 with 4 x 1 tiles, look-back path\n", clsort_device_name(cs), lg);
    buf = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, n * 4, NULL, &e);
    tot = e == CL_SUCCESS ? clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, 4, NULL, &e) : NULL;
    for (at = 0; e == CL_SUCCESS && at < n; at += chunk) {
        for (i = 0; i < chunk; ++i) h[i] = (uint32_t)((uint32_t)(at + i) * 2654435761u) >> 29;
        e = clEnqueueWriteBuffer(q, buf, CL_TRUE, at * 4, chunk * 4, h, 0, NULL, NULL);
    }
    if (e != CL_SUCCESS) {
        printf("device buffers: error %d\n0 passed, 1 failed\n", (int)e);
        return 1;
    }
    memset(&sc, 0, sizeof sc);
    sc.total = tot;
    t0 = now_s();
    ok = clsort_scan(cs, buf, buf, n, &sc, NULL) == CLSORT_SUCCESS;
    clFinish(q);
    t1 = now_s();
    if (!ok) printf("  %s\n", clsort_last_error(cs));
    printf("  scan: %.1f ms\n", (t1 - t0) * 1e3);
    for (at = 0; ok && at < n; at += chunk) {
        ok = clEnqueueReadBuffer(q, buf, CL_TRUE, at * 4, chunk * 4, h, 0, NULL, NULL) == CL_SUCCESS;
        for (i = 0; ok && i < chunk; ++i) {
            if (h[i] != run && match) {
                printf("  first mismatch at %lu: %u, expected %u\n", (unsigned long)(at + i), h[i], run);
                match = 0;
            }
            run += (uint32_t)((uint32_t)(at + i) * 2654435761u) >> 29;
        }
    }
    ok = ok && clEnqueueReadBuffer(q, tot, CL_TRUE, 0, 4, &total, 0, NULL, NULL) == CL_SUCCESS;
    check(ok && match, "scan 2^33 u32, 4 x 1 tiles (2^31 tiles): every prefix");
    check(ok && total == run, "scan 2^33 u32, 4 x 1 tiles: desc.total");
    clReleaseMemObject(buf); clReleaseMemObject(tot);
    clsort_destroy(cs);
    free(h);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

/* A bitonic sort past 2^31 keys (stage 2^32), in place: ascending, and the
 * same keys (sum, sum of squares, xor). */
static int test_bitonic32(unsigned extra_log)
{
    size_t n = ((size_t)1 << 31) + ((size_t)1 << extra_log), i, bytes = n * 4;
    uint32_t *h = (uint32_t *)malloc(bytes);
    uint64_t x = 0x9E3779B97F4A7C15ull, sum = 0, sq = 0, sum2 = 0, sq2 = 0;
    uint32_t xr = 0, xr2 = 0;
    clsort_context *cs = NULL;
    clsort_bitonic_desc bd;
    cl_command_queue q;
    cl_mem keys;
    cl_int e;
    double t0, t1;
    int ok;
    if (!h || clsort_create(&cs, NULL) != CLSORT_SUCCESS) {
        printf("setup failed: %s\n0 passed, 1 failed\n", cs ? clsort_last_error(cs) : "host memory");
        return 1;
    }
    q = clsort_cl_queue(cs);
    printf("device %s, bitonic sort of 2^31 + 2^%u u32 keys\n", clsort_device_name(cs), extra_log);
    for (i = 0; i < n; ++i) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        h[i] = (uint32_t)(x >> 17);
        sum += h[i]; sq += (uint64_t)h[i] * h[i]; xr ^= h[i];
    }
    keys = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, bytes, NULL, &e);
    if (e != CL_SUCCESS || clEnqueueWriteBuffer(q, keys, CL_TRUE, 0, bytes, h, 0, NULL, NULL) != CL_SUCCESS) {
        printf("device buffer of %lu bytes: error %d\n0 passed, 1 failed\n", (unsigned long)bytes, (int)e);
        return 1;
    }
    memset(&bd, 0, sizeof bd);
    t0 = now_s();
    ok = clsort_bitonic_sort(cs, keys, keys, n, &bd, NULL) == CLSORT_SUCCESS;
    clFinish(q);
    t1 = now_s();
    if (!ok) printf("  %s\n", clsort_last_error(cs));
    printf("  bitonic sort: %.1f ms\n", (t1 - t0) * 1e3);
    if (ok) ok = clEnqueueReadBuffer(q, keys, CL_TRUE, 0, bytes, h, 0, NULL, NULL) == CL_SUCCESS;
    for (i = 0; i < n && ok; ++i) {
        if (i && h[i - 1] > h[i]) {
            printf("  out of order at %lu: %u > %u\n", (unsigned long)i, h[i - 1], h[i]);
            ok = 0;
        }
        sum2 += h[i]; sq2 += (uint64_t)h[i] * h[i]; xr2 ^= h[i];
    }
    check(ok, "bitonic sort of 2^31 + 2^k u32 (stage 2^32): ascending");
    check(ok && sum == sum2 && sq == sq2 && xr == xr2, "bitonic sort past 2^31 keys: same keys (sum, squares, xor)");
    clReleaseMemObject(keys);
    clsort_destroy(cs);
    free(h);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
    unsigned lg = argc > 1 ? (unsigned)atoi(argv[1]) : 31;
    if (argc > 1 && strcmp(argv[1], "wide12") == 0) return test_wide12();
    /* an optional second argument shrinks them for a smoke test: log2 of the cells per axis (16), log2 n (33) */
    if (argc > 1 && strcmp(argv[1], "bin32") == 0) return test_bin32(argc > 2 ? (unsigned)atoi(argv[2]) : 16);
    if (argc > 1 && strcmp(argv[1], "scan4") == 0) return test_scan4(argc > 2 ? (unsigned)atoi(argv[2]) : 33);
    if (argc > 1 && strcmp(argv[1], "bitonic32") == 0) return test_bitonic32(argc > 2 ? (unsigned)atoi(argv[2]) : 20);
    size_t n = (size_t)1 << lg, i, bytes = n * 4;
    uint32_t *h = (uint32_t *)malloc(bytes), *back = (uint32_t *)malloc(bytes);
    uint64_t x = 0x9E3779B97F4A7C15ull, sum = 0, sq = 0, sum2 = 0, sq2 = 0;
    uint32_t xr = 0, xr2 = 0;
    clsort_context *cs = NULL;
    cl_command_queue q;
    cl_mem keys, out;
    cl_int e;
    clsort_sort_desc sd;
    clsort_scan_desc sc;
    double t0, t1;
    int ok;
    if (!h || !back) {
        printf("out of host memory for 2^%u keys\n0 passed, 1 failed\n", lg);
        return 1;
    }
    if (clsort_create(&cs, NULL) != CLSORT_SUCCESS) {
        printf("clsort_create: %s\n0 passed, 1 failed\n", clsort_last_error(cs));
        return 1;
    }
    q = clsort_cl_queue(cs);
    printf("device %s, n = 2^%u u32 keys (%.1f GiB)\n", clsort_device_name(cs), lg, (double)bytes / (1 << 30));
    for (i = 0; i < n; ++i) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        h[i] = (uint32_t)(x >> 17);
        sum += h[i]; sq += (uint64_t)h[i] * h[i]; xr ^= h[i];
    }
    keys = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, bytes, NULL, &e);
    out = e == CL_SUCCESS ? clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, bytes, NULL, &e) : NULL;
    if (e != CL_SUCCESS || clEnqueueWriteBuffer(q, keys, CL_TRUE, 0, bytes, h, 0, NULL, NULL) != CL_SUCCESS) {
        printf("device buffers of %lu bytes: error %d\n0 passed, 1 failed\n", (unsigned long)bytes, (int)e);
        return 1;
    }
    /* exclusive scan of the keys (u32, wrapping), checked at sampled points */
    memset(&sc, 0, sizeof sc);
    ok = clsort_scan(cs, keys, out, n, &sc, NULL) == CLSORT_SUCCESS; /* warm-up: builds the programs */
    clFinish(q);
    t0 = now_s();
    ok = ok && clsort_scan(cs, keys, out, n, &sc, NULL) == CLSORT_SUCCESS;
    clFinish(q);
    t1 = now_s();
    if (!ok) printf("  %s\n", clsort_last_error(cs));
    else {
        uint32_t acc = 0, got;
        size_t next = 0, stride = n / 1000 + 1;
        for (i = 0; i < n && ok; ++i) {
            if (i == next || i == n - 1) {
                clEnqueueReadBuffer(q, out, CL_TRUE, i * 4, 4, &got, 0, NULL, NULL);
                ok = got == acc;
                next += stride;
            }
            acc += h[i];
        }
    }
    printf("  scan: %.2f ms, %.1f G/s\n", (t1 - t0) * 1e3, (double)n / (t1 - t0) * 1e-9);
    check(ok, "scan of 2^k u32 (1000 sampled prefixes)");
    /* sort */
    memset(&sd, 0, sizeof sd);
    ok = clsort_sort(cs, keys, out, n, &sd, NULL) == CLSORT_SUCCESS; /* warm-up */
    clFinish(q);
    t0 = now_s();
    ok = ok && clsort_sort(cs, keys, out, n, &sd, NULL) == CLSORT_SUCCESS;
    clFinish(q);
    t1 = now_s();
    if (!ok) printf("  %s\n", clsort_last_error(cs));
    printf("  sort: %.2f ms, %.2f Gkeys/s\n", (t1 - t0) * 1e3, (double)n / (t1 - t0) * 1e-9);
    if (ok) ok = clEnqueueReadBuffer(q, out, CL_TRUE, 0, bytes, back, 0, NULL, NULL) == CL_SUCCESS;
    for (i = 0; i < n && ok; ++i) {
        if (i && back[i - 1] > back[i]) ok = 0;
        sum2 += back[i]; sq2 += (uint64_t)back[i] * back[i]; xr2 ^= back[i];
    }
    check(ok, "sort of 2^k u32: ascending");
    check(ok && sum == sum2 && sq == sq2 && xr == xr2, "sort of 2^k u32: same keys (sum, squares, xor)");
    clReleaseMemObject(keys);
    clReleaseMemObject(out);
    clsort_destroy(cs);
    free(h); free(back);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
