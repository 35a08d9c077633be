#!/bin/sh
# N-body on the GPU machine, from the project root, nothing built there:
# the seed tutorial's kernel as published (build/seed_nbody, from `make seed`),
# clsort's automatic shape with every row (f32, native rsqrt, f64, atomic
# Newton-3), then a sweep of kernel shapes CLSORT_NBODY="wg:ib:js[:n]" on the
# f32 row, and the best shape per N. Output: $OUT (default /tmp).
#   sh bench/nbody_gpu.sh [log2 N...]      default: 14 16 18
set -u
sizes=${*:-"14 16 18"}
out=${OUT:-/tmp}
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia}
[ -x build/seed_nbody ] && ./build/seed_nbody NVIDIA | tee "$out/nbody_seed.txt"
BENCH_RUNS=${BENCH_RUNS:-9} BENCH_ONLY=nbody BENCH_NBODY_HOST_MAX=0 ./build/bench $sizes | tee "$out/nbody_auto.jsonl"
for shape in 128:1:1 256:1:1 512:1:1 1024:1:1 128:2:1 256:2:1 512:2:1 128:4:1 256:4:1 512:4:1 256:8:1 \
             256:1:2 256:1:4 256:1:8 256:1:16 256:2:2 256:2:4 256:2:8 256:4:2 256:4:4 \
             512:1:4 512:1:8 512:1:16 512:2:4 512:2:8 128:1:4 128:2:2 128:1:8 1024:1:16 1024:2:8 \
             256:1:1:n 256:2:1:n 256:4:1:n 256:1:8:n 256:2:4:n 256:2:1:f 256:1:8:f; do
    CLSORT_NBODY=$shape BENCH_RUNS=${BENCH_RUNS:-5} BENCH_ONLY=nbody BENCH_NBODY_HOST_MAX=0 \
        BENCH_NBODY_VARIANTS=f32_tiled, ./build/bench $sizes 2>/dev/null
done | tee "$out/nbody_sweep.jsonl"
python3 - "$out/nbody_auto.jsonl" "$out/nbody_sweep.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for f in sys.argv[1:] for l in open(f) if l.startswith("{")]
for n in sorted({r["n"] for r in rows}):
    auto = [r for r in rows if r["n"] == n and (r["shape"] == "auto" or r["shape"].startswith("0:0:0"))]
    for r in auto:
        print("N=%-7d %-24s %.3g interactions/s (auto shape)" % (n, r["variant"], r["items_per_s"]))
    sweep = sorted((r for r in rows if r["n"] == n and r not in auto and r["variant"] == "f32_tiled"),
                   key=lambda r: -r["items_per_s"])
    for r in sweep[:5]:
        print("N=%-7d f32_tiled shape %-12s %.3g interactions/s" % (n, r["shape"], r["items_per_s"]))
PY
