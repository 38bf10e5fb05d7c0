#!/usr/bin/env bash
# test/pg-matrix.sh - run all of pg_walsizer's test suites against each
# supported PostgreSQL major.
#
#   test/pg-matrix.sh [MAJOR...]        MAJOR: 15, 17, 18, 19 (default: all)
#
# 15 runs on the host from Debian 12's own packages (installed first when
# missing), including fuzz-smoke, the mutation check, bench-smoke and the
# PGXN checks (none of them depends on the major). The Debian package
# (test/package.sh) is built and checked on 15 and 17. 17, 18 and 19 need
# a newer libc and run in chroots from test/chroot.sh, prepared in the
# background while 15's suites run. test/run-suites.sh does the work for each major; a failing major does
# not stop the next one. Ends with a per-major table and, as the last line,
# "N passed, N failed" summed over all majors; exits 1 if anything failed.
# Needs root. WALSIZER_APT_UPDATED=1 skips "apt-get update" before
# installing host packages (the caller has just run it).
set -euo pipefail

say() { printf 'pg-matrix: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

here=$(dirname "$(readlink -f "$0")")
srcdir=$(dirname "$here")
chroot_sh=$here/chroot.sh

majors=("$@")
((${#majors[@]})) || majors=(15 17 18 19)
for m in "${majors[@]}"; do
    [[ $m =~ ^(15|17|18|19)$ ]] || die "unsupported major '$m' (want 15, 17, 18 or 19)"
done
((EUID == 0)) || die "must run as root"

# Say first what is going to happen and how long it takes: on a fresh
# machine the first minutes are package downloads with little output.
slow_files=$({ grep -l '^# walsizer-test: slow$' "$srcdir"/test/t/*.pl 2>/dev/null || true; } | xargs -r -n1 basename | tr '\n' ' ')
cat <<EOF_PLAN
pg-matrix: testing pg_walsizer on PostgreSQL ${majors[*]}, one major after the other:
  - 15 on this machine, from Debian 12's packages (installed first if missing):
    pg_regress, the TAP files, unit, sim, fuzz-smoke, the mutation check,
    bench-smoke, the PGXN checks, the monitoring checks (promtool) and
    the Debian package (test/package.sh)
  - 17, 18, 19 in Debian chroots under ${WALSIZER_CHROOT_CACHE:-/var/cache/pg_walsizer/chroots}
    (built once, about 10 minutes, while 15 is tested): pg_regress, TAP, and
    unit and sim on ${majors[-1]} (they include nothing from PostgreSQL), and the
    Debian package on 17
  - the slow TAP files (${slow_files% }) on ${majors[-1]} only
  About an hour on 2 cores (64 minutes in the last full run); ends with
  a table per major and "N passed, N failed".
EOF_PLAN

# Host packages: 15's server, headers, TAP and fuzzing toolchain, the
# Prometheus exporter and promtool (test/t/240_prometheus_exporter.pl, the
# monitoring suite), and what test/package.sh needs to build and check the
# Debian package (postgresql-all for its build-time test); the chroots need
# debootstrap. Checked first so a
# ready machine skips apt.
wanted=()
for m in "${majors[@]}"; do
    if [[ $m == 15 ]]; then
        wanted+=(postgresql-15 postgresql-server-dev-15 postgresql-contrib libipc-run-perl
            build-essential clang-14 libclang-rt-14-dev debootstrap gnuplot-nox pgxnclient
            prometheus-postgres-exporter prometheus python3-yaml
            postgresql-server-dev-all postgresql-all libpq-dev debhelper dpkg-dev lintian fakeroot)
    else
        wanted+=(debootstrap)
    fi
done
missing=()
for p in $(printf '%s\n' "${wanted[@]}" | sort -u); do
    [[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null) == ii* ]] || missing+=("$p")
done
if ((${#missing[@]})); then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # A fresh machine's package lists are empty or stale.
    [[ ${WALSIZER_APT_UPDATED:-0} == 1 ]] || apt-get update
    apt-get install -y "${missing[@]}"
fi

logdir=$(mktemp -d /tmp/walsizer-matrix.XXXXXX)

# Background chroot preparation: one job per Debian release, preparing its
# majors in order (18 and 19 share sid, whose lock would serialise them
# anyway). Each major gets a status file "RC SECONDS" when done. setsid
# makes each job a process group we can stop as a whole if we are stopped.
declare -A state prep_job # major -> cold | warm; major -> its job's pid
prep_jobs=()
start_prepare() {
    (($#)) || return 0
    # shellcheck disable=SC2016 # the inner script expands its own arguments
    setsid bash -c '
        chroot_sh=$1 logdir=$2; shift 2
        for m; do
            t0=$SECONDS rc=0
            bash "$chroot_sh" prepare "$m" >"$logdir/prepare-$m.log" 2>&1 || rc=$?
            echo "$rc $((SECONDS - t0))" >"$logdir/prepare-$m.status"
        done' prepare "$chroot_sh" "$logdir" "$@" &
    prep_jobs+=("$!")
    for m; do prep_job[$m]=$!; done
}
stop_prepares() {
    local pid
    for pid in "${prep_jobs[@]}"; do
        kill -TERM -- "-$pid" 2>/dev/null || true
    done
}
trap stop_prepares EXIT

trixie=() sid=()
for m in "${majors[@]}"; do
    [[ $m != 15 ]] || continue
    if [[ -e $(bash "$chroot_sh" ready-marker "$m") ]]; then state[$m]=warm; else state[$m]=cold; fi
    if [[ $m == 17 ]]; then trixie+=("$m"); else sid+=("$m"); fi
done
start_prepare "${trixie[@]}"
start_prepare "${sid[@]}"

# Wait for MAJOR's chroot; sets prep_rc and prep_secs.
wait_prepare() {
    local status=$logdir/prepare-$1.status
    while [[ ! -e $status ]]; do
        # A job that died (killed) before writing the status never will.
        if ! kill -0 "${prep_job[$1]}" 2>/dev/null && [[ ! -e $status ]]; then
            echo "1 0" >"$status"
            break
        fi
        sleep 2
    done
    read -r prep_rc prep_secs <"$status"
}

declare -A row_pass row_fail row_note row_prep row_test
# set once 15's suites have installed it (the majors run in order, 15 first)
host_advisor=
total_pass=0 total_fail=0

# Totals of one run-suites.sh log: its last "N passed, N failed" line.
# A run that never printed one (crashed, killed) counts as one failure.
tally() {
    local major=$1 log=$2 rc=$3 line p=0 f=1
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -n 1 || true)
    if [[ -n $line ]]; then
        read -r p _ f _ <<<"${line//,/}"
    else
        row_note[$major]="no summary from run-suites.sh"
    fi
    if ((rc != 0 && f == 0)); then f=1 row_note[$major]="run-suites.sh exited with status $rc"; fi
    row_pass[$major]=$p row_fail[$major]=$f
}

for m in "${majors[@]}"; do
    printf '\n########## PostgreSQL %s\n' "$m"
    log=$logdir/run-$m.log rc=0
    # the slowest TAP files (marked "# walsizer-test: slow") run on the
    # newest major of the run only: 15 already runs the mutation, fuzz and
    # benchmark suites, and the run stays under an hour on two cores
    slow=()
    [[ $m == "${majors[-1]}" ]] || slow=(--no-slow-tap)
    # unit and sim include nothing from PostgreSQL: they run on 15 and on
    # the newest major (the newest compiler) only
    pure=()
    [[ $m == 15 || $m == "${majors[-1]}" ]] || pure=(--no-pure)
    if [[ $m == 15 ]]; then
        row_prep[$m]="host"
        t0=$SECONDS
        bash "$here/run-suites.sh" --fuzz --mutation --bench-smoke --pgxn --monitoring --package \
            --pg-config /usr/lib/postgresql/15/bin/pg_config \
            "${slow[@]}" 2>&1 |
            tee "$log" || rc=$?
        row_test[$m]=$((SECONDS - t0))
        host_advisor=/usr/lib/postgresql/15/bin/pg_walsizer_advisor
    else
        t0=$SECONDS
        wait_prepare "$m"
        waited=$((SECONDS - t0))
        row_prep[$m]="${state[$m]} ${prep_secs}s (waited ${waited}s)"
        say "PostgreSQL $m chroot: ${state[$m]}, prepared in ${prep_secs}s, waited ${waited}s"
        if ((prep_rc != 0)); then
            cat "$logdir/prepare-$m.log" >&2
            row_pass[$m]=0 row_fail[$m]=1 row_test[$m]=0 row_note[$m]="chroot preparation failed"
            total_fail=$((total_fail + 1))
            continue
        fi
        t0=$SECONDS
        # the Debian package is built and checked on the host's 15 and on
        # 17, the default major of the chroot's release (see chroot.sh)
        package=()
        [[ $m != 17 ]] || package=(--package)
        # run-suites.sh copies /src into the chroot's scratch space itself.
        bash "$chroot_sh" run "$m" --bind "$srcdir:/src" -- \
            bash /src/test/run-suites.sh --pg-config "/usr/lib/postgresql/$m/bin/pg_config" \
            "${package[@]}" "${slow[@]}" "${pure[@]}" 2>&1 |
            tee "$log" || rc=$?
        row_test[$m]=$((SECONDS - t0))
    fi
    tally "$m" "$log" "$rc"
    # the advisor 15's build installed on the host, with 15's libpq, against
    # this newer server: one more check, counted with this major's
    if [[ $m != 15 && -n $host_advisor ]]; then
        compat_rc=0
        bash "$here/advisor-libpq-compat.sh" "$m" "$host_advisor" >>"$log" 2>&1 || compat_rc=$?
        tail -n 1 "$log"
        if ((compat_rc == 0)); then
            row_pass[$m]=$((row_pass[$m] + 1))
        else
            row_fail[$m]=$((row_fail[$m] + 1)) row_note[$m]="${row_note[$m]:-}advisor with 15's libpq failed"
        fi
    fi
    total_pass=$((total_pass + row_pass[$m])) total_fail=$((total_fail + row_fail[$m]))
    say "PostgreSQL $m: ${row_pass[$m]} passed, ${row_fail[$m]} failed in ${row_test[$m]}s"
done

printf '\n########## Summary\n'
for m in "${majors[@]}"; do
    # run-suites.sh prints each suite's line twice: after it, and at its end.
    [[ ! -e $logdir/run-$m.log ]] || grep -E '^PG [0-9]+ [a-z-]+: ' "$logdir/run-$m.log" |
        awk '!seen[$0]++'
done
echo
printf '%-6s %-36s %7s %7s %7s  %s\n' major chroot tests passed failed note
for m in "${majors[@]}"; do
    printf '%-6s %-36s %6ss %7s %7s  %s\n' "$m" "${row_prep[$m]}" "${row_test[$m]}" \
        "${row_pass[$m]}" "${row_fail[$m]}" "${row_note[$m]:-}"
done
if ((total_fail)); then
    say "logs kept in $logdir"
else
    rm -rf "$logdir"
fi
echo "$total_pass passed, $total_fail failed"
((total_fail == 0))
