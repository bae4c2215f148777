// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * batch.c - the origin's batches and their replies.  Puts and plain
 * accumulates to one target are batched (struct hy_batch): a message
 * carries up to HY_BATCH_OPS of them, and small contiguous ones join a run
 * of the batch's last record.  A batch leaves when it is full, before an
 * operation with a result to the same target (so accumulate_ordering holds
 * across both), and in the call that completes it (hy_ship_complete:
 * flush, unlock, fence, complete, free), which then collects its
 * acknowledgement (struct hy_pending).  A reply's receive is posted with
 * its operation's send (net.h), so replies, which come back in sending
 * order, match them.
 *
 * In a lazy epoch (origin.h) the batch holds the epoch's operations with a
 * result too, and leaves as an epoch message (wire.h) with the lock, and
 * the unlock when the epoch ends; its reply brings the results, which
 * hy_ship_complete puts in place, on the slot's grant tag: the agent may
 * answer it out of turn, after the lock waited.
 *
 * A failure is reported by the call that found it, in that call's name,
 * with the operation's kind, target and displacement (struct
 * ship_failure, converted once the window's lock is released: see
 * locks.h).  Called by origin.c and span.c.
 */
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "errors.h"
#include "locks.h"
#include "net.h"
#include "origin.h"
#include "rma_args.h"
#include "waits.h"

#define HY_PENDING_MAX	1024	/* acknowledgements kept before waiting */

/*
 * Accumulates not yet shipped to one target, each a record (header, blocks,
 * data) padded to 8 bytes, in issue order, and in a lazy epoch operations
 * with a result too (@res, @nres of @capres; @rbytes of results); under
 * hy_span.lock.
 */
struct hy_batch {
	char *buf;
	size_t len;
	size_t cap;
	uint32_t nops;		/* operations (a run's entries each count) */
	size_t run;		/* offset + 1 of the last record if a run, or 0 */
	struct hy_result *res;
	uint32_t nres;
	uint32_t capres;
	size_t rbytes;
};

/**
 * struct hy_pending - a shipped batch waiting for its acknowledgement
 * @rx: the reply's receive (allocated: it stays posted while @p moves)
 * @buf: the message as sent
 * @msg: its records (they name a failure's displacement)
 * @reply: the acknowledgement, and the results of @res (@nres)
 * @target: window rank of the target
 */
struct hy_pending {
	struct hy_nrecv *rx;
	void *buf;
	struct ship_hdr *msg;
	struct ship_reply *reply;
	struct hy_result *res;
	uint32_t nres;
	int target;
};

void hy_wait_reply(struct hy_nrecv *rx, struct ship_reply *reply)
{
	int e = hy_wait_net(rx);

	if (e) {	/* the target's process is gone, or a reply too long */
		reply->status = e;
		reply->index = 0;
	}
}

/* Notes @p's failure in @f, unless @f holds an earlier one. */
static void failure_note(struct ship_failure *f, const struct hy_pending *p)
{
	const struct ship_hdr *h;

	if (f->status || !p->reply->status)
		return;
	f->status = p->reply->status;
	f->target = p->target;
	if (!p->msg)	/* an epoch of no operation: its lock failed */
		return;
	h = wire_record_at(p->msg, p->reply->index, &f->disp);
	f->kind = h->kind;
}

/*
 * @f as the host's class, raised in @fn's name on the engine window (which
 * returns it: the layer raises it on the program's handle); hy.lock held.
 */
int hy_failure_class(struct hy_win *w, const struct ship_failure *f,
			 const char *fn)
{
	struct mpirma_op op = { .kind = (uint16_t)f->kind,
				.target_rank = (uint32_t)f->target,
				.target_disp = f->disp, .status = f->status };

	if (!f->status)
		return MPI_SUCCESS;
	return hy_inner(mpirma_rma_failed(w->inner, &op, fn));
}

/*
 * Waits for @p's reply, puts its results in place (but the failed
 * operation's), notes its failure in @f, and frees it.
 */
static void pending_finish(struct hy_pending *p, struct ship_failure *f)
{
	hy_wait_reply(p->rx, p->reply);
	for (uint32_t k = 0; k < p->nres; k++) {
		struct hy_result *r = &p->res[k];

		if (!p->reply->status || p->reply->index != r->index)
			wire_layout_copy(&r->l, r->size,
					 (char *)(p->reply + 1) + r->off, false);
		free((void *)(uintptr_t)r->l.blocks);
	}
	failure_note(f, p);
	free(p->buf);
	free(p->reply);
	free(p->rx);
	free(p->res);
}

