#!/bin/sh
for p in ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo; do dpkg -x build/gpu/debs/${p}_*.deb / >/dev/null 2>&1; done; ldconfig
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia
O=$OUT/e; mkdir -p $O
[ -x build/bench ] || make -j16 WARN="-Wall -Wextra -pedantic" build/bench > $O/build.log 2>&1
[ -x build/bench_exp ] || cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -Ibuild/exp -I. -o build/bench_exp build/exp/bench_exp.c build/std_sort.o build/nbody_host.o -lOpenCL -lm -lstdc++
nvidia-smi --query-gpu=name --format=csv,noheader
for round in 1 2 3; do
  for t in default 256:8 256:16 256:32; do
    if [ $t = default ]; then unset CLSORT_TILE; else export CLSORT_TILE=$t; fi
    build/bench scan pack --filter '^scan/u32_exclusive$|^scan/u64_exclusive$|^pack/u32_flags_half$|^pack/u32_u32_flags_half$|^split/u32_flags_half$' --no-host --runs 11 26 28 2>/dev/null | sed "s/^/$t r$round /"
  done
done > $O/tiles28.txt
unset CLSORT_TILE
for round in 1 2; do
  build/bench_exp sort --filter '^sort/u16_keys$' --no-host --runs 11 22 23 24 25 26 2>/dev/null | sed "s/^/fill16 r$round /"
  EXP_NOFILL16=1 build/bench_exp sort --filter '^sort/u16_keys$' --no-host --runs 11 22 23 24 25 26 2>/dev/null | sed "s/^/nofill r$round /"
done > $O/u16b.txt
python3 - $O/tiles28.txt $O/u16b.txt <<'PY'
import sys, json, collections
for f in sys.argv[1:]:
    d = collections.defaultdict(list)
    for line in open(f):
        t, r, js = line.split(" ", 2)
        j = json.loads(js); d[(j["primitive"] + "/" + j["variant"], j["n"], t)].append(j["ms"])
    for k in sorted(d): print("%-28s 2^%d %-8s %s" % (k[0], k[1].bit_length() - 1, k[2], " ".join("%.4f" % x for x in d[k])))
PY
