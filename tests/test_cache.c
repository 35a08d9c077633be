/* The persistent program cache and clsort_prepare (make test).
 *
 * This file includes the implementation, so it reaches the context's
 * internals: the test hook for "the device, driver, platform or library
 * version changed" is ctx->cache.ident (the identity hashed into every key),
 * edited before the first program is asked for. Build counts come from
 * clsort_cache_stats_get (builds from source, hits, stores, rejected entries,
 * failed stores).
 *
 * Checked: SHA-256 test vectors; keys differ when any input differs; a miss
 * then a hit across processes (the second process builds nothing);
 * invalidation (identity fields, library version, options); corrupt,
 * truncated, zero-length, over-long, foreign, garbage entries and a binary the
 * driver refuses (rebuilt, rewritten, the result right); read-only, missing,
 * not-a-directory cache paths; a full disk (a file-size limit of one byte
 * while the store writes); three
 * processes filling one cache at once; load/store callbacks that work, fail,
 * or return garbage, wrong sizes, another key's blob; where the cache lives
 * (desc, CLSORT_CACHE_DIR, off, XDG_CACHE_HOME, HOME); clsort_prepare builds
 * every program of a call of each family (the calls then build nothing); the
 * same bytes from programs built from source and from cached binaries;
 * clsort_prepare's warm runs leave the buffers the descriptors name untouched
 * (scan, split, sort, gather; bitonic, binning, N-body, tree);
 * NVIDIA's entries as cubin without NVIDIA (test_cubin: build/libfakecuda.so
 * stands in for libcuda); the directory's size bound (least recently used
 * out first, a hit protecting its entry, files that are not entries
 * untouched, a bound below one entry, CLSORT_CACHE_MAX); clsort_prepare's
 * progress callback (once per program, 1 .. total); sharing (mode shared,
 * root only: a cache filled SHARED by root and read by nobody, every program
 * loaded; root's PRIVATE entry, another user's entry and one writable by
 * anyone rejected with a warning; CLSORT_CACHE_MODE). Ends with "N
 * passed, N failed". Usage: test_cache [work directory [mode]] (default
 * build/cache_test; modes: workset, when, bound, special, shared: only
 * those checks). */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"
#include "workset.h"

#include <dirent.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <utime.h>

static int passed, failed;
static char root[512];
static const char *self;

static void check(int ok, const char *what)
{
    if (ok) {
        ++passed;
    } else {
        ++failed;
        printf("FAILED: %s\n", what);
        fflush(stdout);
    }
}

static void rmtree(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("(could not remove %s)\n", dir);
}

static void path_of(char *out, size_t size, const char *name) { snprintf(out, size, "%s/%s", root, name); }

/* Files in dir whose names end with suffix; the first one's path in first. */
static int count_files(const char *dir, const char *suffix, char *first, size_t first_size)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int count = 0;
    size_t ls = strlen(suffix);
    if (!d) return 0;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > ls && strcmp(e->d_name + l - ls, suffix) == 0) {
            if (count == 0 && first) snprintf(first, first_size, "%s/%s", dir, e->d_name);
            ++count;
        }
    }
    closedir(d);
    return count;
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf;
    long len;
    *size = 0;
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = (unsigned char *)malloc((size_t)len + 1);
    if (buf && fread(buf, 1, (size_t)len, f) == (size_t)len) *size = (size_t)len;
    fclose(f);
    return buf;
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size) printf("(could not write %s)\n", path);
    if (f) fclose(f);
}

/* A context with the cache in dir (NULL: off). */
/* A context on the cache directory dir (NULL: cache off) that stores as
 * `when` says. */
/* A context with the cache in dir (NULL: off), storing `when`, bound to
 * max bytes (0: the default bound). */
static clsort_context *make_ctx_bound_when(const char *dir, clsort_cache_when when, size_t max)
{
    clsort_context_desc d;
    clsort_context *cs = NULL;
    memset(&d, 0, sizeof d);
    d.cache_dir = dir;
    d.cache_off = dir == NULL;
    d.cache_when = when;
    d.cache_max_bytes = max;
    if (clsort_create(&cs, &d) != CLSORT_SUCCESS) {
        printf("clsort_create: %s\n", clsort_last_error(cs));
        clsort_destroy(cs);
        return NULL;
    }
    return cs;
}

static clsort_context *make_ctx_when(const char *dir, clsort_cache_when when)
{
    return make_ctx_bound_when(dir, when, 0);
}

/* Most tests count stores made when a program leaves the context: LEAVE on
 * every device (test_when checks the default). */
static clsort_context *make_ctx(const char *dir) { return make_ctx_when(dir, CLSORT_CACHE_WHEN_LEAVE); }

static clsort_cache_stats stats(const clsort_context *cs)
{
    clsort_cache_stats st;
    memset(&st, 0, sizeof st);
    clsort_cache_stats_get(cs, &st);
    return st;
}

/* clsort_gather (the smallest program) on 1000 u32 with reversed indices,
 * then clsort_cache_flush: a store the cache defers (CPU devices: until the
 * program leaves the context) is made now, so that the counts after this
 * are the same on every device. */
static int gather_run(clsort_context *cs, int flush)
{
    enum { N = 1000 };
    uint32_t src[N], idx[N], dst[N];
    cl_mem s, i, d;
    int ok = 1;
    size_t k;
    for (k = 0; k < N; ++k) src[k] = (uint32_t)(k * 2654435761u), idx[k] = (uint32_t)(N - 1 - k), dst[k] = 0;
    s = ws_buffer(cs, sizeof src, src);
    i = ws_buffer(cs, sizeof idx, idx);
    d = ws_buffer(cs, sizeof dst, dst);
    if (!s || !i || !d || clsort_gather(cs, s, d, i, N, 4, NULL) != CLSORT_SUCCESS ||
        clEnqueueReadBuffer(clsort_cl_queue(cs), d, CL_TRUE, 0, sizeof dst, dst, 0, NULL, NULL) != CL_SUCCESS)
        ok = 0;
    for (k = 0; k < N && ok; ++k) ok = dst[k] == src[N - 1 - k];
    if (!ok) printf("  gather: %s\n", clsort_last_error(cs));
    if (flush && clsort_cache_flush(cs) != CLSORT_SUCCESS) ok = 0;
    if (s) clReleaseMemObject(s);
    if (i) clReleaseMemObject(i);
    if (d) clReleaseMemObject(d);
    return ok;
}

static int gather_ok(clsort_context *cs) { return gather_run(cs, 1); }

/* ---- a child process: the scan and sort calls of the work set ---- */

static int gather_ok(clsort_context *cs);

static int child(const char *dir, const char *mode)
{
    clsort_context *cs;
    clsort_cache_stats st;
    unsigned char *out = (unsigned char *)malloc(ws_out_bytes(3000));
    int ok = 1, w;
    cs = make_ctx(dir);
    if (!cs || !out) return 2;
    if (strcmp(mode, "special") == 0) { /* the gather entry is not a regular file: refused, rebuilt */
        ok = gather_ok(cs);
        st = stats(cs);
        printf("  child special: %lu built, %lu rejected [%s]\n", st.builds, st.rejected, st.warning);
        ok = ok && st.builds == 1 && st.hits == 0 && st.rejected == 1;
        clsort_destroy(cs);
        free(out);
        return ok ? 0 : 1;
    }
    for (w = 0; w < 2; ++w) {
        static const int calls[2] = {WS_SCAN_U32, WS_SORT_KEYS};
        size_t bytes = 0;
        ok = ok && ws_run(cs, calls[w], 3000, out, &bytes) == CLSORT_SUCCESS && ws_check(calls[w], 3000, out, bytes);
    }
    clsort_cache_flush(cs);
    st = stats(cs);
    printf("  child %s: %lu built, %lu hits, %lu stored, %lu rejected, %lu store failures%s%s\n", mode, st.builds,
           st.hits, st.stores, st.rejected, st.store_failures, st.warning[0] ? "; " : "", st.warning);
    if (strcmp(mode, "cold") == 0) ok = ok && st.builds > 0 && st.hits == 0 && st.stores == st.builds;
    if (strcmp(mode, "warm") == 0) ok = ok && st.builds == 0 && st.hits > 0 && st.rejected == 0;
    clsort_destroy(cs);
    free(out);
    return ok ? 0 : 1;
}

