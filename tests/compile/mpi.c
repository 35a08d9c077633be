/* Compile check: the CLSORT_MPI part (needs <mpi.h>; make mpi-test). */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

int tu_mpi(clsort_context *ctx);
int tu_mpi(clsort_context *ctx)
{
    uint32_t keys[4] = {3, 1, 2, 0};
    clsort_mpi_out out;
    clsort_result r = clsort_mpi_sort(ctx, MPI_COMM_WORLD, keys, NULL, NULL, 4, NULL, &out);
    if (r == CLSORT_SUCCESS) clsort_mpi_free(&out);
    return (int)r;
}
