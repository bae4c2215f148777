// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * handle.c - the handle the program holds for a window the engine serves
 * (win.c), or that spans nodes with agents (span.c): a host window of no
 * bytes on MPI_COMM_SELF, which keeps everything the host knows about
 * windows (attributes, name, error handler, Fortran handle) working, while
 * every operation and synchronization is the layer's.  Calls the host only.
 */
#include "errors.h"
#include "handle.h"

/*
 * The program's handle of a node window: a host window of no bytes on
 * MPI_COMM_SELF, which only carries what the host keeps of a window
 * (attributes, name, error handler, Fortran handle; the group is the
 * layer's, w->hgroup).  Not on the window's communicator: Open MPI 4.1's
 * one-sided components each refuse some (osc sm and rdma name their
 * shared state after the communicator's id, which the halves of a split
 * share, and collide; osc rdma cannot serve one process; osc pt2pt none
 * under MPI_THREAD_MULTIPLE).  Each process takes the first flavor its
 * host serves, with MPI_COMM_SELF's errors returned meanwhile; its
 * choice concerns nobody else.
 */
int hy_win_handle(MPI_Info info, MPI_Win *host)
{
	MPI_Errhandler eh;
	void *base;
	int ret;

	PMPI_Comm_get_errhandler(MPI_COMM_SELF, &eh);
	PMPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
	ret = PMPI_Win_allocate(0, 1, info, MPI_COMM_SELF, &base, host);
	if (ret)
		ret = PMPI_Win_create_dynamic(info, MPI_COMM_SELF, host);
	if (ret)
		ret = PMPI_Win_create(NULL, 0, 1, info, MPI_COMM_SELF, host);
	PMPI_Comm_set_errhandler(MPI_COMM_SELF, eh);
	hy_errhandler_put(&eh);
	return ret ? hy_fail(MPI_ERR_WIN, "the host MPI creates no window on "
			     "MPI_COMM_SELF to hold the program's handle") :
		     MPI_SUCCESS;
}
