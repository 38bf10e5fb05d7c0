/*
 * wall_clock_shift.c - an LD_PRELOAD library that shifts the wall clock of
 * the processes it is loaded into, for the TAP test of a clock step.
 *
 *   cc -shared -fPIC -o wall_clock_shift.so wall_clock_shift.c -ldl
 *   LD_PRELOAD=.../wall_clock_shift.so WALSIZER_CLOCK_SHIFT_FILE=F pg_ctl start
 *
 * F holds a whole number of seconds (negative: the clock goes back); it is
 * read again at most every 50 ms, so writing a new number into it steps
 * the clock of a running server, as an administrator or NTP would.  Only
 * the wall clock moves (gettimeofday, time, CLOCK_REALTIME);
 * CLOCK_MONOTONIC is left alone, as a real step leaves it.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

typedef int (*clock_gettime_fn) (clockid_t, struct timespec *);

static clock_gettime_fn
real_clock_gettime(void)
{
	static clock_gettime_fn real;

	if (real == NULL)
		real = (clock_gettime_fn) dlsym(RTLD_NEXT, "clock_gettime");
	return real;
}

/* The shift in seconds, from the file named in WALSIZER_CLOCK_SHIFT_FILE. */
static long long
shift_s(void)
{
	static long long cached;
	static long long read_at_ms = -1000;
	struct timespec now;
	long long now_ms;
	const char *path = getenv("WALSIZER_CLOCK_SHIFT_FILE");
	FILE	   *file;

	if (path == NULL || real_clock_gettime() (CLOCK_MONOTONIC, &now) != 0)
		return 0;
	now_ms = (long long) now.tv_sec * 1000 + now.tv_nsec / 1000000;
	if (now_ms - read_at_ms < 50)
		return cached;
	read_at_ms = now_ms;
	file = fopen(path, "r");
	if (file != NULL)
	{
		long long	value;

		if (fscanf(file, "%lld", &value) == 1)
			cached = value;
		fclose(file);
	}
	return cached;
}

int
clock_gettime(clockid_t clock, struct timespec *ts)
{
	int			rc = real_clock_gettime() (clock, ts);

	if (rc == 0 && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE))
		ts->tv_sec += shift_s();
	return rc;
}

int
gettimeofday(struct timeval *tv, void *tz)
{
	struct timespec ts;

	(void) tz;
	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return -1;
	tv->tv_sec = ts.tv_sec;
	tv->tv_usec = ts.tv_nsec / 1000;
	return 0;
}

time_t
time(time_t *out)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
		return (time_t) -1;
	if (out != NULL)
		*out = ts.tv_sec;
	return ts.tv_sec;
}
