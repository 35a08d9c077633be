#!/bin/sh
# u64 keys (and u32 keys) under a register cap on the one-sweep pass: build/exp/M = this commit's clsort.h with
# bench/results/2026-11-27-h100-sort-maxnreg/maxnreg.patch (EXP_MAXNREG=N: .maxnreg N on radix_onesweep in the cubin path)
for p in ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo; do dpkg -x build/gpu/debs/${p}_*.deb / >/dev/null 2>&1; done; ldconfig
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia CUDA_CACHE_DISABLE=1
O=$OUT/e; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader
make -j8 WARN="-Wall -Wextra -pedantic" build/bench > $O/build.log 2>&1 || { tail $O/build.log; exit 1; }
cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -Ibuild/exp/M -I. -o build/bench_M build/exp/bench_exp.c build/std_sort.o build/nbody_host.o -lOpenCL -lm -lstdc++ || echo "BUILD FAILED"
F='^sort/u64_keys$|^sort/u32_keys$'
for cfg in 0 64 56 48; do
  rm -rf /tmp/c_$cfg
  EXP_MAXNREG=$cfg CLSORT_CACHE_DIR=/tmp/c_$cfg CLSORT_CACHE_WHEN=build build/bench_M sort --filter "$F" --no-host --runs 2 20 > /dev/null 2>>$O/err.txt
  for e in /tmp/c_$cfg/*.bin; do tail -c +97 "$e" > /tmp/x.cubin; cuobjdump -res-usage /tmp/x.cubin 2>/dev/null | grep -A1 onesweep; done > $O/res_$cfg.txt
  echo "cfg $cfg: $(grep -o 'REG:[0-9]*\|STACK:[0-9]*\|LOCAL:[0-9]*' $O/res_$cfg.txt | tr '\n' ' ')"
done
for round in 1 2; do for cfg in 0 64 56 48; do
  CLSORT_CACHE_DIR=/tmp/c_$cfg build/bench_M sort --filter "$F" --no-host --runs 11 24 28 2>/dev/null | sed "s/^/cfg=$cfg r$round /"
done; done > $O/times.txt; sed 's/"device":"[^"]*"//; s/"items_per_s":[^,]*,//' $O/times.txt
