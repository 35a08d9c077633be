#!/bin/sh
# Issue 20, variant 3 of the by-key kernels (registers from load to output,
# warp-shuffle pair scan as inline PTX on NVIDIA) beside variants 1 and 2 and
# CUB, on the lent GPU machine, from the project root. Carry .gpu (ICD .debs,
# .gpu/cub_reduce), build/bench and build/test_clsort (built here with
# `make build/bench build/test_clsort`; nothing is built there).
#   sh bench/rbk3_gpu.sh          VARIANTS="1 3" to leave variant 2 out
# Output: one line per bench row (variant tag, then bench's JSON line), CUB's
# lines, then the tiny reduce tests of variant 3 on the GPU (pass/fail tail).
set -u
. bench/gpu_setup.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
export CLSORT_DEVICE=nvidia
for v in ${VARIANTS:-"1 3 2"}; do
    CLSORT_RBK_VARIANT=$v BENCH_ONLY="segmented_scan scan_by_key reduce_by_key" BENCH_HOST=0 BENCH_RUNS=11 \
        timeout 40 ./build/bench 24 28 > /tmp/rbk3_v$v.txt 2>&1
    rc=$?
    sed "s/^/v$v /" /tmp/rbk3_v$v.txt
    echo "v$v exit $rc"
done
timeout 30 .gpu/cub_reduce 24 28 2>&1 | sed 's/^/cub /'
CLSORT_RBK_VARIANT=3 timeout 90 ./build/test_clsort --tiny reduce > /tmp/rbk3_tiny.log 2>&1
echo "test_clsort --tiny reduce (variant 3) exit $?"
tail -3 /tmp/rbk3_tiny.log
grep -i 'fail' /tmp/rbk3_tiny.log | head -20
