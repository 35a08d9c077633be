#!/bin/sh
# Runs clsort's bench beside the peers on the lent GPU machine, from the
# project root, and prints the ratios. Expects .gpu/ (carried) to hold the
# ICD loader .debs and the peer binaries (see bench/RESULTS.md, "How to rerun"),
# and build/bench built on the development machine.
#   sh bench/gpu.sh [log2 sizes...]     default: 20 24 28
set -u
sizes=${*:-"20 24 28"}
out=${OUT:-/tmp}
. bench/gpu_setup.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
CLSORT_DEVICE=nvidia ./build/bench $sizes | tee "$out/clsort.jsonl"
[ -x .gpu/cub_bench ] && .gpu/cub_bench $sizes | tee "$out/cub.txt"
# the reduction family's CUB rows (nvcc -O3 -std=c++17 -arch=sm_90 -o .gpu/cub_reduce bench/cub_reduce.cu)
[ -x .gpu/cub_reduce ] && .gpu/cub_reduce $sizes | tee -a "$out/cub.txt"
# 8- and 16-bit keys, 16-byte values (nvcc -O3 -std=c++17 -arch=sm_90 -o .gpu/cub_sort_narrow bench/cub_sort_narrow.cu)
[ -x .gpu/cub_sort_narrow ] && .gpu/cub_sort_narrow $sizes | tee -a "$out/cub.txt"
[ -x .gpu/bc_bench ] && .gpu/bc_bench NVIDIA $sizes 2>&1 | tee "$out/bc.txt"
python3 bench/compare.py "$out/clsort.jsonl" "$out/cub.txt" "$out/bc.txt"
