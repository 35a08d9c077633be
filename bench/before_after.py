#!/usr/bin/env python3
"""Table of before/after medians from bench/before_after.sh's output folder:
each row the two rounds of each build (ms), the change of the better round, and CUB."""
import json, os, sys

def rows(path):
    out = {}
    if not os.path.exists(path):
        return out
    for line in open(path):
        if line.startswith("{"):
            r = json.loads(line)
            if not r["device"].startswith("host"):
                out[(r["primitive"], r["variant"], r["n"])] = r["ms"]
    return out

def cub_rows(path):
    out = {}
    if os.path.exists(path):
        for line in open(path):
            f = line.split()
            if len(f) >= 4 and f[1].isdigit():
                out[(f[0], int(f[1]))] = float(f[2])
    return out

CUB = {("scan", "u32_exclusive"): "cub_exclusive_sum_u32", ("pack", "u32_flags_half"): "cub_select_flagged_u32",
       ("sort", "u32_keys"): "cub_sortkeys_u32_b32", ("sort", "u32_u32_pairs"): "cub_sortpairs_u32_b32",
       ("sort", "u64_keys"): "cub_sortkeys_u64", ("sort", "u32_keys_16bit"): "cub_sortkeys_u32_b16",
       ("sort", "u32_keys_10bit"): "cub_sortkeys_u32_b10"}

def main(d):
    b = [rows(os.path.join(d, f)) for f in ("before1.jsonl", "before2.jsonl", "before_nbody.jsonl")]
    a = [rows(os.path.join(d, f)) for f in ("after1.jsonl", "after2.jsonl", "after_nbody.jsonl")]
    cub = cub_rows(os.path.join(d, "cub.txt"))
    keys = sorted(set(b[0]) | set(b[2]), key=lambda k: (k[0], k[1], k[2]))
    print("| primitive | variant | n | before ms (2 rounds) | after ms (2 rounds) | after/before (best) | CUB ms |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for k in keys:
        bs = [x[k] for x in b if k in x]
        as_ = [x[k] for x in a if k in x]
        if not bs or not as_:
            continue
        c = cub.get((CUB.get((k[0], k[1]), ""), k[2]))
        print("| %s | %s | 2^%d | %s | %s | %.3f | %s |" % (
            k[0], k[1], k[2].bit_length() - 1, " / ".join("%.4f" % x for x in bs),
            " / ".join("%.4f" % x for x in as_), min(as_) / min(bs), "%.4f" % c if c else "-"))

if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp")
