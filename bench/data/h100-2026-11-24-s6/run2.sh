#!/bin/sh
# session 6, run 2: issue 18 API timeline of cold first calls, ptxas per kernel; issue 22 tile sweep 2, per-kernel times
set -u
out=${OUT:-/tmp}
. bench/gpu_setup.sh
export CLSORT_DEVICE=nvidia PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s); el() { echo "## $1 at $(( $(date +%s) - T0 )) s"; }
mkdir -p /tmp/ptx /tmp/ptx384
CUDA_CACHE_DISABLE=1 LD_PRELOAD=$PWD/.gpu/api_times.so timeout 90 ./build/coldstart off 16 --dump /tmp/ptx > $out/cs_api.txt 2>&1; echo "coldstart rc=$?"
grep -E '^\| (scan|pack|sort|bitonic|N-body|binning|all|context)|api_times' $out/cs_api.txt | head -120
el coldstart
OS_TILE=384:20 OS_TILE_V=384:20 CUDA_CACHE_DISABLE=1 timeout 60 .gpu/coldstart_exp off 16 --dump /tmp/ptx384 > /dev/null 2>&1
for d in ptx ptx384; do for i in 2 3 4 5; do tr -d '\000' < /tmp/$d/program$i.bin > /tmp/$d/p$i.ptx
  s=$(date +%s%N); ptxas -arch=sm_90 -O3 -o /dev/null /tmp/$d/p$i.ptx; e=$(date +%s%N); echo "$d p$i ptxas all: $(( (e-s)/1000000 )) ms"
  for k in radix_histogram radix_onesweep; do s=$(date +%s%N); ptxas -arch=sm_90 -O3 -v -e $k -o /dev/null /tmp/$d/p$i.ptx 2>&1 | grep -E "Used" ; e=$(date +%s%N); echo "   $k $(( (e-s)/1000000 )) ms"; done
done; done
el ptxas
for t in 256:16 384:20 384:24 448:20 512:16 512:20 384:28; do
  OS_TILE=$t CLSORT_CACHE_DIR=off BENCH_ONLY=sort BENCH_VARIANT="u32_keys u32_keys_16bit" BENCH_HOST=0 BENCH_RUNS=11 timeout 60 .gpu/bench_exp 20 24 28 > $out/k.jsonl 2>&1
  echo "keys $t: $(grep -E '"variant":"(u32_keys|u32_keys_16bit)"' $out/k.jsonl | sed -E 's/.*"variant":"([a-z0-9_]*)","n":([0-9]*),"ms":([0-9.]*).*/\1 \2 \3/' | tr '\n' ';')"
done
el sweep
for t in 256:16 384:20; do
  OS_TILE=$t CLSORT_CACHE_DIR=off BENCH_ONLY=sort BENCH_VARIANT="u32_keys" BENCH_HOST=0 BENCH_RUNS=5 LD_PRELOAD=$PWD/.gpu/kernel_times.so timeout 60 .gpu/bench_exp 28 > $out/kt.txt 2>&1
  echo "kernel times $t:"; grep kernel_times $out/kt.txt
done
el kt
timeout 40 .gpu/cub_bench 20 24 28 > $out/cub.txt 2>&1
grep -E "sortkeys_u32_b32|sortkeys_u32_b16" $out/cub.txt
el cub