/* Waits for pending entry @k of @sp and drops it; sp->lock held. */
static void pending_settle(struct hy_win *w, int k, struct ship_failure *f)
{
	struct hy_span *sp = w->span;

	hy_mutex_assert_held(&sp->lock);
	pending_finish(&sp->pend[k], f);
	sp->pend[k] = sp->pend[--sp->npend];
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
			pending_finish((struct hy_pending *)p, f);
			return;
		}
		sp->pend = q;
		sp->cap = cap;
	}
	sp->pend[sp->npend++] = *p;
}

void hy_send_msg(struct hy_win *w, int target, void *msg, size_t len,
		 struct ship_reply *reply, int rlen, uint32_t rtag,
		 struct hy_nrecv *rx)
{
	hy_net_send(w->span->world[target], HY_TAG_OP, msg, len, NULL, 0, rx,
		    reply, (size_t)rlen, rtag);
}

/* Frees what batch @p holds, unsent (out of memory). */
static void batch_drop(struct hy_pending *p)
{
	for (uint32_t k = 0; k < p->nres; k++)
		free((void *)(uintptr_t)p->res[k].l.blocks);
	free(p->res);
	free(p->buf);
	free(p->reply);
	free(p->rx);
}

/* @p's reply of @rlen bytes and its receive; false: out of memory. */
static bool pending_reply(struct hy_pending *p, int rlen)
{
	p->reply = malloc((size_t)rlen);
	p->rx = malloc(sizeof(*p->rx));
	return p->reply && p->rx;
}

/*
 * Ships batch @p (@len bytes, reply of @rlen) of window rank @target's
 * lazy epoch as an epoch message: the lock, the batch, and the unlock
 * when the epoch is ending.  One that goes on (flush, a full batch) has
 * its lock granted when its reply comes, which it waits for: the agent
 * must hold the lock before this origin's next message comes.  sp->lock
 * held.  Host class.
 */
static int epoch_send(struct hy_win *w, int target, struct hy_pending *p,
		      size_t len, int rlen, struct ship_failure *f)
{
	struct hy_span *sp = w->span;
	unsigned char lazy = sp->lazy[target];
	struct ship_hdr *h = malloc(sizeof(*h) + len);

	if (!h) {
		sp->lazy[target] = 0;
		batch_drop(p);
		return hy_fail(MPI_ERR_NO_MEM, "out of memory: operations to "
			       "rank %d were dropped", target);
	}
	*h = (struct ship_hdr){ .slot = (uint32_t)sp->slot[target],
				.kind = HY_KIND_EPOCH,
				.op = lazy & HY_LAZY_TYPE,
				.flags = lazy & HY_LAZY_RELEASE ?
					 HY_EPOCH_RELEASE : 0,
				.nelem = len };
	if (len)
		memcpy(h + 1, p->buf, len);
	free(p->buf);
	p->buf = h;
	p->msg = len ? h + 1 : NULL;
	sp->lazy[target] = 0;
	hy_send_msg(w, target, h, sizeof(*h) + len, p->reply, rlen,
		    HY_TAG_GRANT + (uint32_t)sp->slot[target], p->rx);
	/*
	 * Its results and failures are the completing call's, as a batch's
	 * are: kept as a pending entry (already complete) for it.
	 */
	if (!(lazy & HY_LAZY_RELEASE))
		hy_wait_reply(p->rx, p->reply);
	pending_add(w, p, f);
	return MPI_SUCCESS;
}

/*
 * Ships the accumulates batched for window rank @target (-1: for every
 * rank); sp->lock held.  Host class: out of memory for the reply (the
 * batch is then dropped: its operations fail); failures collected to make
 * room go to @f.
 */
