# clsort.h - build, test, demo, install and bench.
#   make test      the five-minute check: check-gen, the size budget, the
#                  function length (tests/fn_length.sh), the compile matrix,
#                  the environment knobs, the bench's suite lists against the
#                  registry, the suite at --quick size (every family
#                  and the api part, both cross-work-group paths); one
#                  "N passed, N failed" at the end
#   make demo      the examples, each checking its own result
#   make check     what CI runs: make test, test-limits (the budget and stress
#                  parts), the program cache runs, the demo,
#                  then extra-checks (sanitizers, oclgrind, other OpenCL
#                  implementations, faults, threads, fuzz, valgrind, CMake, MPI)
#   make check-full  make check and the suite at --full size with every variant
#   make install PREFIX=...   clsort.h, a pkg-config file and a CMake package
# What a target needs and lacks is installed by tests/deps.sh (as root on a
# Debian machine; otherwise it prints the apt-get command).
CC      ?= cc
CXX     ?= c++
WARN    = -Wall -Wextra -Werror -pedantic
CFLAGS  ?= -O2
LDLIBS  = -lOpenCL -lm -lpthread
BUILD   = build
SEED   ?= bench/peers/seed_nbody.c
# Every program make runs keeps clsort's program cache off (deterministic
# OpenCL call counts, nothing written to $HOME); test-cache and
# bench-coldstart name their own cache directories under $(BUILD).
export CLSORT_CACHE_DIR = off
# test_clsort --jobs: processes that share its parts, one per core (at most
# 4): on a CPU runtime a cold run is mostly compiling programs, one core each.
TEST_JOBS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); [ "$$n" -gt 4 ] && n=4; echo $$n)

.PHONY: all bench-coldstart bench-prepare env-check deps mpi-deps mpi-test mpi-sanitize mpi-bench test test-full test-cache demo \
  bench gen check-gen compile-check sanitize oclgrind portability faults threads fuzz valgrind cmake-check \
  dynamic-check readme-check seed check check-full extra-checks install uninstall clean test-limits

all: $(BUILD)/test_clsort $(BUILD)/demo $(BUILD)/hello $(BUILD)/interop $(BUILD)/pic_sort $(BUILD)/bench $(BUILD)/test_large $(BUILD)/nbody_multi $(BUILD)/tree_bench $(BUILD)/radius_bench $(BUILD)/galaxy $(BUILD)/splats $(if $(wildcard $(SEED)),$(BUILD)/seed_nbody)

# The OpenCL headers, ICD loader, PoCL and xxd, when one is missing.
deps:
	@tests/deps.sh opencl

$(BUILD):
	mkdir -p $(BUILD)

# The families, in the family order: the names of clsort.h's registry
# (the rows X(ID, name, PREPARE) of CLSORT_FAMILIES, up to its blank line).
FAMILIES := $(shell sed -n '/^\#define CLSORT_FAMILIES(X)/,/^$$/p' clsort.h | \
  sed -n 's/^ *X.[A-Z_0-9]*, *\([a-z_0-9]*\),.*/\1/p')
