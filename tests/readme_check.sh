#!/bin/sh
# make readme-check: README.md's programs built with README.md's own lines, in
# the order a user meets them: the quick start compiled with its cc line and
# run (its output, and its message for an unknown device), the device example
# compiled the same way, `make install` (into a folder under build/ instead of
# /opt/clsort), the find_package lines of the CMake block, and each
# `cc ... $(pkg-config ...)` line. One line per step, then "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
root=$(pwd)
dir=$root/build/readme
prefix=$dir/prefix
rm -rf "$dir"
mkdir -p "$dir"
passed=0
failed=0
verdict() { # STATUS NAME LOG
    if [ "$1" = 0 ]; then passed=$((passed + 1)); echo "readme-check $2: ok"
    else failed=$((failed + 1)); echo "readme-check $2: did not work:"; tail -n 20 "$3"; fi
}
# the Nth fenced block of language $1
block() { awk -v lang="$1" -v want="$2" '
    $0 == "```" lang { n++; if (n == want) { on = 1; next } }
    on && /^```/ { exit }
    on { print }' README.md; }
# the README's command lines in backquotes that start with $1
commands() { grep -o "\`$1[^\`]*\`" README.md | tr -d '`'; }

cp clsort.h "$dir/"
block c 1 > "$dir/quick.c"
cp "$dir/quick.c" "$dir/app.c"
{ block c 1 | sed -n '1,3p'; block c 2; cat <<'MAIN'
int main(void)
{
    uint32_t keys[1000], values[1000], i;
    clsort_context *cs = NULL;
    int ok;
    for (i = 0; i < 1000; ++i) { keys[i] = (i * 7919u) % 1000u; values[i] = i; }
    ok = clsort_create(&cs, NULL) == CLSORT_SUCCESS && sort_pairs(cs, keys, values, 1000) == 0;
    for (i = 0; ok && i < 1000; ++i) ok = keys[i] == i && (values[i] * 7919u) % 1000u == i;
    clsort_destroy(cs);
    printf("%s\n", ok ? "sorted" : "not sorted");
    return ok ? 0 : 1;
}
MAIN
} > "$dir/pairs.c"

quick=$(commands 'cc -std=c99 -I. quick.c' | head -n 1)
[ -n "$quick" ] || { echo "readme-check: no quick start cc line in README.md" >&2; exit 1; }
(cd "$dir" && sh -c "$quick" && ./a.out > quick.out && grep -q '^1 1 3 4 5 9 | sums end 14, total 23 | 4 kept$' quick.out) \
    > "$dir/quick.log" 2>&1
verdict $? "quick start: $quick" "$dir/quick.log"
(cd "$dir" && CLSORT_DEVICE=nosuchdevice ./a.out; [ $? = 1 ]) 2> "$dir/nodevice.out" > "$dir/nodevice.log"
# the message README.md says it prints (its text before " ...")
said=$(tr '\n' ' ' < README.md | grep -o 'it prints `[^`]*`' | head -n 1 | sed -e 's/^it prints `//' -e 's/`$//' -e 's/ \.\.\.$//')
[ -n "$said" ] && grep -qF "$said" "$dir/nodevice.out"
verdict $? "quick start with CLSORT_DEVICE=nosuchdevice" "$dir/nodevice.out"
pairs=$(echo "$quick" | sed 's/quick\.c/pairs.c/')
(cd "$dir" && sh -c "$pairs" && ./a.out) > "$dir/pairs.log" 2>&1
verdict $? "device example: $pairs" "$dir/pairs.log"

install=$(grep -o '^make install PREFIX=[^ ]*' README.md | head -n 1)
[ -n "$install" ] || { echo "readme-check: no make install line in README.md" >&2; exit 1; }
make --no-print-directory $(echo "$install" | sed -e 's/^make //' -e "s|/opt/clsort|$prefix|") > "$dir/install.log" 2>&1
verdict $? "$install (PREFIX under build/readme)" "$dir/install.log"

for target in clsort::clsort clsort::clsort_dynamic; do
    cm=$dir/cmake_$(echo "$target" | tr -c 'a-z\n' '_')
    mkdir -p "$cm"
    cp "$dir/app.c" "$cm/"
    { echo "cmake_minimum_required(VERSION 3.16)"; echo "project(app LANGUAGES C)"
      echo "add_executable(app app.c)"; block cmake 1 | sed "s/clsort::clsort)/$target)/"; } > "$cm/CMakeLists.txt"
    (cmake -S "$cm" -B "$cm/build" -DCMAKE_PREFIX_PATH="$prefix" && cmake --build "$cm/build" && "$cm/build/app") \
        > "$cm.log" 2>&1
    verdict $? "find_package(clsort), $target" "$cm.log"
done

commands 'cc -std=c99 app.c $(pkg-config' > "$dir/pkgconfig.lines"
[ -s "$dir/pkgconfig.lines" ] || { echo "readme-check: no pkg-config cc line in README.md" >&2; exit 1; }
while IFS= read -r line; do
    (cd "$dir" && rm -f a.out && PKG_CONFIG_PATH=$prefix/lib/pkgconfig sh -c "$line" && ./a.out) > "$dir/pc.log" 2>&1
    verdict $? "$line" "$dir/pc.log"
done < "$dir/pkgconfig.lines"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
