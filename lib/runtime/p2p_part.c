// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p2p_part.c - MPI 4.0 partitioned communication: MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready (_range, _list) and MPI_Parrived.
 *
 * A partitioned request is persistent: MPI_Start and MPI_Startall
 * (p2p_persist.c) begin each round through its ops->start.  The message
 * travels whole: the send goes out when the last of its partitions is
 * marked ready (sends are buffered, so the request is complete then), and
 * the receive is one posted receive of every partition, so MPI_Parrived
 * says a partition has arrived once the whole message has.  The two sides
 * may partition the same data differently, as the standard allows.
 *
 * Its messages use a context of their own, the communicator's
 * point-to-point context with bit 62 set (PART_BIT on the id), so that a
 * partitioned send never matches an ordinary receive nor the other way
 * round; in that context, sends and receives of one (source, tag) match in
 * the order they start, as the standard's matching at initialization
 * orders them when both sides start their requests in order.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "datatype.h"
#include "runtime.h"
#include "p2p.h"
#include "request.h"

/* On a context id: real ids stay far below (comm.c's group bit is 63). */
#define PART_BIT (1ULL << 61)

/**
 * struct p2p_part - a partitioned request
 * @req: the common head (persistent)
 * @recv: a receive, else a send
 * @partitions: how many
 * @a: the call's arguments (@a.count: every partition's elements, at most
 *	INT_MAX), a receive's posted receive this round, NULL once taken
 * @view: @a.c in the partitioned context, what the transport is given: it
 *	shares a.c's arrays and is never freed (its @refs stay above 0)
 * @ready: a send's partitions marked ready in this round, @nready of them
 * @sent: a send went out this round
 */
struct p2p_part {
	struct mpirma_request req;
	bool recv;
	int partitions;
	struct mpirma_p2p_args a;
	struct mpirma_comm view;
	unsigned char *ready;
	int nready;
	bool sent;
};

static int part_progress(struct mpirma_request *r, int block)
{
	struct p2p_part *p = (struct p2p_part *)r;
	int spins = 0;

	if (r->done)
		return MPI_SUCCESS;
	if (p->recv) {
		if (p->a.inner)
			mpirma_p2p_inner_progress(r, &p->a.inner, block);
		return MPI_SUCCESS;
	}
	/* A send waits for its partitions: from other threads only. */
	while (block && !p->sent && r->active && mpirma_threads)
		mpirma_wait_pause(&spins);
	if (block && !p->sent && r->active)
		return mpirma_err(MPI_ERR_REQUEST, "%d of the %d partitions "
				  "are not marked ready (MPI_Pready) and no "
				  "other thread can mark them",
				  p->partitions - p->nready, p->partitions);
	if (p->sent || !r->active) {
		mpirma_status_empty(&r->status);
		r->done = 1;
	}
	return MPI_SUCCESS;
}

static int part_release(struct mpirma_request *r)
{
	struct p2p_part *p = (struct p2p_part *)r;

	mpirma_p2p_args_release(&p->a);
	free(p->ready);
	return MPI_SUCCESS;
}

static int part_start(struct mpirma_request *r)
{
	struct p2p_part *p = (struct p2p_part *)r;
	int ret = MPI_SUCCESS;

	if (p->recv) {
		ret = mpirma_p2p_post(&p->view, p->a.buf, p->a.count, p->a.t,
				      p->a.peer, p->a.tag, &p->a.inner);
	} else {
		memset(p->ready, 0, p->partitions);
		p->nready = 0;
		p->sent = false;
	}
	if (!ret)
		r->active = true;
	return ret;
}

static const struct mpirma_request_ops part_ops = {
	.progress = part_progress,
	.release = part_release,
	.start = part_start,
};

/* The init calls: checks, then an inactive request.  MPI class (recorded). */
static int part_init(bool recv, const void *buf, int partitions,
		     MPI_Count count, MPI_Datatype datatype, int peer,
		     int tag, MPI_Comm comm, MPI_Info info,
		     MPI_Request *request)
{
	struct mpirma_request *r;
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	struct p2p_part *p;
	int ret;

	if (partitions < 1)
		return mpirma_err(MPI_ERR_ARG, "partitions is %d: at least "
				  "one is needed", partitions);
	if (count < 0)
		return mpirma_err(MPI_ERR_COUNT, "negative count %lld", count);
	if (count > INT_MAX / partitions)
		return mpirma_err(MPI_ERR_COUNT, "%d partitions of %lld "
				  "elements are more than INT_MAX elements, "
				  "the most one message takes here",
				  partitions, count);
	ret = mpirma_p2p_check(!recv, comm, (int)count * partitions,
			       datatype, peer, tag, &c, &t);
	if (!ret)
		ret = mpirma_info_arg_check(info);
	if (!ret && !request)
		ret = mpirma_err(MPI_ERR_ARG, "request is NULL");
	if (!ret)
		ret = mpirma_request_alloc(sizeof(*p), &part_ops, &r);
	if (ret)
		return ret;
	p = (struct p2p_part *)r;
	p->ready = recv ? NULL : calloc(partitions, 1);
	if (!recv && !p->ready) {
		mpirma_request_destroy(r);
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	p->recv = recv;
	p->partitions = partitions;
	mpirma_p2p_args_set(r, comm, &p->a, buf, (int)count * partitions, t,
			    peer, tag, c);
	p->view = *c;
	p->view.ctx = c->ctx | PART_BIT;
	p->view.refs = 1;
	*request = r->handle;
	return MPI_SUCCESS;
}

int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count,
		    MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
		    MPI_Info info, MPI_Request *request)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_comm(comm, part_init(false, buf, partitions, count,
						 datatype, dest, tag, comm,
						 info, request),
				 MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Psend_init)

