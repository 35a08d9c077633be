/* Distributed sort benchmark: mpirun -n P build/mpi_bench [-s] [log2 keys ...]
 * Each rank runs on GPU rank % (GPUs of the first platform that has any), or
 * on $CLSORT_DEVICE when set, or on the default device when there is no GPU.
 * u64 keys: uniform, or Thearling's AND^k (MPI_BENCH_AND=k: each key k+1
 * random words ANDed); 1% maximum imbalance, no values.
 * Weak scaling (the default): each size is log2 keys per rank. Strong scaling
 * (-s anywhere): each size is log2 keys in all, split evenly over the ranks.
 * Methods:
 *   device          clsort_mpi_sort_device: keys in a cl_mem, result in cl_mems,
 *                   pinned staging kept across calls (desc.staging)
 *   device, serial  the same with desc.serial = 1: no copy overlaps the exchange,
 *                   so each step shows its whole cost (the GB/s columns)
 *   host arrays     clsort_mpi_sort: the same path behind host arrays
 *   local sort      one clsort_sort of the rank's keys on its device (a floor)
 *   device, re-sort as device, step IV by CLSORT_MPI_MERGE_RESORT (the received
 *                   runs radix-sorted again) in place of the default merge
 * Per step the slowest rank's time (MPI_MAX of clsort_mpi_stats.seconds), the
 * whole call (barrier to barrier), end-to-end keys per second per GPU (the
 * keys of one rank / the whole call), the largest rank's share of the keys;
 * median of MPI_BENCH_REPS runs (default 5) after a warm-up.
 * MPI_BENCH_PIECE: desc.piece_bytes (default: the library's). MPI_BENCH_METHODS:
 * the methods to run, their digits in the order above from 0 (default 01234). */
#define CLSORT_MPI
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_REPS 32
#define COLS (CLSORT_MPI_STEP_COUNT + 1) /* the steps, then the whole call */

static uint64_t rng(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void die(int rank, const char *what, clsort_context *ctx)
{
    fprintf(stderr, "rank %d: %s: %s\n", rank, what, ctx ? clsort_last_error(ctx) : "");
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* "P:D" of GPU rank % G of the first platform with G > 0 GPUs, or "" */
static void pick_gpu(int rank, char *sel, size_t size)
{
    cl_platform_id plats[16];
    cl_uint np = 0, p;
    sel[0] = '\0';
    if (clGetPlatformIDs(16, plats, &np) != CL_SUCCESS) return;
    for (p = 0; p < np && p < 16; p++) {
        cl_device_id all[64];
        cl_uint nd = 0, d, gpus = 0, want;
        cl_device_type ty;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 64, all, &nd) != CL_SUCCESS) continue;
        for (d = 0; d < nd && d < 64; d++)
            if (clGetDeviceInfo(all[d], CL_DEVICE_TYPE, sizeof ty, &ty, NULL) == CL_SUCCESS && (ty & CL_DEVICE_TYPE_GPU))
                gpus++;
        if (gpus == 0) continue;
        want = (cl_uint)rank % gpus;
        for (d = 0, gpus = 0; d < nd && d < 64; d++)
            if (clGetDeviceInfo(all[d], CL_DEVICE_TYPE, sizeof ty, &ty, NULL) == CL_SUCCESS && (ty & CL_DEVICE_TYPE_GPU) &&
                gpus++ == want) {
                snprintf(sel, size, "%u:%u", p, d);
                return;
            }
    }
}

