/* interop: clsort on the caller's own OpenCL context and queue, a chain of
 * primitives on the device with events and no host round trip:
 *   keys -> split (flag-0 keys first, stable) -> sort -> exclusive scan
 * The caller owns the context, queue and buffers (the library never releases
 * them); each call waits on the previous call's event. Checked on the host. */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 100000

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int main(void)
{
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    cl_command_queue queue;
    cl_mem keys, flags, kept, sorted, sums;
    cl_event ev_pack, ev_sort, ev_scan;
    clsort_context_desc cd;
    clsort_split_desc pd;
    clsort_sort_desc sd;
    clsort_scan_desc sc;
    clsort_enqueue enq;
    clsort_context *cs = NULL;
    uint32_t *h = (uint32_t *)malloc(N * 4), *hf = (uint32_t *)malloc(N * 4), *want = (uint32_t *)malloc(N * 4);
    uint32_t *got = (uint32_t *)malloc(N * 4), count = 0, x = 2463534242u, acc = 0;
    size_t i, k = 0;
    cl_int e, e2 = CL_SUCCESS;
    int ok = 1;

    /* 1. the application's own OpenCL set-up (first device of the first platform) */
    if (clGetPlatformIDs(1, &platform, NULL) != CL_SUCCESS ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS) {
        printf("interop: no OpenCL device\n");
        return 1;
    }
    if (!h || !hf || !want || !got) {
        printf("interop: out of host memory\n");
        return 1;
    }
    context = clCreateContext(NULL, 1, &device, NULL, NULL, &e);
    if (e != CL_SUCCESS) {
        printf("interop: clCreateContext failed (%d)\n", (int)e);
        return 1;
    }
    queue = clCreateCommandQueue(context, device, 0, &e); /* in-order, as clsort requires */
    if (e != CL_SUCCESS) {
        printf("interop: clCreateCommandQueue failed (%d)\n", (int)e);
        return 1;
    }
    for (i = 0; i < N; ++i) {
        x ^= x << 13; x ^= x >> 17; x ^= x << 5;
        h[i] = x % 1000u;
        hf[i] = (x >> 20) & 1u;
    }
    keys = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * 4, h, &e);
    e2 = e != CL_SUCCESS ? e : e2;
    flags = clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, N * 4, hf, &e);
    e2 = e != CL_SUCCESS ? e : e2;
    kept = clCreateBuffer(context, CL_MEM_READ_WRITE, N * 4, NULL, &e);
    e2 = e != CL_SUCCESS ? e : e2;
    sorted = clCreateBuffer(context, CL_MEM_READ_WRITE, N * 4, NULL, &e);
    e2 = e != CL_SUCCESS ? e : e2;
    sums = clCreateBuffer(context, CL_MEM_READ_WRITE, N * 4, NULL, &e);
    e2 = e != CL_SUCCESS ? e : e2;
    if (e2 != CL_SUCCESS) {
        printf("interop: clCreateBuffer failed (%d)\n", (int)e2);
        return 1;
    }

    /* 2. clsort on those handles */
    memset(&cd, 0, sizeof cd);
    cd.context = context;
    cd.device = device;
    cd.queue = queue;
    if (clsort_create(&cs, &cd) != CLSORT_SUCCESS) {
        printf("interop: %s\n", clsort_last_error(cs));
        return 1;
    }

    /* 3. split -> sort -> scan, chained by events: each call waits on the
     * previous call's event and returns its own; nothing comes back to the
     * host in between (split's zeros argument, which blocks, is left NULL). */
    memset(&pd, 0, sizeof pd);
    pd.flags = flags;
    memset(&enq, 0, sizeof enq);
    enq.event = &ev_pack;
    if (clsort_split(cs, keys, kept, N, &pd, NULL, &enq) != CLSORT_SUCCESS) goto fail;
    memset(&sd, 0, sizeof sd);
    sd.end_bit = 10; /* keys < 1000: 10 key bits, 2 passes */
    enq.num_events_in_wait_list = 1;
    enq.event_wait_list = &ev_pack;
    enq.event = &ev_sort;
    if (clsort_sort(cs, kept, sorted, N, &sd, &enq) != CLSORT_SUCCESS) goto fail;
    memset(&sc, 0, sizeof sc);
    enq.event_wait_list = &ev_sort;
    enq.event = &ev_scan;
    if (clsort_scan(cs, sorted, sums, N, &sc, &enq) != CLSORT_SUCCESS) goto fail;

    /* 4. one wait at the end, then check on the host */
    if (clWaitForEvents(1, &ev_scan) != CL_SUCCESS) {
        printf("interop: the chain's last event failed\n");
        return 1;
    }
    for (i = 0; i < N; ++i) /* split: the flag-0 keys in order, then the flag-1 keys */
        if (!hf[i]) want[k++] = h[i];
    count = (uint32_t)k;
    for (i = 0; i < N; ++i)
        if (hf[i]) want[k++] = h[i];
    ok = clEnqueueReadBuffer(queue, kept, CL_TRUE, 0, N * 4, got, 0, NULL, NULL) == CL_SUCCESS;
    ok = ok && memcmp(got, want, N * 4) == 0;
    qsort(got, N, 4, cmp_u32);
    ok = ok && clEnqueueReadBuffer(queue, sorted, CL_TRUE, 0, N * 4, want, 0, NULL, NULL) == CL_SUCCESS;
    ok = ok && memcmp(got, want, N * 4) == 0;
    ok = ok && clEnqueueReadBuffer(queue, sums, CL_TRUE, 0, N * 4, got, 0, NULL, NULL) == CL_SUCCESS;
    for (i = 0; i < N && ok; ++i) {
        ok = got[i] == acc;
        acc += want[i];
    }
    printf("interop on %s: split (%u zeros of %d), sort, scan chained by events: %s\n", clsort_device_name(cs),
           count, N,
           ok ? "checked, correct" : "WRONG");
    clReleaseEvent(ev_pack); clReleaseEvent(ev_sort); clReleaseEvent(ev_scan);
    clsort_destroy(cs); /* leaves the application's context and queue alone */
    clReleaseMemObject(keys); clReleaseMemObject(flags); clReleaseMemObject(kept);
    clReleaseMemObject(sorted); clReleaseMemObject(sums);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    free(h); free(hf); free(want); free(got);
    return ok ? 0 : 1;
fail:
    printf("interop: %s\n", clsort_last_error(cs));
    clsort_destroy(cs);
    return 1;
}