int PMPI_Precv_init(void *buf, int partitions, MPI_Count count,
		    MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
		    MPI_Info info, MPI_Request *request)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_comm(comm, part_init(true, buf, partitions, count,
						 datatype, source, tag, comm,
						 info, request),
				 MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Precv_init)

/*
 * The partitioned request of handle @h, a send (@send) or a receive: NULL
 * with MPI_ERR_REQUEST recorded for anything else.
 */
static struct p2p_part *part_get(MPI_Request h, bool send)
{
	struct mpirma_request *r = h == MPI_REQUEST_NULL ? NULL :
				   mpirma_request_get(h);

	if (!r || r->ops != &part_ops || ((struct p2p_part *)r)->recv == send) {
		mpirma_err(MPI_ERR_REQUEST, "request %d is not a partitioned "
			   "%s request", h, send ? "send" : "receive");
		return NULL;
	}
	return (struct p2p_part *)r;
}

/* Marks partition @i of @p ready; the last one sends.  MPI class. */
static int mark_ready(struct p2p_part *p, int i)
{
	int ret;

	if (!p->req.active)
		return mpirma_err(MPI_ERR_REQUEST, "request %d is not active: "
				  "MPI_Start it first", p->req.handle);
	if (i < 0 || i >= p->partitions)
		return mpirma_err(MPI_ERR_ARG, "partition %d is not in 0 .. "
				  "%d", i, p->partitions - 1);
	if (p->ready[i])
		return mpirma_err(MPI_ERR_ARG, "partition %d is marked ready "
				  "already in this round", i);
	p->ready[i] = 1;
	if (++p->nready < p->partitions)
		return MPI_SUCCESS;
	ret = mpirma_p2p_send(&p->view, p->a.buf, p->a.count, p->a.t,
			      p->a.peer, p->a.tag);
	p->sent = true;
	return ret;
}

/*
 * The body of the three MPI_Pready calls: partitions @list[@lo ... @hi]
 * or, with @list NULL, @lo ... @hi themselves.  MPI class, raised as @fn.
 */
static int pready(MPI_Request request, const int *list, int lo, int hi,
		  const char *fn)
{
	struct p2p_part *p = part_get(request, true);
	int i, ret = p ? MPI_SUCCESS : MPI_ERR_REQUEST;

	if (!ret && !list && lo > hi)
		ret = mpirma_err(MPI_ERR_ARG, "partition_low %d is above "
				 "partition_high %d", lo, hi);
	if (!ret && !list && (lo < 0 || hi >= p->partitions))
		ret = mpirma_err(MPI_ERR_ARG, "partition%s %d .. %d not all "
				 "in 0 .. %d", lo == hi ? "" : "s", lo, hi,
				 p->partitions - 1);
	for (i = lo; !ret && i <= hi; i++)
		ret = mark_ready(p, list ? list[i] : i);
	return mpirma_raise_comm(p ? p->req.comm : MPI_COMM_NULL, ret, fn,
				 NULL);
}

int PMPI_Pready(int partition, MPI_Request request)
{
	MPIRMA_CHECK_INIT();
	return pready(request, NULL, partition, partition, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Pready)

int PMPI_Pready_range(int partition_low, int partition_high,
		      MPI_Request request)
{
	MPIRMA_CHECK_INIT();
	return pready(request, NULL, partition_low, partition_high,
		      MPIRMA_FUNC);
}
MPIRMA_ALIAS(Pready_range)

int PMPI_Pready_list(int length, const int array_of_partitions[],
		     MPI_Request request)
{
	MPIRMA_CHECK_INIT();
	if (length < 0 || (length > 0 && !array_of_partitions))
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "length %d, "
				    "array_of_partitions %s", length,
				    array_of_partitions ? "given" : "NULL");
	if (!length)
		return MPI_SUCCESS;
	return pready(request, array_of_partitions, 0, length - 1,
		      MPIRMA_FUNC);
}
MPIRMA_ALIAS(Pready_list)

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
	struct p2p_part *p;
	int ret = MPI_SUCCESS;

	MPIRMA_CHECK_INIT();
	p = part_get(request, false);
	if (!p)
		return mpirma_raise(MPI_ERR_REQUEST, MPIRMA_FUNC, NULL);
	if (partition < 0 || partition >= p->partitions)
		ret = mpirma_err(MPI_ERR_ARG, "partition %d is not in 0 .. %d",
				 partition, p->partitions - 1);
	else if (!flag)
		ret = mpirma_err(MPI_ERR_ARG, "flag is NULL");
	if (ret)
		return mpirma_raise_comm(p->req.comm, ret, MPIRMA_FUNC, NULL);
	/* An inactive request has received all it will: every partition. */
	mpirma_progress();
	if (p->req.active)
		part_progress(&p->req, 0);
	*flag = !p->req.active || p->req.done;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Parrived)
