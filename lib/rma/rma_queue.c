// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rma_queue.c - the window's operation queue and the one place operations
 * enter the kernel (MPIRMA_IOC_RMA).
 *
 * A system call costs more than the kernel's work for one small operation,
 * so small operations wait in the window's queue and reach the kernel
 * together, one batch per synchronization call (flush, unlock, fence,
 * complete, win_sync...), which all run mpirma_win_drain() first.  The
 * kernel applies a batch in array order, which is call order, so
 * accumulate_ordering holds.
 *
 * What is queued: operations whose every side is contiguous and whose
 * origin (and compare) data are at most MPIRMA_QUEUE_INLINE bytes.  Their
 * origin data is copied into the queue, so a program that reuses an origin
 * buffer before completing the operation (erroneous, but common, and
 * harmless with the peers) still sends what it had at the call.  Result
 * buffers (get, get_accumulate, fetch_and_op, compare_and_swap) are filled
 * at the drain: the standard defines them only once the operation is
 * complete.  Noncontiguous operations refer to block lists that a datatype
 * owns, and large ones gain nothing from waiting: they go at once.
 *
 * MPIRMA_BATCH=N (environment, 0..MPIRMA_QUEUE_OPS) sets the queue length;
 * 0 turns queueing off (every operation is a system call of its own).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "reduce.h"
#include "rma_args.h"
#include "win.h"

#define MPIRMA_QUEUE_OPS	1024	/* longest batch */
#define MPIRMA_QUEUE_DATA	65536	/* bytes of copied origin data */
#define MPIRMA_QUEUE_INLINE	512	/* largest origin data queued */

#define SPLIT_PARTS	8	/* regions one operation may run across */

static int rma_ioctl(uint32_t win_id, struct mpirma_op *ops, uint32_t nops,
		     uint32_t *nfailed)
{
	struct mpirma_rma r;
	int ret;

	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.win_id = win_id;
	r.nops = nops;
	r.ops = (uint64_t)(uintptr_t)ops;
	r.op_size = sizeof(*ops);
	ret = mpirma_ioctl(MPIRMA_IOC_RMA, &r);
	*nfailed = r.nfailed;
	return ret;
}

/*
 * An operation the kernel found out of range on a dynamic window may run
 * from one attached region on into others attached right after it: valid
 * MPI, but the kernel sees separate regions.  One contiguous on every
 * side (the queue's, the layer's shipped ones) is applied again as one
 * operation per region, from where the kernel says each region ends;
 * after the batch's later operations, which only matters where they
 * overlap it.  Its new status (still -ERANGE when it is not that case).
 */
static int region_split(uint32_t win_id, const struct mpirma_op *op)
{
	uint64_t esize = mpirma_type_info[op->type].size;
	uint64_t addr = op->target_disp, left = op->target.count * esize;
	struct mpirma_op part[SPLIT_PARTS];
	struct mpirma_win_region q;
	uint32_t n = 0, nfailed, i;
	uint64_t len;

	if (op->kind == MPIRMA_KIND_CAS || op->target.nblocks ||
	    op->origin.nblocks || op->result.nblocks || !esize)
		return op->status;
	while (left) {
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.win_id = win_id;
		q.rank = op->target_rank;
		q.addr = addr;
		if (n == SPLIT_PARTS || mpirma_ioctl(MPIRMA_IOC_WIN_REGION, &q) ||
		    addr - q.base >= q.length)
			return op->status;
		len = q.base + q.length - addr;
		len = len < left ? len - len % esize : left;
		if (!len)
			return op->status;	/* a boundary inside an element */
		part[n] = *op;
		part[n].status = 0;
		part[n].target_disp = addr;
		part[n].target.count = len / esize;
		if (op->origin.addr) {
			part[n].origin.addr += op->target.count * esize - left;
			part[n].origin.count = len / esize;
		}
		if (op->result.addr) {
			part[n].result.addr += op->target.count * esize - left;
			part[n].result.count = len / esize;
		}
		n++;
		addr += len;
		left -= len;
	}
	if (n < 2 || rma_ioctl(win_id, part, n, &nfailed))
		return op->status;
	for (i = 0; i < n; i++)
		if (part[i].status)
			return part[i].status;
	return 0;
}

int mpirma_rma_apply(uint32_t win_id, struct mpirma_op *ops, uint32_t nops,
		     uint32_t *nfailed)
{
	int ret = rma_ioctl(win_id, ops, nops, nfailed);

	for (uint32_t i = 0; !ret && *nfailed && i < nops; i++)
		if (ops[i].status == -ERANGE) {
			ops[i].status = region_split(win_id, &ops[i]);
			if (!ops[i].status)
				--*nfailed;
		}
	return ret;
}

/* The class of a failed operation, its cause recorded (mpirma_err). */
static int op_failed(const struct mpirma_op *op)
{
	if (op->status == -ERANGE)
		return mpirma_err(MPI_ERR_RMA_RANGE, "the %s's target range "
				  "(displacement %llu) does not lie inside the "
				  "window memory of rank %u",
				  mpirma_kind_name(op->kind),
				  (unsigned long long)op->target_disp,
				  op->target_rank);
	return mpirma_err_errno(op->status, "%s to rank %u",
				mpirma_kind_name(op->kind), op->target_rank);
}

