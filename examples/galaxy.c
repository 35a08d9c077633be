/* clsort N-body example: two Plummer spheres on a collision course, advanced
 * with clsort_nbody (leapfrog, bursts of steps on the device, no transfer in
 * between) and drawn as PPM images of the density projected on the x-y plane.
 *
 *   galaxy [n [steps [every [dir]]]]   default 2048 bodies, 600 steps, an image
 *                                      every 100 steps into build/ (galaxy_0000.ppm ...)
 *
 * Units: G = 1, each sphere of mass 1/2 and scale radius 1/4 (Plummer); the
 * spheres start 2 apart, falling towards each other with a small sideways
 * offset so that they merge after a fly-by; dt = 5e-3, softening 0.01. Prints the total energy (host,
 * double precision; n <= 8192) at the start and the end. */
#define CLSORT_IMPLEMENTATION
#include "clsort.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

static unsigned long long rng = 0x2545F4914F6CDD1Dull;
static double urand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 9007199254740992.0;
}

/* One Plummer sphere (mass M, scale radius a) of n bodies at center c moving
 * with velocity u; velocities from the distribution function (Aarseth, Henon
 * and Wielen 1974), G = 1. */
static void plummer(float *pos, float *vel, size_t n, double M, double a, const double c[3], const double u[3])
{
    size_t i;
    for (i = 0; i < n; ++i) {
        double r, x, y, ve, z, ph, s, v;
        do r = 1.0 / sqrt(pow(urand() * 0.999 + 1e-9, -2.0 / 3.0) - 1.0); while (r > 10.0);
        z = 2.0 * urand() - 1.0, ph = 6.283185307179586 * urand(), s = sqrt(1.0 - z * z);
        pos[4 * i] = (float)(c[0] + a * r * s * cos(ph));
        pos[4 * i + 1] = (float)(c[1] + a * r * s * sin(ph));
        pos[4 * i + 2] = (float)(c[2] + a * r * z);
        pos[4 * i + 3] = (float)(M / (double)n);
        do x = urand(), y = urand() * 0.1; while (y > x * x * pow(1.0 - x * x, 3.5));
        ve = sqrt(2.0 * M / a) * pow(1.0 + r * r, -0.25);
        v = x * ve;
        z = 2.0 * urand() - 1.0, ph = 6.283185307179586 * urand(), s = sqrt(1.0 - z * z);
        vel[4 * i] = (float)(u[0] + v * s * cos(ph));
        vel[4 * i + 1] = (float)(u[1] + v * s * sin(ph));
        vel[4 * i + 2] = (float)(u[2] + v * z);
        vel[4 * i + 3] = 0.0f;
    }
}

static double energy(const float *p, const float *v, size_t n, double eps2)
{
    double e = 0.0;
    size_t i, j;
    for (i = 0; i < n; ++i) {
        e += 0.5 * p[4 * i + 3] * ((double)v[4 * i] * v[4 * i] + (double)v[4 * i + 1] * v[4 * i + 1] +
                                   (double)v[4 * i + 2] * v[4 * i + 2]);
        for (j = i + 1; j < n; ++j) {
            double dx = (double)p[4 * j] - p[4 * i], dy = (double)p[4 * j + 1] - p[4 * i + 1],
                   dz = (double)p[4 * j + 2] - p[4 * i + 2];
            e -= (double)p[4 * i + 3] * p[4 * j + 3] / sqrt(dx * dx + dy * dy + dz * dz + eps2);
        }
    }
    return e;
}

