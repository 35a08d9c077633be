/* test_clsort, nbody: clsort_nbody_accel against an O(N^2) double
 * reference within the documented bound, for both methods, fp64 and every
 * work-group shape; momentum, energy drift and a two-body orbit over steps;
 * bit-identical runs; bad arguments. Included by tests/test_clsort.c. */

/* "wg:ib:js[:flags]" (as CLSORT_NBODY) as a clsort_tuning. */
static clsort_tuning nbody_tuning(const char *shape)
{
    clsort_tuning t;
    unsigned wg = 0, ib = 0, js = 0;
    char flags[8] = "";
    memset(&t, 0, sizeof t);
    if (sscanf(shape, "%u:%u:%u:%7s", &wg, &ib, &js, flags) < 3) check(0, "nbody shape string", 0, shape, 0, 0, 0);
    t.nbody_wg = wg;
    t.nbody_ib = ib;
    t.nbody_js = js;
    if (strchr(flags, 'n')) t.nbody_flags |= CLSORT_TUNE_NATIVE_RSQRT;
    if (strchr(flags, 'f')) t.nbody_flags |= CLSORT_TUNE_FAST_MATH;
    if (strchr(flags, 'p')) t.nbody_flags |= CLSORT_TUNE_PRECISE;
    return t;
}


/* Positions (x, y, z, m) and velocities of a Plummer sphere of n bodies, total
 * mass M, scale radius 1, G = 1, isotropic velocities from the distribution
 * function (Aarseth, Henon & Wielen 1974), as floats. */
static double urand(void) { return (double)(rnd64() >> 11) / 9007199254740992.0; }
static void plummer(float *pos, float *vel, size_t n, double M)
{
    size_t i;
    for (i = 0; i < n; ++i) {
        double r, x, y, q, ve, z, c, ph, s, v;
        do r = 1.0 / sqrt(pow(urand() * 0.999 + 1e-9, -2.0 / 3.0) - 1.0); while (r > 20.0);
        z = 2.0 * urand() - 1.0; ph = 6.283185307179586 * urand(); s = sqrt(1.0 - z * z);
        pos[4 * i] = (float)(r * s * cos(ph)); pos[4 * i + 1] = (float)(r * s * sin(ph)); pos[4 * i + 2] = (float)(r * z);
        pos[4 * i + 3] = (float)(M / (double)n);
        do { x = urand(); y = urand() * 0.1; } while (y > x * x * pow(1.0 - x * x, 3.5));
        q = x; ve = sqrt(2.0 * M) * pow(1.0 + r * r, -0.25); v = q * ve;
        c = 2.0 * urand() - 1.0; ph = 6.283185307179586 * urand(); s = sqrt(1.0 - c * c);
        vel[4 * i] = (float)(v * s * cos(ph)); vel[4 * i + 1] = (float)(v * s * sin(ph)); vel[4 * i + 2] = (float)(v * c);
        vel[4 * i + 3] = 0.0f;
    }
}

/* The O(N^2) reference in double from the float inputs: acc = G * a_i, and
 * per component S = G * sum_j |m_j d_c / (r^2 + eps2)^1.5| for the bound. */
static void ref_accel_row(const float *pos, size_t n, size_t i, double eps2, double G, double acc[3], double S[3])
{
    size_t j;
    int c;
    for (c = 0; c < 3; ++c) acc[c] = S[c] = 0.0;
    for (j = 0; j < n; ++j) {
        double d[3], r2 = eps2, f;
        for (c = 0; c < 3; ++c) { d[c] = (double)pos[4 * j + c] - (double)pos[4 * i + c]; r2 += d[c] * d[c]; }
        if (r2 == 0.0) continue;
        f = (double)pos[4 * j + 3] / (r2 * sqrt(r2));
        for (c = 0; c < 3; ++c) { acc[c] += G * f * d[c]; S[c] += G * fabs(f * d[c]); }
    }
}

static double nb_max_ratio; /* largest error / bound seen, reported at the end */

/* Documented bound (the header manual, NBODY): per
 * component |a - a_ref| <= (N + 16) u S with u = 2^-24 (float) or 2^-53. Each
 * term carries <= ~12 roundings (difference 1, r^2 3, rsqrt 2 ulp, the cube
 * and mass 3, times d 1, G 1, pair ordering); a sum of N terms in any order
 * adds <= (N - 1) u S (Higham, recursive summation; the slices' partial sums
 * are sums too). The atomic method's order is a sum of the same terms in
 * another order, plus a second level (local then global): 2N + 16. */
