/*-------------------------------------------------------------------------
 *
 * unit.h
 *		The few macros the plain C unit tests of pg_walsizer need.
 *
 * Each test is a void function named for the behaviour it specifies.  A
 * failed CHECK prints where it failed, the expression and, for the typed
 * comparisons, both values; the test goes on so that one run shows every
 * broken expectation.  The output is TAP, which prove reads (make unit):
 * RUN_TEST prints "ok N - suite/name" or "not ok N - suite/name", failed
 * checks are "# " diagnostics on stderr, and unit_exit_status() prints the
 * plan "1..N" last, so a program that dies part-way has no plan and fails
 * even if every test it reached passed.  There is deliberately no
 * framework: the tests must build wherever a C99 compiler does.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_UNIT_H
#define WALSIZER_UNIT_H

#include <stdio.h>
#include <string.h>

static int	unit_checks_failed_in_test;
static int	unit_tests_run;
static int	unit_tests_failed;

static void
unit_report(const char *file, int line, const char *what)
{
	fprintf(stderr, "# %s:%d: %s\n", file, line, what);
	unit_checks_failed_in_test++;
}

#define CHECK(expr) \
	do { \
		if (!(expr)) \
			unit_report(__FILE__, __LINE__, "CHECK(" #expr ") failed"); \
	} while (0)

/* Signed comparison; both sides are shown on failure. */
#define CHECK_CMP(a, op, b) \
	do { \
		long long	unit_a = (long long) (a); \
		long long	unit_b = (long long) (b); \
		if (!(unit_a op unit_b)) \
		{ \
			char		unit_msg[512]; \
			snprintf(unit_msg, sizeof(unit_msg), \
					 "CHECK(%s %s %s) failed: %lld %s %lld", \
					 #a, #op, #b, unit_a, #op, unit_b); \
			unit_report(__FILE__, __LINE__, unit_msg); \
		} \
	} while (0)

/* Unsigned comparison, for byte counts. */
#define CHECK_UCMP(a, op, b) \
	do { \
		unsigned long long unit_a = (unsigned long long) (a); \
		unsigned long long unit_b = (unsigned long long) (b); \
		if (!(unit_a op unit_b)) \
		{ \
			char		unit_msg[512]; \
			snprintf(unit_msg, sizeof(unit_msg), \
					 "CHECK(%s %s %s) failed: %llu %s %llu", \
					 #a, #op, #b, unit_a, #op, unit_b); \
			unit_report(__FILE__, __LINE__, unit_msg); \
		} \
	} while (0)

#define CHECK_EQ(a, b) CHECK_CMP(a, ==, b)
#define CHECK_UEQ(a, b) CHECK_UCMP(a, ==, b)

#define CHECK_STR_CONTAINS(haystack, needle) \
	do { \
		if (strstr((haystack), (needle)) == NULL) \
		{ \
			char		unit_msg[768]; \
			snprintf(unit_msg, sizeof(unit_msg), \
					 "CHECK(%s contains \"%s\") failed: \"%s\"", \
					 #haystack, (needle), (haystack)); \
			unit_report(__FILE__, __LINE__, unit_msg); \
		} \
	} while (0)

static void
unit_run(const char *suite, const char *name, void (*test) (void))
{
	unit_checks_failed_in_test = 0;
	test();
	unit_tests_run++;
	if (unit_checks_failed_in_test > 0)
		unit_tests_failed++;
	printf("%s %d - %s/%s\n", unit_checks_failed_in_test == 0 ? "ok" : "not ok",
		   unit_tests_run, suite, name);
	fflush(stdout);
}

#define RUN_TEST(suite, test) unit_run(suite, #test, test)

/*
 * Ends a test program: prints the TAP plan and returns the exit status,
 * non-zero when any test failed.
 */
static int
unit_exit_status(void)
{
	printf("1..%d\n", unit_tests_run);
	return unit_tests_failed == 0 ? 0 : 1;
}

#endif							/* WALSIZER_UNIT_H */
