/* clsort bench: times each primitive on one device and prints one JSON line
 * per measurement.
 *
 *   build/bench [log2 sizes...]        default 16 20 24 (CLSORT_DEVICE picks the device)
 *
 * Timing: clFinish, then a monotonic host clock around the call and a second
 * clFinish, so the figure covers every kernel of the call and its launch cost.
 * One warm-up call (builds programs), then the median of BENCH_RUNS (default 15).
 * Alongside, "copy" (clEnqueueCopyBuffer of the same bytes) gives the device's
 * practical bandwidth ceiling, and on every device a plain C loop doing the same
 * work on the host gives the CPU baseline ("device":"host C loop"; for the sort,
 * std::sort of the same keys, "device":"host std::sort"). BENCH_ONLY=sort
 * (a substring of the primitive names) restricts the run; BENCH_ONLY="copy bitonic_seg1024 bitonic_u32 bitonic_var"
 * gives the copy and bitonic rows: bitonic_seg1024 (n/1024 segments of 1024 u32 keys,
 * CUB DeviceSegmentedSort's case), bitonic_u32 (one array of n u32) and
 * bitonic_var (random segments of 0..2047 keys from device offsets; the time
 * includes the offsets read-back and the plan upload).
 * BENCH_VARIANT (a list whose substrings are variant names, e.g. "u32_keys
 * u32_exclusive") keeps only those variants; BENCH_HOST=0 leaves out the host
 * rows (std::sort at 2^24 takes seconds).
 * Sort rows of issue 22: u8_keys and u16_keys (all 8 / 16 bits: 1 and 2
 * passes) and u32_keys_16byte_values (a float4 per key); their CUB peers are
 * bench/cub_sort_narrow.cu (cub_sortkeys_u8, cub_sortkeys_u16,
 * cub_sortpairs_u32_v16).
 *
 * N-body (O(N^2), so never part of the default run): BENCH_ONLY=nbody, the
 * sizes are log2 N (e.g. 14 16 18). Rows: the tiled kernel in float, float
 * with native_rsqrt, double (where the device has it), the atomic pair kernel
 * (Newton's third law), and the plain C loop on the host (-O3, one thread, N
 * <= 2^BENCH_NBODY_HOST_MAX, default 14). "items_per_s" is interactions per
 * second: N^2 per evaluation (also for the atomic kernel, which evaluates
 * each pair once). Each timed call is BENCH_NBODY_STEPS (default 4) steps of
 * the tutorial integrator (one evaluation each, no host transfer).
 * CLSORT_NBODY="wg:ib:js[:flags]" sets the shape (shown as "shape");
 * BENCH_NBODY_VARIANTS="f32_tiled,f64_tiled," (each name followed by a comma)
 * keeps only those rows. bench/nbody_gpu.sh runs the GPU sweep. */
#define CLSORT_IMPLEMENTATION
#include "../clsort.h"

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

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static unsigned long long rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 11);
}

typedef enum { OP_COPY, OP_SCAN_U32, OP_SCAN_U32_INCL, OP_SCAN_F32, OP_SCAN_U64, OP_ENUMERATE, OP_PACK, OP_PACK_KV, OP_SPLIT, OP_SPLIT_BIT,
               OP_SORT_U32, OP_SORT_PAIRS, OP_SORT_B16, OP_SORT_B10, OP_SORT_U64, OP_SORT_PERM, OP_SORT_TEMP,
               OP_SORT_B10_1PASS, OP_SORT_U8, OP_SORT_U16, OP_SORT_PAIRS_V16, OP_BIN_SORT_GATHER, OP_BIN_SORT, OP_BIN_SORT_1PASS, OP_BIN_ATOMIC,
               OP_BITONIC_SEG1024, OP_BITONIC_U32, OP_BITONIC_VAR,
               OP_REDUCE_U32, OP_REDUCE_F32, OP_SEGSCAN_NONE, OP_SEGSCAN_FLAGS, OP_SEGSCAN_FLAGS8, OP_SCAN_BY_KEY, OP_SEGREDUCE,
               OP_REDUCE_BY_KEY, OP_RLE, OP_UNIQUE, OP_HISTOGRAM, OP_LAST = OP_HISTOGRAM } op_kind;
