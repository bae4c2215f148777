// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p2p.c - point-to-point messages over the transport of shmq.c (shared-
 * memory queues, or the kernel mailboxes), docs/lib.md "Point-to-point
 * messages".
 *
 * Sends are p2p_send.c's.
 *
 * Receives: posted receives wait in one queue in posting order.  The
 * standard says a message goes to the earliest posted receive that matches
 * it, while the transport hands out the oldest message matching one pattern.
 * A receive that no earlier queued receive of its communicator could
 * compete with (their patterns do not overlap) takes its message directly.
 * Otherwise the message it would get is looked at first (MPIRMA_MSG_PEEK)
 * and then taken, by its exact source and tag, into the earliest queued
 * receive that matches it, which may be an earlier one; then the receive
 * looks again.  Only this process takes from its mailbox, and with
 * threads only under the library lock, so a message seen with PEEK is
 * still there when it is taken.  With MPI_THREAD_MULTIPLE a waiting
 * receive polls instead of waiting in the transport (recv_progress()).
 *
 * A blocking MPI_Recv is a receive on the stack, queued last and waited for
 * in the transport, directly on its pattern when nothing queued competes,
 * or with PEEK followed by a progress pass.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "datatype.h"
#include "nbc.h"
#include "p2p.h"
#include "request.h"

/* ------------------------------------------------------------ receives */

/**
 * struct p2p_recv - a posted receive
 * @req: the request head (first)
 * @prev, @next: the posted queue, in posting order
 * @queued: in the queue
 * @taking: a thread is taking a message into it (with threads, the
 *	transport lets go of the library lock until a message of several
 *	units is complete): no other may take one meanwhile
 * @comm: the communicator (referenced)
 * @dt: the datatype (referenced)
 * @buf, @count: the user's buffer
 * @cap: bytes the buffer holds (count * size)
 * @land: where the kernel writes: the data in @buf, or @tmp
 * @tmp: packed landing area for a non-contiguous datatype
 * @src: job rank or MPIRMA_ANY_SOURCE
 * @tag: tag or MPIRMA_ANY_TAG
 * @ctx: the kernel context (the communicator's p2p context)
 */
struct p2p_recv {
	struct mpirma_request req;
	struct p2p_recv *prev, *next;
	bool queued;
	bool taking;
	struct mpirma_comm *comm;
	struct mpirma_dtype *dt;
	void *buf;
	int count;
	size_t cap;
	void *land;
	void *tmp;
	uint32_t src;
	int32_t tag;
	uint64_t ctx;
	bool missed;		/* a look found nothing, at transport state ... */
	uint64_t miss_gen;	/* ... mpirma_msg_gen() then */
};

static struct p2p_recv *q_head, *q_tail;

static void enqueue(struct p2p_recv *r)
{
	r->prev = q_tail;
	r->next = NULL;
	if (q_tail)
		q_tail->next = r;
	else
		q_head = r;
	q_tail = r;
	r->queued = true;
}

static void dequeue(struct p2p_recv *r)
{
	if (!r->queued)
		return;
	if (r->prev)
		r->prev->next = r->next;
	else
		q_head = r->next;
	if (r->next)
		r->next->prev = r->prev;
	else
		q_tail = r->prev;
	r->prev = r->next = NULL;
	r->queued = false;
}

static bool matches(const struct p2p_recv *r, uint32_t src, int32_t tag)
{
	return (r->src == MPIRMA_ANY_SOURCE || r->src == src) &&
	       (r->tag == MPIRMA_ANY_TAG || r->tag == tag);
}

/* Could a message match both @a and @b? */
static bool overlap(const struct p2p_recv *a, const struct p2p_recv *b)
{
	return a->ctx == b->ctx &&
	       (a->src == MPIRMA_ANY_SOURCE || b->src == MPIRMA_ANY_SOURCE ||
		a->src == b->src) &&
	       (a->tag == MPIRMA_ANY_TAG || b->tag == MPIRMA_ANY_TAG ||
		a->tag == b->tag);
}

