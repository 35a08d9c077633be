#!/bin/sh
# The final one-sweep pass: the sort, scan and pack figures beside CUB (run_gpu.sh), the registers of
# radix_onesweep, and the radix part of the suite on the GPU.
set -u
O=${OUT:-/tmp/out}; mkdir -p $O
sh bench/run_gpu.sh sort scan pack > $O/run_gpu.txt 2>&1
export CLSORT_DEVICE=nvidia
rm -rf /tmp/c; CLSORT_CACHE_DIR=/tmp/c CLSORT_CACHE_WHEN=build CUDA_CACHE_DISABLE=1 build/bench sort \
  --filter '^sort/(u32_keys|u32_u32_pairs|u64_keys)$' --no-host --runs 2 20 > /dev/null 2>&1
for e in /tmp/c/*.bin; do tail -c +97 "$e" > /tmp/x.cubin; cuobjdump -res-usage /tmp/x.cubin 2>/dev/null | grep -A1 onesweep; done > $O/regs.txt
grep -o 'REG:[0-9]*\|LOCAL:[0-9]*' $O/regs.txt | tr '\n' ' '; echo
timeout 240 build/test_clsort --quick radix > $O/test_radix.txt 2>&1; echo "test radix: $(tail -1 $O/test_radix.txt)"
tail -5 $O/run_gpu.txt
