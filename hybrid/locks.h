/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * locks.h - the layer's locks, the one order they nest in, and its checker.
 *
 * A thread that holds a lock takes only locks of a higher rank; a lock is
 * never taken twice, nor two of one rank at once (two windows' span locks):
 *
 *   1 HY_LOCK_STATE  hy.lock: the engine and the window table (hybrid.h),
 *                    taken by every call into the engine when the program
 *                    has several threads in MPI at once
 *   2 HY_LOCK_SPAN   hy_span.lock: a spanning window's batches, pending
 *                    acknowledgements and lazy epochs (batch.c, origin.c)
 *   3 HY_LOCK_SERVE  serving: the agent's inbox, reply buffer and the
 *                    application of received messages (agent.c); a waiting
 *                    program thread only ever tries it
 *   4 HY_LOCK_SLOTS  the agent's slots and their locks, and the epochs
 *                    granted after they waited (agent_slots.c)
 *   5 HY_LOCK_NET_CONN one connection of the agents' own transport
 *                    (net.c): its writes, so frames never interleave, its
 *                    connecting, and the agent's queue of replies for it;
 *                    on the host's transport, its one order_lock: a reply's
 *                    receive posted with its message's send (net_host.c)
 *   6 HY_LOCK_NET_RX the origin side's posted receives and kept frames, and
 *                    which thread reads for all (net_io.c)
 *   7 HY_LOCK_KEYVALS the window keyvals' list (keyval.c)
 *   8 HY_LOCK_PARK   the agent's rest while program threads serve (agent.c);
 *                    also the rest with no slot on the host's transport
 *                    (net_host.c), never held with the other
 *
 * Not locks that nest: the slots of derived types converted lately
 * (convert_type.c) are sequence locks written under hy.lock and read by
 * the RMA fast lane without any lock; a reader never waits, it misses.
 *
 * The host MPI's own locks come after all of them: the layer calls the host
 * with any of its locks held.  The engine (lib/) takes its own only inside
 * calls made under hy.lock; where such a call waits it lets go of its own
 * and of hy.lock, and takes hy.lock first again (hy_engine_waits(),
 * state.c).  A trylock cannot deadlock and is not checked,
 * but the lock it takes counts as held.
 *
 * With MPIRMA_LOCK_CHECK=1 in the environment (hy_locks_init(), at
 * MPI_Init; make check's hybrid suites set it) every take is checked
 * against the locks the thread holds, and a take out of order aborts the
 * process, naming both locks.  Otherwise a take costs one predictable
 * branch more than the pthread call.
 */
#ifndef MPIRMA_HYBRID_LOCKS_H
#define MPIRMA_HYBRID_LOCKS_H

#include <pthread.h>
#include <stdbool.h>

enum hy_lock_rank {
	HY_LOCK_STATE = 1,
	HY_LOCK_SPAN,
	HY_LOCK_SERVE,
	HY_LOCK_SLOTS,
	HY_LOCK_NET_CONN,
	HY_LOCK_NET_RX,
	HY_LOCK_KEYVALS,
	HY_LOCK_PARK,
};

struct hy_mutex {
	pthread_mutex_t m;
	enum hy_lock_rank rank;
};

#define HY_MUTEX_INIT(r) { PTHREAD_MUTEX_INITIALIZER, (r) }

extern bool hy_lock_check;

/* Reads MPIRMA_LOCK_CHECK. */
void hy_locks_init(void);

void hy_mutex_init(struct hy_mutex *m, enum hy_lock_rank rank);
void hy_mutex_destroy(struct hy_mutex *m);

/* The checker's side of a take, a successful trylock, and a release. */
void hy_lock_check_take(const struct hy_mutex *m);
void hy_lock_check_held(const struct hy_mutex *m);
void hy_lock_check_drop(const struct hy_mutex *m);
/* Aborts, naming @m, unless this thread holds it (checked runs only). */
void hy_lock_check_assert(const struct hy_mutex *m);

static inline void hy_mutex_lock(struct hy_mutex *m)
{
	if (hy_lock_check)
		hy_lock_check_take(m);
	pthread_mutex_lock(&m->m);
}

/* 0 when taken, as pthread_mutex_trylock(). */
static inline int hy_mutex_trylock(struct hy_mutex *m)
{
	int ret = pthread_mutex_trylock(&m->m);

	if (!ret && hy_lock_check)
		hy_lock_check_held(m);
	return ret;
}

static inline void hy_mutex_unlock(struct hy_mutex *m)
{
	if (hy_lock_check)
		hy_lock_check_drop(m);
	pthread_mutex_unlock(&m->m);
}

static inline void hy_mutex_assert_held(const struct hy_mutex *m)
{
	if (hy_lock_check)
		hy_lock_check_assert(m);
}

#endif /* MPIRMA_HYBRID_LOCKS_H */