ifeq ($(strip $(FAMILIES)),)
$(error no family found in clsort.h's CLSORT_FAMILIES block)
endif
# One program: tests/test_clsort.c includes tests/check.h and the file of each
# part: one per family, then the parts they share.
SHARED_PARTS = api budget stress
TEST_PARTS = $(FAMILIES) $(SHARED_PARTS)
TEST_CLSORT_SRC = tests/test_clsort.c tests/check.h tests/test_devcount.c $(foreach p,$(TEST_PARTS),tests/test_$(p).c) tests/test_user_op.c
# -O1: half of -O2's compile time, which make test counts; the suite's time
# on a CPU runtime is the kernels', not its host code's.
TEST_CFLAGS ?= -O1
$(BUILD)/test_clsort: $(TEST_CLSORT_SRC) clsort.h | $(BUILD)
	$(CC) -std=c99 $(WARN) $(TEST_CFLAGS) -I. -o $@ tests/test_clsort.c $(LDLIBS)

# The examples: one compile each, at -O1 (their host code sets up and checks;
# the device does the work): a third of -O2's compile time, which make demo
# counts.
EXAMPLE_CFLAGS ?= -O1
EXAMPLES = hello interop demo pic_sort galaxy splats records
$(EXAMPLES:%=$(BUILD)/%): $(BUILD)/%: examples/%.c clsort.h | $(BUILD)
	$(CC) -std=c99 $(WARN) $(EXAMPLE_CFLAGS) -D_POSIX_C_SOURCE=200809L -I. -o $@ $< $(LDLIBS)

$(BUILD)/test_large: tests/test_large.c clsort.h | $(BUILD)
	$(CC) -std=c99 $(WARN) $(CFLAGS) -D_POSIX_C_SOURCE=200809L -I. -o $@ tests/test_large.c $(LDLIBS)

$(BUILD)/tree_bench: bench/tree_bench.c clsort.h | $(BUILD)
	$(CC) -std=c99 $(WARN) $(CFLAGS) -D_POSIX_C_SOURCE=200809L -I. -o $@ bench/tree_bench.c $(LDLIBS)
$(BUILD)/radius_bench: bench/radius_bench.c clsort.h | $(BUILD)
	$(CC) -std=c99 $(WARN) $(CFLAGS) -D_POSIX_C_SOURCE=200809L -I. -o $@ bench/radius_bench.c $(LDLIBS)

$(BUILD)/nbody_multi: bench/nbody_multi.c clsort.h | $(BUILD)
	$(CC) -std=c99 $(WARN) $(CFLAGS) -D_POSIX_C_SOURCE=200809L -I. -o $@ bench/nbody_multi.c $(LDLIBS)

# The seed tutorial's kernel as published (the peer the N-body rows are
# measured against).
$(BUILD)/seed_nbody: $(SEED) | $(BUILD)
	$(CC) -O2 -o $@ $(SEED) -lOpenCL
seed: $(BUILD)/seed_nbody

# bench/nbody_host.c: the plain C N-body loop, -O3 (the CPU baseline).
$(BUILD)/bench: bench/bench.c bench/std_sort.cpp bench/nbody_host.c clsort.h | $(BUILD)
	$(CXX) $(WARN) $(CFLAGS) -c -o $(BUILD)/std_sort.o bench/std_sort.cpp
	$(CC) -std=c99 $(WARN) -O3 -c -o $(BUILD)/nbody_host.o bench/nbody_host.c
	$(CC) -std=c99 $(WARN) $(CFLAGS) -D_POSIX_C_SOURCE=200809L -I. -o $@ bench/bench.c $(BUILD)/std_sort.o \
	  $(BUILD)/nbody_host.o $(LDLIBS) -lstdc++

# The header with gcc and clang as C99/C11/C17 and C++11/17/20 (-Wshadow
# -Wconversion on top of the usual flags): tests/compile_matrix.sh.
MATRIX_WARN = $(WARN) -Wshadow -Wconversion
compile-check: | $(BUILD)
	@tests/deps.sh clang
	@tests/compile_matrix.sh $(BUILD)
# The CLSORT_STATIC program alone (valgrind runs it).
$(BUILD)/cm_static: tests/compile/static.c clsort.h | $(BUILD)
	$(CC) -std=c99 $(MATRIX_WARN) -I. -o $@ tests/compile/static.c $(LDLIBS)

$(BUILD)/test_cache: tests/test_cache.c tests/workset.h clsort.h $(BUILD)/libfakecuda.so | $(BUILD)
	$(CC) -std=c99 $(WARN) $(CFLAGS) -D_POSIX_C_SOURCE=200809L -I. -Itests -o $@ tests/test_cache.c $(LDLIBS)
# A stand-in for libcuda (NVIDIA's cache entries as cubin, tested without
# NVIDIA): test_cache opens it from its own directory.
$(BUILD)/libfakecuda.so: tests/fake_libcuda.c | $(BUILD)
	$(CC) -std=c99 $(WARN) $(CFLAGS) -shared -fPIC -o $@ tests/fake_libcuda.c

# make test: each part's output as it comes, its "N passed, N failed", and
# at the end one line summing every part (tests/run_parts.sh). The programs
# are built as its first part, their compile lines not echoed. The suite runs
# every family and the api part on both cross-work-group paths at --quick
# size, with the program cache on as a user gets it (an empty directory
# under $(BUILD), cache_when AUTO: on PoCL nothing is stored inside a call or
# at exit). Under five minutes on two cores from empty caches; what takes
# longer belongs in check (the budget and stress parts: make test-limits).
TEST_PROGRAMS = $(BUILD)/test_clsort $(BUILD)/hello $(BUILD)/test_multidev
TEST_STEPS = build '$(MAKE) -s -j$(TEST_JOBS) --no-print-directory $(TEST_PROGRAMS) && echo "built: $(TEST_PROGRAMS)"' \
  check-gen 'gen/embed.sh --check && echo "the embedded kernels match kernels/*.cl"' \
  'size budget' 'gen/embed.sh --budget' \
  'function length' 'tests/fn_length.sh' \
  'compile matrix' 'tests/compile_matrix.sh $(BUILD)' \
  env-check '$(MAKE) --no-print-directory env-check' \
  'bench lists' 'sh bench/run_gpu.sh check && { ! command -v python3 > /dev/null || python3 bench/table.py check; }' \
  'test_clsort --quick' 'rm -rf $(BUILD)/cache_quick && CLSORT_CACHE_DIR=$(CURDIR)/$(BUILD)/cache_quick ./$(BUILD)/test_clsort --quick --jobs $(TEST_JOBS) $(FAMILIES) api' \
  multidev '$(MAKE) --no-print-directory multidev'
test: deps | $(BUILD)
	@tests/deps.sh clang
	@tests/run_parts.sh $(TEST_STEPS)

# What make test leaves to check (its five minutes): launches shaped for a
# loop budget (budget), the context's shared state under long mixed sequences
# (stress), and the family cases marked for here (--limits: the reduction
# family's tile variants, segmentation kinds and float error bounds, the
# radix sort's 8/16-bit keys, host forms, program eviction and device counts
# on small tiles, prepare over every family), whose cold builds cost the most.
test-limits: deps $(BUILD)/test_clsort
	@tests/run_parts.sh 'test_clsort --quick budget stress' './$(BUILD)/test_clsort --quick --jobs $(TEST_JOBS) budget stress' \
	  'test_clsort --quick --limits' './$(BUILD)/test_clsort --quick --limits --jobs $(TEST_JOBS)'

# The suite at full size (up to 2^22, the default of test_clsort) with every
# variant (--quick runs each on one path).
test-full: deps $(BUILD)/test_clsort
	@tests/run_parts.sh 'test_clsort --full' './$(BUILD)/test_clsort --full --jobs $(TEST_JOBS)'

# The program cache: the quick scan, split and api parts fill a fresh cache
# under $(BUILD) (stored as programs leave the context: CLSORT_CACHE_WHEN), test_cache checks the cache and clsort_prepare, and the same
# parts run again with every program from that cache (none may be built from
# source). test_cache's shared mode checks a cache filled at install time
# (SHARED, by root) and read by nobody: it needs root, to fill the cache as
# one user and setuid to another; without root it says so and counts the
# check as skipped (CI runs as root, where it runs).
SUITE_CACHE = $(CURDIR)/$(BUILD)/cache_suite
CACHE_RUN_PARTS = scan gather
WARM_LOG    = $(BUILD)/test_warm.log
test-cache: deps $(BUILD)/test_clsort $(BUILD)/test_cache
	@rm -rf $(SUITE_CACHE)
	@tests/run_parts.sh \
	  'quick $(CACHE_RUN_PARTS), filling the program cache' 'CLSORT_CACHE_WHEN=leave CLSORT_CACHE_DIR=$(SUITE_CACHE) ./$(BUILD)/test_clsort --quick $(CACHE_RUN_PARTS)' \
	  test_cache './$(BUILD)/test_cache $(BUILD)/cache_test' \
	  'test_cache shared (root: filled by root, read by nobody)' './$(BUILD)/test_cache $(BUILD)/cache_shared shared' \
	  'quick $(CACHE_RUN_PARTS), from the program cache' \
	    '{ CLSORT_CACHE_DIR=$(SUITE_CACHE) ./$(BUILD)/test_clsort --quick $(CACHE_RUN_PARTS); echo $$? > $(WARM_LOG).status; } | \
	     tee $(WARM_LOG); exit $$(cat $(WARM_LOG).status)' \
	  'no program built from source in the cached run' \
	    'grep -q "program cache" $(WARM_LOG) && ! grep "program cache" $(WARM_LOG) | grep -v " 0 built from source"'

# Tuning from the environment is read once by clsort_create, which refuses a
# malformed value with a message naming the variable (and a good one works):
# one check per knob.
ENV_BAD = CLSORT_TILE=3:16 CLSORT_TILE=256 CLSORT_TILE=abc CLSORT_ONESWEEP=2 CLSORT_BITONIC_STEPS=9 \
          CLSORT_NBODY=64:16:1 CLSORT_NBODY=64:1:1:x CLSORT_PATH=fast CLSORT_REVERSE_TILES=2 CLSORT_CUBIN=2 \
          CLSORT_LOOP_BUDGET=100 CLSORT_LOOP_BUDGET=on CLSORT_REDUCE_GROUPS=0 CLSORT_REDUCE_GROUPS=70000 \
          CLSORT_CACHE_WHEN=junk CLSORT_CACHE_WHEN=BUILD CLSORT_CACHE_MAX=12X CLSORT_TREE_WALK=tree \
          CLSORT_RBK_VARIANT=2 CLSORT_STATUS32=yes CLSORT_FALLBACK=on CLSORT_ONESWEEP=true \
          CLSORT_REDUCE_TILES=3 CLSORT_RBK_VARIANT=1
ENV_GOOD = CLSORT_TILE=64:8 CLSORT_ONESWEEP=0 CLSORT_BITONIC_STEPS=3 CLSORT_NBODY=64:2:2:p CLSORT_CUBIN=0 \
           CLSORT_LOOP_BUDGET=4096 CLSORT_REDUCE_GROUPS=3 CLSORT_CACHE_WHEN=auto CLSORT_REDUCE_TILES=registers
env-check: deps $(BUILD)/hello
	@passed=0; failed=0; \
	for kv in $(ENV_BAD); do \
	  env "$$kv" ./$(BUILD)/hello > $(BUILD)/env.log 2>&1; status=$$?; \
	  if [ $$status = 1 ] && grep -q "$${kv%%=*}" $(BUILD)/env.log; then passed=$$((passed + 1)); \
	  else failed=$$((failed + 1)); echo "env-check: $$kv was not refused with a message naming it:"; cat $(BUILD)/env.log; fi; \
	done; \
	if env $(ENV_GOOD) ./$(BUILD)/hello > $(BUILD)/env.log 2>&1; then passed=$$((passed + 1)); \
	else failed=$$((failed + 1)); echo "env-check: valid knobs refused:"; cat $(BUILD)/env.log; fi; \
	echo "env-check: $(words $(ENV_BAD)) malformed knobs refused at create with a message, $(words $(ENV_GOOD)) valid ones accepted"; \
	echo "$$passed passed, $$failed failed"; [ $$failed = 0 ]

# Every example checks its own result and exits 1 when it is wrong. Sizes
# that keep the demo within a minute on two cores with empty caches (most of
# it is PoCL compiling kernels): demo and pic_sort 2^20 elements (build/demo
# alone: 2^22; build/pic_sort alone: the paper's 8M particles), galaxy 4096
# bodies for 60 steps with 4 PNG images in $(BUILD) (build/galaxy alone: 2^20
# bodies, 400 steps), splats 2^14 .. 2^16 Gaussians in 1/8-octave steps, 3
# timed frames each, and its PNG in $(BUILD) (build/splats alone: 2^20 ..
# 2^23, 7 frames). The examples are built two at a time.
demo: deps
	@$(MAKE) -s --no-print-directory -j2 $(EXAMPLES:%=$(BUILD)/%) && echo "built: $(EXAMPLES:%=$(BUILD)/%) ($(EXAMPLE_CFLAGS))"
	./$(BUILD)/hello
	./$(BUILD)/interop
	./$(BUILD)/demo 1048576
	./$(BUILD)/pic_sort 1048576
	./$(BUILD)/galaxy 4096 60 20 $(BUILD)
	./$(BUILD)/splats --range 14:16 --frames 3 --png $(BUILD)/splats.png
	./$(BUILD)/records 200000
	@echo "demo: 7 examples checked against the host: hello (an f32 sort), interop (split, sort and scan chained" \
	  "by events), demo (scan, pack, split, sort and gather, segmented bitonic sort of 2^20), pic_sort (sorts," \
	  "binnings and cell ranges by lower/upper bound of 2^20 particles), galaxy (energy and momentum of 4096" \
	  "bodies over 60 Barnes-Hut steps), splats (cull, pack, depth keys, sort and a two-array gather of" \
	  "2^14..2^16 Gaussians chained by events with a device count), records (2x10^5 32-byte particles sorted" \
	  "by a Morton key, those inside a sphere counted by a transform, the nearest by an argmin operator)"

bench: deps $(BUILD)/bench
	./$(BUILD)/bench 16 20 24

# Cold start: a new process times clsort_create and the first and
# second call of each family at 2^16, with no cache, then the program cache
# cold (filled), warm, and warm after one clsort_prepare. The drivers' own
# caches are off (PoCL, NVIDIA) so that clsort's cache is measured alone.
COLD_CACHE = $(CURDIR)/$(BUILD)/cache_coldstart
COLD_ENV   = POCL_KERNEL_CACHE=0 CUDA_CACHE_DISABLE=1
$(BUILD)/coldstart: bench/tools/coldstart.c tests/workset.h clsort.h | $(BUILD)
	$(CC) -std=c99 $(WARN) $(CFLAGS) -D_POSIX_C_SOURCE=200809L -I. -Itests -o $@ bench/tools/coldstart.c $(LDLIBS)
# The driver probes (bench/README.md): nv_probe (what a program build does),
# api_times.so and kernel_times.so (LD_PRELOAD: host time per OpenCL call,
# device time per kernel).
$(BUILD)/nv_probe: bench/tools/nv_probe.c clsort.h | $(BUILD)
	$(CC) -std=c99 $(WARN) $(CFLAGS) -D_POSIX_C_SOURCE=200809L -I. -o $@ bench/tools/nv_probe.c $(LDLIBS)
$(BUILD)/api_times.so $(BUILD)/kernel_times.so: $(BUILD)/%.so: bench/tools/%.c | $(BUILD)
	$(CC) -std=c99 $(WARN) $(CFLAGS) -shared -fPIC -o $@ $< -ldl
bench-coldstart: deps $(BUILD)/coldstart
	rm -rf $(COLD_CACHE)
	$(COLD_ENV) ./$(BUILD)/coldstart off
	$(COLD_ENV) ./$(BUILD)/coldstart $(COLD_CACHE)
	$(COLD_ENV) ./$(BUILD)/coldstart $(COLD_CACHE)
	$(COLD_ENV) ./$(BUILD)/coldstart $(COLD_CACHE) 16 --prepare

# What clsort_prepare leaves for the first call: each process prepares a
# pack -> sort -> gather frame with a fresh PoCL kernel cache, then prints its
# first frame and the median of the later ones (CLOCK_MONOTONIC, clFinish).
# PREP_ARGS=--many: the records moved by clsort_gather_many.
PREP_N    ?= 100000
PREP_RUNS ?= 5
PREP_ARGS ?=
$(BUILD)/prepare_frame: bench/tools/prepare_frame.c clsort.h | $(BUILD)
	$(CC) -std=c99 $(WARN) $(CFLAGS) -D_POSIX_C_SOURCE=200809L -I. -o $@ bench/tools/prepare_frame.c $(LDLIBS)
bench-prepare: deps $(BUILD)/prepare_frame
	for i in $$(seq $(PREP_RUNS)); do d=$$(mktemp -d) && POCL_CACHE_DIR=$$d CUDA_CACHE_DISABLE=1 \
	  ./$(BUILD)/prepare_frame $(PREP_N) $(PREP_ARGS) || exit 1; rm -rf $$d; done

# Host code under ASan + UBSan (leaks of the OpenCL runtime itself suppressed).
sanitize: | $(BUILD)
	$(CC) -std=c99 $(WARN) -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -I. \
	  -o $(BUILD)/test_sanitize tests/test_clsort.c $(LDLIBS)
	$(PIN_POCL) ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=tests/lsan.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ./$(BUILD)/test_sanitize --quick --jobs $(TEST_JOBS)
	$(PIN_POCL) ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=tests/lsan.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ./$(BUILD)/test_sanitize --quick --limits --jobs $(TEST_JOBS)

# Kernels under oclgrind (data races, uninitialized reads, API misuse) on the
# --tiny size set, each part in a process of its own: fails on any report.
# Debian's oclgrind 21.10 keeps a released buffer's shadow memory for the next
# buffer in its slot and so reports reads of initialized memory
# (tests/oclgrind_realloc.c), and its interpreter took a switch on an integer
# narrower than a byte (trunc to i5) wrongly (tests/oclgrind_switch.c); we build
# it from Debian's source with the fixes in tests/oclgrind-shadow.patch (a few
# minutes, once per build directory) and first check that the patched build
# still catches a planted uninitialized read and runs that switch right.
# oclgrind calls itself a CPU, so the sort runs its CPU kernels (serial
# scatter, emulated one-sweep); the sort's types case runs again with
# CLSORT_TILE=4:1024 for the work-group kernel GPUs use (radix_reorder).
# Each unit is one part on one path (tests/oclgrind_units.sh): every case of
# every part runs on the paths it runs on in one --tiny run, nothing twice.
OCLGRIND_DIR    = $(BUILD)/oclgrind
OCLGRIND        = $(OCLGRIND_DIR)/bin/oclgrind
OCLGRIND_URL    = http://deb.debian.org/debian/pool/main/o/oclgrind/oclgrind_21.10.orig.tar.gz
OCLGRIND_SHA256 = b40ea81fcf64e9012d63c3128640fde9785ef4f304f9f876f53496595b8e62cc
OCLGRIND_RUN    = $(OCLGRIND) --data-races --uninitialized --check-api ./$(BUILD)/test_clsort --tiny
# Each unit is a process of its own (PART-portable, PART-lookback, or PART
# for budget and stress, whose cases make their own contexts; tile4-PATH: the
# sort types case again with CLSORT_TILE=4:1024, the GPU's radix_reorder);
# with --data-races oclgrind runs one thread, so the units run two at a time
# (xargs -P), the longest first (OCLGRIND_FIRST, in the order of their
# measured seconds under oclgrind on two cores: 2 lanes end together when the
# last ones are the shortest), then every other unit in the part order.
# One process per path, so that no part's two paths run one after the other
# in one lane while the other core idles at the end.
OCLGRIND_FIRST  = sort-lookback tree-portable sort-portable stress bitonic-portable budget \
  tile4-portable tile4-lookback select-portable reduce-portable reduce-lookback
OCLGRIND_JOBS  ?= 2

$(OCLGRIND): tests/oclgrind-shadow.patch | $(BUILD)
	@tests/deps.sh oclgrind
	rm -rf $(BUILD)/oclgrind-src && mkdir -p $(BUILD)/oclgrind-src
	curl -fsSL -o $(BUILD)/oclgrind-src/src.tar.gz $(OCLGRIND_URL)
	echo "$(OCLGRIND_SHA256)  $(BUILD)/oclgrind-src/src.tar.gz" | sha256sum -c --quiet
	tar xzf $(BUILD)/oclgrind-src/src.tar.gz -C $(BUILD)/oclgrind-src
	patch -s -d $(BUILD)/oclgrind-src/Oclgrind-21.10 -p1 < tests/oclgrind-shadow.patch
	cmake -S $(BUILD)/oclgrind-src/Oclgrind-21.10 -B $(BUILD)/oclgrind-src/build -DCMAKE_BUILD_TYPE=Release \
	  -DLLVM_DIR=/usr/lib/llvm-14/lib/cmake/llvm -DCMAKE_INSTALL_PREFIX=$(CURDIR)/$(OCLGRIND_DIR) > $(BUILD)/oclgrind-build.log
	cmake --build $(BUILD)/oclgrind-src/build -j 2 --target install >> $(BUILD)/oclgrind-build.log 2>&1 || \
	  { tail -30 $(BUILD)/oclgrind-build.log; exit 1; }
	rm -rf $(BUILD)/oclgrind-src

oclgrind: $(BUILD)/test_clsort $(OCLGRIND)
	@$(CC) -std=c99 -o $(BUILD)/oclgrind_realloc tests/oclgrind_realloc.c $(LDLIBS) && \
	  $(CC) -std=c99 -o $(BUILD)/oclgrind_planted tests/oclgrind_realloc.c -DPLANT_UNINITIALIZED_READ $(LDLIBS) && \
	  $(CC) -std=c99 -o $(BUILD)/oclgrind_switch tests/oclgrind_switch.c $(LDLIBS)
	@n=$$($(OCLGRIND) --uninitialized ./$(BUILD)/oclgrind_realloc 2>&1 | grep -c "^Uninitialized"); \
	  p=$$($(OCLGRIND) --uninitialized ./$(BUILD)/oclgrind_planted 2>&1 | grep -c "^Uninitialized"); \
	  w=$$($(OCLGRIND) ./$(BUILD)/oclgrind_switch 2>&1); \
	  echo "oclgrind self-check: $$n reports on the reallocation case (0 expected), $$p on the planted read (>0 expected)," \
	    "i5 switch: $$w (0 expected)"; \
	  [ "$$n" = 0 ] && [ "$$p" -gt 0 ] && [ "$$w" = "0 of 128 work-items wrong" ]
	@rm -f $(BUILD)/oclgrind_part_*.log; \
	  units=$$(tests/oclgrind_units.sh ./$(BUILD)/test_clsort $(OCLGRIND_FIRST)) || exit 1; \
	  printf '%s\n' $$units | xargs -P $(OCLGRIND_JOBS) -I @ sh -c \
	    'u=@; case $$u in tile4-*) CLSORT_TILE=4:1024 $(OCLGRIND_RUN) sort --filter sort/types --path $${u#tile4-};; \
	      *-portable|*-lookback) $(OCLGRIND_RUN) $${u%-*} --path $${u##*-};; \
	      *) $(OCLGRIND_RUN) $$u;; esac > $(BUILD)/oclgrind_part_@.log 2>&1'; \
	  status=$$?; cat $(BUILD)/oclgrind_part_*.log > $(BUILD)/oclgrind.log; grep -E "passed, .* failed" $(BUILD)/oclgrind.log; \
	  if ! awk -f tests/oclgrind_reports.awk $(BUILD)/oclgrind.log > $(BUILD)/oclgrind_reports.txt; then \
	    echo "oclgrind reported problems:"; cat $(BUILD)/oclgrind_reports.txt; exit 1; \
	  fi; exit $$status

# The suite on every OpenCL implementation Debian can install here, each run
# selected by the library's own device selection (CLSORT_DEVICE) and wrapped in
# a timeout so that a hang fails fast: PoCL's pthread driver (the default),
# PoCL's single-threaded basic driver, Mesa rusticl on llvmpipe (installed as
# root when missing). Each runs test_clsort --tiny: every part, both
# cross-work-group paths (portable, look-back: its one-pass kernels run on
# every device, with the decoupled fallback), and the look-back once more
# with the tiles in reverse start order (test_reverse_tiles: only the
# fallback lets that finish; PoCL basic and rusticl run work-groups one after
# another, pthread two at a time). oclgrind has its own target.
# tests/llvmpipe_narrow_wg.c,
# tests/llvmpipe_fence_loop.c and tests/llvmpipe_loop_limit.c (llvmpipe bugs
# the library meets and works around; their device loop in tests/repro.h)
# run first and only report, as does tests/pocl_basic_user_event.c (a PoCL
# basic driver deadlock: why the cases gated by a user event are not --tiny).
PORTABILITY_TIMEOUT ?= 900
# --tiny: every part and case that has a tiny form, both paths; the kernels
# are the same at every size, and each implementation compiles every program
# anew (the single-threaded basic driver took over 900 s at --quick).
PORTABILITY_SIZE ?= --tiny
# The sanitizer and valgrind runs check the library on PoCL alone: with more
# ICDs installed the loader opens them all, and rusticl's own allocations at
# load (never freed) would read as leaks of this program.
PIN_POCL = $(if $(wildcard /etc/OpenCL/vendors/pocl.icd),OCL_ICD_VENDORS=/etc/OpenCL/vendors/pocl.icd)
PORTABILITY_RUNS = pocl-pthread:POCL_DEVICES=pthread:pocl:pthread pocl-basic:POCL_DEVICES=basic:pocl:basic \
  rusticl-llvmpipe:RUSTICL_ENABLE=llvmpipe:rusticl:llvmpipe
$(BUILD)/llvmpipe_narrow_wg: tests/llvmpipe_narrow_wg.c tests/repro.h | $(BUILD)
	$(CC) -std=c99 $(WARN) -o $@ tests/llvmpipe_narrow_wg.c $(LDLIBS)
$(BUILD)/llvmpipe_fence_loop: tests/llvmpipe_fence_loop.c tests/repro.h | $(BUILD)
	$(CC) -std=c99 $(WARN) -o $@ tests/llvmpipe_fence_loop.c $(LDLIBS)
$(BUILD)/llvmpipe_loop_limit: tests/llvmpipe_loop_limit.c tests/repro.h | $(BUILD)
	$(CC) -std=c99 $(WARN) -o $@ tests/llvmpipe_loop_limit.c $(LDLIBS)
$(BUILD)/pocl_basic_user_event: tests/pocl_basic_user_event.c | $(BUILD)
	$(CC) -std=c99 $(WARN) -o $@ tests/pocl_basic_user_event.c $(LDLIBS)

portability: deps $(BUILD)/test_clsort $(BUILD)/llvmpipe_narrow_wg $(BUILD)/llvmpipe_fence_loop $(BUILD)/llvmpipe_loop_limit \
  $(BUILD)/pocl_basic_user_event
	@tests/deps.sh rusticl
	@RUSTICL_ENABLE=llvmpipe ./$(BUILD)/llvmpipe_narrow_wg > $(BUILD)/llvmpipe_narrow_wg.log 2>&1; \
	  echo "llvmpipe narrow work-group bug (worked around): $$(grep -q WRONG $(BUILD)/llvmpipe_narrow_wg.log && echo present || echo absent)"
	@RUSTICL_ENABLE=llvmpipe ./$(BUILD)/llvmpipe_fence_loop > $(BUILD)/llvmpipe_fence_loop.log 2>&1; \
	  echo "llvmpipe fence-in-a-loop bug (worked around): $$(grep -q WRONG $(BUILD)/llvmpipe_fence_loop.log && echo present || echo absent)"
	@RUSTICL_ENABLE=llvmpipe ./$(BUILD)/llvmpipe_loop_limit > $(BUILD)/llvmpipe_loop_limit.log 2>&1; \
	  echo "llvmpipe loop-iteration limit (worked around: the loop budget): $$(grep -q WRONG $(BUILD)/llvmpipe_loop_limit.log && echo present || echo absent)"
	@POCL_DEVICES=basic $(PIN_POCL) timeout 20 ./$(BUILD)/pocl_basic_user_event > $(BUILD)/pocl_basic_user_event.log 2>&1; \
	  echo "PoCL basic user-event deadlock (user-event cases not --tiny): $$([ $$? = 124 ] && echo present || echo absent)"
	@for run in $(PORTABILITY_RUNS); do \
	  name=$${run%%:*}; rest=$${run#*:}; envv=$${rest%%:*}; rest=$${rest#*:}; sel=$${rest%%:*}; want=$${rest#*:}; \
	  start=$$(date +%s); \
	  env $$envv CLSORT_DEVICE=$$sel timeout $(PORTABILITY_TIMEOUT) ./$(BUILD)/test_clsort $(PORTABILITY_SIZE) --jobs $(TEST_JOBS) > $(BUILD)/portability_$$name.log 2>&1; \
	  status=$$?; secs=$$(( $$(date +%s) - start )); \
	  dev=$$(sed -n 's/^device: \(.*\), path: portable$$/\1/p' $(BUILD)/portability_$$name.log | head -1); \
	  echo "portability $$name ($$dev): $$(tail -1 $(BUILD)/portability_$$name.log) in $$secs s"; \
	  [ $$status = 124 ] && { echo "portability $$name: no result within $(PORTABILITY_TIMEOUT) s (a hang?)"; exit 1; }; \
	  case "$$dev" in *$$want*) ;; *) echo "portability $$name: ran on \"$$dev\", not $$want"; exit 1;; esac; \
	  [ $$status = 0 ] || { grep -m 20 FAIL $(BUILD)/portability_$$name.log; exit 1; }; \
	done

