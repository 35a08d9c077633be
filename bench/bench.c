/* clsort's bench driver: times each primitive on one device and prints one
 * JSON line per measurement (row = primitive/variant at one size n).
 *
 *   build/bench [SUITE...] [LOG2N...] [--filter REGEX] [--runs N] [--no-host]
 *   build/bench --list [SUITE...] [--filter REGEX]      the rows, without running
 *
 * Suites, one per family of the registry, in the family order (default:
 * every suite but nbody), each named as its family: scan, split, gather,
 * sort, bitonic, binning, reduce, nbody (all-pairs N-body; its sizes are
 * log2 N, so it runs on its own), tree, select, search, merge, top_k. A family without a suite and a row stops the driver at start
 * (--list says which). Every suite but nbody has the "copy" row, the device's
 * practical bandwidth (clEnqueueCopyBuffer of the same bytes): the byte floor
 * that bench/table.py sets each row against. --filter keeps the rows whose
 * "primitive/variant" matches a POSIX extended regular expression, e.g.
 * --filter 'sort/u(8|16)_keys'. Sizes default to 16 20 24 (nbody: 12 14).
 * CLSORT_DEVICE picks the device (see clsort.h, ENVIRONMENT).
 *
 * Timing: clFinish, then a monotonic host clock around the call and a second
 * clFinish, so a figure covers every kernel of the call and its launch costs.
 * One warm-up call (it builds the programs), then the median of --runs calls
 * (default 15). On every device a plain C loop doing the same work on the
 * host gives the CPU baseline ("device":"host C loop"; for the sort, std::sort
 * of the same keys, "host std::sort"); --no-host leaves those rows out.
 *
 * The environment of earlier versions still selects rows, so that one command
 * drives this driver and an older one alike (bench/run_gpu.sh before-after):
 * BENCH_ONLY (a list in which the primitive's name must appear), BENCH_VARIANT
 * (a list in which the variant's name must appear), BENCH_RUNS, BENCH_HOST=0.
 * BENCH_RADIX_BITS and BENCH_END_BIT set the digit width and the key's end bit
 * of the sort rows u32_keys, u32_u32_pairs and u64_keys (digit-width sweeps;
 * the rows keep their names).
 *
 * Data: random u32 keys from a fixed seed; flags with half set; 1024-key
 * segments and random 0..2047-key segments from device offsets (bitonic);
 * segments of mean length 1000 (reductions); float4 particles uniform in the
 * unit square on a 32 x 32 periodic grid (bin, gather; their x, y the 2D
 * points of the tree build); select keeps the keys above 2^31 (about half),
 * its count left on the device; search: sorted u32 keys spread evenly over
 * the 32-bit range (key i = i * 2^32 / K plus a random offset below that
 * step), K = n or 16 n (at n = 2^24: 2^28 keys), and n needles, the random
 * keys (lower_bound_*) or sorted ones spread alike (*_sorted_needles:
 * merge path); merge: two sorted halves of n / 2 keys (key i
 * of a half in [i, i + 1) * 2^32 / (n / 2)), pairs with va's halves; top_k:
 * the k smallest of the random keys (k = 100, 65536, at most n); the caller's operators
 * (USER OPERATORS, each row checked against the host at its warm-up call): the keys
 * >> 24 as f32 (0..255: many ties) for the f32 rows, 32-byte records (position on a
 * 1/1024 grid in the unit cube) for record32_morton_key. The peers time the same
 * shapes (bench/peers/). N-body: a uniform ball of equal masses, dt and
 * softening 1e-4, BENCH_NBODY_STEPS (default 4) steps of the tutorial
 * integrator per timed call; "items_per_s" is interactions per second (N^2 per
 * step); CLSORT_NBODY="wg:ib:js[:flags]" sets the kernel's shape, shown as
 * "shape"; the host loop runs up to N = 2^BENCH_NBODY_HOST_MAX (default 14). */
#define CLSORT_IMPLEMENTATION
/* through the include path (the Makefile's -I.): a build with another
 * directory first on it, -Idir -I., times dir/clsort.h */
#include "clsort.h"

#include <regex.h>
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

static double median(double *t, int runs)
{
    qsort(t, (size_t)runs, sizeof *t, cmp_double);
    return t[runs / 2];
}

/* xorshift64: the fixed-seed data of every row */
static uint32_t rnd(unsigned long long *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (uint32_t)(*state >> 11);
}

/* ---- suites and rows ---- */

enum {
    S_SCAN = 1u << 0, S_SPLIT = 1u << 1, S_SORT = 1u << 2, S_GATHER = 1u << 3, S_BINNING = 1u << 4, S_BITONIC = 1u << 5,
    S_REDUCE = 1u << 6, S_NBODY = 1u << 7, S_TREE = 1u << 8, S_SELECT = 1u << 9, S_SEARCH = 1u << 10, S_MERGE = 1u << 11,
    S_TOP_K = 1u << 12,
    S_ARRAYS = S_SCAN | S_SPLIT | S_SORT | S_GATHER | S_BINNING | S_BITONIC | S_REDUCE | S_TREE |
               S_SELECT | S_SEARCH | S_MERGE | S_TOP_K /* sizes are element counts */
};

/* NO_FAMILY: a suite or row of no one family (all; copy, the byte floor). */
#define NO_FAMILY CLSORT_FAMILY_COUNT

/* One suite per family of the registry (CLSORT_FAMILIES; every family has
 * one, with a row: family_coverage checks it at start), in the family order;
 * a family's suite is named as the family (clsort_family_name). */
static const struct suite {
    unsigned mask;
    clsort_family family;
    const char *what;
} suites[] = {
    {S_SCAN, CLSORT_FAMILY_SCAN, "exclusive and inclusive scans of u32, f32, u64"},
    {S_SPLIT, CLSORT_FAMILY_SPLIT, "enumerate, pack (stream compaction, keys and values), split"},
    {S_GATHER, CLSORT_FAMILY_GATHER, "gather of float4 records by a permutation"},
    {S_SORT, CLSORT_FAMILY_SORT, "radix sort: key widths 8-64 bits, bit ranges, values, the permutation, caller scratch"},
    {S_BITONIC, CLSORT_FAMILY_BITONIC, "bitonic sort: 1024-key segments, one array, variable segments"},
    {S_BINNING, CLSORT_FAMILY_BINNING, "particle binning: cell keys, sort, offsets, one float4 array reordered"},
    {S_REDUCE, CLSORT_FAMILY_REDUCE, "reduce, segmented scans and reduce, the by-key family, histogram"},
    {S_NBODY, CLSORT_FAMILY_NBODY, "all-pairs N-body step (sizes are log2 N; runs on its own)"},
    {S_TREE, CLSORT_FAMILY_TREE, "radix tree build over float4 points (codes, sort, nodes, summaries)"},
    {S_SELECT, CLSORT_FAMILY_SELECT, "select_if: stable compaction by a comparison, keys and values"},
    {S_SEARCH, CLSORT_FAMILY_SEARCH, "lower_bound of n needles in n or 16 n sorted keys, arbitrary or sorted"},
    {S_MERGE, CLSORT_FAMILY_MERGE, "merge of two sorted halves of n / 2 keys, keys and pairs"},
    {S_TOP_K, CLSORT_FAMILY_TOP_K, "top_k: the k smallest of n keys, k = 100 and 65536, unsorted and sorted"},
    {S_ARRAYS, NO_FAMILY, "every suite but nbody (the default)"},
};
#define SUITE_COUNT (sizeof suites / sizeof suites[0])

/* A suite's name: its family's, or "all". */
static const char *suite_name(size_t s)
{
    return suites[s].family == NO_FAMILY ? "all" : clsort_family_name(suites[s].family);
}

/* Older suite names, refused with the new one. */
static const struct { const char *name, *now; } suite_renamed[] = {{"pack", "split"}, {"bin", "binning"}};

