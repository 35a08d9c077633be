#!/bin/sh
set -u
cd "$(dirname "$0")/../.." || exit 1
O=${OUT:-/tmp/out}; mkdir -p "$O/f"
for f in build/gpu/debs/ocl-icd-libopencl1_*.deb build/gpu/debs/ocl-icd-opencl-dev_*.deb build/gpu/debs/opencl-c-headers_*.deb build/gpu/debs/clinfo_*.deb; do dpkg -x "$f" /; done
ldconfig; mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia CLSORT_CACHE_DIR=off
cat build/gpu/commit > "$O/f/commit.txt"
make -j8 WARN="-Wall -Wextra -pedantic" build/bench build/test_clsort > "$O/f/make.log" 2>&1 || { tail -20 "$O/f/make.log"; exit 1; }
for v in A W4 W8 W16; do cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -Ibuild/exp/$v -I. -o build/bench_$v build/exp/bench_exp.c build/std_sort.o build/nbody_host.o -lOpenCL -lm -lstdc++ || echo "BUILD $v FAILED"; done
echo "== tests (final commit)"
timeout 200 ./build/test_clsort --quick radix --path lookback > "$O/f/test_radix.txt" 2>&1; echo "rc=$?"; grep "radix, " "$O/f/test_radix.txt" | grep -v "so far"; tail -1 "$O/f/test_radix.txt"
grep FAIL "$O/f/test_radix.txt" | head -5
echo "== look-back window: A (1, committed), W4, W8, W16, interleaved, 2^24 2^28"
for round in 1 2; do for v in A W4 W8 W16; do
  env BENCH_VARIANT=u32_keys,u64_keys,u32_u32_pairs,u32_keys_10bit BENCH_HOST=0 timeout 150 ./build/bench_$v sort --no-host --runs 9 24 28 2>/dev/null | grep -v '"copy"' | sed "s/^{/{\"label\":\"$v-r$round\",/" >> "$O/f/window.jsonl"
done; done
python3 - "$O/f/window.jsonl" <<'PY'
import json,sys
for l in open(sys.argv[1]):
    d=json.loads(l); print('%-6s %-22s 2^%d %9.4f'%(d['label'],d['variant'],d['n'].bit_length()-1,d['ms']))
PY
cp build/exp/final3.sh "$O/f/"
