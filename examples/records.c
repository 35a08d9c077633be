/* records: 32-byte particle records through a caller's OpenCL C code
 * (clsort.h USER OPERATORS), each result checked against the host:
 *   1. the records sorted by a Morton key computed from their position
 *      (clsort_sort with desc.user_op.transform: the sort's user key);
 *   2. how many particles lie inside a sphere (clsort_reduce of u32 SUM
 *      over a caller's transform of each record: 1 inside, 0 outside; no
 *      temporary array);
 *   3. the particle nearest a point and its index (clsort_reduce with an
 *      argmin operator over (distance^2, index) pairs made from the records
 *      by a transform with the index).
 * Positions are multiples of 1/1024 in [0, 1), so that every distance^2 is
 * exact in float on the device and the host alike.
 * (build: cc -std=c99 -I. examples/records.c -lOpenCL -lm; run: records [N]) */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct particle {
    float pos[4]; /* x, y, z, mass */
    float vel[4]; /* velocity, id */
} particle;

static const char particle_src[] =
    "typedef struct { float4 pos; float4 vel; } particle;\n"
    "uint spread(uint v)\n"
    "{\n"
    "    v &= 1023u; v = (v | v << 16) & 0x030000FFu; v = (v | v << 8) & 0x0300F00Fu;\n"
    "    v = (v | v << 4) & 0x030C30C3u; return (v | v << 2) & 0x09249249u;\n"
    "}\n"
    "uint morton(particle p)\n"
    "{\n"
    "    return spread((uint)(p.pos.x * 1024.0f)) | spread((uint)(p.pos.y * 1024.0f)) << 1 |\n"
    "           spread((uint)(p.pos.z * 1024.0f)) << 2;\n"
    "}\n"
    "typedef struct { float d; uint i; } nearest;\n"
    "nearest closer(nearest a, nearest b) { return b.d < a.d || (b.d == a.d && b.i < a.i) ? b : a; }\n"
    "nearest dist_to_q(particle p, ulong i)\n"
    "{\n"
    "    float3 d = p.pos.xyz - (float3)(0.25f, 0.5f, 0.75f);\n"
    "    nearest r = {dot(d, d), (uint)i};\n"
    "    return r;\n"
    "}\n";

static const char sphere_src[] = /* centre (0.5, 0.5, 0.5), radius 0.25 */
    "typedef struct { float4 pos; float4 vel; } particle;\n"
    "uint inside(particle p)\n"
    "{\n"
    "    float3 d = p.pos.xyz - (float3)(0.5f, 0.5f, 0.5f);\n"
    "    return d.x * d.x + d.y * d.y + d.z * d.z < 0.0625f;\n"
    "}\n";

static uint32_t spread(uint32_t v)
{
    v &= 1023u;
    v = (v | v << 16) & 0x030000FFu;
    v = (v | v << 8) & 0x0300F00Fu;
    v = (v | v << 4) & 0x030C30C3u;
    return (v | v << 2) & 0x09249249u;
}
static uint32_t morton(const particle *p)
{
    return spread((uint32_t)(p->pos[0] * 1024.0f)) | spread((uint32_t)(p->pos[1] * 1024.0f)) << 1 |
           spread((uint32_t)(p->pos[2] * 1024.0f)) << 2;
}
static int inside(float z, float x, float y)
{
    float dx = x - 0.5f, dy = y - 0.5f, dz = z - 0.5f;
    return dx * dx + dy * dy + dz * dz < 0.0625f;
}

static const particle *base;
static int by_morton(const void *a, const void *b) /* stable: ties by input position */
{
    uint32_t ia = *(const uint32_t *)a, ib = *(const uint32_t *)b, ka = morton(&base[ia]), kb = morton(&base[ib]);
    return ka != kb ? (ka < kb ? -1 : 1) : (ia < ib ? -1 : ia > ib);
}

static int report(const char *what, int ok, const char *detail)
{
    printf("records: %-44s %s (%s)\n", what, ok ? "ok" : "MISMATCH", detail);
    return ok;
}

static cl_mem upload(clsort_context *cs, size_t bytes, const void *src)
{
    cl_int e;
    cl_mem m = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | (src ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes ? bytes : 4, (void *)src, &e);
    return e == CL_SUCCESS ? m : NULL;
}