static pid_t spawn(const char *dir, const char *mode)
{
    pid_t pid;
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        execl(self, self, "--child", dir, mode, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static int wait_ok(pid_t pid)
{
    int status = 0;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* As wait_ok, but a child still running after `seconds` is killed and fails. */
static int wait_ok_within(pid_t pid, int seconds)
{
    struct timespec pause = {0, 50000000};
    int status = 0, k;
    if (pid <= 0) return 0;
    for (k = 0; k < seconds * 20; ++k) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) return WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (r < 0) return 0;
        nanosleep(&pause, NULL);
    }
    printf("  (child %ld still running after %d s: killed)\n", (long)pid, seconds);
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return 0;
}

/* ---- the tests ---- */

static void test_sha256(void)
{
    static const char *const want[3] = {
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"};
    static const char *const msg[3] = {"", "abc", "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"};
    int i;
    for (i = 0; i < 3; ++i) {
        clsort__sha256 s;
        unsigned char h[32];
        char hex[65];
        clsort__sha256_init(&s);
        clsort__sha256_add(&s, msg[i], strlen(msg[i]));
        clsort__sha256_done(&s, h);
        clsort__hex(h, hex);
        check(strcmp(hex, want[i]) == 0, "SHA-256 test vector");
    }
}

static void test_keys(clsort_context *cs)
{
    const char *names[2] = {"common.cl", "gather.cl"}, *srcs[2] = {"kernel void a(){}", "kernel void b(){}"};
    const char *names2[2] = {"common.cl", "other.cl"}, *srcs2[2] = {"kernel void a(){}", "kernel void c(){}"};
    const char *srcs3[2] = {"kernel void a(){}kernel void b", "(){}"}; /* same text, split elsewhere */
    size_t lens[2] = {17, 17}, lens3[2] = {29, 4};
    unsigned char k0[32], k1[32];
    char ident[sizeof cs->cache.ident];
    clsort__cache_key(cs, "-cl-std=CL1.2 -DWG=64", names, srcs, lens, 2, k0);
    clsort__cache_key(cs, "-cl-std=CL1.2 -DWG=64", names, srcs, lens, 2, k1);
    check(memcmp(k0, k1, 32) == 0, "key: the same inputs give the same key");
    clsort__cache_key(cs, "-cl-std=CL1.2 -DWG=32", names, srcs, lens, 2, k1);
    check(memcmp(k0, k1, 32) != 0, "key: options change it");
    clsort__cache_key(cs, "-cl-std=CL1.2 -DWG=64", names, srcs2, lens, 2, k1);
    check(memcmp(k0, k1, 32) != 0, "key: a source's text changes it");
    clsort__cache_key(cs, "-cl-std=CL1.2 -DWG=64", names2, srcs, lens, 2, k1);
    check(memcmp(k0, k1, 32) != 0, "key: a source's name changes it");
    clsort__cache_key(cs, "-cl-std=CL1.2 -DWG=64", names, srcs3, lens3, 2, k1);
    check(memcmp(k0, k1, 32) != 0, "key: the same text split differently changes it");
    clsort__cache_key(cs, "-cl-std=CL1.2 -DWG=64", names, srcs, lens, 1, k1);
    check(memcmp(k0, k1, 32) != 0, "key: a missing source changes it");
    memcpy(ident, cs->cache.ident, sizeof ident);
    cs->cache.ident[strlen(cs->cache.ident) - 1] = 'x';
    clsort__cache_key(cs, "-cl-std=CL1.2 -DWG=64", names, srcs, lens, 2, k1);
    check(memcmp(k0, k1, 32) != 0, "key: the identity (driver version) changes it");
    memcpy(cs->cache.ident, ident, sizeof ident);
    check(strstr(ident, "clsort=0.") && strstr(ident, "platform=") && strstr(ident, "platform version=") &&
              strstr(ident, "device=") && strstr(ident, "device version=") && strstr(ident, "driver version="),
          "key: the identity names the library, platform, device and driver versions");
}

static void test_processes(void)
{
    char dir[600];
    pid_t pids[3];
    int i, all = 1;
    path_of(dir, sizeof dir, "miss_hit");
    check(wait_ok(spawn(dir, "cold")), "a first process builds every program and stores it");
    check(wait_ok(spawn(dir, "warm")), "a second process builds nothing: every program from the cache");
    path_of(dir, sizeof dir, "concurrent");
    for (i = 0; i < 3; ++i) pids[i] = spawn(dir, "any");
    for (i = 0; i < 3; ++i) all &= wait_ok(pids[i]);
    check(all, "three processes filling one cache at once: all correct");
    check(count_files(dir, ".tmp", NULL, 0) == 0, "three processes: no temporary file left");
    check(count_files(dir, ".bin", NULL, 0) >= 2, "three processes: the entries are there");
    check(wait_ok(spawn(dir, "warm")), "after three concurrent writers a fourth process builds nothing");
}

/* The key of the gather program, computed as the engine does (the entry's
 * file name): the test knows the request clsort__gather_program makes. */
static void gather_key_bytes(clsort_context *cs, unsigned char key[32])
{
    const char *names[2] = {"common.cl", "gather.cl"}, *srcs[2];
    size_t lens[2], wg = cs->dev.max_wg < 64 ? cs->dev.max_wg : 64;
    char opts[64];
    snprintf(opts, sizeof opts, "-cl-std=CL1.2 -DWG=%u", (unsigned)wg);
    srcs[0] = clsort__kernel_source(names[0], &lens[0]);
    srcs[1] = clsort__kernel_source(names[1], &lens[1]);
    clsort__cache_key(cs, opts, names, srcs, lens, 2, key);
}

static void gather_key(clsort_context *cs, char hex[65])
{
    unsigned char key[32];
    gather_key_bytes(cs, key);
    clsort__hex(key, hex);
}

/* A full disk: the gather's program is built first (its store waits for
 * the flush, LEAVE), then the flush stores it under a file-size limit of
 * one byte (RLIMIT_FSIZE, SIGXFSZ ignored), so the temporary file is
 * created and its write fails part way, as on a disk that fills. (Links to
 * /dev/full at the temporary names no longer reach a write: the store
 * creates its file new, O_EXCL, and a name that exists fails it untouched,
 * test_special_temp.) */
static void test_full_disk(void)
{
    char dir[600], entry[800];
    clsort_context *cs;
    struct rlimit old, lim;
    void (*prev)(int);
    int built, flushed = 0, limited = 0;
    path_of(dir, sizeof dir, "full_disk");
    mkdir(dir, 0700);
    if ((cs = make_ctx(dir)) == NULL) return;
    built = gather_run(cs, 0);
    fflush(stdout);
    prev = signal(SIGXFSZ, SIG_IGN);
    if (getrlimit(RLIMIT_FSIZE, &old) == 0) {
        lim = old;
        lim.rlim_cur = 1;
        limited = setrlimit(RLIMIT_FSIZE, &lim) == 0;
        flushed = clsort_cache_flush(cs) == CLSORT_SUCCESS;
        if (limited) setrlimit(RLIMIT_FSIZE, &old);
    }
    signal(SIGXFSZ, prev);
    check(limited, "a full disk: the file-size limit set");
    check(built && flushed && stats(cs).builds == 1 && stats(cs).stores == 0 && stats(cs).store_failures == 1,
          "a full disk: the store fails, the call is right");
    clsort_destroy(cs);
    check(count_files(dir, ".bin", entry, sizeof entry) == 0, "a full disk: no entry left");
    check(count_files(dir, ".tmp", NULL, 0) == 0, "a full disk: the failed temporary file removed");
}

/* One fresh context on dir: gather, then its counts against expectations. */
static char stats_warning_last[512]; /* expect_gather's context's warning */

static void expect_gather(const char *dir, unsigned long builds, unsigned long hits, unsigned long rejected,
                          const char *what)
{
    clsort_context *cs = make_ctx(dir);
    clsort_cache_stats st;
    char msg[300];
    if (!cs) {
        check(0, what);
        return;
    }
    snprintf(msg, sizeof msg, "%s: gather right", what);
    check(gather_ok(cs), msg);
    st = stats(cs);
    snprintf(stats_warning_last, sizeof stats_warning_last, "%s", st.warning);
    snprintf(msg, sizeof msg, "%s: %lu built (want %lu), %lu hits (want %lu), %lu rejected (want %lu) [%s]", what,
             st.builds, builds, st.hits, hits, st.rejected, rejected, st.warning);
    check(st.builds == builds && st.hits == hits && st.rejected == rejected, msg);
    clsort_destroy(cs);
}

static void test_invalidation(void)
{
    static const char *const fields[5] = {"clsort=", "platform=", "platform version=", "device version=",
                                          "driver version="};
    char dir[600];
    int f;
    path_of(dir, sizeof dir, "invalidation");
    expect_gather(dir, 1, 0, 0, "first gather: a miss");
    expect_gather(dir, 0, 1, 0, "second gather: a hit");
    for (f = 0; f < 5; ++f) { /* the test hook: one identity field changed */
        clsort_context *cs = make_ctx(dir);
        char *at, msg[200];
        clsort_cache_stats st;
        if (!cs) continue;
        at = strstr(cs->cache.ident, fields[f]);
        if (at) at[strlen(fields[f])] ^= 1; /* the first character of its value */
        snprintf(msg, sizeof msg, "%s changed: gather right", fields[f]);
        check(at && gather_ok(cs), msg);
        st = stats(cs);
        snprintf(msg, sizeof msg, "%s changed: the entry is not used (a miss)", fields[f]);
        check(st.builds == 1 && st.hits == 0 && st.rejected == 0, msg);
        clsort_destroy(cs);
    }
    { /* other build options: a program of the engine's own, one define more */
        clsort_context *cs = make_ctx(dir);
        clsort__request rq;
        clsort__program *p = NULL;
        if (cs) {
            clsort__request_init(&rq, "test", 64, 1);
            clsort__request_source(&rq, "common.cl");
            clsort__request_source(&rq, "gather.cl");
            clsort__request_option(&rq, " -DWG=%u -DCLSORT_TEST_OPTION=1", 64u);
            check(clsort__program_get(cs, &rq, &p) == CLSORT_SUCCESS && stats(cs).builds == 1 && stats(cs).hits == 0,
                  "other options: a miss");
            clsort_destroy(cs);
        }
        if ((cs = make_ctx(dir)) != NULL) {
            check(clsort__program_get(cs, &rq, &p) == CLSORT_SUCCESS && stats(cs).builds == 0 && stats(cs).hits == 1,
                  "other options again: a hit");
            clsort_destroy(cs);
        }
    }
    expect_gather(dir, 0, 1, 0, "the original identity: still a hit");
}

/* A whole, checked entry of key (binaries of two builds need not be equal). */
static int entry_ok(const unsigned char *e, size_t size, const unsigned char *key)
{
    size_t len = clsort__cache_check_header(e, key, size);
    return len > 0 && clsort__cache_check_binary(e, e + CLSORT__CACHE_HEADER, len);
}

static void test_corrupt(void)
{
    char dir[600], entry[800], other[800], opts[64];
    unsigned char *good, *bad, *foreign;
    clsort_context *probe;
    size_t size, fsize, i;
    uint64_t seed = 42;
    path_of(dir, sizeof dir, "corrupt");
    expect_gather(dir, 1, 0, 0, "corrupt: fill");
    if (count_files(dir, ".bin", entry, sizeof entry) != 1 || !(good = read_file(entry, &size)) || size < 200) {
        check(0, "corrupt: one entry after a build");
        return;
    }
    {
        clsort_context *cs = make_ctx(dir);
        char hex[65], want[800];
        if (cs) {
            gather_key(cs, hex);
            snprintf(want, sizeof want, "%s/%s.bin", dir, hex);
            check(strcmp(want, entry) == 0, "the entry is named by the key of its sources, options and identity");
            clsort_destroy(cs);
        }
    }
    path_of(other, sizeof other, "invalidation"); /* its second entry: another program's */
    bad = (unsigned char *)malloc(size + 64);
    foreign = NULL;
    {
        DIR *d = opendir(other);
        struct dirent *e;
        char p[1200];
        while (d && (e = readdir(d)) != NULL && !foreign)
            if (strstr(e->d_name, ".bin") && strncmp(e->d_name, strrchr(entry, '/') + 1, 64) != 0) {
                snprintf(p, sizeof p, "%s/%s", other, e->d_name);
                foreign = read_file(p, &fsize);
            }
        if (d) closedir(d);
    }
    if (!bad) return;
    probe = make_ctx(dir);
    if (!probe) return;
    snprintf(opts, sizeof opts, "-cl-std=CL1.2 -DWG=%u", (unsigned)(probe->dev.max_wg < 64 ? probe->dev.max_wg : 64));
    /* full: a new context's call rebuilds from source and rewrites the entry;
     * otherwise only the engine's load is asked (it must refuse the entry) */
#define CORRUPT(what, data, len, full)                                                     \
    do {                                                                                   \
        size_t len_ = (len);                                                               \
        write_file(entry, (data), len_);                                                   \
        if (full) {                                                                        \
            unsigned char *now_;                                                           \
            size_t now_size_;                                                              \
            expect_gather(dir, 1, 0, 1, what);                                             \
            now_ = read_file(entry, &now_size_);                                           \
            check(now_ && entry_ok(now_, now_size_, good + 24), what ": the entry is rewritten whole"); \
            free(now_);                                                                    \
        } else {                                                                           \
            unsigned long rejected_ = probe->cache.rejected;                               \
            cl_program p_ = clsort__cache_load(probe, good + 24, opts, NULL);             \
            check(p_ == NULL && probe->cache.rejected == rejected_ + 1, what ": refused"); \
            if (p_) clReleaseProgram(p_);                                                  \
        }                                                                                  \
    } while (0)
    memcpy(bad, good, size);
    bad[CLSORT__CACHE_HEADER + (size - CLSORT__CACHE_HEADER) / 2] ^= 0x20;
    CORRUPT("one bit of the binary flipped", bad, size, 1);
    memcpy(bad, good, size);
    bad[30] ^= 1;
    CORRUPT("one bit of the key flipped", bad, size, 0);
    memcpy(bad, good, size);
    bad[0] = 'X';
    CORRUPT("wrong magic", bad, size, 0);
    memcpy(bad, good, size);
    bad[8] = 2;
    CORRUPT("another format version", bad, size, 0);
    CORRUPT("truncated in the binary", good, size - (size - CLSORT__CACHE_HEADER) / 2, 1);
    CORRUPT("truncated by one byte", good, size - 1, 0);
    CORRUPT("truncated in the header", good, 50, 0);
    CORRUPT("zero-length", good, 0, 1);
    memcpy(bad, good, size);
    memset(bad + size, 0x5a, 64);
    CORRUPT("64 bytes too long", bad, size + 64, 0);
    memcpy(bad, good, size);
    clsort__put64(bad + 16, (cl_ulong)1 << 62);
    CORRUPT("a header claiming 2^62 bytes", bad, size, 0);
    for (i = 0; i < size; ++i) bad[i] = (unsigned char)ws_rand(&seed);
    CORRUPT("random bytes", bad, size, 0);
    if (foreign) CORRUPT("another program's entry", foreign, fsize, 0);
    check(foreign != NULL, "corrupt: another program's entry found");
    /* a well-formed entry (key, length, checksum right) whose binary is garbage:
     * the driver refuses it, the program is built from source */
    memcpy(bad, good, size);
    for (i = CLSORT__CACHE_HEADER; i < size; ++i) bad[i] = (unsigned char)ws_rand(&seed);
    clsort__cache_header(bad, good + 24, bad + CLSORT__CACHE_HEADER, size - CLSORT__CACHE_HEADER);
    CORRUPT("a checked entry of a garbage binary (refused by the driver)", bad, size, 1);
    memcpy(bad, good, size);
    memset(bad + CLSORT__CACHE_HEADER, 0, size - CLSORT__CACHE_HEADER);
    clsort__cache_header(bad, good + 24, bad + CLSORT__CACHE_HEADER, size - CLSORT__CACHE_HEADER);
    CORRUPT("a checked entry of a zeroed binary (refused by the driver)", bad, size, 0);
#undef CORRUPT
    clsort_destroy(probe);
    /* an entry that cannot be read: a directory under its name */
    remove(entry);
    if (mkdir(entry, 0700) == 0) {
        clsort_context *cs = make_ctx(dir);
        if (cs) {
            check(gather_ok(cs) && stats(cs).builds == 1 && stats(cs).store_failures == 1,
                  "an unreadable entry (a directory): built from source, the store fails, the call goes on");
            clsort_destroy(cs);
        }
        rmdir(entry);
    }
    expect_gather(dir, 1, 0, 0, "the entry removed: a miss");
    expect_gather(dir, 0, 1, 0, "and then a hit");
    free(good);
    free(bad);
    free(foreign);
}

/* Entries that are not regular files and block whoever opens or reads
 * them: a FIFO in the entry's place (opening it to read waits for a
 * writer), and a link to one. A process using the cache must refuse such an
 * entry and build from source; it runs as a child, killed (a failure)
 * when it hangs. */
static void test_special_entries(void)
{
    char dir[600], entry[800], fifo[800];
    path_of(dir, sizeof dir, "special");
    expect_gather(dir, 1, 0, 0, "special entries: fill");
    if (count_files(dir, ".bin", entry, sizeof entry) != 1) {
        check(0, "special entries: one entry after a build");
        return;
    }
    remove(entry);
    if (mkfifo(entry, 0600) != 0) {
        check(0, "special entries: mkfifo");
        return;
    }
    check(wait_ok_within(spawn(dir, "special"), 120),
          "a FIFO in an entry's place: refused without blocking, built from source");
    remove(entry);
    snprintf(fifo, sizeof fifo, "%s/a-fifo", dir);
    /* the link's target is read relative to the link's own directory:
     * a path relative to ours would dangle */
    if (mkfifo(fifo, 0600) != 0 || symlink("a-fifo", entry) != 0) {
        check(0, "special entries: a link to a FIFO");
        return;
    }
    check(wait_ok_within(spawn(dir, "special"), 120),
          "a link to a FIFO in an entry's place: refused without blocking, built from source");
    remove(entry);
    remove(fifo);
}

/* The store's temporary file: created new and regular, or the store fails
 * and leaves whatever holds its name alone. Its name (the key, the pid, the
 * context's address, the store's counter) is taken first by a link to
 * another file of the directory (a store that followed it truncated and
 * overwrote that file, then renamed the link into the entry's place), then
 * by a FIFO that a reader holds open (a store that opened it wrote the entry
 * into the pipe and renamed the FIFO into the entry's place). Each store
 * must fail (counted), write nothing through the name, and leave no entry. */
static void test_special_temp(void)
{
    static const char keep[] = "another file of the directory";
    char dir[600], temp[1300], victim[800], entry[800], hex[65], back[64];
    unsigned char key[32], blob[256];
    clsort_context *cs;
    struct stat st;
    int kind;
    path_of(dir, sizeof dir, "special_temp");
    rmtree(dir);
    mkdir(dir, 0700);
    if ((cs = make_ctx_when(dir, CLSORT_CACHE_WHEN_BUILD)) == NULL) return;
    memset(key, 0xab, sizeof key);
    memset(blob, 0x5a, sizeof blob);
    clsort__hex(key, hex);
    snprintf(entry, sizeof entry, "%s/%s.bin", dir, hex);
    snprintf(victim, sizeof victim, "%s/victim", dir);
    for (kind = 0; kind < 2; ++kind) {
        unsigned long failures = cs->cache.store_failures;
        int rd = -1, made;
        FILE *f = fopen(victim, "wb");
        if (f) fputs(keep, f), fclose(f);
        snprintf(temp, sizeof temp, "%s/%s.%ld.%lx.%lu.tmp", dir, hex, (long)getpid(),
                 (unsigned long)((size_t)cs & 0xffffffffu), cs->cache.temp_counter + 1);
        if (kind == 0) {
            made = symlink("victim", temp) == 0;
        } else {
            made = mkfifo(temp, 0600) == 0;
            if (made) rd = open(temp, O_RDONLY | O_NONBLOCK); /* a reader: a writer's open would succeed */
            made = made && rd >= 0;
        }
        if (!made) {
            check(0, kind ? "special temporary file: a FIFO with a reader" : "special temporary file: a link");
            break;
        }
        clsort__cache_write(cs, key, blob, sizeof blob);
        check(cs->cache.store_failures == failures + 1 && lstat(entry, &st) != 0,
              kind ? "a FIFO (with a reader) under the store's temporary name: the store fails, no entry"
                   : "a link under the store's temporary name: the store fails, no entry");
        if (kind == 0) {
            memset(back, 0, sizeof back);
            f = fopen(victim, "rb");
            if (f) (void)!fread(back, 1, sizeof back - 1, f), fclose(f);
            check(strcmp(back, keep) == 0, "a link under the store's temporary name: its target untouched");
        } else {
            check(read(rd, back, sizeof back) <= 0 && lstat(temp, &st) == 0 && S_ISFIFO(st.st_mode),
                  "a FIFO under the store's temporary name: nothing written into it, left in place");
            close(rd);
        }
        remove(temp);
        remove(entry);
    }
    clsort_destroy(cs);
    rmtree(dir);
}

/* When the cache stores (desc.cache_when, CLSORT_CACHE_WHEN): AUTO spends
 * nothing inside a call or clsort_destroy where taking a binary compiles
 * (CPU devices), and stores at the build elsewhere; BUILD, LEAVE and FLUSH
 * as named; the desc wins over the environment. */
static void test_when(void)
{
    char dir[600];
    clsort_context *cs;
    clsort__program *p = NULL;
    path_of(dir, sizeof dir, "when");
    rmtree(dir);
    if ((cs = make_ctx_when(dir, CLSORT_CACHE_WHEN_AUTO)) != NULL) {
        int cpu = cs->dev.cache_defer;
        check(cs->cache.when == (cpu ? CLSORT_CACHE_WHEN_FLUSH : CLSORT_CACHE_WHEN_BUILD),
              "when: AUTO is FLUSH where taking a binary compiles (CPU devices), else BUILD");
        check(clsort__gather_program(cs, &p) == CLSORT_SUCCESS && stats(cs).builds == 1 &&
                  stats(cs).stores == (cpu ? 0u : 1u) && count_files(dir, ".bin", NULL, 0) == (cpu ? 0 : 1),
              "when: AUTO: stored at the build only where that is free");
        clsort_destroy(cs);
        check(count_files(dir, ".bin", NULL, 0) == (cpu ? 0 : 1), "when: AUTO: clsort_destroy stores nothing");
        if (cpu && (cs = make_ctx_when(dir, CLSORT_CACHE_WHEN_AUTO)) != NULL) {
            check(gather_ok(cs) && stats(cs).builds == 1 && stats(cs).hits == 0 && stats(cs).stores == 1 &&
                      count_files(dir, ".bin", NULL, 0) == 1,
                  "when: AUTO on a CPU device: built again, then clsort_cache_flush stores it");
            clsort_destroy(cs);
        }
        expect_gather(dir, 0, 1, 0, "when: AUTO: a later context loads the entry");
    }
    rmtree(dir);
    setenv("CLSORT_CACHE_WHEN", "build", 1);
    if ((cs = make_ctx_when(dir, CLSORT_CACHE_WHEN_AUTO)) != NULL) {
        check(cs->cache.when == CLSORT_CACHE_WHEN_BUILD && clsort__gather_program(cs, &p) == CLSORT_SUCCESS &&
                  stats(cs).stores == 1 && count_files(dir, ".bin", NULL, 0) == 1,
              "when: CLSORT_CACHE_WHEN=build: stored right after the build");
        clsort_destroy(cs);
    }
    rmtree(dir);
    if ((cs = make_ctx_when(dir, CLSORT_CACHE_WHEN_FLUSH)) != NULL) {
        check(cs->cache.when == CLSORT_CACHE_WHEN_FLUSH, "when: desc.cache_when wins over CLSORT_CACHE_WHEN");
        p = NULL;
        if (clsort__gather_program(cs, &p) == CLSORT_SUCCESS && p) clsort__program_release(cs, p);
        check(p && stats(cs).stores == 0 && count_files(dir, ".bin", NULL, 0) == 0,
              "when: FLUSH: a program evicted from the context is not stored");
        clsort_destroy(cs);
        check(count_files(dir, ".bin", NULL, 0) == 0, "when: FLUSH: clsort_destroy stores nothing");
    }
    setenv("CLSORT_CACHE_WHEN", "leave", 1);
    if ((cs = make_ctx_when(dir, CLSORT_CACHE_WHEN_AUTO)) != NULL) {
        check(cs->cache.when == CLSORT_CACHE_WHEN_LEAVE && clsort__gather_program(cs, &p) == CLSORT_SUCCESS &&
                  stats(cs).stores == 0,
              "when: CLSORT_CACHE_WHEN=leave: nothing stored at the build");
        clsort_destroy(cs);
        check(count_files(dir, ".bin", NULL, 0) == 1, "when: LEAVE: clsort_destroy stores it");
    }
    { /* a malformed value fails clsort_create naming the variable, also with the cache off or the desc's
       * cache_when set; "auto" is AUTO */
        static const char *const bad[] = {"junk", "BUILD", "Leave", "flush ", "autox"};
        size_t i;
        int cpu = 0;
        for (i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
            int k;
            setenv("CLSORT_CACHE_WHEN", bad[i], 1);
            for (k = 0; k < 3; ++k) { /* cache on; off; desc.cache_when FLUSH */
                clsort_context_desc d;
                clsort_result r;
                char what[160];
                memset(&d, 0, sizeof d);
                d.cache_dir = dir;
                d.cache_off = k == 1;
                d.cache_when = k == 2 ? CLSORT_CACHE_WHEN_FLUSH : CLSORT_CACHE_WHEN_AUTO;
                cs = NULL;
                r = clsort_create(&cs, &d);
                snprintf(what, sizeof what, "when: CLSORT_CACHE_WHEN=\"%s\" refused by clsort_create (%s), naming it",
                         bad[i], k == 0 ? "cache on" : k == 1 ? "cache off" : "desc.cache_when FLUSH");
                check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "CLSORT_CACHE_WHEN") &&
                          strstr(clsort_last_error(cs), "\"auto\", \"build\", \"leave\" or \"flush\""),
                      what);
                if (r != CLSORT_ERROR_INVALID_ARGUMENT) printf("  got %d: %s\n", (int)r, clsort_last_error(cs));
                clsort_destroy(cs);
            }
        }
        setenv("CLSORT_CACHE_WHEN", "auto", 1);
        if ((cs = make_ctx_when(dir, CLSORT_CACHE_WHEN_AUTO)) != NULL) {
            cpu = cs->dev.cache_defer;
            check(cs->cache.when == (cpu ? CLSORT_CACHE_WHEN_FLUSH : CLSORT_CACHE_WHEN_BUILD),
                  "when: CLSORT_CACHE_WHEN=auto is AUTO (the device's choice)");
            clsort_destroy(cs);
        } else {
            check(0, "when: CLSORT_CACHE_WHEN=auto accepted");
        }
        setenv("CLSORT_CACHE_WHEN", "", 1);
        if ((cs = make_ctx_when(dir, CLSORT_CACHE_WHEN_AUTO)) != NULL) {
            check(cs->cache.when == (cpu ? CLSORT_CACHE_WHEN_FLUSH : CLSORT_CACHE_WHEN_BUILD),
                  "when: CLSORT_CACHE_WHEN empty is unset");
            clsort_destroy(cs);
        } else {
            check(0, "when: CLSORT_CACHE_WHEN empty accepted");
        }
    }
    unsetenv("CLSORT_CACHE_WHEN");
    rmtree(dir);
    if ((cs = make_ctx_when(dir, CLSORT_CACHE_WHEN_AUTO)) != NULL) { /* as AUTO resolves on NVIDIA */
        cs->dev.cache_cubin = 1, cs->dev.nv_cc_major = 9, cs->dev.nv_cc_minor = 0;
        cs->cache.when = CLSORT_CACHE_WHEN_FLUSH, cs->cache.ptx_at_build = 1;
        check(clsort__gather_program(cs, &p) == CLSORT_SUCCESS && p && p->store_pending && stats(cs).stores == 1 &&
                  stats(cs).cubins == 0 && cs->cuda.state == 0,
              "when: AUTO on NVIDIA: the PTX stored at the build, libcuda not opened, the cubin pending");
        check(clsort_cache_flush(cs) == CLSORT_SUCCESS && stats(cs).stores == 2 && !p->store_pending,
              "when: AUTO on NVIDIA: clsort_cache_flush stores again (the cubin over the PTX)");
        clsort_destroy(cs);
        check(count_files(dir, ".bin", NULL, 0) == 1, "when: one entry for the program");
    }
    if ((cs = make_ctx_when(dir, CLSORT_CACHE_WHEN_AUTO)) != NULL) { /* a later process: a PTX entry */
        cs->dev.cache_cubin = 1, cs->dev.nv_cc_major = 9, cs->dev.nv_cc_minor = 0;
        cs->cache.when = CLSORT_CACHE_WHEN_FLUSH, cs->cache.ptx_at_build = 1;
        p = NULL;
        check(clsort__gather_program(cs, &p) == CLSORT_SUCCESS && p && stats(cs).hits == 1 && p->store_pending,
              "when: AUTO on NVIDIA: a PTX entry loaded from the cache waits for its cubin on the flush");
        clsort_destroy(cs);
    }
    rmtree(dir);
}

