#!/bin/sh
set -u
out=${OUT:-/tmp}
sh bench/cubin_gpu.sh 2>&1
. bench/gpu_setup.sh
export CLSORT_DEVICE=nvidia
cache=/tmp/clsort_cubin_cache
echo "## warm again, and with --prepare"
CUDA_CACHE_DISABLE=1 timeout 25 ./build/coldstart $cache 16 > $out/cs_warm2.txt 2>&1; grep -E "programs built|all families|create \+ all|context create" $out/cs_warm2.txt
CUDA_CACHE_DISABLE=1 timeout 25 ./build/coldstart $cache 16 --prepare > $out/cs_prep.txt 2>&1; grep -v '^$' $out/cs_prep.txt | head -22
echo "## code from cubins vs the driver's build (2 rounds)"
V="u32_keys u32_u32_pairs u64_keys u32_exclusive u32_flags_half"
for r in 1 2; do
  CLSORT_CACHE_DIR=off BENCH_ONLY="scan pack sort" BENCH_VARIANT="$V" BENCH_HOST=0 BENCH_RUNS=11 timeout 40 ./build/bench 20 24 28 > $out/drv_r$r.jsonl 2>&1
  CLSORT_CACHE_DIR=$cache BENCH_ONLY="scan pack sort" BENCH_VARIANT="$V" BENCH_HOST=0 BENCH_RUNS=11 timeout 40 ./build/bench 20 24 28 > $out/cub_r$r.jsonl 2>&1
done
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
