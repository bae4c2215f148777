/* SPDX-License-Identifier: GPL-2.0 */
/*
 * copy.h - bulk copies between kernel mappings of pages (copy.c), for
 * one-copy messages.  Bracket a run of mpirma_copy() calls with
 * mpirma_copy_begin() and mpirma_copy_end(): the vector copy runs with
 * the FPU, so nothing between them may sleep; keep a run short (tens of
 * KiB) so the kernel stays preemptible.
 */
#ifndef MPIRMA_COPY_H
#define MPIRMA_COPY_H

#include <linux/types.h>

void mpirma_copy_init(void);
void mpirma_copy_begin(void);
void mpirma_copy(void *dst, const void *src, size_t n);
void mpirma_copy_end(void);

/* copy_vec.c, built with SSE2 and (copy_avx.c) with AVX: vector loops. */
void mpirma_copy_sse(void *dst, const void *src, size_t n);
void mpirma_copy_avx(void *dst, const void *src, size_t n);

#endif /* MPIRMA_COPY_H */