static const char *op_names[][2] = {
    {"copy", "u32"}, {"scan", "u32_exclusive"}, {"scan", "u32_inclusive"}, {"scan", "f32_exclusive"},
    {"scan", "u64_exclusive"}, {"enumerate", "u32_flags_half"}, {"pack", "u32_flags_half"},
    {"pack", "u32_u32_flags_half"}, {"split", "u32_flags_half"}, {"split", "u32_key_bit"},
    {"sort", "u32_keys"}, {"sort", "u32_u32_pairs"}, {"sort", "u32_keys_16bit"}, {"sort", "u32_keys_10bit"},
    {"sort", "u64_keys"}, {"sort", "u32_keys_permutation"}, {"sort", "u32_keys_caller_temp"},
    {"sort", "u32_keys_10bit_1pass"}, {"sort", "u8_keys"}, {"sort", "u16_keys"}, {"sort", "u32_keys_16byte_values"},
    {"bin", "sort10_perm_gather_f4"}, {"bin", "32x32_sort_f4"},
    {"bin", "32x32_sort_1pass_f4"}, {"bin", "32x32_atomic_f4"},
    {"bitonic_seg1024", "u32_keys_1024_segments"}, {"bitonic_u32", "u32_keys"},
    {"bitonic_var", "u32_keys_segments_0_to_2047_device_offsets"},
    {"reduce", "u32_sum"}, {"reduce", "f32_sum"}, {"segmented_scan", "u32_sum_inclusive_no_segments"},
    {"segmented_scan", "u32_sum_inclusive_u32_flags_mean_1000"}, {"segmented_scan", "u32_sum_inclusive_u8_flags_mean_1000"},
    {"scan_by_key", "u32_sum_inclusive_mean_run_1000"},
    {"segmented_reduce", "u32_sum_offsets_mean_1000"}, {"reduce_by_key", "u32_keys_u32_sum_mean_run_1000"},
    {"run_length_encode", "u32_keys_mean_run_1000"}, {"unique", "u32_keys_mean_run_1000"},
    {"histogram", "u32_256_even_bins"}};

/* std::sort of the same keys (bench/std_sort.cpp): the CPU baseline of the sort */
extern void bench_std_sort(uint32_t *keys, size_t n);
/* the plain C N-body loop (bench/nbody_host.c, -O3) */
extern void bench_nbody_host(const float *pos, float *acc, size_t n, float eps2);

static double median(double *t, int runs);

static void report_nbody(const char *dev, const char *variant, size_t n, double ms_per_eval)
{
    const char *shape = getenv("CLSORT_NBODY");
    printf("{\"primitive\":\"nbody\",\"variant\":\"%s\",\"n\":%lu,\"ms\":%.4f,\"items_per_s\":%.4g,"
           "\"shape\":\"%s\",\"device\":\"%s\"}\n",
           variant, (unsigned long)n, ms_per_eval, (double)n * (double)n / (ms_per_eval * 1e-3),
           shape ? shape : "auto", dev);
    fflush(stdout);
}

/* A context on cs's OpenCL objects with the N-body shape of $CLSORT_NBODY
 * ("0:0:0" = automatic) plus native_rsqrt: the native row. */
static clsort_context *native_context(clsort_context *cs)
{
    const char *env = getenv("CLSORT_NBODY");
    clsort_context_desc d;
    clsort_context *out = NULL;
    unsigned wg = 0, ib = 0, js = 0;
    char flags[8] = "";
    memset(&d, 0, sizeof d);
    d.context = clsort_cl_context(cs);
    d.device = clsort_cl_device(cs);
    d.queue = clsort_cl_queue(cs);
    if (env) sscanf(env, "%u:%u:%u:%7s", &wg, &ib, &js, flags);
    d.tuning.nbody_wg = wg;
    d.tuning.nbody_ib = ib;
    d.tuning.nbody_js = js;
    d.tuning.nbody_flags = CLSORT_TUNE_NATIVE_RSQRT | (strchr(flags, 'f') ? CLSORT_TUNE_FAST_MATH : 0u) |
                           (strchr(flags, 'p') ? CLSORT_TUNE_PRECISE : 0u);
    if (clsort_create(&out, &d) != CLSORT_SUCCESS) {
        fprintf(stderr, "bench: native N-body context: %s\n", clsort_last_error(out));
        clsort_destroy(out);
        return NULL;
    }
    return out;
}

/* The N-body rows at n bodies: a Plummer-like random cluster (uniform in a
 * unit ball, equal masses), dt and softening as the seed (1e-4). */
