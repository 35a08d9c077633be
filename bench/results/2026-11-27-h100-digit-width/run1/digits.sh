#!/bin/sh
# Digit-width sweep of the one-sweep pass (wide digits), with correctness first.
set -u
cd "$(dirname "$0")/../.." || exit 1
O=${OUT:-/tmp/out}; mkdir -p "$O"
for f in build/gpu/debs/ocl-icd-libopencl1_*.deb build/gpu/debs/ocl-icd-opencl-dev_*.deb build/gpu/debs/opencl-c-headers_*.deb build/gpu/debs/clinfo_*.deb; do dpkg -x "$f" /; done
ldconfig; mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia CLSORT_CACHE_DIR=off
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$O/device.txt"
git log -1 --format=%H > "$O/commit.txt" 2>/dev/null || cat build/gpu/commit > "$O/commit.txt"
( nvcc -O3 -std=c++17 --extended-lambda -arch=sm_90 -o build/cub_bench bench/peers/cub_bench.cu > "$O/nvcc.log" 2>&1 ) &
make -j8 WARN="-Wall -Wextra -pedantic" build/bench build/test_clsort > "$O/make.log" 2>&1 || { tail -20 "$O/make.log"; exit 1; }
( cd build/gpu/rev/abe28d6 && make -j8 WARN="-Wall -Wextra -pedantic" build/bench > "$O/make_old.log" 2>&1 ) || echo "old bench failed"
echo "== tests"
timeout 200 ./build/test_clsort --quick radix --path lookback > "$O/test_radix.txt" 2>&1; echo "rc=$?"; tail -3 "$O/test_radix.txt"
grep FAIL "$O/test_radix.txt" | head -5
wait
R=9
b() { # b LABEL ENV... : one bench row set
    lab=$1; shift
    env BENCH_HOST=0 "$@" timeout 200 ./build/bench sort --no-host --runs $R 24 28 2>/dev/null | sed "s/^{/{\"label\":\"$lab\",/" | tee -a "$O/sweep.jsonl"
}
echo "== sweep"
for round in 1 2; do
  env BENCH_VARIANT=u32_keys,u64_keys,u32_u32_pairs BENCH_HOST=0 timeout 200 build/gpu/rev/abe28d6/build/bench sort --no-host --runs $R 24 28 2>/dev/null | sed "s/^{/{\"label\":\"main-r$round\",/" | tee -a "$O/sweep.jsonl"
  b "new-r$round" BENCH_VARIANT=u32_keys,u64_keys,u32_u32_pairs
done
b u64_r9 BENCH_VARIANT=u64_keys BENCH_RADIX_BITS=9
b u64_r10 BENCH_VARIANT=u64_keys BENCH_RADIX_BITS=10
b u64_r11 BENCH_VARIANT=u64_keys BENCH_RADIX_BITS=11
b u32_r11 BENCH_VARIANT=u32_keys,u32_u32_pairs BENCH_RADIX_BITS=11
b u32_r10 BENCH_VARIANT=u32_keys BENCH_RADIX_BITS=10
b u32_e30 BENCH_VARIANT=u32_keys BENCH_END_BIT=30
b u32_e30_r10 BENCH_VARIANT=u32_keys,u32_u32_pairs BENCH_END_BIT=30 BENCH_RADIX_BITS=10
b u32_e27_r9 BENCH_VARIANT=u32_keys BENCH_END_BIT=27 BENCH_RADIX_BITS=9
b u32_e27 BENCH_VARIANT=u32_keys BENCH_END_BIT=27
b b10 BENCH_VARIANT=u32_keys_10bit,u32_keys_10bit_1pass
b u32_e11_r11 BENCH_VARIANT=u32_keys BENCH_END_BIT=11 BENCH_RADIX_BITS=11
b u32_e11 BENCH_VARIANT=u32_keys BENCH_END_BIT=11
b u32_e20_r10 BENCH_VARIANT=u32_keys BENCH_END_BIT=20 BENCH_RADIX_BITS=10
b u32_e20 BENCH_VARIANT=u32_keys BENCH_END_BIT=20
b u32_e22_r11 BENCH_VARIANT=u32_keys BENCH_END_BIT=22 BENCH_RADIX_BITS=11
b u32_e22 BENCH_VARIANT=u32_keys BENCH_END_BIT=22
echo "== cub"
[ -x build/cub_bench ] && timeout 150 ./build/cub_bench 24 28 > "$O/cub.txt" 2>&1; grep -i "sort" "$O/cub.txt" | head -20
cp build/exp/digits.sh "$O/"
