#!/bin/sh
# Values with a full-tile path (the working tree) against b015054 (build/old), CUB in the same command; the radix
# part of the suite on the GPU.
set -u
for p in ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo; do dpkg -x build/gpu/debs/${p}_*.deb / >/dev/null 2>&1; done; ldconfig
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia
O=${OUT:-/tmp/out}; mkdir -p $O
(nvcc -O3 -std=c++17 --extended-lambda -arch=sm_90 -o build/cub_bench bench/peers/cub_bench.cu > $O/nvcc.txt 2>&1) &
make -j16 WARN="-Wall -Wextra -pedantic" build/bench build/test_clsort > $O/make.txt 2>&1 || echo BUILD FAILED
cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -o build/bench_old build/old/bench_old.c build/std_sort.o build/nbody_host.o -lOpenCL -lm -lstdc++ || echo OLD FAILED
F='^sort/(u32_u32_pairs|u32_keys_permutation|u32_keys_16byte_values)$'
for v in old new; do
  b=build/bench; [ $v = old ] && b=build/bench_old
  rm -rf /tmp/c_$v; CLSORT_CACHE_DIR=/tmp/c_$v CLSORT_CACHE_WHEN=build CUDA_CACHE_DISABLE=1 $b sort --filter "$F" --no-host --runs 2 20 > /dev/null 2>&1
  echo "$v: $(for e in /tmp/c_$v/*.bin; do tail -c +97 "$e" > /tmp/x.cubin; cuobjdump -res-usage /tmp/x.cubin 2>/dev/null | grep -A1 onesweep; done | grep -o 'REG:[0-9]*\|LOCAL:[0-9]*' | tr '\n' ' ')"
done
timeout 200 build/test_clsort --quick radix > $O/test_radix.txt 2>&1; echo "test radix: $(tail -1 $O/test_radix.txt)"
wait
for round in 1 2; do for v in old new; do
  b=build/bench; [ $v = old ] && b=build/bench_old
  CLSORT_CACHE_DIR=/tmp/c_$v $b sort --filter "$F" --no-host --runs 11 24 28 2>/dev/null | sed "s/^/$v /"
done; done > $O/times.txt
python3 - "$O" <<'PY'
import sys, json, collections
o = sys.argv[1]; t = collections.defaultdict(list)
for line in open(o + '/times.txt'):
    v, _, js = line.partition(' ')
    try: r = json.loads(js)
    except Exception: continue
    t[(r['variant'], r['n'], v)].append(r['ms'])
for k in sorted(set(x[:2] for x in t)):
    print(k, 'old', t[k + ('old',)], 'new', t[k + ('new',)])
PY
build/cub_bench 24 28 2>&1 | grep sortpairs_u32_b32
