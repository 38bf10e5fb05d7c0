#!/usr/bin/env bash
# bench/run-bench.sh - what pg_walsizer does to forced checkpoints, WAL
# volume and throughput, measured on throwaway clusters.
#
#   sudo bench/run-bench.sh            the full benchmark into bench/results
#   sudo BENCH_SMOKE=1 bench/run-bench.sh
#                                      every scenario for a few seconds, once,
#                                      into bench/out/smoke, then checks that
#                                      every expected file and column is there
#
# Usually run through bench/bench.mk (make bench, make bench-smoke).  Runs
# as root: it installs missing packages and hands each cluster to the
# "postgres" user.  The machine's own clusters are not touched.
#
# Each scenario (bench/scenarios/*.sh) runs once per configuration and
# repeat, repeats outermost, so the configurations alternate (A B C D A B
# C D ...) and a slow drift of a shared machine hits them all alike:
#
#   stock     max_wal_size = 64MB, pg_walsizer not loaded
#   tuned     max_wal_size = 4GB, chosen by hand, not loaded
#   walsizer  64MB to start, pg_walsizer preloaded with its defaults
#   dryrun    as walsizer, with walsizer.dry_run = on (measures, changes nothing)
#
# The overhead scenario compares tuned with walsizer4g (4GB, preloaded).
# The storage scenario runs stock, tuned and walsizer at the article's
# sizes instead (1GB, 4GB, 1GB + pg_walsizer; checkpoint_timeout 5min) on
# two throttled volumes (bench/throttled_storage.sh), at each client count
# of BENCH_STORAGE_CLIENTS; without /dev/fuse, loop devices or its packages
# it prints "SKIP storage: <reason>" and records the skip in
# raw/storage/SKIPPED.
#
# Settings (environment):
#   BENCH_REPEAT            repeats of every run (3)
#   BENCH_SECONDS           steady OLTP length (100), at both levels
#   BENCH_STEADY100_SCALE   pgbench scale of the heavier steady level,
#                           steady100 (100: about 1.5 GB)
#   BENCH_BULK_SECONDS      OLTP length next to the bulk load (60)
#   BENCH_BULK_SCALE        pgbench scale of the bulk load (100: about
#                           1.5 GB of tables and WAL, tens of seconds)
#   BENCH_UPDATES           whole-table UPDATEs (4)
#   BENCH_BURST_SECONDS     burst before the quiet tail (20)
#   BENCH_TAIL_SECONDS      quiet tail (90)
#   BENCH_QUIET_REPEAT      repeats of the quiet scenario (1)
#   BENCH_OVERHEAD_SECONDS  length of each overhead run (20)
#   BENCH_STORAGE_SECONDS   pgbench length on throttled storage (180)
#   BENCH_STORAGE_SCALE     pgbench scale of its database (100: about 1.5 GB,
#                           12 times shared_buffers)
#   BENCH_STORAGE_CLIENTS   its load levels, pgbench clients ("4 8")
#   BENCH_STORAGE_REPEAT    repeats of the storage scenario (1; at most
#                           BENCH_REPEAT); each run takes BENCH_STORAGE_SECONDS
#                           plus about 30 s
#   BENCH_STORAGE_SAMPLING  share of transactions in its per-transaction log
#                           (0.1)
#   STORAGE_RATE, STORAGE_WRITE_DELAY, STORAGE_READ_DELAY
#                           the volumes' throttle (64M bits/s each way, 1ms,
#                           0ms; see bench/throttled_storage.sh)
#   BENCH_STORAGE_CONFIGS   its configurations ("stock tuned walsizer"), for
#                           experiments
#   BENCH_SCENARIOS         which scenarios ("steady steady100 bulk updates
#                           quiet overhead storage");
#                           a subset replaces only those scenarios' raw data
#                           in BENCH_OUT, and the report covers them all
#   BENCH_OUT               output directory (bench/results)
#   BENCH_PG_MAJOR          PostgreSQL major (15)
#   BENCH_BUILD             1 (default): build and install pg_walsizer from
#                           this tree first, so the library measured is this
#                           source; 0: measure the installed library as it is
set -euo pipefail

if ((EUID != 0)); then
    exec sudo -E -- "$0" "$@"
