#!/usr/bin/env python3
"""Draws bench/chart.svg: clsort and Boost.Compute throughput relative to CUB,
per primitive, from the raw files of one GPU run (bench/gpu.sh output).

usage: chart.py clsort.jsonl cub.txt [bc.txt] [cub_pic.txt] > bench/chart.svg
No plotting library needed: the SVG is written by hand."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare import our_rows, peer_lines  # the same parsing as the ratio table

ours = our_rows(sys.argv[1])
cub = peer_lines(sys.argv[2])
bc = peer_lines(sys.argv[3]) if len(sys.argv) > 3 else {}
if len(sys.argv) > 4:
    cub.update(peer_lines(sys.argv[4]))

# (label, our primitive, variant, n, CUB row, Boost.Compute row)
ROWS = [
    ("exclusive scan u32, 2^28", "scan", "u32_exclusive", 1 << 28, "cub_exclusive_sum_u32", "exclusive_scan_u32"),
    ("pack u32, 2^28", "pack", "u32_flags_half", 1 << 28, "cub_select_flagged_u32", "copy_if_u32"),
    ("radix sort u32, 2^28", "sort", "u32_keys", 1 << 28, "cub_sortkeys_u32_b32", "sort_u32"),
    ("sort u32 + values, 2^28", "sort", "u32_u32_pairs", 1 << 28, "cub_sortpairs_u32_b32", "sort_kv_u32"),
    ("sort 10-bit keys, 2^28", "sort", "u32_keys_10bit", 1 << 28, "cub_sortkeys_u32_b10", None),
    ("sort u64, 2^28", "sort", "u64_keys", 1 << 28, "cub_sortkeys_u64", None),
    ("particle re-binning, 2^23", "bin", "32x32_sort_f4", 1 << 23, "cub_bin_whole", None),
    ("bitonic, 1024-key segments, 2^24", "bitonic_seg1024", "u32_keys_1024_segments", 1 << 24, "cub_segsort1024_u32", None),
    ("bitonic, one array, 2^24", "bitonic_u32", "u32_keys", 1 << 24, "cub_mergesort_u32", None),
]

bars = []
for label, prim, var, n, cname, bname in ROWS:
    ms = ours.get((prim, var, n))
    c = cub.get((cname, n))
    if ms is None or c is None:
        continue
    b = bc.get((bname, n)) if bname else None
    bars.append((label, c / ms, c / b if b else None))

W, left, right, row_h, top = 760, 250, 40, 34, 50
scale_max = max([2.0] + [r for _, r, _ in bars] + [b for _, _, b in bars if b]) * 1.05
H = top + row_h * len(bars) + 50
x = lambda v: left + (W - left - right) * v / scale_max
out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">' % (W, H),
       '<rect width="100%" height="100%" fill="white"/>',
       '<text x="%d" y="22" font-size="14" font-weight="bold">Throughput relative to CUB (1.0 = CUB), NVIDIA H100</text>' % left]
for i in range(int(scale_max * 2) + 1):
    v = i / 2
    out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x(v), top - 5, x(v), H - 40))
    out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%.1f</text>' % (x(v), H - 25, v))
out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#000" stroke-width="1.5"/>' % (x(1), top - 5, x(1), H - 40))
for k, (label, r, b) in enumerate(bars):
    y = top + k * row_h
    out.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (left - 8, y + 16, label))
    out.append('<rect x="%d" y="%d" width="%.1f" height="12" fill="#2b6cb0"/>' % (left, y + 4, x(r) - left))
    out.append('<text x="%.1f" y="%d" fill="#2b6cb0">%.2f</text>' % (x(r) + 4, y + 14, r))
    if b:
        out.append('<rect x="%d" y="%d" width="%.1f" height="8" fill="#dd6b20"/>' % (left, y + 18, x(b) - left))
        out.append('<text x="%.1f" y="%d" fill="#dd6b20" font-size="10">%.2f</text>' % (x(b) + 4, y + 26, b))
out.append('<rect x="%d" y="%d" width="12" height="10" fill="#2b6cb0"/><text x="%d" y="%d">clsort (NVIDIA OpenCL)</text>'
           % (left, H - 14, left + 16, H - 5))
out.append('<rect x="%d" y="%d" width="12" height="10" fill="#dd6b20"/><text x="%d" y="%d">Boost.Compute (same driver)</text>'
           % (left + 200, H - 14, left + 216, H - 5))
out.append('</svg>')
print("\n".join(out))
