/* splats: the per-frame splat sort of a renderer that draws 3D Gaussians,
 * all on the device, each step waiting on the previous one's event, with no
 * read-back of the visible count anywhere in the chain:
 *   1. cull     a kernel of this file: a 0/1 flag per splat (its centre
 *               between the near and far planes, its 3-sigma sphere
 *               reaching inside the four side planes) and its 24-bit depth
 *               key (the view depth quantized between the near and far
 *               planes; made for every splat, so that no launch waits for
 *               the count)
 *   2. pack     clsort_pack: the keys and splat indices of the visible
 *               splats to the front, their count left on the device
 *   3. sort     clsort_sort: 24 key bits, descending, the splat index as a
 *               u32 payload, enq->count = the packed count
 *   4. gather   clsort_gather_many: the splat records in draw order,
 *               enq->count = the packed count. On the device a record is
 *               two 16-byte arrays (centre and scale; colour and opacity),
 *               as a rasterizer's passes read them apart; one launch moves
 *               both, the sorted indices read once
 * Draw order is back to front (farthest first), as alpha blending with the
 * "over" operator needs: the nearer splat is composited last. Equal keys
 * keep the splat index order (the sort is stable).
 *
 *   splats [--full | --range A:B] [--frames F] [--png PATH]
 *       --range A:B  sizes 2^A .. 2^B in steps of 1/8 of an octave
 *                    (2^(A + k/8)); default and --full: 20:23
 *       --frames F   timed frames per size (the median is shown), after
 *                    2 warm-up frames; default 7
 *       --png PATH   the splats of the last frame of the largest size,
 *                    drawn in that order; default build/splats.png
 *   make demo runs: splats --range 14:16 --frames 3 --png build/splats.png
 *
 * A frame's time: a monotonic host clock from its first enqueue to the
 * return of clFinish. The frames run in rounds of one frame per size, the
 * camera orbiting a little from round to round. The last frame of every size
 * is checked against the same pipeline in plain C on the host (visible set,
 * count, keys, order with ties stable, gathered records); the exit status
 * is 1 on a mismatch. */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WARMUP 2
#define KEY_MAX 0xffffffu /* 24 key bits */
#define IMAGE 512

typedef struct splat {
    float x, y, z, scale; /* centre; standard deviation of the isotropic Gaussian */
    float r, g, b, a;     /* colour and peak opacity */
} splat;

/* The view: eye, orthonormal right/up/forward axes, the near and far
 * planes, tan of the half field of view (square image) and sqrt(1 + tan^2),
 * which scales a sphere's radius into the side planes' unnormalized
 * distance; key_scale maps depth - near onto 0 .. 2^24 - 1. All floats: the
 * kernels and the host reference compute with these very values. */
typedef struct camera {
    float eye[3], right[3], up[3], fwd[3];
    float near_z, far_z, tan_half, plane_scale, key_scale;
} camera;

/* The kernels: a flag and a key come from float +, - and * alone (each
 * correctly rounded in OpenCL C as in C; no division, no math function)
 * under FP_CONTRACT OFF (no fused multiply-add), in the order the host
 * reference (view_of, key_of) takes, and a conversion that rounds toward
 * zero as C's does: the reference's results are the device's bit for bit.
 * The cull kernel reads the centres array (centre and scale, a float4 per
 * splat). A centre outside [near, far] is not visible, so its
 * key (clamped to 0 .. 2^24 - 1 like every key) is never packed. */
static const char kernel_source[] =
    "#pragma OPENCL FP_CONTRACT OFF\n"
    "__kernel void cull(__global const float4 *centres, uint n, float16 cam, float key_scale,\n"
    "                   __global uchar *flags, __global uint *keys)\n"
    "{\n"
    "    uint i = (uint)get_global_id(0);\n"
    "    if (i >= n) return;\n"
    "    float4 p = centres[i];\n"
    "    float dx = p.x - cam.s0, dy = p.y - cam.s1, dz = p.z - cam.s2;\n"
    "    float vx = dx * cam.s4 + dy * cam.s5 + dz * cam.s6;\n"
    "    float vy = dx * cam.s8 + dy * cam.s9 + dz * cam.sa;\n"
    "    float vz = dx * cam.sc + dy * cam.sd + dz * cam.se;\n"
    "    float reach = 3.0f * p.w * cam.sf, side = cam.sb * vz;\n"
    "    flags[i] = (uchar)(vz >= cam.s3 && vz <= cam.s7 && vx - side <= reach && -vx - side <= reach &&\n"
    "                       vy - side <= reach && -vy - side <= reach);\n"
    "    keys[i] = min(convert_uint_sat((vz - cam.s3) * key_scale), 0xffffffu);\n"
    "}\n";

