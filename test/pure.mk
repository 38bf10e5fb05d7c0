# test/pure.mk: plain C tests of pg_walsizer's pure modules.
#
# Included from the top Makefile after PGXS, so $(CC) is the compiler
# PostgreSQL was built with; the flags here are our own, because these
# programs link no server code.  Everything is built under test/build/.
#
#   make unit         unit tests, built with AddressSanitizer and UBSan
#   make sim          replays test/sim/traces/*.trace, compares with expected/
#   make sim-update   rewrites test/sim/expected/ from the simulator
#   make fuzz-smoke   each libFuzzer harness for a fixed number of runs
#   make fuzz-long    each libFuzzer harness for FUZZ_SECONDS (default 600)
#   make fuzz-corpus  rewrites the seed corpora in test/fuzz/corpus/
#
# Every runner prints "ok - NAME" or "not ok - NAME" per test, trace or
# fuzzer, then "TARGET: N passed, N failed".

PURE_SOURCES ?= $(srcdir)/src/policy.c $(srcdir)/src/state_format.c
PURE_HEADERS = $(wildcard $(srcdir)/src/policy.h $(srcdir)/src/state_format.h)
PURE_BUILD = test/build

# -fsanitize=undefined leaves out float-cast-overflow in gcc; ask for it.
PURE_SANITIZE ?= -fsanitize=address,undefined,float-cast-overflow \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
PURE_CFLAGS = -std=c99 -O1 -g -Wall -Wextra -Werror -I$(srcdir)/src $(PURE_SANITIZE)
# A sanitizer report exits with 70, so that a crash is told from a failure.
PURE_ENV = ASAN_OPTIONS=detect_leaks=1:exitcode=70 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=70

# --- unit ---------------------------------------------------------------

UNIT_PROGRAMS = $(patsubst $(srcdir)/test/unit/%.c,$(PURE_BUILD)/unit/%,\
	$(wildcard $(srcdir)/test/unit/test_*.c))

