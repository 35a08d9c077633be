/* Cold start: what a new process pays before its first results.
 * Times on the host clock (CLOCK_MONOTONIC; each call ends with its results
 * on the host, so the time includes the device work): clsort_create, then
 * the first and the second call of each family on 2^k elements (N-body:
 * at most 2^12 bodies on a CPU, 2^32 interactions take a minute there; the first
 * builds or loads its programs), optionally after one clsort_prepare of all
 * of them. Run it twice against one cache directory for cold and warm.
 *   build/coldstart CACHE_DIR|off [log2 n = 16] [--prepare] [--no-flush] [--programs] [--dump DIR]
 * --programs (with off: the programs then come from source) adds a table of
 * every program the calls took: its kernels, its build options, and the time
 * to build it again from its source and from its binary (clBuildProgram
 * alone, then with clCreateKernelsInProgram), in this process; --dump DIR
 * (implies --programs) also writes each binary to DIR/programI.bin (PTX on
 * NVIDIA, which ptxas can then time kernel by kernel); both need a build with
 * -DCOLDSTART_PROGRAMS (they read the library's program table).
 * Prints a Markdown table and one JSON line. Driver caches: run with
 * POCL_KERNEL_CACHE=0 (PoCL) or CUDA_CACHE_DISABLE=1 (NVIDIA) to see
 * clsort's cache alone (make bench-coldstart and `bench/run_gpu.sh coldstart` do).
 * After the calls, clsort_cache_flush stores what a CPU device defers (its
 * time is printed apart: a process pays it once, when it fills the cache),
 * then clsort_destroy is timed. --no-flush leaves the flush out, so the
 * destroy time is what an application that never flushes waits at exit
 * (cache_when AUTO stores nothing there: it should be milliseconds).
 * --programs prints its table before the others (it reads the live context). */
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

static int device_is_cpu(clsort_context *cs)
{
    cl_device_type type = 0;
    clGetDeviceInfo(clsort_cl_device(cs), CL_DEVICE_TYPE, sizeof type, &type, NULL);
    return (type & CL_DEVICE_TYPE_CPU) != 0;
}

/* ws_prepare, with the N-body call at the n the calls below take (2^12 on
 * a CPU): its warm run is one evaluation of n^2 pairs. */
static clsort_result prepare_calls(clsort_context *cs, size_t n, int cpu)
{
    clsort_prepare_call calls[WS_COUNT];
    ws_descs descs[WS_COUNT];
    clsort_prepare_desc pd;
    int w;
    if (!cpu || n <= 4096) return ws_prepare(cs, n);
    memset(&pd, 0, sizeof pd);
    pd.calls = calls;
    pd.count = WS_COUNT;
    for (w = 0; w < WS_COUNT; ++w) ws_prepare_call(w, n, &calls[w], &descs[w]);
    calls[WS_NBODY_F32].n = 4096;
    return clsort_prepare(cs, &pd);
}

#ifdef COLDSTART_PROGRAMS
static double build_ms(cl_program prog, const char *opts, double *kernels_ms)
{
    double t0 = now_ms(), t;
    cl_device_id dev = NULL;
    cl_kernel ks[64];
    cl_uint nk = 0, i;
    clGetProgramInfo(prog, CL_PROGRAM_DEVICES, sizeof dev, &dev, NULL);
    if (clBuildProgram(prog, 1, &dev, opts, NULL, NULL) != CL_SUCCESS) return -1;
    t = now_ms() - t0;
    if (clCreateKernelsInProgram(prog, 64, ks, &nk) != CL_SUCCESS) return -1;
    *kernels_ms = now_ms() - t0;
    for (i = 0; i < nk; ++i) clReleaseKernel(ks[i]);
    return t;
}

/* One row per program of the context: built again here from its source and
 * from its binary (each into a new cl_program of the same context). This
 * reads the context's program table, a library internal: an instrumentation
 * mode (-DCOLDSTART_PROGRAMS) that may need updating when the engine changes. */
