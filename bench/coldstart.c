/* Cold start: what a new process pays before its first results (issue 18).
 * Times on the host clock (CLOCK_MONOTONIC; each call ends with its results
 * on the host, so the time includes the device work): clsort_create, then
 * the first and the second call of each family on 2^k elements (N-body:
 * at most 2^12 bodies on a CPU, 2^32 interactions take a minute there; the first
 * builds or loads its programs), optionally after one clsort_prepare of all
 * of them. Run it twice against one cache directory for cold and warm.
 *   build/coldstart CACHE_DIR|off [log2 n = 16] [--prepare]
 * Prints a Markdown table and one JSON line. Driver caches: run with
 * POCL_KERNEL_CACHE=0 (PoCL) or CUDA_CACHE_DISABLE=1 (NVIDIA) to see
 * clsort's cache alone (make bench-coldstart and bench/coldstart_gpu.sh do). */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"
#include "workset.h"

#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    clsort_context_desc d;
    clsort_context *cs = NULL;
    clsort_cache_stats st;
    const char *dir = argc > 1 ? argv[1] : "off";
    int logn = argc > 2 && argv[2][0] != '-' ? atoi(argv[2]) : 16, prepare = 0, w, i;
    size_t n;
    double t0, create_ms, prepare_ms = 0, first[WS_COUNT], second[WS_COUNT], total = 0;
    unsigned char *out;
    for (i = 2; i < argc; ++i)
        if (strcmp(argv[i], "--prepare") == 0) prepare = 1;
    if (logn < 4 || logn > 24) logn = 16;
    n = (size_t)1 << logn;
    out = (unsigned char *)malloc(ws_out_bytes(n));
    memset(&d, 0, sizeof d);
    if (strcmp(dir, "off") == 0) d.cache_off = 1;
    else d.cache_dir = dir;
    t0 = now_ms();
    if (clsort_create(&cs, &d) != CLSORT_SUCCESS || !out) {
        printf("clsort_create: %s\n", clsort_last_error(cs));
        return 1;
    }
    create_ms = now_ms() - t0;
    if (prepare) {
        t0 = now_ms();
        if (ws_prepare(cs, n) != CLSORT_SUCCESS) {
            printf("clsort_prepare: %s\n", clsort_last_error(cs));
            return 1;
        }
        prepare_ms = now_ms() - t0;
    }
    for (w = 0; w < WS_COUNT; ++w) {
        int k;
        for (k = 0; k < 2; ++k) {
            size_t bytes = 0;
            clsort_result r;
            size_t nw = w == WS_NBODY_F32 && cs->dev.cpu && n > 4096 ? 4096 : n;
            t0 = now_ms();
            r = ws_run(cs, w, nw, out, &bytes);
            (k ? second : first)[w] = now_ms() - t0;
            if (r != CLSORT_SUCCESS || !ws_check(w, nw, out, bytes)) {
                printf("%s: %s\n", ws_names[w], r != CLSORT_SUCCESS ? clsort_last_error(cs) : "wrong result");
                return 1;
            }
        }
        total += first[w] + second[w];
    }
    clsort_cache_stats_get(cs, &st);
    printf("device: %s; n = 2^%d; cache: %s%s; %lu programs built from source, %lu from the cache, %lu stored\n\n",
           clsort_device_name(cs), logn, st.enabled ? st.dir : "off", prepare ? "; clsort_prepare first" : "",
           st.builds, st.hits, st.stores);
    printf("| family | first call ms | second call ms |\n| --- | ---: | ---: |\n");
    printf("| context create | %.1f | |\n", create_ms);
    if (prepare) printf("| clsort_prepare (all families) | %.1f | |\n", prepare_ms);
    for (w = 0; w < WS_COUNT; ++w)
        printf("| %s%s | %.1f | %.2f |\n", ws_names[w], w == WS_NBODY_F32 && cs->dev.cpu && n > 4096 ? " (2^12 on a CPU)" : "",
               first[w], second[w]);
    printf("| all families, first + second calls | %.1f | |\n", total + prepare_ms);
    printf("| create + all | %.1f | |\n\n", create_ms + prepare_ms + total);
    printf("{\"device\": \"%s\", \"log2n\": %d, \"cache\": \"%s\", \"prepare\": %d, \"builds\": %lu, \"hits\": %lu, "
           "\"create_ms\": %.2f, \"prepare_ms\": %.2f, \"families_ms\": %.2f",
           clsort_device_name(cs), logn, st.enabled ? "on" : "off", prepare, st.builds, st.hits, create_ms,
           prepare_ms, total);
    for (w = 0; w < WS_COUNT; ++w) printf(", \"%s\": [%.3f, %.3f]", ws_names[w], first[w], second[w]);
    printf("}\n");
    clsort_destroy(cs);
    free(out);
    return 0;
}
