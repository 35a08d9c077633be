#!/bin/sh
# The one-sweep pass in register order against the previous kernel, CUB in the same command.
# Prepare (project root): mkdir -p build/old; git show <before>:clsort.h > build/old/clsort.h;
# sed 's|#include "../clsort.h"|#include "clsort.h"|' bench/bench.c > build/old/bench_old.c; carry build/gpu, build/old.
set -u
for p in ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo; do dpkg -x build/gpu/debs/${p}_*.deb / >/dev/null 2>&1; done; ldconfig
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia
O=${OUT:-/tmp/out}; mkdir -p $O
nvidia-smi -L > $O/device.txt
SM=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
(nvcc -O3 -std=c++17 --extended-lambda -arch=sm_$SM -o build/cub_bench bench/peers/cub_bench.cu > $O/nvcc.txt 2>&1) &
make -j16 WARN="-Wall -Wextra -pedantic" build/bench build/test_clsort > $O/make.txt 2>&1 || echo BUILD FAILED
cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -o build/bench_old build/old/bench_old.c build/std_sort.o build/nbody_host.o -lOpenCL -lm -lstdc++ || echo OLD FAILED
F='^sort/(u32_keys|u32_u32_pairs|u64_keys|u32_keys_16bit|u32_keys_10bit|u32_keys_permutation)$'
# registers and spills of radix_onesweep (and the cubins, for the SASS)
for v in old new; do
  b=build/bench; [ $v = old ] && b=build/bench_old
  rm -rf /tmp/c_$v
  CLSORT_CACHE_DIR=/tmp/c_$v CLSORT_CACHE_WHEN=build CUDA_CACHE_DISABLE=1 $b sort --filter "$F" --no-host --runs 2 20 > /dev/null 2>>$O/err.txt
  mkdir -p $O/cubin_$v; i=0
  for e in /tmp/c_$v/*.bin; do i=$((i+1)); tail -c +97 "$e" > $O/cubin_$v/$i.cubin
    cuobjdump -res-usage $O/cubin_$v/$i.cubin 2>/dev/null | grep -A1 onesweep | sed "s/^/$i /"; done > $O/res_$v.txt
  echo "$v: $(grep -o 'REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*\|SHARED:[0-9]*' $O/res_$v.txt | tr '\n' ' ')"
done
# correctness on this GPU first
timeout 300 build/test_clsort --quick radix > $O/test_radix.txt 2>&1; echo "test radix: $(tail -1 $O/test_radix.txt)"
wait
for round in 1 2; do for v in old new; do
  b=build/bench; [ $v = old ] && b=build/bench_old
  CLSORT_CACHE_DIR=/tmp/c_$v $b sort --filter "$F" --no-host --runs 11 20 24 28 2>/dev/null | sed "s/^/$v /"
done; done > $O/times.txt
build/cub_bench 20 24 28 > $O/cub.txt 2>&1
python3 - "$O" <<'PY'
import sys, json, re, collections
o = sys.argv[1]; t = collections.defaultdict(list)
for line in open(o + '/times.txt'):
    v, _, js = line.partition(' ')
    try: r = json.loads(js)
    except Exception: continue
    t[(r['variant'], r['n'], v)].append(r['ms'])
for k in sorted(set((a, b) for a, b, _ in t)):
    print(k, 'old', t[k + ('old',)], 'new', t[k + ('new',)])
PY
grep -i "sort" $O/cub.txt | head -40
grep -i "u64" $O/cub.txt
