#!/bin/sh
# The header compiled by gcc and clang as C99/C11/C17 and C++11/17/20, with
# -Wshadow -Wconversion on top of the usual warnings, each entry three ways:
# two translation units (tests/compile/impl.c implements, use.c only includes)
# linked together, and the CLSORT_STATIC variant (tests/compile/static.c).
#   tests/compile_matrix.sh BUILD_DIR [COMPILER:STD]...    (default: the 12 below)
# Entries run two at a time (COMPILE_JOBS); one line per entry, then
# "N passed, N failed". A failing entry shows the compiler's messages.
set -u
cd "$(dirname "$0")/.."
build=${1:-build}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- gcc:c99 gcc:c11 gcc:c17 clang:c99 clang:c11 clang:c17 \
    g++:c++11 g++:c++17 g++:c++20 clang++:c++11 clang++:c++17 clang++:c++20
jobs=${COMPILE_JOBS:-2}
flags="-Wall -Wextra -Werror -pedantic -Wshadow -Wconversion -I."
libs="-lOpenCL -lm"
dir=$build/compile_matrix
rm -rf "$dir" && mkdir -p "$dir" || exit 1

# One entry ($1 = compiler:standard) into $dir/<n>.*; its status in <n>.status.
compile_entry() {
    cc=${1%%:*} std=${1#*:} out=$dir/$2 lang=""
    case $std in c++*) lang="-x c++" ;; esac
    {
        $cc $lang -std="$std" $flags -c -o "$out.impl.o" tests/compile/impl.c &&
            $cc $lang -std="$std" $flags -c -o "$out.use.o" tests/compile/use.c &&
            $cc -o "$out.two_units" "$out.impl.o" "$out.use.o" $libs &&
            $cc $lang -std="$std" $flags -o "$out.static" tests/compile/static.c $libs
    } > "$out.log" 2>&1
    echo $? > "$out.status"
}

passed=0 failed=0 n=0
# a batch of $jobs entries in the background, then their lines in order
while [ $# -gt 0 ]; do
    batch=""
    while [ $# -gt 0 ] && [ "$(echo $batch | wc -w)" -lt "$jobs" ]; do
        n=$((n + 1))
        compile_entry "$1" "$n" &
        batch="$batch $n:$1"
        shift
    done
    wait
    for item in $batch; do
        i=${item%%:*} entry=${item#*:}
        if [ "$(cat "$dir/$i.status")" = 0 ]; then
            echo "compile ${entry%%:*} -std=${entry#*:}: ok"
            passed=$((passed + 1))
        else
            echo "compile ${entry%%:*} -std=${entry#*:}: does not compile cleanly:"
            head -n 30 "$dir/$i.log"
            failed=$((failed + 1))
        fi
    done
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
