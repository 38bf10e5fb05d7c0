#!/usr/bin/env bash
# test/run-suites.sh - build, install and test pg_walsizer against one
# installed PostgreSQL major (TESTING.md, "Suites", says what each suite covers).
#
#   test/run-suites.sh [--pg-config PATH] [--no-tap] [--no-slow-tap] [--no-long-tap] [--version-tap-only] [--no-pure]
#                      [--fuzz] [--mutation] [--bench-smoke] [--pgxn] [--monitoring] [--package]
#   test/run-suites.sh [--pg-config PATH] --tap-only FILE...
#   test/run-suites.sh [--pg-config PATH] --mutation-only
#
# As root where that major's server and headers are installed: on the host,
# or inside a chroot made by test/chroot.sh. The tree (above this script) is
# only read: a shared tree such as a bind-mounted /src must not collect
# another major's object files, and PostgreSQL refuses to run as root, so it
# is copied to a scratch directory owned by postgres, built there as
# postgres, installed as root and tested as postgres.
#
# Suites: makefile, regress and tap (one result per check, pg_regress test
# and test/t/*.pl file), unit and sim (one per TAP test; --no-pure leaves
# them out), and, when asked for, fuzz-smoke, mutation, bench-smoke, pgxn,
# monitoring and, last, package. --no-tap leaves out the TAP files
# (test/pg-matrix.sh runs 15's with --tap-only beside the other suites,
# which install over the major's files), --no-slow-tap the ones
# marked "# walsizer-test: slow", --no-long-tap those marked "# walsizer-test:
# long" (test/pg-matrix.sh runs each with --tap-only, as a job of its own),
# --version-tap-only runs only those marked "# walsizer-test:
# version-dependent"; the tap line names what did not run.
# --tap-only builds, installs into the scratch directory (not over the
# major's files, so several trees can be checked at once) and runs just
# these files (paths relative to the tree); every other option is ignored.
# --mutation-only runs the mutation check alone, without building or
# installing the extension (it builds the pure modules in copies of its
# own), so it can run beside another run of this script for the same major.
#
# Prints "PG MAJOR SUITE: N passed, N failed" per suite and, last,
# "N passed, N failed"; a suite that cannot run counts as one failure.
# Exits 1 if anything failed. Each make step may take 600 s (the mutation
# check 2400 s);
# WALSIZER_KEEP_SCRATCH=1 keeps the scratch directory.
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0" >&2; exit 2; }
say() { printf 'run-suites: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

pg_config=${PG_CONFIG:-pg_config} user=postgres tap_only=() mutation_only=0
declare -A on=([tap]=1 [slow-tap]=1 [long-tap]=1 [pure]=1 [version-tap-only]=0 [fuzz-smoke]=0 [mutation]=0
    [bench-smoke]=0 [pgxn]=0 [monitoring]=0 [package]=0)
while (($#)); do
    case $1 in
        --pg-config) (($# >= 2)) || usage; pg_config=$2; shift ;;
        --no-tap | --no-slow-tap | --no-long-tap | --no-pure) on[${1#--no-}]=0 ;;
        --fuzz) on[fuzz-smoke]=1 ;;
        --version-tap-only | --mutation | --bench-smoke | --pgxn | --monitoring | --package) on[${1#--}]=1 ;;
        --mutation-only) mutation_only=1 ;;
        --tap-only) shift; tap_only=("$@") on[slow-tap]=1 on[long-tap]=1 on[version-tap-only]=0; (($#)) || usage; break ;;
        *) say "unknown argument '$1'"; usage ;;
    esac
    shift
done

((EUID == 0)) || die "must run as root (make install, then tests as $user)"
pg_config=$(command -v "$pg_config") || die "pg_config not found"
bindir=$("$pg_config" --bindir)
version=$("$pg_config" --version)
major=$(sed -n 's/^PostgreSQL \([0-9][0-9]*\).*/\1/p' <<<"$version")
[[ -n $major ]] || die "cannot read a major from '$version'"
srcdir=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)

scratch=$(mktemp -d /tmp/walsizer-suites.XXXXXX)
work=$scratch/src logs=$scratch/logs tmpfs=$scratch/tmpfs

# Servers a crashed or timed-out suite left behind would keep running after
# us: stop exactly those whose data directory is in the scratch tree.
cleanup() {
    local pidfile
    while IFS= read -r pidfile; do
        say "stopping a server left running in ${pidfile%/*}"
        runuser -u "$user" -- "$bindir/pg_ctl" -D "${pidfile%/*}" stop -m immediate >&2 || true
    done < <(find "$scratch" -name postmaster.pid 2>/dev/null)
    if mountpoint -q "$tmpfs"; then umount "$tmpfs" || umount -l "$tmpfs" || true; fi
    if [[ ${WALSIZER_KEEP_SCRATCH:-0} == 1 ]]; then say "scratch kept in $scratch"; else rm -rf "$scratch"; fi
}
trap cleanup EXIT

mkdir -p "$work" "$logs" "$tmpfs"
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
env=(WALSIZER_REQUIRE_TMPFS=1)
if mount -t tmpfs -o size=600m,mode=0700 walsizer-test "$tmpfs" 2>"$logs/mount"; then
    chown "$user:" "$tmpfs"
    env+=(WALSIZER_TEST_TMPFS="$tmpfs")
else
    say "error: cannot mount a tmpfs for the disk tests, which will fail: $(cat "$logs/mount")"
fi
# Where the exporter is installed, test 240 skipping would only hide that it never ran.
[[ ! -x /usr/bin/prometheus-postgres-exporter ]] || env+=(WALSIZER_REQUIRE_EXPORTER=1)
# Likewise test 245 where prometheus-sql-exporter is installed.
[[ ! -x /usr/bin/prometheus-sql-exporter ]] || env+=(WALSIZER_REQUIRE_SQL_EXPORTER=1)
# Likewise test 290 where Patroni and etcd are installed (test/pg-matrix.sh
# installs them on the host, for 15, test/chroot.sh in sid, for the newest
# major; the trixie chroot has neither, and there it would skip).
[[ ! -x /usr/bin/patroni || ! -x /usr/bin/etcd ]] || env+=(WALSIZER_REQUIRE_PATRONI=1)
# The always-behind mode of the TAP helpers (WalsizerTest.pm, behind()).
[[ -z ${WALSIZER_TEST_BEHIND:-} ]] || env+=(WALSIZER_TEST_BEHIND="$WALSIZER_TEST_BEHIND")

# Commands run with a predictable environment: the major's binaries first
# (pg_regress, prove and the TAP modules look there), HOME in the scratch.
as_user=(runuser -u "$user" -- env HOME="$scratch" PATH="$bindir:$PATH" PG_CONFIG="$pg_config" "${env[@]}")
# -Werror in our own builds only: the shipped Makefile leaves it out (COPT
# is the PGXS variable for extra compiler flags; test/pure.mk adds it too)
make_vars=(PG_CONFIG="$pg_config" COPT=-Werror)

# step LOG CMD...: run CMD under the time limit (step_limit seconds, 600
# unless the caller sets it), output to stdout and LOG; returns CMD's status.
step() {
    local log=$1 rc=0 limit=${step_limit:-600}
    shift
    timeout -k 30 "$limit" "$@" 2>&1 | tee "$log" || rc=$?
    ((rc != 124)) || say "${log##*/}: timed out after ${limit}s"
    return "$rc"
}

summary=() total_pass=0 total_fail=0
record() { # SUITE PASSED FAILED [NOTE]
    local line="PG $major $1: $2 passed, $3 failed${4:+ ($4)}"
    summary+=("$line")
    total_pass=$((total_pass + $2)) total_fail=$((total_fail + $3))
    printf '%s\n' "$line"
}

# Counts of a log, "PASSED FAILED", or nothing if it has none. prove's
# summary: "Files=F, Tests=T" and, for each program that failed,
# "(Wstat: ... Tests: N Failed: K)"; a program that failed without a failed
# test (it died, its plan was wrong) counts as one failure.
prove_counts() {
    awk '/^Files=[0-9]+, Tests=[0-9]+,/ { split($2, t, /[=,]/); tests = t[2]; done = 1 }
        /\(Wstat: .* Failed: [0-9]+\)$/ { f = $NF + 0; failing += f; failed += f ? f : 1 }
        END { if (done) print tests - failing, failed + 0 }' "$1"
}
# makefile-check.sh, pgxn-check.sh and package.sh end with "N passed, N failed".
own_counts() { sed -En 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$1" | tail -n 1; }

# run_counted SUITE COUNTS CMD...: run CMD; set passed, failed and note from
# COUNTS of its log. A run without counts, or one that failed with nothing
# failed, counts as one failure.
run_counted() {
    local suite=$1 counts=$2 rc=0
    shift 2
    step "$logs/$suite" "$@" || rc=$?
    passed='' failed='' note=''
    read -r passed failed < <("$counts" "$logs/$suite") || true
    if [[ -z $passed ]]; then
        passed=0 failed=1 note="$suite printed no results (status $rc)"
    elif ((rc != 0 && failed == 0)); then
        failed=1 note="$suite exited with status $rc"
    fi
}

# Installing, then purging or uninstalling, a package removes what make
# install put in the major's directories: install again for whoever comes
# next (pg-matrix.sh runs 15's installed advisor against later majors).
reinstall() { # SUITE
    step "$logs/reinstall" make "${make_vars[@]}" install >/dev/null && return
    failed=$((failed + 1)) note="${note:+$note; }make install after the $1 suite failed"
    tail -n 20 "$logs/reinstall"
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

# With --tap-only the servers load the build from the scratch directory:
# Debian's extension_destdir up to 17, extension_control_path from 18 on
# (given as the share directory and as its extension/ directory, either of
# which a major may expect), and dynamic_library_path, in TEMP_CONFIG, which
# PostgreSQL::Test::Cluster appends to every node's postgresql.conf.
install_args=(install)
if ((${#tap_only[@]})); then
    private=$scratch/install conf=$scratch/private-install.conf
    install_args=(DESTDIR="$private" install)
    if "${as_user[@]}" "$bindir/postgres" --describe-config 2>/dev/null | grep '^extension_destdir' >/dev/null; then
        printf "extension_destdir = '%s'\n" "$private" >"$conf"
    else
        share=$private$("$pg_config" --sharedir)
        printf "extension_control_path = '%s/extension:%s:\$system'\n" "$share" "$share" >"$conf"
    fi
    printf "dynamic_library_path = '%s:\$libdir'\n" "$private$("$pg_config" --pkglibdir)" >>"$conf"
    as_user+=(TEMP_CONFIG="$conf" WALSIZER_ADVISOR="$private$bindir/pg_walsizer_advisor")
fi

# (the mutation check alone builds what it tests itself)
built=0
if ((!mutation_only)); then
    banner "build and install ($version)"
    if step "$logs/build" "${as_user[@]}" make "${make_vars[@]}" &&
        step "$logs/install" make "${make_vars[@]}" "${install_args[@]}"; then
        built=1
    else
        say "build or make install failed: the server suites cannot run"
    fi
fi

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
    local files=(test/t/*.pl) f t0 passed=0 failed=0 skipped=() not_run=() elsewhere=() notes=() same_everywhere=0
    ((${#tap_only[@]} == 0)) || files=("${tap_only[@]}")
    if [[ ! -f ${files[0]} ]]; then
        record tap 0 1 "no test/t/*.pl files"
        return
    fi
    for f in "${files[@]}"; do
        if ((!on[slow-tap])) && grep -q '^# walsizer-test: slow$' "$f"; then
            not_run+=("${f##*/}")
            echo "not run on this major (slow) - $f"
            continue
        fi
        if ((!on[long-tap])) && grep -q '^# walsizer-test: long$' "$f"; then
            elsewhere+=("${f##*/}")
            echo "run in a job of its own (long) - $f"
            continue
        fi
        if ((on[version-tap-only])) && ! grep -q '^# walsizer-test: version-dependent$' "$f"; then
            same_everywhere=$((same_everywhere + 1))
            continue
        fi
        # each test starts with an empty disk-test filesystem
        if mountpoint -q "$tmpfs"; then find "$tmpfs" -mindepth 1 -delete 2>/dev/null || true; fi
        # a file stopped at the step limit may leave a data directory it
        # made read-only (250): make tmp_check removable, or every later
        # file fails on it
        [[ ! -d $work/tmp_check ]] || chmod -R u+w "$work/tmp_check" 2>/dev/null || true
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
    ((${#elsewhere[@]} == 0)) || notes+=("long, run in a job of their own: ${elsewhere[*]}")
    ((same_everywhere == 0)) || notes+=("$same_everywhere not version-dependent, not run on this major")
    record tap "$passed" "$failed" "$(IFS=';'; echo "${notes[*]}")"
}

run_makefile() {
    run_counted makefile own_counts "${as_user[@]}" bash test/makefile-check.sh --pg-config "$pg_config"
    record makefile "$passed" "$failed" "$note"
}
# make unit, sim and fuzz-smoke run prove themselves.
run_pure() {
    run_counted "$1" prove_counts "${as_user[@]}" make "${make_vars[@]}" "$1"
    record "$1" "$passed" "$failed" "$note"
}

# make mutation prints the score and the survivors and fails below the
# minimum score, or when the list no longer applies to the code.
# Its time grows with the list (each mutant rebuilds its module and runs
# the unit tests until one fails, and sim and fuzz-smoke if none does):
# about 5 minutes for 274 mutants on 2 quiet cores; test/pg-matrix.sh runs
# it at the lowest CPU priority beside the TAP jobs, hence the long limit.
run_mutation() {
    local rc=0 score step_limit=2400
    step "$logs/mutation" "${as_user[@]}" make "${make_vars[@]}" mutation || rc=$?
    score=$(sed -n 's/^mutation score: //p' "$logs/mutation")
    if ((rc == 0)); then record mutation 1 0 "$score"; else record mutation 0 1 "${score:-no score}; make mutation exited with status $rc"; fi
}

# The benchmark's own check (report.py --check) decides; it runs as root
# because run-bench.sh installs what it lacks and hands clusters to postgres.
run_bench_smoke() {
    local rc=0
    step "$logs/bench-smoke" env PATH="$bindir:$PATH" BENCH_SMOKE=1 BENCH_BUILD=0 \
        BENCH_PG_MAJOR="$major" BENCH_OUT="$scratch/bench-smoke" bash "$work/bench/run-bench.sh" || rc=$?
    if ((rc == 0)); then record bench-smoke 1 0; else record bench-smoke 0 1 "bench/run-bench.sh exited with status $rc"; fi
}

run_pgxn() {
    run_counted pgxn own_counts bash "$work/test/pgxn-check.sh" --pg-config "$pg_config" --user "$user"
    reinstall pgxn
    record pgxn "$passed" "$failed" "$note"
}

# test/monitoring-check.sh speaks TAP with a plan; prove checks both.
run_monitoring() {
    run_counted monitoring prove_counts "${as_user[@]}" prove -v --exec bash test/monitoring-check.sh
    record monitoring "$passed" "$failed" "$note"
}

# test/package.sh runs from the read-only tree, not from our scratch copy,
# so its native source package holds exactly the project's files.
run_package() {
    run_counted package own_counts bash "$srcdir/test/package.sh" --pg-config "$pg_config" --user "$user"
    ((!built)) || reinstall package
    record package "$passed" "$failed" "$note"
}

# The suites in order, and whether each needs the build.
if ((${#tap_only[@]})); then
    suites=(tap)
elif ((mutation_only)); then
    suites=(mutation)
else
    suites=(makefile regress)
    ((!on[tap])) || suites+=(tap)
    ((!on[pure])) || suites+=(unit sim)
    for s in fuzz-smoke mutation bench-smoke pgxn monitoring package; do ((!on[$s])) || suites+=("$s"); done
fi
for s in "${suites[@]}"; do
    if [[ $s == @(regress|tap|bench-smoke|pgxn) ]] && ((!built)); then
        record "$s" 0 1 "not run: build failed"
        continue
    fi
    banner "$s${tap_only[*]:+ (${tap_only[*]})}"
    case $s in
        unit | sim | fuzz-smoke) run_pure "$s" ;;
        *) "run_${s//-/_}" ;;
    esac
done

((${#tap_only[@]} || mutation_only)) || { echo; printf '%s\n' "${summary[@]}"; }
echo "$total_pass passed, $total_fail failed"
((total_fail == 0))
