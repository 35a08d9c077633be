/* A stand-in for libcuda (the CUDA driver API), for tests/test_cache.c on
 * machines without an NVIDIA driver: the entry points clsort's NVIDIA cache
 * entries use (clsort.h >>cubin), exported under the names libcuda exports
 * them, with counts the test reads back (fake_cuda_count). Built by make as
 * build/libfakecuda.so; the test names it in CLSORT_CUDA_LIBRARY.
 *   FAKE_CUDA_DEVICES  "domain:bus:device:major:minor,..." (default one
 *                      device, "0:1:0:9:0")
 *   FAKE_CUDA_FAIL     an exported name (e.g. cuLinkAddData_v2): that call
 *                      returns 999 (CUDA_ERROR_UNKNOWN); calls that release
 *                      something release it first, then report the error
 *   FAKE_CUDA_CUBIN    a file: cuLinkComplete's image (default: 16 bytes
 *                      that no OpenCL driver takes)
 *   FAKE_CUDA_REGS     the register count cuFuncGetAttribute answers
 *                      (default 40)
 * Read at every call, so that a test can change them between contexts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_FAIL 999

static int n_init, n_retain, n_release, n_push, n_pop, n_create, n_destroy, n_add, n_complete, n_load, n_unload;
static int n_maxnreg, last_maxnreg = -1, last_regs_level = -1;
static int last_level = -1, last_maxreg = -1, last_input = -1, ptx_terminated = -1, depth;
static unsigned char image[1 << 22];

static int fails(const char *name)
{
    const char *f = getenv("FAKE_CUDA_FAIL");
    return f && strcmp(f, name) == 0;
}

/* device i of FAKE_CUDA_DEVICES: its 5 numbers; 0 when there is none */
static int device_ids(int i, int ids[5])
{
    const char *s = getenv("FAKE_CUDA_DEVICES");
    int k;
    if (!s || !*s) s = "0:1:0:9:0";
    for (k = 0; k < i; ++k) {
        s = strchr(s, ',');
        if (!s) return 0;
        ++s;
    }
    return sscanf(s, "%d:%d:%d:%d:%d", &ids[0], &ids[1], &ids[2], &ids[3], &ids[4]) == 5;
}

int fake_cuda_count(const char *what)
{
    static const char *const names[] = {"init", "retain", "release", "push", "pop", "create", "destroy", "add",
                                        "complete", "level", "maxreg", "input", "terminated", "depth",
                                        "load", "unload", "maxnreg", "maxnreg_value", "regs_level"};
    const int values[] = {n_init, n_retain, n_release, n_push, n_pop, n_create, n_destroy, n_add,
                          n_complete, last_level, last_maxreg, last_input, ptx_terminated, depth,
                          n_load, n_unload, n_maxnreg, last_maxnreg, last_regs_level};
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (strcmp(names[i], what) == 0) return values[i];
    return -1000;
}

void fake_cuda_reset(void)
{
    n_init = n_retain = n_release = n_push = n_pop = n_create = n_destroy = n_add = n_complete = 0;
    n_load = n_unload = n_maxnreg = 0;
    last_level = last_maxreg = last_input = ptx_terminated = last_maxnreg = last_regs_level = -1;
    depth = 0;
}

int cuGetErrorName(int r, const char **name)
{
    *name = r == FAKE_FAIL ? "CUDA_ERROR_UNKNOWN" : "CUDA_ERROR_FAKE";
    return 0;
}

int cuInit(unsigned flags)
{
    (void)flags;
    if (fails("cuInit")) return FAKE_FAIL;
    ++n_init;
    return 0;
}

int cuDeviceGetCount(int *n)
{
    int ids[5];
    if (fails("cuDeviceGetCount")) return FAKE_FAIL;
    for (*n = 0; device_ids(*n, ids); ++*n) {
    }
    return 0;
}

int cuDeviceGet(int *dev, int ordinal)
{
    if (fails("cuDeviceGet")) return FAKE_FAIL;
    *dev = 100 + ordinal;
    return 0;
}

int cuDeviceGetAttribute(int *v, int attr, int dev)
{
    int ids[5];
    if (fails("cuDeviceGetAttribute") || !device_ids(dev - 100, ids)) return FAKE_FAIL;
    switch (attr) {
    case 50: *v = ids[0]; return 0; /* CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID */
    case 33: *v = ids[1]; return 0; /* PCI_BUS_ID */
    case 34: *v = ids[2]; return 0; /* PCI_DEVICE_ID */
    case 75: *v = ids[3]; return 0; /* COMPUTE_CAPABILITY_MAJOR */
    case 76: *v = ids[4]; return 0; /* COMPUTE_CAPABILITY_MINOR */
    }
    return 1; /* CUDA_ERROR_INVALID_VALUE */
}

static int primary_ctx; /* its address is the context */