# Fault injection and object accounting: every OpenCL call the library makes
# goes through tests/test_faults.c (linker --wrap), which fails each in turn.
FAULT_WRAPS = clCreateBuffer clCreateSubBuffer clCreateProgramWithSource clCreateKernel clCreateContext \
  clCreateCommandQueue clReleaseMemObject clRetainMemObject clReleaseProgram clReleaseKernel clReleaseContext \
  clReleaseCommandQueue clReleaseEvent clGetPlatformIDs clBuildProgram clSetKernelArg \
  clEnqueueNDRangeKernel clEnqueueReadBuffer clEnqueueWriteBuffer clEnqueueCopyBuffer \
  clEnqueueFillBuffer clEnqueueMarkerWithWaitList clGetDeviceIDs clGetDeviceInfo
$(BUILD)/test_faults: tests/test_faults.c clsort.h | $(BUILD)
	$(CC) -std=c99 $(WARN) -g -O1 -fsanitize=address,undefined -I. -o $@ tests/test_faults.c \
	  $(foreach f,$(FAULT_WRAPS),-Wl,--wrap=$(f)) $(LDLIBS)

faults: deps $(BUILD)/test_faults
	$(PIN_POCL) ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=tests/lsan.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 tests/lsan_run.sh ./$(BUILD)/test_faults

