/* The shared part of test_clsort: check(), the generator and the value
 * distributions, device buffers, contexts with a tuning, the case registry
 * and the progress lines. tests/test_clsort.c includes it first, then one
 * file per family in the family order (tests/README.md). */
#ifndef CLSORT_TEST_CHECK_H
#define CLSORT_TEST_CHECK_H
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime (the progress lines) */
#endif
#define CLSORT_IMPLEMENTATION
#define CLSORT_TESTING /* clsort_test_hooks, clsort_create_testing */
#include "clsort.h"

#include <ctype.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int passed, failed;   /* the checks of the whole run */
static const char *path_name; /* where the running case runs, for FAIL lines */
/* the 4- and 8-byte types: every family takes them (8- and 16-bit ones only sort and split) */
#define T_WIDE_END (CLSORT_F64 + 1)

static void progress_tick(void);

/* One check: counted; when it fails, a FAIL line with what, the path, n,
 * the distribution, the first bad index and the values there. */
static void check(int ok, const char *what, size_t n, const char *dist, size_t at, double want, double got)
{
    if (ok) {
        ++passed;
    } else {
        ++failed;
        printf("FAIL %s [%s] n=%lu dist=%s: first bad index %lu, expected %.17g, got %.17g\n", what, path_name,
               (unsigned long)n, dist, (unsigned long)at, want, got);
    }
    progress_tick();
}

static uint64_t rng = 88172645463325252ull;
static uint64_t rnd64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

enum { D_RANDOM, D_EQUAL, D_ZERO, D_ONES, D_MAX, D_SORTED, D_REVERSED, D_COUNT };
static const char *dist_names[] = {"random", "all-equal", "zero", "all-ones", "max", "sorted", "reversed"};

/* Fills n elements of type t following distribution d. */
static void fill(void *p, clsort_type t, size_t n, int d)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        uint64_t r = rnd64();
        switch (t) {
        case CLSORT_F32: {
            float v = d == D_RANDOM ? (float)((double)(r >> 11) / 9007199254740992.0 * 200.0 - 100.0)
                    : d == D_ZERO ? 0.0f : d == D_SORTED ? (float)i : d == D_REVERSED ? (float)(n - i) : 1.5f;
            ((float *)p)[i] = v;
            break;
        }
        case CLSORT_F64: {
            double v = d == D_RANDOM ? (double)(r >> 11) / 9007199254740992.0 * 200.0 - 100.0
                     : d == D_ZERO ? 0.0 : d == D_SORTED ? (double)i : 1.25;
            ((double *)p)[i] = v;
            break;
        }
        default: {
            uint64_t v = d == D_RANDOM ? r : d == D_EQUAL ? 0x12345677u : d == D_ZERO ? 0 : d == D_ONES ? ~0ull
                       : d == D_MAX ? (t == CLSORT_I32 ? 0x7fffffffu : t == CLSORT_I64 ? 0x7fffffffffffffffull : ~0ull)
                       : d == D_SORTED ? i : (uint64_t)(n - i);
            if (clsort_type_size(t) == 4) ((uint32_t *)p)[i] = (uint32_t)v;
            else ((uint64_t *)p)[i] = v;
        }
        }
    }
}

/* Ill-conditioned float sums (the scan and reduce parts' error bounds), on
 * which a long left-to-right fold loses nearly every term:
 *   set 0: 1, then n - 1 copies of u/2 (each lost against 1 in a fold);
 *   set 1: 1, then u/2, u, 3u/2 in turn (each rounds to 0 or to u);
 *   set 2: -1 at every 4096th element, -u/2 between.
 * Element i is ill_sign(set) * (b + k u/2), b in {0, 1}, k in 0..3, b k =
 * 0, u the type's unit roundoff: exact in f32 and f64, and every prefix's
 * exact sum is +-(B + K u/2) from the integer counts B, K. */
static const char *ill_names[3] = {"1, then u/2", "1, then u/2, u, 3u/2 in turn", "-1 every 4096th, -u/2 between"};
static double ill_sign(int set) { return set == 2 ? -1.0 : 1.0; }
static void ill_term(int set, size_t i, unsigned *b, unsigned *k)
{
    if (set == 2) {
        *b = i % 4096 == 0;
        *k = !*b;
        return;
    }
    *b = i == 0;
    *k = i == 0 ? 0u : set == 0 ? 1u : 1u + (unsigned)(i % 3);
}

static cl_mem buffer(clsort_context *cs, size_t bytes, const void *src)
{
    cl_int e;
    cl_mem m = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE, bytes ? bytes : 4, NULL, &e);
    if (e != CL_SUCCESS) { printf("clCreateBuffer failed\n"); exit(2); }
    if (src && bytes) clEnqueueWriteBuffer(clsort_cl_queue(cs), m, CL_TRUE, 0, bytes, src, 0, NULL, NULL);
    return m;
}

