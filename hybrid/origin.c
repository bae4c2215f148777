// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * origin.c - operations for targets on other nodes, at the origin: each is
 * built with the engine's own code (mpirma_rma_prepare: the MPI call's
 * checks and datatype layouts), packed (wire.h) and sent to the target's
 * agent on hy.ship_comm, which applies it through the module there, so
 * every target has one atomicity domain.
 *
 * Puts and plain accumulates to one target are batched (struct hy_batch):
 * a message carries up to HY_BATCH_OPS of them, and small contiguous ones
 * join a run of the batch's last record.  A batch leaves when it is full,
 * before an operation with a result to the same target (so
 * accumulate_ordering holds across both), and in the call that completes
 * it (hy_ship_complete: flush, unlock, fence, complete, free), which then
 * collects its acknowledgement (struct hy_pending).  An operation with a
 * result waits for its reply before it returns.  A reply's receive is
 * posted before its operation's send, both under order_lock, so replies,
 * which come back in sending order, match them.
 *
 * A shipped operation that failed is reported by the call that found it,
 * in that call's name, with the operation's kind, target and displacement
 * (struct ship_failure, converted once the window's lock is released: see
 * locks.h).  Lock requests and grants travel the same way (agent_slots.c
 * keeps the locks), but for this process's own part, which it takes in
 * agent_slots.c directly.  Called by rma.c, sync.c and span.c; calls
 * waits.c, agent_slots.c and the engine.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "errors.h"
#include "locks.h"
#include "origin.h"
#include "rma_args.h"
#include "waits.h"
#include "wire.h"

#define HY_PENDING_MAX	1024	/* acknowledgements kept before waiting */

/*
 * Accumulates not yet shipped to one target, each a record (header, blocks,
 * data) padded to 8 bytes, in issue order; under hy_span.lock.
 */
struct hy_batch {
	char *buf;
	size_t len;
	size_t cap;
	uint32_t nops;		/* operations (a run's entries each count) */
	size_t run;		/* offset + 1 of the last record if a run, or 0 */
};

/**
 * struct hy_pending - shipped accumulates waiting for their acknowledgement
 * @req: the reply's receive and the message's send
 * @msg: the message as sent (its records name a failure's displacement)
 * @reply: the acknowledgement
 * @target: window rank of the target
 */
struct hy_pending {
	MPI_Request req[2];
	struct ship_hdr *msg;
	struct ship_reply *reply;
	int target;
};

/*
 * The first shipped operation a call found failed: its reply's status, and
 * what the operation was (its kind, window rank and displacement).
 */
struct ship_failure {
	int status;
	unsigned int kind;
	int target;
	uint64_t disp;
};

/* Keeps each reply's receive and its operation's send together. */
static struct hy_mutex order_lock = HY_MUTEX_INIT(HY_LOCK_ORDER);

/* A reply's receive and its operation's send, completed. */
static void wait_sent_and_reply(MPI_Request *req)
{
	hy_wait(2, req);
}

/* Notes @p's failure in @f, unless @f holds an earlier one. */
static void failure_note(struct ship_failure *f, const struct hy_pending *p)
{
	const struct ship_hdr *h;

	if (f->status || !p->reply->status)
		return;
	h = wire_record_at(p->msg, p->reply->index, &f->disp);
	f->status = p->reply->status;
	f->kind = h->kind;
	f->target = p->target;
}

/*
 * @f as the host's class, raised in @fn's name on the engine window (which
 * returns it: the layer raises it on the program's handle); hy.lock held.
 */
static int failure_class(struct hy_win *w, const struct ship_failure *f,
			 const char *fn)
{
	struct mpirma_op op = { .kind = (uint16_t)f->kind,
				.target_rank = (uint32_t)f->target,
				.target_disp = f->disp, .status = f->status };

	if (!f->status)
		return MPI_SUCCESS;
	return hy_inner(mpirma_rma_failed(w->inner, &op, fn));
}

/* Waits for pending entry @k of @sp and drops it; sp->lock held. */
static void pending_settle(struct hy_win *w, int k, struct ship_failure *f)
{
	struct hy_span *sp = w->span;
	struct hy_pending *p = &sp->pend[k];

	hy_mutex_assert_held(&sp->lock);
	wait_sent_and_reply(p->req);
	failure_note(f, p);
	free(p->msg);
	free(p->reply);
	*p = sp->pend[--sp->npend];
}

