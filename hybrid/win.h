/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * win.h - the window table and the start and end of every call on a window (win.c).
 */
#ifndef MPIRMA_HYBRID_WIN_H
#define MPIRMA_HYBRID_WIN_H

#include <stdint.h>

#include "errors.h"
#include "hybrid.h"
#include "span.h"

/*
 * hybrid/win.c: the window table, chains of windows by their host
 * handle's hash, newest first, so that finding one costs the same with
 * hundreds of windows (Global Arrays) as with one.  Call with hy.lock
 * held.  Inline, as every call on a window starts here.
 */
#define HY_WIN_BUCKETS	256

extern struct hy_win *hy_win_table[HY_WIN_BUCKETS];

/*
 * Odd while the table changes (hy.lock held, win.c): a reader without the
 * lock (hy_win_peek()) trusts what it found only if the count was even and
 * the same before and after.  A freed window's node is kept for the next
 * window, never given back to malloc while the job runs, so such a reader
 * never touches freed memory.
 */
extern HY_LOCAL unsigned int hy_win_seq;

/* Open MPI's handles are pointers, MPICH's integers: both hash. */
static inline struct hy_win **hy_win_bucket(MPI_Win win)
{
	uint64_t h = (uint64_t)(uintptr_t)win * 0x9e3779b97f4a7c15ULL;

	return &hy_win_table[h >> 56];
}

/*
 * Once the engine runs: its entries for the layer raise their failures on
 * the program's window (mpirma_at_failed, rma_args.h).
 */
void hy_win_init(void);

/* The kept nodes go back to malloc: no program thread is in MPI any more. */
void hy_win_spares_free(void);

/* Atomic loads: hy_win_peek() reads chains another thread may change. */
static inline struct hy_win *hy_win_find(MPI_Win win)
{
	struct hy_win *w = __atomic_load_n(hy_win_bucket(win),
					   __ATOMIC_RELAXED);

	for (; w; w = __atomic_load_n(&w->next, __ATOMIC_RELAXED))
		if (__atomic_load_n(&w->host, __ATOMIC_RELAXED) == win)
			return w;
	return NULL;
}

/*
 * The engine's window of @win, found without hy.lock, or NULL: the host
 * serves @win, or the table changed meanwhile (the caller then takes the
 * locked path, hy_enter()).
 */
static inline struct hy_win *hy_win_peek(MPI_Win win)
{
	unsigned int seq;
	struct hy_win *w;

	if (!hy.threads)
		return hy_win_find(win);
	seq = __atomic_load_n(&hy_win_seq, __ATOMIC_ACQUIRE);
	w = hy_win_find(win);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if ((seq & 1) || __atomic_load_n(&hy_win_seq, __ATOMIC_RELAXED) != seq)
		return NULL;
	return w;
}

/*
 * The window the fast lanes found last (hy_win_fast()), one that spans no
 * nodes, kept while no other thread calls MPI (!hy.threads); NULL after
 * any table change (win.c).  Programs mostly call on one window in a row.
 */
extern HY_LOCAL struct hy_win *hy_win_last;

/* hy_win_last if it is @win's, else NULL: no lookup at all. */
static inline struct hy_win *hy_win_cached(MPI_Win win)
{
	struct hy_win *w = hy_win_last;

	return w && w->host == win ? w : NULL;
}

/* hy_win_peek() for the fast lanes: NULL also for a window that spans nodes. */
static inline struct hy_win *hy_win_fast(MPI_Win win)
{
	struct hy_win *w = hy_win_cached(win);

	if (w)
		return w;
	w = hy_win_peek(win);
	if (!w || w->span)
		return NULL;
	if (!hy.threads)
		hy_win_last = w;
	return w;
}

/*
 * The start of a call on a window: the engine's window of @win with hy.lock
 * taken, or NULL (lock not taken) when the host serves @win.
 */
static inline struct hy_win *hy_enter(MPI_Win win)
{
	struct hy_win *w;

	hy_lock();
	w = hy_win_find(win);
	if (!w)
		hy_unlock();
	return w;
}

/*
 * hy_enter() for a put or get to window rank @target: NULL (lock not taken)
 * also when @target is on another node and no agents run, so that the
 * host's window serves it.
 */
static inline struct hy_win *hy_enter_to(MPI_Win win, int target)
{
	struct hy_win *w = hy_enter(win);

	if (w && !hy.agent && hy_remote(w, target)) {
		hy_unlock();
		return NULL;
	}
	return w;
}

/*
 * hy_enter() for an accumulate-like operation to window rank @target: NULL
 * (lock not taken) also on a window that spans nodes when the host applies
 * them all (hy.span_host_acc); the target's next flush then goes to the
 * host too.
 */
static inline struct hy_win *hy_enter_acc(MPI_Win win, int target)
{
	struct hy_win *w = hy_enter(win);

	if (w && w->span && hy.span_host_acc) {
		if (target >= 0 && target < w->span->size)
			w->span->host_acc[target] = 1;
		hy_unlock();
		return NULL;
	}
	return w;
}

/*
 * The end of such a call: @code, what the engine's call returned (it ran
 * with the lock held, as arguments are evaluated first), reported after
 * the lock is released.
 */
static inline int hy_leave(struct hy_win *w, int code, const char *fn)
{
	int ret = hy_inner(code);

	hy_unlock();
	return hy_raise(w->host, ret, fn);
}

#endif /* MPIRMA_HYBRID_WIN_H */
