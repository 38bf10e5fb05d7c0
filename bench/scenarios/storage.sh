#!/usr/bin/env bash
# bench/scenarios/storage.sh CONFIG REPEAT OUTDIR - the article's headline
# on throttled storage: pgbench at full speed on a data volume and a WAL
# volume of about 2000 IOPS each (bench/throttled_storage.sh), with
# checkpoint_timeout at its production default of 5 minutes and
# max_wal_size at its default of 1 GB (stock), 4 GB by hand (tuned), or
# 1 GB with pg_walsizer preloaded (walsizer).  A run of BENCH_STORAGE_SECONDS
# (180) is long enough for stock's first checkpoint forced by WAL and what
# follows it.
#
#   STORAGE_CLIENTS   pgbench clients, the load level (4)
#
# The data directory is the template's, on the data volume, and pg_wal is a
# symlink to the WAL volume (the driver built both images from the
# template, with database "storage" at pgbench scale BENCH_STORAGE_SCALE).
# Every run gets fresh volumes: their writes go to a throwaway overlay.
# Besides lib.sh's files it writes txlog.gz (pgbench's per-transaction log,
# a sample of BENCH_STORAGE_SAMPLING of the transactions, for latency
# percentiles) and the volumes' dd figures and throttle settings (meta.csv,
# storage_*).
set -euo pipefail
here=$(dirname "$0")
source "$here/../lib.sh"
source "$here/../throttled_storage.sh"

config=$1
clients=${STORAGE_CLIENTS:-4}
seconds=${BENCH_STORAGE_SECONDS:-180}
sampling=${BENCH_STORAGE_SAMPLING:-0.1}
STORAGE_DIR=$BENCH_WORK/storage
golden=$STORAGE_DIR/golden

bench_cleanup_hook() { storage_unthrottle; storage_down; }

storage_volume_up data "$golden-data.img" "$STORAGE_DIR/data"
storage_volume_up wal "$golden-wal.img" "$STORAGE_DIR/wal"
datadir=$STORAGE_DIR/data/pgdata
[[ -L $datadir/pg_wal && -d $STORAGE_DIR/wal/pg_wal ]] || {
    echo "storage: the volumes do not hold the cluster (no $datadir/pg_wal -> $STORAGE_DIR/wal/pg_wal)" >&2
    exit 1
}
# the volumes' figures before the cluster starts: one writer, 8 kB pages
dd_figures=$BENCH_WORK/storage-dd.csv
{
    storage_dd data "$STORAGE_DIR/data" "${BENCH_STORAGE_DD_COUNT:-1000}"
    storage_dd wal "$STORAGE_DIR/wal" "${BENCH_STORAGE_DD_COUNT:-1000}"
} >"$dd_figures"

case $config in
tuned) size=4GB ;;
*) size=1GB ;;
esac
{
    config_settings "$config"
    # the article's settings: production defaults but for the size
    echo "checkpoint_timeout = 5min"
    echo "max_wal_size = $size"
    echo "min_wal_size = 80MB"
} >>"$datadir/postgresql.conf"
chown postgres: "$datadir/postgresql.conf"
as_pg pg_ctl -D "$datadir" -l "$logfile" -w -t 300 start >/dev/null
server_up=1
if preloads_walsizer "$config"; then
    sql -c 'CREATE EXTENSION IF NOT EXISTS pg_walsizer'
    for _ in $(seq 50); do
        [[ $(sql_value 'SELECT worker_pid IS NOT NULL FROM walsizer.status') == t ]] && break
        sleep 0.2
    done
fi

run_begin "$3" storage "$config" "$2"
cat "$dd_figures" >>"$outdir/meta.csv"
meta storage_rate_bits "$STORAGE_RATE"
meta storage_write_delay "$STORAGE_WRITE_DELAY"
meta storage_read_delay "$STORAGE_READ_DELAY"
meta storage_data_volume "$(df -h --output=size "$STORAGE_DIR/data" | tail -n 1 | tr -d ' ')"
meta storage_wal_volume "$(df -h --output=size "$STORAGE_DIR/wal" | tail -n 1 | tr -d ' ')"
meta shared_buffers "$(sql_value 'SHOW shared_buffers')"
meta database_size_mb "$(sql_value "SELECT pg_database_size('storage') / 1048576")"
meta sampling_rate "$sampling"
meta clients "$clients"
meta scale "$(as_pg psql -X -q -At -h "$BENCH_WORK" -p "$port" -d storage -c 'SELECT count(*) FROM pgbench_branches')"
# the machine is shared: how busy it was, beside the run's own figures
meta loadavg_start "$(cut -d' ' -f1 /proc/loadavg)"
rm -f "$BENCH_WORK"/txlog.*
pgbench_run pgbench -c "$clients" -j 2 -T "$seconds" -l --sampling-rate="$sampling" \
    --log-prefix="$BENCH_WORK/txlog" storage
# pgbench_run starts its clock just before pgbench; the log's epoch times
# go onto the run's clock in report.py (meta run_t0)
meta run_t0 "$run_t0"
meta loadavg_end "$(cut -d' ' -f1 /proc/loadavg)"
cat "$BENCH_WORK"/txlog.* | gzip -9 >"$outdir/txlog.gz"
rm -f "$BENCH_WORK"/txlog.*
run_end
# the run's data is thrown away with the overlay: no shutdown checkpoint
as_pg pg_ctl -D "$datadir" -m immediate -w stop >/dev/null || true
server_up=0
