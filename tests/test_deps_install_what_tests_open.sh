#!/usr/bin/env bash
# Property: every file outside the repository that the test suite opens or runs comes from
# a Debian package that tools/deps.sh installs (POWDER_PACKAGES or POWDER_TEST_PACKAGES, or
# one they depend on directly) or from an Essential package (there on every Debian
# machine), so a fresh Debian 12 machine that tools/check sets up runs the whole suite.
# The files are found in the sources, not from a list that could drift:
#   - absolute paths under /usr, /etc, /opt, /lib in the tests (tests/*.c, *.h, *.sh,
#     tests/fuzz/) and in the program's sources the tests run (sim/, render/, pipeline/:
#     the default font) and in the scenes they read (tests/data/scenes/, scenes/ and
#     the examples of scenes/FORMAT.md), C string literals joined to a directory macro
#     included (#define DIR "/usr/share/.../" then DIR "file.ttf");
#   - programs the tests look up with `command -v NAME` (blender, ocioconvert, ...).
# Each is printed with its package. A file that does not exist here fails too (its test
# would fail or skip on this machine), naming the file: tools/check installs everything.
# SKIPPED (exit 77) on a machine without dpkg.
#
# usage: bash test_deps_install_what_tests_open.sh <powder binary> <source dir> <scratch dir>
set -u
src=$(readlink -f "$2")
skip() { echo "SKIPPED: $*"; exit 77; }
command -v dpkg >/dev/null || skip "not a Debian machine (no dpkg)"
# shellcheck source=tools/deps.sh
. "$src/tools/deps.sh"
# shellcheck disable=SC2086
listed=" $(echo $POWDER_PACKAGES $POWDER_TEST_PACKAGES) "
# and what those depend on directly (python3 installs python3-minimal, which has
# /usr/bin/python3)
# shellcheck disable=SC2086
needed=" $(dpkg-query -W -f='${Depends}, ${Pre-Depends}, ' $listed 2>/dev/null |
    tr ',|' '\n\n' | sed -E 's/^ *//; s/[ :(].*//' | grep . | sort -u | tr '\n' ' ') "

cd "$src" || exit 1
sources=$(ls tests/*.c tests/*.h tests/*.sh tests/fuzz/*.c sim/*.[ch] sim/core/*.[ch] \
    render/*.[ch] render/*.cpp pipeline/*.[ch] pipeline/*.cpp tests/data/scenes/* \
    scenes/*.json scenes/paper/*.json scenes/looks/* scenes/FORMAT.md 2>/dev/null |
    grep -v '^tests/test_deps_install_what_tests_open.sh$')
[ -n "$sources" ] || { echo "FAIL: no sources found under $src"; exit 1; }
pathre='/(usr|etc|opt|lib)/[A-Za-z0-9._+/-]*'

# 1. the files: "<source>\t<path>" lines
{
    for f in $sources; do
        # plain paths (string literals, shell words), but not the #! line's interpreter
        grep -noE "$pathre" "$f" | grep -v '^1:/usr/bin/env$' | sed "s|^[0-9]*:|$f\t|"
        # a macro naming a directory, joined to the literals that follow it
        grep -oE "^#define [A-Za-z_][A-Za-z0-9_]* \"$pathre/\"" "$f" |
            while read -r _ name dir; do
                dir=${dir//\"/}
                grep -oE "\\b$name \"[^\"]+\"" "$f" | sed -E "s|^$name \"(.*)\"\$|$f\t$dir\1|"
            done
    done
    # 2. the programs
    for f in $sources; do
        grep -oE 'command -v [A-Za-z0-9_.+-]+' "$f" | while read -r _ _ prog; do
            printf '%s\tprogram %s\n' "$f" "$prog"
        done
    done
} | grep -vE $'\t''.*/$' | sort -u -t$'\t' -k2,2 >"${3:-/tmp}/deps_install_what_tests_open.list"

owner() { # owner PATH: the package dpkg says installed it, or nothing
    local p
    for p in "$1" "$(readlink -f "$1")" "${1#/usr}"; do
        [ -n "$p" ] || continue
        dpkg -S "$p" 2>/dev/null | grep -v '^diversion' | head -1 | sed -E 's/[:,].*//' | grep . &&
            return 0
    done
    return 1
}

checked=0 failed=0
while IFS=$'\t' read -r where what; do
    case $what in
    "program "*)
        prog=${what#program }
        # as a fresh machine has it: Debian's folders, not /usr/local or a user's own
        file=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v "$prog") || {
            echo "FAIL: $where runs '$prog', which is not installed here (tools/check" \
                "installs tools/deps.sh's packages; is its package there?)"
            failed=$((failed + 1)); continue
        }
        ;;
    *) file=$what ;;
    esac
    if [ ! -e "$file" ]; then
        echo "FAIL: $where opens $file, which does not exist here (tools/check installs" \
            "tools/deps.sh's packages; is the one that has it there?)"
        failed=$((failed + 1)); continue
    fi
    pkg=$(owner "$file") || {
        echo "FAIL: $where opens $file, which no Debian package installed here (the test" \
            "must make it, or ship it in the repository)"
        failed=$((failed + 1)); continue
    }
    checked=$((checked + 1))
    essential=$(dpkg-query -W -f='${Essential}' "$pkg" 2>/dev/null)
    if [[ $listed == *" $pkg "* ]]; then
        echo "ok: $file ($where) from $pkg, in tools/deps.sh"
    elif [[ $needed == *" $pkg "* ]]; then
        echo "ok: $file ($where) from $pkg, which a package in tools/deps.sh depends on"
    elif [ "$essential" = yes ]; then
        echo "ok: $file ($where) from $pkg, Essential"
    else
        echo "FAIL: $where opens $file, from the package $pkg, which tools/deps.sh does not" \
            "install"
        failed=$((failed + 1))
    fi
done <"${3:-/tmp}/deps_install_what_tests_open.list"
echo "$checked files checked, $failed failures"
[ "$checked" -gt 0 ] || { echo "FAIL: found no file to check"; exit 1; }
[ "$failed" -eq 0 ]