/*
 * Keeps a message's acknowledgement for hy_ship_complete; sp->lock held.
 * Too many in flight are collected first, and one that finds no room is
 * waited for at once: their failures go to @f.
 */
static void pending_add(struct hy_win *w, const struct hy_pending *p,
			struct ship_failure *f)
{
	struct hy_span *sp = w->span;

	if (sp->npend == HY_PENDING_MAX)
		while (sp->npend)
			pending_settle(w, 0, f);
	if (sp->npend == sp->cap) {
		int cap = sp->cap ? 2 * sp->cap : 16;
		struct hy_pending *q = realloc(sp->pend, sizeof(*q) *
					       (size_t)cap);

		if (!q) {
			wait_sent_and_reply((MPI_Request *)p->req);
			failure_note(f, p);
			free(p->msg);
			free(p->reply);
			return;
		}
		sp->pend = q;
		sp->cap = cap;
	}
	sp->pend[sp->npend++] = *p;
}

/* Sends message @msg of @len bytes to the agent of window rank @target. */
static void send_msg(struct hy_win *w, int target, void *msg, size_t len,
		     struct ship_reply *reply, int rlen, MPI_Request *req)
{
	struct ship_hdr lng = { .kind = HY_KIND_LONG, .nelem = len };
	int peer = w->span->world[target], tag = HY_TAG_OP;

	hy_mutex_lock(&order_lock);
	PMPI_Irecv(reply, rlen, MPI_BYTE, peer, HY_TAG_REPLY, hy.ship_comm,
		   &req[0]);
	if (len > HY_INBOX_BYTES) {
		/* longer than the agent's inbox: a header first (inbox_post) */
		PMPI_Send(&lng, sizeof(lng), MPI_BYTE, peer, HY_TAG_OP,
			  hy.ship_comm);
		tag = HY_TAG_LONG;
	}
	PMPI_Isend(msg, (int)len, MPI_BYTE, peer, tag, hy.ship_comm, &req[1]);
	hy_mutex_unlock(&order_lock);
}

/*
 * Ships the accumulates batched for window rank @target (-1: for every
 * rank); sp->lock held.  Host class: out of memory for the reply (the
 * batch is then dropped: its operations fail); failures collected to make
 * room go to @f.
 */
static int batch_send(struct hy_win *w, int target, struct ship_failure *f)
{
	struct hy_span *sp = w->span;
	int ret = MPI_SUCCESS;

	if (target < 0) {
		for (int t = 0; sp->batch && t < sp->size; t++) {
			int r = batch_send(w, t, f);

			ret = ret ? ret : r;
		}
		return ret;
	}
	if (sp->batch && sp->batch[target].nops) {
		struct hy_batch *b = &sp->batch[target];
		struct hy_pending p = { .msg = (struct ship_hdr *)b->buf,
					.target = target };
		size_t len = b->len;

		*b = (struct hy_batch){ 0 };
		p.reply = malloc(sizeof(*p.reply));
		if (!p.reply) {
			free(p.msg);
			return hy_fail(MPI_ERR_NO_MEM, "out of memory: "
				       "accumulates to rank %d were dropped",
				       target);
		}
		send_msg(w, target, p.msg, len, p.reply, sizeof(*p.reply),
			 p.req);
		pending_add(w, &p, f);
	}
	return ret;
}

/*
 * The batch for window rank @target with room for @need more bytes (the
 * batch shipped first when they would overflow it), or NULL with *@ret the
 * host class; sp->lock held.
 */
static struct hy_batch *batch_room(struct hy_win *w, int target, size_t need,
				   int *ret, struct ship_failure *f)
{
	struct hy_span *sp = w->span;
	struct hy_batch *b;

	if (!sp->batch) {
		sp->batch = calloc((size_t)sp->size, sizeof(*sp->batch));
		if (!sp->batch) {
			*ret = hy_fail(MPI_ERR_NO_MEM, "out of memory");
			return NULL;
		}
	}
	b = &sp->batch[target];
	if (b->nops && b->len + need > HY_BATCH_BYTES)
		*ret = batch_send(w, target, f);
	if (b->len + need > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *q;

		while (cap < b->len + need)
			cap *= 2;
		q = realloc(b->buf, cap);
		if (!q) {
			*ret = hy_fail(MPI_ERR_NO_MEM, "out of memory");
			return NULL;
		}
		b->buf = q;
		b->cap = cap;
	}
	return b;
}

