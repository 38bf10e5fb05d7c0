#!/usr/bin/env bash
# test/run-suites.sh - build, install and test pg_walsizer against one
# installed PostgreSQL major.
#
#   test/run-suites.sh [--pg-config PATH] [--user USER] [--fuzz] [--mutation] [--bench-smoke]
#                      [--pgxn] [--monitoring] [--package] [--no-slow-tap] [--no-pure]
#                      [--version-tap-only]
#   test/run-suites.sh [--pg-config PATH] [--user USER] --tap-only FILE...
#
# Run as root where that major's server and headers are installed: on the
# host, or inside a chroot made by test/chroot.sh. The source tree (the
# directory above this script) is only read: it is copied, without build
# outputs, to a scratch directory owned by USER (default postgres). A shared
# tree such as a bind-mounted /src must not collect another major's object
# files, and PostgreSQL refuses to run as root.
#
# As USER: build, then (as root) make install, then as USER the suites:
#   makefile test/makefile-check.sh, one result per check: the default
#            build has no -Werror, COPT=-Werror reaches every compile,
#            make without pg_config or server headers names the package,
#            and make layout-check keeps PostgreSQL out of src/common/
#   regress  pg_regress, one result per test (Makefile's REGRESS, plus any
#            sql/*.sql it does not list)
#   tap      prove, one result per test/t/*.pl file; with --no-slow-tap
#            the files marked "# walsizer-test: slow" are not run, and
#            the suite's line names them (not counted as passed); with
#            --version-tap-only only the files marked "# walsizer-test:
#            version-dependent" run (those that exercise code that differs
#            between majors: statistics readers, configuration files,
#            ALTER SYSTEM), and the line says how many others did not
#   unit, sim, and with --fuzz fuzz-smoke: one result per TAP test (unit
#            test, trace, fuzzer), from the summary of prove, which make
#            unit / sim / fuzz-smoke run; --no-pure leaves out unit and sim
#            (they include nothing from PostgreSQL: the same on every major)
#   mutation with --mutation: make mutation (test/mutation.sh); one
#            result: passed when the score reaches MUTATION_MIN_SCORE
#            (90 %) and every mutation of the list applied and built
#   bench-smoke  with --bench-smoke: every benchmark scenario for a few
#            seconds (bench/run-bench.sh, as root, on the library just
#            installed); one result: the scripts ran and left every
#            expected file and column (nothing is timed)
#   pgxn     with --pgxn: test/pgxn-check.sh, one result per check:
#            META.json against the PGXN Meta Spec, and pgxnclient's
#            install, load, unload and uninstall of the tree (then this
#            script installs the tree again)
#   monitoring  with --monitoring: test/monitoring-check.sh (promtool
#            check and test of the alert rules, the exporter's queries
#            file); one result per check. It needs no server: run it on
#            one major only
#   package  with --package, last: the Debian package for this major
#            (test/package.sh: dpkg-buildpackage, lintian, install, the
#            autopkgtest, a preloaded cluster, purge); one result per step.
#            Installing, then purging, the package replaces and removes
#            the files make install put in the major's directories, so
#            make install runs again afterwards for whoever comes next
#            (pg-matrix.sh uses 15's installed advisor for later majors)
#   --tap-only FILE...  build and run just these TAP files (paths relative
#            to the tree, e.g. test/t/090_shrink_after_load.pl), for a
#            developer checking a change; every other option is ignored.
#            The build is installed under the scratch directory, not over
#            the major's files: several trees can be checked at once
# Where /usr/bin/prometheus-postgres-exporter is installed, the TAP tests
# run with WALSIZER_REQUIRE_EXPORTER=1: test/t/240_prometheus_exporter.pl
# fails rather than skips if it cannot use it.
# Prints "PG MAJOR SUITE: N passed, N failed" per suite and, last,
# "N passed, N failed". A suite that cannot run counts as one failure.
# Exits 1 if anything failed.
#
# PATH starts with the major's bindir (pg_ctl, psql, pgbench...) for every
# suite. WALSIZER_SUITE_TIMEOUT bounds each make step (seconds, default
# 600); WALSIZER_KEEP_SCRATCH=1 keeps the scratch directory.
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2; exit 2; }
say() { printf 'run-suites: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

pg_config=${PG_CONFIG:-pg_config} user=postgres fuzz=0 mutation=0 bench_smoke=0 pgxn=0 monitoring=0 package=0 slow_tap=1 pure=1 version_tap_only=0
tap_only=()
while (($#)); do
    case $1 in
        --pg-config) (($# >= 2)) || usage; pg_config=$2; shift 2 ;;
        --user) (($# >= 2)) || usage; user=$2; shift 2 ;;
        --fuzz) fuzz=1; shift ;;
        --mutation) mutation=1; shift ;;
        --bench-smoke) bench_smoke=1; shift ;;
        --pgxn) pgxn=1; shift ;;
        --monitoring) monitoring=1; shift ;;
        --package) package=1; shift ;;
        --no-slow-tap) slow_tap=0; shift ;;
        --no-pure) pure=0; shift ;;
        --version-tap-only) version_tap_only=1; shift ;;
        --tap-only) shift; tap_only=("$@"); (($#)) || usage; shift $# ;;
        -h | --help) usage ;;
        *) say "unknown argument '$1'"; usage ;;
    esac