/* The mass per pixel of the x-y projection of [-2, 2]^2, log-scaled to gray. */
static int write_ppm(const char *path, const float *p, size_t n, int w)
{
    double *img = (double *)calloc((size_t)w * w, sizeof(double)), peak = 0.0;
    unsigned char *rgb = (unsigned char *)malloc((size_t)w * w * 3);
    FILE *f;
    size_t i;
    if (!img || !rgb) return 1;
    for (i = 0; i < n; ++i) {
        int x = (int)floor((p[4 * i] + 2.0) / 4.0 * w), y = (int)floor((2.0 - p[4 * i + 1]) / 4.0 * w);
        if (x >= 0 && x < w && y >= 0 && y < w) img[(size_t)y * w + x] += p[4 * i + 3];
    }
    for (i = 0; i < (size_t)w * w; ++i) peak = img[i] > peak ? img[i] : peak;
    for (i = 0; i < (size_t)w * w; ++i) {
        /* 3 decades of density: peak white, peak/1000 black */
        double t = img[i] > 0 ? 1.0 + log10(img[i] / peak) / 3.0 : 0.0;
        unsigned char g = (unsigned char)(255.0 * (t < 0 ? 0 : t > 1 ? 1 : t));
        rgb[3 * i] = g, rgb[3 * i + 1] = (unsigned char)(g * 0.85), rgb[3 * i + 2] = (unsigned char)(g * 0.6);
    }
    f = fopen(path, "wb");
    if (!f) return 1;
    fprintf(f, "P6\n%d %d\n255\n", w, w);
    fwrite(rgb, 1, (size_t)w * w * 3, f);
    fclose(f);
    free(img);
    free(rgb);
    return 0;
}

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)atol(argv[1]) : 2048, half;
    unsigned steps = argc > 2 ? (unsigned)atoi(argv[2]) : 600, every = argc > 3 ? (unsigned)atoi(argv[3]) : 100, done;
    const char *dir = argc > 4 ? argv[4] : "build";
    const double eps2 = 1e-4, c1[3] = {-1.0, -0.15, 0}, c2[3] = {1.0, 0.15, 0}, u1[3] = {0.25, 0, 0},
                 u2[3] = {-0.25, 0, 0};
    float *pos, *vel;
    clsort_context *cs = NULL;
    clsort_nbody_desc d;
    cl_mem dp, dv;
    cl_int e;
    double e0 = 0.0, t0, t_run = 0.0;
    char path[512];
    int frame = 0;
    if (n < 2 || every < 1) {
        fprintf(stderr, "usage: galaxy [n >= 2 [steps [every >= 1 [dir]]]]\n");
        return 2;
    }
    half = n / 2;
    pos = (float *)malloc(n * 16);
    vel = (float *)malloc(n * 16);
    if (!pos || !vel) return 1;
    plummer(pos, vel, half, 0.5, 0.25, c1, u1);
    plummer(pos + 4 * half, vel + 4 * half, n - half, 0.5, 0.25, c2, u2);
    if (clsort_create(&cs, NULL) != CLSORT_SUCCESS) {
        fprintf(stderr, "galaxy: %s\n", clsort_last_error(cs));
        clsort_destroy(cs);
        return 1;
    }
    printf("galaxy: %lu bodies, %u steps, device %s\n", (unsigned long)n, steps, clsort_device_name(cs));
    dp = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 16, pos, &e);
    if (e != CL_SUCCESS) return 1;
    dv = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, n * 16, vel, &e);
    if (e != CL_SUCCESS) return 1;
    if (n <= 8192) e0 = energy(pos, vel, n, eps2);
    memset(&d, 0, sizeof d);
    d.dt = 5e-3;
    d.softening2 = eps2;
    for (done = 0;;) {
        snprintf(path, sizeof path, "%s/galaxy_%04d.ppm", dir, frame++);
        if (write_ppm(path, pos, n, 256)) {
            fprintf(stderr, "galaxy: cannot write %s\n", path);
            return 1;
        }
        printf("  step %5u: %s\n", done, path);
        if (done >= steps) break;
        d.steps = steps - done < every ? steps - done : every; /* a burst, no transfer in between */
        t0 = now_ms();
        if (clsort_nbody(cs, dp, dv, n, &d, NULL) != CLSORT_SUCCESS ||
            clEnqueueReadBuffer(clsort_cl_queue(cs), dp, CL_TRUE, 0, n * 16, pos, 0, NULL, NULL) != CL_SUCCESS) {
            fprintf(stderr, "galaxy: %s\n", clsort_last_error(cs));
            return 1;
        }
        t_run += now_ms() - t0;
        done += d.steps;
    }
    printf("galaxy: %.1f ms on the device, %.3g interactions/s\n", t_run,
           (double)n * n * (steps + (steps + every - 1) / every) / (t_run * 1e-3));
    if (n <= 8192) {
        double e1;
        clEnqueueReadBuffer(clsort_cl_queue(cs), dv, CL_TRUE, 0, n * 16, vel, 0, NULL, NULL);
        e1 = energy(pos, vel, n, eps2);
        printf("galaxy: energy %.6f -> %.6f (relative change %.2g)\n", e0, e1, fabs((e1 - e0) / e0));
    }
    clReleaseMemObject(dp);
    clReleaseMemObject(dv);
    clsort_destroy(cs);
    free(pos);
    free(vel);
    return 0;
}