/* Counts one more operation in @b, and ships it when it is full. */
static int batch_count(struct hy_win *w, int target, struct hy_batch *b,
		       struct ship_failure *f)
{
	if (++b->nops == HY_BATCH_OPS || b->len >= HY_BATCH_BYTES)
		return batch_send(w, target, f);
	return MPI_SUCCESS;
}

/*
 * Adds record @rec of @len bytes to the batch for window rank @target, and
 * ships the batch when it is full; sp->lock held.  Host class.
 */
static int batch_add(struct hy_win *w, int target, const struct ship_hdr *rec,
		     size_t len, struct ship_failure *f)
{
	size_t padded = wire_padded(len);
	int ret = MPI_SUCCESS, r;
	struct hy_batch *b = batch_room(w, target, padded, &ret, f);

	if (!b)
		return ret;
	memcpy(b->buf + b->len, rec, len);
	memset(b->buf + b->len + len, 0, padded - len);
	b->len += padded;
	b->run = 0;
	r = batch_count(w, target, b, f);
	return ret ? ret : r;
}

/*
 * Adds @op, a put or accumulate of @nelem contiguous elements of @size bytes
 * on both sides, to the batch for window rank @target as an entry of a run:
 * of the batch's last record when that is a run of the same kind, type, op
 * and count, else of a new one; sp->lock held.  Host class.
 */
static int batch_add_run(struct hy_win *w, int target,
			 const struct mpirma_op *op, unsigned int size,
			 uint64_t nelem, struct ship_failure *f)
{
	struct hy_batch *b = w->span->batch ? &w->span->batch[target] : NULL;
	size_t e = wire_run_entry_len(nelem, size), need = e;
	int ret = MPI_SUCCESS, r;
	struct ship_hdr *h = NULL;
	char *d;

	if (b && b->run) {
		h = (struct ship_hdr *)(b->buf + b->run - 1);
		if (h->kind != op->kind || h->type != op->type ||
		    h->op != op->op || h->count != nelem ||
		    h->nelem == HY_BATCH_OPS || b->len + e > HY_BATCH_BYTES)
			h = NULL;
	}
	if (!h)
		need += sizeof(*h);
	b = batch_room(w, target, need, &ret, f);
	if (!b)
		return ret;
	if (h) {
		h = (struct ship_hdr *)(b->buf + b->run - 1);
	} else {
		h = (struct ship_hdr *)(b->buf + b->len);
		*h = (struct ship_hdr){
			.slot = (uint32_t)w->span->slot[target],
			.kind = op->kind, .type = op->type, .op = op->op,
			.flags = HY_REC_RUN, .count = nelem,
			/* the displacement unit, if known: see run_ops() */
			.extent = w->span->extent ?
				  (int64_t)w->span->extent[2 * target + 1] : 0,
		};
		b->run = b->len + 1;
		b->len += sizeof(*h);
	}
	d = b->buf + b->len;
	memcpy(d, &op->target_disp, sizeof(uint64_t));
	memcpy(d + sizeof(uint64_t), (const void *)(uintptr_t)op->origin.addr,
	       nelem * size);
	memset(d + sizeof(uint64_t) + nelem * size, 0,
	       e - sizeof(uint64_t) - nelem * size);
	b->len += e;
	h->nelem++;
	r = batch_count(w, target, b, f);
	return ret ? ret : r;
}

int hy_ship_complete(struct hy_win *w, int rank, const char *fn)
{
	struct hy_span *sp = w->span;
	struct ship_failure f = { 0 };
	int ret, r;

	hy_mutex_lock(&sp->lock);
	ret = batch_send(w, rank, &f);
	for (int k = 0; k < sp->npend;) {
		if (rank >= 0 && sp->pend[k].target != rank)
			k++;
		else
			pending_settle(w, k, &f);
	}
	hy_mutex_unlock(&sp->lock);
	if (!f.status)
		return ret;
	hy_lock();
	r = failure_class(w, &f, fn);
	hy_unlock();
	return ret ? ret : r;
}

void hy_origin_close(struct hy_win *w)
{
	struct hy_span *sp = w->span;

	/* hy_ship_complete leaves no batch; this frees what an error left. */
	hy_mutex_lock(&sp->lock);
	for (int t = 0; sp->batch && t < sp->size; t++)
		free(sp->batch[t].buf);
	free(sp->batch);
	sp->batch = NULL;
	hy_mutex_unlock(&sp->lock);
}

