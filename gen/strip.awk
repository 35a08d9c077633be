# Prints an OpenCL C file without its comments and indentation, line for line:
# each comment becomes one space (or nothing at a line's end), runs of blanks
# outside literals become one space, leading and trailing blanks go, and every
# newline stays, so a build log's line numbers are the file's own. Outside
# preprocessor lines, a blank next to one of ( ) [ ] { } ; , goes too: those
# tokens join no neighbour into another token (a directive keeps its blanks:
# "#define F (x)" is not "#define F(x)").
function punct(ch) { return index("()[]{};,", ch) > 0 }
{
    line = $0; out = ""; n = length(line); i = 1
    directive = !inblock && !continued && line ~ /^[ \t]*#/
    while (i <= n) {
        c = substr(line, i, 1)
        if (inblock) {
            if (substr(line, i, 2) == "*/") { inblock = 0; i += 2; out = out " " } else i++
            continue
        }
        if (c == "\"" || c == "'") {            # a literal, copied as it is
            j = i + 1
            while (j <= n && substr(line, j, 1) != c) j += (substr(line, j, 1) == "\\") ? 2 : 1
            out = out substr(line, i, j - i + 1); i = j + 1
            continue
        }
        two = substr(line, i, 2)
        if (two == "//") break
        if (two == "/*") { inblock = 1; i += 2; continue }
        if (c == " " || c == "\t") { if (out != "" && substr(out, length(out), 1) != " ") out = out " "; i++; continue }
        if (!directive && punct(c) && substr(out, length(out), 1) == " ") out = substr(out, 1, length(out) - 1)
        out = out c; i++
        if (!directive && punct(c)) while (i <= n && (substr(line, i, 1) == " " || substr(line, i, 1) == "\t")) i++
    }
    sub(/^ +/, "", out); sub(/ +$/, "", out)
    # a continued line keeps a blank before its backslash: the next line lost its indentation
    if (out ~ /[^ ]\\$/) out = substr(out, 1, length(out) - 1) " \\"
    # within a directive that goes on (its next lines are its body, compacted as code)
    continued = (directive || continued) && out ~ /\\$/
    print out
}
