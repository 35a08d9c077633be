/* Reproduces a Mesa llvmpipe bug (rusticl; seen with Mesa 22.3.6, LLVM 15,
 * device "llvmpipe (LLVM 15.0.6, 256 bits)"): a work-item's loops stop after
 * 65535 iterations counted over all its loops together. gallivm keeps one
 * counter per shader function (LP_MAX_TGSI_LOOP_ITERATIONS = 65535 in
 * src/gallium/auxiliary/gallivm/lp_bld_limits.h, "Shared between every loop
 * in a TGSI shader"); lp_exec_endloop (lp_bld_ir_common.c) decrements it at
 * the end of every pass of any loop, the pass that leaves the loop included,
 * and leaves the loop when it reaches 0. No single loop needs to run 65535
 * times: here an outer loop of n iterations holds an inner loop of m
 * iterations (m = 0 still costs one pass), so llvmpipe stops the outer loop
 * after about 65535 / (m + 2) iterations: n = 40000, m = 0 ends at 32768; n =
 * 20000, m = 3 at 13107. Any work-group width, any number of work-groups.
 * The kernel is valid OpenCL C 1.2: OpenCL sets no limit on how often a
 * loop runs; the trip counts are kernel arguments, the same for every
 * work-item, so every work-item reaches the barrier in the loop equally
 * often; each work-item writes only its own two words.
 * In clsort: the look-back with the decoupled fallback (common.cl
 * lb_lookback) under the reverse-tile test. A tile that finds its
 * predecessor unpublished for 64 reads sums that tile itself, so its loop
 * runs 64 times per predecessor and each fallback adds the tile-sum loop
 * (ITEMS passes) and wg_reduce's; with 8 x 256 tiles the loop stopped after
 * 126 fallbacks (pack and enumerate of 300001 wrong from tile 126 on, each
 * prefix short by the tiles not yet summed). The one-sweep sort's fallback
 * counts a tile's keys of a digit in one loop of TILE passes (wrong at
 * 65537 keys). Wider work-groups change only the passes per fallback: with
 * the 16-wide groups clsort takes on llvmpipe, a look-back u32 scan of
 * 600001 elements with reversed tiles is wrong from tile 125 on. clsort's
 * quirk-table rows for llvmpipe (clsort__decide: work-groups widened to
 * twice the SIMD width, classic radix passes) keep its tests' look-back
 * under the limit (in ticket order, without the test hook, the same scan
 * of 600001 is right); they do not lift the limit. And clsort_reduce's
 * fixed grid (at most 4 work-groups per compute unit) made a work-item loop
 * over n / (groups x tile) tiles: the sum of 64000000 ones came out 4145600
 * on llvmpipe. Worked around by the quirk table's loop budget (clsort.h
 * >>loop budget): every launch whose loops grow with n, a tile count or a
 * wait is shaped to stay within 65535 passes per work-item there.
 * Build: cc -std=c99 tests/llvmpipe_loop_limit.c -lOpenCL; run: RUSTICL_ENABLE=llvmpipe ./a.out
 * Checks every device of every platform with work-groups of 8, 16 and 64;
 * exit status 1 when a device gets a wrong result. */
#include "repro.h"

static const char *src =
    "__kernel void t(__global uint *out, uint n, uint m)\n"
    "{\n"
    "    uint outer = 0, inner = 0;\n"
    "    for (uint i = 0; i < n; ++i) {\n"
    "        for (uint k = 0; k < m; ++k) ++inner;\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "        ++outer;\n"
    "    }\n"
    "    out[2 * get_global_id(0)] = outer;\n"
    "    out[2 * get_global_id(0) + 1] = inner;\n"
    "}\n";

#define GROUPS 2
#define MAX_WG 64

/* The kernel with n outer and m inner iterations on GROUPS work-groups of wg;
 * returns the number of wrong counts, -1 on an OpenCL error. */
static int run(cl_context c, cl_command_queue q, cl_kernel k, size_t wg, cl_uint n, cl_uint m)
{
    static cl_uint out[2 * GROUPS * MAX_WG];
    size_t global = GROUPS * wg, i;
    cl_int e;
    int bad = 0;
    cl_mem b = clCreateBuffer(c, CL_MEM_WRITE_ONLY, sizeof out, NULL, &e);
    if (e != CL_SUCCESS) return -1;
    e = clSetKernelArg(k, 0, sizeof b, &b);
    if (e == CL_SUCCESS) e = clSetKernelArg(k, 1, sizeof n, &n);
    if (e == CL_SUCCESS) e = clSetKernelArg(k, 2, sizeof m, &m);
    if (e == CL_SUCCESS) e = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &wg, 0, NULL, NULL);
    if (e == CL_SUCCESS) e = clEnqueueReadBuffer(q, b, CL_TRUE, 0, 2 * global * sizeof(cl_uint), out, 0, NULL, NULL);
    clReleaseMemObject(b);
    if (e != CL_SUCCESS) return -1;
    for (i = 0; i < global; ++i)
        if (out[2 * i] != n || out[2 * i + 1] != n * m) {
            if (bad == 0)
                printf("    wg %u, n %u, m %u: work-item %u: outer %u, inner %u; expected %u, %u\n", (unsigned)wg,
                       (unsigned)n, (unsigned)m, (unsigned)i, (unsigned)out[2 * i], (unsigned)out[2 * i + 1],
                       (unsigned)n, (unsigned)(n * m));
            ++bad;
        }
    return bad;
}

/* Each case with work-groups of 8, 16 and 64 (as far as the device allows). */
static int check(cl_context c, cl_device_id d, cl_command_queue q, size_t maxwg)
{
    /* n, m: 30000 x 2 passes stays under 65535 (right on llvmpipe too);
     * 40000 x 2 and 20000 x 5 go over it, with no loop over 40000 */
    static const cl_uint cases[3][2] = {{30000, 0}, {40000, 0}, {20000, 3}};
    static const size_t wgs[3] = {8, 16, MAX_WG};
    cl_int e;
    cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, &e);
    cl_kernel k = NULL;
    int wrong = 0, w, s;
    if (e == CL_SUCCESS && clBuildProgram(p, 1, &d, "", NULL, NULL) == CL_SUCCESS) k = clCreateKernel(p, "t", &e);
    for (w = 0; w < 3 && wgs[w] <= maxwg; ++w)
        for (s = 0; s < 3; ++s)
            wrong |= repro_failed(k ? run(c, q, k, wgs[w], cases[s][0], cases[s][1]) : -1, wgs[w]);
    if (k) clReleaseKernel(k);
    if (p) clReleaseProgram(p);
    return wrong;
}

int main(void)
{
    return repro_each_device(check, "the loop-iteration limit");
}