/* A lock message of @kind (@type) to the agent of window rank @rank. */
static int lock_msg(struct hy_win *w, int rank, uint16_t kind, int type)
{
	struct hy_span *sp = w->span;
	struct ship_hdr h = { .slot = (uint32_t)sp->slot[rank], .kind = kind,
			      .op = (uint16_t)type };

	return PMPI_Send(&h, sizeof(h), MPI_BYTE, sp->world[rank], HY_TAG_OP,
			 hy.ship_comm);
}

int hy_ship_lock(struct hy_win *w, int rank, bool exclusive)
{
	struct hy_span *sp = w->span;
	int first = rank < 0 ? 0 : rank, last = rank < 0 ? sp->size : rank + 1;
	int type = exclusive ? HY_LOCK_EXCL : HY_LOCK_SHARED;
	int ret = MPI_SUCCESS, r;
	bool self = false;

	/*
	 * Every request first, then the grants: the targets work at once.
	 * This process's own part without a message (agent_slots.c).
	 */
	for (int t = first; t < last; t++) {
		if (t == sp->me) {
			self = hy_slot_lock_self(sp->myslot, type,
						 sp->world[t]);
			continue;
		}
		r = lock_msg(w, t, HY_KIND_LOCK, type);
		ret = ret ? ret : r;
	}
	for (int t = first; t < last && !ret; t++) {
		MPI_Request req;

		if (t == sp->me && self)
			continue;

		ret = PMPI_Irecv(NULL, 0, MPI_BYTE, sp->world[t],
				 HY_TAG_GRANT + sp->slot[t], hy.ship_comm, &req);
		if (ret == MPI_SUCCESS)
			ret = hy_wait(1, &req);
	}
	return ret;
}

int hy_ship_unlock(struct hy_win *w, int rank)
{
	int first = rank < 0 ? 0 : rank;
	int last = rank < 0 ? w->span->size : rank + 1;
	int ret = MPI_SUCCESS, r;

	for (int t = first; t < last; t++) {
		if (t == w->span->me) {
			hy_slot_unlock_self(w->span->myslot);
			continue;
		}
		r = lock_msg(w, t, HY_KIND_UNLOCK, 0);
		ret = ret ? ret : r;
	}
	return ret;
}

/*
 * @a built and checked by the engine as for this process's own engine
 * rank, and its range against the target's memory when known: *@op, and
 * *@scratch to free once @op's data is packed.  Host class.
 */
static int ship_prepare(struct hy_win *w, const struct mpirma_rma_args *a,
			struct mpirma_op *op, bool *skip, void **scratch,
			const char *fn)
{
	struct hy_span *sp = w->span;
	struct mpirma_rma_args mine = *a;
	int ret;

	mine.trank = sp->erank[sp->me];
	ret = hy_inner(mpirma_rma_prepare(w->inner, &mine, op, skip, scratch,
					  fn));
	if (!ret && !*skip && sp->extent) {
		const uint64_t *e = &sp->extent[2 * a->trank];

		ret = hy_inner(mpirma_rma_range(w->inner, op, e[0],
						(uint32_t)e[1], a->trank, fn));
	}
	return ret;
}

/* A message of one operation, with room for its reply. */
struct ship_msg {
	struct ship_hdr *h;
	size_t len;
	struct ship_reply *reply;	/* operations with a result only */
	int rlen;
	struct mpirma_block *rblocks;	/* the result's blocks, copied */
};

static void ship_msg_free(struct ship_msg *m)
{
	free(m->h);
	free(m->reply);
	free(m->rblocks);
}

/*
 * Packs @op (@nelem elements of @size bytes) for window rank @target into
 * @m, and copies the result's blocks, which the scratch of the operation
 * owns.  Host class.
 */
