#!/usr/bin/env bash
# bench/experiments/production-shape/run.sh - pg_walsizer on a
# production-shaped server (checkpoint_timeout 5min, shared_buffers 1GB)
# under a fixed-rate pgbench load, from a given starting max_wal_size.
#
#   sudo bench/experiments/production-shape/run.sh NAME START_MB RATE [init20]
#
# One run: a fresh PostgreSQL 15 cluster, copied from a template that
# already holds the pgbench tables (scale PS_SCALE, initialised once, before
# anything is measured, on a server without pg_walsizer), started with
# max_wal_size = START_MB and pg_walsizer preloaded with its default
# settings; then, on the run's clock (t = 0 just after a CHECKPOINT):
#
#   init20  (optional) pgbench -i -s 20 into a second database first, right
#           after the server started: a bulk load from the starting size
#   pgbench -R RATE --latency-limit=PS_LATENCY_LIMIT -P 5 -c 4 -j 2
#           -T PS_SECONDS on the scale-PS_SCALE tables
#
# The raw figures go to PS_OUT/NAME/ (PS_OUT is raw/ beside this script
# unless set); report.py turns them into REPORT.md:
#
#   meta.csv         key,value: settings, times, the build, WAL positions
#   samples.csv      t,max_wal_size_mb,lsn_bytes every PS_SAMPLE seconds
#   pgbench.out      pgbench's own output (its -P 5 lines and summary)
#   init20.out       pgbench -i -s 20's output (init20 runs only)
#   checkpoints.csv  t,kind,distance_kb: every checkpoint the log shows
#                    from the run's own CHECKPOINT on, to the one at the end
#                    that completes the last timed checkpoint
#   decisions.csv    SELECT * FROM walsizer.decisions at the end, with t
#   status.txt       walsizer.status at the end (expanded)
#   settings.csv     the server's checkpoint and walsizer.* settings at the end
#   server.log       the server's log from the run's CHECKPOINT on
#
# Environment (defaults are the production shape):
#   PS_TIMEOUT        checkpoint_timeout (5min)
#   PS_SECONDS        length of the fixed-rate load (1320: 22 min, four
#                     whole 5-minute cycles after the first)
#   PS_SCALE          pgbench scale of the measured tables (100)
#   PS_LATENCY_LIMIT  pgbench --latency-limit in ms (500)
#   PS_SAMPLE         seconds between samples of max_wal_size (2)
#   PS_PORT           port that names the Unix socket (55460)
#   PS_OUT            where NAME/ goes (raw/ beside this script)
#   PS_TEMPLATE       the template cluster (/tmp/walsizer-prodshape-template-s<scale>)
#
# autovacuum is off, so that no WAL comes at random moments, the same in
# every run.  pg_walsizer must be installed for PostgreSQL 15 (make install).
# Two runs may go at once with different PS_PORTs: the template is built
# under a lock by whichever comes first.
set -euo pipefail

if (($# < 3)); then
    sed -n '2,/^set -euo/p' "$0" | sed 's/^# \{0,1\}//; /^set -euo/d' >&2
    exit 2
fi
name=$1 start_mb=$2 rate=$3 extra=${4:-}
case $extra in "" | init20) ;; *) echo "run.sh: unknown option $extra" >&2; exit 2 ;; esac

here=$(dirname "$(readlink -f "$0")")
timeout=${PS_TIMEOUT:-5min}
seconds=${PS_SECONDS:-1320}
scale=${PS_SCALE:-100}
latency_limit=${PS_LATENCY_LIMIT:-500}
sample=${PS_SAMPLE:-2}
port=${PS_PORT:-55460}
out=${PS_OUT:-$here/raw}
template=${PS_TEMPLATE:-/tmp/walsizer-prodshape-template-s$scale}
bindir=/usr/lib/postgresql/15/bin
libfile=/usr/lib/postgresql/15/lib/pg_walsizer.so
export PATH=$bindir:$PATH

((EUID == 0)) || { echo "run.sh: run as root (the server runs as postgres)" >&2; exit 1; }
[[ -e $libfile ]] || { echo "run.sh: pg_walsizer is not installed for PostgreSQL 15" >&2; exit 1; }
[[ -x $bindir/pgbench ]] || { echo "run.sh: no pgbench in $bindir (postgresql-contrib)" >&2; exit 1; }