int mpirma_rma_failed(int win, const struct mpirma_op *op, const char *fn)
{
	return mpirma_raise_win(win, op_failed(op), fn, NULL);
}

int mpirma_win_issue(struct mpirma_window *w, struct mpirma_op *ops,
		     uint32_t nops)
{
	uint32_t i, nfailed;
	int ret;

	if (!nops)
		return MPI_SUCCESS;
	ret = mpirma_rma_apply(w->id, ops, nops, &nfailed);
	if (ret)
		return mpirma_err_errno(ret, "MPIRMA_IOC_RMA");
	if (!nfailed)
		return MPI_SUCCESS;
	for (i = 0; i < nops; i++)
		if (ops[i].status)
			return op_failed(&ops[i]);
	return MPI_SUCCESS;
}

/* The queue length: MPIRMA_BATCH, else MPIRMA_QUEUE_OPS (win.h). */
uint32_t mpirma_rma_queue_len(void)
{
	static int len = -1;
	const char *v;
	char *end;
	long n;

	if (len >= 0)
		return (uint32_t)len;
	len = MPIRMA_QUEUE_OPS;
	v = getenv("MPIRMA_BATCH");
	if (v && *v) {
		errno = 0;
		n = strtol(v, &end, 10);
		if (errno || *end || n < 0 || n > MPIRMA_QUEUE_OPS)
			fprintf(stderr, "mpirma: MPIRMA_BATCH=%s is not a queue "
				"length 0..%d; using %d\n", v,
				MPIRMA_QUEUE_OPS, MPIRMA_QUEUE_OPS);
		else
			len = (int)n;
	}
	return (uint32_t)len;
}

/* Allocates the queue on first use; false when queueing is off or no memory. */
static bool queue_ready(struct mpirma_rma_queue *q)
{
	if (q->ops)
		return true;
	/*
	 * With MPI_THREAD_MULTIPLE a shared queue would be the one lock every
	 * thread's RMA calls wait on: each goes to the kernel (or the direct
	 * path) at once instead, concurrently.
	 */
	if (mpirma_threads)
		return false;
	q->cap = mpirma_rma_queue_len();
	if (!q->cap)
		return false;
	q->ops = malloc(q->cap * sizeof(*q->ops));
	q->data = malloc(MPIRMA_QUEUE_DATA);
	if (!q->ops || !q->data) {
		free(q->ops);
		free(q->data);
		q->ops = NULL;
		q->data = NULL;
		return false;	/* not an error: the operation goes at once */
	}
	return true;
}

int mpirma_win_enqueue(struct mpirma_window *w, const struct mpirma_op *op,
		       bool *queued)
{
	struct mpirma_rma_queue *q = &w->queue;
	unsigned int size = mpirma_type_info[op->type].size;
	uint64_t obytes = 0, need;
	struct mpirma_op *e;

	*queued = false;
	if (op->origin.nblocks || op->target.nblocks || op->result.nblocks)
		return MPI_SUCCESS;
	if (mpirma_op_has_origin(op)) {
		if (op->origin.count > MPIRMA_QUEUE_INLINE / size)
			return MPI_SUCCESS;
		obytes = op->origin.count * size;
	}
	need = obytes + (op->compare ? size : 0);
	if (!queue_ready(q))
		return MPI_SUCCESS;
	if (q->nops == q->cap || need > MPIRMA_QUEUE_DATA - q->used)
		mpirma_win_drain_early(w);
	e = &q->ops[q->nops++];
	*e = *op;
	if (obytes) {
		memcpy(q->data + q->used, (const void *)(uintptr_t)op->origin.addr,
		       obytes);
		e->origin.addr = (uint64_t)(uintptr_t)(q->data + q->used);
		q->used += obytes;
	}
	if (op->compare) {
		memcpy(q->data + q->used, (const void *)(uintptr_t)op->compare,
		       size);
		e->compare = (uint64_t)(uintptr_t)(q->data + q->used);
		q->used += size;
	}
	*queued = true;
	return MPI_SUCCESS;
}

int mpirma_win_drain_queue(struct mpirma_window *w)
{
	struct mpirma_rma_queue *q = &w->queue;
	uint32_t n = q->nops;

	int ret, deferred = q->deferred;

	/* Direct operations were plain stores too: order them first. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (deferred)	/* (only then: threads' flushes share @w unlocked) */
		q->deferred = MPI_SUCCESS;
	mpirma_win_direct_report_due(w);
	if (!n)
		return deferred;
	/* Emptied first: a failed batch is over too (its errors reported). */
	q->nops = 0;
	q->used = 0;
	ret = mpirma_win_issue(w, q->ops, n);
	return deferred ? deferred : ret;
}

void mpirma_win_drain_early(struct mpirma_window *w)
{
	int ret = mpirma_win_drain(w);

	if (ret)
		w->queue.deferred = ret;
}

void mpirma_win_queue_free(struct mpirma_window *w)
{
	free(w->queue.ops);
	free(w->queue.data);
	memset(&w->queue, 0, sizeof(w->queue));
}
