#!/usr/bin/env bash
# test/chroot.sh - build, cache and enter Debian chroots that carry PostgreSQL
# majors newer than the host's. Their binaries need a newer libc than the
# host has, so they can only run inside a debootstrap'd Debian userland.
#
#   test/chroot.sh prepare MAJOR    build or reuse the chroot; last stdout line
#                                   is its root path (progress goes to stderr)
#   test/chroot.sh root MAJOR       print the root path without building
#   test/chroot.sh ready-marker MAJOR
#                                   print the file that marks MAJOR's chroot
#                                   as prepared (exists once it is)
#   test/chroot.sh run MAJOR [--bind HOSTDIR:/INSIDE]... -- CMD [ARG]...
#                                   run CMD as root inside the chroot with a
#                                   clean environment; exits with CMD's status
#
# MAJOR is 17 (trixie) or 18/19 (one shared sid chroot; 19 comes from
# experimental). Sourcing the file defines the chroot_* functions (and sets
# -euo pipefail) instead of running a command.
# Chroots live in ${WALSIZER_CHROOT_CACHE:-/var/cache/pg_walsizer/chroots};
# debootstrap/apt output goes to RELEASE.log there. Needs root.
#
# Every mount is made inside a private mount and PID namespace (unshare), so
# it vanishes with the command even if this script is killed, concurrent runs
# never see each other's mounts, and no server started inside can outlive it.
set -euo pipefail

CHROOT_SH=$(readlink -f "${BASH_SOURCE[0]}")
CHROOT_CACHE=${WALSIZER_CHROOT_CACHE:-/var/cache/pg_walsizer/chroots}
CHROOT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
# Installed by debootstrap: what building the extension and its TAP tests needs.
CHROOT_BASE_PKGS=build-essential,perl,libipc-run-perl,procps
# Part of the ready marker's name: bumped whenever chroot_build installs more
# than before, so that chroots prepared by an older version get the extra
# packages (one apt-get run in the existing chroot) instead of a rebuild.
# 2: the Debian packaging tools for test/package.sh.
# 3: prometheus-postgres-exporter for test/t/240_prometheus_exporter.pl.
# 4: Patroni and etcd for test/t/290_patroni.pl in sid.
CHROOT_READY_VERSION=4
# In every chroot: the real exporter that test 240 scrapes (its queries run
# against each major's walsizer.status).
CHROOT_TEST_PKGS=(prometheus-postgres-exporter)
# In sid, whose newest major runs every TAP file: Patroni and etcd for test
# 290 (python3-etcd, which Patroni's etcd3 module imports, is not among
# sid's patroni dependencies). The majors between run only the
# version-dependent files, which 290 is not.
CHROOT_HA_PKGS=(patroni etcd-server etcd-client python3-etcd)

chroot_say() { printf 'chroot.sh: %s\n' "$*" >&2; }
chroot_die() { chroot_say "error: $*"; exit 1; }

# The single place that maps a PostgreSQL major to a Debian release.
chroot_release() {
    case ${1:-} in
        17) echo trixie ;;
        18 | 19) echo sid ;;
        *) chroot_die "unsupported major '${1:-}' (want 17, 18 or 19)" ;;
    esac
}

# Majors that Debian ships only as pre-releases come from experimental.
chroot_needs_experimental() { [[ $1 == 19 ]]; }

chroot_root() {
    local release
    release=$(chroot_release "$1")
    echo "$CHROOT_CACHE/$release"
}

# The file whose existence says MAJOR's chroot is complete (touched last).
chroot_ready_marker() {
    echo "$(chroot_root "$1")/.walsizer-ready-$1-v$CHROOT_READY_VERSION"
}

# What test/package.sh needs to build and check the Debian package. Only
# for 17: postgresql-all and postgresql-server-dev-all bring the release's
# default major, which on trixie is 17; on sid it is 18, so 19 (from
# experimental) would get 18's packages and no build for itself.
chroot_packaging_pkgs() {
    [[ $1 == 17 ]] || return 0
    echo debhelper dpkg-dev fakeroot lintian libpq-dev postgresql-server-dev-all postgresql-all
}

