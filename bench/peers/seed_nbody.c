/* Reference measurement: the tiled N-body kernel of the seed tutorial (nbody_kern.cl),
   run as published on one OpenCL device. Prints: N local_size median_ms Ginteractions_per_s
   Usage: seed_nbody [platform-substring]
   Build: cc -O2 -o build/seed_nbody bench/peers/seed_nbody.c -lOpenCL */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static const char *src =
"__kernel void nbody_kern(float dt1, float eps, __global float4* pos_old, __global float4* pos_new,\n"
"  __global float4* vel, __local float4* pblock) {\n"
"  const float4 dt = (float4)(dt1,dt1,dt1,0.0f);\n"
"  int gti = get_global_id(0); int ti = get_local_id(0);\n"
"  int n = get_global_size(0); int nt = get_local_size(0); int nb = n/nt;\n"
"  float4 p = pos_old[gti]; float4 v = vel[gti]; float4 a = (float4)(0.0f,0.0f,0.0f,0.0f);\n"
"  for(int jb=0; jb < nb; jb++) {\n"
"    pblock[ti] = pos_old[jb*nt+ti];\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    for(int j=0; j<nt; j++) {\n"
"      float4 p2 = pblock[j]; float4 d = p2 - p;\n"
"      float invr = rsqrt(d.x*d.x + d.y*d.y + d.z*d.z + eps);\n"
"      float f = p2.w*invr*invr*invr; a += f*d; }\n"
"    barrier(CLK_LOCAL_MEM_FENCE); }\n"
"  p += dt*v + 0.5f*dt*dt*a; v += dt*a; pos_new[gti] = p; vel[gti] = v; }\n";
#define CK(e) do { cl_int _e = (e); if (_e) { printf("CL error %d line %d\n", _e, __LINE__); exit(1); } } while (0)
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e3 + t.tv_nsec / 1e6; }
static int cmp(const void *a, const void *b) { double x = *(double *)a, y = *(double *)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
    const char *want = argc > 1 ? argv[1] : "";
    cl_platform_id ps[8]; cl_uint np; CK(clGetPlatformIDs(8, ps, &np));
    cl_platform_id p = ps[0]; char name[256];
    for (cl_uint i = 0; i < np; i++) { clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, 256, name, 0); if (strstr(name, want)) { p = ps[i]; break; } }
    cl_device_id d; CK(clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &d, 0));
    clGetDeviceInfo(d, CL_DEVICE_NAME, 256, name, 0); fprintf(stderr, "device: %s\n", name);
    cl_int e; cl_context c = clCreateContext(0, 1, &d, 0, 0, &e); CK(e);
    cl_command_queue q = clCreateCommandQueue(c, d, 0, &e); CK(e);
    cl_program pr = clCreateProgramWithSource(c, 1, &src, 0, &e); CK(e);
    CK(clBuildProgram(pr, 1, &d, "", 0, 0));
    cl_kernel k = clCreateKernel(pr, "nbody_kern", &e); CK(e);
    int sizes[] = {16384, 65536, 262144}; size_t locals[] = {64, 128, 256};
    for (int si = 0; si < 3; si++) for (int li = 0; li < 3; li++) {
        size_t n = sizes[si], lsz = locals[li];
        float *h = malloc(n * 16); srand(1);
        for (size_t i = 0; i < n * 4; i++) h[i] = (float)rand() / RAND_MAX;
        cl_mem a = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 16, h, &e); CK(e);
        cl_mem b = clCreateBuffer(c, CL_MEM_READ_WRITE, n * 16, 0, &e); CK(e);
        memset(h, 0, n * 16);
        cl_mem v = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 16, h, &e); CK(e);
        float dt = 1e-4f, eps = 1e-4f;
        CK(clSetKernelArg(k, 0, 4, &dt)); CK(clSetKernelArg(k, 1, 4, &eps));
        CK(clSetKernelArg(k, 2, sizeof a, &a)); CK(clSetKernelArg(k, 3, sizeof b, &b));
        CK(clSetKernelArg(k, 4, sizeof v, &v)); CK(clSetKernelArg(k, 5, lsz * 16, 0));
        double t[9]; int reps = n > 100000 ? 5 : 9;
        CK(clEnqueueNDRangeKernel(q, k, 1, 0, &n, &lsz, 0, 0, 0)); CK(clFinish(q));
        for (int r = 0; r < reps; r++) { double t0 = now(); CK(clEnqueueNDRangeKernel(q, k, 1, 0, &n, &lsz, 0, 0, 0)); CK(clFinish(q)); t[r] = now() - t0; }
        qsort(t, reps, sizeof(double), cmp);
        double ms = t[reps / 2];
        printf("seed_nbody %zu %zu %.3f %.1f\n", n, lsz, ms, (double)n * n / (ms * 1e6));
        clReleaseMemObject(a); clReleaseMemObject(b); clReleaseMemObject(v); free(h);
    }
    return 0;
}