done

((EUID == 0)) || die "must run as root (make install, then tests as $user)"
id "$user" >/dev/null 2>&1 || die "no such user '$user'"
pg_config=$(command -v "$pg_config") || die "pg_config not found"
bindir=$("$pg_config" --bindir)
version=$("$pg_config" --version)
major=$(sed -n 's/^PostgreSQL \([0-9][0-9]*\).*/\1/p' <<<"$version")
[[ -n $major ]] || die "cannot read a major from '$version'"
srcdir=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
suite_timeout=${WALSIZER_SUITE_TIMEOUT:-600}

scratch=$(mktemp -d /tmp/walsizer-suites.XXXXXX)
work=$scratch/src
logs=$scratch/logs

# Servers a crashed or timed-out suite left behind would keep running after
# us: stop exactly those whose data directory is in the scratch tree.
cleanup() {
    local pidfile
    while IFS= read -r pidfile; do
        say "stopping a server left running in ${pidfile%/*}"
        runuser -u "$user" -- "$bindir/pg_ctl" -D "${pidfile%/*}" stop -m immediate >&2 || true
    done < <(find "$scratch" -name postmaster.pid 2>/dev/null)
    if mountpoint -q "$tmpfs"; then umount "$tmpfs" || umount -l "$tmpfs" || true; fi
    if [[ ${WALSIZER_KEEP_SCRATCH:-0} == 1 ]]; then
        say "scratch kept in $scratch"
    else
        rm -rf "$scratch"
    fi
}
trap cleanup EXIT

mkdir -p "$work" "$logs"
# Build outputs (see .gitignore) would be stale or of another major.
tar -C "$srcdir" --anchored --exclude=./.git --exclude='*.o' --exclude='*.so' \
    --exclude='*.bc' --exclude=./results --exclude=./regression.diffs \
    --exclude=./regression.out --exclude=./tmp_check --exclude=./tmp_check_regress \
    --exclude=./log --exclude=./test/build --exclude=./bench/out -cf - . |
    tar -C "$work" -xf -
chown -R "$user:" "$scratch"
cd "$work"

# A small filesystem of our own for the tests that fill a disk (pg_wal or the
# data directory on it). Tests run unprivileged and cannot mount; without
# WALSIZER_TEST_TMPFS they skip, unless WALSIZER_REQUIRE_TMPFS=1. We run as
# root, so we can always mount one and require it: if the mount fails, those
# tests fail rather than skip, and that counts against the tap suite.
tmpfs=$scratch/tmpfs
tmpfs_env=(WALSIZER_REQUIRE_TMPFS=1)
mkdir -p "$tmpfs"
if mount -t tmpfs -o size=600m,mode=0700 walsizer-test "$tmpfs" 2>"$logs/mount"; then
    chown "$user:" "$tmpfs"
    tmpfs_env+=(WALSIZER_TEST_TMPFS="$tmpfs")
