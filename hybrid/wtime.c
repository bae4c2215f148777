// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * wtime.c - MPI_Wtime from the engine's clock, set to the host's.
 *
 * The engine reads CLOCK_MONOTONIC from the TSC (lib/base/wtime.c), in
 * less than half the time of the hosts' MPI_Wtime (0.125 us against
 * 0.27-0.29 for Open MPI 4.1's in the VM); OSU's latency loops read
 * MPI_Wtime twice per operation.  The hosts count from other origins
 * (Open MPI 4.1: CLOCK_MONOTONIC from its MPI_Init; MPICH 4.0:
 * CLOCK_REALTIME from a base of its own), so at MPI_Init the layer takes
 * the difference between the engine's clock and the host's, read between
 * two of the host's (the closest two of five tries), and has the engine
 * subtract that in its integer nanoseconds (mpirma_wtime_shift: under
 * QEMU a subtraction of doubles here was a call, about 10 ns of 55), so
 * that MPI_Wtime is a jump to the engine's, in its page: the host's
 * time to a microsecond or two, at CLOCK_MONOTONIC's rate (a host that
 * counts CLOCK_REALTIME parts from it only when that clock is set by
 * hand).  Before MPI_Init, and with MPIRMA_WTIME_TSC=0, the host's own.
 * MPI_Wtick stays the host's.
 */
#include "env.h"
#include "node.h"

static bool wtime_engine;	/* set once, in hy_start() */

bool hy_wtime_start(void)
{
	double h0, e, h1, width = 0, offset = 0;
	int k;

	if (!hy_env_int("MPIRMA_WTIME_TSC", 1, 0, 1))
		return false;
	/* the engine's first answer decides its clock: not one to time */
	PMPII_Wtime();
	for (k = 0; k < 5; k++) {
		h0 = PMPI_Wtime();
		e = PMPII_Wtime();
		h1 = PMPI_Wtime();
		if (k == 0 || h1 - h0 < width) {
			width = h1 - h0;
			offset = e - (h0 + h1) / 2;
		}
	}
	mpirma_wtime_shift = (int64_t)(offset * 1e9);
	wtime_engine = true;
	return true;
}

HY_PAIR(Wtime) double MPI_Wtime(void)
{
	if (wtime_engine)
		return PMPII_Wtime();
	return PMPI_Wtime();
}