typedef enum {
    OP_COPY, OP_SCAN_U32, OP_SCAN_U32_INCL, OP_SCAN_F32, OP_SCAN_U64, OP_ENUMERATE, OP_PACK, OP_PACK_KV, OP_SPLIT,
    OP_SPLIT_BIT, OP_SORT_U32, OP_SORT_PAIRS, OP_SORT_B16, OP_SORT_B10, OP_SORT_U64, OP_SORT_PERM, OP_SORT_TEMP,
    OP_SORT_B10_1PASS, OP_SORT_U8, OP_SORT_U16, OP_SORT_PAIRS_V16, OP_SORT_U32_DCOUNT, OP_SORT_PAIRS_DCOUNT, OP_SORT_U32_DHALF, OP_GATHER_F4, OP_BIN_SORT_GATHER, OP_BIN_SORT,
    OP_BIN_SORT_1PASS, OP_BIN_ATOMIC, OP_BITONIC_SEG1024, OP_BITONIC_U32, OP_BITONIC_VAR, OP_REDUCE_U32, OP_REDUCE_F32,
    OP_SEGSCAN_NONE, OP_SEGSCAN_FLAGS, OP_SEGSCAN_FLAGS8, OP_SCAN_BY_KEY, OP_SEGREDUCE, OP_REDUCE_BY_KEY, OP_RLE,
    OP_UNIQUE, OP_HISTOGRAM, OP_REDUCE_BY_KEY_DCOUNT, OP_REDUCE_BY_KEY_DHALF, OP_TREE_BUILD, OP_SELECT_GT,
    OP_SELECT_GT_KV, OP_LB_N, OP_LB_16N, OP_LB_SORTED_N, OP_LB_SORTED_16N, OP_GATHER_MANY4, OP_GATHER_FOUR_CALLS,
    OP_MERGE_U32, OP_MERGE_PAIRS, OP_TOP_K_100, OP_TOP_K_65536, OP_TOP_K_65536_SORTED, OP_TOP_K_PAIRS_65536,
    OP_SELECT_GT_PRED, OP_PARTITION_GT, OP_PARTITION_GT_KV, OP_PARTITION_GT_PRED, OP_REDUCE_U32_USER,
    OP_REDUCE_F32_SQUARES, OP_REDUCE_F32_ARGMIN, OP_SCAN_U32_INCL_USER, OP_SORT_RECORD32,
    OP_SEGREDUCE_10, OP_SEGREDUCE_100K, OP_REDUCE_F32_ARGMIN_COMM, OP_COUNT
} op_kind;

/* One row per op, in op_kind's order. The names are the keys of
 * bench/table.py and of every raw result file: keep them stable. */
static const struct row {
    const char *primitive, *variant;
    unsigned suites;
    clsort_family family;
} rows[OP_COUNT] = {
    {"copy", "u32", S_ARRAYS, NO_FAMILY},
    {"scan", "u32_exclusive", S_SCAN, CLSORT_FAMILY_SCAN},
    {"scan", "u32_inclusive", S_SCAN, CLSORT_FAMILY_SCAN},
    {"scan", "f32_exclusive", S_SCAN, CLSORT_FAMILY_SCAN},
    {"scan", "u64_exclusive", S_SCAN, CLSORT_FAMILY_SCAN},
    {"enumerate", "u32_flags_half", S_SPLIT, CLSORT_FAMILY_SPLIT},
    {"pack", "u32_flags_half", S_SPLIT, CLSORT_FAMILY_SPLIT},
    {"pack", "u32_u32_flags_half", S_SPLIT, CLSORT_FAMILY_SPLIT},
    {"split", "u32_flags_half", S_SPLIT, CLSORT_FAMILY_SPLIT},
    {"split", "u32_key_bit", S_SPLIT, CLSORT_FAMILY_SPLIT},
    {"sort", "u32_keys", S_SORT, CLSORT_FAMILY_SORT},
    {"sort", "u32_u32_pairs", S_SORT, CLSORT_FAMILY_SORT},
    {"sort", "u32_keys_16bit", S_SORT, CLSORT_FAMILY_SORT},
    {"sort", "u32_keys_10bit", S_SORT, CLSORT_FAMILY_SORT},
    {"sort", "u64_keys", S_SORT, CLSORT_FAMILY_SORT},
    {"sort", "u32_keys_permutation", S_SORT, CLSORT_FAMILY_SORT},
    {"sort", "u32_keys_caller_temp", S_SORT, CLSORT_FAMILY_SORT},
    {"sort", "u32_keys_10bit_1pass", S_SORT, CLSORT_FAMILY_SORT},
    {"sort", "u8_keys", S_SORT, CLSORT_FAMILY_SORT},
    {"sort", "u16_keys", S_SORT, CLSORT_FAMILY_SORT},
    {"sort", "u32_keys_16byte_values", S_SORT, CLSORT_FAMILY_SORT},
    {"sort", "u32_keys_device_count", S_SORT, CLSORT_FAMILY_SORT}, /* u32_keys with n from a device buffer (DEVICE COUNTS) */
    {"sort", "u32_u32_pairs_device_count", S_SORT, CLSORT_FAMILY_SORT},
    {"sort", "u32_keys_device_count_half", S_SORT, CLSORT_FAMILY_SORT}, /* capacity n, count n/2: the idle tiles' cost */
    {"gather", "f4_cell_permutation", S_GATHER, CLSORT_FAMILY_GATHER},
    {"bin", "sort10_perm_gather_f4", S_BINNING, CLSORT_FAMILY_BINNING},
    {"bin", "32x32_sort_f4", S_BINNING, CLSORT_FAMILY_BINNING},
    {"bin", "32x32_sort_1pass_f4", S_BINNING, CLSORT_FAMILY_BINNING},
    {"bin", "32x32_atomic_f4", S_BINNING, CLSORT_FAMILY_BINNING},
    {"bitonic_seg1024", "u32_keys_1024_segments", S_BITONIC, CLSORT_FAMILY_BITONIC},
    {"bitonic_u32", "u32_keys", S_BITONIC, CLSORT_FAMILY_BITONIC},
    {"bitonic_var", "u32_keys_segments_0_to_2047_device_offsets", S_BITONIC, CLSORT_FAMILY_BITONIC},
    {"reduce", "u32_sum", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"reduce", "f32_sum", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"segmented_scan", "u32_sum_inclusive_no_segments", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"segmented_scan", "u32_sum_inclusive_u32_flags_mean_1000", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"segmented_scan", "u32_sum_inclusive_u8_flags_mean_1000", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"scan_by_key", "u32_sum_inclusive_mean_run_1000", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"segmented_reduce", "u32_sum_offsets_mean_1000", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"reduce_by_key", "u32_keys_u32_sum_mean_run_1000", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"run_length_encode", "u32_keys_mean_run_1000", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"unique", "u32_keys_mean_run_1000", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"histogram", "u32_256_even_bins", S_REDUCE, CLSORT_FAMILY_REDUCE},
    /* reduce_by_key's row with n from a device buffer (DEVICE COUNTS), and with capacity n, count n/2 */
    {"reduce_by_key", "u32_keys_u32_sum_mean_run_1000_device_count", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"reduce_by_key", "u32_keys_u32_sum_mean_run_1000_device_count_half", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"tree", "build_2d_f4_uniform", S_TREE, CLSORT_FAMILY_TREE},
    {"select", "u32_greater_half", S_SELECT, CLSORT_FAMILY_SELECT},
    {"select", "u32_u32_greater_half", S_SELECT, CLSORT_FAMILY_SELECT},
    {"lower_bound", "u32_n_into_n", S_SEARCH, CLSORT_FAMILY_SEARCH},
    {"lower_bound", "u32_n_into_16n", S_SEARCH, CLSORT_FAMILY_SEARCH},
    {"lower_bound", "u32_n_into_n_sorted_needles", S_SEARCH, CLSORT_FAMILY_SEARCH},
    {"lower_bound", "u32_n_into_16n_sorted_needles", S_SEARCH, CLSORT_FAMILY_SEARCH},
    /* one random index array over four arrays (float4, u32, u32, u64: 32 bytes an element), in one
     * clsort_gather_many and in four clsort_gather calls */
    {"gather_many", "f4_u32_u32_u64_random", S_GATHER, CLSORT_FAMILY_GATHER},
    {"gather", "f4_u32_u32_u64_random_four_calls", S_GATHER, CLSORT_FAMILY_GATHER},
    {"merge", "u32_keys_halves", S_MERGE, CLSORT_FAMILY_MERGE},
    {"merge", "u32_u32_pairs_halves", S_MERGE, CLSORT_FAMILY_MERGE},
    {"top_k", "u32_keys_k100", S_TOP_K, CLSORT_FAMILY_TOP_K},
    {"top_k", "u32_keys_k65536", S_TOP_K, CLSORT_FAMILY_TOP_K},
    {"top_k", "u32_keys_k65536_sorted", S_TOP_K, CLSORT_FAMILY_TOP_K},
    {"top_k", "u32_u32_pairs_k65536", S_TOP_K, CLSORT_FAMILY_TOP_K},
    /* select's rows by a caller's predicate that restates the comparison (its cost against the built-in's),
     * and clsort_partition's (the same flags, then clsort_split) */
    {"select", "u32_greater_half_predicate", S_SELECT, CLSORT_FAMILY_SELECT},
    {"partition", "u32_greater_half", S_SELECT, CLSORT_FAMILY_SELECT},
    {"partition", "u32_u32_greater_half", S_SELECT, CLSORT_FAMILY_SELECT},
    {"partition", "u32_greater_half_predicate", S_SELECT, CLSORT_FAMILY_SELECT},
    /* caller's operators (USER OPERATORS; each result checked against the host at the warm-up): a + b
     * restating the built-in sum (reduce, inclusive scan); a transform x * x feeding the built-in f32 sum;
     * an argmin over (value, index) pairs of a transform with the index (the manual's); 32-byte records
     * sorted by their Morton key (examples/records.c). The f32 rows read the keys >> 24 as floats (0..255:
     * many ties), the records are made at the first call */
    {"reduce", "u32_sum_user_op", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"reduce", "f32_sum_of_squares_transform", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"reduce", "f32_argmin_index_transform", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"scan", "u32_inclusive_user_op", S_SCAN, CLSORT_FAMILY_SCAN},
    {"sort", "record32_morton_key", S_SORT, CLSORT_FAMILY_SORT},
    {"segmented_reduce", "u32_sum_offsets_mean_10", S_REDUCE, CLSORT_FAMILY_REDUCE},
    {"segmented_reduce", "u32_sum_offsets_mean_100000", S_REDUCE, CLSORT_FAMILY_REDUCE},
    /* the argmin above with user_op.commutative = 1: clsort_reduce's strided fold */
    {"reduce", "f32_argmin_index_commutative", S_REDUCE, CLSORT_FAMILY_REDUCE},
};