static int bench_nbody(clsort_context *cs, size_t n, int runs)
{
    static const char *variants[] = {"f32_tiled", "f32_tiled_native_rsqrt", "f64_tiled", "f32_atomic_newton3"};
    const char *steps_env = getenv("BENCH_NBODY_STEPS"), *host_env = getenv("BENCH_NBODY_HOST_MAX");
    unsigned steps = steps_env ? (unsigned)atoi(steps_env) : 4;
    size_t host_max = (size_t)1 << (host_env ? atoi(host_env) : 14), j;
    cl_context cc = clsort_cl_context(cs);
    cl_command_queue q = clsort_cl_queue(cs);
    float *h = (float *)malloc(n * 16), *acc = (float *)malloc(n * 16);
    double *hd = (double *)malloc(n * 32), *t = (double *)malloc(sizeof(double) * (size_t)runs);
    int v;
    cl_int e;
    if (!h || !acc || !hd || !t) return -1;
    if (steps < 1) steps = 1;
    for (j = 0; j < n; ++j) {
        float x, y, z;
        do {
            x = (float)(rnd() >> 8) / 8388608.0f - 1.0f;
            y = (float)(rnd() >> 8) / 8388608.0f - 1.0f;
            z = (float)(rnd() >> 8) / 8388608.0f - 1.0f;
        } while (x * x + y * y + z * z > 1.0f);
        h[4 * j] = x, h[4 * j + 1] = y, h[4 * j + 2] = z, h[4 * j + 3] = 1.0f / (float)n;
        hd[4 * j] = x, hd[4 * j + 1] = y, hd[4 * j + 2] = z, hd[4 * j + 3] = 1.0 / (double)n;
    }
    for (v = 0; v < 4; ++v) {
        clsort_nbody_desc d;
        size_t vec = v == 2 ? 32 : 16, r;
        cl_mem pos, vel;
        clsort_context *bc = cs; /* the native row: a context of its own */
        int res;
        const char *pick = getenv("BENCH_NBODY_VARIANTS"); /* e.g. "f32_tiled," for sweeps */
        if (pick) {
            char key[64];
            snprintf(key, sizeof key, "%s,", variants[v]);
            if (!strstr(pick, key)) continue;
        }
        memset(&d, 0, sizeof d);
        d.dt = 1e-4;
        d.softening2 = 1e-4;
        d.steps = steps;
        d.integrator = CLSORT_NBODY_TUTORIAL;
        d.fp64 = v == 2;
        d.method = v == 3 ? CLSORT_NBODY_ATOMIC : CLSORT_NBODY_TILED;
        if (v == 1 && !(bc = native_context(cs))) continue; /* native_rsqrt on the same shape */
        pos = clCreateBuffer(cc, CL_MEM_READ_WRITE, n * vec, NULL, &e);
        if (e != CL_SUCCESS) return -1;
        vel = clCreateBuffer(cc, CL_MEM_READ_WRITE, n * vec, NULL, &e);
        if (e != CL_SUCCESS) return -1;
        clEnqueueWriteBuffer(q, pos, CL_TRUE, 0, n * vec, v == 2 ? (const void *)hd : (const void *)h, 0, NULL, NULL);
        {
            cl_uint zero = 0;
            clEnqueueFillBuffer(q, vel, &zero, sizeof zero, 0, n * vec, 0, NULL, NULL);
        }
        res = clsort_nbody(bc, pos, vel, n, &d, NULL); /* warm-up: builds the program */
        clFinish(q);
        if (res == CLSORT_ERROR_UNSUPPORTED) {
            fprintf(stderr, "bench: nbody %s: %s\n", variants[v], clsort_last_error(bc));
        } else if (res != CLSORT_SUCCESS) {
            fprintf(stderr, "bench: nbody %s: %s\n", variants[v], clsort_last_error(bc));
            return -1;
        } else {
            for (r = 0; r < (size_t)runs; ++r) {
                double t0;
                clFinish(q);
                t0 = now_ms();
                clsort_nbody(bc, pos, vel, n, &d, NULL);
                clFinish(q);
                t[r] = (now_ms() - t0) / steps;
            }
            report_nbody(clsort_device_name(cs), variants[v], n, median(t, runs));
        }
        clReleaseMemObject(pos);
        clReleaseMemObject(vel);
        if (bc != cs) clsort_destroy(bc);
    }
    if (n <= host_max) {
        int host_runs = runs < 3 ? runs : 3, r;
        for (r = 0; r < host_runs; ++r) {
            double t0 = now_ms();
            bench_nbody_host(h, acc, n, 1e-4f);
            t[r] = now_ms() - t0;
        }
        report_nbody("host C loop -O3", "f32_plain_loop", n, median(t, host_runs));
    }
    free(h); free(acc); free(hd); free(t);
    return 0;
}

typedef struct bufs {
    cl_mem a, b, flags, va, vb, a64, b64, temp;
    cl_mem pos, pos2, off; /* binning: float4 positions in the unit square, reordered copy, 1025 offsets */
    cl_mem offsets;      /* bitonic_var: device offsets of random segments of 0..2047 keys */
    size_t segments;
    /* reductions: segments of mean length 1000 (a head with probability 1/1000) as u32 flags, u32 run keys
     * and offsets; 256 histogram counts; the reduction result */
    cl_mem segflags, segflags8, segkeys, segoff, counts, result;
    size_t segcount;
    uint32_t *hostflags; /* the segment flags on the host (the C loop's input) */
    uint32_t *hostkeys;  /* the run keys on the host */
    uint32_t *hostoff;   /* the segment offsets on the host (segcount + 1) */
} bufs;

