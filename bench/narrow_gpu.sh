#!/bin/sh
# Issue 22 on the GPU machine, from the project root; `.gpu` carried (see
# /work/shared/gpu/README.md) with .gpu/cub_sort_narrow built on the dev
# machine (nvcc -O3 -std=c++17 -arch=sm_90 -o .gpu/cub_sort_narrow
# bench/cub_sort_narrow.cu) and build/bench, build/test_clsort carried.
# Prints (and writes to $OUT): clsort's sort rows u32_keys, u8_keys, u16_keys,
# u32_keys_16byte_values at 2^20 2^24 2^28 (JSON lines, median of BENCH_RUNS);
# CUB's cub_sortkeys_u8 / _u16 / cub_sortpairs_u32_v16 (name N ms Mitems/s);
# a one-sweep tile sweep of the u8/u16 rows (CLSORT_TILE=256:8 / 256:16 /
# 256:32, 2^28) and the classic passes (CLSORT_ONESWEEP=0) of the same rows;
# the ratio table (compare.py); then the sort part of the
# test suite on the card (ends with "N passed, N failed").
set -u
. bench/gpu_setup.sh
out=${OUT:-/tmp}
export CLSORT_DEVICE=${CLSORT_DEVICE:-nvidia}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null
BENCH_ONLY=sort BENCH_RUNS=${BENCH_RUNS:-11} ./build/bench 20 24 28 | grep -E '"variant":"(u32_keys|u8_keys|u16_keys|u32_keys_16byte_values)"' \
  | tee "$out/narrow_clsort.jsonl"
[ -x .gpu/cub_sort_narrow ] && .gpu/cub_sort_narrow 20 24 28 | tee "$out/narrow_cub.txt"
[ -x .gpu/cub_bench ] && .gpu/cub_bench 28 | grep cub_sortkeys_u32_b32 | tee -a "$out/narrow_cub.txt"
for items in 8 16 32; do
  echo "tile 256:$items"
  CLSORT_TILE=256:$items BENCH_ONLY=sort BENCH_RUNS=${BENCH_RUNS:-11} ./build/bench 28 \
    | grep -E '"variant":"(u8_keys|u16_keys|u32_keys_16byte_values)"' | sed "s/}\$/,\"tile\":\"256:$items\"}/" \
    | tee -a "$out/narrow_sweep.jsonl"
done
echo "classic passes (CLSORT_ONESWEEP=0)"
CLSORT_ONESWEEP=0 BENCH_ONLY=sort BENCH_RUNS=${BENCH_RUNS:-11} ./build/bench 28 \
  | grep -E '"variant":"(u8_keys|u16_keys|u32_keys_16byte_values)"' | sed 's/}$/,"passes":"classic"}/' \
  | tee -a "$out/narrow_sweep.jsonl"
python3 bench/compare.py "$out/narrow_clsort.jsonl" "$out/narrow_cub.txt"
./build/test_clsort --quick sort 2>&1 | tee "$out/narrow_test_sort.log" | tail -3
exit 0
