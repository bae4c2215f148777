// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * idle.c - the real node's count of ranks idle in the layer's waits.
 *
 * Where the host's waits spin and the node has more ranks than CPUs
 * (hy.yield, hy.crowded), the layer's waits yield and, once idle for a
 * while, nap (waits.c).  A rank that naps wants no CPU: while the ranks
 * that do not nap fit the node's CPUs, a spinning blocking call of the
 * host keeps nobody off one, so MPI_Send, MPI_Recv and the waits for
 * requests are the host's own calls there.  The posted receive and its
 * test loop cost 1.2-1.7 times MPICH's blocking receive under emulation
 * (4 ranks on 2 vCPUs, two of them in a broadcast while the others
 * ping-pong), 1.04-1.06 natively.
 *
 * The count is an int in a shared window of the host's over the real
 * node, added to with atomics; it needs no lock.  It is kept only where a
 * process has one thread in MPI (several threads of one rank could nap at
 * once) and MPIRMA_SPARE_CPUS is not 0.
 */
#include <stdio.h>

#include "env.h"
#include "idle.h"

/* the count alone on its cache line */
#define IDLE_BYTES 64

HY_LOCAL struct hy_idle hy_idle;

static MPI_Win idle_win = MPI_WIN_NULL;

void hy_idle_start(MPI_Comm node, int ranks, int cpus)
{
	int keep, all, rank, unit;
	MPI_Aint size;
	void *base;
	int *count;

	/* both the same on every rank of the node */
	if (!hy.yield || !hy.crowded)
		return;
	keep = !hy.threads && hy_env_int("MPIRMA_SPARE_CPUS", 1, 0, 1);
	/* the same answer on every rank: the window is collective */
	PMPI_Allreduce(&keep, &all, 1, MPI_INT, MPI_MIN, node);
	if (!all)
		return;
	PMPI_Comm_rank(node, &rank);
	if (PMPI_Win_allocate_shared(rank ? 0 : IDLE_BYTES, 1,
				     MPI_INFO_NULL, node, &base,
				     &idle_win) != MPI_SUCCESS)
		return;
	if (PMPI_Win_shared_query(idle_win, 0, &size, &unit, &count) !=
	    MPI_SUCCESS || size < (MPI_Aint)sizeof(int)) {
		PMPI_Win_free(&idle_win);
		return;
	}
	if (!rank)
		__atomic_store_n(count, 0, __ATOMIC_RELAXED);
	PMPI_Barrier(node);
	hy_idle = (struct hy_idle){ .count = count, .ranks = ranks,
				    .cpus = cpus };
}

void hy_idle_stop(void)
{
	char part[64] = "";
	int rank;

	if (hy.verbose >= 2) {
		PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
		if (hy.yield)
			snprintf(part, sizeof(part), "%lu of %lu ",
				 hy_idle.spared, hy_idle.calls);
		fprintf(stderr, "mpirma: rank %d: %ssends, receives and waits "
			"were " HY_HOST_NAME "'s own, %s\n", rank, part,
			hy.yield ? "the node's ranks not napping fitting its "
			"CPUs" : "but where an agent served; waits do not "
			"yield");
	}
	if (idle_win == MPI_WIN_NULL)
		return;
	hy_idle.count = NULL;
	PMPI_Win_free(&idle_win);
}

void hy_idle_enter(void)
{
	if (hy_idle.count)
		__atomic_add_fetch(hy_idle.count, 1, __ATOMIC_RELAXED);
}

void hy_idle_leave(void)
{
	if (hy_idle.count)
		__atomic_sub_fetch(hy_idle.count, 1, __ATOMIC_RELAXED);
}
