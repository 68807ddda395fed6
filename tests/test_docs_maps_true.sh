#!/usr/bin/env bash
# Property: the documentation's maps stay true to the tree.
#   A. Every page under a docs folder (any directory named docs/) is linked from an
#      index: a README.md other than itself (the top README, a docs folder's README).
#   B. The maps name only what exists: in the README's "Layout" section,
#      sim/docs/design.md, render/docs/README.md and pipeline/docs/README.md, a
#      backticked path (`sim/rest.c`, `render/`) exists in the tree, a backticked file
#      name (`mpm.c`) exists under sim/, render/, pipeline/, tools/ or tests/, and a
#      backticked function or identifier (`pw_rest_decide`, `pw_sim_create()`,
#      `p2g_home`) occurs as a word in the sources.
#   C. Every relative link of every Markdown file ([text](path), ![alt](path), outside
#      code blocks and code spans) leads to a file or folder that exists.
#   D. No Markdown heading and no comment in the sources carries an issue number, and
#      no page reports a run as still going ("so far, resumable", "will be restarted").
# The real tree must show none of these. Then each of the three faults of A-C is planted
# in a scratch copy of the Markdown files (the other files are looked up in the source
# tree) and must be caught, naming the page and the entry, with nothing else reported.
#
# usage: bash test_docs_maps_true.sh <powder binary> <source dir> <scratch dir>
set -u
src=$(readlink -f "$2")
dir=$3/docs_maps_true
fails=0
rm -rf "$dir" && mkdir -p "$dir" || exit 1

# the Markdown files of a tree, relative to it (build output and generated assets left out)
md_files() { # md_files ROOT
    (cd "$1" && find . \( -name '.git' -o -name 'build*' -o -name 'out' -o -name assets \
        -o -name 'test-tmp' \) -prune -o -name '*.md' -print | sed 's|^\./||' | sort)
}

# the relative links of Markdown files, "page<TAB>target<TAB>path from the root": outside
# ``` blocks, code spans removed, anchors and titles dropped
md_links() { # md_links ROOT (pages on stdin)
    local root=$1
    (cd "$root" && xargs -d '\n' awk '
         FNR == 1 {fence = 0}
         /^[ \t]*```/ {fence = !fence; next}
         !fence {
             line = $0
             gsub(/`[^`]*`/, "", line)
             while (match(line, /\]\([^)]*\)/)) {
                 t = substr(line, RSTART + 2, RLENGTH - 3)
                 line = substr(line, RSTART + RLENGTH)
                 sub(/^</, "", t); sub(/>$/, "", t); sub(/[ \t].*$/, "", t)
                 if (t ~ /^[a-zA-Z][a-zA-Z0-9+.-]*:/ || t ~ /^#/ || t == "") continue
                 sub(/#.*$/, "", t)
                 print FILENAME "\t" t
             }
         }') >"$dir/links.tmp"
    cut -f1 "$dir/links.tmp" | sed 's|[^/]*$||' >"$dir/bases.tmp"
    # the path from the root: "sim/docs/../../README.md" -> "README.md"
    paste -d/ "$dir/bases.tmp" <(cut -f2 "$dir/links.tmp") | sed 's|^|/r/|' |
        xargs -d '\n' -r realpath -m --relative-to=/r >"$dir/paths.tmp"
    paste "$dir/links.tmp" "$dir/paths.tmp"
}

# exists in the Markdown tree (planted pages) or in the source tree (everything else)
exists() { [ -e "$1/$3" ] || [ -e "$2/$3" ]; } # exists DOCROOT SRCROOT PATH

# the backticked tokens of the maps, "page<TAB>token"
map_tokens() { # map_tokens DOCROOT
    local m
    for m in sim/docs/design.md render/docs/README.md pipeline/docs/README.md; do
        [ -f "$1/$m" ] && grep -o '`[^`]*`' "$1/$m" | tr -d '`' | sed "s|^|$m	|"
    done
    awk '/^## Layout/ {on = 1; next} on && /^## / {exit} on' "$1/README.md" |
        grep -o '`[^`]*`' | tr -d '`' | sed "s|^|README.md (Layout)	|"
}

