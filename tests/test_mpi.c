/* clsort_mpi_sort under MPI: run with mpirun -n 1..8. Every rank creates its own
 * clsort context (PoCL here). Each case checks, over all ranks: every rank
 * sorted, the order across ranks, the multiset (count, sum, xor and sum of
 * squares of a hash of every key, MPI_Allreduce), values still with their keys,
 * and each rank's count or weight within the bounds asked for; the
 * device-resident form against a plain C reference (below; float keys with
 * NaNs of both signs, the outputs in the input buffers); the refusals the
 * manual names, a failed MPI call and a total weight of 0. The sort cases
 * run twice: step IV as the runs merged on the device (the default) and as
 * the runs re-sorted (CLSORT_MPI_MERGE_RESORT). Built with
 * -DTEST_MPI_FAULTS and linker wraps (make mpi-test), it runs the fault
 * injection instead. Rank 0 prints "N passed, N failed" over all cases. */
#define CLSORT_MPI
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank_, size_;
static int passed, failed;
/* Step IV of the cases that leave it at the default, CLSORT_MPI_MERGE_DEVICE:
 * that (the runs merged on the device) or CLSORT_MPI_MERGE_RESORT (sorted
 * again); the sort cases run with each. */
static clsort_mpi_merge last_step_ = CLSORT_MPI_MERGE_DEVICE;

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static uint64_t mix(uint64_t x) { uint64_t s = x; return rng(&s); }
static uint64_t val_of(uint64_t key) { return key * 0x9e3779b97f4a7c15ull + 7; }

enum dist { UNIFORM, NORMAL, AND1, AND3, AND5, EQUAL, FEW };
static const char *dist_name[] = {"uniform", "normal", "AND^1", "AND^3", "AND^5", "all-equal", "few-distinct"};

static uint64_t gen(enum dist d, uint64_t *s)
{
    uint64_t k;
    int i;
    switch (d) {
    case UNIFORM: return rng(s);
    case NORMAL: {
        double u1 = ((double)(rng(s) >> 11) + 0.5) / 9007199254740992.0, u2 = (double)(rng(s) >> 11) / 9007199254740992.0;
        double z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
        double x = 9223372036854775808.0 + z * 9223372036854775808.0 / 3.0;
        if (x < 0) x = 0;
        if (x >= 18446744073709551615.0) return ~(uint64_t)0;
        return (uint64_t)x;
    }
    case AND1: case AND3: case AND5:
        k = rng(s);
        for (i = 0; i < (d == AND1 ? 1 : d == AND3 ? 3 : 5); i++) k &= rng(s);
        return k;
    case EQUAL: return 0x123456789abcdefull;
    case FEW: return (rng(s) % 5) << 40;
    }
    return 0;
}

typedef struct tcase {
    const char *name;
    clsort_type type;
    enum dist dist;
    size_t n;              /* this rank's count */
    size_t value_size;
    int weighted;          /* 0 none, 1 all ones, 2 skewed */
    clsort_mpi_desc desc;  /* type and value_size filled from above */
    int exact;             /* max_imbalance 0: the counts must be exactly the even split */
} tcase;