/* An earlier queued receive competes with @r for messages. */
static bool shadowed(const struct p2p_recv *r)
{
	const struct p2p_recv *e;

	for (e = r->prev; e; e = e->prev)
		if (overlap(e, r))
			return true;
	return false;
}

static void recv_finish(struct p2p_recv *r, int source_job, int tag,
			int error, size_t bytes)
{
	int src = source_job < 0 ? MPI_ANY_SOURCE :
		  mpirma_comm_rank_of_job(r->comm, source_job);

	dequeue(r);
	mpirma_request_complete(&r->req, src, tag, error, bytes);
}

/*
 * The outcome of a transport receive (@ret, @m) from @src into @cap
 * bytes: its class (the cause recorded) and the bytes taken in *@got.
 */
static int recv_outcome(int ret, uint32_t src, const struct mpirma_msg *m,
			size_t cap, size_t *got)
{
	*got = 0;
	if (ret < 0)
		return mpirma_err_errno(ret, "receive from %s",
					src == MPIRMA_ANY_SOURCE ? "any source" :
					"a rank");
	*got = m->msg_len < cap ? m->msg_len : cap;
	if (m->msg_len > cap)
		return mpirma_err(MPI_ERR_TRUNCATE, "message of %llu bytes, "
				  "receive buffer of %zu",
				  (unsigned long long)m->msg_len, cap);
	return MPI_SUCCESS;
}

/*
 * Receives in the transport, which advances the posted receives while it
 * waits (mpirma_p2p_progress_due()) unless it waits for one of them: a
 * pass then would change the queue under the receive that waits.
 */
static int p2p_busy;

static int p2p_msg_recv(unsigned int flags, uint32_t src, int32_t tag,
			uint64_t ctx, void *buf, size_t len,
			struct mpirma_msg *m)
{
	int ret;

	p2p_busy++;
	ret = mpirma_msg_recv(flags, src, tag, ctx, buf, len, m);
	p2p_busy--;
	return ret;
}

/*
 * Takes a message matching (@src, @tag) into @r; @flags 0 (wait) or
 * MPIRMA_MSG_NOWAIT.  Returns -EAGAIN when there is none; otherwise @r is
 * complete (possibly with an error) and 0 is returned.
 */
static int recv_into(struct p2p_recv *r, unsigned int flags, uint32_t src,
		     int32_t tag)
{
	struct mpirma_msg m;
	size_t got;
	int ret, err;

	r->taking = true;
	ret = p2p_msg_recv(flags, src, tag, r->ctx, r->land, r->cap, &m);
	r->taking = false;
	if (ret == -EAGAIN)
		return ret;
	err = recv_outcome(ret, src, &m, r->cap, &got);
	if (ret < 0) {
		recv_finish(r, -1, MPI_ANY_TAG, err, 0);
		return 0;
	}
	if (r->tmp)
		mpirma_dtype_unpack(r->dt, r->tmp, got, r->buf, r->count);
	recv_finish(r, m.source, m.msg_tag, err, got);
	return 0;
}

/* The earliest queued receive (up to @r) taking a message (@src, @tag). */
static struct p2p_recv *first_taker(struct p2p_recv *r, uint32_t src,
				    int32_t tag)
{
	struct p2p_recv *e;

	for (e = q_head; e != r; e = e->next)
		if (!e->taking && e->ctx == r->ctx && matches(e, src, tag))
			return e;
	return r;
}

/*
 * One attempt for @r: @flags 0 waits in the transport.  With competitors,
 * a message seen goes to its earliest taker, and the attempt repeats while
 * that was another receive.  Returns after @r completed or nothing (more)
 * was there; a waiting attempt returns after one message was handed out.
 * With threads, it also returns when the transport let go of the library
 * lock while it handed a message to another receive: @r, another thread's,
 * may have been completed and gone meanwhile.
 */
