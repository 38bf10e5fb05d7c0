#!/usr/bin/env bash
# bench/experiments/what-if/run.sh - checks walsizer.what_if() against the
# server: predicts, at three sizes, the checkpoints, forced checkpoints,
# WAL per hour and worst crash recovery, then runs each size and measures
# them.
#
#   sudo bench/experiments/what-if/run.sh NAME [PG_BINDIR]
#
# One PostgreSQL cluster (PG_BINDIR, /usr/lib/postgresql/15/bin unless
# given; pg_walsizer installed for it), pg_walsizer preloaded in dry_run
# (it measures and advises, the run sets max_wal_size itself), a
# fixed-rate pgbench (WI_RATE transactions/s, scale WI_SCALE: a working set
# larger than one checkpoint_timeout's updates touch, so full-page images
# fall as cycles lengthen), checkpoint_timeout WI_TIMEOUT.
#
#   calibrate  at 1GB: WI_SECONDS of load, then a SIGKILL at the worst
#              point of the cycle and a restart, so that the replay rate
#              in use is one this machine measured
#   predict    at the recommendation pg_walsizer gave: WI_SECONDS of
#              load, then what_if(sizes => small, 4x) is kept as the
#              prediction of all three rows; then a SIGKILL and a restart
#   small, 4x  at a size that forces checkpoints (a sixteenth of the
#              recommendation) and at four times it: the same load, what
#              the run measures, a SIGKILL and a restart
#
# "The worst point": the load goes on after its measured part until WAL
# since the last completed checkpoint's redo pointer reaches 97 % of the
# most it reached in that part, and the postmaster is killed there.  The
# recovery time is from pg_ctl start to the first accepted connection.
#
# The raw figures go to WI_OUT/NAME/ (WI_OUT is raw/ beside this script
# unless set); report.py turns every run there into REPORT.md:
#   meta.csv          key,value: the settings, the build, the machine
#   prediction.csv    what_if() at the end of the predict phase
#   what_if_<phase>.csv  what_if() at the end of each phase
#   phase_<phase>.csv key,value: size, WAL and time of the measured part,
#                     the checkpoints the log shows in it, the kill and the
#                     recovery
#   server.log        the server's log
set -euo pipefail

