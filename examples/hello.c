/* hello: sort a C array with clsort.h (build: cc -std=c99 -I. examples/hello.c -lOpenCL -lm) */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"
#include <stdio.h>
#include <string.h>

int main(void)
{
    float keys[8] = {3.5f, -1.0f, 2.25f, 0.0f, -7.5f, 9.0f, 1.0f, -0.0f};
    clsort_sort_desc desc;
    clsort_context *cs = NULL;
    int i;
    memset(&desc, 0, sizeof desc); /* zero = defaults: all bits, ascending, no values */
    desc.type = CLSORT_F32;
    if (clsort_create(&cs, NULL) != CLSORT_SUCCESS || clsort_sort_host(cs, keys, NULL, NULL, 8, &desc) != CLSORT_SUCCESS) {
        printf("clsort: %s\n", clsort_last_error(cs));
        clsort_destroy(cs);
        return 1;
    }
    for (i = 0; i < 8; ++i) printf("%g ", keys[i]);
    printf("\n(sorted on %s)\n", clsort_device_name(cs));
    clsort_destroy(cs);
    return 0;
}