static void test_dirs(void)
{
    char dir[600], file[600];
    clsort_context *cs;
    path_of(file, sizeof file, "a_file");
    write_file(file, "x", 1);
    {
        const char *bad_dirs[3] = {"/proc/clsort-cache-test", file, NULL};
        char under_file[700];
        int i;
        snprintf(under_file, sizeof under_file, "%s/sub", file);
        bad_dirs[2] = under_file;
        for (i = 0; i < 3; ++i) {
            char msg[800];
            cs = make_ctx(bad_dirs[i]);
            if (!cs) continue;
            snprintf(msg, sizeof msg, "cache dir %s (cannot be written): the call is right, the store failed",
                     bad_dirs[i]);
            check(gather_ok(cs) && stats(cs).builds == 1 && stats(cs).store_failures == 1 && stats(cs).warning[0],
                  msg);
            clsort_destroy(cs);
        }
    }
    path_of(dir, sizeof dir, "missing/a/b/c");
    expect_gather(dir, 1, 0, 0, "a missing directory (nested): created");
    check(count_files(dir, ".bin", NULL, 0) == 1, "a missing directory: the entry stored");
    expect_gather(dir, 0, 1, 0, "a missing directory: then a hit");
    if (geteuid() != 0) { /* root writes anywhere: only without it */
        path_of(dir, sizeof dir, "readonly");
        mkdir(dir, 0700);
        chmod(dir, 0500);
        expect_gather(dir, 1, 0, 0, "a read-only directory");
        chmod(dir, 0700);
    }
}

/* ---- callbacks: an in-memory store ---- */

typedef struct mem_store {
    char key[16][65];
    unsigned char *blob[16];
    size_t size[16];
    int count;
    int fail_store;   /* store returns an error */
    int garbage;      /* load: 1 random bytes, 2 a changing size, 3 a huge size, 4 another key's blob */
} mem_store;

static size_t mem_load(void *user, const char *key, void *data, size_t capacity)
{
    mem_store *m = (mem_store *)user;
    static uint64_t seed = 7;
    int i, hit = -1;
    for (i = 0; i < m->count; ++i)
        if (strcmp(m->key[i], key) == 0) hit = i;
    if (m->garbage == 3) return (size_t)-1;
    if (m->garbage == 4 && m->count > 0) hit = hit == 0 && m->count > 1 ? 1 : hit == 0 ? -1 : 0;
    if (hit < 0) return 0;
    if (m->garbage == 2) return capacity ? m->size[hit] / 2 : m->size[hit];
    if (data && capacity >= m->size[hit]) {
        memcpy(data, m->blob[hit], m->size[hit]);
        if (m->garbage == 1)
            for (i = 0; i < (int)m->size[hit]; i += 7) ((unsigned char *)data)[i] = (unsigned char)ws_rand(&seed);
    }
    return m->size[hit];
}

static int mem_store_fn(void *user, const char *key, const void *data, size_t size)
{
    mem_store *m = (mem_store *)user;
    if (m->fail_store || m->count == 16) return -1;
    snprintf(m->key[m->count], 65, "%s", key);
    m->blob[m->count] = (unsigned char *)malloc(size);
    if (!m->blob[m->count]) return -1;
    memcpy(m->blob[m->count], data, size);
    m->size[m->count++] = size;
    return 0;
}

static clsort_context *make_cb_ctx(mem_store *m)
{
    clsort_context_desc d;
    clsort_context *cs = NULL;
    memset(&d, 0, sizeof d);
    d.cache_load = mem_load;
    d.cache_store = mem_store_fn;
    d.cache_user = m;
    if (clsort_create(&cs, &d) != CLSORT_SUCCESS) {
        clsort_destroy(cs);
        return NULL;
    }
    return cs;
}

static void test_callbacks(void)
{
    mem_store m;
    clsort_context *cs;
    clsort_context_desc d;
    int g, i;
    static const char *const what[5] = {"", "random bytes", "a changing size", "a huge size", "another key's blob"};
    memset(&m, 0, sizeof m);
    if ((cs = make_cb_ctx(&m)) != NULL) {
        check(gather_ok(cs) && stats(cs).builds == 1 && stats(cs).stores == 1 && m.count == 1 &&
                  stats(cs).enabled && stats(cs).dir[0] == '\0',
              "callbacks: a miss, the blob handed to store");
        clsort_destroy(cs);
    }
    if ((cs = make_cb_ctx(&m)) != NULL) {
        check(gather_ok(cs) && stats(cs).builds == 0 && stats(cs).hits == 1, "callbacks: a hit from load");
        /* a second program, so that "another key's blob" has one to hand out */
        check(clsort__scan_prepare(cs, NULL) == CLSORT_SUCCESS && clsort_cache_flush(cs) == CLSORT_SUCCESS &&
                  m.count == 2,
              "callbacks: a second blob stored");
        clsort_destroy(cs);
    }
    for (g = 1; g <= 4; ++g) {
        char msg[200];
        m.garbage = g;
        m.fail_store = 1;
        if ((cs = make_cb_ctx(&m)) == NULL) continue;
        snprintf(msg, sizeof msg, "callbacks: load returns %s: rebuilt, right", what[g]);
        check(gather_ok(cs) && stats(cs).builds == 1 && stats(cs).hits == 0 && stats(cs).rejected == 1, msg);
        snprintf(msg, sizeof msg, "callbacks: load returns %s, store fails: counted, no error", what[g]);
        check(stats(cs).store_failures == 1 && clsort_last_error(cs)[0] == '\0', msg);
        clsort_destroy(cs);
    }
    memset(&d, 0, sizeof d);
    d.cache_load = mem_load;
    cs = NULL;
    check(clsort_create(&cs, &d) == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "cache_store"),
          "callbacks: load without store is refused");
    clsort_destroy(cs);
    for (i = 0; i < m.count; ++i) free(m.blob[i]);
}

/* The gather program of a fresh context on dir, its store deferred until
 * the program leaves the context or made at the build (cache.when). */
static clsort__program *gather_program(clsort_context *cs, int defer)
{
    clsort__program *p = NULL;
    cs->cache.when = defer ? CLSORT_CACHE_WHEN_LEAVE : CLSORT_CACHE_WHEN_BUILD;
    return clsort__gather_program(cs, &p) == CLSORT_SUCCESS ? p : NULL;
}

/* Stores deferred until the program leaves the context (CPU devices: the
 * binary then holds the kernels compiled at their launches) or made at the
 * build (GPUs); the kernels made with the program; the lookup of programs
 * already in the context. */
static void test_deferred(void)
{
    char dir[600], msg[200], entry[800];
    clsort_context *cs;
    clsort__program *p;
    path_of(dir, sizeof dir, "deferred");
    if ((cs = make_ctx(dir)) != NULL) {
        size_t nk = 0;
        int k, made = 0;
        p = gather_program(cs, 1);
        for (k = 0; p && k < CLSORT__MAX_KERNELS; ++k) made += p->kernels[k] != NULL;
        if (p) clGetProgramInfo(p->program, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL);
        snprintf(msg, sizeof msg, "every kernel of a program created with it, before any launch (%d of %lu)", made,
                 (unsigned long)nk);
        check(p && nk > 0 && (size_t)made == nk, msg);
        check(p && p->store_pending && stats(cs).builds == 1 && stats(cs).stores == 0 &&
                  count_files(dir, ".bin", NULL, 0) == 0,
              "deferred: nothing stored at the build");
        check(gather_ok(cs) && stats(cs).stores == 1 && count_files(dir, ".bin", NULL, 0) == 1,
              "deferred: clsort_cache_flush after the call stores it");
        check(clsort_cache_flush(cs) == CLSORT_SUCCESS && stats(cs).stores == 1, "deferred: a second flush stores nothing");
        clsort_destroy(cs);
        check(count_files(dir, ".bin", NULL, 0) == 1, "deferred: destroy after a flush stores nothing more");
    }
    check(clsort_cache_flush(NULL) == CLSORT_ERROR_INVALID_ARGUMENT, "clsort_cache_flush(NULL): refused");
    rmtree(dir);
    if ((cs = make_ctx(dir)) != NULL) { /* no flush: stored by clsort_destroy */
        p = gather_program(cs, 1);
        check(p && count_files(dir, ".bin", NULL, 0) == 0, "deferred: no entry before destroy");
        clsort_destroy(cs);
        check(count_files(dir, ".bin", entry, sizeof entry) == 1, "deferred: clsort_destroy stores the entry");
    }
    expect_gather(dir, 0, 1, 0, "deferred entry: a hit, the call right");
    rmtree(dir);
    if ((cs = make_ctx(dir)) != NULL) { /* evicted (released to make room): stored then */
        p = gather_program(cs, 1);
        if (p) clsort__program_release(cs, p);
        check(p && stats(cs).stores == 1 && count_files(dir, ".bin", NULL, 0) == 1,
              "deferred: a program evicted from the context is stored then");
        check(gather_ok(cs) && stats(cs).hits == 1 && stats(cs).builds == 1,
              "deferred: evicted, then asked again: loaded from its entry");
        clsort_destroy(cs);
    }
    rmtree(dir);
    if ((cs = make_ctx(dir)) != NULL) { /* not deferred (GPUs): at the build */
        p = gather_program(cs, 0);
        check(p && !p->store_pending && stats(cs).stores == 1 && count_files(dir, ".bin", NULL, 0) == 1,
              "not deferred: stored right after the build");
        clsort_destroy(cs);
        check(count_files(dir, ".bin", NULL, 0) == 1 && count_files(dir, ".tmp", NULL, 0) == 0,
              "not deferred: one entry after destroy, no temporary file");
    }
    if ((cs = make_ctx(NULL)) != NULL) { /* the per-call lookup */
        clsort__request rq, other;
        clsort__program *a = NULL, *b = NULL, *c = NULL;
        clsort__request_init(&rq, "test", 64, 1);
        clsort__request_source(&rq, "common.cl");
        clsort__request_source(&rq, "gather.cl");
        clsort__request_option(&rq, " -DWG=%u", 64u);
        other = rq;
        clsort__request_option(&other, " -DCLSORT_TEST_OPTION=2");
        check(clsort__program_get(cs, &rq, &a) == CLSORT_SUCCESS && clsort__program_get(cs, &rq, &b) == CLSORT_SUCCESS &&
                  a == b && stats(cs).builds == 1,
              "lookup: the same request twice, one program, one build");
        check(clsort__program_get(cs, &other, &c) == CLSORT_SUCCESS && c != a && stats(cs).builds == 2,
              "lookup: other options, another program");
        check(a && clsort__program_is(a, &rq, clsort__request_hash(&rq)) &&
                  !clsort__program_is(a, &other, clsort__request_hash(&rq)),
              "lookup: equal hashes with other options do not match");
        other = rq;
        other.sources[1] = "scan.cl";
        check(a && clsort__request_hash(&other) != clsort__request_hash(&rq) &&
                  !clsort__program_is(a, &other, clsort__request_hash(&rq)),
              "lookup: another source file does not match");
        clsort_destroy(cs);
    }
}

