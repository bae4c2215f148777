// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nbc.c - the schedule engine of the nonblocking collectives (nbc.h;
 * docs/lib.md, "Nonblocking collectives").
 *
 * A schedule is a request (struct mpirma_nbc) holding its steps in one
 * array, each round's last step marked.  Every schedule not complete is
 * on one list, which mpirma_nbc_progress() walks: for each, it starts the
 * current round if not started, tries the round's receives without
 * waiting, and moves to the next round while a round is complete.  So a
 * schedule advances whenever the program calls into the library in a way
 * that progresses anything: a test or wait of any request, and every wait
 * of the transport (shmq_ring.c, shmq.c call mpirma_nbc_progress() while
 * any schedule is pending, and then wait for a message from any rank).
 *
 * Waiting for one schedule (MPI_Wait, Waitall) waits in the transport for
 * the first receive its round still lacks, marked busy meanwhile: the
 * transport's wait advances every other schedule (a rank may need ours to
 * progress theirs, whatever order the program waits in) and skips this one,
 * whose receive is being taken.  With MPI_THREAD_MULTIPLE it polls
 * instead, as a receive does (p2p.c).
 *
 * A round may receive several times from one peer (the neighborhood
 * collectives of a graph with multiple edges): those receives take their
 * messages in step order, each tried only once the one before it from
 * that peer has come, so they match the peer's sends in order.
 *
 * A persistent collective (MPI_Bcast_init ...) is a schedule built once,
 * at the init call, with its tag: each MPI_Start rewinds it and lists it
 * again.  One tag for every start is safe: a rank starts it again only
 * once its previous start is complete, so every message of that start has
 * gone before the next start's, and messages of one sender and tag are
 * taken in order.  The blocking neighborhood collectives run a schedule
 * to its end at once (mpirma_nbc_start() with no request).
 *
 * A failed step ends its schedule with the error, which the request
 * reports; the other ranks' schedules may then never complete, as their
 * blocking collectives would not.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "coll_msg.h"
#include "datatype.h"
#include "nbc.h"
#include "op.h"
#include "p2p.h"
#include "request.h"

/*
 * The tags of nonblocking collectives on the collective context: above
 * the blocking collectives' (coll_msg.h), below comm.c's internal ones.
 */
#define NBC_TAG_BASE	0x40000000
#define NBC_TAG_SPAN	0x3f000000

#define NBC_ALLOCS	4	/* scratch buffers a schedule may own */

enum { STEP_SEND, STEP_RECV, STEP_OP, STEP_COPY };

/**
 * struct nbc_step - one step of a schedule
 * @kind: STEP_*
 * @last: the last step of its round
 * @done: a receive whose message has come
 * @peer: a send's or receive's comm rank
 * @in, @count, @t: what a send sends, a copy copies, a reduction reads
 * @out: what a receive fills (@count of @t), a reduction updates, a copy
 *	writes (@ocount of @ot)
 * @op, @dt: a reduction's op and datatype handle (@t holds the type and the
 *	step a reference on the op: the program may free both meanwhile)
 * @land: a receive's landing area: @out's bytes, or @tmp
 * @tmp: a receive's packed landing area when @t is not contiguous
 * @after: a receive: 1 + the index of the round's previous receive from
 *	the same peer, which must come first; 0 if none
 */
struct nbc_step {
	unsigned char kind;
	bool last, done;
	int peer;
	const void *in;
	void *out;
	MPI_Count count, ocount;
	struct mpirma_dtype *t, *ot;
	MPI_Op op;
	MPI_Datatype dt;
	void *land, *tmp;
	int after;
};

/**
 * struct mpirma_nbc - a nonblocking collective's schedule
 * @req: the request head (first)
 * @prev, @next: the list of schedules not complete; @listed: on it
 * @busy: a wait is taking one of its receives: progress leaves it alone
 * @c: the communicator (referenced)
 * @tag: this call's tag on the collective context
 * @err: a step could not be added (MPI class): the start fails
 * @steps, @nsteps, @cap: the steps, rounds one after the other
 * @cur: the first step of the current round
 * @end: one past its last step once the round has started, else -1
 * @round0: the first step of the round being built
 * @alloc, @nalloc: scratch buffers, freed with the schedule
 */