static const char *const nbody_variants[] = {"f32_tiled", "f32_tiled_native_rsqrt", "f64_tiled", "f32_atomic_newton3"};
#define NBODY_VARIANTS 4

/* How many rows time the family's calls (nbody: its variants, run by
 * bench_nbody). */
static int family_rows(clsort_family f)
{
    int op, k = f == CLSORT_FAMILY_NBODY ? NBODY_VARIANTS : 0;
    for (op = 0; op < OP_COUNT; ++op) k += rows[op].family == f;
    return k;
}

/* NULL when every family of the registry has a suite and a row, and every
 * row of a family (all but copy) is in that family's suite only; else what
 * is wrong. */
static const char *family_coverage(char *why, size_t size)
{
    size_t s;
    int f, op;
    for (f = 0; f < CLSORT_FAMILY_COUNT; ++f) {
        for (s = 0; s < SUITE_COUNT && suites[s].family != (clsort_family)f; ++s) continue;
        if (s == SUITE_COUNT || family_rows((clsort_family)f) == 0) {
            snprintf(why, size, "the family %s has no %s", clsort_family_name((clsort_family)f),
                     s == SUITE_COUNT ? "suite" : "row");
            return why;
        }
    }
    for (op = 0; op < OP_COUNT; ++op)
        for (s = 0; s < SUITE_COUNT; ++s)
            if ((rows[op].suites & suites[s].mask) && suites[s].family != NO_FAMILY && rows[op].family != NO_FAMILY &&
                suites[s].family != rows[op].family) {
                snprintf(why, size, "the row %s/%s is in the suite %s of another family", rows[op].primitive,
                         rows[op].variant, suite_name(s));
                return why;
            }
    return NULL;
}

/* Which rows run: the named suites, --filter, and the older environment. */
typedef struct selection {
    unsigned suites;
    int have_filter;
    regex_t filter;
    const char *only, *variants; /* BENCH_ONLY, BENCH_VARIANT */
} selection;

static int wanted(const selection *s, const char *primitive, const char *variant, unsigned row_suites)
{
    char name[160];
    if (!(row_suites & s->suites)) return 0;
    if (s->only && !strstr(s->only, primitive)) return 0;
    if (s->variants && !strstr(s->variants, variant)) return 0;
    snprintf(name, sizeof name, "%s/%s", primitive, variant);
    return !s->have_filter || regexec(&s->filter, name, 0, NULL, 0) == 0;
}

/* std::sort of the same keys (bench/std_sort.cpp): the CPU baseline of the sort */
extern void bench_std_sort(uint32_t *keys, size_t n);
/* the plain C N-body loop (bench/nbody_host.c, -O3) */
extern void bench_nbody_host(const float *pos, float *acc, size_t n, float eps2);