/* The binning rows: 32 x 32 periodic cells over float4 positions; the cell
 * keys, the permutation, the cell offsets and one float4 array reordered (the
 * positions). "sort10_perm_gather_f4" is the part CUB's row is made of: a
 * 10-bit sort with the permutation, then the gather. */
static int run_bin(clsort_context *cs, op_kind op, bufs *B, size_t n)
{
    clsort_bin_desc bd;
    clsort_attribute at;
    memset(&bd, 0, sizeof bd);
    bd.grid.cells[0] = bd.grid.cells[1] = 32;
    bd.grid.cell_size[0] = bd.grid.cell_size[1] = 1.0f / 32;
    bd.grid.periodic[0] = bd.grid.periodic[1] = 1;
    bd.grid.stride = 16;
    bd.method = op == OP_BIN_ATOMIC ? CLSORT_BIN_ATOMIC : CLSORT_BIN_SORT;
    bd.radix_bits = op == OP_BIN_SORT_1PASS ? 10 : 0;
    bd.cell_keys = B->b;
    bd.permutation = B->vb;
    bd.cell_offsets = B->off;
    at.src = B->pos;
    at.dst = B->pos2;
    at.elem_size = 16;
    bd.attributes = &at;
    bd.attribute_count = 1;
    if (op == OP_BIN_SORT_GATHER) {
        clsort_sort_desc so;
        memset(&so, 0, sizeof so);
        so.end_bit = 10;
        so.permutation = B->vb;
        if (clsort_sort(cs, B->va, B->b, n, &so, NULL) != CLSORT_SUCCESS) return -1;
        return clsort_gather(cs, B->pos, B->pos2, B->vb, n, 16, NULL);
    }
    return clsort_bin(cs, B->pos, n, &bd, NULL);
}

