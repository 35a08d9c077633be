#!/bin/sh
# The third session's H100 command for issues 22/20/17 (bench/RESULTS.md, "Issue 22 ...
# third session"): the session start's bench (.gpu/bench_start, built from commit
# 4cf3fb8) and this tree's build/bench interleaved twice, the 32-bit status pairs,
# the by-key variants, bitonic, then CUB (cub_bench, cub_sort_narrow, cub_reduce,
# cub_blockseg built into .gpu/ from ../shared/peers and bench/*.cu). Carry .gpu and build/bench.
out=${OUT:-/tmp}
. bench/gpu_setup.sh
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
export CLSORT_DEVICE=nvidia
only="scan pack sort"
for r in 1 2; do
  BENCH_ONLY="$only" BENCH_RUNS=11 timeout 150 .gpu/bench_start 16 20 24 28 > $out/start_r$r.jsonl 2>&1
  BENCH_ONLY="$only" BENCH_RUNS=11 timeout 150 ./build/bench 16 20 24 28 > $out/now_r$r.jsonl 2>&1
done
CLSORT_STATUS32=1 BENCH_ONLY="scan pack" BENCH_RUNS=11 timeout 60 ./build/bench 20 24 28 > $out/now_s32.jsonl 2>&1
for v in 0 1 2; do
  CLSORT_RBK_VARIANT=$v BENCH_ONLY="segmented_scan scan_by_key reduce_by_key run_length_encode unique segmented_reduce" BENCH_RUNS=11 timeout 60 ./build/bench 24 28 > $out/rbk_v$v.jsonl 2>&1
done
BENCH_ONLY="copy bitonic_seg1024 bitonic_var" BENCH_RUNS=11 timeout 60 ./build/bench 24 28 > $out/bitonic.jsonl 2>&1
timeout 60 .gpu/cub_bench 16 20 24 28 > $out/cub.txt 2>&1
timeout 60 .gpu/cub_sort_narrow 20 24 28 >> $out/cub.txt 2>&1
timeout 60 .gpu/cub_reduce 24 28 >> $out/cub.txt 2>&1
timeout 60 .gpu/cub_blockseg 24 28 >> $out/cub.txt 2>&1
python3 - $out <<'PY'
import json,sys,glob,os,collections
o=sys.argv[1]; t=collections.defaultdict(list)
for f in sorted(glob.glob(o+'/*.jsonl')):
    tag=os.path.basename(f)[:-6].split('_r')[0]
    for l in open(f):
        try: j=json.loads(l)
        except: continue
        if 'host' in j.get('device',''): continue
        t[(j['primitive'],j['variant'],j['n'])].append((tag,j['ms']))
for k in sorted(t): print(k[0],k[1],k[2],' '.join('%s=%.4f'%x for x in t[k]))
PY
grep -v "^ " $out/cub.txt
