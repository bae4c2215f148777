/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * copy.h - copies of message and window data (the shared-memory queues,
 * the direct path's puts and gets).
 *
 * In pieces of 8 KiB: glibc copies more at once with rep movsb, which
 * processors run as fast as the pieces but emulators (QEMU's TCG, where
 * make check and make bench run) byte by byte, 8-10x slower (measured:
 * 2.5 GB/s in pieces against 230-320 MB/s from 16 to 256 KiB, and the same
 * speed both ways on the host).  Aligned pieces by words
 * (mpirma_copy_piece()); smaller pieces where rep movsb meets 4 KiB
 * aliasing (mpirma_copy_aliased()).
 */
#ifndef MPIRMA_LIB_COPY_H
#define MPIRMA_LIB_COPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MPIRMA_COPY_PIECE	8192

/*
 * Up to 16 bytes inline, all loads before the stores (so overlap is
 * fine): the commonest messages and window accesses are a few bytes, and
 * a call of memcpy() through the PLT cost more than the copy.
 */
static __always_inline void mpirma_copy_small(char *d, const char *s,
					      size_t n)
{
	uint64_t a, b;
	uint32_t x, y;
	char p, q, r;

	if (n >= 8) {
		memcpy(&a, s, 8);
		memcpy(&b, s + n - 8, 8);
		memcpy(d, &a, 8);
		memcpy(d + n - 8, &b, 8);
	} else if (n >= 4) {
		memcpy(&x, s, 4);
		memcpy(&y, s + n - 4, 4);
		memcpy(d, &x, 4);
		memcpy(d + n - 4, &y, 4);
	} else if (n) {
		p = s[0];
		q = s[n / 2];
		r = s[n - 1];
		d[0] = p;
		d[n / 2] = q;
		d[n - 1] = r;
	}
}

/*
 * 17 to MPIRMA_COPY_MID bytes inline, in pieces from both ends (they
 * overlap in the middle), all loads before the stores (so overlap is
 * fine).  glibc's memcpy() of these sizes runs AVX code that emulators run
 * slowly: in the VM a ping-pong of 32 to 64 bytes took 2.4-2.9 us through
 * it, 1.3-2.0 inline, where 16 bytes took 1.3-1.9.
 */
#ifdef __SSE2__
#include <emmintrin.h>

#define MPIRMA_COPY_MID	128

static __always_inline __m128i mpirma_ld16(const char *s)
{
	return _mm_loadu_si128((const __m128i *)(const void *)s);
}

static __always_inline void mpirma_st16(char *d, __m128i v)
{
	_mm_storeu_si128((__m128i *)(void *)d, v);
}

static __always_inline void mpirma_copy_mid(char *d, const char *s, size_t n)
{
	__m128i a = mpirma_ld16(s), b = mpirma_ld16(s + n - 16), c, e, f, g,
		h, i;

	if (n <= 32) {
		mpirma_st16(d, a);
		mpirma_st16(d + n - 16, b);
		return;
	}
	c = mpirma_ld16(s + 16);
	e = mpirma_ld16(s + n - 32);
	if (n <= 64) {
		mpirma_st16(d, a);
		mpirma_st16(d + 16, c);
		mpirma_st16(d + n - 32, e);
		mpirma_st16(d + n - 16, b);
		return;
	}
	f = mpirma_ld16(s + 32);
	g = mpirma_ld16(s + 48);
	h = mpirma_ld16(s + n - 64);
	i = mpirma_ld16(s + n - 48);
	mpirma_st16(d, a);
	mpirma_st16(d + 16, c);
	mpirma_st16(d + 32, f);
	mpirma_st16(d + 48, g);
	mpirma_st16(d + n - 64, h);
	mpirma_st16(d + n - 48, i);
	mpirma_st16(d + n - 32, e);
	mpirma_st16(d + n - 16, b);
}
#else
#define MPIRMA_COPY_MID	64

static __always_inline void mpirma_copy_mid(char *d, const char *s, size_t n)
{
	uint64_t w[8];

	memcpy(&w[0], s, 8);
	memcpy(&w[1], s + 8, 8);
	memcpy(&w[2], s + n - 16, 8);
	memcpy(&w[3], s + n - 8, 8);
	if (n > 32) {
		memcpy(&w[4], s + 16, 8);
		memcpy(&w[5], s + 24, 8);
		memcpy(&w[6], s + n - 32, 8);
		memcpy(&w[7], s + n - 24, 8);
		memcpy(d + 16, &w[4], 8);
		memcpy(d + 24, &w[5], 8);
		memcpy(d + n - 32, &w[6], 8);
		memcpy(d + n - 24, &w[7], 8);
	}
	memcpy(d, &w[0], 8);
	memcpy(d + 8, &w[1], 8);
	memcpy(d + n - 16, &w[2], 8);
	memcpy(d + n - 8, &w[3], 8);
}
#endif

/*
 * A destination 1-63 bytes past its source's offset in a 4 KiB page, from
 * this size: glibc's memcpy() copies it with rep movsb (from 2-8 KiB, by
 * its vector size), which an AMD EPYC ran 20-40x slower at those distances
 * (4 KiB aliasing: 2.3 us against 0.08 for 4 KiB, glibc 2.36;
 * docs/history.md).  Such copies go in pieces below every threshold of
 * rep movsb, 64-byte multiples so that each starts as aligned as the
 * first: as fast as an aligned memcpy() there and in the VM.
 */
#define MPIRMA_COPY_ALIAS_MIN	2048
#define MPIRMA_COPY_ALIAS_PIECE	1984

static __always_inline bool mpirma_copy_aliased(const char *d, const char *s,
						size_t n)
{
	return n >= MPIRMA_COPY_ALIAS_MIN &&
	       ((((uintptr_t)d - (uintptr_t)s) & 4095) - 1) < 63;
}

/*
 * A piece of @n bytes: from MPIRMA_COPY_WORDS_MIN bytes with both sides
 * 8-byte aligned and not @aliased (mpirma_copy_aliased()), rep movsq.
 * QEMU's TCG runs it 8 bytes a step, in 15-25% less time than glibc's
 * AVX copy from 2 to 16 KiB (the 2-rank 8 KiB ping-pong faster in 19 of
 * 22 launches side by side, docs/history.md); on an AMD EPYC it takes
 * the time of memcpy() there, aligned, but twice that misaligned and 2.5
 * times at 1 KiB.  Under AddressSanitizer, memcpy(), which it checks.
 */
#define MPIRMA_COPY_WORDS_MIN	2048

static __always_inline void mpirma_copy_piece(char *d, const char *s,
					      size_t n, bool aliased)
{
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__)
	size_t words = n / 8;

	if (n >= MPIRMA_COPY_WORDS_MIN && !aliased &&
	    !(((uintptr_t)d | (uintptr_t)s) & 7)) {
		__asm__ volatile("rep movsq"
				 : "+D"(d), "+S"(s), "+c"(words) : : "memory");
		n &= 7;
		if (n)
			mpirma_copy_small(d, s, n);
		return;
	}
#else
	(void)aliased;
#endif
	memcpy(d, s, n);
}