/* Whether program p holds a kernel of that name (CL_PROGRAM_KERNEL_NAMES). */
static int holds(clsort__program *p, const char *name)
{
    char names[2048] = "", *t;
    size_t len = strlen(name);
    if (!p || clGetProgramInfo(p->program, CL_PROGRAM_KERNEL_NAMES, sizeof names - 1, names, NULL) != CL_SUCCESS)
        return -1;
    for (t = names; (t = strstr(t, name)) != NULL; t += len)
        if ((t == names || t[-1] == ';') && (t[len] == ';' || t[len] == '\0')) return 1;
    return 0;
}

/* ---- NVIDIA's cache entries as cubin (clsort.h >>cubin), without NVIDIA ----
 * The pieces that need no GPU: PTX detection, the JIT options taken from the
 * build options, kernel name lists, which CUDA device is the OpenCL device;
 * the store on a device that is not NVIDIA (or whose binary is not PTX)
 * unchanged; and the conversion itself against build/libfakecuda.so
 * (tests/fake_libcuda.c: libcuda's entry points, with counts and injected
 * failures), its "cubin" checked by this device's driver: a binary this
 * driver made (accepted, the same kernels), garbage (refused), another
 * program's binary (other kernels). Every failure stores the PTX, says why
 * in the cache warning and leaves libcuda's state balanced (contexts pushed
 * = popped, links created = destroyed, the primary context released by
 * clsort_destroy). */

static const char fake_ptx[] = "//\n// Generated by NVIDIA NVVM Compiler\n//\n\n.version 9.0\n.target sm_90\n"
                               ".address_size 64\n.entry clear_words() { ret; }\n";

static void test_cubin_pieces(void)
{
    static const char *const not_ptx[] = {"", "// only a comment\n", ".versionx 9.0\n", "\177ELF\2\1\1",
                                          "int main(void) { return 0; }\n", ".target sm_90\n.version 9.0\n"};
    static const int devs[4][5] = {{0, 1, 0, 9, 0}, {0, 2, 0, 9, 0}, {1, 2, 0, 9, 0}, {0, 3, 0, 8, 6}};
    unsigned level, maxreg;
    char why[200], ptx0[sizeof fake_ptx + 1];
    size_t i;
    int want[5];
    check(clsort__is_ptx((const unsigned char *)fake_ptx, sizeof fake_ptx - 1), "PTX: NVIDIA's binary is PTX");
    memcpy(ptx0, fake_ptx, sizeof fake_ptx);
    check(clsort__is_ptx((const unsigned char *)ptx0, sizeof fake_ptx), "PTX: with its terminator too");
    ptx0[sizeof fake_ptx] = '\0';
    check(clsort__is_ptx((const unsigned char *)ptx0, sizeof fake_ptx + 1),
          "PTX: with two NULs at its end (NVIDIA driver 580's binary)");
    check(clsort__is_ptx((const unsigned char *)"\r\n.version 8.0\n", 15), "PTX: no comment, CRLF");
    ptx0[10] = '\0';
    check(!clsort__is_ptx((const unsigned char *)ptx0, sizeof fake_ptx), "PTX: a NUL inside is not text");
    for (i = 0; i < sizeof not_ptx / sizeof not_ptx[0]; ++i)
        check(!clsort__is_ptx((const unsigned char *)not_ptx[i], strlen(not_ptx[i]) + (i == 3 ? 3 : 0)),
              "PTX: an ELF image, C, comments only, no .version first: not PTX");

    check(clsort__cubin_jit("-cl-std=CL1.2 -DWG=64 -cl-fast-relaxed-math", &level, &maxreg, why, sizeof why) &&
              level == 3 && maxreg == 0,
          "JIT options: clsort's builds: level 3 (the OpenCL default), no register limit");
    check(clsort__cubin_jit("-cl-std=CL1.2 -cl-nv-maxrregcount=64 -cl-nv-opt-level 2 -cl-nv-verbose", &level, &maxreg,
                            why, sizeof why) &&
              level == 2 && maxreg == 64,
          "JIT options: -cl-nv-maxrregcount=N and -cl-nv-opt-level N carried over");
    check(!clsort__cubin_jit("-cl-std=CL1.2 -cl-nv-arch sm_90", &level, &maxreg, why, sizeof why) &&
              strstr(why, "-cl-nv-arch"),
          "JIT options: another -cl-nv-* option: no cubin, named");
    check(!clsort__cubin_jit("-cl-opt-disable", &level, &maxreg, why, sizeof why) &&
              !clsort__cubin_jit("-cl-nv-opt-level=", &level, &maxreg, why, sizeof why) &&
              clsort__cubin_jit("-DX=-cl-nv-foo", &level, &maxreg, why, sizeof why),
          "JIT options: -cl-opt-disable and a value missing refused; a macro's text is not an option");

    check(clsort__same_names("a;b;radix_onesweep", "radix_onesweep;a;b") && !clsort__same_names("a;b", "a;bb") &&
              !clsort__same_names("ab;c", "a;bc") && !clsort__same_names("a;b", "a;c") && clsort__same_names("", ""),
          "kernel names: the same set in any order, and only that");

    /* {domain, bus, device, cc major, minor}; -1 unknown */
    want[0] = 0, want[1] = 2, want[2] = 0, want[3] = 9, want[4] = 0;
    check(clsort__cuda_pick(devs, 4, want) == 1, "CUDA device: the one at the OpenCL device's PCI address");
    want[0] = -1;
    check(clsort__cuda_pick(devs, 4, want) == -2, "CUDA device: bus and device in two domains, domain unknown: none");
    want[0] = 1;
    check(clsort__cuda_pick(devs, 4, want) == 2, "CUDA device: the domain decides");
    want[0] = 0, want[1] = 7;
    check(clsort__cuda_pick(devs, 4, want) == -1, "CUDA device: no CUDA device at that address: none");
    want[1] = 3, want[3] = 9, want[4] = 0;
    check(clsort__cuda_pick(devs, 4, want) == -1, "CUDA device: at the address but of another capability: none");
    want[0] = want[1] = want[2] = -1, want[3] = 8, want[4] = 6;
    check(clsort__cuda_pick(devs, 4, want) == 3, "CUDA device: no PCI address, the one device of its capability");
    want[3] = 9, want[4] = 0;
    check(clsort__cuda_pick(devs, 4, want) == -2, "CUDA device: no PCI address, three of its capability: none");
    want[3] = want[4] = -1;
    check(clsort__cuda_pick(devs, 4, want) == -1 && clsort__cuda_pick(devs, 0, want) == -1,
          "CUDA device: nothing known, or no CUDA device: none");
}

/* A program's binary (this driver's format) into a file; 1 when written. */
static int binary_to_file(cl_program prog, const char *path)
{
    size_t len = 0;
    unsigned char *bin;
    int ok;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL) != CL_SUCCESS || len == 0) return 0;
    bin = (unsigned char *)malloc(len);
    ok = bin && clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS;
    if (ok) write_file(path, bin, len);
    free(bin);
    return ok;
}

typedef int (*fake_count_fn)(const char *);

/* A context that takes this device for NVIDIA of compute capability 9.0 (the
 * quirk table's cache_cubin forced on), its gather program built. */
static clsort_context *nv_ctx(const char *dir, clsort__program **p)
{
    clsort_context *cs = make_ctx(dir);
    *p = NULL;
    if (!cs) return NULL;
    cs->dev.cache_cubin = 1;
    cs->dev.nv_cc_major = 9;
    cs->dev.nv_cc_minor = 0;
    *p = gather_program(cs, 0);
    if (!*p) {
        clsort_destroy(cs);
        return NULL;
    }
    return cs;
}

/* PTX text with an entry for each kernel of p's program, as NVIDIA's
 * binary would hold them (clsort puts a .maxnreg into each before the
 * link): in ptx, its length returned. */
static char nv_ptx[4096];
static size_t make_nv_ptx(clsort__program *p)
{
    size_t used = (size_t)snprintf(nv_ptx, sizeof nv_ptx, "//\n// fake NVVM\n//\n\n.version 9.0\n.target sm_90\n");
    int k;
    for (k = CLSORT__MAX_KERNELS - 1; k >= 0; --k) /* (not in the program's order) */
        if (p->kernel_names[k][0])
            used += (size_t)snprintf(nv_ptx + used, sizeof nv_ptx - used,
                                     "\n.entry %s(\n\t.param .u64 .ptr .global .align 4 %s_param_0\n)\n{\n\tret;\n}\n",
                                     p->kernel_names[k], p->kernel_names[k]);
    return used;
}

static int program_kernel_count(clsort__program *p)
{
    int k, n = 0;
    for (k = 0; k < CLSORT__MAX_KERNELS; ++k) n += p->kernel_names[k][0] != '\0';
    return n;
}

/* clsort__cache_cubin on the fake PTX for the gather program of cs. */
static unsigned char *convert(clsort_context *cs, clsort__program *p, size_t *len)
{
    char opts[480];
    size_t n = make_nv_ptx(p);
    clsort__program_opts(p, opts, sizeof opts);
    cs->cache.warning[0] = '\0';
    return clsort__cache_cubin(cs, p->program, opts, (const unsigned char *)nv_ptx, n, len);
}

/* clsort__ptx_maxnreg: a directive per named entry, before its body. */
static void test_ptx_maxnreg(clsort_context *cs)
{
    static const char text[] = ".version 9.0\n.entry b(\n.param .u32 x\n)\n{\nret;\n}\n"
                               ".entry a_long(.param .u32 y)\n{\nret;\n}\n.entry a()\n{\nret;\n}\n";
    static const char want[] = ".version 9.0\n.entry b(\n.param .u32 x\n)\n.maxnreg 72\n{\nret;\n}\n"
                               ".entry a_long(.param .u32 y)\n{\nret;\n}\n.entry a()\n.maxnreg 64\n{\nret;\n}\n";
    const int regs[2] = {64, 72};
    char *out = clsort__ptx_maxnreg(cs, text, "a;b", regs), names[] = "__cuda_sm20_rem_s64;bin_count;__cuda_x;k";
    size_t n = 4;
    check(out && strcmp(out, want) == 0, "cubin: .maxnreg into each named entry (a whole name, in text order)");
    free(out);
    check(!clsort__ptx_maxnreg(cs, text, "a;c", regs) && strstr(cs->cuda.why, "no entry \"c\""),
          "cubin: a kernel without an entry in the PTX: refused, named");
    out = clsort__ptx_maxnreg(cs, want, "a", regs);
    check(!out && strstr(cs->cuda.why, "own .maxnreg"), "cubin: an entry with its own .maxnreg: refused");
    free(out);
    clsort__drop_cuda_helpers(names, &n);
    check(strcmp(names, "bin_count;k") == 0 && n == 2,
          "cubin: ptxas's __cuda_* routines are not counted as the program's kernels");
    cs->cuda.why[0] = '\0';
}

