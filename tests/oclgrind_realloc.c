/* Reproduces an oclgrind false report: a 64-byte buffer is released and an 80-byte
 * one allocated in its place; bytes past 64 written by a kernel are still reported
 * as uninitialized when an atomic reads them. Build: cc tests/oclgrind_realloc.c -lOpenCL;
 * run: oclgrind --uninitialized ./a.out (18 reports; none if s1 is not released).
 * Debian's oclgrind 21.10 reports 18, the build with tests/oclgrind-shadow.patch none.
 * With -DPLANT_UNINITIALIZED_READ it also copies a buffer nothing has written: a
 * checker that still works must report that (make oclgrind checks both). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
const char *src="__kernel void clear_words(__global uint *p, uint c){ size_t i=get_global_id(0); if(i<c) p[i]=0; }\n"
"__kernel void copy(__global const uint *a, __global uint *b){ b[get_global_id(0)] = a[get_global_id(0)]; }\n"
"__kernel void tick(__global volatile ulong *s, __global uint *o){ if(get_local_id(0)==0) o[get_group_id(0)] = atomic_inc((__global volatile uint*)(s + get_num_groups(0))); }";
cl_context c; cl_device_id d; cl_command_queue q;
cl_program build(const char *opt){ cl_int e; cl_program p=clCreateProgramWithSource(c,1,&src,0,&e); clBuildProgram(p,1,&d,opt,0,0); return p; }
void run(cl_program p, cl_mem s, cl_mem o, cl_uint groups){ cl_int e; cl_kernel k=clCreateKernel(p,"clear_words",&e); cl_uint w=groups*2+2; clSetKernelArg(k,0,sizeof s,&s); clSetKernelArg(k,1,4,&w); size_t g=64,l=64; clEnqueueNDRangeKernel(q,k,1,0,&g,&l,0,0,0);
 cl_kernel t=clCreateKernel(p,"tick",&e); clSetKernelArg(t,0,sizeof s,&s); clSetKernelArg(t,1,sizeof o,&o); size_t g2=groups*64; clEnqueueNDRangeKernel(q,t,1,0,&g2,&l,0,0,0); clFinish(q); }
int main(int argc,char**argv){ cl_platform_id pl; cl_int e; clGetPlatformIDs(1,&pl,0); clGetDeviceIDs(pl,CL_DEVICE_TYPE_ALL,1,&d,0);
 c=clCreateContext(0,1,&d,0,0,&e); q=clCreateCommandQueue(c,d,0,&e);
 cl_program p1=build("-DA"), p2=build("-DB"); cl_mem o=clCreateBuffer(c,0,4096,0,&e);
 cl_mem s1=clCreateBuffer(c,0,64,0,&e); run(p1,s1,o,2); clReleaseMemObject(s1);
 cl_mem s2=clCreateBuffer(c,0,80,0,&e); run(argc>1?p1:p2,s2,o,9);
#ifdef PLANT_UNINITIALIZED_READ
 { cl_mem u=clCreateBuffer(c,0,256,0,&e); cl_kernel k=clCreateKernel(p1,"copy",&e); size_t g=64; clSetKernelArg(k,0,sizeof u,&u); clSetKernelArg(k,1,sizeof o,&o); clEnqueueNDRangeKernel(q,k,1,0,&g,0,0,0,0); clFinish(q); }
#endif
 puts("done"); return 0; }
