/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * origin.h - operations for targets on other nodes, shipped to their
 * agents (origin.c); host classes.
 */
#ifndef MPIRMA_HYBRID_ORIGIN_H
#define MPIRMA_HYBRID_ORIGIN_H

#include "hybrid.h"

struct mpirma_rma_args;

/*
 * Ships the operation @a (engine handles, its trank the target's window
 * rank) to the target's agent, in the name of the program's call @fn.
 * Called with hy.lock held, which it drops while it waits on the host;
 * returns with it held.  A put or accumulate returns once batched (its
 * acknowledgement is hy_ship_complete's); an operation with a result
 * returns with the result in place, but in a lazy epoch (below) with
 * @defer, where it is batched too and its result put in place by the
 * flush or unlock that completes it.
 */
int hy_ship(struct hy_win *w, const struct mpirma_rma_args *a, bool defer,
	    const char *fn);

/*
 * Waits for the acknowledgements of what @w shipped to window rank @rank
 * (-1: to every rank).  Call without hy.lock.  The first shipped operation
 * that failed is reported in the name of @fn, the call that completes it.
 */
int hy_ship_complete(struct hy_win *w, int rank, const char *fn);

/*
 * The lock of window rank @rank of @w (-1: a shared lock of every rank):
 * a request to that target's agent, or on its node a word this process
 * takes (agent_slots.c).  hy_ship_lock() returns once it is granted;
 * hy_ship_unlock() gives it back (after the operations it covered are
 * complete).  Call without hy.lock.
 */
int hy_ship_lock(struct hy_win *w, int rank, bool exclusive);
int hy_ship_unlock(struct hy_win *w, int rank);

/*
 * A lazy epoch to window rank @rank on another node: hy_ship_lock_lazy()
 * only records the lock, which travels with the epoch's batch (wire.h:
 * HY_KIND_EPOCH) when a flush, a full batch or an operation that cannot
 * wait sends it, or with the unlock: hy_ship_unlock_lazy(), before
 * hy_ship_complete(), marks the epoch's last message as its unlock too
 * and says whether it did (else the lock was taken: hy_ship_unlock()).
 * A lock, a get and an unlock are one message and its reply.
 */
void hy_ship_lock_lazy(struct hy_win *w, int rank, bool exclusive);
bool hy_ship_unlock_lazy(struct hy_win *w, int rank);

/* Frees what an error left batched on @w (window free). */
void hy_origin_close(struct hy_win *w);

#endif /* MPIRMA_HYBRID_ORIGIN_H */