static void test_cubin(void)
{
    static const char *const calls[] = {"cuInit", "cuDeviceGetCount", "cuDeviceGet", "cuDeviceGetAttribute",
                                        "cuDevicePrimaryCtxRetain", "cuCtxPushCurrent_v2", "cuLinkCreate_v2",
                                        "cuModuleLoadDataEx", "cuModuleGetFunction", "cuFuncGetAttribute",
                                        "cuModuleUnload", "cuLinkAddData_v2", "cuLinkComplete", "cuLinkDestroy",
                                        "cuCtxPopCurrent_v2"};
    char dir[600], fake[700], good[700], garbage[700], other[700], msg[800], entry[800];
    clsort_context *cs;
    clsort__program *p;
    unsigned char *cubin, *want;
    size_t len = 0, want_len = 0, i;
    void *lib;
    fake_count_fn count = NULL;
    const char *slash = strrchr(self, '/');
    test_cubin_pieces();
    path_of(dir, sizeof dir, "cubin");
    mkdir(dir, 0700);

    /* not NVIDIA: the store as before, libcuda never opened */
    if ((cs = make_ctx(dir)) != NULL) {
        check(gather_ok(cs) && stats(cs).stores == 1 && stats(cs).cubins == 0 && stats(cs).warning[0] == '\0' &&
                  cs->cuda.state == 0 && !cs->dev.cache_cubin,
              "cubin: not NVIDIA: the binary stored as it is, libcuda not opened");
        clsort_destroy(cs);
    }
    rmtree(dir);
    if ((cs = nv_ctx(dir, &p)) != NULL) { /* "NVIDIA", but its binary is not PTX */
        check(stats(cs).stores == 1 && stats(cs).cubins == 0 && stats(cs).warning[0] == '\0' && cs->cuda.state == 0,
              "cubin: a binary that is not PTX is stored as it is, libcuda not opened");
        clsort_destroy(cs);
    }
    expect_gather(dir, 0, 1, 0, "cubin: that entry loads");

    /* libcuda missing */
    setenv("CLSORT_CUDA_LIBRARY", "/nonexistent/libcuda.so.1", 1);
    if ((cs = nv_ctx(NULL, &p)) != NULL) {
        cubin = convert(cs, p, &len);
        snprintf(msg, sizeof msg, "cubin: libcuda missing: the PTX stored, why in the warning [%s]", cs->cache.warning);
        check(!cubin && strstr(cs->cache.warning, "PTX stored, no cubin") &&
                  strstr(cs->cache.warning, "/nonexistent/libcuda.so.1") && cs->cuda.state == -1,
              msg);
        cubin = convert(cs, p, &len);
        check(!cubin && cs->cuda.state == -1 && !cs->cuda.lib && strstr(cs->cache.warning, "/nonexistent"),
              "cubin: libcuda missing: not tried again, the same warning");
        clsort_destroy(cs);
    }
    setenv("CLSORT_CUBIN", "0", 1);
    if ((cs = nv_ctx(NULL, &p)) != NULL) {
        cubin = convert(cs, p, &len);
        check(!cubin && cs->testing.cache_ptx == 1 && cs->cuda.state == 0 && cs->cache.warning[0] == '\0',
              "cubin: CLSORT_CUBIN=0: the PTX stored, libcuda not opened, no warning");
        clsort_destroy(cs);
    }
    setenv("CLSORT_CUBIN", "2", 1);
    cs = NULL;
    check(clsort_create(&cs, NULL) == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "CLSORT_CUBIN"),
          "cubin: CLSORT_CUBIN=2 refused at create, naming the variable");
    clsort_destroy(cs);
    unsetenv("CLSORT_CUBIN");

    /* the fake libcuda next to this program (make builds it) */
    snprintf(fake, sizeof fake, "%.*s/libfakecuda.so", slash ? (int)(slash - self) : 1, slash ? self : ".");
    lib = dlopen(fake, RTLD_NOW | RTLD_LOCAL); /* held: its counts outlive each context's dlclose */
    if (!lib || !clsort__dl_sym(lib, "fake_cuda_count", &count, sizeof count)) {
        check(0, "cubin: build/libfakecuda.so (make build/libfakecuda.so)");
        unsetenv("CLSORT_CUDA_LIBRARY");
        return;
    }
    setenv("CLSORT_CUDA_LIBRARY", fake, 1);
    path_of(good, sizeof good, "cubin_good.bin");
    path_of(garbage, sizeof garbage, "cubin_garbage.bin");
    path_of(other, sizeof other, "cubin_other.bin");
    write_file(garbage, "\177ELF not a program of this driver", 34);
    if ((cs = nv_ctx(NULL, &p)) != NULL) { /* this driver's binaries: the gather program's, and another program's */
        const char *src = "kernel void other(global int *p) { p[0] = 1; }";
        cl_int e;
        cl_program q = clCreateProgramWithSource(clsort_cl_context(cs), 1, &src, NULL, &e);
        cl_device_id dev = clsort_cl_device(cs);
        check(binary_to_file(p->program, good) && e == CL_SUCCESS &&
                  clBuildProgram(q, 1, &dev, "-cl-std=CL1.2", NULL, NULL) == CL_SUCCESS && binary_to_file(q, other),
              "cubin: this driver's binaries of two programs");
        if (q) clReleaseProgram(q);
        clsort_destroy(cs);
    }
    want = read_file(good, &want_len);

    unsetenv("FAKE_CUDA_DEVICES");
    setenv("FAKE_CUDA_CUBIN", good, 1);
    if ((cs = nv_ctx(NULL, &p)) != NULL) {
        cubin = convert(cs, p, &len);
        snprintf(msg, sizeof msg, "cubin: libcuda's image, built by the driver into the same kernels, is kept [%s]",
                 cs->cache.warning);
        check(cubin && want && len == want_len && memcmp(cubin, want, len) == 0 && cs->cache.warning[0] == '\0' &&
                  cs->cuda.state == 1,
              msg);
        check(count("init") == 1 && count("retain") == 1 && count("push") == 1 && count("pop") == 1 &&
                  count("create") == 1 && count("destroy") == 1 && count("depth") == 0,
              "cubin: cuInit, the primary context retained, pushed and popped, one link created and destroyed");
        check(count("input") == 1 && count("terminated") == 1 && count("level") == 3 && count("maxreg") == -1,
              "cubin: PTX input with its terminator, optimization level 3, no register limit");
        check(count("load") == 1 && count("unload") == 1 && count("regs_level") == 3 &&
                  count("maxnreg") == program_kernel_count(p) && count("maxnreg_value") == 40,
              "cubin: the whole-program JIT's register count (level 3) as .maxnreg of every entry, module unloaded");
        test_ptx_maxnreg(cs);
        free(cubin);
        cubin = convert(cs, p, &len);
        check(cubin && count("init") == 1 && count("retain") == 1 && count("create") == 2 && count("destroy") == 2,
              "cubin: a second program: libcuda loaded once per context");
        free(cubin);
        clsort_destroy(cs);
        check(count("release") == 1, "cubin: clsort_destroy releases the primary context");
    }
    if ((cs = nv_ctx(dir, &p)) != NULL) { /* all the way: the store of the PTX writes the cubin's entry */
        size_t n = make_nv_ptx(p);
        unsigned char key[32], *e = (unsigned char *)malloc(CLSORT__CACHE_HEADER + n), *got;
        char opts[480];
        size_t got_len = 0;
        unsigned long stores = stats(cs).stores;
        rmtree(dir); /* (the build stored this driver's binary) */
        gather_key_bytes(cs, key);
        clsort__program_opts(p, opts, sizeof opts);
        if (e) memcpy(e + CLSORT__CACHE_HEADER, nv_ptx, n);
        if (e) clsort__cache_put(cs, p->program, key, opts, e, n, 1);
        got = count_files(dir, ".bin", entry, sizeof entry) == 1 ? read_file(entry, &got_len) : NULL;
        check(e && stats(cs).stores == stores + 1 && stats(cs).cubins == 1 && got && want &&
                  got_len == CLSORT__CACHE_HEADER + want_len && memcmp(got + CLSORT__CACHE_HEADER, want, want_len) == 0,
              "cubin: the store of a PTX binary writes the cubin's entry (clsort_cache_stats.cubins 1)");
        free(got);
        clsort_destroy(cs);
        expect_gather(dir, 0, 1, 0, "cubin: a later process loads that entry");
    }
    { /* the same through the store callback (desc.cache_store) */
        mem_store m;
        memset(&m, 0, sizeof m);
        if ((cs = make_cb_ctx(&m)) != NULL) {
            unsigned char key[32], *e = (unsigned char *)malloc(CLSORT__CACHE_HEADER + sizeof nv_ptx);
            char opts[480];
            int k;
            cs->dev.cache_cubin = 1, cs->dev.nv_cc_major = 9, cs->dev.nv_cc_minor = 0;
            p = gather_program(cs, 0);
            if (p && e) {
                size_t n = make_nv_ptx(p);
                gather_key_bytes(cs, key);
                clsort__program_opts(p, opts, sizeof opts);
                memcpy(e + CLSORT__CACHE_HEADER, nv_ptx, n);
                clsort__cache_put(cs, p->program, key, opts, e, n, 1);
            } else {
                free(e);
            }
            check(p && m.count == 2 && stats(cs).cubins == 1 && want &&
                      m.size[1] == CLSORT__CACHE_HEADER + want_len &&
                      memcmp(m.blob[1] + CLSORT__CACHE_HEADER, want, want_len) == 0,
                  "cubin: the store callback gets the cubin's entry");
            clsort_destroy(cs);
            for (k = 0; k < m.count; ++k) free(m.blob[k]);
        }
    }
    setenv("FAKE_CUDA_CUBIN", garbage, 1);
    if ((cs = nv_ctx(NULL, &p)) != NULL) {
        cubin = convert(cs, p, &len);
        snprintf(msg, sizeof msg, "cubin: an image the driver refuses: the PTX stored [%s]", cs->cache.warning);
        check(!cubin && strstr(cs->cache.warning, "PTX stored, no cubin: the driver refused the cubin"), msg);
        clsort_destroy(cs);
    }
    setenv("FAKE_CUDA_CUBIN", other, 1);
    if ((cs = nv_ctx(NULL, &p)) != NULL) {
        cubin = convert(cs, p, &len);
        snprintf(msg, sizeof msg, "cubin: an image with other kernels: the PTX stored [%s]", cs->cache.warning);
        check(!cubin && strstr(cs->cache.warning, "holds 1 kernels (other)"), msg);
        clsort_destroy(cs);
    }
    setenv("FAKE_CUDA_CUBIN", good, 1);
    setenv("FAKE_CUDA_DEVICES", "0:1:0:8:6,0:2:0:9:0,0:3:0:9:0", 1);
    if ((cs = nv_ctx(NULL, &p)) != NULL) {
        cubin = convert(cs, p, &len);
        snprintf(msg, sizeof msg, "cubin: no PCI address and two CUDA devices of its capability: PTX [%s]",
                 cs->cache.warning);
        check(!cubin && strstr(cs->cache.warning, "more than one CUDA device of compute capability 9.0"), msg);
        clsort_destroy(cs);
    }
    setenv("FAKE_CUDA_DEVICES", "0:1:0:8:6,0:2:0:9:0", 1);
    if ((cs = nv_ctx(NULL, &p)) != NULL) {
        cubin = convert(cs, p, &len);
        check(cubin != NULL, "cubin: no PCI address, one CUDA device of its capability (of two): that one");
        free(cubin);
        clsort_destroy(cs);
    }
    unsetenv("FAKE_CUDA_DEVICES");
    for (i = 0; i < sizeof calls / sizeof calls[0]; ++i) {
        int retain, release, push, pop, create, destroy;
        char name[64];
        setenv("FAKE_CUDA_FAIL", calls[i], 1);
        if ((cs = nv_ctx(NULL, &p)) == NULL) continue;
        retain = count("retain"), release = count("release"), push = count("push"), pop = count("pop");
        create = count("create"), destroy = count("destroy");
        cubin = convert(cs, p, &len);
        snprintf(name, sizeof name, "%s", calls[i]);
        if (strstr(name, "_v2")) *strstr(name, "_v2") = '\0'; /* messages name the call, not the symbol */
        snprintf(msg, sizeof msg, "cubin: %s fails: the PTX stored, the call named [%s]", calls[i], cs->cache.warning);
        check(!cubin && strstr(cs->cache.warning, "PTX stored, no cubin") && strstr(cs->cache.warning, name) &&
                  strstr(cs->cache.warning, "CUDA_ERROR_UNKNOWN (999)"),
              msg);
        if (strcmp(calls[i], "cuLinkAddData_v2") == 0) {
            check(strstr(cs->cache.warning, "JIT log: fake JIT: line 1 line 2") != NULL,
                  "cubin: the JIT's error log in the warning, on one line");
        }
        clsort_destroy(cs);
        snprintf(msg, sizeof msg, "cubin: %s fails: pushed = popped, links created = destroyed, retained = released",
                 calls[i]);
        check(count("push") - push == count("pop") - pop && count("create") - create == count("destroy") - destroy &&
                  count("retain") - retain == count("release") - release,
              msg);
    }
    unsetenv("FAKE_CUDA_FAIL");
    unsetenv("FAKE_CUDA_CUBIN");
    unsetenv("CLSORT_CUDA_LIBRARY");
    free(want);
    dlclose(lib);
}

/* A program holds the kernels its calls launch and no others (NVIDIA's
 * driver compiles every kernel of a program at each build): one kind of
 * radix pass, the bitonic global kernels up to the steps per pass, the
 * packed bitonic kernel for variable segments only, a program per call of
 * the split family (enumerate the scan kernels, pack its path's, split the
 * tile counts, split and zeros count); a one-sweep sort takes no scan
 * program. */
static void test_kernel_sets(void)
{
    clsort_context *cs = make_ctx(NULL);
    clsort__program *p = NULL;
    clsort__sort_plan sp;
    clsort__bitonic_plan bp;
    clsort_sort_desc sd;
    clsort_bitonic_desc bd;
    unsigned steps;
    if (!cs) return;
    memset(&sd, 0, sizeof sd);
    memset(&bd, 0, sizeof bd);
    cs->tuning.onesweep = CLSORT_ONESWEEP_OFF;
    check(clsort__plan_sort(cs, "t", 100000, &sd, &sp) == CLSORT_SUCCESS && !sp.onesweep &&
              clsort__radix_program(cs, &sp, &p) == CLSORT_SUCCESS && holds(p, "radix_count") == 1 &&
              holds(p, "radix_onesweep") == 0 && holds(p, "radix_histogram") == 0,
          "classic radix program: radix_count, no one-sweep kernels");
    cs->tuning.onesweep = CLSORT_ONESWEEP_DEFAULT;
    cs->path = CLSORT_PATH_LOOKBACK; /* the one-sweep plan: look-back path (CPUs and NVIDIA) */
    if (clsort__plan_sort(cs, "t", 100000, &sd, &sp) == CLSORT_SUCCESS && sp.onesweep) {
        int before = cs->num_programs;
        check(clsort__radix_program(cs, &sp, &p) == CLSORT_SUCCESS && holds(p, "radix_onesweep") == 1 &&
                  holds(p, "radix_count") == 0 && holds(p, "radix_reorder") == 0 && holds(p, "radix_scatter") == 0 &&
                  holds(p, "radix_histogram") == 0,
              "one-sweep radix program: no classic kernels, no histogram");
        check(clsort__radix_hist_program(cs, &sp, &p) == CLSORT_SUCCESS && holds(p, "radix_histogram") == 1 &&
                  holds(p, "radix_onesweep") == 0 && holds(p, "radix_count") == 0,
              "one-sweep histogram program: radix_histogram alone");
        check(clsort__sort_prepare(cs, &sd, 100000) == CLSORT_SUCCESS && cs->num_programs == before + 2,
              "a one-sweep sort takes its radix and histogram programs only (no scan program)");
        { /* pairs and another digit width: a radix program of their own, the same histogram program */
            clsort_sort_desc pd = sd;
            clsort__sort_plan pp;
            int mid = cs->num_programs;
            pd.end_bit = 10;
            pd.permutation = (cl_mem)1; /* planned only, never run */
            check(clsort__plan_sort(cs, "t", 100000, &pd, &pp) == CLSORT_SUCCESS && pp.onesweep &&
                      clsort__sort_prepare(cs, &pd, 100000) == CLSORT_SUCCESS && cs->num_programs == mid + 1,
                  "a 10-bit sort with the permutation shares the u32 histogram program");
        }
    } else {
        check(!cs->dev.cpu, "the one-sweep plan on a CPU device's look-back path");
    }
    { /* the look-back path on every device (32-bit status words) */
        clsort_split_desc spd;
        clsort__split_plan a;
        memset(&spd, 0, sizeof spd);
        int planned = clsort__plan_split(cs, "t", NULL, NULL, 0, &spd, 0, &a) == CLSORT_SUCCESS;
        check(planned && clsort__split_program(cs, &a, &p) == CLSORT_SUCCESS && holds(p, "scan_lookback") == 1 &&
                  holds(p, "reduce_tiles") == 1 && holds(p, "scan_tiles") == 1 && holds(p, "pack_lookback") == 0 &&
                  holds(p, "split_tiles") == 0 && holds(p, "count_zeros") == 0,
              "look-back enumerate program: the scan kernels alone");
        a.call = CLSORT__SPLIT_CALL_PACK;
        check(planned && clsort__split_program(cs, &a, &p) == CLSORT_SUCCESS && holds(p, "pack_lookback") == 1 &&
                  holds(p, "pack_tiles") == 0 && holds(p, "reduce_tiles") == 0 && holds(p, "scan_lookback") == 0 &&
                  holds(p, "split_tiles") == 0,
              "look-back pack program: pack_lookback alone");
        check(planned && clsort__split_program_for(cs, &a, 0, &p) == CLSORT_SUCCESS && holds(p, "pack_tiles") == 1 &&
                  holds(p, "reduce_tiles") == 1 && holds(p, "pack_lookback") == 0 && holds(p, "scan_tiles") == 0,
              "portable pack program: reduce_tiles and pack_tiles");
        a.call = CLSORT__SPLIT_CALL_SPLIT;
        check(planned && clsort__split_program(cs, &a, &p) == CLSORT_SUCCESS && holds(p, "split_tiles") == 1 &&
                  holds(p, "reduce_tiles") == 1 && holds(p, "count_zeros") == 1 && holds(p, "scan_tiles") == 0 &&
                  holds(p, "scan_lookback") == 0 && holds(p, "pack_lookback") == 0,
              "split program: reduce_tiles, split_tiles, count_zeros");
    }
    cs->path = CLSORT_PATH_PORTABLE;
    for (steps = 1; steps <= 6; ++steps) {
        char msg[160], name[32];
        unsigned m = 0, k;
        int ok;
        cs->tuning.bitonic_steps = steps;
        ok = clsort__plan_bitonic(cs, "t", 1 << 20, &bd, &bp) == CLSORT_SUCCESS &&
             clsort__bitonic_program(cs, &bp, &p) == CLSORT_SUCCESS && holds(p, "bitonic_local") == 1 &&
             holds(p, "bitonic_packed") == 0;
        if (ok) m = clsort__bitonic_max_steps(cs, &bp);
        for (k = 1; ok && k <= 6; ++k) {
            snprintf(name, sizeof name, "bitonic_global%u", k);
            ok = holds(p, name) == (k <= m);
        }
        snprintf(msg, sizeof msg, "bitonic program, tuning %u steps per pass: global1..%u only, no packed kernel",
                 steps, m);
        check(ok && m >= 1 && m <= steps, msg);
    }
    { /* N-body: the tiled step or the pair kernels; a tree program none of them */
        clsort_nbody_desc nd;
        memset(&nd, 0, sizeof nd);
        nd.softening2 = 0.01;
        check(clsort__nbody_prepare(cs, &nd, 4096) == CLSORT_SUCCESS &&
                  holds(&cs->programs[cs->num_programs - 1], "nbody_step") == 1 &&
                  holds(&cs->programs[cs->num_programs - 1], "nbody_pairs") == 0,
              "N-body program (tiled): nbody_step, no pair kernels");
        nd.method = CLSORT_NBODY_ATOMIC;
        check(clsort__nbody_prepare(cs, &nd, 4096) == CLSORT_SUCCESS &&
                  holds(&cs->programs[cs->num_programs - 1], "nbody_pairs") == 1 &&
                  holds(&cs->programs[cs->num_programs - 1], "nbody_apply") == 1 &&
                  holds(&cs->programs[cs->num_programs - 1], "nbody_step") == 0,
              "N-body program (atomic pairs): nbody_pairs and nbody_apply, no nbody_step");
        check(clsort__tree_program(cs, 3, 4, 10, &p) == CLSORT_SUCCESS && holds(p, "tree_build") == 1 &&
                  holds(p, "nbody_step") == 0 && holds(p, "nbody_pairs") == 0,
              "tree program: no N-body kernels");
    }
    cs->tuning.bitonic_steps = 0;
    bd.segment_offsets_host = (const uint32_t *)&bd; /* variable segments (only the plan looks at it) */
    bd.segment_count = 1;
    check(clsort__plan_bitonic(cs, "t", 16, &bd, &bp) == CLSORT_SUCCESS && bp.variable &&
              clsort__bitonic_program(cs, &bp, &p) == CLSORT_SUCCESS && holds(p, "bitonic_packed") == 1 &&
              holds(p, "bitonic_local") == 1,
          "bitonic program for variable segments: bitonic_packed");
    clsort_destroy(cs);
}