static unsigned long long seed = 0x9E3779B97F4A7C15ull;

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
static int bench_nbody(clsort_context *cs, size_t n, int runs, const selection *sel, int host_rows)
{
    const char *const *variants = nbody_variants;
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
            x = (float)(rnd(&seed) >> 8) / 8388608.0f - 1.0f;
            y = (float)(rnd(&seed) >> 8) / 8388608.0f - 1.0f;
            z = (float)(rnd(&seed) >> 8) / 8388608.0f - 1.0f;
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
        const char *pick = getenv("BENCH_NBODY_VARIANTS"); /* e.g. "f32_tiled," (earlier sweeps' form) */
        if (!wanted(sel, "nbody", variants[v], S_NBODY)) continue;
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
        {
            cl_uint zero = 0;
            if (clEnqueueWriteBuffer(q, pos, CL_TRUE, 0, n * vec, v == 2 ? (const void *)hd : (const void *)h, 0, NULL,
                                     NULL) != CL_SUCCESS ||
                clEnqueueFillBuffer(q, vel, &zero, sizeof zero, 0, n * vec, 0, NULL, NULL) != CL_SUCCESS)
                return -1;
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
                if (clsort_nbody(bc, pos, vel, n, &d, NULL) != CLSORT_SUCCESS) {
                    fprintf(stderr, "bench: nbody %s: %s\n", variants[v], clsort_last_error(bc));
                    return -1;
                }
                clFinish(q);
                t[r] = (now_ms() - t0) / steps;
            }
            report_nbody(clsort_device_name(cs), variants[v], n, median(t, runs));
        }
        clReleaseMemObject(pos);
        clReleaseMemObject(vel);
        if (bc != cs) clsort_destroy(bc);
    }
    if (host_rows && n <= host_max && wanted(sel, "nbody", "f32_plain_loop", S_NBODY)) {
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
    /* merge: two sorted halves of n / 2 keys (key i of a half in [i, i + 1) * 2^32 / (n / 2)); the
     * second half and va's as sub-buffers (made at the warm-up) */
    cl_mem halves, halves_b, va_half;
    cl_mem dcount, dhalf; /* the device count rows: n and n / 2 as device uint32s */
    cl_mem pos, pos2, off; /* binning: float4 positions in the unit square, reordered copy, 1025 offsets */
    cl_mem gperm;          /* gather: the permutation that sorts the positions by cell (made at the warm-up) */
    cl_mem offsets;      /* bitonic_var: device offsets of random segments of 0..2047 keys */
    clsort_tree *tree;   /* tree: made at the warm-up, rebuilt by each call */
    size_t segments;
    /* reductions: segments of mean length 1000 (a head with probability 1/1000) as u32 flags, u32 run keys
     * and offsets; 256 histogram counts; the reduction result */
    cl_mem segflags, segflags8, segkeys, segoff, counts, result;
    size_t segcount;
    uint32_t *hostflags; /* the segment flags on the host (the C loop's input) */
    uint32_t *hostkeys;  /* the run keys on the host */
    uint32_t *hostoff;   /* the segment offsets on the host (segcount + 1) */
    /* segmented_reduce's other mean lengths, 10 and 100000: offsets of heads
     * with probability 1/10 and 1/100000, on the device and the host */
    cl_mem segoffm[2];
    size_t segcountm[2];
    uint32_t *hostoffm[2];
    unsigned radix_bits, end_bit; /* BENCH_RADIX_BITS, BENCH_END_BIT (the top comment; 0: unset) */
    cl_mem hay, hay16, sneedles; /* search: n and 16 n sorted keys, n sorted needles (made at the warm-up) */
    cl_mem ridx;                 /* gather_many: n random indices below n (made at the warm-up) */
    cl_mem fvals;                /* the user-operator f32 rows: the keys >> 24 as floats */
    cl_mem rec, rec2;            /* record32_morton_key: n 32-byte records and their sorted copy (warm-up) */
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

/* The digit-width sweep's settings of the rows that take them (read once, make_bufs). */
static void sort_sweep_knobs(clsort_sort_desc *so, const bufs *B)
{
    if (B->radix_bits) so->radix_bits = B->radix_bits;
    if (B->end_bit) so->end_bit = B->end_bit;
}

static cl_mem buffer(cl_context cc, size_t bytes, const void *host, int *ok);

/* The search rows' sorted u32 keys: k keys spread evenly over the 32-bit
 * range (key i = i * 2^32 / k + a random offset below that step); NULL when
 * host memory or the buffer could not be had. */
static cl_mem search_keys(cl_context cc, size_t k)
{
    uint32_t *h = (uint32_t *)malloc(k * 4 + 4);
    unsigned long long st = 0x5eed5eedull + k;
    uint64_t step = ((uint64_t)1 << 32) / (k ? k : 1);
    size_t i;
    int ok = 1;
    cl_mem m;
    if (!h) return NULL;
    for (i = 0; i < k; ++i) h[i] = (uint32_t)(i * step + (step > 1 ? rnd(&st) % step : 0));
    m = buffer(cc, k * 4 + 4, h, &ok);
    free(h);
    return ok ? m : NULL;
}

/* The second half of n u32 words of parent, as a sub-buffer (NULL if refused). */
static cl_mem second_half(cl_mem parent, size_t n)
{
    cl_buffer_region reg;
    cl_int e;
    cl_mem half;
    reg.origin = n / 2 * 4;
    reg.size = (n - n / 2) * 4;
    half = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &e);
    return e == CL_SUCCESS ? half : NULL;
}

/* ---- the user-operator rows (USER OPERATORS) ---- */

/* The records of record32_morton_key: float4 position on a 1/1024 grid in
 * [0, 1)^3 (mass 1), float4 "velocity" whose x, y are the record's index
 * (i >> 16, i & 0xffff). */
typedef struct record32 {
    float pos[4], vel[4];
} record32;

static const char record_src[] =
    "typedef struct { float4 pos; float4 vel; } record32;\n"
    "uint spread(uint v)\n"
    "{\n"
    "    v &= 1023u; v = (v | v << 16) & 0x030000FFu; v = (v | v << 8) & 0x0300F00Fu;\n"
    "    v = (v | v << 4) & 0x030C30C3u; return (v | v << 2) & 0x09249249u;\n"
    "}\n"
    "uint morton(record32 p)\n"
    "{\n"
    "    return spread((uint)(p.pos.x * 1024.0f)) | spread((uint)(p.pos.y * 1024.0f)) << 1 |\n"
    "           spread((uint)(p.pos.z * 1024.0f)) << 2;\n"
    "}\n";

static const char argmin_src[] = /* the manual's argmin: the first index of the least value */
    "typedef struct { float v; uint i; } vi;\n"
    "vi amin(vi a, vi b) { return b.v < a.v || (b.v == a.v && b.i < a.i) ? b : a; }\n"
    "vi pair(float x, ulong i) { vi r = {x, (uint)i}; return r; }\n";

static uint32_t spread10(uint32_t v)
{
    v &= 1023u;
    v = (v | v << 16) & 0x030000FFu;
    v = (v | v << 8) & 0x0300F00Fu;
    v = (v | v << 4) & 0x030C30C3u;
    return (v | v << 2) & 0x09249249u;
}

static uint32_t morton32(const record32 *p)
{
    return spread10((uint32_t)(p->pos[0] * 1024.0f)) | spread10((uint32_t)(p->pos[1] * 1024.0f)) << 1 |
           spread10((uint32_t)(p->pos[2] * 1024.0f)) << 2;
}

/* n records from a fixed seed (NULL when host memory is short); the caller frees them. */
static record32 *make_records(size_t n)
{
    record32 *r = (record32 *)malloc(n * sizeof *r + sizeof *r);
    unsigned long long st = 0xC0FFEE5EEDull;
    size_t i;
    if (!r) return NULL;
    for (i = 0; i < n; ++i) {
        r[i].pos[0] = (float)(rnd(&st) & 1023u) / 1024.0f;
        r[i].pos[1] = (float)(rnd(&st) & 1023u) / 1024.0f;
        r[i].pos[2] = (float)(rnd(&st) & 1023u) / 1024.0f;
        r[i].pos[3] = 1.0f;
        r[i].vel[0] = (float)(i >> 16); /* the index, exact in two floats below 2^40 */
        r[i].vel[1] = (float)(i & 0xffffu);
        r[i].vel[2] = 0.0f;
        r[i].vel[3] = 1.0f;
    }
    return r;
}

static int run_user_op(clsort_context *cs, op_kind op, bufs *B, size_t n)
{
    clsort_reduce_desc rd;
    clsort_user_op *u = &rd.user_op;
    memset(&rd, 0, sizeof rd);
    rd.result = B->result;
    if (op == OP_REDUCE_U32_USER || op == OP_SCAN_U32_INCL_USER) {
        clsort_scan_desc sd;
        u->source = "uint plus_u32(uint a, uint b) { return a + b; }\n";
        u->name = "plus_u32", u->type = "uint", u->size = 4, u->identity = "0u";
        if (op == OP_REDUCE_U32_USER) return clsort_reduce(cs, B->a, n, &rd, NULL, NULL);
        memset(&sd, 0, sizeof sd);
        sd.inclusive = 1;
        sd.user_op = rd.user_op;
        return clsort_scan(cs, B->a, B->b, n, &sd, NULL);
    }
    if (op == OP_REDUCE_F32_SQUARES) { /* the transform alone: the built-in f32 sum of its results */
        rd.type = CLSORT_F32;
        u->source = "float square(float x) { return x * x; }\n";
        u->transform = "square";
        return clsort_reduce(cs, B->fvals, n, &rd, NULL, NULL);
    }
    if (op == OP_REDUCE_F32_ARGMIN || op == OP_REDUCE_F32_ARGMIN_COMM) {
        u->source = argmin_src, u->name = "amin", u->type = "vi", u->size = 8;
        u->commutative = op == OP_REDUCE_F32_ARGMIN_COMM; /* ties go to the lower index: it commutes */
        u->identity = "(vi){INFINITY, 0xffffffffu}";
        u->transform = "pair", u->in_type = "float", u->in_size = 4, u->with_index = 1;
        return clsort_reduce(cs, B->fvals, n, &rd, NULL, NULL);
    }
    if (op == OP_SORT_RECORD32) {
        clsort_sort_desc so;
        if (!B->rec) {
            record32 *r = make_records(n);
            int ok = r != NULL;
            B->rec = buffer(clsort_cl_context(cs), n * sizeof *r + sizeof *r, r, &ok);
            B->rec2 = buffer(clsort_cl_context(cs), n * sizeof *r + sizeof *r, NULL, &ok);
            free(r);
            if (!ok) return -1;
        }
        memset(&so, 0, sizeof so);
        so.type = CLSORT_U32;
        so.user_op.source = record_src;
        so.user_op.transform = "morton";
        so.user_op.in_type = "record32";
        so.user_op.in_size = sizeof(record32);
        return clsort_sort(cs, B->rec, B->rec2, n, &so, NULL);
    }
    return -1;
}