# Two threads, one context each, under ThreadSanitizer.
threads: deps | $(BUILD)
	$(CC) -std=c99 $(WARN) -D_POSIX_C_SOURCE=200809L -g -O1 -fsanitize=thread -I. -o $(BUILD)/test_threads \
	  tests/test_threads.c $(LDLIBS) -lpthread
	$(PIN_POCL) TSAN_OPTIONS=halt_on_error=1 ./$(BUILD)/test_threads

# libFuzzer (clang) over the public API, FUZZ_SECONDS long, from tests/fuzz_corpus
# (new inputs are added to it; commit the useful ones).
FUZZ_SECONDS ?= 60
fuzz: deps | $(BUILD)
	@tests/deps.sh clang
	clang -std=c99 $(WARN) -g -O1 -fsanitize=fuzzer,address,undefined -I. -o $(BUILD)/fuzz_clsort \
	  tests/fuzz_clsort.c $(LDLIBS)
	mkdir -p tests/fuzz_corpus
	@ASAN_OPTIONS=detect_leaks=0 ./$(BUILD)/fuzz_clsort -max_total_time=$(FUZZ_SECONDS) -max_len=256 \
	  -print_final_stats=1 -artifact_prefix=$(BUILD)/ tests/fuzz_corpus > $(BUILD)/fuzz.log 2>&1; status=$$?; \
	  grep -E "stat::number_of_executed_units|fuzz_clsort:|ERROR|Test unit written" $(BUILD)/fuzz.log; \
	  echo "fuzz: exit $$status"; exit $$status

