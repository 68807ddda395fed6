#!/usr/bin/env bash
# Property: `powder-character --help` (and -h, and --help after a kind) prints the
# usage, with both kinds and every option, on stdout and exits 0, as every `powder`
# command does; it said "unknown kind '--help'" and exited 2. Without arguments the
# usage still goes to stderr with exit 2, and an unknown kind is still refused.
# powder-character is built beside powder (CMakeLists.txt); skipped (77) without it.
#
# usage: bash test_character_help_exits_0.sh <powder binary> <source dir> <scratch dir>
set -u
character=$(dirname "$(readlink -f "$1")")/powder-character
[ -x "$character" ] || { echo "no $character: skipped"; exit 77; }
dir=$3/character_help_exits_0
# shellcheck source=tests/check.sh
. "$(dirname "${BASH_SOURCE[0]}")/check.sh"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1

n=0
for args in "--help" "-h" "walker --help" "digger -h"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    "$character" $args >out.txt 2>err.txt
    rc=$?
    check "1.$n '$args' exits 0" test "$rc" -eq 0
    check "1.$n '$args' prints the usage on stdout" grep -q "^usage: powder-character walker|digger" out.txt
    check "1.$n '$args' names --out and --depth" grep -q -- "--depth" out.txt
    check "1.$n '$args' nothing on stderr" test ! -s err.txt
    check "1.$n '$args' no 'unknown'" test "$(grep -c unknown out.txt err.txt | awk -F: '{s+=$2} END {print s}')" -eq 0
done

"$character" >out.txt 2>err.txt
check "2.1 no arguments: exit 2" test $? -eq 2
check "2.2 no arguments: the usage on stderr" grep -q "^usage: powder-character" err.txt
"$character" skater >out.txt 2>err.txt
check "2.3 unknown kind: exit 2" test $? -eq 2
check "2.4 unknown kind named" grep -q "unknown kind 'skater'" err.txt

check_done
