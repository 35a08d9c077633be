/* clsort test suite: every primitive against a plain C reference, on both
 * cross-work-group paths (portable and look-back), on the default device
 * (CLSORT_DEVICE picks another). One program; the cases live in one file per
 * part, included below in the family order (the Makefile's TEST_PARTS: the
 * families of CLSORT_FAMILIES, then api, budget and stress).
 *
 *   test_clsort [--quick | --tiny | --full] [PART ...] [--filter TEXT] [--path portable|lookback] [--list]
 *               [--verbose]
 *
 *   --full   (the default) sizes up to 2^22; --quick: the common sizes up to 8193, the
 *            large cases up to about 3 x 10^5 (make test, the sanitizers, portability);
 *            --tiny: a few sizes around tile edges (oclgrind)
 *   PART     only these parts (test_clsort --list names them and their cases);
 *            the older names radix, bin and base are refused with the new
 *            ones (sort, binning; scan split api)
 *   --filter only the cases whose "part/case" name contains TEXT
 *   --path   the cases that run on each path run on this one only (the
 *            path-independent ones with portable); budget and stress make
 *            their own contexts and run either way
 *   --verbose a line per case run: its counts and seconds
 *
 * Prints a line per part and a progress line at least every 20 s of a
 * part; only failed checks print FAIL lines. The last line is
 * "N passed, N failed" over every check run; the exit status is 0 when
 * none failed, 1 when one did, 2 on a bad command line or a selection of
 * no case. */
#include "check.h"

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_devcount.c"
#include "test_scan.c"
#include "test_split.c"
#include "test_gather.c"
#include "test_sort.c"
#include "test_bitonic.c"
#include "test_binning.c"
#include "test_reduce.c"
#include "test_nbody.c"
#include "test_tree.c"
#include "test_select.c"
#include "test_search.c"
#include "test_merge.c"
#include "test_top_k.c"
#include "test_api.c"
#include "test_budget.c"
#include "test_stress.c"

/* The parts in the order they run: one per family, from the registry
 * (CLSORT_FAMILIES, in the family order: a family without its <name>_part
 * does not compile), then the parts the families share: what every call
 * shares (api), the loop budget and the look-back stress. */
#define TEST_FAMILY_PART(id, name, prepare) &name##_part,
#define TEST_SHARED_PARTS(X) X(api) X(budget) X(stress)
#define TEST_SHARED_PART(name) &name##_part,
static const test_part *const parts[] = {CLSORT_FAMILIES(TEST_FAMILY_PART) TEST_SHARED_PARTS(TEST_SHARED_PART)};
#define PART_COUNT (sizeof parts / sizeof parts[0])

/* Older part names: refused with the parts that replace them. */
static const struct { const char *name, *now; } part_renamed[] = {
    {"radix", "sort"}, {"bin", "binning"}, {"base", "scan split api"}};

typedef struct run_options {
    int quick, tiny, list, verbose;
    int limits;                    /* --limits: at --quick the cases marked for make test-limits alone */
    int jobs;                      /* processes that share the units (--jobs) */
    unsigned paths;                /* ON_PORTABLE | ON_LOOKBACK */
    const char *filter;            /* NULL: every case */
    unsigned char chosen[PART_COUNT]; /* all zero: every part */
    int any_chosen;
} run_options;

static size_t part_index(const char *name)
{
    size_t i;
    for (i = 0; i < PART_COUNT; ++i)
        if (strcmp(parts[i]->name, name) == 0) return i;
    return PART_COUNT;
}

/* Marks the part `name`; 0 if unknown. */
static int choose_part(run_options *o, const char *name)
{
    size_t i = part_index(name);
    if (i == PART_COUNT) return 0;
    o->chosen[i] = 1;
    return o->any_chosen = 1;
}