# make install PREFIX=... [DESTDIR=...]: clsort.h, the pkg-config file and the
# CMake package (find_package(clsort) -> clsort::clsort), from the templates in
# gen/; the version is the header's. cmake --install installs the same files.
PREFIX  ?= /usr/local
VERSION := $(shell awk '/^\#define CLSORT_VERSION_(MAJOR|MINOR|PATCH) / { v = v (v == "" ? "" : ".") $$3 } END { print v }' clsort.h)
INSTALL_FILES = include/clsort.h lib/pkgconfig/clsort.pc lib/pkgconfig/clsort-dynamic.pc lib/cmake/clsort/clsortConfig.cmake \
  lib/cmake/clsort/clsortConfigVersion.cmake
install:
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/lib/cmake/clsort
	install -m 644 clsort.h $(DESTDIR)$(PREFIX)/include/clsort.h
	for pc in clsort clsort-dynamic; do \
	  sed -e 's|@CLSORT_PREFIX@|$(PREFIX)|g' -e 's|@CLSORT_VERSION@|$(VERSION)|g' gen/$$pc.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/$$pc.pc || exit 1; \
	done
	install -m 644 gen/clsortConfig.cmake $(DESTDIR)$(PREFIX)/lib/cmake/clsort/clsortConfig.cmake
	sed -e 's|@CLSORT_VERSION@|$(VERSION)|g' gen/clsortConfigVersion.cmake.in \
	  > $(DESTDIR)$(PREFIX)/lib/cmake/clsort/clsortConfigVersion.cmake
