// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host unit test of the copies of messages and window data
 * (lib/base/copy.h): mpirma_copy() against memcpy() and mpirma_move()
 * against memmove() for every length up to past the inline sizes and
 * around the 8 KiB pieces, at every alignment of both sides, overlapping
 * both ways for the move, and at destinations just past the source's
 * offset in a page (the copies that avoid rep movsb), and with both sides
 * 8-byte aligned from MPIRMA_COPY_WORDS_MIN (the copies by words, with
 * tails of 0-7 bytes); nothing outside the destination is touched.
 *
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../lib/base/copy.h"
#include "unit_check.h"

#define AREA	(7 * MPIRMA_COPY_PIECE)

/* page-aligned: offsets a multiple of 64 bytes apart are not aliased */
static unsigned char got[AREA] __attribute__((aligned(4096)));
static unsigned char want[AREA] __attribute__((aligned(4096)));
static unsigned char src[AREA] __attribute__((aligned(4096)));

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 131 + seed * 7 + (i >> 8));
}

/*
 * @n bytes from offset @so to @dof: a copy between separate buffers, or
 * (@move) a move within one, against the C library's.
 */
static void one(size_t n, size_t so, size_t dof, bool move)
{
	fill(got, AREA, 1);
	fill(want, AREA, 1);
	fill(src, AREA, 2);
	if (move) {
		mpirma_move(got + dof, got + so, n);
		memmove(want + dof, want + so, n);
	} else {
		mpirma_copy(got + dof, src + so, n);
		memcpy(want + dof, src + so, n);
	}
	checkf(!memcmp(got, want, AREA), "%s of %zu bytes, %zu -> %zu",
	       move ? "move" : "copy", n, so, dof);
}

int main(void)
{
	static const size_t big[] = {
		MPIRMA_COPY_PIECE - 1, MPIRMA_COPY_PIECE, MPIRMA_COPY_PIECE + 1,
		2 * MPIRMA_COPY_PIECE + 17,
	};
	static const size_t alias[] = {
		MPIRMA_COPY_ALIAS_MIN - 1, MPIRMA_COPY_ALIAS_MIN,
		MPIRMA_COPY_ALIAS_MIN + 63, 4096, MPIRMA_COPY_PIECE + 17,
		3 * MPIRMA_COPY_PIECE + 5,
	};
	static const size_t words[] = {
		MPIRMA_COPY_WORDS_MIN - 1, MPIRMA_COPY_WORDS_MIN,
		MPIRMA_COPY_WORDS_MIN + 1, MPIRMA_COPY_WORDS_MIN + 7, 4096 + 5,
		MPIRMA_COPY_PIECE + 3, 2 * MPIRMA_COPY_PIECE + 2048 + 6,
	};
	size_t n, a, b, i;

	for (n = 0; n <= MPIRMA_COPY_MID + 32; n++)
		for (a = 0; a < 8; a++)
			for (b = 0; b < 8; b++) {
				one(n, a, 256 + b, false);
				/* overlapping moves, both directions, by 0-35 */
				one(n, 600 + a, 600 + a + b % 4, true);
				one(n, 600 + a + b % 4, 600 + a, true);
				one(n, 900 + a, 900 + a + b * 5, true);
				one(n, 900 + a + b * 5, 900 + a, true);
			}
	/* destinations 0-65 bytes past the source's offset in a page */
	for (i = 0; i < sizeof(alias) / sizeof(alias[0]); i++)
		for (a = 0; a <= 65; a += (a < 2 || a > 62) ? 1 : 7) {
			size_t d = (a + (uintptr_t)src - (uintptr_t)got) & 4095;
			bool want_pieces = a >= 1 && a <= 63 &&
					  alias[i] >= MPIRMA_COPY_ALIAS_MIN;

			checkf(mpirma_copy_aliased((char *)got + d,
						   (char *)src, alias[i]) ==
			       want_pieces, "aliased(%zu bytes, %zu past)",
			       alias[i], a);
			one(alias[i], 0, d, false);
			one(alias[i], 5, (d + 5) & 4095, false);
		}
	for (i = 0; i < sizeof(alias) / sizeof(alias[0]); i++) {
		one(alias[i], 0, alias[i] + 8, true);	/* apart, 8 past */
		one(alias[i], alias[i] + 9, 1, true);
	}
	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		one(big[i], 3, 5, false);
		one(big[i], 0, MPIRMA_COPY_PIECE / 2, true);
		one(big[i], MPIRMA_COPY_PIECE / 2, 0, true);
		one(big[i], 1, big[i] + 4, true);	/* apart: in pieces */
	}
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		for (a = 0; a < 64; a += 8) {
			one(words[i], a, 128 + a, false);	/* by words */
			one(words[i], a, 129 + a, false);	/* misaligned */
			one(words[i], a + 4, 132 + a, false);
			one(words[i], a, words[i] + 64 + a, true);
			one(words[i], words[i] + 64 + a, a, true);
		}
	return unit_summary();
}