fi

benchdir=$(dirname "$(readlink -f "$0")")
srcdir=$(dirname "$benchdir")
started_at=$SECONDS
started_date=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

smoke=${BENCH_SMOKE:-0}
if ((smoke)); then
    # Just enough to run every script end to end: a small template and a
    # few seconds per run, so the check takes a few minutes on CI.
    : "${BENCH_REPEAT:=1}" "${BENCH_SECONDS:=4}" "${BENCH_BULK_SECONDS:=4}"
    : "${BENCH_BULK_SCALE:=2}" "${BENCH_UPDATES:=1}" "${BENCH_BURST_SECONDS:=3}"
    : "${BENCH_TAIL_SECONDS:=2}" "${BENCH_OVERHEAD_SECONDS:=3}"
    : "${BENCH_SCALE:=2}" "${BENCH_UPD_ROWS:=20000}" "${BENCH_STEADY100_SCALE:=4}"
    : "${BENCH_STORAGE_SECONDS:=5}" "${BENCH_STORAGE_SCALE:=2}" "${BENCH_STORAGE_CLIENTS:=4}"
    : "${BENCH_STORAGE_DD_COUNT:=200}"
    : "${BENCH_OUT:=$srcdir/bench/out/smoke}"
fi
export BENCH_REPEAT=${BENCH_REPEAT:-3}
export BENCH_SECONDS=${BENCH_SECONDS:-100}
export BENCH_BULK_SECONDS=${BENCH_BULK_SECONDS:-60}
export BENCH_BULK_SCALE=${BENCH_BULK_SCALE:-100}
export BENCH_UPDATES=${BENCH_UPDATES:-4}
export BENCH_BURST_SECONDS=${BENCH_BURST_SECONDS:-20}
export BENCH_TAIL_SECONDS=${BENCH_TAIL_SECONDS:-90}
export BENCH_QUIET_REPEAT=${BENCH_QUIET_REPEAT:-1}
export BENCH_OVERHEAD_SECONDS=${BENCH_OVERHEAD_SECONDS:-20}
BENCH_STEADY100_SCALE=${BENCH_STEADY100_SCALE:-100}
export BENCH_STORAGE_SECONDS=${BENCH_STORAGE_SECONDS:-180}
BENCH_STORAGE_SCALE=${BENCH_STORAGE_SCALE:-100}
BENCH_STORAGE_CLIENTS=${BENCH_STORAGE_CLIENTS:-4 8}
BENCH_STORAGE_REPEAT=${BENCH_STORAGE_REPEAT:-1}
export BENCH_STORAGE_SAMPLING=${BENCH_STORAGE_SAMPLING:-0.1}
[[ -z ${BENCH_STORAGE_DD_COUNT:-} ]] || export BENCH_STORAGE_DD_COUNT
# the tables: scale 20 (about 300 MB, a few times shared_buffers) and a
# 500k-row table for the whole-table UPDATEs; the steady100 scenario's
# larger tables only when it runs, since every run copies the template
BENCH_SCALE=${BENCH_SCALE:-20}
BENCH_UPD_ROWS=${BENCH_UPD_ROWS:-500000}
scenarios=${BENCH_SCENARIOS:-steady steady100 bulk updates quiet overhead storage}
out=${BENCH_OUT:-$srcdir/bench/results}
pg_major=${BENCH_PG_MAJOR:-15}
# the throttled volumes' helpers (storage_install, storage_missing, ...)
source "$benchdir/throttled_storage.sh"

say() { printf '=== %s\n' "$*"; }
as_pg() { runuser -u postgres -- "$@"; }

# --- packages: pgbench is in postgresql-contrib on Debian 12; the server
# headers and a compiler only when the extension must be built
packages=("postgresql-$pg_major" postgresql-contrib gnuplot-nox)
export PG_BINDIR=/usr/lib/postgresql/$pg_major/bin
pkglibdir=/usr/lib/postgresql/$pg_major/lib
build=${BENCH_BUILD:-1}
[[ -e $pkglibdir/pg_walsizer.so ]] || build=1
((build)) && packages+=("postgresql-server-dev-$pg_major" build-essential)
missing=()
for p in "${packages[@]}"; do
    # dpkg -s also succeeds for removed packages whose config files remain
    dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing+=("$p")
