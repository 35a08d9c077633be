// std::sort, the CPU baseline of bench.c's radix sort figures (C++ only here).
#include <algorithm>
#include <cstddef>
#include <cstdint>

extern "C" void bench_std_sort(uint32_t *keys, size_t n) { std::sort(keys, keys + n); }
