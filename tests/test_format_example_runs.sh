#!/usr/bin/env bash
# Property: scenes/FORMAT.md's "A complete example" is a scene that runs, and it uses
# every key the format's tables document but those the paragraph after it names as
# excluded by a key it uses.
#   1. the example's JSON block, saved beside scenes/props and scenes/assets (its paths
#      are relative to the scene file, as for a scene saved in scenes/), simulates
#      frames 0-1 with `powder sim` (exit 0, both caches written);
#   2. `powder render` draws frame 1 at 32x18, 2 spp (exit 0, the EXR written);
#   3. every key in the first column of a table between "## Top level" and "## Caches
#      and re-rendering" (`sun.direction` counts as `direction`, a row listing several
#      keys counts each) appears in the example as "key", or is named in the paragraph
#      after the example; and every key that paragraph names is documented.
# SKIPPED (exit 77) when the walking figure's OBJ sequence (scenes/assets/walker/, made
# by the full build) has not been built.
#
# usage: bash test_format_example_runs.sh <powder binary> <source dir> <scratch dir>
set -u
powder=$(readlink -f "$1")
src=$(readlink -f "$2")
dir=$3/format_example_runs
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
format=$src/scenes/FORMAT.md

section=$(awk '/^## A complete example/ {on = 1; next} on && /^## / {exit} on' "$format")
example=$(awk '/^```json/ {on = 1; next} on && /^```/ {exit} on' <<<"$section")
[ -n "$example" ] || { echo "FAIL scenes/FORMAT.md: no json block under '## A complete example'"; exit 1; }
printf '%s\n' "$example" >example.json
# the paragraph after the example's block
after=$(awk '/^```/ {n++; next} n == 2 && /^$/ && seen {exit} n == 2 && NF {seen = 1; print}' <<<"$section")

# ---- 1, 2. it runs -------------------------------------------------------------------
ln -s "$src/scenes/props" props
ln -s "$src/scenes/assets" assets
if grep -q '"assets/walker/' example.json && [ ! -e "$src/scenes/assets/walker/walker.0001.obj" ]; then
    echo "SKIPPED: scenes/assets/walker/ is not built (cmake --build build --target character-assets-walker)"
    exit 77
fi
name=$(sed -n 's/^ *"name": "\([^"]*\)".*/\1/p' example.json | head -1)
if "$powder" sim example.json --frames 0-1 --quiet >sim.log 2>&1; then
    n=$(find . -path ./assets -prune -o -path ./props -prune -o -name "$name.000[01].pwc" -print | wc -l)
    [ "$n" = 2 ] && ok "1 powder sim example.json --frames 0-1" || bad "1 sim wrote $n of 2 caches"
else
    bad "1 powder sim on the complete example:"
    cat sim.log
fi
if "$powder" render example.json --frames 1 --resolution 32x18 --spp 2 --quiet >render.log 2>&1; then
    n=$(find . -path ./assets -prune -o -path ./props -prune -o -name "$name.0001.exr" -print | wc -l)
    [ "$n" = 1 ] && ok "2 powder render example.json --frames 1, 32x18, 2 spp" || bad "2 render wrote no EXR"
else
    bad "2 powder render on the complete example:"
    cat render.log
fi

# ---- 3. every documented key is in the example, or named as excluded ------------------
# the first column's keys, as written ("sun.direction", "E0")
keys=$(awk '/^## Top level/ {on = 1} /^## Caches and re-rendering/ {on = 0}
            on && /^\| `/ {split($0, cell, "|"); print cell[2]}' "$format" |
    grep -o '`[^`]*`' | tr -d '`' | grep -E '^[A-Za-z_][A-Za-z0-9_.]*$' | sort -u)
[ "$(wc -l <<<"$keys")" -ge 100 ] || bad "3 only $(wc -l <<<"$keys") keys read from FORMAT.md's tables"
# what the paragraph after the example names: a key ("aperture_radius") or a whole
# object of them ("envmap" for envmap.path, envmap.intensity, ...)
own=$(grep -o '`[^`]*`' <<<"$after" | tr -d '`' | sort -u)
names=$( (sed 's/.*\.//' <<<"$keys"; grep '\.' <<<"$keys" | sed 's/\..*//') | sort -u)
missing=""
for k in $keys; do
    last=${k##*.} prefix=${k%%.*}
    grep -q "\"$last\"" example.json || grep -qx -e "$last" -e "$prefix" <<<"$own" || missing="$missing $k"
done
[ -z "$missing" ] && ok "3a every documented key ($(wc -l <<<"$keys")) is in the example or named after it" ||
    bad "3a documented keys neither in the example nor named after it:$missing"
unknown=""
for k in $own; do grep -qx "$k" <<<"$names" || unknown="$unknown $k"; done
[ -z "$unknown" ] && ok "3b every key named after the example is documented" ||
    bad "3b named after the example but in no table:$unknown"

[ $fails -eq 0 ] && echo "all passed" || echo "$fails failed"
[ $fails -eq 0 ]
