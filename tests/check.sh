# check.sh — the assertions of the shell tests, sourced by them: `check NAME COMMAND...`
# runs COMMAND and prints "ok   NAME" or "FAIL NAME", counting both (on a failure, also
# the first 40 lines of $out, the output under test, where a test keeps one there);
# `check_done` prints the closing "N passed, M failed" and returns non-zero when a check
# failed.
fails=0 cases=0
check() { # check NAME COMMAND...
    local name=$1
    shift
    cases=$((cases + 1))
    if "$@"; then
        echo "ok   $name"
    else
        echo "FAIL $name"
        if [ -n "${out:-}" ]; then printf '%s\n' "$out" | head -n 40; fi
        fails=$((fails + 1))
    fi
}
check_done() {
    echo "$((cases - fails)) passed, $fails failed"
    test "$fails" -eq 0
}