# The archive mirror the host's apt already uses (apt reads its own sources,
# in either format), so the chroots come from the same place as host packages.
chroot_mirror() {
    local codename uri
    # shellcheck source=/dev/null
    codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
    # shellcheck disable=SC2016 # apt expands $(SITE)
    uri=$(apt-get indextargets --no-release-info --format '$(SITE)' "Release: $codename" | sed -n 1p)
    [[ -n $uri ]] || chroot_die "no Debian mirror for '$codename' in the host's apt sources"
    echo "$uri"
}

# Mount points at or below $1 in this mount namespace, deepest first.
chroot_mounts_under() {
    awk -v r="$1" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r
}

# Run a command inside the chroot with a clean, predictable environment.
chroot_exec() {
    local root=$1; shift
    chroot "$root" /usr/bin/env -i PATH="$CHROOT_PATH" HOME=/root LANG=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive "$@"
}

# What postgresql-common's maintainer scripts and the servers need: /proc,
# device nodes, ptys and a POSIX shared memory directory. Only inside
# chroot_unshare's namespaces: their end unmounts all and kills what is left.
chroot_mount() {
    local root=$1
    mount -t proc proc "$root/proc"
    mount --bind /dev "$root/dev"
    mount --bind /dev/pts "$root/dev/pts"
    mount -t tmpfs -o mode=1777,size=1g shm "$root/dev/shm"
}

# Run an internal subcommand in a fresh private mount and PID namespace,
# holding the release's lock: exclusive (-x) to build, shared (-s) to run,
# so nothing installs into a chroot while a command runs in it (18 and 19
# share sid).
chroot_unshare() {
    local mode=$1 major=$2 release
    release=$(chroot_release "$major")
    shift 2
    WALSIZER_CHROOT_NS=1 flock "$mode" "$CHROOT_CACHE/.$release.lock" \
        unshare --mount --propagation private --pid --fork --kill-child \
        bash "$CHROOT_SH" "$@"
}

# Make or reuse the chroot for MAJOR; print its root path last on stdout.
chroot_prepare() {
    local major=$1 root release
    release=$(chroot_release "$major") root=$(chroot_root "$major")
    if [[ ! -e $(chroot_ready_marker "$major") ]]; then
        mkdir -p "$CHROOT_CACHE"
        local log=$CHROOT_CACHE/$release.log m
        if [[ ! -e $root/.walsizer-base ]]; then
            # A half-built chroot is removed before rebuilding; mounts left in
            # it by other tools must go first or rm would wipe host files.
            for m in $(chroot_mounts_under "$root"); do
                umount "$m" 2>/dev/null || umount -l "$m"
            done
        fi
        chroot_say "preparing PostgreSQL $major in $root (log: $log)"
        if ! chroot_unshare -x "$major" _build "$major" "$log"; then
            chroot_say "build failed; end of $log:"
            tail -n 40 "$log" >&2 || true
            return 1
        fi
    fi
    echo "$root"
}

