#!/bin/sh
# session 4 final command: issue 18 cubin cache, issue 22 histogram A/B (+ cubin-vs-driver code), issue 20 rbk v3, CUB
set -u
out=${OUT:-/tmp}
. bench/gpu_setup.sh
export CLSORT_DEVICE=nvidia
T0=$(date +%s); el() { echo "## $1 at $(( $(date +%s) - T0 )) s"; }
timeout 20 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
cache=/tmp/cc4; rm -rf $cache
# 1. issue 18: cold then warm, NVIDIA's cache off
for run in cold warm; do
  CUDA_CACHE_DISABLE=1 timeout 40 ./build/coldstart $cache 16 > $out/coldstart_$run.txt 2>&1; echo "coldstart $run rc=$?"
  grep -v '^$' $out/coldstart_$run.txt | head -30
done
el coldstart
# entries: cubin or PTX
c=0; p=0; for f in $cache/*.bin; do m=$(od -An -tx1 -j96 -N4 "$f" | tr -d ' \n'); if [ "$m" = 7f454c46 ]; then c=$((c+1)); else p=$((p+1)); fi; done; echo "entries: $c cubin, $p other"
# 2. correctness from cubins: tiny sort fill then warm; tiny reduce v3 beside the fill
CLSORT_CACHE_DIR=$cache timeout 70 ./build/test_clsort --tiny sort > $out/t_sort_fill.txt 2>&1 &
wait
for f in t_sort_fill; do echo "$f: $(grep -E 'passed, .* failed' $out/$f.txt | tail -1) $(grep -m1 'program cache' $out/$f.txt)"; grep -m3 '^FAIL' $out/$f.txt; done
CLSORT_CACHE_DIR=$cache timeout 40 ./build/test_clsort --tiny sort > $out/t_sort_warm.txt 2>&1
echo "t_sort_warm: $(grep -E 'passed, .* failed' $out/t_sort_warm.txt | tail -1) $(grep -m1 'program cache' $out/t_sort_warm.txt)"; grep -m3 '^FAIL' $out/t_sort_warm.txt
el tests
# 3. issue 22: histogram A/B; head = f1cff65 (warp-shuffle digit scan), unroll = + unrolled histogram loops, new = + tile counter;
#    newc = new with programs from the cubin cache (cuLink level 3, sm_90) instead of the driver's build
V="u32_keys u32_u32_pairs u64_keys"
for r in 1 2; do
  CLSORT_CACHE_DIR=off BENCH_ONLY="sort" BENCH_VARIANT="$V" BENCH_HOST=0 BENCH_RUNS=11 timeout 40 .gpu/bench_head 20 24 28 > $out/head_r$r.jsonl 2>&1
  CLSORT_CACHE_DIR=off BENCH_ONLY="sort" BENCH_VARIANT="$V" BENCH_HOST=0 BENCH_RUNS=11 timeout 40 ./build/bench 20 24 28 > $out/new_r$r.jsonl 2>&1
  CLSORT_CACHE_DIR=$cache BENCH_ONLY="scan pack sort" BENCH_VARIANT="$V u32_exclusive u32_flags_half" BENCH_HOST=0 BENCH_RUNS=11 timeout 40 ./build/bench 20 24 28 > $out/newc_r$r.jsonl 2>&1
  el "round $r"
done
CLSORT_CACHE_DIR=off BENCH_ONLY="sort" BENCH_VARIANT="$V" BENCH_HOST=0 BENCH_RUNS=11 timeout 40 .gpu/bench_unroll 20 24 28 > $out/unroll_r1.jsonl 2>&1
LD_PRELOAD=$PWD/build/kernel_times.so CLSORT_CACHE_DIR=off BENCH_ONLY="sort" BENCH_VARIANT="u32_keys" BENCH_HOST=0 BENCH_RUNS=11 timeout 30 ./build/bench 28 2>&1 | grep kernel_times
el ab
timeout 40 .gpu/cub_bench 20 24 28 > $out/cub.txt 2>&1
timeout 30 .gpu/cub_reduce 24 28 >> $out/cub.txt 2>&1
grep -v '^ ' $out/cub.txt | grep -E "sortkeys_u32_b32|sortpairs_u32_b32|sortkeys_u64|exclusive_sum|select_flagged|copy|by_key|reduce_sum"
python3 - $out <<'PY'
import json,sys,glob,os,collections
o=sys.argv[1]; t=collections.defaultdict(list)
for f in sorted(glob.glob(o+'/*.jsonl')):
    tag=os.path.basename(f)[:-6]
    for l in open(f):
        try: j=json.loads(l)
        except: continue
        t[(j['primitive'],j['variant'],j['n'])].append((tag,j['ms']))
for k in sorted(t): print(k[0],k[1],k[2],' '.join('%s=%.4f'%x for x in t[k]))
PY
el end
