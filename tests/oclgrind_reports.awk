# make oclgrind: the reports in oclgrind's logs, each with up to 6 lines
# after it; prints them and exits 1 when there is one. Left out: an API
# error that a test asks for, a build of a caller's snippet that does not
# compile (clBuildProgram, CL_BUILD_PROGRAM_FAILURE): the test itself checks
# that the call failed with CLSORT_ERROR_BUILD, and any other failing build
# fails its test.
#   awk -f tests/oclgrind_reports.awk LOG...
function flush() {
    if (held != "" && !(held ~ /Function: clBuildProgram/ && held ~ /Error: +CL_BUILD_PROGRAM_FAILURE/)) {
        if (++reports <= 40) print held
    }
    held = ""; rest = 0
}
/^(Uninitialized|Read-write|Write-write|Invalid|Controlflow|Work-group divergence|Oclgrind - )/ {
    flush(); held = $0; rest = 6; next
}
rest > 0 { held = held "\n" $0; if (--rest == 0) flush(); next }
END { flush(); if (reports) { print reports " reports"; exit 1 } }
