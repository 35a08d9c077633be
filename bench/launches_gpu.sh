#!/bin/sh
# Issue 22 (and 17) on the lent GPU machine: look-back calls without clear
# launches (scan, pack: 1 launch; one-sweep u32 sort: 5) and 64-bit status
# words, against main's build, with CUB in the same command.
#   sh bench/launches_gpu.sh OLD_BENCH NEW_BENCH [log2 sizes...]   (default 16 20 24 28)
# OLD_BENCH: build/bench built from main; NEW_BENCH: from this branch.
# Expects .gpu/ (carried) to hold the ICD loader .debs and cub_bench.
# Writes $OUT/ab (main = "before" vs this branch = "after", defaults) and
# $OUT/st (this branch with CLSORT_STATUS32=1, the 32-bit status pairs =
# "before", vs its default, 64-bit words on NVIDIA = "after"). Rows to read:
# scan u32_exclusive, pack u32_flags_half, sort u32_keys / u32_u32_pairs /
# u64_keys; issue bars: sort u32 keys 2^20 <= 0.10 ms (goal 0.08), scan and
# pack >= 0.85x CUB at every size 2^20 .. 2^28.
set -u
old=$1 new=$2
shift 2
sizes=${*:-"16 20 24 28"}
out=${OUT:-/tmp}
. bench/gpu_setup.sh
mkdir -p "$out/ab" "$out/st"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
only="scan,pack,sort"
# interleaved rounds: noise shows as the spread between them
for round in 1 2; do
    CLSORT_DEVICE=nvidia BENCH_ONLY=$only BENCH_RUNS=11 "$old" $sizes > "$out/ab/before$round.jsonl"
    CLSORT_DEVICE=nvidia BENCH_ONLY=$only BENCH_RUNS=11 "$new" $sizes > "$out/ab/after$round.jsonl"
    CLSORT_DEVICE=nvidia CLSORT_STATUS32=1 BENCH_ONLY=$only BENCH_RUNS=11 "$new" $sizes > "$out/st/before$round.jsonl"
    cp "$out/ab/after$round.jsonl" "$out/st/after$round.jsonl"
done
[ -x .gpu/cub_bench ] && .gpu/cub_bench $sizes > "$out/ab/cub.txt" && cp "$out/ab/cub.txt" "$out/st/cub.txt"
echo "== main (before) vs this branch (after), defaults"
python3 bench/before_after.py "$out/ab"
echo "== this branch: 32-bit status pairs (before) vs 64-bit status words (after)"
python3 bench/before_after.py "$out/st"
