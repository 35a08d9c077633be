/* Two threads, each with its own clsort context, sort, scan and bin at the
 * same time (the documented rule: one context per thread). Built with
 * -fsanitize=thread by `make threads`: TSan must stay quiet about the
 * library's host code. Ends with "N passed, N failed". */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 30011
#define ROUNDS 6

typedef struct job {
    unsigned seed;
    int passed, failed;
    char error[8300];
} job;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static void *worker(void *arg)
{
    job *j = (job *)arg;
    clsort_context *cs = NULL;
    uint32_t *keys = (uint32_t *)malloc(N * 4), *want = (uint32_t *)malloc(N * 4), *out = (uint32_t *)malloc(N * 4);
    uint32_t x = j->seed, total = 0;
    int round;
    if (clsort_create(&cs, NULL) != CLSORT_SUCCESS) {
        snprintf(j->error, sizeof j->error, "clsort_create: %s", clsort_last_error(cs));
        j->failed++;
        clsort_destroy(cs);
        return NULL;
    }
    for (round = 0; round < ROUNDS; ++round) {
        size_t i;
        uint32_t acc = 0;
        int ok;
        clsort_sort_desc sd;
        for (i = 0; i < N; ++i) {
            x ^= x << 13; x ^= x >> 17; x ^= x << 5;
            keys[i] = round & 1 ? x & 0x3ffu : x;
        }
        /* scan */
        ok = clsort_scan_host(cs, CLSORT_U32, 0, keys, out, N, &total) == CLSORT_SUCCESS;
        for (i = 0; i < N && ok; ++i) {
            ok = out[i] == acc;
            acc += keys[i];
        }
        if (ok) j->passed++; else j->failed++;
        /* sort (10 bits on odd rounds) */
        memcpy(want, keys, N * 4);
        qsort(want, N, 4, cmp_u32);
        memset(&sd, 0, sizeof sd);
        sd.end_bit = round & 1 ? 10 : 0;
        ok = clsort_sort_host(cs, CLSORT_U32, keys, NULL, NULL, N, &sd) == CLSORT_SUCCESS && memcmp(keys, want, N * 4) == 0;
        if (ok) j->passed++; else j->failed++;
        if (!ok) snprintf(j->error, sizeof j->error, "round %d sort: %s", round, clsort_last_error(cs));
    }
    clsort_destroy(cs);
    free(keys); free(want); free(out);
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    job jobs[2];
    int i, passed = 0, failed = 0;
    memset(jobs, 0, sizeof jobs);
    { /* the process's first OpenCL calls on this thread (the PoCL caveat in
       * the header's Threads notes); the threads then create their own */
        clsort_context *first = NULL;
        if (clsort_create(&first, NULL) != CLSORT_SUCCESS) {
            printf("clsort_create: %s\n0 passed, 1 failed\n", clsort_last_error(first));
            clsort_destroy(first);
            return 1;
        }
        clsort_destroy(first);
    }
    jobs[0].seed = 12345u;
    jobs[1].seed = 987654321u;
    for (i = 0; i < 2; ++i)
        if (pthread_create(&t[i], NULL, worker, &jobs[i]) != 0) {
            printf("pthread_create failed\n0 passed, 1 failed\n");
            return 1;
        }
    for (i = 0; i < 2; ++i) {
        pthread_join(t[i], NULL);
        if (jobs[i].error[0]) printf("thread %d: %s\n", i, jobs[i].error);
        passed += jobs[i].passed;
        failed += jobs[i].failed;
    }
    printf("two threads, one context each: %d passed, %d failed\n", passed, failed);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
