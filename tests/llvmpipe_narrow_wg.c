/* Reproduces a Mesa llvmpipe bug (rusticl and clover; seen with Mesa 22.3.6,
 * LLVM 15): in a work-group narrower than llvmpipe's SIMD width (8 lanes on a
 * "256 bits" device), a loop containing a barrier that follows a loop whose trip
 * count differs between work-items (e < count, count read from local memory
 * at an index loaded from global memory) runs only once, not twice, in every
 * work-group but the first. The kernel is valid OpenCL C 1.2: every work-item
 * reaches every barrier, no data race. Each work-group adds 1 twice to its
 * first element, so every first element should grow by 2.
 * clsort widens work-groups below the SIMD width on llvmpipe (clsort.h,
 * clsort__widen); this bug made clsort_bitonic_sort with variable segments
 * (bitonic_packed) and the look-back scan/pack return wrong results there.
 * Build: cc -std=c99 tests/llvmpipe_narrow_wg.c -lOpenCL; run: RUSTICL_ENABLE=llvmpipe ./a.out
 * Checks every device of every platform with work-groups of 2, 4, 8 and 16;
 * exit status 1 when a device gets a wrong result. */
#include "repro.h"

static const char *src =
    "__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))\n"
    "void t(__global uint *data, __global const uint *offsets, __global const uint *index)\n"
    "{\n"
    "    __local uint L[WG];\n"
    "    __local uint OFF[2];\n"
    "    const uint lid = get_local_id(0), g = get_group_id(0);\n"
    "    const uint ns = index[0]; /* 1 */\n"
    "    if (lid <= 1) OFF[lid] = offsets[g + lid];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    const uint begin = OFF[0], count = OFF[ns] - begin; /* WG */\n"
    "    for (uint e = lid; e < count; e += WG) L[e] = data[begin + e];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    for (uint k = 2; k <= 4; k <<= 1) { /* twice */\n"
    "        if (lid == 0) L[0] += 1;\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    }\n"
    "    for (uint e = lid; e < count; e += WG) data[begin + e] = L[e];\n"
    "}\n";

/* Runs the kernel with work-groups of wg on 3 groups; returns the number of
 * groups whose first element did not grow by 2, or -1 on an OpenCL error. */
static int run(cl_context c, cl_device_id d, cl_command_queue q, unsigned wg)
{
    cl_uint data[48], off[4], one = 1, i;
    char opt[32];
    cl_int e;
    int bad = 0;
    size_t global = 3 * (size_t)wg, local = wg;
    cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, &e);
    cl_kernel k = NULL;
    cl_mem bd = NULL, bo = NULL, bi = NULL;
    if (e != CL_SUCCESS) return -1;
    snprintf(opt, sizeof opt, "-DWG=%u", wg);
    if (clBuildProgram(p, 1, &d, opt, NULL, NULL) != CL_SUCCESS) bad = -1;
    if (bad == 0) k = clCreateKernel(p, "t", &e);
    if (bad == 0 && e != CL_SUCCESS) bad = -1;
    for (i = 0; i < 3 * wg; ++i) data[i] = 1000 + i;
    for (i = 0; i < 4; ++i) off[i] = i * wg;
    if (bad == 0) {
        bd = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 3 * wg * 4, data, &e);
        if (e == CL_SUCCESS) bo = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof off, off, &e);
        if (e == CL_SUCCESS) bi = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, 4, &one, &e);
        if (e == CL_SUCCESS) e = clSetKernelArg(k, 0, sizeof bd, &bd);
        if (e == CL_SUCCESS) e = clSetKernelArg(k, 1, sizeof bo, &bo);
        if (e == CL_SUCCESS) e = clSetKernelArg(k, 2, sizeof bi, &bi);
        if (e == CL_SUCCESS) e = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
        if (e == CL_SUCCESS) e = clEnqueueReadBuffer(q, bd, CL_TRUE, 0, 3 * wg * 4, data, 0, NULL, NULL);
        if (e != CL_SUCCESS) bad = -1;
    }
    for (i = 0; i < 3 && bad >= 0; ++i) {
        cl_uint want = 1000 + i * wg + 2;
        if (data[i * wg] != want) {
            printf("    wg %u: group %u: first element %u, expected %u\n", wg, i, data[i * wg], want);
            ++bad;
        }
    }
    if (bd) clReleaseMemObject(bd);
    if (bo) clReleaseMemObject(bo);
    if (bi) clReleaseMemObject(bi);
    if (k) clReleaseKernel(k);
    clReleaseProgram(p);
    return bad;
}

/* Work-groups of 2, 4, 8 and 16 (as far as the device allows). */
static int check(cl_context c, cl_device_id d, cl_command_queue q, size_t maxwg)
{
    unsigned wg;
    int wrong = 0;
    for (wg = 2; wg <= 16 && wg <= maxwg; wg *= 2) wrong |= repro_failed(run(c, d, q, wg), wg);
    return wrong;
}

int main(void)
{
    return repro_each_device(check, "the narrow work-group bug");
}
