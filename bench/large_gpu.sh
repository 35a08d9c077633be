#!/bin/sh
# The GPU-only large-index cases of tests/test_large.c on the lent GPU
# machine (issue 19, item 3 class), from the project root. Expects .gpu/
# (carried) to hold the ICD loader .debs (as bench/gpu.sh) and build/test_large
# built on the development machine (make build/test_large).
#   sh bench/large_gpu.sh [case...]     default: bin32 scan4 wide12
set -u
cases=${*:-"bin32 scan4 wide12"}
. bench/gpu_setup.sh
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
status=0
for c in $cases; do
    echo "== test_large $c"
    CLSORT_DEVICE=nvidia CLSORT_CACHE_DIR=off timeout 580 ./build/test_large "$c" || status=1
done
exit $status