static int accel_ok(const float *pos, const void *acc, int fp64, size_t n, size_t i, double eps2, double G,
                    double factor, double *worst)
{
    double ref[3], S[3], u = fp64 ? ldexp(1, -53) : ldexp(1, -24);
    int c, ok = 1;
    ref_accel_row(pos, n, i, eps2, G, ref, S);
    for (c = 0; c < 3; ++c) {
        double got = fp64 ? ((const double *)acc)[4 * i + c] : ((const float *)acc)[4 * i + c];
        double bound = factor * u * S[c], err = fabs(got - ref[c]);
        if (!(err <= bound) && !(bound == 0.0 && got == 0.0)) ok = 0;
        if (bound > 0 && err / bound > *worst) *worst = err / bound;
    }
    if (fp64 ? ((const double *)acc)[4 * i + 3] != 0.0 : ((const float *)acc)[4 * i + 3] != 0.0f) ok = 0;
    return ok;
}

static void nb_desc(clsort_nbody_desc *d, double dt, double eps2, unsigned steps, int integrator)
{
    memset(d, 0, sizeof *d);
    d->dt = dt;
    d->softening2 = eps2;
    d->steps = steps;
    d->integrator = (clsort_nbody_integrator)integrator;
}

/* Accelerations of n random bodies against the reference, for one shape
 * ("wg:ib:js[:flags]" as CLSORT_NBODY, NULL = automatic), method and precision. */
static void test_nbody_accel(clsort_context *base, size_t n, const char *shape, int method, int fp64, double eps2)
{
    clsort_tuning tune = nbody_tuning(shape ? shape : "0:0:0");
    clsort_context *cs = shape ? tuned_context(base, &tune, "context with an N-body shape") : base;
    float *pos = (float *)malloc(n * 16 + 16);
    double *posd = (double *)malloc(n * 32 + 32);
    unsigned char *acc = (unsigned char *)malloc(n * 32 + 32);
    size_t vec = fp64 ? 32 : 16, i, bad = n, rows = n > 2048 ? 256 : n;
    clsort_nbody_desc d;
    cl_mem dp, da;
    double worst = 0, factor = (method == CLSORT_NBODY_ATOMIC ? 2.0 * (double)n : (double)n) + 16.0;
    char what[128];
    int r, ok = 1;
    for (i = 0; i < n; ++i) {
        int c;
        for (c = 0; c < 3; ++c) pos[4 * i + c] = (float)(urand() * 2.0 - 1.0);
        pos[4 * i + 3] = (float)(0.5 + urand()); /* masses 0.5 .. 1.5 */
        if (i % 97 == 5 && i > 0) memcpy(&pos[4 * i], &pos[4 * (i - 1)], 12); /* coincident pairs */
    }
    for (i = 0; i < 4 * n; ++i) posd[i] = pos[i];
    if (!cs) {
        free(pos); free(posd); free(acc);
        return;
    }
    dp = buffer(cs, n * vec, fp64 ? (const void *)posd : (const void *)pos);
    da = buffer(cs, n * vec, NULL);
    nb_desc(&d, 0, eps2, 1, 0);
    d.G = 0.75;
    d.method = (clsort_nbody_method)method;
    d.fp64 = fp64;
    snprintf(what, sizeof what, "nbody accel %s %s shape %s eps2 %g", fp64 ? "f64" : "f32",
             method ? "atomic" : "tiled", shape ? shape : "auto", eps2);
    r = clsort_nbody_accel(cs, dp, da, n, &d, NULL);
    if (fp64 && r == CLSORT_ERROR_UNSUPPORTED) {
        check(strstr(clsort_last_error(cs), "cl_khr_fp64") != NULL, "nbody fp64 unsupported message", n, "-", 0, 0, 0);
        goto done;
    }
    check(r == CLSORT_SUCCESS, what, n, "-", 0, 0, r);
    if (r != CLSORT_SUCCESS) { printf("  %s\n", clsort_last_error(cs)); goto done; }
    download(cs, da, n * vec, acc);
    for (i = 0; i < rows && ok; ++i) {
        size_t row = rows == n ? i : (i * 7919u) % n; /* a sample of rows when n is large */
        if (!accel_ok(pos, acc, fp64, n, row, eps2, 0.75, factor, &worst)) ok = 0, bad = row;
    }
    if (worst > nb_max_ratio) nb_max_ratio = worst;
    check(ok, what, n, "uniform", bad, 0, worst);
done:
    if (cs != base) clsort_destroy(cs);
    clReleaseMemObject(dp);
    clReleaseMemObject(da);
    free(pos); free(posd); free(acc);
}