static void try_recv(struct p2p_recv *r, unsigned int flags)
{
	struct mpirma_msg m;
	int ret;

	while (!r->req.done && !r->taking) {
		unsigned long drops = mpirma_lock_drops;
		struct p2p_recv *e;

		if (!shadowed(r)) {
			uint64_t gen = mpirma_msg_gen();

			/*
			 * Nothing came since its last look: OSU's osu_bibw
			 * looked for its first receive at every MPI_Irecv.
			 */
			if (flags && r->missed &&
			    mpirma_msg_quiet(r->src, r->miss_gen))
				return;
			/* the next message from its source, straight out */
			if (!r->tmp && r->src != MPIRMA_ANY_SOURCE &&
			    mpirma_lean_take(r->src, r->tag, r->ctx, r->land,
					     r->cap, &m)) {
				recv_finish(r, (int)m.source, m.msg_tag,
					    MPI_SUCCESS, m.msg_len);
				return;
			}
			recv_into(r, flags, r->src, r->tag);
			r->missed = !r->req.done && !r->taking &&
				    mpirma_lock_drops == drops;
			r->miss_gen = gen;
			return;
		}
		ret = p2p_msg_recv(flags | MPIRMA_MSG_PEEK, r->src, r->tag,
				   r->ctx, NULL, 0, &m);
		if (ret == -EAGAIN)
			return;
		if (ret < 0) {
			recv_finish(r, -1, MPI_ANY_TAG,
				    mpirma_err_errno(ret, "receive"), 0);
			return;
		}
		e = first_taker(r, m.source, m.msg_tag);
		recv_into(e, MPIRMA_MSG_NOWAIT, m.source, m.msg_tag);
		if ((flags == 0 && e != r) || mpirma_lock_drops != drops)
			return;
	}
}

/*
 * At the posting of @r: what has come for the receives first in line,
 * then for @r if none before it competes with it (a look for a receive
 * others compete with would hand what it found to the first of them:
 * OSU's loops post 64 alike, and each looked in vain).  Taking early
 * keeps the queue short, so the next receive may go by the lean lane.
 */
static void take_ready(struct p2p_recv *r)
{
	struct p2p_recv *h;

	while ((h = q_head) && h != r) {
		unsigned long drops = mpirma_lock_drops;

		try_recv(h, MPIRMA_MSG_NOWAIT);
		/* after a drop of the lock @h may be gone */
		if (mpirma_lock_drops != drops || !h->req.done)
			return;
	}
	if (!shadowed(r))
		try_recv(r, MPIRMA_MSG_NOWAIT);
}

/* p2p.h */
bool mpirma_p2p_posted(void)
{
	return q_head;
}

/* p2p.h */
bool mpirma_p2p_progress_due(void)
{
	return q_head && !p2p_busy;
}

/*
 * With threads, a receive of a message in several units lets go of the
 * library lock until the last has come; the queue may then have lost any
 * of its receives (their threads completed them and returned), so the
 * walk starts again at the head, a few times at most.
 */
#define P2P_RESTARTS	4

/* Do @a and @b take the same messages (neither a wildcard excepted)? */
static bool same_pattern(const struct p2p_recv *a, const struct p2p_recv *b)
{
	return a->ctx == b->ctx && a->src == b->src && a->tag == b->tag;
}

void mpirma_p2p_progress(void)
{
	struct p2p_recv *r, *next, *idle = NULL;
	int restarts = 0;

	for (r = q_head; r; r = next) {
		unsigned long drops = mpirma_lock_drops;

		next = r->next;
		/*
		 * A receive like one that found nothing in this pass finds
		 * nothing either (OSU's osu_bw posts 64 alike: a pass looked
		 * in the transport 64 times per message waited for); one
		 * that came since goes to the earlier receive anyway.
		 */
		if (idle && same_pattern(r, idle))
			continue;
		/* Only @r and receives before it can complete here. */
		try_recv(r, MPIRMA_MSG_NOWAIT);
		if (mpirma_lock_drops != drops) {
			if (++restarts > P2P_RESTARTS)
				return;
			next = q_head;
			idle = NULL;
		} else if (!r->req.done && !r->taking) {
			idle = r;	/* the transport had none for it */
		}
	}
}