uninstall:
	rm -f $(INSTALL_FILES:%=$(DESTDIR)$(PREFIX)/%)
	-rmdir $(DESTDIR)$(PREFIX)/lib/cmake/clsort 2>/dev/null

# A consumer project (tests/cmake_consumer) builds against clsort::clsort and
# runs, through add_subdirectory, FetchContent (the local checkout) and
# find_package of the package installed by make install and by cmake --install;
# a request for a newer version than the header's must not find it; pkg-config
# gives the flags the same program builds with; the top-level CMake build
# compiles the test suite. One check per line, then "N passed, N failed".
CMAKE_PREFIX_MAKE  = $(CURDIR)/$(BUILD)/install_make
CMAKE_PREFIX_CMAKE = $(CURDIR)/$(BUILD)/install_cmake
cmake-check: deps | $(BUILD)
	@tests/deps.sh cmake
	@rm -rf $(CMAKE_PREFIX_MAKE) $(CMAKE_PREFIX_CMAKE) $(BUILD)/cmake_*
	@$(MAKE) --no-print-directory install PREFIX=$(CMAKE_PREFIX_MAKE) > $(BUILD)/cmake_install_make.log
	@passed=0; failed=0; \
	consumer() { \
	  dir=$(BUILD)/cmake_$$1; shift; \
	  cmake -S tests/cmake_consumer -B $$dir "$$@" > $$dir.log 2>&1 && cmake --build $$dir >> $$dir.log 2>&1 && \
	    ./$$dir/consumer >> $$dir.log 2>&1; \
	}; \
	verdict() { \
	  if [ $$1 = 0 ]; then passed=$$((passed + 1)); echo "cmake-check $$2: ok"; \
	  else failed=$$((failed + 1)); echo "cmake-check $$2: did not work:"; tail -20 $$3; fi; \
	}; \
	consumer subdirectory -DCLSORT_VIA=subdirectory; verdict $$? "add_subdirectory" $(BUILD)/cmake_subdirectory.log; \
	consumer fetchcontent -DCLSORT_VIA=fetchcontent; verdict $$? "FetchContent" $(BUILD)/cmake_fetchcontent.log; \
	consumer package_make -DCLSORT_VIA=package -DCLSORT_FIND_VERSION=$(VERSION) -DCMAKE_PREFIX_PATH=$(CMAKE_PREFIX_MAKE); \
	verdict $$? "find_package $(VERSION) after make install" $(BUILD)/cmake_package_make.log; \
	consumer newer -DCLSORT_VIA=package -DCLSORT_FIND_VERSION=$$(( $${VERSION%%.*} + 1 )) -DCMAKE_PREFIX_PATH=$(CMAKE_PREFIX_MAKE); \
	[ $$? != 0 ] && grep -q "clsortConfig.cmake" $(BUILD)/cmake_newer.log; \
	verdict $$? "find_package of a newer version refused" $(BUILD)/cmake_newer.log; \
	{ cmake -S . -B $(BUILD)/cmake_top > $(BUILD)/cmake_top.log 2>&1 && cmake --build $(BUILD)/cmake_top >> $(BUILD)/cmake_top.log 2>&1; }; \
	verdict $$? "top-level build (test suite)" $(BUILD)/cmake_top.log; \
	cmake --install $(BUILD)/cmake_top --prefix $(CMAKE_PREFIX_CMAKE) >> $(BUILD)/cmake_top.log 2>&1 && \
	  for f in $(INSTALL_FILES); do cmp -s $(CMAKE_PREFIX_MAKE)/$$f $(CMAKE_PREFIX_CMAKE)/$$f || \
	    { case $$f in *.pc) [ -f $(CMAKE_PREFIX_CMAKE)/$$f ];; *) false;; esac; } || { echo "$$f differs" >> $(BUILD)/cmake_top.log; false; }; done && \
	  consumer package_cmake -DCLSORT_VIA=package -DCMAKE_PREFIX_PATH=$(CMAKE_PREFIX_CMAKE); \
	verdict $$? "find_package after cmake --install (the same files)" $(BUILD)/cmake_package_cmake.log; \
	consumer dynamic_subdirectory -DCLSORT_VIA=subdirectory -DCLSORT_TARGET=clsort::clsort_dynamic; \
	verdict $$? "add_subdirectory, clsort::clsort_dynamic" $(BUILD)/cmake_dynamic_subdirectory.log; \
	consumer dynamic_package -DCLSORT_VIA=package -DCLSORT_TARGET=clsort::clsort_dynamic -DCMAKE_PREFIX_PATH=$(CMAKE_PREFIX_MAKE); \
	verdict $$? "find_package, clsort::clsort_dynamic" $(BUILD)/cmake_dynamic_package.log; \
	pc="PKG_CONFIG_PATH=$(CMAKE_PREFIX_MAKE)/lib/pkgconfig"; \
	{ [ "$$(env $$pc pkg-config --modversion clsort)" = $(VERSION) ] && \
	  $(CC) -std=c99 $(WARN) $$(env $$pc pkg-config --cflags clsort) -o $(BUILD)/cmake_pkgconfig \
	    tests/compile/impl.c tests/compile/use.c $$(env $$pc pkg-config --libs clsort) && ./$(BUILD)/cmake_pkgconfig; \
	} > $(BUILD)/cmake_pkgconfig.log 2>&1; \
	verdict $$? "pkg-config --cflags --libs clsort" $(BUILD)/cmake_pkgconfig.log; \
	{ $(CC) -std=c99 $(WARN) -o $(BUILD)/cmake_pkgconfig_dynamic tests/compile/impl.c tests/compile/use.c \
	    $$(env $$pc pkg-config --cflags --libs clsort-dynamic) && ./$(BUILD)/cmake_pkgconfig_dynamic && \
	  ! readelf -d $(BUILD)/cmake_pkgconfig_dynamic | grep -q 'libOpenCL'; \
	} > $(BUILD)/cmake_pkgconfig_dynamic.log 2>&1; \
	verdict $$? "pkg-config --cflags --libs clsort-dynamic (no libOpenCL linked)" $(BUILD)/cmake_pkgconfig_dynamic.log; \
	echo "$$passed passed, $$failed failed"; [ $$failed = 0 ]