struct mpirma_nbc {
	struct mpirma_request req;
	struct mpirma_nbc *prev, *next;
	bool listed, busy;
	struct mpirma_comm *c;
	int tag;
	int err;
	struct nbc_step *steps;
	int nsteps, cap;
	int cur, end;
	int round0;
	void *alloc[NBC_ALLOCS];
	int nalloc;
};

static struct mpirma_nbc *head;

static void list_add(struct mpirma_nbc *s)
{
	s->prev = NULL;
	s->next = head;
	if (head)
		head->prev = s;
	head = s;
	s->listed = true;
}

static void list_del(struct mpirma_nbc *s)
{
	if (!s->listed)
		return;
	if (s->prev)
		s->prev->next = s->next;
	else
		head = s->next;
	if (s->next)
		s->next->prev = s->prev;
	s->listed = false;
}

bool mpirma_nbc_pending(void)
{
	return head != NULL;
}

/* Completes @s with @error (an MPI class) and takes it off the list. */
static void finish(struct mpirma_nbc *s, int error)
{
	mpirma_request_complete(&s->req, MPI_ANY_SOURCE, MPI_ANY_TAG, error,
				0);
	list_del(s);
}

/* ------------------------------------------------------------ steps */

static int recv_land(struct nbc_step *st)
{
	size_t len = st->count * st->t->size;
	const void *data;

	if (mpirma_dtype_contig(st->t, st->count, st->out, &data)) {
		st->land = (void *)data;
		return MPI_SUCCESS;
	}
	st->tmp = malloc(len ? len : 1);
	if (!st->tmp)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	st->land = st->tmp;
	return MPI_SUCCESS;
}

/* Takes a receive's message if there (@flags 0: waits for it).  MPI class. */
static int recv_try(struct mpirma_nbc *s, struct nbc_step *st,
		    unsigned int flags)
{
	size_t len = st->count * st->t->size;
	struct mpirma_msg m;
	int ret;

	ret = mpirma_msg_recv(flags, mpirma_comm_job_rank(s->c, st->peer),
			      s->tag, mpirma_ctx_coll(s->c), st->land, len, &m);
	if (ret == -EAGAIN)
		return MPI_SUCCESS;
	if (ret < 0)
		return mpirma_err_errno(ret, "collective receive from rank %d",
					st->peer);
	if (m.msg_len > len)
		return mpirma_err(MPI_ERR_TRUNCATE, "rank %d sent %llu bytes, "
				  "%zu expected", st->peer,
				  (unsigned long long)m.msg_len, len);
	if (st->tmp) {
		mpirma_dtype_unpack(st->t, st->tmp, m.msg_len, st->out,
				    st->count);
		free(st->tmp);
		st->tmp = NULL;
	}
	st->done = true;
	return MPI_SUCCESS;
}

static int step_start(struct mpirma_nbc *s, struct nbc_step *st)
{
	switch (st->kind) {
	case STEP_SEND:
		return mpirma_coll_send(s->c, st->peer, s->tag, st->in,
					st->count, st->t);
	case STEP_RECV:
		return recv_land(st);
	case STEP_OP:
		return mpirma_op_apply_type(st->op, st->t, st->dt, st->in,
					    st->out, (int)st->count);
	default:
		return mpirma_dtype_copy(st->in, st->count, st->t, st->out,
					 st->ocount, st->ot);
	}
}

/* The first receive of the current round still to come, or NULL. */
static struct nbc_step *first_pending(struct mpirma_nbc *s)
{
	int i;

	for (i = s->cur; s->end >= 0 && i < s->end; i++)
		if (s->steps[i].kind == STEP_RECV && !s->steps[i].done)
			return &s->steps[i];
	return NULL;
}

/*
 * Runs @s as far as it goes without waiting: rounds started, receives
 * tried, complete rounds left behind.  MPI class of a failed step.
 */
static int advance(struct mpirma_nbc *s)
{
	struct nbc_step *st;
	int i, ret;

	while (s->cur < s->nsteps) {
		if (s->end < 0) {
			for (i = s->cur; ; i++) {
				ret = step_start(s, &s->steps[i]);
				if (ret)
					return ret;
				if (s->steps[i].last)
					break;
			}
			s->end = i + 1;
		}
		for (i = s->cur; i < s->end; i++) {
			st = &s->steps[i];
			if (st->kind != STEP_RECV || st->done ||
			    (st->after && !s->steps[st->after - 1].done))
				continue;
			ret = recv_try(s, st, MPIRMA_MSG_NOWAIT);
			if (ret)
				return ret;
		}
		if (first_pending(s))
			return MPI_SUCCESS;
		s->cur = s->end;
		s->end = -1;
	}
	finish(s, MPI_SUCCESS);
	return MPI_SUCCESS;
}

