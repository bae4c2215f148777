// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p2p_sendrecv.c - a send and a receive in one call: MPI_Sendrecv,
 * MPI_Sendrecv_replace and MPI-4's nonblocking MPI_Isendrecv and
 * MPI_Isendrecv_replace.
 *
 * Every send is buffered at once (p2p.h), so the send half is complete
 * when it returns: the replace forms need no buffer of their own (the
 * message has left @buf before the receive may fill it), and the
 * nonblocking forms' request is the receive's, posted as MPI_Irecv posts
 * it, whose status is the call's.  Both halves are checked before
 * anything is sent.
 */
#include "runtime.h"
#include "request.h"
#include "p2p.h"

/*
 * Checks both halves, sends, and posts the receive (*@out) or, without
 * @out, receives it (@status).  MPI class.
 */
static int sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		    int dest, int sendtag, void *recvbuf, int recvcount,
		    MPI_Datatype recvtype, int source, int recvtag,
		    MPI_Comm comm, MPI_Status *status, MPI_Request *out)
{
	struct mpirma_dtype *st, *rt;
	struct mpirma_request *req;
	struct mpirma_comm *c;
	int ret;

	ret = mpirma_p2p_check(false, comm, recvcount, recvtype, source,
			       recvtag, &c, &rt);
	if (!ret)
		ret = mpirma_p2p_check(true, comm, sendcount, sendtype, dest,
				       sendtag, &c, &st);
	if (ret)
		return ret;
	ret = mpirma_p2p_send(c, sendbuf, sendcount, st, dest, sendtag);
	if (ret)
		return ret;
	if (!out)
		return mpirma_p2p_recv(recvbuf, recvcount, recvtype, source,
				       recvtag, comm, status);
	ret = mpirma_p2p_post(c, recvbuf, recvcount, rt, source, recvtag,
			      &req);
	if (!ret)
		*out = req->handle;
	return ret;
}

/*
 * The blocking forms by the lean lanes (p2p.h) when both halves are
 * theirs: the receive's arguments checked first, as sendrecv() checks.
 * False when the send is not the lane's (nothing done); else the call's
 * class, the receive by whichever path takes it.
 */
static bool lean_sendrecv(const void *sendbuf, int sendcount,
			  MPI_Datatype sendtype, int dest, int sendtag,
			  void *recvbuf, int recvcount, MPI_Datatype recvtype,
			  int source, int recvtag, MPI_Comm comm,
			  MPI_Status *status, int *ret)
{
	if (!mpirma_lean_recv_ok(recvcount, recvtype, source, recvtag, comm) ||
	    !mpirma_lean_send(sendbuf, sendcount, sendtype, dest, sendtag,
			      comm))
		return false;
	*ret = mpirma_lean_recv(recvbuf, recvcount, recvtype, source,
				recvtag, comm, status) ? MPI_SUCCESS :
	       mpirma_p2p_recv(recvbuf, recvcount, recvtype, source, recvtag,
			       comm, status);
	return true;
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		  int dest, int sendtag, void *recvbuf, int recvcount,
		  MPI_Datatype recvtype, int source, int recvtag,
		  MPI_Comm comm, MPI_Status *status)
{
	int ret;

	MPIRMA_CHECK_INIT();
	if (!lean_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag,
			   recvbuf, recvcount, recvtype, source, recvtag,
			   comm, status, &ret))
		ret = sendrecv(sendbuf, sendcount, sendtype, dest, sendtag,
			       recvbuf, recvcount, recvtype, source, recvtag,
			       comm, status, NULL);
	return RAISE_COMM(comm, ret, NULL);
}
MPIRMA_ALIAS(Sendrecv)

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype datatype,
			  int dest, int sendtag, int source, int recvtag,
			  MPI_Comm comm, MPI_Status *status)
{
	int ret;

	MPIRMA_CHECK_INIT();
	if (!lean_sendrecv(buf, count, datatype, dest, sendtag, buf, count,
			   datatype, source, recvtag, comm, status, &ret))
		ret = sendrecv(buf, count, datatype, dest, sendtag, buf, count,
			       datatype, source, recvtag, comm, status, NULL);
	return RAISE_COMM(comm, ret, NULL);
}
MPIRMA_ALIAS(Sendrecv_replace)

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
		   int dest, int sendtag, void *recvbuf, int recvcount,
		   MPI_Datatype recvtype, int source, int recvtag,
		   MPI_Comm comm, MPI_Request *request)
{
	MPIRMA_CHECK_INIT();
	if (!request)
		return RAISE_COMM(comm, MPI_ERR_ARG, "request is NULL");
	return RAISE_COMM(comm, sendrecv(sendbuf, sendcount, sendtype, dest,
					 sendtag, recvbuf, recvcount,
					 recvtype, source, recvtag, comm,
					 NULL, request), NULL);
}
MPIRMA_ALIAS(Isendrecv)

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype datatype,
			   int dest, int sendtag, int source, int recvtag,
			   MPI_Comm comm, MPI_Request *request)
{
	MPIRMA_CHECK_INIT();
	if (!request)
		return RAISE_COMM(comm, MPI_ERR_ARG, "request is NULL");
	return RAISE_COMM(comm, sendrecv(buf, count, datatype, dest, sendtag,
					 buf, count, datatype, source,
					 recvtag, comm, NULL, request), NULL);
}
MPIRMA_ALIAS(Isendrecv_replace)
