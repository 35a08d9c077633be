#!/usr/bin/env python3
"""The one table tool of bench/: Markdown tables (and a chart) from raw result
folders (bench/results/<date>-<device>-<suite>/, written by bench/run_gpu.sh).

  table.py DIR...                clsort beside the best peer configuration, row by row:
                                 the tables of RESULTS.md (one block per folder)
  table.py before-after DIR      two builds' interleaved rounds (before1/2, after1/2,
                                 *_nbody.jsonl) and CUB: after / before of the best rounds
  table.py variants NAME=FILE... [--peers DIR]
                                 one column per clsort run (the same rows under
                                 different settings), G items/s, and each / the best peer
  table.py chart DIR... > bench/chart.svg
                                 clsort's speed relative to the best CUB configuration
  table.py check                 every row its maps name is a row of bench/bench.c (make test)

A folder holds clsort's JSON lines (clsort.jsonl: bench/bench.c; tree.jsonl:
bench/tree_bench.c), the peers' lines ("name n median_ms ..." in <peer>.txt;
seed_nbody.txt: "seed_nbody N local_size ms ..."), coldstart*.txt, mpi_*.txt
and manifest.txt (commit, command, driver, device, date). Older raw files of
the same formats (a clsort .jsonl and a peer .txt) can be given as DIR too:
a file stands for a folder holding it alone.

Ratio = peer time / clsort time (above 1: clsort is faster). clsort's times
are host-clock times (bench/bench.c); the peer's are CUDA-event times, and
where the peer also printed its host-clock time (bench/peers/peer_timing.cuh)
the table adds it and the same-clock ratio. Floor = the
row's bytes per item at the copy rate of the same run (the "copy" row: 8 B
per u32 read and written), or for N-body 20 flops per interaction at the
device's FP32 peak; "% of floor" = floor time / measured time."""
import glob
import json
import os
import re
import sys