/* Runs one case; returns 1 when every check passed on this rank. */
static int run_case(clsort_context *ctx, tcase *tc, clsort_mpi_out *keep)
{
    size_t ks = clsort_type_size(tc->type), i, n = tc->n;
    uint64_t seed = 1234567ull * (uint64_t)(rank_ + 1) + (uint64_t)tc->dist * 77 + n, s = seed;
    void *keys = malloc(n * ks + 1), *vals = malloc(n * 8 + 1), *copy = malloc(n * ks + 1);
    double *w = (double *)malloc(n * sizeof(double) + 1), mywmax = 0;
    uint64_t h_in[4] = {0, 0, 0, 0}, h_out[4] = {0, 0, 0, 0}, g_in[4], g_out[4];
    clsort_mpi_out out;
    clsort_result r;
    int ok = 1;
    tc->desc.type = tc->type;
    tc->desc.value_size = tc->value_size;
    if (tc->desc.merge == CLSORT_MPI_MERGE_DEVICE) tc->desc.merge = last_step_;
    for (i = 0; i < n; i++) {
        uint64_t k = gen(tc->dist, &s);
        if (ks == 4) k >>= 32;
        if (ks == 4) ((uint32_t *)keys)[i] = (uint32_t)k; else ((uint64_t *)keys)[i] = k;
        if (tc->value_size == 4) ((uint32_t *)vals)[i] = (uint32_t)val_of(k);
        if (tc->value_size == 8) ((uint64_t *)vals)[i] = val_of(k);
        w[i] = tc->weighted == 2 ? 1.0 + (double)(mix(k + i) % 1000) / 10.0 * (double)(rank_ + 1) : 1.0;
        if (w[i] > mywmax) mywmax = w[i];
        h_in[0] += 1; h_in[1] += mix(k); h_in[2] ^= mix(k ^ 0x55); h_in[3] += mix(k) * mix(k);
    }
    memcpy(copy, keys, n * ks);
    r = clsort_mpi_sort(ctx, MPI_COMM_WORLD, keys, tc->value_size ? vals : NULL, tc->weighted ? w : NULL, n,
                        &tc->desc, &out);
    if (r != CLSORT_SUCCESS) {
        fprintf(stderr, "rank %d %s: %s: %s\n", rank_, tc->name, clsort_result_string(r), clsort_last_error(ctx));
        ok = 0;
    } else {
        size_t m = out.n;
        uint64_t first = 0, last = 0, *fl;
        double wsum = 0, wmax = 0, total_w = 0;
        unsigned long long cnt = m, total_n = 0;
        if (memcmp(copy, keys, n * ks) != 0) { fprintf(stderr, "%s: input changed\n", tc->name); ok = 0; }
        for (i = 0; i < m; i++) {
            uint64_t k = ks == 4 ? ((uint32_t *)out.keys)[i] : ((uint64_t *)out.keys)[i];
            uint64_t prev = i ? (ks == 4 ? ((uint32_t *)out.keys)[i - 1] : ((uint64_t *)out.keys)[i - 1]) : 0;
            if (i && prev > k) { if (ok) fprintf(stderr, "rank %d %s: unsorted at %lu\n", rank_, tc->name, (unsigned long)i); ok = 0; }
            if (tc->value_size == 4 && ((uint32_t *)out.values)[i] != (uint32_t)val_of(k)) ok = 0;
            if (tc->value_size == 8 && ((uint64_t *)out.values)[i] != val_of(k)) ok = 0;
            h_out[0] += 1; h_out[1] += mix(k); h_out[2] ^= mix(k ^ 0x55); h_out[3] += mix(k) * mix(k);
            if (i == 0) first = k;
            last = k;
        }
        if (tc->weighted) for (i = 0; i < m; i++) wsum += out.weights[i];
        /* order across ranks */
        fl = (uint64_t *)malloc(3 * (size_t)size_ * sizeof(uint64_t));
        {
            uint64_t me[3] = {m, first, last};
            MPI_Allgather(me, 3, MPI_UINT64_T, fl, 3, MPI_UINT64_T, MPI_COMM_WORLD);
        }
        {
            uint64_t maxlast = 0;
            int seen = 0, q;
            for (q = 0; q < size_; q++) {
                if (!fl[3 * q]) continue;
                if (seen && fl[3 * q + 1] < maxlast) { if (rank_ == 0) fprintf(stderr, "%s: rank %d starts below an earlier rank's keys\n", tc->name, q); ok = 0; }
                if (fl[3 * q + 2] > maxlast) maxlast = fl[3 * q + 2];
                seen = 1;
            }
        }
        free(fl);
        MPI_Allreduce(h_in, g_in, 4, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(h_out, g_out, 4, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (g_in[0] != g_out[0] || g_in[1] != g_out[1] || g_in[3] != g_out[3]) { ok = 0; if (rank_ == 0) fprintf(stderr, "%s: multiset changed\n", tc->name); }
        MPI_Allreduce(&h_in[2], &g_in[2], 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
        MPI_Allreduce(&h_out[2], &g_out[2], 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
        if (g_in[2] != g_out[2]) ok = 0;
        /* bounds */
        MPI_Allreduce(&cnt, &total_n, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&wsum, &total_w, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&mywmax, &wmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (tc->desc.algorithm == CLSORT_MPI_PARTITION) {
            double lo, hi, have = tc->weighted ? wsum : (double)m, slack;
            if (tc->desc.lower) {
                lo = tc->desc.lower[rank_];
                hi = tc->desc.upper[rank_];
            } else {
                double tot = tc->weighted ? total_w : (double)total_n, avg = tot / size_;
                double imba = tc->desc.max_imbalance * avg;
                lo = floor(avg) - 2 * floor(imba / 2) - (tc->weighted ? 0 : 0);
                hi = ceil(avg) + 2 * floor(imba / 2);
                if (tc->weighted) { lo = avg - imba; hi = avg + imba; }
            }
            /* weighted: an item is indivisible, the boundary may miss by up to one item per rank */
            slack = tc->weighted ? wmax * size_ + 1e-6 * (total_w + 1) : 0;
            if (have < lo - slack || have > hi + slack) {
                fprintf(stderr, "rank %d %s: holds %.3f, bounds [%.3f, %.3f] (slack %.3f)\n", rank_, tc->name, have, lo,
                        hi, slack);
                ok = 0;
            }
            if (fabs(out.weight - (tc->weighted ? wsum : (double)m)) > 1e-6 * (1 + wsum)) ok = 0;
        }
        /* all keys equal: no key bit can split them, every boundary needs the MPI_Exscan round */
        if (tc->dist == EQUAL && tc->desc.algorithm == CLSORT_MPI_PARTITION && total_n > 0 &&
            out.stats.final_columns != (unsigned)(size_ - 1)) {
            fprintf(stderr, "rank %d %s: %u boundaries by the final round, %d expected\n", rank_, tc->name,
                    out.stats.final_columns, size_ - 1);
            ok = 0;
        }
        if (keep) *keep = out;
        else clsort_mpi_free(&out);
    }
    free(keys);
    free(vals);
    free(copy);
    free(w);
    return ok;
}

static void record(const char *name, int ok_local)
{
    int ok = 0;
    MPI_Allreduce(&ok_local, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (ok) passed++; else failed++;
    if (rank_ == 0 && !ok)
        printf("FAILED: %s%s\n", name, last_step_ == CLSORT_MPI_MERGE_RESORT ? " (the runs re-sorted)" : "");
}

/* ---- clsort_mpi_sort_device against a plain C reference ----
 * Every rank gathers all items (MPI_Allgatherv) and sorts them with qsort by
 * (key in the type's numeric order, -0 before +0; rank; position): the order
 * the distributed sort promises (stable across ranks). Each rank's output
 * must be its slice of that sequence, bit for bit: keys, values (which
 * encode rank and position) and weights. */

typedef struct ditem {
    uint64_t key, val, gidx; /* gidx: rank << 32 | position */
    double w;
} ditem;

static clsort_type ref_type; /* the key type ditem_cmp compares (qsort has no context argument) */

/* A float key's bits (4 or 8 bytes) as an unsigned image in clsort_sort's
 * order, written from the rule the manual states: -inf .. -0 first (the
 * negatives reversed), then +0 .. +inf and the positive NaNs, the negative
 * NaNs last. */
static uint64_t fimage(uint64_t x, int bytes)
{
    const uint64_t sign = bytes == 4 ? 0x80000000ull : 0x8000000000000000ull;
    const uint64_t neg_inf = bytes == 4 ? 0xff800000ull : 0xfff0000000000000ull;
    if (bytes == 4) x &= 0xffffffffull;
    if (x & sign) return x > neg_inf ? x : neg_inf - x;
    return x + (neg_inf - sign + 1);
}

static int key_cmp(clsort_type t, uint64_t a, uint64_t b)
{
    switch (t) {
    case CLSORT_I32: {
        int32_t x = (int32_t)(uint32_t)a, y = (int32_t)(uint32_t)b;
        return x < y ? -1 : x > y;
    }
    case CLSORT_I64: {
        int64_t x = (int64_t)a, y = (int64_t)b;
        return x < y ? -1 : x > y;
    }
    case CLSORT_F32:
    case CLSORT_F64: { /* clsort_sort's key image (kernels/keys.cl): -0 < +0, NaNs after +inf, negative NaNs last */
        uint64_t x = fimage(a, t == CLSORT_F32 ? 4 : 8), y = fimage(b, t == CLSORT_F32 ? 4 : 8);
        return x < y ? -1 : x > y;
    }
    default: return a < b ? -1 : a > b;
    }
}

static int ditem_cmp(const void *pa, const void *pb)
{
    const ditem *a = (const ditem *)pa, *b = (const ditem *)pb;
    int c = key_cmp(ref_type, a->key, b->key);
    if (c) return c;
    return a->gidx < b->gidx ? -1 : a->gidx > b->gidx;
}

/* A key of type t drawn from d; float keys take the integer's value (so
 * AND^3 and all-equal keep their duplicates) with +-0, +-inf and NaNs of
 * both signs mixed in (bit patterns: no float operation touches them). */
static uint64_t dkey(clsort_type t, enum dist d, uint64_t *s, size_t i)
{
    uint64_t k = gen(d, s);
    int special = d != EQUAL && i % 97 == 5;
    if (t == CLSORT_F32) {
        static const uint32_t sp[6] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u};
        float f = (float)(int32_t)(uint32_t)(k >> 32) * 0.5f;
        uint32_t b;
        memcpy(&b, &f, 4);
        return special ? sp[k % 6] : b;
    }
    if (t == CLSORT_F64) {
        static const uint64_t sp[6] = {0, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                       0x7ff8000000000000ull, 0xfff8000000000001ull};
        double f = (double)(int64_t)k * 0.25;
        uint64_t b;
        memcpy(&b, &f, 8);
        return special ? sp[k % 6] : b;
    }
    return clsort_type_size(t) == 4 ? k >> 32 : k;
}

typedef struct dcase {
    const char *name;
    clsort_type type;
    enum dist dist;
    size_t n;              /* this rank's count */
    size_t vs;             /* value size, 0 = none */
    int weighted;
    clsort_mpi_desc desc;  /* type and value_size filled from above */
    int given;             /* 1: the caller's output buffers, large enough; 2: too small on the last rank;
                              3: the input buffers as the outputs (capacity n) */
    int bad_rank;          /* >= 0: this rank passes a keys buffer one item short */
} dcase;

static void put(void *a, size_t size, size_t i, uint64_t x)
{
    if (size == 4) ((uint32_t *)a)[i] = (uint32_t)x;
    else ((uint64_t *)a)[i] = x;
}

static uint64_t get(const void *a, size_t size, size_t i)
{
    return size == 4 ? ((const uint32_t *)a)[i] : ((const uint64_t *)a)[i];
}

static cl_mem dev_buffer(clsort_context *ctx, size_t bytes, const void *init)
{
    cl_int e;
    cl_mem m = clCreateBuffer(clsort_cl_context(ctx), CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes ? bytes : 1, (void *)(uintptr_t)init, &e);
    if (e != CL_SUCCESS) {
        fprintf(stderr, "rank %d: clCreateBuffer: %d\n", rank_, e);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return m;
}

static int dev_read(clsort_context *ctx, cl_mem m, size_t bytes, void *dst)
{
    return !bytes || clEnqueueReadBuffer(clsort_cl_queue(ctx), m, CL_TRUE, 0, bytes, dst, 0, NULL, NULL) == CL_SUCCESS;
}

/* Runs one case; returns 1 when every check passed on this rank. */
static int run_device_case(clsort_context *ctx, dcase *tc)
{
    size_t ks = clsort_type_size(tc->type), vs = tc->vs, n = tc->n, i, m = 0, total = 0;
    uint64_t s = 777ull * (uint64_t)(rank_ + 1) + (uint64_t)tc->dist * 31 + n + (uint64_t)tc->type * 1000003;
    unsigned char *keys = (unsigned char *)malloc(n * ks + 1), *vals = (unsigned char *)malloc(n * 8 + 1);
    double *w = (double *)malloc(n * sizeof(double) + 1);
    unsigned char *ok_keys = NULL, *ok_vals = NULL, *back = (unsigned char *)malloc(n * 8 + 1);
    double *ok_w = NULL;
    cl_mem dk, dv = NULL, dw = NULL, given[3] = {NULL, NULL, NULL};
    clsort_mpi_device_out out;
    clsort_result r;
    int ok = 1, q, *cnts = (int *)malloc((size_t)size_ * sizeof(int)), *offs = (int *)malloc((size_t)size_ * sizeof(int));
    unsigned long long mine_m, sent[2], sums[2];
    tc->desc.type = tc->type;
    tc->desc.value_size = vs;
    if (tc->desc.merge == CLSORT_MPI_MERGE_DEVICE) tc->desc.merge = last_step_;
    for (i = 0; i < n; i++) {
        uint64_t k = dkey(tc->type, tc->dist, &s, i), g = (uint64_t)rank_ << 32 | i;
        put(keys, ks, i, k);
        if (vs) put(vals, vs, i, vs == 4 ? (uint64_t)rank_ << 20 | i : g);
        w[i] = 1.0 + (double)(mix(g) % 100) / 4.0;
    }
    dk = dev_buffer(ctx, (rank_ == tc->bad_rank && n ? n - 1 : n) * ks, keys);
    if (vs) dv = dev_buffer(ctx, n * vs, vals);
    if (tc->weighted) dw = dev_buffer(ctx, n * 8, w);
    if (tc->given) {
        size_t cap = tc->given == 2 && rank_ == size_ - 1 ? 1 : n * (size_t)size_ + 1;
        given[0] = dev_buffer(ctx, cap * ks, NULL);
        if (vs) given[1] = dev_buffer(ctx, cap * vs, NULL);
        if (tc->weighted) given[2] = dev_buffer(ctx, cap * 8, NULL);
        tc->desc.keys_out = given[0];
        tc->desc.values_out = given[1];
        tc->desc.weights_out = given[2];
        tc->desc.capacity = cap;
    }
    if (tc->given == 3) { /* the result written over the inputs */
        tc->desc.keys_out = dk;
        tc->desc.values_out = dv;
        tc->desc.weights_out = dw;
        tc->desc.capacity = n;
    }
    r = clsort_mpi_sort_device(ctx, MPI_COMM_WORLD, n || rank_ % 2 ? dk : NULL, dv, tc->weighted ? dw : NULL, n,
                               &tc->desc, &out);
    /* the inputs are only read, on success and failure alike (but where they are the outputs) */
    if (tc->given != 3 && (!dev_read(ctx, dk, (rank_ == tc->bad_rank && n ? n - 1 : n) * ks, back) ||
                           memcmp(back, keys, (rank_ == tc->bad_rank && n ? n - 1 : n) * ks) != 0)) {
        fprintf(stderr, "rank %d %s: the input keys changed\n", rank_, tc->name);
        ok = 0;
    }
    if (tc->given != 3 && vs && (!dev_read(ctx, dv, n * vs, back) || memcmp(back, vals, n * vs) != 0)) {
        fprintf(stderr, "rank %d %s: the input values changed\n", rank_, tc->name);
        ok = 0;
    }
    if (tc->bad_rank >= 0 || tc->given == 2) { /* every rank must fail, none may hang */
        if (r != CLSORT_ERROR_INVALID_ARGUMENT || out.keys != NULL || out.n != 0) {
            fprintf(stderr, "rank %d %s: %s, expected an argument error everywhere\n", rank_, tc->name,
                    clsort_result_string(r));
            ok = 0;
        }
        if (tc->given == 2 && rank_ == size_ - 1 && out.needed <= 1) {
            fprintf(stderr, "rank %d %s: out.needed %lu\n", rank_, tc->name, (unsigned long)out.needed);
            ok = 0;
        }
        if (tc->bad_rank >= 0 && rank_ != tc->bad_rank && !strstr(clsort_last_error(ctx), "on rank")) {
            fprintf(stderr, "rank %d %s: the message does not name the failing rank: %s\n", rank_, tc->name,
                    clsort_last_error(ctx));
            ok = 0;
        }
        goto done;
    }
    if (r != CLSORT_SUCCESS) {
        fprintf(stderr, "rank %d %s: %s: %s\n", rank_, tc->name, clsort_result_string(r), clsort_last_error(ctx));
        ok = 0;
        /* the others may have succeeded only if the library broke its promise; keep the collectives matched */
    }
    m = r == CLSORT_SUCCESS ? out.n : 0;
    if (r == CLSORT_SUCCESS && tc->given &&
        (out.keys != (tc->given == 3 ? dk : given[0]) || (vs && out.values != (tc->given == 3 ? dv : given[1])))) {
        fprintf(stderr, "rank %d %s: the result is not in the given buffers\n", rank_, tc->name);
        ok = 0;
    }
    ok_keys = (unsigned char *)malloc(m * ks + 1);
    ok_vals = (unsigned char *)malloc(m * 8 + 1);
    ok_w = (double *)malloc(m * sizeof(double) + 1);
    if (r == CLSORT_SUCCESS &&
        (!dev_read(ctx, out.keys, m * ks, ok_keys) || (vs && !dev_read(ctx, out.values, m * vs, ok_vals)) ||
         (tc->weighted && !dev_read(ctx, out.weights, m * 8, ok_w)))) {
        fprintf(stderr, "rank %d %s: reading the result failed\n", rank_, tc->name);
        ok = 0;
    }
    /* the reference */
    {
        unsigned long long mine = n, all_n;
        int *rn = (int *)malloc((size_t)size_ * sizeof(int)), *rd = (int *)malloc((size_t)size_ * sizeof(int)), tot = 0;
        ditem *mine_items = (ditem *)malloc(n * sizeof(ditem) + 1), *all;
        int ni = (int)(n * sizeof(ditem));
        MPI_Allreduce(&mine, &all_n, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        total = (size_t)all_n;
        all = (ditem *)malloc(total * sizeof(ditem) + 1);
        for (i = 0; i < n; i++) {
            mine_items[i].key = get(keys, ks, i);
            mine_items[i].val = vs ? get(vals, vs, i) : 0;
            mine_items[i].gidx = (uint64_t)rank_ << 32 | i;
            mine_items[i].w = w[i];
        }
        MPI_Allgather(&ni, 1, MPI_INT, rn, 1, MPI_INT, MPI_COMM_WORLD);
        for (q = 0; q < size_; q++) {
            rd[q] = tot;
            tot += rn[q];
        }
        MPI_Allgatherv(mine_items, ni, MPI_BYTE, all, rn, rd, MPI_BYTE, MPI_COMM_WORLD);
        ref_type = tc->type;
        qsort(all, total, sizeof(ditem), ditem_cmp);
        {
            int mm = (int)m, off = 0;
            MPI_Allgather(&mm, 1, MPI_INT, cnts, 1, MPI_INT, MPI_COMM_WORLD);
            for (q = 0; q < size_; q++) {
                offs[q] = off;
                off += cnts[q];
            }
            if ((size_t)off != total) {
                if (rank_ == 0) fprintf(stderr, "%s: %d items out, %lu in\n", tc->name, off, (unsigned long)total);
                ok = 0;
            }
        }
        for (i = 0; ok && i < m; i++) {
            const ditem *e = &all[(size_t)offs[rank_] + i];
            if (get(ok_keys, ks, i) != e->key || (vs && get(ok_vals, vs, i) != (vs == 4 ? e->val & 0xffffffffu : e->val)) ||
                (tc->weighted && memcmp(&ok_w[i], &e->w, 8) != 0)) {
                fprintf(stderr, "rank %d %s: item %lu differs from the reference (key %llx, expected %llx)\n", rank_,
                        tc->name, (unsigned long)i, (unsigned long long)get(ok_keys, ks, i),
                        (unsigned long long)e->key);
                ok = 0;
            }
        }
        /* the distribution asked for: counts (or weight) within max_imbalance of the average */
        if (ok && tc->desc.algorithm == CLSORT_MPI_PARTITION && !tc->desc.lower) {
            double have = 0, tw = 0, avg, imba, slack = 0, wmax = 0;
            for (i = 0; i < total; i++) {
                tw += tc->weighted ? all[i].w : 1.0;
                if (all[i].w > wmax) wmax = all[i].w;
            }
            if (tc->weighted) for (i = 0; i < m; i++) have += ok_w[i];
            else have = (double)m;
            avg = tw / size_;
            imba = tc->desc.max_imbalance * avg;
            if (tc->weighted) slack = wmax * size_ + 1e-6 * (tw + 1);
            else imba = 2 * floor(imba / 2) + 1; /* integer boundaries: one item of rounding */
            if (have < avg - imba - slack || have > avg + imba + slack) {
                fprintf(stderr, "rank %d %s: holds %.2f, average %.2f +- %.2f\n", rank_, tc->name, have, avg, imba + slack);
                ok = 0;
            }
            if (r == CLSORT_SUCCESS && fabs(out.weight - have) > 1e-6 * (1 + have)) {
                fprintf(stderr, "rank %d %s: out.weight %g, holds %g\n", rank_, tc->name, out.weight, have);
                ok = 0;
            }
        }
        free(rn);
        free(rd);
        free(mine_items);
        free(all);
    }
    /* the stats: what leaves some rank reaches another */
    mine_m = out.stats.bytes_sent;
    sent[0] = out.stats.bytes_sent;
    sent[1] = out.stats.bytes_h2d;
    MPI_Allreduce(sent, sums, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (r == CLSORT_SUCCESS && (sums[0] != sums[1] || out.stats.bytes_d2h != mine_m ||
                                (sums[0] > 0 && out.stats.pieces == 0))) {
        fprintf(stderr, "rank %d %s: stats: sent %llu, arrived %llu, pieces %u\n", rank_, tc->name, sums[0], sums[1],
                out.stats.pieces);
        ok = 0;
    }
done:
    clsort_mpi_device_free(&out);
    clReleaseMemObject(dk);
    if (dv) clReleaseMemObject(dv);
    if (dw) clReleaseMemObject(dw);
    for (i = 0; i < 3; i++)
        if (given[i]) clReleaseMemObject(given[i]);
    free(keys);
    free(vals);
    free(w);
    free(back);
    free(ok_keys);
    free(ok_vals);
    free(ok_w);
    free(cnts);
    free(offs);
    return ok;
}

static void device_cases(clsort_context *ctx, size_t base)
{
    static const clsort_type types[6] = {CLSORT_U32, CLSORT_U64, CLSORT_F32, CLSORT_I32, CLSORT_I64, CLSORT_F64};
    static const enum dist dists[3] = {UNIFORM, AND3, EQUAL};
    clsort_mpi_staging staging;
    char name[160];
    size_t nb = base / 3 + 1;
    int t, d, c;
    memset(&staging, 0, sizeof staging);
    /* key types x distributions, uneven counts, windows (sample 16) and many pieces */
    for (t = 0; t < 6; t++)
        for (d = 0; d < 3; d++) {
            dcase tc;
            if (t >= 3 && d > 0) continue; /* i32, i64, f64: uniform only */
            memset(&tc, 0, sizeof tc);
            tc.type = types[t];
            tc.dist = dists[d];
            tc.n = nb + (size_t)rank_ * 53;
            tc.vs = (t + d) % 2 ? 8 : 4;
            tc.bad_rank = -1;
            tc.desc.max_imbalance = t == 1 && d == 1 ? 0.0 : 0.01;
            tc.desc.sample = 16;
            tc.desc.piece_bytes = 4096;
            snprintf(name, sizeof name, "device: %s %s, %lu-byte values, %s imbalance", clsort_type_size(tc.type) == 4 ? (t == 0 ? "u32" : t == 2 ? "f32" : "i32") : (t == 1 ? "u64" : t == 4 ? "i64" : "f64"),
                     dist_name[tc.dist], (unsigned long)tc.vs, t == 1 && d == 1 ? "0%" : "1%");
            tc.name = name;
            record(name, run_device_case(ctx, &tc));
        }
    /* counts: 0 and 1 per rank, all on rank 0, odd ranks empty */
    for (c = 0; c < 5; c++) {
        static const char *cn[5] = {"0 items on every rank", "1 item on every rank", "all items on rank 0",
                                    "odd ranks empty", "1 item on rank 0 only"};
        dcase tc;
        memset(&tc, 0, sizeof tc);
        tc.type = CLSORT_U64;
        tc.dist = c == 2 ? EQUAL : AND3;
        tc.n = c == 0 ? 0 : c == 1 ? 1 : c == 2 ? (rank_ == 0 ? 2 * nb : 0) : c == 3 ? (rank_ % 2 ? 0 : nb) : (rank_ == 0);
        tc.vs = 4;
        tc.bad_rank = -1;
        tc.desc.sample = 16;
        tc.desc.piece_bytes = 512;
        snprintf(name, sizeof name, "device: %s, u64 %s", cn[c], dist_name[tc.dist]);
        tc.name = name;
        record(name, run_device_case(ctx, &tc));
    }
    /* modes: the exchange serial, the host merge, PSRS, weights, the defaults (one piece, every key sampled),
     * kept staging, the caller's output buffers (large enough and too small), one rank's bad buffer */
    for (c = 0; c < 10; c++) {
        static const char *mn[10] = {"serial exchange", "host merge", "PSRS", "skewed weights 0%",
                                     "skewed weights 1%, f32, the caller's buffers", "defaults", "kept staging (1)",
                                     "kept staging (2)", "the caller's buffers too small on the last rank",
                                     "the last rank's keys buffer too small"};
        dcase tc;
        memset(&tc, 0, sizeof tc);
        tc.type = c == 4 ? CLSORT_F32 : CLSORT_U64;
        tc.dist = c % 2 ? AND3 : UNIFORM;
        tc.n = nb + (size_t)((rank_ * 7) % 5) * 41;
        tc.vs = c == 2 ? 0 : 8;
        tc.bad_rank = c == 9 ? size_ - 1 : -1;
        tc.desc.sample = c == 5 ? 0 : 32;
        tc.desc.piece_bytes = c == 5 ? 0 : 4096;
        tc.desc.max_imbalance = c == 4 ? 0.01 : 0.0;
        tc.desc.serial = c == 0;
        tc.desc.merge = c == 1 ? CLSORT_MPI_MERGE_HOST : CLSORT_MPI_MERGE_DEVICE;
        tc.desc.algorithm = c == 2 ? CLSORT_MPI_PSRS : CLSORT_MPI_PARTITION;
        tc.weighted = c == 3 || c == 4;
        tc.given = c == 4 ? 1 : c == 8 ? 2 : 0;
        if (c == 6 || c == 7) tc.desc.staging = &staging;
        snprintf(name, sizeof name, "device: %s, %s %s", mn[c], c == 4 ? "f32" : "u64", dist_name[tc.dist]);
        tc.name = name;
        record(name, run_device_case(ctx, &tc));
    }
    /* the outputs are the inputs (the manual: step I reads them first): the
     * same n on every rank and zero imbalance, so each result fits its input */
    for (c = 0; c < 2; c++) {
        dcase tc;
        memset(&tc, 0, sizeof tc);
        tc.type = c ? CLSORT_F32 : CLSORT_U64;
        tc.dist = c ? UNIFORM : AND3;
        tc.n = nb;
        tc.vs = c ? 4 : 8;
        tc.bad_rank = -1;
        tc.given = 3;
        tc.desc.sample = 16;
        tc.desc.piece_bytes = 4096;
        snprintf(name, sizeof name, "device: the outputs are the input buffers, %s %s", c ? "f32" : "u64",
                 dist_name[tc.dist]);
        tc.name = name;
        record(name, run_device_case(ctx, &tc));
    }
    clsort_mpi_staging_release(&staging);
}

/* Refusals the manual names (clsort_mpi_desc, clsort_mpi_sort): on the last
 * rank only (or on every rank where one rank alone would fail the ranks'
 * agreement on the shape instead), each must fail every rank with
 * CLSORT_ERROR_INVALID_ARGUMENT, the last rank's message naming the cause,
 * *out empty, the inputs as they were. Then a total weight of 0: the last
 * rank gets every item, in order. */
static void promise_cases(clsort_context *ctx, size_t base)
{
    static const char *what[9] = {"a negative weight", "a NaN weight", "a weight past 1e290", "lower without upper",
                                  "upper without lower", "PSRS with bounds", "piece_bytes past 1 GiB",
                                  "max_imbalance -1", "n = 2^31"};
    static const char *word[9] = {"weight", "weight", "weight", "lower", "lower", "PSRS", "piece_bytes",
                                  "max_imbalance", "2^31"}; /* in the refusal's message */
    uint32_t k[4] = {4, 3, 2, 1};
    double w[4] = {1, 2, 3, 4}, lo[64], hi[64];
    char name[160];
    int c, q, last = rank_ == size_ - 1;
    for (q = 0; q < 64; q++) lo[q] = 0, hi[q] = 1e9;
    for (c = 0; c < 9; c++) {
        clsort_mpi_desc d;
        clsort_mpi_out o;
        clsort_result r;
        size_t n = 4;
        memset(&d, 0, sizeof d);
        memset(&o, 0x5a, sizeof o);
        if (last || c == 3 || c == 4 || c == 5 || c == 7) { /* these on every rank: the ranks agree, the check refuses */
            if (c < 3) w[1] = c == 0 ? -1.0 : c == 1 ? (double)NAN : 2e290;
            if (c == 3 || c == 5) d.lower = lo;
            if (c == 4 || c == 5) d.upper = hi;
            if (c == 5) d.algorithm = CLSORT_MPI_PSRS;
            if (c == 6) d.piece_bytes = ((size_t)1 << 30) + 1;
            if (c == 7) d.max_imbalance = -1.0;
            if (c == 8) n = (size_t)1 << 31; /* refused before a key is read */
        }
        r = clsort_mpi_sort(ctx, MPI_COMM_WORLD, k, NULL, c < 3 ? w : NULL, n, &d, &o);
        snprintf(name, sizeof name, "refused on every rank, the inputs unchanged: %s%s", what[c],
                 c == 3 || c == 4 || c == 5 || c == 7 ? "" : " on the last rank");
        record(name, r == CLSORT_ERROR_INVALID_ARGUMENT && o.n == 0 && o.keys == NULL && k[0] == 4 && k[3] == 1 &&
                         w[0] == 1.0 && (last || w[1] == 2.0) &&
                         (!last || strstr(clsort_last_error(ctx), word[c]) != NULL));
        if (r == CLSORT_SUCCESS) clsort_mpi_free(&o);
        w[1] = 2.0;
    }
    { /* desc.staging of another context; a weighted device sort into the caller's keys_out without weights_out */
        clsort_context *ctx2 = NULL;
        clsort_mpi_staging st;
        clsort_mpi_desc d;
        clsort_mpi_out o;
        clsort_mpi_device_out dout;
        clsort_result r, r2 = CLSORT_ERROR_INVALID_ARGUMENT;
        int owned;
        cl_mem dk = dev_buffer(ctx, sizeof k, k), dw = dev_buffer(ctx, sizeof w, w), ko = dev_buffer(ctx, 64 * 4, NULL);
        memset(&st, 0, sizeof st);
        memset(&d, 0, sizeof d);
        d.staging = &st;
        r = clsort_mpi_sort(ctx, MPI_COMM_WORLD, k, NULL, NULL, 4, &d, &o); /* st now belongs to ctx */
        if (r == CLSORT_SUCCESS) clsort_mpi_free(&o);
        owned = st.ctx == ctx; /* one rank alone exchanges nothing: no staging made */
        if (clsort_create(&ctx2, NULL) == CLSORT_SUCCESS) r2 = clsort_mpi_sort(ctx2, MPI_COMM_WORLD, k, NULL, NULL, 4, &d, &o);
        if (r2 == CLSORT_SUCCESS) clsort_mpi_free(&o);
        record("desc.staging of another context refused on every rank",
               r == CLSORT_SUCCESS && (size_ == 1 || owned) && ctx2 &&
                   (owned ? r2 == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(ctx2), "staging")
                          : r2 == CLSORT_SUCCESS));
        clsort_mpi_staging_release(&st);
        clsort_destroy(ctx2);
        memset(&d, 0, sizeof d);
        d.keys_out = ko;
        d.capacity = 64;
        r = clsort_mpi_sort_device(ctx, MPI_COMM_WORLD, dk, NULL, dw, 4, &d, &dout);
        record("a weighted device sort into keys_out without weights_out refused",
               r == CLSORT_ERROR_INVALID_ARGUMENT && dout.n == 0 && dout.keys == NULL);
        clsort_mpi_device_free(&dout);
        clReleaseMemObject(dk), clReleaseMemObject(dw), clReleaseMemObject(ko);
    }
    { /* a failed MPI call (a null communicator, errors returned): CLSORT_ERROR_MPI, MPI_Error_string's text */
        clsort_mpi_desc d;
        clsort_mpi_out o;
        clsort_result r;
        char cls[MPI_MAX_ERROR_STRING];
        int e, ec = 0, len = 0;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        e = MPI_Comm_rank(MPI_COMM_NULL, &q);
        MPI_Error_class(e, &ec);
        MPI_Error_string(ec, cls, &len);
        memset(&d, 0, sizeof d);
        memset(&o, 0x5a, sizeof o);
        r = clsort_mpi_sort(ctx, MPI_COMM_NULL, k, NULL, NULL, 4, &d, &o);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        if (r != CLSORT_ERROR_MPI || !strstr(clsort_last_error(ctx), cls))
            fprintf(stderr, "rank %d: %s: %s (expected the text \"%s\")\n", rank_, clsort_result_string(r),
                    clsort_last_error(ctx), cls);
        record("a failed MPI call: CLSORT_ERROR_MPI with MPI_Error_string's text",
               e != MPI_SUCCESS && r == CLSORT_ERROR_MPI && strstr(clsort_last_error(ctx), cls) != NULL && o.n == 0);
    }
    { /* weights all 0 */
        size_t n = base / 3 + (size_t)rank_ * 7, i;
        uint32_t *keys = (uint32_t *)malloc(n * 4 + 4);
        double *zero = (double *)calloc(n + 1, sizeof(double));
        unsigned long long mine = n, total = 0, sum_in = 0, sum_out = 0, si = 0, so = 0;
        clsort_mpi_desc d;
        clsort_mpi_out o;
        clsort_result r;
        int ok;
        uint64_t s = 99u + (uint64_t)rank_;
        for (i = 0; i < n; i++) keys[i] = (uint32_t)(rng(&s) >> 32), si += keys[i];
        memset(&d, 0, sizeof d);
        r = clsort_mpi_sort(ctx, MPI_COMM_WORLD, keys, NULL, zero, n, &d, &o);
        ok = r == CLSORT_SUCCESS;
        for (i = 0; ok && i < o.n; i++) {
            so += ((uint32_t *)o.keys)[i];
            if (i && ((uint32_t *)o.keys)[i - 1] > ((uint32_t *)o.keys)[i]) ok = 0;
        }
        MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&si, &sum_in, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&so, &sum_out, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (ok && o.n != (last ? (size_t)total : 0)) {
            fprintf(stderr, "rank %d total weight 0: %lu items, expected %lu\n", rank_, (unsigned long)o.n,
                    (unsigned long)(last ? total : 0));
            ok = 0;
        }
        record("a total weight of 0: the last rank gets every item, sorted", ok && sum_in == sum_out);
        if (r == CLSORT_SUCCESS) clsort_mpi_free(&o);
        free(keys);
        free(zero);
    }
}

#ifdef TEST_MPI_FAULTS
/* Built with -Wl,--wrap=<call> for the OpenCL calls below (make mpi-test):
 * while armed, the fault_at-th of them on this rank fails. */
static long fault_calls, fault_at = -1;
static int fault_armed;
static int fault_hit(void) { return fault_armed && ++fault_calls == fault_at; }

cl_int __real_clEnqueueReadBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint, const cl_event *, cl_event *);
cl_int __wrap_clEnqueueReadBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint, const cl_event *, cl_event *);
cl_int __wrap_clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s, void *p, cl_uint n,
                                  const cl_event *w, cl_event *e)
{
    return fault_hit() ? CL_OUT_OF_RESOURCES : __real_clEnqueueReadBuffer(q, m, b, o, s, p, n, w, e);
}
cl_int __real_clEnqueueWriteBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint, const cl_event *, cl_event *);
cl_int __wrap_clEnqueueWriteBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t, const void *, cl_uint, const cl_event *, cl_event *);
cl_int __wrap_clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool b, size_t o, size_t s, const void *p, cl_uint n,
                                   const cl_event *w, cl_event *e)
{
    return fault_hit() ? CL_OUT_OF_RESOURCES : __real_clEnqueueWriteBuffer(q, m, b, o, s, p, n, w, e);
}
cl_int __real_clEnqueueCopyBuffer(cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint, const cl_event *, cl_event *);
cl_int __wrap_clEnqueueCopyBuffer(cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t, cl_uint, const cl_event *, cl_event *);
cl_int __wrap_clEnqueueCopyBuffer(cl_command_queue q, cl_mem a, cl_mem b, size_t oa, size_t ob, size_t s, cl_uint n,
                                  const cl_event *w, cl_event *e)
{
    return fault_hit() ? CL_OUT_OF_RESOURCES : __real_clEnqueueCopyBuffer(q, a, b, oa, ob, s, n, w, e);
}
cl_int __real_clEnqueueNDRangeKernel(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *, cl_uint, const cl_event *, cl_event *);
cl_int __wrap_clEnqueueNDRangeKernel(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *, cl_uint, const cl_event *, cl_event *);
cl_int __wrap_clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint d, const size_t *o, const size_t *g,
                                     const size_t *l, cl_uint n, const cl_event *w, cl_event *e)
{
    return fault_hit() ? CL_OUT_OF_RESOURCES : __real_clEnqueueNDRangeKernel(q, k, d, o, g, l, n, w, e);
}
cl_int __real_clEnqueueMarkerWithWaitList(cl_command_queue, cl_uint, const cl_event *, cl_event *);
cl_int __wrap_clEnqueueMarkerWithWaitList(cl_command_queue, cl_uint, const cl_event *, cl_event *);
cl_int __wrap_clEnqueueMarkerWithWaitList(cl_command_queue q, cl_uint n, const cl_event *w, cl_event *e)
{
    return fault_hit() ? CL_OUT_OF_RESOURCES : __real_clEnqueueMarkerWithWaitList(q, n, w, e);
}
cl_int __real_clWaitForEvents(cl_uint, const cl_event *);
cl_int __wrap_clWaitForEvents(cl_uint, const cl_event *);
cl_int __wrap_clWaitForEvents(cl_uint n, const cl_event *e)
{
    cl_int r = __real_clWaitForEvents(n, e); /* waited for either way: only the answer fails */
    return fault_hit() ? CL_OUT_OF_RESOURCES : r;
}
cl_int __real_clFinish(cl_command_queue);
cl_int __wrap_clFinish(cl_command_queue);
cl_int __wrap_clFinish(cl_command_queue q)
{
    cl_int r = __real_clFinish(q);
    return fault_hit() ? CL_OUT_OF_RESOURCES : r;
}
static long live_buffers; /* buffers created and not yet released (sub-buffers are not counted) */
cl_mem __real_clCreateBuffer(cl_context, cl_mem_flags, size_t, void *, cl_int *);
cl_mem __wrap_clCreateBuffer(cl_context, cl_mem_flags, size_t, void *, cl_int *);
cl_mem __wrap_clCreateBuffer(cl_context c, cl_mem_flags f, size_t s, void *h, cl_int *e)
{
    cl_mem m;
    if (fault_hit()) {
        if (e) *e = CL_MEM_OBJECT_ALLOCATION_FAILURE;
        return NULL;
    }
    m = __real_clCreateBuffer(c, f, s, h, e);
    if (m) live_buffers++;
    return m;
}
cl_int __real_clReleaseMemObject(cl_mem);
cl_int __wrap_clReleaseMemObject(cl_mem);
cl_int __wrap_clReleaseMemObject(cl_mem m)
{
    cl_mem parent = NULL;
    if (clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) == CL_SUCCESS && !parent)
        live_buffers--;
    return __real_clReleaseMemObject(m);
}
void *__real_clEnqueueMapBuffer(cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t, cl_uint, const cl_event *, cl_event *, cl_int *);
void *__wrap_clEnqueueMapBuffer(cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t, cl_uint, const cl_event *, cl_event *, cl_int *);
void *__wrap_clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool b, cl_map_flags f, size_t o, size_t s, cl_uint n,
                                const cl_event *w, cl_event *e, cl_int *err)
{
    if (fault_hit()) {
        if (err) *err = CL_MAP_FAILURE;
        return NULL;
    }
    return __real_clEnqueueMapBuffer(q, m, b, f, o, s, n, w, e, err);
}

