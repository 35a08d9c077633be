/* What a driver's program build does: evidence for the program
 * cache's limits. Plain OpenCL on the device clsort_create picks
 * (CLSORT_DEVICE), host clock (CLOCK_MONOTONIC).
 *   build/nv_probe async              (from the project root: reads the kernels/ sources)
 *       builds four programs from source with a clBuildProgram callback and
 *       says whether clBuildProgram returned before its build finished (only
 *       then can clsort_prepare overlap builds without threads).
 *   build/nv_probe threads [K]
 *       builds the same four programs (each with a salt define, so that no
 *       in-process cache answers) one after another, then each on its own
 *       host thread at once, K rounds of each: whether the driver builds
 *       programs of one context concurrently (then clsort_prepare could
 *       build on several threads).
 *   build/nv_probe load FILE [OPTIONS]
 *       clCreateProgramWithBinary with FILE's bytes (a PTX, cubin or fatbin
 *       on NVIDIA), clBuildProgram with OPTIONS: status, time, build log,
 *       kernels. Exit status 0 only when the program builds and has kernels.
 *   build/nv_probe entries DIR
 *       every clsort cache entry in DIR (the binary after the 96-byte header):
 *       written to DIR/<key>.drv (for ptxas) and built from it with
 *       -cl-nv-opt-level=3, 2, 1, 0 where the device has cl_nv_compiler_options
 *       (the level ptxas runs at), each time in a new cl_program. */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

#include <dirent.h>
#include <pthread.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double t0, called[8];
static void CL_CALLBACK built(cl_program p, void *user)
{
    (void)p;
    called[(size_t)user] = now_ms() - t0;
}

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long len;
    *size = 0;
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0 &&
        (buf = (unsigned char *)malloc((size_t)len)) != NULL && fread(buf, 1, (size_t)len, f) == (size_t)len)
        *size = (size_t)len;
    fclose(f);
    return buf;
}

/* Builds len bytes as a binary with opts; prints one line (and the log when
 * verbose). Returns the build time in ms, -1 when it failed. */
static double load(clsort_context *cs, const unsigned char *bin, size_t len, const char *opts, const char *what,
                   int verbose)
{
    cl_device_id dev = clsort_cl_device(cs);
    cl_int e = CL_SUCCESS, st = CL_SUCCESS;
    cl_program p;
    size_t nk = 0;
    char log[8192] = "";
    double t = now_ms(), ms;
    p = clCreateProgramWithBinary(clsort_cl_context(cs), 1, &dev, &len, &bin, &st, &e);
    if (e != CL_SUCCESS || st != CL_SUCCESS) {
        printf("%s: clCreateProgramWithBinary: error %d, binary status %d\n", what, (int)e, (int)st);
        if (p) clReleaseProgram(p);
        return -1;
    }
    e = clBuildProgram(p, 1, &dev, opts, NULL, NULL);
    ms = now_ms() - t;
    clGetProgramBuildInfo(p, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    if (e == CL_SUCCESS) clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL);
    printf("%s: clBuildProgram(\"%s\") %s (%d) in %.1f ms, %lu kernels\n", what, opts, e == CL_SUCCESS ? "ok" : "FAILED",
           (int)e, ms, (unsigned long)nk);
    if (verbose || e != CL_SUCCESS) printf("  build log: %.3000s\n", log[0] ? log : "(empty)");
    clReleaseProgram(p);
    return e == CL_SUCCESS && nk > 0 ? ms : -1;
}

/* The four programs of probe_async, as sources and options. */
static const char *const probe_files[4][4] = {{"common.cl", "scan.cl", NULL},
                                              {"common.cl", "keys.cl", "bitonic.cl", NULL},
                                              {"common.cl", "bin.cl", NULL},
                                              {"common.cl", "nbody.cl", NULL}};
static const char *const probe_opts[4] = {"-cl-std=CL1.2 -DWG=64 -DITEMS=16 -DT=uint",
                                          "-cl-std=CL1.2 -DWG=64 -DITEMS=16 -DTILE_LOG=10 -DKEY_T=uint -DKEY_BYTES=4",
                                          "-cl-std=CL1.2 -DWG=64", "-cl-std=CL1.2 -DWG=64 -DIB=4 -DJS=1"};

