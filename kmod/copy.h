/* SPDX-License-Identifier: GPL-2.0 */
/*
 * copy.h - bulk copies between kernel mappings of pages (copy.c), for
 * one-copy messages.  Bracket a run of mpirma_copy() calls with
 * mpirma_copy_begin() and mpirma_copy_end(), whose distance of destination
 * and source in a page picks the engine: the vector copy runs with
 * the FPU, so nothing between them may sleep; keep a run short (tens of
 * KiB) so the kernel stays preemptible.
 */
#ifndef MPIRMA_COPY_H
#define MPIRMA_COPY_H

#include <linux/types.h>

/* The engine copy.c picked for one run of copies. */
struct mpirma_copier {
	int engine;
};

void mpirma_copy_init(void);
/* @dst_off and @src_off: any offsets of the run's bytes that advance together. */
void mpirma_copy_begin(struct mpirma_copier *c, u64 dst_off, u64 src_off);
void mpirma_copy(const struct mpirma_copier *c, void *dst, const void *src, size_t n);
void mpirma_copy_end(const struct mpirma_copier *c);

/* copy_vec.c, built with SSE2 and (copy_avx.c) with AVX: vector loops. */
void mpirma_copy_sse(void *dst, const void *src, size_t n);
void mpirma_copy_avx(void *dst, const void *src, size_t n);

#endif /* MPIRMA_COPY_H */