static int run_op(clsort_context *cs, op_kind op, bufs *B, size_t n)
{
    clsort_scan_desc sd;
    clsort_split_desc pd;
    clsort_sort_desc so;
    clsort_bitonic_desc bd;
    size_t count;
    memset(&so, 0, sizeof so);
    memset(&bd, 0, sizeof bd);
    memset(&sd, 0, sizeof sd);
    memset(&pd, 0, sizeof pd);
    pd.flags = B->flags;
    switch (op) {
    case OP_COPY:
        return clEnqueueCopyBuffer(clsort_cl_queue(cs), B->a, B->b, 0, 0, n * 4, 0, NULL, NULL) == CL_SUCCESS ? 0 : -1;
    case OP_SCAN_U32: return clsort_scan(cs, B->a, B->b, n, &sd, NULL);
    case OP_SCAN_U32_INCL: sd.inclusive = 1; return clsort_scan(cs, B->a, B->b, n, &sd, NULL);
    case OP_SCAN_F32: sd.type = CLSORT_F32; return clsort_scan(cs, B->a, B->b, n, &sd, NULL);
    case OP_SCAN_U64: sd.type = CLSORT_U64; return clsort_scan(cs, B->a64, B->b64, n, &sd, NULL);
    case OP_ENUMERATE: return clsort_enumerate(cs, NULL, B->b, n, &pd, NULL, NULL);
    case OP_PACK: return clsort_pack(cs, B->a, B->b, n, &pd, NULL, NULL);
    case OP_PACK_KV:
        pd.values_in = B->va;
        pd.values_out = B->vb;
        return clsort_pack(cs, B->a, B->b, n, &pd, NULL, NULL);
    case OP_SPLIT: return clsort_split(cs, B->a, B->b, n, &pd, NULL, NULL);
    case OP_SPLIT_BIT:
        pd.flags_kind = CLSORT_FLAGS_KEY_BIT;
        pd.bit = 7;
        return clsort_split(cs, B->a, B->b, n, &pd, &count, NULL);
    case OP_SORT_U32: return clsort_sort(cs, B->a, B->b, n, &so, NULL);
    case OP_SORT_PAIRS:
        so.values_in = B->va;
        so.values_out = B->vb;
        return clsort_sort(cs, B->a, B->b, n, &so, NULL);
    case OP_SORT_B16: so.end_bit = 16; return clsort_sort(cs, B->a, B->b, n, &so, NULL);
    case OP_SORT_B10: so.end_bit = 10; return clsort_sort(cs, B->a, B->b, n, &so, NULL);
    case OP_SORT_U64: so.type = CLSORT_U64; return clsort_sort(cs, B->a64, B->b64, n, &so, NULL);
    case OP_SORT_PERM: so.permutation = B->vb; return clsort_sort(cs, B->a, B->b, n, &so, NULL);
    case OP_SORT_TEMP: {
        size_t bytes = 0;
        cl_int e;
        if (!B->temp) {
            if (clsort_sort_temp_size(cs, n, &so, &bytes) != CLSORT_SUCCESS) return -1;
            B->temp = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, bytes, NULL, &e);
            if (e != CL_SUCCESS) return -1;
        }
        so.temp = B->temp;
        return clsort_sort(cs, B->a, B->b, n, &so, NULL);
    }
    case OP_SORT_B10_1PASS: so.end_bit = 10; so.radix_bits = 10; return clsort_sort(cs, B->a, B->b, n, &so, NULL);
    /* 8- and 16-bit keys: the first n or 2n random bytes of a, into b */
    case OP_SORT_U8: so.type = CLSORT_U8; return clsort_sort(cs, B->a, B->b, n, &so, NULL);
    case OP_SORT_U16: so.type = CLSORT_U16; return clsort_sort(cs, B->a, B->b, n, &so, NULL);
    case OP_SORT_PAIRS_V16: /* u32 keys + 16-byte values (float4 particles): pos -> pos2 */
        so.values_in = B->pos;
        so.values_out = B->pos2;
        so.value_size = 16;
        return clsort_sort(cs, B->a, B->b, n, &so, NULL);
    case OP_BIN_SORT_GATHER: case OP_BIN_SORT: case OP_BIN_SORT_1PASS: case OP_BIN_ATOMIC: return run_bin(cs, op, B, n);
    case OP_BITONIC_SEG1024: /* n / 1024 segments of 1024 keys (n >= 1024) */
        bd.segment_length = n < 1024 ? n : 1024;
        return clsort_bitonic_sort(cs, B->a, B->b, n, &bd, NULL);
    case OP_BITONIC_U32: return clsort_bitonic_sort(cs, B->a, B->b, n, &bd, NULL);
    case OP_BITONIC_VAR:
        bd.segment_offsets = B->offsets;
        bd.segment_count = B->segments;
        return clsort_bitonic_sort(cs, B->a, B->b, n, &bd, NULL);
    case OP_REDUCE_U32: case OP_REDUCE_F32: case OP_SEGSCAN_NONE: case OP_SEGSCAN_FLAGS: case OP_SEGSCAN_FLAGS8: case OP_SCAN_BY_KEY:
    case OP_SEGREDUCE: {
        clsort_reduce_desc rd;
        memset(&rd, 0, sizeof rd);
        rd.inclusive = 1;
        rd.result = B->result;
        if (op == OP_REDUCE_U32 || op == OP_REDUCE_F32) {
            rd.type = op == OP_REDUCE_F32 ? CLSORT_F32 : CLSORT_U32;
            return clsort_reduce(cs, B->a, n, &rd, NULL, NULL);
        }
        rd.segments = op == OP_SEGSCAN_FLAGS ? CLSORT_SEGMENTS_FLAGS_U32 : op == OP_SEGSCAN_FLAGS8 ? CLSORT_SEGMENTS_FLAGS_U8
                    : op == OP_SCAN_BY_KEY ? CLSORT_SEGMENTS_KEYS : op == OP_SEGREDUCE ? CLSORT_SEGMENTS_OFFSETS
                    : CLSORT_SEGMENTS_NONE;
        rd.segment_data = op == OP_SEGSCAN_FLAGS ? B->segflags : op == OP_SEGSCAN_FLAGS8 ? B->segflags8
                        : op == OP_SCAN_BY_KEY ? B->segkeys : op == OP_SEGREDUCE ? B->segoff : NULL;
        rd.segment_count = B->segcount;
        if (op == OP_SEGREDUCE) return clsort_segmented_reduce(cs, B->a, B->b, n, &rd, NULL);
        return clsort_segmented_scan(cs, B->a, B->b, n, &rd, NULL);
    }
    case OP_REDUCE_BY_KEY: case OP_RLE: case OP_UNIQUE: {
        clsort_by_key_desc kd;
        memset(&kd, 0, sizeof kd);
        kd.count = B->result; /* on the device: no host round trip */
        if (op == OP_REDUCE_BY_KEY) return clsort_reduce_by_key(cs, B->segkeys, B->a, B->b, B->vb, n, &kd, NULL, NULL);
        if (op == OP_RLE) return clsort_run_length_encode(cs, B->segkeys, B->b, B->vb, n, &kd, NULL, NULL);
        return clsort_unique(cs, B->segkeys, B->b, n, &kd, NULL, NULL);
    }
    case OP_HISTOGRAM: {
        clsort_histogram_desc hd;
        memset(&hd, 0, sizeof hd);
        hd.bins = 256;
        hd.lower_int = 0;
        hd.upper_int = (int64_t)1 << 32;
        return clsort_histogram_even(cs, B->a, n, B->counts, &hd, NULL);
    }
    }
    return -1;
}

