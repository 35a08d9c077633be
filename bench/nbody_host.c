/* The CPU baseline of the N-body rows: the plain O(N^2) loop of the seed
 * tutorial (float, softened, one thread), built -O3 by the Makefile so the
 * compiler may vectorize it. Returns nothing; writes n accelerations. */
#include <math.h>
#include <stddef.h>

void bench_nbody_host(const float *pos, float *acc, size_t n, float eps2);

void bench_nbody_host(const float *pos, float *acc, size_t n, float eps2)
{
    size_t i, j;
    for (i = 0; i < n; ++i) {
        float ax = 0.0f, ay = 0.0f, az = 0.0f;
        const float xi = pos[4 * i], yi = pos[4 * i + 1], zi = pos[4 * i + 2];
        for (j = 0; j < n; ++j) {
            const float dx = pos[4 * j] - xi, dy = pos[4 * j + 1] - yi, dz = pos[4 * j + 2] - zi;
            const float inv = 1.0f / sqrtf(dx * dx + dy * dy + dz * dz + eps2);
            const float s = pos[4 * j + 3] * inv * inv * inv;
            ax += s * dx;
            ay += s * dy;
            az += s * dz;
        }
        acc[4 * i] = ax;
        acc[4 * i + 1] = ay;
        acc[4 * i + 2] = az;
        acc[4 * i + 3] = 0.0f;
    }
}
