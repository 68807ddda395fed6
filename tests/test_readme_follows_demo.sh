#!/usr/bin/env bash
# Property: a newcomer who has run tools/demo can follow the README from there.
#   1. The README gives the build line and where the program lands (build/powder), and
#      tools/demo builds only the program (--target powder): the tests are built by
#      tools/check alone, which builds everything.
#   2. The folder the README's "Where results land" names for the demo's frames is the
#      one tools/demo writes and prints.
#   3. The README's re-rendering example (the first `powder render ... --look` line)
#      runs right after the demo: the demo's own `powder run` line, taken from
#      tools/demo, is run here at a tiny size (frames 0-1, 16x9, 1 spp) into a scratch
#      copy of the demo's folder, then the README's line as written (plus the same tiny
#      size), from the folder the demo ran in; it must exit 0 and write its frames.
#   4. The README's first shot of your own runs as written: its JSON block is saved under
#      the name its `powder run` line gives, and that line runs (plus the tiny size).
#
# usage: bash test_readme_follows_demo.sh <powder binary> <source dir> <scratch dir>
set -u
powder=$(readlink -f "$1")
src=$(readlink -f "$2")
dir=$3/readme_follows_demo
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }
rm -rf "$dir" && mkdir -p "$dir" || exit 1
readme=$src/README.md demo=$src/tools/demo check=$src/tools/check

# ---- 1. the build line, the binary, what tools/demo builds ---------------------------
if grep -q 'cmake --build build --target powder' "$readme" && grep -q '`build/powder`' "$readme"; then
    ok "1a README gives the build line and build/powder"
else
    bad "1a README lacks 'cmake --build build --target powder' or '\`build/powder\`'"
fi
if grep -E '^[^#]*cmake --build' "$demo" | grep -qv -- '--target powder'; then
    bad "1b tools/demo builds more than the program: $(grep -E '^[^#]*cmake --build' "$demo")"
elif grep -qE '^[^#]*cmake --build.*--target powder' "$demo"; then
    ok "1b tools/demo builds only --target powder"
else
    bad "1b tools/demo has no 'cmake --build ... --target powder'"
fi
if grep -E '^[^#]*cmake --build' "$check" | grep -q -- '--target'; then
    bad "1c tools/check builds only some targets: the tests need them all"
else
    ok "1c tools/check builds every target (the tests)"
fi

# ---- 2. where the demo's results land ------------------------------------------------
demo_out=$(sed -n 's/^out="\$root\/\(.*\)"$/\1/p' "$demo")
[ -n "$demo_out" ] || { echo "FAIL tools/demo: no out=\"\$root/...\" line"; exit 1; }
grep -q 'echo .*\$out' "$demo" || bad "2a tools/demo does not print where its frames are"
where=$(awk '/^#+ Where results land/ {on = 1; next} on && /^#/ {exit} on' "$readme")
if [ -z "$where" ]; then
    bad "2b README has no 'Where results land' section"
elif grep -q "$demo_out/" <<<"$where"; then
    ok "2b 'Where results land' names $demo_out/, where tools/demo writes"
else
    bad "2b 'Where results land' never names $demo_out/ (tools/demo writes there)"
fi

# ---- 3. the re-rendering example after the demo --------------------------------------
run_line=$(grep -E '^"\$root/build/powder" run ' "$demo")
[ -n "$run_line" ] || { echo "FAIL tools/demo: no \"\$root/build/powder\" run line"; exit 1; }
example=$(grep -m1 -E '^powder render [^ ]+\.json --look [^ ]+\.json *$' "$readme")
[ -n "$example" ] || { echo "FAIL README: no 'powder render ... --look' example"; exit 1; }
tiny=(--frames 0-1 --resolution 16x9 --spp 1 --quiet)
ln -s "$src/scenes" "$dir/scenes"
cd "$dir" || exit 1
# the demo's line with root = the scratch folder, the program = this build, no extra args
root=$dir
out=$root/$demo_out
set --
eval "set -- ${run_line#\"\$root/build/powder\" }" # run --png --output "$out" "$@"
args=("$@")
[ "${args[0]}" = run ] || { echo "FAIL cannot read tools/demo's run line: $run_line"; exit 1; }
if "$powder" "${args[@]}" "${tiny[@]}" >demo.log 2>&1; then
    ok "3a the demo's run ($run_line), tiny"
else
    bad "3a the demo's run failed:"
    cat demo.log
fi
read -r -a ex <<<"${example#powder }"
sleep 1 && touch marker
if "$powder" "${ex[@]}" "${tiny[@]}" >example.log 2>&1; then
    n=$(find "$dir" -path "$dir/scenes" -prune -o -name '*.exr' -newer marker -print | wc -l)
    if [ "$n" -ge 2 ]; then
        ok "3b README's '$example' runs after the demo ($n frames)"
    else
        bad "3b README's '$example' wrote $n frames"
    fi
else
    bad "3b README's '$example' fails right after the demo:"
    cat example.log
fi

# ---- 4. the first shot of your own ---------------------------------------------------
first=$(awk '/^## A first shot of your own/ {on = 1; next} on && /^## / {exit} on' "$readme")
scene=$(awk '/^```json/ {on = 1; next} on && /^```/ {exit} on' <<<"$first")
run=$(grep -m1 -E '^powder run [^ ]+\.json' <<<"$first" | sed 's/ *#.*//')
if [ -z "$scene" ] || [ -z "$run" ]; then
    bad "4 README's first shot: no json block or no 'powder run NAME.json' line"
else
    read -r -a fx <<<"${run#powder }"
    printf '%s\n' "$scene" >"${fx[1]}"
    if "$powder" "${fx[@]}" "${tiny[@]}" >first.log 2>&1; then
        ok "4 README's first shot runs: $run"
    else
        bad "4 README's first shot fails: $run"
        cat first.log
    fi
fi

[ $fails -eq 0 ] && echo "all passed" || echo "$fails failed"
[ $fails -eq 0 ]
