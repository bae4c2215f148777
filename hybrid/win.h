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

/* Open MPI's handles are pointers, MPICH's integers: both hash. */
static inline struct hy_win **hy_win_bucket(MPI_Win win)
{
	uint64_t h = (uint64_t)(uintptr_t)win * 0x9e3779b97f4a7c15ULL;

	return &hy_win_table[h >> 56];
}

static inline struct hy_win *hy_win_find(MPI_Win win)
{
	for (struct hy_win *w = *hy_win_bucket(win); w; w = w->next)
		if (w->host == win)
			return w;
	return NULL;
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
