// SPDX-License-Identifier: GPL-2.0
/*
 * The vector copy loops of copy.c: this file built with SSE2 gives
 * mpirma_copy_sse(), and copy_avx.c builds it again with AVX for
 * mpirma_copy_avx() (Kbuild); callers hold kernel_fpu_begin().  Plain
 * vector loads and stores: processors run memcpy()'s rep movsb as fast or
 * faster, but emulators such as QEMU's TCG run it a byte per step, and
 * copy.c measures which one wins.
 */
#include "copy.h"

#ifdef MPIRMA_COPY_AVX
#define VEC_BYTES	32
#define COPY_FN		mpirma_copy_avx
#else
#define VEC_BYTES	16
#define COPY_FN		mpirma_copy_sse
#endif

/* One vector register's worth, at any address. */
struct vec {
	__attribute__((vector_size(VEC_BYTES))) long long v;
} __packed;

/* Four vectors loaded, then stored, at a time; then the rest. */
void COPY_FN(void *dst, const void *src, size_t n)
{
	const struct vec *s = src;
	struct vec *d = dst;
	const char *sc;
	char *dc;

	for (; n >= 4 * VEC_BYTES; n -= 4 * VEC_BYTES, s += 4, d += 4) {
		struct vec a = s[0], b = s[1], c = s[2], e = s[3];

		d[0] = a;
		d[1] = b;
		d[2] = c;
		d[3] = e;
	}
	for (; n >= VEC_BYTES; n -= VEC_BYTES)
		*d++ = *s++;
	sc = (const char *)s;
	dc = (char *)d;
	while (n--)
		*dc++ = *sc++;
}
