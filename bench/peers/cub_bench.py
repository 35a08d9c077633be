"""Peer benchmark: CUB (through CuPy) and PyTorch sort/scan/compaction on the GPU.
Prints: name N median_ms Mitems_per_s
Run: python3 bench/peers/cub_bench.py 20 24 28   (no build; needs CuPy and PyTorch, as on the GPU machine)"""
import sys, cupy as cp, torch
from cupyx.profiler import benchmark

def med_ms(fn, reps):
    r = benchmark(fn, n_repeat=reps, n_warmup=3)
    import numpy as np
    return float(np.median(r.gpu_times)) * 1e3

sizes = [int(a) for a in sys.argv[1:]] or [20, 24, 26, 28]
for lg in sizes:
    n = 1 << lg
    reps = 20
    k = cp.random.randint(0, 2**32, size=n, dtype=cp.uint64).astype(cp.uint32)
    v = cp.arange(n, dtype=cp.uint32)
    ms = med_ms(lambda: cp.sort(k), reps)             # CUB DeviceRadixSort keys (copy + sort)
    print(f"cupy_sort_u32 {n} {ms:.3f} {n/(ms*1e3):.1f}", flush=True)
    ms = med_ms(lambda: cp.argsort(k), reps)          # CUB radix sort pairs (key, index)
    print(f"cupy_argsort_u32 {n} {ms:.3f} {n/(ms*1e3):.1f}", flush=True)
    kt = torch.as_tensor(k.astype(cp.int64), device="cuda").to(torch.int32)
    ms = med_ms(lambda: torch.sort(kt), reps)
    print(f"torch_sort_i32_kv {n} {ms:.3f} {n/(ms*1e3):.1f}", flush=True)
    ms = med_ms(lambda: torch.sort(kt, stable=True), reps)
    print(f"torch_sort_i32_kv_stable {n} {ms:.3f} {n/(ms*1e3):.1f}", flush=True)
    ms = med_ms(lambda: cp.cumsum(k), reps)           # CUB DeviceScan inclusive
    print(f"cupy_cumsum_u32 {n} {ms:.3f} {n/(ms*1e3):.1f}", flush=True)
    ms = med_ms(lambda: torch.cumsum(kt, 0, dtype=torch.int32), reps)
    print(f"torch_cumsum_i32 {n} {ms:.3f} {n/(ms*1e3):.1f}", flush=True)
    m = (k & 1) == 0
    ms = med_ms(lambda: k[m], reps)                   # boolean-mask compaction
    print(f"cupy_mask_select_u32 {n} {ms:.3f} {n/(ms*1e3):.1f}", flush=True)
    o = cp.empty_like(k)
    ms = med_ms(lambda: o.__setitem__(slice(None), k), reps)
    print(f"cupy_copy_u32 {n} {ms:.3f} {8*n/(ms*1e6):.1f} GB/s", flush=True)
    # key bits: CUB sorts only the bits needed? cupy.sort does not expose begin/end bit; torch neither.