int cuDevicePrimaryCtxRetain(void **ctx, int dev)
{
    (void)dev;
    if (fails("cuDevicePrimaryCtxRetain")) return FAKE_FAIL;
    *ctx = &primary_ctx;
    ++n_retain;
    return 0;
}

int cuDevicePrimaryCtxRelease_v2(int dev)
{
    (void)dev;
    ++n_release;
    return fails("cuDevicePrimaryCtxRelease_v2") ? FAKE_FAIL : 0;
}

int cuCtxPushCurrent_v2(void *ctx)
{
    if (fails("cuCtxPushCurrent_v2") || ctx != &primary_ctx) return FAKE_FAIL;
    ++n_push, ++depth;
    return 0;
}

int cuCtxPopCurrent_v2(void **ctx)
{
    ++n_pop, --depth;
    if (ctx) *ctx = &primary_ctx;
    return fails("cuCtxPopCurrent_v2") ? FAKE_FAIL : 0;
}

typedef struct fake_link {
    int added;
} fake_link;

int cuLinkCreate_v2(unsigned n, int *opts, void **vals, void **state)
{
    unsigned i;
    if (fails("cuLinkCreate_v2") || depth <= 0) return FAKE_FAIL; /* a context must be current */
    for (i = 0; i < n; ++i) {
        if (opts[i] == 7) last_level = (int)(size_t)vals[i]; /* CU_JIT_OPTIMIZATION_LEVEL */
        if (opts[i] == 0) last_maxreg = (int)(size_t)vals[i]; /* CU_JIT_MAX_REGISTERS */
        if (opts[i] == 5 && vals[i]) strcpy((char *)vals[i], "fake JIT: line 1\nline 2"); /* ERROR_LOG_BUFFER */
    }
    *state = calloc(1, sizeof(fake_link));
    if (!*state) return 2;
    ++n_create;
    return 0;
}

int cuLinkAddData_v2(void *state, int type, void *data, size_t size, const char *name, unsigned n, int *opts,
                     void **vals)
{
    (void)name, (void)n, (void)opts, (void)vals;
    if (fails("cuLinkAddData_v2")) return FAKE_FAIL;
    last_input = type;
    ptx_terminated = size > 0 && ((const char *)data)[size - 1] == '\0' && strlen((const char *)data) == size - 1;
    if (ptx_terminated) { /* the .maxnreg directives clsort put in (count, last value) */
        const char *t = (const char *)data;
        n_maxnreg = 0;
        while ((t = strstr(t, ".maxnreg ")) != NULL) {
            ++n_maxnreg;
            last_maxnreg = atoi(t + 9);
            t += 9;
        }
    }
    ((fake_link *)state)->added = 1;
    ++n_add;
    return 0;
}

int cuLinkComplete(void *state, void **cubin, size_t *size)
{
    const char *path = getenv("FAKE_CUDA_CUBIN");
    if (fails("cuLinkComplete") || !((fake_link *)state)->added) return FAKE_FAIL;
    if (path && *path) {
        FILE *f = fopen(path, "rb");
        if (!f) return FAKE_FAIL;
        *size = fread(image, 1, sizeof image, f);
        fclose(f);
    } else {
        memcpy(image, "\177ELF fake cubin", 16);
        *size = 16;
    }
    *cubin = image;
    ++n_complete;
    return 0;
}

int cuLinkDestroy(void *state)
{
    free(state);
    ++n_destroy;
    return fails("cuLinkDestroy") ? FAKE_FAIL : 0;
}

/* the whole-program JIT clsort asks for register counts: a module that
 * only remembers it was loaded; every function of it has FAKE_CUDA_REGS */
static int fake_module;

int cuModuleLoadDataEx(void **module, const void *image, unsigned n, int *opts, void **vals)
{
    unsigned i;
    if (fails("cuModuleLoadDataEx") || depth <= 0 || !image) return FAKE_FAIL;
    for (i = 0; i < n; ++i)
        if (opts[i] == 7) last_regs_level = (int)(size_t)vals[i];
    *module = &fake_module;
    ++n_load;
    return 0;
}

int cuModuleGetFunction(void **f, void *module, const char *name)
{
    if (fails("cuModuleGetFunction") || module != &fake_module || !name || !*name) return FAKE_FAIL;
    *f = &fake_module;
    return 0;
}

int cuFuncGetAttribute(int *v, int attr, void *f)
{
    const char *r = getenv("FAKE_CUDA_REGS");
    if (fails("cuFuncGetAttribute") || attr != 4 || f != &fake_module) return FAKE_FAIL;
    *v = r && *r ? atoi(r) : 40;
    return 0;
}

int cuModuleUnload(void *module)
{
    ++n_unload;
    return fails("cuModuleUnload") || module != &fake_module ? FAKE_FAIL : 0;
}