static int probe_async(clsort_context *cs)
{
    cl_device_id dev = clsort_cl_device(cs);
    cl_program p[4];
    double returned[4];
    int i, overlap = 0;
    t0 = now_ms();
    for (i = 0; i < 4; ++i) {
        unsigned char *text[4];
        const char *s[4];
        size_t l[4];
        cl_int e;
        cl_uint n = 0, k;
        for (; probe_files[i][n]; ++n) { /* the sources as the repository holds them (run from its root) */
            char path[256];
            snprintf(path, sizeof path, "kernels/%s", probe_files[i][n]);
            if (!(text[n] = read_all(path, &l[n]))) {
                printf("cannot read %s: run nv_probe from the project root\n", path);
                return 1;
            }
            s[n] = (const char *)text[n];
        }
        p[i] = clCreateProgramWithSource(clsort_cl_context(cs), n, s, l, &e);
        for (k = 0; k < n; ++k) free(text[k]);
        called[i] = -1;
        e = clBuildProgram(p[i], 1, &dev, probe_opts[i], built, (void *)(size_t)i);
        returned[i] = now_ms() - t0;
        if (e != CL_SUCCESS) printf("program %d: clBuildProgram error %d\n", i, (int)e);
    }
    for (i = 0; i < 4; ++i) {
        cl_build_status bs = CL_BUILD_IN_PROGRESS;
        while (bs == CL_BUILD_IN_PROGRESS) {
            struct timespec ts = {0, 1000000};
            if (clGetProgramBuildInfo(p[i], dev, CL_PROGRAM_BUILD_STATUS, sizeof bs, &bs, NULL) != CL_SUCCESS) break;
            if (bs == CL_BUILD_IN_PROGRESS) nanosleep(&ts, NULL);
        }
        printf("program %d: clBuildProgram returned at %.1f ms, its callback ran at %.1f ms, status %d\n", i,
               returned[i], called[i], (int)bs);
        overlap |= called[i] < 0 || called[i] > returned[i] + 1.0;
    }
    printf("all four built at %.1f ms: clBuildProgram with a callback %s\n", now_ms() - t0,
           overlap ? "returns before the build ends (builds can overlap)" : "builds before it returns (no overlap)");
    for (i = 0; i < 4; ++i) clReleaseProgram(p[i]);
    return 0;
}

typedef struct probe_build {
    clsort_context *cs;
    int which, salt;
    double ms;
    cl_int err;
} probe_build;

/* Builds program `which` from source with a salt define; its time in b->ms. */
static void *build_one(void *arg)
{
    probe_build *b = (probe_build *)arg;
    cl_device_id dev = clsort_cl_device(b->cs);
    unsigned char *text[4];
    const char *s[4];
    size_t l[4];
    char opts[256];
    cl_uint n = 0, k;
    cl_program p;
    double t = now_ms();
    b->err = CL_SUCCESS;
    for (; probe_files[b->which][n]; ++n) {
        char path[256];
        snprintf(path, sizeof path, "kernels/%s", probe_files[b->which][n]);
        if (!(text[n] = read_all(path, &l[n]))) {
            for (k = 0; k < n; ++k) free(text[k]);
            b->err = -1;
            return NULL;
        }
        s[n] = (const char *)text[n];
    }
    snprintf(opts, sizeof opts, "%s -DPROBE_SALT=%d", probe_opts[b->which], b->salt);
    p = clCreateProgramWithSource(clsort_cl_context(b->cs), n, s, l, &b->err);
    for (k = 0; k < n; ++k) free(text[k]);
    if (b->err != CL_SUCCESS) return NULL;
    b->err = clBuildProgram(p, 1, &dev, opts, NULL, NULL);
    b->ms = now_ms() - t;
    clReleaseProgram(p);
    return NULL;
}

