# bench/lib.sh - shared helpers for the pg_walsizer benchmark scenarios.
#
# Sourced by bench/scenarios/*.sh, which the driver (bench/run-bench.sh)
# runs as root.  Every run gets its own throwaway cluster, copied from a
# template that already holds the tables, so that a run measures only its
# own load and starts from the same state as every other run.  The server
# runs as "postgres" (it refuses root); the helpers here write the raw
# figures of one run into its output directory:
#
#   meta.csv         key,value: counters and pgbench's final report
#   samples.csv      t,max_wal_size_mb,lsn_bytes: one row a second
#   progress.csv     t,tps,lat_ms: pgbench --progress=1, on the same clock
#   checkpoints.csv  t,kind,distance_kb: every "checkpoint starting" line of
#                    the log, with the distance of its "checkpoint complete"
#                    line (empty if it had not completed when the run ended)
#   decisions.csv    walsizer.decisions, for the configurations that load it
#
# Times are seconds since the run began (run_begin).  The report
# (bench/report.py) derives every figure from these files.

# Set by the driver: BENCH_WORK (scratch directory owned by postgres),
# BENCH_TEMPLATE (template data directory), PG_BINDIR.
: "${BENCH_WORK:?run through bench/run-bench.sh}"
: "${BENCH_TEMPLATE:?run through bench/run-bench.sh}"
: "${PG_BINDIR:?run through bench/run-bench.sh}"
export PATH=$PG_BINDIR:$PATH

datadir=$BENCH_WORK/data
logfile=$BENCH_WORK/server.log
port=${BENCH_PORT:-54330}
server_up=0

as_pg() { runuser -u postgres -- "$@"; }
sql() { as_pg psql -X -q -h "$BENCH_WORK" -p "$port" -d postgres -v ON_ERROR_STOP=1 "$@"; }
sql_value() { sql -At -c "$1"; }
now() { date +%s.%N; }
# seconds since the run began, with millisecond resolution
since_t0() { awk -v a="$run_t0" -v b="$(now)" 'BEGIN { printf "%.3f", b - a }'; }
meta() { printf '%s,%s\n' "$1" "$2" >>"$outdir/meta.csv"; }

# The settings of each configuration.  Everything that is not the point of
# the comparison is fixed here, the same for all of them.
config_settings() {
    local config=$1
    cat <<CONF

# --- pg_walsizer benchmark: configuration $config ---
listen_addresses = ''
unix_socket_directories = '$BENCH_WORK'
port = $port
shared_buffers = 128MB
checkpoint_timeout = 30s
checkpoint_completion_target = 0.9
min_wal_size = 32MB
log_checkpoints = on
# epoch timestamps, so the log lines fall on the run's own clock
log_line_prefix = '%n [%p] '
# autovacuum would add WAL at random moments, differently in every run
autovacuum = off
CONF
    case $config in
    stock) echo "max_wal_size = 64MB" ;;
    tuned) echo "max_wal_size = 4GB" ;;
    walsizer | dryrun | walsizer4g)
        if [[ $config == walsizer4g ]]; then
            echo "max_wal_size = 4GB"
        else
            echo "max_wal_size = 64MB"
        fi
        echo "shared_preload_libraries = 'pg_walsizer'"
        # the production defaults: window = checkpoint_timeout, 1 s samples
        echo "walsizer.interval = 0"
        echo "walsizer.sample_interval = 1s"
        if [[ $config == dryrun ]]; then
            echo "walsizer.dry_run = on"
        fi
        ;;
    *)
        echo "lib.sh: unknown configuration $config" >&2
        return 1
        ;;
    esac
}

preloads_walsizer() { [[ $1 == walsizer || $1 == dryrun || $1 == walsizer4g ]]; }