static void download(clsort_context *cs, cl_mem m, size_t bytes, void *dst)
{
    if (bytes && clEnqueueReadBuffer(clsort_cl_queue(cs), m, CL_TRUE, 0, bytes, dst, 0, NULL, NULL) != CL_SUCCESS) {
        printf("clEnqueueReadBuffer failed\n");
        exit(2);
    }
}

/* A word or a phrase of up to 4 words written twice in a row in msg ("the
 * the", "the output the output"), compared without case, into word; 0 when
 * none. Words are what lies between spaces; a repeat counts only when one
 * of its words has two letters or more (numbers and dimensions may repeat:
 * "5 5", "65536 x 65536 x 2 cells"). */
static int doubled_word(const char *msg, char *word, size_t size)
{
    enum { MAXW = 128 };
    const char *w[MAXW];
    size_t len[MAXW], nw = 0, n, i, k;
    const char *p = msg;
    while (*p && nw < MAXW) {
        while (*p == ' ') ++p;
        if (!*p) break;
        w[nw] = p;
        while (*p && *p != ' ') ++p;
        len[nw] = (size_t)(p - w[nw]);
        ++nw;
    }
    for (n = 1; n <= 4; ++n)
        for (i = 0; i + 2 * n <= nw; ++i) {
            int same = 1, alpha = 0;
            for (k = 0; k < n && same; ++k) {
                size_t c;
                int letters = 0;
                const char *a = w[i + k], *b = w[i + n + k];
                same = len[i + k] == len[i + n + k];
                for (c = 0; same && c < len[i + k]; ++c) {
                    same = tolower((unsigned char)a[c]) == tolower((unsigned char)b[c]);
                    letters += isalpha((unsigned char)a[c]) != 0;
                }
                alpha |= letters >= 2;
            }
            if (same && alpha) {
                snprintf(word, size, "%.*s", (int)(w[i + n - 1] + len[i + n - 1] - w[i]), w[i]);
                return 1;
            }
        }
    return 0;
}

/* A message as a user reads it: not empty, no word doubled. */
static int message_ok(const char *msg)
{
    char word[64];
    if (!msg || !msg[0]) return 0;
    if (doubled_word(msg, word, sizeof word)) {
        printf("  doubled word \"%s\" in: %s\n", word, msg);
        return 0;
    }
    return 1;
}

/* A refused call: the code and a message in cs (no word doubled). */
#define EXPECT_ERR(call, code, name)                                                                \
    do {                                                                                             \
        int r_ = (call);                                                                             \
        check(r_ == (code) && message_ok(clsort_last_error(cs)), name, 0, "bad-argument", 0, code, r_); \
    } while (0)

/* A context on cs's OpenCL context, device and queue whose kernels use the
 * tuning t (clsort_context_desc.tuning: the tests never touch the
 * environment); NULL (and a failed check) when the create fails. */
static clsort_context *tuned_context_hooks(clsort_context *cs, const clsort_tuning *t, const clsort_test_hooks *h,
                                           const char *what)
{
    clsort_context_desc d;
    clsort_context *out = NULL;
    clsort_result r;
    memset(&d, 0, sizeof d);
    d.context = clsort_cl_context(cs);
    d.device = clsort_cl_device(cs);
    d.queue = clsort_cl_queue(cs);
    d.path = clsort_context_path(cs);
    d.tuning = *t;
    r = clsort_create_testing(&out, &d, h);
    if (r != CLSORT_SUCCESS) {
        check(0, what, 0, clsort_last_error(out), 0, 0, r);
        clsort_destroy(out);
        return NULL;
    }
    return out;
}

static clsort_context *tuned_context(clsort_context *cs, const clsort_tuning *t, const char *what)
{
    return tuned_context_hooks(cs, t, NULL, what);
}

/* The program cache's callbacks with nothing stored: every program a
 * context makes counts as a build in clsort_cache_stats. */
static size_t counting_no_blob(void *user, const char *key, void *data, size_t capacity)
{
    (void)user, (void)key, (void)data, (void)capacity;
    return 0;
}
static int counting_drop_blob(void *user, const char *key, const void *data, size_t size)
{
    (void)user, (void)key, (void)data, (void)size;
    return 0;
}

/* A context on cs's OpenCL context, device and queue, on path, whose cache
 * stores nothing (so its stats count every program it makes), with
 * the test hook loop_budget = loop_budget (0: the device's); NULL (and a
 * failed check named what) when the create fails. */
static clsort_context *counting_context(clsort_context *cs, clsort_path path, unsigned long loop_budget,
                                        const char *what)
{
    clsort_context_desc d;
    clsort_test_hooks h;
    clsort_context *out = NULL;
    memset(&d, 0, sizeof d);
    memset(&h, 0, sizeof h);
    d.context = clsort_cl_context(cs);
    d.device = clsort_cl_device(cs);
    d.queue = clsort_cl_queue(cs);
    d.path = path;
    d.cache_load = counting_no_blob;
    d.cache_store = counting_drop_blob;
    h.loop_budget = loop_budget;
    if (clsort_create_testing(&out, &d, &h) != CLSORT_SUCCESS) {
        check(0, what, 0, clsort_last_error(out), 0, 0, 0);
        clsort_destroy(out);
        return NULL;
    }
    return out;
}

