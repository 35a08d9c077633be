/* N-body over several devices of one OpenCL context (clsort_nbody_multi)
 * against one device (clsort_nbody), same bodies, same steps.
 *   build/nbody_multi [N] [steps] [flags]   default 262144 bodies, 4 leapfrog steps,
 *                                           flags: desc.multi (CLSORT_NBODY_MULTI_*), 0
 * With flags 0 a last row runs the split over all parts SERIAL (no overlap
 * of the exchange with the forces), for comparison.
 * Takes every GPU of the first platform that has one, else every device of
 * the first platform with several (PoCL: POCL_DEVICES="pthread pthread"),
 * else the first device, split over two contexts on it (which shows the
 * exchange but not a speed-up). Prints interactions/s for 1 device and for
 * the split over 1..D, and the largest difference of the final positions
 * from the one-device run.
 * Timing: host clock around the blocking call, median of 3 after a warm-up. */
#define CLSORT_IMPLEMENTATION
#include "../clsort.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXD 8

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 262144, i;
    unsigned steps = argc > 2 ? (unsigned)atoi(argv[2]) : 4, nd = 0, d, used, k, rows;
    unsigned flags = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 0) : 0;
    cl_platform_id plats[8];
    cl_device_id devs[MAXD];
    cl_uint np = 0, p;
    cl_context cc;
    cl_int e;
    clsort_context *cs[MAXD];
    clsort_nbody_part parts[MAXD];
    clsort_nbody_desc desc;
    cl_mem pos[MAXD], vel[MAXD];
    float *h = (float *)malloc(n * 16), *hv = (float *)calloc(n * 4, 4), *ref = (float *)malloc(n * 16),
          *got = (float *)malloc(n * 16);
    unsigned x = 12345u;
    clGetPlatformIDs(8, plats, &np);
    for (p = 0; p < np && nd == 0; ++p) {
        cl_uint c = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_GPU, MAXD, devs, &c) == CL_SUCCESS && c > 0) nd = c;
    }
    for (p = 0; p < np && nd == 0; ++p) { /* no GPU: a platform of several devices */
        cl_uint c = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAXD, devs, &c) == CL_SUCCESS && c > 1) nd = c;
    }
    if (nd == 0) { /* one device: the first, twice */
        if (np == 0 || clGetDeviceIDs(plats[0], CL_DEVICE_TYPE_ALL, 1, devs, NULL) != CL_SUCCESS) {
            printf("nbody_multi: no OpenCL device\n");
            return 1;
        }
        nd = 1;
    }
    cc = clCreateContext(NULL, nd, devs, NULL, NULL, &e);
    if (e != CL_SUCCESS) {
        printf("nbody_multi: clCreateContext over %u devices: %d\n", nd, (int)e);
        return 1;
    }
    used = nd > 1 ? nd : 2;
    for (k = 0; k < used; ++k) {
        clsort_context_desc cd;
        memset(&cd, 0, sizeof cd);
        cd.context = cc;
        cd.device = devs[nd > 1 ? k : 0];
        if (clsort_create(&cs[k], &cd) != CLSORT_SUCCESS) {
            printf("nbody_multi: clsort_create: %s\n", clsort_last_error(cs[k]));
            return 1;
        }
    }
    printf("nbody_multi: %u device(s) of one context: %s; N = %lu, %u leapfrog steps per call\n", nd,
           clsort_device_name(cs[0]), (unsigned long)n, steps);
    for (i = 0; i < n; ++i) { /* a uniform ball of unit mass in all */
        int a;
        for (a = 0; a < 3; ++a) {
            x ^= x << 13; x ^= x >> 17; x ^= x << 5;
            h[4 * i + a] = (float)(x >> 8) / 16777216.0f - 0.5f;
        }
        h[4 * i + 3] = 1.0f / (float)n;
    }
    memset(&desc, 0, sizeof desc);
    desc.dt = 1e-4;
    desc.softening2 = 1e-4;
    desc.steps = steps;
    for (k = 0; k < used; ++k) {
        pos[k] = clCreateBuffer(cc, CL_MEM_READ_WRITE, n * 16, NULL, &e);
        vel[k] = clCreateBuffer(cc, CL_MEM_READ_WRITE, n * 16, NULL, &e);
    }
    rows = flags ? used : used + 1;
    for (d = 0; d <= rows; ++d) { /* d = 0: clsort_nbody on one device; d >= 1: the split over d parts */
        double t[4];
        int run;
        unsigned parts_n = d == 0 ? 1 : d > used ? used : d;
        desc.multi = d > used ? CLSORT_NBODY_MULTI_SERIAL : flags;
        for (run = 0; run < 4; ++run) {
            double t0;
            for (k = 0; k < parts_n; ++k) {
                cl_command_queue q = clsort_cl_queue(cs[k]);
                clEnqueueWriteBuffer(q, pos[k], CL_TRUE, 0, n * 16, h, 0, NULL, NULL);
                clEnqueueWriteBuffer(q, vel[k], CL_TRUE, 0, n * 16, hv, 0, NULL, NULL);
                clFinish(q);
                parts[k].ctx = cs[k];
                parts[k].positions = pos[k];
                parts[k].velocities = vel[k];
                parts[k].first = parts[k].count = 0; /* even split */
            }
            t0 = now_s();
            if (d == 0) {
                if (clsort_nbody(cs[0], pos[0], vel[0], n, &desc, NULL) != CLSORT_SUCCESS ||
                    clFinish(clsort_cl_queue(cs[0])) != CL_SUCCESS) {
                    printf("clsort_nbody: %s\n", clsort_last_error(cs[0]));
                    return 1;
                }
            } else if (clsort_nbody_multi(parts, parts_n, n, &desc) != CLSORT_SUCCESS) {
                printf("clsort_nbody_multi: %s\n", clsort_last_error(cs[0]));
                return 1;
            }
            t[run] = now_s() - t0;
        }
        qsort(t + 1, 3, sizeof t[0], cmp_double); /* run 0 is the warm-up */
        clEnqueueReadBuffer(clsort_cl_queue(cs[0]), pos[0], CL_TRUE, 0, n * 16, d == 0 ? ref : got, 0, NULL, NULL);
        if (d == 0) {
            printf("  one device (clsort_nbody):  %8.2f ms  %.3g interactions/s\n", t[2] * 1e3,
                   (double)n * n * (steps + 1) / t[2]);
        } else {
            double worst = 0;
            for (i = 0; i < n * 4; ++i) worst = fmax(worst, fabs((double)got[i] - ref[i]));
            printf("  split over %u part(s)%s:%s %8.2f ms  %.3g interactions/s  (max |dx| vs one device %.3g)\n",
                   parts_n, d > used ? ", serial" : "", d > used ? "" : "      ", t[2] * 1e3,
                   (double)n * n * (steps + 1) / t[2], worst);
            printf("    measured per part (interactions/s):");
            for (k = 0; k < parts_n; ++k) printf(" %.3g", cs[k]->nbody_rate); /* the context's figure, read here */
            printf("\n");
        }
    }
    for (k = 0; k < used; ++k) {
        clReleaseMemObject(pos[k]);
        clReleaseMemObject(vel[k]);
        clsort_destroy(cs[k]);
    }
    clReleaseContext(cc);
    free(h); free(hv); free(ref); free(got);
    return 0;
}
