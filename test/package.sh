#!/usr/bin/env bash
# test/package.sh - build pg_walsizer's Debian package for one PostgreSQL
# major, lint it, install it, test it from the installed files, then purge it.
#
#   test/package.sh [--pg-config PATH] [--user USER]
#
# Run as root where that major's server, postgresql-server-dev-all,
# postgresql-all, debhelper, lintian and fakeroot are installed: on the host
# for 15, or inside a chroot from test/chroot.sh for 17. Root is needed to
# install and purge the package; everything else runs as USER (default
# postgres): dpkg-buildpackage's build-time test and the servers refuse root.
#
# Why: debian/ is built the way Debian's PostgreSQL team builds extensions
# (pg_buildext, one postgresql-NN-walsizer per major, out-of-tree builds in
# build-NN/). This proves, on a real build and a real server, that the
# packaging builds cleanly, passes lintian, and that what it installs is a
# working extension - not the files a "make install" left behind.
#
# Steps, one TAP-ish line each ("ok - ..." or "not ok - ..."):
#   1. debian/changelog's version matches pg_walsizer.control's default_version
#   2. copy the tree (without build outputs) to a scratch directory;
#      pg_buildext updatecontrol for this major only (PG_SUPPORTED_VERSIONS)
#   3. dpkg-buildpackage -us -uc (source and binary; its build-time test runs
#      the pg_regress suite against debian/postgresql-NN-walsizer/)
#   4. lintian on the .changes: fails on any E: tag; prints every tag
#   5. apt-get install ./postgresql-NN-walsizer_*.deb
#   6. debian/tests/installcheck from the installed files, as autopkgtest
#      runs it (from the source tree, as root: it drops to postgres itself)
#   7. a new cluster with shared_preload_libraries = 'pg_walsizer': the
#      worker runs, and the library it mapped is the package's file
#   8. the package's pg_walsizer_advisor: --help, and a short measurement
#      of that cluster
#   9. purge the package; its files are gone; files an earlier make
#      install had at its paths (owned by no package) are put back
# Ends with "N passed, N failed"; exits 1 if anything failed. A step that
# cannot run because an earlier one failed counts as failed, never skipped.
#
# On the host the package replaces the files a "make install" put in the
# major's directories; they are saved and put back after the purge (and
# test/run-suites.sh runs make install again anyway). Whoever shares those
# directories should hold their lock around this script.
# WALSIZER_KEEP_SCRATCH=1 keeps the scratch directory (and the .debs).
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2; exit 2; }
say() { printf 'package: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

pg_config=${PG_CONFIG:-pg_config} user=postgres
while (($#)); do
    case $1 in
        --pg-config) (($# >= 2)) || usage; pg_config=$2; shift 2 ;;
        --user) (($# >= 2)) || usage; user=$2; shift 2 ;;
        -h | --help) usage ;;
        *) say "unknown argument '$1'"; usage ;;
    esac
done

((EUID == 0)) || die "must run as root (apt-get install and purge)"
id "$user" >/dev/null 2>&1 || die "no such user '$user'"
pg_config=$(command -v "$pg_config") || die "pg_config not found"
major=$("$pg_config" --version | sed -n 's/^PostgreSQL \([0-9][0-9]*\).*/\1/p')
[[ -n $major ]] || die "cannot read a major from '$("$pg_config" --version)'"
bindir=$("$pg_config" --bindir) pkglibdir=$("$pg_config" --pkglibdir)
srcdir=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
pkg=postgresql-$major-walsizer
for tool in pg_buildext dpkg-buildpackage lintian fakeroot apt-get; do
    command -v "$tool" >/dev/null ||
        die "$tool is missing (needs postgresql-server-dev-all, dpkg-dev, debhelper, lintian, fakeroot)"
done

echo "# package: build, lint, install, test and purge $pkg from $srcdir"
echo "# (dpkg-buildpackage with its build-time pg_regress run, lintian, apt-get install,"
echo "#  the autopkgtest, a preloaded cluster, the advisor, apt-get purge;"
echo "#  about 1 to 1.5 minutes on 2 cores)"

# Each line ends with the seconds since the previous one: the suite must
# stay within the CI matrix's time budget.
passed=0 failed=0 last=$SECONDS
ok() { echo "ok - $* [$((SECONDS - last))s]"; last=$SECONDS passed=$((passed + 1)); }
not_ok() { echo "not ok - $* [$((SECONDS - last))s]"; last=$SECONDS failed=$((failed + 1)); }
# A step that cannot run because an earlier one failed: a failure too.
not_run() { not_ok "$1 (not run: $2)"; }

scratch=$(mktemp -d /tmp/walsizer-package.XXXXXX)
work=$scratch/src cluster=$scratch/cluster logs=$scratch/logs
installed_by_us=0

cleanup() {
    if [[ -e $cluster/postmaster.pid ]]; then
        runuser -u "$user" -- "$bindir/pg_ctl" -D "$cluster" stop -m immediate >/dev/null 2>&1 || true
    fi
    # never leave the package behind: the next make install or test would
    # otherwise share the major's directories with it
    if ((installed_by_us)); then
        say "purging $pkg after a failure"
        DEBIAN_FRONTEND=noninteractive apt-get purge -y "$pkg" >/dev/null 2>&1 || true
        restore_saved || true
    fi
    if [[ ${WALSIZER_KEEP_SCRATCH:-0} == 1 ]]; then
        say "scratch kept in $scratch"
    else
        rm -rf "$scratch"
    fi
}
trap cleanup EXIT

# run_as LOG CMD...: CMD as USER in the source copy, output to LOG; status of CMD.
run_as() {
    local log=$1
    shift
    (cd "$work" && runuser -u "$user" -- env HOME="$scratch" PATH="$bindir:$PATH" \
        PG_SUPPORTED_VERSIONS="$major" "$@") >"$log" 2>&1
}
# show LOG: its end, indented, after a failure.
# (A missing log is no reason to stop: the step is already counted.)
show() { tail -n "${2:-40}" "$1" 2>/dev/null | sed 's/^/#   /' || true; }

mkdir -p "$work" "$logs"
# Build outputs of an earlier build (in-tree or pg_buildext's build-NN/)
# would end up in the native source package, or be stale.
tar -C "$srcdir" --anchored --exclude=./.git --exclude='*.o' --exclude='*.so' \
    --exclude='*.bc' --exclude=./results --exclude=./regression.diffs \
    --exclude=./regression.out --exclude=./tmp_check --exclude=./tmp_check_regress \
    --exclude=./log --exclude=./test/build --exclude=./bench/out \
    --exclude=./pg_walsizer_advisor --exclude='./build-*' --exclude=./debian/.debhelper \
    --exclude='./debian/postgresql-*-walsizer' --exclude=./debian/files \
    --exclude='./debian/*.substvars' --exclude=./debian/debhelper-build-stamp \
    --exclude='./debian/*.log' -cf - . | tar -C "$work" -xf -
chown -R "$user:" "$scratch"

# 1. The package's version follows the extension's: 1.5.0 for default_version 1.5.
deb_version=$(dpkg-parsechangelog -l "$work/debian/changelog" -S Version)
ext_version=$(sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" "$work/pg_walsizer.control")
if [[ -n $ext_version && ($deb_version == "$ext_version" || $deb_version == "$ext_version".*) ]]; then
    ok "debian/changelog version $deb_version matches default_version $ext_version"
else
    not_ok "debian/changelog version $deb_version does not match default_version '$ext_version' (add a changelog entry)"
fi

# 2. debian/control from control.in, for this major only: a machine with
# several majors installed must not build (and need servers for) the others.
if run_as "$logs/updatecontrol" pg_buildext updatecontrol &&
    [[ $(sed -n 's/^Package: //p' "$work/debian/control") == "$pkg" ]]; then
    ok "pg_buildext updatecontrol: debian/control lists $pkg only"
    control_ok=1
else
    not_ok "pg_buildext updatecontrol: debian/control should list $pkg only"
    show "$logs/updatecontrol"
    sed -n 's/^Package: /#   Package: /p' "$work/debian/control" || true
    control_ok=0
fi

# 3. The build, as a buildd would run it: unprivileged, source and binary.
debs=()
if ((control_ok)); then
    if run_as "$logs/build" dpkg-buildpackage -us -uc; then
        debs=("$scratch"/"${pkg}"_*.deb)
        if [[ -f ${debs[0]} ]] && grep -Eq '^#? *All [0-9]+ tests passed\.' "$logs/build"; then
            ok "built ${debs[0]##*/} (build-time pg_regress: $(grep -o 'All [0-9]* tests passed' "$logs/build" | tail -n 1))"
        else
            not_ok "dpkg-buildpackage succeeded but left no ${pkg}_*.deb or ran no pg_regress tests"
            show "$logs/build"
            debs=()
        fi
    else
        not_ok "dpkg-buildpackage failed"
        show "$logs/build" 80
    fi
else
    not_run "dpkg-buildpackage" "no debian/control"
fi

# 4. lintian on everything the build made (source, .deb, .changes): every
# tag is printed; an error fails the step, warnings and the rest are shown.
if ((${#debs[@]})); then
    lintian_rc=0
    run_as "$logs/lintian" lintian --display-info --pedantic "$scratch"/pg-walsizer_*.changes ||
        lintian_rc=$?
    sed 's/^/#   /' "$logs/lintian"
    errors=$(grep -c '^E: ' "$logs/lintian" || true)
    warnings=$(grep -c '^W: ' "$logs/lintian" || true)
    others=$(grep -c '^[IPX]: ' "$logs/lintian" || true)
    # lintian exits 1 on an error tag, 2 when it could not run at all
    if ((errors == 0 && lintian_rc == 0)); then
        ok "lintian: 0 errors ($warnings warnings, $others info/pedantic)"
    else
        not_ok "lintian: $errors errors ($warnings warnings), exit status $lintian_rc"
    fi
else
    not_run "lintian" "nothing built"
fi

# Files at the package's paths that no package owns (those of a make
# install, e.g. another engineer's on a shared host) are saved before the
# install overwrites them and put back after the purge removed them.
saved=$scratch/saved-files.tar
save_unowned() {
    local f files=()
    while IFS= read -r f; do
        [[ -f $f ]] && ! dpkg -S "$f" >/dev/null 2>&1 && files+=("$f")
    done < <(dpkg-deb -c "$1" | awk '$1 ~ /^-/ { sub(/^\./, "", $6); print $6 }')
    ((${#files[@]})) || return 0
    tar -cpPf "$saved" "${files[@]}"
    say "saved ${#files[@]} files of an earlier make install: ${files[*]}"
}
restore_saved() {
    [[ -f $saved ]] || return 0
    tar -xpPf "$saved" && rm -f "$saved"
}

# 5. Install through apt, which checks the dependencies dpkg-gencontrol wrote.
pkg_status() { dpkg-query -W -f='${db:Status-Abbrev}' "$pkg" 2>/dev/null || true; }
is_installed() { [[ $(pkg_status) == ii* ]]; }
if ((${#debs[@]})); then
    if is_installed; then say "$pkg was already installed: replacing it (purged at the end)"; fi
    save_unowned "${debs[0]}"
    if DEBIAN_FRONTEND=noninteractive apt-get install -y --allow-downgrades "${debs[0]}" \
        >"$logs/install" 2>&1 && is_installed; then
        installed_by_us=1
        ok "installed $pkg $(dpkg-query -W -f='${Version}' "$pkg")"
    else
        installed_by_us=1 # whatever half of it is there goes at the end
        not_ok "apt-get install ${debs[0]##*/} failed"
        show "$logs/install"
    fi
else
    not_run "install $pkg" "nothing built"
fi

# The docs (README.md and docs/*.md) come with the package, where make
# install puts them (dh_compress gzips the larger ones).
pkgdocdir=$("$pg_config" --docdir)/extension/pg_walsizer
if is_installed; then
    # the list first: grep -q leaving a pipe early fails it under pipefail
    shipped=$(dpkg -L "$pkg")
    if grep -Eqx "$pkgdocdir/README\.md(\.gz)?" <<<"$shipped" &&
        grep -Eqx "$pkgdocdir/sizing\.md(\.gz)?" <<<"$shipped" &&
        grep -Eqx "$pkgdocdir/advisor\.md(\.gz)?" <<<"$shipped"; then
        ok "$pkg ships the docs in $pkgdocdir"
    else
        not_ok "$pkg does not ship README.md and docs/*.md in $pkgdocdir"
    fi
fi

# 6. The autopkgtest, from the installed files. Its pg_regress instance
# loads the library from pkglibdir: nothing from the build is used.
if is_installed; then
    # the Makefile's REGRESS: each test must say "ok" ("test NAME ... ok" on
    # 15, "ok N - NAME" on 16 and later)
    # shellcheck disable=SC2016 # make, not the shell, expands $(REGRESS)
    read -r -a regress < <(cd "$work" && runuser -u "$user" -- make -s --no-print-directory \
        PG_CONFIG="$pg_config" --eval='walsizer-print-regress: ; @echo $(REGRESS)' \
        walsizer-print-regress 2>/dev/null) || true # none read: the step fails below
    rc=0
    (cd "$work" && AUTOPKGTEST_TMP=$scratch PATH="$bindir:$PATH" bash debian/tests/installcheck) \
        >"$logs/installcheck" 2>&1 || rc=$?
    passed_tests=0
    for t in "${regress[@]}"; do
        if grep -Eq "^(test )? *$t +\.\.\. ok( |\$)|^ok +[0-9]+ +[-+] +$t( |\$)" "$logs/installcheck"; then
            passed_tests=$((passed_tests + 1))
        fi
    done
    if ((rc == 0 && ${#regress[@]} > 0 && passed_tests == ${#regress[@]})) &&
        ! grep -q 'tap install-check' "$logs/installcheck"; then
        ok "installcheck from the package: $passed_tests/${#regress[@]} pg_regress tests (${regress[*]})"
    else
        not_ok "installcheck from the package: $passed_tests/${#regress[@]} pg_regress tests passed, exit status $rc"
        show "$logs/installcheck" 80
    fi
else
    not_run "installcheck from the package" "not installed"
fi

# psql as USER against the test cluster's socket directory.
q() { runuser -u "$user" -- "$bindir/psql" -X -At -v ON_ERROR_STOP=1 -h "$cluster" -d postgres -c "$1"; }

# 7. A cluster like a user's: preload, start, CREATE EXTENSION; the worker
# must be running and have mapped the package's library.
so=$pkglibdir/pg_walsizer.so
cluster_up=0
if is_installed; then
    mkdir -m 700 "$cluster" && chown "$user:" "$cluster"
    if runuser -u "$user" -- "$bindir/initdb" -D "$cluster" -A trust >"$logs/initdb" 2>&1; then
        # its own socket directory and no TCP: nothing to collide with
        printf '%s\n' "shared_preload_libraries = 'pg_walsizer'" "listen_addresses = ''" \
            "unix_socket_directories = '$cluster'" >>"$cluster/postgresql.conf"
        if runuser -u "$user" -- "$bindir/pg_ctl" -D "$cluster" -l "$cluster/server.log" -w start \
            >"$logs/start" 2>&1; then
            cluster_up=1
        else
            show "$logs/start"; show "$cluster/server.log"
        fi
    else
        show "$logs/initdb"
    fi
fi
if ((cluster_up)); then
    worker_pid='' activity_pid=''
    if q 'CREATE EXTENSION pg_walsizer' >"$logs/create" 2>&1; then
        # the worker starts with the server; give it a few seconds to show up
        for _ in $(seq 1 30); do
            worker_pid=$(q 'SELECT worker_pid FROM walsizer.status' 2>/dev/null || true)
            activity_pid=$(q "SELECT pid FROM pg_stat_activity WHERE backend_type = 'pg_walsizer'" 2>/dev/null || true)
            [[ -n $worker_pid && $worker_pid == "$activity_pid" ]] && break
            sleep 1
        done
    else
        show "$logs/create"
    fi
    owner=$(dpkg -S "$so" 2>/dev/null | sed -n 's/: .*//p' || true)
    if [[ -z $worker_pid || $worker_pid != "$activity_pid" ]]; then
        not_ok "worker not running: walsizer.status.worker_pid '$worker_pid', pg_stat_activity pid '$activity_pid'"
        show "$cluster/server.log"
    elif ! grep -q " $so\$" "/proc/$worker_pid/maps"; then
        not_ok "worker $worker_pid has not mapped $so: $(grep -o '/[^ ]*pg_walsizer[^ ]*' "/proc/$worker_pid/maps" | sort -u | tr '\n' ' ')"
    elif [[ $owner != "$pkg" ]]; then
        not_ok "worker runs $so, but dpkg -S says it belongs to '${owner:-no package}', not $pkg"
    else
        ok "worker started from $so ($owner), pid $worker_pid"
    fi
else
    not_run "worker started from $so" "no cluster with the package's library (not installed, or initdb/start failed)"
fi

# 8. The package's advisor: its own help, then a real (short) measurement.
advisor=$bindir/pg_walsizer_advisor
if is_installed; then
    owner=$(dpkg -S "$advisor" 2>/dev/null | sed -n 's/: .*//p' || true)
    if [[ $owner == "$pkg" ]] && "$advisor" --help >"$logs/advisor-help" 2>&1 &&
        grep -q '^Usage:' "$logs/advisor-help"; then
        ok "pg_walsizer_advisor --help from the package ($advisor)"
    else
        not_ok "pg_walsizer_advisor --help ($advisor, owned by '${owner:-no package}')"
        show "$logs/advisor-help"
    fi
    if ((cluster_up)); then
        if runuser -u "$user" -- "$advisor" -h "$cluster" -d postgres --duration=3s --interval=1s \
            --sample-interval=1s >"$logs/advisor-run" 2>&1; then
            ok "pg_walsizer_advisor measured the cluster for 3 s"
        else
            not_ok "pg_walsizer_advisor against the cluster"
            show "$logs/advisor-run"
        fi
    else
        not_run "pg_walsizer_advisor against the cluster" "no cluster"
    fi
else
    not_run "pg_walsizer_advisor from the package" "not installed"
fi

if ((cluster_up)); then
    runuser -u "$user" -- "$bindir/pg_ctl" -D "$cluster" -w stop >/dev/null 2>&1 || true
fi

# 9. Purge: dpkg must remove every file it installed (a make install's
# own files, such as docs the package ships compressed, may stay).
files_left() {
    local f
    for f in "$@"; do [[ ! -e $f ]] || echo "$f"; done
}
if ((installed_by_us)); then
    mapfile -t shipped < <(dpkg -L "$pkg" | while IFS= read -r f; do [[ ! -f $f ]] || echo "$f"; done)
    if DEBIAN_FRONTEND=noninteractive apt-get purge -y "$pkg" >"$logs/purge" 2>&1 &&
        [[ $(pkg_status) != [ir]* ]] &&
        [[ ! -e $so && ! -e $advisor && ! -e $("$pg_config" --sharedir)/extension/pg_walsizer.control ]] &&
        ((${#shipped[@]} > 0)) && [[ -z $(files_left "${shipped[@]}") ]]; then
        installed_by_us=0
        ok "purged $pkg: its library, advisor, extension and doc files are gone"
        if [[ -f $saved ]]; then
            n=$(tar -tPf "$saved" | wc -l)
            if restore_saved; then
                ok "put back the $n files an earlier make install had there"
            else
                not_ok "could not put back the files of an earlier make install from $saved"
            fi
        fi
    else
        not_ok "purge $pkg"
        show "$logs/purge"
        files_left "${shipped[@]}" | sed 's/^/#   left behind: /'
    fi
else
    not_run "purge $pkg" "not installed"
fi

if [[ ${WALSIZER_KEEP_SCRATCH:-0} == 1 ]]; then say "build logs in $logs"; fi
echo "# $SECONDS s in all"
echo "$passed passed, $failed failed"
((failed == 0))
