/* test_clsort, api: what every family shares: bad arguments with a clear
 * error and untouched buffers (the argument table: every device-level function
 * x every kind of bad argument), aliasing, events across calls and queues,
 * the host level (the element type an argument), contexts on caller
 * handles, queue and tuning refusals, messages and the scratch limit.
 * Included by tests/test_clsort.c. */

/* ---- bad arguments: a clear error and untouched buffers ---- */

/* Whether the device's platform answers an info query on a handle of
 * another object type with an error or a result (PoCL, rusticl) rather than
 * undefined behaviour (NVIDIA's driver ends the process). */
static int platform_answers_foreign_handles(cl_device_id dev)
{
    cl_platform_id plat = NULL;
    char name[128] = "";
    if (clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL) != CL_SUCCESS ||
        clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof name - 1, name, NULL) != CL_SUCCESS)
        return 0;
    return strstr(name, "Portable Computing Language") != NULL || strstr(name, "rusticl") != NULL;
}

static void test_bad_arguments(clsort_context *cs)
{
    uint32_t data[64], back[64];
    cl_mem small, a, b;
    clsort_scan_desc sd;
    clsort_split_desc pd;
    size_t count = 12345;
    int i;
    for (i = 0; i < 64; ++i) data[i] = (uint32_t)i * 2654435761u;
    small = buffer(cs, 16, data);
    a = buffer(cs, 256, data);
    b = buffer(cs, 256, data);
    memset(&sd, 0, sizeof sd);
    memset(&pd, 0, sizeof pd);
    check(clsort_scan(NULL, a, b, 64, &sd, NULL) == CLSORT_ERROR_INVALID_ARGUMENT, "scan NULL context", 0, "-", 0, 0, 0);
    EXPECT_ERR(clsort_scan(cs, NULL, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "scan NULL in");
    EXPECT_ERR(clsort_scan(cs, a, small, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "scan out too small");
    check(strstr(clsort_last_error(cs), "bytes") != NULL, "scan too-small message names the sizes", 0, "-", 0, 0, 0);
    sd.type = (clsort_type)99;
    EXPECT_ERR(clsort_scan(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "scan unknown type");
    sd.type = CLSORT_U32;
    sd.inclusive = 7;
    EXPECT_ERR(clsort_scan(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "scan inclusive not 0/1");
    sd.inclusive = 0;
    pd.flags_kind = CLSORT_FLAGS_KEY_BIT;
    pd.bit = 32;
    EXPECT_ERR(clsort_pack(cs, a, b, 64, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "pack bit out of range");
    pd.bit = 3;
    EXPECT_ERR(clsort_pack(cs, a, a, 64, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "pack in == out");
    EXPECT_ERR(clsort_split(cs, a, small, 64, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "split out too small");
    pd.flags_kind = CLSORT_FLAGS_U32;
    EXPECT_ERR(clsort_pack(cs, a, b, 64, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "pack NULL flags");
    pd.flags_kind = (clsort_flags_kind)42;
    EXPECT_ERR(clsort_split(cs, a, b, 64, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "split unknown flags kind");
    /* aliasing: an output sharing memory with an input or another output
     * (the same handle or overlapping sub-buffers) is refused */
    {
        cl_buffer_region reg;
        cl_mem lo, hi, apart;
        cl_int e;
        reg.origin = 0;
        reg.size = 192;
        lo = clCreateSubBuffer(a, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &e);
        check(e == CL_SUCCESS, "sub-buffer for aliasing tests", 0, "-", 0, 0, e);
        reg.origin = 0; /* the same bytes as lo through another handle */
        hi = clCreateSubBuffer(a, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &e);
        check(e == CL_SUCCESS, "second sub-buffer for aliasing tests", 0, "-", 0, 0, e);
        reg.origin = 0;
        reg.size = 64;
        apart = clCreateSubBuffer(b, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &e);
        check(e == CL_SUCCESS, "third sub-buffer for aliasing tests", 0, "-", 0, 0, e);
        sd.total = a;
        EXPECT_ERR(clsort_scan(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "scan total == in");
        sd.total = b;
        EXPECT_ERR(clsort_scan(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "scan total == out");
        sd.total = apart;
        EXPECT_ERR(clsort_scan(cs, a, b, 64, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "scan total inside out");
        sd.total = NULL;
        EXPECT_ERR(clsort_scan(cs, lo, hi, 48, &sd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
                   "scan in and out: two handles over the same bytes");
        check(strstr(clsort_last_error(cs), "shares memory") != NULL, "aliasing message says so", 0, "-", 0, 0, 0);
        memset(&pd, 0, sizeof pd);
        pd.flags_kind = CLSORT_FLAGS_KEY_BIT;
        pd.count = a;
        EXPECT_ERR(clsort_pack(cs, a, b, 64, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT, "pack count == keys_in");
        pd.count = NULL;
        pd.values_in = small;
        pd.values_out = a;
        EXPECT_ERR(clsort_pack(cs, lo, b, 4, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
                   "pack values_out over keys_in");
        pd.values_in = pd.values_out = NULL;
        pd.flags_kind = CLSORT_FLAGS_U32;
        pd.flags = a;
        EXPECT_ERR(clsort_split(cs, lo, a, 16, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
                   "split keys_out == flags");
        EXPECT_ERR(clsort_enumerate(cs, NULL, hi, 16, &pd, &count, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
                   "enumerate indices over the flags");
        memset(&pd, 0, sizeof pd);
        clReleaseMemObject(lo);
        clReleaseMemObject(hi);
        clReleaseMemObject(apart);
    }
    check(count == 12345, "count untouched after errors", 0, "bad-argument", 0, 12345, (double)count);
    download(cs, b, 256, back);
    check(memcmp(back, data, 256) == 0, "out buffer untouched after errors", 0, "bad-argument", 0, 0, 0);
    download(cs, small, 16, back);
    check(memcmp(back, data, 16) == 0, "small buffer untouched after errors", 0, "bad-argument", 0, 0, 0);
    download(cs, a, 256, back);
    check(memcmp(back, data, 256) == 0, "in buffer untouched after errors", 0, "bad-argument", 0, 0, 0);
    /* n = 0 with NULL buffers is fine */
    memset(&pd, 0, sizeof pd);
    check(clsort_scan(cs, NULL, NULL, 0, &sd, NULL) == CLSORT_SUCCESS, "scan n=0 NULL buffers", 0, "-", 0, 0, 0);
    check(clsort_pack(cs, NULL, NULL, 0, &pd, &count, NULL) == CLSORT_SUCCESS && count == 0, "pack n=0", 0, "-", 0, 0,
          (double)count);
    clReleaseMemObject(small);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
}

/* scan -> pack chained with events, no host wait in between */
static void test_events(clsort_context *cs)
{
    uint32_t in[1000], out[1000], flags[1000], ref[1000];
    size_t i, k = 0;
    cl_event ev = NULL, ev2 = NULL;
    clsort_enqueue enq;
    clsort_scan_desc sd;
    clsort_split_desc pd;
    cl_mem din, dscan, dflags, dout;
    uint32_t s = 0;
    for (i = 0; i < 1000; ++i) { in[i] = (uint32_t)(rnd64() & 0xff); flags[i] = (uint32_t)(i % 3 == 0); }
    din = buffer(cs, sizeof in, in);
    dscan = buffer(cs, sizeof in, NULL);
    dflags = buffer(cs, sizeof flags, flags);
    dout = buffer(cs, sizeof in, NULL);
    memset(&enq, 0, sizeof enq);
    memset(&sd, 0, sizeof sd);
    memset(&pd, 0, sizeof pd);
    enq.event = &ev;
    check(clsort_scan(cs, din, dscan, 1000, &sd, &enq) == CLSORT_SUCCESS && ev != NULL, "scan returns an event", 1000,
          "-", 0, 0, 0);
    enq.num_events_in_wait_list = 1;
    enq.event_wait_list = &ev;
    enq.event = &ev2;
    pd.flags = dflags;
    check(clsort_pack(cs, dscan, dout, 1000, &pd, NULL, &enq) == CLSORT_SUCCESS && ev2 != NULL,
          "pack waits on scan's event", 1000, "-", 0, 0, 0);
    check(clWaitForEvents(1, &ev2) == CL_SUCCESS, "pack event completes", 1000, "-", 0, 0, 0);
    download(cs, dout, sizeof out, out);
    for (i = 0; i < 1000; ++i) {
        if (flags[i]) ref[k++] = s;
        s += in[i];
    }
    check(memcmp(out, ref, k * 4) == 0, "scan -> pack chain", 1000, "-", 0, 0, 0);
    if (ev) clReleaseEvent(ev);
    if (ev2) clReleaseEvent(ev2);
    { /* the returned event, waited on by another queue: OpenCL 1.2 (5.13,
       * clFlush) requires the call's queue flushed first; rusticl submits
       * nothing before (the wait never ends). Polled for 10 s, not waited. */
        cl_int e;
        cl_command_queue q2 = clCreateCommandQueue(clsort_cl_context(cs), clsort_cl_device(cs), 0, &e);
        cl_event mark = NULL;
        cl_int status = CL_QUEUED;
        int polls = 0;
        time_t start;
        ev = NULL;
        enq.num_events_in_wait_list = 0;
        enq.event_wait_list = NULL;
        enq.event = &ev;
        check(e == CL_SUCCESS && clsort_scan(cs, din, dscan, 1000, &sd, &enq) == CLSORT_SUCCESS && ev != NULL &&
              clEnqueueMarkerWithWaitList(q2, 1, &ev, &mark) == CL_SUCCESS && clFlush(q2) == CL_SUCCESS,
              "scan's event in another queue's wait list", 1000, "-", 0, 0, 0);
        start = time(NULL);
        while (mark && polls++ < 100000000 && time(NULL) - start < 10 &&
               clGetEventInfo(mark, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL) == CL_SUCCESS &&
               status != CL_COMPLETE) {
        }
        check(status == CL_COMPLETE, "another queue's wait on the returned event completes (the call flushed)", 1000,
              "-", 0, CL_COMPLETE, status);
        clFinish(clsort_cl_queue(cs)); /* unblocks it when the call did not flush */
        if (q2) clFinish(q2);
        if (mark) clReleaseEvent(mark);
        if (ev) clReleaseEvent(ev);
        if (q2) clReleaseCommandQueue(q2);
    }
    clReleaseMemObject(din); clReleaseMemObject(dscan); clReleaseMemObject(dflags); clReleaseMemObject(dout);
}

static void test_host_level(clsort_context *cs)
{
    uint32_t in[5] = {3, 1, 4, 1, 5}, out[5], flags[5] = {1, 0, 1, 0, 9}, total = 0;
    uint32_t want_scan[5], want_pack[3] = {3, 4, 5};
    size_t count = 0, i;
    uint32_t s = 0;
    for (i = 0; i < 5; ++i) { want_scan[i] = s; s += in[i]; }
    check(clsort_scan_host(cs, CLSORT_U32, 0, in, out, 5, &total) == CLSORT_SUCCESS &&
          memcmp(out, want_scan, sizeof out) == 0 && total == s, "scan_host", 5, "-", 0, s, total);
    check(clsort_pack_host(cs, CLSORT_U32, in, flags, out, 5, &count) == CLSORT_SUCCESS && count == 3 &&
          memcmp(out, want_pack, sizeof want_pack) == 0, "pack_host", 5, "-", 0, 3, (double)count);
}

/* ---- host level: the element type is an argument ---- */

static const char *const ht_names[CLSORT_TYPE_COUNT] = {"u32", "i32", "f32", "u64", "i64", "f64",
                                                        "u8",  "i8",  "u16", "i16"};
/* The documented order of keys of type ref.t: test_sort.c's cmp_numeric,
 * written from the numbers rather than from the library's bit image
 * (integers numerically; floats -inf .. -0, +0 .. +inf, then the NaNs with
 * the sign bit clear, then those with it set, each by bit pattern). */
static int ht_cmp(const void *pa, const void *pb)
{
    uint64_t a = 0, b = 0;
    size_t ks = clsort_type_size(ref.t);
    memcpy(&a, pa, ks); /* little-endian hosts: the low bytes */
    memcpy(&b, pb, ks);
    return cmp_numeric(a, b);
}

/* Key i of n of type t: for floats the special values first (both zeros,
 * both infinities, NaNs of both signs with payloads, the smallest and largest
 * denormals of both signs, the smallest normals, the largest finite values),
 * for integers the extremes, then random bit patterns and small numbers. */
static void ht_key(clsort_type t, size_t i, unsigned char *out)
{
    static const uint32_t f32s[] = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                                    0x7f800001u, 0xff800001u, 0x7fffffffu, 0xffffffffu, 0x00000001u, 0x80000001u,
                                    0x007fffffu, 0x807fffffu, 0x00800000u, 0x80800000u, 0x7f7fffffu, 0xff7fffffu,
                                    0x00000002u, 0x80000002u};
    static const uint64_t f64s[] = {0, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                    0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                                    0xfff0000000000001ull, 0x7fffffffffffffffull, 0xffffffffffffffffull, 1,
                                    0x8000000000000001ull, 0x000fffffffffffffull, 0x800fffffffffffffull,
                                    0x0010000000000000ull, 0x8010000000000000ull, 0x7fefffffffffffffull,
                                    0xffefffffffffffffull};
    uint64_t r = rnd64();
    size_t ks = clsort_type_size(t);
    if (t == CLSORT_F32 && i < sizeof f32s / sizeof f32s[0]) r = f32s[i];
    else if (t == CLSORT_F64 && i < sizeof f64s / sizeof f64s[0]) r = f64s[i];
    else if (t == CLSORT_F32 && i % 3 == 0) { /* numbers near zero and denormals from the random bits */
        float f = (float)((int64_t)(r >> 40) - (1ll << 23)) * 1e-3f;
        uint32_t u;
        if (i % 9 == 0) f *= 1e-40f;
        memcpy(&u, &f, 4);
        r = u;
    } else if (t == CLSORT_F64 && i % 3 == 0) {
        double f = (double)((int64_t)(r >> 40) - (1ll << 23)) * 1e-3;
        if (i % 9 == 0) f *= 1e-310;
        memcpy(&r, &f, 8);
    } else if (i < 4) { /* integers: 0, all ones, the sign bit alone, the largest signed */
        uint64_t top = 1ull << (8 * ks - 1);
        r = i == 0 ? 0 : i == 1 ? ~0ull : i == 2 ? top : top - 1;
    } else if (i % 4 == 0) {
        r %= 7; /* repeats */
    }
    memcpy(out, &r, ks); /* little-endian hosts: the low bytes */
}

/* Whether the n keys of type t in got are want's keys in the documented
 * order (compared bit for bit with a qsort of want). */
static int ht_sorted_right(clsort_type t, unsigned char *want, const unsigned char *got, size_t n)
{
    ref.t = t;
    qsort(want, n, clsort_type_size(t), ht_cmp);
    return memcmp(want, got, n * clsort_type_size(t)) == 0;
}

/* The simplest host calls, no descriptor, sort every key type right:
 * floats numerically with their specials where the manual puts them. */
static void test_host_types_sort(clsort_context *cs)
{
    static const size_t sizes[] = {1, 2, 21, 1000, 20000};
    const float issue[6] = {3.5f, -1.0f, 2.0f, -7.5f, 0.0f, 9.0f}, want6[6] = {-7.5f, -1.0f, 0.0f, 2.0f, 3.5f, 9.0f};
    float six[6];
    size_t si, i;
    int ti;
    memcpy(six, issue, sizeof six);
    check(clsort_sort_host(cs, CLSORT_F32, six, NULL, NULL, 6, NULL) == CLSORT_SUCCESS &&
              memcmp(six, want6, sizeof six) == 0,
          "sort_host(CLSORT_F32, no desc): 3.5 -1 2 -7.5 0 9 sorts numerically", 6, "-", 0, 0, six[0]);
    for (ti = 0; ti < CLSORT_TYPE_COUNT; ++ti) {
        clsort_type t = (clsort_type)ti;
        size_t ks = clsort_type_size(t);
        for (si = 0; si < sizeof sizes / sizeof sizes[0]; ++si) {
            size_t n = sizes[si];
            unsigned char *in = (unsigned char *)malloc(n * 8), *keys = (unsigned char *)malloc(n * 8),
                          *want = (unsigned char *)malloc(n * 8);
            char what[96];
            clsort_result r;
            if (!in || !keys || !want) {
                check(0, "host types: allocation", n, "-", 0, 0, 0);
                free(in); free(keys); free(want);
                return;
            }
            for (i = 0; i < n; ++i) ht_key(t, i, in + i * ks);
            memcpy(keys, in, n * ks);
            memcpy(want, in, n * ks);
            r = clsort_sort_host(cs, t, keys, NULL, NULL, n, NULL);
            snprintf(what, sizeof what, "sort_host(%s, no desc) in the documented order", ht_names[t]);
            if (r != CLSORT_SUCCESS) printf("  %s: %s\n", what, clsort_last_error(cs));
            check(r == CLSORT_SUCCESS && ht_sorted_right(t, want, keys, n), what, n, "specials+random", 0, 0, 0);
            if (ks >= 4) { /* the bitonic sort takes 4- and 8-byte keys */
                memcpy(keys, in, n * ks);
                r = clsort_bitonic_sort_host(cs, t, keys, NULL, NULL, n, NULL);
                snprintf(what, sizeof what, "bitonic_sort_host(%s, no desc) in the documented order", ht_names[t]);
                if (r != CLSORT_SUCCESS) printf("  %s: %s\n", what, clsort_last_error(cs));
                check((r == CLSORT_SUCCESS && memcmp(keys, want, n * ks) == 0) ||
                          (t == CLSORT_F64 && r == CLSORT_ERROR_UNSUPPORTED),
                      what, n, "specials+random", 0, 0, 0);
            }
            free(in); free(keys); free(want);
        }
    }
}

/* A descriptor whose type names another type than the argument: refused
 * with a message naming both, the caller's arrays untouched. */
static void test_host_types_conflict(clsort_context *cs)
{
    float keys[64], vals[64], out[64], vout[64], orig[64], sentinel;
    uint32_t perm[64], len[64], counts[4], segs[64], offs[3] = {0, 32, 64};
    size_t count = 777, i;
    clsort_sort_desc sd;
    clsort_bitonic_desc bd;
    clsort_reduce_desc rd;
    clsort_by_key_desc kd;
    clsort_histogram_desc hd;
    clsort_select_desc sel;
    float bound = 0.5f;
    int ok;
    for (i = 0; i < 64; ++i) orig[i] = (float)((i * 37) % 64) - 20.5f, segs[i] = i % 8 == 0;
    memcpy(keys, orig, sizeof keys);
    memcpy(vals, orig, sizeof vals);
    memset(&sentinel, 0x5a, sizeof sentinel);
    for (i = 0; i < 64; ++i) out[i] = vout[i] = sentinel, perm[i] = len[i] = 0x5a5a5a5au;
    for (i = 0; i < 4; ++i) counts[i] = 0x5a5a5a5au;
#define HT_REFUSED(call, name)                                                                             \
    do {                                                                                                   \
        EXPECT_ERR(call, CLSORT_ERROR_INVALID_ARGUMENT, name);                                             \
        check(strstr(clsort_last_error(cs), "f32") != NULL && strstr(clsort_last_error(cs), "i32") != NULL, \
              name ": the message names both types", 0, clsort_last_error(cs), 0, 0, 0);                  \
    } while (0)
    memset(&sd, 0, sizeof sd);
    sd.type = CLSORT_I32;
    HT_REFUSED(clsort_sort_host(cs, CLSORT_F32, keys, vals, perm, 64, &sd), "sort_host: desc.type i32, argument f32");
    memset(&bd, 0, sizeof bd);
    bd.type = CLSORT_F32;
    HT_REFUSED(clsort_bitonic_sort_host(cs, CLSORT_I32, keys, vals, perm, 64, &bd),
               "bitonic_sort_host: desc.type f32, argument i32");
    memset(&rd, 0, sizeof rd);
    rd.type = CLSORT_I32;
    rd.segments = CLSORT_SEGMENTS_FLAGS_U32;
    rd.segment_data_host = segs;
    HT_REFUSED(clsort_segmented_scan_host(cs, CLSORT_F32, keys, out, 64, &rd),
               "segmented_scan_host: desc.type i32, argument f32");
    rd.segments = CLSORT_SEGMENTS_OFFSETS;
    rd.segment_data_host = offs;
    rd.segment_count = 2;
    HT_REFUSED(clsort_segmented_reduce_host(cs, CLSORT_F32, keys, out, 64, &rd),
               "segmented_reduce_host: desc.type i32, argument f32");
    memset(&kd, 0, sizeof kd);
    kd.type = CLSORT_I32;
    HT_REFUSED(clsort_reduce_by_key_host(cs, CLSORT_U32, CLSORT_F32, keys, vals, out, vout, 64, &kd, &count),
               "reduce_by_key_host: desc.type i32, argument f32");
    kd.type = CLSORT_U32;
    kd.key_type = CLSORT_I32;
    HT_REFUSED(clsort_reduce_by_key_host(cs, CLSORT_F32, CLSORT_U32, keys, vals, out, vout, 64, &kd, &count),
               "reduce_by_key_host: desc.key_type i32, key_type f32");
    HT_REFUSED(clsort_run_length_encode_host(cs, CLSORT_F32, keys, out, len, 64, &kd, &count),
               "run_length_encode_host: desc.key_type i32, key_type f32");
    HT_REFUSED(clsort_unique_host(cs, CLSORT_F32, keys, vals, out, vout, 64, &kd, &count),
               "unique_host: desc.key_type i32, key_type f32");
    memset(&hd, 0, sizeof hd);
    hd.type = CLSORT_I32;
    hd.bins = 4;
    hd.lower = 0;
    hd.upper = 4;
    hd.upper_int = 4;
    HT_REFUSED(clsort_histogram_even_host(cs, CLSORT_F32, keys, 64, counts, &hd),
               "histogram_even_host: desc.type i32, argument f32");
    memset(&sel, 0, sizeof sel);
    sel.type = CLSORT_I32;
    sel.a = &bound;
    HT_REFUSED(clsort_select_if_host(cs, CLSORT_F32, keys, vals, out, vout, 64, &sel, &count),
               "select_if_host: desc.type i32, argument f32");
#undef HT_REFUSED
    EXPECT_ERR(clsort_sort_host(cs, (clsort_type)99, keys, NULL, NULL, 64, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "sort_host: an unknown type argument");
    ok = memcmp(keys, orig, sizeof keys) == 0 && memcmp(vals, orig, sizeof vals) == 0 && count == 777;
    for (i = 0; i < 64; ++i)
        ok = ok && memcmp(&out[i], &sentinel, 4) == 0 && memcmp(&vout[i], &sentinel, 4) == 0 &&
             perm[i] == 0x5a5a5a5au && len[i] == 0x5a5a5a5au;
    for (i = 0; i < 4; ++i) ok = ok && counts[i] == 0x5a5a5a5au;
    check(ok, "type conflicts leave the caller's arrays and count unchanged", 64, "bad-argument", 0, 0, 0);
    /* a descriptor naming the argument's own type is taken */
    memset(&sd, 0, sizeof sd);
    sd.type = CLSORT_F32;
    check(clsort_sort_host(cs, CLSORT_F32, keys, NULL, NULL, 64, &sd) == CLSORT_SUCCESS, "sort_host: desc.type equal",
          64, "-", 0, 0, 0);
    for (i = 1; i < 64 && keys[i - 1] <= keys[i]; ++i) {}
    check(i == 64, "sort_host: desc.type equal sorts numerically", 64, "-", i, 0, 0);
}

/* A context with tuning t on cs's handles must be refused at create with a
 * message naming knob (row i of a table of bad values). */
static void expect_tuning_refused(clsort_context *cs, const clsort_tuning *t, const clsort_test_hooks *h,
                                  const char *knob, size_t i)
{
    clsort_context_desc td;
    clsort_context *tc = NULL;
    char what[96];
    memset(&td, 0, sizeof td);
    td.context = clsort_cl_context(cs);
    td.device = clsort_cl_device(cs);
    td.tuning = *t;
    snprintf(what, sizeof what, "invalid tuning %lu (%s) refused at create", (unsigned long)i, knob);
    check(clsort_create_testing(&tc, &td, h) == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(tc), knob), what, 0,
          clsort_last_error(tc), 0, 0, 0);
    clsort_destroy(tc);
}

static void test_contexts(clsort_context *cs, int tiny)
{
    clsort_context *bad = NULL, *borrowed = NULL;
    clsort_context_desc d;
    uint32_t in[3] = {1, 2, 3}, out[3], total = 0;
    memset(&d, 0, sizeof d);
    d.device_select = "4294967296:0"; /* 2^32: no wrap-around to platform 0 */
    check(clsort_create(&bad, &d) == CLSORT_ERROR_NO_DEVICE, "device index 2^32:0 selects nothing", 0, "-", 0, 0, 0);
    clsort_destroy(bad);
    bad = NULL;
    d.device_select = "no-such-device-xyz";
    check(clsort_create(&bad, &d) == CLSORT_ERROR_NO_DEVICE && strstr(clsort_last_error(bad), "no-such-device-xyz"),
          "unknown device gives CLSORT_ERROR_NO_DEVICE", 0, "-", 0, 0, 0);
    check(clsort_scan_host(bad, CLSORT_U32, 0, in, out, 3, &total) == CLSORT_ERROR_INVALID_ARGUMENT,
          "a failed context refuses work", 0, "-", 0, 0, 0);
    clsort_destroy(bad);
    { /* queues: an out-of-order queue or one of another cl_context is refused
       * by clsort_create and by a call's enq.queue alike */
        cl_int e;
        cl_context other_cc;
        cl_device_id dev = clsort_cl_device(cs);
        cl_command_queue ooo, foreign;
        cl_command_queue_properties qprops = 0;
        int has_ooo;
        clsort_context *qc = NULL;
        clsort_context_desc qd;
        clsort_enqueue enq;
        clsort_scan_desc sd;
        cl_mem qb;
        uint32_t qin[64], qout[64];
        size_t qi;
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
        /* out-of-order queues are optional (OpenCL 1.2 CL_DEVICE_QUEUE_PROPERTIES:
         * only profiling is mandated; rusticl has none) */
        if (clGetDeviceInfo(dev, CL_DEVICE_QUEUE_PROPERTIES, sizeof qprops, &qprops, NULL) != CL_SUCCESS) qprops = 0;
        has_ooo = (qprops & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
        ooo = has_ooo ? clCreateCommandQueue(clsort_cl_context(cs), dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &e) : NULL;
        if (has_ooo) check(e == CL_SUCCESS, "an out-of-order queue for the queue checks", 0, "-", 0, 0, e);
        else printf("    the device has no out-of-order queues: those checks skipped\n");
        other_cc = clCreateContext(NULL, 1, &dev, NULL, NULL, &e);
        foreign = e == CL_SUCCESS ? clCreateCommandQueue(other_cc, dev, 0, &e) : NULL;
        check(e == CL_SUCCESS, "a queue of another cl_context for the queue checks", 0, "-", 0, 0, e);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
        memset(&qd, 0, sizeof qd);
        qd.context = clsort_cl_context(cs);
        qd.device = dev;
        qd.queue = ooo;
        if (has_ooo)
            check(ooo && clsort_create(&qc, &qd) == CLSORT_ERROR_INVALID_ARGUMENT &&
                      strstr(clsort_last_error(qc), "in-order"),
                  "clsort_create refuses an out-of-order queue", 0, "-", 0, 0, 0);
        clsort_destroy(qc);
        qc = NULL;
        qd.queue = foreign;
        check(foreign && clsort_create(&qc, &qd) == CLSORT_ERROR_INVALID_ARGUMENT &&
                  strstr(clsort_last_error(qc), "another OpenCL context"),
              "clsort_create refuses a queue of another cl_context", 0, "-", 0, 0, 0);
        clsort_destroy(qc);
        for (qi = 0; qi < 64; ++qi) qin[qi] = (uint32_t)qi * 7u;
        qb = buffer(cs, sizeof qin, qin);
        memset(&enq, 0, sizeof enq);
        enq.queue = ooo;
        memset(&sd, 0, sizeof sd);
        if (has_ooo)
            check(ooo && clsort_scan(cs, qb, qb, 64, &sd, &enq) == CLSORT_ERROR_INVALID_ARGUMENT &&
                      strstr(clsort_last_error(cs), "in-order"),
                  "a call refuses an out-of-order enq.queue", 64, "-", 0, 0, 0);
        /* a buffer passed as a queue is named as such (PoCL answers a queue
         * query on a cl_mem with success and the buffer's context). Only on
         * the implementations that answer such a query (PoCL, rusticl): an
         * object of another type where a queue is due is undefined in
         * OpenCL 1.2, and NVIDIA's driver ends the process on it. */
        if (platform_answers_foreign_handles(dev)) {
            enq.queue = (cl_command_queue)qb;
            check(clsort_scan(cs, qb, qb, 64, &sd, &enq) == CLSORT_ERROR_INVALID_ARGUMENT &&
                      strstr(clsort_last_error(cs), "enq->queue is a memory object (cl_mem), not a command queue"),
                  "a call names a cl_mem passed as enq.queue", 64, "-", 0, 0, 0);
            qd.queue = (cl_command_queue)qb;
            check(clsort_create(&qc, &qd) == CLSORT_ERROR_INVALID_ARGUMENT &&
                      strstr(clsort_last_error(qc), "is a memory object (cl_mem), not a command queue"),
                  "clsort_create names a cl_mem passed as desc.queue", 0, "-", 0, 0, 0);
            clsort_destroy(qc);
            qc = NULL;
        } else {
            printf("    a cl_mem passed as a queue: not tried here (undefined in OpenCL; this driver may end the process)\n");
        }
        download(cs, qb, sizeof qout, qout);
        check(memcmp(qin, qout, sizeof qin) == 0, "the refused call left its buffer unchanged", 64, "-", 0, 0, 0);
        clReleaseMemObject(qb);
        if (ooo) clReleaseCommandQueue(ooo);
        if (foreign) clReleaseCommandQueue(foreign);
        if (other_cc) clReleaseContext(other_cc);
    }
    { /* the smallest tiles the tuning allows (2 work-items x 1 item) work for
       * the sort and the scan (they once crashed or failed). The sort's tile
       * is then the radix minimum (4 work-items x 1 key: no single-tile sort,
       * no one-sweep, whose work-group must hold a digit's 256 counters), so
       * any n of a few tiles takes the classic passes, each radix_count, the
       * scan of 256 counts per tile over levels of 2-element tiles
       * (reduce_tiles, scan_tiles) and radix_reorder, on both paths: 5000
       * keys (1250 tiles) scan 18 levels a pass, --tiny's 200 (50 tiles) 13
       * (PoCL, counted per launch), the same kernels and host steps. Under
       * oclgrind (--tiny) the 5000 took most of the api part's time on each
       * path; --quick (make test, the sanitizers) keeps 5000. */
        clsort_context *t21 = tile_context(cs, 2, 1);
        size_t tn = tiny ? 200 : 5000, ti;
        uint32_t *tk = (uint32_t *)malloc(tn * 4), *tv = (uint32_t *)malloc(tn * 4), ones[1000], sums[1000], tot = 0;
        int tok = 1;
        clsort_sort_desc tsd;
        memset(&tsd, 0, sizeof tsd);
        tsd.value_size = 4;
        for (ti = 0; ti < tn; ++ti) tk[ti] = (uint32_t)ti * 2654435761u, tv[ti] = (uint32_t)ti;
        for (ti = 0; ti < 1000; ++ti) ones[ti] = 1;
        if (t21 && tk && tv) {
            check(clsort_sort_host(t21, CLSORT_U32, tk, tv, NULL, tn, &tsd) == CLSORT_SUCCESS, "sort with a 2x1 tile", tn, "-", 0, 0, 0);
            for (ti = 1; ti < tn && tok; ++ti) tok = tk[ti - 1] <= tk[ti] && tv[ti] * 2654435761u == tk[ti];
            check(tok, "sort with a 2x1 tile: sorted, values follow", tn, "random", ti, 0, 0);
            check(clsort_scan_host(t21, CLSORT_U32, 0, ones, sums, 1000, &tot) == CLSORT_SUCCESS && tot == 1000 &&
                      sums[999] == 999,
                  "scan of 1000 with a 2x1 tile (10 levels of tile sums)", 1000, "ones", 0, 1000, tot);
        }
        clsort_destroy(t21);
        free(tk);
        free(tv);
    }
    { /* host-pointer buffers over unaligned memory: gather
       * narrows its pieces and stays correct; 8-byte keys and float4 bodies
       * are refused with a message instead of misaligned loads */
        static uint32_t host_src[4 * 64 + 4], host_keys[2 * 64 + 2];
        uint32_t idx[64], got[4 * 64];
        size_t gi;
        int gok = 1;
        cl_int e;
        cl_mem hsrc, hkeys, gidx, gdst;
        clsort_sort_desc ksd;
        clsort_nbody_desc nbd;
        for (gi = 0; gi < 4 * 64 + 4; ++gi) host_src[gi] = (uint32_t)gi * 2654435761u;
        for (gi = 0; gi < 64; ++gi) idx[gi] = (uint32_t)((gi * 37) % 64);
        hsrc = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 4 * 64 * 4, host_src + 1, &e);
        check(e == CL_SUCCESS, "a host-pointer buffer 4 bytes past 16-byte alignment", 0, "-", 0, 0, e);
        hkeys = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, 2 * 64 * 4, host_keys + 1, &e);
        check(e == CL_SUCCESS, "a host-pointer key buffer 4 bytes past 8-byte alignment", 0, "-", 0, 0, e);
        gidx = buffer(cs, sizeof idx, idx);
        gdst = buffer(cs, sizeof got, NULL);
        check(clsort_gather(cs, hsrc, gdst, gidx, 64, 16, NULL) == CLSORT_SUCCESS, "gather 16-byte elements, src at +4",
              64, "-", 0, 0, 0);
        download(cs, gdst, sizeof got, got);
        for (gi = 0; gi < 64 && gok; ++gi) gok = memcmp(got + 4 * gi, host_src + 1 + 4 * idx[gi], 16) == 0;
        check(gok, "gather from an unaligned host pointer is correct", 64, "-", gi, 0, 0);
        memset(&ksd, 0, sizeof ksd);
        ksd.type = CLSORT_U64;
        check(clsort_sort(cs, hkeys, hkeys, 64, &ksd, NULL) == CLSORT_ERROR_INVALID_ARGUMENT &&
                  strstr(clsort_last_error(cs), "multiple of 8") != NULL,
              "u64 keys at an unaligned host pointer are refused", 64, "-", 0, 0, 0);
        memset(&nbd, 0, sizeof nbd);
        check(clsort_nbody(cs, hsrc, gdst, 16, &nbd, NULL) == CLSORT_ERROR_INVALID_ARGUMENT &&
                  strstr(clsort_last_error(cs), "multiple of 16") != NULL,
              "float4 bodies at an unaligned host pointer are refused", 16, "-", 0, 0, 0);
        clReleaseMemObject(hsrc);
        clReleaseMemObject(hkeys);
        clReleaseMemObject(gidx);
        clReleaseMemObject(gdst);
    }
    { /* invalid tuning is refused at create, naming the knob */
        static const struct { unsigned wg, items, steps, nwg, nib, njs, nflags; int onesweep, rbk; const char *knob; } bad_t[] = {
            {3, 16, 0, 0, 0, 0, 0, 0, 0, "tile"}, {256, 0, 0, 0, 0, 0, 0, 0, 0, "tile"}, {1, 16, 0, 0, 0, 0, 0, 0, 0, "tile"},
            {2048, 1, 0, 0, 0, 0, 0, 0, 0, "tile"}, {0, 0, 7, 0, 0, 0, 0, 0, 0, "bitonic_steps"},
            {0, 0, 0, 64, 16, 1, 0, 0, 0, "nbody"}, {0, 0, 0, 64, 2, 128, 0, 0, 0, "nbody"},
            {0, 0, 0, 48, 1, 1, 0, 0, 0, "nbody"}, {0, 0, 0, 0, 0, 0, 64, 0, 0, "nbody"},
            {0, 0, 0, 0, 0, 0, CLSORT_TUNE_FAST_MATH | CLSORT_TUNE_PRECISE, 0, 0, "nbody"},
            {0, 0, 0, 0, 0, 0, 0, 3, 0, "onesweep"}, {0, 0, 0, 0, 0, 0, 0, -1, 0, "onesweep"},
            {0, 0, 0, 0, 0, 0, 0, 0, 9, "reduce_tiles"}, {0, 0, 0, 0, 0, 0, 0, 0, -1, "reduce_tiles"},
            {0, 0, 0, 0, 0, 0, 0, 0, 3, "reduce_tiles"}, {0, 0, 0, 0, 0, 0, 0, 0, 0, "max_programs"},
            {0, 0, 0, 0, 0, 0, 0, 0, 0, "max_programs"}};
        static const unsigned bad_max_programs[] = {7, 97}; /* the last two rows */
        size_t i;
        for (i = 0; i < sizeof bad_t / sizeof bad_t[0]; ++i) {
            clsort_tuning t;
            clsort_test_hooks h;
            memset(&t, 0, sizeof t);
            memset(&h, 0, sizeof h);
            t.tile_wg = bad_t[i].wg;
            t.tile_items = bad_t[i].items;
            t.bitonic_steps = bad_t[i].steps;
            t.nbody_wg = bad_t[i].nwg;
            t.nbody_ib = bad_t[i].nib;
            t.nbody_js = bad_t[i].njs;
            t.nbody_flags = bad_t[i].nflags;
            t.onesweep = (clsort_onesweep)bad_t[i].onesweep;
            t.reduce_tiles = (clsort_reduce_tiles)bad_t[i].rbk;
            if (i + 2 >= sizeof bad_t / sizeof bad_t[0]) h.max_programs = bad_max_programs[i + 2 - sizeof bad_t / sizeof bad_t[0]];
            expect_tuning_refused(cs, &t, &h, bad_t[i].knob, i);
        }
    }
    { /* the Barnes-Hut walk and its stack hook: out of range is refused at create, naming the knob */
        static const struct { int walk; unsigned stack; const char *knob; } bad_w[] = {
            {3, 0, "tree_walk"}, {-1, 0, "tree_walk"}, {0, 1, "tree_group_stack"}, {2, 2049, "tree_group_stack"}};
        size_t i;
        for (i = 0; i < sizeof bad_w / sizeof bad_w[0]; ++i) {
            clsort_tuning t;
            clsort_test_hooks h;
            memset(&t, 0, sizeof t);
            memset(&h, 0, sizeof h);
            t.tree_walk = (clsort_tree_walk)bad_w[i].walk;
            h.tree_group_stack = bad_w[i].stack;
            expect_tuning_refused(cs, &t, &h, bad_w[i].knob, i);
        }
    }
    memset(&d, 0, sizeof d);
    d.context = clsort_cl_context(cs);
    d.device = clsort_cl_device(cs);
    d.queue = clsort_cl_queue(cs);
    check(clsort_create(&borrowed, &d) == CLSORT_SUCCESS, "context from caller handles", 0, "-", 0, 0, 0);
    check(clsort_scan_host(borrowed, CLSORT_U32, 1, in, out, 3, &total) == CLSORT_SUCCESS && out[2] == 6 && total == 6,
          "scan on borrowed handles", 3, "-", 0, 6, out[2]);
    clsort_destroy(borrowed);
    check(clsort_scan_host(cs, CLSORT_U32, 1, in, out, 3, &total) == CLSORT_SUCCESS && out[2] == 6,
          "owner still works after the borrower is destroyed", 3, "-", 0, 6, out[2]);
}

/* ---- the argument table: every device-level function x every kind of bad
 * argument (NULL, n past the buffer, byte-count overflow, a buffer or
 * queue of another context). Each must return its code with a message and
 * leave every buffer byte for byte as it was. ---- */

/* A_ALIAS: an output is the same handle as an input (or another output) where
 * the function allows no in place use; A_OVERLAP: an output and an input are
 * two sub-buffers over the same bytes of one buffer; A_READONLY: an output
 * created CL_MEM_READ_ONLY. */
/* A_COUNT_WRAP: enq->count at count_offset SIZE_MAX - 3 (a multiple of 4
 * whose + 4 wraps to 0); A_COUNT_OUT: enq->count over an output (the tree
 * build: over the tree's view.codes); A_HUGE: n = 2^32 - 1 with the 256-byte
 * buffers (n past every buffer, no byte count overflowing: what a call that
 * took scratch before its checks would allocate 4 GiB for). */
enum { A_NULL_CTX, A_NULL_BUF, A_SMALL, A_OVERFLOW, A_FOREIGN_BUF, A_FOREIGN_QUEUE, A_ALIAS, A_OVERLAP, A_READONLY,
       A_COUNT_WRAP, A_COUNT_OUT, A_HUGE, A_COUNT };
static const char *arg_case_names[A_COUNT] = {"NULL context", "NULL buffer", "n past the end of a buffer",
                                              "byte count overflows", "buffer of another context",
                                              "queue of another context", "an output aliasing an input",
                                              "an output over an input's bytes (sub-buffers)",
                                              "a CL_MEM_READ_ONLY output", "enq->count_offset + 4 wraps",
                                              "enq->count over an output", "n = 2^32 - 1 past the buffers"};
/* what the message of each case must contain (NULL: any message) */
static const char *arg_case_text[A_COUNT] = {NULL, "NULL", "needed", "overflow", "another OpenCL context",
                                             "another", "shar", "shar", "CL_MEM_READ_ONLY", "enq->count",
                                             "enq->count", NULL};
/* The rows: X(id, family, function, cases), family the ID of the function's
 * row in CLSORT_FAMILIES (every family has a row: checked), cases the bad
 * argument kinds that apply (A_NO_OUTPUT: a function without an output
 * buffer, whose aliasing and read-only-output kinds cannot arise). */
#define A_ALL ((1u << A_COUNT) - 1)
#define A_NO_OUTPUT (A_ALL & ~(1u << A_ALIAS | 1u << A_OVERLAP | 1u << A_READONLY))
#define ARG_ROWS(X)                                                         \
    X(F_SCAN, SCAN, "clsort_scan", A_ALL)                                   \
    X(F_ENUMERATE, SPLIT, "clsort_enumerate", A_ALL)                        \
    X(F_PACK, SPLIT, "clsort_pack", A_ALL)                                  \
    X(F_SPLIT, SPLIT, "clsort_split", A_ALL)                                \
    X(F_SORT, RADIX, "clsort_sort", A_ALL)                                  \
    X(F_SORT_PERM, RADIX, "clsort_sort (permutation)", A_ALL)               \
    X(F_GATHER, GATHER, "clsort_gather", A_ALL)                             \
    X(F_CELL_KEYS, BINNING, "clsort_cell_keys", A_ALL)                      \
    X(F_CELL_OFFSETS, BINNING, "clsort_cell_offsets", A_ALL)                \
    X(F_BIN, BINNING, "clsort_bin", A_ALL)                                  \
    X(F_BITONIC, BITONIC, "clsort_bitonic_sort", A_ALL)                     \
    X(F_NBODY, NBODY, "clsort_nbody", A_ALL)                                \
    X(F_NBODY_BH, NBODY, "clsort_nbody (Barnes-Hut)", A_ALL)                \
    X(F_REDUCE, REDUCE, "clsort_reduce", A_ALL)                             \
    X(F_SEGSCAN, REDUCE, "clsort_segmented_scan", A_ALL)                    \
    X(F_SEGREDUCE, REDUCE, "clsort_segmented_reduce", A_ALL)                \
    X(F_REDUCE_BY_KEY, REDUCE, "clsort_reduce_by_key", A_ALL)               \
    X(F_RLE, REDUCE, "clsort_run_length_encode", A_ALL)                     \
    X(F_UNIQUE, REDUCE, "clsort_unique", A_ALL)                             \
    X(F_HISTOGRAM, REDUCE, "clsort_histogram_even", A_ALL)                  \
    X(F_TREE_BUILD, TREE, "clsort_tree_build", A_NO_OUTPUT)                 \
    X(F_TREE_ACCEL, TREE, "clsort_tree_accel", A_ALL)                       \
    X(F_SELECT, SELECT, "clsort_select_if (values)", A_ALL)                 \
    X(F_PARTITION, SELECT, "clsort_partition (values, a predicate)", A_ALL) \
    X(F_SEARCH, SEARCH, "clsort_lower_bound", A_ALL) \
    X(F_MERGE, MERGE, "clsort_merge", A_ALL)                                \
    X(F_TOP_K, TOP_K, "clsort_top_k (values)", A_ALL)
#define ARG_ROW_ID(id, family, name, cases) id,
#define ARG_ROW_FAMILY(id, family, name, cases) CLSORT_FAMILY_##family,
#define ARG_ROW_NAME(id, family, name, cases) name,
#define ARG_ROW_CASES(id, family, name, cases) cases,
enum { ARG_ROWS(ARG_ROW_ID) F_FUNCS };
static const clsort_family fn_families[F_FUNCS] = {ARG_ROWS(ARG_ROW_FAMILY)};
static const char *const fn_names[F_FUNCS] = {ARG_ROWS(ARG_ROW_NAME)};
static const unsigned fn_cases[F_FUNCS] = {ARG_ROWS(ARG_ROW_CASES)};
#undef ARG_ROW_ID
#undef ARG_ROW_FAMILY
#undef ARG_ROW_NAME
#undef ARG_ROW_CASES

/* in and out are the buffers of the case (for A_ALIAS out == in; for A_OVERLAP
 * two sub-buffers over the same bytes; for A_READONLY out is read-only); where
 * a function may run in place (out == in), the aliased output is another.
 * gate (not NULL: a valid call, c past A_COUNT): the call's wait list is
 * that one event, and no count goes to a host pointer (those block). */
static clsort_result call_with(int f, int c, clsort_context *cs, cl_mem in, cl_mem out, cl_mem flags, cl_mem aux,
                               cl_mem count_buf, cl_command_queue foreign_queue, const cl_event *gate)
{
    int alias = c == A_ALIAS;
    clsort_context *ctx = c == A_NULL_CTX ? NULL : cs;
    size_t n = c == A_OVERFLOW ? (size_t)-1 / 2 : c == A_HUGE ? (size_t)0xffffffffu : 64, count = 0,
           *cp = gate ? NULL : &count;
    clsort_enqueue enq;
    const clsort_enqueue *e = NULL;
    clsort_scan_desc sd;
    clsort_split_desc pd;
    clsort_sort_desc so;
    clsort_bin_desc bd;
    memset(&enq, 0, sizeof enq);
    memset(&sd, 0, sizeof sd);
    memset(&pd, 0, sizeof pd);
    memset(&so, 0, sizeof so);
    memset(&bd, 0, sizeof bd);
    if (c == A_FOREIGN_QUEUE) {
        enq.queue = foreign_queue;
        e = &enq;
    }
    if (gate) {
        enq.num_events_in_wait_list = 1;
        enq.event_wait_list = gate;
        e = &enq;
    }
    if (c == A_COUNT_WRAP || c == A_COUNT_OUT) { /* the count buffer: a buffer of its own, or the output */
        enq.count = c == A_COUNT_WRAP ? count_buf : out;
        enq.count_offset = c == A_COUNT_WRAP ? (size_t)-1 - 3 : 0;
        e = &enq;
    }
    pd.flags = f == F_ENUMERATE && (alias || c == A_OVERLAP) ? in : flags;
    bd.grid.cells[0] = bd.grid.cells[1] = 4;
    bd.grid.cell_size[0] = bd.grid.cell_size[1] = 0.25f;
    bd.cell_keys = out;
    bd.permutation = aux;
    if (f == F_SORT_PERM) so.permutation = aux;
    if (alias && f == F_SCAN) { /* out == in is in place: desc.total over the input instead */
        sd.total = in;
        out = aux;
    }
    if (alias && f == F_SORT) { /* values_out over keys_in */
        so.values_in = flags;
        so.values_out = in;
        out = aux;
    }
    if (alias && f == F_SORT_PERM) { /* the permutation over keys_in */
        so.permutation = in;
        out = aux;
    }
    switch (f) {
    case F_SCAN: return clsort_scan(ctx, in, out, n, &sd, e);
    case F_ENUMERATE: /* the indices are its only buffer besides the flags */
        return clsort_enumerate(ctx, NULL, c == A_NULL_BUF || c == A_FOREIGN_BUF ? in : out, n, &pd, cp, e);
    case F_PACK: return clsort_pack(ctx, in, out, n, &pd, cp, e);
    case F_SPLIT: return clsort_split(ctx, in, out, n, &pd, cp, e);
    case F_SORT: case F_SORT_PERM: return clsort_sort(ctx, in, out, n, &so, e);
    case F_GATHER: return clsort_gather(ctx, in, out, aux, n, 4, e);
    case F_SEARCH: return clsort_lower_bound(ctx, flags, n, in, n, out, NULL, e); /* needles in, keys in flags */
    case F_CELL_KEYS: return clsort_cell_keys(ctx, in, out, n / 2, &bd.grid, e); /* float2 positions */
    case F_CELL_OFFSETS: return clsort_cell_offsets(ctx, in, c == A_OVERFLOW ? 64 : n, n / 2, out, e);
    case F_BITONIC: {
        clsort_bitonic_desc td;
        memset(&td, 0, sizeof td);
        if (alias) { /* the permutation over keys_in (keys in place is allowed) */
            td.permutation = in;
            out = aux;
        }
        return clsort_bitonic_sort(ctx, in, out, n, &td, e);
    }
    case F_NBODY: case F_NBODY_BH: { /* 16 bodies of 16 bytes: positions in, velocities out */
        clsort_nbody_desc nd;
        memset(&nd, 0, sizeof nd);
        nd.dt = 1e-3;
        nd.softening2 = 1e-2;
        if (f == F_NBODY_BH) nd.method = CLSORT_NBODY_BARNES_HUT;
        return clsort_nbody(ctx, in, out, n / 4, &nd, e);
    }
    case F_TREE_BUILD: case F_TREE_ACCEL: {
        /* a tree of the valid context; build: 16 float4 points (the short buffer for A_SMALL); accel:
         * a valid build from the flags buffer first, then the case on the accelerations (16 float4),
         * the context and the queue (its overflow case is the build's: accel takes no count) */
        clsort_tree *tree = NULL;
        clsort_tree_desc td;
        clsort_nbody_desc nd;
        clsort_result r;
        memset(&td, 0, sizeof td);
        memset(&nd, 0, sizeof nd);
        if (clsort_tree_create(cs, &tree) != CLSORT_SUCCESS) return CLSORT_ERROR_OPENCL;
        if (f == F_TREE_BUILD && c == A_COUNT_OUT) { /* the count over a buffer of the tree it builds */
            clsort_tree_view v;
            r = clsort_tree_build(cs, tree, flags, 16, &td, NULL);
            if (r == CLSORT_SUCCESS) r = clsort_tree_get_view(tree, &v);
            if (r == CLSORT_SUCCESS) {
                clsort_trim(cs); /* the valid build's scratch: what the table counts is the refused call's */
                enq.count = v.codes;
                r = clsort_tree_build(ctx, tree, in, 16, &td, e);
            } else {
                r = CLSORT_ERROR_OPENCL; /* the valid build failed: not what the table checks */
            }
        } else if (f == F_TREE_BUILD || c == A_OVERFLOW || c == A_HUGE) { /* accel takes no n */
            r = clsort_tree_build(ctx, tree, c == A_SMALL ? out : in, n / 4, &td, e);
        } else {
            clsort_tree_view v;
            cl_mem acc = c == A_NULL_BUF || c == A_FOREIGN_BUF ? in : out, points_sub = NULL;
            r = clsort_tree_build(cs, tree, flags, 16, &td, NULL);
            if (!gate) clsort_trim(cs); /* the valid build's scratch: what the table counts is the refused call's */
            if (r == CLSORT_SUCCESS && (alias || c == A_OVERLAP)) {
                /* its input is the tree: the accelerations over the tree's own points (the
                 * handle, or a sub-buffer over its bytes) */
                size_t bytes = 0;
                cl_buffer_region reg;
                cl_int err = CL_SUCCESS;
                r = clsort_tree_get_view(tree, &v);
                if (r == CLSORT_SUCCESS && c == A_OVERLAP) {
                    reg.origin = 0;
                    err = clGetMemObjectInfo(v.points, CL_MEM_SIZE, sizeof bytes, &bytes, NULL);
                    reg.size = bytes;
                    if (err == CL_SUCCESS) points_sub = clCreateSubBuffer(v.points, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
                }
                if (err != CL_SUCCESS) r = CLSORT_ERROR_OPENCL;
                acc = c == A_OVERLAP ? points_sub : v.points;
            }
            if (r == CLSORT_SUCCESS) r = clsort_tree_accel(ctx, tree, acc, &nd, e);
            else r = CLSORT_ERROR_OPENCL; /* the valid build failed: not what the table checks */
            if (points_sub) clReleaseMemObject(points_sub);
        }
        clsort_tree_destroy(tree);
        return r;
    }
    case F_REDUCE: case F_SEGSCAN: case F_SEGREDUCE: {
        /* reduce: the input is the short buffer for A_SMALL; segmented reduce: 8 segments of 8 */
        static const uint32_t off8[9] = {0, 8, 16, 24, 32, 40, 48, 56, 64};
        clsort_reduce_desc rd;
        memset(&rd, 0, sizeof rd);
        if (f == F_REDUCE) { /* its only output is desc.result */
            rd.result = alias || c == A_OVERLAP || c == A_READONLY || c == A_COUNT_OUT ? out : aux;
            return clsort_reduce(ctx, c == A_SMALL ? out : in, n, &rd, NULL, e);
        }
        if (f == F_SEGSCAN) { /* in place is allowed: the aliasing output is out over the segment flags */
            rd.segments = CLSORT_SEGMENTS_FLAGS_U32;
            rd.segment_data = alias ? in : flags;
            return clsort_segmented_scan(ctx, alias ? flags : in, out, n, &rd, e);
        }
        rd.segments = CLSORT_SEGMENTS_OFFSETS;
        rd.segment_data_host = off8;
        rd.segment_count = 8;
        return clsort_segmented_reduce(ctx, in, out, n, &rd, e);
    }
    case F_REDUCE_BY_KEY: case F_RLE: case F_UNIQUE: {
        clsort_by_key_desc kd;
        memset(&kd, 0, sizeof kd);
        if (f == F_REDUCE_BY_KEY) return clsort_reduce_by_key(ctx, in, flags, out, aux, n, &kd, cp, e);
        if (f == F_RLE) return clsort_run_length_encode(ctx, in, out, aux, n, &kd, cp, e);
        return clsort_unique(ctx, in, out, n, &kd, cp, e);
    }
    case F_SELECT: { /* the keys above a bound, values moved: values_in the flags buffer, values_out aux */
        static const uint32_t bound = 8;
        clsort_select_desc sel;
        memset(&sel, 0, sizeof sel);
        sel.compare = CLSORT_COMPARE_GREATER;
        sel.a = &bound;
        sel.values_in = flags;
        sel.values_out = aux;
        return clsort_select_if(ctx, in, out, n, &sel, cp, e);
    }
    case F_PARTITION: { /* the keys above 8 first, by a caller's predicate; values as F_SELECT */
        clsort_select_desc sel;
        memset(&sel, 0, sizeof sel);
        sel.user_op.source = "int above(uint k) { return k > 8u; }";
        sel.user_op.name = "above";
        sel.values_in = flags;
        sel.values_out = aux;
        return clsort_partition(ctx, in, out, n, &sel, cp, e);
    }
    case F_MERGE: { /* a: n / 2 keys of in, b: n / 2 of the flags buffer, into out (n keys) */
        clsort_merge_desc md;
        memset(&md, 0, sizeof md);
        return clsort_merge(ctx, in, n / 2, flags, n / 2, out, &md, e);
    }
    case F_TOP_K: { /* the 8 smallest of n keys, values moved: values_in the flags buffer, values_out aux */
        clsort_top_k_desc td;
        memset(&td, 0, sizeof td);
        td.k = 8;
        td.values_in = flags;
        td.values_out = aux;
        return clsort_top_k(ctx, in, out, n, &td, e);
    }
    case F_HISTOGRAM: { /* 64 bins: 256 bytes of counts (the short buffer is too small) */
        clsort_histogram_desc hd;
        memset(&hd, 0, sizeof hd);
        hd.bins = 64;
        hd.upper_int = 16;
        return clsort_histogram_even(ctx, in, n, out, &hd, e);
    }
    default: return clsort_bin(ctx, in, n / 2, &bd, e);
    }
}

/* Aliasing beyond the argument table: sub-buffers over another
 * argument's bytes, the in place uses that stay allowed, read-only outputs
 * and images, for the functions and arguments the table does not reach. */
static cl_mem sub(cl_mem parent, size_t origin, size_t size)
{
    cl_buffer_region reg;
    cl_int e;
    cl_mem m;
    reg.origin = origin;
    reg.size = size;
    m = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &e);
    check(e == CL_SUCCESS, "clCreateSubBuffer for the aliasing tests", 0, "-", 0, 0, e);
    return m;
}

static void test_aliasing(clsort_context *cs)
{
    enum { B = 4096 };
    unsigned char data[B], back[B];
    cl_uint align_bits = 0;
    size_t al, k;
    cl_mem P, Q, X, Y, ro, s1, s2, s3;
    cl_int e;
    clsort_result r;
    clsort_sort_desc so;
    clsort_bin_desc bd;
    clsort_attribute at[2];
    clsort_nbody_desc nd;
    clsort_by_key_desc kd;
    clsort_bitonic_desc td;
    size_t count = 77;
    int ok;
    for (k = 0; k < B; ++k) data[k] = (unsigned char)(k * 37u >> 3);
    for (k = 0; k < B; k += 4) data[k + 1] = data[k + 2] = data[k + 3] = 0; /* small u32: valid indices, cells */
    clGetDeviceInfo(clsort_cl_device(cs), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    al = align_bits / 8 ? align_bits / 8 : 128;
    P = buffer(cs, B, data);
    Q = buffer(cs, B, data);
    X = buffer(cs, B, data);
    Y = buffer(cs, B, data);
    ro = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, B, data, &e);
    check(e == CL_SUCCESS, "aliasing: read-only buffer", 0, "-", 0, 0, e);
    s1 = sub(P, 0, 1024);                          /* bytes [0, 1024) of P */
    s2 = al < 1024 ? sub(P, al, 1024) : sub(P, 0, 1024); /* overlaps s1 partly (or wholly) */
    s3 = sub(ro, 0, 1024);                         /* inherits read-only */
#define AL_BAD(call, text, label)                                                                              \
    do {                                                                                                       \
        r = (call);                                                                                            \
        check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), text), label, 0, "aliasing", 0, \
              CLSORT_ERROR_INVALID_ARGUMENT, r);                                                               \
        if (r != CLSORT_ERROR_INVALID_ARGUMENT || !strstr(clsort_last_error(cs), text))                        \
            printf("  %s: got %d: %s\n", label, (int)r, clsort_last_error(cs));                               \
    } while (0)
    /* sort: desc.temp over keys_in's bytes; in place through two handles */
    memset(&so, 0, sizeof so);
    {
        size_t tb = 0;
        clsort_sort_temp_size(cs, 64, &so, &tb);
        if (tb <= B - 1024) {
            cl_mem t = sub(P, 0, tb < 1024 ? 1024 : tb);
            so.temp = t;
            AL_BAD(clsort_sort(cs, s2, X, 64, &so, NULL), "shares memory", "sort desc.temp over keys_in (sub-buffers)");
            so.temp = NULL;
            clReleaseMemObject(t);
        }
    }
    AL_BAD(clsort_sort(cs, s1, s2, 64, &so, NULL), "in place needs the same buffer", "sort in place through two handles");
    so.permutation = ro;
    AL_BAD(clsort_sort(cs, X, Y, 64, &so, NULL), "CL_MEM_READ_ONLY", "sort read-only permutation");
    so.permutation = NULL;
    AL_BAD(clsort_sort(cs, X, s3, 64, &so, NULL), "CL_MEM_READ_ONLY", "sort keys_out a sub-buffer of a read-only buffer");
    /* bitonic: the permutation over the segment offsets */
    memset(&td, 0, sizeof td);
    td.segment_offsets = s1;
    td.segment_count = 1;
    td.permutation = s2;
    {
        static const cl_uint off2[2] = {0, 64};
        clEnqueueWriteBuffer(clsort_cl_queue(cs), P, CL_TRUE, 0, 8, off2, 0, NULL, NULL);
        memcpy(data, off2, 8);
    }
    AL_BAD(clsort_bitonic_sort(cs, X, X, 64, &td, NULL), "shares memory", "bitonic permutation over segment_offsets");
    /* bin: attributes */
    memset(&bd, 0, sizeof bd);
    bd.grid.cells[0] = bd.grid.cells[1] = 4;
    bd.grid.cell_size[0] = bd.grid.cell_size[1] = 0.25f;
    bd.cell_keys = Y;
    bd.attributes = at;
    bd.attribute_count = 2;
    memset(at, 0, sizeof at);
    at[0].src = Q; at[0].dst = s1; at[0].elem_size = 4;
    at[1].src = s2; at[1].dst = X; at[1].elem_size = 4;
    AL_BAD(clsort_bin(cs, Q, 64, &bd, NULL), "shares memory", "bin attribute dst over another's src (sub-buffers)");
    at[1].src = Q; at[1].dst = s2;
    AL_BAD(clsort_bin(cs, Q, 64, &bd, NULL), "both are outputs", "bin two attribute dsts over one buffer's bytes");
    at[1].dst = ro;
    AL_BAD(clsort_bin(cs, Q, 64, &bd, NULL), "CL_MEM_READ_ONLY", "bin read-only attribute dst");
    bd.attribute_count = 0;
    bd.cell_offsets = s3;
    AL_BAD(clsort_bin(cs, Q, 64, &bd, NULL), "CL_MEM_READ_ONLY", "bin read-only cell_offsets (sub-buffer)");
    bd.cell_offsets = NULL;
    /* nbody: accelerations over positions, velocities over positions, read-only */
    memset(&nd, 0, sizeof nd);
    nd.dt = 1e-3;
    nd.softening2 = 1e-2;
    AL_BAD(clsort_nbody_accel(cs, s1, s2, 16, &nd, NULL), "shares memory", "nbody_accel sub-buffers over one buffer");
    AL_BAD(clsort_nbody_accel(cs, X, ro, 16, &nd, NULL), "CL_MEM_READ_ONLY", "nbody_accel read-only accelerations");
    AL_BAD(clsort_nbody(cs, s1, s2, 16, &nd, NULL), "both are outputs", "nbody positions and velocities over one buffer");
    AL_BAD(clsort_nbody(cs, ro, X, 16, &nd, NULL), "CL_MEM_READ_ONLY", "nbody read-only positions (written)");
    {
        clsort_context_desc cd;
        clsort_context *c2 = NULL;
        memset(&cd, 0, sizeof cd);
        cd.context = clsort_cl_context(cs);
        cd.device = clsort_cl_device(cs);
        if (clsort_create(&c2, &cd) == CLSORT_SUCCESS) {
            clsort_nbody_part parts[2];
            memset(parts, 0, sizeof parts);
            parts[0].ctx = cs; parts[0].positions = s1; parts[0].velocities = X;
            parts[1].ctx = c2; parts[1].positions = Q; parts[1].velocities = s2;
            AL_BAD(clsort_nbody_multi(parts, 2, 16, &nd), "share memory", "nbody_multi parts over one buffer");
            parts[1].velocities = ro;
            AL_BAD(clsort_nbody_multi(parts, 2, 16, &nd), "CL_MEM_READ_ONLY", "nbody_multi read-only velocities");
        } else {
            check(0, "aliasing: second context", 0, "-", 0, 0, 0);
        }
        clsort_destroy(c2);
    }
    /* the reduction family: desc.count over keys_in, in place through two handles */
    memset(&kd, 0, sizeof kd);
    kd.count = s2;
    AL_BAD(clsort_unique(cs, s1, X, 64, &kd, &count, NULL), "shares memory", "unique desc.count over keys_in");
    kd.count = ro;
    AL_BAD(clsort_run_length_encode(cs, X, Y, Q, 64, &kd, &count, NULL), "CL_MEM_READ_ONLY", "rle read-only desc.count");
    kd.count = NULL;
    {
        clsort_reduce_desc rd;
        memset(&rd, 0, sizeof rd);
        AL_BAD(clsort_segmented_scan(cs, s1, s2, 64, &rd, NULL), "in place needs the same buffer",
               "segmented scan in place through two handles");
        rd.result = s2;
        AL_BAD(clsort_reduce(cs, s1, 64, &rd, NULL, NULL), "shares memory", "reduce desc.result inside in");
    }
    /* an image is not a buffer */
    {
        cl_bool images = CL_FALSE;
        clGetDeviceInfo(clsort_cl_device(cs), CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, NULL);
        if (images) {
            cl_image_format fmt;
            cl_image_desc idesc;
            cl_mem img;
            fmt.image_channel_order = CL_R;
            fmt.image_channel_data_type = CL_UNSIGNED_INT32;
            memset(&idesc, 0, sizeof idesc);
            idesc.image_type = CL_MEM_OBJECT_IMAGE2D;
            idesc.image_width = 64;
            idesc.image_height = 4;
            img = clCreateImage(clsort_cl_context(cs), CL_MEM_READ_WRITE, &fmt, &idesc, NULL, &e);
            if (e == CL_SUCCESS) {
                AL_BAD(clsort_gather(cs, X, img, Y, 64, 4, NULL), "image", "gather dst an image");
                clReleaseMemObject(img);
            }
        }
    }
    /* allowed: in place with the same handle, and inputs sharing memory */
    memset(&so, 0, sizeof so);
    r = clsort_sort(cs, Q, Q, 64, &so, NULL);
    check(r == CLSORT_SUCCESS, "sort in place (the same handle) allowed", 64, "-", 0, 0, r);
    r = clsort_gather(cs, s1, X, s2, 64, 4, NULL); /* src and indices over one buffer: both read */
    check(r == CLSORT_SUCCESS, "gather src and indices over one buffer allowed", 64, "-", 0, 0, r);
    at[0].src = at[0].dst = Y; at[0].elem_size = 4;
    bd.attribute_count = 1;
    bd.cell_keys = X;
    {
        cl_mem pos = buffer(cs, 512, NULL);
        float pf[128];
        for (k = 0; k < 128; ++k) pf[k] = (float)(k % 7) / 7.0f;
        clEnqueueWriteBuffer(clsort_cl_queue(cs), pos, CL_TRUE, 0, 512, pf, 0, NULL, NULL);
        at[1].src = at[1].dst = pos; at[1].elem_size = 8;
        bd.attribute_count = 2;
        r = clsort_bin(cs, pos, 64, &bd, NULL); /* attributes in place, one of them the positions */
        check(r == CLSORT_SUCCESS, "bin attributes in place (one over positions) allowed", 64, "-", 0, 0, r);
        if (r != CLSORT_SUCCESS) printf("  %s\n", clsort_last_error(cs));
        clReleaseMemObject(pos);
    }
    /* the refused calls changed nothing (P and ro; X, Y and Q were written by the allowed calls) */
    ok = 1;
    download(cs, P, B, back); ok = ok && memcmp(back, data, B) == 0;
    check(ok, "aliasing: refused calls leave the buffers unchanged", 0, "-", 0, 0, 0);
    ok = 1;
    download(cs, ro, B, back);
    for (k = 0; k < B; ++k) ok = ok && (k < 8 || back[k] == data[k]);
    check(ok, "aliasing: read-only buffers unchanged", 0, "-", 0, 0, 0);
    check(count == 77, "aliasing: *count untouched by refused calls", 0, "-", 0, 77, (double)count);
#undef AL_BAD
    clReleaseMemObject(s1); clReleaseMemObject(s2); clReleaseMemObject(s3);
    clReleaseMemObject(P); clReleaseMemObject(Q); clReleaseMemObject(X); clReleaseMemObject(Y);
    clReleaseMemObject(ro);
}

/* Messages name the public function, the argument and the size:
 * host staging past the device's largest allocation, device offsets the host
 * may not read, a queue check, an aliasing refusal. */
static void test_messages(clsort_context *cs)
{
    cl_ulong max_alloc = 0;
    uint64_t tiny[4] = {1, 2, 3, 4};
    clsort_result r;
    char want[96];
    const char *msg;
    clGetDeviceInfo(clsort_cl_device(cs), CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    if (max_alloc > 0 && max_alloc / 8 + 1 < ((size_t)-1) / 8) {
        /* clCreateBuffer fails (CL_INVALID_BUFFER_SIZE) before the host array is read */
        size_t n = (size_t)(max_alloc / 8 + 1);
        r = clsort_scan_host(cs, CLSORT_U64, 0, tiny, tiny, n, NULL);
        msg = clsort_last_error(cs);
        snprintf(want, sizeof want, "%lu bytes", (unsigned long)(n * 8));
        check(r == CLSORT_ERROR_OPENCL && strncmp(msg, "clsort_scan_host: ", 18) == 0 && strstr(msg, "of in") &&
                  strstr(msg, want) && strstr(msg, "CL_"),
              "message: host staging names the function, the array and the bytes", 0, msg, 0, 0, r);
    }
    {
        cl_int e;
        uint32_t off[3] = {0, 10, 64}, keys[64];
        cl_mem doff = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_ONLY | CL_MEM_HOST_NO_ACCESS | CL_MEM_COPY_HOST_PTR,
                                     sizeof off, off, &e);
        cl_mem k = buffer(cs, sizeof keys, NULL);
        clsort_bitonic_desc bd;
        memset(&bd, 0, sizeof bd);
        bd.segment_offsets = doff;
        bd.segment_count = 2;
        r = clsort_bitonic_sort(cs, k, k, 64, &bd, NULL);
        msg = clsort_last_error(cs);
        check(r == CLSORT_ERROR_INVALID_ARGUMENT && strncmp(msg, "clsort_bitonic_sort: desc.segment_offsets", 41) == 0 &&
                  strstr(msg, "CL_MEM_HOST_NO_ACCESS") && strstr(msg, "12 bytes"),
              "message: bitonic offsets the host cannot read", 0, msg, 0, 0, r);
        clReleaseMemObject(doff);
        clReleaseMemObject(k);
    }
    {
        clsort_enqueue enq;
        cl_mem a = buffer(cs, 64, NULL);
        clsort_scan_desc sd;
        memset(&enq, 0, sizeof enq);
        memset(&sd, 0, sizeof sd);
        {
            cl_int e;
            cl_command_queue q = clCreateCommandQueue(clsort_cl_context(cs), clsort_cl_device(cs),
                                                      CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &e);
            if (e == CL_SUCCESS) {
                enq.queue = q;
                r = clsort_scan(cs, a, a, 16, &sd, &enq);
                msg = clsort_last_error(cs);
                check(r == CLSORT_ERROR_INVALID_ARGUMENT && strncmp(msg, "clsort_scan: ", 13) == 0 &&
                          strstr(msg, "in-order"),
                      "message: an out-of-order per-call queue names the function", 0, msg, 0, 0, r);
                clReleaseCommandQueue(q);
            }
        }
        sd.total = a;
        enq.queue = NULL;
        {
            cl_mem b = buffer(cs, 64, NULL);
            r = clsort_scan(cs, a, b, 16, &sd, NULL);
            clReleaseMemObject(b);
        }
        msg = clsort_last_error(cs);
        check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(msg, "clsort_scan: the output desc.total shares memory with in"),
              "message: aliasing names both arguments", 0, msg, 0, 0, r);
        clReleaseMemObject(a);
    }
    { /* the device count's templates, word for word: over an output (select_if: its keys_out; the tree build:
       * a buffer of its tree), and an offset whose + 4 wraps */
        static const uint32_t bound = 8;
        float xyz[64]; /* the valid build's 16 float4 points: written, so that oclgrind reads no garbage */
        cl_mem k, o, pts;
        for (int i = 0; i < 64; ++i) xyz[i] = (float)(i * 7 % 64);
        k = buffer(cs, 256, NULL);
        o = buffer(cs, 256, NULL);
        pts = buffer(cs, sizeof xyz, xyz);
        clsort_select_desc sel;
        clsort_split_desc pd;
        clsort_enqueue enq;
        clsort_tree *tree = NULL;
        clsort_tree_desc td;
        clsort_tree_view v;
        size_t count = 0;
        memset(&sel, 0, sizeof sel);
        memset(&pd, 0, sizeof pd);
        memset(&enq, 0, sizeof enq);
        memset(&td, 0, sizeof td);
        sel.compare = CLSORT_COMPARE_GREATER;
        sel.a = &bound;
        enq.count = o;
        r = clsort_select_if(cs, k, o, 64, &sel, &count, &enq);
        msg = clsort_last_error(cs);
        check(r == CLSORT_ERROR_INVALID_ARGUMENT &&
                  strcmp(msg, "clsort_select_if: the output keys_out shares memory with enq->count") == 0,
              "message: select_if's count over its output, word for word", 0, msg, 0, 0, r);
        r = clsort_tree_create(cs, &tree);
        if (r == CLSORT_SUCCESS) r = clsort_tree_build(cs, tree, pts, 16, &td, NULL);
        if (r == CLSORT_SUCCESS) r = clsort_tree_get_view(tree, &v);
        if (r == CLSORT_SUCCESS) {
            enq.count = v.codes;
            r = clsort_tree_build(cs, tree, pts, 16, &td, &enq);
        }
        msg = clsort_last_error(cs);
        check(r == CLSORT_ERROR_INVALID_ARGUMENT &&
                  strcmp(msg, "clsort_tree_build: the output view.codes of the tree shares memory with enq->count") == 0,
              "message: the tree build's count over its tree's codes, word for word", 0, msg, 0, 0, r);
        clsort_tree_destroy(tree);
        pd.flags = k;
        enq.count = pts;
        enq.count_offset = (size_t)-1 - 3;
        r = clsort_pack(cs, k, o, 64, &pd, &count, &enq);
        msg = clsort_last_error(cs);
        check(r == CLSORT_ERROR_INVALID_ARGUMENT &&
                  strcmp(msg, "clsort_pack: the bytes enq->count needs overflow a size_t (an offset, stride or count "
                              "too large)") == 0,
              "message: a count offset whose + 4 wraps, word for word", 0, msg, 0, 0, r);
        clReleaseMemObject(k);
        clReleaseMemObject(o);
        clReleaseMemObject(pts);
    }
}

/* Scratch growth stops at CL_DEVICE_MAX_MEM_ALLOC_SIZE (the device
 * profile's max_alloc, lowered here to 1 MiB: PoCL's real limit is the host's
 * memory); clsort_nbody_multi with no parts touches no context's message. */
static void test_limits(clsort_context *cs)
{
    clsort_context *c2 = NULL;
    clsort_nbody_desc nd;
    clsort_nbody_part part;
    cl_mem m = NULL;
    size_t size = 0;
    clsort_result r;
    if (clsort_create(&c2, NULL) == CLSORT_SUCCESS) {
        c2->dev.max_alloc = (cl_ulong)1 << 20;
        r = clsort__scratch(c2, "test: capped", 600 * 1024, &m);
        r = r == CLSORT_SUCCESS ? clsort__scratch(c2, "test: capped", 700 * 1024, &m) : r;
        if (r == CLSORT_SUCCESS) clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof size, &size, NULL);
        check(r == CLSORT_SUCCESS && size >= 700 * 1024 && size <= ((size_t)1 << 20),
              "scratch growth (600 KiB, then 700 KiB) capped at max_alloc 1 MiB", 0, "-", 0, 1 << 20, (double)size);
    } else {
        check(0, "clsort_create for the scratch cap", 0, "-", 0, 0, 0);
    }
    clsort_destroy(c2);
    memset(&nd, 0, sizeof nd);
    memset(&part, 0, sizeof part);
    part.ctx = cs;
    clsort_scan(cs, NULL, NULL, 5, NULL, NULL); /* leaves a message */
    {
        static char before[8192];
        snprintf(before, sizeof before, "%s", clsort_last_error(cs));
        r = clsort_nbody_multi(&part, 0, 16, &nd);
        check(r == CLSORT_ERROR_INVALID_ARGUMENT && before[0] && strcmp(before, clsort_last_error(cs)) == 0,
              "nbody_multi with 0 parts: an error, no context's message touched", 0, "-", 0, 0, r);
    }
}

static void test_argument_table(clsort_context *cs)
{
    uint32_t data[64], back[64];
    clsort_context *other = NULL;
    cl_mem big, out, small, flags, aux, foreign, parent, lo, hi, ro, cnt;
    cl_mem all[9];
    cl_buffer_region reg;
    cl_int err;
    int f, c, k;
    for (k = 0; k < 64; ++k) data[k] = (uint32_t)k * 2654435761u >> 28; /* small values: valid indices, cells */
    if (clsort_create(&other, NULL) != CLSORT_SUCCESS) { /* a second OpenCL context */
        check(0, "argument table: second context", 0, "-", 0, 0, 0);
        clsort_destroy(other);
        return;
    }
    big = buffer(cs, 256, data);
    out = buffer(cs, 256, data);
    small = buffer(cs, 16, data);
    flags = buffer(cs, 256, data);
    aux = buffer(cs, 256, data);
    foreign = buffer(other, 256, data);
    parent = buffer(cs, 256, data); /* lo and hi: two handles over its 256 bytes */
    reg.origin = 0;
    reg.size = 256;
    lo = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    check(err == CL_SUCCESS, "argument table: sub-buffer", 0, "-", 0, 0, err);
    hi = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &reg, &err);
    check(err == CL_SUCCESS, "argument table: second sub-buffer", 0, "-", 0, 0, err);
    ro = clCreateBuffer(clsort_cl_context(cs), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, 256, data, &err);
    check(err == CL_SUCCESS, "argument table: read-only buffer", 0, "-", 0, 0, err);
    all[0] = big; all[1] = out; all[2] = small; all[3] = flags; all[4] = aux; all[5] = foreign; all[6] = parent;
    all[7] = ro;
    cnt = buffer(cs, 256, data); /* enq->count of A_COUNT_WRAP */
    all[8] = cnt;
    for (k = 0; k < CLSORT_FAMILY_COUNT; ++k) { /* every family has a row */
        char what[120];
        int found = 0;
        for (f = 0; f < F_FUNCS; ++f) found |= fn_families[f] == (clsort_family)k;
        snprintf(what, sizeof what, "argument table: a row of the family %s", clsort_family_name((clsort_family)k));
        check(found, what, 0, "argument-table", 0, 1, found);
    }
    for (f = 0; f < F_FUNCS; ++f)
        for (c = 0; c < A_COUNT; ++c) {
            char what[160];
            if (!(fn_cases[f] >> c & 1u)) continue; /* no output buffer: the kind cannot arise */
            clsort_result r, want = CLSORT_ERROR_INVALID_ARGUMENT;
            cl_mem in = c == A_NULL_BUF ? NULL : c == A_FOREIGN_BUF ? foreign : c == A_OVERLAP ? lo : big;
            cl_mem o = c == A_SMALL ? small : c == A_ALIAS ? in : c == A_OVERLAP ? hi : c == A_READONLY ? ro : out;
            const char *text;
            int ok = 1;
            size_t kept;
            for (k = 0; k < 9; ++k) { /* every buffer back to the data */
                clsort_context *owner = all[k] == foreign ? other : cs;
                clEnqueueWriteBuffer(clsort_cl_queue(owner), all[k], CL_TRUE, 0, all[k] == small ? 16 : 256, data, 0,
                                     NULL, NULL);
            }
            /* no scratch kept before, so any after the refusal was taken by it (before its checks) */
            clsort_trim(cs);
            r = call_with(f, c, cs, in, o, flags, aux, cnt, clsort_cl_queue(other), NULL);
            clFinish(clsort_cl_queue(cs));
            kept = clsort_kept_bytes(cs);
            snprintf(what, sizeof what, "%s, %s: refused before taking scratch", fn_names[f], arg_case_names[c]);
            check(kept == 0, what, 0, "argument-table", 0, 0, (double)kept);
            /* the cases made for them must fail for that reason: the message says so */
            text = c >= A_ALIAS || c == A_NULL_BUF || c == A_FOREIGN_BUF || c == A_FOREIGN_QUEUE ? arg_case_text[c]
                                                                                                 : NULL;
            snprintf(what, sizeof what, "%s, %s: error code and message", fn_names[f], arg_case_names[c]);
            ok = r == want && (c == A_NULL_CTX || message_ok(clsort_last_error(cs))) &&
                 (!text || strstr(clsort_last_error(cs), text));
            check(ok, what, 0, "argument-table", 0, want, r);
            if (!ok) printf("  got %d: %s\n", (int)r, clsort_last_error(cs));
            ok = 1;
            for (k = 0; k < 9; ++k) {
                clsort_context *owner = all[k] == foreign ? other : cs;
                size_t bytes = all[k] == small ? 16 : 256;
                download(owner, all[k], bytes, back);
                ok = ok && memcmp(back, data, bytes) == 0;
            }
            snprintf(what, sizeof what, "%s, %s: every buffer unchanged", fn_names[f], arg_case_names[c]);
            check(ok, what, 0, "argument-table", 0, 0, 0);
        }
    clReleaseMemObject(big); clReleaseMemObject(out); clReleaseMemObject(small);
    clReleaseMemObject(flags); clReleaseMemObject(aux); clReleaseMemObject(foreign);
    clReleaseMemObject(lo); clReleaseMemObject(hi); clReleaseMemObject(parent); clReleaseMemObject(ro);
    clReleaseMemObject(cnt);
    clsort_destroy(other);
}


/* No call that takes a clsort_enqueue waits on the host inside: every row
 * of the argument table and clsort_tree_radius (counts only), called validly (no count to a host pointer;
 * segmented reduce with host offsets) with a wait list of one user event
 * that a watchdog thread sets only once the call has returned, or after
 * 20 s, which fails the check instead of hanging (rd_watchdog, the reduce
 * part). Then the call must have succeeded and its commands complete. The
 * reduce part's "no wait on the host" case checks results of the calls
 * that take host arrays. */
static void test_no_wait_rows(clsort_context *cs)
{
    uint32_t data[64];
    cl_mem in, out, flags, aux;
    int f, k;
    for (k = 0; k < 64; ++k) data[k] = (uint32_t)k * 2654435761u >> 28; /* small values: valid indices, cells */
    in = buffer(cs, 256, data);
    out = buffer(cs, 256, NULL);
    flags = buffer(cs, 256, data);
    aux = buffer(cs, 256, NULL);
    for (f = 0; f < F_FUNCS; ++f) {
        char what[160];
        rd_watch w;
        pthread_t th;
        cl_int err;
        clsort_result r;
        memset(&w, 0, sizeof w);
        clEnqueueWriteBuffer(clsort_cl_queue(cs), in, CL_TRUE, 0, 256, data, 0, NULL, NULL);
        r = call_with(f, A_COUNT, cs, in, out, flags, aux, NULL, NULL, NULL); /* its programs built, nothing to wait for */
        clFinish(clsort_cl_queue(cs));
        snprintf(what, sizeof what, "%s, no wait list", fn_names[f]);
        check(r == CLSORT_SUCCESS, what, 64, clsort_last_error(cs), 0, CLSORT_SUCCESS, r);
        clEnqueueWriteBuffer(clsort_cl_queue(cs), in, CL_TRUE, 0, 256, data, 0, NULL, NULL);
        w.gate = clCreateUserEvent(clsort_cl_context(cs), &err);
        w.returned = clCreateUserEvent(clsort_cl_context(cs), &err);
        if (pthread_create(&th, NULL, rd_watchdog, &w) != 0) {
            check(0, "pthread_create", 0, "-", 0, 0, 0);
            break;
        }
        r = call_with(f, A_COUNT, cs, in, out, flags, aux, NULL, NULL, &w.gate);
        clSetUserEventStatus(w.returned, CL_COMPLETE);
        pthread_join(th, NULL);
        snprintf(what, sizeof what, "%s: returns before its wait list's user event is set", fn_names[f]);
        check(!w.timed_out, what, 64, "user event", 0, 0, 1);
        snprintf(what, sizeof what, "%s with a user event in its wait list", fn_names[f]);
        check(r == CLSORT_SUCCESS, what, 64, clsort_last_error(cs), 0, CLSORT_SUCCESS, r);
        err = clFinish(clsort_cl_queue(cs));
        check(err == CL_SUCCESS, "clFinish after the user event", 64, fn_names[f], 0, CL_SUCCESS, err);
        clReleaseEvent(w.gate);
        clReleaseEvent(w.returned);
    }
    { /* clsort_tree_radius (no row of the table): counts only, no total or indices (those block) */
        clsort_tree *tree = NULL;
        clsort_tree_desc td;
        clsort_tree_radius_desc rq;
        rd_watch w;
        pthread_t th;
        cl_int err;
        clsort_result r;
        clsort_enqueue enq;
        memset(&td, 0, sizeof td);
        memset(&rq, 0, sizeof rq);
        memset(&w, 0, sizeof w);
        memset(&enq, 0, sizeof enq);
        rq.radius = 1.0f;
        rq.counts = out;
        r = clsort_tree_create(cs, &tree);
        if (r == CLSORT_SUCCESS) r = clsort_tree_build(cs, tree, flags, 16, &td, NULL); /* 16 float4 points */
        if (r == CLSORT_SUCCESS) r = clsort_tree_radius(cs, tree, flags, 16, &rq, NULL, NULL);
        clFinish(clsort_cl_queue(cs));
        check(r == CLSORT_SUCCESS, "clsort_tree_radius, no wait list", 16, clsort_last_error(cs), 0, CLSORT_SUCCESS, r);
        w.gate = clCreateUserEvent(clsort_cl_context(cs), &err);
        w.returned = clCreateUserEvent(clsort_cl_context(cs), &err);
        enq.num_events_in_wait_list = 1;
        enq.event_wait_list = &w.gate;
        if (r == CLSORT_SUCCESS && pthread_create(&th, NULL, rd_watchdog, &w) == 0) {
            r = clsort_tree_radius(cs, tree, flags, 16, &rq, NULL, &enq);
            clSetUserEventStatus(w.returned, CL_COMPLETE);
            pthread_join(th, NULL);
            check(!w.timed_out, "clsort_tree_radius: returns before its wait list's user event is set", 16,
                  "user event", 0, 0, 1);
            check(r == CLSORT_SUCCESS, "clsort_tree_radius with a user event in its wait list", 16,
                  clsort_last_error(cs), 0, CLSORT_SUCCESS, r);
            err = clFinish(clsort_cl_queue(cs));
            check(err == CL_SUCCESS, "clFinish after the user event", 16, "clsort_tree_radius", 0, CL_SUCCESS, err);
        }
        clSetUserEventStatus(w.gate, CL_COMPLETE); /* set already, unless the thread never ran */
        clReleaseEvent(w.gate);
        clReleaseEvent(w.returned);
        clsort_tree_destroy(tree);
    }
    clReleaseMemObject(in); clReleaseMemObject(out); clReleaseMemObject(flags); clReleaseMemObject(aux);
}

/* DEVICE COUNTS: the calls that take none refuse enq->count (never ignore
 * it) with a message, before anything is enqueued: the bitonic sort and the
 * all-pairs N-body methods (Barnes-Hut takes one; the reduction family's,
 * select's and the tree's counted cases are in their parts, and the tree's
 * accel and radius refusals in test_devcount.c). Arguments otherwise valid,
 * so that the count is the reason. */
static void test_device_count_refusals(clsort_context *cs)
{
    enum { N = 16, CALLS = 3 };
    uint32_t data[4 * N], back[4 * N], words[8];
    cl_mem a = buffer(cs, sizeof data, NULL), b = buffer(cs, sizeof data, NULL), dc;
    clsort_enqueue q;
    clsort_bitonic_desc bd;
    clsort_nbody_desc nd;
    size_t i;
    int k, ok = 1;
    static const char *names[CALLS] = {"clsort_bitonic_sort", "clsort_nbody (all pairs)",
                                       "clsort_nbody_accel (all pairs)"};
    for (i = 0; i < 4 * N; ++i) data[i] = (uint32_t)(i * 2654435761u >> 8);
    for (i = 0; i < 8; ++i) words[i] = i == 3 ? 5u : 0xdeadbeefu; /* the count 5 at byte 12 */
    clEnqueueWriteBuffer(clsort_cl_queue(cs), a, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL);
    clEnqueueWriteBuffer(clsort_cl_queue(cs), b, CL_TRUE, 0, sizeof data, data, 0, NULL, NULL);
    dc = buffer(cs, sizeof words, words);
    memset(&q, 0, sizeof q);
    q.count = dc;
    q.count_offset = 12;
    memset(&bd, 0, sizeof bd);
    memset(&nd, 0, sizeof nd);
    nd.dt = 1e-3;
    nd.softening2 = 1e-2;
    for (k = 0; k < CALLS; ++k) {
        char what[128];
        clsort_result r = k == 0 ? clsort_bitonic_sort(cs, a, b, N, &bd, &q)
                        : k == 1 ? clsort_nbody(cs, a, b, N, &nd, &q) /* float4 bodies: 16 of 16 bytes */
                                 : clsort_nbody_accel(cs, a, b, N, &nd, &q);
        snprintf(what, sizeof what, "%s refuses enq->count, the message naming it", names[k]);
        check(r == CLSORT_ERROR_INVALID_ARGUMENT && strstr(clsort_last_error(cs), "enq->count: this") &&
                  strstr(clsort_last_error(cs), "takes no device count"),
              what, N, clsort_last_error(cs), 0, CLSORT_ERROR_INVALID_ARGUMENT, r);
    }
    download(cs, a, sizeof back, back);
    ok = memcmp(back, data, sizeof data) == 0;
    download(cs, b, sizeof back, back);
    ok = ok && memcmp(back, data, sizeof data) == 0;
    download(cs, dc, sizeof words, back);
    ok = ok && memcmp(back, words, sizeof words) == 0;
    check(ok, "device count refusals leave every buffer unchanged", N, "-", 0, 0, 0);
    clReleaseMemObject(a), clReleaseMemObject(b), clReleaseMemObject(dc);
}

static void api_bad_arguments(const test_env *e) { test_bad_arguments(e->cs); }
static void api_events(const test_env *e) { test_events(e->cs); }
static void api_host_level(const test_env *e) { test_host_level(e->cs); }
static void api_host_types_sort(const test_env *e) { test_host_types_sort(e->cs); }
static void api_host_types_conflict(const test_env *e) { test_host_types_conflict(e->cs); }
static void api_contexts(const test_env *e) { test_contexts(e->cs, e->tiny); }
static void api_argument_table(const test_env *e) { test_argument_table(e->cs); }
static void api_no_wait_rows(const test_env *e) { test_no_wait_rows(e->cs); }
static void api_aliasing(const test_env *e) { test_aliasing(e->cs); }
/* Arguments that must be finite floats take FLT_MAX (finite) and refuse
 * infinity and NaN, and doubles a float kernel takes refuse what no float
 * holds: the tree's radius and periods (FLT_MAX: every point in reach; a
 * period FLT_MAX counts as the open box), N-body's dt, softening2 and G. */
static void test_finite_floats(clsort_context *cs)
{
    enum { N = 64 };
    float rec[4 * N], zero[4 * N];
    uint32_t counts[N], open_counts[N];
    const uint32_t inf_bits = 0x7f800000u, nan_bits = 0x7fc00000u;
    float inf, nan_;
    clsort_tree *tree = NULL;
    clsort_tree_desc td;
    clsort_tree_radius_desc rd;
    clsort_nbody_desc nd;
    cl_mem pos, vel, dc;
    size_t i, total = 0;
    int ok, a;
    clsort_result r;
    memcpy(&inf, &inf_bits, 4);
    memcpy(&nan_, &nan_bits, 4);
    for (i = 0; i < 4 * N; ++i) rec[i] = (i % 4 == 3) ? 1.0f : (float)((i * 2654435761u) % 1000u) / 1000.0f;
    pos = buffer(cs, sizeof rec, rec);
    memset(zero, 0, sizeof zero);
    vel = buffer(cs, sizeof zero, zero); /* the N-body steps read it: written, so that oclgrind reads no garbage */
    dc = buffer(cs, sizeof counts, NULL);
    memset(&td, 0, sizeof td);
    r = clsort_tree_create(cs, &tree);
    if (r == CLSORT_SUCCESS) r = clsort_tree_build(cs, tree, pos, N, &td, NULL);
    check(r == CLSORT_SUCCESS, "finite floats: tree build", N, clsort_last_error(cs), 0, 0, r);
    memset(&rd, 0, sizeof rd);
    rd.counts = dc;
    rd.radius = FLT_MAX;
    r = r == CLSORT_SUCCESS ? clsort_tree_radius(cs, tree, pos, N, &rd, &total, NULL) : r;
    download(cs, dc, sizeof counts, counts);
    for (ok = r == CLSORT_SUCCESS && total == (size_t)N * N, i = 0; i < N; ++i) ok = ok && counts[i] == N;
    check(ok, "finite floats: radius FLT_MAX taken (every point within it)", N, clsort_last_error(cs), 0,
          (double)N * N, (double)total);
    rd.radius = 0.25f;
    r = clsort_tree_radius(cs, tree, pos, N, &rd, NULL, NULL);
    download(cs, dc, sizeof open_counts, open_counts);
    for (a = 0; a < 3; ++a) rd.period[a] = FLT_MAX;
    r = r == CLSORT_SUCCESS ? clsort_tree_radius(cs, tree, pos, N, &rd, NULL, NULL) : r;
    download(cs, dc, sizeof counts, counts);
    check(r == CLSORT_SUCCESS && memcmp(counts, open_counts, sizeof counts) == 0,
          "finite floats: period FLT_MAX taken (counts of the open box)", N, clsort_last_error(cs), 0, 0, r);
    for (a = 0; a < 6; ++a) {
        static const char *what[6] = {"finite floats: radius +inf refused", "finite floats: radius NaN refused",
                                      "finite floats: radius -1 refused", "finite floats: period +inf refused",
                                      "finite floats: period NaN refused", "finite floats: period -FLT_MAX refused"};
        memset(&rd, 0, sizeof rd);
        rd.counts = dc;
        rd.radius = a == 0 ? inf : a == 1 ? nan_ : a == 2 ? -1.0f : 0.25f;
        rd.period[1] = a == 3 ? inf : a == 4 ? nan_ : a == 5 ? -FLT_MAX : 0.0f;
        EXPECT_ERR(clsort_tree_radius(cs, tree, pos, N, &rd, NULL, NULL), CLSORT_ERROR_INVALID_ARGUMENT, what[a]);
    }
    clsort_tree_destroy(tree);
    /* N-body: dt = 0 (nothing moves) with softening2 = FLT_MAX and G = FLT_MAX taken */
    memset(&nd, 0, sizeof nd);
    nd.dt = 0.0;
    nd.softening2 = FLT_MAX;
    nd.G = FLT_MAX;
    r = clsort_nbody(cs, pos, vel, N, &nd, NULL);
    check(r == CLSORT_SUCCESS, "finite floats: N-body softening2 and G = FLT_MAX taken", N, clsort_last_error(cs), 0,
          CLSORT_SUCCESS, r);
    nd.G = 0.0;
    nd.softening2 = 1e-2;
    nd.dt = -(double)FLT_MAX;
    r = clsort_nbody(cs, pos, vel, N, &nd, NULL);
    check(r == CLSORT_SUCCESS, "finite floats: N-body dt = -FLT_MAX taken", N, clsort_last_error(cs), 0,
          CLSORT_SUCCESS, r);
    nd.dt = 3.5e38; /* past FLT_MAX: no float holds it */
    EXPECT_ERR(clsort_nbody(cs, pos, vel, N, &nd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "finite floats: N-body dt 3.5e38 (past FLT_MAX) refused");
    nd.dt = 1e-3;
    nd.G = (double)inf;
    EXPECT_ERR(clsort_nbody(cs, pos, vel, N, &nd, NULL), CLSORT_ERROR_INVALID_ARGUMENT,
               "finite floats: N-body G = inf refused");
    clReleaseMemObject(pos);
    clReleaseMemObject(vel);
    clReleaseMemObject(dc);
}

static void api_messages(const test_env *e) { test_messages(e->cs); }
static void api_finite_floats(const test_env *e) { test_finite_floats(e->cs); }
static void api_limits(const test_env *e) { test_limits(e->cs); }
static void api_device_count_refusals(const test_env *e) { test_device_count_refusals(e->cs); }

/* ---- prepare covers the call: every family ---- */

/* clsort_prepare builds every program the calls it describes take: after
 * it, the call builds nothing (PREPARE). Each row is one call of a family
 * (device and host forms, the descriptor's options that pick programs: types,
 * values, permutations, in place, segments, methods, sizes that pick the
 * single-tile sort or multi-level passes), in a fresh context on the part's
 * path whose cache callbacks store nothing, so that clsort_cache_stats counts
 * every program made; the rows marked `budget` run under a loop budget
 * (the test hook loop_budget, as on llvmpipe), where some calls take other
 * kernels. Only the program counts are checked here: each family's part
 * checks the results. */
enum {
    PR_SCAN, PR_SCAN_F32_TOTAL, PR_SCAN_U64_IN_PLACE, PR_ENUMERATE_KEY_BIT, PR_PACK, PR_PACK_U8_VALUES, PR_PACK_BUDGET,
    PR_SPLIT_VALUES, PR_GATHER_1, PR_GATHER_12, PR_GATHER_32, PR_SORT_SINGLE, PR_SORT_KEYS, PR_SORT_U8, PR_SORT_U16,
    PR_SORT_PAIRS_I64, PR_SORT_PERM_VALUES, PR_SORT_IN_PLACE_ODD, PR_SORT_BUDGET, PR_BITONIC, PR_BITONIC_VALUES_PERM,
    PR_BITONIC_HOST_OFFSETS, PR_BITONIC_DEVICE_OFFSETS, PR_BITONIC_LENGTH, PR_BIN_SORT, PR_BIN_ATOMIC, PR_CELLS,
    PR_REDUCE, PR_REDUCE_BUDGET, PR_SEGSCAN_U8, PR_SEGSCAN_KEYS, PR_SEGSCAN_BUDGET, PR_SEGREDUCE_HOST, PR_SEGREDUCE_DEVICE, PR_BY_KEY,
    PR_RLE, PR_UNIQUE, PR_HISTOGRAM_U64, PR_HISTOGRAM_F32, PR_NBODY, PR_NBODY_ATOMIC, PR_NBODY_FP64, PR_NBODY_ACCEL,
    PR_NBODY_BH, PR_NBODY_BUDGET, PR_TREE_RADIUS_2D64, PR_TREE_ACCEL, PR_TREE_HOST, PR_TREE_COUNT, PR_TREE_BUDGET,
    PR_SELECT, PR_SELECT_U8_RANGE, PR_SELECT_COUNT, PR_SELECT_BUDGET, PR_SEARCH, PR_SEARCH_SORTED_U64, PR_SEARCH_HOST,
    PR_MERGE, PR_MERGE_U64_VALUES, PR_TOP_K, PR_TOP_K_SORTED_VALUES, PR_TOP_K_BUDGET, PR_ROWS
};

typedef struct prep_row {
    int id;
    clsort_family family;
    const char *what;
    size_t n;
    int budget; /* 1: under a loop budget of 4096 passes */
} prep_row;

static const prep_row prep_rows[PR_ROWS] = {
    {PR_SCAN, CLSORT_FAMILY_SCAN, "scan u32 (host)", 1000, 0},
    {PR_SCAN_F32_TOTAL, CLSORT_FAMILY_SCAN, "scan f32 inclusive with total, several levels", 300000, 0},
    {PR_SCAN_U64_IN_PLACE, CLSORT_FAMILY_SCAN, "scan u64 in place", 5000, 0},
    {PR_ENUMERATE_KEY_BIT, CLSORT_FAMILY_SPLIT, "enumerate by a bit of u64 keys", 5000, 0},
    {PR_PACK, CLSORT_FAMILY_SPLIT, "pack u32 (host)", 5000, 0},
    {PR_PACK_U8_VALUES, CLSORT_FAMILY_SPLIT, "pack by u8 flags, 8-byte values, count", 5000, 0},
    {PR_PACK_BUDGET, CLSORT_FAMILY_SPLIT, "pack u32 under a loop budget", 100000, 1},
    {PR_SPLIT_VALUES, CLSORT_FAMILY_SPLIT, "split u16 keys with values", 5000, 0},
    {PR_GATHER_1, CLSORT_FAMILY_GATHER, "gather 1-byte", 5000, 0},
    {PR_GATHER_12, CLSORT_FAMILY_GATHER, "gather 12-byte", 5000, 0},
    {PR_GATHER_32, CLSORT_FAMILY_GATHER, "gather 32-byte", 5000, 0},
    {PR_SORT_SINGLE, CLSORT_FAMILY_SORT, "sort u32, one tile (host)", 100, 0},
    {PR_SORT_KEYS, CLSORT_FAMILY_SORT, "sort u32 (host)", 100000, 0},
    {PR_SORT_U8, CLSORT_FAMILY_SORT, "sort u8 keys", 5000, 0},
    {PR_SORT_U16, CLSORT_FAMILY_SORT, "sort u16 keys", 5000, 0},
    {PR_SORT_PAIRS_I64, CLSORT_FAMILY_SORT, "sort i64 descending, 8-byte values (host)", 5000, 0},
    {PR_SORT_PERM_VALUES, CLSORT_FAMILY_SORT, "sort f32, permutation and 16-byte values in place", 5000, 0},
    {PR_SORT_IN_PLACE_ODD, CLSORT_FAMILY_SORT, "sort 24 bits in place (3 passes), 2-byte values", 5000, 0},
    {PR_SORT_BUDGET, CLSORT_FAMILY_SORT, "sort u32 pairs under a loop budget", 100000, 1},
    {PR_BITONIC, CLSORT_FAMILY_BITONIC, "bitonic f32 (host)", 5000, 0},
    {PR_BITONIC_VALUES_PERM, CLSORT_FAMILY_BITONIC, "bitonic u64, 8-byte values and permutation", 5000, 0},
    {PR_BITONIC_HOST_OFFSETS, CLSORT_FAMILY_BITONIC, "bitonic i32, host segment offsets", 5000, 0},
    {PR_BITONIC_DEVICE_OFFSETS, CLSORT_FAMILY_BITONIC, "bitonic u32, device segment offsets", 5000, 0},
    {PR_BITONIC_LENGTH, CLSORT_FAMILY_BITONIC, "bitonic i64 descending, equal segments", 5000, 0},
    {PR_BIN_SORT, CLSORT_FAMILY_BINNING, "bin, sort method, 12-byte attribute", 5000, 0},
    {PR_BIN_ATOMIC, CLSORT_FAMILY_BINNING, "bin, atomic method, 4-byte attribute in place", 5000, 0},
    {PR_CELLS, CLSORT_FAMILY_BINNING, "cell keys and cell offsets", 5000, 0},
    {PR_REDUCE, CLSORT_FAMILY_REDUCE, "reduce f32 max (host)", 5000, 0},
    {PR_REDUCE_BUDGET, CLSORT_FAMILY_REDUCE, "reduce u32 sum under a loop budget", 300000, 1},
    {PR_SEGSCAN_U8, CLSORT_FAMILY_REDUCE, "segmented scan, u8 flags (host)", 5000, 0},
    {PR_SEGSCAN_KEYS, CLSORT_FAMILY_REDUCE, "segmented scan i64 by u64 keys, inclusive, in place", 5000, 0},
    {PR_SEGSCAN_BUDGET, CLSORT_FAMILY_REDUCE, "segmented scan u32 flags under a loop budget", 100000, 1},
    {PR_SEGREDUCE_HOST, CLSORT_FAMILY_REDUCE, "segmented reduce, host offsets (host)", 5000, 0},
    {PR_SEGREDUCE_DEVICE, CLSORT_FAMILY_REDUCE, "segmented reduce u32 min, device offsets", 5000, 0},
    {PR_BY_KEY, CLSORT_FAMILY_REDUCE, "reduce by key, u64 keys, f32 sums (host)", 5000, 0},
    {PR_RLE, CLSORT_FAMILY_REDUCE, "run-length encode i32 keys (host)", 5000, 0},
    {PR_UNIQUE, CLSORT_FAMILY_REDUCE, "unique u32 with 8-byte values, device count", 5000, 0},
    {PR_HISTOGRAM_U64, CLSORT_FAMILY_REDUCE, "histogram u64, 10 bins (host)", 5000, 0},
    {PR_HISTOGRAM_F32, CLSORT_FAMILY_REDUCE, "histogram f32, 7 bins", 5000, 0},
    {PR_NBODY, CLSORT_FAMILY_NBODY, "N-body tiled", 1000, 0},
    {PR_NBODY_ATOMIC, CLSORT_FAMILY_NBODY, "N-body atomic, tutorial integrator", 1000, 0},
    {PR_NBODY_FP64, CLSORT_FAMILY_NBODY, "N-body fp64", 1000, 0},
    {PR_NBODY_ACCEL, CLSORT_FAMILY_NBODY, "N-body accelerations", 1000, 0},
    {PR_NBODY_BH, CLSORT_FAMILY_NBODY, "N-body Barnes-Hut", 3000, 0},
    {PR_NBODY_BUDGET, CLSORT_FAMILY_NBODY, "N-body tiled under a loop budget", 3000, 1},
    {PR_TREE_RADIUS_2D64, CLSORT_FAMILY_TREE, "tree 2D, 64-bit codes, given box, radius with lists", 3000, 0},
    {PR_TREE_ACCEL, CLSORT_FAMILY_TREE, "tree 3D with masses, Barnes-Hut", 3000, 0},
    {PR_TREE_HOST, CLSORT_FAMILY_TREE, "tree host forms (accelerations, radius)", 3000, 0},
    {PR_TREE_COUNT, CLSORT_FAMILY_TREE, "tree with a device count, radius", 3000, 0},
    {PR_TREE_BUDGET, CLSORT_FAMILY_TREE, "tree with masses, Barnes-Hut under a loop budget", 3000, 1},
    {PR_SELECT, CLSORT_FAMILY_SELECT, "select u32 greater (host)", 5000, 0},
    {PR_SELECT_U8_RANGE, CLSORT_FAMILY_SELECT, "select u8 in range, 8-byte values", 5000, 0},
    {PR_SELECT_COUNT, CLSORT_FAMILY_SELECT, "select f32 with device counts", 5000, 0},
    {PR_SELECT_BUDGET, CLSORT_FAMILY_SELECT, "select u32 under a loop budget", 100000, 1},
    {PR_SEARCH, CLSORT_FAMILY_SEARCH, "lower_bound u32, device count", 5000, 0},
    {PR_SEARCH_SORTED_U64, CLSORT_FAMILY_SEARCH, "upper_bound sorted needles, uint64 results (merge path)", 5000, 0},
    {PR_SEARCH_HOST, CLSORT_FAMILY_SEARCH, "lower_bound_host i16 sorted needles, far fewer than the keys", 100000, 0},
    {PR_MERGE, CLSORT_FAMILY_MERGE, "merge u32 (host)", 5000, 0},
    {PR_MERGE_U64_VALUES, CLSORT_FAMILY_MERGE, "merge u64 descending, 8-byte values", 5000, 0},
    {PR_TOP_K, CLSORT_FAMILY_TOP_K, "top_k u32 smallest (host)", 5000, 0},
    {PR_TOP_K_SORTED_VALUES, CLSORT_FAMILY_TOP_K, "top_k f32 largest, sorted, 4-byte values", 5000, 0},
    {PR_TOP_K_BUDGET, CLSORT_FAMILY_TOP_K, "top_k u32 sorted under a loop budget", 100000, 1},
};

/* The inputs every row draws from (cap elements): random words (8 per
 * element), zeros (8 words per element), 0/1 flags as u32 and u8, keys
 * i / 3 (nondecreasing, below n: also gather indices), float4 positions in
 * [0, 1) with unit masses, nseg segments' offsets for the largest n. */
typedef struct prep_data {
    size_t cap;
    uint32_t *words, *zeros, *flags32, *keys32, *offs;
    uint8_t *flags8;
    float *pos;
    size_t nseg;
} prep_data;

/* Row r's clsort_prepare (run = 0) or its calls (run = 1), with the same
 * descriptors; every call's result must be CLSORT_SUCCESS. */
static clsort_result prep_row_call(clsort_context *cs, const prep_row *row, const prep_data *pd, int run)
{
    const size_t n = row->n;
    clsort_prepare_call call;
    clsort_prepare_desc pdesc;
    clsort_scan_desc scd;
    clsort_split_desc spd;
    clsort_sort_desc sod;
    clsort_bitonic_desc bid;
    clsort_bin_desc bnd;
    clsort_attribute at;
    clsort_reduce_desc rd;
    clsort_by_key_desc kd;
    clsort_histogram_desc hd;
    clsort_nbody_desc nd;
    clsort_tree_desc td;
    clsort_tree_radius_desc trd;
    clsort_select_desc sed;
    clsort_search_desc srd;
    clsort_merge_desc med;
    clsort_top_k_desc tkd;
    clsort_enqueue enq;
    cl_mem m[8] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    const uint32_t half = (uint32_t)(n / 2);
    void *h = malloc(n * 64 + 1024), *h2 = malloc(n * 64 + 1024), *h3 = malloc(n * 64 + 1024);
    const uint32_t bound = 0x80000000u;
    const uint8_t lo8 = 10, hi8 = 200;
    const float fb = 0.5f;
    clsort_tree *tree = NULL;
    size_t cnt = 0, i;
    clsort_result r = CLSORT_SUCCESS;
    int k;
    memset(&call, 0, sizeof call);
    memset(&pdesc, 0, sizeof pdesc);
    memset(&scd, 0, sizeof scd), memset(&spd, 0, sizeof spd), memset(&sod, 0, sizeof sod);
    memset(&bid, 0, sizeof bid), memset(&bnd, 0, sizeof bnd), memset(&at, 0, sizeof at);
    memset(&rd, 0, sizeof rd), memset(&kd, 0, sizeof kd), memset(&hd, 0, sizeof hd);
    memset(&nd, 0, sizeof nd), memset(&td, 0, sizeof td), memset(&trd, 0, sizeof trd);
    memset(&sed, 0, sizeof sed), memset(&enq, 0, sizeof enq), memset(&srd, 0, sizeof srd);
    memset(&med, 0, sizeof med), memset(&tkd, 0, sizeof tkd);
    if (!h || !h2 || !h3) {
        free(h), free(h2), free(h3);
        return CLSORT_ERROR_OUT_OF_HOST_MEMORY;
    }
    memcpy(h, pd->words, n * 32);
    call.n = n;
    pdesc.calls = &call;
    pdesc.count = 1;
    /* run = 1: the buffers a device-level call takes (every row makes the
     * same: 32 bytes per element of random words, positions and zeros, the
     * flags, the segment offsets, the keys, a device count of n / 2) */
    if (run) {
        m[0] = buffer(cs, n * 32 + 64, pd->words);
        m[1] = buffer(cs, n * 32 + 64, pd->zeros);
        m[2] = buffer(cs, n * 32 + 64, pd->pos);
        m[3] = buffer(cs, n * 32 + 64, pd->zeros);
        m[4] = buffer(cs, n * 4 + 64, pd->flags32);
        m[5] = buffer(cs, (pd->nseg + 1) * 4, pd->offs);
        m[6] = buffer(cs, n * 4 + 64, pd->keys32);
        m[7] = buffer(cs, 4, &half);
    }
    switch (row->id) {
    case PR_SCAN:
        call.op = CLSORT_PREPARE_SCAN;
        if (run) r = clsort_scan_host(cs, CLSORT_U32, 0, h, h2, n, NULL);
        break;
    case PR_SCAN_F32_TOTAL:
        call.op = CLSORT_PREPARE_SCAN, scd.type = CLSORT_F32, scd.inclusive = 1, call.scan = &scd;
        if (run) scd.total = m[3], r = clsort_scan(cs, m[2], m[1], n, &scd, NULL);
        break;
    case PR_SCAN_U64_IN_PLACE:
        call.op = CLSORT_PREPARE_SCAN, scd.type = CLSORT_U64, call.scan = &scd;
        if (run) r = clsort_scan(cs, m[0], m[0], n, &scd, NULL);
        break;
    case PR_ENUMERATE_KEY_BIT:
        call.op = CLSORT_PREPARE_SPLIT, spd.type = CLSORT_U64, spd.flags_kind = CLSORT_FLAGS_KEY_BIT, spd.bit = 40;
        call.split = &spd;
        if (run) r = clsort_enumerate(cs, m[0], m[1], n, &spd, &cnt, NULL);
        break;
    case PR_PACK:
    case PR_PACK_BUDGET:
        call.op = CLSORT_PREPARE_SPLIT;
        if (run) r = clsort_pack_host(cs, CLSORT_U32, h, pd->flags32, h2, n, &cnt);
        break;
    case PR_PACK_U8_VALUES:
        call.op = CLSORT_PREPARE_SPLIT, spd.flags_kind = CLSORT_FLAGS_U8, spd.value_size = 8, call.split = &spd;
        spd.flags = spd.values_in = spd.values_out = spd.count = CLSORT_PREPARE_PRESENT;
        if (run) {
            spd.flags = m[4], spd.values_in = m[2], spd.values_out = m[3], spd.count = m[5];
            r = clsort_pack(cs, m[0], m[1], n, &spd, &cnt, NULL);
        }
        break;
    case PR_SPLIT_VALUES:
        call.op = CLSORT_PREPARE_SPLIT, spd.type = CLSORT_U16, spd.flags_kind = CLSORT_FLAGS_U32;
        spd.flags = spd.values_in = spd.values_out = CLSORT_PREPARE_PRESENT, call.split = &spd;
        if (run) {
            spd.flags = m[4], spd.values_in = m[2], spd.values_out = m[3];
            r = clsort_split(cs, m[0], m[1], n, &spd, &cnt, NULL);
        }
        break;
    case PR_GATHER_1:
    case PR_GATHER_12:
    case PR_GATHER_32:
        call.op = CLSORT_PREPARE_GATHER;
        if (run) {
            r = clsort_gather(cs, m[0], m[1], m[6], n, row->id == PR_GATHER_1 ? 1 : row->id == PR_GATHER_12 ? 12 : 32,
                              NULL);
        }
        break;
    case PR_SORT_SINGLE:
    case PR_SORT_KEYS:
        call.op = CLSORT_PREPARE_SORT;
        if (run) r = clsort_sort_host(cs, CLSORT_U32, h, NULL, NULL, n, NULL);
        break;
    case PR_SORT_U8:
    case PR_SORT_U16:
        call.op = CLSORT_PREPARE_SORT, sod.type = row->id == PR_SORT_U8 ? CLSORT_U8 : CLSORT_U16, call.sort = &sod;
        if (run) r = clsort_sort(cs, m[0], m[1], n, &sod, NULL);
        break;
    case PR_SORT_PAIRS_I64:
        call.op = CLSORT_PREPARE_SORT, sod.type = CLSORT_I64, sod.descending = 1, sod.value_size = 8;
        sod.values_in = sod.values_out = CLSORT_PREPARE_PRESENT, call.sort = &sod;
        if (run) r = clsort_sort_host(cs, CLSORT_I64, h, h2, NULL, n, &sod);
        break;
    case PR_SORT_PERM_VALUES:
        call.op = CLSORT_PREPARE_SORT, sod.type = CLSORT_F32, sod.value_size = 16;
        sod.values_in = sod.values_out = sod.permutation = CLSORT_PREPARE_PRESENT, call.sort = &sod;
        if (run) {
            sod.values_in = sod.values_out = m[2], sod.permutation = m[3];
            r = clsort_sort(cs, m[0], m[1], n, &sod, NULL);
        }
        break;
    case PR_SORT_IN_PLACE_ODD:
        call.op = CLSORT_PREPARE_SORT, sod.end_bit = 24, sod.value_size = 2;
        sod.values_in = sod.values_out = CLSORT_PREPARE_PRESENT, call.sort = &sod;
        if (run) sod.values_in = sod.values_out = m[2], r = clsort_sort(cs, m[0], m[0], n, &sod, NULL);
        break;
    case PR_SORT_BUDGET:
        call.op = CLSORT_PREPARE_SORT, sod.values_in = sod.values_out = CLSORT_PREPARE_PRESENT, call.sort = &sod;
        if (run) r = clsort_sort_host(cs, CLSORT_U32, h, h2, NULL, n, &sod);
        break;
    case PR_BITONIC:
        call.op = CLSORT_PREPARE_BITONIC, bid.type = CLSORT_F32, call.bitonic = &bid;
        if (run) memcpy(h, pd->pos, n * 4), r = clsort_bitonic_sort_host(cs, CLSORT_F32, h, NULL, NULL, n, &bid);
        break;
    case PR_BITONIC_VALUES_PERM:
        call.op = CLSORT_PREPARE_BITONIC, bid.type = CLSORT_U64, bid.value_size = 8;
        bid.values_in = bid.values_out = bid.permutation = CLSORT_PREPARE_PRESENT, call.bitonic = &bid;
        if (run) {
            bid.values_in = m[2], bid.values_out = m[3], bid.permutation = m[1];
            r = clsort_bitonic_sort(cs, m[0], m[0], n, &bid, NULL);
        }
        break;
    case PR_BITONIC_HOST_OFFSETS:
        call.op = CLSORT_PREPARE_BITONIC, bid.type = CLSORT_I32, bid.segment_offsets_host = pd->offs;
        bid.segment_count = pd->nseg, call.bitonic = &bid;
        if (run) r = clsort_bitonic_sort_host(cs, CLSORT_I32, h, NULL, NULL, n, &bid);
        break;
    case PR_BITONIC_DEVICE_OFFSETS:
        call.op = CLSORT_PREPARE_BITONIC, bid.segment_offsets = CLSORT_PREPARE_PRESENT, bid.segment_count = pd->nseg;
        call.bitonic = &bid;
        if (run) bid.segment_offsets = m[5], r = clsort_bitonic_sort(cs, m[0], m[1], n, &bid, NULL);
        break;
    case PR_BITONIC_LENGTH:
        call.op = CLSORT_PREPARE_BITONIC, bid.type = CLSORT_I64, bid.descending = 1, bid.segment_length = n / 8;
        call.bitonic = &bid;
        if (run) r = clsort_bitonic_sort(cs, m[0], m[1], n, &bid, NULL);
        break;
    case PR_BIN_SORT:
    case PR_BIN_ATOMIC:
    case PR_CELLS:
        call.op = CLSORT_PREPARE_BINNING, call.bin = &bnd;
        bnd.grid.dims = 3, bnd.grid.stride = 16, bnd.grid.order = CLSORT_CELL_MORTON;
        for (k = 0; k < 3; ++k) bnd.grid.cells[k] = 16, bnd.grid.cell_size[k] = 1.0f / 16;
        bnd.method = row->id == PR_BIN_ATOMIC ? CLSORT_BIN_ATOMIC : CLSORT_BIN_SORT;
        at.elem_size = row->id == PR_BIN_ATOMIC ? 4 : 12;
        at.src = at.dst = CLSORT_PREPARE_PRESENT;
        if (row->id != PR_CELLS) bnd.attributes = &at, bnd.attribute_count = 1;
        if (run && row->id == PR_CELLS) {
            r = clsort_cell_keys(cs, m[2], m[1], n, &bnd.grid, NULL);
            if (r == CLSORT_SUCCESS) r = clsort_cell_offsets(cs, m[6], n, 4096, m[3], NULL);
        } else if (run) {
            at.src = m[0], at.dst = row->id == PR_BIN_ATOMIC ? m[0] : m[1], bnd.permutation = m[3];
            r = clsort_bin(cs, m[2], n, &bnd, NULL);
        }
        break;
    case PR_REDUCE:
        call.op = CLSORT_PREPARE_REDUCE, rd.type = CLSORT_F32, rd.op = CLSORT_OP_MAX, call.reduce = &rd;
        if (run) r = clsort_reduce_host(cs, CLSORT_F32, CLSORT_OP_MAX, pd->pos, n, h2);
        break;
    case PR_REDUCE_BUDGET:
        call.op = CLSORT_PREPARE_REDUCE;
        if (run) r = clsort_reduce_host(cs, CLSORT_U32, CLSORT_OP_SUM, pd->words, n, h2);
        break;
    case PR_SEGSCAN_U8:
        call.op = CLSORT_PREPARE_REDUCE, call.reduce_fn = CLSORT_REDUCE_FN_SEGMENTED_SCAN, call.reduce = &rd;
        rd.segments = CLSORT_SEGMENTS_FLAGS_U8;
        if (run) rd.segment_data_host = pd->flags8, r = clsort_segmented_scan_host(cs, CLSORT_U32, h, h2, n, &rd);
        break;
    case PR_SEGSCAN_KEYS:
        call.op = CLSORT_PREPARE_REDUCE, call.reduce_fn = CLSORT_REDUCE_FN_SEGMENTED_SCAN, call.reduce = &rd;
        rd.type = CLSORT_I64, rd.segments = CLSORT_SEGMENTS_KEYS, rd.key_type = CLSORT_U64, rd.inclusive = 1;
        rd.segment_data = CLSORT_PREPARE_PRESENT;
        if (run) rd.segment_data = m[1], r = clsort_segmented_scan(cs, m[0], m[0], n, &rd, NULL);
        break;
    case PR_SEGSCAN_BUDGET:
        call.op = CLSORT_PREPARE_REDUCE, call.reduce_fn = CLSORT_REDUCE_FN_SEGMENTED_SCAN, call.reduce = &rd;
        rd.segments = CLSORT_SEGMENTS_FLAGS_U32;
        if (run) rd.segment_data_host = pd->flags32, r = clsort_segmented_scan_host(cs, CLSORT_U32, h, h2, n, &rd);
        break;
    case PR_SEGREDUCE_HOST:
    case PR_SEGREDUCE_DEVICE:
        call.op = CLSORT_PREPARE_REDUCE, call.reduce_fn = CLSORT_REDUCE_FN_SEGMENTED_REDUCE, call.reduce = &rd;
        rd.segments = CLSORT_SEGMENTS_OFFSETS, rd.segment_count = pd->nseg;
        if (row->id == PR_SEGREDUCE_DEVICE) rd.op = CLSORT_OP_MIN, rd.segment_data = CLSORT_PREPARE_PRESENT;
        else rd.segment_data_host = pd->offs;
        if (run && row->id == PR_SEGREDUCE_DEVICE)
            rd.segment_data = m[5], r = clsort_segmented_reduce(cs, m[0], m[1], n, &rd, NULL);
        else if (run)
            r = clsort_segmented_reduce_host(cs, CLSORT_U32, h, h2, n, &rd);
        break;
    case PR_BY_KEY:
        call.op = CLSORT_PREPARE_REDUCE, call.reduce_fn = CLSORT_REDUCE_FN_REDUCE_BY_KEY, call.by_key = &kd;
        kd.key_type = CLSORT_U64, kd.type = CLSORT_F32;
        if (run) r = clsort_reduce_by_key_host(cs, CLSORT_U64, CLSORT_F32, pd->keys32, pd->pos, h2, h3, n / 2, &kd, &cnt);
        break;
    case PR_RLE:
        call.op = CLSORT_PREPARE_REDUCE, call.reduce_fn = CLSORT_REDUCE_FN_RUN_LENGTH_ENCODE, call.by_key = &kd;
        kd.key_type = CLSORT_I32;
        if (run) r = clsort_run_length_encode_host(cs, CLSORT_I32, pd->flags32, h2, (uint32_t *)h3, n, &kd, &cnt);
        break;
    case PR_UNIQUE:
        call.op = CLSORT_PREPARE_REDUCE, call.reduce_fn = CLSORT_REDUCE_FN_UNIQUE, call.by_key = &kd;
        kd.value_size = 8, kd.values_in = kd.values_out = kd.count = CLSORT_PREPARE_PRESENT;
        if (run) {
            kd.values_in = m[2], kd.values_out = m[3], kd.count = m[5];
            enq.count = m[7];
            r = clsort_unique(cs, m[0], m[1], n, &kd, NULL, &enq);
        }
        break;
    case PR_HISTOGRAM_U64:
    case PR_HISTOGRAM_F32:
        call.op = CLSORT_PREPARE_REDUCE, call.reduce_fn = CLSORT_REDUCE_FN_HISTOGRAM, call.histogram = &hd;
        hd.type = row->id == PR_HISTOGRAM_U64 ? CLSORT_U64 : CLSORT_F32;
        hd.bins = row->id == PR_HISTOGRAM_U64 ? 10 : 7, hd.lower_int = 0, hd.upper_int = 1000000007;
        hd.lower = 0.0, hd.upper = 1.0;
        if (run && row->id == PR_HISTOGRAM_U64) r = clsort_histogram_even_host(cs, CLSORT_U64, h, n, (uint32_t *)h2, &hd);
        else if (run) r = clsort_histogram_even(cs, m[2], n, m[1], &hd, NULL);
        break;
    case PR_NBODY:
    case PR_NBODY_ATOMIC:
    case PR_NBODY_FP64:
    case PR_NBODY_ACCEL:
    case PR_NBODY_BH:
    case PR_NBODY_BUDGET:
        call.op = CLSORT_PREPARE_NBODY, call.nbody = &nd;
        nd.dt = 0.001, nd.softening2 = 0.01;
        if (row->id == PR_NBODY_ATOMIC) nd.method = CLSORT_NBODY_ATOMIC, nd.integrator = CLSORT_NBODY_TUTORIAL;
        if (row->id == PR_NBODY_FP64) nd.fp64 = 1;
        if (row->id == PR_NBODY_BH) nd.method = CLSORT_NBODY_BARNES_HUT, nd.theta = 0.7;
        if (run && row->id == PR_NBODY_FP64) {
            double *p = (double *)h;
            for (i = 0; i < 4 * n; ++i) p[i] = pd->pos[i];
            clReleaseMemObject(m[0]);
            m[0] = buffer(cs, n * 32 + 64, p);
            r = clsort_nbody(cs, m[0], m[3], n, &nd, NULL);
        } else if (run && row->id == PR_NBODY_ACCEL) {
            r = clsort_nbody_accel(cs, m[2], m[3], n, &nd, NULL);
        } else if (run) {
            r = clsort_nbody(cs, m[2], m[3], n, &nd, NULL);
        }
        break;
    case PR_TREE_RADIUS_2D64:
    case PR_TREE_ACCEL:
    case PR_TREE_HOST:
    case PR_TREE_COUNT:
    case PR_TREE_BUDGET:
        call.op = CLSORT_PREPARE_TREE, call.tree = &td;
        if (row->id == PR_TREE_RADIUS_2D64) {
            td.dims = 2, td.code_bits = 64, td.box_given = 1, td.box_hi[0] = td.box_hi[1] = 1.0f;
        } else if (row->id != PR_TREE_COUNT) {
            td.has_mass = 1, td.mass_offset = 12;
        }
        if (!run) break;
        if (row->id == PR_TREE_HOST) {
            r = clsort_tree_accel_host(cs, pd->pos, n, (float *)h2, &nd);
            if (r == CLSORT_SUCCESS)
                r = clsort_tree_radius_host(cs, pd->pos, n, pd->pos, n / 4, 0.05f, NULL, (uint32_t *)h2, (uint32_t *)h3,
                                            (uint32_t *)h, n * 16, &cnt);
            break;
        }
        r = clsort_tree_create(cs, &tree);
        if (r == CLSORT_SUCCESS && row->id == PR_TREE_COUNT) enq.count = m[7];
        if (r == CLSORT_SUCCESS) r = clsort_tree_build(cs, tree, m[2], n, &td, row->id == PR_TREE_COUNT ? &enq : NULL);
        if (r == CLSORT_SUCCESS && (row->id == PR_TREE_ACCEL || row->id == PR_TREE_BUDGET)) {
            nd.softening2 = 0.01;
            r = clsort_tree_accel(cs, tree, m[3], &nd, NULL);
        } else if (r == CLSORT_SUCCESS) {
            trd.radius = td.dims == 2 ? 0.01f : 0.05f, trd.counts = m[1], trd.offsets = m[3], trd.indices = m[0], trd.capacity = n * 8;
            r = clsort_tree_radius(cs, tree, m[2], n, &trd, &cnt, NULL);
        }
        break;
    case PR_SELECT:
    case PR_SELECT_BUDGET:
        call.op = CLSORT_PREPARE_SELECT, sed.compare = CLSORT_COMPARE_GREATER, call.select = &sed;
        if (run) sed.a = &bound, r = clsort_select_if_host(cs, CLSORT_U32, h, NULL, h2, NULL, n, &sed, &cnt);
        break;
    case PR_SELECT_U8_RANGE:
        call.op = CLSORT_PREPARE_SELECT, sed.type = CLSORT_U8, sed.compare = CLSORT_COMPARE_IN_RANGE, sed.value_size = 8;
        sed.values_in = sed.values_out = CLSORT_PREPARE_PRESENT, call.select = &sed;
        if (run) {
            sed.a = &lo8, sed.b = &hi8, sed.values_in = m[2], sed.values_out = m[3];
            r = clsort_select_if(cs, m[0], m[1], n, &sed, &cnt, NULL);
        }
        break;
    case PR_SELECT_COUNT:
        call.op = CLSORT_PREPARE_SELECT, sed.type = CLSORT_F32, sed.count = CLSORT_PREPARE_PRESENT, call.select = &sed;
        if (run) {
            sed.a = &fb, sed.count = m[4], enq.count = m[7];
            r = clsort_select_if(cs, m[2], m[1], n, &sed, NULL, &enq);
        }
        break;
    case PR_SEARCH: /* the keys i / 3 (sorted), random needles */
        call.op = CLSORT_PREPARE_SEARCH, call.search = &srd;
        if (run) enq.count = m[7], r = clsort_lower_bound(cs, m[6], n, m[0], n, m[1], &srd, &enq);
        break;
    case PR_SEARCH_SORTED_U64:
        call.op = CLSORT_PREPARE_SEARCH, srd.sorted_needles = 1, srd.index_size = 8, call.search = &srd;
        if (run) r = clsort_upper_bound(cs, m[6], n, m[6], n, m[1], &srd, NULL);
        break;
    case PR_SEARCH_HOST: /* 100000 keys, 100 needles: the binary search serves the sorted needles */
        call.op = CLSORT_PREPARE_SEARCH, srd.type = CLSORT_I16, srd.sorted_needles = 1, call.search = &srd;
        call.n = 100;
        for (i = 0; i < n; ++i) ((int16_t *)h2)[i] = (int16_t)(i / 8);
        if (run) r = clsort_lower_bound_host(cs, CLSORT_I16, h2, n, h2, 100, h3, &srd);
        break;
    case PR_MERGE: /* the nondecreasing keys, merged with themselves */
        call.op = CLSORT_PREPARE_MERGE, call.merge = &med;
        if (run) r = clsort_merge_host(cs, CLSORT_U32, pd->keys32, NULL, n / 2, pd->keys32, NULL, n - n / 2, h2, NULL, &med);
        break;
    case PR_MERGE_U64_VALUES: /* zeros: sorted either way */
        call.op = CLSORT_PREPARE_MERGE, med.type = CLSORT_U64, med.descending = 1, med.value_size = 8;
        med.values_a = med.values_b = med.values_out = CLSORT_PREPARE_PRESENT, call.merge = &med;
        if (run) {
            med.values_a = med.values_b = m[0], med.values_out = m[3];
            r = clsort_merge(cs, m[1], n / 2, m[1], n - n / 2, m[2], &med, NULL);
        }
        break;
    case PR_TOP_K:
        call.op = CLSORT_PREPARE_TOP_K, tkd.k = n / 10, call.top_k = &tkd;
        if (run) r = clsort_top_k_host(cs, CLSORT_U32, h, NULL, n, h2, NULL, &tkd);
        break;
    case PR_TOP_K_SORTED_VALUES:
    case PR_TOP_K_BUDGET:
        call.op = CLSORT_PREPARE_TOP_K, tkd.k = n / 10, tkd.sorted = 1, call.top_k = &tkd;
        if (row->id == PR_TOP_K_SORTED_VALUES) tkd.type = CLSORT_F32, tkd.descending = 1;
        tkd.values_in = tkd.values_out = CLSORT_PREPARE_PRESENT;
        if (run) {
            tkd.values_in = m[0], tkd.values_out = m[3];
            r = clsort_top_k(cs, m[2], m[1], n, &tkd, NULL);
        }
        break;
    default:
        r = CLSORT_ERROR_INVALID_ARGUMENT;
    }
    if (!run && r == CLSORT_SUCCESS) r = clsort_prepare(cs, &pdesc);
    if (run && r == CLSORT_SUCCESS && clFinish(clsort_cl_queue(cs)) != CL_SUCCESS) r = CLSORT_ERROR_OPENCL;
    if (tree) clsort_tree_destroy(tree);
    for (k = 0; k < 8; ++k)
        if (m[k]) clReleaseMemObject(m[k]);
    free(h), free(h2), free(h3);
    return r;
}

static void api_prepare_covers(const test_env *e)
{
    prep_data pd;
    size_t cap = 0, i;
    int row, fp64;
    char ext[4096] = "";
    clGetDeviceInfo(clsort_cl_device(e->cs), CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext, NULL);
    fp64 = strstr(ext, "cl_khr_fp64") != NULL;
    for (row = 0; row < PR_ROWS; ++row)
        if (prep_rows[row].n > cap) cap = prep_rows[row].n;
    memset(&pd, 0, sizeof pd);
    pd.cap = cap;
    pd.nseg = 37;
    /* each array as long as the buffers made from it (prep_row_call: n * 32 + 64
     * bytes, n * 4 + 64), n <= cap; the tails past the data are zeros */
    pd.words = (uint32_t *)calloc(cap * 8 + 16, 4);
    pd.zeros = (uint32_t *)calloc(cap * 8 + 16, 4);
    pd.flags32 = (uint32_t *)calloc(cap + 16, 4);
    pd.flags8 = (uint8_t *)malloc(cap);
    pd.keys32 = (uint32_t *)calloc(cap + 16, 4);
    pd.pos = (float *)calloc(cap * 8 + 16, 4);
    pd.offs = (uint32_t *)malloc((pd.nseg + 1) * 4);
    if (!pd.words || !pd.zeros || !pd.flags32 || !pd.flags8 || !pd.keys32 || !pd.pos || !pd.offs) {
        check(0, "prepare covers: host memory", cap, "-", 0, 0, 0);
        goto done;
    }
    for (i = 0; i < cap * 8; ++i) pd.words[i] = (uint32_t)rnd64();
    for (i = 0; i < cap; ++i) {
        pd.flags32[i] = (uint32_t)(rnd64() & 1);
        pd.flags8[i] = (uint8_t)pd.flags32[i];
        pd.keys32[i] = (uint32_t)(i / 3);
        pd.pos[4 * i] = (float)((double)(rnd64() >> 11) / 9007199254740992.0);
        pd.pos[4 * i + 1] = (float)((double)(rnd64() >> 11) / 9007199254740992.0);
        pd.pos[4 * i + 2] = (float)((double)(rnd64() >> 11) / 9007199254740992.0);
        pd.pos[4 * i + 3] = 1.0f;
    }
    for (row = 0; row < PR_ROWS; ++row) {
        const prep_row *pr = &prep_rows[row];
        clsort_context *cs;
        clsort_cache_stats st;
        unsigned long prepared;
        clsort_result r;
        char what[200];
        if (pr->id != row) {
            check(0, "prepare covers: the rows in the order of their ids", (size_t)row, pr->what, 0, row, pr->id);
            continue;
        }
        if (pr->id == PR_NBODY_FP64 && !fp64) continue; /* refused there (the nbody part checks the refusal) */
        for (i = 0; i <= pd.nseg; ++i) pd.offs[i] = (uint32_t)(i * pr->n / pd.nseg);
        cs = counting_context(e->cs, e->path, pr->budget ? 4096 : 0,
                              "prepare covers: a context with counting cache callbacks");
        if (!cs) continue;
        r = prep_row_call(cs, pr, &pd, 0);
        snprintf(what, sizeof what, "clsort_prepare(%s): %s", clsort_family_name(pr->family), pr->what);
        check(r == CLSORT_SUCCESS, what, pr->n, clsort_last_error(cs), 0, CLSORT_SUCCESS, r);
        clsort_cache_stats_get(cs, &st);
        prepared = st.builds + st.hits;
        r = prep_row_call(cs, pr, &pd, 1);
        snprintf(what, sizeof what, "the call after prepare (%s): %s", clsort_family_name(pr->family), pr->what);
        check(r == CLSORT_SUCCESS, what, pr->n, clsort_last_error(cs), 0, CLSORT_SUCCESS, r);
        clsort_cache_stats_get(cs, &st);
        snprintf(what, sizeof what, "prepare covers the call (%s): %s%s: programs made by prepare, then in all",
                 clsort_family_name(pr->family), pr->what, pr->budget ? " (loop budget 4096)" : "");
        check(st.enabled && prepared > 0 && st.builds + st.hits == prepared, what, pr->n, "-", 0, (double)prepared,
              (double)(st.builds + st.hits));
        clsort_destroy(cs);
    }
done:
    free(pd.words), free(pd.zeros), free(pd.flags32), free(pd.flags8), free(pd.keys32), free(pd.pos), free(pd.offs);
}

static const test_case api_cases[] = {
    {"scan and split bad arguments", api_bad_arguments, ON_BOTH, ANY_SIZE},
    {"events", api_events, ON_BOTH, ANY_SIZE},
    {"host level", api_host_level, ON_BOTH, ANY_SIZE},
    {"host types: no descriptor sorts every key type", api_host_types_sort, ON_PORTABLE, NOT_TINY},
    {"host types: a conflicting descriptor type", api_host_types_conflict, ON_PORTABLE, ANY_SIZE},
    {"contexts, queues, tunings", api_contexts, ON_BOTH, ANY_SIZE},
    {"argument table", api_argument_table, ON_BOTH, ANY_SIZE},
    {"no wait on the host: every row with a user event", api_no_wait_rows, ON_BOTH, NOT_TINY},
    {"aliasing", api_aliasing, ON_BOTH, ANY_SIZE},
    {"messages", api_messages, ON_BOTH, ANY_SIZE},
    {"finite floats: FLT_MAX taken, infinities and NaN refused", api_finite_floats, ON_PORTABLE, ANY_SIZE},
    {"limits", api_limits, ON_BOTH, ANY_SIZE},
    {"device counts: the calls that take none refuse enq->count", api_device_count_refusals, ON_BOTH, ANY_SIZE},
    {"prepare covers the call: every family", api_prepare_covers, ON_BOTH, LIMITS_NOT_TINY},
};
static const test_part api_part = TEST_PART(api, "arguments, events, host level, contexts, messages, limits", CTX_SHARED, 3);
