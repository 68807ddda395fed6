# tools/deps.sh — sourced by tools/check and tools/demo: make sure the Debian 12
# packages Powder builds against (and, for tools/check, those its tests use) are
# installed. As root it runs apt-get; otherwise it prints the exact command and fails.
POWDER_PACKAGES="build-essential cmake pkg-config libomp-dev clang libclang-rt-14-dev
libopenexr-dev libembree-dev libzstd-dev libjansson-dev zlib1g-dev
libfreetype-dev fonts-dejavu-core
libopenvdb-dev libopenvdb-tools libboost-dev
libopencolorio-dev opencolorio-tools"

# What only the tests use: a real Slurm cluster for the farm test, whose daemons the test
# starts itself in a scratch folder (never as services: see powder_install_deps); the
# DejaVu faces beyond the core ones (text_mesh_closed meshes Sans Mono Oblique); Blender
# and Python for the tests of tools/blender_*.py; binutils' nm for the symbols the
# libraries ask for (build_core_without_freetype; the compiler brings it too). Every file
# outside the repository that a test opens comes from one of these (test
# deps_install_what_tests_open).
POWDER_TEST_PACKAGES="slurmctld slurmd slurm-client munge fonts-dejavu-extra blender python3
binutils"

powder_missing_packages() { # [tests]
    local missing="" p list=$POWDER_PACKAGES
    [ "${1:-}" = tests ] && list="$list $POWDER_TEST_PACKAGES"
    for p in $list; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
            || missing="$missing $p"
    done
    echo "$missing"
}

powder_install_deps() { # [tests]
    local missing rc policy=/usr/sbin/policy-rc.d made_policy=0
    missing=$(powder_missing_packages "${1:-}")
    [ -z "$missing" ] && return 0
    if [ "$(id -u)" = 0 ]; then
        echo "powder: installing:$missing"
        export DEBIAN_FRONTEND=noninteractive
        # packages' services (Slurm's, munge's) must not start: the tests run their own
        if [ ! -e $policy ]; then
            printf '#!/bin/sh\nexit 101\n' >$policy && chmod 755 $policy && made_policy=1
        fi
        # shellcheck disable=SC2086
        apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing
        rc=$?
        [ $made_policy = 1 ] && rm -f $policy
        [ $rc = 0 ] || return 1
    else
        echo "powder: missing Debian packages. Run:" >&2
        echo "  sudo apt-get install -y$missing" >&2
        return 1
    fi
}
