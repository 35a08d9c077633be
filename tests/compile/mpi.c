/* Compile check: the CLSORT_MPI part (needs <mpi.h>; make mpi-test). */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

int tu_mpi(clsort_context *ctx, cl_mem keys);
int tu_mpi(clsort_context *ctx, cl_mem keys)
{
    uint32_t host[4] = {3, 1, 2, 0};
    clsort_mpi_out out;
    clsort_mpi_device_out dev;
    clsort_mpi_staging staging;
    clsort_mpi_desc desc;
    clsort_result r = clsort_mpi_sort(ctx, MPI_COMM_WORLD, host, NULL, NULL, 4, NULL, &out);
    if (r == CLSORT_SUCCESS) clsort_mpi_free(&out);
    memset(&staging, 0, sizeof staging);
    memset(&desc, 0, sizeof desc);
    desc.staging = &staging;
    r = clsort_mpi_sort_device(ctx, MPI_COMM_WORLD, keys, NULL, NULL, 4, &desc, &dev);
    if (r == CLSORT_SUCCESS) clsort_mpi_device_free(&dev);
    clsort_mpi_staging_release(&staging);
    return (int)r;
}
