/* What clsort_prepare leaves for the first call: a new process prepares the
 * calls of one frame (pack -> sort -> gather), then runs the frame several
 * times and prints the first frame's time and the later frames' median.
 * Host clock: CLOCK_MONOTONIC around each frame, which ends with clFinish.
 *   build/prepare_frame [n = 100000] [frames = 5] [--no-prepare] [--prepare-only] [--many]
 * --prepare-only stops after prepare: with PoCL's kernel cache on
 * (POCL_CACHE_DIR), the kernels a later run with frames adds to it are
 * those that prepare did not compile.
 * The frame: pack the keys whose flag is set (every second one, so that the
 * sort's n, prepared ahead, is n/2), sort them with a permutation, gather
 * 12-byte records through it (--many: as two arrays, 8 and 4 bytes, by one
 * clsort_gather_many, as examples/splats.c moves its splats). Each frame has buffers of its own, placed on
 * the device before anything is timed, so that every frame meets its data
 * alike (not in the caches yet) and the first frame differs from the later
 * ones only by what the library and the driver do first. To see what prepare moves out of the first
 * frame on PoCL, run each process with a fresh POCL_CACHE_DIR (or
 * POCL_KERNEL_CACHE=0): make bench-prepare does. Prints one JSON line and
 * every frame's time. */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

typedef struct frame_bufs {
    cl_mem keys, flags, packed, sorted, perm, recs, out, out2;
    size_t n;
    int many; /* the records moved by clsort_gather_many */
} frame_bufs;

static cl_mem buffer(clsort_context *cs, size_t bytes, const void *src)
{
    cl_int e;
    cl_mem m = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | (src ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)src, &e);
    return e == CL_SUCCESS ? m : NULL;
}

static int frame(clsort_context *cs, const frame_bufs *b)
{
    clsort_split_desc sd;
    clsort_sort_desc so;
    size_t kept = 0;
    memset(&sd, 0, sizeof sd);
    memset(&so, 0, sizeof so);
    sd.flags_kind = CLSORT_FLAGS_U32;
    sd.flags = b->flags;
    so.permutation = b->perm;
    if (clsort_pack(cs, b->keys, b->packed, b->n, &sd, &kept, NULL) != CLSORT_SUCCESS) return 0;
    if (clsort_sort(cs, b->packed, b->sorted, kept, &so, NULL) != CLSORT_SUCCESS) return 0;
    if (b->many) {
        clsort_gather_many_desc gd;
        memset(&gd, 0, sizeof gd);
        gd.count = 2;
        gd.arrays[0].src = b->recs, gd.arrays[0].dst = b->out, gd.arrays[0].elem_size = 8;
        gd.arrays[1].src = b->recs, gd.arrays[1].dst = b->out2, gd.arrays[1].elem_size = 4;
        if (clsort_gather_many(cs, b->perm, kept, &gd, NULL) != CLSORT_SUCCESS) return 0;
    } else if (clsort_gather(cs, b->recs, b->out, b->perm, kept, 12, NULL) != CLSORT_SUCCESS)
        return 0;
    return clFinish(clsort_cl_queue(cs)) == CL_SUCCESS;
}

