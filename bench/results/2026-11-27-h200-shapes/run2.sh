#!/bin/sh
for p in ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo; do dpkg -x build/gpu/debs/${p}_*.deb / >/dev/null 2>&1; done; ldconfig
mkdir -p /etc/OpenCL/vendors; echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export CLSORT_DEVICE=nvidia
O=$OUT/e; mkdir -p $O
[ -x build/bench ] || make -j16 WARN="-Wall -Wextra -pedantic" build/bench > $O/build.log 2>&1
[ -x build/bench_exp ] || cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -Ibuild/exp -I. -o build/bench_exp build/exp/bench_exp.c build/std_sort.o build/nbody_host.o -lOpenCL -lm -lstdc++
nvidia-smi --query-gpu=name --format=csv,noheader
for round in 1 2; do
  for t in default 256:2 256:4 256:8 256:16 256:32 128:8 128:16; do
    if [ $t = default ]; then unset CLSORT_TILE; else export CLSORT_TILE=$t; fi
    build/bench scan pack --filter '^scan/u32_exclusive$|^pack/u32_flags_half$|^scan/u64_exclusive$|^pack/u32_u32_flags_half$' --no-host --runs 11 20 22 24 2>/dev/null | sed "s/^/$t r$round /"
  done
done > $O/tiles.txt
unset CLSORT_TILE
for round in 1 2; do
  for t in default 256:8 256:16 128:16; do
    if [ $t = default ]; then unset CLSORT_TILE; else export CLSORT_TILE=$t; fi
    EXP_NOFILL16=1 build/bench_exp sort --filter '^sort/u16_keys$|^sort/u32_keys$' --no-host --runs 11 20 22 2>/dev/null | sed "s/^/$t r$round /"
  done
done > $O/sorttiles.txt
python3 - $O/tiles.txt $O/sorttiles.txt <<'PY'
import sys, json, collections
for f in sys.argv[1:]:
    d = collections.defaultdict(list)
    for line in open(f):
        t, r, js = line.split(" ", 2)
        j = json.loads(js); d[(j["primitive"] + "/" + j["variant"], j["n"], t)].append(j["ms"])
    for k in sorted(d): print("%-28s 2^%d %-8s %s" % (k[0], k[1].bit_length() - 1, k[2], " ".join("%.4f" % x for x in d[k])))
PY
