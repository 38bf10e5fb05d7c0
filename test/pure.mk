# test/pure.mk: plain C tests of pg_walsizer's pure modules.
#
# Included from the top Makefile after PGXS, so $(CC) is the compiler
# PostgreSQL was built with; the flags here are our own, because these
# programs link no server code.  Everything is built under test/build/.
#
#   make unit         unit tests, built with AddressSanitizer and UBSan
#   make sim          replays test/sim/traces/*.trace: checks each one's
#                     properties, then compares it with expected/
#   make sim-update   rewrites test/sim/expected/ from the simulator
#   make fuzz-smoke   each libFuzzer harness for a fixed number of runs
#   make fuzz-long    each libFuzzer harness for FUZZ_SECONDS (default 600)
#   make fuzz-corpus  rewrites the seed corpora in test/fuzz/corpus/
#   make mutation     mutants of the pure modules against unit, sim and
#                     fuzz-smoke (test/mutation.sh, test/mutations.txt)
#   make layout-check fails if a file of src/common/ includes anything but
#                     src/common/'s headers and the C library's (make unit
#                     runs it first)
#
# unit, sim and the fuzz runs speak TAP and prove runs them: one test per
# unit test or fuzzer, two per trace (its properties, its expected output);
# prove's summary says what failed.  A program that dies (a sanitizer report
# exits with 70) fails in prove as a non-zero exit and a missing plan.
# PROVE_FLAGS=-v shows every TAP line.

# The package's version, for the advisor's --version and its JSON: the
# control file's default_version, so that the two cannot differ. (Here,
# because test/mutation.sh runs this file without the Makefile.)
WALSIZER_VERSION := $(shell sed -n "s/^default_version *= *'\([^']*\)'.*/\1/p" $(srcdir)/pg_walsizer.control)
WALSIZER_VERSION_FLAG = -DWALSIZER_VERSION='"$(WALSIZER_VERSION)"'

# The pure modules: every file of src/common/ (make layout-check holds
# them to that).
PURE_SOURCES ?= $(sort $(wildcard $(srcdir)/src/common/*.c))
# The advisor's pure parts, which link no PostgreSQL and no libpq: its
# pipeline, its trace format, its command line and its output. The rest of
# advisor/ is the program around them: libpq (the sampling, the secrets)
# and the run.
PURE_ADVISOR_SOURCES = $(srcdir)/advisor/advice.c $(srcdir)/advisor/sample_trace.c \
	$(srcdir)/advisor/options.c $(srcdir)/advisor/report.c
PURE_ALL_SOURCES = $(PURE_SOURCES) $(PURE_ADVISOR_SOURCES)
PURE_HEADERS = $(wildcard $(srcdir)/src/common/*.h) $(srcdir)/advisor/advice.h \
	$(srcdir)/advisor/sample_trace.h $(srcdir)/advisor/options.h \
	$(srcdir)/advisor/report.h $(srcdir)/pg_walsizer.control
PURE_BUILD = test/build

# -fsanitize=undefined leaves out float-cast-overflow in gcc; ask for it.
PURE_SANITIZE ?= -fsanitize=address,undefined,float-cast-overflow \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
# src/common and the advisor only: a pure module that included a server
# header would not compile here.
PURE_CFLAGS = -std=c99 -O1 -g -Wall -Wextra $(COPT) -I$(srcdir)/src/common -I$(srcdir)/advisor \
	$(WALSIZER_VERSION_FLAG) $(PURE_SANITIZE)
# A sanitizer report exits with 70, so that a crash is told from a failure.
PURE_ENV = ASAN_OPTIONS=detect_leaks=1:exitcode=70 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=70
# PGXS sets PROVE to what PostgreSQL's configure found; --failures shows
# the "not ok" lines even without -v.
PURE_PROVE = $(PURE_ENV) $(or $(PROVE),prove) --failures $(PROVE_FLAGS)

# The pure modules are compiled once into objects that the unit tests and
# the simulator link: the mutation check rebuilds everything per mutant.
PURE_OBJECTS = $(patsubst $(srcdir)/%.c,$(PURE_BUILD)/obj/%.o,$(PURE_ALL_SOURCES))

$(PURE_BUILD)/obj/%.o: $(srcdir)/%.c $(PURE_HEADERS)
	@mkdir -p $(@D)
	@$(CC) $(PURE_CFLAGS) -c -o $@ $<

# --- layout -------------------------------------------------------------

# src/common/ is the pure half of the tree: its files include nothing from
# PostgreSQL, so that the worker, the advisor and these tests link them
# unchanged.  A quoted #include there must name a header of src/common/,
# an angle one a header of the C99 library; anything else (postgres.h, a
# server/ header, libpq) fails, with its file and line.
PURE_LIBC_HEADERS = assert complex ctype errno fenv float inttypes iso646 \
	limits locale math setjmp signal stdarg stdbool stddef stdint stdio \
	stdlib string tgmath time wchar wctype
PURE_LOCAL_HEADERS = $(notdir $(wildcard $(srcdir)/src/common/*.h))

.PHONY: layout-check
layout-check:
	@cd $(srcdir)/src/common && awk -v libc='$(PURE_LIBC_HEADERS)' \
		-v local='$(PURE_LOCAL_HEADERS)' ' \
		BEGIN { \
			n = split(libc, a, " "); for (i = 1; i <= n; i++) ok["<" a[i] ".h>"] = 1; \
			n = split(local, a, " "); for (i = 1; i <= n; i++) ok["\"" a[i] "\""] = 1; \
		} \
		/^[ \t]*#[ \t]*include/ { \
			h = $$0; sub(/^[ \t]*#[ \t]*include[ \t]*/, "", h); sub(/[ \t].*$$/, "", h); \
			if (!(h in ok)) { \
				printf "src/common/%s:%d: a pure module includes %s\n", FILENAME, FNR, h; bad = 1; \
			} \
		} \
		END { exit bad }' *.c *.h || \
		{ echo "layout-check: src/common/ may include only src/common/ and C library headers" >&2; exit 1; }