# README.md's programs built and run with README.md's own command lines, in
# the order a user meets them (tests/readme_check.sh).
readme-check: deps | $(BUILD)
	@tests/deps.sh cmake
	@tests/readme_check.sh

# valgrind memcheck on two small programs (context, program builds, a sort, a
# scan, destroy): no error and nothing definitely lost. Small on purpose:
# PoCL runs kernels on the host, so everything it does runs under valgrind too.
# Each program runs once first under valgrind without the leak check, so that
# PoCL's kernel cache holds its kernels for the CPU valgrind presents (PoCL
# keys its cache by the CPU it sees, and valgrind's differs from the real
# one): PoCL's LLVM compile leaks (in libpocl/libLLVM, not clsort), and
# whether it compiled under the checked run depended on what ran before.
valgrind: deps $(BUILD)/hello $(BUILD)/cm_static
	@tests/deps.sh valgrind
	@for prog in $(BUILD)/hello $(BUILD)/cm_static; do \
	  $(PIN_POCL) valgrind --quiet --leak-check=no ./$$prog > /dev/null 2>&1; \
	  $(PIN_POCL) valgrind --quiet --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
	    --suppressions=tests/valgrind.supp --error-exitcode=3 ./$$prog > $(BUILD)/valgrind.log 2>&1 && \
	  echo "valgrind $$prog: no errors, nothing definitely lost" || { cat $(BUILD)/valgrind.log | head -40; exit 1; }; \
	done

# CLSORT_DYNAMIC_OPENCL: hello built without -lOpenCL (no libOpenCL in its
# NEEDED list) runs with the loader, and without a loader or a platform it
# reports why and exits normally.
dynamic-check: deps | $(BUILD)
	$(CC) -std=c99 $(WARN) -DCLSORT_DYNAMIC_OPENCL -I. -o $(BUILD)/hello_dynamic examples/hello.c -ldl
	$(CXX) -x c++ -std=c++11 $(WARN) -DCLSORT_DYNAMIC_OPENCL -I. -c -o $(BUILD)/dynamic_cxx.o tests/compile/impl.c
	$(CC) -std=c99 $(WARN) -DCLSORT_DYNAMIC_OPENCL -I. -o $(BUILD)/dynamic_all tests/compile/impl.c tests/compile/use.c -ldl
	@! readelf -d $(BUILD)/hello_dynamic | grep -q "libOpenCL" || { echo "hello_dynamic links libOpenCL"; exit 1; }
	@./$(BUILD)/hello_dynamic > $(BUILD)/dynamic.log 2>&1 && grep -q "sorted on" $(BUILD)/dynamic.log && \
	  echo "dynamic OpenCL, loader present: sorted" || { cat $(BUILD)/dynamic.log; exit 1; }
	@CLSORT_OPENCL_LIBRARY=/nonexistent/libOpenCL.so.1 ./$(BUILD)/hello_dynamic > $(BUILD)/dynamic.log 2>&1; \
	  test $$? -eq 1 && grep -q "no OpenCL library" $(BUILD)/dynamic.log && \
	  echo "dynamic OpenCL, no loader: $$(cat $(BUILD)/dynamic.log | cut -c1-90)..." || { cat $(BUILD)/dynamic.log; exit 1; }
	@OCL_ICD_VENDORS=/nonexistent ./$(BUILD)/hello_dynamic > $(BUILD)/dynamic.log 2>&1; \
	  test $$? -eq 1 && grep -q "no OpenCL platform" $(BUILD)/dynamic.log && \
	  echo "dynamic OpenCL, no platform: $$(cat $(BUILD)/dynamic.log | cut -c1-90)..." || { cat $(BUILD)/dynamic.log; exit 1; }

