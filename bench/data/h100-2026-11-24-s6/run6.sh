#!/bin/sh
# session 6, run 6: final figures beside CUB (scan, pack, sort variants, bitonic segments, reduce by key)
set -u
out=${OUT:-/tmp}
. bench/gpu_setup.sh
export CLSORT_DEVICE=nvidia CLSORT_CACHE_DIR=off
V="u32_exclusive u32_flags_half u32_keys u32_u32_pairs u64_keys u32_keys_10bit u32_keys_16bit u8_keys u16_keys u32_keys_permutation"
for r in 1 2; do
  BENCH_ONLY="scan pack sort" BENCH_VARIANT="$V" BENCH_HOST=0 BENCH_RUNS=11 timeout 120 ./build/bench 20 24 28 > $out/fin_r$r.jsonl 2>&1
done
BENCH_ONLY="bitonic_seg1024 reduce_by_key run_length_encode unique" BENCH_HOST=0 BENCH_RUNS=11 timeout 60 ./build/bench 24 28 > $out/other.jsonl 2>&1
timeout 60 .gpu/cub_bench 20 24 28 > $out/cub.txt 2>&1
timeout 60 .gpu/cub_sort_narrow 28 >> $out/cub.txt 2>&1
timeout 60 .gpu/cub_reduce 28 >> $out/cub.txt 2>&1
timeout 60 .gpu/cub_blockseg 24 28 >> $out/cub.txt 2>&1
grep -v '^ ' $out/cub.txt | grep -v "^$" | grep -E "sortkeys|sortpairs|exclusive_sum|select_flagged|by_key|encode|unique|merge|radix|u8|u16" | cut -c1-90
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