static int usage(const char *why)
{
    size_t i;
    printf("test_clsort: %s\nusage: test_clsort [--quick|--tiny|--full] [--limits] [PART ...] [--filter TEXT] "
           "[--path portable|lookback] [--jobs N] [--list] [--verbose]\nparts:", why);
    for (i = 0; i < PART_COUNT; ++i) printf(" %s", parts[i]->name);
    printf("\n");
    return 2;
}

/* 0, or the exit status of a bad command line. */
static int parse_options(run_options *o, int argc, char **argv)
{
    int i;
    memset(o, 0, sizeof *o);
    o->paths = ON_BOTH;
    o->jobs = 1;
    for (i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--quick") == 0) o->quick = 1, o->tiny = 0;
        else if (strcmp(a, "--tiny") == 0) o->quick = o->tiny = 1;
        else if (strcmp(a, "--full") == 0) o->quick = o->tiny = 0;
        else if (strcmp(a, "--list") == 0) o->list = 1;
        else if (strcmp(a, "--verbose") == 0) o->verbose = 1;
        else if (strcmp(a, "--limits") == 0) o->limits = 1;
        else if (strcmp(a, "--jobs") == 0 && i + 1 < argc) {
            o->jobs = atoi(argv[++i]);
            if (o->jobs < 1 || o->jobs > 16) return usage("--jobs takes 1 to 16");
        }
        else if (strcmp(a, "--filter") == 0 && i + 1 < argc) o->filter = argv[++i];
        else if (strcmp(a, "--path") == 0 && i + 1 < argc) {
            a = argv[++i];
            if (strcmp(a, "portable") == 0) o->paths = ON_PORTABLE;
            else if (strcmp(a, "lookback") == 0) o->paths = ON_LOOKBACK;
            else return usage("--path takes portable or lookback");
        } else if (strcmp(a, "portable") == 0) o->paths = ON_PORTABLE; /* the older positional form */
        else if (strcmp(a, "lookback") == 0) o->paths = ON_LOOKBACK;
        else if (a[0] == '-' || !choose_part(o, a)) {
            char why[160];
            size_t r;
            snprintf(why, sizeof why, "unknown argument \"%.60s\"", a);
            for (r = 0; r < sizeof part_renamed / sizeof part_renamed[0]; ++r)
                if (strcmp(part_renamed[r].name, a) == 0)
                    snprintf(why, sizeof why, "the part %s is now named %s", a, part_renamed[r].now);
            return usage(why);
        }
    }
    return 0;
}

/* --limits selects, at --quick, the cases that make test leaves to make
 * test-limits (IN_LIMITS: their cold builds would take make test past its
 * five minutes on two cores), and only those. */
static int size_set(const run_options *o)
{
    return o->tiny ? IN_TINY : o->quick ? (o->limits ? IN_LIMITS : IN_QUICK) : IN_FULL;
}

static int case_selected(const run_options *o, const test_part *p, const test_case *c)
{
    char full[160];
    if (!(c->sizes & (unsigned)size_set(o))) return 0;
    snprintf(full, sizeof full, "%s/%s", p->name, c->name);
    return !o->filter || strstr(full, o->filter) != NULL;
}

static void list_parts(const run_options *o)
{
    size_t i, k;
    for (i = 0; i < PART_COUNT; ++i) {
        const test_part *p = parts[i];
        printf("%s: %s\n", p->name, p->what);
        for (k = 0; k < p->count; ++k) {
            const test_case *c = &p->cases[k];
            printf("  %s/%s%s%s%s\n", p->name, c->name,
                   p->ctx == CTX_NONE ? "" : c->paths == ON_BOTH ? " [each path]" : c->paths == ON_PORTABLE ? " [portable]" : " [lookback]",
                   c->sizes == IN_FULL ? " [--full]" : c->sizes == NOT_TINY ? " [not --tiny]" : c->sizes == NOT_QUICK ? " [not --quick]"
                   : c->sizes == IN_TINY ? " [--tiny]" : c->sizes & IN_LIMITS ? " [--quick only with --limits]" : "",
                   case_selected(o, p, c) ? "" : " (not selected)");
        }
    }
}

