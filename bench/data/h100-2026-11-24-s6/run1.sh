#!/bin/sh
# session 6, run 1: issue 18 per-program/per-kernel build times (NVVM vs ptxas), issue 22 one-sweep tile sweep (384 x 20 etc.)
set -u
out=${OUT:-/tmp}
. bench/gpu_setup.sh
export CLSORT_DEVICE=nvidia PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s); el() { echo "## $1 at $(( $(date +%s) - T0 )) s"; }
timeout 20 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/ptx /tmp/ptx384
CUDA_CACHE_DISABLE=1 timeout 90 ./build/coldstart off 16 --dump /tmp/ptx > $out/cs_prog.txt 2>&1; echo "coldstart rc=$?"
grep -v '^$' $out/cs_prog.txt | grep -v '^{' | cut -c1-330
el coldstart
for f in /tmp/ptx/*.bin; do
  s=$(date +%s%N); ptxas -arch=sm_90 -O3 -o /dev/null $f 2>/dev/null; e=$(date +%s%N); echo "ptxas $(basename $f) all: $(( (e-s)/1000000 )) ms, $(grep -c '^.entry\|^\.visible .entry' $f) entries, $(wc -c < $f) bytes"
  for k in $(grep -o '\.entry [a-z_0-9]*' $f | awk '{print $2}'); do
    s=$(date +%s%N); ptxas -arch=sm_90 -O3 -e $k -o /dev/null $f 2>/dev/null; e=$(date +%s%N); echo "   $k: $(( (e-s)/1000000 )) ms"
  done
done
el ptxas
OS_TILE=384:20 OS_TILE_V=384:20 CUDA_CACHE_DISABLE=1 timeout 60 .gpu/coldstart_exp off 16 --dump /tmp/ptx384 > /dev/null 2>&1
for i in 2 3 5; do ptxas -arch=sm_90 -O3 -v -e radix_onesweep -o /dev/null /tmp/ptx384/program$i.bin 2>&1 | grep -E "registers|smem" | head -2; done
for i in 2 3 5; do ptxas -arch=sm_90 -O3 -v -e radix_onesweep -o /dev/null /tmp/ptx/program$i.bin 2>&1 | grep -E "registers|smem" | head -2; done
el resources
# issue 22: one-sweep tile sweep, keys then pairs, CUB beside
for t in 256:16 384:12 384:16 384:20 512:12 256:20 320:16; do
  OS_TILE=$t CLSORT_CACHE_DIR=off BENCH_ONLY=sort BENCH_VARIANT="u32_keys u64_keys" BENCH_HOST=0 BENCH_RUNS=11 timeout 60 .gpu/bench_exp 24 28 > $out/k_$t.jsonl 2>&1
  echo "keys $t: $(grep -E '"variant":"(u32_keys|u64_keys)"' $out/k_$t.jsonl | sed -E 's/.*"variant":"([a-z0-9_]*)","n":([0-9]*),"ms":([0-9.]*).*/\1 \2 \3/' | tr '\n' ';')"
done
for t in 256:20 384:12 384:16 384:20 256:24; do
  OS_TILE_V=$t CLSORT_CACHE_DIR=off BENCH_ONLY=sort BENCH_VARIANT="u32_u32_pairs" BENCH_HOST=0 BENCH_RUNS=11 timeout 60 .gpu/bench_exp 24 28 > $out/p_$t.jsonl 2>&1
  echo "pairs $t: $(grep -E '"variant":"u32_u32_pairs"' $out/p_$t.jsonl | sed -E 's/.*"variant":"([a-z0-9_]*)","n":([0-9]*),"ms":([0-9.]*).*/\1 \2 \3/' | tr '\n' ';')"
done
el sweep
timeout 40 .gpu/cub_bench 24 28 > $out/cub.txt 2>&1
grep -E "sortkeys_u32_b32|sortpairs_u32_b32|sortkeys_u64" $out/cub.txt
el cub
OS_TILE=384:20 OS_TILE_V=384:20 CLSORT_CACHE_DIR=off timeout 200 .gpu/test_exp --quick sort > $out/t384.txt 2>&1; echo "test 384:20 sort: $(tail -1 $out/t384.txt)"; grep -m3 '^FAIL' $out/t384.txt | cut -c1-300
el test