/* The records' sort checked: sorted by key, stable (ties by index), each the
 * record of its index, each index once. 0 when right. */
static int check_records(const record32 *in, const record32 *out, size_t n)
{
    unsigned char *seen = (unsigned char *)calloc(n + 1, 1);
    size_t i, bad = seen ? n : 0, prev = 0;
    for (i = 0; i < n && bad == n; ++i) {
        float hi = out[i].vel[0], lo = out[i].vel[1]; /* a garbage record: an index past n */
        size_t id = hi >= 0.0f && hi < 1e9f && lo >= 0.0f && lo < 65536.0f ? (size_t)hi << 16 | (size_t)lo : n;
        uint32_t k = morton32(&out[i]), kp = i ? morton32(&out[i - 1]) : 0;
        if (id >= n || seen[id] || memcmp(&out[i], &in[id], sizeof *out) != 0 || (i && (kp > k || (kp == k && prev >= id))))
            bad = i;
        else
            seen[id] = 1;
        prev = id;
    }
    free(seen);
    if (bad < n) fprintf(stderr, "bench: record32_morton_key: record %lu out of order\n", (unsigned long)bad);
    return bad < n || !seen ? -1 : 0;
}

/* A user-operator row's result, or the built-in u32 sum's, (after its
 * warm-up call) against the host's; h: the keys. 0 when right or not such a
 * row. */
