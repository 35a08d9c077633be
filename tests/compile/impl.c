/* Compile check, translation unit 1 of 2: the implementation. */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

int tu_use(clsort_context *ctx); /* from use.c */

int main(void)
{
    clsort_context *ctx = NULL;
    int r = clsort_create(&ctx, NULL) == CLSORT_SUCCESS ? tu_use(ctx) : 0;
    clsort_destroy(ctx);
    return r == 0 ? 0 : 0; /* links and runs; the test suite checks results */
}
