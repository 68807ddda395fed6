#!/usr/bin/env bash
# Property: FreeType is reached only through the text library, pw_text (sim/core/text*.c
# and shape_mesh.c); the core library, pw_core, which every stage and program links, asks
# for no FreeType symbol. A call into the text from another core file would still link
# (every program also links pw_text), and FreeType would silently be back in everything
# that uses the core; this test sees it in the archives. It also sees that pw_text does
# ask for FreeType, so that it cannot pass by reading the wrong files.
set -euo pipefail
powder=$1 src=$2
# shellcheck source=tests/check.sh
. "$src/tests/check.sh"
command -v nm >/dev/null || { echo "skipped: no nm (binutils)"; exit 77; }
build=$(dirname "$powder")
# the FreeType functions an archive leaves undefined, one "object: symbol" a line
freetype_asked() { nm -A "$1" 2>/dev/null | awk '$(NF-1) == "U" && $NF ~ /^FT_/ {print $1, $NF}'; }
for lib in pw_core pw_core_plain; do
    [ -f "$build/lib$lib.a" ] || continue
    out=$(freetype_asked "$build/lib$lib.a")
    check "lib$lib.a asks for no FreeType symbol" test -z "$out"
done
out=$(freetype_asked "$build/libpw_text.a")
check "libpw_text.a asks for FreeType (FT_Init_FreeType)" grep -q "FT_Init_FreeType" <<<"$out"
check_done
