#!/bin/sh
# session 6, run 5: the whole suite on the H100 (every part --quick, reduce as two processes by path), tree determinism
set -u
out=${OUT:-/tmp}
. bench/gpu_setup.sh
export CLSORT_DEVICE=nvidia CLSORT_CACHE_DIR=off
T0=$(date +%s)
timeout 100 .gpu/det 2 > $out/det.txt 2>&1; echo "det: $(grep -c 'radius total 998702844' $out/det.txt) of $(grep -c 'radius total' $out/det.txt) radius totals right; distinct lo/hi/com: $(grep '^tree rep' $out/det.txt | sed -E 's/.*lo //' | sort -u | wc -l); accel distinct: $(grep -o 'accel [0-9a-f]*' $out/det.txt | sort -u | wc -l)"
parts="base sort bin bitonic nbody tree reverse status"
for p in $parts; do timeout 530 ./build/test_clsort --quick $p > $out/q_$p.txt 2>&1 & done
timeout 530 ./build/test_clsort --quick reduce portable > $out/q_reduce_p.txt 2>&1 &
timeout 530 ./build/test_clsort --quick reduce lookback > $out/q_reduce_l.txt 2>&1 &
wait
tot_p=0; tot_f=0
for p in $parts reduce_p reduce_l; do l=$(grep -E 'passed, .* failed' $out/q_$p.txt | tail -1); echo "$p: ${l:-NO RESULT: $(tail -1 $out/q_$p.txt)}"; grep -m3 -A1 '^FAIL' $out/q_$p.txt | cut -c1-300
  a=$(echo "$l" | awk '{print $1}'); b=$(echo "$l" | awk '{print $3}'); tot_p=$((tot_p + ${a:-0})); tot_f=$((tot_f + ${b:-0})); done
echo "all parts: $tot_p passed, $tot_f failed in $(( $(date +%s) - T0 )) s"
