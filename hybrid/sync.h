/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * sync.h - what the synchronization entry points share: sync.c (fence,
 * locks, flushes) and pscw.c (post, start, complete, wait, test).
 */
#ifndef MPIRMA_HYBRID_SYNC_H
#define MPIRMA_HYBRID_SYNC_H

#include "errors.h"
#include "hybrid.h"
#include "win.h"

/*
 * The end of a synchronization on a window that spans nodes: @settled,
 * the engine's and agents' part, goes to the window's handler; @host, the
 * host's call, has been through it already.
 */
static inline int hy_sync_end(struct hy_win *w, int settled, int host,
			      const char *fn)
{
	return settled ? hy_raise(w->host, settled, fn) : host;
}

/*
 * A window that spans nodes, whose synchronization is not the engine
 * window's own: the host's, or the layer's PSCW (hy.lock released).
 */
static inline bool hy_host_only(struct hy_win *w)
{
	if (!w->span)
		return false;
	hy_unlock();
	return true;
}

/*
 * The lane of the synchronization calls, as the operations' (rma.c): in a
 * program with one thread in MPI (hy.lock is no lock then), on a window of
 * one node (hy_win_fast(): the last one, or found without the lock), the
 * engine's call at once.  NULL: the general path.  In the VM it took a
 * third of what the layer added to a lock, put and unlock.
 */
static inline struct hy_win *hy_sync_lane(MPI_Win win)
{
	return hy.threads ? NULL : hy_win_fast(win);
}

#endif