/* 1. the records sorted by their Morton codes (a stable sort) */
static int sort_check(clsort_context *cs, const particle *p, particle *sorted, size_t n, int *fail)
{
    uint32_t *order = (uint32_t *)malloc(n * 4 + 4);
    cl_mem d = upload(cs, n * sizeof *p, p);
    clsort_sort_desc sd;
    size_t i, bad = n;
    char msg[96];
    int r;
    memset(&sd, 0, sizeof sd);
    sd.type = CLSORT_U32;
    sd.user_op.source = particle_src;
    sd.user_op.transform = "morton";
    sd.user_op.in_type = "particle";
    sd.user_op.in_size = sizeof(particle);
    r = clsort_sort(cs, d, d, n, &sd, NULL); /* in place */
    if (r == CLSORT_SUCCESS)
        r = clEnqueueReadBuffer(clsort_cl_queue(cs), d, CL_TRUE, 0, n * sizeof *p, sorted, 0, NULL, NULL) == CL_SUCCESS
                ? CLSORT_SUCCESS : CLSORT_ERROR_OPENCL;
    clReleaseMemObject(d);
    if (r != CLSORT_SUCCESS) return 0;
    for (i = 0; i < n; ++i) order[i] = (uint32_t)i;
    base = p;
    qsort(order, n, 4, by_morton);
    for (i = 0; i < n && bad == n; ++i)
        if (memcmp(&sorted[i], &p[order[i]], sizeof *p) != 0) bad = i;
    snprintf(msg, sizeof msg, "%lu records of %lu bytes, first difference %ld", (unsigned long)n,
             (unsigned long)sizeof *p, bad == n ? -1L : (long)bad);
    *fail |= !report("sorted by a Morton key (sort's user key)", bad == n, msg);
    free(order);
    return 1;
}

/* 2. how many particles lie inside the sphere: a u32 sum of a transform of the records */
static int sphere_check(clsort_context *cs, const particle *p, size_t n, int *fail)
{
    cl_mem d = upload(cs, n * sizeof *p, p);
    clsort_reduce_desc rd;
    uint32_t got = 0, want = 0;
    size_t i;
    char msg[96];
    int r;
    memset(&rd, 0, sizeof rd);
    rd.type = CLSORT_U32;
    rd.op = CLSORT_OP_SUM;
    rd.user_op.source = sphere_src;
    rd.user_op.transform = "inside";
    rd.user_op.in_type = "particle";
    rd.user_op.in_size = sizeof(particle);
    r = clsort_reduce(cs, d, n, &rd, &got, NULL);
    clReleaseMemObject(d);
    if (r != CLSORT_SUCCESS) return 0;
    for (i = 0; i < n; ++i) want += (uint32_t)inside(p[i].pos[2], p[i].pos[0], p[i].pos[1]);
    snprintf(msg, sizeof msg, "%u of %lu inside, host %u", got, (unsigned long)n, want);
    *fail |= !report("inside a sphere (a count by a transform, u32 SUM)", got == want, msg);
    return 1;
}

/* 3. the particle nearest (0.25, 0.5, 0.75) and its index: argmin over the records */
static int nearest_check(clsort_context *cs, const particle *p, size_t n, int *fail)
{
    struct { float d; uint32_t i; } got, want = {INFINITY, 0xffffffffu};
    cl_mem d = upload(cs, n * sizeof *p, p);
    clsort_reduce_desc rd;
    size_t i;
    char msg[96];
    int r;
    memset(&rd, 0, sizeof rd);
    rd.user_op.source = particle_src;
    rd.user_op.name = "closer";
    rd.user_op.type = "nearest";
    rd.user_op.size = 8;
    rd.user_op.identity = "(nearest){INFINITY, 0xffffffffu}";
    rd.user_op.transform = "dist_to_q";
    rd.user_op.in_type = "particle";
    rd.user_op.in_size = sizeof(particle);
    rd.user_op.with_index = 1;
    rd.user_op.commutative = 1; /* finite distances, ties to the lower index: closer(a, b) == closer(b, a) */
    r = clsort_reduce(cs, d, n, &rd, &got, NULL);
    clReleaseMemObject(d);
    if (r != CLSORT_SUCCESS) return 0;
    for (i = 0; i < n; ++i) {
        float dx = p[i].pos[0] - 0.25f, dy = p[i].pos[1] - 0.5f, dz = p[i].pos[2] - 0.75f;
        float dd = dx * dx + dy * dy + dz * dz;
        if (dd < want.d) want.d = dd, want.i = (uint32_t)i;
    }
    snprintf(msg, sizeof msg, "index %u at distance^2 %g, host %u at %g", got.i, got.d, want.i, want.d);
    *fail |= !report("nearest particle (argmin user op)", got.i == want.i && got.d == want.d, msg);
    return 1;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 200000, i;
    particle *p = (particle *)malloc(n * sizeof *p + 32), *sorted = (particle *)malloc(n * sizeof *p + 32);
    clsort_context *cs = NULL;
    uint64_t s = 0x9e3779b97f4a7c15u;
    int fail = 0, ok;
    for (i = 0; i < n; ++i) {
        int k;
        for (k = 0; k < 3; ++k) {
            s ^= s << 13, s ^= s >> 7, s ^= s << 17;
            p[i].pos[k] = (float)(s >> 54) / 1024.0f; /* multiples of 1/1024 in [0, 1) */
        }
        p[i].pos[3] = 1.0f;
        p[i].vel[0] = p[i].vel[1] = p[i].vel[2] = 0.0f;
        p[i].vel[3] = (float)i;
    }
    ok = clsort_create(&cs, NULL) == CLSORT_SUCCESS && sort_check(cs, p, sorted, n, &fail) &&
         sphere_check(cs, sorted, n, &fail) && nearest_check(cs, sorted, n, &fail);
    if (!ok) printf("records: clsort: %s\n", clsort_last_error(cs));
    clsort_destroy(cs);
    free(p), free(sorted);
    return ok && !fail ? 0 : 1;
}
