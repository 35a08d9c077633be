#!/bin/sh
# per-phase clocks of the one-sweep pass (build/exp/P: kernels/radix.cl and clsort.h with the phase patch); Nsight Compute
for p in ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo; do dpkg -x build/gpu/debs/${p}_*.deb / >/dev/null 2>&1; done; ldconfig
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia
O=$OUT/e; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader
( nvcc -O3 -std=c++17 --extended-lambda -arch=sm_90 -o build/cub_bench bench/peers/cub_bench.cu > $O/nvcc.log 2>&1; echo done > /tmp/nvcc_done ) &
make -j8 WARN="-Wall -Wextra -pedantic" build/bench > $O/build.log 2>&1 || { tail $O/build.log; exit 1; }
for v in A P; do cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -Ibuild/exp/$v -I. -o build/bench_$v build/exp/bench_exp.c build/std_sort.o build/nbody_host.o -lOpenCL -lm -lstdc++ || echo "BUILD $v FAILED"; done
for f in '^sort/u32_keys$' '^sort/u32_u32_pairs$' '^sort/u64_keys$'; do for s in 24 28; do
  EXP_PHASES=1 build/bench_P sort --filter "$f" --no-host --runs 1 $s 2>&1 | grep -v '^bench:' | tail -9
done; done > $O/phases.txt 2>&1
cat $O/phases.txt | cut -c1-400
echo "== instrumentation cost (ms, --runs 7)"
for v in A P A P; do build/bench_$v sort --filter '^sort/u32_keys$|^sort/u64_keys$' --no-host --runs 7 28 2>/dev/null | sed "s/^/$v /"; done | sed 's/"device":"[^"]*"//'
echo "== ncu on the OpenCL process"
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1); echo "ncu: $NCU"
timeout 150 $NCU --kernel-name regex:radix_onesweep --launch-skip 4 --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats build/bench_A sort --filter '^sort/u32_keys$' --no-host --runs 1 24 > $O/ncu_clsort.txt 2>&1; echo "ncu clsort rc=$?"
grep -E "Registers|Achieved Occupancy|Theoretical Occupancy|Block Limit|Duration|Memory Throughput|Stall|Warp Cycles|Compute \(SM\)|==PROF==|==ERROR==|==WARNING==" $O/ncu_clsort.txt | head -40
while [ ! -f /tmp/nvcc_done ]; do sleep 2; done; tail -3 $O/nvcc.log
timeout 150 $NCU --kernel-name regex:Onesweep --launch-count 1 --section SpeedOfLight --section Occupancy --section WarpStateStats --section LaunchStats build/cub_bench 24 > $O/ncu_cub.txt 2>&1; echo "ncu cub rc=$?"
grep -E "Registers|Achieved Occupancy|Theoretical Occupancy|Block Limit|Duration|Memory Throughput|Stall|Warp Cycles|Compute \(SM\)|==PROF==|==ERROR==" $O/ncu_cub.txt | head -40
