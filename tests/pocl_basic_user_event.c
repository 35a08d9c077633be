/* Reproduces a PoCL 3.1 bug of its single-threaded basic driver
 * (POCL_DEVICES=basic; the pthread driver is fine): clSetUserEventStatus
 * never returns once a kernel waits on the user event. The thread that sets
 * the status runs the kernel at once and blocks on a lock it already holds.
 * Valid OpenCL 1.2: a kernel in an in-order queue with a wait list of one
 * user event, whose status is then set to CL_COMPLETE.
 * This is why every test case gated by a user event is left out of --tiny,
 * the size the portability run uses on the basic driver (tests/test_*.c:
 * "events", "no wait on the host", "bounds read during the call").
 * Build: cc -std=c99 tests/pocl_basic_user_event.c -lOpenCL; run:
 * POCL_DEVICES=basic timeout 20 ./a.out. A hang (the timeout's status 124)
 * shows the bug; "ok" and status 0, its absence. Runs on the first device
 * of the first platform. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *src = "__kernel void add1(__global uint *a) { a[get_global_id(0)] += 1u; }\n";

int main(void)
{
    cl_platform_id p;
    cl_device_id d;
    cl_int e;
    cl_context c;
    cl_command_queue q;
    cl_program pr;
    cl_kernel k;
    cl_mem b;
    cl_event user;
    cl_uint a[64] = {0};
    size_t global = 64;
    char name[256] = "";
    if (clGetPlatformIDs(1, &p, NULL) != CL_SUCCESS || clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, NULL) != CL_SUCCESS)
        return printf("no OpenCL device\n"), 2;
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof name, name, NULL);
    printf("%s\n", name);
    fflush(stdout);
    c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    if (e != CL_SUCCESS) return 2;
    q = clCreateCommandQueue(c, d, 0, &e);
    if (e != CL_SUCCESS) return 2;
    pr = clCreateProgramWithSource(c, 1, &src, NULL, &e);
    if (e != CL_SUCCESS || clBuildProgram(pr, 1, &d, NULL, NULL, NULL) != CL_SUCCESS) return 2;
    k = clCreateKernel(pr, "add1", &e);
    if (e != CL_SUCCESS) return 2;
    b = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof a, a, &e);
    if (e != CL_SUCCESS || clSetKernelArg(k, 0, sizeof b, &b) != CL_SUCCESS) return 2;
    user = clCreateUserEvent(c, &e);
    if (e != CL_SUCCESS) return 2;
    if (clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 1, &user, NULL) != CL_SUCCESS) return 2;
    if (clFlush(q) != CL_SUCCESS) return 2;
    if (clSetUserEventStatus(user, CL_COMPLETE) != CL_SUCCESS) return 2; /* the basic driver hangs here */
    if (clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof a, a, 0, NULL, NULL) != CL_SUCCESS) return 2;
    printf("  %s\n", a[0] == 1u && a[63] == 1u ? "ok" : "WRONG (the kernel did not run once)");
    clReleaseEvent(user);
    clReleaseMemObject(b);
    clReleaseKernel(k);
    clReleaseProgram(pr);
    clReleaseCommandQueue(q);
    clReleaseContext(c);
    return a[0] == 1u && a[63] == 1u ? 0 : 1;
}
