#!/bin/sh
# One runner for the benchmark figures, from a clone (bench/README.md).
#
#   sh bench/run_gpu.sh fetch [OLDREV...]    on the development machine, once:
#       downloads the .debs the GPU machine lacks into build/gpu/debs (OpenCL
#       ICD loader, headers and clinfo; MPICH; the Boost headers for the
#       Boost.Compute peer), records the commit in build/gpu/commit, and
#       exports each OLDREV's tree to build/gpu/rev/OLDREV (for before-after).
#       build/ is ignored by git: carry build/gpu to the GPU machine.
#   sh bench/run_gpu.sh SUITE...              on the GPU machine (or any OpenCL machine)
#   sh bench/run_gpu.sh before-after OLDREV   OLDREV's bench against this tree's, interleaved
#   sh bench/run_gpu.sh check                 every suite list against clsort.h's registry (make test)
#
# Suites: one per family of clsort.h's registry (CLSORT_FAMILIES, named as
# the family: scan split gather sort bitonic binning reduce nbody tree select merge
# top_k),
# then coldstart sass mpi peers large tests user_ops; figures is every family's suite
# and peers (the figures README.md and RESULTS.md quote). sass lists the
# machine code of the sort's one-sweep pass beside CUB's; large and tests run
# the test programs that need the device; user_ops sets the rows of caller's
# operators (clsort.h USER OPERATORS) of four families beside the built-in
# rows they restate and CUB's functor forms. A suite
# runs clsort's program and, where nvcc is there, its CUDA peers in the same
# command (bench/peers/: built here with nvcc), so each ratio comes from one
# run on one card.
#
# It sets the machine up itself, from the repository alone: unpacks the
# carried .debs (the ICD loader into /, the rest under build/gpu/root),
# registers NVIDIA's OpenCL driver (libnvidia-opencl.so.1) with the loader,
# builds clsort's programs with make and the peers with nvcc, runs, and
# writes each suite's raw output and a manifest (commit, command, driver,
# device, date) to bench/results/<date>-<device>-<suite>/. With $OUT set (the
# GPU machine's output folder) the result folders also go to
# $OUT/results.tar.gz after every suite (unpack it in the project root), and
# the tables bench/table.py makes of them to $OUT/tables.md.
#
# Environment: RUN_GPU_DRY=1 prints what it would do and does nothing;
# CLSORT_DEVICE (default: nvidia where nvidia-smi is, else the library's
# choice); RUN_GPU_SIZES / RUN_GPU_RUNS override the log2 sizes of the array
# suites and the timed calls per row (a quick check: RUN_GPU_SIZES=12
# RUN_GPU_RUNS=3 sh bench/run_gpu.sh scan); RUN_GPU_DEVICE names the device in
# the folder names (default: from nvidia-smi, else from clinfo).
set -u
cd "$(dirname "$0")/.." || exit 1
GPU=build/gpu
DRY=${RUN_GPU_DRY:-0}
RUNS=${RUN_GPU_RUNS:-11}
SIZES=${RUN_GPU_SIZES:-}
# The families, in the family order: the names of the rows X(ID, name,
# PREPARE) of clsort.h's CLSORT_FAMILIES (as the Makefile reads them). Each
# has its suite_<name> below (checked before anything runs).
FAMILIES=$(sed -n '/^#define CLSORT_FAMILIES(X)/,/^$/p' clsort.h | sed -n 's/^ *X.[A-Z_0-9]*, *\([a-z_0-9]*\),.*/\1/p' | tr '\n' ' ')
OTHER_SUITES="coldstart sass mpi peers large tests user_ops"
FIGURES="$FAMILIES peers"
DEBS_OPENCL="ocl-icd-libopencl1 ocl-icd-opencl-dev opencl-c-headers clinfo"
DEBS_MPI="mpich libmpich12 libmpich-dev libhwloc15 libslurm38 libucx0 libnuma1"
DEBS_BOOST="libboost1.74-dev"

say() { printf '%s\n' "$*"; }
die() { say "run_gpu: $*" >&2; exit 1; }

