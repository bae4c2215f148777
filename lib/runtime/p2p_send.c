// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p2p_send.c - point-to-point sends over the transport of shmq.c,
 * docs/lib.md "Point-to-point messages".
 *
 * The transport copies the message and never waits, so a standard, ready
 * or buffered send is complete when the call returns; a synchronous one
 * then waits for its receive (p2p_sync.c).  A non-contiguous datatype is
 * packed first.  A large nonblocking send may go by one copy (p2p_sync.c).
 */
#include <stdlib.h>

#include "runtime.h"
#include "datatype.h"
#include "p2p.h"
#include "request.h"

/*
 * Sends @count elements (checked) to comm rank @dest (checked, not
 * PROC_NULL); @token: a synchronous send, whose token this receives.
 */
static int send_data(struct mpirma_comm *c, const void *buf, int count,
		     struct mpirma_dtype *t, int dest, int tag,
		     uint64_t *token)
{
	size_t len = (size_t)count * t->size;
	int job = mpirma_comm_job_rank(c, dest);
	const void *data;
	void *tmp = NULL;
	int ret;

	if (!mpirma_dtype_contig(t, count, buf, &data)) {
		tmp = malloc(len);
		if (!tmp)
			return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
		mpirma_dtype_pack(t, buf, count, tmp);
		data = tmp;
	}
	if (token)
		ret = mpirma_msg_send_sync(job, tag, mpirma_ctx_p2p(c), data,
					   len, token);
	else
		ret = mpirma_msg_send(job, tag, mpirma_ctx_p2p(c), data, len);
	free(tmp);
	if (ret < 0)
		return mpirma_err_errno(ret, "send to rank %d", dest);
	return MPI_SUCCESS;
}

/* p2p.h */
int mpirma_p2p_send(struct mpirma_comm *c, const void *buf, int count,
		    struct mpirma_dtype *t, int dest, int tag)
{
	if (dest == MPI_PROC_NULL)
		return MPI_SUCCESS;
	return send_data(c, buf, count, t, dest, tag, NULL);
}

/* p2p.h */
int mpirma_p2p_send_sync(struct mpirma_comm *c, const void *buf, int count,
			 struct mpirma_dtype *t, int dest, int tag,
			 uint64_t *token)
{
	*token = 0;
	if (dest == MPI_PROC_NULL)
		return MPI_SUCCESS;
	return send_data(c, buf, count, t, dest, tag, token);
}

static int do_send(const void *buf, int count, MPI_Datatype dt, int dest,
		   int tag, MPI_Comm comm)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	int ret;

	ret = mpirma_p2p_check(true, comm, count, dt, dest, tag, &c, &t);
	return ret ? ret : mpirma_p2p_send(c, buf, count, t, dest, tag);
}

/*
 * The transport buffers every message, so a ready send completes as a
 * standard one does; the synchronous mode waits for its receive
 * (p2p_sync.c), and the buffered one counts against the attached buffer
 * (p2p_bsend.c).
 */
#define SEND_DEFINE(name)						\
int PMPI_##name(const void *buf, int count, MPI_Datatype datatype,	\
		int dest, int tag, MPI_Comm comm)			\
{									\
	MPIRMA_CHECK_INIT();						\
	if (mpirma_lean_send(buf, count, datatype, dest, tag, comm))	\
		return MPI_SUCCESS;					\
	return RAISE_COMM(comm, do_send(buf, count, datatype, dest, tag, \
					comm), NULL);			\
}									\
MPIRMA_ALIAS(name)

SEND_DEFINE(Send)
SEND_DEFINE(Rsend)

/*
 * A non-blocking send is complete once the transport has the message, but
 * for a large one that goes by one copy, complete once its receiver has it.
 */
static int isend(const void *buf, int count, MPI_Datatype datatype, int dest,
		 int tag, MPI_Comm comm, MPI_Request *request)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	const void *data;
	size_t len;
	int ret;

	if (!request)
		return mpirma_err(MPI_ERR_ARG, "request is NULL");
	if (mpirma_lean_send(buf, count, datatype, dest, tag, comm))
		return mpirma_request_send_done(request);
	ret = mpirma_p2p_check(true, comm, count, datatype, dest, tag, &c, &t);
	if (ret)
		return ret;
	len = (size_t)count * t->size;
	if (dest != MPI_PROC_NULL &&
	    mpirma_msg_onecopy(mpirma_comm_job_rank(c, dest), len) &&
	    mpirma_dtype_contig(t, count, buf, &data))
		return mpirma_p2p_isend_onecopy(c, data, len, dest, tag,
						request);
	ret = mpirma_p2p_send(c, buf, count, t, dest, tag);
	return ret ? ret : mpirma_request_send_done(request);
}

/* The non-blocking send modes, one as the blocking ones are. */
#define ISEND_DEFINE(name)						\
int PMPI_##name(const void *buf, int count, MPI_Datatype datatype,	\
		int dest, int tag, MPI_Comm comm, MPI_Request *request)	\
{									\
	MPIRMA_CHECK_INIT();						\
	return RAISE_COMM(comm, isend(buf, count, datatype, dest, tag,	\
				      comm, request), NULL);		\
}									\
MPIRMA_ALIAS(name)

ISEND_DEFINE(Isend)
ISEND_DEFINE(Irsend)
