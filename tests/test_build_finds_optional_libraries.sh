#!/usr/bin/env bash
# Property: the build that tools/demo configures has every optional part whose library
# the machine has (tools/deps.sh installs them): `powder export vdb` with OpenVDB
# (POWDER_WITH_VDB), previews through OpenColorIO (POWDER_WITH_OCIO). A build that missed
# an installed library would pass every other test while lacking the export or showing
# other images (the analytic views). Configured with exactly the demo's cmake options;
# a library the machine lacks is skipped (and all of them: exit 77).
set -euo pipefail
src=$2 tmp=$3
# the demo's own configure options, read from tools/demo so the two cannot drift
opts=$(grep -E '^[[:space:]]*cmake -S' "$src/tools/demo" | grep -oE -- '-D[A-Za-z_]+=[^ ]+' || true)
[ -n "$opts" ] || { echo "FAIL: no cmake configure line in tools/demo"; exit 1; }
dir="$tmp/build_finds_optional.$$"
rm -rf "$dir"
# shellcheck disable=SC2086
cmake -S "$src" -B "$dir" $opts >"$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
passed=0 failed=0
check() { # check HEADER CACHE-VARIABLE WHAT
    if [ ! -f "$1" ]; then
        echo "skipped: $3 (no $1 on this machine)"
    elif grep -q "^$2:INTERNAL=ON\$" "$dir/CMakeCache.txt"; then
        echo "tools/demo's build ($opts) has $3"
        passed=$((passed + 1))
    else
        echo "FAIL: tools/demo's build ($opts) leaves out $3 although its library is installed"
        failed=$((failed + 1))
    fi
}
check /usr/include/openvdb/openvdb.h POWDER_WITH_VDB "export vdb (OpenVDB)"
check /usr/include/OpenColorIO/OpenColorIO.h POWDER_WITH_OCIO "previews through OpenColorIO"
rm -rf "$dir" "$dir.log"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ] || exit 1
[ "$passed" -gt 0 ] || exit 77