# x CMD...: runs a command, or prints it under RUN_GPU_DRY=1.
x() {
    if [ "$DRY" = 1 ]; then say "+ $*"; else "$@"; fi
}

# ---- fetch (development machine) ----

fetch() {
    command -v apt-get > /dev/null || die "fetch needs apt-get (a Debian or Ubuntu machine)"
    x mkdir -p "$GPU/debs" "$GPU/rev"
    for p in $DEBS_OPENCL $DEBS_MPI $DEBS_BOOST; do
        if ls "$GPU/debs/${p}_"*.deb > /dev/null 2>&1; then continue; fi
        if [ "$DRY" = 1 ]; then say "+ (cd $GPU/debs && apt-get download $p)"; continue; fi
        (cd "$GPU/debs" && apt-get download "$p") || die "apt-get download $p failed"
    done
    if [ "$DRY" = 1 ]; then
        say "+ git describe --always --dirty --abbrev=12 > $GPU/commit"
    else
        { git describe --always --dirty --abbrev=12; git log -1 --format='%H %cd' --date=iso; } > "$GPU/commit"
    fi
    for rev in "$@"; do
        sha=$(git rev-parse --verify "$rev^{commit}") || die "not a revision: $rev"
        dir="$GPU/rev/$(echo "$rev" | tr -c 'A-Za-z0-9._\n-' '_')"
        x rm -rf "$dir"
        x mkdir -p "$dir"
        if [ "$DRY" = 1 ]; then
            say "+ git archive $sha | tar -x -C $dir   (without bench/data, bench/results)"
        else
            git archive "$sha" -- . ':(exclude)bench/data' ':(exclude)bench/results' | tar -x -C "$dir" ||
                die "git archive $rev failed"
            echo "$sha" > "$dir/.commit"
        fi
    done
    [ "$DRY" = 1 ] || du -sh "$GPU"
    say "carry: build/gpu"
}

# ---- set-up (GPU machine) ----

# An NVIDIA GPU here? A dry run answers as the GPU machine would (RUN_GPU_DRY_GPU=0: as a machine without one).
have_gpu() {
    if [ "$DRY" = 1 ]; then [ "${RUN_GPU_DRY_GPU:-1}" = 1 ]; return; fi
    command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1
}
# smi ARGS: nvidia-smi's answer (a placeholder in a dry run)
smi() {
    if [ "$DRY" = 1 ]; then echo "(nvidia-smi $*)"; else nvidia-smi "$@"; fi
}

# The ICD loader, its headers and clinfo into / (small, and what the machine
# lacks); NVIDIA's OpenCL driver registered; MPICH and Boost under
# build/gpu/root, where they cannot disturb the machine's own libraries.
setup() {
    # only on the GPU machine unless asked: it writes to / (RUN_GPU_SETUP=1 forces it, =0 skips it)
    if have_gpu; then [ "${RUN_GPU_SETUP:-1}" = 1 ] || return 0; else [ "${RUN_GPU_SETUP:-0}" = 1 ] || return 0; fi
    if ! ls "$GPU/debs/"*.deb > /dev/null 2>&1; then
        if [ -e /etc/OpenCL/vendors ] && [ -e /usr/include/CL/cl.h ]; then return 0; fi
        die "no .debs in $GPU/debs: run 'sh bench/run_gpu.sh fetch' on the development machine and carry build/gpu"
    fi
    for p in $DEBS_OPENCL; do
        for f in "$GPU/debs/${p}_"*.deb; do [ -e "$f" ] && x dpkg -x "$f" /; done
    done
    x mkdir -p "$GPU/root"
    for p in $DEBS_MPI $DEBS_BOOST; do
        for f in "$GPU/debs/${p}_"*.deb; do [ -e "$f" ] && x dpkg -x "$f" "$GPU/root"; done
    done
    x ldconfig
    if have_gpu && [ ! -e /etc/OpenCL/vendors/nvidia.icd ]; then
        x mkdir -p /etc/OpenCL/vendors
        if [ "$DRY" = 1 ]; then say "+ echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd"
        else echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd; fi
    fi
}

