#!/usr/bin/env bash
# Property: the build that tools/demo configures has `powder export vdb` whenever the
# machine has OpenVDB (the demo installs it): configuring with exactly the demo's cmake
# options finds it. Skipped (77) on a machine without the OpenVDB headers.
set -euo pipefail
src=$2 tmp=$3
[ -f /usr/include/openvdb/openvdb.h ] || { echo "no OpenVDB on this machine"; exit 77; }
# the demo's own configure options, read from tools/demo so the two cannot drift
opts=$(grep -E '^[[:space:]]*cmake -S' "$src/tools/demo" | grep -oE -- '-D[A-Za-z_]+=[^ ]+' || true)
[ -n "$opts" ] || { echo "FAIL: no cmake configure line in tools/demo"; exit 1; }
dir="$tmp/build_finds_vdb.$$"
rm -rf "$dir"
# shellcheck disable=SC2086
cmake -S "$src" -B "$dir" $opts >"$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
if grep -q '^POWDER_WITH_VDB:INTERNAL=ON$' "$dir/CMakeCache.txt"; then
    echo "tools/demo's build ($opts) has export vdb"
    rm -rf "$dir" "$dir.log"
    echo "1 passed, 0 failed"
else
    echo "FAIL: tools/demo's build ($opts) leaves export vdb out although OpenVDB is installed"
    exit 1
fi
