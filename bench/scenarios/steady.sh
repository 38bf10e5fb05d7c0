#!/usr/bin/env bash
# bench/scenarios/steady.sh CONFIG REPEAT OUTDIR - steady OLTP.
#
# pgbench tpcb-like for BENCH_SECONDS: the load whose forced checkpoints
# and extra full-page images pg_walsizer is meant to remove.  By default on
# the scale-20 tables of database "postgres" (about 300 MB, a few times
# shared_buffers) with 4 clients.  The same load at another level is this
# script with other tables or clients (see steady100.sh):
#
#   STEADY_SCENARIO  the scenario's name in the raw data (steady)
#   STEADY_DATABASE  the database holding the pgbench tables (postgres)
#   STEADY_CLIENTS   pgbench clients (4)
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

scenario=${STEADY_SCENARIO:-steady}
database=${STEADY_DATABASE:-postgres}
clients=${STEADY_CLIENTS:-4}

cluster_start "$1"
run_begin "$3" "$scenario" "$1" "$2"
meta clients "$clients"
# one branch per unit of scale: the report names the level it measured
meta scale "$(as_pg psql -X -q -At -h "$BENCH_WORK" -p "$port" -d "$database" -c 'SELECT count(*) FROM pgbench_branches')"
pgbench_run pgbench -c "$clients" -j 2 -T "${BENCH_SECONDS:-100}" "$database"
run_end