static int ship_pack(struct hy_win *w, int target, struct mpirma_op *op,
		     unsigned int size, uint64_t nelem, struct ship_msg *m)
{
	uint64_t rbytes = wire_has_result(op->kind) ? nelem * size : 0;
	char *d;

	*m = (struct ship_msg){ .rlen = (int)(sizeof(*m->reply) + rbytes) };
	m->len = wire_msg_len(&(struct ship_hdr){ .kind = op->kind,
						  .op = op->op,
						  .nblocks = op->target.nblocks,
						  .nelem = nelem }, size);
	if (m->len && rbytes <= INT_MAX - sizeof(*m->reply))
		m->h = malloc(m->len);
	if (rbytes && op->result.nblocks) {
		m->rblocks = malloc(op->result.nblocks * sizeof(*m->rblocks));
		if (m->rblocks)
			memcpy(m->rblocks,
			       (void *)(uintptr_t)op->result.blocks,
			       op->result.nblocks * sizeof(*m->rblocks));
	}
	/* A put or accumulate is batched: its batch's message gets the reply. */
	if (wire_has_result(op->kind))
		m->reply = malloc((size_t)m->rlen);
	if (!m->h || (wire_has_result(op->kind) && !m->reply) ||
	    (op->result.nblocks && rbytes && !m->rblocks)) {
		ship_msg_free(m);
		return hy_fail(MPI_ERR_NO_MEM, "out of memory (or an operation "
			       "too large to ship)");
	}
	*m->h = (struct ship_hdr){
		.slot = (uint32_t)w->span->slot[target], .kind = op->kind,
		.type = op->type, .op = op->op, .nblocks = op->target.nblocks,
		.disp = op->target_disp, .count = op->target.count,
		.extent = op->target.extent, .nelem = nelem,
	};
	d = (char *)(m->h + 1);
	if (op->target.nblocks) {
		memcpy(d, (void *)(uintptr_t)op->target.blocks,
		       op->target.nblocks * sizeof(struct mpirma_block));
		d += op->target.nblocks * sizeof(struct mpirma_block);
	}
	if (wire_has_origin(op->kind, op->op)) {
		wire_layout_copy(&op->origin, size, d, true);
		d += nelem * size;
	}
	if (op->kind == MPIRMA_KIND_CAS)
		memcpy(d, (void *)(uintptr_t)op->compare, size);
	if (m->rblocks)
		op->result.blocks = (uint64_t)(uintptr_t)m->rblocks;
	return MPI_SUCCESS;
}

/*
 * Sends the operation with a result @op, packed in @m, to window rank
 * @target, after what is batched for it (accumulate_ordering), and waits
 * for its reply; called and returns without hy.lock.  Host class of the
 * batch; the operation's own failure goes to @f.
 */
static int ship_with_result(struct hy_win *w, int target,
			    struct mpirma_op *op, unsigned int size,
			    struct ship_msg *m, struct ship_failure *f)
{
	struct hy_span *sp = w->span;
	MPI_Request req[2];
	int ret;

	hy_mutex_lock(&sp->lock);
	ret = batch_send(w, target, f);
	hy_mutex_unlock(&sp->lock);
	send_msg(w, target, m->h, m->len, m->reply, m->rlen, req);
	wait_sent_and_reply(req);
	if (!m->reply->status)
		wire_layout_copy(&op->result, size, (char *)(m->reply + 1),
				 false);
	else if (!f->status)
		*f = (struct ship_failure){ .status = m->reply->status,
					    .kind = op->kind,
					    .target = target,
					    .disp = op->target_disp };
	return ret;
}

int hy_ship(struct hy_win *w, const struct mpirma_rma_args *a,
	    const char *fn)
{
	struct hy_span *sp = w->span;
	struct ship_failure f = { 0 };
	struct ship_msg m = { 0 };
	struct mpirma_op op;
	unsigned int size;
	uint64_t nelem;
	void *scratch;
	bool skip;
	int ret, r;

	ret = ship_prepare(w, a, &op, &skip, &scratch, fn);
	if (ret || skip) {
		free(scratch);
		return ret;
	}
	size = mpirma_rma_elem_size(op.type);
	nelem = wire_layout_elems(&op.target, size);
	/* Contiguous on both sides and small: an entry of a run. */
	if (wire_has_result(op.kind) || op.target.nblocks ||
	    op.origin.nblocks || nelem > HY_RUN_BYTES / size)
		ret = ship_pack(w, a->trank, &op, size, nelem, &m);
	free(scratch);
	if (ret)
		return ret;
	/* The host's part, without the engine's lock. */
	hy_unlock();
	if (wire_has_result(op.kind)) {
		ret = ship_with_result(w, a->trank, &op, size, &m, &f);
	} else {
		hy_mutex_lock(&sp->lock);
		ret = m.h ? batch_add(w, a->trank, m.h, m.len, &f) :
		      batch_add_run(w, a->trank, &op, size, nelem, &f);
		hy_mutex_unlock(&sp->lock);
	}
	hy_lock();
	ship_msg_free(&m);
	r = failure_class(w, &f, fn);
	return ret ? ret : r;
}