done
if ((${#missing[@]})); then
    say "installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q "${missing[@]}"
fi
[[ -x $PG_BINDIR/pgbench ]] || { echo "run-bench: no pgbench in $PG_BINDIR" >&2; exit 1; }
if ((build)); then
    say "building and installing pg_walsizer for PostgreSQL $pg_major"
    make -C "$srcdir" -s -j"$(nproc)" PG_CONFIG="$PG_BINDIR/pg_config"
    make -C "$srcdir" -s install PG_CONFIG="$PG_BINDIR/pg_config"
fi
export PATH=$PG_BINDIR:$PATH
# The library measured is the installed one: say which build it is, as of
# now, since the tree or the installed file may change while the runs go on.
library_mtime() { date -u -r "$pkglibdir/pg_walsizer.so" '+%Y-%m-%d %H:%M:%S UTC'; }
library_mtime_at_start=$(library_mtime)
source_state="commit $(git -C "$srcdir" rev-parse --short HEAD 2>/dev/null || echo unknown)"
if [[ -n $(git -C "$srcdir" status --porcelain -- src 2>/dev/null) ]]; then
    source_state+=" with uncommitted changes in src/"
fi
if ((build)); then
    library="$pkglibdir/pg_walsizer.so of $library_mtime_at_start, built by this run from the source at $source_state"
else
    library="$pkglibdir/pg_walsizer.so of $library_mtime_at_start, as installed (BENCH_BUILD=0; the source beside it is at $source_state)"
fi

# --- scratch space: the template and the cluster of the current run
export BENCH_WORK
BENCH_WORK=$(mktemp -d /tmp/walsizer-bench.XXXXXX)
export BENCH_TEMPLATE=$BENCH_WORK/template
chown postgres: "$BENCH_WORK"
template_up=0
cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if ((template_up)); then
        as_pg pg_ctl -D "$BENCH_TEMPLATE" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    # volumes a storage run left behind if it was killed outright; then
    # never delete through a mount point
    STORAGE_DIR=$BENCH_WORK/storage storage_down
    rm -rf --one-file-system "$BENCH_WORK"
    ((status == 0)) || printf 'run-bench: stopped (exit status %d)\n' "$status" >&2
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Nothing listens on TCP; the port only names the Unix socket.  Still pick
# one that no other server on the machine uses.
port=54330
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || [[ -e /var/run/postgresql/.s.PGSQL.$port ]]; do
    port=$((port + 1))
done
export BENCH_PORT=$port

say "template cluster: pgbench scale $BENCH_SCALE, table upd with $BENCH_UPD_ROWS rows"
as_pg initdb -D "$BENCH_TEMPLATE" -A trust --no-sync >/dev/null
# only for loading the template; each run appends its own settings
printf '%s\n' "listen_addresses = ''" "unix_socket_directories = '$BENCH_WORK'" \
    "port = $port" "max_wal_size = 4GB" >"$BENCH_WORK/template.conf"
cp "$BENCH_TEMPLATE/postgresql.conf" "$BENCH_WORK/postgresql.conf.orig"
cat "$BENCH_WORK/template.conf" >>"$BENCH_TEMPLATE/postgresql.conf"
as_pg pg_ctl -D "$BENCH_TEMPLATE" -l "$BENCH_WORK/template.log" -w start >/dev/null
template_up=1
tsql() { as_pg psql -X -q -h "$BENCH_WORK" -p "$port" -d postgres -v ON_ERROR_STOP=1 "$@"; }
as_pg pgbench -h "$BENCH_WORK" -p "$port" -i -q -s "$BENCH_SCALE" postgres >/dev/null 2>&1
tsql -c 'CREATE DATABASE bulk' \
    -c "CREATE TABLE upd (id int PRIMARY KEY, v int NOT NULL, pad text NOT NULL)" \
    -c "INSERT INTO upd SELECT i, 0, repeat('x', 100) FROM generate_series(1, $BENCH_UPD_ROWS) i" \
    -c 'VACUUM ANALYZE'
if [[ " $scenarios " == *" steady100 "* ]]; then
    say "template cluster: database steady100 at pgbench scale $BENCH_STEADY100_SCALE"
    tsql -c 'CREATE DATABASE steady100'
    # pgbench -i vacuums its tables itself
    as_pg pgbench -h "$BENCH_WORK" -p "$port" -i -q -s "$BENCH_STEADY100_SCALE" steady100 >/dev/null 2>&1
fi
# the storage scenario's tables, when it runs and can run
storage_skip=
if [[ " $scenarios " == *" storage "* ]]; then
    storage_install
    storage_skip=$(storage_missing)
    if [[ -n $storage_skip ]]; then
        echo "SKIP storage: $storage_skip"
    else
        say "template cluster: database storage at pgbench scale $BENCH_STORAGE_SCALE"
        tsql -c 'CREATE DATABASE storage'
        as_pg pgbench -h "$BENCH_WORK" -p "$port" -i -q -s "$BENCH_STORAGE_SCALE" storage >/dev/null 2>&1
    fi
fi
tsql -c 'CHECKPOINT'
as_pg pg_ctl -D "$BENCH_TEMPLATE" -m fast -w stop >/dev/null
template_up=0
cp "$BENCH_WORK/postgresql.conf.orig" "$BENCH_TEMPLATE/postgresql.conf"
chown postgres: "$BENCH_TEMPLATE/postgresql.conf"
if [[ " $scenarios " == *" storage "* && -z $storage_skip ]]; then
    # The volumes' golden images: the template on one, its pg_wal on the
    # other (a symlink where it was), made once; every run then writes
    # to its own throwaway overlay of them.
    say "throttled storage: images of the template's data directory and pg_wal"
    stage=$BENCH_WORK/storage/stage
    mkdir -p "$stage/data" "$stage/wal"
    cp -a "$BENCH_TEMPLATE" "$stage/data/pgdata"
    mv "$stage/data/pgdata/pg_wal" "$stage/wal/pg_wal"
    ln -s "$BENCH_WORK/storage/wal/pg_wal" "$stage/data/pgdata/pg_wal"
    chown -h postgres: "$stage/data/pgdata/pg_wal"
    data_mb=$(du -sm "$stage/data" | cut -f1)
    # room for the run's growth; the WAL volume for 4 GB of WAL and more:
    # pg_walsizer caps max_wal_size at walsizer.disk_fraction (0.5) of it
    storage_image "$stage/data" "$BENCH_WORK/storage/golden-data.img" "$((data_mb + 4096))M"
    storage_image "$stage/wal" "$BENCH_WORK/storage/golden-wal.img" 16G 1048576
    rm -rf "$stage"
fi

configs_of() {
    case $1 in
    overhead) echo tuned walsizer4g ;;
    # stock and tuned never change max_wal_size: their burst is a short
    # steady run and their tail is idle, so only the tuner's runs are worth
    # the minutes this scenario takes
    quiet) echo walsizer dryrun ;;
    # the article's three: 1GB, 4GB, 1GB + pg_walsizer
    storage) echo "${BENCH_STORAGE_CONFIGS:-stock tuned walsizer}" ;;
    *) echo stock tuned walsizer dryrun ;;
    esac
}

