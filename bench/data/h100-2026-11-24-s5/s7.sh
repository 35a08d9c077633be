#!/bin/sh
set -u
out=${OUT:-/tmp}
. bench/gpu_setup.sh
export CLSORT_DEVICE=nvidia CLSORT_CACHE_DIR=off
T0=$(date +%s)
parts="base sort bin bitonic nbody reduce tree reverse status"
for p in $parts; do timeout 540 ./build/test_clsort --quick $p > $out/q_$p.txt 2>&1 & done; wait
tot_p=0; tot_f=0
for p in $parts; do l=$(grep -E 'passed, .* failed' $out/q_$p.txt | tail -1); echo "$p: ${l:-NO RESULT: $(tail -1 $out/q_$p.txt)}"; grep -m3 -A1 '^FAIL' $out/q_$p.txt | cut -c1-300
  a=$(echo "$l" | awk '{print $1}'); b=$(echo "$l" | awk '{print $3}'); tot_p=$((tot_p + ${a:-0})); tot_f=$((tot_f + ${b:-0})); done
echo "all parts: $tot_p passed, $tot_f failed in $(( $(date +%s) - T0 )) s"
