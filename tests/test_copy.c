// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host unit test of the copies of messages and window data
 * (lib/base/copy.h): mpirma_copy() against memcpy() and mpirma_move()
 * against memmove() for every length up to past the inline sizes and
 * around the 8 KiB pieces, at every alignment of both sides, overlapping
 * both ways for the move; nothing outside the destination is touched.
 *
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../lib/base/copy.h"
#include "unit_check.h"

#define AREA	(5 * MPIRMA_COPY_PIECE)

static unsigned char got[AREA], want[AREA], src[AREA];

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 131 + seed * 7 + (i >> 8));
}

/* One copy of @n bytes from offset @so to @do, separate buffers. */
static void one_copy(size_t n, size_t so, size_t dof)
{
	fill(got, AREA, 1);
	fill(want, AREA, 1);
	fill(src, AREA, 2);
	mpirma_copy(got + dof, src + so, n);
	memcpy(want + dof, src + so, n);
	checkf(!memcmp(got, want, AREA), "copy of %zu bytes, %zu -> %zu",
	       n, so, dof);
}

/* One move of @n bytes within one buffer, from @so to @dof. */
static void one_move(size_t n, size_t so, size_t dof)
{
	fill(got, AREA, 3);
	fill(want, AREA, 3);
	mpirma_move(got + dof, got + so, n);
	memmove(want + dof, want + so, n);
	checkf(!memcmp(got, want, AREA), "move of %zu bytes, %zu -> %zu",
	       n, so, dof);
}

int main(void)
{
	static const size_t big[] = {
		MPIRMA_COPY_PIECE - 1, MPIRMA_COPY_PIECE, MPIRMA_COPY_PIECE + 1,
		2 * MPIRMA_COPY_PIECE + 17,
	};
	size_t n, a, b, i;

	for (n = 0; n <= 40; n++)
		for (a = 0; a < 8; a++)
			for (b = 0; b < 8; b++) {
				one_copy(n, a, 64 + b);
				/* overlapping moves, both directions */
				one_move(n, 100 + a, 100 + a + b % 4);
				one_move(n, 100 + a + b % 4, 100 + a);
			}
	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		one_copy(big[i], 3, 5);
		one_move(big[i], 0, MPIRMA_COPY_PIECE / 2);
		one_move(big[i], MPIRMA_COPY_PIECE / 2, 0);
		one_move(big[i], 1, big[i] + 4);	/* apart: in pieces */
	}
	return unit_summary();
}