# Each scenario's raw data is replaced only when it runs again, so one
# scenario can be rerun and the report still covers the others.
# the load levels of a scenario: one, but for storage's client counts
levels_of() {
    case $1 in
    storage) echo "$BENCH_STORAGE_CLIENTS" ;;
    *) echo - ;;
    esac
}

for scenario in $scenarios; do
    rm -rf "${out:?}/raw/$scenario"
done
mkdir -p "$out/raw"
if [[ -n $storage_skip ]]; then
    # skipped by name, so neither the report nor --check takes it for run
    mkdir -p "$out/raw/storage"
    echo "$storage_skip" >"$out/raw/storage/SKIPPED"
fi
runs=0
for ((r = 1; r <= BENCH_REPEAT; r++)); do
    for scenario in $scenarios; do
        # the quiet runs take minutes each; their time line, not a
        # median, is what they show
        if [[ $scenario == quiet ]] && ((r > BENCH_QUIET_REPEAT)); then
            continue
        fi
        if [[ $scenario == storage ]] && { [[ -n $storage_skip ]] || ((r > BENCH_STORAGE_REPEAT)); }; then
            continue
        fi
        for level in $(levels_of "$scenario"); do
            for config in $(configs_of "$scenario"); do
                name=$config-r$r
                if [[ $level == - ]]; then
                    say "repeat $r/$BENCH_REPEAT: $scenario, $config ($((SECONDS - started_at)) s so far)"
                else
                    name=$config-c$level-r$r
                    say "repeat $r/$BENCH_REPEAT: $scenario, $level clients, $config ($((SECONDS - started_at)) s so far)"
                fi
                STORAGE_CLIENTS=$level "$benchdir/scenarios/$scenario.sh" "$config" "$r" "$out/raw/$scenario/$name"
                runs=$((runs + 1))
            done
        done
    done
