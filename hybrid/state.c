// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * state.c - the process's view of the job (struct hy_state, hybrid.h),
 * which node.c fills in at MPI_Init and every file reads, and hy.lock's
 * release while the engine waits.  Its own file, so that reading it makes
 * no file depend on node.c.
 */
#include "hybrid.h"

struct hy_state hy = {
	.lock = HY_MUTEX_INIT(HY_LOCK_STATE),
	.thread_level = -1,
};

__thread bool hy_lock_mine __attribute__((tls_model("initial-exec")));

/*
 * The engine lets go of its library lock only at the points where its
 * state allows another thread in, and takes it again after this (the
 * order: hy.lock, then the engine's).  A thread whose engine call waits
 * for a window lock held by another process's thread, which in turn
 * waits for this process's hy.lock to give it back, would otherwise wait
 * for ever (mpitests/threads.c's lockers, 4 ranks under MPICH: 8 launches
 * of 60 hung, none of 90 with this).
 */
void hy_engine_waits(bool waiting)
{
	static __thread bool let_go __attribute__((tls_model("initial-exec")));

	if (waiting && hy_lock_mine) {
		let_go = true;
		hy_unlock();
	} else if (!waiting && let_go) {
		let_go = false;
		hy_lock();
	}
}
