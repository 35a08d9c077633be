#!/bin/sh
set -u
cd "$(dirname "$0")/../.." || exit 1
O=${OUT:-/tmp/out}; mkdir -p "$O"
for f in build/gpu/debs/ocl-icd-libopencl1_*.deb build/gpu/debs/ocl-icd-opencl-dev_*.deb build/gpu/debs/opencl-c-headers_*.deb build/gpu/debs/clinfo_*.deb; do dpkg -x "$f" /; done
ldconfig; mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia
make -j8 WARN="-Wall -Wextra -pedantic" build/bench > "$O/make.log" 2>&1 || { tail -20 "$O/make.log"; exit 1; }
for cfg in "u32_keys 8" "u32_keys 9" "u32_keys 10" "u32_keys 11" "u64_keys 10"; do
  set -- $cfg
  c=/tmp/cache_$1_$2; rm -rf $c
  env CLSORT_CACHE_DIR=$c CLSORT_CACHE_WHEN=build BENCH_VARIANT=$1 BENCH_RADIX_BITS=$2 BENCH_HOST=0 ./build/bench sort --no-host --runs 3 24 2>/dev/null | grep -v copy
  for e in $c/*.bin; do tail -c +97 "$e" > /tmp/x.cubin; cuobjdump -res-usage /tmp/x.cubin 2>&1 | grep -A1 "onesweep" | sed "s/^/$1 r$2: /"; done
done 2>&1 | tee "$O/res.txt"