# clsort row -> the peer rows that do the same work (any of them may be the
# best configuration; the fastest at the same n is the one quoted)
PEERS = {
    ("copy", "u32"): ["cuda_copy_u32", "copy_u32", "cupy_copy_u32"],
    ("scan", "u32_exclusive"): ["cub_exclusive_sum_u32", "exclusive_scan_u32"],
    ("scan", "u32_inclusive"): ["cub_inclusive_sum_u32", "cupy_cumsum_u32", "torch_cumsum_i32"],
    ("pack", "u32_flags_half"): ["cub_select_flagged_u32", "copy_if_u32", "cupy_mask_select_u32"],
    ("sort", "u32_keys"): ["cub_sortkeys_u32_b32", "sort_u32", "cupy_sort_u32"],
    ("sort", "u32_u32_pairs"): ["cub_sortpairs_u32_b32", "sort_kv_u32"],
    ("sort", "u32_keys_permutation"): ["cub_sortpairs_u32_b32", "cupy_argsort_u32", "torch_sort_i32_kv"],
    ("sort", "u32_keys_16bit"): ["cub_sortkeys_u32_b16"],
    ("sort", "u32_keys_10bit"): ["cub_sortkeys_u32_b10"],
    ("sort", "u64_keys"): ["cub_sortkeys_u64"],
    ("sort", "u8_keys"): ["cub_sortkeys_u8"],
    ("sort", "u16_keys"): ["cub_sortkeys_u16"],
    ("sort", "u32_keys_16byte_values"): ["cub_sortpairs_u32_v16"],
    ("gather", "f4_cell_permutation"): ["cub_gather_f4"],
    ("bin", "32x32_sort_f4"): ["cub_bin_whole"],
    ("bin", "sort10_perm_gather_f4"): ["cub_sortpairs10_gather_f4"],
    ("bitonic_seg1024", "u32_keys_1024_segments"): ["re:cub_blockradix_seg1024.*", "re:cub_blockmerge_seg1024.*",
                                                    "cub_segsort1024_u32", "re:cub_radix_u64_segkey.*"],
    ("bitonic_u32", "u32_keys"): ["cub_mergesort_u32"],
    ("reduce", "u32_sum"): ["cub_reduce_sum_u32"],
    ("segmented_scan", "u32_sum_inclusive_no_segments"): ["cub_inclusive_sum_u32"],
    ("segmented_scan", "u32_sum_inclusive_u32_flags_mean_1000"): ["cub_inclusive_sum_by_key_u32"],
    ("segmented_scan", "u32_sum_inclusive_u8_flags_mean_1000"): ["cub_inclusive_sum_by_key_u32"],
    ("scan_by_key", "u32_sum_inclusive_mean_run_1000"): ["cub_inclusive_sum_by_key_u32"],
    ("segmented_reduce", "u32_sum_offsets_mean_1000"): ["cub_segmented_reduce_sum_u32"],
    ("segmented_reduce", "u32_sum_offsets_mean_10"): ["cub_segmented_reduce_sum_u32_mean_10"],
    ("segmented_reduce", "u32_sum_offsets_mean_100000"): ["cub_segmented_reduce_sum_u32_mean_100000"],
    ("reduce_by_key", "u32_keys_u32_sum_mean_run_1000"): ["cub_reduce_by_key_sum_u32"],
    ("run_length_encode", "u32_keys_mean_run_1000"): ["cub_rle_encode_u32"],
    ("unique", "u32_keys_mean_run_1000"): ["cub_unique_u32"],
    ("histogram", "u32_256_even_bins"): ["cub_histogram_even_256_u32"],
    ("nbody", "f32_tiled"): ["re:seed_nbody.*"],
    ("select", "u32_greater_half"): ["cub_select_if_u32"],
    ("select", "u32_u32_greater_half"): ["cub_select_if_u32_u32"],
    ("merge", "u32_keys_halves"): ["thrust_merge_u32", "cub_merge_keys_u32"],
    ("merge", "u32_u32_pairs_halves"): ["thrust_merge_by_key_u32_u32", "cub_merge_pairs_u32_u32"],
    ("lower_bound", "u32_n_into_n"): ["thrust_lower_bound_u32_n_into_n"],
    ("lower_bound", "u32_n_into_16n"): ["thrust_lower_bound_u32_n_into_16n"],
    ("lower_bound", "u32_n_into_n_sorted_needles"): ["thrust_lower_bound_u32_n_into_n_sorted_needles"],
    ("lower_bound", "u32_n_into_16n_sorted_needles"): ["thrust_lower_bound_u32_n_into_16n_sorted_needles"],
    ("gather", "f4_u32_u32_u64_random_four_calls"): ["thrust_gather_f4_u32_u32_u64_random_four_calls"],
    ("gather_many", "f4_u32_u32_u64_random"): ["thrust_gather_f4_u32_u32_u64_random_zip",
                                              "thrust_gather_f4_u32_u32_u64_random_four_calls"],
    # no cub::DeviceTopK in the CCCL of CUDA 13.0: a full radix sort of the n keys is the reference
    ("top_k", "u32_keys_k100"): ["cub_topk_full_sort_u32"],
    ("top_k", "u32_keys_k65536"): ["cub_topk_full_sort_u32"],
    ("top_k", "u32_keys_k65536_sorted"): ["cub_topk_full_sort_u32"],
    ("top_k", "u32_u32_pairs_k65536"): ["cub_topk_full_sort_u32_u32"],
    # caller's operators (suite user_ops): CUB's functor forms (bench/peers/cub_user_ops.cu), and the
    # built-in rows they restate beside CUB's built-ins (the same peer prints cub_reduce's names)
    ("reduce", "f32_sum"): ["cub_reduce_sum_f32"],
    ("reduce", "u32_sum_user_op"): ["cub_reduce_u32_functor"],
    ("scan", "u32_inclusive_user_op"): ["cub_inclusive_scan_u32_functor"],
    ("reduce", "f32_sum_of_squares_transform"): ["cub_transform_reduce_f32_squares"],
    ("reduce", "f32_argmin_index_transform"): ["cub_argmin_f32_custom_op", "cub_argmin_f32"],
    ("reduce", "f32_argmin_index_commutative"): ["cub_argmin_f32_custom_op", "cub_argmin_f32"],
    # (the decomposer form, where the CCCL has it, keeps the key in the record's spare word)
    ("sort", "record32_morton_key"): ["cub_sort_record32_morton", "cub_sort_record32_morton_values",
                                      "cub_sort_record32_morton_decomposer"],
    ("select", "u32_greater_half_predicate"): ["cub_select_if_u32"],
    ("partition", "u32_greater_half"): ["cub_partition_if_u32"],
    ("partition", "u32_u32_greater_half"): ["cub_partition_if_u32_u32"],
    ("partition", "u32_greater_half_predicate"): ["cub_partition_if_u32"],
    ("split", "u32_flags_half"): ["cub_partition_flagged_u32"],
}

