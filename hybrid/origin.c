// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * origin.c - operations for targets on other nodes, at the origin: each is
 * built with the engine's own code (mpirma_rma_prepare: the MPI call's
 * checks and datatype layouts), packed (wire.h) and sent to the target's
 * agent (net.h), which applies it through the module there, so
 * every target has one atomicity domain.  Puts and accumulates join the
 * target's batch (batch.c); an operation with a result waits for its reply
 * before it returns, but in a lazy epoch, where it joins the batch too.
 *
 * Lock requests and grants to other nodes travel the same way
 * (agent_slots.c keeps the locks), or wait to travel with the epoch's
 * operations (a lazy epoch); a node-local target's lock, this process's
 * own among them, is a word this process takes itself (lockword.c).
 * Called by rma.c, sync.c and span.c; calls batch.c, waits.c,
 * agent_slots.c and the engine.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "batch.h"
#include "errors.h"
#include "locks.h"
#include "lockword.h"
#include "net.h"
#include "origin.h"
#include "rma_args.h"
#include "waits.h"
#include "wire.h"

/* Transport error @e (-errno) with window rank @rank as the host's class. */
static int net_class(int e, int rank)
{
	if (!e)
		return MPI_SUCCESS;
	return hy_fail(MPI_ERR_OTHER, "the agent of window rank %d cannot be "
		       "reached (%s): its process is gone", rank, strerror(-e));
}

/* A lock message of @kind (@type) to the agent of window rank @rank. */
static int lock_msg(struct hy_win *w, int rank, uint16_t kind, int type)
{
	struct hy_span *sp = w->span;
	struct ship_hdr h = { .slot = (uint32_t)sp->slot[rank], .kind = kind,
			      .op = (uint16_t)type };

	return net_class(hy_net_send(sp->world[rank], HY_TAG_OP, &h, sizeof(h),
				     NULL, 0, NULL, NULL, 0, 0), rank);
}

int hy_ship_lock(struct hy_win *w, int rank, bool exclusive)
{
	struct hy_span *sp = w->span;
	int first = rank < 0 ? 0 : rank, last = rank < 0 ? sp->size : rank + 1;
	int type = exclusive ? HY_LOCK_EXCL : HY_LOCK_SHARED;
	int ret = MPI_SUCCESS, r;
	bool took;

	/*
	 * The requests to other nodes first, so that their agents work while
	 * this process takes the node-local words (agent_slots.c), then their
	 * grants.
	 */
	for (int t = first; t < last; t++) {
		if (sp->word[t])
			continue;
		r = lock_msg(w, t, HY_KIND_LOCK, type);
		ret = ret ? ret : r;
	}
	took = !ret;
	for (int t = first; t < last && took; t++)
		if (sp->word[t])
			hy_wait_word(sp->word[t], type);
	for (int t = first; t < last && !ret; t++) {
		struct hy_nrecv rx;

		if (sp->word[t])
			continue;
		hy_net_post(&rx, sp->world[t],
			    HY_TAG_GRANT + (uint32_t)sp->slot[t], NULL, 0);
		ret = net_class(hy_wait_net(&rx), t);
	}
	/* a target's process gone: the node's words go back, or they block */
	for (int t = first; t < last && ret && took; t++)
		if (sp->word[t])
			hy_ship_unlock(w, t);
	return ret;
}

int hy_ship_unlock(struct hy_win *w, int rank)
{
	struct hy_span *sp = w->span;
	int first = rank < 0 ? 0 : rank, last = rank < 0 ? sp->size : rank + 1;
	int ret = MPI_SUCCESS, r = MPI_SUCCESS;

	for (int t = first; t < last; t++) {
		if (!sp->word[t]) {
			r = lock_msg(w, t, HY_KIND_UNLOCK, 0);
		} else if (!(hy_lw_release(sp->word[t]) & HY_LW_AGENT)) {
			continue;
		} else if (t != sp->me) {
			/* its agent has requests of other nodes waiting */
			r = lock_msg(w, t, HY_KIND_RETRY, 0);
		} else {
			/* an epoch granted now is applied at once */
			hy_slot_retry(sp->myslot);
			hy_agent_serve_ready();
		}
		ret = ret ? ret : r;
	}
	return ret;
}

void hy_ship_lock_lazy(struct hy_win *w, int rank, bool exclusive)
{
	hy_mutex_lock(&w->span->lock);
	w->span->lazy[rank] = exclusive ? HY_LOCK_EXCL : HY_LOCK_SHARED;
	hy_mutex_unlock(&w->span->lock);
}

bool hy_ship_unlock_lazy(struct hy_win *w, int rank)
{
	struct hy_span *sp = w->span;
	bool lazy;

	hy_mutex_lock(&sp->lock);
	lazy = sp->lazy[rank];
	if (lazy)
		sp->lazy[rank] |= HY_LAZY_RELEASE;
	hy_mutex_unlock(&sp->lock);
	return lazy;
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
	struct hy_nrecv rx;
	int ret;

	hy_mutex_lock(&sp->lock);
	ret = sp->lazy[target] ? hy_epoch_real(w, target, f) :
	      hy_batch_send(w, target, f);
	hy_mutex_unlock(&sp->lock);
	hy_send_msg(w, target, m->h, m->len, m->reply, m->rlen, HY_TAG_REPLY,
		    &rx);
	hy_wait_reply(&rx, m->reply);
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

/*
 * Batches operation with a result @op (packed in @m, @rbytes of result)
 * in the lazy epoch to window rank @target, when it may wait for the
 * epoch's end: @defer (not a request-based call, whose request is complete
 * at once), the window's ranges checked here (not dynamic: a failure at
 * the target is rare, and reported by unlock or flush), and one batch
 * holds it.  True when batched (*@ret its host class); sp->lock held.
 */
static bool ship_deferred(struct hy_win *w, int target, struct mpirma_op *op,
			  unsigned int size, struct ship_msg *m, bool defer,
			  int *ret, struct ship_failure *f)
{
	struct hy_span *sp = w->span;
	size_t rbytes = (size_t)m->rlen - sizeof(*m->reply);
	struct hy_result res = { .l = op->result, .size = size };

	if (!sp->lazy[target] || !defer || !sp->extent || !rbytes ||
	    rbytes > HY_BATCH_BYTES ||
	    (op->result.nblocks && !m->rblocks))
		return false;
	/* full: the batch goes first, which takes the lock for good */
	if (!hy_batch_takes(w, target, m->len, rbytes)) {
		*ret = hy_batch_send(w, target, f);
		return *ret != MPI_SUCCESS;
	}
	*ret = hy_batch_add(w, target, m->h, m->len, &res, rbytes, f);
	if (!res.size)
		m->rblocks = NULL;	/* the batch's result owns them */
	return true;
}

int hy_ship(struct hy_win *w, const struct mpirma_rma_args *a, bool defer,
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
	hy_mutex_lock(&sp->lock);
	if (wire_has_result(op.kind)) {
		bool done = ship_deferred(w, a->trank, &op, size, &m, defer,
					  &ret, &f);

		hy_mutex_unlock(&sp->lock);
		if (!done)
			ret = ship_with_result(w, a->trank, &op, size, &m, &f);
	} else {
		ret = m.h ? hy_batch_add(w, a->trank, m.h, m.len, NULL, 0, &f) :
		      hy_batch_add_run(w, a->trank, &op, size, nelem, &f);
		hy_mutex_unlock(&sp->lock);
	}
	hy_lock();
	ship_msg_free(&m);
	r = hy_failure_class(w, &f, fn);
	return ret ? ret : r;
}
