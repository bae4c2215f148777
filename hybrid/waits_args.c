// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * waits_args.c - what the layer's point-to-point calls and waits
 * (waits.c) check before they take a call over from the host: arguments
 * the host would report under another call's name leave the call to the
 * host, and where a posted receive's error would be raised.
 */
#include <limits.h>

#include "errors.h"
#include "transport.h"
#include "waits_args.h"

/* waits_args.h */
bool hy_probe_args_ok(int source, int tag, MPI_Comm comm)
{
	int inter = 0, size = 0;

	if (comm == MPI_COMM_NULL || (tag < 0 && tag != MPI_ANY_TAG))
		return false;
	if (source == MPI_ANY_SOURCE)
		return true;
	/* the world is never an intercommunicator: one call fewer */
	if (source < 0 || (comm != MPI_COMM_WORLD &&
			   PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS))
		return false;
	if ((inter ? PMPI_Comm_remote_size(comm, &size) :
		     PMPI_Comm_size(comm, &size)) != MPI_SUCCESS)
		return false;
	return source < size;
}

/* What @comm's error handler does with an error. */
enum handler_kind { HANDLER_ENDS, HANDLER_RETURNS, HANDLER_PROGRAMS };

static enum handler_kind handler_kind(MPI_Comm comm)
{
	enum handler_kind kind = HANDLER_PROGRAMS;
	MPI_Errhandler eh;

	if (PMPI_Comm_get_errhandler(comm, &eh) != MPI_SUCCESS)
		return kind;
	if (eh == MPI_ERRORS_RETURN)
		kind = HANDLER_RETURNS;
	else if (eh == MPI_ERRORS_ARE_FATAL)
		kind = HANDLER_ENDS;
#ifdef MPI_ERRORS_ABORT
	else if (eh == MPI_ERRORS_ABORT)
		kind = HANDLER_ENDS;
#endif
	hy_errhandler_put(&eh);
	return kind;
}

/*
 * Does the host raise an error MPI_Test finds on the request's
 * communicator?  Open MPI's does; MPICH raises it on MPI_COMM_WORLD (a
 * truncating receive on a communicator that returns errors aborted there).
 */
#ifdef OPEN_MPI
#define TEST_RAISES_ON_COMM true
#else
#define TEST_RAISES_ON_COMM false
#endif

/* waits_args.h */
enum hy_recv_raise hy_recv_raise(MPI_Comm comm, bool serve)
{
	bool inbox = serve && hy_transport_on_host();
	enum handler_kind world;

	if ((TEST_RAISES_ON_COMM || comm == MPI_COMM_WORLD) && !inbox)
		return HY_RAISE_BY_HOST;
	world = handler_kind(MPI_COMM_WORLD);
	if (world == HANDLER_RETURNS && !inbox)
		return HY_RAISE_BY_LAYER;
	return world == HANDLER_ENDS &&
	       (comm == MPI_COMM_WORLD || handler_kind(comm) == HANDLER_ENDS) ?
	       HY_RAISE_BY_HOST : HY_RAISE_AFTER_PROBE;
}

/* waits_args.h */
bool hy_buffer_args_ok(int count, MPI_Datatype type, int *bytes)
{
	int size;

	if (count < 0 || type == MPI_DATATYPE_NULL ||
	    PMPI_Type_size(type, &size) != MPI_SUCCESS)
		return false;
	*bytes = (int)((long long)count * size > INT_MAX ? INT_MAX :
		       (long long)count * size);
	return true;
}