ROOT_LIB() { echo "$PWD/$GPU/root/usr/lib/x86_64-linux-gnu:$PWD/$GPU/root/lib/x86_64-linux-gnu"; }

# ---- builds ----

SM=""
peer_built() { [ -x "build/$1" ]; }

# clsort's programs (make, with the repository's Makefile) and the peers
# (nvcc for CUB, g++ for Boost.Compute, cc for the seed N-body kernel), all
# at once.
# Warnings stay warnings here: this machine's compiler may know more of them
# than the development machines, whose -Werror builds are the gate.
MAKE_WARN='WARN=-Wall -Wextra -pedantic'
# bench_without_make DIR: the Makefile's rule for DIR/build/bench, for a machine without make
bench_without_make() {
    (cd "$1" && mkdir -p build && c++ -O2 -c -o build/std_sort.o bench/std_sort.cpp &&
        cc -std=c99 -O3 -c -o build/nbody_host.o bench/nbody_host.c &&
        cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -I. -o build/bench bench/bench.c build/std_sort.o \
            build/nbody_host.o -lOpenCL -lm -lstdc++)
}
# build DIR TARGET...: make's targets in DIR (bench alone without make)
build() {
    d=$1
    shift
    if [ "$DRY" = 1 ] || command -v make > /dev/null 2>&1; then x make -C "$d" -j8 "$MAKE_WARN" "$@"; return; fi
    [ "$*" = build/bench ] && bench_without_make "$d"
}
build_all() {
    build . build/bench || die "build/bench did not build"
    build . build/tree_bench build/radius_bench build/coldstart || say "run_gpu: a program did not build; its suite will say so"
    if { [ "$DRY" = 1 ] || command -v nvcc > /dev/null 2>&1; } && have_gpu; then
        SM=90
        [ "$DRY" = 1 ] || SM=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
        for p in cub_bench cub_sort_narrow cub_reduce cub_blockseg cub_pic thrust_search cub_merge_topk cub_user_ops; do
            peer_built "$p" && [ "$DRY" != 1 ] && continue # kept from an earlier call on this machine
            x nvcc -O3 -std=c++17 --extended-lambda -arch="sm_${SM:-90}" -o "build/$p" "bench/peers/$p.cu" &
        done
    fi
    x cc -O2 -o build/seed_nbody bench/peers/seed_nbody.c -lOpenCL &
    if [ -d "$GPU/root/usr/include/boost/compute" ] || [ -d /usr/include/boost/compute ]; then
        x g++ -O2 -std=c++17 -I"$GPU/root/usr/include" -o build/bc_bench bench/peers/bc_bench.cpp -lOpenCL &
    fi
    wait
}

# ---- one result folder per suite ----

DEVICE_SLUG=""
device_slug() {
    if [ -n "${RUN_GPU_DEVICE:-}" ]; then echo "$RUN_GPU_DEVICE"; return; fi
    if have_gpu; then # "NVIDIA H100 80GB HBM3" -> h100
        nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | awk '{print tolower($2)}'
        return
    fi
    # clsort's own choice (CLSORT_DEVICE): PoCL, rusticl, ...
    n=$(CLSORT_CACHE_DIR=off build/bench scan 4 --runs 1 --no-host --filter copy 2>/dev/null |
        sed -n 's/.*"device":"\([^"]*\)".*/\1/p' | head -1)
    echo "${n:-opencl}" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' '-' | cut -c1-24
}

RESULT_DIRS=""
# new_dir SUITE: bench/results/<date>-<device>-<suite>[-k], and its manifest.
new_dir() {
    base="bench/results/$(date -u +%Y-%m-%d)-$DEVICE_SLUG-$1"
    d=$base
    k=2
    while [ -e "$d" ]; do d="$base-$k"; k=$((k + 1)); done
    RESULT_DIRS="$RESULT_DIRS $d"
    x mkdir -p "$d"
    [ "$DRY" = 1 ] || manifest "$d" "$1" > "$d/manifest.txt"
    DIR=$d
}