static int recv_progress(struct mpirma_request *req, int block)
{
	struct p2p_recv *r = (struct p2p_recv *)req;
	int spins = 0;

	mpirma_p2p_progress();
	if (mpirma_threads) {
		/*
		 * Never waiting in the transport on a pattern: another thread may
		 * hand this receive its message from the queue meanwhile.  Under
		 * the layer the host advances too, as the transport's waits
		 * advance it (mpirma_poll_host()).
		 */
		while (block && !r->req.done) {
			mpirma_wait_pause(&spins);
			mpirma_p2p_progress();
			mpirma_nbc_progress();
			if (mpirma_host_progress)
				mpirma_host_progress();
		}
		return MPI_SUCCESS;
	}
	while (block && !r->req.done) {
		try_recv(r, 0);
		mpirma_p2p_progress();
	}
	return MPI_SUCCESS;
}

static int recv_cancel(struct mpirma_request *req)
{
	struct p2p_recv *r = (struct p2p_recv *)req;

	/* one being taken completes with its message, as the standard allows */
	if (r->req.done || r->taking)
		return MPI_SUCCESS;
	dequeue(r);
	mpirma_status_empty(&r->req.status);
	r->req.status.mpirma_cancelled = 1;
	r->req.done = 1;
	return MPI_SUCCESS;
}

static int recv_release(struct mpirma_request *req)
{
	struct p2p_recv *r = (struct p2p_recv *)req;

	dequeue(r);
	free(r->tmp);
	r->tmp = NULL;
	mpirma_dtype_unref(r->dt);
	if (r->comm)
		mpirma_comm_unref(r->comm);
	return MPI_SUCCESS;
}

static const struct mpirma_request_ops recv_ops = {
	.progress = recv_progress,
	.cancel = recv_cancel,
	.release = recv_release,
};

bool mpirma_p2p_block_any(struct mpirma_request *const *reqs, int n)
{
	const struct p2p_recv *first;
	struct mpirma_msg m;
	uint32_t src;
	int32_t tag;
	int i, ret;

	if (n <= 0 || reqs[0]->ops != &recv_ops || mpirma_threads)
		return false;	/* threads poll: see recv_progress() */
	first = (const struct p2p_recv *)reqs[0];
	src = first->src;
	tag = first->tag;
	for (i = 1; i < n; i++) {
		const struct p2p_recv *r = (const struct p2p_recv *)reqs[i];

		if (reqs[i]->ops != &recv_ops || r->ctx != first->ctx)
			return false;
		if (r->src != src)
			src = MPIRMA_ANY_SOURCE;
		if (r->tag != tag)
			tag = MPIRMA_ANY_TAG;
	}
	/* Errors show up again when the receives themselves try. */
	ret = p2p_msg_recv(MPIRMA_MSG_PEEK, src, tag, first->ctx, NULL, 0, &m);
	(void)ret;
	return true;
}

/* ------------------------------------------------------------ checks */

static int dest_check(const struct mpirma_comm *c, int dest, int tag)
{
	int n = mpirma_comm_peer_size(c);

	if (dest != MPI_PROC_NULL && (dest < 0 || dest >= n))
		return mpirma_err(MPI_ERR_RANK, "destination rank %d not in "
				  "0..%d", dest, n - 1);
	if (tag < 0)
		return mpirma_err(MPI_ERR_TAG, "send tag %d is negative", tag);
	return MPI_SUCCESS;
}

