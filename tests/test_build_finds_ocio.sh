#!/usr/bin/env bash
# Property: the build that tools/demo configures shows previews through OpenColorIO
# whenever the machine has it (tools/deps.sh installs it): configuring with exactly the
# demo's cmake options finds it (POWDER_WITH_OCIO). Without it the previews fall back to
# the analytic views, so a build that misses an installed OpenColorIO would pass every
# other test while showing other images. Skipped (77) on a machine without the
# OpenColorIO headers.
set -euo pipefail
src=$2 tmp=$3
[ -f /usr/include/OpenColorIO/OpenColorIO.h ] || { echo "no OpenColorIO on this machine"; exit 77; }
# the demo's own configure options, read from tools/demo so the two cannot drift
opts=$(grep -E '^[[:space:]]*cmake -S' "$src/tools/demo" | grep -oE -- '-D[A-Za-z_]+=[^ ]+' || true)
[ -n "$opts" ] || { echo "FAIL: no cmake configure line in tools/demo"; exit 1; }
dir="$tmp/build_finds_ocio.$$"
rm -rf "$dir"
# shellcheck disable=SC2086
cmake -S "$src" -B "$dir" $opts >"$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
if grep -q '^POWDER_WITH_OCIO:INTERNAL=ON$' "$dir/CMakeCache.txt"; then
    echo "tools/demo's build ($opts) shows previews through OpenColorIO"
    rm -rf "$dir" "$dir.log"
    echo "1 passed, 0 failed"
else
    echo "FAIL: tools/demo's build ($opts) leaves OpenColorIO out although it is installed"
    exit 1
fi
