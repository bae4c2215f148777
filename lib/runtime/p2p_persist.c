// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p2p_persist.c - persistent point-to-point requests: MPI_Send_init,
 * MPI_Bsend_init, MPI_Ssend_init, MPI_Rsend_init, MPI_Recv_init; and
 * MPI_Start, MPI_Startall, which start these and the persistent
 * collectives (nbc.c) through the request's ops->start.
 *
 * A persistent request keeps the call's arguments, with references on its
 * communicator and datatype (the program may free its handles meanwhile),
 * and starts one operation per MPI_Start: a send is made at once, as every
 * send is (buffered: complete at once but for the synchronous mode,
 * p2p_sync.c; the buffered one counts against its buffer, p2p_bsend.c); a
 * synchronous send and a receive (posted as MPI_Irecv posts it) are an
 * inner request that the waits progress through this one.  Completion
 * makes the request inactive, not freed (request.c, finish()); an
 * inactive one counts as MPI_REQUEST_NULL in the waits and tests, as the
 * standard has it.
 */
#include <stdlib.h>

#include "datatype.h"
#include "runtime.h"
#include "p2p.h"
#include "request.h"

/**
 * struct p2p_persist - a persistent request
 * @req: the common head (persistent set)
 * @kind: a receive, or a send of one mode
 * @a: the call's arguments (the buffer is const for sends), the started
 *	receive
 */
enum persist_kind {
	PERSIST_SEND, PERSIST_BSEND, PERSIST_SSEND, PERSIST_RECV
};

struct p2p_persist {
	struct mpirma_request req;
	enum persist_kind kind;
	struct mpirma_p2p_args a;
};

/* p2p.h */
void mpirma_p2p_args_set(struct mpirma_request *r, MPI_Comm comm,
			 struct mpirma_p2p_args *a, const void *buf, int count,
			 struct mpirma_dtype *t, int peer, int tag,
			 struct mpirma_comm *c)
{
	r->comm = comm;
	r->persistent = true;
	a->buf = (void *)buf;
	a->count = count;
	a->t = t;
	mpirma_dtype_ref(t);
	a->peer = peer;
	a->tag = tag;
	a->c = c;
	mpirma_comm_ref(c);
}

/* p2p.h */
void mpirma_p2p_args_release(struct mpirma_p2p_args *a)
{
	mpirma_request_destroy(a->inner);
	if (a->t)
		mpirma_dtype_unref(a->t);
	if (a->c)
		mpirma_comm_unref(a->c);
}

/* p2p.h */
void mpirma_p2p_inner_progress(struct mpirma_request *r,
			       struct mpirma_request **inner, int block)
{
	mpirma_request_progress(*inner, block);
	if ((*inner)->done) {
		r->status = (*inner)->status;
		r->done = 1;
		mpirma_request_destroy(*inner);
		*inner = NULL;
	}
}

static int persist_progress(struct mpirma_request *r, int block)
{
	struct p2p_persist *p = (struct p2p_persist *)r;

	if (!p->a.inner) {	/* an inactive request, or a send: complete */
		if (!r->done) {
			mpirma_status_empty(&r->status);
			r->done = 1;
		}
		return MPI_SUCCESS;
	}
	mpirma_p2p_inner_progress(r, &p->a.inner, block);
	return MPI_SUCCESS;
}

static int persist_cancel(struct mpirma_request *r)
{
	struct p2p_persist *p = (struct p2p_persist *)r;

	/* a send has completed already; an inactive request has nothing */
	if (!p->a.inner || !p->a.inner->ops->cancel)
		return MPI_SUCCESS;
	return p->a.inner->ops->cancel(p->a.inner);
}

static int persist_release(struct mpirma_request *r)
{
	struct p2p_persist *p = (struct p2p_persist *)r;

	mpirma_p2p_args_release(&p->a);
	return MPI_SUCCESS;
}

static int persist_start(struct mpirma_request *r)
{
	struct p2p_persist *p = (struct p2p_persist *)r;
	int ret;

	if (p->kind == PERSIST_RECV)
		ret = mpirma_p2p_post(p->a.c, p->a.buf, p->a.count, p->a.t,
				      p->a.peer, p->a.tag, &p->a.inner);
	else if (p->kind == PERSIST_SSEND)
		ret = mpirma_p2p_ssend_post(p->a.c, p->a.buf, p->a.count,
					    p->a.t, p->a.peer, p->a.tag,
					    &p->a.inner);
	else if (p->kind == PERSIST_BSEND)
		ret = mpirma_p2p_bsend(p->a.c, p->a.buf, p->a.count, p->a.t,
				       p->a.peer, p->a.tag);
	else
		ret = mpirma_p2p_send(p->a.c, p->a.buf, p->a.count, p->a.t,
				      p->a.peer, p->a.tag);
	if (!ret)
		r->active = true;
	return ret;
}