/* Runs steps on copies of pos/vel (float); results into pos_out/vel_out. */
static int nb_run(clsort_context *cs, const float *pos, const float *vel, size_t n, const clsort_nbody_desc *d,
                  unsigned calls, float *pos_out, float *vel_out)
{
    cl_mem dp = buffer(cs, n * 16, pos), dv = buffer(cs, n * 16, vel);
    unsigned c;
    int r = CLSORT_SUCCESS;
    for (c = 0; c < calls && r == CLSORT_SUCCESS; ++c) r = clsort_nbody(cs, dp, dv, n, d, NULL);
    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
    download(cs, dp, n * 16, pos_out);
    download(cs, dv, n * 16, vel_out);
    clReleaseMemObject(dp);
    clReleaseMemObject(dv);
    return r;
}

static double energy(const float *pos, const float *vel, size_t n, double eps2, double G)
{
    double ek = 0, ep = 0;
    size_t i, j;
    for (i = 0; i < n; ++i) {
        double m = pos[4 * i + 3];
        ek += 0.5 * m * ((double)vel[4 * i] * vel[4 * i] + (double)vel[4 * i + 1] * vel[4 * i + 1] +
                         (double)vel[4 * i + 2] * vel[4 * i + 2]);
        for (j = i + 1; j < n; ++j) {
            double dx = (double)pos[4 * j] - pos[4 * i], dy = (double)pos[4 * j + 1] - pos[4 * i + 1],
                   dz = (double)pos[4 * j + 2] - pos[4 * i + 2];
            ep -= G * m * pos[4 * j + 3] / sqrt(dx * dx + dy * dy + dz * dz + eps2);
        }
    }
    return ek + ep;
}

