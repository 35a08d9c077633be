#!/bin/sh
# A proxy, on a machine without an NVIDIA GPU, for what NVIDIA's driver JIT
# (ptxas) does with a program from the cache (issue 18): the kernels/ files of
# two revisions compiled as the H100's programs by clang (OpenCL C -> PTX,
# -target nvptx64-nvidia-nvcl, its own front end, not NVIDIA's), then ptxas
# (CUDA toolkit, -arch=sm_80 -c, best of 3). Prints per program: PTX lines,
# kernels (.entry), ptxas ms, object bytes. The builtins clang leaves as
# external functions (get_local_id, atomics) are declared .extern so that
# ptxas -c accepts them; the figures compare revisions, they are not the
# driver's times.
#   sh bench/ptx_proxy.sh [BEFORE = main] [AFTER = the work tree]
set -u
before=${1:-main}
after=${2:-}
ptxas=${PTXAS:-$(command -v ptxas || ls /usr/local/cuda*/bin/ptxas 2>/dev/null | head -1)}
[ -n "$ptxas" ] && command -v clang > /dev/null || { echo "needs clang and ptxas"; exit 1; }
dir=$(mktemp -d)
for v in before after; do
  mkdir -p "$dir/$v"
  for f in common keys radix bitonic scan split; do
    if [ $v = before ]; then git show "$before:kernels/$f.cl" > "$dir/$v/$f.cl"
    elif [ -n "$after" ]; then git show "$after:kernels/$f.cl" > "$dir/$v/$f.cl"
    else cp "kernels/$f.cl" "$dir/$v/$f.cl"; fi
  done
done
cat > "$dir/fix.awk" <<'EOF'
/^\.target/ { print ".target sm_80"; next }
/^\.func/ || /^\.visible \.func/ { buf = $0; infunc = 1; next }
infunc { buf = buf "\n" $0; if ($0 ~ /^;/) { print ".extern " buf; infunc = 0 } else if ($0 ~ /^\{/) { print buf; infunc = 0 }; next }
{ print }
EOF
# name | files | options of the H100's program (after adds what step 2 adds)
R="-DWG=256 -DKEY_T=uint -DKEY_BYTES=4 -DRADIX_BITS=8 -DONESWEEP -DNV_PTX"
B="-DWG=256 -DITEMS=16 -DTILE_LOG=12 -DKEY_T=uint -DKEY_BYTES=4"
S="-DWG=256 -DITEMS=16 -DT=uint -DSRC_T=uint -DLOAD_FLAGS -DKEY_T=uint -DELEM_T=uint -DHAVE_LOOKBACK"
while IFS='|' read -r name files ob oa; do
  for v in before after; do
    o=$ob; [ $v = after ] && o=$oa
    (cd "$dir/$v" && cat $files) > "$dir/$v.$name.cl"
    # shellcheck disable=SC2086
    if ! clang -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -Xclang -finclude-default-header -O2 -S \
         -Dasm=__asm__ -Xclang -target-feature -Xclang +ptx70 $o -o "$dir/$v.$name.ptx" "$dir/$v.$name.cl" 2> "$dir/err"; then
      echo "$v $name: clang failed: $(head -1 "$dir/err")"; continue
    fi
    awk -f "$dir/fix.awk" "$dir/$v.$name.ptx" > "$dir/$v.$name.fix.ptx"
    best=""
    for r in 1 2 3; do
      t0=$(date +%s%N)
      "$ptxas" -arch=sm_80 -c -O3 "$dir/$v.$name.fix.ptx" -o "$dir/$v.$name.o" > "$dir/err" 2>&1 || { head -1 "$dir/err"; break; }
      t=$(( ($(date +%s%N) - t0) / 1000000 ))
      [ -z "$best" ] || [ "$t" -lt "$best" ] && best=$t
    done
    echo "$v $name: $(wc -l < "$dir/$v.$name.ptx") PTX lines, $(grep -c '\.entry' "$dir/$v.$name.ptx") kernels, ptxas ${best:-?} ms, $(stat -c %s "$dir/$v.$name.o" 2>/dev/null) bytes"
  done
done <<EOF
radix u32 keys|common.cl keys.cl radix.cl|$R -DITEMS=16|$R -DITEMS=16
radix u32 pairs|common.cl keys.cl radix.cl|$R -DITEMS=20 -DHAS_VALUES -DVAL_T=uint -DVAL_BYTES=4|$R -DITEMS=20 -DHAS_VALUES -DVAL_T=uint -DVAL_BYTES=4
radix u64 keys|common.cl keys.cl radix.cl|-DWG=256 -DITEMS=16 -DKEY_T=ulong -DKEY_BYTES=8 -DRADIX_BITS=8 -DONESWEEP -DNV_PTX|-DWG=256 -DITEMS=16 -DKEY_T=ulong -DKEY_BYTES=8 -DRADIX_BITS=8 -DONESWEEP -DNV_PTX
bitonic f32|common.cl keys.cl bitonic.cl|$B|$B -DGSTEPS=4
split|common.cl scan.cl split.cl|$S|$S
scan u32|common.cl scan.cl|-DWG=256 -DITEMS=32 -DT=uint -DHAVE_LOOKBACK|-DWG=256 -DITEMS=32 -DT=uint -DHAVE_LOOKBACK
EOF
rm -rf "$dir"