/* Everything a run owns on the device; released by pipeline_release. */
typedef struct pipeline {
    clsort_context *cs;
    cl_command_queue queue;
    cl_program program;
    cl_kernel cull;
    size_t wg; /* the cull kernel's work-group size (a power of two, at most 128) */
    cl_mem centres, colours, iota, flags, keys, vis_keys, vis_index, count, sorted_keys, sorted_index;
    cl_mem drawn[2]; /* the centres and colours in draw order */
} pipeline;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* An OpenCL call's result: 0, or 1 after a message naming the call. */
static int cl_failed(cl_int e, const char *what)
{
    if (e == CL_SUCCESS) return 0;
    fprintf(stderr, "splats: %s failed (OpenCL error %d)\n", what, (int)e);
    return 1;
}

/* A clsort call's result: 0, or 1 after clsort_last_error. */
static int clsort_failed(clsort_result r, const pipeline *p, const char *what)
{
    if (r == CLSORT_SUCCESS) return 0;
    fprintf(stderr, "splats: %s failed: %s\n", what, clsort_last_error(p->cs));
    return 1;
}

/* xorshift64: a uniform double in [0, 1) from the caller's state */
static double urand(unsigned long long *rng)
{
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    return (double)(*rng >> 11) / 9007199254740992.0;
}

