#!/bin/sh
# Tile shapes x the two rank forms: registers and time at 2^28 (H100). build/old/clsort.h: a rank and its digit a
# register; build/exp/clsort.h: two ranks a register; both with EXP_WG / EXP_ITEMS overriding the one-sweep tile.
set -u
for p in ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo; do dpkg -x build/gpu/debs/${p}_*.deb / >/dev/null 2>&1; done; ldconfig
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia
O=${OUT:-/tmp/out}; mkdir -p $O /tmp/sass
make -j16 WARN="-Wall -Wextra -pedantic" build/bench > $O/make.txt 2>&1 || echo BUILD FAILED
for v in old exp; do
  cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -o build/bench_$v build/$v/bench_old.c build/std_sort.o build/nbody_host.o -lOpenCL -lm -lstdc++ || echo $v FAILED
done
for cfg in u32_keys:384:20 u32_keys:384:18 u32_keys:384:16 u32_keys:256:20 u32_keys:256:24 u32_keys:256:28 u32_keys:320:20 \
           u32_u32_pairs:256:20 u32_u32_pairs:256:16 u32_u32_pairs:384:16 u64_keys:256:16 u64_keys:256:12 u64_keys:384:12; do
  row=${cfg%%:*}; rest=${cfg#*:}; wg=${rest%%:*}; it=${rest#*:}
  for v in old exp; do
    c=/tmp/c_${v}_${row}_${wg}_$it; rm -rf $c
    EXP_WG=$wg EXP_ITEMS=$it CLSORT_CACHE_DIR=$c CLSORT_CACHE_WHEN=build CUDA_CACHE_DISABLE=1 build/bench_$v sort --filter "^sort/$row\$" --no-host --runs 2 20 > /dev/null 2>>$O/err.txt
    r=""
    for e in $c/*.bin; do tail -c +97 "$e" > /tmp/x.cubin
      if cuobjdump -res-usage /tmp/x.cubin 2>/dev/null | grep -q onesweep; then
        r=$(cuobjdump -res-usage /tmp/x.cubin 2>/dev/null | grep -A1 onesweep | grep -o 'REG:[0-9]*\|LOCAL:[0-9]*' | tr '\n' ' ')
        cuobjdump -sass /tmp/x.cubin > /tmp/sass/${v}_${row}_${wg}_$it.sass
      fi; done
    ms=$(EXP_WG=$wg EXP_ITEMS=$it CLSORT_CACHE_DIR=$c build/bench_$v sort --filter "^sort/$row\$" --no-host --runs 11 28 2>>$O/err.txt | grep -o '"ms":[0-9.]*')
    echo "$row $wg x $it $v: $r $ms"
  done
done | tee $O/sweep.txt
tar czf $O/sass.tgz -C /tmp sass