static clsort_context *tile_context(clsort_context *cs, unsigned wg, unsigned items)
{
    clsort_tuning t;
    memset(&t, 0, sizeof t);
    t.tile_wg = wg;
    t.tile_items = items;
    return tuned_context(cs, &t, "context with a tile tuning");
}

/* ---- the case registry ---- */

/* What a case runs with. */
typedef struct test_env {
    clsort_context *cs;  /* the part's context on `path`; NULL in parts whose cases make their own */
    clsort_path path;    /* the cross-work-group path of cs (CLSORT_PATH_AUTO without cs) */
    int quick, tiny;     /* the size set: --quick, --tiny (tiny implies quick), neither: --full */
    const size_t *sizes; /* the sizes most cases loop over, for this size set */
    size_t nsizes;
} test_env;

typedef void (*test_fn)(const test_env *e);

/* Variants (a key width, a tile shape, an operator) are programs of their
 * own, and on a CPU runtime compiling them is most of a cold run. --quick
 * (make test) and --tiny (oclgrind, the other implementations) run each
 * variant k on one of the two paths (quick_variant), a quarter of them on
 * each path (quick_few), or a `1 of n` sample where the case runs on one
 * path only; --full runs them all. */
static int quick_variant(const test_env *e, unsigned k)
{
    if (!e->quick || e->path == CLSORT_PATH_AUTO) return 1;
    return (int)(k % 2) == (e->path == CLSORT_PATH_LOOKBACK);
}
/* The same for the largest sets of variants: --quick runs half of them,
 * each on one path (k % 4 == 0 on the portable path, 1 on the look-back). */
static int quick_few(const test_env *e, unsigned k)
{
    if (!e->quick || e->path == CLSORT_PATH_AUTO) return 1;
    return (int)(k % 4) == (e->path == CLSORT_PATH_LOOKBACK);
}
static int quick_sample(const test_env *e, unsigned k, unsigned n) { return !e->quick || k % n == 0; }

/* Where a case runs: on the context of each cross-work-group path, or on the
 * portable path's alone (its kernels do not depend on the path). */
enum { ON_PORTABLE = 1, ON_LOOKBACK = 2, ON_BOTH = 3 };
/* For which size sets. IN_LIMITS: at --quick only with --limits (make
 * test-limits), not in make test's run: LIMITS_ANY (also --tiny, --full),
 * LIMITS_NOT_TINY (also --full). */
enum { IN_TINY = 1, IN_QUICK = 2, IN_FULL = 4, IN_LIMITS = 8, NOT_TINY = IN_QUICK | IN_FULL,
       NOT_QUICK = IN_TINY | IN_FULL, ANY_SIZE = 7, LIMITS_ANY = IN_TINY | IN_LIMITS | IN_FULL,
       LIMITS_NOT_TINY = IN_LIMITS | IN_FULL };

typedef struct test_case {
    const char *name;
    test_fn fn;
    unsigned paths; /* ON_* */
    unsigned sizes; /* IN_* */
} test_case;

/* A part's context per path: the one the sharing parts share (each program
 * is built once), a fresh one for the part alone (its program cache then
 * holds only its own programs), or none: its cases make their own. */
enum { CTX_SHARED, CTX_OWN, CTX_NONE };

typedef struct test_part {
    const char *name;
    const char *what; /* for --list */
    int ctx;          /* CTX_* */
    int cold_s;       /* about how many seconds a path of it takes at --quick from a cold
                       * PoCL cache on two cores: --jobs hands out the longest first */
    const test_case *cases;
    size_t count;
} test_part;

/* The part of a family file, from its table name_cases. */
#define TEST_PART(name_, what_, ctx_, cold_s_) \
    {#name_, what_, ctx_, cold_s_, name_##_cases, sizeof name_##_cases / sizeof name_##_cases[0]}

/* ---- progress: a line at least every PROGRESS_S seconds of a part ---- */

#define PROGRESS_S 20.0

static struct {
    const char *part, *case_name; /* running now (part NULL: no line) */
    int passed0, failed0;         /* the counts when the part began */
    double part_start, last_line; /* monotonic seconds */
} progress;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Called by every check: long cases print too, not only between cases. */
static void progress_tick(void)
{
    double t;
    if (!progress.part) return;
    t = now_s();
    if (t - progress.last_line < PROGRESS_S) return;
    progress.last_line = t;
    printf("  [%s] %d passed, %d failed so far (%.0f s, in \"%s\")\n", progress.part, passed - progress.passed0,
           failed - progress.failed0, t - progress.part_start, progress.case_name);
    fflush(stdout);
}
#endif