/* The same work as a plain C loop on the host. */
static void host_op(op_kind op, const uint32_t *a, uint32_t *b, const uint32_t *flags, const bufs *B, size_t n)
{
    size_t i, k = 0;
    uint32_t s = 0;
    const uint32_t *key = B->hostkeys;
    switch (op) {
    case OP_COPY: memcpy(b, a, n * 4); break;
    case OP_SCAN_U32: for (i = 0; i < n; ++i) { b[i] = s; s += a[i]; } break;
    case OP_PACK: for (i = 0; i < n; ++i) { b[k] = a[i]; k += flags[i] != 0; } break;
    case OP_SPLIT:
        for (i = 0; i < n; ++i) k += flags[i] == 0;
        { size_t z = 0, o = k; for (i = 0; i < n; ++i) { if (flags[i]) b[o++] = a[i]; else b[z++] = a[i]; } }
        break;
    case OP_SORT_U32: bench_std_sort(b, n); break; /* b holds a copy of a */
    case OP_REDUCE_U32: for (i = 0; i < n; ++i) s += a[i]; b[0] = s; break;
    case OP_REDUCE_F32: {
        float f = 0.0f;
        for (i = 0; i < n; ++i) f += (float)a[i];
        memcpy(b, &f, 4);
        break;
    }
    case OP_SEGSCAN_NONE: for (i = 0; i < n; ++i) { s += a[i]; b[i] = s; } break;
    case OP_SEGSCAN_FLAGS: /* flags: heads with probability 1/1000 (the table below) */
    case OP_SEGSCAN_FLAGS8:
        for (i = 0; i < n; ++i) { s = B->hostflags[i] ? a[i] : s + a[i]; b[i] = s; }
        break;
    case OP_SCAN_BY_KEY:
        for (i = 0; i < n; ++i) { s = i == 0 || key[i] != key[i - 1] ? a[i] : s + a[i]; b[i] = s; }
        break;
    case OP_SEGREDUCE:
        for (k = 0; k < B->segcount; ++k) {
            s = 0;
            for (i = B->hostoff[k]; i < B->hostoff[k + 1]; ++i) s += a[i];
            b[k] = s;
        }
        break;
    case OP_REDUCE_BY_KEY: /* unique keys to b, sums after them */
        for (i = 0; i < n; ++i) {
            if (i == 0 || key[i] != key[i - 1]) { if (i) b[n / 2 + k - 1] = s; b[k++] = key[i]; s = 0; }
            s += a[i];
        }
        if (n) b[n / 2 + k - 1] = s;
        break;
    case OP_RLE:
        for (i = 0; i < n; ++i) {
            if (i == 0 || key[i] != key[i - 1]) { if (i) b[n / 2 + k - 1] = s; b[k++] = key[i]; s = 0; }
            ++s;
        }
        if (n) b[n / 2 + k - 1] = s;
        break;
    case OP_UNIQUE:
        for (i = 0; i < n; ++i) if (i == 0 || key[i] != key[i - 1]) b[k++] = key[i];
        break;
    case OP_HISTOGRAM: {
        uint32_t h[256] = {0};
        for (i = 0; i < n; ++i) h[a[i] >> 24]++;
        memcpy(b, h, sizeof h);
        break;
    }
    default: break;
    }
}

static double median(double *t, int runs)
{
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    return t[runs / 2];
}

