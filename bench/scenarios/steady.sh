#!/usr/bin/env bash
# bench/scenarios/steady.sh CONFIG REPEAT OUTDIR - steady OLTP.
#
# pgbench tpcb-like on the scale-20 tables (about 300 MB, a few times
# shared_buffers), 4 clients, for BENCH_SECONDS.  The load whose forced
# checkpoints and extra full-page images pg_walsizer is meant to remove.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

cluster_start "$1"
run_begin "$3" steady "$1" "$2"
pgbench_run pgbench -c 4 -j 2 -T "${BENCH_SECONDS:-100}" postgres
run_end
