/* Compile check: CLSORT_STATIC makes every function private to this file. */
#define CLSORT_STATIC
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

int main(void)
{
    clsort_context *ctx = NULL;
    if (clsort_create(&ctx, NULL) == CLSORT_SUCCESS) {
        uint32_t in[3] = {1, 2, 3}, out[3];
        clsort_scan_host(ctx, CLSORT_U32, 0, in, out, 3, NULL);
    }
    clsort_destroy(ctx);
    return 0;
}
