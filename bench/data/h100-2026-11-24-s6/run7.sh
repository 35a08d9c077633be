#!/bin/sh
# session 6, run 7: the histogram kernel's key loop unrolled or rolled: build time and speed
set -u
out=${OUT:-/tmp}
. bench/gpu_setup.sh
export CLSORT_DEVICE=nvidia CLSORT_CACHE_DIR=off
for c in "- 16" "-DHIST_ROLLED 16" "-DHIST_ROLLED_P 16" "- 8"; do
  v=${c% *}; it=${c#* }; if [ "$v" = - ]; then unset EXP_HIST; else export EXP_HIST=$v; fi; export EXP_HIST_ITEMS=$it
  CUDA_CACHE_DISABLE=1 timeout 90 .gpu/coldstart_exp off 16 --programs > $out/cs.txt 2>&1
  echo "== $v items $it: cold all families $(grep -E '^\| all families' $out/cs.txt | awk -F'|' '{print $3}') ms; histogram programs from source: $(grep -E '^\| [0-9]+ clear_words;radix_histogram' $out/cs.txt | awk -F'|' '{print $6 "/" $8}' | tr '\n' ';')"
  BENCH_ONLY=sort BENCH_VARIANT="u32_keys u64_keys" BENCH_HOST=0 BENCH_RUNS=11 timeout 60 .gpu/bench_exp 24 28 > $out/b.jsonl 2>&1
  echo "   sort: $(grep -E '"primitive":"sort"' $out/b.jsonl | sed -E 's/.*"variant":"([a-z0-9_]*)","n":([0-9]*),"ms":([0-9.]*).*/\1 \2 \3/' | tr '\n' ';')"
  for k in u32_keys u64_keys; do BENCH_ONLY=sort BENCH_VARIANT="$k" BENCH_HOST=0 BENCH_RUNS=5 LD_PRELOAD=$PWD/.gpu/kernel_times.so timeout 60 .gpu/bench_exp 28 > $out/kt.txt 2>&1
  echo "   $k histogram: $(grep 'kernel_times radix_histogram' $out/kt.txt | sed -E 's/.*mean_us=//')"; done
done
