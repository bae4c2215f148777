// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * waits.c - the program's blocking calls outside RMA that serve the
 * agent's messages while they wait.
 *
 * While agents run (windows span nodes), operations from other nodes come
 * to this process's agent, which polls the host between sleeps of up to
 * 2 ms.  A program thread that blocks in the host meanwhile polls the host
 * anyway; in these calls it serves what has come itself (hy_ship_wait), as
 * the host's own one-sided progress would, and the agent rests: a remote
 * origin is answered at once instead of at the agent's next poll.  Across
 * the two VMs, a remote fetch_and_op and flush to a target waiting in
 * MPI_Recv cost 1.5-2 times what it cost to one waiting in MPI_Barrier
 * while the agent served it, and the same once the receive served.
 * Without agents each is the host's call.
 */
#include "hybrid.h"

int MPI_Barrier(MPI_Comm comm)
{
	return hy_ship_barrier(comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag,
	     MPI_Comm comm, MPI_Status *status)
{
	return hy_ship_recv(buf, count, type, source, tag, comm, status);
}