else
    say "error: cannot mount a tmpfs for the disk tests, which will fail: $(cat "$logs/mount")"
fi

# The exporter test skips where prometheus-postgres-exporter is not
# installed; where it is, a skip would only hide that the test never ran.
exporter_env=()
[[ ! -x /usr/bin/prometheus-postgres-exporter ]] || exporter_env=(WALSIZER_REQUIRE_EXPORTER=1)

# Commands run with a predictable environment: the major's binaries first
# (pg_regress, prove and the TAP modules look there), HOME in the scratch.
as_user=(runuser -u "$user" -- env HOME="$scratch" PATH="$bindir:$PATH" PG_CONFIG="$pg_config"
    "${tmpfs_env[@]}" "${exporter_env[@]}")

# step LOG CMD...: run CMD under the time limit, output to stdout and LOG;
# returns CMD's status.
step() {
    local log=$1 rc=0
    shift
    timeout -k 30 "$suite_timeout" "$@" 2>&1 | tee "$log" || rc=$?
    ((rc != 124)) || say "${log##*/}: timed out after ${suite_timeout}s"
    return "$rc"
}

summary=() total_pass=0 total_fail=0
record() { # SUITE PASSED FAILED [NOTE]
    local line="PG $major $1: $2 passed, $3 failed${4:+ ($4)}"
    summary+=("$line")
    total_pass=$((total_pass + $2)) total_fail=$((total_fail + $3))
    printf '%s\n' "$line"
}

