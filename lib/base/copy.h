/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * copy.h - copies of message and window data (the shared-memory queues,
 * the direct path's puts and gets).
 *
 * In pieces of 8 KiB: glibc copies more at once with rep movsb, which
 * processors run as fast as the pieces but emulators (QEMU's TCG, where
 * make check and make bench run) byte by byte, 8-10x slower (measured:
 * 2.5 GB/s in pieces against 230-320 MB/s from 16 to 256 KiB, and the same
 * speed both ways on the host).
 */
#ifndef MPIRMA_LIB_COPY_H
#define MPIRMA_LIB_COPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MPIRMA_COPY_PIECE	8192

/* memcpy(): @dst and @src do not overlap. */
static inline void mpirma_copy(void *dst, const void *src, size_t n)
{
	char *d = dst;
	const char *s = src;

	for (; n > MPIRMA_COPY_PIECE; n -= MPIRMA_COPY_PIECE) {
		memcpy(d, s, MPIRMA_COPY_PIECE);
		d += MPIRMA_COPY_PIECE;
		s += MPIRMA_COPY_PIECE;
	}
	if (n)
		memcpy(d, s, n);
}

/* memmove(): pieces when @dst and @src do not overlap. */
static inline void mpirma_move(void *dst, const void *src, size_t n)
{
	uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;

	if (n > MPIRMA_COPY_PIECE && (d + n <= s || s + n <= d))
		mpirma_copy(dst, src, n);
	else
		memmove(dst, src, n);
}

#endif /* MPIRMA_LIB_COPY_H */
