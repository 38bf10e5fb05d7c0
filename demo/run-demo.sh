#!/usr/bin/env bash
# demo/run-demo.sh - watch pg_walsizer grow max_wal_size under a write burst.
#
#   demo/run-demo.sh          (as root; a fresh Debian 12 container has no sudo)
#
# For a Debian 12 machine.  Installs PostgreSQL 15 and the build tools when
# they are missing, builds and installs the extension from this source tree,
# then starts a throwaway cluster whose max_wal_size (64MB) is far too small
# for a pgbench write load on checkpoint_timeout = 30s.  The load runs first
# with pg_walsizer in dry run (it only advises), then with pg_walsizer in
# charge.  The demo shows what it measured and decided, and how many
# checkpoints the WAL volume forced before and after its first change.
# The cluster lives in a temporary directory and is stopped and removed on
# exit, also on failure or Ctrl-C; the machine's own clusters are untouched.
#
# Takes under 3 minutes on 2 cores once the packages are installed.
# DEMO_BURST_SECONDS (default 120) sets the length of the second burst:
# long enough for two whole checkpoint cycles, after which the growth settles.
set -euo pipefail

PG_MAJOR=15
BURST_SECONDS=${DEMO_BURST_SECONDS:-120}
DRY_RUN_SECONDS=20
PACKAGES=("postgresql-$PG_MAJOR" "postgresql-server-dev-$PG_MAJOR" postgresql-contrib build-essential)

# PostgreSQL refuses to run as root, but installing packages and the
# extension needs root: run as root and hand the server to "postgres".
if ((EUID != 0)); then
    command -v sudo >/dev/null || { echo "run-demo: run this as root" >&2; exit 1; }
    exec sudo -- "$0" "$@"
fi

# What is going to happen, and for how long, before the first download.
cat <<EOF_PLAN
pg_walsizer demo: installs PostgreSQL $PG_MAJOR and a C compiler if missing, builds
and installs pg_walsizer from this tree, then runs a throwaway cluster with
max_wal_size = 64MB through two pgbench write bursts: ${DRY_RUN_SECONDS} s with pg_walsizer
in dry run, then ${BURST_SECONDS} s with it in charge, and shows what it measured,
decided and changed. About 3 minutes, plus the package download on a fresh machine.
The cluster is removed at the end.
EOF_PLAN

srcdir=$(dirname "$(dirname "$(readlink -f "$0")")")
started_at=$SECONDS

heading() { printf '\n=== %s\n' "$1"; }
note() { printf '    %s\n' "$@"; }

heading "Packages: PostgreSQL $PG_MAJOR, its headers, pgbench, a C compiler"
missing=()
for p in "${PACKAGES[@]}"; do
    # dpkg -s also succeeds for removed packages whose config files remain
    dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^ii' || missing+=("$p")
