#!/bin/sh
# Cold start on the lent GPU machine (issue 18), from the project root:
# build/coldstart (built here: make build/coldstart) with NVIDIA's own
# program cache off (CUDA_CACHE_DISABLE=1), so that what is measured is
# clsort's program cache alone: no cache at all, clsort's cache cold (it is
# filled), warm, warm after one clsort_prepare; then the same at 2^20. Expects
# .gpu/ (carried) to hold the ICD loader .debs (/work/shared/gpu/README.md).
#   sh bench/coldstart_gpu.sh            logs under $OUT (default /tmp)
set -u
out=${OUT:-/tmp}
for f in .gpu/*.deb; do dpkg -x "$f" /; done
ldconfig
mkdir -p /etc/OpenCL/vendors
echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
export CLSORT_DEVICE=nvidia CUDA_CACHE_DISABLE=1
cache="$out/clsort_cache"
rm -rf "$cache"
{
  echo "## no cache"; ./build/coldstart off 16
  echo "## clsort cache cold"; ./build/coldstart "$cache" 16
  echo "## clsort cache warm"; ./build/coldstart "$cache" 16
  echo "## clsort cache warm, again"; ./build/coldstart "$cache" 16
  echo "## clsort cache warm, clsort_prepare first"; ./build/coldstart "$cache" 16 --prepare
  echo "## no cache, clsort_prepare first"; ./build/coldstart off 16 --prepare
  echo "## NVIDIA's cache on (CUDA_CACHE_DISABLE unset), clsort cache off: second run"
  env -u CUDA_CACHE_DISABLE ./build/coldstart off 16 > /dev/null
  env -u CUDA_CACHE_DISABLE ./build/coldstart off 16
  ls -la "$cache" | head -20; du -sh "$cache"
} 2>&1 | tee "$out/coldstart.txt"
