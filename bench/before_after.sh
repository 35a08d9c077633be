#!/bin/sh
# Two builds of clsort's bench side by side on the lent GPU machine, with CUB
# in the same command: the before/after figures of a change (bench/RESULTS.md).
#   sh bench/before_after.sh OLD_BENCH NEW_BENCH [log2 sizes...]   (default 20 24 28)
# Expects .gpu/ (carried) to hold the ICD loader .debs and cub_bench.
set -u
old=$1 new=$2
shift 2
sizes=${*:-"20 24 28"}
out=${OUT:-/tmp}
. bench/gpu_setup.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
only="scan,pack,sort,bitonic"
# interleaved: before, after, before, after (noise shows as the spread between the two rounds)
for round in 1 2; do
    CLSORT_DEVICE=nvidia BENCH_ONLY=$only BENCH_RUNS=11 "$old" $sizes > "$out/before$round.jsonl"
    CLSORT_DEVICE=nvidia BENCH_ONLY=$only BENCH_RUNS=11 "$new" $sizes > "$out/after$round.jsonl"
done
CLSORT_DEVICE=nvidia BENCH_ONLY=nbody BENCH_RUNS=9 BENCH_NBODY_VARIANTS=f32_tiled, "$old" 16 > "$out/before_nbody.jsonl"
CLSORT_DEVICE=nvidia BENCH_ONLY=nbody BENCH_RUNS=9 BENCH_NBODY_VARIANTS=f32_tiled, "$new" 16 > "$out/after_nbody.jsonl"
[ -x .gpu/cub_bench ] && .gpu/cub_bench $sizes > "$out/cub.txt"
python3 bench/before_after.py "$out"