# prints one line per problem of the tree; the caller counts them
check_tree() { # check_tree DOCROOT SRCROOT
    local doc=$1 srcroot=$2 page t p found words
    local -A linked=()
    # C. relative links; A. collect what the indexes link to
    while IFS='	' read -r page t p; do
        exists "$doc" "$srcroot" "$p" || echo "broken link: $page: ($t) -> $p does not exist"
        case $page in
        README.md | */README.md) [ "$p" != "$page" ] && linked[$p]=1 ;;
        esac
    done < <(md_files "$doc" | md_links "$doc")
    # A. docs pages linked from no index
    while read -r page; do
        case "/$page" in
        */docs/*) [ -n "${linked[$page]:-}" ] || echo "orphan page: $page is linked from no index (README.md)" ;;
        esac
    done < <(md_files "$doc")
    # B. the maps' entries
    # (this script left out: it names the planted entries)
    words=$(ls "$srcroot"/{sim,sim/core,render,pipeline,tests,tools,tools/bench,tools/character}/*.{c,h,cpp,sh,py} \
        "$srcroot"/tools/{demo,check,fuzz,deps.sh} "$srcroot"/CMakeLists.txt 2>/dev/null |
        grep -v '/test_docs_maps_true\.sh$' | xargs -d '\n' cat | grep -o '[A-Za-z_][A-Za-z0-9_]*' | sort -u)
    while IFS='	' read -r page t; do
        case $t in
        *'*'* | *'<'* | *' '*) continue ;;
        esac
        if [[ $t =~ ^(sim|render|pipeline|scenes|tests|tools|docs)/[A-Za-z0-9_./-]*$ ]]; then
            exists "$doc" "$srcroot" "$t" || echo "stale map: $page names $t, which does not exist"
        elif [[ $t =~ ^[A-Za-z0-9_-]+\.(c|h|cpp)$ ]]; then
            found=$(find "$srcroot"/{sim,render,pipeline,tools,tests} -name "$t" -print -quit 2>/dev/null)
            [ -n "$found" ] || echo "stale map: $page names $t, which no source folder holds"
        elif [[ $t =~ ^([a-z][a-z0-9]*_[a-z0-9_]*)(\(\))?$ ]]; then
            grep -qx "${BASH_REMATCH[1]}" <<<"$words" ||
                echo "stale map: $page names ${BASH_REMATCH[1]}, which the sources never mention"
        fi
    done < <(map_tokens "$doc")
}

# D. over the real tree only (not a property of the maps)
check_words() { # check_words SRCROOT
    local page
    while read -r page; do
        awk '/^[ \t]*```/ {fence = !fence; next}
             !fence && /^#/ && /[Ii]ssues? #?[0-9]/ {print FILENAME ": heading with an issue number: " $0}' \
            "$1/$page"
        grep -HnE 'so far, resumable|will be restarted|is under way here|of [0-9]+ so far' "$1/$page" |
            sed 's/^/live progress: /'
    done < <(md_files "$1")
    (cd "$1" && grep -HnE '(/[*]|//|#|^ *[*]).*[Ii]ssues? #?[0-9]' \
        sim/*.[ch] sim/core/*.[ch] render/*.[ch] render/*.cpp pipeline/*.[ch] pipeline/*.cpp \
        tests/*.[ch] tests/*.sh tests/fuzz/*.c tools/bench/*.c tools/character/*.[ch] tools/*.py \
        tools/demo tools/check tools/fuzz tools/deps.sh CMakeLists.txt 2>/dev/null) |
        sed 's/^/comment with an issue number: /'
}

# ---- 1. the real tree -----------------------------------------------------------------
check_tree "$src" "$src" >"$dir/real.txt"
check_words "$src" >>"$dir/real.txt"
if [ -s "$dir/real.txt" ]; then
    echo "FAIL 1 the tree has $(wc -l <"$dir/real.txt") problems:"
    cat "$dir/real.txt"
    fails=$((fails + 1))
else
    echo "ok   1 the tree: every docs page indexed, every map entry exists, every link leads somewhere"
fi

# ---- 2. planted faults, each in a fresh copy of the Markdown files ---------------------
copy() { # copy DEST: the source tree's Markdown files
    rm -rf "$1" && mkdir -p "$1"
    (cd "$src" && md_files . | while read -r f; do mkdir -p "$1/$(dirname "$f")" && cp "$f" "$1/$f"; done)
}
planted() { # planted NAME EXPECTED-REGEX: the copy in $dir/$NAME must report that, alone
    local name=$1 want=$2
    check_tree "$dir/$name" "$src" >"$dir/$name.txt"
    if [ "$(grep -cE -- "$want" "$dir/$name.txt")" -ge 1 ] && ! grep -qvE -- "$want" "$dir/$name.txt"; then
        echo "ok   $name caught: $(head -1 "$dir/$name.txt")"
    else
        echo "FAIL $name: expected /$want/ alone, got:"
        cat "$dir/$name.txt"
        fails=$((fails + 1))
    fi
}

copy "$dir/2a"
printf '# A page no index links to\n\nText.\n' >"$dir/2a/sim/docs/unlisted-page.md"
planted 2a '^orphan page: sim/docs/unlisted-page\.md'

copy "$dir/2b"
printf '\n| `sim/gone_module.c` | a file that is not there |\n' >>"$dir/2b/sim/docs/design.md"
printf '\n| what | `pw_gone_function()` | `render/gone.c` |\n' >>"$dir/2b/render/docs/README.md"
sed -i '/^## Layout/a | `pipeline/gone/` | a folder that is not there |' "$dir/2b/README.md"
planted 2b '^stale map: (sim/docs/design\.md names sim/gone_module\.c|render/docs/README\.md names (pw_gone_function|render/gone\.c)|README\.md \(Layout\) names pipeline/gone/)'
n=$(grep -c '^stale map' "$dir/2b.txt")
[ "$n" = 4 ] || { echo "FAIL 2b: 4 stale entries planted, $n caught"; fails=$((fails + 1)); }

copy "$dir/2c"
printf '\nSee [the missing page](no-such-page.md) and ![a figure](figures/none.png).\n' \
    >>"$dir/2c/render/docs/noise.md"
planted 2c '^broken link: render/docs/noise\.md: \((no-such-page\.md|figures/none\.png)\)'
n=$(grep -c '^broken link' "$dir/2c.txt")
[ "$n" = 2 ] || { echo "FAIL 2c: 2 broken links planted, $n caught"; fails=$((fails + 1)); }

[ $fails -eq 0 ] && echo "all passed" || echo "$fails failed"
[ $fails -eq 0 ]