/* One rank's K-th OpenCL call of a device sort fails, for every K until a
 * sort makes fewer calls: every rank must return an error (a hang fails the
 * make target's time limit), the inputs must be as they were, no buffer may
 * stay behind (beyond what a faultless call keeps: scratch, the staging),
 * and the context must sort right afterwards. */
static void fault_cases(clsort_context *ctx)
{
    int culprit = size_ > 1 ? 1 : 0, ok = 1, hit = 1, seen;
    long k, calls = 0, kept = 0;
    size_t n = 300 + (size_t)rank_ * 37, i;
    uint64_t s = 4242 + (uint64_t)rank_, *keys = (uint64_t *)malloc(n * 8), *back = (uint64_t *)malloc(n * 8);
    uint32_t *vals = (uint32_t *)malloc(n * 4);
    double *w = (double *)malloc(n * 8);
    cl_mem dk, dv, dw;
    char name[160];
    clsort_mpi_staging staging;
    memset(&staging, 0, sizeof staging);
    for (i = 0; i < n; i++) {
        keys[i] = gen(AND3, &s);
        vals[i] = (uint32_t)i;
        w[i] = 1.0 + (double)(i % 7);
    }
    dk = dev_buffer(ctx, n * 8, keys);
    dv = dev_buffer(ctx, n * 4, vals);
    dw = dev_buffer(ctx, n * 8, w);
    for (k = 0; hit; k++) { /* k = 0: no fault, the buffers a call keeps (scratch, staging) */
        clsort_mpi_desc d;
        clsort_mpi_device_out out;
        clsort_result r;
        memset(&d, 0, sizeof d);
        d.type = CLSORT_U64;
        d.value_size = 4;
        d.max_imbalance = 0.01;
        d.sample = 16;
        d.piece_bytes = 1024;
        d.staging = k % 2 || k == 0 ? &staging : NULL; /* staging kept, and made by the call */
        fault_calls = 0;
        fault_at = rank_ == culprit && k > 0 ? k : -1;
        fault_armed = 1;
        r = clsort_mpi_sort_device(ctx, MPI_COMM_WORLD, dk, dv, dw, n, &d, &out);
        fault_armed = 0;
        seen = rank_ == culprit && (k == 0 || fault_calls >= k);
        MPI_Allreduce(&seen, &hit, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        clsort_mpi_device_free(&out);
        if (k == 0) {
            kept = live_buffers;
            if (r != CLSORT_SUCCESS) {
                fprintf(stderr, "rank %d: the faultless sort: %s\n", rank_, clsort_last_error(ctx));
                ok = 0;
            }
            continue;
        }
        if (live_buffers > kept) {
            fprintf(stderr, "rank %d: a fault at call %ld left %ld buffers more\n", rank_, k, live_buffers - kept);
            ok = 0;
            kept = live_buffers;
        }
        if (hit && r == CLSORT_SUCCESS) {
            fprintf(stderr, "rank %d: a fault at call %ld of rank %d, yet this rank succeeded\n", rank_, k, culprit);
            ok = 0;
        }
        if (!hit && r != CLSORT_SUCCESS) {
            fprintf(stderr, "rank %d: no fault, yet %s: %s\n", rank_, clsort_result_string(r), clsort_last_error(ctx));
            ok = 0;
        }
        if (!dev_read(ctx, dk, n * 8, back) || memcmp(back, keys, n * 8) != 0) {
            fprintf(stderr, "rank %d: a fault at call %ld changed the input keys\n", rank_, k);
            ok = 0;
        }
        calls = k;
    }
    snprintf(name, sizeof name, "device: a fault at each of rank %d's %ld OpenCL calls fails every rank", culprit,
             calls - 1);
    if (rank_ == 0) printf("%s\n", name);
    record(name, ok && calls > 10);
    clsort_mpi_staging_release(&staging);
    clReleaseMemObject(dk);
    clReleaseMemObject(dv);
    clReleaseMemObject(dw);
    free(keys);
    free(back);
    free(vals);
    free(w);
    { /* and the context sorts right afterwards */
        dcase tc;
        memset(&tc, 0, sizeof tc);
        tc.type = CLSORT_U64;
        tc.dist = UNIFORM;
        tc.n = 500;
        tc.vs = 8;
        tc.weighted = 1;
        tc.bad_rank = -1;
        tc.desc.sample = 16;
        tc.desc.piece_bytes = 1024;
        tc.name = "device: the context sorts right after the faults";
        record(tc.name, run_device_case(ctx, &tc));
    }
}
#endif

#ifndef TEST_MPI_FAULTS
/* The sort cases against the C reference (run once per last_step_). */
static void sort_cases(clsort_context *ctx, size_t base)
{
    int d, tt;
    char name[160];
    /* distributions x key types, 1% imbalance and zero imbalance, with values */
    for (tt = 0; tt < 2; tt++)
        for (d = UNIFORM; d <= FEW; d++) {
            tcase tc;
            int ok;
            memset(&tc, 0, sizeof tc);
            tc.type = tt ? CLSORT_U64 : CLSORT_U32;
            tc.dist = (enum dist)d;
            tc.n = base + (size_t)rank_ * 101;
            tc.value_size = tt ? 8 : 4;
            tc.desc.max_imbalance = 0.01;
            snprintf(name, sizeof name, "%s %s 1%% imbalance, values", tt ? "u64" : "u32", dist_name[d]);
            tc.name = name;
            ok = run_case(ctx, &tc, NULL);
            record(name, ok);
            tc.desc.max_imbalance = 0;
            snprintf(name, sizeof name, "%s %s zero imbalance", tt ? "u64" : "u32", dist_name[d]);
            tc.value_size = 0;
            ok = run_case(ctx, &tc, NULL);
            record(name, ok);
            tc.desc.algorithm = CLSORT_MPI_PSRS;
            snprintf(name, sizeof name, "%s %s PSRS", tt ? "u64" : "u32", dist_name[d]);
            ok = run_case(ctx, &tc, NULL);
            record(name, ok);
        }
    /* all data on rank 0; empty ranks (every odd rank); empty everywhere */
    {
        static const char *names[] = {"all data on rank 0, all equal keys", "all data on rank 0, uniform",
                                      "odd ranks empty, AND^3", "no data anywhere"};
        int c;
        for (c = 0; c < 4; c++) {
            tcase tc;
            memset(&tc, 0, sizeof tc);
            tc.type = CLSORT_U64;
            tc.dist = c == 0 ? EQUAL : c == 1 ? UNIFORM : AND3;
            tc.n = c < 2 ? (rank_ == 0 ? base * 2 : 0) : c == 2 ? (rank_ % 2 ? 0 : base) : 0;
            tc.value_size = 4;
            tc.name = names[c];
            record(names[c], run_case(ctx, &tc, NULL));
            tc.desc.merge = CLSORT_MPI_MERGE_DEVICE;
            snprintf(name, sizeof name, "%s, device merge", names[c]);
            tc.name = name;
            record(name, run_case(ctx, &tc, NULL));
        }
    }
    /* weights all 1 == unweighted (zero imbalance: the same keys on every rank) */
    for (d = UNIFORM; d <= FEW; d += 2) {
        tcase a, b;
        clsort_mpi_out oa, ob;
        int ok1, ok2, same;
        memset(&a, 0, sizeof a);
        a.type = CLSORT_U32;
        a.dist = (enum dist)d;
        a.n = base + (size_t)rank_ * 37;
        b = a;
        b.weighted = 1;
        snprintf(name, sizeof name, "weights all 1 == unweighted, %s", dist_name[d]);
        a.name = b.name = name;
        memset(&oa, 0, sizeof oa);
        memset(&ob, 0, sizeof ob);
        ok1 = run_case(ctx, &a, &oa);
        ok2 = run_case(ctx, &b, &ob);
        same = ok1 && ok2 && oa.n == ob.n && memcmp(oa.keys, ob.keys, oa.n * 4) == 0;
        if (ok1 && ok2 && !same) fprintf(stderr, "rank %d %s: %lu vs %lu keys\n", rank_, name, (unsigned long)oa.n, (unsigned long)ob.n);
        record(name, same);
        clsort_mpi_free(&oa);
        clsort_mpi_free(&ob);
    }
    /* skewed weights: 1% and 0% imbalance of the weight, and explicit bounds */
    for (d = UNIFORM; d <= AND5; d++) {
        tcase tc;
        memset(&tc, 0, sizeof tc);
        tc.type = CLSORT_U64;
        tc.dist = (enum dist)d;
        tc.n = base + (size_t)rank_ * 211;
        tc.weighted = 2;
        tc.value_size = 8;
        tc.desc.max_imbalance = d == UNIFORM ? 0.0 : 0.01;
        snprintf(name, sizeof name, "skewed weights, %s, %s imbalance", dist_name[d], d == UNIFORM ? "0%" : "1%");
        tc.name = name;
        record(name, run_case(ctx, &tc, NULL));
    }
    /* explicit uneven bounds: rank r gets about (r+1) shares, +-2% */
    {
        double *lo = (double *)malloc((size_t)size_ * sizeof(double)), *hi = (double *)malloc((size_t)size_ * sizeof(double));
        double shares = (double)size_ * (size_ + 1) / 2.0;
        unsigned long long total = 0, mine;
        int q, c;
        for (c = 0; c < 3; c++) {
            tcase tc;
            memset(&tc, 0, sizeof tc);
            tc.type = c == 1 ? CLSORT_U32 : CLSORT_U64;
            tc.dist = c == 2 ? EQUAL : AND1;
            tc.n = base + (size_t)rank_ * 53;
            mine = tc.n;
            MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
            for (q = 0; q < size_; q++) {
                double want = (double)total * (q + 1) / shares;
                lo[q] = c == 1 ? floor(want * 0.98) : floor(want);
                hi[q] = c == 1 ? ceil(want * 1.02) : floor(want) + (q == size_ - 1 ? (double)size_ : 0);
            }
            if (c != 1) { /* exact counts: the last rank takes the rounding rest */
                double sum = 0;
                for (q = 0; q < size_; q++) sum += lo[q];
                lo[size_ - 1] += (double)total - sum;
                hi[size_ - 1] = lo[size_ - 1];
            }
            tc.desc.lower = lo;
            tc.desc.upper = hi;
            snprintf(name, sizeof name, "explicit bounds (rank r ~ r+1 shares), %s, %s", dist_name[tc.dist],
                     c == 1 ? "+-2%" : "exact counts");
            tc.name = name;
            record(name, run_case(ctx, &tc, NULL));
        }
        free(lo);
        free(hi);
    }
    /* explicit weight bounds: rank r gets (r+1) shares of the total weight +-3% */
    {
        double *lo = (double *)malloc((size_t)size_ * sizeof(double)), *hi = (double *)malloc((size_t)size_ * sizeof(double));
        double shares = (double)size_ * (size_ + 1) / 2.0, tw = 0, mine = 0;
        int q;
        tcase tc;
        size_t i, n = base + (size_t)rank_ * 29;
        memset(&tc, 0, sizeof tc);
        tc.type = CLSORT_U32;
        tc.dist = AND1;
        tc.n = n;
        tc.weighted = 2;
        /* the same weights run_case makes: 1 + (mix(k + i) % 1000) / 10 * (rank + 1) */
        {
            uint64_t s = 1234567ull * (uint64_t)(rank_ + 1) + (uint64_t)tc.dist * 77 + n;
            for (i = 0; i < n; i++) {
                uint64_t k = gen(tc.dist, &s) >> 32;
                mine += 1.0 + (double)(mix(k + i) % 1000) / 10.0 * (double)(rank_ + 1);
            }
        }
        MPI_Allreduce(&mine, &tw, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        for (q = 0; q < size_; q++) {
            lo[q] = tw * (q + 1) / shares * 0.97;
            hi[q] = tw * (q + 1) / shares * 1.03;
        }
        tc.desc.lower = lo;
        tc.desc.upper = hi;
        snprintf(name, sizeof name, "explicit weight bounds (rank r ~ r+1 shares +-3%%), skewed weights, AND^1");
        tc.name = name;
        record(name, run_case(ctx, &tc, NULL));
        free(lo);
        free(hi);
    }
    /* t = 1 and t = 8 bits per round, device merge */
    for (tt = 1; tt <= 8; tt += 7) {
        tcase tc;
        memset(&tc, 0, sizeof tc);
        tc.type = CLSORT_U64;
        tc.dist = AND3;
        tc.n = base + (size_t)rank_;
        tc.desc.bits_per_round = (unsigned)tt;
        tc.desc.merge = CLSORT_MPI_MERGE_DEVICE;
        tc.desc.max_imbalance = 0.001;
        snprintf(name, sizeof name, "bits_per_round %d, AND^3, device merge", tt);
        tc.name = name;
        record(name, run_case(ctx, &tc, NULL));
    }
    device_cases(ctx, base);
    promise_cases(ctx, base);
}

#endif

int main(int argc, char **argv)
{
    clsort_context *ctx = NULL;
    size_t base = 3000;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if (argc > 1) base = (size_t)atol(argv[1]);
    if (clsort_create(&ctx, NULL) != CLSORT_SUCCESS) {
        fprintf(stderr, "rank %d: %s\n", rank_, clsort_last_error(ctx));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
#ifdef TEST_MPI_FAULTS
    fault_cases(ctx);
    (void)base;
    (void)device_cases; /* the other cases are in the plain build */
    (void)promise_cases;
    (void)run_case;
#else
    /* every sort case with each last step on the device: the runs merged, then sorted again */
    last_step_ = CLSORT_MPI_MERGE_DEVICE;
    sort_cases(ctx, base);
    last_step_ = CLSORT_MPI_MERGE_RESORT;
    sort_cases(ctx, base);
    last_step_ = CLSORT_MPI_MERGE_DEVICE;
    /* argument errors: every rank returns, none hangs */
    {
        uint32_t k[4] = {4, 3, 2, 1};
        clsort_mpi_desc bad;
        clsort_mpi_out o;
        clsort_result r;
        memset(&bad, 0, sizeof bad);
        bad.type = CLSORT_U16;
        r = clsort_mpi_sort(ctx, MPI_COMM_WORLD, k, NULL, NULL, 4, &bad, &o);
        record("u16 keys rejected on every rank", r == CLSORT_ERROR_INVALID_ARGUMENT && o.n == 0 && k[0] == 4);
        memset(&bad, 0, sizeof bad);
        if (rank_ == size_ - 1) bad.bits_per_round = 9; /* only one rank is wrong */
        r = clsort_mpi_sort(ctx, MPI_COMM_WORLD, k, NULL, NULL, 4, &bad, &o);
        record("one rank's bad argument fails every rank", r == CLSORT_ERROR_INVALID_ARGUMENT);
        memset(&bad, 0, sizeof bad);
        bad.value_size = rank_ == 0 ? 4 : 0;
        r = clsort_mpi_sort(ctx, MPI_COMM_WORLD, k, k, NULL, 4, &bad, &o);
        record("ranks disagreeing on value_size fail", size_ == 1 ? r == CLSORT_SUCCESS : r == CLSORT_ERROR_INVALID_ARGUMENT);
        if (r == CLSORT_SUCCESS) clsort_mpi_free(&o);
        memset(&bad, 0, sizeof bad);
        bad.max_imbalance = rank_ == 0 ? 0.01 : 0.02;
        r = clsort_mpi_sort(ctx, MPI_COMM_WORLD, k, NULL, NULL, 4, &bad, &o);
        record("ranks disagreeing on max_imbalance fail", size_ == 1 ? r == CLSORT_SUCCESS : r == CLSORT_ERROR_INVALID_ARGUMENT);
        if (r == CLSORT_SUCCESS) clsort_mpi_free(&o);
        {
            double lo1[64], hi1[64];
            int q;
            for (q = 0; q < size_ && q < 64; q++) { lo1[q] = 0; hi1[q] = 1; }
            memset(&bad, 0, sizeof bad);
            bad.lower = lo1;
            bad.upper = hi1;
            r = clsort_mpi_sort(ctx, MPI_COMM_WORLD, k, NULL, NULL, 4, &bad, &o);
            record("bounds that cannot hold the total rejected", r == CLSORT_ERROR_INVALID_ARGUMENT);
        }
        /* each rank in turn passes a local error that used to return before
         * the agreement (out NULL, ctx NULL, a context whose create failed):
         * every rank must return an error (a hang fails the make target's
         * time limit) naming the rank */
        {
            int culprit, kind;
            clsort_context *failed_ctx = NULL;
            clsort_context_desc fd;
            memset(&fd, 0, sizeof fd);
            fd.device_select = "no-such-device-for-mpi-test";
            clsort_create(&failed_ctx, &fd);
            for (kind = 0; kind < 3; ++kind)
                for (culprit = 0; culprit < size_; ++culprit) {
                    char name[96], on[32];
                    clsort_context *use = ctx;
                    clsort_mpi_out *op = &o;
                    memset(&bad, 0, sizeof bad);
                    if (rank_ == culprit) {
                        if (kind == 0) op = NULL;
                        else if (kind == 1) use = NULL;
                        else use = failed_ctx;
                    }
                    r = clsort_mpi_sort(use, MPI_COMM_WORLD, k, NULL, NULL, 4, &bad, op);
                    snprintf(name, sizeof name, "rank %d's local error (%s) fails every rank", culprit,
                             kind == 0 ? "out NULL" : kind == 1 ? "ctx NULL" : "failed context");
                    snprintf(on, sizeof on, "on rank %d ", culprit); /* the message names the culprit */
                    record(name, r == CLSORT_ERROR_INVALID_ARGUMENT &&
                                     (rank_ == culprit || strstr(clsort_last_error(ctx), on) != NULL));
                }
            clsort_destroy(failed_ctx);
        }
        /* a weighted sort where some ranks have no items and pass no weights */
        {
            double wts[4] = {1, 2, 3, 4};
            int empty = size_ > 1 && rank_ % 2 == 1;
            memset(&bad, 0, sizeof bad);
            r = clsort_mpi_sort(ctx, MPI_COMM_WORLD, empty ? NULL : k, NULL, empty ? NULL : wts, empty ? 0 : 4, &bad, &o);
            record("weighted sort: ranks with n = 0 may pass weights = NULL", r == CLSORT_SUCCESS);
            if (r == CLSORT_SUCCESS) clsort_mpi_free(&o);
        }
    }
#endif
    if (rank_ == 0) printf("mpi ranks %d: %d passed, %d failed\n", size_, passed, failed);
    clsort_destroy(ctx);
    MPI_Finalize();
    return failed ? 1 : 0;
}
