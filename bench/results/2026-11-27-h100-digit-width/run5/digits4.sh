#!/bin/sh
set -u
cd "$(dirname "$0")/../.." || exit 1
O=${OUT:-/tmp/out}; mkdir -p "$O"
for f in build/gpu/debs/ocl-icd-libopencl1_*.deb build/gpu/debs/ocl-icd-opencl-dev_*.deb build/gpu/debs/opencl-c-headers_*.deb build/gpu/debs/clinfo_*.deb; do dpkg -x "$f" /; done
ldconfig; mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia
cat build/gpu/commit > "$O/commit.txt"
make -j8 WARN="-Wall -Wextra -pedantic" build/bench build/test_clsort > "$O/make.log" 2>&1 || { tail -20 "$O/make.log"; exit 1; }
echo "== registers"
for cfg in "u32_keys 8" "u32_keys 9" "u32_keys 10" "u32_keys 11" "u64_keys 10" "u32_u32_pairs 10"; do
  set -- $cfg
  c=/tmp/cache_$1_$2; rm -rf $c
  env CLSORT_CACHE_DIR=$c CLSORT_CACHE_WHEN=build BENCH_VARIANT=$1 BENCH_RADIX_BITS=$2 BENCH_HOST=0 ./build/bench sort --no-host --runs 1 20 >/dev/null 2>&1
  for e in $c/*.bin; do tail -c +97 "$e" > /tmp/x.cubin; cuobjdump -res-usage /tmp/x.cubin 2>&1 | grep -A1 "onesweep" | tail -1 | sed "s/^/$1 r$2: /"; done
done 2>&1 | tee "$O/res.txt"
export CLSORT_CACHE_DIR=off
echo "== tests"
timeout 150 ./build/test_clsort --quick radix --path lookback > "$O/test_radix_lookback.txt" 2>&1; echo "rc=$?"; tail -1 "$O/test_radix_lookback.txt"
grep FAIL "$O/test_radix_lookback.txt" | head -5
R=9
b() { lab=$1; shift
    env BENCH_HOST=0 "$@" timeout 200 ./build/bench sort --no-host --runs $R 24 28 2>/dev/null | grep -v '"copy"' | sed "s/^{/{\"label\":\"$lab\",/" >> "$O/sweep.jsonl"; }
echo "== sweep"
b base BENCH_VARIANT=u32_keys,u64_keys,u32_u32_pairs

b u32_r10 BENCH_VARIANT=u32_keys BENCH_RADIX_BITS=10
b u32_r11 BENCH_VARIANT=u32_keys,u32_u32_pairs BENCH_RADIX_BITS=11
b u32_e30 BENCH_VARIANT=u32_keys,u32_u32_pairs BENCH_END_BIT=30
b u32_e30_r10 BENCH_VARIANT=u32_keys,u32_u32_pairs BENCH_END_BIT=30 BENCH_RADIX_BITS=10
b b10 BENCH_VARIANT=u32_keys_10bit,u32_keys_10bit_1pass
b b10_t20 BENCH_VARIANT=u32_keys_10bit_1pass CLSORT_TILE=256:20
b u32_e9_r9 BENCH_VARIANT=u32_keys BENCH_END_BIT=9 BENCH_RADIX_BITS=9
b u32_e9 BENCH_VARIANT=u32_keys BENCH_END_BIT=9
b u32_e11_r11 BENCH_VARIANT=u32_keys BENCH_END_BIT=11 BENCH_RADIX_BITS=11
b u32_e11 BENCH_VARIANT=u32_keys BENCH_END_BIT=11
b u32_e18_r9 BENCH_VARIANT=u32_keys BENCH_END_BIT=18 BENCH_RADIX_BITS=9
b u32_e18 BENCH_VARIANT=u32_keys BENCH_END_BIT=18
b u32_e20_r10 BENCH_VARIANT=u32_keys BENCH_END_BIT=20 BENCH_RADIX_BITS=10
b u32_e20 BENCH_VARIANT=u32_keys BENCH_END_BIT=20
b u64_r10 BENCH_VARIANT=u64_keys BENCH_RADIX_BITS=10
b u32_e22_r11 BENCH_VARIANT=u32_keys BENCH_END_BIT=22 BENCH_RADIX_BITS=11
b u32_e22 BENCH_VARIANT=u32_keys BENCH_END_BIT=22
b u32_e30_r10_t20 BENCH_VARIANT=u32_keys BENCH_END_BIT=30 BENCH_RADIX_BITS=10 CLSORT_TILE=256:20
python3 - "$O/sweep.jsonl" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l); print('%-12s %-22s 2^%d %9.4f'%(d['label'],d['variant'],d['n'].bit_length()-1,d['ms']))
PY
cp build/exp/digits4.sh "$O/"
