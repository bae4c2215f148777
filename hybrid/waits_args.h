/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * waits_args.h - the checks of the layer's point-to-point calls and waits
 * (waits_args.c), for waits.c.
 */
#ifndef MPIRMA_HYBRID_WAITS_ARGS_H
#define MPIRMA_HYBRID_WAITS_ARGS_H

#include <stdbool.h>

#include "hybrid.h"

/*
 * Are @source, @tag and @comm a receive's that a probe takes without an
 * error?  Else PMPI_Recv reports them itself (a probe's error would name
 * another call).
 */
bool hy_probe_args_ok(int source, int tag, MPI_Comm comm);

/*
 * Can @count elements of @type be sent or received without an error the
 * host would raise in another call's name (their bytes into *@bytes, at
 * most INT_MAX)?  Else the blocking call runs.
 */
bool hy_buffer_args_ok(int count, MPI_Datatype type, int *bytes);

/*
 * How a posted receive's wait on @comm (@serve: a wait that serves)
 * would report an error (hy_recv_raise()): as MPI_Recv
 * would, to the same handler (or one that ends the job whichever call
 * reported it); returned to the layer, which raises it on @comm itself
 * (MPICH's test raises it on a world that returns errors); or elsewhere,
 * so that the receive probes first.  A wait that serves on the host's
 * transport tests the receive with the agent's inbox, so its error is
 * MPI_ERR_IN_STATUS (net_host.c); elsewhere a wait for one request tests
 * it alone (agent.h).
 */
enum hy_recv_raise {
	HY_RAISE_BY_HOST,
	HY_RAISE_BY_LAYER,
	HY_RAISE_AFTER_PROBE,
};

enum hy_recv_raise hy_recv_raise(MPI_Comm comm, bool serve);

#endif /* MPIRMA_HYBRID_WAITS_ARGS_H */
