#!/usr/bin/env bash
# test/pg-matrix.sh - run all of pg_walsizer's test suites against each
# supported PostgreSQL major (TESTING.md, "Suites": what runs where).
#
#   test/pg-matrix.sh [MAJOR...]        MAJOR: 15, 17, 18, 19 (default: all)
#
# 15 runs on the host from Debian 12's own packages (installed first when
# missing); 17, 18 and 19 need a newer libc and run in chroots from
# test/chroot.sh, prepared in the background. test/run-suites.sh does the
# work for each job (a major's suites, or one long TAP file); a failing job
# does not stop the others. Each job's log is printed when all are done;
# then a table per job and, as the last line, "N passed, N failed" summed
# over all jobs; exits
# 1 if anything failed. Needs root. WALSIZER_APT_UPDATED=1 skips "apt-get
# update" before installing host packages (the caller has just run it).
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
mapfile -t slow < <(cd "$srcdir" && grep -l '^# walsizer-test: slow$' test/t/*.pl)
mapfile -t long < <(cd "$srcdir" && grep -l '^# walsizer-test: long$' test/t/*.pl)
version_files=$(grep -l '^# walsizer-test: version-dependent$' "$srcdir"/test/t/*.pl 2>/dev/null | wc -l || true)
cat <<EOF_PLAN
pg-matrix: testing pg_walsizer on PostgreSQL ${majors[*]}, four jobs at a time:
  - 15 on this machine, from Debian 12's packages (installed first if missing):
    pg_regress, every TAP file (its longest, ${long[*]##*/},
    each a job of its own), unit, sim, fuzz-smoke, bench-smoke, the PGXN
    checks, the monitoring checks (promtool) and the Debian package
    (test/package.sh); and the mutation check, at the lowest CPU priority
  - ${majors[-1]} (the newest) in a Debian chroot under ${WALSIZER_CHROOT_CACHE:-/var/cache/pg_walsizer/chroots}
    (built once, a few minutes): pg_regress, the ${version_files} version-dependent
    TAP files, unit and sim; and the slow TAP files (${slow[*]##*/}),
    which run there only, each a job of its own
  - the majors between, in chroots too: pg_regress and the ${version_files}
    version-dependent TAP files; the Debian package on 17
  Ends with a table per job and "N passed, N failed".
EOF_PLAN

# Host packages: the chroots need debootstrap; 15 its server, headers, TAP
# and fuzzing toolchain, the Prometheus exporters and promtool
# (test/t/240_prometheus_exporter.pl, 245_sql_exporter.pl, the monitoring suite), Patroni and
# etcd (test/t/290_patroni.pl), and what
# test/package.sh needs (postgresql-all for its build-time test). Checked
# first so a ready machine skips apt.
wanted=(debootstrap)
[[ " ${majors[*]} " != *" 15 "* ]] ||
    wanted+=(postgresql-15 postgresql-server-dev-15 postgresql-contrib libipc-run-perl
        build-essential clang-14 libclang-rt-14-dev gnuplot-nox pgxnclient
        prometheus-postgres-exporter prometheus-sql-exporter prometheus python3-yaml patroni etcd-server etcd-client
        postgresql-server-dev-all postgresql-all libpq-dev debhelper dpkg-dev lintian fakeroot)
missing=()
for p in "${wanted[@]}"; do
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
    # the newest first: it has the most jobs waiting for it
    if [[ $m == 17 ]]; then trixie+=("$m"); else sid=("$m" "${sid[@]}"); fi
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

newest=${majors[-1]}
# One job's suites: a major's (MAJOR), one TAP file on a major
# (MAJOR-tap:FILE: the newest's slow files, 15's long ones) or 15's
# mutation check (15-mutation). --tap-only and --mutation-only install or
# build into their own scratch directories, so jobs run side by side.
# Writes run-JOB.log and run-JOB.status ("RC SECONDS PREP...").
# What runs where: 15 (the host's) runs every suite; the newest major
# pg_regress, the version-dependent TAP files, unit and sim (which include
# nothing from PostgreSQL: they run on the host's and the newest
# compiler), and its slow TAP files; the majors between pg_regress and
# the version-dependent TAP files. What is the same on every major is
# proven on 15; what differs, on each. The Debian package is built and
# checked on 15 and on 17, the default major of the chroot's release.
run_major() {
    local job=$1 m=${1%%-*} log=$logdir/run-$1.log rc=0 t0 waited prep args=(--no-slow-tap)
    if [[ $job == *-tap:* ]]; then args=(--tap-only "test/t/${job#*-tap:}")
    elif [[ $job == 15-tap ]]; then args=(--tap-only "${short[@]}")
    elif [[ $job == *-mutation ]]; then args=(--mutation-only)
    elif [[ $m == 15 ]]; then args+=(--no-tap --fuzz --bench-smoke --pgxn --monitoring --package)
    elif [[ $m == "$newest" ]]; then args+=(--version-tap-only)
    else args+=(--no-pure --version-tap-only); fi
    [[ $job != 17 ]] || args+=(--package)
    if [[ $m == 15 ]]; then
        prep=host
        t0=$SECONDS
        bash "$here/run-suites.sh" --pg-config /usr/lib/postgresql/15/bin/pg_config \
            "${args[@]}" >"$log" 2>&1 || rc=$?
    else
        t0=$SECONDS
        wait_prepare "$m"
        waited=$((SECONDS - t0))
        prep="${state[$m]} ${prep_secs}s (waited ${waited}s)"
        if ((prep_rc != 0)); then
            cp "$logdir/prepare-$m.log" "$log"
            echo "1 0 chroot preparation failed" >"$logdir/run-$job.status"
            return
        fi
        t0=$SECONDS
        # run-suites.sh copies /src into the chroot's scratch space itself.
        bash "$chroot_sh" run "$m" --bind "$srcdir:/src" -- \
            bash /src/test/run-suites.sh --pg-config "/usr/lib/postgresql/$m/bin/pg_config" \
            "${args[@]}" >"$log" 2>&1 || rc=$?
    fi
    echo "$rc $((SECONDS - t0)) $prep" >"$logdir/run-$job.status"
    say "$job: $(tail -n 1 "$log") in $((SECONDS - t0))s"
}

# The jobs, in the order the workers take them: each major's own job
# (the longest), then the newest's slow files and 15's long ones, each a
# job of its own so that the workers share them out evenly.
# 15's TAP files but the slow and the long: one job (15-tap) beside 15's
# other suites, whose pgxn and package checks install over 15's files
# while --tap-only's servers load the job's own build.
short=()
for f in "$srcdir"/test/t/*.pl; do
    grep -q -E '^# walsizer-test: (slow|long)$' "$f" || short+=("test/t/${f##*/}")
done
queue=()
[[ " ${majors[*]} " != *" 15 "* ]] || queue+=(15-tap 15)
[[ $newest == 15 ]] || queue+=("$newest")
for m in "${majors[@]}"; do
    [[ $m == 15 || $m == "$newest" ]] || queue+=("$m")
done
# The one-file jobs, longest first (a file's "# walsizer-test: minutes N",
# about how long it runs on a quiet machine; 1 if it says nothing), so that
# none of the longest is left to run alone at the end.
minutes() { sed -n 's/^# walsizer-test: minutes \([0-9]*\)$/\1/p' "$srcdir/$1" | grep . || echo 1; }
one_file_jobs=()
for f in "${slow[@]}"; do one_file_jobs+=("$(minutes "$f") $newest-tap:${f##*/}"); done
if [[ " ${majors[*]} " == *" 15 "* ]]; then
    for f in "${long[@]}"; do one_file_jobs+=("$(minutes "$f") 15-tap:${f##*/}"); done
fi
if ((${#one_file_jobs[@]})); then
    while read -r _ job; do queue+=("$job"); done < <(printf '%s\n' "${one_file_jobs[@]}" | sort -k1,1nr -s)
fi
jobs=("${queue[@]}")

# A job may start once its major is there: the host's at once, a chroot's
# once it is prepared (or its preparation has failed, which the job
# reports).
job_ready() {
    local m=${1%%-*}
    [[ $m == 15 || -e $logdir/prepare-$m.status ]] || ! kill -0 "${prep_job[$m]}" 2>/dev/null
}

# A worker takes the first job in the queue that no worker has taken and
# that may start (mkdir claims it atomically), runs it, and goes on until
# none is left; while the only ones left wait for a chroot, it waits too.
worker() {
    local job taken waiting
    while :; do
        taken='' waiting=0
        for job in "${queue[@]}"; do
            [[ ! -d $logdir/claim-$job ]] || continue
            if ! job_ready "$job"; then
                waiting=1
                continue
            fi
            if mkdir "$logdir/claim-$job" 2>/dev/null; then
                taken=$job
                break
            fi
        done
        if [[ -n $taken ]]; then
            run_major "$taken"
        elif ((waiting)); then
            sleep 2
        else
            return 0
        fi
    done
}

# Four workers: the TAP files spend most of their time waiting for the
# server's cadence (windows, checkpoints), so four keep two cores busy
# about as a shared CI machine would be; the tests are written to hold on
# a machine twice as slow. The mutation check is a fifth job beside them,
# at the lowest CPU priority: it is pure computation that no test times,
# and it must not slow the servers whose cadence the TAP files time.
worker_pids=()
for _ in 1 2 3 4; do
    worker &
    worker_pids+=("$!")
done
if [[ " ${majors[*]} " == *" 15 "* ]]; then
    jobs+=(15-mutation)
    (renice -n 19 -p "$BASHPID" >/dev/null && run_major 15-mutation) &
    worker_pids+=("$!")
fi
for pid in "${worker_pids[@]}"; do wait "$pid" || true; done

for m in "${jobs[@]}"; do
    printf '\n########## PostgreSQL %s\n' "$m"
    log=$logdir/run-$m.log
    cat "$log" 2>/dev/null || true
    rc=1 secs=0 prep="no status: the run did not finish"
    [[ ! -e $logdir/run-$m.status ]] || read -r rc secs prep <"$logdir/run-$m.status"
    row_prep[$m]=$prep row_test[$m]=$secs
    tally "$m" "$log" "$rc"
done

# the advisor 15's build installed on the host, with 15's libpq, against
# each newer server: one more check, counted with that major
host_advisor=/usr/lib/postgresql/15/bin/pg_walsizer_advisor
if [[ " ${majors[*]} " == *" 15 "* ]]; then
    for m in "${majors[@]}"; do
        [[ $m != 15 ]] || continue
        compat_rc=0
        bash "$here/advisor-libpq-compat.sh" "$m" "$host_advisor" >>"$logdir/run-$m.log" 2>&1 || compat_rc=$?
        tail -n 1 "$logdir/run-$m.log"
        if ((compat_rc == 0)); then
            row_pass[$m]=$((row_pass[$m] + 1))
        else
            row_fail[$m]=$((row_fail[$m] + 1)) row_note[$m]="${row_note[$m]:-}advisor with 15's libpq failed"
        fi
    done
fi

printf '\n########## Summary\n'
for m in "${jobs[@]}"; do
    # run-suites.sh prints each suite's line twice: after it, and at its end.
    # (awk, not grep: a log without such a line must not end the script)
    # a one-file job's line names its file
    [[ ! -e $logdir/run-$m.log ]] ||
        awk -v file="${m#*-tap:}" -v one="$([[ $m == *-tap:* ]] && echo 1)" '
            /^PG [0-9]+ [a-z-]+: / && !seen[$0]++ {
                if (one) sub(/: /, " (" file "): ")
                print
            }' "$logdir/run-$m.log"
done
echo
printf '%-42s %-28s %7s %7s %7s  %s\n' job chroot tests passed failed note
total_pass=0 total_fail=0
for m in "${jobs[@]}"; do
    printf '%-42s %-28s %6ss %7s %7s  %s\n' "$m" "${row_prep[$m]}" "${row_test[$m]}" \
        "${row_pass[$m]}" "${row_fail[$m]}" "${row_note[$m]:-}"
    total_pass=$((total_pass + row_pass[$m])) total_fail=$((total_fail + row_fail[$m]))
done
if ((total_fail)); then
    say "logs kept in $logdir"
else
    rm -rf "$logdir"
fi
echo "$total_pass passed, $total_fail failed"
((total_fail == 0))
