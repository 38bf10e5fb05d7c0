#!/usr/bin/env bash
# bench/experiments/replay-rate/run.sh - PostgreSQL's own crash-recovery
# replay rate under the benchmark's steady, bulk and updates loads, to pick
# the default of walsizer.replay_rate (issue 13).
#
#   sudo bash bench/experiments/replay-rate/run.sh
#
# One throwaway PostgreSQL 15 cluster in a scratch directory under /tmp,
# served as postgres on a Unix socket only, pg_walsizer NOT loaded.  Its
# template holds the benchmark's tables (bench/run-bench.sh): pgbench scale
# 20 in "postgres", the 500k-row table "upd", an empty database "bulk".
# Each run (REPLAY_RUNS, LOAD:TARGET_MB:CACHE) on a fresh copy of it:
#
#   0. copy the template, sync (so the restart's fsync of the data
#      directory finds only what the load wrote, not the copy);
#   1. start, CHECKPOINT (the cycle starts here), start the LOAD:
#        steady   pgbench tpcb-like, 4 clients, -j 2 (scenarios/steady.sh)
#        bulk     pgbench -c 2 -j 1 -R 200 in "postgres" and, 3 s later,
#                 pgbench -i -q -I dtgp -s 100 bulk (scenarios/bulk.sh)
#        updates  UPDATE upd SET v = v + 1, one after the other
#                 (scenarios/updates.sh), repeated until the kill
#   2. once the WAL since the redo pointer of the last completed checkpoint
#      (pg_current_wal_insert_lsn() - pg_control_checkpoint().redo_lsn,
#      polled every 0.1 s) reaches TARGET_MB (or the load ends, or
#      REPLAY_MAX_S passes; TARGET_MB "max": only then),
#      SIGSTOP the postmaster, then SIGKILL it and all its children in one
#      kill(1), and wait until none of them is left (nor a zombie: the new
#      postmaster refuses a pid file whose pid still exists);
#   3. read the REDO location of the last checkpoint with pg_controldata;
#      CACHE "cold": sync and echo 3 > /proc/sys/vm/drop_caches (the whole
#      machine's page cache; a real machine crash leaves it cold);
#   4. pg_ctl start (no wait) and poll pg_isready every 50 ms: the
#      unavailability is start -> pg_isready OK.  The server log (epoch
#      timestamps) gives the phases: before redo (incl. the fsync of the
#      data directory), redo ("redo done at X/Y ... elapsed: N s"), the
#      end-of-recovery checkpoint, ready.
#
# WAL replayed = "redo done at" LSN - REDO location, in MB (2^20 bytes);
# rate = WAL replayed / unavailability.
#
# Output: a table on stdout; REPLAY_OUT (default results/ beside this
# script) gets runs.csv, summary.txt, machine.txt and each run's recovery
# log.  Rerunning replaces them.  Settings (environment):
#   REPLAY_RUNS   runs, in order (default below: 3 warm kills per load, at
#                 about 128 MB to over 1 GB, and 1 cold one at the largest;
#                 steady writes about 1-2 MB/s once its first full-page
#                 images are written, so its largest is REPLAY_MAX_S in)
#   REPLAY_MAX_S  longest a load runs before the kill anyway (280: below
#                 checkpoint_timeout, so no timed checkpoint interferes)
#   PG_BINDIR     /usr/lib/postgresql/15/bin
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
out=${REPLAY_OUT:-$here/results}
PG_BINDIR=${PG_BINDIR:-/usr/lib/postgresql/15/bin}
export PATH=$PG_BINDIR:$PATH
runs=${REPLAY_RUNS:-"steady:128:warm steady:320:warm steady:max:warm steady:max:cold
    bulk:256:warm bulk:640:warm bulk:1100:warm bulk:1100:cold
    updates:128:warm updates:512:warm updates:1024:warm updates:1024:cold"}
max_s=${REPLAY_MAX_S:-280}

[[ $(id -u) == 0 ]] || { echo "run.sh: run as root (runuser, drop_caches)" >&2; exit 1; }
for b in postgres pg_ctl initdb pgbench psql pg_isready pg_controldata; do
    [[ -x $PG_BINDIR/$b ]] || { echo "run.sh: no $b in $PG_BINDIR (PostgreSQL 15 and its pgbench needed)" >&2; exit 1; }
done

say() { printf '=== %s\n' "$*" >&2; }
as_pg() { runuser -u postgres -- "$@"; }
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
# "1A/2B3C" -> bytes
lsn_bytes() { local hi=${1%/*} lo=${1#*/}; echo $(((16#$hi << 32) + 16#$lo)); }

work=$(mktemp -d /tmp/replay-rate.XXXXXX)
chown postgres: "$work"
template=$work/template
data=$work/data
log=$work/server.log
load_pids=()

# a process that exists and is not a zombie
is_alive() { local st; st=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $st != Z* ]]; }
# every process this script started: the load's (and their children, by
# pid) and the server's (by the pid in postmaster.pid, then its children)
kill_tree() {
    local p kids
    for p; do
        kids=$(pgrep -P "$p" || true)
        # shellcheck disable=SC2086
        [[ -z $kids ]] || kill_tree $kids
        kill -KILL "$p" 2>/dev/null || true
    done
}
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    ((${#load_pids[@]})) && kill_tree "${load_pids[@]}"
    for d in "$data" "$template"; do
        if [[ -e $d/postmaster.pid ]]; then
            # interrupted between the SIGSTOP and the SIGKILL: let it stop
            kill -CONT "$(head -n 1 "$d/postmaster.pid")" 2>/dev/null || true
            as_pg pg_ctl -D "$d" -m immediate -w stop >/dev/null 2>&1 || true
        fi
    done
    rm -rf "$work"
    ((status == 0)) || printf 'run.sh: stopped (exit status %d)\n' "$status" >&2
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# only names the Unix socket; still one no other server uses
port=54370
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || [[ -e /var/run/postgresql/.s.PGSQL.$port ]] ||
    compgen -G "/tmp/.s.PGSQL.$port" >/dev/null; do
    port=$((port + 1))
done
sql() { as_pg psql -X -q -h "$work" -p "$port" -d postgres -v ON_ERROR_STOP=1 "$@"; }
sql_value() { sql -At -c "$1"; }

rm -rf "$out/logs" "$out/runs.csv" "$out/summary.txt" "$out/machine.txt"
mkdir -p "$out/logs"

# --- the template: the benchmark's tables (bench/run-bench.sh)
say "template cluster: pgbench scale 20, table upd with 500000 rows, database bulk"
as_pg initdb -D "$template" -A trust --no-sync >/dev/null
cat >>"$template/postgresql.conf" <<CONF

# --- bench/experiments/replay-rate ---
listen_addresses = ''
unix_socket_directories = '$work'
port = $port
cluster_name = 'replay_rate'
shared_preload_libraries = ''
shared_buffers = 128MB
wal_level = replica
full_page_writes = on
max_wal_size = 4GB
min_wal_size = 32MB
checkpoint_timeout = 5min
checkpoint_completion_target = 0.9
log_checkpoints = on
log_line_prefix = '%n [%p] '
autovacuum = off
CONF
as_pg pg_ctl -D "$template" -l "$work/template.log" -w start >/dev/null
as_pg pgbench -h "$work" -p "$port" -i -q -s 20 postgres >/dev/null 2>&1
sql -c 'CREATE DATABASE bulk' \
    -c "CREATE TABLE upd (id int PRIMARY KEY, v int NOT NULL, pad text NOT NULL)" \
    -c "INSERT INTO upd SELECT i, 0, repeat('x', 100) FROM generate_series(1, 500000) i" \
    -c 'VACUUM ANALYZE' -c CHECKPOINT
as_pg pg_ctl -D "$template" -m fast -w stop >/dev/null

{
    echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "cores (nproc): $(nproc)"
    echo "cpu: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
    echo "memory: $(free -m | awk '/^Mem:/ { print $2 " MB total" }')"
    echo "disk under $work: $(df -h --output=source,fstype,size "$work" | tail -n 1 | tr -s ' ')"
    echo "block devices: $(lsblk -d -n -o NAME,SIZE,ROTA,TYPE 2>/dev/null | tr -s ' ' | paste -sd ';' -)"
    echo "kernel: $(uname -r)"
    echo "kernel writeback: $(for k in dirty_background_bytes dirty_background_ratio dirty_bytes dirty_ratio dirty_expire_centisecs; do printf '%s=%s ' "$k" "$(cat /proc/sys/vm/$k)"; done)"
    echo "postgresql: $(postgres --version)"
    echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$out/machine.txt"

start_load() {
    case $1 in
    steady)
        as_pg pgbench -h "$work" -p "$port" -n -c 4 -j 2 -T "$((max_s + 60))" postgres >"$work/load.out" 2>&1 &
        load_pids+=($!)
        ;;
    bulk)
        as_pg pgbench -h "$work" -p "$port" -n -c 2 -j 1 -R 200 -T "$((max_s + 60))" postgres >"$work/load.out" 2>&1 &
        load_pids+=($!)
        (
            sleep 3
            exec runuser -u postgres -- pgbench -h "$work" -p "$port" -i -q -I dtgp -s 100 bulk
        ) >"$work/load2.out" 2>&1 &
        load_pids+=($!)
        ;;
    updates)
        (while as_pg psql -X -q -h "$work" -p "$port" -d postgres -v ON_ERROR_STOP=1 \
            -c 'UPDATE upd SET v = v + 1'; do :; done) >"$work/load.out" 2>&1 &
        load_pids+=($!)
        ;;
    *)
        echo "run.sh: unknown load $1" >&2
        exit 1
        ;;
    esac
}

# the load has ended by itself (bulk: the import is done)
load_ended() {
    local p
    for p in "${load_pids[@]}"; do
        kill -0 "$p" 2>/dev/null || return 0
    done
    return 1
}

echo "run,load,cache,target_mb,kill_after_s,insert_mb,replayed_mb,before_redo_s,redo_s,redo_log_s,eor_ckpt_s,ready_log_s,unavail_s,rate_mb_s,redo_mb_s,loadavg1" >"$out/runs.csv"
n=0
for spec in $runs; do
    IFS=: read -r load target cache <<<"$spec"
    n=$((n + 1))
    name=$(printf '%02d-%s-%s-%s' "$n" "$load" "$target" "$cache")
    say "run $name (load average $(cut -d' ' -f1 /proc/loadavg))"
    rm -rf "$data" "$log"
    cp -a "$template" "$data"
    # on disk before the run: otherwise the fsync of the data directory at
    # the restart also writes back the copy, which no real crash has to
    sync
    as_pg pg_ctl -D "$data" -l "$log" -w start >/dev/null
    sql -c CHECKPOINT
    t_cycle=$(now)
    load_pids=()
    start_load "$load"

    # --- wait for the WAL distance, then kill
    dist=0
    while :; do
        d=$(sql_value "SELECT pg_current_wal_insert_lsn() - redo_lsn FROM pg_control_checkpoint()" 2>/dev/null) || d=
        [[ -n $d ]] && dist=$d
        if { [[ $target != max ]] && ((dist >= target * 1048576)); } || load_ended ||
            awk -v a="$t_cycle" -v b="$(now)" -v m="$max_s" 'BEGIN { exit !(b - a >= m) }'; then
            break
        fi
        sleep 0.1
    done
    pm=$(head -n 1 "$data/postmaster.pid")
    # the postmaster stopped first, so it forks no new child meanwhile
    kill -STOP "$pm"
    kids=$(pgrep -P "$pm" | tr '\n' ' ')
    # shellcheck disable=SC2086
    kill -KILL "$pm" $kids
    t_kill=$(now)
    loadavg=$(cut -d' ' -f1 /proc/loadavg)
    # gone, not only dead: the new postmaster refuses to start while the
    # old pid exists, even as a zombie not yet reaped by init
    for _ in $(seq 600); do
        alive=0
        for p in $pm $kids; do kill -0 "$p" 2>/dev/null && alive=1; done
        ((alive)) || break
        sleep 0.05
    done
    ((alive == 0)) || { echo "run.sh: processes of the killed server still there: $pm $kids" >&2; ps -o pid,ppid,stat,comm -p "${pm} ${kids}" >&2; exit 1; }
    say "killed $(secs "$t_cycle" "$t_kill") s after the checkpoint, $((dist / 1048576)) MB since its redo pointer; all processes gone $(secs "$t_kill" "$(now)") s later"
    # the clients notice the lost server and end; whatever did not, ends here
    for _ in $(seq 100); do load_ended && [[ -z $(jobs -rp) ]] && break; sleep 0.1; done
    kill_tree "${load_pids[@]}"
    wait 2>/dev/null || true
    load_pids=()

    redo_ckpt=$(pg_controldata "$data" | awk -F': *' '/^Latest checkpoint.s REDO location/ { print $2 }')
    state=$(pg_controldata "$data" | awk -F': *' '/^Database cluster state/ { print $2 }')
    [[ $state == "in production" ]] || { echo "run.sh: cluster state after the kill is '$state'" >&2; exit 1; }
    if [[ $cache == cold ]]; then
        sync
        echo 3 >/proc/sys/vm/drop_caches
    fi

    # --- restart and time it
    log_from=$(stat -c %s "$log")
    t0=$(now)
    # (pg_ctl warns of the stale postmaster.pid: expected after a kill)
    as_pg pg_ctl -D "$data" -l "$log" -W start >/dev/null 2>"$work/pg_ctl.err" || {
        cat "$work/pg_ctl.err" >&2
        tail -n 30 "$log" >&2
        exit 1
    }
    until pg_isready -q -h "$work" -p "$port" -d postgres -U postgres; do
        # give up if the new postmaster is gone (its pid file is written at
        # once; 2 s covers the stale one) or after 15 minutes
        if awk -v a="$t0" -v b="$(now)" 'BEGIN { exit !(b - a > 900) }' ||
            { awk -v a="$t0" -v b="$(now)" 'BEGIN { exit !(b - a > 2) }' &&
                ! is_alive "$(head -n 1 "$data/postmaster.pid" 2>/dev/null || echo 0)"; }; then
            echo "run.sh: the server of $name did not come back" >&2
            tail -n 30 "$log" >&2
            exit 1
        fi
        sleep 0.05
    done
    t_ready=$(now)

    # the recovery's lines of the log, without the refused pg_isready probes
    tail -c +"$((log_from + 1))" "$log" |
        grep -v -E 'the database system is (starting up|not yet accepting connections)|Consistent recovery state has not been yet reached' \
            >"$out/logs/$name.log" || true
    read -r t_redo_start t_redo_done redo_done_lsn redo_log_s t_ckpt_start t_ckpt_done t_ready_log < <(
        awk '
        / redo starts at / { rs = $1 }
        / redo done at / { rd = $1; for (i = 1; i <= NF; i++) if ($i == "at") { lsn = $(i + 1); break }
            if (match($0, /elapsed: [0-9.]+ s/)) el = substr($0, RSTART + 9, RLENGTH - 11) }
        / checkpoint starting: end-of-recovery/ { cs = $1 }
        / checkpoint complete: / && cs != "" && cd == "" { cd = $1 }
        / database system is ready to accept connections/ { rdy = $1 }
        END { printf "%s %s %s %s %s %s %s\n", rs ? rs : "-", rd ? rd : "-", lsn ? lsn : "-",
              el != "" ? el : "-", cs ? cs : "-", cd ? cd : "-", rdy ? rdy : "-" }' "$out/logs/$name.log")
    [[ $redo_done_lsn != - ]] || { echo "run.sh: no 'redo done' line in the log of $name" >&2; cat "$out/logs/$name.log" >&2; exit 1; }
    replayed=$(($(lsn_bytes "$redo_done_lsn") - $(lsn_bytes "$redo_ckpt")))
    row=$(awk -v n="$name" -v l="$load" -v c="$cache" -v tg="$target" \
        -v tc="$t_cycle" -v tk="$t_kill" -v ins="$dist" -v rep="$replayed" -v t0="$t0" \
        -v rs="$t_redo_start" -v rd="$t_redo_done" -v el="$redo_log_s" -v cs="$t_ckpt_start" \
        -v cd="$t_ckpt_done" -v rl="$t_ready_log" -v tr="$t_ready" -v la="$loadavg" 'BEGIN {
        mb = rep / 1048576; un = tr - t0
        printf "%s,%s,%s,%s,%.1f,%.0f,%.0f,%.2f,%.2f,%s,%.2f,%.2f,%.2f,%.1f,%.1f,%s\n",
            n, l, c, tg, tk - tc, ins / 1048576, mb, rs - t0, rd - rs, el, cd - cs, rl - t0, un,
            mb / un, (el > 0 ? mb / el : 0), la }')
    echo "$row" >>"$out/runs.csv"
    echo "$row" >&2
    as_pg pg_ctl -D "$data" -m fast -w stop >/dev/null
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/machine.txt"

# --- the table and, per load and cache, the min and median rate
{
    echo "Runs (MB = 2^20 bytes; rate = WAL replayed / unavailability; redo MB/s = WAL replayed / the log's redo elapsed):"
    echo
    column -s, -t "$out/runs.csv"
    echo
    echo "Per load and page cache: rate MB/s (replayed / unavailability), redo-only MB/s"
    echo
    {
        echo "load,cache,runs,min_rate,median_rate,min_redo_mb_s,median_redo_mb_s"
        tail -n +2 "$out/runs.csv" | awk -F, '{ print $2 "," $3; print $2 ",all" }' | sort -u | while IFS=, read -r l c; do
            tail -n +2 "$out/runs.csv" | awk -F, -v l="$l" -v c="$c" '$2 == l && (c == "all" || $3 == c) { print $14 "," $15 }' |
                /usr/bin/python3 -c '
import sys, statistics
rows = [tuple(map(float, line.split(","))) for line in sys.stdin if line.strip()]
r = [a for a, _ in rows]; d = [b for _, b in rows]
print(f"{sys.argv[1]},{sys.argv[2]},{len(rows)},{min(r):.1f},{statistics.median(r):.1f},{min(d):.1f},{statistics.median(d):.1f}")' "$l" "$c"
        done
    } | column -s, -t
    echo
    cat "$out/machine.txt"
} | tee "$out/summary.txt"
