#!/usr/bin/env bash
# bench/scenarios/steady100.sh CONFIG REPEAT OUTDIR - steady OLTP, heavier.
#
# steady.sh on the larger tables of database "steady100" (pgbench scale
# BENCH_STEADY100_SCALE, 100 by default: about 1.5 GB, ten times
# shared_buffers), 4 clients.  With the same clients, each transaction's
# updates land on pages not yet touched since the last checkpoint more
# often, so more of them cost a full-page image and the load writes
# WAL more than twice as fast: a second load level for the same sizing.
set -euo pipefail
export STEADY_SCENARIO=steady100 STEADY_DATABASE=steady100 STEADY_CLIENTS=4
exec "$(dirname "$0")/steady.sh" "$@"
