/* Reproduces a Mesa llvmpipe bug (rusticl; seen with Mesa 22.3.6, LLVM 15):
 * in a work-group of 32 or more work-items (more than one SIMD vector of 8
 * lanes on a "256 bits" device), a loop whose trip count differs between
 * work-items and that contains a mem_fence loses the global stores that
 * follow the fence in its second and later iterations. The kernel is valid
 * OpenCL C 1.2 (no barrier; a fence only orders the work-item's own
 * accesses): the bottom-up climb of clsort's tree summaries. Leaves climb a
 * fixed tree of 9 leaves; at each internal node the second work-item to
 * arrive (atomic_inc) writes the node's leaf count and climbs on. Expected
 * counts: 9 2 2 4 5 4 3 2 (node 0 = the root).
 * clsort builds tree.cl without the fences on llvmpipe (TR_NO_FENCE, see
 * clsort__tree_program); with them its summaries came out wrong there.
 * Build: cc -std=c99 tests/llvmpipe_fence_loop.c -lOpenCL; run: RUSTICL_ENABLE=llvmpipe ./a.out
 * Checks every device of every platform with work-groups of 16, 32 and 256;
 * exit status 1 when a device gets a wrong result. */
#include "repro.h"

static const char *src =
    "__kernel void climb(__global const uint *parents, __global const uint4 *nodes, volatile __global uint *flags,\n"
    "                    volatile __global float *count, uint n)\n"
    "{\n"
    "    const uint j = (uint)get_global_id(0);\n"
    "    if (j >= n) return;\n"
    "    uint node = n - 1u + j;\n"
    "    for (;;) {\n"
    "        const uint p = parents[node];\n"
    "        if (p == 0xffffffffu) return;\n"
    "        if (atomic_inc(&flags[p]) == 0u) return;\n"
    "        mem_fence(CLK_GLOBAL_MEM_FENCE);\n"
    "        const uint4 nd = nodes[p];\n"
    "        const float a = nd.x >= n - 1u ? 1.0f : count[nd.x], b = nd.y >= n - 1u ? 1.0f : count[nd.y];\n"
    "        count[p] = a + b;\n"
    "        node = p;\n"
    "    }\n"
    "}\n";

/* The tree: internal nodes 0..7 (children, range), leaves 8..16. */
static const cl_uint parents[17] = {0xffffffffu, 3, 3, 4, 0, 0, 5, 6, 1, 1, 2, 2, 4, 5, 6, 7, 7};
static const cl_uint nodes[32] = {4, 5, 0, 8, 8, 9, 0, 1, 10, 11, 2, 3, 1, 2, 0, 3,
                                  3, 12, 0, 4, 13, 6, 5, 8, 14, 7, 6, 8, 15, 16, 7, 8};
static const float want[8] = {9, 2, 2, 4, 5, 4, 3, 2};

/* One work-group of wg; returns the number of wrong counts, -1 on an OpenCL error. */
static int run(cl_context c, cl_device_id d, cl_command_queue q, size_t wg)
{
    cl_uint flags[8] = {0}, n = 9, i;
    float count[8] = {0};
    cl_int e;
    int bad = 0;
    cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, &e);
    cl_kernel k = NULL;
    cl_mem b[4] = {NULL, NULL, NULL, NULL};
    if (e != CL_SUCCESS) return -1;
    if (clBuildProgram(p, 1, &d, "", NULL, NULL) != CL_SUCCESS) bad = -1;
    if (bad == 0) k = clCreateKernel(p, "climb", &e);
    if (bad == 0 && e != CL_SUCCESS) bad = -1;
    if (bad == 0) {
        b[0] = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof parents, (void *)parents, &e);
        if (e == CL_SUCCESS) b[1] = clCreateBuffer(c, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof nodes, (void *)nodes, &e);
        if (e == CL_SUCCESS) b[2] = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof flags, flags, &e);
        if (e == CL_SUCCESS) b[3] = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof count, count, &e);
        for (i = 0; i < 4 && e == CL_SUCCESS; ++i) e = clSetKernelArg(k, i, sizeof b[i], &b[i]);
        if (e == CL_SUCCESS) e = clSetKernelArg(k, 4, sizeof n, &n);
        if (e == CL_SUCCESS) e = clEnqueueNDRangeKernel(q, k, 1, NULL, &wg, &wg, 0, NULL, NULL);
        if (e == CL_SUCCESS) e = clEnqueueReadBuffer(q, b[3], CL_TRUE, 0, sizeof count, count, 0, NULL, NULL);
        if (e != CL_SUCCESS) bad = -1;
    }
    for (i = 0; i < 8 && bad >= 0; ++i)
        if (count[i] != want[i]) {
            printf("    wg %u: node %u: count %g, expected %g\n", (unsigned)wg, i, count[i], want[i]);
            ++bad;
        }
    for (i = 0; i < 4; ++i)
        if (b[i]) clReleaseMemObject(b[i]);
    if (k) clReleaseKernel(k);
    clReleaseProgram(p);
    return bad;
}

/* Work-groups of 16, 32 and 256 (as far as the device allows). */
static int check(cl_context c, cl_device_id d, cl_command_queue q, size_t maxwg)
{
    static const size_t wgs[3] = {16, 32, 256};
    int wrong = 0, w;
    for (w = 0; w < 3 && wgs[w] <= maxwg; ++w) wrong |= repro_failed(run(c, d, q, wgs[w]), wgs[w]);
    return wrong;
}

int main(void)
{
    return repro_each_device(check, "the fence-in-a-loop bug");
}