static int check_user_op(clsort_context *cs, op_kind op, const bufs *B, size_t n, const uint32_t *h)
{
    cl_command_queue q = clsort_cl_queue(cs);
    size_t i, best = 0;
    uint32_t got[2] = {0, 0}, s = 0, *scan = NULL;
    double sq = 0.0;
    float f;
    int r = 0;
    if (op == OP_SCAN_U32_INCL_USER || op == OP_SORT_RECORD32) {
        void *in = op == OP_SORT_RECORD32 ? make_records(n) : NULL, *out = malloc(n * (in ? 32 : 4) + 32);
        if ((op == OP_SORT_RECORD32 && !in) || !out ||
            clEnqueueReadBuffer(q, in ? B->rec2 : B->b, CL_TRUE, 0, n * (in ? 32 : 4), out, 0, NULL, NULL) != CL_SUCCESS)
            r = -1;
        else if (in)
            r = check_records((const record32 *)in, (const record32 *)out, n);
        for (i = 0, scan = (uint32_t *)out; r == 0 && !in && i < n; ++i)
            if (scan[i] != (s += h[i])) fprintf(stderr, "bench: u32_inclusive_user_op: element %lu\n", (unsigned long)i), r = -1;
        free(in), free(out);
        return r;
    }
    const int argmin = op == OP_REDUCE_F32_ARGMIN || op == OP_REDUCE_F32_ARGMIN_COMM;
    if (op != OP_REDUCE_U32_USER && op != OP_REDUCE_U32 && op != OP_REDUCE_F32_SQUARES && !argmin) return 0;
    if (clEnqueueReadBuffer(q, B->result, CL_TRUE, 0, argmin ? 8 : 4, got, 0, NULL, NULL) != CL_SUCCESS)
        return -1;
    memcpy(&f, got, 4);
    for (i = 0; i < n; ++i) {
        s += h[i];
        sq += (double)(h[i] >> 24) * (double)(h[i] >> 24);
        if (h[i] >> 24 < h[best] >> 24) best = i;
    }
    if (op == OP_REDUCE_U32_USER || op == OP_REDUCE_U32) r = got[0] == s ? 0 : -1;
    if (op == OP_REDUCE_F32_SQUARES) r = (f - sq < 0 ? sq - f : f - sq) <= 1e-4 * sq ? 0 : -1;
    if (argmin) r = n && (f != (float)(h[best] >> 24) || got[1] != (uint32_t)best) ? -1 : 0;
    if (r) fprintf(stderr, "bench: %s: device %#x %#x (%g), host sum %#x, squares %.17g, argmin %lu\n",
                   rows[op].variant, got[0], got[1], (double)f, s, sq, (unsigned long)best);
    return r;
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
    case OP_SORT_U32:
        sort_sweep_knobs(&so, B);
        return clsort_sort(cs, B->a, B->b, n, &so, NULL);
    case OP_SORT_PAIRS:
        sort_sweep_knobs(&so, B);
        so.values_in = B->va;
        so.values_out = B->vb;
        return clsort_sort(cs, B->a, B->b, n, &so, NULL);
    case OP_SORT_B16: so.end_bit = 16; return clsort_sort(cs, B->a, B->b, n, &so, NULL);
    case OP_SORT_B10: so.end_bit = 10; return clsort_sort(cs, B->a, B->b, n, &so, NULL);
    case OP_SORT_U64:
        so.type = CLSORT_U64;
        sort_sweep_knobs(&so, B);
        return clsort_sort(cs, B->a64, B->b64, n, &so, NULL);
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
    case OP_SORT_U32_DCOUNT:
    case OP_SORT_PAIRS_DCOUNT:
    case OP_SORT_U32_DHALF: {
        clsort_enqueue q;
        memset(&q, 0, sizeof q);
        q.count = op == OP_SORT_U32_DHALF ? B->dhalf : B->dcount;
        if (op == OP_SORT_PAIRS_DCOUNT) so.values_in = B->va, so.values_out = B->vb;
        return clsort_sort(cs, B->a, B->b, n, &so, &q);
    }
    case OP_GATHER_F4: /* float4 records by the permutation that sorts them by cell (cub_gather_f4's case) */
        if (!B->gperm) {
            cl_int e;
            B->gperm = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, n * 4, NULL, &e);
            if (e != CL_SUCCESS) return -1;
            so.end_bit = 10;
            so.permutation = B->gperm;
            if (clsort_sort(cs, B->va, B->b, n, &so, NULL) != CLSORT_SUCCESS) return -1;
        }
        return clsort_gather(cs, B->pos, B->pos2, B->gperm, n, 16, NULL);
    case OP_BIN_SORT_GATHER: case OP_BIN_SORT: case OP_BIN_SORT_1PASS: case OP_BIN_ATOMIC: return run_bin(cs, op, B, n);
    case OP_BITONIC_SEG1024: /* n / 1024 segments of 1024 keys (n >= 1024) */
        bd.segment_length = n < 1024 ? n : 1024;
        return clsort_bitonic_sort(cs, B->a, B->b, n, &bd, NULL);
    case OP_BITONIC_U32: return clsort_bitonic_sort(cs, B->a, B->b, n, &bd, NULL);
    case OP_BITONIC_VAR:
        bd.segment_offsets = B->offsets;
        bd.segment_count = B->segments;
        return clsort_bitonic_sort(cs, B->a, B->b, n, &bd, NULL);
    case OP_SEGREDUCE_10: case OP_SEGREDUCE_100K: {
        clsort_reduce_desc rd;
        int m = op == OP_SEGREDUCE_100K;
        memset(&rd, 0, sizeof rd);
        rd.segments = CLSORT_SEGMENTS_OFFSETS;
        rd.segment_data = B->segoffm[m];
        rd.segment_count = B->segcountm[m];
        return clsort_segmented_reduce(cs, B->a, B->b, n, &rd, NULL);
    }
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
    case OP_REDUCE_BY_KEY: case OP_RLE: case OP_UNIQUE: case OP_REDUCE_BY_KEY_DCOUNT: case OP_REDUCE_BY_KEY_DHALF: {
        clsort_by_key_desc kd;
        clsort_enqueue q;
        memset(&kd, 0, sizeof kd);
        memset(&q, 0, sizeof q);
        kd.count = B->result; /* on the device: no host round trip */
        if (op == OP_REDUCE_BY_KEY_DCOUNT || op == OP_REDUCE_BY_KEY_DHALF) {
            q.count = op == OP_REDUCE_BY_KEY_DHALF ? B->dhalf : B->dcount;
            return clsort_reduce_by_key(cs, B->segkeys, B->a, B->b, B->vb, n, &kd, NULL, &q);
        }
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
    case OP_TREE_BUILD: { /* 2D points (x, y of the float4 positions), 32-bit codes */
        clsort_tree_desc td;
        memset(&td, 0, sizeof td);
        td.dims = 2;
        if (!B->tree && clsort_tree_create(cs, &B->tree) != CLSORT_SUCCESS) return -1;
        return clsort_tree_build(cs, B->tree, B->pos, n, &td, NULL);
    }
    case OP_SELECT_GT: case OP_SELECT_GT_KV: case OP_SELECT_GT_PRED: case OP_PARTITION_GT: case OP_PARTITION_GT_KV:
    case OP_PARTITION_GT_PRED: { /* the keys above 2^31 (about half), the count on the device */
        static const uint32_t bound = 0x80000000u;
        clsort_select_desc sel;
        memset(&sel, 0, sizeof sel);
        sel.compare = CLSORT_COMPARE_GREATER;
        sel.a = &bound;
        sel.count = B->result;
        if (op == OP_SELECT_GT_PRED || op == OP_PARTITION_GT_PRED) {
            sel.user_op.source = "int above(uint k) { return k > 0x80000000u; }";
            sel.user_op.name = "above";
        }
        if (op == OP_SELECT_GT_KV || op == OP_PARTITION_GT_KV) sel.values_in = B->va, sel.values_out = B->vb;
        if (op == OP_PARTITION_GT || op == OP_PARTITION_GT_KV || op == OP_PARTITION_GT_PRED)
            return clsort_partition(cs, B->a, B->b, n, &sel, NULL, NULL);
        return clsort_select_if(cs, B->a, B->b, n, &sel, NULL, NULL);
    }
    case OP_LB_N: case OP_LB_16N: case OP_LB_SORTED_N: case OP_LB_SORTED_16N: {
        int wide = op == OP_LB_16N || op == OP_LB_SORTED_16N, sorted = op == OP_LB_SORTED_N || op == OP_LB_SORTED_16N;
        cl_mem *hay = wide ? &B->hay16 : &B->hay;
        clsort_search_desc sd;
        if (!*hay && !(*hay = search_keys(clsort_cl_context(cs), wide ? 16 * n : n))) return -1;
        if (sorted && !B->sneedles && !(B->sneedles = search_keys(clsort_cl_context(cs), n))) return -1;
        memset(&sd, 0, sizeof sd);
        sd.sorted_needles = sorted;
        return clsort_lower_bound(cs, *hay, wide ? 16 * n : n, sorted ? B->sneedles : B->a, n, B->b, &sd, NULL);
    }
    case OP_GATHER_MANY4: case OP_GATHER_FOUR_CALLS: {
        clsort_gather_many_desc gd;
        int r;
        if (!B->ridx) {
            uint32_t *h = (uint32_t *)malloc(n * 4 + 4);
            unsigned long long st = 0x9a7e4ull;
            size_t i;
            int ok = 1;
            if (!h) return -1;
            for (i = 0; i < n; ++i) h[i] = (uint32_t)(rnd(&st) % n);
            B->ridx = buffer(clsort_cl_context(cs), n * 4 + 4, h, &ok);
            free(h);
            if (!ok) return -1;
        }
        memset(&gd, 0, sizeof gd);
        gd.count = 4;
        gd.arrays[0].src = B->pos, gd.arrays[0].dst = B->pos2, gd.arrays[0].elem_size = 16;
        gd.arrays[1].src = B->a, gd.arrays[1].dst = B->b, gd.arrays[1].elem_size = 4;
        gd.arrays[2].src = B->flags, gd.arrays[2].dst = B->va, gd.arrays[2].elem_size = 4;
        gd.arrays[3].src = B->a64, gd.arrays[3].dst = B->b64, gd.arrays[3].elem_size = 8;
        if (op == OP_GATHER_MANY4) return clsort_gather_many(cs, B->ridx, n, &gd, NULL);
        for (r = 0; r < 4; ++r)
            if (clsort_gather(cs, gd.arrays[r].src, gd.arrays[r].dst, B->ridx, n, gd.arrays[r].elem_size, NULL))
                return -1;
        return 0;
    }
    case OP_MERGE_U32: case OP_MERGE_PAIRS: { /* the halves into b (values: va's halves into vb) */
        clsort_merge_desc md;
        memset(&md, 0, sizeof md);
        if (op == OP_MERGE_PAIRS) md.values_a = md.values_b = B->va, md.values_out = B->vb;
        if (op == OP_MERGE_PAIRS && !B->va_half) B->va_half = second_half(B->va, n); /* values of b */
        if (op == OP_MERGE_PAIRS) md.values_b = B->va_half;
        if (!B->halves_b) B->halves_b = second_half(B->halves, n);
        if (!B->halves_b || (op == OP_MERGE_PAIRS && !B->va_half)) return -1;
        return clsort_merge(cs, B->halves, n / 2, B->halves_b, n - n / 2, B->b, &md, NULL);
    }
    case OP_TOP_K_100: case OP_TOP_K_65536: case OP_TOP_K_65536_SORTED: case OP_TOP_K_PAIRS_65536: {
        clsort_top_k_desc td;
        memset(&td, 0, sizeof td);
        td.k = op == OP_TOP_K_100 ? 100 : 65536;
        if (td.k > n) td.k = n;
        td.sorted = op == OP_TOP_K_65536_SORTED;
        if (op == OP_TOP_K_PAIRS_65536) td.values_in = B->va, td.values_out = B->vb;
        return clsort_top_k(cs, B->a, B->b, n, &td, NULL);
    }
    case OP_REDUCE_U32_USER: case OP_REDUCE_F32_SQUARES: case OP_REDUCE_F32_ARGMIN: case OP_REDUCE_F32_ARGMIN_COMM:
    case OP_SCAN_U32_INCL_USER:
    case OP_SORT_RECORD32: return run_user_op(cs, op, B, n);
    case OP_COUNT: break;
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
    case OP_SELECT_GT: for (i = 0; i < n; ++i) { b[k] = a[i]; k += a[i] > 0x80000000u; } break;
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
    case OP_SEGREDUCE_10:
    case OP_SEGREDUCE_100K: {
        const uint32_t *o = op == OP_SEGREDUCE ? B->hostoff : B->hostoffm[op == OP_SEGREDUCE_100K];
        size_t count = op == OP_SEGREDUCE ? B->segcount : B->segcountm[op == OP_SEGREDUCE_100K];
        for (k = 0; k < count; ++k) {
            s = 0;
            for (i = o[k]; i < o[k + 1]; ++i) s += a[i];
            b[k] = s;
        }
        break;
    }
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


static void report(const char *dev, const char *prim, const char *variant, size_t n, double ms)
{
    printf("{\"primitive\":\"%s\",\"variant\":\"%s\",\"n\":%lu,\"ms\":%.4f,\"items_per_s\":%.4g,\"device\":\"%s\"}\n",
           prim, variant, (unsigned long)n, ms, n / (ms * 1e-3), dev);
    fflush(stdout);
}

/* A device buffer of `bytes`, filled from host when given; *ok drops to 0 on failure. */
static cl_mem buffer(cl_context cc, size_t bytes, const void *host, int *ok)
{
    cl_int e = CL_SUCCESS;
    cl_mem m = NULL;
    if (*ok) m = clCreateBuffer(cc, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0), bytes, (void *)host, &e);
    if (e != CL_SUCCESS) *ok = 0;
    return m;
}

static void release(cl_mem m)
{
    if (m) clReleaseMemObject(m);
}

/* The inputs of every row at n elements (h: the random keys, hf: the flags;
 * host copies of the segment data for the C loops). 1 on success. */