int hy_batch_send(struct hy_win *w, int target, struct ship_failure *f)
{
	struct hy_span *sp = w->span;
	int ret = MPI_SUCCESS;

	if (target < 0) {
		for (int t = 0; sp->batch && t < sp->size; t++) {
			int r = hy_batch_send(w, t, f);

			ret = ret ? ret : r;
		}
		return ret;
	}
	if (sp->batch && sp->batch[target].nops) {
		struct hy_batch *b = &sp->batch[target];
		struct hy_pending p = { .buf = b->buf, .res = b->res,
					.nres = b->nres, .target = target };
		int rlen = (int)(sizeof(*p.reply) + b->rbytes);
		size_t len = b->len;

		*b = (struct hy_batch){ 0 };
		p.msg = p.buf;
		if (pending_reply(&p, rlen) && sp->lazy[target])
			return epoch_send(w, target, &p, len, rlen, f);
		if (!p.reply || !p.rx) {
			sp->lazy[target] = 0;
			batch_drop(&p);
			return hy_fail(MPI_ERR_NO_MEM, "out of memory: "
				       "operations to rank %d were dropped",
				       target);
		}
		hy_send_msg(w, target, p.msg, len, p.reply, rlen, HY_TAG_REPLY,
			    p.rx);
		pending_add(w, &p, f);
	} else if (sp->lazy[target] & HY_LAZY_RELEASE) {
		sp->lazy[target] = 0;	/* an epoch of nothing: no message */
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
		*ret = hy_batch_send(w, target, f);
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
		return hy_batch_send(w, target, f);
	return MPI_SUCCESS;
}

/*
 * Notes where the result @res of the operation about to join batch @b
 * goes (@res->l.blocks now @b's, and @res->size 0 to say so); false: out
 * of memory.
 */
static bool batch_result(struct hy_batch *b, struct hy_result *res,
			 size_t rbytes)
{
	if (b->nres == b->capres) {
		uint32_t cap = b->capres ? 2 * b->capres : 8;
		struct hy_result *q = realloc(b->res, sizeof(*q) * cap);

		if (!q)
			return false;
		b->res = q;
		b->capres = cap;
	}
	res->index = b->nops;
	res->off = b->rbytes;
	b->res[b->nres++] = *res;
	b->rbytes += rbytes;
	res->size = 0;	/* tells the caller the batch took it */
	return true;
}

/*
 * Adds record @rec of @len bytes to the batch for window rank @target, and
 * ships the batch when it is full; sp->lock held.  With @res, an
 * operation with @rbytes of result (a lazy epoch's).  Host class.
 */
int hy_batch_add(struct hy_win *w, int target, const struct ship_hdr *rec,
		     size_t len, struct hy_result *res, size_t rbytes,
		     struct ship_failure *f)
{
	size_t padded = wire_padded(len);
	int ret = MPI_SUCCESS, r;
	struct hy_batch *b = batch_room(w, target, padded, &ret, f);

	if (!b)
		return ret;
	if (res && !batch_result(b, res, rbytes))
		return hy_fail(MPI_ERR_NO_MEM, "out of memory");
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
int hy_batch_add_run(struct hy_win *w, int target,
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

bool hy_batch_takes(struct hy_win *w, int target, size_t len, size_t rbytes)
{
	struct hy_batch *b = w->span->batch ? &w->span->batch[target] : NULL;

	return !b || !b->nops || (b->rbytes + rbytes <= HY_BATCH_BYTES &&
				  b->len + wire_padded(len) <= HY_BATCH_BYTES);
}

int hy_ship_complete(struct hy_win *w, int rank, const char *fn)
{
	struct hy_span *sp = w->span;
	struct ship_failure f = { 0 };
	int ret, r;

	hy_mutex_lock(&sp->lock);
	ret = hy_batch_send(w, rank, &f);
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
	r = hy_failure_class(w, &f, fn);
	hy_unlock();
	return ret ? ret : r;
}

void hy_origin_close(struct hy_win *w)
{
	struct hy_span *sp = w->span;

	/* hy_ship_complete leaves no batch; this frees what an error left. */
	hy_mutex_lock(&sp->lock);
	for (int t = 0; sp->batch && t < sp->size; t++) {
		struct hy_batch *b = &sp->batch[t];

		for (uint32_t k = 0; k < b->nres; k++)
			free((void *)(uintptr_t)b->res[k].l.blocks);
		free(b->res);
		free(b->buf);
	}
	free(sp->batch);
	sp->batch = NULL;
	hy_mutex_unlock(&sp->lock);
}

/*
 * Takes the lazy lock of window rank @target now, with what is batched
 * for it, for an operation that cannot wait for the epoch's end; sp->lock
 * held.  Host class.
 */
int hy_epoch_real(struct hy_win *w, int target, struct ship_failure *f)
{
	struct hy_span *sp = w->span;
	struct hy_pending p = { .target = target };

	if (!sp->lazy[target])
		return MPI_SUCCESS;
	if (sp->batch && sp->batch[target].nops)
		return hy_batch_send(w, target, f);
	if (!pending_reply(&p, sizeof(*p.reply))) {
		batch_drop(&p);
		sp->lazy[target] = 0;
		return hy_fail(MPI_ERR_NO_MEM, "out of memory");
	}
	return epoch_send(w, target, &p, 0, sizeof(*p.reply), f);
}