/* Momentum, energy drift, the two-body orbit, N = 1, coincident bodies. */
static void test_nbody_physics(clsort_context *cs, int tiny)
{
    size_t n = tiny ? 40 : 256, i;
    unsigned steps = tiny ? 20 : 1000;
    float *pos = (float *)malloc(n * 16), *vel = (float *)malloc(n * 16);
    float *po = (float *)malloc(n * 16), *vo = (float *)malloc(n * 16);
    clsort_nbody_desc d;
    double e0, e1, p0[3] = {0, 0, 0}, p1[3] = {0, 0, 0}, scale = 0, drift, dp, Ssum = 0;
    int c, r;
    plummer(pos, vel, n, 1.0);
    /* momentum: exact arithmetic keeps sum m v; rounding moves it by at most
     * steps * dt * sum_i m_i |a_i error| (the acceleration bound, S_i from the
     * start, x2 for the motion) + 2 steps u sum m |v| (the velocity updates) */
    for (i = 0; i < n; ++i) {
        double a[3], S[3];
        ref_accel_row(pos, n, i, 0.0025, 1.0, a, S);
        Ssum += pos[4 * i + 3] * (S[0] + S[1] + S[2]);
        for (c = 0; c < 3; ++c) p0[c] += (double)pos[4 * i + 3] * vel[4 * i + c];
    }
    nb_desc(&d, 1e-3, 0.0025, tiny ? 20 : 100, CLSORT_NBODY_LEAPFROG);
    r = nb_run(cs, pos, vel, n, &d, 1, po, vo);
    check(r == CLSORT_SUCCESS, "nbody momentum run", n, "plummer", 0, 0, r);
    for (i = 0; i < n; ++i)
        for (c = 0; c < 3; ++c) {
            p1[c] += (double)po[4 * i + 3] * vo[4 * i + c];
            scale += (double)po[4 * i + 3] * fabs(vo[4 * i + c]);
        }
    dp = fabs(p1[0] - p0[0]) + fabs(p1[1] - p0[1]) + fabs(p1[2] - p0[2]);
    {
        double bound = d.steps * d.dt * 2.0 * ((double)n + 16) * ldexp(1, -24) * Ssum + 2.0 * d.steps * ldexp(1, -24) * scale;
        printf("    momentum: |dP| = %.3g after %u steps, bound %.3g (scale sum m|v| = %.3g)\n", dp, d.steps, bound, scale);
        check(dp <= bound, "nbody momentum conserved", n, "plummer", 0, bound, dp);
    }
    /* energy: leapfrog on a Plummer sphere (M = G = 1, softening 0.05), dt =
     * 1e-3: the closest-encounter time scale sqrt(eps^3 / (G m)) ~ 0.13 for
     * n = 256, so dt / t ~ 0.008 and the leapfrog's bounded energy error is of
     * order (dt / t)^2 / 12 ~ 1e-5 in close passes, less on average; float
     * rounding over 1000 steps adds ~1e-5. Bound 1e-4 relative. */
    e0 = energy(pos, vel, n, 0.0025, 1.0);
    nb_desc(&d, 1e-3, 0.0025, steps, CLSORT_NBODY_LEAPFROG);
    r = nb_run(cs, pos, vel, n, &d, 1, po, vo);
    e1 = energy(po, vo, n, 0.0025, 1.0);
    drift = fabs((e1 - e0) / e0);
    printf("    energy: E0 = %.6f, after %u leapfrog steps %.6f, relative drift %.3g (bound 1e-4)\n", e0, steps, e1, drift);
    check(r == CLSORT_SUCCESS && drift <= 1e-4, "nbody energy drift (leapfrog)", n, "plummer", 0, e0, e1);
    { /* the tutorial integrator on the same run: reported, drift bound 1e-2 */
        nb_desc(&d, 1e-3, 0.0025, steps, CLSORT_NBODY_TUTORIAL);
        r = nb_run(cs, pos, vel, n, &d, 1, po, vo);
        e1 = energy(po, vo, n, 0.0025, 1.0);
        printf("    energy: tutorial integrator drift %.3g (bound 1e-2)\n", fabs((e1 - e0) / e0));
        check(r == CLSORT_SUCCESS && fabs((e1 - e0) / e0) <= 1e-2, "nbody energy drift (tutorial)", n, "plummer", 0, e0, e1);
    }
    { /* two bodies of mass 1/2 at distance 1 (G = 1, no softening): a circular
       * orbit of period 2 pi. 2000 leapfrog steps: phase error (w dt)^2 / 24
       * per radian ~ 2.6e-6 per period, float rounding <= ~4 u per step and
       * coordinate ~ 5e-4 worst case: back within 1e-3 of the start. */
        float p2[8] = {0.5f, 0, 0, 0.5f, -0.5f, 0, 0, 0.5f}, v2[8] = {0, 0.5f, 0, 0, 0, -0.5f, 0, 0}, q2[8], w2[8];
        double err = 0;
        int k;
        nb_desc(&d, 6.283185307179586 / 2000.0, 0.0, 2000, CLSORT_NBODY_LEAPFROG);
        r = nb_run(cs, p2, v2, 2, &d, 1, q2, w2);
        for (k = 0; k < 8; ++k) if (k % 4 != 3) err = fmax(err, fabs((double)q2[k] - p2[k]));
        printf("    two-body orbit: max |x(T) - x(0)| = %.3g (bound 1e-3)\n", err);
        check(r == CLSORT_SUCCESS && err <= 1e-3, "nbody two-body period", 2, "circular", 0, 0, err);
    }
    { /* one step of each integrator against the host formulas in double
       * (a from the double reference): x and v within 1e-5 (float rounding of a
       * few operations on values of size ~1; the a dt^2/2 term is ~1e-3) */
        float ps[20], vs[20], qs[20], ws[20];
        int integ2, k2, ok2;
        for (k2 = 0; k2 < 20; ++k2) ps[k2] = (float)(urand() * 2 - 1), vs[k2] = (float)(urand() * 2 - 1);
        for (k2 = 3; k2 < 20; k2 += 4) ps[k2] = (float)(0.5 + urand()), vs[k2] = 0.0f;
        for (integ2 = 0; integ2 < 2; ++integ2) {
            double dts = 0.05, a0[5][3], a1[5][3], S[3], x1[5][3], v1[5][3], err = 0;
            float tmp[20];
            size_t b;
            nb_desc(&d, dts, 0.01, 1, integ2);
            d.G = 1.5;
            r = nb_run(cs, ps, vs, 5, &d, 1, qs, ws);
            for (b = 0; b < 5; ++b) ref_accel_row(ps, 5, b, 0.01, 1.5, a0[b], S);
            for (b = 0; b < 5; ++b)
                for (k2 = 0; k2 < 3; ++k2) {
                    if (integ2 == CLSORT_NBODY_TUTORIAL) {
                        x1[b][k2] = ps[4 * b + k2] + vs[4 * b + k2] * dts + 0.5 * dts * dts * a0[b][k2];
                        v1[b][k2] = vs[4 * b + k2] + a0[b][k2] * dts;
                    } else {
                        v1[b][k2] = vs[4 * b + k2] + 0.5 * dts * a0[b][k2];
                        x1[b][k2] = ps[4 * b + k2] + v1[b][k2] * dts;
                    }
                    tmp[4 * b + k2] = (float)x1[b][k2];
                }
            for (b = 0; b < 5; ++b) tmp[4 * b + 3] = ps[4 * b + 3];
            if (integ2 == CLSORT_NBODY_LEAPFROG) /* closing kick at the new positions */
                for (b = 0; b < 5; ++b) {
                    ref_accel_row(tmp, 5, b, 0.01, 1.5, a1[b], S);
                    for (k2 = 0; k2 < 3; ++k2) v1[b][k2] += 0.5 * dts * a1[b][k2];
                }
            for (b = 0; b < 5; ++b)
                for (k2 = 0; k2 < 3; ++k2) {
                    err = fmax(err, fabs(qs[4 * b + k2] - x1[b][k2]));
                    err = fmax(err, fabs(ws[4 * b + k2] - v1[b][k2]));
                }
            ok2 = r == CLSORT_SUCCESS && err <= 1e-5 && qs[3] == ps[3] && ws[3] == vs[3];
            check(ok2, integ2 ? "nbody one tutorial step vs host" : "nbody one leapfrog step vs host", 5, "-", 0, 0, err);
        }
    }
    { /* N = 1: no force, x += v dt exactly as the kernel computes it */
        float p1b[4] = {1, 2, 3, 5}, v1[4] = {0.25f, -0.5f, 1, 7}, q1[4], w1[4];
        nb_desc(&d, 0.5, 0.0, 3, CLSORT_NBODY_LEAPFROG);
        r = nb_run(cs, p1b, v1, 1, &d, 1, q1, w1);
        check(r == CLSORT_SUCCESS && q1[0] == 1.375f && q1[1] == 1.25f && q1[2] == 4.5f && q1[3] == 5 && w1[0] == 0.25f &&
              w1[3] == 7, "nbody N=1 zero force", 1, "-", 0, 4.5, q1[2]);
    }
    { /* coincident bodies: finite with eps > 0, and with eps = 0 (no self force) */
        float pc[12] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2}, vc[12] = {0}, qc[12], wc[12];
        int k, fin = 1;
        nb_desc(&d, 0.1, 1e-6, 5, CLSORT_NBODY_LEAPFROG);
        r = nb_run(cs, pc, vc, 3, &d, 1, qc, wc);
        for (k = 0; k < 12; ++k) fin &= isfinite(qc[k]) && isfinite(wc[k]) && qc[k] == pc[k];
        nb_desc(&d, 0.1, 0.0, 5, CLSORT_NBODY_TUTORIAL);
        r |= nb_run(cs, pc, vc, 3, &d, 1, qc, wc);
        for (k = 0; k < 12; ++k) fin &= isfinite(qc[k]) && isfinite(wc[k]) && qc[k] == pc[k];
        check(r == CLSORT_SUCCESS && fin, "nbody coincident bodies stay finite", 3, "-", 0, 0, 0);
    }
    free(pos); free(vel); free(po); free(vo);
}