/* The contexts the sharing parts share, one per path, made on first use. */
typedef struct shared_contexts {
    clsort_context *cs[2];
    int announced[2]; /* the device line printed */
} shared_contexts;

static const char *path_label(int path) { return path == CLSORT_PATH_PORTABLE ? "portable" : "lookback"; }

/* A context on path; exits (the suite cannot run) when none can be made. */
static clsort_context *make_context(shared_contexts *sh, int path)
{
    clsort_context *cs = NULL;
    clsort_context_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.path = (clsort_path)path;
    if (clsort_create(&cs, &desc) != CLSORT_SUCCESS) {
        printf("clsort_create: %s\n", clsort_last_error(cs));
        clsort_destroy(cs);
        printf("%d passed, %d failed\n", passed, failed + 1);
        exit(1);
    }
    if (!sh->announced[path - CLSORT_PATH_PORTABLE]) {
        printf("device: %s, path: %s\n", clsort_device_name(cs), path_label(path));
        sh->announced[path - CLSORT_PATH_PORTABLE] = 1;
    }
    return cs;
}

/* With CLSORT_CACHE_DIR set: how the programs of cs came. */
static void print_cache_stats(clsort_context *cs)
{
    clsort_cache_stats st;
    if (clsort_cache_stats_get(cs, &st) == CLSORT_SUCCESS && st.enabled)
        printf("  program cache %s: %lu built from source, %lu from the cache, %lu rejected, %lu stored (%lu as "
               "cubin)%s%s\n",
               st.dir, st.builds, st.hits, st.rejected, st.stores, st.cubins, st.warning[0] ? "; " : "", st.warning);
}

/* Each case starts the generator from its own name and path, so that it
 * sees the same data alone (--filter), in a full run and in any job. */
static uint64_t case_seed(const char *part, const char *name, clsort_path path)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    const char *s;
    for (s = part; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    for (s = name; *s; ++s) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    h = (h ^ (uint64_t)path) * 1099511628211ull;
    return h ? h : 88172645463325252ull; /* xorshift stays at 0 */
}

static void run_case(const run_options *o, const test_part *p, const test_case *c, test_env *env)
{
    int passed0 = passed, failed0 = failed;
    double start = now_s();
    progress.case_name = c->name;
    path_name = env->cs ? path_label(env->path) : p->name;
    rng = case_seed(p->name, c->name, env->path);
    c->fn(env);
    if (o->verbose)
        printf("    %s/%s%s%s: %d passed, %d failed (%.1f s)\n", p->name, c->name, env->cs ? ", " : "",
               env->cs ? path_label(env->path) : "", passed - passed0, failed - failed0, now_s() - start);
    progress_tick();
}

/* Case k of p runs on path (ON_PORTABLE or ON_LOOKBACK); the cases of parts
 * without a context run once, on the first. */
static int runs_on(const run_options *o, const test_part *p, size_t k, unsigned on)
{
    if (!case_selected(o, p, &p->cases[k])) return 0;
    return p->ctx == CTX_NONE ? on == ON_PORTABLE : (p->cases[k].paths & on & o->paths) != 0;
}

static int part_runs(const run_options *o, const test_part *p, unsigned on)
{
    size_t k;
    for (k = 0; k < p->count; ++k)
        if (runs_on(o, p, k, on)) return 1;
    return 0;
}

static int part_chosen(const run_options *o, size_t i)
{
    return (!o->any_chosen || o->chosen[i]) && (part_runs(o, parts[i], ON_PORTABLE) || part_runs(o, parts[i], ON_LOOKBACK));
}

static int any_selected(const run_options *o)
{
    size_t i;
    for (i = 0; i < PART_COUNT; ++i)
        if (part_chosen(o, i)) return 1;
    return 0;
}

/* The unit of work: one part on one path (a part without a context of its
 * own runs once, as the portable one). */
