#!/bin/sh
# u32 pairs at 2^20 and 2^24: 256 x 20 against 256 x 28 (build/exp/clsort.h as in run6.sh).
set -u
for p in ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers; do dpkg -x build/gpu/debs/${p}_*.deb / >/dev/null 2>&1; done; ldconfig
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia CLSORT_CACHE_DIR=off
O=${OUT:-/tmp/out}; mkdir -p $O
c++ -O2 -c -o /tmp/std_sort.o bench/std_sort.cpp & cc -std=c99 -O3 -c -o /tmp/nbody_host.o bench/nbody_host.c; wait
cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -o /tmp/bench_exp build/exp/bench_old.c /tmp/std_sort.o /tmp/nbody_host.o -lOpenCL -lm -lstdc++ || echo EXP FAILED
for it in 20 28 20 28; do
  echo "pairs 256 x $it: $(EXP_WG=256 EXP_ITEMS=$it /tmp/bench_exp sort --filter '^sort/u32_u32_pairs$' --no-host --runs 11 20 24 2>/dev/null | grep -o '"n":[0-9]*,"ms":[0-9.]*' | tr '\n' ' ')" | tee -a $O/pairs.txt
done
