/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * span.h - windows that span nodes (span.c).
 */
#ifndef MPIRMA_HYBRID_SPAN_H
#define MPIRMA_HYBRID_SPAN_H

#include "hybrid.h"

/*
 * A window that spans nodes.  hy_span_open(), collective over @a->comm
 * once every member has its engine part, adds the remote side and the
 * program's handle (@w->host: with agents a handle of no bytes, without
 * them the host window over the memory).
 * hy_span_quiesce(), collective at MPI_Win_free, completes everything in
 * flight and ends the engine's epoch; hy_span_release() frees the rest.
 * hy_span_settle() completes what this process issued to window rank
 * @rank (-1: every rank) through the engine and the agents, reporting a
 * failure in the name of @fn: called with hy.lock held, returns with it
 * released.  Host classes.
 */
int hy_span_open(struct hy_win *w, struct create_args *a);
int hy_span_quiesce(struct hy_win *w);
void hy_span_release(struct hy_win *w);
int hy_span_settle(struct hy_win *w, int rank, const char *fn);

/*
 * The access epochs of a window that spans nodes, as the host's
 * synchronization leaves them (call after it, with hy.lock held):
 * hy_span_access() is MPI_SUCCESS when an operation to window rank @rank
 * may be issued (always on a window that does not span nodes), else
 * MPI_ERR_RMA_SYNC (hy_fail).
 *
 * PSCW on a window that spans nodes is the layer's (span.c), with notices
 * matched by origin; the host's own is never called.  Each call is made
 * without hy.lock and returns the layer's class (for hy_raise); a host call
 * it makes reports through the window's handler itself and leaves its code
 * in *@host.  hy_span_wait() with @flag is MPI_Win_test.
 */
int hy_span_access_check(const struct hy_win *w, int rank);

static inline int hy_span_access(const struct hy_win *w, int rank)
{
	return w->span ? hy_span_access_check(w, rank) : MPI_SUCCESS;
}
int hy_span_post(struct hy_win *w, MPI_Group group, int assert);
int hy_span_start(struct hy_win *w, MPI_Group group, int assert, int *host);
int hy_span_complete(struct hy_win *w, int *host);
int hy_span_wait(struct hy_win *w, int *flag);

/* Is window rank @rank of @w on another node (served by span.c)? */
static inline bool hy_remote(const struct hy_win *w, int rank)
{
	return w->span && rank >= 0 && rank < w->span->size &&
	       w->span->erank[rank] < 0;
}

/* Is window rank @rank of @w served by the engine's part of it? */
static inline bool hy_rank_local(const struct hy_win *w, int rank)
{
	return !w->span || (rank >= 0 && rank < w->span->size &&
			    w->span->erank[rank] >= 0);
}

#endif /* MPIRMA_HYBRID_SPAN_H */