static void program_table(clsort_context *cs, const char *dump)
{
    int i;
    double sum_src = 0, sum_bin = 0;
    printf("| program | kernels | options | source bytes | from source ms (+ kernels) | binary bytes | from binary ms "
           "(+ kernels) |\n| --- | ---: | --- | ---: | ---: | ---: | ---: |\n");
    for (i = 0; i < cs->num_programs; ++i) {
        cl_program p = cs->programs[i].program, q;
        char names[1024] = "", opts[1024] = "";
        size_t slen = 0, blen = 0, nk = 0;
        char *src;
        unsigned char *bin;
        const unsigned char *cbin;
        const char *csrc;
        cl_int e, st;
        double ks = 0, kb = 0, ms, mb;
        if (!p) continue;
        clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL);
        clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names - 1, names, NULL);
        clGetProgramBuildInfo(p, clsort_cl_device(cs), CL_PROGRAM_BUILD_OPTIONS, sizeof opts - 1, opts, NULL);
        clGetProgramInfo(p, CL_PROGRAM_SOURCE, 0, NULL, &slen);
        clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof blen, &blen, NULL);
        src = (char *)malloc(slen + 1);
        bin = (unsigned char *)malloc(blen + 1);
        if (!src || !bin || slen < 2 || !blen) {
            printf("| %d | %s | (no source or binary: run with off) | | | | |\n", i, names);
            free(src), free(bin);
            continue;
        }
        clGetProgramInfo(p, CL_PROGRAM_SOURCE, slen, src, NULL);
        clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
        if (dump) { /* the binary (PTX on NVIDIA: ptxas can time its kernels one by one) */
            char path[4096];
            FILE *f;
            snprintf(path, sizeof path, "%s/program%d.bin", dump, i);
            if ((f = fopen(path, "wb")) != NULL) fwrite(bin, 1, blen, f), fclose(f);
        }
        csrc = src;
        q = clCreateProgramWithSource(clsort_cl_context(cs), 1, &csrc, NULL, &e);
        ms = e == CL_SUCCESS ? build_ms(q, opts, &ks) : -1;
        if (e == CL_SUCCESS) clReleaseProgram(q);
        cbin = bin;
        {
            cl_device_id dev = clsort_cl_device(cs);
            q = clCreateProgramWithBinary(clsort_cl_context(cs), 1, &dev, &blen, &cbin, &st, &e);
        }
        mb = e == CL_SUCCESS ? build_ms(q, opts, &kb) : -1;
        if (e == CL_SUCCESS) clReleaseProgram(q);
        sum_src += ks;
        sum_bin += kb;
        printf("| %d %s | %lu | %s | %lu | %.1f (%.1f) | %lu | %.1f (%.1f) |\n", i, names, (unsigned long)nk, opts,
               (unsigned long)slen, ms, ks, (unsigned long)blen, mb, kb);
        free(src), free(bin);
    }
    printf("| all programs | | | | %.1f | | %.1f |\n\n", sum_src, sum_bin);
}
#else
static void program_table(clsort_context *cs, const char *dump)
{
    (void)cs, (void)dump;
    printf("--programs / --dump: build with -DCOLDSTART_PROGRAMS (reads the library's program table)\n");
}
#endif

