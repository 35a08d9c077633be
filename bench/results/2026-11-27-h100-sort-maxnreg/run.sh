#!/bin/sh
# Prepare (in the project root): mkdir -p build/exp; cp clsort.h build/exp/ && (cd build/exp && patch -p1 < ../../bench/results/2026-11-27-h100-sort-maxnreg/maxnreg.patch);
# sed 's|#include "../clsort.h"|#include "clsort.h"|' bench/bench.c > build/exp/bench_exp.c; carry build/gpu (bench/README.md).
for p in ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo; do dpkg -x build/gpu/debs/${p}_*.deb / >/dev/null 2>&1; done; ldconfig
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia CUDA_CACHE_DISABLE=1
make -j16 WARN="-Wall -Wextra -pedantic" build/bench >/dev/null 2>&1 || echo BUILD FAILED
cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -o build/bench_exp build/exp/bench_exp.c build/std_sort.o build/nbody_host.o -lOpenCL -lm -lstdc++ || echo EXP FAILED
O=$OUT/e; mkdir -p $O
F='^sort/u32_keys$|^sort/u32_u32_pairs$'
for cfg in 0 56 48; do
  rm -rf /tmp/c_$cfg
  EXP_MAXNREG=$cfg CLSORT_CACHE_DIR=/tmp/c_$cfg CLSORT_CACHE_WHEN=build build/bench_exp sort --filter "$F" --no-host --runs 2 20 > /dev/null 2>>$O/err.txt
  for e in /tmp/c_$cfg/*.bin; do tail -c +97 "$e" > /tmp/x.cubin; cuobjdump -res-usage /tmp/x.cubin 2>/dev/null | grep -A1 onesweep; done > $O/res_$cfg.txt
  echo "cfg $cfg: $(grep -o 'REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*' $O/res_$cfg.txt | tr '\n' ' ')"
done
for round in 1 2; do for cfg in 0 56 48; do
  CLSORT_CACHE_DIR=/tmp/c_$cfg build/bench_exp sort --filter "$F" --no-host --runs 11 28 2>/dev/null | sed "s/^/cfg=$cfg /"
done; done > $O/times.txt; sed 's/"device": "[^"]*", //; s/"primitive":"sort",//' $O/times.txt | cut -c1-150
