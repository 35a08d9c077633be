#!/usr/bin/env python3
"""Prints clsort's figures beside the peers' from one GPU run.
usage: compare.py clsort.jsonl [cub.txt] [bc.txt]   (files from bench/gpu.sh)"""
import json, sys

def peer_lines(path):
    """name, n -> median ms from a peer's output (cub_bench, cub_pic, bc_bench); {} when absent."""
    rows = {}
    try:
        for line in open(path):
            f = line.split()
            if len(f) >= 4 and f[1].isdigit():
                rows[(f[0], int(f[1]))] = float(f[2])  # name, n -> median ms
    except OSError:
        pass
    return rows

def our_rows(path):
    """(primitive, variant, n) -> median ms of clsort's bench on the device (host rows left out)."""
    rows = {}
    for line in open(path):
        if line.startswith("{"):
            r = json.loads(line)
            if not r["device"].startswith("host"):
                rows[(r["primitive"], r["variant"], r["n"])] = r["ms"]
    return rows

def main(argv):
    ours = our_rows(argv[1])
    cub = peer_lines(argv[2]) if len(argv) > 2 else {}
    bc = peer_lines(argv[3]) if len(argv) > 3 else {}
    pairs = [  # (our primitive, variant, cub name, boost.compute name)
        ("scan", "u32_exclusive", "cub_exclusive_sum_u32", "exclusive_scan_u32"),
        ("pack", "u32_flags_half", "cub_select_flagged_u32", "copy_if_u32"),
        ("copy", "u32", "cuda_copy_u32", "copy_u32"),
        # the reduction family (bench/cub_reduce.cu, appended to cub.txt by gpu.sh)
        ("reduce", "u32_sum", "cub_reduce_sum_u32", ""),
        ("segmented_scan", "u32_sum_inclusive_no_segments", "cub_inclusive_sum_u32", ""),
        ("segmented_scan", "u32_sum_inclusive_u32_flags_mean_1000", "cub_inclusive_sum_by_key_u32", ""),
        ("segmented_scan", "u32_sum_inclusive_u8_flags_mean_1000", "cub_inclusive_sum_by_key_u32", ""),
        ("scan_by_key", "u32_sum_inclusive_mean_run_1000", "cub_inclusive_sum_by_key_u32", ""),
        ("segmented_reduce", "u32_sum_offsets_mean_1000", "cub_segmented_reduce_sum_u32", ""),
        ("reduce_by_key", "u32_keys_u32_sum_mean_run_1000", "cub_reduce_by_key_sum_u32", ""),
        ("run_length_encode", "u32_keys_mean_run_1000", "cub_rle_encode_u32", ""),
        ("unique", "u32_keys_mean_run_1000", "cub_unique_u32", ""),
        ("histogram", "u32_256_even_bins", "cub_histogram_even_256_u32", ""),
        # 8- and 16-bit keys, 16-byte values (bench/cub_sort_narrow.cu, appended to cub.txt by gpu.sh)
        ("sort", "u32_keys", "cub_sortkeys_u32_b32", ""),
        ("sort", "u8_keys", "cub_sortkeys_u8", ""),
        ("sort", "u16_keys", "cub_sortkeys_u16", ""),
        ("sort", "u32_keys_16byte_values", "cub_sortpairs_u32_v16", ""),
    ]
    print("| primitive | n | clsort G/s | CUB G/s | clsort/CUB | Boost.Compute G/s | clsort/BC |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for prim, var, cname, bname in pairs:
        for (p, v, n), ms in sorted(ours.items(), key=lambda kv: kv[0][2]):
            if (p, v) != (prim, var):
                continue
            g = n / ms / 1e6
            c, b = cub.get((cname, n)), bc.get((bname, n))
            cg = n / c / 1e6 if c else None
            bg = n / b / 1e6 if b else None
            fmt = lambda x: "%.1f" % x if x else "-"
            print("| %s %s | 2^%d | %.1f | %s | %s | %s | %s |" % (
                prim, var, n.bit_length() - 1, g, fmt(cg), "%.2f" % (g / cg) if cg else "-",
                fmt(bg), "%.2f" % (g / bg) if bg else "-"))
    print()
    print("| clsort primitive | n | ms | G items/s |")
    print("| --- | --- | --- | --- |")
    for (p, v, n), ms in sorted(ours.items(), key=lambda kv: (kv[0][2], kv[0][0], kv[0][1])):
        print("| %s %s | 2^%d | %.4f | %.1f |" % (p, v, n.bit_length() - 1, ms, n / ms / 1e6))

if __name__ == "__main__":
    main(sys.argv)