static int make_bufs(cl_context cc, bufs *B, size_t n, const uint32_t *h, const uint32_t *hf)
{
    uint32_t *off = (uint32_t *)malloc((n + 1) * 4), *k64 = (uint32_t *)malloc(n * 8), *cells = (uint32_t *)malloc(n * 4);
    float *pos = (float *)malloc(n * 16);
    uint8_t *f8 = (uint8_t *)malloc(n);
    size_t j, at = 0;
    uint32_t key = 0;
    int ok = 1;
    memset(B, 0, sizeof *B);
    if (getenv("BENCH_RADIX_BITS")) B->radix_bits = (unsigned)atoi(getenv("BENCH_RADIX_BITS"));
    if (getenv("BENCH_END_BIT")) B->end_bit = (unsigned)atoi(getenv("BENCH_END_BIT"));
    B->hostflags = (uint32_t *)malloc(n * 4);
    B->hostkeys = (uint32_t *)malloc(n * 4);
    B->hostoff = (uint32_t *)malloc(n * 4 + 8);
    if (!off || !k64 || !cells || !pos || !f8 || !B->hostflags || !B->hostkeys || !B->hostoff) ok = 0;
    if (ok) { /* random segment lengths 0..2047 (mean 1023.5), the last one cut at n */
        off[0] = 0;
        while (at < n) {
            size_t len = rnd(&seed) % 2048u;
            at = at + len < n ? at + len : n;
            off[++B->segments] = (uint32_t)at;
        }
        B->hostoff[0] = 0; /* reductions: a segment starts with probability 1/1000 */
        for (j = 0; j < n; ++j) {
            B->hostflags[j] = j > 0 && rnd(&seed) % 1000u == 0;
            if (B->hostflags[j]) {
                ++key;
                B->hostoff[++B->segcount] = (uint32_t)j;
            }
            B->hostkeys[j] = key;
            f8[j] = (uint8_t)B->hostflags[j];
        }
        B->hostoff[++B->segcount] = (uint32_t)n;
        for (j = 0; j < n; ++j) k64[2 * j] = h[j], k64[2 * j + 1] = h[j] ^ 0x5bd1e995u;
        for (j = 0; j < n; ++j) { /* float4 positions, x and y uniform in [0, 1); their 10-bit cells */
            pos[4 * j] = (float)(rnd(&seed) >> 8) / 16777216.0f;
            pos[4 * j + 1] = (float)(rnd(&seed) >> 8) / 16777216.0f;
            pos[4 * j + 2] = 0.0f;
            pos[4 * j + 3] = 1.0f;
            cells[j] = (uint32_t)(pos[4 * j] * 32.0f) + 32u * (uint32_t)(pos[4 * j + 1] * 32.0f);
        }
    }
    B->a = buffer(cc, n * 4, h, &ok);
    B->b = buffer(cc, n * 4, NULL, &ok);
    B->flags = buffer(cc, n * 4, hf, &ok);
    B->va = buffer(cc, n * 4, cells, &ok); /* values of the pairs rows and the keys of the 10-bit binning sort */
    B->vb = buffer(cc, n * 4, NULL, &ok);
    B->a64 = buffer(cc, n * 8, k64, &ok);
    B->b64 = buffer(cc, n * 8, NULL, &ok);
    B->pos = buffer(cc, n * 16, pos, &ok);
    B->pos2 = buffer(cc, n * 16, NULL, &ok);
    B->off = buffer(cc, 1025 * 4, NULL, &ok);
    B->offsets = buffer(cc, (B->segments + 1) * 4, off, &ok);
    B->segflags = buffer(cc, n * 4, B->hostflags, &ok);
    B->segflags8 = buffer(cc, n, f8, &ok);
    B->segkeys = buffer(cc, n * 4, B->hostkeys, &ok);
    B->segoff = buffer(cc, (B->segcount + 1) * 4, B->hostoff, &ok);
    for (j = 0; j < 2; ++j) {
        uint32_t mean = j ? 100000u : 10u;
        size_t i;
        B->hostoffm[j] = (uint32_t *)malloc((n / 4 + 2) * 4 + 8);
        B->segcountm[j] = 0;
        if (!B->hostoffm[j]) {
            ok = 0;
            continue;
        }
        B->hostoffm[j][0] = 0;
        for (i = 1; i < n; ++i)
            if (rnd(&seed) % mean == 0 && B->segcountm[j] < n / 4) B->hostoffm[j][++B->segcountm[j]] = (uint32_t)i;
        B->hostoffm[j][++B->segcountm[j]] = (uint32_t)n;
        B->segoffm[j] = buffer(cc, (B->segcountm[j] + 1) * 4, B->hostoffm[j], &ok);
    }
    B->counts = buffer(cc, 256 * 4, NULL, &ok);
    B->result = buffer(cc, 8, NULL, &ok);
    {
        cl_uint n32 = (cl_uint)n, half = (cl_uint)(n / 2);
        B->dcount = buffer(cc, 4, &n32, &ok);
        B->dhalf = buffer(cc, 4, &half, &ok);
    }
    if (ok) { /* the merge's sorted halves (k64 reused) */
        size_t half = n / 2 ? n / 2 : 1;
        uint64_t step = ((uint64_t)1 << 32) / half;
        for (j = 0; j < n; ++j) {
            size_t i = j < n / 2 ? j : j - n / 2;
            k64[j] = (uint32_t)((uint64_t)i * step + (uint64_t)rnd(&seed) % (step ? step : 1));
        }
    }
    B->halves = buffer(cc, n * 4 + 4, k64, &ok);
    if (ok) /* the user-operator f32 rows' values (k64 reused) */
        for (j = 0; j < n; ++j) {
            float f = (float)(h[j] >> 24);
            memcpy(&k64[j], &f, 4);
        }
    B->fvals = buffer(cc, n * 4, k64, &ok);
    free(off), free(k64), free(cells), free(pos), free(f8);
    return ok;
}

static void release_bufs(bufs *B)
{
    cl_mem *all[] = {&B->halves_b, &B->va_half, /* sub-buffers before their parents */
                     &B->a,       &B->b,     &B->flags,   &B->va,        &B->vb,     &B->a64,   &B->b64,
                     &B->temp,    &B->pos,   &B->pos2,    &B->off,       &B->gperm,  &B->offsets, &B->segflags,
                     &B->segflags8, &B->segkeys, &B->segoff, &B->counts, &B->result, &B->dcount, &B->dhalf,
                     &B->hay,     &B->hay16, &B->sneedles, &B->ridx, &B->halves, &B->fvals, &B->rec, &B->rec2,
                     &B->segoffm[0], &B->segoffm[1]};
    size_t i;
    for (i = 0; i < sizeof all / sizeof all[0]; ++i) release(*all[i]), *all[i] = NULL;
    clsort_tree_destroy(B->tree);
    B->tree = NULL;
    free(B->hostflags), free(B->hostkeys), free(B->hostoff), free(B->hostoffm[0]), free(B->hostoffm[1]);
}

/* The host rows: the ops a plain C loop (or std::sort, up to 2^24 keys) does too. */
static int has_host_row(op_kind op, size_t n)
{
    return op == OP_COPY || op == OP_SCAN_U32 || op == OP_PACK || op == OP_SPLIT || op == OP_SELECT_GT ||
           (op >= OP_REDUCE_U32 && op <= OP_HISTOGRAM) || (op == OP_SORT_U32 && n <= ((size_t)1 << 24));
}

