#!/bin/sh
# A: committed kernel; B: unrolled full-tile writes + counter clear; C: B + plain ranks for <= 4-byte keys alone
# build/exp/A/clsort.h: the header at commit 5d700ba; B/ and C/: the same with B.diff (and then C.diff) applied
# to kernels/radix.cl and gen/embed.sh run. NVIDIA H100 80GB HBM3, driver 580.159.04, one command.
for p in ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo; do dpkg -x build/gpu/debs/${p}_*.deb / >/dev/null 2>&1; done; ldconfig
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia
O=$OUT/e; mkdir -p $O
nvidia-smi --query-gpu=name --format=csv,noheader
make -j16 WARN="-Wall -Wextra -pedantic" build/test_clsort build/bench > $O/build.log 2>&1 || { tail $O/build.log; exit 1; }
for v in A B C; do
  cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -Ibuild/exp/$v -I. -o build/bench_$v build/exp/bench_exp.c build/std_sort.o build/nbody_host.o -lOpenCL -lm -lstdc++ || echo "BUILD $v FAILED"
done
timeout 120 build/test_clsort --quick --jobs 12 radix > $O/tests.log 2>&1; echo "tests rc=$?"; tail -1 $O/tests.log; grep -i fail $O/tests.log | grep -v " 0 failed" | head -5
F='^sort/u32_keys$|^sort/u32_u32_pairs$|^sort/u64_keys$|^sort/u32_keys_16bit$|^sort/u16_keys$|^sort/u32_keys_permutation$'
for v in A B C; do
  rm -rf /tmp/c_$v
  CUDA_CACHE_DISABLE=1 CLSORT_CACHE_DIR=/tmp/c_$v CLSORT_CACHE_WHEN=build build/bench_$v sort --filter "$F" --no-host --runs 2 20 > /dev/null 2>>$O/err.txt
  for e in /tmp/c_$v/*.bin; do tail -c +97 "$e" > /tmp/x.cubin; cuobjdump -res-usage /tmp/x.cubin 2>/dev/null | grep -A1 onesweep | grep -o 'REG:[0-9]*' | tr '\n' ' '; cuobjdump -sass /tmp/x.cubin 2>/dev/null | python3 bench/tools/sass_stats.py 'onesweep' 2>/dev/null | grep onesweep | cut -d'|' -f3,4 ; done > $O/regs_$v.txt
  echo "$v: $(sort $O/regs_$v.txt | tr '\n' ';')"
done
for round in 1 2 3; do for v in A B C; do
  CLSORT_CACHE_DIR=/tmp/c_$v build/bench_$v sort --filter "$F" --no-host --runs 11 24 28 2>/dev/null | sed "s/^/$v r$round /"
done; done > $O/times.txt
python3 - $O/times.txt <<'PY'
import sys, json, collections
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    t, r, js = line.split(" ", 2)
    j = json.loads(js); d[(j["primitive"] + "/" + j["variant"], j["n"], t)].append(j["ms"])
for k in sorted(d): print("%-28s 2^%d %-3s %s  med %.4f" % (k[0], k[1].bit_length() - 1, k[2], " ".join("%.4f" % x for x in d[k]), sorted(d[k])[1]))
PY