# --- unit ---------------------------------------------------------------

UNIT_PROGRAMS = $(patsubst $(srcdir)/test/unit/%.c,$(PURE_BUILD)/unit/%,\
	$(wildcard $(srcdir)/test/unit/test_*.c))

# Compiled and linked in two steps: a changed module (a mutant, say)
# relinks every unit test but recompiles none of them.
UNIT_OBJECTS = $(addsuffix .o,$(UNIT_PROGRAMS))
.SECONDARY: $(UNIT_OBJECTS)

$(PURE_BUILD)/unit/%.o: $(srcdir)/test/unit/%.c $(PURE_HEADERS) \
		$(wildcard $(srcdir)/test/unit/*.h)
	@mkdir -p $(@D)
	@echo "  CC $@"
	@$(CC) $(PURE_CFLAGS) -c -o $@ $<

$(PURE_BUILD)/unit/%: $(PURE_BUILD)/unit/%.o $(PURE_OBJECTS)
	@$(CC) $(PURE_CFLAGS) -o $@ $< $(PURE_OBJECTS) -lm

.PHONY: unit
unit: layout-check $(UNIT_PROGRAMS)
	@$(PURE_PROVE) --exec '' $(UNIT_PROGRAMS)

# --- sim ----------------------------------------------------------------

SIM_PROGRAM = $(PURE_BUILD)/sim/walsizer_sim
SIM_TRACES = $(sort $(wildcard $(srcdir)/test/sim/traces/*.trace))

$(SIM_PROGRAM): $(srcdir)/test/sim/walsizer_sim.c $(PURE_OBJECTS) $(PURE_HEADERS)
	@mkdir -p $(@D)
	@echo "  CC $@"
	@$(CC) $(PURE_CFLAGS) -o $@ $< $(PURE_OBJECTS) -lm

.PHONY: sim sim-update
sim: $(SIM_PROGRAM)
	@$(PURE_PROVE) --exec sh $(srcdir)/test/sim/traces.t :: $(SIM_PROGRAM) $(PURE_BUILD)/sim

sim-update: $(SIM_PROGRAM)
	@for trace in $(SIM_TRACES); do \
		name=$$(basename $$trace .trace); \
		$(SIM_PROGRAM) $$trace > $(srcdir)/test/sim/expected/$$name.out || exit 1; \
		echo "wrote test/sim/expected/$$name.out"; \
	done

# --- fuzz ---------------------------------------------------------------

# libFuzzer comes with clang (Debian: clang-14 and libclang-rt-14-dev).
FUZZ_CC ?= clang-14
FUZZ_CFLAGS = -std=c99 -O1 -g -Wall -Wextra $(COPT) -I$(srcdir)/src/common -I$(srcdir)/advisor \
	$(WALSIZER_VERSION_FLAG) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_TARGETS = fuzz_policy fuzz_state fuzz_trace
FUZZ_PROGRAMS = $(addprefix $(PURE_BUILD)/fuzz/,$(FUZZ_TARGETS))
FUZZ_RUNS ?= 200000
FUZZ_SECONDS ?= 600

$(PURE_BUILD)/fuzz/%: $(srcdir)/test/fuzz/%.c $(PURE_ALL_SOURCES) $(PURE_HEADERS)
	@mkdir -p $(@D)
	@echo "  CC $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(PURE_ALL_SOURCES) -lm

# Verbose, so that each fuzzer's last statistics line is shown.
run_fuzzers = @$(PURE_PROVE) --verbose --exec sh $(srcdir)/test/fuzz/fuzzers.t :: \
	$(PURE_BUILD)/fuzz '$(1) -seed=1' $(FUZZ_TARGETS)

.PHONY: fuzz-smoke fuzz-long
fuzz-smoke: $(FUZZ_PROGRAMS)
	$(call run_fuzzers,-runs=$(FUZZ_RUNS))

fuzz-long: $(FUZZ_PROGRAMS)
	$(call run_fuzzers,-max_total_time=$(FUZZ_SECONDS) -print_final_stats=1)

# Rewrites the seed corpora; they are small and checked in.
$(PURE_BUILD)/fuzz/make_corpus: $(srcdir)/test/fuzz/make_corpus.c $(PURE_ALL_SOURCES) \
		$(PURE_HEADERS) $(srcdir)/test/fuzz/fuzz_input.h
	@mkdir -p $(@D)
	@echo "  CC $@"
	@$(CC) $(PURE_CFLAGS) -o $@ $< $(PURE_ALL_SOURCES) -lm

.PHONY: fuzz-corpus
fuzz-corpus: $(PURE_BUILD)/fuzz/make_corpus
	@mkdir -p $(srcdir)/test/fuzz/corpus/fuzz_policy $(srcdir)/test/fuzz/corpus/fuzz_state
	$(PURE_ENV) $< $(srcdir)/test/fuzz/corpus/fuzz_policy $(srcdir)/test/fuzz/corpus/fuzz_state

# --- mutation -------------------------------------------------------------

# Each mutation of test/mutations.txt in a copy of the tree, against unit,
# sim and fuzz-smoke; fails below MUTATION_MIN_SCORE overall or in any pure
# module (see test/mutation.sh).
.PHONY: mutation
mutation:
	@CC='$(CC)' FUZZ_CC='$(FUZZ_CC)' PROVE='$(or $(PROVE),prove)' \
		$(srcdir)/test/mutation.sh