done
if ((${#missing[@]})); then
    note "installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q "${missing[@]}"
else
    note "all installed"
fi

# The major's own bin directory first, so another major's tools on PATH
# cannot build or run against the wrong server.
bindir=/usr/lib/postgresql/$PG_MAJOR/bin
export PATH=$bindir:$PATH

heading "Build and install pg_walsizer (make && make install)"
make -C "$srcdir" -s -j"$(nproc)" PG_CONFIG="$bindir/pg_config"
make -C "$srcdir" -s install PG_CONFIG="$bindir/pg_config"
note "installed into $("$bindir/pg_config" --pkglibdir)"

workdir=$(mktemp -d /tmp/walsizer-demo.XXXXXX)
datadir=$workdir/data
logfile=$workdir/server.log
server_started=0

cleanup() {
    local status=$?
    trap - EXIT INT TERM
    if ((server_started)); then
        runuser -u postgres -- pg_ctl -D "$datadir" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$workdir"
    if ((status != 0)); then
        printf '\nrun-demo: stopped (exit status %d); the demo cluster was removed\n' "$status" >&2
    fi
    exit "$status"
}
trap cleanup EXIT
# Ctrl-C or kill: leave through the EXIT trap, which stops the server.
trap 'exit 130' INT
trap 'exit 143' TERM

chown postgres: "$workdir"

# Nothing listens on TCP (listen_addresses = ''), so the port only names the
# Unix socket; still pick one no other server uses, to avoid any confusion.
port=54320
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null || [[ -e /var/run/postgresql/.s.PGSQL.$port ]]; do
    port=$((port + 1))
done

as_postgres() { runuser -u postgres -- "$@"; }
sql() { as_postgres psql -X -q -h "$workdir" -p "$port" -d postgres -v ON_ERROR_STOP=1 "$@"; }
forced_checkpoints() { grep -c 'checkpoint starting: wal' "$logfile" || true; }

heading "A throwaway cluster in $workdir, port $port"
as_postgres initdb -D "$datadir" -A trust --no-sync >/dev/null
cat >>"$datadir/postgresql.conf" <<EOF

# --- pg_walsizer demo ---
listen_addresses = ''
unix_socket_directories = '$workdir'
port = $port
# far too small for the burst below: checkpoints will be forced by WAL
max_wal_size = 64MB
min_wal_size = 32MB
checkpoint_timeout = 30s
log_checkpoints = on
# short windows so the demo takes minutes, not hours; in production the
# window follows checkpoint_timeout and samples are taken every second
walsizer.interval = 5s
walsizer.sample_interval = 500ms
EOF
note "max_wal_size = 64MB, min_wal_size = 32MB, checkpoint_timeout = 30s"
as_postgres pg_ctl -D "$datadir" -l "$logfile" -w start >/dev/null
server_started=1

# The tables are loaded before pg_walsizer runs.  Its worker measures the
# WAL rate even while walsizer.enable = off, and keeps the worst rate of the
# last few checkpoint_timeouts, so a bulk load just before it is enabled
# would be sized for too.  This is also how it meets an existing database.
heading "Load pgbench tables (scale 20) before pg_walsizer is loaded"
as_postgres pgbench -h "$workdir" -p "$port" -i -q -s 20 postgres 2>&1 | tail -n 1
sql -c 'CHECKPOINT'

# Starts in dry run: first the burst runs against the 64MB the DBA chose,
# with pg_walsizer only recording the advice it would act on.
heading "Preload pg_walsizer in dry run and restart (shared_preload_libraries)"
cat >>"$datadir/postgresql.conf" <<EOF
shared_preload_libraries = 'pg_walsizer'
walsizer.dry_run = on
EOF
as_postgres pg_ctl -D "$datadir" -l "$logfile" -w restart >/dev/null
# the worker needs no CREATE EXTENSION; the SQL functions do
sql -c 'CREATE EXTENSION pg_walsizer'
# the worker starts just after the server accepts connections
for _ in $(seq 50); do
    [[ $(sql -At -c 'SELECT next_action IS NOT NULL FROM walsizer.status') == t ]] && break
    sleep 0.2
done
grep -o 'pg_walsizer started.*' "$logfile" | sed 's/^/    log: /'
note "What it sees before any load (walsizer.status):"
sql -x -c "SELECT enabled, dry_run, max_wal_size_mb, cap_mb, cap_source, floor_mb,
                  window_s, next_action, next_reason
             FROM walsizer.status"

forced_after_load=$(forced_checkpoints)
burst_log_offset=$(stat -c %s "$logfile")
pgbench_burst() {
    as_postgres pgbench -h "$workdir" -p "$port" -n -c 4 -j 2 -T "$1" \
        --progress=10 postgres 2>&1 |
        grep -E '^(progress|tps|number of transactions actually)'
}
# Marks in the server log place the phases on the log's own clock.
log_mark() { sql -c "DO \$\$ BEGIN RAISE LOG 'demo: $1'; END \$\$"; }

heading "Burst 1: pgbench, 4 clients, ${DRY_RUN_SECONDS} s, in dry run: max_wal_size stays 64MB"
log_mark "burst starts"
pgbench_burst "$DRY_RUN_SECONDS"
note "What it would have done (dry run decisions are recorded as 'advise'):"
sql -c "SELECT at::time(0), action, old_mb, new_mb, wal_forced, reason
          FROM walsizer.decisions"

heading "Dry run off (walsizer.dry_run = off, reload; no restart)"
sql -o /dev/null -c 'ALTER SYSTEM SET walsizer.dry_run = off' -c 'SELECT pg_reload_conf()'
log_mark "dry run ends"

heading "Burst 2: the same pgbench load, ${BURST_SECONDS} s, pg_walsizer in charge"
pgbench_burst "$BURST_SECONDS"
log_mark "burst ends"
# one more sample, so status() covers the end of the burst
sleep 1

heading "max_wal_size now, as the server runs it and as written by ALTER SYSTEM"
sql -c 'SHOW max_wal_size'
note "postgresql.auto.conf: $(grep '^max_wal_size' "$datadir/postgresql.auto.conf" || echo '(no max_wal_size line)')"

heading "What it changed last (walsizer.last_change)"
sql -x -c "SELECT * FROM walsizer.last_change"

heading "What pg_walsizer changed, and why (walsizer.decisions, advice left out)"
sql -x -c "SELECT * FROM walsizer.decisions WHERE action <> 'advise'"

heading "What it measured (walsizer.status)"
sql -x -c "SELECT max_wal_size_mb, needed_mb, cap_mb, floor_mb,
                  round((last_wal_bytes_per_s / 1048576)::numeric, 1) AS last_wal_mb_per_s,
                  round((peak_wal_rate_bytes_per_s / 1048576)::numeric, 1) AS peak_wal_mb_per_s,
                  total_timed, total_requested, total_wal_forced,
                  last_action, next_action, next_reason
             FROM walsizer.status"

heading "What it would do if its window ended now (walsizer.recommendation)"
sql -x -c 'SELECT * FROM walsizer.recommendation'

heading "Checkpoints forced by WAL volume (server log: 'checkpoint starting: wal')"
note "during the table load, at 64MB: $forced_after_load"
# The bursts' part of the log, split at pg_walsizer's first change.
tail -c +"$((burst_log_offset + 1))" "$logfile" | awk '
    function seconds(line,   f, t) {
        # log_line_prefix "%m": "YYYY-MM-DD HH:MM:SS.mmm ZONE"
        split(line, f, " "); split(f[2], t, ":")
        return t[1] * 3600 + t[2] * 60 + t[3]
    }
    /^[0-9][0-9][0-9][0-9]-/ {
        now = seconds($0)
        if (now < prev) now += 86400		# the demo crossed midnight
        prev = now
    }
    /demo: burst starts/ { first = now }
    /demo: burst ends/ { last = now; exit }
    /pg_walsizer grew max_wal_size/ && grow == "" { grow = now; grow_line = $0 }
    /checkpoint starting: wal/ { if (grow == "") before++; else after++ }
    END {
        if (grow == "") {
            printf "    no change of max_wal_size was logged; %d forced checkpoints\n", before
            exit
        }
        sub(/^.*pg_walsizer /, "", grow_line)
        printf "    before the first change: %3d in %3.0f s of load\n", before, grow - first
        printf "    first change: %s\n", grow_line
        printf "    after it:                %3d in %3.0f s of load\n", after, last - grow
    }'

heading "Done in $((SECONDS - started_at)) s; stopping and removing the demo cluster"
