/* Compile check, translation unit 2 of 2: the header without the
 * implementation, calling the API (no duplicate symbols at link time). */
#include "clsort.h"

int tu_use(clsort_context *ctx);
int tu_use(clsort_context *ctx)
{
    uint32_t keys[4] = {3, 1, 2, 0};
    return (int)clsort_sort_host(ctx, CLSORT_U32, keys, NULL, NULL, 4, NULL);
}
