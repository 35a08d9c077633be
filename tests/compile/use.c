/* Compile check, translation unit 2 of 2: the header without the
 * implementation, calling the API (no duplicate symbols at link time), with
 * the test hooks declared (CLSORT_TESTING) as the tests take them, and the
 * deprecated names still accepted. */
#include <string.h>

#define CLSORT_TESTING
#include "clsort.h"

int tu_use(clsort_context *ctx);
int tu_use(clsort_context *ctx)
{
    uint32_t keys[4] = {3, 1, 2, 0};
    clsort_test_hooks hooks;
    clsort_prepare_call call;
    clsort_context *hooked = NULL;
    memset(&hooks, 0, sizeof hooks);
    memset(&call, 0, sizeof call);
    hooks.max_programs = 8;
    call.op = CLSORT_PREPARE_BIN; /* deprecated: CLSORT_PREPARE_BINNING */
    if (clsort_family_name(CLSORT_FAMILY_RADIX) == NULL || call.op != CLSORT_PREPARE_BINNING) return -1;
    if (clsort_create_testing(&hooked, NULL, &hooks) == CLSORT_SUCCESS) clsort_destroy(hooked);
    return (int)clsort_sort_host(ctx, CLSORT_U32, keys, NULL, NULL, 4, NULL);
}
