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
# Source files are found under $(srcdir), so that an out-of-tree (VPATH)
# build works too: pg_buildext, Debian's packaging tool, builds each
# PostgreSQL major in its own build-NN/ directory. srcdir is defined by
# PGXS below; these variables are expanded only when used.
#
# src/common/ holds the pure modules, which include nothing from
# PostgreSQL (test/pure.mk builds them without its headers, and make
# layout-check fails if one includes them); src/server/ holds the code
# that runs in the server.  As PostgreSQL keeps src/common apart from
# src/backend.
WALSIZER_SRC_DIRS = src/common src/server
OBJS = $(patsubst $(srcdir)/%.c,%.o,$(wildcard $(addprefix $(srcdir)/,$(addsuffix /*.c,$(WALSIZER_SRC_DIRS)))))
# One install script, 1.0's, and the update chain from it: CREATE EXTENSION
# runs 1.0 and then each update, so a new install and an updated one are
# made by the same statements, and every released version can still be
# installed and updated (the upgrade tests do).
DATA = pg_walsizer--1.0.sql \
	pg_walsizer--1.0--1.1.sql pg_walsizer--1.1--1.2.sql \
	pg_walsizer--1.2--1.3.sql pg_walsizer--1.3--1.4.sql \
	pg_walsizer--1.4--1.5.sql pg_walsizer--1.5--1.6.sql \
	pg_walsizer--1.6--1.7.sql
PGFILEDESC = "pg_walsizer - keeps max_wal_size sized to the WAL load"

PG_CPPFLAGS = -I$(srcdir)/src/common -I$(srcdir)/src/server
# No -Werror here: a newer compiler's new warning must not break a user's
# or a packager's build. The project's CI builds with "make COPT=-Werror"
# (PGXS adds COPT to CFLAGS; test/pure.mk adds it to its own flags).

REGRESS = api_shape what_if settings permissions dry_run upgrade
REGRESS_OPTS = --temp-config=$(srcdir)/test/regress.conf --temp-instance=./tmp_check_regress

TAP_TESTS = 1
# prove runs in $(srcdir), so the file names are relative to it.
PROVE_TESTS = $(patsubst $(srcdir)/%,%,$(sort $(wildcard $(srcdir)/test/t/*.pl)))

EXTRA_CLEAN = tmp_check_regress test/build $(ADVISOR) advisor/*.o

# The functions are not worth inlining into JIT code, and newer majors'
# build environments need not have clang: skip the bitcode.
override with_llvm = no

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs 2>/dev/null)
# Without the server's headers there is nothing to build against: say which
# package brings them instead of make's "No such file or directory". (A
# client-only install can have a pg_config but no server headers.)
WALSIZER_NEEDS_DEV = Install the server development package of your PostgreSQL major \
	(Debian, Ubuntu: "apt-get install postgresql-server-dev-15"; PGDG RPMs: \
	"dnf install postgresql15-devel") and run make again, adding \
	PG_CONFIG=/path/to/that/major/bin/pg_config if it is not the first pg_config on PATH
ifeq ($(wildcard $(PGXS)),)
$(error pg_config "$(PG_CONFIG)" not found or without PGXS. $(WALSIZER_NEEDS_DEV))
endif
ifeq ($(wildcard $(shell $(PG_CONFIG) --includedir-server)/postgres.h),)
$(error no PostgreSQL server headers for "$(PG_CONFIG)". $(WALSIZER_NEEDS_DEV))
endif

# The user documentation, installed by PGXS under $(docdir) (Debian:
# /usr/share/doc/postgresql-doc-NN/extension/pg_walsizer/, see below).
DOCS = README.md $(patsubst $(srcdir)/%,%,$(sort $(wildcard $(srcdir)/docs/*.md)))
include $(PGXS)

# The docs go to a directory of their own: in the extension/ directory all
# extensions share, names such as README.md or reference.md would clash
# with another package's. PGXS installs DOCS under their base names, but
# its uninstall removes them by their paths (docs/sizing.md), so the
# docs/ files are removed here.
docmoduledir := $(docmoduledir)/pg_walsizer
uninstall: uninstall-docs
.PHONY: uninstall-docs
uninstall-docs:
	rm -f $(addprefix '$(DESTDIR)$(docdir)/$(docmoduledir)'/, $(notdir $(DOCS)))
	rmdir '$(DESTDIR)$(docdir)/$(docmoduledir)' 2>/dev/null || :

# The advisor: a libpq client that runs the worker's measurement and
# policy (src/common/measure.c with measure_rates.c, src/common/policy.c
# with its policy_*.c and recovery_bound.c, linked as they are) and the
# what-if table (src/common/what_if.c) from outside the
# server.  Installed next to the server's programs (pg_config --bindir).
ADVISOR = pg_walsizer_advisor
# Its --version is the package's: WALSIZER_VERSION_FLAG (test/pure.mk)
# passes the control file's default_version, so that the two cannot differ.
ADVISOR_OBJS = $(patsubst $(srcdir)/%.c,%.o,$(wildcard $(srcdir)/advisor/*.c))
ADVISOR_SHARED_OBJS = $(addprefix src/common/,measure.o measure_rates.o \
	policy.o policy_utils.o policy_formula.o policy_limits.o policy_grow.o \
	policy_shrink.o policy_standby.o recovery_bound.o what_if.o)

# The advisor links no server code: it sees src/common's headers only.
$(ADVISOR_OBJS): %.o: %.c $(wildcard $(srcdir)/advisor/*.h) $(wildcard $(srcdir)/src/common/*.h) \
		$(srcdir)/$(EXTENSION).control
	$(CC) $(CFLAGS) $(PG_CFLAGS) $(WALSIZER_VERSION_FLAG) -I$(srcdir)/src/common -I$(srcdir)/advisor -I$(includedir) -c -o $@ $<

$(ADVISOR): $(ADVISOR_OBJS) $(ADVISOR_SHARED_OBJS)
	$(CC) $(CFLAGS) $(PG_CFLAGS) -o $@ $^ $(LDFLAGS) -L$(libdir) -lpq -lm

all: $(ADVISOR)

install: install-advisor
.PHONY: install-advisor uninstall-advisor
install-advisor: $(ADVISOR) installdirs
	$(INSTALL_PROGRAM) $(ADVISOR) '$(DESTDIR)$(bindir)/$(ADVISOR)'

installdirs: installdirs-advisor
.PHONY: installdirs-advisor
installdirs-advisor:
	$(MKDIR_P) '$(DESTDIR)$(bindir)'

uninstall: uninstall-advisor
uninstall-advisor:
	rm -f '$(DESTDIR)$(bindir)/$(ADVISOR)'

# In an out-of-tree build the objects go to src/common/, src/server/ and
# advisor/ below the build directory, which nothing else creates. Absolute
# names: make would otherwise find the source tree's directories through
# VPATH and create nothing.
WALSIZER_OBJDIRS = $(abspath $(WALSIZER_SRC_DIRS) advisor)
$(OBJS) $(ADVISOR_OBJS): | $(WALSIZER_OBJDIRS)
$(WALSIZER_OBJDIRS):
	$(MKDIR_P) $@

# PGXS tracks no header dependencies: a changed struct must rebuild every
# object that uses it, or two objects would disagree on its layout.
$(OBJS): $(wildcard $(srcdir)/src/common/*.h $(srcdir)/src/server/*.h)

# Plain C tests of the pure modules (unit tests, trace simulator, fuzzers):
# make unit, make sim, make fuzz-smoke.  They need no server.
include $(srcdir)/test/pure.mk

# The benchmark: make bench, make bench-smoke (see bench/bench.mk).
include $(srcdir)/bench/bench.mk
