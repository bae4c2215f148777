// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * state.c - the process's view of the job (struct hy_state, hybrid.h),
 * which node.c fills in at MPI_Init and every file reads.  Its own file,
 * so that reading it makes no file depend on node.c.
 */
#include "hybrid.h"

struct hy_state hy = {
	.lock = HY_MUTEX_INIT(HY_LOCK_STATE),
	.thread_level = -1,
};
