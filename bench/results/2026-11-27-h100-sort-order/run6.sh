#!/bin/sh
# Tile shapes of the final pass for pairs and u64 keys (build/exp/clsort.h: the header with EXP_WG / EXP_ITEMS
# overriding the one-sweep tile): registers and time at 2^28, one process per shape (it builds, stores the
# cubin for the register count, and times).
set -u
for p in ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo; do dpkg -x build/gpu/debs/${p}_*.deb / >/dev/null 2>&1; done; ldconfig
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia
O=${OUT:-/tmp/out}; mkdir -p $O
c++ -O2 -c -o /tmp/std_sort.o bench/std_sort.cpp & cc -std=c99 -O3 -c -o /tmp/nbody_host.o bench/nbody_host.c; wait
cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -o /tmp/bench_exp build/exp/bench_old.c /tmp/std_sort.o /tmp/nbody_host.o -lOpenCL -lm -lstdc++ || echo EXP FAILED
for cfg in u32_u32_pairs:256:20 u32_u32_pairs:256:24 u32_u32_pairs:256:32 u32_u32_pairs:256:28 u64_keys:256:16 u64_keys:256:20 u64_keys:256:12; do
  row=${cfg%%:*}; rest=${cfg#*:}; wg=${rest%%:*}; it=${rest#*:}
  c=/tmp/c_${row}_${wg}_$it
  ms=$(EXP_WG=$wg EXP_ITEMS=$it CLSORT_CACHE_DIR=$c CLSORT_CACHE_WHEN=build CUDA_CACHE_DISABLE=1 /tmp/bench_exp sort --filter "^sort/$row\$" --no-host --runs 11 28 2>>$O/err.txt | grep -o '"ms":[0-9.]*')
  r=$(for e in $c/*.bin; do tail -c +97 "$e" > /tmp/x.cubin; cuobjdump -res-usage /tmp/x.cubin 2>/dev/null | grep -A1 onesweep; done | grep -o 'REG:[0-9]*\|LOCAL:[0-9]*' | tr '\n' ' ')
  echo "$row $wg x $it: $r $ms" | tee -a $O/sweep.txt
done
