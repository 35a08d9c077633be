#!/bin/sh
# Cold start on the lent GPU machine (issue 18), from the project root, with
# NVIDIA's own program cache off (CUDA_CACHE_DISABLE=1), so that what is
# measured is clsort's program cache alone. Binaries built on the development
# machine (same x86-64), carried in build/:
#   make build/coldstart build/coldstart_before build/nv_probe
# (coldstart_before: the same program against main's header, BEFORE=ref).
# Expects .gpu/ (carried) to hold the ICD loader .debs (/work/shared/gpu/README.md).
#   sh bench/coldstart_gpu.sh            logs under $OUT (default /tmp)
# For "before" and "after": no cache with the per-program table (each program
# built again from source and from its binary: front end + ptxas, ptxas
# alone), clsort's cache cold (filled), warm, warm again, warm after one
# clsort_prepare. Then (after only) the driver probes: does clBuildProgram
# overlap builds given a callback; per cache entry, its build from the
# binary at -cl-nv-opt-level 3..0; ptxas alone on each entry's PTX; whether
# the driver loads a cubin or fatbin made from it (clCreateProgramWithBinary).
set -u
out=${OUT:-/tmp}
. bench/gpu_setup.sh
nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
export CLSORT_DEVICE=nvidia CUDA_CACHE_DISABLE=1
sm=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
cudabin=$(dirname "$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)")
ptxas=$(command -v ptxas || ls "$cudabin/ptxas" /usr/local/cuda*/bin/ptxas 2>/dev/null | head -1)
fatbinary=$(command -v fatbinary || ls "$cudabin/fatbinary" /usr/local/cuda*/bin/fatbinary 2>/dev/null | head -1)
[ -n "$ptxas" ] && "$ptxas" --version | tail -1
{
  for v in before after; do
    bin=./build/coldstart; [ $v = before ] && bin=./build/coldstart_before
    cache="$out/clsort_cache_$v"
    rm -rf "$cache"
    echo "## $v: no cache, per-program build times"; $bin off 16 --programs
    echo "## $v: clsort cache cold"; $bin "$cache" 16
    echo "## $v: clsort cache warm"; $bin "$cache" 16
    echo "## $v: clsort cache warm, again"; $bin "$cache" 16
    echo "## $v: clsort cache warm, clsort_prepare first"; $bin "$cache" 16 --prepare
    ls -la "$cache" | grep -c '\.bin$'; du -sh "$cache"
  done
  echo "## NVIDIA's cache on (CUDA_CACHE_DISABLE unset), clsort cache off: second run"
  env -u CUDA_CACHE_DISABLE ./build/coldstart off 16 > /dev/null
  env -u CUDA_CACHE_DISABLE ./build/coldstart off 16
  echo "## probe: clBuildProgram with a callback"; ./build/nv_probe async
  echo "## probe: cache entries built from their binary at each ptxas level"
  ./build/nv_probe entries "$out/clsort_cache_after"
  echo "## probe: ptxas ($ptxas, sm_$sm) on each entry's PTX, and the driver on a cubin / fatbin of it"
  for d in "$out"/clsort_cache_after/*.drv; do
    k=$(basename "$d" .drv | cut -c1-16)
    echo "# entry $k: $(grep -m1 '^\.version' "$d") $(grep -m1 '^\.target' "$d"), $(grep -c '\.entry' "$d") .entry"
    [ -n "$ptxas" ] || { echo "no ptxas"; break; }
    src="$d"
    "$ptxas" -arch=sm_$sm -O0 "$d" -o /dev/null 2>/dev/null || { # a PTX ISA newer than this ptxas: try 8.0
      sed 's/^\.version .*/.version 8.0/' "$d" > "$d.v80.ptx"; src="$d.v80.ptx"; echo "(ptxas refused the PTX version; .version 8.0)"; }
    for o in 3 0; do
      t0=$(date +%s%N)
      "$ptxas" -arch=sm_$sm -O$o "$src" -o "$d.O$o.cubin" 2>&1 | tail -2
      echo "ptxas -O$o: $(( ($(date +%s%N) - t0) / 1000000 )) ms, $(stat -c %s "$d.O$o.cubin" 2>/dev/null) bytes"
    done
    ./build/nv_probe load "$d.O3.cubin" | tail -2
    if [ -n "$fatbinary" ]; then
      "$fatbinary" --create="$d.fatbin" -64 --image3=kind=elf,sm=$sm,file="$d.O3.cubin" 2>/dev/null ||
        "$fatbinary" --create="$d.fatbin" -64 --image=profile=sm_$sm,file="$d.O3.cubin" 2>&1 | tail -1
      ./build/nv_probe load "$d.fatbin" | tail -2
    fi
    ./build/nv_probe load "$d" "-cl-std=CL1.2 -cl-nv-verbose" | tail -12
  done
} 2>&1 | tee "$out/coldstart.txt"