# The commit 'fetch' recorded comes first: a copied tree may carry a .git
# that is not the one it was copied from.
commit_of_tree() {
    if [ -f "$GPU/commit" ]; then
        echo "$(head -1 "$GPU/commit") (recorded by 'run_gpu.sh fetch'; the tree that ran is the one carried)"
    elif git rev-parse HEAD > /dev/null 2>&1; then
        echo "$(git describe --always --dirty --abbrev=12) (git in the run's tree)"
    else
        echo "unknown (no git, no $GPU/commit)"
    fi
}

manifest() {
    say "suite: $2"
    say "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    say "commit: $(commit_of_tree)"
    say "clsort: $(sed -n 's/^#define CLSORT_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\).*/\2/p' clsort.h | paste -sd. -)"
    say "command: sh bench/run_gpu.sh $ARGS"
    if have_gpu; then
        say "device: $(nvidia-smi --query-gpu=name,memory.total,compute_cap,clocks.max.sm --format=csv,noheader | head -1)"
        say "driver: NVIDIA $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)"
        command -v nvcc > /dev/null 2>&1 && say "nvcc: $(nvcc --version | tail -2 | head -1)"
    fi
    command -v clinfo > /dev/null 2>&1 &&
        clinfo 2> /dev/null | grep -E '^ *(Platform Name|Platform Version|Device Name|Driver Version) ' | sed 's/^ */opencl: /'
    say "CLSORT_DEVICE: ${CLSORT_DEVICE:-}"
    say "host: $(uname -srm), $(nproc 2> /dev/null) cores"
    say "steps (each program's command line; output file, stderr in stderr.txt):"
}

# rec FILE SECONDS CMD...: runs one step of the suite in $DIR, its output to
# $DIR/FILE (appended), its stderr to $DIR/stderr.txt, under a time limit.
rec() {
    f=$1 t=$2
    shift 2
    if [ "$DRY" = 1 ]; then say "+ timeout $t $* >> $DIR/$f"; return 0; fi
    say "  $* > $f" >> "$DIR/manifest.txt"
    say "== $(basename "$DIR"): $*"
    echo "## $*" >> "$DIR/stderr.txt"
    timeout "$t" "$@" >> "$DIR/$f" 2>> "$DIR/stderr.txt"
    rc=$?
    [ $rc = 0 ] || say "   (exit status $rc; see $DIR/stderr.txt)" | tee -a "$DIR/manifest.txt"
    return 0
}

# peer NAME SECONDS CMD...: a peer program into $DIR/NAME.txt. Each peer
# runs once per invocation; a later suite that quotes it gets a copy.
PEER_CACHE=build/gpu-peer-output
peer() {
    name=$1 t=$2
    shift 2
    if [ "$DRY" != 1 ] && ! peer_built "$name"; then
        say "   ($name not built here: skipped)" | tee -a "$DIR/manifest.txt"
        return 0
    fi
    key=$(echo "$*" | tr -c 'A-Za-z0-9\n' '_')
    if [ "$DRY" != 1 ] && [ -s "$PEER_CACHE/$key" ]; then
        cp "$PEER_CACHE/$key" "$DIR/$name.txt"
        say "  $* > $name.txt (run once in this command, for an earlier suite)" >> "$DIR/manifest.txt"
        return 0
    fi
    rec "$name.txt" "$t" "$@"
    [ "$DRY" = 1 ] || { mkdir -p "$PEER_CACHE" && cp "$DIR/$name.txt" "$PEER_CACHE/$key"; }
}

sizes() { echo "${SIZES:-$*}"; }

bench_rows() { # bench_rows SUITE SIZE...: clsort's driver, one suite
    s=$1
    shift
    rec clsort.jsonl 400 build/bench "$s" --no-host --runs "$RUNS" $(sizes "$@")
}