static int probe_threads(clsort_context *cs, int rounds)
{
    int r, i, salt = 1, bad = 0;
    for (r = 0; r < rounds; ++r) {
        probe_build b[4];
        pthread_t th[4];
        double t, serial, threaded;
        t = now_ms();
        for (i = 0; i < 4; ++i) {
            b[i].cs = cs, b[i].which = i, b[i].salt = salt++;
            build_one(&b[i]);
            bad |= b[i].err != CL_SUCCESS;
        }
        serial = now_ms() - t;
        printf("round %d, one after another: %.1f ms (%.1f, %.1f, %.1f, %.1f)\n", r, serial, b[0].ms, b[1].ms, b[2].ms,
               b[3].ms);
        t = now_ms();
        for (i = 0; i < 4; ++i) {
            b[i].cs = cs, b[i].which = i, b[i].salt = salt++;
            if (pthread_create(&th[i], NULL, build_one, &b[i]) != 0) return 1;
        }
        for (i = 0; i < 4; ++i) pthread_join(th[i], NULL);
        threaded = now_ms() - t;
        for (i = 0; i < 4; ++i) bad |= b[i].err != CL_SUCCESS;
        printf("round %d, four threads: %.1f ms (%.1f, %.1f, %.1f, %.1f): %.2fx\n", r, threaded, b[0].ms, b[1].ms,
               b[2].ms, b[3].ms, serial / threaded);
    }
    if (bad) printf("a build failed\n");
    return bad;
}

static int probe_entries(clsort_context *cs, const char *dir)
{
    static const char *const levels[5] = {"-cl-std=CL1.2", "-cl-std=CL1.2 -cl-nv-opt-level=3",
                                          "-cl-std=CL1.2 -cl-nv-opt-level=2", "-cl-std=CL1.2 -cl-nv-opt-level=1",
                                          "-cl-std=CL1.2 -cl-nv-opt-level=0"};
    DIR *d = opendir(dir);
    struct dirent *de;
    char ext[4096] = "";
    double sum[5] = {0, 0, 0, 0, 0};
    int nv, l, count = 0;
    clGetDeviceInfo(clsort_cl_device(cs), CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    nv = strstr(ext, "cl_nv_compiler_options") != NULL;
    if (!d) {
        printf("no directory %s\n", dir);
        return 1;
    }
    while ((de = readdir(d)) != NULL) {
        char path[2048], out[2100];
        unsigned char *e;
        size_t size;
        FILE *f;
        if (strlen(de->d_name) != 68 || strcmp(de->d_name + 64, ".bin") != 0) continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        e = read_all(path, &size);
        if (!e || size <= CLSORT__CACHE_HEADER) {
            free(e);
            continue;
        }
        snprintf(out, sizeof out, "%s/%.64s.drv", dir, de->d_name);
        if ((f = fopen(out, "wb")) != NULL) {
            fwrite(e + CLSORT__CACHE_HEADER, 1, size - CLSORT__CACHE_HEADER, f);
            fclose(f);
        }
        printf("entry %.16s: %lu bytes of binary\n", de->d_name, (unsigned long)(size - CLSORT__CACHE_HEADER));
        for (l = 0; l < (nv ? 5 : 1); ++l) {
            char what[64];
            double ms;
            snprintf(what, sizeof what, "  %.16s", de->d_name);
            ms = load(cs, e + CLSORT__CACHE_HEADER, size - CLSORT__CACHE_HEADER, levels[l], what, 0);
            if (ms > 0) sum[l] += ms;
        }
        ++count;
        free(e);
    }
    closedir(d);
    for (l = 0; l < (nv ? 5 : 1); ++l)
        printf("all %d entries, \"%s\": %.1f ms\n", count, levels[l], sum[l]);
    return 0;
}

int main(int argc, char **argv)
{
    clsort_context *cs = NULL;
    clsort_context_desc desc;
    int r = 2;
    memset(&desc, 0, sizeof desc);
    desc.cache_off = 1;
    if (argc < 2 || clsort_create(&cs, &desc) != CLSORT_SUCCESS) {
        printf("usage: nv_probe async | threads [K] | load FILE [OPTIONS] | entries DIR (%s)\n", clsort_last_error(cs));
        clsort_destroy(cs);
        return 2;
    }
    printf("device: %s\n", clsort_device_name(cs));
    if (strcmp(argv[1], "async") == 0) {
        r = probe_async(cs);
    } else if (strcmp(argv[1], "threads") == 0) {
        r = probe_threads(cs, argc > 2 ? atoi(argv[2]) : 3);
    } else if (strcmp(argv[1], "load") == 0 && argc > 2) {
        size_t size;
        unsigned char *bin = read_all(argv[2], &size);
        r = bin && load(cs, bin, size, argc > 3 ? argv[3] : "-cl-std=CL1.2", argv[2], 1) > 0 ? 0 : 1;
        free(bin);
    } else if (strcmp(argv[1], "entries") == 0 && argc > 2) {
        r = probe_entries(cs, argv[2]);
    }
    clsort_destroy(cs);
    return r;
}