# bytes each item moves at least (read + write), as RESULTS.md derives them
BYTES = {
    ("copy", "u32"): 8, ("scan", "u32_exclusive"): 8, ("scan", "u32_inclusive"): 8, ("scan", "f32_exclusive"): 8,
    ("scan", "u64_exclusive"): 16, ("enumerate", "u32_flags_half"): 8, ("pack", "u32_flags_half"): 10,
    ("pack", "u32_u32_flags_half"): 16, ("split", "u32_flags_half"): 12, ("split", "u32_key_bit"): 8,
    # one-sweep radix sort: one read for every pass's histogram, then a read and a write per 8-bit pass
    ("sort", "u32_keys"): 36, ("sort", "u32_keys_caller_temp"): 36, ("sort", "u32_u32_pairs"): 68,
    # (a 10-bit range: one pass)
    ("sort", "u32_keys_16bit"): 20, ("sort", "u32_keys_10bit"): 12, ("sort", "u32_keys_10bit_1pass"): 12,
    ("sort", "u64_keys"): 136,
    ("sort", "u32_keys_16byte_values"): 164, ("sort", "u8_keys"): 2,
    ("gather", "f4_cell_permutation"): 36, ("bin", "32x32_sort_f4"): 100,
    ("bitonic_seg1024", "u32_keys_1024_segments"): 8,
    ("reduce", "u32_sum"): 4, ("reduce", "f32_sum"): 4, ("segmented_scan", "u32_sum_inclusive_no_segments"): 8,
    ("segmented_scan", "u32_sum_inclusive_u32_flags_mean_1000"): 12,
    ("segmented_scan", "u32_sum_inclusive_u8_flags_mean_1000"): 9, ("scan_by_key", "u32_sum_inclusive_mean_run_1000"): 12,
    ("segmented_reduce", "u32_sum_offsets_mean_1000"): 4, ("reduce_by_key", "u32_keys_u32_sum_mean_run_1000"): 8,
    # each value read; an offset read and a result written per 10 values
    ("segmented_reduce", "u32_sum_offsets_mean_10"): 4.8, ("segmented_reduce", "u32_sum_offsets_mean_100000"): 4,
    ("run_length_encode", "u32_keys_mean_run_1000"): 4, ("unique", "u32_keys_mean_run_1000"): 4,
    ("histogram", "u32_256_even_bins"): 4,
    # select: every key (and value) read, about half written
    ("select", "u32_greater_half"): 6, ("select", "u32_u32_greater_half"): 12,
    # partition: every key (and value) read and written once
    ("partition", "u32_greater_half"): 8, ("partition", "u32_u32_greater_half"): 16,
    ("partition", "u32_greater_half_predicate"): 8,
    # merge: every key (and value) read once and written once
    ("merge", "u32_keys_halves"): 8, ("merge", "u32_u32_pairs_halves"): 16,
    # top_k: its lower bound is one read of the keys (the k written are few): 4 B; the radix
    ("top_k", "u32_keys_k100"): 4, ("top_k", "u32_keys_k65536"): 4, ("top_k", "u32_keys_k65536_sorted"): 4,
    ("top_k", "u32_u32_pairs_k65536"): 4,
    # lower_bound: a needle read and an index written (the haystack's top levels stay in cache)
    ("lower_bound", "u32_n_into_n"): 8, ("lower_bound", "u32_n_into_16n"): 8,
    ("lower_bound", "u32_n_into_n_sorted_needles"): 8, ("lower_bound", "u32_n_into_16n_sorted_needles"): 8,
    # gather of 16 + 4 + 4 + 8 B records: each read and written once, and the index read (once, or per call)
    ("gather_many", "f4_u32_u32_u64_random"): 68, ("gather", "f4_u32_u32_u64_random_four_calls"): 80,
    # caller's operators: the built-in row's bytes (a + b, a predicate: the same reads and writes; the
    # transform x * x and the argmin's (value, index) pairs are made as each f32 is read: 4 B)
    ("reduce", "u32_sum_user_op"): 4, ("scan", "u32_inclusive_user_op"): 8,
    ("reduce", "f32_sum_of_squares_transform"): 4, ("reduce", "f32_argmin_index_transform"): 4,
    ("reduce", "f32_argmin_index_commutative"): 4,
    ("select", "u32_greater_half_predicate"): 6,
    # 32-byte records by a computed u32 key: the records read for the keys (32) and the keys written (4),
    # the (key, index) pairs sorted as u32_u32_pairs (68; the first pass's indices are made, not read),
    # then the gather: index read (4), record read and written (32 + 32): 172
    ("sort", "record32_morton_key"): 172,
}
FLOPS_PER_INTERACTION = 20