# The checks that need more tools or time than make test: run-time OpenCL
# loading, the sanitizers, kernels under oclgrind, the other OpenCL
# implementations, fault injection, threads, a bounded fuzz run, valgrind,
# CMake and pkg-config, the MPI distributed sort with 1-8 ranks.
# The fault injection is one process on one core for minutes; the checks
# after it (EXTRA_LANE) are each one process or a few small ones (a libFuzzer
# run of fixed length, valgrind, compiles): the two run side by side, one per
# core (make -j2: faults, and EXTRA_LANE one target after another), each
# target's output printed whole when it ends (--output-sync).
EXTRA_LANE = threads fuzz valgrind cmake-check readme-check mpi-test
extra-checks: dynamic-check sanitize oclgrind portability
	@$(MAKE) --no-print-directory -j2 --output-sync=target faults extra-lane
	@echo "make extra-checks: all passed"
.PHONY: extra-lane
extra-lane:
	@for t in $(EXTRA_LANE); do $(MAKE) --no-print-directory $$t || exit 1; done

# What CI runs (.ci/run): make test, the program cache runs, the demo, then
# extra-checks; within 45 minutes on two cores from empty caches.
check: test test-limits test-cache demo extra-checks
	@echo "make check: all passed"

# The long run: make check and the suite at --full size, every variant on
# both paths (the variants' programs alone take over 15 minutes to compile
# on two cores).
check-full: check test-full
	@echo "make check-full: all passed"

# The distributed sort (CLSORT_MPI) under MPICH: installs mpich + libmpich-dev
# when missing (root), then runs tests/test_mpi.c with 1, 2, 3, 4 and 8 ranks
# (oversubscribed on a small machine), and its fault injection (each OpenCL
# call of one rank's device sort fails in turn) with 2 ranks. Open MPI instead:
#   make mpi-test MPICC=mpicc MPIRUN="mpirun --oversubscribe"
MPICC   ?= mpicc
MPIRUN  ?= mpirun
MPI_RANKS ?= 1 2 3 4 8
mpi-deps: deps
	@MPICC="$(MPICC)" MPIRUN="$(MPIRUN)" tests/deps.sh mpi

$(BUILD)/test_mpi: tests/test_mpi.c clsort.h | $(BUILD)
	$(MPICC) -std=c99 $(WARN) $(CFLAGS) -I. -o $@ tests/test_mpi.c $(LDLIBS)

# the OpenCL calls tests/test_mpi.c -DTEST_MPI_FAULTS fails in turn on one rank
MPI_FAULT_WRAPS = clEnqueueReadBuffer clEnqueueWriteBuffer clEnqueueCopyBuffer clEnqueueNDRangeKernel \
  clEnqueueMarkerWithWaitList clWaitForEvents clFinish clCreateBuffer clEnqueueMapBuffer clReleaseMemObject
$(BUILD)/test_mpi_faults: tests/test_mpi.c clsort.h | $(BUILD)
	$(MPICC) -std=c99 $(WARN) $(CFLAGS) -DTEST_MPI_FAULTS -I. -o $@ tests/test_mpi.c \
	  $(foreach f,$(MPI_FAULT_WRAPS),-Wl,--wrap=$(f)) $(LDLIBS)

$(BUILD)/mpi_bench: bench/mpi_bench.c clsort.h | $(BUILD)
	$(MPICC) -std=c99 $(WARN) $(CFLAGS) -D_POSIX_C_SOURCE=200809L -I. -o $@ bench/mpi_bench.c $(LDLIBS)

mpi-test: mpi-deps
	@$(MAKE) --no-print-directory $(BUILD)/test_mpi $(BUILD)/test_mpi_faults $(BUILD)/mpi_bench
	@$(MPICC) -std=c99 $(MATRIX_WARN) -DCLSORT_MPI -I. -c -o $(BUILD)/mpi_c.o tests/compile/mpi.c && \
	  $(MPICC) -x c++ -std=c++11 $(MATRIX_WARN) -DCLSORT_MPI -I. -c -o $(BUILD)/mpi_cxx.o tests/compile/mpi.c && \
	  echo "compile-check CLSORT_MPI as C99 and C++11 (-Wshadow -Wconversion): ok"
	@for n in $(MPI_RANKS); do \
	  timeout 600 $(MPIRUN) -n $$n ./$(BUILD)/test_mpi > $(BUILD)/test_mpi_$$n.log 2>&1; status=$$?; \
	  grep -E "passed, .* failed|FAILED" $(BUILD)/test_mpi_$$n.log; \
	  [ $$status = 0 ] || { tail -20 $(BUILD)/test_mpi_$$n.log; exit 1; }; \
	done
	@timeout 600 $(MPIRUN) -n 2 ./$(BUILD)/test_mpi_faults > $(BUILD)/test_mpi_faults.log 2>&1; status=$$?; \
	  grep -E "fault at|passed, .* failed|FAILED" $(BUILD)/test_mpi_faults.log; \
	  [ $$status = 0 ] || { tail -20 $(BUILD)/test_mpi_faults.log; exit 1; }

# The MPI tests under ASan + UBSan with 3 ranks and 500 keys per rank.
mpi-sanitize: mpi-deps | $(BUILD)
	$(MPICC) -std=c99 $(WARN) -g -O1 -fsanitize=address,undefined -fno-omit-frame-pointer -I. \
	  -o $(BUILD)/test_mpi_asan tests/test_mpi.c $(LDLIBS)
	ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0 LSAN_OPTIONS=suppressions=tests/lsan_mpi.supp:print_suppressions=0 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 $(MPIRUN) -n 3 ./$(BUILD)/test_mpi_asan 500

# Steps I-IV with 4 ranks, partitioning vs PSRS (bench/RESULTS.md).
mpi-bench: mpi-deps $(BUILD)/mpi_bench
	$(MPIRUN) -n 4 ./$(BUILD)/mpi_bench 16 18 20

# Several devices of one cl_context (tests/test_multidev.c): clsort_nbody_multi
# over 2 and 3 devices, and one call of every family on a clsort context of
# the second device, each against a plain C reference. PoCL gives three CPU
# devices in one platform; the wrapped calls answer kernel listings as
# NVIDIA's driver does for a program not built for the context's first
# device. On GPUs: build/test_multidev --platform NVIDIA (all its GPUs).
MULTIDEV_WRAPS = clGetProgramInfo clCreateKernelsInProgram clBuildProgram
$(BUILD)/test_multidev: tests/test_multidev.c clsort.h | $(BUILD)
	$(CC) -std=c99 $(WARN) $(CFLAGS) -I. -o $@ tests/test_multidev.c $(foreach f,$(MULTIDEV_WRAPS),-Wl,--wrap=$(f)) $(LDLIBS)
.PHONY: multidev
multidev: deps $(BUILD)/test_multidev
	$(PIN_POCL) POCL_DEVICES="pthread pthread pthread" ./$(BUILD)/test_multidev --platform pocl

gen:
	gen/embed.sh

check-gen:
	gen/embed.sh --check

clean:
	rm -rf $(BUILD)