$(PURE_BUILD)/unit/%: $(srcdir)/test/unit/%.c $(PURE_SOURCES) $(PURE_HEADERS) \
		$(wildcard $(srcdir)/test/unit/*.h)
	@mkdir -p $(@D)
	@echo "  CC $@"
	@$(CC) $(PURE_CFLAGS) -o $@ $< $(PURE_SOURCES) -lm

# A program that dies (a sanitizer report, a crash) counts as one more
# failure: the tests after the one that died did not run.
.PHONY: unit
unit: $(UNIT_PROGRAMS)
	@passed=0; failed=0; \
	for program in $(UNIT_PROGRAMS); do \
		$(PURE_ENV) $$program > $$program.out 2>&1; status=$$?; \
		cat $$program.out; \
		p=$$(grep -c '^ok - ' $$program.out); f=$$(grep -c '^not ok - ' $$program.out); \
		passed=$$((passed + p)); failed=$$((failed + f)); \
		if [ $$status -gt 1 ] || { [ $$status -ne 0 ] && [ $$f -eq 0 ]; }; then \
			echo "not ok - $$(basename $$program) (died, exit status $$status)"; \
			failed=$$((failed + 1)); \
		fi; \
	done; \
	echo "unit: $$passed passed, $$failed failed"; \
	[ $$failed -eq 0 ]

# --- sim ----------------------------------------------------------------

SIM_PROGRAM = $(PURE_BUILD)/sim/walsizer_sim
SIM_TRACES = $(sort $(wildcard $(srcdir)/test/sim/traces/*.trace))

$(SIM_PROGRAM): $(srcdir)/test/sim/walsizer_sim.c $(PURE_SOURCES) $(PURE_HEADERS)
	@mkdir -p $(@D)
	@echo "  CC $@"
	@$(CC) $(PURE_CFLAGS) -o $@ $< $(PURE_SOURCES) -lm

.PHONY: sim sim-update
sim: $(SIM_PROGRAM)
	@passed=0; failed=0; \
	for trace in $(SIM_TRACES); do \
		name=$$(basename $$trace .trace); \
		out=$(PURE_BUILD)/sim/$$name.out; \
		if $(PURE_ENV) $(SIM_PROGRAM) $$trace > $$out && \
			diff -u $(srcdir)/test/sim/expected/$$name.out $$out; then \
			echo "ok - sim/$$name"; passed=$$((passed + 1)); \
		else \
			echo "not ok - sim/$$name"; failed=$$((failed + 1)); \
		fi; \
	done; \
	echo "sim: $$passed passed, $$failed failed"; \
	[ $$failed -eq 0 ]

sim-update: $(SIM_PROGRAM)
	@for trace in $(SIM_TRACES); do \
		name=$$(basename $$trace .trace); \
		$(SIM_PROGRAM) $$trace > $(srcdir)/test/sim/expected/$$name.out || exit 1; \
		echo "wrote test/sim/expected/$$name.out"; \
	done

# --- fuzz ---------------------------------------------------------------

# libFuzzer comes with clang (Debian: clang-14 and libclang-rt-14-dev).
FUZZ_CC ?= clang-14
FUZZ_CFLAGS = -std=c99 -O1 -g -Wall -Wextra -Werror -I$(srcdir)/src \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
FUZZ_TARGETS = fuzz_policy fuzz_state
FUZZ_PROGRAMS = $(addprefix $(PURE_BUILD)/fuzz/,$(FUZZ_TARGETS))
FUZZ_RUNS ?= 200000
FUZZ_SECONDS ?= 600

$(PURE_BUILD)/fuzz/%: $(srcdir)/test/fuzz/%.c $(PURE_SOURCES) $(PURE_HEADERS)
	@mkdir -p $(@D)
	@echo "  CC $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(PURE_SOURCES) -lm

# Each fuzzer starts from a copy of its checked-in corpus, so runs never
# write into the source tree; crash reproducers land in test/build/fuzz/.
define run_fuzzers
	@passed=0; failed=0; \
	for target in $(FUZZ_TARGETS); do \
		work=$(PURE_BUILD)/fuzz/$$target.corpus; \
		rm -rf $$work; mkdir -p $$work; \
		cp $(srcdir)/test/fuzz/corpus/$$target/* $$work/ 2>/dev/null; \
		if $(PURE_BUILD)/fuzz/$$target $(1) -seed=1 \
			-artifact_prefix=$(PURE_BUILD)/fuzz/$$target- \
			$$work > $(PURE_BUILD)/fuzz/$$target.log 2>&1; then \
			echo "ok - fuzz/$$target: $$(grep -E '^#[0-9]+.*(DONE|pulse)' $(PURE_BUILD)/fuzz/$$target.log | tail -1)"; \
			passed=$$((passed + 1)); \
		else \
			tail -40 $(PURE_BUILD)/fuzz/$$target.log; \
			echo "not ok - fuzz/$$target (log: $(PURE_BUILD)/fuzz/$$target.log)"; \
			failed=$$((failed + 1)); \
		fi; \
	done; \
	echo "$(2): $$passed passed, $$failed failed"; \
	[ $$failed -eq 0 ]
endef

.PHONY: fuzz-smoke fuzz-long
fuzz-smoke: $(FUZZ_PROGRAMS)
	$(call run_fuzzers,-runs=$(FUZZ_RUNS),fuzz-smoke)

fuzz-long: $(FUZZ_PROGRAMS)
	$(call run_fuzzers,-max_total_time=$(FUZZ_SECONDS) -print_final_stats=1,fuzz-long)

# Rewrites the seed corpora; they are small and checked in.
$(PURE_BUILD)/fuzz/make_corpus: $(srcdir)/test/fuzz/make_corpus.c $(PURE_SOURCES) \
		$(PURE_HEADERS) $(srcdir)/test/fuzz/fuzz_input.h
	@mkdir -p $(@D)
	@echo "  CC $@"
	@$(CC) $(PURE_CFLAGS) -o $@ $< $(PURE_SOURCES) -lm

.PHONY: fuzz-corpus
fuzz-corpus: $(PURE_BUILD)/fuzz/make_corpus
	@mkdir -p $(srcdir)/test/fuzz/corpus/fuzz_policy $(srcdir)/test/fuzz/corpus/fuzz_state
	$(PURE_ENV) $< $(srcdir)/test/fuzz/corpus/fuzz_policy $(srcdir)/test/fuzz/corpus/fuzz_state