def driver_rows(path=os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench.c")):
    """The rows of bench/bench.c (its rows[] table and nbody_variants[]): (primitive, variant) pairs.
    bench.c checks its suites and rows against clsort.h's family registry at start."""
    src = open(path).read()
    rows = set(re.findall(r'^\s*\{"(\w+)", "(\w+)", S_\w+', src, re.M))
    m = re.search(r"nbody_variants\[\] = \{([^}]*)\}", src)
    rows |= {("nbody", v) for v in re.findall(r'"(\w+)"', m.group(1) if m else "")}
    return rows


def check():
    """Every key of PEERS, BYTES and CHART_ROWS is a row of the driver (a renamed or removed row
    fails here, not silently in a table); prints "N passed, N failed"."""
    rows = driver_rows()
    keys = [("PEERS", k) for k in PEERS] + [("BYTES", k) for k in BYTES] + [("CHART_ROWS", r[1]) for r in CHART_ROWS]
    bad = [(m, k) for m, k in keys if k not in rows]
    for m, k in bad:
        print("table.py: %s names %s/%s, which bench/bench.c has no row for" % (m, k[0], k[1]))
    if not rows:
        bad.append(("rows", None))
        print("table.py: no row found in bench/bench.c")
    print("table.py check: %d keys of PEERS, BYTES and CHART_ROWS against %d driver rows" % (len(keys), len(rows)))
    print("%d passed, %d failed" % (len(keys) - len(bad), len(bad)))
    return 1 if bad else 0
FP32_PEAK = {"H100": 64.5e12}  # clpeak through NVIDIA's OpenCL on the H100 (bench/RESULTS.md, N-body)

SKIP_TXT = {"manifest.txt", "stderr.txt"}


def log2(n):
    return n.bit_length() - 1


def files_of(path):
    return [path] if os.path.isfile(path) else sorted(glob.glob(os.path.join(path, "*")))


def is_clsort_file(name):
    return name.startswith("clsort") and name.endswith(".jsonl")


def clsort_rows(paths, name_filter=is_clsort_file):
    """(primitive, variant, n) -> ms of clsort's rows on the device (host rows left out); a row
    measured more than once (rounds) keeps its best time."""
    rows, device = {}, ""
    for f in paths:
        if not f.endswith(".jsonl") or (len(paths) > 1 and not name_filter(os.path.basename(f))):
            continue
        for line in open(f, errors="replace"):
            if not line.startswith("{"):
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if "primitive" not in r or r.get("device", "").startswith("host"):
                continue
            key = (r["primitive"], r["variant"], r["n"])
            rows[key] = min(r["ms"], rows.get(key, r["ms"]))
            device = r.get("device", device)
    return rows, device


HOST = " host"  # peer_rows' suffix for a peer's host-clock time


def peer_rows(paths):
    """peer name -> {n: ms} from every peer .txt of the folder (and old raw peer files)."""
    rows = {}
    for f in paths:
        base = os.path.basename(f)
        if not f.endswith(".txt") or base in SKIP_TXT or base.startswith(("coldstart", "mpi_")):
            continue
        for line in open(f, errors="replace"):
            x = line.split()
            if len(x) >= 5 and x[0] == "seed_nbody" and x[1].isdigit():  # N local_size ms ...
                rows.setdefault("seed_nbody_local%s" % x[2], {})[int(x[1])] = float(x[3])
            elif len(x) >= 4 and x[1].isdigit() and not x[0].startswith("#"):
                try:
                    rows.setdefault(x[0], {})[int(x[1])] = float(x[2])
                    if "host" in x[4:-1]:  # the same call on clsort's clock (bench/peers/peer_timing.cuh)
                        rows.setdefault(x[0] + HOST, {})[int(x[1])] = float(x[x.index("host", 4) + 1])
                except ValueError:
                    pass
    return rows


def manifest(path):
    m = {}
    f = os.path.join(path, "manifest.txt") if os.path.isdir(path) else None
    if f and os.path.exists(f):
        for line in open(f):
            k, _, v = line.partition(": ")
            if k in ("suite", "date", "commit", "command", "device", "driver") and k not in m:
                m[k] = v.strip()
    return m


def best_peer(key, n, peers):
    best = None
    for cand in PEERS.get(key, []):
        names = [p for p in peers if not p.endswith(HOST) and re.fullmatch(cand[3:], p)] if cand.startswith("re:") else [cand]
        for name in names:
            ms = peers.get(name, {}).get(n)
            if ms is not None and (best is None or ms < best[1]):
                best = (name, ms)
    return best


def floor_pct(key, n, ms, ours, device, peers):
    if key[0] == "nbody":
        peak = next((v for k, v in FP32_PEAK.items() if k in device), None)
        return ("%.0f%% (flops)" % (100 * n * n * FLOPS_PER_INTERACTION / peak / (ms * 1e-3))) if peak else ""
    b = BYTES.get((key[0], key[1]))
    copy = ours.get(("copy", "u32", n)) or peers.get("cuda_copy_u32", {}).get(n)  # clsort's copy row, else CUDA's
    if not b or not copy:
        return ""
    return "%.0f%% (%g B)" % (100 * (b / 8.0) * copy / ms, b)


def fmt_rate(key, n, ms):
    if key[0] == "nbody":
        return "%.2fe12 int/s" % (n * n / (ms * 1e-3) / 1e12)
    g = n / (ms * 1e-3) / 1e9
    return "%.1f G/s" % g if g >= 1 else "%.3f G/s" % g


def caption(path, device):
    m = manifest(path)
    parts = [m.get("date", "date ?"), m.get("device", device or "device ?"), m.get("driver", "driver ?"),
             "commit " + m.get("commit", "?").split(" ")[0]]
    cmd = m.get("command", "")
    return "Measured " + ", ".join(parts) + (": `%s`" % cmd if cmd else "") + \
        ". Raw: `%s`." % (path.rstrip("/"))


def peers_table(path):
    fs = files_of(path)
    ours, device = clsort_rows(fs)
    peers = peer_rows(fs)
    out = []
    if ours:
        host = any(k.endswith(HOST) for k in peers)
        out.append("| row | n | clsort ms | clsort | best peer configuration | peer ms | ratio |" +
                   (" peer host-clock ms | same-clock ratio |" if host else "") + " % of floor |")
        out.append("| --- | --- | ---: | ---: | --- | ---: | ---: |" + (" ---: | ---: |" if host else "") + " ---: |")
        for key in sorted(ours, key=lambda k: (k[0] != "copy", k[0], k[1], k[2])):
            ms = ours[key]
            bp = best_peer(key[:2], key[2], peers)
            hms = peers.get(bp[0] + HOST, {}).get(key[2]) if bp else None
            out.append("| %s/%s | 2^%d | %.4f | %s | %s | %s | %s |%s %s |" % (
                key[0], key[1], log2(key[2]), ms, fmt_rate(key, key[2], ms), bp[0] if bp else "-",
                "%.4f" % bp[1] if bp else "-", "%.2fx" % (bp[1] / ms) if bp else "-",
                (" %s | %s |" % ("%.4f" % hms if hms else "-", "%.2fx" % (hms / ms) if hms else "-")) if host else "",
                floor_pct(key, key[2], ms, ours, device, peers)))
    out += tree_table(fs) + coldstart_table(fs) + mpi_tables(fs) + test_lines(fs)
    if not out:
        return ""
    return "\n".join(["### " + os.path.basename(path.rstrip("/")), ""] + out +
                     ["", caption(path, device or TREE_DEVICE[0]), ""])


TREE_DEVICE = [""]


def tree_table(fs):
    rows = []
    for f in fs:
        if os.path.basename(f).startswith("tree") and f.endswith(".jsonl"):
            rows += [json.loads(line) for line in open(f) if line.startswith("{")]
    steps = [r for r in rows if "build_call_ms" in r or "keys_ms" in r]
    TREE_DEVICE[0] = steps[0].get("device", "") if steps else TREE_DEVICE[0]
    out = []
    if steps:
        out += ["| N | whole build | of which sort | box | rest of build | BH force theta 0.5 | theta 0.3 | BH step "
                "theta 0.5 | all-pairs | step speed-up | interactions / body | RMS / max rel. error theta 0.5 |",
                "| --- |" + " ---: |" * 11]
        for r in steps:
            g = lambda k: ("%.3f" % r[k]) if k in r and r[k] >= 0 else "-"
            out.append("| 2^%d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
                log2(r["n"]), g("build_call_ms"), g("sort_ms"), g("box_ms"), g("rest_of_build_ms"),
                g("bh_force_theta0.5_ms"), g("bh_force_theta0.3_ms"), g("bh_step_theta0.5_ms"), g("allpairs_ms"),
                "%.1fx" % r["speedup_step_vs_allpairs"] if r.get("speedup_step_vs_allpairs", -1) > 0 else "-",
                "%.0f" % r.get("interactions_per_body_theta0.5", 0),
                "%.2g / %.2g" % (r["bh_rms_rel_err_theta0.5"], r["bh_max_rel_err_theta0.5"])
                if r.get("bh_rms_rel_err_theta0.5", -1) >= 0 else "-"))
    cross = [r for r in rows if "bh_faster_from_n" in r]
    if cross:
        n = cross[-1]["bh_faster_from_n"]
        out += ["", "Barnes-Hut step faster than all-pairs from N = %d on." % n if n else
                "Barnes-Hut step not faster than all-pairs at the sizes run."]
    return out


