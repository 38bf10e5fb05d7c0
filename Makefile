# pg_walsizer: PGXS build, pg_regress and TAP tests.
#
#   make && make install            build and install for the pg_config on PATH
#   make installcheck               pg_regress (temporary preloaded instance)
#                                   and the TAP tests under test/t
#   make unit                       plain C tests of the policy and state file
#   make PG_CONFIG=/path/pg_config  another PostgreSQL major

EXTENSION = pg_walsizer
MODULE_big = pg_walsizer
OBJS = $(patsubst %.c,%.o,$(wildcard src/*.c))
DATA = pg_walsizer--1.0.sql
PGFILEDESC = "pg_walsizer - keeps max_wal_size sized to the WAL load"

PG_CPPFLAGS = -I$(srcdir)/src
PG_CFLAGS = -Wall -Werror

REGRESS = api_shape settings permissions dry_run
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

# Pure C: the policy and the state-file format build without a server.
UNIT_CFLAGS = -std=c99 -O1 -g -Wall -Wextra -Werror -I$(srcdir)/src
PURE_SOURCES = src/policy.c src/state_format.c

test/build/%: test/unit/%.c $(PURE_SOURCES) test/unit/unit.h
	@mkdir -p test/build
	$(CC) $(UNIT_CFLAGS) -o $@ $< $(PURE_SOURCES) -lm

UNIT_TESTS = $(patsubst test/unit/%.c,test/build/%,$(wildcard test/unit/test_*.c))

.PHONY: unit
unit: $(UNIT_TESTS)
	@status=0; for t in $(UNIT_TESTS); do $$t || status=1; done; exit $$status
