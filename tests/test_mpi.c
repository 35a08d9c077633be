/* clsort_mpi_sort under MPI: run with mpirun -n 1..8. Every rank creates its own
 * clsort context (PoCL here). Each case checks, over all ranks: every rank
 * sorted, the order across ranks, the multiset (count, sum, xor and sum of
 * squares of a hash of every key, MPI_Allreduce), values still with their keys,
 * and each rank's count or weight within the bounds asked for. Rank 0 prints
 * "N passed, N failed" over all cases. */
#define CLSORT_MPI
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank_, size_;
static int passed, failed;

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
            out.final_columns != (unsigned)(size_ - 1)) {
            fprintf(stderr, "rank %d %s: %u boundaries by the final round, %d expected\n", rank_, tc->name,
                    out.final_columns, size_ - 1);
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
    if (rank_ == 0 && !ok) printf("FAILED: %s\n", name);
}

int main(int argc, char **argv)
{
    clsort_context *ctx = NULL;
    size_t base = 3000;
    int d, tt;
    char name[160];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if (argc > 1) base = (size_t)atol(argv[1]);
    if (clsort_create(&ctx, NULL) != CLSORT_SUCCESS) {
        fprintf(stderr, "rank %d: %s\n", rank_, clsort_last_error(ctx));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
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
    /* argument errors: every rank returns, none hangs */
    {
        uint32_t k[4] = {4, 3, 2, 1};
        clsort_mpi_desc bad;
        clsort_mpi_out o;
        clsort_result r;
        memset(&bad, 0, sizeof bad);
        bad.type = CLSORT_F32;
        r = clsort_mpi_sort(ctx, MPI_COMM_WORLD, k, NULL, NULL, 4, &bad, &o);
        record("f32 keys rejected on every rank", r == CLSORT_ERROR_INVALID_ARGUMENT && o.n == 0 && k[0] == 4);
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
    if (rank_ == 0) printf("mpi ranks %d: %d passed, %d failed\n", size_, passed, failed);
    clsort_destroy(ctx);
    MPI_Finalize();
    return failed ? 1 : 0;
}
