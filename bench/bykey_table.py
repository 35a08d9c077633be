#!/usr/bin/env python3
"""One table of the reduction family's rows per kernel variant beside CUB.
usage: bykey_table.py cub.txt NAME=clsort.jsonl [NAME=clsort.jsonl ...]   (from bench/bykey_gpu.sh)"""
import sys
from compare import our_rows, peer_lines

ROWS = [  # (primitive, variant, CUB name), as bench/compare.py pairs them
    ("segmented_scan", "u32_sum_inclusive_no_segments", "cub_inclusive_sum_u32"),
    ("segmented_scan", "u32_sum_inclusive_u32_flags_mean_1000", "cub_inclusive_sum_by_key_u32"),
    ("segmented_scan", "u32_sum_inclusive_u8_flags_mean_1000", "cub_inclusive_sum_by_key_u32"),
    ("scan_by_key", "u32_sum_inclusive_mean_run_1000", "cub_inclusive_sum_by_key_u32"),
    ("segmented_reduce", "u32_sum_offsets_mean_1000", "cub_segmented_reduce_sum_u32"),
    ("reduce_by_key", "u32_keys_u32_sum_mean_run_1000", "cub_reduce_by_key_sum_u32"),
    ("run_length_encode", "u32_keys_mean_run_1000", "cub_rle_encode_u32"),
    ("unique", "u32_keys_mean_run_1000", "cub_unique_u32"),
]

def main(argv):
    cub = peer_lines(argv[1])
    runs = []
    for a in argv[2:]:
        name, path = a.split("=", 1)
        try:
            runs.append((name, our_rows(path)))
        except OSError:
            runs.append((name, {}))
    sizes = sorted({n for _, r in runs for (_, _, n) in r})
    head = "| primitive | n | " + " | ".join("%s G/s" % nm for nm, _ in runs) + " | CUB G/s | " + \
           " | ".join("%s/CUB" % nm for nm, _ in runs) + " |"
    print(head)
    print("|" + " --- |" * (head.count("|") - 1))
    for prim, var, cname in ROWS:
        for n in sizes:
            gs = []
            for _, r in runs:
                ms = r.get((prim, var, n))
                gs.append(n / ms / 1e6 if ms else None)
            if not any(gs):
                continue
            c = cub.get((cname, n))
            cg = n / c / 1e6 if c else None
            fmt = lambda x: "%.1f" % x if x else "-"
            print("| %s %s | 2^%d | %s | %s | %s |" % (
                prim, var, n.bit_length() - 1, " | ".join(fmt(g) for g in gs), fmt(cg),
                " | ".join("%.2f" % (g / cg) if g and cg else "-" for g in gs)))

if __name__ == "__main__":
    main(sys.argv)
