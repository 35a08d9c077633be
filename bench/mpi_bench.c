/* Distributed sort benchmark: mpirun -n P build/mpi_bench [log2 keys per rank ...]
 * Uniform u64 keys (the paper's setting; MPI_BENCH_AND=k: Thearling's AND^k,
 * each key k+1 random words ANDed), 1% maximum imbalance, no values.
 * For each size: Hofmann-Ruenger partitioning with the host merge and with the
 * device re-sort as step IV, PSRS, and partitioning at zero imbalance. Per step the slowest rank's time
 * (MPI_MAX of clsort_mpi_out.seconds), the whole call (barrier to barrier), and
 * the largest rank's share of the keys; median of REPS runs after a warm-up. */
#define CLSORT_MPI
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REPS 5

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

int main(int argc, char **argv)
{
    int rank, p, a, rep, m, ands = getenv("MPI_BENCH_AND") ? atoi(getenv("MPI_BENCH_AND")) : 0, q;
    clsort_context *ctx = NULL;
    static const char *names[] = {"partition, host merge", "partition, device re-sort", "PSRS, host merge",
                                  "partition 0% imbalance, host merge", "partition, weights all 1, host merge"};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (clsort_create(&ctx, NULL) != CLSORT_SUCCESS) {
        fprintf(stderr, "rank %d: %s\n", rank, clsort_last_error(ctx));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0)
        printf("%d ranks, device %s; u64 %s keys (AND^%d), 1%% imbalance; slowest rank per step, median of %d\n"
               "| method | keys/rank | I local sort | II partition | III Alltoallv | IV merge | total | max share | rounds |\n"
               "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n",
               p, clsort_device_name(ctx), ands ? "Thearling" : "uniform", ands, REPS);
    for (a = 1; a < (argc > 1 ? argc : 2); a++) {
        int lg = argc > 1 ? atoi(argv[a]) : 18;
        size_t n = (size_t)1 << lg, i;
        uint64_t *keys = (uint64_t *)malloc(n * sizeof(uint64_t)), s = 99991ull * (uint64_t)(rank + 1);
        double *ones = (double *)malloc(n * sizeof(double));
        for (i = 0; i < n; i++)
            for (keys[i] = rng(&s), q = 0; q < ands; q++) keys[i] &= rng(&s);
        for (i = 0; i < n; i++) ones[i] = 1.0;
        for (m = 0; m < 5; m++) {
            double st[REPS][5], med[5], share = 0;
            unsigned rounds = 0, fin = 0;
            clsort_mpi_desc d;
            memset(&d, 0, sizeof d);
            d.type = CLSORT_U64;
            d.max_imbalance = m == 3 ? 0.0 : 0.01;
            d.merge = m == 1 ? CLSORT_MPI_MERGE_DEVICE : CLSORT_MPI_MERGE_HOST;
            d.algorithm = m == 2 ? CLSORT_MPI_PSRS : CLSORT_MPI_PARTITION;
            for (rep = -1; rep < REPS; rep++) {
                clsort_mpi_out out;
                double t0, t1, sec[5], mx[5];
                unsigned long long cnt, big;
                clsort_result r;
                MPI_Barrier(MPI_COMM_WORLD);
                t0 = MPI_Wtime();
                r = clsort_mpi_sort(ctx, MPI_COMM_WORLD, keys, NULL, m == 4 ? ones : NULL, n, &d, &out);
                MPI_Barrier(MPI_COMM_WORLD);
                t1 = MPI_Wtime();
                if (r != CLSORT_SUCCESS) {
                    fprintf(stderr, "rank %d: %s\n", rank, clsort_last_error(ctx));
                    MPI_Abort(MPI_COMM_WORLD, 1);
                }
                memcpy(sec, out.seconds, sizeof out.seconds);
                sec[4] = t1 - t0;
                MPI_Allreduce(sec, mx, 5, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                cnt = out.n;
                MPI_Allreduce(&cnt, &big, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
                share = (double)big / (double)n;
                if (rep >= 0) memcpy(st[rep], mx, sizeof mx);
                rounds = out.rounds;
                fin = out.final_columns;
                clsort_mpi_free(&out);
            }
            for (i = 0; i < 5; i++) {
                double col[REPS];
                int q;
                for (q = 0; q < REPS; q++) col[q] = st[q][i];
                qsort(col, REPS, sizeof(double), cmp_d);
                med[i] = col[REPS / 2];
            }
            if (rank == 0)
                printf("| %s | 2^%d | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %.3f | %u + %u |\n", names[m],
                       lg, med[0] * 1e3, med[1] * 1e3, med[2] * 1e3, med[3] * 1e3, med[4] * 1e3, share, rounds, fin);
            fflush(stdout);
        }
        free(keys);
        free(ones);
    }
    clsort_destroy(ctx);
    MPI_Finalize();
    return 0;
}