static void advance_one(struct mpirma_nbc *s)
{
	int ret;

	if (s->req.done || s->busy)
		return;
	ret = advance(s);
	if (ret)
		finish(s, ret);
}

void mpirma_nbc_progress(void)
{
	static bool running;	/* a step's send may wait in the transport */
	struct mpirma_nbc *s, *next;

	if (running)
		return;
	running = true;
	for (s = head; s; s = next) {
		next = s->next;	/* only @s leaves the list here */
		advance_one(s);
	}
	running = false;
}

/* ------------------------------------------------------------ the request */

static int nbc_progress(struct mpirma_request *r, int block)
{
	struct mpirma_nbc *s = (struct mpirma_nbc *)r;
	struct nbc_step *st;
	int spins = 0, ret;

	mpirma_nbc_progress();
	while (block && !r->done) {
		st = first_pending(s);
		if (mpirma_threads || s->busy || !st) {
			mpirma_wait_pause(&spins);
		} else {
			s->busy = true;
			ret = recv_try(s, st, 0);
			s->busy = false;
			if (ret)
				finish(s, ret);
		}
		mpirma_nbc_progress();
	}
	return MPI_SUCCESS;
}

static int nbc_release(struct mpirma_request *r)
{
	struct mpirma_nbc *s = (struct mpirma_nbc *)r;
	int i;

	list_del(s);
	for (i = 0; i < s->nsteps; i++) {
		free(s->steps[i].tmp);
		mpirma_dtype_unref(s->steps[i].t);
		mpirma_dtype_unref(s->steps[i].ot);
		if (s->steps[i].kind == STEP_OP)
			mpirma_op_unref(s->steps[i].op);
	}
	free(s->steps);
	for (i = 0; i < s->nalloc; i++)
		free(s->alloc[i]);
	mpirma_comm_unref(s->c);
	return MPI_SUCCESS;
}

/* Collectives cannot be cancelled (MPI_Cancel on one is erroneous). */
static const struct mpirma_request_ops nbc_ops = {
	.progress = nbc_progress,
	.release = nbc_release,
};

/* MPI_Start of a persistent collective: the schedule rewound, listed. */
static int persist_start(struct mpirma_request *r)
{
	struct mpirma_nbc *s = (struct mpirma_nbc *)r;
	int i;

	for (i = 0; i < s->nsteps; i++) {
		s->steps[i].done = false;
		free(s->steps[i].tmp);
		s->steps[i].tmp = NULL;
	}
	s->cur = 0;
	s->end = -1;
	r->active = true;
	list_add(s);
	advance_one(s);
	return MPI_SUCCESS;
}

/* MPI_Request_free of an inactive one (request.c refuses an active one). */
static int persist_free(struct mpirma_request *r)
{
	return mpirma_request_destroy(r);
}

static const struct mpirma_request_ops persist_ops = {
	.progress = nbc_progress,
	.release = nbc_release,
	.free = persist_free,
	.start = persist_start,
};

int mpirma_nbc_new(struct mpirma_comm *c, struct mpirma_nbc **out)
{
	struct mpirma_request *r;
	struct mpirma_nbc *s;
	int ret = mpirma_request_alloc(sizeof(*s), &nbc_ops, &r);

	if (ret)
		return ret;
	s = (struct mpirma_nbc *)r;
	r->comm = c->handle;
	s->c = c;
	mpirma_comm_ref(c);
	s->tag = NBC_TAG_BASE + (int)(c->nbc_seq++ % NBC_TAG_SPAN);
	s->end = -1;
	*out = s;
	return MPI_SUCCESS;
}

int mpirma_nbc_start(struct mpirma_nbc *s, MPI_Request *out)
{
	int ret = s->err;

	if (ret) {
		mpirma_request_destroy(&s->req);
		return ret;
	}
	if (s->nsteps)
		s->steps[s->nsteps - 1].last = true;
	if (out && *out == MPIRMA_NBC_PERSISTENT) {
		s->req.ops = &persist_ops;
		s->req.persistent = true;
		*out = s->req.handle;
		return MPI_SUCCESS;
	}
	list_add(s);
	advance_one(s);
	if (out) {
		*out = s->req.handle;
		return MPI_SUCCESS;
	}
	nbc_progress(&s->req, 1);
	ret = s->req.status.MPI_ERROR;
	mpirma_request_destroy(&s->req);
	return ret;
}

