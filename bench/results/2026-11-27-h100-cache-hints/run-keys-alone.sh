#!/bin/sh
set -u
cd "$(dirname "$0")/../.." || exit 1
O=${OUT:-/tmp/out}; mkdir -p "$O/f"
for f in build/gpu/debs/ocl-icd-libopencl1_*.deb build/gpu/debs/ocl-icd-opencl-dev_*.deb build/gpu/debs/opencl-c-headers_*.deb build/gpu/debs/clinfo_*.deb; do dpkg -x "$f" /; done
ldconfig; mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia CLSORT_CACHE_DIR=off
make -j8 WARN="-Wall -Wextra -pedantic" build/bench build/test_clsort > "$O/f/make.log" 2>&1 || { tail -20 "$O/f/make.log"; exit 1; }
for v in $VARIANTS; do cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -Ibuild/exp/$v -I. -o build/bench_$v build/exp/bench_exp.c build/std_sort.o build/nbody_host.o -lOpenCL -lm -lstdc++ || echo "BUILD $v FAILED"; done
echo "== tests (working tree)"
timeout 300 ./build/test_clsort --quick radix > "$O/f/test_radix.txt" 2>&1; echo "rc=$?"; grep "radix, " "$O/f/test_radix.txt" | grep -v "so far"; tail -1 "$O/f/test_radix.txt"
grep FAIL "$O/f/test_radix.txt" | head -5
echo "== registers"
for v in $VARIANTS; do rm -rf /tmp/c_$v; env CLSORT_CACHE_DIR=/tmp/c_$v CLSORT_CACHE_WHEN=build BENCH_VARIANT=u32_keys,u64_keys,u32_u32_pairs BENCH_HOST=0 timeout 100 ./build/bench_$v sort --no-host --runs 1 16 > /dev/null 2>&1
  for e in $(find /tmp/c_$v -type f); do tail -c +97 $e > /tmp/x.cubin; cuobjdump -res-usage /tmp/x.cubin 2>/dev/null | grep -A1 "radix_onesweep" | grep -o "REG:[0-9]*" | sed "s/^/$v /"; done | sort | uniq -c
done
echo "== timings interleaved"
for round in 1 2 3; do for v in $VARIANTS; do
  env BENCH_VARIANT=$ROWS BENCH_HOST=0 timeout 150 ./build/bench_$v sort --no-host --runs 7 $SIZES 2>/dev/null | grep -v '"copy"' | sed "s/^{/{\"label\":\"$v-r$round\",/" >> "$O/f/t.jsonl"
done; done
python3 - "$O/f/t.jsonl" <<'PY'
import json,sys
rows={}
for l in open(sys.argv[1]):
    d=json.loads(l); v,r=d['label'].split('-'); rows.setdefault((d['variant'],d['n'].bit_length()-1),{}).setdefault(v,[]).append(d['ms'])
for (var,lg),m in sorted(rows.items()):
    print('%-22s 2^%d  '%(var,lg)+'  '.join('%s %s'%(v,'/'.join('%.3f'%x for x in xs)) for v,xs in m.items()))
PY
cp build/exp/persist.sh "$O/f/"
cp build/exp/persist.sh "$O/f/"