suite_scan() { bench_rows scan 20 24 28; peer cub_bench 180 build/cub_bench $(sizes 20 24 28); }
suite_split() { bench_rows split 20 24 28; peer cub_bench 180 build/cub_bench $(sizes 20 24 28); }
suite_sort() {
    bench_rows sort 20 24 28
    peer cub_bench 180 build/cub_bench $(sizes 20 24 28)
    peer cub_sort_narrow 120 build/cub_sort_narrow $(sizes 20 24 28)
}
suite_gather() { bench_rows gather 20 23 24; peer cub_pic 120 build/cub_pic $(sizes 20 23 24); }
suite_binning() { bench_rows binning 20 23 24; peer cub_pic 120 build/cub_pic $(sizes 20 23 24); }
suite_bitonic() {
    bench_rows bitonic 20 24 28
    peer cub_blockseg 180 build/cub_blockseg $(sizes 20 24 28)
    peer cub_bench 180 build/cub_bench $(sizes 20 24 28)
}
suite_reduce() { bench_rows reduce 24 28; peer cub_reduce 120 build/cub_reduce $(sizes 24 28); }
suite_select() { bench_rows select 20 24 28; peer cub_bench 180 build/cub_bench $(sizes 20 24 28); }
# search: lower_bound of n needles in n and 16 n keys (at 24: 2^24 needles in 2^28 keys), then
# gather_many beside four gathers, each with thrust's (bench/peers/thrust_search.cu)
suite_search() {
    bench_rows search 20 24
    rec clsort.jsonl 200 build/bench gather --no-host --runs "$RUNS" --filter 'gather(_many)?/f4_u32_u32_u64' $(sizes 20 24)
    peer thrust_search 240 build/thrust_search $(sizes 20 24)
}
# merge: n = n/2 + n/2 (2^20 + 2^20, 2^27 + 2^27); top_k: n = 2^26 keys, k = 100 and 2^16,
# against a full CUB radix sort of the same keys (the CCCL has no DeviceTopK)
suite_merge() { bench_rows merge 21 28; peer cub_merge_topk 120 build/cub_merge_topk $(sizes 21 28); }
suite_top_k() { bench_rows top_k 26; peer cub_merge_topk 120 build/cub_merge_topk $(sizes 26); }
suite_nbody() {
    rec clsort.jsonl 300 build/bench nbody --no-host --runs 9 ${SIZES:-14 16 18}
    peer seed_nbody 120 build/seed_nbody "${SEED_PLATFORM:-NVIDIA}"
}
suite_tree() {
    rec tree.jsonl 400 env BENCH_RUNS="$RUNS" BENCH_ALLPAIRS_MAX=1048576 build/tree_bench ${SIZES:-20 24}
    rec tree.jsonl 200 env BENCH_RUNS="$RUNS" build/tree_bench x 10 "${SIZES:-20}"
    rec radius.jsonl 300 env BENCH_RUNS="$RUNS" build/radius_bench ${SIZES:-20 22}
}
# First calls in new processes (bench/tools/coldstart.c), NVIDIA's own cache
# off so that clsort's is measured alone: no cache; clsort's cache cold
# (built, stored at the end), warm twice, warm after clsort_prepare; then
# NVIDIA's cache on and clsort's off (its second process).
suite_coldstart() {
    cache=/tmp/clsort-coldstart-cache
    x rm -rf "$cache"
    nocache="env CUDA_CACHE_DISABLE=1 POCL_KERNEL_CACHE=0"
    rec coldstart_off.txt 120 $nocache build/coldstart off 16
    rec coldstart_cold.txt 120 $nocache build/coldstart "$cache" 16
    rec coldstart_warm1.txt 60 $nocache build/coldstart "$cache" 16
    rec coldstart_warm2.txt 60 $nocache build/coldstart "$cache" 16
    rec coldstart_prepare.txt 60 $nocache build/coldstart "$cache" 16 --prepare
    rec coldstart_nvcache1.txt 120 build/coldstart off 16
    rec coldstart_nvcache2.txt 60 build/coldstart off 16
    # where the no-cache time goes: each clBuildProgram (options, source
    # bytes, kernels), and whether the driver builds on several threads at once
    build . build/nv_probe build/api_times.so || return 0
    rec coldstart_builds.txt 120 sh -c "$nocache LD_PRELOAD=$PWD/build/api_times.so build/coldstart off 16 2>&1"
    rec nv_probe_threads.txt 120 $nocache build/nv_probe threads 3
}
# The machine code of the radix sort's one-sweep pass beside CUB's
# (NVIDIA): a u32 keys sort at 2^24 stores its programs as cubins (the
# program cache with CLSORT_CACHE_WHEN=build), cuobjdump lists them and the
# CUB peer's onesweep kernels, bench/tools/sass_stats.py counts each kernel's
# instructions by class (sass_stats.md, with the register and memory counts,
# in the result folder). The listings themselves are not results: they go to
# build/sass/<folder>/ (and $OUT/sass/<folder>/ when $OUT is set), made again
# on demand by this suite; RESULTS.md keeps what was read in them.
suite_sass() {
    command -v cuobjdump > /dev/null 2>&1 || { say "   (no cuobjdump: skipped)" | tee -a "$DIR/manifest.txt"; return 0; }
    cache=/tmp/clsort-sass-cache
    x rm -rf "$cache"
    rec bench.jsonl 120 env CLSORT_CACHE_DIR="$cache" CLSORT_CACHE_WHEN=build \
        build/bench sort --filter '^sort/u32_keys$' --no-host --runs 3 24
    [ "$DRY" = 1 ] && return 0
    for e in "$cache"/*.bin; do
        [ -f "$e" ] || continue
        tail -c +97 "$e" > "$DIR/$(basename "$e" .bin | cut -c1-16).cubin" # the entry after its 96-byte header
    done
    for c in "$DIR"/*.cubin; do
        cuobjdump -sass "$c" >> "$DIR/clsort.sass" 2>> "$DIR/stderr.txt"
        cuobjdump -res-usage "$c" >> "$DIR/clsort_resources.txt" 2>> "$DIR/stderr.txt"
    done
    rm -f "$DIR"/*.cubin
    listings=build/sass/$(basename "$DIR")
    mkdir -p "$listings"
    python3 bench/tools/sass_stats.py 'radix' --keep "$listings/clsort" < "$DIR/clsort.sass" > "$DIR/sass_stats.md"
    if peer_built cub_bench; then
        cuobjdump -sass build/cub_bench 2>> "$DIR/stderr.txt" |
            python3 bench/tools/sass_stats.py 'Onesweep|Histogram' --keep "$listings/cub" >> "$DIR/sass_stats.md"
        cuobjdump -res-usage build/cub_bench 2>> "$DIR/stderr.txt" | grep -A1 -E 'Onesweep|Histogram' \
            > "$DIR/cub_resources.txt"
    fi
    rm -f "$DIR/clsort.sass"
    say "  listings: $listings (not kept in the result folder)" >> "$DIR/manifest.txt"
    if [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ]; then mkdir -p "$OUT/sass" && cp -r "$listings" "$OUT/sass/"; fi
}
# The distributed sort (bench/mpi_bench.c): one rank per GPU (at least 1),
# then 2 ranks; MPICH from build/gpu/root.
suite_mpi() {
    root=$GPU/root/usr
    inc=$root/include/x86_64-linux-gnu/mpich
    if [ "$DRY" != 1 ] && [ ! -x "$root/bin/mpiexec.hydra" ]; then
        say "   (no MPICH under $GPU/root: run 'sh bench/run_gpu.sh fetch' and carry build/gpu)" | tee -a "$DIR/manifest.txt"
        return 0
    fi
    lib=$root/lib/x86_64-linux-gnu
    x cc -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -I. -I"$inc" -o build/mpi_bench bench/mpi_bench.c \
        -L"$lib" -Wl,-rpath-link,"$lib" -Wl,-rpath-link,"$GPU/root/lib/x86_64-linux-gnu" -lmpich -lOpenCL -lm
    gpus=1
    have_gpu && [ "$DRY" != 1 ] && gpus=$(nvidia-smi -L | wc -l)
    # the NVIDIA platform's index in clinfo -l order: each rank takes device PMI_RANK % gpus
    plat=$([ "$DRY" = 1 ] || clinfo -l 2> /dev/null | grep '^Platform' | grep -n -i nvidia | head -1 | cut -d: -f1)
    plat=$((${plat:-1} - 1))
    for ranks in $(echo "$gpus 2" | tr ' ' '\n' | sort -un); do
        rec "mpi_${ranks}ranks.txt" 300 env LD_LIBRARY_PATH="$(ROOT_LIB)" "$root/bin/mpiexec.hydra" -n "$ranks" \
            sh -c "CLSORT_DEVICE=$plat:\$((PMI_RANK % $gpus)) exec build/mpi_bench ${SIZES:-24 26}"
    done
}
# The large-index cases that need a GPU's memory (tests/test_large.c): a
# 2^33-element scan, a grid of 2^32 cells, 2^31 + 2^22 keys with 12-bit digits.
suite_large() {
    build . build/test_large || return 0
    for c in ${LARGE_CASES:-bin32 scan4 wide12}; do rec "test_large_$c.log" 400 build/test_large "$c"; done
}
# The test suite on the device, at --quick size (its own parts and options: tests/README.md).
suite_tests() {
    build . build/test_clsort || return 0
    rec test_clsort.log 560 build/test_clsort --quick
}
# The caller's operators (clsort.h USER OPERATORS) beside the built-in rows they restate, from four
# families' suites (their rows named by --filter): a + b for reduce and the inclusive scan, x * x feeding
# the f32 sum, the (value, index) argmin, at 2^20, 2^24 and 2^28 (with the copy row: the floors); select
# by a predicate at 2^24 and 2^28; 32-byte records sorted by a computed Morton key (2 x 32 bytes a
# record: 2^20 and 2^24) beside the u32 pairs sort. CUB's
# functor forms (bench/peers/cub_user_ops.cu: Reduce, InclusiveScan, TransformReduce, argmin by a custom
# op and ArgMin, key kernel + SortPairs + gather) and its select (cub_bench) in the same command.
suite_user_ops() {
    rec clsort.jsonl 300 build/bench reduce scan --no-host --runs "$RUNS" \
        --filter '^(copy/u32|reduce/(u32_sum|f32_sum|u32_sum_user_op|f32_sum_of_squares_transform|f32_argmin_index_(transform|commutative))|scan/u32_inclusive(_user_op)?)$' \
        $(sizes 20 24 28)
    rec clsort.jsonl 200 build/bench select --no-host --runs "$RUNS" --filter '^select/u32_greater_half(_predicate)?$' \
        $(sizes 24 28)
    rec clsort.jsonl 300 build/bench sort --no-host --runs "$RUNS" --filter '^sort/(record32_morton_key|u32_u32_pairs)$' \
        $(sizes 20 24)
    peer cub_user_ops 240 build/cub_user_ops $(sizes 20 24 28)
    peer cub_bench 180 build/cub_bench $(sizes 20 24 28)
}
suite_peers() {
    peer bc_bench 240 build/bc_bench "${BC_PLATFORM:-NVIDIA}" $(sizes 20 24 28)
    if [ "$DRY" = 1 ] || python3 -c 'import cupy, torch' > /dev/null 2>&1; then
        rec cupy_torch.txt 180 python3 bench/peers/cub_bench.py $(sizes 20 24 28)
    fi
}

# pack: the result folders of this invocation into $OUT, with their tables.
pack() {
    [ -n "${OUT:-}" ] && [ -d "${OUT:-}" ] || return 0
    [ -n "$RESULT_DIRS" ] || return 0
    x tar czf "$OUT/results.tar.gz" $RESULT_DIRS
    [ "$DRY" = 1 ] || for d in $RESULT_DIRS; do python3 bench/table.py "$d" 2>&1; done > "$OUT/tables.md"
}

# check_suites: every family of the registry has its suite function.
check_suites() {
    [ -n "$FAMILIES" ] || die "no family found in clsort.h's CLSORT_FAMILIES block"
    for f in $FAMILIES $OTHER_SUITES; do
        command -v "suite_$f" > /dev/null 2>&1 || die "the suite $f has no suite_$f here"
    done
}

run_suite() {
    s=$1
    case " $FAMILIES $OTHER_SUITES " in
        *" $s "*) ;;
        *)
            case $s in # older names
                pack) die "the suite pack is now named split" ;;
                bin) die "the suite bin is now named binning" ;;
            esac
            die "unknown suite: $s (suites: $FAMILIES $OTHER_SUITES figures)" ;;
    esac
    new_dir "$s"
    "suite_$s"
    [ "$DRY" = 1 ] || python3 bench/table.py "$DIR" || true
    pack
}

# ---- before-after ----

before_after() {
    old=$1
    name=$(echo "$old" | tr -c 'A-Za-z0-9._\n-' '_')
    tree=$GPU/rev/$name
    [ "$DRY" = 1 ] || [ -f "$tree/clsort.h" ] || die "no $tree: run 'sh bench/run_gpu.sh fetch $old' and carry build/gpu"
    build "$tree" build/bench || die "the old tree's bench did not build"
    new_dir "before-after"
    [ "$DRY" = 1 ] || say "old tree: $old = $(cat "$tree/.commit" 2> /dev/null)" >> "$DIR/manifest.txt"
    # the same rows through the environment both drivers read
    only="copy scan pack sort bitonic_seg1024 reduce_by_key"
    vars="u32 u32_exclusive u32_flags_half u32_keys u32_u32_pairs u64_keys u32_keys_1024_segments u32_keys_u32_sum_mean_run_1000"
    for round in 1 2; do # interleaved: the spread between rounds is the noise
        rec "before$round.jsonl" 300 env BENCH_ONLY="$only" BENCH_VARIANT="$vars" BENCH_HOST=0 BENCH_RUNS="$RUNS" \
            "$tree/build/bench" $(sizes 20 24 28)
        rec "after$round.jsonl" 300 env BENCH_ONLY="$only" BENCH_VARIANT="$vars" BENCH_HOST=0 BENCH_RUNS="$RUNS" \
            build/bench $(sizes 20 24 28)
    done
    rec before_nbody.jsonl 120 env BENCH_ONLY=nbody BENCH_NBODY_VARIANTS=f32_tiled, BENCH_HOST=0 BENCH_RUNS=9 \
        "$tree/build/bench" "${RUN_GPU_NBODY_LOG2:-16}"
    rec after_nbody.jsonl 120 env BENCH_ONLY=nbody BENCH_NBODY_VARIANTS=f32_tiled, BENCH_HOST=0 BENCH_RUNS=9 \
        build/bench "${RUN_GPU_NBODY_LOG2:-16}"
    peer cub_bench 180 build/cub_bench $(sizes 20 24 28)
    [ "$DRY" = 1 ] || python3 bench/table.py before-after "$DIR" || true
    pack
}

# ---- main ----

ARGS="$*"
check_suites
[ $# -gt 0 ] || die "usage: sh bench/run_gpu.sh fetch [OLDREV...] | SUITE... | figures | before-after OLDREV | check"
if [ "$1" = check ]; then # make test: the suite lists against the registry, nothing run
    say "run_gpu: suites $FAMILIES(one per family of CLSORT_FAMILIES) and $OTHER_SUITES: each has its function"
    exit 0
fi
if [ "$1" = fetch ]; then
    shift
    fetch "$@"
    exit 0
fi
setup
if have_gpu; then
    export CLSORT_DEVICE="${CLSORT_DEVICE:-nvidia}"
    smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv,noheader
fi
export CLSORT_CACHE_DIR=off # every program built in its process, as in every earlier figure
[ "$DRY" = 1 ] && say "+ export CLSORT_DEVICE=${CLSORT_DEVICE:-} CLSORT_CACHE_DIR=off"
build_all
DEVICE_SLUG=$(if [ "$DRY" = 1 ]; then echo "${RUN_GPU_DEVICE:-DEVICE}"; else device_slug; fi)
rm -rf "$PEER_CACHE"
if [ "$1" = before-after ]; then
    [ $# -ge 2 ] || die "before-after needs the old revision (fetched)"
    before_after "$2"
    exit 0
fi
for s in "$@"; do
    if [ "$s" = figures ]; then
        for f in $FIGURES; do run_suite "$f"; done
    else
        run_suite "$s"
    fi
done
[ -z "${OUT:-}" ] || say "results: \$OUT/results.tar.gz (tar xzf it in the project root), tables: \$OUT/tables.md"
