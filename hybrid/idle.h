/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * idle.h - the real node's count of ranks idle in the layer's waits
 * (idle.c), so that MPI_Send, MPI_Recv and the waits for requests are the
 * host's own calls while the ranks still at work fit the node's CPUs.
 */
#ifndef MPIRMA_HYBRID_IDLE_H
#define MPIRMA_HYBRID_IDLE_H

#include <stdbool.h>

#include "hybrid.h"

/*
 * The node's count, mapped (NULL: not kept, see idle.c), its ranks and
 * CPUs; and this process's calls that asked (waits.c) and those of them
 * that were the host's own for it, which MPIRMA_VERBOSE=2 prints at
 * MPI_Finalize.
 */
struct hy_idle {
	int *count;
	int ranks;
	int cpus;
	unsigned long calls;
	unsigned long spared;
};

extern HY_LOCAL struct hy_idle hy_idle;

/*
 * Collective over @node (@ranks of them, on @cpus CPUs): keeps the count
 * where the layer's waits yield on a crowded node, in one thread, unless
 * MPIRMA_SPARE_CPUS=0.
 */
void hy_idle_start(MPI_Comm node, int ranks, int cpus);
/*
 * Collective over the node again, at MPI_Finalize; with MPIRMA_VERBOSE=2
 * it says how many calls were the host's own.
 */
void hy_idle_stop(void);

/* This rank naps in a wait of the layer's (waits.c), or no longer. */
void hy_idle_enter(void);
void hy_idle_leave(void);

/*
 * Do the node's ranks that are not napping in the layer's waits fit its
 * CPUs?  Then the host's blocking call, which spins, keeps nobody off a
 * CPU.
 */
static inline bool hy_cpus_spare(void)
{
	return hy_idle.count &&
	       hy_idle.ranks - __atomic_load_n(hy_idle.count, __ATOMIC_RELAXED)
	       <= hy_idle.cpus;
}

#endif /* MPIRMA_HYBRID_IDLE_H */