done

# --- the machine and the command, for the report: into every scenario
# this invocation ran, since another invocation may have run the others
machine_file=$BENCH_WORK/machine.txt
{
    echo "cores (nproc): $(nproc)"
    echo "cpu: $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)"
    echo "memory: $(free -m | awk '/^Mem:/ { print $2 " MB total, " $7 " MB available at the end" }')"
    echo "disk under $BENCH_WORK: $(df -h --output=source,fstype,size,avail "$BENCH_WORK" | tail -n 1 | tr -s ' ')"
    echo "block devices: $(lsblk -d -n -o NAME,SIZE,ROTA,TYPE 2>/dev/null | tr -s ' ' | paste -sd ';' -)"
    echo "kernel: $(uname -r)"
    # how much dirty page cache the kernel lets pile up before writing it
    # back: with a large max_wal_size it decides the latency spikes
    echo "kernel writeback: $(for k in dirty_background_bytes dirty_background_ratio dirty_bytes dirty_ratio dirty_expire_centisecs; do printf '%s=%s ' "$k" "$(cat /proc/sys/vm/$k)"; done)"
    echo "postgresql: $("$PG_BINDIR/postgres" --version)"
    echo "pg_walsizer: $library"
    if [[ $(library_mtime) != "$library_mtime_at_start" ]]; then
        echo "pg_walsizer replaced during the runs: $pkglibdir/pg_walsizer.so of $(library_mtime) at the end (another install); a run loads the file there when its server starts"
    fi
    echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
} >"$machine_file"
command="sudo"
for v in BENCH_REPEAT BENCH_SECONDS BENCH_STEADY100_SCALE BENCH_BULK_SECONDS BENCH_BULK_SCALE BENCH_UPDATES \
    BENCH_BURST_SECONDS BENCH_TAIL_SECONDS BENCH_QUIET_REPEAT BENCH_OVERHEAD_SECONDS \
    BENCH_STORAGE_SECONDS BENCH_STORAGE_SCALE BENCH_STORAGE_REPEAT BENCH_STORAGE_SAMPLING; do
    command+=" $v=${!v}"
done
command+=" BENCH_STORAGE_CLIENTS='$BENCH_STORAGE_CLIENTS'"
for v in STORAGE_RATE STORAGE_WRITE_DELAY STORAGE_READ_DELAY BENCH_STORAGE_CONFIGS BENCH_BUILD; do
    [[ -z ${!v:-} ]] || command+=" $v=${!v}"
done
[[ -z ${BENCH_SCENARIOS:-} ]] || command+=" BENCH_SCENARIOS='$scenarios'"
command+=" bench/run-bench.sh"
((smoke)) && command="sudo BENCH_SMOKE=1 bench/run-bench.sh"
for scenario in $scenarios; do
    [[ -d $out/raw/$scenario ]] || continue
    cp "$machine_file" "$out/raw/$scenario/machine.txt"
    {
        echo "command: $command"
        echo "scenarios: $scenarios"
        echo "started: $started_date"
        echo "runs: $runs"
        echo "seconds: $((SECONDS - started_at))"
    } >"$out/raw/$scenario/run-info.txt"
done
# from before run information was kept per scenario
rm -f "$out/raw/run-info.txt" "$out/raw/machine.txt"

say "report: $out/REPORT.md"
report_args=("$out")
((smoke)) && report_args+=(--check)
python3 "$benchdir/report.py" "${report_args[@]}"
say "done in $((SECONDS - started_at)) s"
