#!/bin/sh
# Fails naming every function longer than CLSORT_FN_MAX_LINES (60) lines in
# clsort.h (outside its generated region, which gen/embed.sh writes from
# kernels/) and in kernels/*.cl, but for those allowed below.
#   tests/fn_length.sh           check; exit 1 naming each function over the limit
#   tests/fn_length.sh --list    print every function's length, longest first
# A function's length counts its body: from the line "{" that opens it (in
# the first column, as the header and kernels write every function) to the
# line "}" that closes it, both included. Its name is the identifier before
# the first "(" of the nearest line above, in the first column, that has one
# (its declaration; attributes skipped).
set -eu
cd "$(dirname "$0")/.."
max=${CLSORT_FN_MAX_LINES:-60}

# Functions allowed to be longer: one a line, its name first, then why.
allow='
clsort__decide            the device quirk table, one row per quirk (kept whole)
'

lengths() {
    awk '
        FNR == 1 { gen = 0; n = 0 }
        /^\/\* BEGIN GENERATED KERNELS/ { gen = 1 }
        /^\/\* END GENERATED KERNELS/ { gen = 0; next }
        gen { next }
        { line[++n] = $0 }
        /^\{[ \t]*$/ || /^\{[ \t]*\/[*\/]/ { open = n; name = "" }
        /^\}/ && open {
            for (i = open - 1; i > 0 && i > open - 20; i--) {
                s = line[i]
                if (s !~ /^[A-Za-z_]/ || s !~ /\(/) continue
                gsub(/__attribute__ *\(\([^()]*(\([^()]*\)[^()]*)*\)\)/, "", s)
                if (s ~ /=/ || !match(s, /[A-Za-z_][A-Za-z_0-9]* *\(/)) break
                name = substr(s, RSTART, RLENGTH)
                sub(/ *\($/, "", name)
                break
            }
            if (name != "") printf "%d %s %s:%d\n", n - open + 1, name, FILENAME, FNR - (n - open)
            open = 0
        }
    ' clsort.h kernels/*.cl
}

if [ "${1:-}" = "--list" ]; then
    lengths | sort -rn
    exit 0
fi
all=$(lengths)
# an allowed function that is no longer over the limit (or no longer there):
# a note, so that its entry goes
printf '%s\n' "$all" | awk -v max="$max" -v allow="$allow" '
    BEGIN { k = split(allow, a, "\n"); for (i = 1; i <= k; i++) if (split(a[i], w, " ") > 0) ok[w[1]] = 1 }
    $1 > max { long[$2] = 1 }
    END { for (f in ok) if (!(f in long)) printf "note: %s is allowed but not over %d lines: drop its entry\n", f, max }'
over=$(printf '%s\n' "$all" | awk -v max="$max" -v allow="$allow" '
    BEGIN { k = split(allow, a, "\n"); for (i = 1; i <= k; i++) if (split(a[i], w, " ") > 0) ok[w[1]] = 1 }
    $1 > max && !($2 in ok) { printf "  %s: %d lines (%s)\n", $2, $1, $3 }')
if [ -z "$over" ]; then
    echo "every function within $max lines (but for the allowed ones)"
    exit 0
fi
echo "functions over $max lines (split them into named steps, tests/fn_length.sh):" >&2
printf '%s\n' "$over" >&2
exit 1
