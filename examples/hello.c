/* hello: sort a C array with clsort.h and check the result
 * (build: cc -std=c99 -I. examples/hello.c -lOpenCL -lm) */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"
#include <stdio.h>
#include <string.h>

#define N 8

/* 1 when b holds a's values in ascending order: sorted, and each value of b
 * occurs in a as often as in b (N is small: count by scanning). */
static int sorted_copy_of(const float *a, const float *b)
{
    int i, j;
    for (i = 0; i < N; ++i) {
        int in_a = 0, in_b = 0;
        if (i > 0 && b[i - 1] > b[i]) return 0;
        for (j = 0; j < N; ++j) {
            in_a += memcmp(&a[j], &b[i], sizeof b[i]) == 0; /* bit patterns: -0 and 0 differ */
            in_b += memcmp(&b[j], &b[i], sizeof b[i]) == 0;
        }
        if (in_a != in_b) return 0;
    }
    return 1;
}

int main(void)
{
    const float input[N] = {3.5f, -1.0f, 2.25f, 0.0f, -7.5f, 9.0f, 1.0f, -0.0f};
    float keys[N];
    clsort_context *cs = NULL;
    int i, ok;
    memcpy(keys, input, sizeof keys);
    /* the key type is an argument; no descriptor: all bits, ascending, no values */
    if (clsort_create(&cs, NULL) != CLSORT_SUCCESS ||
        clsort_sort_host(cs, CLSORT_F32, keys, NULL, NULL, N, NULL) != CLSORT_SUCCESS) {
        printf("clsort: %s\n", clsort_last_error(cs));
        clsort_destroy(cs);
        return 1;
    }
    for (i = 0; i < N; ++i) printf("%g ", keys[i]);
    ok = sorted_copy_of(input, keys);
    printf("\n(sorted on %s: %s)\n", clsort_device_name(cs), ok ? "checked, in order" : "WRONG");
    clsort_destroy(cs);
    return ok ? 0 : 1;
}
