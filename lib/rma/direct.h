/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * direct.h - what the direct path's two lanes share (lib/rma/rma_direct.c,
 * the general one; lib/rma/rma_lean.c, the one-call lean one): where a
 * target's bytes are in this process, whether user space may update them
 * atomically, the target's update lock under MPIRMA_ATOM_BULK, and the
 * private counters the direct operations report later.
 */
#ifndef MPIRMA_LIB_DIRECT_H
#define MPIRMA_LIB_DIRECT_H

#include <stdbool.h>
#include <stdint.h>

#include "mpirma_uapi.h"
#include "win.h"

/* A put's copy: small ones inline, large ones with non-temporal stores. */
void mpirma_put_copy(char *t, const char *s, uint64_t n);

/*
 * Where @bytes at displacement @disp of @rank's window memory start in this
 * process, or NULL when not all inside.
 */
static __always_inline char *mpirma_direct_addr(struct mpirma_window *w,
						uint32_t rank, uint64_t disp,
						uint64_t bytes)
{
	const struct mpirma_win_seg *s;
	uint64_t off;

	if (!w->segs)	/* a dynamic window: displacements are addresses */
		return mpirma_win_dyn_addr(w, rank, disp, bytes);
	s = &w->segs[rank];
	if (__builtin_mul_overflow(disp, (uint64_t)s->disp_unit, &off) ||
	    off > s->len || bytes > s->len - off)
		return NULL;
	return s->base + off;
}

/* May user space update the @size-byte elements at @t atomically? */
static inline bool mpirma_direct_atomic(const struct mpirma_window *w,
					const char *t, unsigned int size)
{
	if (w->bulk_locks)
		return true;
	return w->direct_atomics &&
	       (size == 1 || size == 2 || size == 4 || size == 8) &&
	       !((uintptr_t)t & (size - 1));
}

/* Window rank @rank's update lock, a word of @w's lock table. */
static inline uint32_t *mpirma_bulk_word(const struct mpirma_window *w,
					 uint32_t rank)
{
	return (uint32_t *)(w->bulk_locks +
			    (size_t)rank * MPIRMA_ULOCK_UPDATE_STRIDE);
}

/* mpirma_bulk_lock() when the word was taken: wait for it. */
void mpirma_bulk_lock_wait(uint32_t *word, uint32_t me);

/* Take the update lock @word as window rank @me - 1 (kmod/strategy_bulk.c). */
static __always_inline void mpirma_bulk_lock(uint32_t *word, uint32_t me)
{
	uint32_t free = 0;

	if (mpirma_unlikely(__atomic_load_n(word, __ATOMIC_RELAXED) ||
			    !__atomic_compare_exchange_n(word, &free, me, false,
							 __ATOMIC_ACQUIRE,
							 __ATOMIC_RELAXED)))
		mpirma_bulk_lock_wait(word, me);
}

/* Releases the update lock @word. */
static __always_inline void mpirma_bulk_unlock(uint32_t *word)
{
	__atomic_store_n(word, 0, __ATOMIC_RELEASE);
}

/*
 * The accumulate-like update (not compare-and-swap) of @n elements of kernel
 * type @type with kernel op @op at @t of window rank @rank, under that
 * rank's update locks (w->bulk_locks set), by the reduction engine's
 * fastest build: @src the origin's (NULL for no-op), @res the old values
 * (NULL: not fetched).
 */
void mpirma_bulk_update(const struct mpirma_window *w, uint32_t rank,
			unsigned int kind, unsigned int type, unsigned int op,
			char *t, const char *src, char *res, uint64_t n);

/* This thread's counting tally (threads only); the last one is shared. */
static inline unsigned int mpirma_tally_slot(void)
{
	unsigned int i = (unsigned int)mpirma_thread_index();

	return i < MPIRMA_TALLIES - 1 ? i : MPIRMA_TALLIES - 1;
}

/* *@c += @v by its only writer: no locked instruction, no torn read. */
static inline void mpirma_count_add(uint64_t *c, uint64_t v)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + v,
			 __ATOMIC_RELAXED);
}

void mpirma_direct_count_tally(struct mpirma_window *w, unsigned int kind,
			       uint64_t bytes);

/*
 * Private counters: plain increments, reported later; with threads, in this
 * thread's own tally (mpirma_direct_count_tally(), rma_direct.c).  Inline
 * in every lane: a call here was a tenth of a lean put under the layer.
 */
static __always_inline void mpirma_direct_count(struct mpirma_window *w,
						unsigned int kind,
						uint64_t bytes)
{
	if (mpirma_likely(!w->tallies)) {
		w->direct_count.ops[kind]++;
		w->direct_count.bytes += bytes;
		w->direct_count.n++;
		return;
	}
	mpirma_direct_count_tally(w, kind, bytes);
}

#endif /* MPIRMA_LIB_DIRECT_H */
