#!/bin/sh
# Writes clsort.h with its generated region (between the BEGIN/END GENERATED
# KERNELS markers) rebuilt from kernels/*.cl, and its closing comment rebuilt
# from LICENSE (the header carries the licence text in full).
#
# Each kernels/NAME.cl becomes one byte array, clsort__kernel_NAME_cl:
#   1. gen/strip.awk drops its comments and indentation, line for line (every
#      newline stays, so an OpenCL build log's line numbers are kernels/NAME.cl's
#      own);
#   2. `xxd -i -c 1` turns the bytes into C; awk writes them in decimal
#      (3.6 characters a byte against hex's 5) and puts the bytes of one
#      source line on one header line, so a kernel edit changes only the
#      header lines of the kernel lines it touched.
# Then the table clsort__kernel_source() looks files up in: a new kernels/*.cl
# file is embedded with no other edit.
#   gen/embed.sh            rewrite clsort.h in place
#   gen/embed.sh --check    exit 1 (with a diff) when clsort.h is out of date
#   gen/embed.sh --budget   exit 1 when clsort.h is over its size budget
#                           (CLSORT_HEADER_BUDGET bytes, default 1500000),
#                           naming its largest parts
set -eu
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--budget" ]; then
    budget=${CLSORT_HEADER_BUDGET:-1500000}
    size=$(wc -c < clsort.h)
    if [ "$size" -le "$budget" ]; then
        echo "clsort.h: $size bytes, within its budget of $budget"
        exit 0
    fi
    echo "clsort.h: $size bytes, over its budget of $budget; its largest parts:" >&2
    # the generated arrays by kernel file, the rest by its >>tag sections
    awk '
        /^\/\* BEGIN GENERATED KERNELS/ { gen = 1 }
        /^\/\* END GENERATED KERNELS/   { gen = 0 }
        gen && /^\/\* kernels\/.*\.cl/  { part = "generated " $2 }
        !gen && /^\/\* >>[a-z]/         { part = "section " $2 }
        NR == 1                          { part = "manual and API" }
        { bytes[part] += length($0) + 1 }
        END { for (p in bytes) printf "%10d  %s\n", bytes[p], p }
    ' clsort.h | sort -rn | head -n 12 >&2
    exit 1
fi

command -v xxd >/dev/null || { echo "gen/embed.sh: xxd not found (apt-get install xxd)" >&2; exit 2; }
tmp=$(mktemp)
region=$(mktemp)
stripped=$(mktemp)
trap 'rm -f "$tmp" "$region" "$stripped"' EXIT
{
    echo "/* Made by gen/embed.sh from the files of kernels/: each array is one file with its comments"
    echo " * and indentation stripped (gen/strip.awk), one header line per line of the file. */"
    for f in kernels/*.cl; do
        name=clsort__kernel_$(basename "$f" .cl)_cl
        awk -f gen/strip.awk "$f" > "$stripped"
        echo "/* $f */"
        echo "static const unsigned char ${name}[] = {"
        xxd -i -c 1 < "$stripped" | awk '
            BEGIN { for (i = 0; i < 256; ++i) dec[sprintf("0x%02x", i)] = i }
            { sub(/^ +/, ""); sub(/,$/, ""); line = line dec[$0] "," }
            $0 == "0x0a" { print line; line = "" }
            END { if (line != "") print line }'
        echo "};"
    done
    echo "static const clsort__kernel_file clsort__kernel_files[] = {"
    for f in kernels/*.cl; do
        base=$(basename "$f")
        name=clsort__kernel_$(basename "$f" .cl)_cl
        echo "    {\"$base\", $name, sizeof $name},"
    done
    echo "};"
} > "$region"
awk -v region="$region" '
    /BEGIN GENERATED KERNELS/ { print; while ((getline line < region) > 0) print line; skip = 1; next }
    /END GENERATED KERNELS/   { skip = 0 }
    !skip { print }
' clsort.h | awk '{ print } /^#endif \/\* CLSORT_IMPLEMENTATION \*\/$/ { exit }' > "$tmp"
{
    echo
    echo "/*"
    sed -e 's/^/ * /' -e 's/ $//' LICENSE
    echo " */"
} >> "$tmp"
if [ "${1:-}" = "--check" ]; then
    if ! cmp -s "$tmp" clsort.h; then
        echo "clsort.h: the embedded kernels or the licence differ from kernels/ and LICENSE - run 'make gen'" >&2
        diff "$tmp" clsort.h | head -n 20 >&2
        exit 1
    fi
else
    cat "$tmp" > clsort.h
fi
