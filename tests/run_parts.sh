#!/bin/sh
# Runs the parts of a test command one after another and sums their results:
#   tests/run_parts.sh NAME COMMAND [NAME COMMAND]...
# Each COMMAND runs under sh -c, its output shown as it comes (line-buffered
# through stdbuf where there is one, so progress lines are not held back).
# A part reports its checks in a line "N passed, N failed" (the whole line; a
# part that runs several programs prints one per program, and they are
# summed); the runner takes those lines out of the stream and prints their sum
# after the part's name instead. A part that prints no such line counts as one check, passed when
# it exits 0. A part that exits non-zero with no failed check counts one more
# failure (a crash after its last check). The last line is one
# "N passed, N failed" over every part; the exit status is 1 when any check
# failed.
set -u

[ $# -ge 2 ] && [ $(($# % 2)) = 0 ] || { echo "usage: tests/run_parts.sh NAME COMMAND [NAME COMMAND]..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'echo "interrupted"; exit 130' INT TERM
line_buffered=""
command -v stdbuf >/dev/null 2>&1 && line_buffered="stdbuf -oL -eL"
total_passed=0
total_failed=0
summary=""
started=$(date +%s)

while [ $# -ge 2 ]; do
    name=$1
    cmd=$2
    shift 2
    echo "== $name"
    part_start=$(date +%s)
    # the part's status through a file: a pipeline's status is its last command's
    # (a shell loop, not awk: mawk holds back input read from a pipe)
    { $line_buffered sh -c "$cmd" 2>&1; echo $? > "$tmp/status"; } |
        while IFS= read -r line || [ -n "$line" ]; do
            case $line in
            *[!0-9]*" passed, "*) printf '%s\n' "$line" ;; # a word before the count: not a tally
            [0-9]*" passed, "[0-9]*" failed") printf '%s\n' "$line" >> "$tmp/tally" ;;
            *) printf '%s\n' "$line" ;;
            esac
        done
    status=$(cat "$tmp/status")
    if [ -s "$tmp/tally" ]; then
        passed=$(awk '{ s += $1 } END { print s }' "$tmp/tally")
        failed=$(awk '{ s += $3 } END { print s }' "$tmp/tally")
        rm -f "$tmp/tally"
    elif [ "$status" = 0 ]; then
        passed=1 failed=0
    else
        passed=0 failed=1
    fi
    if [ "$status" != 0 ] && [ "$failed" = 0 ]; then
        echo "$name: exit status $status after its last check"
        failed=1
    fi
    echo "$name: $passed passed, $failed failed ($(($(date +%s) - part_start)) s)"
    total_passed=$((total_passed + passed))
    total_failed=$((total_failed + failed))
    summary="$summary${summary:+, }$name $passed/$((passed + failed))"
done

echo "== all parts ($(($(date +%s) - started)) s): $summary"
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" = 0 ]