/* p2p.h */
int mpirma_p2p_source_check(const struct mpirma_comm *c, int source,
			    int tag)
{
	int n = mpirma_comm_peer_size(c);

	if (source != MPI_PROC_NULL && source != MPI_ANY_SOURCE &&
	    (source < 0 || source >= n))
		return mpirma_err(MPI_ERR_RANK, "source rank %d not in 0..%d",
				  source, n - 1);
	if (tag < 0 && tag != MPI_ANY_TAG)
		return mpirma_err(MPI_ERR_TAG, "receive tag %d is invalid", tag);
	return MPI_SUCCESS;
}

/*
 * The arguments of a receive: communicator, buffer (@t may be NULL),
 * source and tag.  MPI class (recorded).
 */
static int recv_check(MPI_Comm comm, int count, MPI_Datatype dt, int source,
		      int tag, struct mpirma_comm **c, struct mpirma_dtype **t)
{
	int ret = mpirma_comm_check(comm, c);

	if (!ret)
		ret = mpirma_buf_check(count, dt, t);
	if (!ret)
		ret = mpirma_p2p_source_check(*c, source, tag);
	return ret;
}

/* p2p.h */
int mpirma_p2p_check(bool send, MPI_Comm comm, int count, MPI_Datatype dt,
		     int peer, int tag, struct mpirma_comm **c,
		     struct mpirma_dtype **t)
{
	int ret;

	if (!send)
		return recv_check(comm, count, dt, peer, tag, c, t);
	ret = mpirma_comm_check(comm, c);
	if (!ret)
		ret = mpirma_buf_check(count, dt, t);
	if (!ret)
		ret = dest_check(*c, peer, tag);
	return ret;
}

/* ------------------------------------------------------------ receive paths */

/* Fills a posted receive (checked arguments, source not PROC_NULL). */
static int recv_setup(struct p2p_recv *r, void *buf, int count,
		      struct mpirma_dtype *t, int source, int tag,
		      struct mpirma_comm *c)
{
	const void *data;

	r->req.ops = &recv_ops;
	r->req.comm = c->handle;
	r->req.win = MPI_WIN_NULL;
	r->comm = c;
	mpirma_comm_ref(c);
	r->dt = t;
	mpirma_dtype_ref(t);
	r->buf = buf;
	r->count = count;
	r->cap = (size_t)count * t->size;
	r->src = mpirma_p2p_src(c, source);
	r->tag = mpirma_p2p_tag(tag);
	r->ctx = mpirma_ctx_p2p(c);
	if (mpirma_dtype_contig(t, count, buf, &data)) {
		r->land = (void *)data;
	} else {
		r->tmp = malloc(r->cap);
		if (!r->tmp)
			return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
		r->land = r->tmp;
	}
	enqueue(r);
	return MPI_SUCCESS;
}

/* p2p.h */
void mpirma_p2p_null_status(MPI_Status *status)
{
	mpirma_status_user(status, MPI_PROC_NULL, MPI_ANY_TAG, 0);
}

/*
 * A blocking receive with no receive posted before it, into contiguous
 * memory (@data, @cap bytes): straight from the transport, without a
 * request, as no earlier receive can be owed the message.  The class;
 * @status filled.
 */
static int recv_direct(struct mpirma_comm *c, void *data, size_t cap,
		       int source, int tag, MPI_Status *status)
{
	uint32_t src = mpirma_p2p_src(c, source);
	struct mpirma_msg m;
	size_t got;
	int ret, err;

	ret = p2p_msg_recv(0, src, mpirma_p2p_tag(tag), mpirma_ctx_p2p(c), data,
			   cap, &m);
	err = recv_outcome(ret, src, &m, cap, &got);
	if (ret < 0)
		mpirma_status_user(status, MPI_ANY_SOURCE, MPI_ANY_TAG, 0);
	else
		mpirma_status_user(status, mpirma_comm_rank_of_job(c, m.source),
				   m.msg_tag, got);
	return err;
}

