#!/bin/sh
# session 6, run 4: register caps for the one-sweep pass (3 groups of 384 per SM need <= 56 registers)
set -u
out=${OUT:-/tmp}
. bench/gpu_setup.sh
export CLSORT_DEVICE=nvidia CLSORT_CACHE_DIR=off
T0=$(date +%s); el() { echo "## $1 at $(( $(date +%s) - T0 )) s"; }
for c in "384:20 -" "384:20 56" "384:20 48" "384:16 56" "384:24 64" "512:16 64" "512:12 48"; do
  t=${c% *}; m=${c#* }; if [ "$m" = - ]; then unset OS_MAXREG; else export OS_MAXREG=$m; fi
  OS_TILE=$t BENCH_ONLY=sort BENCH_VARIANT="u32_keys" BENCH_HOST=0 BENCH_RUNS=11 timeout 60 .gpu/bench_exp 20 24 28 > $out/k.jsonl 2>&1
  echo "keys $t maxreg $m: $(grep -E '"variant":"u32_keys"' $out/k.jsonl | sed -E 's/.*"n":([0-9]*),"ms":([0-9.]*).*/\1 \2/' | tr '\n' ';')"
done
unset OS_MAXREG
for c in "256:20 -" "256:20 64" "256:16 64" "384:12 56" "384:16 64"; do
  t=${c% *}; m=${c#* }; if [ "$m" = - ]; then unset OS_MAXREG_V; else export OS_MAXREG_V=$m; fi
  OS_TILE_V=$t BENCH_ONLY=sort BENCH_VARIANT="u32_u32_pairs" BENCH_HOST=0 BENCH_RUNS=11 timeout 60 .gpu/bench_exp 24 28 > $out/p.jsonl 2>&1
  echo "pairs $t maxreg $m: $(grep -E '"variant":"u32_u32_pairs"' $out/p.jsonl | sed -E 's/.*"n":([0-9]*),"ms":([0-9.]*).*/\1 \2/' | tr '\n' ';')"
done
el sweep