static void test_location(void)
{
    clsort_context *cs;
    clsort_context_desc d;
    char dir[600];
    memset(&d, 0, sizeof d);
    path_of(dir, sizeof dir, "from_env");
    setenv("CLSORT_CACHE_DIR", "off", 1);
    cs = NULL;
    check(clsort_create(&cs, &d) == CLSORT_SUCCESS && !stats(cs).enabled, "CLSORT_CACHE_DIR=off: off");
    clsort_destroy(cs);
    setenv("CLSORT_CACHE_DIR", dir, 1);
    cs = NULL;
    check(clsort_create(&cs, &d) == CLSORT_SUCCESS && stats(cs).enabled && strcmp(stats(cs).dir, dir) == 0,
          "CLSORT_CACHE_DIR=dir: that directory");
    clsort_destroy(cs);
    d.cache_dir = "/tmp/clsort-desc-dir";
    cs = NULL;
    check(clsort_create(&cs, &d) == CLSORT_SUCCESS && strcmp(stats(cs).dir, "/tmp/clsort-desc-dir") == 0,
          "desc.cache_dir before CLSORT_CACHE_DIR");
    clsort_destroy(cs);
    d.cache_off = 1;
    cs = NULL;
    check(clsort_create(&cs, &d) == CLSORT_SUCCESS && !stats(cs).enabled, "desc.cache_off: off");
    clsort_destroy(cs);
    d.cache_off = 0;
    d.cache_dir = NULL;
    unsetenv("CLSORT_CACHE_DIR");
    setenv("XDG_CACHE_HOME", "/tmp/clsort-xdg", 1);
    cs = NULL;
    check(clsort_create(&cs, &d) == CLSORT_SUCCESS && strcmp(stats(cs).dir, "/tmp/clsort-xdg/clsort") == 0,
          "default: $XDG_CACHE_HOME/clsort");
    clsort_destroy(cs);
    setenv("XDG_CACHE_HOME", "relative/dir", 1);
    setenv("HOME", "/tmp/clsort-home", 1);
    cs = NULL;
    check(clsort_create(&cs, &d) == CLSORT_SUCCESS && strcmp(stats(cs).dir, "/tmp/clsort-home/.cache/clsort") == 0,
          "default: a relative XDG_CACHE_HOME is ignored, ~/.cache/clsort");
    clsort_destroy(cs);
    unsetenv("XDG_CACHE_HOME");
    setenv("HOME", "relative", 1);
    cs = NULL;
    check(clsort_create(&cs, &d) == CLSORT_SUCCESS && !stats(cs).enabled && stats(cs).warning[0],
          "default: never relative to the current directory (off, with a warning)");
    clsort_destroy(cs);
    unsetenv("HOME");
    cs = NULL;
    check(clsort_create(&cs, &d) == CLSORT_SUCCESS && !stats(cs).enabled, "no HOME: off");
    clsort_destroy(cs);
    setenv("CLSORT_CACHE_DIR", "off", 1); /* nothing below falls back to a home directory */
}

/* Every family of the registry has a call in the work set; clsort_prepare
 * builds what each call needs (the calls then build nothing), and in the warm
 * pass takes it all from the cache; the cached programs give the same bytes
 * as those built from source. */
static void test_workset(void)
{
    enum { N = 4096 };
    char dir[600], msg[200];
    unsigned char *out[2][WS_COUNT];
    size_t bytes[2][WS_COUNT];
    int pass, w;
    {
        clsort_family f = ws_family_without_call();
        snprintf(msg, sizeof msg, "the work set has a call of every family (none of %s)",
                 f < CLSORT_FAMILY_COUNT ? clsort_family_name(f) : "-");
        check(f == CLSORT_FAMILY_COUNT, msg);
    }
    path_of(dir, sizeof dir, "workset");
    for (pass = 0; pass < 2; ++pass) {
        clsort_context *cs = make_ctx(dir);
        unsigned long built;
        clsort_cache_stats st;
        for (w = 0; w < WS_COUNT; ++w) out[pass][w] = (unsigned char *)calloc(1, ws_out_bytes(N));
        if (!cs) return;
        check(ws_prepare(cs, N) == CLSORT_SUCCESS, "clsort_prepare of the work set");
        st = stats(cs);
        built = st.builds + st.hits;
        printf("  %s: clsort_prepare: %lu programs, %lu built from source, %lu from the cache\n",
               pass ? "warm" : "cold", built, st.builds, st.hits);
        check(pass == 0 ? st.builds > 5 && st.hits == 0 : st.builds == 0 && st.hits == built,
              pass == 0 ? "cold: prepare builds from source" : "warm: prepare builds nothing");
        for (w = 0; w < WS_COUNT; ++w) {
            clsort_result r = ws_run(cs, w, N, out[pass][w], &bytes[pass][w]);
            snprintf(msg, sizeof msg, "%s %s: %.150s", pass ? "warm" : "cold", ws_names[w],
                     r == CLSORT_SUCCESS ? "right" : clsort_last_error(cs));
            check(r == CLSORT_SUCCESS && ws_check(w, N, out[pass][w], bytes[pass][w]), msg);
            st = stats(cs);
            snprintf(msg, sizeof msg, "%s %s: nothing built after clsort_prepare", pass ? "warm" : "cold", ws_names[w]);
            check(st.builds + st.hits == built, msg);
            built = st.builds + st.hits;
        }
        clsort_destroy(cs);
    }
    for (w = 0; w < WS_COUNT; ++w) {
        snprintf(msg, sizeof msg, "%s: the same bytes from source-built and cached programs", ws_names[w]);
        check(bytes[0][w] == bytes[1][w] && memcmp(out[0][w], out[1][w], bytes[0][w]) == 0, msg);
        free(out[0][w]);
        free(out[1][w]);
    }
}

/* ---- the size bound of the directory ---- */

/* A context on dir whose bound is max (desc.cache_max_bytes); stores on
 * leaving or on flush. */
static clsort_context *make_ctx_bound(const char *dir, size_t max)
{
    return make_ctx_bound_when(dir, CLSORT_CACHE_WHEN_LEAVE, max);
}

static void set_mtime(const char *path, time_t when)
{
    struct utimbuf u;
    u.actime = u.modtime = when;
    if (utime(path, &u) != 0) printf("(could not set the time of %s)\n", path);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The key whose 32 bytes are all tag, its entry's path in dir. */
static void tag_key(int tag, unsigned char key[32]) { memset(key, tag, 32); }
static void tag_path(const char *dir, int tag, char *path, size_t size)
{
    unsigned char key[32];
    char hex[65];
    tag_key(tag, key);
    clsort__hex(key, hex);
    snprintf(path, size, "%s/%s.bin", dir, hex);
}

/* An entry file of size bytes for key tag, last used at `when`, put there
 * by another process (not through cs). */
static void fake_entry(const char *dir, int tag, size_t size, time_t when)
{
    char path[800];
    unsigned char *data = (unsigned char *)calloc(1, size);
    tag_path(dir, tag, path, sizeof path);
    if (data) write_file(path, data, size);
    free(data);
    set_mtime(path, when);
}

/* A store through cs (the library's own write, then its trim) of an entry
 * of size bytes for key tag. */
static void store_entry(clsort_context *cs, int tag, size_t size)
{
    unsigned char key[32], *data = (unsigned char *)calloc(1, size);
    tag_key(tag, key);
    if (data) clsort__cache_write(cs, key, data, size);
    free(data);
}

/* The bytes of the entries in dir (names of 64 hex digits and ".bin"). */
static unsigned long entry_bytes(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    unsigned long total = 0;
    *count = 0;
    if (!d) return 0;
    while ((e = readdir(d)) != NULL) {
        char path[800];
        struct stat st;
        if (!clsort__cache_entry_name(e->d_name)) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) total += (unsigned long)st.st_size, ++*count;
    }
    closedir(d);
    return total;
}

/* Least recently used out first, the bound kept, files that are not entries
 * neither counted nor touched, a bound below one entry keeping the newest. */
static void test_bound_lru(void)
{
    enum { E = 3000, BOUND = 10000 };
    char dir[600], path[800], foreign[6][800];
    clsort_context *cs;
    int tag, count, i, ok;
    unsigned long before;
    path_of(dir, sizeof dir, "bound");
    mkdir(dir, 0700);
    fake_entry(dir, 0xa1, E, 1000);
    fake_entry(dir, 0xa2, E, 2000);
    fake_entry(dir, 0xa3, E, 3000);
    cs = make_ctx_bound(dir, BOUND);
    if (!cs) return;
    check(stats(cs).max_bytes == BOUND, "bound: desc.cache_max_bytes in the stats");
    store_entry(cs, 0xa4, E); /* 12000 bytes: the oldest goes */
    tag_path(dir, 0xa1, path, sizeof path);
    check(!exists(path), "bound: the least recently used entry removed");
    for (ok = 1, tag = 0xa2; tag <= 0xa4; ++tag) tag_path(dir, tag, path, sizeof path), ok = ok && exists(path);
    check(ok, "bound: the others kept");
    check(entry_bytes(dir, &count) <= BOUND && count == 3 && stats(cs).evicted == 1, "bound: 3 entries, within it");
    /* files that are not entries: never counted, never removed, however old and large */
    {
        /* an upper-case key, 63 digits, a key with a suffix, a ".tmp" not named as a store names its
         * temporaries (test_bound_temps has those) */
        static const char *const names[5] = {
            "notes.txt", "ABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABABAB.bin",
            "abababababababababababababababababababababababababababababababa.bin",
            "abababababababababababababababababababababababababababababababab.bin.old",
            "abababababababababababababababababababababababababababababababab.1.x.3.tmp"};
        for (i = 0; i < 5; ++i) snprintf(foreign[i], sizeof foreign[i], "%s/%s", dir, names[i]);
    }
    tag_path(dir, 0xcd, foreign[5], sizeof foreign[5]); /* a directory in an entry's name */
    for (i = 0; i < 5; ++i) {
        unsigned char big[50000];
        memset(big, 7, sizeof big);
        write_file(foreign[i], big, sizeof big);
        set_mtime(foreign[i], 10);
    }
    mkdir(foreign[5], 0700);
    set_mtime(foreign[5], 10);
    before = stats(cs).evicted;
    store_entry(cs, 0xa5, E); /* one entry out (0xa2), not everything: the foreign bytes do not count */
    tag_path(dir, 0xa2, path, sizeof path);
    check(!exists(path) && stats(cs).evicted == before + 1, "bound: the next store removes exactly the next oldest");
    for (ok = 1, i = 0; i < 6; ++i) ok = ok && exists(foreign[i]);
    check(ok, "bound: files that are not entries untouched");
    check(entry_bytes(dir, &count) <= BOUND && count == 3, "bound: kept after a second store");
    clsort_destroy(cs);
    /* a bound below one entry: each store keeps only itself */
    cs = make_ctx_bound(dir, 100);
    if (!cs) return;
    store_entry(cs, 0xa6, E);
    tag_path(dir, 0xa6, path, sizeof path);
    entry_bytes(dir, &count);
    check(count == 1 && exists(path), "bound below one entry: the entry just stored stays, alone");
    for (ok = 1, i = 0; i < 6; ++i) ok = ok && exists(foreign[i]);
    check(ok, "bound below one entry: files that are not entries untouched");
    clsort_destroy(cs);
    /* unbounded: nothing removed */
    cs = make_ctx_bound(dir, CLSORT_CACHE_UNBOUNDED);
    if (!cs) return;
    fake_entry(dir, 0xa7, 200000, 1);
    store_entry(cs, 0xa8, E);
    entry_bytes(dir, &count);
    check(count == 3 && stats(cs).evicted == 0 && stats(cs).max_bytes == 0, "CLSORT_CACHE_UNBOUNDED: nothing removed");
    clsort_destroy(cs);
}

/* A store's temporary file (the name clsort__cache_write gives one) of
 * size bytes, last written at `when`, as a store killed mid-write leaves it. */
static void fake_temp(const char *dir, int tag, long pid, size_t size, time_t when, char *path, size_t path_size)
{
    unsigned char key[32], *data = (unsigned char *)calloc(1, size);
    char hex[65];
    tag_key(tag, key);
    clsort__hex(key, hex);
    snprintf(path, path_size, "%s/%s.%ld.%lx.%lu.tmp", dir, hex, pid, 0x5eedUL, 7UL);
    if (data) write_file(path, data, size);
    free(data);
    set_mtime(path, when);
}

/* Temporaries left by stores killed mid-write: removed when a context opens
 * the directory once they are stale (CLSORT__CACHE_TEMP_STALE), with or
 * without a bound; a fresh one (a store in flight) kept and counted toward
 * the bound; ".tmp" files of other names untouched. */
static void test_bound_temps(void)
{
    enum { E = 3000, T = 3000, BOUND = 10000 };
    char dir[600], stale[800], stale2[800], fresh[800], other[800], path[800];
    clsort_context *cs;
    time_t now = time(NULL);
    int count;
    path_of(dir, sizeof dir, "bound_temps");
    rmtree(dir);
    mkdir(dir, 0700);
    fake_temp(dir, 0xc1, 999999, 50000, now - CLSORT__CACHE_TEMP_STALE - 60, stale, sizeof stale);
    fake_temp(dir, 0xc2, (long)getpid(), T, now, fresh, sizeof fresh);
    snprintf(other, sizeof other, "%s/notes.1.2.3.tmp", dir);
    write_file(other, (const unsigned char *)"x", 1);
    set_mtime(other, 10);
    /* unbounded: the stale temporary goes at create, nothing else */
    cs = make_ctx_bound(dir, CLSORT_CACHE_UNBOUNDED);
    if (!cs) return;
    check(!exists(stale) && cs->cache.temps_removed == 1,
          "temporaries: a stale one (a store killed mid-write) removed when a context opens the directory");
    check(exists(fresh), "temporaries: a fresh one (a store in flight) kept");
    check(exists(other), "temporaries: a .tmp of another name untouched");
    clsort_destroy(cs);
    /* a bound: the fresh temporary counts: 3 entries + it + a store of 3000 more = 15000 bytes, the store
     * must remove two entries (-> 9000) where counting entries alone removes one (12000 -> 9000) */
    fake_entry(dir, 0xa1, E, 1000);
    fake_entry(dir, 0xa2, E, 2000);
    fake_entry(dir, 0xa3, E, 3000);
    cs = make_ctx_bound(dir, BOUND);
    if (!cs) return;
    store_entry(cs, 0xa4, E);
    entry_bytes(dir, &count);
    tag_path(dir, 0xa4, path, sizeof path);
    check(stats(cs).evicted == 2 && count == 2 && exists(path) && exists(fresh),
          "temporaries: a fresh one counts toward the bound (two entries out, not one), and stays");
    /* a store finds a temporary gone stale since the context opened the directory: removed then */
    fake_temp(dir, 0xc3, 999998, 50000, now - CLSORT__CACHE_TEMP_STALE - 1, stale2, sizeof stale2);
    store_entry(cs, 0xa5, E);
    check(!exists(stale2) && cs->cache.temps_removed == 1, "temporaries: a stale one removed by a store");
    clsort_destroy(cs);
    remove(fresh);
    remove(other);
    rmtree(dir);
}

/* A hit refreshes its entry's time of last use: the real gather program's
 * entry, made the oldest, survives the next trim because a call loaded it. */
static void test_bound_hit(void)
{
    enum { E = 4000 };
    char dir[600], hex[65], gpath[800], path[800];
    clsort_context *cs;
    clsort_cache_stats st;
    struct stat gs;
    int count;
    path_of(dir, sizeof dir, "bound_hit");
    cs = make_ctx_bound(dir, CLSORT_CACHE_UNBOUNDED);
    if (!cs) return;
    check(gather_ok(cs), "bound, hit: gather stores its entry");
    gather_key(cs, hex);
    clsort_destroy(cs);
    snprintf(gpath, sizeof gpath, "%s/%s.bin", dir, hex);
    if (stat(gpath, &gs) != 0) {
        check(0, "bound, hit: the gather entry exists");
        return;
    }
    set_mtime(gpath, 1000); /* the oldest */
    fake_entry(dir, 0xb1, E, 2000);
    fake_entry(dir, 0xb2, E, 3000);
    /* room for what is there and half an entry more */
    cs = make_ctx_bound(dir, (size_t)gs.st_size + 2 * E + E / 2);
    if (!cs) return;
    check(gather_ok(cs), "bound, hit: gather from the cache");
    st = stats(cs);
    check(st.hits == 1 && st.builds == 0, "bound, hit: a hit");
    store_entry(cs, 0xb3, E);
    tag_path(dir, 0xb1, path, sizeof path);
    check(exists(gpath) && !exists(path), "bound, hit: the entry just loaded stays, the oldest unused one goes");
    check(entry_bytes(dir, &count) <= (unsigned long)gs.st_size + 2 * E + E / 2 && count == 3,
          "bound, hit: within the bound");
    clsort_destroy(cs);
}

