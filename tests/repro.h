/* The device loop the llvmpipe reproducers share (tests/llvmpipe_*.c): every
 * device of every platform gets a context and a queue, and the program's
 * check reports whether the bug showed there. Static functions, one
 * including file per program. */
#ifndef REPRO_H
#define REPRO_H
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

/* One device's check: prints what it found wrong, returns nonzero then.
 * maxwg: the device's largest work-group. */
typedef int (*repro_check)(cl_context c, cl_device_id d, cl_command_queue q, size_t maxwg);

/* r, one run's result (wrong values, or -1 on an OpenCL error) with
 * work-groups of wg: says an OpenCL error, returns whether the run failed. */
static int repro_failed(int r, size_t wg)
{
    if (r < 0) printf("    wg %u: OpenCL error\n", (unsigned)wg);
    return r != 0;
}

/* Runs check on every device (its name first, then "ok" or "WRONG (bug)");
 * returns 1 when any device got a wrong result, 0 otherwise. */
static int repro_each_device(repro_check check, const char *bug)
{
    cl_platform_id plats[8];
    cl_uint np = 0, pi;
    int status = 0;
    if (clGetPlatformIDs(8, plats, &np) != CL_SUCCESS) np = 0;
    for (pi = 0; pi < np; ++pi) {
        cl_device_id devs[8];
        cl_uint nd = 0, di;
        if (clGetDeviceIDs(plats[pi], CL_DEVICE_TYPE_ALL, 8, devs, &nd) != CL_SUCCESS) nd = 0; /* a platform may have none */
        for (di = 0; di < nd; ++di) {
            char name[256] = "";
            cl_int e;
            cl_context c;
            cl_command_queue q;
            size_t maxwg = 0;
            clGetDeviceInfo(devs[di], CL_DEVICE_NAME, sizeof name, name, NULL);
            clGetDeviceInfo(devs[di], CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof maxwg, &maxwg, NULL);
            c = clCreateContext(NULL, 1, &devs[di], NULL, NULL, &e);
            if (e != CL_SUCCESS) continue;
            q = clCreateCommandQueue(c, devs[di], 0, &e);
            if (e == CL_SUCCESS) {
                int wrong;
                printf("%u:%u %s\n", pi, di, name);
                wrong = check(c, devs[di], q, maxwg) != 0;
                if (wrong) printf("  WRONG (%s)\n", bug);
                else printf("  ok\n");
                status |= wrong;
                clReleaseCommandQueue(q);
            }
            clReleaseContext(c);
        }
    }
    return status;
}
#endif
