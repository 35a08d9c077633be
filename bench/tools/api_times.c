/* Host time per OpenCL call of any program, without touching it
 * (where a cold first call's time goes besides clBuildProgram). An LD_PRELOAD
 * interposer: each wrapped call is timed on the monotonic clock; a call that
 * takes 5 ms or more is printed when it returns (time since the first call,
 * name, ms), and at exit one row per function goes to stderr:
 *   api_times NAME calls=C total_ms=T
 *   cc -shared -fPIC -O2 -o build/api_times.so bench/tools/api_times.c -ldl
 *   LD_PRELOAD=$PWD/build/api_times.so build/coldstart off 16 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { ROWS = 64 };
static struct row {
    const char *name;
    unsigned long calls;
    double ms;
} rows[ROWS];
static int nrows;
static double start_ms = -1;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void note(const char *name, double t0)
{
    double ms = now_ms() - t0;
    int i;
    for (i = 0; i < nrows && strcmp(rows[i].name, name) != 0; ++i) continue;
    if (i == nrows && nrows < ROWS) rows[nrows++].name = name;
    if (i < ROWS) rows[i].calls++, rows[i].ms += ms;
    if (ms >= 5) fprintf(stderr, "api_times +%.1f ms %s %.1f ms\n", t0 - start_ms, name, ms);
}

#define WRAP(ret, name, params, args)                                                                                  \
    typedef ret(CL_API_CALL *name##_fn) params;                                                                        \
    CL_API_ENTRY ret CL_API_CALL name params                                                                           \
    {                                                                                                                  \
        static name##_fn real;                                                                                         \
        double t0 = now_ms();                                                                                          \
        ret r;                                                                                                         \
        if (start_ms < 0) start_ms = t0;                                                                               \
        if (!real) *(void **)&real = dlsym(RTLD_NEXT, #name); /* POSIX's form of the cast */                          \
        r = real args;                                                                                                 \
        note(#name, t0);                                                                                               \
        return r;                                                                                                      \
    }

WRAP(cl_int, clGetPlatformIDs, (cl_uint a, cl_platform_id *b, cl_uint *c), (a, b, c))
WRAP(cl_int, clGetDeviceIDs, (cl_platform_id a, cl_device_type b, cl_uint c, cl_device_id *d, cl_uint *e),
     (a, b, c, d, e))
WRAP(cl_context, clCreateContext,
     (const cl_context_properties *a, cl_uint b, const cl_device_id *c,
      void(CL_CALLBACK *d)(const char *, const void *, size_t, void *), void *e, cl_int *f),
     (a, b, c, d, e, f))
WRAP(cl_command_queue, clCreateCommandQueue, (cl_context a, cl_device_id b, cl_command_queue_properties c, cl_int *d),
     (a, b, c, d))
WRAP(cl_program, clCreateProgramWithSource, (cl_context a, cl_uint b, const char **c, const size_t *d, cl_int *e),
     (a, b, c, d, e))
WRAP(cl_program, clCreateProgramWithBinary,
     (cl_context a, cl_uint b, const cl_device_id *c, const size_t *d, const unsigned char **e, cl_int *f, cl_int *g),
     (a, b, c, d, e, f, g))
/* clBuildProgram also says what it built: the options, the source's bytes
 * and the kernels, so that a cold start's time can be put on programs. */
typedef cl_int(CL_API_CALL *clBuildProgram_fn)(cl_program, cl_uint, const cl_device_id *, const char *,
                                               void(CL_CALLBACK *)(cl_program, void *), void *);
