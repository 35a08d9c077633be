#!/bin/sh
# Tree phases and Barnes-Hut on the GPU machine (issue 21), from the project
# root; `.gpu` carried (see /work/shared/gpu/README.md). Prints one JSON line
# per N: keys (box + codes), sort, tree (points + radix tree), summaries, the
# whole clsort_tree_build call, the Barnes-Hut force pass at theta 0.5 and
# 0.3, and the all-pairs step (clsort_nbody_accel TILED) at 2^20 in the same
# run, with the BH RMS error against it. Output also in $OUT/tree_gpu.jsonl.
set -u
for f in .gpu/*.deb; do dpkg -x "$f" /; done; ldconfig
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
out=${OUT:-/tmp}
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia}
[ -x build/tree_bench ] || { echo "build/tree_bench missing: build it on the dev machine (make build/tree_bench) and carry it with .gpu"; exit 1; }
BENCH_RUNS=${BENCH_RUNS:-11} BENCH_ALLPAIRS_MAX=1048576 ./build/tree_bench 20 24 | tee "$out/tree_gpu.jsonl"
