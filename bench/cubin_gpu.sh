#!/bin/sh
# Issue 18 on the lent GPU machine: NVIDIA's program cache entries as cubin
# (clsort.h >>cubin). One command from the project root, about 2 minutes at
# most; builds nothing. Build here and carry build/ (and .gpu/, the ICD
# loader .debs that bench/gpu_setup.sh unpacks):
#   make build/coldstart build/test_clsort
#   sh bench/cubin_gpu.sh          (logs under $OUT, default /tmp; the cache in
#                                   /tmp/clsort_cubin_cache, emptied first unless KEEP_CACHE=1)
# Prints, a line at a time, every step under `timeout`:
#   the GPU and its libcuda;
#   bench/coldstart.c at 2^16 with NVIDIA's own cache off (CUDA_CACHE_DISABLE=1)
#   into an empty cache (cold: builds, links each PTX into a cubin, stores),
#   then again (warm: every program from its entry);
#   test_clsort --tiny base and --tiny sort: a first run each fills the
#   cache with the programs they take, a second takes them all from it
#   (pass/fail lines and the cache line: built from source, from the cache,
#   stored, as cubin, the last cache warning);
#   which entries are cubins (ELF magic after the 96-byte header) or PTX.
set -u
out=${OUT:-/tmp}
. bench/gpu_setup.sh
export CLSORT_DEVICE=nvidia CUDA_CACHE_DISABLE=1
# the cache outside $OUT, so that a second run on a warm machine can go on
# from it: KEEP_CACHE=1 keeps what is there (e.g. after a fill that timed out)
cache=${CUBIN_CACHE:-/tmp/clsort_cubin_cache}
[ "${KEEP_CACHE:-0}" = 1 ] || rm -rf "$cache"
mkdir -p "$out"

timeout 20 nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader
echo "libcuda: $(timeout 10 ldconfig -p | grep -m1 'libcuda.so.1 ' | sed 's/.*=> //')"
for f in build/coldstart build/test_clsort; do [ -x "$f" ] || echo "MISSING $f (make build/coldstart build/test_clsort)"; done

# coldstart: cold then warm; its summary lines (table, cache line, JSON)
for run in cold warm; do
  echo "## coldstart $run (CUDA_CACHE_DISABLE=1, 2^16)"
  limit=40; [ $run = warm ] && limit=25
  timeout $limit ./build/coldstart "$cache" 16 > "$out/coldstart_$run.txt" 2>&1
  echo "rc=$?"
  grep -v '^$' "$out/coldstart_$run.txt" | head -24
done

# test_clsort: fill (base and sort at once, one cache), then from the cache
for pass in fill warm; do
  echo "## test_clsort --tiny base / sort, cache $pass"
  limit=55; [ $pass = warm ] && limit=30
  for part in base sort; do
    CLSORT_CACHE_DIR="$cache" timeout $limit ./build/test_clsort --tiny $part > "$out/test_${part}_$pass.txt" 2>&1 &
  done
  wait
  for part in base sort; do
    log="$out/test_${part}_$pass.txt"
    line=$(grep -E 'passed, .* failed' "$log" | tail -1)
    echo "$part: ${line:-no result within ${limit} s or a crash; last line: $(tail -1 "$log")}"
    grep -m 3 -E '^FAIL' "$log"
    grep -m 1 'program cache' "$log"
  done
done

# the entries: cubin (ELF) or PTX, after the 96-byte header; PTX and
# others one a line (with the size), cubins counted
echo "## cache entries ($cache)"
cubins=0; ptx=0; other=0; cubin_bytes=0
for f in "$cache"/*.bin; do
  [ -f "$f" ] || continue
  magic=$(od -An -tx1 -j96 -N4 "$f" | tr -d ' \n')
  head=$(dd if="$f" bs=1 skip=96 count=2 2>/dev/null)
  size=$(( $(stat -c %s "$f") - 96 ))
  if [ "$magic" = 7f454c46 ]; then
    cubins=$((cubins + 1)); cubin_bytes=$((cubin_bytes + size))
  elif [ "$head" = "//" ] || [ "$head" = ".v" ]; then
    ptx=$((ptx + 1)); echo "$(basename "$f" .bin | cut -c1-16) PTX $size bytes"
  else
    other=$((other + 1)); echo "$(basename "$f" .bin | cut -c1-16) other (first bytes $magic) $size bytes"
  fi
done
echo "entries: $cubins cubin ($cubin_bytes bytes), $ptx PTX, $other other"
