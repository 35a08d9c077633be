#!/bin/sh
# session 5 final H100 command: issue 18 (cold/warm/prepare, tests from cubins), issue 20 (rbk variants),
# issue 22 (final figures beside CUB)
set -u
out=${OUT:-/tmp}
. bench/gpu_setup.sh
export CLSORT_DEVICE=nvidia
T0=$(date +%s); el() { echo "## $1 at $(( $(date +%s) - T0 )) s"; }
timeout 20 nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
cache=/tmp/c6n; rm -rf $cache
CLSORT_CACHE_DIR=$cache timeout 130 ./build/test_clsort --tiny nbody > $out/n_fill.txt 2>&1
CLSORT_CACHE_DIR=$cache timeout 100 ./build/test_clsort --tiny nbody > $out/n_warm.txt 2>&1
for f in n_fill n_warm; do echo "$f: $(grep -E 'passed, .* failed' $out/$f.txt | tail -1)"; grep -m3 -A1 '^FAIL' $out/$f.txt | cut -c1-300; done
echo "nbody cache entries: $(ls $cache | wc -l)"
el nbody
V="u32_exclusive u32_flags_half u32_keys u32_u32_pairs u64_keys u32_keys_10bit u32_keys_16bit u8_keys u16_keys"
for r in 1 2; do
  CLSORT_CACHE_DIR=off BENCH_ONLY="scan pack sort" BENCH_VARIANT="$V" BENCH_HOST=0 BENCH_RUNS=11 timeout 90 ./build/bench 20 24 28 > $out/fin_r$r.jsonl 2>&1
done
el final
for v in 1 2 3; do
  CLSORT_CACHE_DIR=off CLSORT_RBK_VARIANT=$v BENCH_ONLY="segmented_scan scan_by_key reduce_by_key run_length_encode unique" BENCH_HOST=0 BENCH_RUNS=11 timeout 60 ./build/bench 24 28 > $out/rbk_v$v.jsonl 2>&1
done
CLSORT_CACHE_DIR=off BENCH_ONLY="reduce histogram segmented_reduce bitonic_seg1024 copy" BENCH_HOST=0 BENCH_RUNS=11 timeout 60 ./build/bench 24 28 > $out/other.jsonl 2>&1
el rbk
timeout 60 .gpu/cub_bench 20 24 28 > $out/cub.txt 2>&1
timeout 60 .gpu/cub_sort_narrow 20 24 28 >> $out/cub.txt 2>&1
timeout 60 .gpu/cub_reduce 24 28 >> $out/cub.txt 2>&1
timeout 60 .gpu/cub_blockseg2 24 28 >> $out/cub.txt 2>&1
grep -v '^ ' $out/cub.txt | grep -v "^$" | cut -c1-100
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