# Inside the namespace, holding the release lock: do the actual work.
chroot_build() {
    local major=$1 log=$2 root release uri
    release=$(chroot_release "$major") root=$(chroot_root "$major") uri=$(chroot_mirror)
    [[ -e $(chroot_ready_marker "$major") ]] && return 0 # built while we waited
    exec >>"$log" 2>&1
    echo "=== $(date -u +%FT%TZ) PostgreSQL $major ($release, $uri)"
    if [[ ! -e $root/.walsizer-base ]]; then
        [[ -z $(chroot_mounts_under "$root") ]] || chroot_die "refusing to delete $root: mounts inside it"
        rm -rf --one-file-system "$root"
        mkdir -p "$root"
        debootstrap --variant=minbase --include="$CHROOT_BASE_PKGS" "$release" "$root" "$uri"
        # The mirror's sid/experimental Release files can be past Valid-Until.
        printf '%s\n' 'Acquire::Check-Valid-Until "false";' \
            'APT::Install-Recommends "false";' >"$root/etc/apt/apt.conf.d/90walsizer"
        # No daemon may start while packages install inside the chroot.
        printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
        chmod 755 "$root/usr/sbin/policy-rc.d"
        touch "$root/.walsizer-base"
    fi
    cp -L /etc/resolv.conf "$root/etc/resolv.conf"
    local target=()
    if chroot_needs_experimental "$major"; then
        echo "deb $uri experimental main" >"$root/etc/apt/sources.list.d/experimental.list"
        target=(-t experimental)
    fi
    chroot_mount "$root"
    local apt=(apt-get -y -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
    chroot_exec "$root" dpkg --configure -a # finish an install that was cut short
    chroot_exec "$root" apt-get update
    # postgresql-common first, so that installing postgresql-NN does not
    # create (and try to start) a default "main" cluster.
    chroot_exec "$root" "${apt[@]}" install postgresql-common
    chroot_exec "$root" pg_conftool /etc/postgresql-common/createcluster.conf \
        set create_main_cluster false
    local packaging ha=()
    read -r -a packaging < <(chroot_packaging_pkgs "$major"; echo)
    [[ $release != sid ]] || ha=("${CHROOT_HA_PKGS[@]}")
    chroot_exec "$root" "${apt[@]}" "${target[@]}" install \
        "postgresql-$major" "postgresql-server-dev-$major" "${CHROOT_TEST_PKGS[@]}" "${packaging[@]}" "${ha[@]}"
    chroot_exec "$root" apt-get clean
    local bin=/usr/lib/postgresql/$major/bin f
    for f in "$bin/postgres" "$bin/pg_config" "$bin/pgbench" "$bin/initdb" /usr/bin/prove /usr/sbin/runuser; do
        [[ -x $root$f ]] || chroot_die "$f is missing from the chroot"
    done
    local pgxs
    pgxs=$(dirname "$(chroot_exec "$root" "$bin/pg_config" --pgxs)")/../..
    [[ -e $root$pgxs/src/test/perl/PostgreSQL/Test/Cluster.pm ]] ||
        chroot_die "PostgreSQL::Test modules missing below $pgxs"
    echo "=== done: $(chroot_exec "$root" "$bin/pg_config" --version)"
    touch "$(chroot_ready_marker "$major")" # last: marks the chroot complete
}

# Prepare the chroot, then run CMD in it (see the header for the syntax).
chroot_run() {
    local major=${1:?usage: chroot_run MAJOR [--bind HOST:/INSIDE]... -- CMD...}
    chroot_prepare "$major" >/dev/null
    chroot_unshare -s "$major" _enter "$@"
}

# Inside the namespace: mount, bind, run CMD, unmount.
chroot_enter() {
    local major=$1 root binds=() b host inside
    root=$(chroot_root "$major"); shift
    while (($#)) && [[ $1 != -- ]]; do
        [[ $1 == --bind && $# -ge 2 ]] || chroot_die "bad argument '$1' (want --bind HOST:/INSIDE or --)"
        binds+=("$2"); shift 2
    done
    (($# >= 2)) || chroot_die "no command given after --"
    shift
    chroot_mount "$root"
    for b in "${binds[@]}"; do
        host=${b%%:*} inside=${b#*:}
        [[ -d $host ]] || chroot_die "bind source '$host' is not a directory"
        [[ $inside == /?* && $inside != *..* ]] || chroot_die "bind target '$inside' must be an absolute path"
        mkdir -p "$root$inside"
        mount --bind "$host" "$root$inside"
    done
    # The major's own bin first: in the shared sid chroot the pg_config
    # wrapper in /usr/bin would otherwise pick the newest major.
    local bin=/usr/lib/postgresql/$major/bin
    CHROOT_PATH=$bin:$CHROOT_PATH
    chroot_exec "$root" PG_CONFIG="$bin/pg_config" "$@"
}

chroot_main() {
    local cmd=${1:-} major=${2:-}
    [[ $cmd != _* || ${WALSIZER_CHROOT_NS:-} == 1 ]] || chroot_die "$cmd is internal"
    (($# >= 2)) || cmd=help
    case $cmd in
        prepare) chroot_prepare "$major" ;;
        root) chroot_root "$major" ;;
        ready-marker) chroot_ready_marker "$major" ;;
        run) shift; chroot_run "$@" ;;
        _build) chroot_build "$major" "$3" ;;
        _enter) shift; chroot_enter "$@" ;;
        *) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$CHROOT_SH" >&2; return 2 ;;
    esac
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    chroot_main "$@"
fi