/* A blocking receive; the class of the receive (status filled). */
/* p2p.h */
int mpirma_p2p_recv(void *buf, int count, MPI_Datatype dt, int source,
		    int tag, MPI_Comm comm, MPI_Status *status)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	struct p2p_recv r;
	const void *data;
	int ret;

	ret = recv_check(comm, count, dt, source, tag, &c, &t);
	if (ret)
		return ret;
	if (source == MPI_PROC_NULL) {
		mpirma_p2p_null_status(status);
		return MPI_SUCCESS;
	}
	if (!q_head && !mpirma_threads && mpirma_dtype_contig(t, count, buf, &data))
		return recv_direct(c, (void *)data, (size_t)count * t->size,
				   source, tag, status);
	memset(&r, 0, sizeof(r));
	ret = recv_setup(&r, buf, count, t, source, tag, c);
	if (!ret) {
		recv_progress(&r.req, 1);
		ret = r.req.status.MPI_ERROR;
		mpirma_status_out(status, &r.req.status);
	}
	recv_release(&r.req);
	return ret;
}

/* ------------------------------------------------------------ receive calls */

int PMPI_Recv(void *buf, int count, MPI_Datatype datatype, int source,
	      int tag, MPI_Comm comm, MPI_Status *status)
{
	MPIRMA_CHECK_INIT();
	if (mpirma_lean_recv(buf, count, datatype, source, tag, comm, status))
		return MPI_SUCCESS;
	return RAISE_COMM(comm, mpirma_p2p_recv(buf, count, datatype, source,
						tag, comm, status), NULL);
}
MPIRMA_ALIAS(Recv)

/* p2p.h */
int mpirma_p2p_post(struct mpirma_comm *c, void *buf, int count,
		    struct mpirma_dtype *t, int source, int tag,
		    struct mpirma_request **out)
{
	struct mpirma_request *req;
	MPI_Request h;
	int ret;

	if (source == MPI_PROC_NULL) {
		ret = mpirma_request_new_done(c->handle, MPI_WIN_NULL,
					      MPI_SUCCESS, &h);
		if (ret)
			return ret;
		*out = mpirma_request_get(h);
		mpirma_p2p_null_status(&(*out)->status);
		return MPI_SUCCESS;
	}
	ret = mpirma_request_alloc(sizeof(struct p2p_recv), &recv_ops, &req);
	if (ret)
		return ret;
	ret = recv_setup((struct p2p_recv *)req, buf, count, t, source, tag, c);
	if (ret) {
		mpirma_request_destroy(req);
		return ret;
	}
	take_ready((struct p2p_recv *)req);
	*out = req;
	return MPI_SUCCESS;
}

static int irecv(void *buf, int count, MPI_Datatype datatype, int source,
		 int tag, MPI_Comm comm, MPI_Request *request)
{
	struct mpirma_request *req;
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	int ret;

	if (mpirma_lean_irecv(buf, count, datatype, source, tag, comm,
			      request, &ret, &c))
		return ret;
	if (c) {
		t = mpirma_dtype_get(datatype);	/* checked by the lane */
	} else {
		ret = recv_check(comm, count, datatype, source, tag, &c, &t);
		if (!ret && !request)
			ret = mpirma_err(MPI_ERR_ARG, "request is NULL");
		if (ret)
			return ret;
	}
	ret = mpirma_p2p_post(c, buf, count, t, source, tag, &req);
	if (!ret)
		*request = req->handle;
	return ret;
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source,
	       int tag, MPI_Comm comm, MPI_Request *request)
{
	MPIRMA_CHECK_INIT();
	return RAISE_COMM(comm, irecv(buf, count, datatype, source, tag, comm,
				      request), NULL);
}
MPIRMA_ALIAS(Irecv)

/* p2p.h */
bool mpirma_p2p_claimed(uint64_t ctx, uint32_t src, int32_t tag)
{
	struct p2p_recv *e;

	for (e = q_head; e; e = e->next)
		if (e->ctx == ctx && matches(e, src, tag))
			return true;
	return false;
}
