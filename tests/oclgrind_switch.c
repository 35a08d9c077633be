/* Reproduces an oclgrind misexecution: with lane = get_local_id(0) % 32,
 * `if (lane == 0) ... else if (lane == 31) ...` is compiled (LLVM 14, the
 * default -O) into a switch on `trunc i64 to i5`; oclgrind 21.10 holds the i5
 * in a byte and its trunc copied the low byte whole, so lane 31 of work-item
 * 63 read as 63, matched no case, and only the first 32 work-items took the
 * branches. This is what failed reduction variant 3's emulated pair scan
 * (reduce.cl rd_wg_scan: warps after the first neither zeroed their first
 * lane's exclusive pair nor wrote their totals, which were then read
 * uninitialized). Build: cc tests/oclgrind_switch.c -lOpenCL; run: oclgrind
 * ./a.out. Debian's 21.10: "6 of 128 work-items wrong", exit 1; the build
 * with tests/oclgrind-shadow.patch: 0 (make oclgrind checks it). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>

static const char *src =
    "__kernel void lanes(__global uint *out)\n"
    "{\n"
    "    const uint lane = (uint)get_local_id(0) % 32;\n"
    "    out[get_global_id(0)] = 7;\n"
    "    if (lane == 0) out[get_global_id(0)] = 1;\n"
    "    else if (lane == 31) out[get_global_id(0)] = 2;\n"
    "}\n";

int main(void)
{
    cl_platform_id pl;
    cl_device_id d;
    cl_context c;
    cl_command_queue q;
    cl_program p;
    cl_kernel k;
    cl_mem b;
    cl_int e;
    cl_uint out[128];
    size_t g = 128, l = 128;
    int i, bad = 0;
    if (clGetPlatformIDs(1, &pl, NULL) != CL_SUCCESS || clGetDeviceIDs(pl, CL_DEVICE_TYPE_ALL, 1, &d, NULL) != CL_SUCCESS)
        return 2;
    c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    q = clCreateCommandQueue(c, d, 0, &e);
    p = clCreateProgramWithSource(c, 1, &src, NULL, &e);
    if (clBuildProgram(p, 1, &d, "", NULL, NULL) != CL_SUCCESS) return 2;
    k = clCreateKernel(p, "lanes", &e);
    b = clCreateBuffer(c, CL_MEM_WRITE_ONLY, sizeof out, NULL, &e);
    clSetKernelArg(k, 0, sizeof b, &b);
    if (clEnqueueNDRangeKernel(q, k, 1, NULL, &g, &l, 0, NULL, NULL) != CL_SUCCESS ||
        clEnqueueReadBuffer(q, b, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL) != CL_SUCCESS)
        return 2;
    for (i = 0; i < 128; ++i) bad += out[i] != (i % 32 == 0 ? 1u : i % 32 == 31 ? 2u : 7u);
    printf("%d of 128 work-items wrong\n", bad);
    return bad != 0;
}