/* mpirma_copy() of more than 16 bytes. */
static inline void mpirma_copy_over16(char *d, const char *s, size_t n)
{
	size_t piece;
	bool aliased;

	if (n <= MPIRMA_COPY_MID) {
		mpirma_copy_mid(d, s, n);
		return;
	}
	aliased = mpirma_copy_aliased(d, s, n);
	piece = aliased ? MPIRMA_COPY_ALIAS_PIECE : MPIRMA_COPY_PIECE;
	/*
	 * Unknown to the compiler: a memcpy() of a known size it expands
	 * into rep movsq, misaligned too, and as slow as rep movsb where it
	 * meets aliasing.
	 */
	__asm__("" : "+r"(piece));
	for (; n > piece; n -= piece) {
		mpirma_copy_piece(d, s, piece, aliased);
		d += piece;
		s += piece;
	}
	mpirma_copy_piece(d, s, n, aliased);
}

/*
 * memcpy(): @dst and @src do not overlap.  Up to 16 bytes inline wherever
 * it is used, a move or two where the size is known: left a call by the
 * link-time optimizer of the hybrid layer's build, the copy of the one old
 * byte a fetch-and-op returns cost 26 instructions and a call there (in
 * the VM 0.16-0.20 us a call and its flush, against 0.13 for an int).
 */
static __always_inline void mpirma_copy(void *dst, const void *src, size_t n)
{
	if (n <= 16)
		mpirma_copy_small(dst, src, n);
	else
		mpirma_copy_over16(dst, src, n);
}

/* memmove(): mpirma_copy() when @dst and @src do not overlap. */
static inline void mpirma_move(void *dst, const void *src, size_t n)
{
	uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;

	if (n <= 16)
		mpirma_copy_small(dst, src, n);
	else if (n <= MPIRMA_COPY_MID)
		mpirma_copy_mid(dst, src, n);
	else if (n >= MPIRMA_COPY_ALIAS_MIN && (d + n <= s || s + n <= d))
		mpirma_copy_over16(dst, src, n);
	else
		memmove(dst, src, n);
}

#endif /* MPIRMA_LIB_COPY_H */