# Show the end of each log file under DIR (server logs, TAP test logs).
show_logs() {
    local f
    for f in "$1"/*; do
        [[ -f $f ]] || continue
        printf '%s\n' "----- tail of ${f#"$work"/}"
        tail -n "${2:-60}" "$f"
    done
}

banner() { printf '\n===== PG %s %s\n' "$major" "$*"; }

# -Werror in our own builds only: the shipped Makefile leaves it out (COPT
# is the PGXS variable for extra compiler flags; test/pure.mk adds it too)
make_vars=(PG_CONFIG="$pg_config" COPT=-Werror)

# With --tap-only the build is installed into the scratch directory, not
# over the major's own files: Debian's extension_destdir (or, from 18 on,
# extension_control_path) and dynamic_library_path (in TEMP_CONFIG, which
# PostgreSQL::Test::Cluster
# appends to every node's postgresql.conf) make the servers load it from
# there, so several trees can be checked at once on one machine.
install_args=(install)
if ((${#tap_only[@]})); then
    private=$scratch/install
    install_args=(DESTDIR="$private" install)
    # Debian's extension_destdir up to 17; extension_control_path from 18
    # on (given as the share directory and as its extension/ directory,
    # either of which a major may expect)
    if "${as_user[@]}" "$bindir/postgres" --describe-config 2>/dev/null | grep '^extension_destdir' >/dev/null; then
        printf "extension_destdir = '%s'\n" "$private" >"$scratch/private-install.conf"
    else
        share=$private$("$pg_config" --sharedir)
        printf "extension_control_path = '%s/extension:%s:\$system'\n" "$share" "$share" \
            >"$scratch/private-install.conf"
    fi
    printf "dynamic_library_path = '%s:\$libdir'\n" "$private$("$pg_config" --pkglibdir)" \
        >>"$scratch/private-install.conf"
    as_user+=(TEMP_CONFIG="$scratch/private-install.conf"
        WALSIZER_ADVISOR="$private$bindir/pg_walsizer_advisor")
fi

banner "build and install ($version)"
built=0
if step "$logs/build" "${as_user[@]}" make "${make_vars[@]}" &&
    step "$logs/install" make "${make_vars[@]}" "${install_args[@]}"; then
    built=1
else
    say "build or make install failed: the server suites cannot run"
fi

# The shipped Makefile's promises: no -Werror unless asked for (COPT), and
# a clear stop naming the package when pg_config or the headers are missing.
run_makefile_check() {
    local rc=0 passed failed
    step "$logs/makefile" "${as_user[@]}" bash test/makefile-check.sh --pg-config "$pg_config" || rc=$?
    passed=$(grep -c '^ok - ' "$logs/makefile" || true)
    failed=$(grep -c '^not ok - ' "$logs/makefile" || true)
    if ((rc != 0 && failed == 0)); then failed=1; fi
    record makefile "$passed" "$failed"
}

# pg_regress: the Makefile's REGRESS order (later tests may rely on earlier
# ones), then sql/*.sql files it does not list so none is silently skipped.
run_regress() {
    local listed=() tests=() missing=() t f rc=0 passed=0 failed
    # shellcheck disable=SC2016 # make, not the shell, expands $(REGRESS)
    read -r -a listed < <("${as_user[@]}" make -s --no-print-directory "${make_vars[@]}" \
        --eval='walsizer-print-regress: ; @echo $(REGRESS)' walsizer-print-regress)
    for t in "${listed[@]}"; do
        if [[ -f sql/$t.sql ]]; then tests+=("$t"); else missing+=("$t"); fi
    done
    for f in sql/*.sql; do
        [[ -f $f ]] || continue
        t=${f#sql/} t=${t%.sql}
        if [[ " ${listed[*]} " != *" $t "* ]]; then
            say "sql/$t.sql is not in the Makefile's REGRESS; running it last"
            tests+=("$t")
        fi
    done
    for t in "${missing[@]}"; do say "REGRESS lists $t but sql/$t.sql does not exist"; done
    if ((${#tests[@]} == 0)); then
        record regress 0 $((${#missing[@]} > 0 ? ${#missing[@]} : 1)) "no tests to run"
        return
    fi
    # TAP_TESTS= leaves only pg_regress in the installcheck target.
    step "$logs/regress" "${as_user[@]}" make "${make_vars[@]}" installcheck TAP_TESTS= \
        REGRESS="${tests[*]}" || rc=$?
    # A test passed only if pg_regress said so: PG 15 prints
    # "test NAME ... ok" (indented inside parallel groups), 16 and later
    # "ok N - NAME" ("+" instead of "-" inside parallel groups).
    for t in "${tests[@]}"; do
        if grep -Eq "^(test )? *$t +\.\.\. ok( |\$)|^ok +[0-9]+ +[-+] +$t( |\$)" "$logs/regress"; then
            passed=$((passed + 1))
        fi
    done
    failed=$((${#tests[@]} - passed + ${#missing[@]}))
    if ((rc != 0 && failed == 0)); then failed=1; fi
    if ((rc != 0)); then
        [[ ! -f regression.diffs ]] || { echo "----- regression.diffs"; head -n 300 regression.diffs; }
        show_logs tmp_check_regress/log 40
    fi
    record regress "$passed" "$failed" "${missing[*]:+missing: ${missing[*]}}"
}

# TAP: one prove run per file, so each file has its own status and its own
# tmp_check/log to show when it fails (installcheck empties tmp_check).
run_tap() {
    local files=(test/t/*.pl) f t0 passed=0 failed=0 skipped=() not_run=() notes=() same_everywhere=0
    ((${#tap_only[@]} == 0)) || files=("${tap_only[@]}")
    if [[ ! -f ${files[0]} ]]; then
        record tap 0 1 "no test/t/*.pl files"
        return
    fi
    for f in "${files[@]}"; do
        # the slowest files run on the newest major of the matrix only
        if ((!slow_tap && ${#tap_only[@]} == 0)) && grep -q '^# walsizer-test: slow$' "$f"; then
            not_run+=("${f##*/}")
            echo "not run on this major (slow) - $f"
            continue
        fi
        if ((version_tap_only && ${#tap_only[@]} == 0)) &&
            ! grep -q '^# walsizer-test: version-dependent$' "$f"; then
            same_everywhere=$((same_everywhere + 1))
            continue
        fi
        # each test starts with an empty disk-test filesystem
        if mountpoint -q "$tmpfs"; then find "$tmpfs" -mindepth 1 -delete 2>/dev/null || true; fi
        t0=$SECONDS
        # REGRESS= leaves only prove in the installcheck target.
        if step "$logs/tap" "${as_user[@]}" make "${make_vars[@]}" installcheck REGRESS= PROVE_TESTS="$f"; then
            # a file that skipped all its tests proved nothing: not a pass
            if grep -q "^${f//./\.} \.* skipped" "$logs/tap"; then
                skipped+=("${f##*/}")
                echo "skip - $f"
                continue
            fi
            passed=$((passed + 1))
            # the time each file takes, to keep the matrix under its budget
            echo "ok - $f ($((SECONDS - t0)) s)"
        else
            failed=$((failed + 1))
            echo "not ok - $f ($((SECONDS - t0)) s)"
            show_logs tmp_check/log 80
        fi
    done
    ((${#skipped[@]} == 0)) || notes+=("skipped, not counted: ${skipped[*]}")
    ((${#not_run[@]} == 0)) || notes+=("slow, not run on this major: ${not_run[*]}")
    ((same_everywhere == 0)) || notes+=("$same_everywhere not version-dependent, not run on this major")
    record tap "$passed" "$failed" "$(IFS=';'; echo "${notes[*]}")"
}

# make unit / sim / fuzz-smoke end with prove's summary: "Files=F, Tests=T"
# and, for each program that failed, "(Wstat: ... Tests: N Failed: K)". A
# program that failed without a failed test (it died, its plan was wrong)
# counts as one failure; so does a run that ends before prove's summary.
run_pure() {
    local target=$1 rc=0 passed failed
    step "$logs/$target" "${as_user[@]}" make "${make_vars[@]}" "$target" || rc=$?
    read -r passed failed < <(awk '
        /^Files=[0-9]+, Tests=[0-9]+,/ { split($2, t, /[=,]/); tests = t[2] }
        /\(Wstat: .* Failed: [0-9]+\)$/ { f = $NF + 0; failing += f; failed += f ? f : 1 }
        END { print tests - failing, failed + 0 }' "$logs/$target")
    if ((rc != 0 && failed == 0)); then
        record "$target" "$passed" 1 "make $target exited with status $rc"
    elif ((passed + failed == 0)); then
        record "$target" 0 1 "make $target reported no results"
    else
        record "$target" "$passed" "$failed"
    fi
}

if ((${#tap_only[@]})); then
    banner "tap (${tap_only[*]})"
    if ((built)); then run_tap; else record tap 0 1 "not run: build failed"; fi
    echo "$total_pass passed, $total_fail failed"
    ((total_fail == 0))
    exit
fi

banner makefile; run_makefile_check
if ((built)); then
    banner regress; run_regress
    banner tap; run_tap
else
    record regress 0 1 "not run: build failed"
    record tap 0 1 "not run: build failed"
fi
# The pure suites need no server, so they run even when the build failed.
if ((pure)); then
    banner unit; run_pure unit
    banner sim; run_pure sim
fi
if ((fuzz)); then banner fuzz-smoke; run_pure fuzz-smoke; fi

# make mutation prints the score and the survivors and fails below the
# minimum score, or when the list no longer applies to the code.
run_mutation() {
    local rc=0 score
    step "$logs/mutation" "${as_user[@]}" make "${make_vars[@]}" mutation || rc=$?
    score=$(sed -n 's/^mutation score: //p' "$logs/mutation")
    if ((rc == 0)); then
        record mutation 1 0 "$score"
    else
        record mutation 0 1 "${score:-no score}; make mutation exited with status $rc"
    fi
}
if ((mutation)); then banner mutation; run_mutation; fi

# The benchmark's own check (report.py --check) decides; it runs as root
# because run-bench.sh installs what it lacks and hands clusters to postgres.
run_bench_smoke() {
    local rc=0
    step "$logs/bench-smoke" env PATH="$bindir:$PATH" BENCH_SMOKE=1 BENCH_BUILD=0 \
        BENCH_PG_MAJOR="$major" BENCH_OUT="$scratch/bench-smoke" bash "$work/bench/run-bench.sh" || rc=$?
    if ((rc == 0)); then
        record bench-smoke 1 0
    else
        record bench-smoke 0 1 "bench/run-bench.sh exited with status $rc"
    fi
}
if ((bench_smoke)); then
    banner bench-smoke
    if ((built)); then run_bench_smoke; else record bench-smoke 0 1 "not run: build failed"; fi
fi

# pgxn-check.sh reports one TAP line per check; its uninstall removes what
# "make install" put in place, so the tree is installed again after it
# (pg-matrix.sh runs the advisor this major installed against later majors).
run_pgxn() {
    local rc=0 passed failed
    step "$logs/pgxn" bash "$work/test/pgxn-check.sh" --pg-config "$pg_config" --user "$user" || rc=$?
    passed=$(grep -c '^ok - ' "$logs/pgxn" || true)
    failed=$(grep -c '^not ok - ' "$logs/pgxn" || true)
    if ((rc != 0 && failed == 0)); then failed=1; fi
    if ! step "$logs/reinstall" make "${make_vars[@]}" install; then
        say "make install after the pgxn suite failed"
        failed=$((failed + 1))
    fi
    record pgxn "$passed" "$failed"
}
if ((pgxn)); then
    banner pgxn
    if ((built)); then run_pgxn; else record pgxn 0 1 "not run: build failed"; fi
fi

# test/monitoring-check.sh speaks TAP: count its "ok" and "not ok" lines; a
# run that printed no plan ("1..N") did not finish and counts as a failure.
run_monitoring() {
    local rc=0 passed failed
    step "$logs/monitoring" "${as_user[@]}" bash test/monitoring-check.sh || rc=$?
    passed=$(grep -c '^ok ' "$logs/monitoring" || true)
    failed=$(grep -c '^not ok ' "$logs/monitoring" || true)
    if ! grep -q '^1\.\.[0-9]' "$logs/monitoring"; then
        record monitoring "$passed" $((failed + 1)) "test/monitoring-check.sh did not finish (status $rc)"
    elif ((rc != 0 && failed == 0)); then
        record monitoring "$passed" 1 "test/monitoring-check.sh exited with status $rc"
    else
        record monitoring "$passed" "$failed"
    fi
}
if ((monitoring)); then banner monitoring; run_monitoring; fi

# test/package.sh copies the source tree itself (without this run's build
# outputs) and prints "N passed, N failed" last: one result per step. It
# runs from the read-only tree, not from our scratch copy, so its native
# source package holds exactly the project's files.
run_package() {
    local rc=0 line p=0 f=1 note=
    step "$logs/package" bash "$srcdir/test/package.sh" --pg-config "$pg_config" --user "$user" || rc=$?
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$logs/package" | tail -n 1 || true)
    if [[ -n $line ]]; then
        read -r p _ f _ <<<"${line//,/}"
    else
        note="test/package.sh printed no summary"
    fi
    if ((rc != 0 && f == 0)); then f=1 note="test/package.sh exited with status $rc"; fi
    # the package's purge removed what make install put there: put it back
    if ((built)); then
        if ! step "$logs/reinstall" make "${make_vars[@]}" install >/dev/null; then
            f=$((f + 1)) note="${note:+$note; }make install after the package suite failed"
            tail -n 20 "$logs/reinstall"
        fi
    fi
    record package "$p" "$f" "$note"
}
if ((package)); then banner package; run_package; fi

echo
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed"
((total_fail == 0))