typedef cl_int(CL_API_CALL *program_info_fn)(cl_program, cl_program_info, size_t, void *, size_t *);
CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(cl_program a, cl_uint b, const cl_device_id *c, const char *d,
                                               void(CL_CALLBACK *e)(cl_program, void *), void *f)
{
    static clBuildProgram_fn real;
    static program_info_fn info;
    double t0 = now_ms(), ms;
    size_t src = 0, nk = 0;
    char names[512] = "";
    cl_int r;
    if (start_ms < 0) start_ms = t0;
    if (!real) *(void **)&real = dlsym(RTLD_NEXT, "clBuildProgram");
    if (!info) *(void **)&info = dlsym(RTLD_NEXT, "clGetProgramInfo");
    r = real(a, b, c, d, e, f);
    ms = now_ms() - t0;
    note("clBuildProgram", t0);
    if (ms >= 5 && info) {
        info(a, CL_PROGRAM_SOURCE, 0, NULL, &src);
        info(a, CL_PROGRAM_NUM_KERNELS, sizeof nk, &nk, NULL);
        info(a, CL_PROGRAM_KERNEL_NAMES, sizeof names - 1, names, NULL);
        fprintf(stderr, "api_times   build: %lu source bytes, %lu kernels (%.200s), options \"%.300s\"\n",
                (unsigned long)src, (unsigned long)nk, names, d ? d : "");
    }
    return r;
}
WRAP(cl_int, clGetProgramInfo, (cl_program a, cl_program_info b, size_t c, void *d, size_t *e), (a, b, c, d, e))
WRAP(cl_int, clGetProgramBuildInfo,
     (cl_program a, cl_device_id b, cl_program_build_info c, size_t d, void *e, size_t *f), (a, b, c, d, e, f))
WRAP(cl_kernel, clCreateKernel, (cl_program a, const char *b, cl_int *c), (a, b, c))
WRAP(cl_int, clCreateKernelsInProgram, (cl_program a, cl_uint b, cl_kernel *c, cl_uint *d), (a, b, c, d))
WRAP(cl_int, clGetKernelWorkGroupInfo,
     (cl_kernel a, cl_device_id b, cl_kernel_work_group_info c, size_t d, void *e, size_t *f), (a, b, c, d, e, f))
WRAP(cl_int, clSetKernelArg, (cl_kernel a, cl_uint b, size_t c, const void *d), (a, b, c, d))
WRAP(cl_mem, clCreateBuffer, (cl_context a, cl_mem_flags b, size_t c, void *d, cl_int *e), (a, b, c, d, e))
WRAP(cl_int, clEnqueueNDRangeKernel,
     (cl_command_queue a, cl_kernel b, cl_uint c, const size_t *d, const size_t *e, const size_t *f, cl_uint g,
      const cl_event *h, cl_event *i),
     (a, b, c, d, e, f, g, h, i))
WRAP(cl_int, clEnqueueWriteBuffer,
     (cl_command_queue a, cl_mem b, cl_bool c, size_t d, size_t e, const void *f, cl_uint g, const cl_event *h,
      cl_event *i),
     (a, b, c, d, e, f, g, h, i))
WRAP(cl_int, clEnqueueReadBuffer,
     (cl_command_queue a, cl_mem b, cl_bool c, size_t d, size_t e, void *f, cl_uint g, const cl_event *h, cl_event *i),
     (a, b, c, d, e, f, g, h, i))
WRAP(cl_int, clEnqueueFillBuffer,
     (cl_command_queue a, cl_mem b, const void *c, size_t d, size_t e, size_t f, cl_uint g, const cl_event *h,
      cl_event *i),
     (a, b, c, d, e, f, g, h, i))
WRAP(cl_int, clEnqueueCopyBuffer,
     (cl_command_queue a, cl_mem b, cl_mem c, size_t d, size_t e, size_t f, cl_uint g, const cl_event *h, cl_event *i),
     (a, b, c, d, e, f, g, h, i))
WRAP(cl_int, clFinish, (cl_command_queue a), (a))
WRAP(cl_int, clFlush, (cl_command_queue a), (a))
WRAP(cl_int, clWaitForEvents, (cl_uint a, const cl_event *b), (a, b))
WRAP(cl_int, clReleaseMemObject, (cl_mem a), (a))
WRAP(cl_int, clReleaseKernel, (cl_kernel a), (a))
WRAP(cl_int, clReleaseProgram, (cl_program a), (a))

__attribute__((destructor)) static void report(void)
{
    int i;
    for (i = 0; i < nrows; ++i)
        fprintf(stderr, "api_times %s calls=%lu total_ms=%.1f\n", rows[i].name, rows[i].calls, rows[i].ms);
}
