#!/usr/bin/env bash
# bench/scenarios/overhead.sh CONFIG REPEAT OUTDIR - the worker's own cost.
#
# pgbench tpcb-like (4 clients, BENCH_OVERHEAD_SECONDS) at max_wal_size 4GB,
# which forces no checkpoint, so nothing pg_walsizer could improve: any TPS
# difference between "tuned" (library not loaded) and "walsizer4g" (loaded,
# sampling every second) is its overhead.  The driver alternates the two
# (A B A B ...) so slow drifts of a shared machine hit both alike.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

cluster_start "$1"
run_begin "$3" overhead "$1" "$2"
pgbench_run pgbench -c 4 -j 2 -T "${BENCH_OVERHEAD_SECONDS:-20}" postgres
run_end