/* Every selected row at n elements. 0 on success. */
static int bench_size(clsort_context *cs, size_t n, int runs, const selection *sel, int host_rows)
{
    cl_command_queue q = clsort_cl_queue(cs);
    uint32_t *h = (uint32_t *)malloc(n * 4), *hf = (uint32_t *)malloc(n * 4), *ho = (uint32_t *)malloc(n * 8);
    double *t = (double *)malloc(sizeof(double) * (size_t)runs);
    const char *dev = clsort_device_name(cs);
    bufs B;
    size_t j;
    int op, status = 0;
    if (!h || !hf || !ho || !t) {
        fprintf(stderr, "bench: out of host memory at n = %lu\n", (unsigned long)n);
        free(h), free(hf), free(ho), free(t);
        return -1;
    }
    for (j = 0; j < n; ++j) h[j] = rnd(&seed), hf[j] = rnd(&seed) & 1;
    if (!make_bufs(clsort_cl_context(cs), &B, n, h, hf)) {
        fprintf(stderr, "bench: buffers for n = %lu could not be made\n", (unsigned long)n);
        status = -1;
    }
    for (op = 0; op < OP_COUNT && status == 0; ++op) {
        if (!wanted(sel, rows[op].primitive, rows[op].variant, rows[op].suites)) continue;
        if (run_op(cs, (op_kind)op, &B, n) != 0 || clFinish(q) != CL_SUCCESS) { /* warm-up: builds the programs */
            fprintf(stderr, "bench: %s/%s: %s\n", rows[op].primitive, rows[op].variant, clsort_last_error(cs));
            status = -1;
            break;
        }
        if (check_user_op(cs, (op_kind)op, &B, n, h) != 0) { /* the user-operator rows' results */
            fprintf(stderr, "bench: %s/%s: the result differs from the host's\n", rows[op].primitive, rows[op].variant);
            status = -1;
            break;
        }
        for (j = 0; j < (size_t)runs && status == 0; ++j) {
            double t0;
            clFinish(q);
            t0 = now_ms();
            status = run_op(cs, (op_kind)op, &B, n);
            clFinish(q);
            t[j] = now_ms() - t0;
        }
        if (status != 0) {
            fprintf(stderr, "bench: %s/%s: %s\n", rows[op].primitive, rows[op].variant, clsort_last_error(cs));
            break;
        }
        report(dev, rows[op].primitive, rows[op].variant, n, median(t, runs));
        if (host_rows && has_host_row((op_kind)op, n)) {
            int host_runs = op == OP_SORT_U32 && n > ((size_t)1 << 22) ? (runs < 3 ? runs : 3) : runs;
            for (j = 0; j < (size_t)host_runs; ++j) {
                double t0;
                if (op == OP_SORT_U32) memcpy(ho, h, n * 4); /* not timed: std::sort sorts in place */
                t0 = now_ms();
                host_op((op_kind)op, h, ho, hf, &B, n);
                t[j] = now_ms() - t0;
            }
            report(op == OP_SORT_U32 ? "host std::sort" : "host C loop", rows[op].primitive, rows[op].variant, n,
                   median(t, host_runs));
        }
    }
    release_bufs(&B);
    free(h), free(hf), free(ho), free(t);
    return status;
}

static void list_rows(const selection *sel)
{
    size_t s;
    int op, v;
    char why[160];
    const char *problem = family_coverage(why, sizeof why);
    printf("suites [rows] (a family's suite is named as the family):\n");
    for (s = 0; s < SUITE_COUNT; ++s)
        if (suites[s].family == NO_FAMILY) printf("  %-8s %s\n", suite_name(s), suites[s].what);
        else printf("  %-8s [%d] %s\n", suite_name(s), family_rows(suites[s].family), suites[s].what);
    printf("families: %s\n", problem ? problem : "every family of the registry has a suite and a row");
    printf("rows (primitive/variant):\n");
    for (op = 0; op < OP_COUNT; ++op)
        if (wanted(sel, rows[op].primitive, rows[op].variant, rows[op].suites))
            printf("  %s/%s\n", rows[op].primitive, rows[op].variant);
    for (v = 0; v < NBODY_VARIANTS; ++v)
        if (wanted(sel, "nbody", nbody_variants[v], S_NBODY)) printf("  nbody/%s\n", nbody_variants[v]);
}

static int usage(const char *why)
{
    size_t s;
    fprintf(stderr, "bench: %s\nusage: build/bench [--list] [SUITE...] [LOG2N...] [--filter REGEX] [--runs N] [--no-host]\n"
                    "suites:", why);
    for (s = 0; s < SUITE_COUNT; ++s) fprintf(stderr, " %s", suite_name(s));
    fprintf(stderr, "\n");
    return 2;
}

int main(int argc, char **argv)
{
    int sizes[32], ns = 0, i, list = 0, runs = getenv("BENCH_RUNS") ? atoi(getenv("BENCH_RUNS")) : 15, status = 0;
    int host_rows = !getenv("BENCH_HOST") || atoi(getenv("BENCH_HOST")) != 0;
    selection sel;
    clsort_context *cs = NULL;
    char why[160];
    memset(&sel, 0, sizeof sel);
    sel.only = getenv("BENCH_ONLY");
    sel.variants = getenv("BENCH_VARIANT");
    for (i = 1; i < argc; ++i) {
        const char *a = argv[i];
        size_t s;
        if (strcmp(a, "--list") == 0) {
            list = 1;
        } else if (strcmp(a, "--no-host") == 0) {
            host_rows = 0;
        } else if (strcmp(a, "--runs") == 0 && i + 1 < argc) {
            runs = atoi(argv[++i]);
        } else if (strcmp(a, "--filter") == 0 && i + 1 < argc) {
            if (sel.have_filter) regfree(&sel.filter);
            if (regcomp(&sel.filter, argv[++i], REG_EXTENDED | REG_NOSUB) != 0) return usage("--filter: not a regular expression");
            sel.have_filter = 1;
        } else if (a[0] >= '0' && a[0] <= '9') {
            if (ns == 32) return usage("at most 32 sizes");
            sizes[ns] = atoi(a);
            if (sizes[ns] < 1 || sizes[ns] > 34) return usage("sizes are log2 n, 1 to 34");
            ++ns;
        } else {
            for (s = 0; s < SUITE_COUNT && strcmp(a, suite_name(s)) != 0; ++s) continue;
            if (s == SUITE_COUNT) {
                size_t r;
                for (r = 0; r < sizeof suite_renamed / sizeof suite_renamed[0]; ++r)
                    if (strcmp(a, suite_renamed[r].name) == 0) {
                        snprintf(why, sizeof why, "the suite %s is now named %s", a, suite_renamed[r].now);
                        return usage(why);
                    }
                return usage("unknown suite or option");
            }
            sel.suites |= suites[s].mask;
        }
    }
    if (!sel.suites) /* the older form: BENCH_ONLY=nbody */
        sel.suites = list ? S_ARRAYS | S_NBODY : sel.only && strstr(sel.only, "nbody") ? S_NBODY : S_ARRAYS;
    if (list) {
        list_rows(&sel);
        if (sel.have_filter) regfree(&sel.filter);
        return family_coverage(why, sizeof why) ? 2 : 0;
    }
    if (family_coverage(why, sizeof why)) { /* a family added to the registry without its bench rows */
        fprintf(stderr, "bench: %s\n", why);
        return 2;
    }
    if ((sel.suites & S_NBODY) && (sel.suites & S_ARRAYS))
        return usage("run the nbody suite on its own (its sizes are log2 N)");
    if (runs < 1) runs = 1;
    if (ns == 0) {
        sizes[ns++] = sel.suites & S_NBODY ? 12 : 16;
        sizes[ns++] = sel.suites & S_NBODY ? 14 : 20;
        if (!(sel.suites & S_NBODY)) sizes[ns++] = 24;
    }
    if (clsort_create(&cs, NULL) != CLSORT_SUCCESS) {
        fprintf(stderr, "bench: %s\n", clsort_last_error(cs));
        clsort_destroy(cs);
        return 1;
    }
    fprintf(stderr, "bench: device %s, path %s, %d runs\n", clsort_device_name(cs),
            clsort_context_path(cs) == CLSORT_PATH_LOOKBACK ? "lookback" : "portable", runs);
    for (i = 0; i < ns && status == 0; ++i) {
        size_t n = (size_t)1 << sizes[i];
        status = sel.suites & S_NBODY ? bench_nbody(cs, n, runs, &sel, host_rows)
                                      : bench_size(cs, n, runs, &sel, host_rows);
        if (status != 0) fprintf(stderr, "bench: failed at 2^%d\n", sizes[i]);
    }
    clsort_destroy(cs);
    if (sel.have_filter) regfree(&sel.filter);
    return status == 0 ? 0 : 1;
}
