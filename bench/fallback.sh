#!/bin/sh
# Issue 17 on the lent GPU machine: the look-back rewrite (32-bit status word
# pairs, decoupled fallback on) against main's build, and the fallback's own
# cost (the same build with CLSORT_FALLBACK=0), with CUB in the same command.
#   sh bench/fallback.sh OLD_BENCH NEW_BENCH [log2 sizes...]   (default 20 24 28)
# OLD_BENCH: bench built from main before the change; NEW_BENCH: from this
# branch. Expects .gpu/ (carried) to hold the ICD loader .debs and cub_bench.
# Writes $OUT/ab (old vs new, default settings) and $OUT/fb (new with the
# fallback off = "before" vs on = "after"); the rows to compare are scan
# u32_exclusive, pack u32_flags_half, sort u32_keys / u32_u32_pairs / u64_keys
# (the look-back kernels: scan_lookback, pack_lookback, radix_onesweep).
set -u
old=$1 new=$2
shift 2
sizes=${*:-"20 24 28"}
out=${OUT:-/tmp}
. bench/gpu_setup.sh
mkdir -p "$out/ab" "$out/fb"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
only="scan,pack,sort"
# interleaved rounds: noise shows as the spread between them
for round in 1 2; do
    CLSORT_DEVICE=nvidia BENCH_ONLY=$only BENCH_RUNS=11 "$old" $sizes > "$out/ab/before$round.jsonl"
    CLSORT_DEVICE=nvidia BENCH_ONLY=$only BENCH_RUNS=11 "$new" $sizes > "$out/ab/after$round.jsonl"
    CLSORT_DEVICE=nvidia CLSORT_FALLBACK=0 BENCH_ONLY=$only BENCH_RUNS=11 "$new" $sizes > "$out/fb/before$round.jsonl"
    cp "$out/ab/after$round.jsonl" "$out/fb/after$round.jsonl"
done
[ -x .gpu/cub_bench ] && .gpu/cub_bench $sizes > "$out/ab/cub.txt" && cp "$out/ab/cub.txt" "$out/fb/cub.txt"
echo "== main (before) vs this branch (after), defaults"
python3 bench/before_after.py "$out/ab"
echo "== this branch: fallback off (before) vs on (after)"
python3 bench/before_after.py "$out/fb"
