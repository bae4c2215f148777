// SPDX-License-Identifier: GPL-2.0
/*
 * MPIRMA_ATOM_DELEGATE: every element update is done by the NUMA-local worker
 * that owns the element's page; no lock at all.
 *
 * Each page of window memory is owned by exactly one worker on the node the
 * page lives on (workers.c); an element belongs to the page holding its first
 * byte.  An update is cut into pieces by owner and the pieces are queued to
 * their workers, which apply them in arrival order, one at a time: two
 * updates of one element are always serialised by the same worker, and the
 * target's cache lines stay on their node.  Per-origin ordering holds across
 * workers because each worker's queue is FIFO and a submitter's pieces for
 * one element always go to the same queue.
 *
 * Updates without results (accumulate) are left in flight with a private
 * copy of their origin data: the submitter goes on to its next chunk or
 * operation and the engine waits once (mpirma_inflight_wait) before anything
 * that must see them.  Updates with results, and pieces that cannot get
 * memory for a copy, wait for their worker.  Waits cannot be interrupted:
 * workers write into the submitter's buffers, and a piece is at most a
 * page of work, so even a dying process is held only briefly and never
 * leaves an operation half applied.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "fault.h"
#include "mpirma.h"
#include "reduce.h"
#include "strategy.h"
#include "workers.h"

#define DLG_ROUND	8	/* synchronous pieces per round */
#define DLG_INFLIGHT	1024	/* deferred pieces before the submitter waits */

struct dlg_piece {
	struct mpirma_work work;
	struct mpirma_update part;
	struct mpirma_span span;
	struct mpirma_inflight *inflight;
	bool heap;			/* deferred: freed by the worker, origin data after it */
};

static void dlg_run(struct mpirma_work *work)
{
	struct dlg_piece *p = container_of(work, struct dlg_piece, work);
	struct mpirma_inflight *f = p->inflight;

	mpirma_update_apply(&p->part);
	if (p->heap)
		kfree(p);
	mpirma_inflight_done(f);
}

/* Window memory is vmap'ed: find the page, its node, its owner. */
static void dlg_queue(struct dlg_piece *p, struct mpirma_inflight *f)
{
	struct page *page = vmalloc_to_page(p->span.addr);

	p->inflight = f;
	p->work.fn = dlg_run;
	mpirma_inflight_add(f);
	mpirma_worker_queue(mpirma_worker_for(page_to_nid(page), page_to_pfn(page)),
			    &p->work);
}

static void dlg_piece_init(struct dlg_piece *p, const struct mpirma_update *u, u8 *addr,
			   size_t len, size_t done)
{
	p->span.addr = addr;
	p->span.len = len;
	mpirma_update_part(&p->part, u, &p->span, done);
	p->heap = false;
}

/* Leave one accumulate piece in flight; false if there is no memory for it. */
static bool dlg_defer(const struct mpirma_update *u, u8 *addr, size_t len, size_t done)
{
	struct dlg_piece *p;

	if (mpirma_inflight_count(u->inflight) >= DLG_INFLIGHT)
		mpirma_inflight_wait(u->inflight);
	p = MPIRMA_FAULT_POINT(NULL, kmalloc(sizeof(*p) + len, GFP_KERNEL | __GFP_NOWARN));
	if (!p)
		return false;
	dlg_piece_init(p, u, addr, len, done);
	memcpy(p + 1, p->part.src, len);
	p->part.src = p + 1;
	p->heap = true;
	dlg_queue(p, u->inflight);
	return true;
}

static void dlg_round(struct dlg_piece *pieces, unsigned int n)
{
	struct mpirma_inflight round;
	unsigned int i;

	mpirma_inflight_init(&round);
	for (i = 0; i < n; i++)
		dlg_queue(&pieces[i], &round);
	mpirma_inflight_wait(&round);
}

static void dlg_apply(const struct mpirma_update *u)
{
	size_t esize = mpirma_type_info[u->type].size, done = 0, len;
	bool defer = u->inflight && !u->old && u->src;
	struct dlg_piece pieces[DLG_ROUND];
	unsigned int i, n = 0;
	u8 *p, *end;

	for (i = 0; i < u->nspans; i++) {
		p = u->spans[i].addr;
		end = p + u->spans[i].len;
		for (; p < end; p += len, done += len) {
			/* The elements whose first byte is in p's page. */
			len = DIV_ROUND_UP(min(PTR_ALIGN(p + 1, PAGE_SIZE), end) - p, esize) * esize;
			if (defer && dlg_defer(u, p, len, done))
				continue;
			dlg_piece_init(&pieces[n], u, p, len, done);
			if (++n == DLG_ROUND) {
				dlg_round(pieces, n);
				n = 0;
			}
		}
	}
	if (n)
		dlg_round(pieces, n);
}

const struct mpirma_strategy mpirma_strategy_delegate = {
	.name = "delegate",
	.apply = dlg_apply,
};