int main(int argc, char **argv)
{
    clsort_context_desc d;
    clsort_context *cs = NULL;
    clsort_cache_stats st;
    char device[256], cache_dir[1024], warning[512];
    const char *dir = argc > 1 ? argv[1] : "off";
    int logn = argc > 2 && argv[2][0] != '-' ? atoi(argv[2]) : 16, prepare = 0, programs = 0, flush = 1, cpu, w, i;
    const char *dump = NULL;
    size_t n;
    double t0, create_ms, prepare_ms = 0, flush_ms = 0, destroy_ms, first[WS_COUNT], second[WS_COUNT], total = 0;
    unsigned long cubins = 0;
    unsigned char *out;
    for (i = 2; i < argc; ++i)
        if (strcmp(argv[i], "--prepare") == 0) prepare = 1;
        else if (strcmp(argv[i], "--no-flush") == 0) flush = 0;
        else if (strcmp(argv[i], "--programs") == 0) programs = 1;
        else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc) programs = 1, dump = argv[++i];
    if (ws_family_without_call() != CLSORT_FAMILY_COUNT) { /* the table claims every family */
        printf("coldstart: tests/workset.h has no call of the family %s\n", clsort_family_name(ws_family_without_call()));
        return 2;
    }
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
    cpu = device_is_cpu(cs);
    if (prepare) {
        t0 = now_ms();
        if (prepare_calls(cs, n, cpu) != CLSORT_SUCCESS) {
            printf("clsort_prepare: %s\n", clsort_last_error(cs));
            return 1;
        }
        prepare_ms = now_ms() - t0;
    }
    snprintf(device, sizeof device, "%s", clsort_device_name(cs)); /* printed after clsort_destroy */
    for (w = 0; w < WS_COUNT; ++w) {
        int k;
        for (k = 0; k < 2; ++k) {
            size_t bytes = 0;
            clsort_result r;
            size_t nw = w == WS_NBODY_F32 && cpu && n > 4096 ? 4096 : n;
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
    if (flush) {
        t0 = now_ms(); /* the stores a CPU device defers until the programs leave the context */
        clsort_cache_flush(cs);
        flush_ms = now_ms() - t0;
    }
    clsort_cache_stats_get(cs, &st);
    snprintf(cache_dir, sizeof cache_dir, "%s", st.enabled ? st.dir : "off"); /* st's strings live in the context */
    st.dir = cache_dir;
    snprintf(warning, sizeof warning, "%s", st.warning);
    st.warning = warning;
    cubins = st.cubins;
    if (programs) program_table(cs, dump);
    t0 = now_ms(); /* what the application waits at exit */
    clsort_destroy(cs);
    destroy_ms = now_ms() - t0;
    printf("device: %s; n = 2^%d; cache: %s%s%s; %lu programs built from source, %lu from the cache, %lu stored "
           "before clsort_destroy (%lu as cubin)\n",
           device, logn, st.enabled ? st.dir : "off", prepare ? "; clsort_prepare first" : "",
           flush ? "" : "; no clsort_cache_flush", st.builds, st.hits, st.stores, cubins);
    printf("cache warning: %s\n\n", st.warning[0] ? st.warning : "none");
    printf("| family | first call ms | second call ms |\n| --- | ---: | ---: |\n");
    printf("| context create | %.1f | |\n", create_ms);
    if (prepare) printf("| clsort_prepare (all families) | %.1f | |\n", prepare_ms);
    for (w = 0; w < WS_COUNT; ++w)
        printf("| %s%s | %.1f | %.2f |\n", ws_names[w], w == WS_NBODY_F32 && cpu && n > 4096 ? " (2^12 on a CPU)" : "",
               first[w], second[w]);
    printf("| all families, first + second calls | %.1f | |\n", total + prepare_ms);
    printf("| create + all | %.1f | |\n", create_ms + prepare_ms + total);
    if (flush) printf("| clsort_cache_flush (deferred stores, after the calls) | %.1f | |\n", flush_ms);
    printf("| clsort_destroy%s | %.1f | |\n\n", flush ? " (after the flush)" : " (no flush before)", destroy_ms);
    printf("{\"device\": \"%s\", \"log2n\": %d, \"cache\": \"%s\", \"prepare\": %d, \"flush\": %d, \"builds\": %lu, "
           "\"hits\": %lu, \"cubins\": %lu, \"create_ms\": %.2f, \"prepare_ms\": %.2f, \"families_ms\": %.2f, "
           "\"flush_ms\": %.2f, \"destroy_ms\": %.2f",
           device, logn, st.enabled ? "on" : "off", prepare, flush, st.builds, st.hits, cubins, create_ms, prepare_ms,
           total, flush_ms, destroy_ms);
    for (w = 0; w < WS_COUNT; ++w) printf(", \"%s\": [%.3f, %.3f]", ws_names[w], first[w], second[w]);
    printf("}\n");
    free(out);
    return 0;
}