/* CLSORT_CACHE_MAX: bytes with K, M or G, "off" and "0" for none, a
 * malformed value refused by clsort_create; desc.cache_max_bytes first. */
static void test_bound_env(void)
{
    static const struct {
        const char *text;
        int ok;
        cl_ulong bytes;
    } cases[] = {{"0", 1, 0},          {"123", 1, 123},          {"4K", 1, 4096},      {"4k", 1, 4096},
                 {"64M", 1, 64 << 20}, {"2G", 1, (cl_ulong)2 << 30}, {"", 0, 0},       {"K", 0, 0},
                 {"12KB", 0, 0},       {"-1", 0, 0},             {"1T", 0, 0},         {" 5", 0, 0},
                 {"18446744073709551615", 1, (cl_ulong)-1},     {"18446744073709551616", 0, 0},
                 {"17179869184G", 0, 0}};
    char dir[600], msg[120];
    clsort_context_desc d;
    clsort_context *cs;
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        cl_ulong v = 99;
        int ok = clsort__parse_bytes(cases[i].text, &v);
        snprintf(msg, sizeof msg, "CLSORT_CACHE_MAX parse \"%s\"", cases[i].text);
        check(ok == cases[i].ok && (!ok || v == cases[i].bytes), msg);
    }
    path_of(dir, sizeof dir, "bound_env");
    memset(&d, 0, sizeof d);
    d.cache_dir = dir;
    unsetenv("CLSORT_CACHE_MAX");
    cs = NULL;
    check(clsort_create(&cs, &d) == CLSORT_SUCCESS && stats(cs).max_bytes == CLSORT_CACHE_DEFAULT_MAX_BYTES,
          "CLSORT_CACHE_MAX unset: 256 MiB");
    clsort_destroy(cs);
    setenv("CLSORT_CACHE_MAX", "64M", 1);
    cs = NULL;
    check(clsort_create(&cs, &d) == CLSORT_SUCCESS && stats(cs).max_bytes == (size_t)64 << 20,
          "CLSORT_CACHE_MAX=64M");
    clsort_destroy(cs);
    d.cache_max_bytes = 5000;
    cs = NULL;
    check(clsort_create(&cs, &d) == CLSORT_SUCCESS && stats(cs).max_bytes == 5000,
          "desc.cache_max_bytes before CLSORT_CACHE_MAX");
    clsort_destroy(cs);
    d.cache_max_bytes = 0;
    setenv("CLSORT_CACHE_MAX", "off", 1);
    cs = NULL;
    check(clsort_create(&cs, &d) == CLSORT_SUCCESS && stats(cs).max_bytes == 0, "CLSORT_CACHE_MAX=off: no bound");
    clsort_destroy(cs);
    setenv("CLSORT_CACHE_MAX", "0", 1);
    cs = NULL;
    check(clsort_create(&cs, &d) == CLSORT_SUCCESS && stats(cs).max_bytes == 0, "CLSORT_CACHE_MAX=0: no bound");
    clsort_destroy(cs);
    setenv("CLSORT_CACHE_MAX", "lots", 1);
    cs = NULL;
    check(clsort_create(&cs, &d) == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "CLSORT_CACHE_MAX"),
          "CLSORT_CACHE_MAX=lots: clsort_create refuses, naming it");
    clsort_destroy(cs);
    unsetenv("CLSORT_CACHE_MAX");
}

/* ---- a cache filled at install time, read by another user ---- */

#if defined(__linux__)
int setgroups(size_t size, const gid_t *list); /* <grp.h> declares it only beyond POSIX */
#endif

/* The checks of the reader (test_shared), one bit each of its exit status. */
static const char *const reader_checks[] = {
    "shared: the reader runs as nobody (65534:65534, no other group) and cannot write the directory",
    "shared: the reader's gather: right, every program from the cache (0 built from source, 1 hit, 0 rejected)",
    "shared: the reader sees the directory read-only: no store failures, no warning but that",
    "shared: root's PRIVATE entry (the scan): rejected, with a warning that names it not readable",
    "shared: the scan then built from source, right, its store skipped (counted, not a failure)"};

/* Run as root by test_shared (--reader DIR POCL_DIR): becomes nobody, then
 * loads from the cache root filled; a failed check sets its bit. */
static int shared_reader(const char *dir, const char *pocl_dir)
{
    clsort_context *cs;
    clsort_cache_stats st;
    unsigned char *out = (unsigned char *)malloc(ws_out_bytes(3000));
    size_t bytes = 0;
    int bad = 0, ok;
    setenv("HOME", pocl_dir, 1); /* PoCL's own kernel cache: somewhere nobody may write */
    setenv("XDG_CACHE_HOME", pocl_dir, 1);
    setenv("POCL_CACHE_DIR", pocl_dir, 1);
#if defined(__linux__)
    if (setgroups(0, NULL) != 0) bad |= 1;
#endif
    if (setgid(65534) != 0 || setuid(65534) != 0 || geteuid() != 65534 || getegid() != 65534 ||
        access(dir, W_OK) == 0 || !out)
        return 1 | 2 | 4 | 8 | 16;
    cs = make_ctx(dir);
    ok = cs && gather_ok(cs);
    st = stats(cs);
    printf("  reader gather: %lu built, %lu hits, %lu rejected, %lu store failures, %lu skipped, read-only %d [%s]\n",
           st.builds, st.hits, st.rejected, st.store_failures, st.stores_skipped, st.read_only, st.warning);
    if (!(ok && st.builds == 0 && st.hits == 1 && st.rejected == 0)) bad |= 2;
    if (!(st.read_only && st.store_failures == 0 && st.stores_skipped == 0 && strstr(st.warning, "read-only"))) bad |= 4;
    clsort_destroy(cs);
    cs = make_ctx(dir);
    ok = cs && ws_run(cs, WS_SCAN_U32, 3000, out, &bytes) == CLSORT_SUCCESS && ws_check(WS_SCAN_U32, 3000, out, bytes);
    if (cs) clsort_cache_flush(cs);
    st = stats(cs);
    printf("  reader scan: %lu built, %lu hits, %lu rejected, %lu store failures, %lu skipped [%s]\n", st.builds,
           st.hits, st.rejected, st.store_failures, st.stores_skipped, st.warning);
    if (!(st.rejected == 1 && st.hits == 0 && strstr(st.warning, "not readable"))) bad |= 8;
    if (!(ok && st.builds == 1 && st.stores_skipped == 1 && st.store_failures == 0)) bad |= 16;
    clsort_destroy(cs);
    free(out);
    return bad;
}

static unsigned file_mode(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (unsigned)(st.st_mode & 0777) : 01000;
}

/* As root: the installer's side. gather stored SHARED (under umask 077),
 * then the scan stored PRIVATE; *gather_entry: the gather entry's path. */
static void shared_fill(const char *cache, char *gather_entry, size_t size)
{
    clsort_context_desc d;
    clsort_context *cs = NULL;
    unsigned char *out = (unsigned char *)malloc(ws_out_bytes(3000));
    size_t bytes = 0;
    char scan_entry[1000] = "", msg[200];
    mode_t old = umask(077);
    memset(&d, 0, sizeof d);
    d.cache_dir = cache;
    d.cache_when = CLSORT_CACHE_WHEN_LEAVE;
    d.cache_mode = CLSORT_CACHE_MODE_SHARED;
    check(clsort_create(&cs, &d) == CLSORT_SUCCESS && gather_ok(cs) && stats(cs).stores == 1,
          "shared: the installer stores the gather (desc.cache_mode SHARED)");
    clsort_destroy(cs);
    check(count_files(cache, ".bin", gather_entry, size) == 1, "shared: one entry");
    snprintf(msg, sizeof msg, "shared: entry 0644, directory 0755 under umask 077 (%03o, %03o)",
             file_mode(gather_entry), file_mode(cache));
    check(file_mode(gather_entry) == 0644 && file_mode(cache) == 0755, msg);
    cs = make_ctx(cache); /* PRIVATE, the default */
    check(cs && ws_run(cs, WS_SCAN_U32, 3000, out, &bytes) == CLSORT_SUCCESS && clsort_cache_flush(cs) == 0 &&
              stats(cs).stores == 1, "shared: the installer stores the scan PRIVATE");
    clsort_destroy(cs);
    umask(old);
    {
        DIR *dd = opendir(cache);
        struct dirent *e;
        while (dd && (e = readdir(dd)) != NULL)
            if (strstr(e->d_name, ".bin") && !strstr(gather_entry, e->d_name))
                snprintf(scan_entry, sizeof scan_entry, "%s/%s", cache, e->d_name);
        if (dd) closedir(dd);
    }
    snprintf(msg, sizeof msg, "shared: a PRIVATE entry is 0600 (%03o)", file_mode(scan_entry));
    check(file_mode(scan_entry) == 0600, msg);
    free(out);
}

/* CLSORT_CACHE_MODE: "shared" and "private" taken, anything else refused
 * by clsort_create naming the variable. */
static void shared_env(const char *cache)
{
    static const char *const values[3] = {"shared", "private", "Shared"};
    int i;
    for (i = 0; i < 3; ++i) {
        clsort_context *cs = NULL;
        clsort_context_desc d;
        clsort_result r;
        memset(&d, 0, sizeof d);
        d.cache_dir = cache;
        setenv("CLSORT_CACHE_MODE", values[i], 1);
        r = clsort_create(&cs, &d);
        if (i < 2)
            check(r == CLSORT_SUCCESS && cs->cache.shared == (i == 0), "shared: CLSORT_CACHE_MODE=shared / private");
        else
            check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "CLSORT_CACHE_MODE"),
                  "shared: CLSORT_CACHE_MODE=Shared refused, the variable named");
        clsort_destroy(cs);
    }
    unsetenv("CLSORT_CACHE_MODE");
}

/* As root after the reader: entries the library does not trust. */
static void shared_refused(const char *cache, const char *gather_entry)
{
    if (chown(gather_entry, 65534, 65534) != 0) printf("(chown failed)\n");
    expect_gather(cache, 1, 0, 1, "shared: an entry of another user (nobody's, in root's directory): refused");
    check(strstr(stats_warning_last, "owned by user 65534") != NULL, "shared: the warning names the owner");
    chmod(gather_entry, 0666);
    expect_gather(cache, 1, 0, 1, "shared: an entry writable by anyone: refused");
    check(strstr(stats_warning_last, "writable by anyone") != NULL, "shared: the warning says writable by anyone");
    chmod(gather_entry, 0644);
    expect_gather(cache, 0, 1, 0, "shared: root's entry 0644 then loads");
}

/* An install-time cache (SHARED, filled by root) read by nobody: every
 * program from the cache, a PRIVATE entry of root's rejected with a
 * warning. Needs root (setuid): skipped without (the Makefile's
 * test-cache says why); CI runs as root. */
static int test_shared(void)
{
    char base[] = "/tmp/clsort-shared-XXXXXX", cache[600], pocl[600], gather_entry[700] = "";
    int i, status = 0;
    pid_t pid;
    if (geteuid() != 0) {
        printf("shared: SKIPPED: the check needs root (it fills the cache as root, then reads it as nobody)\n");
        return 1;
    }
    if (!mkdtemp(base) || chmod(base, 0755) != 0) {
        check(0, "shared: a directory under /tmp");
        return 0;
    }
    snprintf(cache, sizeof cache, "%s/cache/clsort", base); /* the library makes both */
    snprintf(pocl, sizeof pocl, "%s/nobody", base);
    mkdir(pocl, 0700);
    if (chown(pocl, 65534, 65534) != 0) printf("(chown %s failed)\n", pocl);
    shared_fill(cache, gather_entry, sizeof gather_entry);
    shared_env(cache);
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        execl(self, self, "--reader", cache, pocl, (char *)NULL);
        _exit(127);
    }
    check(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) < 32,
          "shared: the reader ran");
    for (i = 0; i < 5; ++i) check(WIFEXITED(status) && !(WEXITSTATUS(status) & (1 << i)), reader_checks[i]);
    shared_refused(cache, gather_entry);
    rmtree(base);
    return 0;
}

/* ---- clsort_prepare's progress ---- */

typedef struct progress_log {
    unsigned calls, last_done, total, in_order, known_family;
} progress_log;

static void progress_note(void *user, unsigned done, unsigned total, const char *family)
{
    progress_log *log = (progress_log *)user;
    int f, known = 0;
    for (f = 0; f < CLSORT_FAMILY_COUNT; ++f)
        known |= family && strcmp(family, clsort_family_name((clsort_family)f)) == 0;
    if (log->calls == 0) log->total = total;
    log->in_order = log->in_order && done == log->last_done + 1 && total == log->total && done <= total;
    log->known_family = log->known_family && known;
    log->last_done = done;
    ++log->calls;
}

/* prepare of the four calls (sort, split, gather, scan; the u32 scan and
 * the gather are shared) on cs with a progress log. */
static clsort_result prepare_logged(clsort_context *cs, progress_log *log, int bad_last)
{
    clsort_prepare_call c[5];
    clsort_prepare_desc pd;
    memset(c, 0, sizeof c);
    memset(&pd, 0, sizeof pd);
    memset(log, 0, sizeof *log);
    log->in_order = log->known_family = 1;
    c[0].op = CLSORT_PREPARE_SORT;
    c[1].op = CLSORT_PREPARE_SPLIT;
    c[2].op = CLSORT_PREPARE_GATHER;
    c[3].op = CLSORT_PREPARE_SCAN;
    c[4].op = bad_last ? (clsort_prepare_op)99 : CLSORT_PREPARE_SORT; /* the same sort again */
    pd.calls = c;
    pd.count = 5;
    pd.progress = progress_note;
    pd.progress_user = log;
    return clsort_prepare(cs, &pd);
}

/* The progress callback counts 1 .. total once per program built or loaded
 * (total = the programs the calls take that the context lacks, each once)
 * and once per warm run (one per call of the four operations that have
 * one: all five calls here); a prepare with nothing left to build makes
 * only the warm runs' calls; an argument error comes before any build. */
#define PREPARE_LOGGED_WARMS 5
static void test_prepare_progress(void)
{
    char dir[600];
    progress_log log;
    clsort_context *cs;
    clsort_cache_stats st;
    int pass;
    path_of(dir, sizeof dir, "progress");
    for (pass = 0; pass < 2; ++pass) { /* cold: built from source; warm: loaded from the cache */
        const char *how = pass ? "warm" : "cold";
        char msg[160];
        cs = make_ctx(dir);
        if (!cs) return;
        check(prepare_logged(cs, &log, 1) == CLSORT_ERROR_INVALID_ARGUMENT && log.calls == 0 &&
                  stats(cs).builds + stats(cs).hits == 0,
              "prepare progress: an unknown op refused before any build, no progress call");
        check(prepare_logged(cs, &log, 0) == CLSORT_SUCCESS, "prepare progress: prepare");
        st = stats(cs);
        printf("  %s: %u progress calls, %lu built, %lu loaded\n", how, log.calls, st.builds, st.hits);
        snprintf(msg, sizeof msg,
                 "prepare progress %s: one call per program (%u calls, total %u, %lu built, %lu loaded)", how,
                 log.calls, log.total, st.builds, st.hits);
        check(log.calls > 2 + PREPARE_LOGGED_WARMS && log.calls == log.total &&
                  log.calls == st.builds + st.hits + PREPARE_LOGGED_WARMS &&
                  (pass ? st.builds == 0 : st.hits == 0),
              msg);
        snprintf(msg, sizeof msg, "prepare progress %s: done counts 1 .. total in order, families named", how);
        check(log.in_order && log.last_done == log.total && log.known_family, msg);
        check(prepare_logged(cs, &log, 0) == CLSORT_SUCCESS && log.calls == PREPARE_LOGGED_WARMS &&
                  log.total == PREPARE_LOGGED_WARMS && stats(cs).builds + stats(cs).hits == st.builds + st.hits,
              "prepare progress: all held already: only the warm runs' calls, nothing built");
        clsort_destroy(cs); /* LEAVE: the cold pass stores here */
    }
}

