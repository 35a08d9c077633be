#!/bin/sh
set -u
cd "$(dirname "$0")/../.." || exit 1
O=${OUT:-/tmp/out}; mkdir -p "$O/e"
for f in build/gpu/debs/ocl-icd-libopencl1_*.deb build/gpu/debs/ocl-icd-opencl-dev_*.deb build/gpu/debs/opencl-c-headers_*.deb build/gpu/debs/clinfo_*.deb; do dpkg -x "$f" /; done
ldconfig; mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia CLSORT_CACHE_DIR=off
cat build/gpu/commit > "$O/e/commit.txt"
make -j8 WARN="-Wall -Wextra -pedantic" build/bench build/test_clsort > "$O/e/make.log" 2>&1 || { tail -20 "$O/e/make.log"; exit 1; }
echo "== tests"
timeout 150 ./build/test_clsort --quick radix --path lookback > "$O/e/test_radix_lookback.txt" 2>&1; echo "rc=$?"; tail -1 "$O/e/test_radix_lookback.txt"
grep FAIL "$O/e/test_radix_lookback.txt" | head -5
R=9
b() { lab=$1; shift
    env BENCH_HOST=0 "$@" timeout 100 ./build/bench sort --no-host --runs $R 24 28 2>/dev/null | grep -v '"copy"' | sed "s/^{/{\"label\":\"$lab\",/" >> "$O/e/sweep.jsonl"; }
echo "== plan: default digits against 8-bit digits"
for e in 9 17 18 25 27; do
  b "e$e plan" BENCH_VARIANT=u32_keys BENCH_END_BIT=$e
  b "e$e r8" BENCH_VARIANT=u32_keys BENCH_END_BIT=$e BENCH_RADIX_BITS=8
done
b "e10 plan" BENCH_VARIANT=u32_keys_10bit
b "e10 r5" BENCH_VARIANT=u32_keys BENCH_END_BIT=10 BENCH_RADIX_BITS=5
for e in 36 63; do
  b "u64 e$e plan" BENCH_VARIANT=u64_keys BENCH_END_BIT=$e
  b "u64 e$e r8" BENCH_VARIANT=u64_keys BENCH_END_BIT=$e BENCH_RADIX_BITS=8
done
python3 - "$O/e/sweep.jsonl" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l); print('%-14s %-22s 2^%d %9.4f'%(d['label'],d['variant'],d['n'].bit_length()-1,d['ms']))
PY
cp build/exp/final.sh "$O/e/"
echo "== sort suite"
timeout 330 sh bench/run_gpu.sh sort > "$O/e/suite.log" 2>&1; echo "suite rc=$?"; tail -5 "$O/e/suite.log"
