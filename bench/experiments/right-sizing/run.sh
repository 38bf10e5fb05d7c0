#!/usr/bin/env bash
# bench/experiments/right-sizing/run.sh - the right-sizing acceptance runs:
# steady pgbench from max_wal_size 64MB at several load levels, with
# pg_walsizer and against a hand-tuned 4GB server, and bulk loads.
#
#   sudo bench/experiments/right-sizing/run.sh OUTDIR RUN...
#
# RUN is NAME:KIND:CONFIG:SCALE:CLIENTS:SECONDS, where KIND is
#   steady  pgbench tpcb-like for SECONDS on a fresh scale-SCALE database
#   burst   pgbench -i -s SCALE (a bulk load) on a server already at CONFIG
# and CONFIG is "walsizer" (64 MB, pg_walsizer preloaded), "tuned" (4 GB,
# not loaded) or a size in MB with pg_walsizer preloaded (for burst).
# Each run gets a throwaway PostgreSQL 15 cluster (checkpoint_timeout 30s,
# shared_buffers 128MB, autovacuum off) in /tmp, served as postgres.  One
# CSV line per run goes to OUTDIR/runs.csv; the log, walsizer.decisions
# and the one-second samples go to OUTDIR/NAME/.  pg_walsizer must be
# installed for PostgreSQL 15 (make install).
set -euo pipefail

outdir=$(readlink -f "$1"); shift
bindir=/usr/lib/postgresql/15/bin
export PATH=$bindir:$PATH
mkdir -p "$outdir"
[[ -e $outdir/runs.csv ]] ||
    echo "name,kind,config,scale,clients,seconds,forced,timed,wal_mb,tps,first_change,first_change_at_s,final_mb,cycle_mb,cycles_need_mb,final_over_need,changes" >"$outdir/runs.csv"

as_pg() { runuser -u postgres -- "$@"; }

run_one() {
    local name=$1 kind=$2 config=$3 scale=$4 clients=$5 seconds=$6
    local dir=/tmp/rs-$name port=55432 rundir=$outdir/$name
    rm -rf "$dir" "$rundir"; mkdir -p "$dir" "$rundir"; chown postgres "$dir"
    as_pg initdb -D "$dir/data" -A trust >/dev/null
    local size=64MB preload=on
    case $config in
        tuned) size=4GB preload=off ;;
        walsizer) ;;
        *) size=${config}MB ;;
    esac
    cat >>"$dir/data/postgresql.conf" <<CONF
port = $port
listen_addresses = ''
unix_socket_directories = '$dir'
shared_buffers = 128MB
checkpoint_timeout = 30s
max_wal_size = $size
min_wal_size = 32MB
log_checkpoints = on
log_line_prefix = '%m '
autovacuum = off
CONF
    if [[ $preload == on ]]; then
        printf "shared_preload_libraries = 'pg_walsizer'\nwalsizer.enable = off\n" >>"$dir/data/postgresql.conf"
    fi
    as_pg pg_ctl -D "$dir/data" -l "$dir/log" -w start >/dev/null
    local psql=(as_pg psql -X -qAt -h "$dir" -p "$port" -d postgres)
    if [[ $kind == steady ]]; then
        as_pg pgbench -i -q -s "$scale" -h "$dir" -p "$port" postgres >/dev/null 2>&1
    else
        as_pg pgbench -i -q -s 1 -h "$dir" -p "$port" postgres >/dev/null 2>&1
    fi
    "${psql[@]}" -c CHECKPOINT
    [[ $preload == off ]] || "${psql[@]}" -c 'CREATE EXTENSION pg_walsizer'
    if [[ $preload == on ]]; then
        sed -i 's/^walsizer.enable = off$/walsizer.enable = on/' "$dir/data/postgresql.conf"
        "${psql[@]}" -c 'SELECT pg_reload_conf()' >/dev/null
        sleep 2
    fi
    local log_from lsn0 t0 tps=""
    log_from=$(stat -c %s "$dir/log")
    lsn0=$("${psql[@]}" -c 'SELECT pg_current_wal_lsn()')
    t0=$(date +%s.%N)
    # one sample a second: time, max_wal_size the server runs
    ( while sleep 1; do
        printf '%s,%s\n' "$(echo "$(date +%s.%N) - $t0" | bc)" \
            "$("${psql[@]}" -c "SELECT setting FROM pg_settings WHERE name='max_wal_size'" 2>/dev/null)"
      done >"$rundir/samples.csv" ) &
    local sampler=$!
    if [[ $kind == steady ]]; then
        tps=$(as_pg pgbench -c "$clients" -j 2 -T "$seconds" -h "$dir" -p "$port" postgres 2>/dev/null |
            sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
    else
        sleep 5
        as_pg pgbench -i -q -s "$scale" -h "$dir" -p "$port" postgres >/dev/null 2>&1
        sleep "$seconds"
    fi
    kill "$sampler" 2>/dev/null || true; wait "$sampler" 2>/dev/null || true
    local wal_mb forced timed
    wal_mb=$("${psql[@]}" -c "SELECT round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn0') / 1048576)")
    tail -c +"$((log_from + 1))" "$dir/log" >"$rundir/server.log"
    forced=$(grep -c 'checkpoint starting: wal' "$rundir/server.log" || true)
    timed=$(grep -c 'checkpoint starting: time' "$rundir/server.log" || true)
    local first="" first_at="" final cycle_mb="" need="" ratio="" changes=0
    final=$("${psql[@]}" -c "SELECT setting FROM pg_settings WHERE name='max_wal_size'")
    # the largest timed cycle but the first, from the server's own log
    cycle_mb=$(awk '/checkpoint starting: time/ { timed = 1; next }
        /checkpoint starting:/ { timed = 0; next }
        /checkpoint complete:/ && timed { n++; if (n > 1 && match($0, /distance=[0-9]+ kB/)) {
            d = substr($0, RSTART + 9, RLENGTH - 12) / 1024; if (d > max) max = d } }
        END { if (max > 0) printf "%d", max + 0.5 }' "$rundir/server.log")
    if [[ -n $cycle_mb ]]; then
        need=$(python3 -c "import math; print(math.ceil(1.9 * $cycle_mb * 1.25 / 16) * 16)")
        ratio=$(python3 -c "print(round($final / $need, 2))")
    fi
    if [[ $preload == on ]]; then
        "${psql[@]}" -F, -c "SELECT round(extract(epoch FROM at) - $t0, 1), action, old_mb, new_mb, reason FROM walsizer.decisions" >"$rundir/decisions.csv"
        first=$(awk -F, '$3 != $4 {print $2 " " $3 "->" $4; exit}' "$rundir/decisions.csv")
        first_at=$(awk -F, '$3 != $4 {print $1; exit}' "$rundir/decisions.csv")
        changes=$(awk -F, '$3 != $4' "$rundir/decisions.csv" | wc -l)
        "${psql[@]}" -x -c 'SELECT * FROM walsizer.status' >"$rundir/status.txt"
    fi
    as_pg pg_ctl -D "$dir/data" -m fast -w stop >/dev/null
    echo "$name,$kind,$config,$scale,$clients,$seconds,$forced,$timed,$wal_mb,$tps,$first,$first_at,$final,$cycle_mb,$need,$ratio,$changes" >>"$outdir/runs.csv"
    tail -n 1 "$outdir/runs.csv"
    rm -rf "$dir"
}

for spec; do
    IFS=: read -r name kind config scale clients seconds <<<"$spec"
    run_one "$name" "$kind" "$config" "$scale" "$clients" "$seconds"
done