def coldstart_table(fs):
    out = []
    for f in fs:
        base = os.path.basename(f)
        if not base.startswith("coldstart"):
            continue
        for line in open(f, errors="replace"):
            if line.startswith("{") and "families_ms" in line:
                r = json.loads(line)
                if not out:
                    out = ["| run | clsort cache | prepare | built / from cache | context create ms | all families, "
                           "first + second calls ms | clsort_cache_flush ms |", "| --- | --- | --- | --- | ---: | ---: | ---: |"]
                out.append("| %s | %s | %s | %d / %d | %.1f | %.1f | %.1f |" % (
                    base[:-4], r["cache"], "yes (%.1f ms)" % r["prepare_ms"] if r["prepare"] else "no", r["builds"],
                    r["hits"], r["create_ms"], r["families_ms"] + r["prepare_ms"], r["flush_ms"]))
    return out


def mpi_tables(fs):
    out = []
    for f in fs:
        if os.path.basename(f).startswith("mpi_"):
            out += ["", "`%s`:" % os.path.basename(f), ""] + [l.rstrip() for l in open(f) if l.startswith("|")]
    return out


def test_lines(fs):
    """the verdict lines of test programs' logs (suites large and tests)"""
    out = []
    for f in fs:
        if f.endswith(".log") and os.path.basename(f).startswith("test"):
            lines = [l.rstrip() for l in open(f, errors="replace") if re.search(r"passed, \d+ failed|^FAIL", l)]
            out.append("- `%s`: %s" % (os.path.basename(f), "; ".join(lines[-3:]) if lines else "no verdict line"))
    return out


