# pg_walsizer: PGXS build, pg_regress and TAP tests.
#
#   make && make install            build and install for the pg_config on PATH
#   make installcheck               pg_regress (temporary preloaded instance)
#                                   and the TAP tests under test/t
#   make unit / sim / fuzz-smoke    plain C tests of the pure modules
#   make bench / bench-smoke        the benchmark (root; see bench/bench.mk)
#   make PG_CONFIG=/path/pg_config  another PostgreSQL major

EXTENSION = pg_walsizer
MODULE_big = pg_walsizer
OBJS = $(patsubst %.c,%.o,$(wildcard src/*.c))
DATA = pg_walsizer--1.0.sql pg_walsizer--1.1.sql pg_walsizer--1.2.sql \
	pg_walsizer--1.0--1.1.sql pg_walsizer--1.1--1.2.sql
PGFILEDESC = "pg_walsizer - keeps max_wal_size sized to the WAL load"

PG_CPPFLAGS = -I$(srcdir)/src
PG_CFLAGS = -Wall -Werror

REGRESS = api_shape settings permissions dry_run upgrade
REGRESS_OPTS = --temp-config=$(srcdir)/test/regress.conf --temp-instance=./tmp_check_regress

TAP_TESTS = 1
PROVE_TESTS = $(sort $(wildcard test/t/*.pl))

EXTRA_CLEAN = tmp_check_regress test/build

# The functions are not worth inlining into JIT code, and newer majors'
# build environments need not have clang: skip the bitcode.
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# PGXS tracks no header dependencies: a changed struct must rebuild every
# object that uses it, or two objects would disagree on its layout.
$(OBJS): $(wildcard $(srcdir)/src/*.h)

# Plain C tests of the pure modules (unit tests, trace simulator, fuzzers):
# make unit, make sim, make fuzz-smoke.  They need no server.
include $(srcdir)/test/pure.mk

# The benchmark: make bench, make bench-smoke (see bench/bench.mk).
include $(srcdir)/bench/bench.mk