static int prepare(clsort_context *cs, size_t n, int many)
{
    clsort_prepare_call c[3];
    clsort_prepare_desc pd;
    clsort_split_desc sd;
    clsort_sort_desc so;
    memset(c, 0, sizeof c);
    memset(&pd, 0, sizeof pd);
    memset(&sd, 0, sizeof sd);
    memset(&so, 0, sizeof so);
    sd.flags_kind = CLSORT_FLAGS_U32;
    sd.flags = CLSORT_PREPARE_PRESENT;
    so.permutation = CLSORT_PREPARE_PRESENT;
    c[0].op = CLSORT_PREPARE_SPLIT, c[0].split = &sd, c[0].n = n;
    c[1].op = CLSORT_PREPARE_SORT, c[1].sort = &so, c[1].n = n / 2;
    c[2].op = CLSORT_PREPARE_GATHER, c[2].n = n / 2, c[2].elem_size = many ? 8 : 12, c[2].gather_many = many;
    pd.calls = c;
    pd.count = 3;
    return clsort_prepare(cs, &pd) == CLSORT_SUCCESS;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 && argv[1][0] != '-' ? (size_t)atol(argv[1]) : 100000, i;
    int frames = argc > 2 && argv[2][0] != '-' ? atoi(argv[2]) : 5, use_prepare = 1, only = 0, many = 0, f;
    clsort_context_desc d;
    clsort_context *cs = NULL;
    frame_bufs fb[64];
    cl_mem all[8];
    uint32_t *keys, *flags;
    double t0, create_ms, prepare_ms = 0, ms[64], later[64];
    for (f = 1; f < argc; ++f)
        if (strcmp(argv[f], "--no-prepare") == 0) use_prepare = 0;
        else if (strcmp(argv[f], "--prepare-only") == 0) only = 1;
        else if (strcmp(argv[f], "--many") == 0) many = 1;
    if (n < 2) n = 2;
    if (frames < 2 || frames > 64) frames = 5;
    memset(&d, 0, sizeof d);
    d.cache_off = 1; /* the programs come from source: PoCL's own kernel cache is what is measured */
    t0 = now_ms();
    if (clsort_create(&cs, &d) != CLSORT_SUCCESS) return printf("clsort_create: %s\n", clsort_last_error(cs)), 1;
    create_ms = now_ms() - t0;
    keys = (uint32_t *)malloc(n * 12);
    flags = (uint32_t *)malloc(n * 4);
    if (!keys || !flags) return 1;
    for (i = 0; i < n; ++i) flags[i] = (uint32_t)(i % 2);
    for (f = 0; f < frames; ++f) {
        frame_bufs b;
        for (i = 0; i < n; ++i) keys[i] = (uint32_t)(i * 2654435761u);
        b.n = n;
        b.many = many;
        b.keys = buffer(cs, n * 4, keys), b.flags = buffer(cs, n * 4, flags);
        b.packed = buffer(cs, n * 4, NULL), b.sorted = buffer(cs, n * 4, NULL), b.perm = buffer(cs, n * 4, NULL);
        for (i = 0; i < 3 * n; ++i) keys[i] = (uint32_t)i;
        b.recs = buffer(cs, n * 12, keys), b.out = buffer(cs, n * 12, NULL), b.out2 = buffer(cs, n * 4, NULL);
        if (!b.keys || !b.flags || !b.packed || !b.sorted || !b.perm || !b.recs || !b.out || !b.out2 ||
            clFinish(clsort_cl_queue(cs)))
            return printf("buffers\n"), 1;
        fb[f] = b;
        all[0] = b.keys, all[1] = b.flags, all[2] = b.packed, all[3] = b.sorted, all[4] = b.perm, all[5] = b.recs;
        all[6] = b.out, all[7] = b.out2;
        /* on the device before anything is timed: a buffer's first placement
         * is the application's cost, not the first call's */
        if (clEnqueueMigrateMemObjects(clsort_cl_queue(cs), 8, all, 0, 0, NULL, NULL) != CL_SUCCESS ||
            clFinish(clsort_cl_queue(cs)) != CL_SUCCESS)
            return printf("clEnqueueMigrateMemObjects\n"), 1;
    }
    if (use_prepare) {
        t0 = now_ms();
        if (!prepare(cs, n, many)) return printf("clsort_prepare: %s\n", clsort_last_error(cs)), 1;
        prepare_ms = now_ms() - t0;
    }
    if (only) {
        printf("{\"device\": \"%s\", \"n\": %lu, \"prepare_ms\": %.2f}\n", clsort_device_name(cs), (unsigned long)n,
               prepare_ms);
        clsort_destroy(cs);
        return 0;
    }
    for (f = 0; f < frames; ++f) {
        t0 = now_ms();
        if (!frame(cs, &fb[f])) return printf("frame %d: %s\n", f, clsort_last_error(cs)), 1;
        ms[f] = now_ms() - t0;
        later[f] = ms[f];
    }
    for (f = 1; f < frames; ++f) { /* the later frames' median: insertion sort of frames 1 .. */
        int g;
        double v = later[f];
        for (g = f - 1; g >= 1 && later[g] > v; --g) later[g + 1] = later[g];
        later[g + 1] = v;
    }
    printf("{\"device\": \"%s\", \"n\": %lu, \"prepare\": %d, \"gather_many\": %d, \"create_ms\": %.2f, "
           "\"prepare_ms\": %.2f, \"first_ms\": %.3f, \"later_median_ms\": %.3f}\n",
           clsort_device_name(cs), (unsigned long)n, use_prepare, many, create_ms, prepare_ms, ms[0],
           later[1 + (frames - 1) / 2]);
    printf("frames ms:");
    for (f = 0; f < frames; ++f) printf(" %.3f", ms[f]);
    printf("\n");
    clsort_destroy(cs);
    free(keys), free(flags);
    return 0;
}
