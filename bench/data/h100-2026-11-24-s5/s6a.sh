#!/bin/sh
# session 5 final H100 command: issue 18 (cold/warm/prepare, tests from cubins), issue 20 (rbk variants),
# issue 22 (final figures beside CUB)
set -u
out=${OUT:-/tmp}
. bench/gpu_setup.sh
export CLSORT_DEVICE=nvidia
T0=$(date +%s); el() { echo "## $1 at $(( $(date +%s) - T0 )) s"; }
timeout 20 nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
cache=/tmp/c6; rm -rf $cache
for run in off cold warm1 warm2 prepare; do
  d=$cache; [ $run = off ] && d=off; a=""; [ $run = prepare ] && a=--prepare
  CUDA_CACHE_DISABLE=1 timeout 60 ./build/coldstart $d 16 $a > $out/cs_$run.txt 2>&1; echo "coldstart $run rc=$?"
  grep -E "programs built|cache warning|^\| (context|all families|clsort_prepare|clsort_cache_flush|create)" $out/cs_$run.txt
  grep "^{" $out/cs_$run.txt
done
timeout 60 ./build/coldstart off 16 > $out/cs_nvcache1.txt 2>&1; timeout 60 ./build/coldstart off 16 > $out/cs_nvcache2.txt 2>&1
grep "^{" $out/cs_nvcache2.txt
el coldstart
# every part of the --tiny suite from a cubin cache: fill (parallel parts), then warm
parts="base sort bin bitonic nbody reduce tree reverse status"
for pass in fill warm; do
  for p in $parts; do CLSORT_CACHE_DIR=$cache timeout 200 ./build/test_clsort --tiny $p > $out/t_${p}_$pass.txt 2>&1 & done; wait
  for p in $parts; do echo "$pass $p: $(grep -E 'passed, .* failed' $out/t_${p}_$pass.txt | tail -1) | $(grep -m1 'program cache' $out/t_${p}_$pass.txt | sed 's/.*program cache [^:]*: //' | cut -c1-200)"; grep -m2 '^FAIL' $out/t_${p}_$pass.txt; done
  el "tests $pass"
done
CLSORT_CACHE_DIR=$cache CLSORT_RBK_VARIANT=3 timeout 100 ./build/test_clsort --tiny reduce > $out/t_reduce_v3.txt 2>&1; echo "reduce v3: $(grep -E 'passed, .* failed' $out/t_reduce_v3.txt | tail -1)"; grep -m3 '^FAIL' $out/t_reduce_v3.txt
el "tests v3"
el end