int mpirma_nbc_request_arg(MPI_Request *request, MPI_Info info,
			   bool persistent)
{
	if (!request)
		return mpirma_err(MPI_ERR_ARG, "request is NULL");
	*request = MPI_REQUEST_NULL;
	if (!persistent)
		return MPI_SUCCESS;
	*request = MPIRMA_NBC_PERSISTENT;
	return mpirma_info_arg_check(info);
}

/* ------------------------------------------------------------ building */

static struct nbc_step *step_add(struct mpirma_nbc *s, int kind,
				 struct mpirma_dtype *t,
				 struct mpirma_dtype *ot)
{
	struct nbc_step *st;

	if (s->err)
		return NULL;
	if (s->nsteps == s->cap) {
		int ncap = s->cap ? 2 * s->cap : 8;

		st = realloc(s->steps, ncap * sizeof(*st));
		if (!st) {
			s->err = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
			return NULL;
		}
		s->steps = st;
		s->cap = ncap;
	}
	st = &s->steps[s->nsteps++];
	memset(st, 0, sizeof(*st));
	st->kind = kind;
	st->t = t;
	st->ot = ot;
	if (t)
		mpirma_dtype_ref(t);
	if (ot)
		mpirma_dtype_ref(ot);
	return st;
}

static void xfer(struct mpirma_nbc *s, int kind, int peer, void *buf,
		 MPI_Count count, struct mpirma_dtype *t)
{
	struct nbc_step *st = step_add(s, kind, t, NULL);

	if (st) {
		st->peer = peer;
		st->in = buf;
		st->out = buf;
		st->count = count;
	}
}

void mpirma_nbc_send(struct mpirma_nbc *s, int peer, const void *buf,
		     MPI_Count count, struct mpirma_dtype *t)
{
	xfer(s, STEP_SEND, peer, (void *)buf, count, t);
}

void mpirma_nbc_recv(struct mpirma_nbc *s, int peer, void *buf,
		     MPI_Count count, struct mpirma_dtype *t)
{
	int i, me = s->nsteps;

	xfer(s, STEP_RECV, peer, buf, count, t);
	if (s->err)
		return;
	for (i = me - 1; i >= s->round0; i--)
		if (s->steps[i].kind == STEP_RECV && s->steps[i].peer == peer) {
			s->steps[me].after = i + 1;
			break;
		}
}

void mpirma_nbc_op(struct mpirma_nbc *s, MPI_Op op, MPI_Datatype dt,
		   const void *in, void *inout, int count)
{
	struct mpirma_dtype *t = mpirma_dtype_get(dt);
	struct nbc_step *st;

	/* The program may free both before the step runs. */
	if (!t && !s->err)
		s->err = mpirma_err(MPI_ERR_TYPE, "invalid datatype %d", dt);
	st = step_add(s, STEP_OP, t, NULL);
	if (st) {
		mpirma_op_ref(op);
		st->op = op;
		st->dt = dt;
		st->in = in;
		st->out = inout;
		st->count = count;
	}
}

void mpirma_nbc_copy(struct mpirma_nbc *s, const void *src, MPI_Count scount,
		     struct mpirma_dtype *stype, void *dst,
		     MPI_Count dcount, struct mpirma_dtype *dtype)
{
	struct nbc_step *st = step_add(s, STEP_COPY, stype, dtype);

	if (st) {
		st->in = src;
		st->count = scount;
		st->out = dst;
		st->ocount = dcount;
	}
}

void mpirma_nbc_round(struct mpirma_nbc *s)
{
	if (s->nsteps)
		s->steps[s->nsteps - 1].last = true;
	s->round0 = s->nsteps;
}

void *mpirma_nbc_scratch(struct mpirma_nbc *s, struct mpirma_dtype *t,
			 MPI_Count count)
{
	void *p;

	if (s->err)
		return NULL;
	if (s->nalloc == NBC_ALLOCS) {
		s->err = mpirma_err(MPI_ERR_INTERN, "too many scratch buffers");
		return NULL;
	}
	p = mpirma_dtype_scratch(t, count, &s->alloc[s->nalloc]);
	if (!p) {
		s->err = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
		return NULL;
	}
	s->nalloc++;
	return p;
}