typedef struct unit {
    size_t part;
    int path; /* CLSORT_PATH_PORTABLE or CLSORT_PATH_LOOKBACK */
} unit;

static size_t list_units(const run_options *o, unit *u)
{
    size_t i, n = 0;
    int path;
    for (i = 0; i < PART_COUNT; ++i)
        for (path = CLSORT_PATH_PORTABLE; path <= CLSORT_PATH_LOOKBACK; ++path)
            if (part_chosen(o, i) && part_runs(o, parts[i], path == CLSORT_PATH_PORTABLE ? ON_PORTABLE : ON_LOOKBACK)) {
                u[n].part = i;
                u[n++].path = path;
            }
    return n;
}

/* With --jobs: the longest units first (a stable insertion sort by cold_s),
 * so that no long one starts last. */
static void longest_first(unit *u, size_t n)
{
    size_t i, j;
    for (i = 1; i < n; ++i) {
        unit x = u[i];
        for (j = i; j > 0 && parts[u[j - 1].part]->cold_s < parts[x.part]->cold_s; --j) u[j] = u[j - 1];
        u[j] = x;
    }
}

/* The unit's selected cases on its path's context, then its line. */
static void run_unit(const run_options *o, unit u, shared_contexts *sh, test_env *env)
{
    const test_part *p = parts[u.part];
    unsigned on = u.path == CLSORT_PATH_PORTABLE ? ON_PORTABLE : ON_LOOKBACK;
    clsort_context **shared = &sh->cs[u.path - CLSORT_PATH_PORTABLE];
    char label[64];
    size_t k;
    snprintf(label, sizeof label, "%s%s%s", p->name, p->ctx == CTX_NONE ? "" : ", ",
             p->ctx == CTX_NONE ? "" : path_label(u.path));
    progress.part = label;
    progress.passed0 = passed;
    progress.failed0 = failed;
    progress.part_start = progress.last_line = now_s();
    env->path = p->ctx == CTX_NONE ? CLSORT_PATH_AUTO : (clsort_path)u.path;
    env->cs = NULL;
    if (p->ctx == CTX_OWN) env->cs = make_context(sh, u.path);
    if (p->ctx == CTX_SHARED) env->cs = *shared ? *shared : (*shared = make_context(sh, u.path));
    for (k = 0; k < p->count; ++k)
        if (runs_on(o, p, k, on)) run_case(o, p, &p->cases[k], env);
    if (p->ctx == CTX_OWN) clsort_destroy(env->cs);
    env->cs = NULL;
    printf("  [%s] %d passed, %d failed (%.0f s)\n", label, passed - progress.passed0, failed - progress.failed0,
           now_s() - progress.part_start);
    progress.part = NULL;
}

/* --jobs N: the units wait in a pipe, one byte each, and N processes (this
 * one and N - 1 forked before any OpenCL call) take them in turn, so that N
 * cores compile the programs of a cold cache. Each process prints its own
 * lines (whole lines, written at once); a child sends its counts back
 * through a second pipe and the first process prints the sum. */
typedef struct job_pipes {
    int units[2], counts[2];
    pid_t pids[16];
    int children;
} job_pipes;

/* 0 when the jobs run; -1 (and a message) when a pipe or fork failed. */
static int start_jobs(job_pipes *jp, size_t n, int jobs)
{
    unsigned char b[2 * PART_COUNT]; /* list_units: at most a unit per part and path */
    size_t i;
    memset(jp, 0, sizeof *jp);
    if (pipe(jp->units) != 0 || pipe(jp->counts) != 0) return printf("--jobs: pipe failed\n"), -1;
    for (i = 0; i < n; ++i) b[i] = (unsigned char)i;
    if (write(jp->units[1], b, n) != (ssize_t)n) return printf("--jobs: write to the unit pipe failed\n"), -1;
    close(jp->units[1]);
    fflush(stdout);
    for (jp->children = 0; jp->children < jobs - 1; ++jp->children) {
        pid_t pid = fork();
        if (pid < 0) return printf("--jobs: fork failed\n"), -1;
        if (pid == 0) {
            jp->children = -1; /* this process is a child */
            close(jp->counts[0]);
            return 0;
        }
        jp->pids[jp->children] = pid;
    }
    close(jp->counts[1]);
    return 0;
}

