#!/bin/sh
# Writes clsort.h with its generated region (between the BEGIN/END GENERATED
# KERNELS markers) rebuilt from kernels/*.cl by `xxd -i`: one byte array per
# file and the table clsort__kernel_source() looks files up in, so a new
# kernels/*.cl file is embedded with no other edit; and the closing comment
# rebuilt from LICENSE, so the header carries the licence text in full.
#   gen/embed.sh            rewrite clsort.h in place
#   gen/embed.sh --check    exit 1 (with a diff) when clsort.h is out of date
set -eu
cd "$(dirname "$0")/.."
command -v xxd >/dev/null || { echo "gen/embed.sh: xxd not found (apt-get install xxd)" >&2; exit 2; }
tmp=$(mktemp)
region=$(mktemp)
trap 'rm -f "$tmp" "$region"' EXIT
{
    for f in kernels/*.cl; do
        name=clsort__kernel_$(basename "$f" .cl)_cl
        echo "/* $f */"
        # xxd names the arrays after the path; give them the library prefix, static const
        (cd kernels && xxd -i "$(basename "$f")") |
            sed -e "s/^unsigned char [A-Za-z0-9_]*\[\]/static const unsigned char ${name}[]/" \
                -e "/^unsigned int [A-Za-z0-9_]*_len/d"
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
