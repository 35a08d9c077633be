#!/bin/sh
# make oclgrind's units, one per line, for its xargs: every part of
# test_clsort on each path it has cases on at --tiny (PART-portable,
# PART-lookback; a part whose cases make their own contexts, budget and
# stress, as PART), and the sort types case with CLSORT_TILE=4:1024 on each
# path (tile4-portable, tile4-lookback). Each unit is a process of its own,
# so that a part's two paths can run on the two cores at once.
# The units named after the program come first, in that order (the longest:
# xargs then keeps both cores busy to the end), then the others in the part
# order.
#   tests/oclgrind_units.sh build/test_clsort [UNIT ...]
set -eu
prog=$1
shift
all=$("$prog" --tiny --list | awk '
  /^[a-z_0-9]+: / { part = substr($1, 1, length($1) - 1); order[++n] = part; next }
  /\(not selected\)$/ { next }
  /^  / {
    if (index($0, "[each path]")) { p[part] = 1; l[part] = 1 }
    else if (index($0, "[portable]")) p[part] = 1
    else if (index($0, "[lookback]")) l[part] = 1
    else own[part] = 1
  }
  END {
    for (i = 1; i <= n; ++i) {
      q = order[i]
      if (own[q]) print q
      if (p[q]) print q "-portable"
      if (l[q]) print q "-lookback"
      if (q == "sort") print "tile4-portable\ntile4-lookback"
    }
  }')
[ -n "$all" ] || { echo "oclgrind_units.sh: no unit in $prog --tiny --list" >&2; exit 1; }
for u in "$@"; do
  printf '%s\n' "$all" | grep -qx "$u" || { echo "oclgrind_units.sh: no unit $u (test_clsort --tiny --list)" >&2; exit 1; }
  echo "$u"
done
# OCLGRIND_SKIP="PART ..." leaves parts out (none by default: a kernel whose
# clang output calls an LLVM intrinsic oclgrind lacks, such as
# llvm.usub.sat from `d > m ? d - m : 0`, is not found by its clCreateKernel;
# the kernels write such steps with OpenCL's max/min instead).
skip=${OCLGRIND_SKIP-}
[ -z "$skip" ] || echo "oclgrind_units.sh: left out by OCLGRIND_SKIP: $skip" >&2
printf '%s\n' "$all" | while read -r u; do
  case " $skip " in *" ${u%-*} "*) continue;; esac
  case " $* " in *" $u "*) ;; *) echo "$u";; esac
done
