#!/usr/bin/env bash
# bench/scenarios/bulk.sh CONFIG REPEAT OUTDIR - a bulk load next to OLTP.
#
# A light OLTP load (pgbench, 2 clients held to 200 transactions a second,
# so its latency shows the harm rather than its TPS) runs for
# BENCH_BULK_SECONDS in database "postgres" while pgbench -i loads
# BENCH_BULK_SCALE into database "bulk".  The load writes WAL far faster
# than the OLTP, in a burst: what a nightly import does to a small
# max_wal_size.  work_s is how long the load took.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

cluster_start "$1"
run_begin "$3" bulk "$1" "$2"
meta bulk_scale "${BENCH_BULK_SCALE:-100}"
pgbench_run pgbench -c 2 -j 1 -R 200 -T "${BENCH_BULK_SECONDS:-60}" postgres &
oltp_pid=$!
# a few seconds of OLTP alone first, for a baseline in the per-second plot
sleep 3
load_start=$(now)
# d,t,g,p: drop, create, generate client-side (COPY), primary keys; no vacuum
as_pg pgbench -h "$BENCH_WORK" -p "$port" -i -q -I dtgp -s "${BENCH_BULK_SCALE:-100}" bulk \
    >"$BENCH_WORK/bulk-load.out" 2>&1 || { cat "$BENCH_WORK/bulk-load.out" >&2; exit 1; }
meta work_s "$(awk -v a="$load_start" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')"
wait "$oltp_pid"
run_end
