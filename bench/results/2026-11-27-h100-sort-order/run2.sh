#!/bin/sh
# Two ranks a register (the working tree) against one rank and digit a register (build/old), tile shapes,
# registers, and the SASS of both. Prepare as run.sh.
set -u
for p in ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo; do dpkg -x build/gpu/debs/${p}_*.deb / >/dev/null 2>&1; done; ldconfig
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia
O=${OUT:-/tmp/out}; mkdir -p $O
make -j16 WARN="-Wall -Wextra -pedantic" build/bench build/test_clsort > $O/make.txt 2>&1 || echo BUILD FAILED
cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -o build/bench_old build/old/bench_old.c build/std_sort.o build/nbody_host.o -lOpenCL -lm -lstdc++ || echo OLD FAILED
F='^sort/(u32_keys|u32_u32_pairs|u64_keys)$'
mkdir -p /tmp/sass
for v in old new; do for t in 384:20 384:16 256:20 256:24 512:16; do
  b=build/bench; [ $v = old ] && b=build/bench_old
  c=/tmp/c_${v}_$t; rm -rf $c
  CLSORT_TILE=$t CLSORT_CACHE_DIR=$c CLSORT_CACHE_WHEN=build CUDA_CACHE_DISABLE=1 $b sort --filter '^sort/u32_keys$' --no-host --runs 2 20 > /dev/null 2>>$O/err.txt
  for e in $c/*.bin; do tail -c +97 "$e" > /tmp/x.cubin
    if cuobjdump -res-usage /tmp/x.cubin 2>/dev/null | grep -q onesweep; then
      echo "$v $t $(cuobjdump -res-usage /tmp/x.cubin 2>/dev/null | grep -A1 onesweep | grep -o 'REG:[0-9]*\|LOCAL:[0-9]*' | tr '\n' ' ')"
      [ $t = 384:20 ] && cuobjdump -sass /tmp/x.cubin > /tmp/sass/${v}_u32.sass
    fi; done
done; done | tee $O/regs.txt
tar czf $O/sass.tgz -C /tmp sass
timeout 200 build/test_clsort --quick radix --path lookback > $O/test_radix.txt 2>&1; echo "test radix lookback: $(tail -1 $O/test_radix.txt)"
for round in 1 2; do for v in old new; do
  b=build/bench; [ $v = old ] && b=build/bench_old
  CLSORT_CACHE_DIR=/tmp/c_${v}_384:20 $b sort --filter "$F" --no-host --runs 11 24 28 2>/dev/null | sed "s/^/$v 384:20 /"
  for t in 384:16 256:20 256:24 512:16; do
    CLSORT_TILE=$t CLSORT_CACHE_DIR=/tmp/c_${v}_$t $b sort --filter '^sort/u32_keys$' --no-host --runs 11 28 2>/dev/null | sed "s/^/$v $t /"
  done
done; done > $O/times.txt
python3 - "$O" <<'PY'
import sys, json, collections
o = sys.argv[1]; t = collections.defaultdict(list)
for line in open(o + '/times.txt'):
    v, tile, js = line.split(' ', 2)
    try: r = json.loads(js)
    except Exception: continue
    t[(r['variant'], r['n'], tile, v)].append(r['ms'])
for k in sorted(set(x[:3] for x in t)):
    print(k, 'old', t[k + ('old',)], 'new', t[k + ('new',)])
PY
