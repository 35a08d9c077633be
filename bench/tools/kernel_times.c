/* Device time per kernel of any OpenCL program, without touching it (to set
 * each kernel's time beside its byte floor). An LD_PRELOAD interposer: command
 * queues are created with CL_QUEUE_PROFILING_ENABLE, every
 * clEnqueueNDRangeKernel waits for its kernel and adds END - START of the
 * kernel's event (profiling info, the device's clock) to a row per kernel name
 * and global size; at exit the rows go to stderr:
 *   kernel_times NAME global=G launches=L total_ms=T mean_us=M
 * Waiting after each launch serializes the host, not the device: an in-order
 * queue runs its kernels one after another anyway, so the per-kernel times
 * are those of the real call (the call's own host time is not). Run one size
 * per process (BENCH_ONLY=... build/bench 28) so that the rows are per call.
 *   cc -shared -fPIC -O2 -o build/kernel_times.so bench/tools/kernel_times.c -ldl
 *   LD_PRELOAD=$PWD/build/kernel_times.so build/bench 28 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

enum { ROWS = 256 };
static struct row {
    char name[64];
    size_t global;
    unsigned long launches;
    double ns;
} rows[ROWS];
static int nrows;

typedef cl_command_queue(CL_API_CALL *create_queue_fn)(cl_context, cl_device_id, cl_command_queue_properties,
                                                         cl_int *);
typedef cl_int(CL_API_CALL *enqueue_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                                        const size_t *, cl_uint, const cl_event *, cl_event *);

CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueue(cl_context c, cl_device_id d,
                                                                cl_command_queue_properties p, cl_int *e)
{
    create_queue_fn real;
    *(void **)&real = dlsym(RTLD_NEXT, "clCreateCommandQueue"); /* POSIX's form: ISO C has no object-to-function cast */
    return real(c, d, p | CL_QUEUE_PROFILING_ENABLE, e);
}

static void add(cl_kernel k, size_t global, cl_event ev)
{
    char name[64] = "?";
    cl_ulong t0 = 0, t1 = 0;
    int i;
    if (clWaitForEvents(1, &ev) != CL_SUCCESS) return;
    clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL);
    name[sizeof name - 1] = 0;
    if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL) != CL_SUCCESS ||
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL) != CL_SUCCESS)
        return;
    for (i = 0; i < nrows; ++i)
        if (rows[i].global == global && strcmp(rows[i].name, name) == 0) break;
    if (i == nrows) {
        if (nrows == ROWS) return;
        ++nrows;
        strcpy(rows[i].name, name);
        rows[i].global = global;
    }
    rows[i].launches++;
    rows[i].ns += (double)(t1 - t0);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim,
                                                       const size_t *offset, const size_t *global,
                                                       const size_t *local, cl_uint nw, const cl_event *wait,
                                                       cl_event *event)
{
    enqueue_fn real;
    cl_event own = NULL;
    cl_int e;
    *(void **)&real = dlsym(RTLD_NEXT, "clEnqueueNDRangeKernel");
    e = real(q, k, dim, offset, global, local, nw, wait, event ? event : &own);
    if (e == CL_SUCCESS) add(k, global ? global[0] : 0, event ? *event : own);
    if (own) clReleaseEvent(own);
    return e;
}

__attribute__((destructor)) static void report(void)
{
    int i;
    for (i = 0; i < nrows; ++i)
        fprintf(stderr, "kernel_times %s global=%lu launches=%lu total_ms=%.4f mean_us=%.2f\n", rows[i].name,
                (unsigned long)rows[i].global, rows[i].launches, rows[i].ns / 1e6,
                rows[i].ns / 1e3 / (double)rows[i].launches);
}