static const struct mpirma_request_ops persist_ops = {
	.progress = persist_progress,
	.cancel = persist_cancel,
	.release = persist_release,
	.start = persist_start,
};

/* The init calls: checks, then an inactive request.  MPI class (recorded). */
static int persist_init(enum persist_kind kind, const void *buf, int count,
			MPI_Datatype datatype, int peer, int tag, MPI_Comm comm,
			MPI_Request *request)
{
	struct mpirma_request *r;
	struct p2p_persist *p;
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	int ret;

	ret = mpirma_p2p_check(kind != PERSIST_RECV, comm, count, datatype,
			       peer, tag, &c, &t);
	if (!ret && !request)
		ret = mpirma_err(MPI_ERR_ARG, "request is NULL");
	if (!ret)
		ret = mpirma_request_alloc(sizeof(*p), &persist_ops, &r);
	if (ret)
		return ret;
	p = (struct p2p_persist *)r;
	p->kind = kind;
	mpirma_p2p_args_set(r, comm, &p->a, buf, count, t, peer, tag, c);
	*request = r->handle;
	return MPI_SUCCESS;
}

#define SEND_INIT_DEFINE(name, kind)					\
int PMPI_##name(const void *buf, int count, MPI_Datatype datatype,	\
		int dest, int tag, MPI_Comm comm, MPI_Request *request)	\
{									\
	MPIRMA_CHECK_INIT();						\
	return mpirma_raise_comm(comm, persist_init(kind, buf, count,	\
						    datatype, dest, tag, \
						    comm, request),	\
				 MPIRMA_FUNC, NULL);			\
}									\
MPIRMA_ALIAS(name)

SEND_INIT_DEFINE(Send_init, PERSIST_SEND)
SEND_INIT_DEFINE(Bsend_init, PERSIST_BSEND)
SEND_INIT_DEFINE(Ssend_init, PERSIST_SSEND)
SEND_INIT_DEFINE(Rsend_init, PERSIST_SEND)

int PMPI_Recv_init(void *buf, int count, MPI_Datatype datatype, int source,
		   int tag, MPI_Comm comm, MPI_Request *request)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_comm(comm, persist_init(PERSIST_RECV, buf,
						    count, datatype, source,
						    tag, comm, request),
				 MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Recv_init)

/*
 * Starts the persistent request @h, of any kind (its ops->start: here, or
 * a persistent collective's in nbc.c); its communicator, for errors, in
 * *@comm (MPI_COMM_NULL: none, and mpirma_raise_comm() then raises on
 * MPI_COMM_WORLD).  MPI class (recorded).
 */
static int start_one(MPI_Request h, MPI_Comm *comm)
{
	struct mpirma_request *r = h == MPI_REQUEST_NULL ? NULL :
				   mpirma_request_get(h);

	*comm = MPI_COMM_NULL;
	if (!r || !r->persistent)
		return mpirma_err(MPI_ERR_REQUEST, "request %d is not a "
				  "persistent request", h);
	*comm = r->comm;
	if (r->active)
		return mpirma_err(MPI_ERR_REQUEST, "request %d is active "
				  "already: complete it before starting it "
				  "again", h);
	r->done = 0;
	return r->ops->start(r);
}

int PMPI_Start(MPI_Request *request)
{
	MPI_Comm comm;
	int ret;

	MPIRMA_CHECK_INIT();
	if (!request)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "request is NULL");
	ret = start_one(*request, &comm);
	return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Start)

int PMPI_Startall(int count, MPI_Request array_of_requests[])
{
	MPI_Comm comm = MPI_COMM_NULL;
	int i, ret = MPI_SUCCESS;

	MPIRMA_CHECK_INIT();
	if (count < 0)
		ret = mpirma_err(MPI_ERR_COUNT, "negative count %d", count);
	else if (count && !array_of_requests)
		ret = mpirma_err(MPI_ERR_ARG, "request array is NULL");
	for (i = 0; !ret && i < count; i++)
		ret = start_one(array_of_requests[i], &comm);
	return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Startall)