# cluster_start CONFIG [EXTRA_SETTINGS]: a fresh copy of the template,
# configured and started.
cluster_start() {
    config=$1
    rm -rf "$datadir" "$logfile"
    cp -a "$BENCH_TEMPLATE" "$datadir"
    {
        config_settings "$config"
        if [[ -n ${2:-} ]]; then
            printf '%s\n' "$2"
        fi
    } >>"$datadir/postgresql.conf"
    chown postgres: "$datadir/postgresql.conf"
    as_pg pg_ctl -D "$datadir" -l "$logfile" -w start >/dev/null
    server_up=1
    if preloads_walsizer "$config"; then
        sql -c 'CREATE EXTENSION IF NOT EXISTS pg_walsizer'
        # the worker starts just after the server accepts connections
        for _ in $(seq 50); do
            [[ $(sql_value 'SELECT worker_pid IS NOT NULL FROM walsizer.status') == t ]] && break
            sleep 0.2
        done
    fi
}

cluster_stop() {
    if ((server_up)); then
        as_pg pg_ctl -D "$datadir" -m fast -w stop >/dev/null || true
        server_up=0
    fi
}

# Stops the server and the sampler whatever way the scenario ends.
bench_cleanup() {
    local status=$?
    if [[ -n ${sampler_pid:-} ]]; then
        touch "$BENCH_WORK/sampler.stop"
        wait "$sampler_pid" 2>/dev/null || true
    fi
    cluster_stop
    # what a scenario set up besides the cluster (the storage scenario's
    # volumes), after the server that used it has stopped
    if declare -F bench_cleanup_hook >/dev/null; then
        bench_cleanup_hook || true
    fi
    exit "$status"
}
trap bench_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# run_begin OUTDIR SCENARIO CONFIG REPEAT: counters to zero, then start the
# clock and the one-second sampler.
run_begin() {
    outdir=$1
    mkdir -p "$outdir"
    rm -f "$outdir"/*.csv
    # A checkpoint first, so every run starts at the same point of the
    # checkpoint cycle, and resets so pg_stat_* count this run only.
    sql -c 'CHECKPOINT'
    sql -o /dev/null -c "SELECT pg_stat_reset_shared('bgwriter')" -c "SELECT pg_stat_reset_shared('wal')"
    run_t0=$(now)
    run_log_offset=$(stat -c %s "$logfile")
    meta scenario "$2"
    meta config "$3"
    meta repeat "$4"
    meta lsn_start "$(sql_value "SELECT pg_current_wal_lsn() - '0/0'")"
    meta checkpoint_timeout_s "$(sql_value "SELECT setting FROM pg_settings WHERE name = 'checkpoint_timeout'")"
    meta checkpoint_completion_target "$(sql_value 'SHOW checkpoint_completion_target')"
    meta start_max_wal_size_mb "$(sql_value "SELECT setting FROM pg_settings WHERE name = 'max_wal_size'")"
    sampler_start
}

# One long-lived psql reads a query a second from a loop; its own session
# sees a reload at its next query, as any backend does.  Stopping the loop
# ends psql with EOF, so nothing is lost in its output buffer.
sampler_start() {
    local stop=$BENCH_WORK/sampler.stop
    rm -f "$stop"
    echo 't,max_wal_size_mb,lsn_bytes' >"$outdir/samples.csv"
    {
        while [[ ! -e $stop ]]; do
            echo "SELECT round((extract(epoch FROM clock_timestamp()) - $run_t0)::numeric, 3),
                         (SELECT setting FROM pg_settings WHERE name = 'max_wal_size'),
                         pg_current_wal_lsn() - '0/0';"
            sleep 1
        done
    } | as_pg psql -X -q -A -t -F, -h "$BENCH_WORK" -p "$port" -d postgres >>"$outdir/samples.csv" &
    sampler_pid=$!
}

# pgbench_run NAME ARGS...: pgbench with one progress line a second; the
# progress goes to progress.csv (or NAME-progress.csv) on the run's clock,
# the final report into meta.csv with NAME as prefix.
pgbench_run() {
    local name=$1
    shift
    local offset raw=$BENCH_WORK/$name.out
    offset=$(since_t0)
    as_pg pgbench -h "$BENCH_WORK" -p "$port" -n --progress=1 "$@" >"$raw" 2>&1 || {
        cat "$raw" >&2
        return 1
    }
    local progress=$outdir/progress.csv
    if [[ $name != pgbench ]]; then progress=$outdir/$name-progress.csv; fi
    # "progress: 3.0 s, 1933.2 tps, lat 2.067 ms stddev 1.104, 0 failed"
    awk -v off="$offset" 'BEGIN { print "t,tps,lat_ms" }
        /^progress:/ { gsub(",", ""); printf "%.3f,%s,%s\n", off + $2, $4, $7 }' "$raw" >"$progress"
    meta "${name}_tps" "$(awk '/^tps = / { print $3; exit }' "$raw")"
    meta "${name}_lat_ms" "$(awk '/^latency average = / { print $4; exit }' "$raw")"
    meta "${name}_lat_stddev_ms" "$(awk '/^latency stddev = / { print $4; exit }' "$raw")"
    meta "${name}_transactions" "$(awk '/^number of transactions actually processed:/ { print $6; exit }' "$raw")"
}

# run_end: the counters, the log's checkpoints and walsizer's own view.
run_end() {
    meta lsn_end "$(sql_value "SELECT pg_current_wal_lsn() - '0/0'")"
    meta t_end "$(since_t0)"
    touch "$BENCH_WORK/sampler.stop"
    wait "$sampler_pid" || true
    sampler_pid=
    meta requested "$(sql_value 'SELECT checkpoints_req FROM pg_stat_bgwriter')"
    meta timed "$(sql_value 'SELECT checkpoints_timed FROM pg_stat_bgwriter')"
    meta wal_fpi "$(sql_value 'SELECT wal_fpi FROM pg_stat_wal')"
    meta wal_bytes_stat "$(sql_value 'SELECT wal_bytes FROM pg_stat_wal')"
    meta final_max_wal_size_mb "$(sql_value "SELECT setting FROM pg_settings WHERE name = 'max_wal_size'")"
    # "1764471234.567 [123] LOG:  checkpoint starting: wal" and, later,
    # "... LOG:  checkpoint complete: ...; distance=43210 kB, estimate=..."
    # -> t,wal,43210.  Checkpoints never overlap, so a "complete" line
    # belongs to the last "starting" line before it.  The distance is the
    # WAL between this checkpoint's redo point and the previous one's: what
    # the load wrote in one cycle, as the server itself counts it.
    echo 't,kind,distance_kb' >"$outdir/checkpoints.csv"
    tail -c +"$((run_log_offset + 1))" "$logfile" |
        awk -v t0="$run_t0" '
        /checkpoint starting: / {
            n++
            kind = $0; sub(/.*checkpoint starting: /, "", kind)
            gsub(/ /, "+", kind)
            t[n] = sprintf("%.3f", $1 - t0); kinds[n] = kind; distance_kb[n] = ""
            next
        }
        /checkpoint complete: / && n > 0 && distance_kb[n] == "" && match($0, /distance=[0-9]+ kB/) {
            distance_kb[n] = substr($0, RSTART + 9, RLENGTH - 12)
        }
        END { for (i = 1; i <= n; i++) printf "%s,%s,%s\n", t[i], kinds[i], distance_kb[i] }' \
        >>"$outdir/checkpoints.csv"
    if preloads_walsizer "$config"; then
        meta walsizer_peak_rate_bytes_per_s "$(sql_value 'SELECT round(peak_wal_rate_bytes_per_s) FROM walsizer.status')"
        meta walsizer_needed_mb "$(sql_value 'SELECT needed_mb FROM walsizer.status')"
        meta walsizer_total_wal_forced "$(sql_value 'SELECT total_wal_forced FROM walsizer.status')"
        sql -A -F, -P footer=off -c "SELECT round(extract(epoch FROM at) - $run_t0, 3) AS t,
                action, old_mb, new_mb, requested, timed, wal_forced,
                replace(reason, ',', ';') AS reason
              FROM walsizer.decisions WHERE extract(epoch FROM at) >= $run_t0" >"$outdir/decisions.csv"
    fi
    # errors or warnings of the server belong in the report's notes
    tail -c +"$((run_log_offset + 1))" "$logfile" | grep -E 'WARNING|ERROR|PANIC|FATAL' | head -20 >"$outdir/server-problems.txt" || true
    [[ -s $outdir/server-problems.txt ]] || rm -f "$outdir/server-problems.txt"
}