def before_after(path):
    fs = files_of(path)
    pick = lambda name: clsort_rows(fs, lambda b: b == name)[0]
    device = clsort_rows(fs, lambda b: b.startswith(("before", "after")))[1]
    before = [pick(f) for f in ("before1.jsonl", "before2.jsonl", "before_nbody.jsonl")]
    after = [pick(f) for f in ("after1.jsonl", "after2.jsonl", "after_nbody.jsonl")]
    peers = peer_rows(fs)
    keys = sorted(set().union(*before), key=lambda k: (k[0], k[1], k[2]))
    out = ["### " + os.path.basename(path.rstrip("/")) + ": before / after", "",
           "| row | n | before ms (rounds) | after ms (rounds) | after / before (best rounds) | best peer ms |",
           "| --- | --- | --- | --- | ---: | ---: |"]
    for k in keys:
        b = [r[k] for r in before if k in r]
        a = [r[k] for r in after if k in r]
        if not b or not a:
            continue
        bp = best_peer(k[:2], k[2], peers)
        out.append("| %s/%s | 2^%d | %s | %s | %.3f | %s |" % (
            k[0], k[1], log2(k[2]), " / ".join("%.4f" % x for x in b), " / ".join("%.4f" % x for x in a),
            min(a) / min(b), "%.4f (%s)" % (bp[1], bp[0]) if bp else "-"))
    out += ["", "Ratio below 1: faster after. Rounds run before, after, before, after in one command; "
            "their spread is the noise. " + caption(path, device)]
    return "\n".join(out)