/* The next unit's index, or -1 when none is left. */
static int next_unit(const job_pipes *jp, size_t *next, size_t n, int jobs)
{
    unsigned char b;
    if (jobs == 1) return *next < n ? (int)(*next)++ : -1;
    return read(jp->units[0], &b, 1) == 1 ? (int)b : -1;
}

/* In the first process: each child's counts added to passed and failed; a
 * child that ended without sending them counts a failure. */
static void gather_jobs(const job_pipes *jp)
{
    int i, got = 0, c[2];
    while (read(jp->counts[0], c, sizeof c) == (ssize_t)sizeof c) passed += c[0], failed += c[1], ++got;
    for (i = 0; i < jp->children; ++i) {
        int st = 0;
        waitpid(jp->pids[i], &st, 0);
        if (!WIFEXITED(st)) printf("FAIL job %d (pid %ld) ended by signal %d\n", i + 2, (long)jp->pids[i], WTERMSIG(st));
    }
    if (got < jp->children) {
        printf("FAIL %d of %d jobs ended before sending their counts\n", jp->children - got, jp->children);
        failed += jp->children - got;
    }
}

int main(int argc, char **argv)
{
    static const size_t base_sizes[] = {0, 1, 2, 3, 7, 31, 255, 256, 257, 1009, 2047, 2048, 2049, 4095, 4096, 4097,
                                        8191, 8192, 8193, 65537};
    run_options o;
    shared_contexts sh;
    test_env env;
    unit units[2 * PART_COUNT];
    job_pipes jp;
    size_t sizes[32], i, nunits, next = 0;
    int status = parse_options(&o, argc, argv), path, u;
    if (status) return status;
    setvbuf(stdout, NULL, _IOLBF, 0); /* progress reaches a log as it happens */
    if (o.list) {
        list_parts(&o);
        return 0;
    }
    memset(&env, 0, sizeof env);
    memset(&sh, 0, sizeof sh);
    memset(&jp, 0, sizeof jp);
    env.quick = o.quick;
    env.tiny = o.tiny;
    env.sizes = sizes;
    for (i = 0; i < sizeof base_sizes / sizeof base_sizes[0]; ++i)
        if (o.tiny ? (i == 0 || i == 1 || i == 3 || i == 8 || i == 15) : (!o.quick || base_sizes[i] <= 8193))
            sizes[env.nsizes++] = base_sizes[i];
    if (!o.quick) sizes[env.nsizes++] = ((size_t)1 << 20) + 1;
    if (!any_selected(&o)) return usage("no case selected (test_clsort --list names them)");
    nunits = list_units(&o, units);
    if (o.jobs > (int)nunits) o.jobs = (int)nunits;
    if (o.jobs > 1) longest_first(units, nunits);
    if (o.jobs > 1 && start_jobs(&jp, nunits, o.jobs) != 0) return 1;
    while ((u = next_unit(&jp, &next, nunits, o.jobs)) >= 0) run_unit(&o, units[u], &sh, &env);
    for (path = 0; path < 2; ++path)
        if (sh.cs[path]) {
            print_cache_stats(sh.cs[path]);
            clsort_destroy(sh.cs[path]);
        }
    if (o.jobs > 1 && jp.children < 0) { /* a child: its counts to the first process */
        int c[2];
        c[0] = passed, c[1] = failed;
        fflush(stdout);
        return write(jp.counts[1], c, sizeof c) == (ssize_t)sizeof c ? 0 : 1;
    }
    if (o.jobs > 1) gather_jobs(&jp);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
