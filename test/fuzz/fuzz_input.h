/*-------------------------------------------------------------------------
 *
 * fuzz_input.h
 *		Turns fuzzer bytes into the values pg_walsizer's pure code takes.
 *
 * Each value starts with a byte that chooses how the rest is read: a small
 * plausible number, one of a table of edge values (zero, limits, NaN,
 * infinities), or raw bytes.  That keeps the fuzzer close to real inputs
 * most of the time while still reaching every bit pattern.  Past the end
 * of the input every value reads as zero, so any prefix is a valid input.
 * make_corpus.c writes seeds in the same encoding.
 *
 *-------------------------------------------------------------------------
 */
#ifndef WALSIZER_FUZZ_INPUT_H
#define WALSIZER_FUZZ_INPUT_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct FuzzInput
{
	const uint8_t *data;
	size_t		len;
	size_t		pos;
} FuzzInput;

/* How a value is encoded: its first byte modulo FUZZ_MODES. */
#define FUZZ_SMALL 0			/* then 2 bytes, little-endian */
#define FUZZ_EDGE 1				/* then 1 byte: index into the edge table */
#define FUZZ_RAW 2				/* then 8 bytes, the raw bit pattern */
#define FUZZ_MODES 3

static inline uint8_t
fuzz_byte(FuzzInput *in)
{
	return in->pos < in->len ? in->data[in->pos++] : 0;
}

static inline uint64_t
fuzz_le(FuzzInput *in, int bytes)
{
	uint64_t	v = 0;

	for (int i = 0; i < bytes; i++)
		v |= (uint64_t) fuzz_byte(in) << (8 * i);
	return v;
}

static inline bool
fuzz_flag(FuzzInput *in)
{
	return fuzz_byte(in) & 1;
}

static const int64_t fuzz_edge_ints[] = {
	0, 1, 2, 16, 32, 64, 1024, 4096, -1, 2147483647, 2147483648LL,
	INT64_MAX, INT64_MIN, 1000000, 1000001
};

static const double fuzz_edge_doubles[] = {
	0.0, -0.0, 1.0, 0.5, 0.9, 1e-300, 1e300, 1e18, 4.9e-324, -1.0, 30.0,
	300.0, 86400.0, 16777216.0, 1e30
};

static inline int64_t
fuzz_int(FuzzInput *in)
{
	switch (fuzz_byte(in) % FUZZ_MODES)
	{
		case FUZZ_SMALL:
			return (int64_t) fuzz_le(in, 2);
		case FUZZ_EDGE:
			return fuzz_edge_ints[fuzz_byte(in) %
								  (sizeof(fuzz_edge_ints) / sizeof(fuzz_edge_ints[0]))];
		default:
			return (int64_t) fuzz_le(in, 8);
	}
}

static inline int32_t
fuzz_int32(FuzzInput *in)
{
	return (int32_t) (uint32_t) fuzz_int(in);
}

static inline double
fuzz_double(FuzzInput *in)
{
	uint8_t		mode = fuzz_byte(in);
	uint64_t	bits;
	double		value;

	switch (mode % (FUZZ_MODES + 1))
	{
		case FUZZ_SMALL:
			/* hundredths: 0 .. 655.35, enough for rates in MB/s and such */
			return (double) fuzz_le(in, 2) / 100.0;
		case FUZZ_EDGE:
			{
				uint8_t		i = fuzz_byte(in);
				size_t		n = sizeof(fuzz_edge_doubles) / sizeof(fuzz_edge_doubles[0]);

				if (i % (n + 3) == n)
					return NAN;
				if (i % (n + 3) == n + 1)
					return INFINITY;
				if (i % (n + 3) == n + 2)
					return -INFINITY;
				return fuzz_edge_doubles[i % (n + 3)];
			}
		case FUZZ_RAW:
			bits = fuzz_le(in, 8);
			memcpy(&value, &bits, sizeof(value));
			return value;
		default:
			/* a byte rate: MB/s in hundredths, scaled to bytes */
			return (double) fuzz_le(in, 2) / 100.0 * 1048576.0;
	}
}

#endif							/* WALSIZER_FUZZ_INPUT_H */