def variants(args):
    peers = {}
    if "--peers" in args:
        i = args.index("--peers")
        peers = peer_rows(files_of(args[i + 1]))
        args = args[:i] + args[i + 2:]
    runs = []
    for a in args:
        name, _, path = a.partition("=")
        runs.append((name, clsort_rows(files_of(path))[0]))
    keys = sorted({k for _, r in runs for k in r if k[0] != "copy"})
    out = ["| row | n | " + " | ".join("%s G/s" % n for n, _ in runs) + " | best peer G/s | " +
           " | ".join("%s / peer" % n for n, _ in runs) + " |"]
    out.append("|" + " --- |" * (3 + 2 * len(runs)))
    for k in keys:
        gs = [(k[2] / r[k] / 1e6) if k in r else None for _, r in runs]
        bp = best_peer(k[:2], k[2], peers)
        pg = k[2] / bp[1] / 1e6 if bp else None
        f = lambda x: "%.1f" % x if x else "-"
        out.append("| %s/%s | 2^%d | %s | %s | %s |" % (k[0], k[1], log2(k[2]), " | ".join(f(g) for g in gs), f(pg),
                                                         " | ".join("%.2f" % (g / pg) if g and pg else "-" for g in gs)))
    return "\n".join(out)


CHART_ROWS = [  # label, row, n
    ("exclusive scan u32, 2^28", ("scan", "u32_exclusive"), 1 << 28),
    ("pack u32, 2^28", ("pack", "u32_flags_half"), 1 << 28),
    ("radix sort u32, 2^28", ("sort", "u32_keys"), 1 << 28),
    ("sort u32 + values, 2^28", ("sort", "u32_u32_pairs"), 1 << 28),
    ("sort u8 keys, 2^28", ("sort", "u8_keys"), 1 << 28),
    ("sort 10-bit keys, 2^28", ("sort", "u32_keys_10bit"), 1 << 28),
    ("sort u64, 2^28", ("sort", "u64_keys"), 1 << 28),
    ("gather float4, 2^24", ("gather", "f4_cell_permutation"), 1 << 24),
    ("particle re-binning, 2^23", ("bin", "32x32_sort_f4"), 1 << 23),
    ("bitonic, 1024-key segments, 2^28", ("bitonic_seg1024", "u32_keys_1024_segments"), 1 << 28),
    ("reduce by key, 2^28", ("reduce_by_key", "u32_keys_u32_sum_mean_run_1000"), 1 << 28),
    ("run-length encode, 2^28", ("run_length_encode", "u32_keys_mean_run_1000"), 1 << 28),
]


