/* SPDX-License-Identifier: GPL-2.0 */
/*
 * msgq.h - what the msgq test (mpitests/msgq.c) shares with its parts in
 * mpitests/msgq/: the bytes every message carries, and the parts' tests.
 */
#ifndef MPIRMA_MSGQ_TEST_H
#define MPIRMA_MSGQ_TEST_H

#include <stddef.h>

/* Byte @i of message @msg from rank @src. */
static inline unsigned char pattern(int src, int msg, size_t i)
{
	return (unsigned char)(src * 131 + msg * 17 + i * 7 + (i >> 9));
}

static inline void fill(unsigned char *b, size_t n, int src, int msg)
{
	for (size_t i = 0; i < n; i++)
		b[i] = pattern(src, msg, i);
}

/* The first bad byte of @b, or -1. */
static inline long bad_byte(const unsigned char *b, size_t n, int src, int msg)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != pattern(src, msg, i))
			return (long)i;
	return -1;
}

/* between ranks 0 and 1 (of at least 2) */
void msgq_test_lean(void);		/* lean.c */
void msgq_test_two_units(void);		/* two_units.c */

#endif /* MPIRMA_MSGQ_TEST_H */
