#!/bin/sh
# session 6, run 3: histogram program of its own + 384x20 keys tile: tests, cold starts, sort figures beside CUB
set -u
out=${OUT:-/tmp}
. bench/gpu_setup.sh
export CLSORT_DEVICE=nvidia PATH=$PATH:/usr/local/cuda/bin
T0=$(date +%s); el() { echo "## $1 at $(( $(date +%s) - T0 )) s"; }
export CLSORT_CACHE_DIR=off
timeout 200 ./build/test_clsort --quick sort > $out/t_sort.txt 2>&1 &
timeout 200 ./build/test_clsort --quick bin > $out/t_bin.txt 2>&1 &
wait
for f in t_sort t_bin; do echo "$f: $(tail -1 $out/$f.txt)"; grep -m3 '^FAIL' $out/$f.txt | cut -c1-300; done
el tests
for r in 1 2 3; do
  CUDA_CACHE_DISABLE=1 timeout 90 ./build/coldstart off 16 $( [ $r = 3 ] && echo --programs ) > $out/cs$r.txt 2>&1
  echo "cold $r: $(grep -E '^\| (all families|context)' $out/cs$r.txt | tr '\n' ' ')"; grep -E '^\| (scan|pack|sort|bitonic|N-body|binning)' $out/cs$r.txt | awk -F'|' '{printf "%s=%s; ", $2, $3}'; echo
done
grep -E '^\| [0-9]+ |all programs' $out/cs3.txt | cut -c1-60,150-400
el cold
V="u32_keys u32_u32_pairs u32_keys_16bit u32_keys_10bit u64_keys u32_keys_permutation"
for r in 1 2; do
  BENCH_ONLY=sort BENCH_VARIANT="$V" BENCH_HOST=0 BENCH_RUNS=11 timeout 100 ./build/bench 20 24 28 > $out/b$r.jsonl 2>&1
  echo "round $r:"; grep '"primitive":"sort"' $out/b$r.jsonl | sed -E 's/.*"variant":"([a-z0-9_]*)","n":([0-9]*),"ms":([0-9.]*).*/\1 \2 \3/' | tr '\n' ';'; echo
done
el bench
BENCH_ONLY=sort BENCH_VARIANT="u32_keys" BENCH_HOST=0 BENCH_RUNS=5 LD_PRELOAD=$PWD/.gpu/kernel_times.so timeout 60 ./build/bench 28 > $out/kt.txt 2>&1; grep kernel_times $out/kt.txt
timeout 40 .gpu/cub_bench 20 24 28 > $out/cub.txt 2>&1
grep -E "sortkeys_u32_b32|sortpairs_u32_b32|sortkeys_u32_b16|sortkeys_u32_b10|sortkeys_u64" $out/cub.txt | tr '\n' ';'
el cub