/* a standard normal deviate (Box-Muller) */
static double grand(unsigned long long *rng)
{
    double u = urand(rng) + 1e-12, v = urand(rng);
    return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* The scene: a two-armed spiral galaxy in the x-y plane, radius about 4,
 * with a yellow bulge, blue-white arms and pink knots. The Gaussians shrink
 * with the largest size of the run (sigma ~ 1/sqrt(count)), so the image
 * covers about as much at any size. */
static void make_scene(splat *s, size_t count, unsigned long long *rng)
{
    const double sigma = 0.005 * sqrt((double)(1u << 20) / (double)count);
    size_t i;
    for (i = 0; i < count; ++i) {
        double x, y, z, r, g, b, kind = urand(rng);
        if (kind < 0.18) { /* the bulge */
            x = 0.35 * grand(rng), y = 0.35 * grand(rng), z = 0.2 * grand(rng);
            r = 1.0, g = 0.82, b = 0.55;
        } else {           /* the arms: logarithmic spirals, jittered */
            double rad = 0.4 + 3.6 * sqrt(urand(rng)), arm = urand(rng) < 0.5 ? 0.0 : 3.141592653589793;
            double phi = arm + 2.2 * log(rad / 0.4) + 0.18 * grand(rng) / sqrt(rad);
            x = rad * cos(phi) + 0.04 * grand(rng), y = rad * sin(phi) + 0.04 * grand(rng);
            z = 0.06 * grand(rng);
            if (urand(rng) < 0.06) r = 1.0, g = 0.4, b = 0.6;
            else r = 0.55, g = 0.7, b = 1.0;
        }
        s[i].x = (float)x, s[i].y = (float)y, s[i].z = (float)z;
        s[i].scale = (float)(sigma * (0.5 + urand(rng)));
        s[i].r = (float)r, s[i].g = (float)g, s[i].b = (float)b;
        s[i].a = (float)(0.1 + 0.2 * urand(rng));
    }
}

/* Frame f's camera: orbiting the centre 4.6 out and 3 above the disc,
 * looking at the centre, 50 degrees wide: the rim of the disc outside the
 * view, about a third of the splats, is culled. */
static camera camera_at(int f)
{
    const double theta = 0.3 + 0.02 * f, eye[3] = {4.6 * cos(theta), 4.6 * sin(theta), 3.0};
    double fw[3], rt[3], len, t = tan(25.0 * 3.141592653589793 / 180.0);
    camera c;
    int k;
    len = sqrt(eye[0] * eye[0] + eye[1] * eye[1] + eye[2] * eye[2]);
    for (k = 0; k < 3; ++k) fw[k] = -eye[k] / len;
    len = sqrt(fw[0] * fw[0] + fw[1] * fw[1]); /* right = forward x world up (0, 0, 1), normalized */
    rt[0] = fw[1] / len, rt[1] = -fw[0] / len, rt[2] = 0.0;
    for (k = 0; k < 3; ++k) {
        c.eye[k] = (float)eye[k];
        c.fwd[k] = (float)fw[k];
        c.right[k] = (float)rt[k];
    }
    c.up[0] = (float)(rt[1] * fw[2] - rt[2] * fw[1]); /* up = right x forward */
    c.up[1] = (float)(rt[2] * fw[0] - rt[0] * fw[2]);
    c.up[2] = (float)(rt[0] * fw[1] - rt[1] * fw[0]);
    c.near_z = 0.05f;
    c.far_z = 8.0f;
    c.tan_half = (float)t;
    c.plane_scale = (float)sqrt(1.0 + t * t);
    c.key_scale = (float)((double)KEY_MAX / (8.0 - 0.05));
    return c;
}

/* One axis of the view transform as the kernel computes it: each product
 * and sum rounded to float (a float variable drops any excess precision of
 * the host, C99 5.1.2.3), left to right. */
static float axis_of(float dx, float dy, float dz, const float a[3])
{
    float px = dx * a[0], py = dy * a[1], pz = dz * a[2], s = px + py;
    return s + pz;
}

/* The cull kernel's flag and view depth for one splat (key_of makes its key). */
static int view_of(const splat *s, const camera *c, float *depth)
{
    float dx = s->x - c->eye[0], dy = s->y - c->eye[1], dz = s->z - c->eye[2];
    float vx = axis_of(dx, dy, dz, c->right), vy = axis_of(dx, dy, dz, c->up), vz = axis_of(dx, dy, dz, c->fwd);
    float r3 = 3.0f * s->scale, reach = r3 * c->plane_scale, side = c->tan_half * vz;
    float px = vx - side, nx = -vx - side, py = vy - side, ny = -vy - side;
    *depth = vz;
    return vz >= c->near_z && vz <= c->far_z && px <= reach && nx <= reach && py <= reach && ny <= reach;
}

/* The depth_keys kernel's key (convert_uint_sat, then at most 2^24 - 1). */
static uint32_t key_of(float depth, const camera *c)
{
    float d = depth - c->near_z, q = d * c->key_scale;
    if (!(q > 0.0f)) return 0;
    return q >= (float)KEY_MAX ? KEY_MAX : (uint32_t)q;
}

/* Releases what pipeline_create made (any part of it); 1 when a release
 * failed (named). */
static int pipeline_release(pipeline *p)
{
    cl_mem *m[12];
    size_t i;
    int failed = 0;
    m[0] = &p->centres, m[1] = &p->iota, m[2] = &p->flags, m[3] = &p->keys, m[4] = &p->vis_keys;
    m[5] = &p->vis_index, m[6] = &p->count, m[7] = &p->sorted_keys, m[8] = &p->sorted_index, m[9] = &p->drawn[0];
    m[10] = &p->colours, m[11] = &p->drawn[1];
    for (i = 0; i < 12; ++i)
        if (*m[i]) failed |= cl_failed(clReleaseMemObject(*m[i]), "clReleaseMemObject");
    if (p->cull) failed |= cl_failed(clReleaseKernel(p->cull), "clReleaseKernel");
    if (p->program) failed |= cl_failed(clReleaseProgram(p->program), "clReleaseProgram");
    clsort_destroy(p->cs);
    memset(p, 0, sizeof *p);
    return failed;
}

static cl_mem make_buffer(const pipeline *p, cl_mem_flags flags, size_t bytes, const void *src, cl_int *e)
{
    cl_mem m;
    if (*e != CL_SUCCESS) return NULL; /* an earlier buffer failed: make no more */
    m = clCreateBuffer(clsort_cl_context(p->cs), flags | (src ? CL_MEM_COPY_HOST_PTR : 0), bytes, (void *)src, e);
    return *e == CL_SUCCESS ? m : NULL;
}

/* The context, the kernels and every buffer, for up to cap splats. */
static int pipeline_create(pipeline *p, const splat *scene, size_t cap)
{
    const char *src = kernel_source;
    uint32_t *iota = (uint32_t *)malloc(cap * 4);
    float *half = (float *)malloc(cap * 2 * 4 * sizeof(float)); /* the scene's centres, then its colours */
    cl_device_id dev;
    cl_int e = CL_SUCCESS;
    size_t i;
    memset(p, 0, sizeof *p);
    if (!iota || !half) {
        fprintf(stderr, "splats: out of host memory\n");
        free(iota);
        free(half);
        return 1;
    }
    for (i = 0; i < cap; ++i) {
        iota[i] = (uint32_t)i;
        memcpy(half + 4 * i, &scene[i].x, 4 * sizeof(float));
        memcpy(half + 4 * (cap + i), &scene[i].r, 4 * sizeof(float));
    }
    if (clsort_failed(clsort_create(&p->cs, NULL), p, "clsort_create")) goto fail;
    p->queue = clsort_cl_queue(p->cs);
    dev = clsort_cl_device(p->cs);
    p->program = clCreateProgramWithSource(clsort_cl_context(p->cs), 1, &src, NULL, &e);
    if (cl_failed(e, "clCreateProgramWithSource")) goto fail;
    e = clBuildProgram(p->program, 1, &dev, "", NULL, NULL);
    if (e != CL_SUCCESS) {
        char log[4096] = "";
        cl_int le = clGetProgramBuildInfo(p->program, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        fprintf(stderr, "splats: clBuildProgram failed (OpenCL error %d):\n%s\n", (int)e,
                le == CL_SUCCESS ? log : "(no build log: clGetProgramBuildInfo failed)");
        goto fail;
    }
    p->cull = clCreateKernel(p->program, "cull", &e);
    if (cl_failed(e, "clCreateKernel(cull)")) goto fail;
    /* An explicit work-group size and a grid rounded up to it: left to the
     * implementation, the size must divide n, and an n with few small
     * factors gets narrow work-groups (on PoCL a frame of n = 17867 = 17 x
     * 1051 splats took 2.7 times as long as with this grid). */
    {
        size_t most = 0;
        e = clGetKernelWorkGroupInfo(p->cull, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most, NULL);
        if (cl_failed(e, "clGetKernelWorkGroupInfo")) goto fail;
        for (p->wg = 128; p->wg > most && p->wg > 1;) p->wg /= 2;
    }
    p->centres = make_buffer(p, CL_MEM_READ_ONLY, cap * 16, half, &e);
    p->colours = make_buffer(p, CL_MEM_READ_ONLY, cap * 16, half + 4 * cap, &e);
    p->iota = make_buffer(p, CL_MEM_READ_ONLY, cap * 4, iota, &e);
    p->flags = make_buffer(p, CL_MEM_READ_WRITE, cap, NULL, &e);
    p->keys = make_buffer(p, CL_MEM_READ_WRITE, cap * 4, NULL, &e);
    p->vis_keys = make_buffer(p, CL_MEM_READ_WRITE, cap * 4, NULL, &e);
    p->vis_index = make_buffer(p, CL_MEM_READ_WRITE, cap * 4, NULL, &e);
    p->count = make_buffer(p, CL_MEM_READ_WRITE, 4, NULL, &e);
    p->sorted_keys = make_buffer(p, CL_MEM_READ_WRITE, cap * 4, NULL, &e);
    p->sorted_index = make_buffer(p, CL_MEM_READ_WRITE, cap * 4, NULL, &e);
    p->drawn[0] = make_buffer(p, CL_MEM_READ_WRITE, cap * 16, NULL, &e);
    p->drawn[1] = make_buffer(p, CL_MEM_READ_WRITE, cap * 16, NULL, &e);
    if (cl_failed(e, "clCreateBuffer")) goto fail;
    free(iota);
    free(half);
    return 0;
fail:
    free(iota);
    free(half);
    pipeline_release(p);
    return 1;
}

/* One frame of n splats seen by c, enqueued as the chain above; returns once
 * clFinish does. */
static int run_frame(const pipeline *p, size_t n, const camera *c)
{
    const size_t global = (n + p->wg - 1) / p->wg * p->wg; /* work-items past n return */
    const cl_uint un = (cl_uint)n;
    cl_event ev[4] = {NULL, NULL, NULL, NULL};
    cl_float16 cam;
    clsort_split_desc pd;
    clsort_sort_desc sd;
    clsort_gather_many_desc gd;
    clsort_enqueue enq;
    cl_int e = CL_SUCCESS;
    int k, failed = 1;
    for (k = 0; k < 3; ++k) {
        cam.s[k] = c->eye[k];
        cam.s[4 + k] = c->right[k];
        cam.s[8 + k] = c->up[k];
        cam.s[12 + k] = c->fwd[k];
    }
    cam.s[3] = c->near_z, cam.s[7] = c->far_z, cam.s[11] = c->tan_half, cam.s[15] = c->plane_scale;

    /* 1. cull: a flag and a key per splat */
    e = clSetKernelArg(p->cull, 0, sizeof(cl_mem), &p->centres);
    if (e == CL_SUCCESS) e = clSetKernelArg(p->cull, 1, sizeof un, &un);
    if (e == CL_SUCCESS) e = clSetKernelArg(p->cull, 2, sizeof cam, &cam);
    if (e == CL_SUCCESS) e = clSetKernelArg(p->cull, 3, sizeof(cl_float), &c->key_scale);
    if (e == CL_SUCCESS) e = clSetKernelArg(p->cull, 4, sizeof(cl_mem), &p->flags);
    if (e == CL_SUCCESS) e = clSetKernelArg(p->cull, 5, sizeof(cl_mem), &p->keys);
    if (cl_failed(e, "clSetKernelArg(cull)")) goto done;
    if (cl_failed(clEnqueueNDRangeKernel(p->queue, p->cull, 1, NULL, &global, &p->wg, 0, NULL, &ev[0]),
                  "clEnqueueNDRangeKernel(cull)"))
        goto done;

    /* 2. pack: the visible splats' keys and indices, in splat order, and
     * their count into p->count; the count stays there (the host argument,
     * which would block, is NULL) */
    memset(&pd, 0, sizeof pd);
    pd.type = CLSORT_U32;
    pd.flags_kind = CLSORT_FLAGS_U8;
    pd.flags = p->flags;
    pd.values_in = p->iota;
    pd.values_out = p->vis_index;
    pd.value_size = 4;
    pd.count = p->count;
    memset(&enq, 0, sizeof enq);
    enq.num_events_in_wait_list = 1;
    enq.event_wait_list = &ev[0];
    enq.event = &ev[1];
    if (clsort_failed(clsort_pack(p->cs, p->keys, p->vis_keys, n, &pd, NULL, &enq), p, "clsort_pack")) goto done;

    /* 3. sort: 24 key bits (3 passes of 8), largest depth first, the splat
     * index moving with its key; the first count keys (device count) */
    memset(&sd, 0, sizeof sd);
    sd.end_bit = 24;
    sd.descending = 1;
    sd.values_in = p->vis_index;
    sd.values_out = p->sorted_index;
    sd.value_size = 4;
    enq.count = p->count;
    enq.event_wait_list = &ev[1];
    enq.event = &ev[2];
    if (clsort_failed(clsort_sort(p->cs, p->vis_keys, p->sorted_keys, n, &sd, &enq), p, "clsort_sort")) goto done;

    /* 4. gather: the splat records (both arrays) in draw order, the first count */
    enq.event_wait_list = &ev[2];
    enq.event = &ev[3];
    memset(&gd, 0, sizeof gd);
    gd.count = 2;
    gd.arrays[0].src = p->centres, gd.arrays[0].dst = p->drawn[0], gd.arrays[0].elem_size = 16;
    gd.arrays[1].src = p->colours, gd.arrays[1].dst = p->drawn[1], gd.arrays[1].elem_size = 16;
    if (clsort_failed(clsort_gather_many(p->cs, p->sorted_index, n, &gd, &enq), p, "clsort_gather_many")) goto done;
    failed = cl_failed(clFinish(p->queue), "clFinish");
done:
    if (failed) /* let what was enqueued end before its events go */
        cl_failed(clFinish(p->queue), "clFinish");
    for (k = 0; k < 4; ++k)
        if (ev[k]) failed |= cl_failed(clReleaseEvent(ev[k]), "clReleaseEvent");
    return failed;
}

/* The host's copy of one frame's results and of the reference. */
typedef struct frame_check {
    uint32_t count, *keys, *index, *ref_keys, *ref_index, *tmp_keys, *tmp_index;
    splat *drawn;
} frame_check;

/* A stable LSD counting sort of m (key, index) pairs by key descending:
 * two passes of 12 bits over KEY_MAX - key, ascending. tmp_*: scratch. */
static void ref_sort(uint32_t *keys, uint32_t *index, uint32_t *tmp_keys, uint32_t *tmp_index, size_t m)
{
    size_t count[4097], i;
    unsigned pass, d;
    for (pass = 0; pass < 2; ++pass) {
        const unsigned shift = 12 * pass;
        memset(count, 0, sizeof count);
        for (i = 0; i < m; ++i) ++count[(((KEY_MAX - keys[i]) >> shift) & 4095u) + 1];
        for (d = 1; d <= 4096; ++d) count[d] += count[d - 1];
        for (i = 0; i < m; ++i) {
            size_t at = count[((KEY_MAX - keys[i]) >> shift) & 4095u]++;
            tmp_keys[at] = keys[i];
            tmp_index[at] = index[i];
        }
        memcpy(keys, tmp_keys, m * 4);
        memcpy(index, tmp_index, m * 4);
    }
}

/* Reads the frame back (after the timing) and compares it with the host
 * pipeline: the visible set and its count, the keys, the order (ties in
 * splat order) and the gathered records. Prints the first difference. */
static int check_frame(const pipeline *p, frame_check *fc, const splat *scene, size_t n, const camera *c)
{
    size_t i, h, m = 0;
    cl_int e = clEnqueueReadBuffer(p->queue, p->count, CL_TRUE, 0, 4, &fc->count, 0, NULL, NULL);
    if (cl_failed(e, "clEnqueueReadBuffer(count)")) return 1;
    for (i = 0; i < n; ++i) {
        float depth;
        if (view_of(&scene[i], c, &depth)) {
            fc->ref_keys[m] = key_of(depth, c);
            fc->ref_index[m++] = (uint32_t)i;
        }
    }
    ref_sort(fc->ref_keys, fc->ref_index, fc->tmp_keys, fc->tmp_index, m);
    if (fc->count != m) {
        fprintf(stderr, "splats: n %lu: %lu visible on the device, %lu on the host\n", (unsigned long)n,
                (unsigned long)fc->count, (unsigned long)m);
        return 1;
    }
    if (m == 0) return 0;
    e = clEnqueueReadBuffer(p->queue, p->sorted_keys, CL_TRUE, 0, m * 4, fc->keys, 0, NULL, NULL);
    if (e == CL_SUCCESS) e = clEnqueueReadBuffer(p->queue, p->sorted_index, CL_TRUE, 0, m * 4, fc->index, 0, NULL, NULL);
    for (h = 0; h < 2 && e == CL_SUCCESS; ++h) { /* each array into its half of the host's records */
        size_t origin[3] = {0, 0, 0}, host_origin[3] = {0, 0, 0}, region[3] = {16, 0, 1};
        host_origin[0] = 16 * h, region[1] = m;
        e = clEnqueueReadBufferRect(p->queue, p->drawn[h], CL_TRUE, origin, host_origin, region, 16, 0,
                                    sizeof(splat), 0, fc->drawn, 0, NULL, NULL);
    }
    if (cl_failed(e, "clEnqueueReadBuffer(results)")) return 1;
    for (i = 0; i < m; ++i)
        if (fc->keys[i] != fc->ref_keys[i] || fc->index[i] != fc->ref_index[i] ||
            memcmp(&fc->drawn[i], &scene[fc->ref_index[i]], sizeof(splat)) != 0) {
            fprintf(stderr,
                    "splats: n %lu: draw position %lu: device key %lu splat %lu, host key %lu splat %lu%s\n",
                    (unsigned long)n, (unsigned long)i, (unsigned long)fc->keys[i], (unsigned long)fc->index[i],
                    (unsigned long)fc->ref_keys[i], (unsigned long)fc->ref_index[i],
                    memcmp(&fc->drawn[i], &scene[fc->ref_index[i]], sizeof(splat)) ? " (gathered record differs)" : "");
            return 1;
        }
    return 0;
}

/* ---- the PNG: 8-bit RGB, a zlib stream of stored (uncompressed) deflate
 * blocks, CRC-32 per chunk and Adler-32 (RFC 1950, 1951, PNG 1.2). */
static unsigned long crc32_of(const unsigned long table[256], unsigned long c, const unsigned char *p, size_t len)
{
    size_t i;
    for (i = 0; i < len; ++i) c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c;
}

static void put32(unsigned char *p, unsigned long v)
{
    p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

/* One chunk: length, type, data, CRC-32 of type and data. */
static int png_chunk(FILE *f, const unsigned long table[256], const char *type, const unsigned char *data, size_t len)
{
    unsigned char b[4];
    unsigned long c = crc32_of(table, 0xffffffffUL, (const unsigned char *)type, 4);
    c = crc32_of(table, c, data, len) ^ 0xffffffffUL;
    put32(b, (unsigned long)len);
    if (fwrite(b, 1, 4, f) != 4 || fwrite(type, 1, 4, f) != 4 || (len && fwrite(data, 1, len, f) != len)) return 1;
    put32(b, c);
    return fwrite(b, 1, 4, f) != 4;
}

/* w x h RGB pixels, rows top down; 0 when written. */
static int write_png(const char *path, const unsigned char *rgb, int w, int h)
{
    static const unsigned char signature[8] = {137, 80, 78, 71, 13, 10, 26, 10};
    const size_t row = (size_t)w * 3 + 1, raw = row * (size_t)h, blocks = (raw + 65534) / 65535;
    unsigned char ihdr[13], *z = (unsigned char *)malloc(2 + raw + 5 * blocks + 4), *q;
    unsigned long table[256], a = 1, b = 0;
    size_t i, done = 0;
    int y, err;
    unsigned k;
    FILE *f;
    if (!z) return 1;
    for (i = 0; i < 256; ++i) { /* the CRC-32 table: the PNG polynomial, reflected */
        unsigned long c = (unsigned long)i;
        for (k = 0; k < 8; ++k) c = c & 1 ? 0xedb88320UL ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    put32(ihdr, (unsigned long)w);
    put32(ihdr + 4, (unsigned long)h);
    ihdr[8] = 8, ihdr[9] = 2, ihdr[10] = ihdr[11] = ihdr[12] = 0; /* 8 bits, RGB, deflate, no filter, no interlace */
    q = z;
    *q++ = 0x78, *q++ = 0x01; /* zlib: deflate, 32 KiB window, no dictionary */
    for (y = 0; y < h; ++y) { /* each row: filter byte 0, then its pixels; cut into stored blocks of 65535 */
        const unsigned char *src = rgb + (size_t)y * (size_t)w * 3;
        for (i = 0; i < row; ++i) {
            const unsigned char v = i ? src[i - 1] : 0;
            if (done % 65535 == 0) { /* a block header: final flag, length, its one's complement */
                const size_t len = raw - done < 65535 ? raw - done : 65535;
                *q++ = (unsigned char)(raw - done <= 65535);
                *q++ = (unsigned char)len, *q++ = (unsigned char)(len >> 8);
                *q++ = (unsigned char)~len, *q++ = (unsigned char)(~len >> 8);
            }
            *q++ = v;
            ++done;
            a = (a + v) % 65521;
            b = (b + a) % 65521;
        }
    }
    put32(q, (b << 16) | a);
    q += 4;
    f = fopen(path, "wb");
    if (!f) {
        free(z);
        return 1;
    }
    err = fwrite(signature, 1, 8, f) != 8 || png_chunk(f, table, "IHDR", ihdr, 13) ||
          png_chunk(f, table, "IDAT", z, (size_t)(q - z)) || png_chunk(f, table, "IEND", NULL, 0);
    err |= fclose(f) != 0;
    free(z);
    return err;
}

/* The m splats in the order given, each a Gaussian of its projected sigma
 * (at least 0.6 pixel, at most w / 16) out to 3 sigma, composited "over"
 * what is drawn before it (back to front), on a w x w image, linear values
 * written as 8-bit. 0 when written. */
static int draw_png(const char *path, const splat *s, size_t m, const camera *c, int w)
{
    const double focal = 0.5 * w / c->tan_half;
    float *img = (float *)malloc((size_t)w * (size_t)w * 3 * sizeof(float));
    unsigned char *rgb = (unsigned char *)malloc((size_t)w * (size_t)w * 3);
    size_t i, j;
    int err;
    if (!img || !rgb) {
        free(img);
        free(rgb);
        return 1;
    }
    for (i = 0; i < (size_t)w * (size_t)w; ++i) img[3 * i] = 0.01f, img[3 * i + 1] = 0.01f, img[3 * i + 2] = 0.025f;
    for (j = 0; j < m; ++j) {
        double d[3], v[3], cx, cy, sig, reach, peak = s[j].a;
        int k, x, y, x0, x1, y0, y1;
        d[0] = (double)s[j].x - c->eye[0], d[1] = (double)s[j].y - c->eye[1], d[2] = (double)s[j].z - c->eye[2];
        for (k = 0; k < 3; ++k) v[k] = 0.0;
        for (k = 0; k < 3; ++k) {
            v[0] += d[k] * c->right[k];
            v[1] += d[k] * c->up[k];
            v[2] += d[k] * c->fwd[k];
        }
        if (v[2] < c->near_z) continue;
        cx = 0.5 * w + focal * v[0] / v[2], cy = 0.5 * w - focal * v[1] / v[2];
        sig = s[j].scale * focal / v[2];
        if (sig < 0.6) { /* widened to 0.6 pixel, its peak lowered to keep its weight (sigma^2 x peak) */
            peak *= sig * sig / 0.36;
            sig = 0.6;
        }
        sig = sig > w / 16.0 ? w / 16.0 : sig;
        reach = 3.0 * sig;
        x0 = (int)floor(cx - reach), x1 = (int)ceil(cx + reach), y0 = (int)floor(cy - reach), y1 = (int)ceil(cy + reach);
        x0 = x0 < 0 ? 0 : x0, y0 = y0 < 0 ? 0 : y0, x1 = x1 > w - 1 ? w - 1 : x1, y1 = y1 > w - 1 ? w - 1 : y1;
        for (y = y0; y <= y1; ++y)
            for (x = x0; x <= x1; ++x) {
                const double ex = x + 0.5 - cx, ey = y + 0.5 - cy, r2 = ex * ex + ey * ey;
                float al, *px = img + 3 * ((size_t)y * (size_t)w + (size_t)x);
                if (r2 > reach * reach) continue;
                al = (float)(peak * exp(-0.5 * r2 / (sig * sig)));
                px[0] += al * (s[j].r - px[0]), px[1] += al * (s[j].g - px[1]), px[2] += al * (s[j].b - px[2]);
            }
    }
    for (i = 0; i < (size_t)w * (size_t)w * 3; ++i)
        rgb[i] = (unsigned char)(255.0 * (img[i] < 0.0f ? 0.0 : img[i] > 1.0f ? 1.0 : (double)img[i]) + 0.5);
    err = write_png(path, rgb, w, w);
    free(img);
    free(rgb);
    return err;
}

static int usage(void)
{
    fprintf(stderr, "usage: splats [--full | --range A:B] [--frames F] [--png PATH]\n"
                    "  sizes 2^A .. 2^B in steps of 2^(1/8), 4 <= A <= B <= 26 (default and --full: 20:23);\n"
                    "  F >= 1 timed frames per size (default 7); PATH default build/splats.png\n");
    return 2;
}

int main(int argc, char **argv)
{
    double lo = 20.0, hi = 23.0, *samples, *median, worst = 0.0, t_round;
    const char *png = "build/splats.png";
    int frames = 7, sizes, s, f, a, worst_at = 0, wrong = 0;
    size_t cap, *sz;
    uint32_t *visible;
    unsigned char *bad;
    splat *scene;
    frame_check fc;
    pipeline p;
    camera cam;
    unsigned long long rng = 0x9E3779B97F4A7C15ull;

    for (a = 1; a < argc; ++a) {
        char *end;
        if (strcmp(argv[a], "--full") == 0) {
            lo = 20.0, hi = 23.0;
        } else if (strcmp(argv[a], "--range") == 0 && a + 1 < argc) {
            lo = strtod(argv[++a], &end);
            if (*end != ':') return usage();
            hi = strtod(end + 1, &end);
            if (*end || !(lo >= 4.0 && lo <= hi && hi <= 26.0)) return usage();
        } else if (strcmp(argv[a], "--frames") == 0 && a + 1 < argc) {
            frames = (int)strtol(argv[++a], &end, 10);
            if (*end || frames < 1 || frames > 1000) return usage();
        } else if (strcmp(argv[a], "--png") == 0 && a + 1 < argc) {
            png = argv[++a];
        } else {
            return usage();
        }
    }
    sizes = (int)floor((hi - lo) * 8.0 + 1e-9) + 1;
    sz = (size_t *)malloc((size_t)sizes * sizeof *sz);
    samples = (double *)malloc((size_t)sizes * (size_t)frames * sizeof *samples);
    median = (double *)malloc((size_t)sizes * sizeof *median);
    visible = (uint32_t *)malloc((size_t)sizes * sizeof *visible);
    bad = (unsigned char *)calloc((size_t)sizes, 1);
    if (!sz || !samples || !median || !visible || !bad) {
        fprintf(stderr, "splats: out of host memory\n");
        return 1;
    }
    for (s = 0; s < sizes; ++s) sz[s] = (size_t)floor(pow(2.0, lo + s / 8.0) + 0.5);
    cap = sz[sizes - 1];
    scene = (splat *)malloc(cap * sizeof *scene);
    memset(&fc, 0, sizeof fc);
    fc.keys = (uint32_t *)malloc(cap * 4), fc.index = (uint32_t *)malloc(cap * 4);
    fc.ref_keys = (uint32_t *)malloc(cap * 4), fc.ref_index = (uint32_t *)malloc(cap * 4);
    fc.tmp_keys = (uint32_t *)malloc(cap * 4), fc.tmp_index = (uint32_t *)malloc(cap * 4);
    fc.drawn = (splat *)malloc(cap * sizeof(splat));
    if (!scene || !fc.keys || !fc.index || !fc.ref_keys || !fc.ref_index || !fc.tmp_keys || !fc.tmp_index || !fc.drawn) {
        fprintf(stderr, "splats: out of host memory for %lu splats\n", (unsigned long)cap);
        return 1;
    }
    make_scene(scene, cap, &rng);
    if (pipeline_create(&p, scene, cap)) return 1;

    printf("splats on %s (%s path): cull, pack, 24-bit depth keys, sort with the splat index, gather of %u-byte "
           "records\n  (two 16-byte arrays, one clsort_gather_many), chained by events, the visible count never read by the host; draw order back to front "
           "(farthest first, for \"over\" blending)\n",
           clsort_device_name(p.cs), clsort_context_path(p.cs) == CLSORT_PATH_LOOKBACK ? "look-back" : "portable",
           (unsigned)sizeof(splat));
    printf("  frame time: host monotonic clock from the first enqueue to clFinish's return; %d sizes 2^%g .. 2^%g, "
           "%d warm-up rounds,\n  then %d timed rounds of one frame per size (sizes taken in turn, so that a "
           "change in the machine's load reaches every size alike)\n",
           sizes, lo, lo + (sizes - 1) / 8.0, WARMUP, frames);
    /* Round f: frame f of every size, all seen by camera f; the last round's
     * frames are checked, each right after it ran (outside its time). */
    for (f = -WARMUP; f < frames; ++f) {
        t_round = now_ms();
        cam = camera_at(f + WARMUP);
        for (s = 0; s < sizes; ++s) {
            double t0 = now_ms();
            if (run_frame(&p, sz[s], &cam)) {
                pipeline_release(&p);
                return 1;
            }
            if (f >= 0) samples[(size_t)s * (size_t)frames + (size_t)f] = now_ms() - t0;
            if (f == frames - 1) {
                bad[s] = (unsigned char)check_frame(&p, &fc, scene, sz[s], &cam);
                wrong |= bad[s];
                visible[s] = fc.count;
            }
        }
        printf("  %s round %d of %d: %.2f s\n", f < 0 ? "warm-up" : "timed", f < 0 ? f + WARMUP + 1 : f + 1,
               f < 0 ? WARMUP : frames, (now_ms() - t_round) * 1e-3);
        fflush(stdout);
    }
    printf("      log2 n          n    visible   ms/frame  ns/splat  checked   (median of %d frames; visible: the "
           "last frame, checked)\n",
           frames);
    for (s = 0; s < sizes; ++s) {
        double *t = samples + (size_t)s * (size_t)frames;
        qsort(t, (size_t)frames, sizeof *t, cmp_double);
        median[s] = t[frames / 2];
        printf("  2^%-7.3f %10lu %10lu %10.3f %9.2f  %s\n", lo + s / 8.0, (unsigned long)sz[s],
               (unsigned long)visible[s], median[s], median[s] * 1e6 / (double)sz[s], bad[s] ? "WRONG" : "ok");
        if (s > 0) {
            /* a step is a rise in the time per splat from one size to the
             * next (as where a padded sort jumps at a power of two); the
             * time per splat falls with n while launches dominate */
            const double step = (median[s] / (double)sz[s]) / (median[s - 1] / (double)sz[s - 1]) - 1.0;
            if (step > worst) worst = step, worst_at = s;
        }
    }
    if (sizes > 1)
        printf("largest rise in ns/splat between neighbouring sizes: %.1f%% (2^%.3f -> 2^%.3f)\n", worst * 100.0,
               lo + (worst_at - 1) / 8.0, lo + worst_at / 8.0);
    if (wrong) {
        printf("splats: WRONG: the device's result differs from the host pipeline's (above)\n");
    } else if (draw_png(png, fc.drawn, fc.count, &cam, IMAGE)) {
        fprintf(stderr, "splats: cannot write %s\n", png);
        wrong = 1;
    } else {
        printf("splats: every size's last frame matches the host pipeline (visible set, keys, order, records);\n"
               "  %s: the %lu of %lu splats of the largest, drawn back to front\n",
               png, (unsigned long)fc.count, (unsigned long)cap);
    }
    wrong |= pipeline_release(&p);
    free(scene), free(sz), free(samples), free(median), free(visible), free(bad);
    free(fc.keys), free(fc.index), free(fc.ref_keys), free(fc.ref_index), free(fc.tmp_keys), free(fc.tmp_index);
    free(fc.drawn);
    return wrong;
}
