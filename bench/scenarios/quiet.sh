#!/usr/bin/env bash
# bench/scenarios/quiet.sh CONFIG REPEAT OUTDIR - a burst, then quiet.
#
# BENCH_BURST_SECONDS of pgbench (4 clients) and then BENCH_TAIL_SECONDS
# without load.  pg_walsizer grows during the burst and should give the
# space back after the quiet tail.  Its shrink waits for walsizer.shrink_after
# quiet windows once the burst has left its peak-rate horizon (four windows,
# at least two checkpoint_timeouts), so the windows are made short here
# (walsizer.interval = 5s, shrink_after = 2) to see that within minutes
# rather than hours.  The burst runs at the production settings' size
# decisions; only the timing of the shrink is compressed.
set -euo pipefail
source "$(dirname "$0")/../lib.sh"

extra=''
if preloads_walsizer "$1"; then
    extra=$'walsizer.interval = 5s\nwalsizer.shrink_after = 2'
fi
cluster_start "$1" "$extra"
run_begin "$3" quiet "$1" "$2"
pgbench_run pgbench -c 4 -j 2 -T "${BENCH_BURST_SECONDS:-20}" postgres
meta burst_end_s "$(since_t0)"
sleep "${BENCH_TAIL_SECONDS:-90}"
run_end
