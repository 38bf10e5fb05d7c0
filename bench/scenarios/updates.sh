#!/usr/bin/env bash
# bench/scenarios/updates.sh CONFIG REPEAT OUTDIR - whole-table UPDATEs.
#
# BENCH_UPDATES (default 4) UPDATEs of every row of "upd", 500k rows with
# an index, one after the other.  Each touches every page, so right after a
# checkpoint each page costs a full-page image: the case where a small
# max_wal_size multiplies checkpoints and WAL.  A fixed amount of work, so
# work_s (the time all of them took) is the throughput figure.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

cluster_start "$1"
run_begin "$3" updates "$1" "$2"
start=$(now)
for ((i = 1; i <= ${BENCH_UPDATES:-4}; i++)); do
    sql -c 'UPDATE upd SET v = v + 1'
done
meta work_s "$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }')"
# a VACUUM, as the table's owner would run between such batches; it writes
# WAL too, and keeps the table from growing without bound across updates
sql -c 'VACUUM upd'
run_end