static int same_bits(const float *a, const float *b, size_t n) { return memcmp(a, b, n * 16) == 0; }

/* "Identical": for one shape, bit for bit across runs, a burst of k steps vs
 * k calls of one step, and a split over two contexts; across shapes, the
 * accelerations of each meet the reference bound (tested above) and the
 * trajectories after 10 steps agree within 1e-5 (positions of size ~1). */
static void test_nbody_identical(clsort_context *cs, int tiny)
{
    static const char *shapes[] = {NULL, "4:1:1", "8:2:2", "32:4:8", "64:1:16"};
    size_t n = tiny ? 37 : 1000, i;
    float *pos = (float *)malloc(n * 16), *vel = (float *)malloc(n * 16);
    float *pa = (float *)malloc(n * 16), *va = (float *)malloc(n * 16), *pb = (float *)malloc(n * 16),
          *vb = (float *)malloc(n * 16), *p0 = (float *)malloc(n * 16);
    clsort_nbody_desc d;
    unsigned s, k = tiny ? 3 : 10;
    int integ, r;
    plummer(pos, vel, n, 1.0);
    for (s = 0; s < (tiny ? 3u : 5u); ++s) {
        char precise[32];
        /* the precise build (flag p): bit for bit; the default, which is
         * fast math on GPUs, may contract a burst's two half kicks into one */
        snprintf(precise, sizeof precise, "%s:p", shapes[s] ? shapes[s] : "0:0:0");
        for (integ = 0; integ < 2; ++integ) {
            char what[128];
            double worst = 0;
            clsort_tuning tp = nbody_tuning(precise), ts = nbody_tuning(shapes[s] ? shapes[s] : "0:0:0");
            clsort_context *cp = tuned_context(cs, &tp, "context with a precise N-body shape");
            clsort_context *csh = shapes[s] ? tuned_context(cs, &ts, "context with an N-body shape") : cs;
            if (!cp || !csh) {
                clsort_destroy(cp);
                if (csh != cs) clsort_destroy(csh);
                continue;
            }
            nb_desc(&d, 1e-3, 0.0025, k, integ);
            r = nb_run(cp, pos, vel, n, &d, 1, pa, va);
            r |= nb_run(cp, pos, vel, n, &d, 1, pb, vb);
            snprintf(what, sizeof what, "nbody repeat bitwise (%s, %s)", precise, integ ? "tutorial" : "leapfrog");
            check(r == CLSORT_SUCCESS && same_bits(pa, pb, n) && same_bits(va, vb, n), what, n, "plummer", 0, 0, 0);
            d.steps = 1;
            r = nb_run(cp, pos, vel, n, &d, k, pb, vb);
            snprintf(what, sizeof what, "nbody %u steps in one call = %u calls (%s, %s)", k, k, precise, integ ? "tutorial" : "leapfrog");
            check(r == CLSORT_SUCCESS && same_bits(pa, pb, n) && same_bits(va, vb, n), what, n, "plummer", 0, 0, 0);
            d.steps = k;
            r = nb_run(csh, pos, vel, n, &d, 1, pa, va);
            r |= nb_run(csh, pos, vel, n, &d, 1, pb, vb);
            snprintf(what, sizeof what, "nbody repeat bitwise (%s, %s)", shapes[s] ? shapes[s] : "auto", integ ? "tutorial" : "leapfrog");
            check(r == CLSORT_SUCCESS && same_bits(pa, pb, n) && same_bits(va, vb, n), what, n, "plummer", 0, 0, 0);
            d.steps = 1;
            r = nb_run(csh, pos, vel, n, &d, k, pb, vb);
            clsort_destroy(cp);
            if (csh != cs) clsort_destroy(csh);
            for (i = 0; i < 4 * n; ++i) worst = fmax(worst, fabs((double)pa[i] - pb[i]));
            snprintf(what, sizeof what, "nbody %u steps in one call = %u calls within 1e-6 (%s, %s)", k, k, shapes[s] ? shapes[s] : "auto", integ ? "tutorial" : "leapfrog");
            check(r == CLSORT_SUCCESS && worst <= 1e-6, what, n, "plummer", 0, 1e-6, worst);
            if (integ == 0 && s == 0) memcpy(p0, pa, n * 16);
            if (integ == 0 && s > 0) {
                double worst = 0;
                for (i = 0; i < 4 * n; ++i) worst = fmax(worst, fabs((double)pa[i] - p0[i]));
                snprintf(what, sizeof what, "nbody shape %s vs auto within 1e-5", shapes[s]);
                check(worst <= 1e-5, what, n, "plummer", 0, 1e-5, worst);
            }
        }
    }
    { /* two contexts on one cl_context (PoCL has one CPU
       * device: two queues on it stand for two devices), even and uneven splits, vs one context */
        clsort_context_desc cd;
        clsort_context *c2 = NULL;
        memset(&cd, 0, sizeof cd);
        cd.context = clsort_cl_context(cs);
        cd.device = clsort_cl_device(cs);
        r = clsort_create(&c2, &cd);
        check(r == CLSORT_SUCCESS, "nbody second context", n, "-", 0, 0, r);
        if (r == CLSORT_SUCCESS) {
            int integ2, split;
            for (integ2 = 0; integ2 < 2; ++integ2)
                for (split = 0; split < 3; ++split) {
                    clsort_nbody_part parts[2];
                    cl_mem b[4];
                    char what[128];
                    int ok;
                    nb_desc(&d, 1e-3, 0.0025, k, integ2);
                    d.multi = CLSORT_NBODY_MULTI_SERIAL; /* clsort_nbody's order of the sums: its bits */
                    r = nb_run(cs, pos, vel, n, &d, 1, pa, va);
                    b[0] = buffer(cs, n * 16, pos); b[1] = buffer(cs, n * 16, vel);
                    b[2] = buffer(cs, n * 16, pos); b[3] = buffer(cs, n * 16, vel);
                    memset(parts, 0, sizeof parts);
                    parts[0].ctx = cs; parts[0].positions = b[0]; parts[0].velocities = b[1];
                    parts[1].ctx = c2; parts[1].positions = b[2]; parts[1].velocities = b[3];
                    if (split == 1) { parts[0].first = 0; parts[0].count = n / 3; parts[1].first = n / 3; parts[1].count = n - n / 3; }
                    if (split == 2) { parts[0].count = 0; parts[1].first = 0; parts[1].count = n; parts[0].first = 0; }
                    r |= clsort_nbody_multi(parts, 2, n, &d);
                    if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
                    download(cs, b[0], n * 16, pb);
                    ok = same_bits(pa, pb, n);
                    download(cs, b[2], n * 16, pb);
                    ok &= same_bits(pa, pb, n);
                    download(cs, b[1], n * 16, vb);
                    ok &= split == 2 || memcmp(va, vb, (split == 1 ? n / 3 : n / 2) * 16) == 0;
                    download(cs, b[3], n * 16, vb);
                    { size_t f = split == 0 ? n / 2 : split == 1 ? n / 3 : 0;
                      ok &= memcmp(va + 4 * f, vb + 4 * f, (n - f) * 16) == 0; }
                    snprintf(what, sizeof what, "nbody two contexts = one (%s, split %d)", integ2 ? "tutorial" : "leapfrog", split);
                    check(r == CLSORT_SUCCESS && ok, what, n, "plummer", 0, 0, r);
                    for (i = 0; i < 4; ++i) clReleaseMemObject(b[i]);
                }
            { /* bad parts: the same context twice, slices that do not tile */
                clsort_nbody_part parts[2];
                cl_mem b[4];
                for (i = 0; i < 4; ++i) b[i] = buffer(cs, n * 16, pos);
                memset(parts, 0, sizeof parts);
                parts[0].ctx = cs; parts[0].positions = b[0]; parts[0].velocities = b[1];
                parts[1].ctx = cs; parts[1].positions = b[2]; parts[1].velocities = b[3];
                r = clsort_nbody_multi(parts, 2, n, &d);
                check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "share"), "nbody multi same context", n, "-", 0, 0, r);
                parts[1].ctx = c2;
                parts[0].count = 10; parts[1].first = 11; parts[1].count = n - 11;
                r = clsort_nbody_multi(parts, 2, n, &d);
                check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "tile"), "nbody multi gap", n, "-", 0, 0, r);
                download(cs, b[0], n * 16, pb);
                check(same_bits(pb, pos, n), "nbody multi bad args leave buffers", n, "-", 0, 0, 0);
                for (i = 0; i < 4; ++i) clReleaseMemObject(b[i]);
            }
        }
        clsort_destroy(c2);
    }
    free(pos); free(vel); free(pa); free(va); free(pb); free(vb); free(p0);
}