def chart(paths):
    # each row's figure and its peer's from the same folder (one command): the
    # last folder that has the row
    ours, peers = {}, {}
    for p in paths:
        fs = files_of(p)
        theirs = {}
        for k, v in peer_rows(fs).items():
            theirs.setdefault(k, {}).update(v)
        for k, ms in clsort_rows(fs)[0].items():
            ours[k] = ms
            peers[k] = theirs
    bars = []
    for label, key, n in CHART_ROWS:
        ms = ours.get(key + (n,))
        theirs = peers.get(key + (n,), {})
        bp = best_peer(key, n, {k: v for k, v in theirs.items() if k.startswith("cub") or k.startswith("cuda")})
        if ms and bp:
            bars.append((label, bp[1] / ms))
    W, left, right, row_h, top = 760, 250, 40, 26, 50
    top_v = max([2.0] + [r for _, r in bars]) * 1.05
    H = top + row_h * len(bars) + 40
    x = lambda v: left + (W - left - right) * v / top_v
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">'
           % (W, H), '<rect width="100%" height="100%" fill="white"/>',
           '<text x="%d" y="22" font-size="14" font-weight="bold">clsort relative to the best CUB configuration '
           '(1.0 = CUB)</text>' % left]
    for i in range(int(top_v * 2) + 1):
        v = i / 2
        out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x(v), top - 5, x(v), H - 30))
        out.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%.1f</text>' % (x(v), H - 15, v))
    out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#000" stroke-width="1.5"/>'
               % (x(1), top - 5, x(1), H - 30))
    for k, (label, r) in enumerate(bars):
        y = top + k * row_h
        out.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (left - 8, y + 14, label))
        out.append('<rect x="%d" y="%d" width="%.1f" height="14" fill="#2b6cb0"/>' % (left, y + 3, x(r) - left))
        out.append('<text x="%.1f" y="%d" fill="#2b6cb0">%.2f</text>' % (x(r) + 4, y + 14, r))
    out.append('</svg>')
    return "\n".join(out)


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    if argv[1] == "check":
        return check()
    if argv[1] == "before-after":
        print(before_after(argv[2]))
    elif argv[1] == "variants":
        print(variants(argv[2:]))
    elif argv[1] == "chart":
        print(chart(argv[2:]))
    else:
        for p in argv[1:]:
            t = peers_table(p)
            print(t if t else "%s: no rows" % p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