as_pg() { runuser -u postgres -- "$@"; }
now() { date +%s.%N; }
since_t0() { awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
say() { printf '%s [%s] %s\n' "$(date -u +%H:%M:%S)" "$name" "$*"; }

# --- the template: the pgbench tables, initialised once, without pg_walsizer
make_template() {
    local tdir=$template.build
    rm -rf "$tdir"
    mkdir -p "$tdir"
    chown postgres: "$tdir"
    say "template: initdb and pgbench -i -s $scale (once)"
    as_pg initdb -D "$tdir/data" -A trust >/dev/null
    cp "$tdir/data/postgresql.conf" "$tdir/postgresql.conf.orig"
    cat >>"$tdir/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$tdir'
port = $port
max_wal_size = 4GB
shared_buffers = 1GB
CONF
    as_pg pg_ctl -D "$tdir/data" -l "$tdir/log" -w start >/dev/null
    as_pg pgbench -i -q -s "$scale" -h "$tdir" -p "$port" postgres >"$tdir/init.out" 2>&1
    as_pg psql -X -q -h "$tdir" -p "$port" -d postgres -v ON_ERROR_STOP=1 \
        -c 'CREATE DATABASE init20' -c 'CHECKPOINT'
    as_pg pg_ctl -D "$tdir/data" -m fast -w stop >/dev/null
    cp "$tdir/postgresql.conf.orig" "$tdir/data/postgresql.conf"
    chown postgres: "$tdir/data/postgresql.conf"
    mv "$tdir" "$template"
}
exec 9>"$template.lock"
flock 9
[[ -d $template/data ]] || make_template
flock -u 9

# --- the run's own cluster
work=$(mktemp -d "/tmp/walsizer-prodshape-$name.XXXXXX")
chown postgres: "$work"
data=$work/data
log=$work/log
rundir=$out/$name
server_up=0
sampler_pid=
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if [[ -n $sampler_pid ]]; then
        touch "$work/sampler.stop"
        wait "$sampler_pid" 2>/dev/null || true
    fi
    if ((server_up)); then
        as_pg pg_ctl -D "$data" -m fast -w stop >/dev/null 2>&1 || true
    fi
    # only this run's own scratch directory
    rm -rf "$work"
    ((status == 0)) || say "stopped (exit status $status)"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

rm -rf "$rundir"
mkdir -p "$rundir"
say "copying the template"
cp -a "$template/data" "$data"
cat >>"$data/postgresql.conf" <<CONF

# --- production-shape experiment: run $name ---
listen_addresses = ''
unix_socket_directories = '$work'
port = $port
shared_buffers = 1GB
checkpoint_timeout = $timeout
checkpoint_completion_target = 0.9
max_wal_size = ${start_mb}MB
log_checkpoints = on
# epoch timestamps, so the log's lines fall on the run's own clock
log_line_prefix = '%n [%p] '
autovacuum = off
shared_preload_libraries = 'pg_walsizer'
walsizer.enable = on
CONF
chown postgres: "$data/postgresql.conf"

psql_=(as_pg psql -X -q -h "$work" -p "$port" -d postgres -v ON_ERROR_STOP=1)
sql_value() { "${psql_[@]}" -At -c "$1"; }
meta() { printf '%s,%s\n' "$1" "$2" >>"$rundir/meta.csv"; }

meta name "$name"
meta start_mb "$start_mb"
meta rate "$rate"
meta init20 "$([[ $extra == init20 ]] && echo 1 || echo 0)"
meta scale "$scale"
meta seconds "$seconds"
meta latency_limit_ms "$latency_limit"
meta sample_s "$sample"
meta clients 4
meta threads 2
meta autovacuum off
meta started_utc "$(date -u '+%Y-%m-%d %H:%M:%S')"
meta library_mtime_utc "$(date -u -r "$libfile" '+%Y-%m-%d %H:%M:%S')"
meta library_md5 "$(md5sum "$libfile" | cut -d' ' -f1)"
meta source_commit "$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"
meta loadavg_start "$(cut -d' ' -f1-3 /proc/loadavg)"
meta machine "$(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo), $(uname -r)"

say "starting the server at max_wal_size ${start_mb}MB, checkpoint_timeout $timeout"
as_pg pg_ctl -D "$data" -l "$log" -w start >/dev/null
server_up=1
meta server_version "$(sql_value 'SHOW server_version')"
"${psql_[@]}" -c 'CREATE EXTENSION IF NOT EXISTS pg_walsizer'
for _ in $(seq 50); do
    [[ $(sql_value 'SELECT worker_pid IS NOT NULL FROM walsizer.status') == t ]] && break
    sleep 0.2
done

# t = 0: right after a CHECKPOINT, whose log lines are the first the run keeps
log_from=$(stat -c %s "$log")
"${psql_[@]}" -c CHECKPOINT
t0=$(now)
meta t0_epoch "$t0"
meta lsn_start "$(sql_value "SELECT pg_current_wal_lsn() - '0/0'")"

# the sampler: one long-lived psql reading a query every PS_SAMPLE seconds
echo 't,max_wal_size_mb,lsn_bytes' >"$rundir/samples.csv"
{
    while [[ ! -e $work/sampler.stop ]]; do
        echo "SELECT round((extract(epoch FROM clock_timestamp()) - $t0)::numeric, 3),
                     (SELECT setting FROM pg_settings WHERE name = 'max_wal_size'),
                     pg_current_wal_lsn() - '0/0';"
        sleep "$sample"
    done
} | as_pg psql -X -q -A -t -F, -h "$work" -p "$port" -d postgres >>"$rundir/samples.csv" &
sampler_pid=$!

if [[ $extra == init20 ]]; then
    say "pgbench -i -s 20 into database init20"
    meta init20_start_t "$(since_t0)"
    as_pg pgbench -i -s 20 -h "$work" -p "$port" init20 >"$rundir/init20.out" 2>&1
    meta init20_end_t "$(since_t0)"
fi

say "pgbench -R $rate for $seconds s"
meta load_start_t "$(since_t0)"
as_pg pgbench -n -R "$rate" --latency-limit="$latency_limit" -P 5 -c 4 -j 2 -T "$seconds" \
    -h "$work" -p "$port" postgres >"$rundir/pgbench.out" 2>&1 || {
    tail -20 "$rundir/pgbench.out" >&2
    exit 1
}
meta load_end_t "$(since_t0)"
meta lsn_end "$(sql_value "SELECT pg_current_wal_lsn() - '0/0'")"
meta final_max_wal_size_mb "$(sql_value "SELECT setting FROM pg_settings WHERE name = 'max_wal_size'")"
meta loadavg_end "$(cut -d' ' -f1-3 /proc/loadavg)"
# The last timed checkpoint logs its distance only when it completes, 0.9 of
# a cycle after it started: a CHECKPOINT now makes it finish at once (and
# then does one of its own, logged as "immediate force wait", not timed).
"${psql_[@]}" -c CHECKPOINT
meta end_checkpoint_t "$(since_t0)"
touch "$work/sampler.stop"
wait "$sampler_pid" || true
sampler_pid=

"${psql_[@]}" -A -F, -P footer=off -c "SELECT round((extract(epoch FROM at) - $t0)::numeric, 3) AS t,
        at, action, old_mb, new_mb, requested, timed, wal_forced, wal_bytes,
        round(window_s::numeric, 1) AS window_s, confirmed,
        replace(reason, ',', ';') AS reason, role
      FROM walsizer.decisions ORDER BY at" >"$rundir/decisions.csv"
"${psql_[@]}" -x -c 'SELECT * FROM walsizer.status' >"$rundir/status.txt"
"${psql_[@]}" -A -F, -P footer=off -c "SELECT name, setting, unit, source FROM pg_settings
      WHERE name ~ '^walsizer\.' OR name IN ('max_wal_size', 'min_wal_size', 'checkpoint_timeout',
        'checkpoint_completion_target', 'shared_buffers', 'autovacuum', 'wal_compression',
        'full_page_writes', 'synchronous_commit', 'shared_preload_libraries')
      ORDER BY name" >"$rundir/settings.csv"
"${psql_[@]}" -A -F, -P footer=off -c 'SELECT checkpoints_timed, checkpoints_req FROM pg_stat_bgwriter' >"$rundir/bgwriter.csv"

# the log from the run's CHECKPOINT on; the checkpoints in it on the run's clock.
# "1764471234.567 [123] LOG:  checkpoint starting: wal" and, later,
# "... LOG:  checkpoint complete: ...; distance=43210 kB, estimate=...".
# Checkpoints never overlap, so a "complete" line belongs to the last
# "starting" line before it.
tail -c +"$((log_from + 1))" "$log" >"$rundir/server.log"
echo 't,kind,distance_kb' >"$rundir/checkpoints.csv"
awk -v t0="$t0" '
    /checkpoint starting: / {
        n++
        kind = $0; sub(/.*checkpoint starting: /, "", kind)
        gsub(/ /, "+", kind)
        t[n] = sprintf("%.3f", $1 - t0); kinds[n] = kind; dist[n] = ""
        next
    }
    /checkpoint complete: / && n > 0 && dist[n] == "" && match($0, /distance=[0-9]+ kB/) {
        dist[n] = substr($0, RSTART + 9, RLENGTH - 12)
    }
    END { for (i = 1; i <= n; i++) printf "%s,%s,%s\n", t[i], kinds[i], dist[i] }' \
    "$rundir/server.log" >>"$rundir/checkpoints.csv"

as_pg pg_ctl -D "$data" -m fast -w stop >/dev/null
server_up=0
meta finished_utc "$(date -u '+%Y-%m-%d %H:%M:%S')"
say "done: final max_wal_size $(awk -F, '$1 == "final_max_wal_size_mb" { print $2 }' "$rundir/meta.csv") MB"