static void test_nbody_arguments(clsort_context *cs)
{
    float pos[64], vel[64], back[64];
    cl_mem p, v, a, small;
    clsort_nbody_desc d;
    int r, i;
    for (i = 0; i < 64; ++i) pos[i] = (float)i * 0.125f, vel[i] = (float)i;
    p = buffer(cs, sizeof pos, pos);
    v = buffer(cs, sizeof vel, vel);
    a = buffer(cs, sizeof pos, vel);
    small = buffer(cs, 32, pos);
    nb_desc(&d, 0.01, 0.01, 2, 0);
#define NB_BAD(call, want, msg, label)                                                                   \
    do {                                                                                                 \
        r = (call);                                                                                      \
        check(r == (want) && strstr(clsort_last_error(cs), msg) != NULL, label, 16, "-", 0, want, r);    \
        if (r != (want) || !strstr(clsort_last_error(cs), msg)) printf("  got: %s\n", clsort_last_error(cs)); \
    } while (0)
    r = clsort_nbody(cs, p, v, 0, &d, NULL);
    check(r == CLSORT_SUCCESS, "nbody n = 0 is a no-op", 0, "-", 0, 0, r);
    r = clsort_nbody(cs, NULL, NULL, 0, &d, NULL);
    check(r == CLSORT_SUCCESS, "nbody n = 0 with NULL buffers", 0, "-", 0, 0, r);
    NB_BAD(clsort_nbody(cs, p, v, 16, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "desc is NULL", "nbody desc NULL");
    d.dt = NAN;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "desc.dt", "nbody dt NaN");
    d.dt = INFINITY;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "desc.dt", "nbody dt inf");
    d.dt = 0.01;
    d.softening2 = -1;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "softening2", "nbody negative softening");
    d.softening2 = 0.01;
    d.G = NAN;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "desc.G", "nbody G NaN");
    d.G = 0;
    d.integrator = (clsort_nbody_integrator)7;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "integrator", "nbody bad integrator");
    d.integrator = CLSORT_NBODY_LEAPFROG;
    d.method = (clsort_nbody_method)9;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "method", "nbody bad method");
    d.method = CLSORT_NBODY_TILED;
    NB_BAD(clsort_nbody(cs, small, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "positions holds 32 bytes",
           "nbody positions too small");
    NB_BAD(clsort_nbody(cs, p, small, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "velocities holds", "nbody velocities too small");
    NB_BAD(clsort_nbody(cs, p, v, 17, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "needed", "nbody n past the buffers");
    NB_BAD(clsort_nbody(cs, p, p, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "share memory", "nbody positions = velocities");
    d.accelerations = p;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "share memory", "nbody accelerations = positions");
    d.accelerations = NULL;
    d.temp = v;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "share memory", "nbody temp = velocities");
    d.temp = small;
    NB_BAD(clsort_nbody(cs, p, v, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "desc.temp", "nbody temp too small");
    d.temp = NULL;
    NB_BAD(clsort_nbody_accel(cs, p, p, 16, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "shares memory", "nbody accel aliasing");
    NB_BAD(clsort_nbody(cs, p, v, (size_t)1 << 31, &d, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "2^31", "nbody n too large");
    d.fp64 = 1;
    d.method = CLSORT_NBODY_ATOMIC;
    r = clsort_nbody(cs, p, v, 8, &d, NULL); /* 8 double4 = 256 bytes: fits */
    check(r == CLSORT_ERROR_UNSUPPORTED && (strstr(clsort_last_error(cs), "float only") || strstr(clsort_last_error(cs), "cl_khr_fp64")),
          "nbody fp64 atomic unsupported", 8, "-", 0, 0, r);
    d.method = CLSORT_NBODY_TILED;
    r = clsort_nbody(cs, p, v, 16, &d, NULL); /* 16 double4 = 512 bytes: too small, or no fp64 */
    {
        cl_bool has = 0;
        char ext[8192] = "";
        clGetDeviceInfo(clsort_cl_device(cs), CL_DEVICE_EXTENSIONS, sizeof ext, ext, NULL);
        has = strstr(ext, "cl_khr_fp64") != NULL;
        if (has) check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "512 needed"),
                       "nbody fp64 buffer size in double4", 16, "-", 0, 0, r);
        else check(r == CLSORT_ERROR_UNSUPPORTED && strstr(clsort_last_error(cs), "cl_khr_fp64"),
                   "nbody fp64 without cl_khr_fp64", 16, "-", 0, 0, r);
    }
#undef NB_BAD
    download(cs, p, sizeof back, back);
    check(memcmp(back, pos, sizeof pos) == 0, "nbody bad arguments leave positions", 16, "-", 0, 0, 0);
    download(cs, v, sizeof back, back);
    check(memcmp(back, vel, sizeof vel) == 0, "nbody bad arguments leave velocities", 16, "-", 0, 0, 0);
    clReleaseMemObject(p); clReleaseMemObject(v); clReleaseMemObject(a); clReleaseMemObject(small);
}

/* Accelerations against the double reference over the sizes: both methods,
 * softening 0 and not, fp64, and each work-group shape. */
static void nbody_accelerations(const test_env *e)
{
    static const size_t sizes[] = {1, 2, 3, 5, 7, 13, 31, 63, 64, 65, 127, 128, 129, 255, 256, 257, 1009, 1023, 1024,
                                   1025, 2047, 2049, 4099, 16384};
    static const char *shapes[] = {"4:1:1", "8:2:2", "16:4:4", "32:1:8", "64:2:1:n"};
    clsort_context *cs = e->cs;
    size_t s;
    unsigned k;
    int tiny = e->tiny;
    nb_max_ratio = 0;
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        size_t n = sizes[s];
        if (tiny && n != 1 && n != 3 && n != 65 && n != 129) continue;
        if (e->quick && n > 4099) continue;
        test_nbody_accel(cs, n, NULL, CLSORT_NBODY_TILED, 0, 1e-4);
        if (n <= 4099) test_nbody_accel(cs, n, NULL, CLSORT_NBODY_TILED, 0, 0.0);
        if (n <= 2049 && !tiny) test_nbody_accel(cs, n, NULL, CLSORT_NBODY_ATOMIC, 0, 1e-4);
        if (n <= 1025 && (!tiny || n < 100)) test_nbody_accel(cs, n, NULL, CLSORT_NBODY_TILED, 1, 1e-4);
        for (k = 0; k < 5 && n <= 1025; ++k) {
            if (tiny && k != 1) continue;
            if (!quick_sample(e, k, 3)) continue; /* --quick: 4:1:1 and 32:1:8 */
            test_nbody_accel(cs, n, shapes[k], CLSORT_NBODY_TILED, 0, 1e-4);
        }
    }
    if (tiny) test_nbody_accel(cs, 70, NULL, CLSORT_NBODY_ATOMIC, 0, 1e-4);
    printf("    n-body accelerations: largest error / bound %.3g\n", nb_max_ratio);
}

static void nbody_physics(const test_env *e) { test_nbody_physics(e->cs, e->tiny); }
static void nbody_identical(const test_env *e) { test_nbody_identical(e->cs, e->tiny); }
static void nbody_arguments(const test_env *e) { test_nbody_arguments(e->cs); }

/* Path-independent: once, on a context of the part's own (its program cache
 * holds only the N-body shapes). */
static const test_case nbody_cases[] = {
    {"accelerations", nbody_accelerations, ON_PORTABLE, ANY_SIZE},
    {"momentum, energy, orbits", nbody_physics, ON_PORTABLE, ANY_SIZE},
    {"identical runs, bursts, shapes", nbody_identical, ON_PORTABLE, ANY_SIZE},
    {"arguments", nbody_arguments, ON_PORTABLE, ANY_SIZE},
};
static const test_part nbody_part = TEST_PART(nbody, "clsort_nbody, clsort_nbody_accel", CTX_OWN, 38);
