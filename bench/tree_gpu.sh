#!/bin/sh
# Tree phases and Barnes-Hut on the GPU machine (issue 21), from the project
# root; `.gpu` carried (see /work/shared/gpu/README.md). Prints one JSON line
# per N (2^20, 2^24): keys (box + codes), sort, tree (points + radix tree),
# summaries, the whole clsort_tree_build call, the Barnes-Hut force pass at
# theta 0.5 and 0.3, one whole Barnes-Hut step's evaluation (build + walk),
# the interactions per body, and at 2^20 the all-pairs step (TILED) in the
# same run with the BH RMS / max relative errors against it; then the
# crossover sweep 2^10 .. 2^20 (BH step vs all-pairs, "bh_faster_from_n").
# Output also in $OUT/tree_gpu.jsonl.
set -u
. bench/gpu_setup.sh
out=${OUT:-/tmp}
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia}
[ -x build/tree_bench ] || { echo "build/tree_bench missing: build it on the dev machine (make build/tree_bench) and carry it"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
BENCH_RUNS=${BENCH_RUNS:-11} BENCH_ALLPAIRS_MAX=1048576 ./build/tree_bench 20 24 | tee "$out/tree_gpu.jsonl"
BENCH_RUNS=${BENCH_RUNS:-11} ./build/tree_bench x 10 20 | tee -a "$out/tree_gpu.jsonl"
# the example at its full size: 2^20 bodies, Barnes-Hut, 200 steps, PNG images to $OUT (carry build/galaxy)
[ -x build/galaxy ] && ./build/galaxy 1048576 200 50 "$out" | tee "$out/galaxy.log"
exit 0
