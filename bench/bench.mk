# bench/bench.mk - make targets of the pg_walsizer benchmark.
#
#   make bench         every scenario, BENCH_REPEAT times (3), steady OLTP
#                      at two load levels for BENCH_SECONDS (100) each;
#                      about 70 minutes on 2 cores, plus about 22 for the
#                      throttled-storage scenario (root, /dev/fuse, loop
#                      devices; skipped by name without them);
#                      report, plots and raw data in bench/results/
#   make bench-smoke   every scenario for a few seconds, once, into
#                      bench/out/smoke; fails unless each left the expected
#                      files and columns, or the storage scenario skipped
#                      by name (for CI, about 3 minutes)
#
# Included by the top-level Makefile, or on its own:
# make -f bench/bench.mk bench-smoke.  Both need root (packages, and the
# clusters run as "postgres"); bench/run-bench.sh re-runs itself with sudo.
# The other BENCH_* settings of bench/run-bench.sh pass through the
# environment.

# srcdir is set when PGXS includes this file; "." when run on its own
BENCH_DIR := $(if $(srcdir),$(srcdir),.)/bench
BENCH_REPEAT ?= 3
BENCH_SECONDS ?= 100

.PHONY: bench bench-smoke

bench:
	BENCH_REPEAT=$(BENCH_REPEAT) BENCH_SECONDS=$(BENCH_SECONDS) $(BENCH_DIR)/run-bench.sh

bench-smoke:
	BENCH_SMOKE=1 $(BENCH_DIR)/run-bench.sh
