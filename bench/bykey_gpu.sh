#!/bin/sh
# Issue 20: the reduction family's tile kernels, variant by variant, beside
# CUB, in one command on the lent GPU machine, from the project root.
# Expects (as bench/gpu.sh) .gpu/ to hold the ICD loader .debs and
# .gpu/cub_reduce (nvcc -O3 -std=c++17 -arch=sm_90 -o .gpu/cub_reduce
# bench/cub_reduce.cu), and build/bench built on the development machine
# (nothing is built here). Variants (CLSORT_RBK_VARIANT, clsort_tuning.rbk_variant):
#   0  the Hillis-Steele pair scan; unique and run-length encode on the general pass
#   1  (the default) a raking pair scan; unique and run-length encode on the heads kernels
#   2  variant 1 with keys staged as one-byte head flags (by-key rows take the flags' larger tile)
#   sh bench/bykey_gpu.sh [log2 sizes...]       default: 24 28
#   VARIANTS="0 1 2" RUNS=11 TILES="256:16 256:32" (optional: extra CLSORT_TILE runs of variant 1)
# Prints one table: G items/s per variant and CUB, and each variant / CUB.
set -u
sizes=${*:-"24 28"}
out=${OUT:-/tmp}
variants=${VARIANTS:-"0 1 2"}
only=${ONLY:-"segmented_scan scan_by_key segmented_reduce reduce_by_key run_length_encode unique"}
. bench/gpu_setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cols=""
for v in $variants; do
    CLSORT_DEVICE=nvidia CLSORT_RBK_VARIANT=$v BENCH_RUNS=${RUNS:-11} BENCH_ONLY="$only" ./build/bench $sizes \
        > "$out/bykey_v$v.jsonl" 2> "$out/bykey_v$v.err" || { echo "variant $v failed:"; tail -5 "$out/bykey_v$v.err"; }
    cols="$cols v$v=$out/bykey_v$v.jsonl"
done
for t in ${TILES:-}; do
    name=$(echo "$t" | tr ':' 'x')
    CLSORT_DEVICE=nvidia CLSORT_RBK_VARIANT=1 CLSORT_TILE=$t BENCH_RUNS=${RUNS:-11} BENCH_ONLY="$only" \
        ./build/bench $sizes > "$out/bykey_t$name.jsonl" 2> "$out/bykey_t$name.err" || echo "tile $t failed"
    cols="$cols v1_$name=$out/bykey_t$name.jsonl"
done
.gpu/cub_reduce $sizes > "$out/bykey_cub.txt" 2>&1 || echo "cub_reduce failed"
python3 bench/bykey_table.py "$out/bykey_cub.txt" $cols | tee "$out/bykey_table.md"