static void report(const char *dev, const char *prim, const char *variant, size_t n, double ms)
{
    printf("{\"primitive\":\"%s\",\"variant\":\"%s\",\"n\":%lu,\"ms\":%.4f,\"items_per_s\":%.4g,\"device\":\"%s\"}\n",
           prim, variant, (unsigned long)n, ms, n / (ms * 1e-3), dev);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int sizes[16], ns = 0, i, runs = getenv("BENCH_RUNS") ? atoi(getenv("BENCH_RUNS")) : 15;
    const char *only = getenv("BENCH_ONLY"), *variants = getenv("BENCH_VARIANT");
    const int host_rows = !getenv("BENCH_HOST") || atoi(getenv("BENCH_HOST")) != 0;
    clsort_context *cs = NULL;
    clsort_context_desc desc;
    cl_int e;
    for (i = 1; i < argc && ns < 16; ++i) sizes[ns++] = atoi(argv[i]);
    if (ns == 0) { sizes[0] = 16; sizes[1] = 20; sizes[2] = 24; ns = 3; }
    if (runs < 1) runs = 1;
    memset(&desc, 0, sizeof desc);
    if (clsort_create(&cs, &desc) != CLSORT_SUCCESS) {
        fprintf(stderr, "bench: %s\n", clsort_last_error(cs));
        clsort_destroy(cs);
        return 1;
    }
    fprintf(stderr, "bench: device %s, path %s, %d runs\n", clsort_device_name(cs),
            clsort_context_path(cs) == CLSORT_PATH_LOOKBACK ? "lookback" : "portable", runs);
    if (only && strstr(only, "nbody")) { /* O(N^2): its own size handling (log2 N) */
        for (i = 0; i < ns; ++i)
            if (bench_nbody(cs, (size_t)1 << sizes[i], runs) != 0) {
                fprintf(stderr, "bench: nbody failed at 2^%d: %s\n", sizes[i], clsort_last_error(cs));
                clsort_destroy(cs);
                return 1;
            }
        clsort_destroy(cs);
        return 0;
    }
    for (i = 0; i < ns; ++i) {
        size_t n = (size_t)1 << sizes[i], j;
        uint32_t *h = (uint32_t *)malloc(n * 4), *hf = (uint32_t *)malloc(n * 4), *ho = (uint32_t *)malloc(n * 8);
        double *t = (double *)malloc(sizeof(double) * (size_t)runs);
        bufs B;
        int op;
        cl_context cc = clsort_cl_context(cs);
        cl_command_queue q = clsort_cl_queue(cs);
        if (!h || !hf || !ho || !t) { fprintf(stderr, "bench: out of host memory\n"); return 1; }
        for (j = 0; j < n; ++j) { h[j] = rnd(); hf[j] = rnd() & 1; }
        B.a = clCreateBuffer(cc, CL_MEM_READ_WRITE, n * 4, NULL, &e);
        B.b = clCreateBuffer(cc, CL_MEM_READ_WRITE, n * 4, NULL, &e);
        B.flags = clCreateBuffer(cc, CL_MEM_READ_WRITE, n * 4, NULL, &e);
        B.va = clCreateBuffer(cc, CL_MEM_READ_WRITE, n * 4, NULL, &e);
        B.vb = clCreateBuffer(cc, CL_MEM_READ_WRITE, n * 4, NULL, &e);
        B.a64 = clCreateBuffer(cc, CL_MEM_READ_WRITE, n * 8, NULL, &e);
        B.b64 = clCreateBuffer(cc, CL_MEM_READ_WRITE, n * 8, NULL, &e);
        B.temp = NULL;
        B.pos = clCreateBuffer(cc, CL_MEM_READ_WRITE, n * 16, NULL, &e);
        if (e == CL_SUCCESS) B.pos2 = clCreateBuffer(cc, CL_MEM_READ_WRITE, n * 16, NULL, &e);
        if (e == CL_SUCCESS) B.off = clCreateBuffer(cc, CL_MEM_READ_WRITE, 1025 * 4, NULL, &e);
        { /* random segment lengths 0..2047 (mean 1023.5), the last one cut at n */
            uint32_t *off = (uint32_t *)ho; /* n + 1 words fit in ho (2n) */
            size_t at = 0;
            B.segments = 0;
            off[0] = 0;
            while (at < n) {
                size_t len = rnd() % 2048u;
                at = at + len < n ? at + len : n;
                off[++B.segments] = (uint32_t)at;
            }
            B.offsets = clCreateBuffer(cc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (B.segments + 1) * 4, off, &e);
        }
        { /* reductions: a segment starts with probability 1/1000 */
            uint32_t *hfl = (uint32_t *)malloc(n * 4), *hk = (uint32_t *)malloc(n * 4), *ho2 = (uint32_t *)malloc(n * 4 + 8);
            uint32_t key = 0;
            if (!hfl || !hk || !ho2) { fprintf(stderr, "bench: out of host memory\n"); return 1; }
            B.segcount = 0;
            ho2[0] = 0;
            for (j = 0; j < n; ++j) {
                hfl[j] = j > 0 && rnd() % 1000u == 0;
                if (hfl[j]) { ++key; ho2[++B.segcount] = (uint32_t)j; }
                hk[j] = key;
            }
            ho2[++B.segcount] = (uint32_t)n;
            if (e == CL_SUCCESS) B.segflags = clCreateBuffer(cc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, hfl, &e);
            if (e == CL_SUCCESS) {
                uint8_t *h8 = (uint8_t *)malloc(n);
                if (!h8) { fprintf(stderr, "bench: out of host memory\n"); return 1; }
                for (j = 0; j < n; ++j) h8[j] = (uint8_t)hfl[j];
                B.segflags8 = clCreateBuffer(cc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n, h8, &e);
                free(h8);
            }
            if (e == CL_SUCCESS) B.segkeys = clCreateBuffer(cc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 4, hk, &e);
            if (e == CL_SUCCESS)
                B.segoff = clCreateBuffer(cc, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, (B.segcount + 1) * 4, ho2, &e);
            if (e == CL_SUCCESS) B.counts = clCreateBuffer(cc, CL_MEM_READ_WRITE, 256 * 4, NULL, &e);
            if (e == CL_SUCCESS) B.result = clCreateBuffer(cc, CL_MEM_READ_WRITE, 8, NULL, &e);
            B.hostflags = hfl;
            B.hostkeys = hk;
            B.hostoff = ho2;
        }
        if (e != CL_SUCCESS) { fprintf(stderr, "bench: clCreateBuffer failed at 2^%d\n", sizes[i]); return 1; }
        clEnqueueWriteBuffer(q, B.a, CL_TRUE, 0, n * 4, h, 0, NULL, NULL);
        clEnqueueWriteBuffer(q, B.va, CL_TRUE, 0, n * 4, h, 0, NULL, NULL);
        clEnqueueWriteBuffer(q, B.flags, CL_TRUE, 0, n * 4, hf, 0, NULL, NULL);
        for (j = 0; j < n; ++j) ho[j] = h[j], ho[n + j] = h[j] ^ 0x5bd1e995u;
        clEnqueueWriteBuffer(q, B.a64, CL_TRUE, 0, n * 8, ho, 0, NULL, NULL);
        { /* float4 positions, x and y uniform in [0, 1); 10-bit cell keys in va for the sort10 row */
            float *hp = (float *)malloc(n * 16);
            uint32_t *hk = (uint32_t *)malloc(n * 4);
            if (!hp || !hk) { fprintf(stderr, "bench: out of host memory\n"); return 1; }
            for (j = 0; j < n; ++j) {
                hp[4 * j] = (float)(rnd() >> 8) / 16777216.0f;
                hp[4 * j + 1] = (float)(rnd() >> 8) / 16777216.0f;
                hp[4 * j + 2] = 0.0f;
                hp[4 * j + 3] = 1.0f;
                hk[j] = (uint32_t)(hp[4 * j] * 32.0f) + 32u * (uint32_t)(hp[4 * j + 1] * 32.0f);
            }
            clEnqueueWriteBuffer(q, B.pos, CL_TRUE, 0, n * 16, hp, 0, NULL, NULL);
            clEnqueueWriteBuffer(q, B.va, CL_TRUE, 0, n * 4, hk, 0, NULL, NULL);
            free(hp);
            free(hk);
        }
        for (op = OP_COPY; op <= OP_LAST; ++op) {
            int r;
            if (only && !strstr(only, op_names[op][0])) continue;
            if (variants && !strstr(variants, op_names[op][1])) continue;
            r = run_op(cs, (op_kind)op, &B, n); /* warm-up: builds the program */
            clFinish(q);
            if (r != 0) { fprintf(stderr, "bench: %s: %s\n", op_names[op][0], clsort_last_error(cs)); return 1; }
            for (j = 0; j < (size_t)runs; ++j) {
                double t0;
                clFinish(q);
                t0 = now_ms();
                run_op(cs, (op_kind)op, &B, n);
                clFinish(q);
                t[j] = now_ms() - t0;
            }
            report(clsort_device_name(cs), op_names[op][0], op_names[op][1], n, median(t, runs));
            if (!host_rows) continue;
            if (op == OP_COPY || op == OP_SCAN_U32 || op == OP_PACK || op == OP_SPLIT || op == OP_REDUCE_U32 ||
                (op >= OP_REDUCE_U32 && op <= OP_HISTOGRAM) ||
                (op == OP_SORT_U32 && n <= ((size_t)1 << 24))) {
                int host_runs = op == OP_SORT_U32 && n > ((size_t)1 << 22) ? (runs < 3 ? runs : 3) : runs;
                for (j = 0; j < (size_t)host_runs; ++j) {
                    double t0;
                    if (op == OP_SORT_U32) memcpy(ho, h, n * 4); /* not timed: std::sort sorts in place */
                    t0 = now_ms();
                    host_op((op_kind)op, h, ho, hf, &B, n);
                    t[j] = now_ms() - t0;
                }
                report(op == OP_SORT_U32 ? "host std::sort" : "host C loop", op_names[op][0], op_names[op][1], n,
                       median(t, host_runs));
            }
        }
        clReleaseMemObject(B.a); clReleaseMemObject(B.b); clReleaseMemObject(B.flags);
        clReleaseMemObject(B.va); clReleaseMemObject(B.vb); clReleaseMemObject(B.a64); clReleaseMemObject(B.b64);
        if (B.temp) clReleaseMemObject(B.temp);
        clReleaseMemObject(B.pos); clReleaseMemObject(B.pos2); clReleaseMemObject(B.off);
        clReleaseMemObject(B.offsets);
        clReleaseMemObject(B.segflags); clReleaseMemObject(B.segflags8); clReleaseMemObject(B.segkeys); clReleaseMemObject(B.segoff);
        clReleaseMemObject(B.counts); clReleaseMemObject(B.result);
        free(B.hostflags);
        free(B.hostkeys);
        free(B.hostoff);
        free(h); free(hf); free(ho); free(t);
    }
    clsort_destroy(cs);
    return 0;
}
