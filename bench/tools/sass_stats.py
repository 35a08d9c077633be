#!/usr/bin/env python3
"""Instruction mix of the kernels in a `cuobjdump -sass` listing: one row per
function whose name matches REGEX (all without one), counted by class, so that
two kernels that do the same work can be put side by side.

  cuobjdump -sass FILE | python3 bench/tools/sass_stats.py [REGEX] [--keep DIR]

--keep DIR writes each matching function's listing to DIR/<n>.sass (the names
are in DIR/index.txt). Classes: global loads and stores (LDG, STG), local
(shared) memory (LDS, STS, and ATOMS), spills (LDL, STL), global atomics
(ATOMG, RED), barriers (BAR), fences (MEMBAR, FENCE, ERRBAR, CCTL), warp
operations (SHFL, MATCH, VOTE, REDUX), control (BRA, BRX, JMP, CALL, RET,
EXIT, BSSY, BSYNC, WARPSYNC), 64-bit address arithmetic (IADD3.X, LEA.HI.X,
IMAD.WIDE*), and the rest.
"""
import os
import re
import sys

CLASSES = [
    ("LDG", lambda op: op.startswith("LDG") or op.startswith("LD.E") or op == "LD"),
    ("STG", lambda op: op.startswith("STG") or op.startswith("ST.E") or op == "ST"),
    ("LDS", lambda op: op.startswith("LDS") or op.startswith("LDSM")),
    ("STS", lambda op: op.startswith("STS")),
    ("ATOMS", lambda op: op.startswith("ATOMS")),
    ("LDL/STL", lambda op: op.startswith("LDL") or op.startswith("STL")),
    ("ATOMG/RED", lambda op: op.startswith("ATOMG") or op.startswith("ATOM.") or op.startswith("RED")),
    ("BAR", lambda op: op.startswith("BAR")),
    ("fence", lambda op: op.split(".")[0] in ("MEMBAR", "FENCE", "ERRBAR", "CCTL", "CCTLL")),
    ("warp", lambda op: op.split(".")[0] in ("SHFL", "MATCH", "VOTE", "VOTEU", "REDUX")),
    ("control", lambda op: op.split(".")[0] in ("BRA", "BRX", "JMP", "CALL", "RET", "EXIT", "BSSY", "BSYNC",
                                                "WARPSYNC", "YIELD", "NANOSLEEP")),
    ("addr64", lambda op: op.startswith("IMAD.WIDE") or op.startswith("LEA.HI.X") or op.endswith(".X")),
]
INSN = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_.]*)")


def parse(lines):
    funcs, name, body = [], None, []
    for line in lines:
        m = re.search(r"Function : (\S+)", line)
        if m:
            if name:
                funcs.append((name, body))
            name, body = m.group(1), []
            continue
        if name is not None:
            body.append(line)
    if name:
        funcs.append((name, body))
    return funcs


def mix(body):
    counts = {c: 0 for c, _ in CLASSES}
    counts["other"] = 0
    total = 0
    for line in body:
        m = INSN.search(line)
        if not m:
            continue
        op = m.group(2)
        if op == "NOP":
            continue
        total += 1
        for c, test in CLASSES:
            if test(op):
                counts[c] += 1
                break
        else:
            counts["other"] += 1
    return total, counts


def strip(body):
    """The listing without its instruction encodings (comments of hex only)."""
    for line in body:
        line = re.sub(r"\s*/\* 0x[0-9a-f]+ \*/", "", line).rstrip()
        if line:
            yield line + "\n"


def main(argv):
    keep = None
    if "--keep" in argv:
        i = argv.index("--keep")
        keep = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    rx = re.compile(argv[1]) if len(argv) > 1 else None
    funcs = [f for f in parse(sys.stdin) if not rx or rx.search(f[0])]
    cols = [c for c, _ in CLASSES] + ["other"]
    print("| # | function | instructions | " + " | ".join(cols) + " |")
    print("| --- | --- | ---: | " + " | ".join("---:" for _ in cols) + " |")
    if keep:
        os.makedirs(keep, exist_ok=True)
        index = open(os.path.join(keep, "index.txt"), "w")
    for k, (name, body) in enumerate(funcs):
        total, counts = mix(body)
        short = name if len(name) <= 70 else name[:50] + "..." + name[-17:]
        print("| %d | `%s` | %d | %s |" % (k, short, total, " | ".join(str(counts[c]) for c in cols)))
        if keep:
            with open(os.path.join(keep, "%d.sass" % k), "w") as f:
                f.write("Function : %s\n" % name)
                f.writelines(strip(body))
            index.write("%d %s\n" % (k, name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