if (($# < 1)); then
    sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//; /^set -euo/d' >&2
    exit 2
fi
name=$1
bindir=${2:-/usr/lib/postgresql/15/bin}
here=$(dirname "$(readlink -f "$0")")
rate=${WI_RATE:-400}
scale=${WI_SCALE:-10}
timeout_s=${WI_TIMEOUT:-60}
seconds=${WI_SECONDS:-240}
port=${WI_PORT:-55480}
out=${WI_OUT:-$here/raw}
export PATH=$bindir:$PATH

((EUID == 0)) || { echo "run.sh: run as root (the server runs as postgres)" >&2; exit 1; }
[[ -x $bindir/pgbench ]] || { echo "run.sh: no pgbench in $bindir" >&2; exit 1; }
[[ -e $("$bindir/pg_config" --pkglibdir)/pg_walsizer.so ]] ||
    { echo "run.sh: pg_walsizer is not installed for $bindir" >&2; exit 1; }

as_pg() { runuser -u postgres -- "$@"; }
now() { date +%s.%N; }
say() { printf '%s [%s] %s\n' "$(date -u +%H:%M:%S)" "$name" "$*"; }

work=$(mktemp -d "/tmp/walsizer-what-if-$name.XXXXXX")
chown postgres: "$work"
data=$work/data
log=$work/log
rundir=$out/$name
server_up=0
load_pid=
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    [[ -z $load_pid ]] || kill "$load_pid" 2>/dev/null || true
    if ((server_up)); then
        as_pg pg_ctl -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    [[ ! -f $log ]] || cp "$log" "$rundir/server.log" 2>/dev/null || true
    rm -rf "$work"
    ((status == 0)) || say "stopped (exit status $status)"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
rm -rf "$rundir"
mkdir -p "$rundir"

psql_=(as_pg psql -X -q -h "$work" -p "$port" -d postgres -v ON_ERROR_STOP=1)
sql_value() { "${psql_[@]}" -At -c "$1"; }
meta() { printf '%s,%s\n' "$1" "$2" >>"$rundir/meta.csv"; }
put() { printf '%s,%s\n' "$2" "$3" >>"$rundir/phase_$1.csv"; }

as_pg initdb -D "$data" -A trust >/dev/null
cat >>"$data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$work'
port = $port
checkpoint_timeout = ${timeout_s}s
checkpoint_completion_target = 0.9
max_wal_size = 1GB
log_checkpoints = on
log_line_prefix = '%n [%p] '
autovacuum = off
synchronous_commit = off
shared_preload_libraries = 'pg_walsizer'
walsizer.dry_run = on
CONF

# Starts the server and sets ready_s: seconds from pg_ctl start to the
# first accepted connection (a crash recovery's unavailability).
start_server() {
    local t_start t_ready
    t_start=$(now)
    if ! as_pg pg_ctl -D "$data" -l "$log" -t 600 -w start >/dev/null; then
        cp "$log" "$rundir/server.log"
        return 1
    fi
    server_up=1
    until as_pg psql -X -h "$work" -p "$port" -d postgres -Atc 'SELECT 1' >/dev/null 2>&1; do
        sleep 0.05
    done
    t_ready=$(now)
    ready_s=$(awk -v a="$t_start" -v b="$t_ready" 'BEGIN { printf "%.2f", b - a }')
}

start_server
meta server_version "$(sql_value 'SHOW server_version')"
meta rate "$rate"
meta scale "$scale"
meta checkpoint_timeout_s "$timeout_s"
meta seconds "$seconds"
meta shared_buffers "$(sql_value 'SHOW shared_buffers')"
meta source_commit "${WI_COMMIT:-$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)}"
meta machine "$(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo)"
meta loadavg_start "$(cut -d' ' -f1-3 /proc/loadavg)"
"${psql_[@]}" -c 'CREATE EXTENSION pg_walsizer'
say "pgbench -i -s $scale"
as_pg pgbench -i -q -s "$scale" -h "$work" -p "$port" postgres >"$rundir/init.out" 2>&1
"${psql_[@]}" -c CHECKPOINT

# WAL since the last completed checkpoint's redo pointer, in bytes
pending_sql="SELECT pg_current_wal_insert_lsn() - redo_lsn FROM pg_control_checkpoint()"
lsn_sql="SELECT pg_current_wal_insert_lsn() - '0/0'"

# A crash: SIGKILL to the postmaster, so it starts no other process, and
# to every process of the server (their working directory is the data
# directory; one forked just before may still come, so until none is left).
kill_server() {
    local pid left pm
    pm=$(head -1 "$data/postmaster.pid")
    kill -KILL "$pm" 2>/dev/null || true
    for _ in $(seq 100); do
        left=0
        for pid in $(pgrep -u postgres); do
            [[ $(readlink "/proc/$pid/cwd" 2>/dev/null) == "$data" ]] || continue
            kill -KILL "$pid" 2>/dev/null || true
            left=1
        done
        if ((!left)); then
            # a postmaster its parent has not reaped (a container's init may
            # not) still looks alive to the next start: its lock file goes
            [[ $(awk '/^State:/ { print $2 }' "/proc/$pm/status" 2>/dev/null) != Z ]] ||
                rm -f "$data/postmaster.pid" "$work/.s.PGSQL.$port.lock"
            return 0
        fi
        sleep 0.1
    done
    echo "run.sh: the server's processes outlived SIGKILL" >&2
    return 1
}

# Keeps d, the WAL pending now, cycle_max, the most in the cycle in
# progress, and worst, the most in the last whole one.
track_pending() {
    d=$(sql_value "$pending_sql")
    if ((d * 2 < last_d)); then
        worst=$cycle_max cycle_max=0
    fi
    ((d > cycle_max)) && cycle_max=$d
    last_d=$d
}

# One phase at a size: the load, its measured part, the kill at the worst
# point and the restart.  $2 is the size in MB.
phase() {
    local phase=$1 size_mb=$2 t0 lsn0 t1 lsn1 log_from
    worst=0 cycle_max=0 last_d=0
    say "$phase: max_wal_size ${size_mb}MB"
    "${psql_[@]}" -c "ALTER SYSTEM SET max_wal_size = '${size_mb}MB'" -c 'SELECT pg_reload_conf()' >/dev/null
    put "$phase" size_mb "$size_mb"
    put "$phase" loadavg_start "$(cut -d' ' -f1 /proc/loadavg)"
    as_pg pgbench -n -R "$rate" -c 4 -j 2 -T $((seconds * 3)) -h "$work" -p "$port" postgres \
        >"$rundir/pgbench_$phase.out" 2>&1 &
    load_pid=$!
    # the first cycle after a restart or a new size is left out
    sleep "$timeout_s"
    log_from=$(stat -c %s "$log")
    t0=$(now)
    lsn0=$(sql_value "$lsn_sql")
    # worst: the most WAL pending in the last whole cycle (the pending
    # WAL falls by half or more when a checkpoint completes)
    while awk -v a="$t0" -v b="$(now)" -v s="$seconds" 'BEGIN { exit !(b - a < s) }'; do
        track_pending
        sleep 0.25
    done
    t1=$(now)
    lsn1=$(sql_value "$lsn_sql")
    put "$phase" measured_s "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')"
    put "$phase" wal_bytes $((lsn1 - lsn0))
    tail -c +$((log_from + 1)) "$log" >"$rundir/log_$phase.txt"
    "${psql_[@]}" --csv -c "SELECT * FROM walsizer.what_if(sizes => '{$3}')" \
        >"$rundir/what_if_$phase.csv"
    "${psql_[@]}" --csv -c "SELECT * FROM walsizer.recommendation" >"$rundir/recommendation_$phase.csv"
    "${psql_[@]}" --csv -c "SELECT replay_rate_bytes_per_s, replay_rate_source FROM walsizer.status" \
        >"$rundir/replay_$phase.csv"
    put "$phase" worst_pending_bytes "$worst"
    # the worst point: 97 % of the most WAL pending in the last whole cycle
    while :; do
        track_pending
        ((worst > 0 && d * 100 >= worst * 97)) && break
        sleep 0.05
    done
    kill_server
    put "$phase" killed_pending_bytes "$d"
    kill "$load_pid" 2>/dev/null || true
    wait "$load_pid" 2>/dev/null || true
    load_pid=
    server_up=0
    sleep 1
    start_server
    put "$phase" recovery_s "$ready_s"
    put "$phase" loadavg_end "$(cut -d' ' -f1 /proc/loadavg)"
    say "$phase: recovered in $(tail -1 "$rundir/phase_$phase.csv" | cut -d, -f2) s"
}

phase calibrate 1024 ""
# the recommendation the calibrate phase's load had, before the crash
recommended=$(awk -F, 'NR == 2 { print $3 }' "$rundir/recommendation_calibrate.csv")
small=$(( (recommended / 16 + 15) / 16 * 16 ))
((small >= 32)) || small=32
four=$((recommended * 4))
meta recommended_mb "$recommended"
meta small_mb "$small"
meta four_mb "$four"
phase predict "$recommended" "${small}MB,${four}MB"
cp "$rundir/what_if_predict.csv" "$rundir/prediction.csv"
phase small "$small" "${recommended}MB,${four}MB"
phase four "$four" "${small}MB,${recommended}MB"
meta loadavg_end "$(cut -d' ' -f1-3 /proc/loadavg)"
say "done: $rundir"