int main(int argc, char **argv)
{
    int rank, p, a, rep, m, q, strong = 0, first = 1;
    int ands = getenv("MPI_BENCH_AND") ? atoi(getenv("MPI_BENCH_AND")) : 0;
    int reps = getenv("MPI_BENCH_REPS") ? atoi(getenv("MPI_BENCH_REPS")) : 5;
    size_t piece = getenv("MPI_BENCH_PIECE") ? (size_t)atol(getenv("MPI_BENCH_PIECE")) : 0;
    clsort_context *ctx = NULL;
    clsort_context_desc cd;
    clsort_mpi_staging staging;
    char sel[32], *names, *all_names;
    static const char *methods[] = {"device", "device, serial", "host arrays", "local sort", "device, re-sort"};
    const char *only = getenv("MPI_BENCH_METHODS") ? getenv("MPI_BENCH_METHODS") : "01234";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (a = 1; a < argc; a++) strong |= strcmp(argv[a], "-s") == 0;
    if (reps < 1) reps = 1;
    if (reps > MAX_REPS) reps = MAX_REPS;
    memset(&cd, 0, sizeof cd);
    if (!getenv("CLSORT_DEVICE")) {
        pick_gpu(rank, sel, sizeof sel);
        if (sel[0]) cd.device_select = sel;
    }
    if (clsort_create(&ctx, &cd) != CLSORT_SUCCESS) die(rank, "clsort_create", ctx);
    memset(&staging, 0, sizeof staging);
    /* which device each rank got */
    names = (char *)calloc(320, 1);
    all_names = (char *)calloc((size_t)p * 128, 1);
    snprintf(names, 320, "%s (%s)", clsort_device_name(ctx), cd.device_select ? cd.device_select : "default");
    names[127] = '\0';
    MPI_Gather(names, 128, MPI_CHAR, all_names, 128, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("%d ranks; u64 %s keys (AND^%d), 1%% imbalance, %s scaling; slowest rank per step, median of %d\n", p,
               ands ? "Thearling" : "uniform", ands, strong ? "strong" : "weak", reps);
        for (q = 0; q < p; q++) printf("rank %d: %s\n", q, all_names + (size_t)q * 128);
    }
    for (a = 1; a < argc; a++) {
        int lg;
        size_t n, i;
        uint64_t *keys, s = 99991ull * (uint64_t)(rank + 1);
        unsigned long long mine, total;
        cl_int e;
        cl_mem dk, sorted;
        if (strcmp(argv[a], "-s") == 0) continue;
        lg = atoi(argv[a]);
        n = strong ? ((size_t)1 << lg) / (size_t)p + ((size_t)rank < ((size_t)1 << lg) % (size_t)p) : (size_t)1 << lg;
        keys = (uint64_t *)malloc(n * sizeof(uint64_t) + 1);
        if (!keys) die(rank, "malloc", NULL);
        for (i = 0; i < n; i++)
            for (keys[i] = rng(&s), q = 0; q < ands; q++) keys[i] &= rng(&s);
        dk = clCreateBuffer(clsort_cl_context(ctx), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 8 + 8, keys, &e);
        if (e != CL_SUCCESS) die(rank, "clCreateBuffer(keys)", NULL);
        sorted = clCreateBuffer(clsort_cl_context(ctx), CL_MEM_READ_WRITE, n * 8 + 8, NULL, &e);
        if (e != CL_SUCCESS) die(rank, "clCreateBuffer(sorted)", NULL);
        mine = n;
        MPI_Allreduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        if (rank == 0 && first) {
            printf("| method | keys/rank | upload | I local sort | II partition | D2H | exchange | H2D | IV merge | download "
                   "| total | keys/s per GPU | D2H GB/s | H2D GB/s | max share | rounds | pieces |\n"
                   "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
            first = 0;
        }
        for (m = 0; m < 5; m++) {
            double st[MAX_REPS][COLS], med[COLS], share = 0, bytes[2] = {0, 0}, gbs[2];
            unsigned rounds = 0, fin = 0, pieces = 0;
            clsort_mpi_desc d;
            if (!strchr(only, '0' + m)) continue;
            memset(&d, 0, sizeof d);
            d.type = CLSORT_U64;
            d.max_imbalance = 0.01;
            d.piece_bytes = piece;
            d.serial = m == 1;
            d.merge = m == 4 ? CLSORT_MPI_MERGE_RESORT : CLSORT_MPI_MERGE_DEVICE;
            d.staging = &staging;
            for (rep = -1; rep < reps; rep++) {
                clsort_mpi_stats stats;
                double t0, t1, sec[COLS], mx[COLS];
                unsigned long long cnt, big;
                clsort_result r = CLSORT_SUCCESS;
                memset(&stats, 0, sizeof stats);
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
                if (m <= 1 || m == 4) {
                    clsort_mpi_device_out out;
                    r = clsort_mpi_sort_device(ctx, MPI_COMM_WORLD, dk, NULL, NULL, n, &d, &out);
                    cnt = out.n;
                    stats = out.stats;
                    clsort_mpi_device_free(&out);
                } else if (m == 2) {
                    clsort_mpi_out out;
                    r = clsort_mpi_sort(ctx, MPI_COMM_WORLD, keys, NULL, NULL, n, &d, &out);
                    cnt = out.n;
                    stats = out.stats;
                    clsort_mpi_free(&out);
                } else { /* one local sort, out of place as step I sorts */
                    clsort_sort_desc sd;
                    memset(&sd, 0, sizeof sd);
                    sd.type = CLSORT_U64;
                    r = clsort_sort(ctx, dk, sorted, n, &sd, NULL);
                    if (r == CLSORT_SUCCESS && clFinish(clsort_cl_queue(ctx)) != CL_SUCCESS) die(rank, "clFinish", NULL);
                    stats.seconds[CLSORT_MPI_STEP_LOCAL_SORT] = MPI_Wtime() - t0;
                    cnt = n;
                }
                MPI_Barrier(MPI_COMM_WORLD);
                t1 = MPI_Wtime();
                if (r != CLSORT_SUCCESS) die(rank, methods[m], ctx);
                memcpy(sec, stats.seconds, sizeof stats.seconds);
                sec[CLSORT_MPI_STEP_COUNT] = m == 3 ? stats.seconds[CLSORT_MPI_STEP_LOCAL_SORT] : t1 - t0;
                MPI_Allreduce(sec, mx, COLS, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                MPI_Allreduce(&cnt, &big, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
                share = (double)big * (double)p / (double)(total ? total : 1);
                if (rep >= 0) memcpy(st[rep], mx, sizeof mx);
                rounds = stats.rounds;
                fin = stats.final_columns;
                pieces = stats.pieces;
                bytes[0] = (double)stats.bytes_d2h;
                bytes[1] = (double)stats.bytes_h2d;
            }
            for (i = 0; i < COLS; i++) {
                double col[MAX_REPS];
                for (q = 0; q < reps; q++) col[q] = st[q][i];
                qsort(col, (size_t)reps, sizeof(double), cmp_d);
                med[i] = col[reps / 2];
            }
            /* the rank that moves the most bytes, at the slowest rank's step time (serial: a step's own time) */
            MPI_Allreduce(MPI_IN_PLACE, bytes, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            gbs[0] = med[CLSORT_MPI_STEP_D2H] > 0 ? bytes[0] / med[CLSORT_MPI_STEP_D2H] * 1e-9 : 0;
            gbs[1] = med[CLSORT_MPI_STEP_H2D] > 0 ? bytes[1] / med[CLSORT_MPI_STEP_H2D] * 1e-9 : 0;
            if (rank == 0) {
                if (strong) printf("| %s | 2^%d / %d |", methods[m], lg, p);
                else printf("| %s | 2^%d |", methods[m], lg);
                for (i = 0; i < CLSORT_MPI_STEP_COUNT; i++) printf(" %.1f ms |", med[i] * 1e3);
                printf(" %.1f ms | %.3g | %.1f | %.1f | %.3f | %u + %u | %u |\n", med[CLSORT_MPI_STEP_COUNT] * 1e3,
                       (double)n / med[CLSORT_MPI_STEP_COUNT], m == 1 ? gbs[0] : 0.0, m == 1 ? gbs[1] : 0.0, share,
                       rounds, fin, pieces);
            }
            fflush(stdout);
        }
        clReleaseMemObject(dk);
        clReleaseMemObject(sorted);
        free(keys);
    }
    clsort_mpi_staging_release(&staging);
    free(names);
    free(all_names);
    clsort_destroy(ctx);
    MPI_Finalize();
    return 0;
}