static cl_mem prep_buffer(clsort_context *cs, size_t bytes, const void *src)
{
    cl_int e;
    cl_mem m = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, (void *)src, &e);
    return e == CL_SUCCESS ? m : NULL;
}

static int prep_same(clsort_context *cs, cl_mem m, const uint32_t *want, size_t n)
{
    uint32_t *got = (uint32_t *)malloc(n * 4);
    int same = got && clEnqueueReadBuffer(clsort_cl_queue(cs), m, CL_TRUE, 0, n * 4, got, 0, NULL, NULL) == 0 &&
               memcmp(got, want, n * 4) == 0;
    free(got);
    return same;
}

/* pack (flags: every third key) -> sort with a permutation -> gather of the
 * keys' indices; checked against the host. */
static int prep_frame_ok(clsort_context *cs, cl_mem *b, const uint32_t *keys, size_t n)
{
    clsort_split_desc sd;
    clsort_sort_desc so;
    size_t kept = 0, i;
    uint32_t *got = (uint32_t *)malloc(n * 4);
    int ok = got != NULL;
    memset(&sd, 0, sizeof sd);
    memset(&so, 0, sizeof so);
    sd.flags = b[1];
    so.permutation = b[4];
    ok = ok && clsort_pack(cs, b[0], b[2], n, &sd, &kept, NULL) == CLSORT_SUCCESS && kept == (n + 2) / 3 &&
         clsort_sort(cs, b[2], b[3], kept, &so, NULL) == CLSORT_SUCCESS &&
         clsort_gather(cs, b[5], b[6], b[4], kept, 4, NULL) == CLSORT_SUCCESS &&
         clEnqueueReadBuffer(clsort_cl_queue(cs), b[6], CL_TRUE, 0, kept * 4, got, 0, NULL, NULL) == 0;
    /* keys[3i] = n - 3i descend, so the sorted packed keys are keys[3(kept-1)] .. keys[0], and
     * gathering the packed positions 0..kept-1 through the permutation gives kept-1 .. 0 */
    for (i = 0; ok && i < kept; ++i) ok = got[i] == (uint32_t)(kept - 1 - i) && keys[3 * i] == n - 3 * i;
    free(got);
    return ok;
}

/* A gather_many of keys and ids by reversed indices right after a
 * prepare of it: right, and nothing built. */
static int prep_gather_many_ok(clsort_context *cs, const uint32_t *keys, const uint32_t *ids, size_t n)
{
    uint32_t *rev = (uint32_t *)malloc(n * 4), *want = (uint32_t *)malloc(2 * n * 4);
    cl_mem b[5] = {NULL, NULL, NULL, NULL, NULL};
    clsort_gather_many_desc gd;
    unsigned long builds = stats(cs).builds;
    size_t i;
    int ok = rev && want, k;
    for (i = 0; ok && i < n; ++i) rev[i] = (uint32_t)(n - 1 - i), want[i] = keys[n - 1 - i], want[n + i] = ids[n - 1 - i];
    if (ok) b[0] = prep_buffer(cs, n * 4, rev), b[1] = prep_buffer(cs, n * 4, keys), b[2] = prep_buffer(cs, n * 4, ids);
    if (ok) b[3] = prep_buffer(cs, n * 4, keys), b[4] = prep_buffer(cs, n * 4, keys);
    for (k = 0; k < 5; ++k) ok = ok && b[k];
    memset(&gd, 0, sizeof gd);
    gd.count = 2;
    gd.arrays[0].src = b[1], gd.arrays[0].dst = b[3], gd.arrays[0].elem_size = 4;
    gd.arrays[1].src = b[2], gd.arrays[1].dst = b[4], gd.arrays[1].elem_size = 4;
    ok = ok && clsort_gather_many(cs, b[0], n, &gd, NULL) == CLSORT_SUCCESS && prep_same(cs, b[3], want, n) &&
         prep_same(cs, b[4], want + n, n) && stats(cs).builds == builds;
    for (k = 0; k < 5; ++k)
        if (b[k]) clReleaseMemObject(b[k]);
    free(rev), free(want);
    return ok;
}

/* clsort_prepare's warm runs use buffers of their own: the caller's
 * buffers named in the descriptors keep their contents; the calls after
 * prepare give the right results (gather_many's building nothing). */
static void test_prepare_untouched(clsort_context *cs)
{
    enum { N = 3000 };
    static uint32_t keys[N], flags[N], ids[N];
    cl_mem b[7];
    clsort_prepare_call c[5];
    clsort_prepare_desc pd;
    clsort_split_desc sd;
    clsort_sort_desc so;
    size_t i;
    int k, made = 1;
    for (i = 0; i < N; ++i) keys[i] = (uint32_t)(N - i), flags[i] = i % 3 == 0, ids[i] = (uint32_t)i;
    b[0] = prep_buffer(cs, sizeof keys, keys), b[1] = prep_buffer(cs, sizeof flags, flags);
    b[2] = prep_buffer(cs, sizeof keys, keys), b[3] = prep_buffer(cs, sizeof keys, keys);
    b[4] = prep_buffer(cs, sizeof ids, ids), b[5] = prep_buffer(cs, sizeof ids, ids);
    b[6] = prep_buffer(cs, sizeof ids, ids);
    for (k = 0; k < 7; ++k) made = made && b[k];
    memset(c, 0, sizeof c), memset(&pd, 0, sizeof pd), memset(&sd, 0, sizeof sd), memset(&so, 0, sizeof so);
    sd.flags = b[1], sd.count = b[5];            /* the caller's buffers themselves, not placeholders */
    so.permutation = b[4], so.values_in = b[5], so.values_out = b[6];
    c[0].op = CLSORT_PREPARE_SPLIT, c[0].split = &sd, c[0].n = N;
    c[1].op = CLSORT_PREPARE_SORT, c[1].sort = &so, c[1].n = (N + 2) / 3;
    c[2].op = CLSORT_PREPARE_GATHER, c[2].n = (N + 2) / 3;
    c[3].op = CLSORT_PREPARE_SCAN, c[3].n = N;
    c[4].op = CLSORT_PREPARE_GATHER, c[4].gather_many = 1, c[4].elem_size = 4, c[4].n = N;
    pd.calls = c, pd.count = 5;
    check(made && clsort_prepare(cs, &pd) == CLSORT_SUCCESS, "prepare (warm runs): prepare");
    check(made && prep_same(cs, b[0], keys, N) && prep_same(cs, b[1], flags, N) && prep_same(cs, b[4], ids, N) &&
              prep_same(cs, b[5], ids, N) && prep_same(cs, b[6], ids, N),
          "prepare (warm runs): the buffers a descriptor names are not touched");
    check(made && prep_frame_ok(cs, b, keys, N), "prepare (warm runs): pack -> sort -> gather right after prepare");
    check(made && prep_gather_many_ok(cs, keys, ids, N), "prepare (warm runs): gather_many right after prepare, nothing built");
    for (k = 0; k < 7; ++k)
        if (b[k]) clReleaseMemObject(b[k]);
}

/* The calls of test_prepare_families and their descriptors. */
typedef struct prep_fam {
    clsort_prepare_call c[7];
    clsort_bitonic_desc bd, bo;
    clsort_bin_desc nd;
    clsort_attribute at;
    clsort_nbody_desc gd, gb;
    clsort_tree_desc td;
} prep_fam;

/* Bitonic with values and a permutation, binning with every output and an
 * attribute, N-body with accelerations and temp, each naming the caller's
 * buffers b[1 ..]; bitonic by device offsets (CLSORT_PREPARE_PRESENT),
 * Barnes-Hut, a 3D tree and a 2D one of 64-bit codes in a given box (tree
 * descriptors name no buffer). */
static void prep_family_calls(prep_fam *f, cl_mem *b, size_t n)
{
    int k;
    memset(f, 0, sizeof *f);
    f->bd.values_in = b[1], f->bd.values_out = b[2], f->bd.permutation = b[3];
    f->bo.segment_offsets = CLSORT_PREPARE_PRESENT, f->bo.segment_count = 7;
    f->nd.grid.dims = 2, f->nd.grid.cells[0] = f->nd.grid.cells[1] = 16;
    f->nd.grid.cell_size[0] = f->nd.grid.cell_size[1] = 1.0f / 16;
    f->nd.cell_keys = b[4], f->nd.permutation = b[5], f->nd.cell_offsets = b[6];
    f->at.src = b[1], f->at.dst = b[2], f->at.elem_size = 4;
    f->nd.attributes = &f->at, f->nd.attribute_count = 1;
    f->gd.dt = 0.01, f->gd.softening2 = 0.01, f->gd.accelerations = b[7], f->gd.temp = b[8];
    f->gb = f->gd, f->gb.method = CLSORT_NBODY_BARNES_HUT;
    f->td.dims = 2, f->td.code_bits = 64, f->td.box_given = 1, f->td.box_hi[0] = f->td.box_hi[1] = 4.0f;
    f->c[0].op = CLSORT_PREPARE_BITONIC, f->c[0].bitonic = &f->bd;
    f->c[1].op = CLSORT_PREPARE_BINNING, f->c[1].bin = &f->nd;
    f->c[2].op = CLSORT_PREPARE_NBODY, f->c[2].nbody = &f->gd;
    f->c[3].op = CLSORT_PREPARE_TREE;
    f->c[4].op = CLSORT_PREPARE_BITONIC, f->c[4].bitonic = &f->bo;
    f->c[5].op = CLSORT_PREPARE_NBODY, f->c[5].nbody = &f->gb;
    f->c[6].op = CLSORT_PREPARE_TREE, f->c[6].tree = &f->td;
    for (k = 0; k < 7; ++k) f->c[k].n = n;
}

/* The warm runs of BITONIC, BINNING, NBODY and TREE: the buffers their
 * descriptors name keep their contents (each of 4 * N uint32: the largest,
 * N-body's float4 vectors), and a bitonic sort with values and permutation
 * right after prepare is right. */
static void test_prepare_families(clsort_context *cs)
{
    enum { N = 3000, B = 9 };
    static uint32_t fill[4 * N], got[N];
    static prep_fam f;
    cl_mem b[B];
    clsort_prepare_desc pd;
    size_t i;
    int k, made = 1, same = 1, sorted = 1;
    for (i = 0; i < 4 * N; ++i) fill[i] = (uint32_t)(i * 2654435761u) % 100000u;
    for (k = 0; k < B; ++k) made = made && (b[k] = prep_buffer(cs, sizeof fill, fill)) != NULL;
    prep_family_calls(&f, b, N);
    memset(&pd, 0, sizeof pd);
    pd.calls = f.c, pd.count = 7;
    check(made && clsort_prepare(cs, &pd) == CLSORT_SUCCESS, "prepare (warm runs of bitonic, binning, N-body, tree)");
    for (k = 0; made && k < B; ++k) same = same && prep_same(cs, b[k], fill, 4 * N);
    check(made && same, "prepare (bitonic, binning, N-body, tree warm runs): the buffers the descriptors name "
                        "are not touched");
    made = made && clsort_bitonic_sort(cs, b[0], b[0], N, &f.bd, NULL) == CLSORT_SUCCESS &&
           clEnqueueReadBuffer(clsort_cl_queue(cs), b[0], CL_TRUE, 0, N * 4, got, 0, NULL, NULL) == 0;
    for (i = 1; made && i < N; ++i) sorted = sorted && got[i - 1] <= got[i];
    check(made && sorted, "prepare (warm runs): a bitonic sort with values and permutation right after prepare");
    for (k = 0; k < B; ++k)
        if (b[k]) clReleaseMemObject(b[k]);
}

static void test_prepare_errors(clsort_context *cs)
{
    clsort_prepare_call c;
    clsort_prepare_desc pd;
    clsort_sort_desc sd;
    memset(&c, 0, sizeof c);
    memset(&sd, 0, sizeof sd);
    memset(&pd, 0, sizeof pd);
    pd.calls = &c;
    pd.count = 1;
    check(clsort_prepare(NULL, &pd) == CLSORT_ERROR_INVALID_ARGUMENT, "prepare: NULL context");
    check(clsort_prepare(cs, NULL) == CLSORT_ERROR_INVALID_ARGUMENT, "prepare: NULL desc");
    c.op = (clsort_prepare_op)99;
    check(clsort_prepare(cs, &pd) == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "op"),
          "prepare: unknown op");
    c.op = CLSORT_PREPARE_SORT;
    sd.end_bit = 40;
    c.sort = &sd;
    check(clsort_prepare(cs, &pd) == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "end_bit"),
          "prepare: a bad sort descriptor is refused as the call would");
    c.op = CLSORT_PREPARE_NBODY;
    check(clsort_prepare(cs, &pd) == CLSORT_ERROR_INVALID_ARGUMENT, "prepare: N-body without a descriptor");
    pd.count = 0;
    pd.calls = NULL;
    check(clsort_prepare(cs, &pd) == CLSORT_SUCCESS, "prepare: nothing to prepare");
}

int main(int argc, char **argv)
{
    clsort_context *cs;
    self = argv[0];
    if (argc == 4 && strcmp(argv[1], "--child") == 0) return child(argv[2], argv[3]);
    if (argc == 4 && strcmp(argv[1], "--reader") == 0) return shared_reader(argv[2], argv[3]);
    snprintf(root, sizeof root, "%s", argc > 1 ? argv[1] : "build/cache_test");
    rmtree(root);
    mkdir(root, 0700);
    setenv("CLSORT_CACHE_DIR", "off", 1); /* each test names its directory */
    unsetenv("CLSORT_CACHE_MAX");        /* the default bound, unless a test sets one */
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 2 && strcmp(argv[2], "special") == 0) { /* the files that are not regular */
        test_special_entries();
        test_special_temp();
        printf("%d passed, %d failed\n", passed, failed);
        return failed ? 1 : 0;
    }
    if (argc > 2 && strcmp(argv[2], "when") == 0) { /* when the cache stores, CLSORT_CACHE_WHEN */
        test_when();
        printf("%d passed, %d failed\n", passed, failed);
        return failed ? 1 : 0;
    }
    if (argc > 2 && strcmp(argv[2], "bound") == 0) { /* the size bound, temporaries */
        test_bound_lru();
        test_bound_hit();
        test_bound_env();
        test_bound_temps();
        printf("%d passed, %d failed\n", passed, failed);
        return failed ? 1 : 0;
    }
    if (argc > 2 && strcmp(argv[2], "shared") == 0) { /* an install-time cache read by nobody (root only) */
        int skipped = test_shared();
        printf("%d passed, %d failed%s\n", passed, failed, skipped ? ", 1 skipped (needs root)" : "");
        return failed ? 1 : 0;
    }
    if (argc > 2 && strcmp(argv[2], "workset") == 0) {
        test_workset();
        printf("%d passed, %d failed\n", passed, failed);
        return failed ? 1 : 0;
    }
    test_sha256();
    cs = make_ctx(NULL);
    if (!cs) {
        printf("0 passed, 1 failed\n");
        return 1;
    }
    printf("device: %s\n", clsort_device_name(cs));
    check(!stats(cs).enabled, "desc.cache_off: the cache is off");
    test_prepare_errors(cs);
    test_prepare_untouched(cs);
    test_prepare_families(cs);
    clsort_destroy(cs);
    cs = make_ctx(root);
    if (cs) {
        test_keys(cs);
        clsort_destroy(cs);
    }
    printf("processes...\n");
    test_processes();
    test_full_disk();
    printf("invalidation...\n");
    test_invalidation();
    printf("corrupt entries...\n");
    test_corrupt();
    printf("entries that are not regular files...\n");
    test_special_entries();
    test_special_temp();
    printf("directories...\n");
    test_dirs();
    printf("callbacks...\n");
    test_callbacks();
    printf("deferred stores, kernels, lookup...\n");
    test_deferred();
    printf("when the cache stores...\n");
    test_when();
    test_kernel_sets();
    test_location();
    printf("NVIDIA's entries as cubin (libcuda stand-in)...\n");
    test_cubin();
    printf("the size bound...\n");
    test_bound_lru();
    test_bound_hit();
    test_bound_env();
    test_bound_temps();
    printf("prepare's progress...\n");
    test_prepare_progress();
    printf("prepare and the work set, cold and warm...\n");
    test_workset();
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
