#!/bin/sh
set -u
out=${OUT:-/tmp}
. bench/gpu_setup.sh
export CLSORT_DEVICE=nvidia
T0=$(date +%s); el() { echo "## $1 at $(( $(date +%s) - T0 )) s"; }
cache=/tmp/c6n; rm -rf $cache
( CLSORT_CACHE_DIR=off timeout 280 ./build/test_clsort --tiny reduce > $out/r_v1.txt 2>&1 ) &
( CLSORT_CACHE_DIR=off CLSORT_RBK_VARIANT=3 timeout 280 ./build/test_clsort --tiny reduce > $out/r_v3.txt 2>&1 ) &
( CLSORT_CACHE_DIR=$cache timeout 130 ./build/test_clsort --tiny nbody > $out/n_fill.txt 2>&1
  CLSORT_CACHE_DIR=$cache timeout 100 ./build/test_clsort --tiny nbody > $out/n_warm.txt 2>&1
  CLSORT_CACHE_DIR=$cache CLSORT_CUBIN=0 timeout 100 ./build/test_clsort --tiny nbody > $out/n_warm_b.txt 2>&1
  rm -rf $cache; CLSORT_CUBIN=0 CLSORT_CACHE_DIR=$cache timeout 130 ./build/test_clsort --tiny nbody > $out/n_ptxfill.txt 2>&1
  CLSORT_CUBIN=0 CLSORT_CACHE_DIR=$cache timeout 100 ./build/test_clsort --tiny nbody > $out/n_ptxwarm.txt 2>&1 ) &
wait
for f in r_v1 r_v3 n_fill n_warm n_warm_b n_ptxfill n_ptxwarm; do
  echo "$f: $(grep -E 'passed, .* failed' $out/$f.txt | tail -1) | $(grep -m1 'program cache' $out/$f.txt | cut -c1-150)"
  grep -m3 -A2 '^FAIL' $out/$f.txt | cut -c1-400
done
el end
