#!/bin/sh
# experiment: u16 keys with/without fill16; radix suite on H100; kernel times of scan/pack at 2^20
for p in ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo; do dpkg -x build/gpu/debs/${p}_*.deb / >/dev/null 2>&1; done; ldconfig
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia
O=$OUT/e; mkdir -p $O
make -j16 WARN="-Wall -Wextra -pedantic" build/bench build/test_clsort build/kernel_times.so > $O/build.log 2>&1 || { tail -20 $O/build.log; exit 1; }
cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -Ibuild/exp -I. -o build/bench_exp build/exp/bench_exp.c build/std_sort.o build/nbody_host.o -lOpenCL -lm -lstdc++ 2>$O/exp_build.log || { echo EXP FAILED; cat $O/exp_build.log | head; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
echo "== u16 fill16 vs two one-sweep passes"
for round in 1 2 3; do
  build/bench_exp sort --filter '^sort/u16_keys$' --no-host --runs 11 20 24 28 2>/dev/null | sed "s/^/fill16 r$round /"
  EXP_NOFILL16=1 build/bench_exp sort --filter '^sort/u16_keys$' --no-host --runs 11 20 24 28 2>/dev/null | sed "s/^/nofill r$round /"
done > $O/u16.txt
sed 's/"device":"[^"]*",*//' $O/u16.txt | cut -c1-160
echo "== kernel times 2^20"
for f in '^scan/u32_exclusive$' '^pack/u32_flags_half$' '^copy/u32$' '^sort/u16_keys$' '^sort/u32_keys$'; do
  LD_PRELOAD=$PWD/build/kernel_times.so build/bench scan pack sort --filter "$f" --no-host --runs 11 20 2>&1 | grep -v '^bench:' | sed "s|^|$f |"
done > $O/ktimes.txt 2>&1; cat $O/ktimes.txt | cut -c1-200
echo "== EXP_NOFILL16 kernel times"
EXP_NOFILL16=1 LD_PRELOAD=$PWD/build/kernel_times.so build/bench_exp sort --filter '^sort/u16_keys$' --no-host --runs 11 20 2>&1 | grep -v '^bench:'
echo "== radix suite"
( time timeout 330 build/test_clsort --quick --jobs 12 radix ) > $O/radix.log 2>&1; echo "rc=$?"
grep -E '^\s+\[' $O/radix.log | grep -v 'so far' | sort | head -30; tail -4 $O/radix.log; grep -i FAIL $O/radix.log | head
