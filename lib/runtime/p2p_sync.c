// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p2p_sync.c - the synchronous send mode: MPI_Ssend, MPI_Issend and the
 * start of an MPI_Ssend_init (p2p_persist.c) complete only once a receive
 * has taken their message (the transport's part: shmq_sync.c).  Programs
 * count on it: a completed MPI_Issend tells that the message was
 * received, which is what sparse data exchanges (a barrier entered once
 * every synchronous send completed) rely on to end.
 *
 * A large MPI_Isend that goes by one copy (shmq_offer.c) completes the same
 * way: its receiver answers once the kernel has copied the data out of
 * the sender's buffer, which is only then the sender's again.
 */
#include <stdlib.h>

#include "runtime.h"
#include "p2p.h"
#include "request.h"

/**
 * struct p2p_sync - a synchronous send in flight
 * @req: the request head (first)
 * @job: the destination's job rank
 * @ack: what the transport answers: its token of the message (and a
 *	one-copy send's offer)
 */
struct p2p_sync {
	struct mpirma_request req;
	int job;
	struct mpirma_msg_ack ack;
};

/* The class of mpirma_msg_sync_wait()'s @ret for job rank @job. */
static int sync_class(int ret, int job)
{
	if (ret < 0)
		return mpirma_err_errno(ret, "synchronous send to job rank %d",
					job);
	return MPI_SUCCESS;
}

static int sync_progress(struct mpirma_request *req, int block)
{
	struct p2p_sync *s = (struct p2p_sync *)req;
	int ret = mpirma_msg_ack_wait(s->job, &s->ack, block);

	if (ret < 0)
		return sync_class(ret, s->job);
	if (ret) {
		mpirma_status_empty(&req->status);
		req->done = 1;
	}
	return MPI_SUCCESS;
}

/*
 * A one-copy send not taken yet is withdrawn, its request complete and
 * cancelled; any other completes as sent (the standard's choice).
 */
static int sync_cancel(struct mpirma_request *req)
{
	struct p2p_sync *s = (struct p2p_sync *)req;

	if (req->done || !mpirma_msg_offer_withdraw(&s->ack))
		return MPI_SUCCESS;
	mpirma_status_empty(&req->status);
	req->status.mpirma_cancelled = 1;
	req->done = 1;
	return MPI_SUCCESS;
}

/* A receive that failed to take a one-copy send's data left its offer. */
static int sync_release(struct mpirma_request *req)
{
	(void)mpirma_msg_offer_withdraw(&((struct p2p_sync *)req)->ack);
	return MPI_SUCCESS;
}

static const struct mpirma_request_ops sync_ops = {
	.progress = sync_progress,
	.cancel = sync_cancel,
	.release = sync_release,
};

/* A new request of a send to comm rank @dest of @c that waits. MPI class. */
static int sync_new(struct mpirma_comm *c, int dest, struct p2p_sync **out)
{
	struct mpirma_request *req;
	int ret;

	ret = mpirma_request_alloc(sizeof(**out), &sync_ops, &req);
	if (ret)
		return ret;
	req->comm = c->handle;
	*out = (struct p2p_sync *)req;
	if (dest != MPI_PROC_NULL)
		(*out)->job = mpirma_comm_job_rank(c, dest);
	return MPI_SUCCESS;
}

/* p2p.h */
int mpirma_p2p_ssend_post(struct mpirma_comm *c, const void *buf, int count,
			  struct mpirma_dtype *t, int dest, int tag,
			  struct mpirma_request **out)
{
	struct mpirma_request *req;
	struct p2p_sync *s;
	int ret;

	ret = sync_new(c, dest, &s);
	if (ret)
		return ret;
	req = &s->req;
	ret = mpirma_p2p_send_sync(c, buf, count, t, dest, tag, &s->ack.token);
	if (ret) {
		mpirma_request_destroy(req);
		return ret;
	}
	/* Took at once (a receive of this rank's): complete already. */
	mpirma_request_progress(req, 0);
	*out = req;
	return MPI_SUCCESS;
}

/* p2p.h */
int mpirma_p2p_isend_onecopy(struct mpirma_comm *c, const void *data,
			     size_t len, int dest, int tag,
			     MPI_Request *request)
{
	struct p2p_sync *s;
	int ret;

	ret = sync_new(c, dest, &s);
	if (ret)
		return ret;
	ret = mpirma_msg_isend(s->job, tag, mpirma_ctx_p2p(c), data, len,
			       &s->ack);
	if (ret < 0) {
		mpirma_request_destroy(&s->req);
		return mpirma_err_errno(ret, "send to rank %d", dest);
	}
	/* no token: sent as units, complete at its first look */
	*request = s->req.handle;
	return MPI_SUCCESS;
}

/*
 * A synchronous send: a request in *@request, else complete (blocking,
 * with no request: it waits for the answer itself).
 */
static int ssend(const void *buf, int count, MPI_Datatype dt, int dest,
		 int tag, MPI_Comm comm, MPI_Request *request)
{
	struct mpirma_request *req;
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	uint64_t token;
	int ret, job;

	ret = mpirma_p2p_check(true, comm, count, dt, dest, tag, &c, &t);
	if (ret)
		return ret;
	if (request) {
		ret = mpirma_p2p_ssend_post(c, buf, count, t, dest, tag, &req);
		if (!ret)
			*request = req->handle;
		return ret;
	}
	ret = mpirma_p2p_send_sync(c, buf, count, t, dest, tag, &token);
	if (ret || !token)
		return ret;
	job = mpirma_comm_job_rank(c, dest);
	return sync_class(mpirma_msg_sync_wait(job, token, true), job);
}

int PMPI_Ssend(const void *buf, int count, MPI_Datatype datatype, int dest,
	       int tag, MPI_Comm comm)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_comm(comm, ssend(buf, count, datatype, dest, tag,
					     comm, NULL), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Ssend)

int PMPI_Issend(const void *buf, int count, MPI_Datatype datatype, int dest,
		int tag, MPI_Comm comm, MPI_Request *request)
{
	int ret;

	MPIRMA_CHECK_INIT();
	ret = request ? ssend(buf, count, datatype, dest, tag, comm, request) :
	      mpirma_err(MPI_ERR_ARG, "request is NULL");
	return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Issend)
