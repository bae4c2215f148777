// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * span.c - a window whose communicator spans nodes (docs/design.md, "The
 * hybrid layer").  Everything on it but the transport is mpirma's: the host
 * MPI carries messages, and its own one-sided code is never asked for
 * anything, so its bugs (the op/type table, offsets, PSCW matching) do not
 * reach such a window.
 *  - An engine window over this node's ranks of the window (created by
 *    win.c as for a node window: MPI_Win_allocate's memory comes from it)
 *    serves node-local targets through the module.  Every process keeps it
 *    in one MPI_Win_lock_all epoch (MPI_MODE_NOCHECK: the kernel holds
 *    nothing) from creation to free, so the engine always allows its
 *    operations, and completes them with engine flushes.
 *  - Operations to other nodes, puts and gets as well as accumulates, are
 *    shipped to the target's agent thread (agent.c), which applies them
 *    through the module there: one atomicity domain per target.
 *  - Locks are kept by the target's agent for every origin, local or
 *    remote (agent_slots.c), so MPI_LOCK_EXCLUSIVE excludes both alike; a
 *    fence is the completion of everything this process issued and a
 *    barrier; PSCW is built from notices of no bytes (below).
 *  - The program's handle is a host window of no bytes on MPI_COMM_SELF
 *    (hy_win_handle), which keeps attributes, name and error handler.
 * With host accumulates (MPIRMA_SPAN_ACCUMULATE=host, no agents) the handle
 * is a host window over the same memory instead, which serves puts and
 * gets to other nodes, every accumulate-like operation, fence and locks.
 *
 * PSCW is the layer's own in both modes: MPICH 4.0.2's MPI_Win_start
 * counts post notices instead of matching them by origin, so a post for a
 * later epoch from another process lets a start return early or never.
 * A post sends each origin of its group a notice of no bytes (through the
 * engine to node-local ones, through the host on the window's duplicate
 * communicator to the others), and MPI_Win_start receives one from each
 * target of its group, by source: one pair of processes, one tag, one
 * communicator, so the notices of successive epochs stay in order.  With
 * host accumulates, the origin's host operations go through the host
 * window under a host MPI_Win_lock_all(MPI_MODE_NOCHECK) from start to
 * complete, whose unlock completes them at the targets.  Then
 * MPI_Win_complete sends each target a second notice, and MPI_Win_wait (or
 * MPI_Win_test) receives one from each origin.  MPI_MODE_NOCHECK, which
 * the standard requires on both post and start or neither, skips the
 * first notice.
 *
 * Completion: what this process issued to a target is complete there when
 * the engine has flushed it (node-local target) or its agent has
 * acknowledged it (other nodes; with host accumulates, when the host has
 * flushed it).  Every call that completes operations (flush, unlock,
 * fence, complete, free) settles the engine and the agents first
 * (hy_span_settle), then makes the host's call if there is one.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "convert.h"
#include "coll.h"
#include "errors.h"
#include "handle.h"
#include "origin.h"
#include "rma_args.h"
#include "span.h"
#include "waits.h"
#include "win.h"

/*
 * Notices of no bytes (PSCW): a target posted to an origin; an origin
 * completed its epoch at a target.  Engine messages on the window's engine
 * communicator to node-local peers, host messages on sp->comm to the others.
 */
#define HY_TAG_POSTED	0x5350
#define HY_TAG_DONE	0x5351

/* Engine part: its epoch is open (hy_span_release ends it on failure). */
static bool engine_open(struct hy_win *w)
{
	int64_t id = mpirma_rma_win_id(w->inner);

	if (id < 0)
		return false;
	w->span->win_id = (uint32_t)id;
	w->span->locked = MPII_Win_lock_all(MPII_MODE_NOCHECK, w->inner) ==
			  MPII_SUCCESS;
	return w->span->locked;
}

/* @w's remote side for @size ranks, this one @me; false: out of memory. */
static bool span_alloc(struct hy_win *w, int size, int me, int flavor)
{
	struct hy_span *sp = calloc(1, sizeof(*sp));

	if (!sp)
		return false;
	w->span = sp;
	sp->size = size;
	sp->me = me;
	sp->myslot = -1;
	sp->comm = MPI_COMM_NULL;
	hy_mutex_init(&sp->lock, HY_LOCK_SPAN);
	sp->erank = malloc(sizeof(int) * (size_t)size);
	sp->world = malloc(sizeof(int) * (size_t)size);
	sp->slot = malloc(sizeof(int) * (size_t)size);
	sp->word = calloc((size_t)size, sizeof(*sp->word));
	sp->lock_of = calloc((size_t)size, 1);
	sp->in_start = calloc((size_t)size, 1);
	sp->in_post = calloc((size_t)size, 1);
	sp->wait_for = calloc((size_t)size, 1);
	sp->host_acc = calloc((size_t)size, 1);
	sp->lazy = calloc((size_t)size, 1);
	if (flavor != MPI_WIN_FLAVOR_DYNAMIC)
		sp->extent = malloc(2 * sizeof(uint64_t) * (size_t)size);
	return sp->erank && sp->world && sp->slot && sp->word && sp->lock_of &&
	       sp->in_start && sp->in_post && sp->wait_for && sp->host_acc &&
	       sp->lazy &&
	       (sp->extent || flavor == MPI_WIN_FLAVOR_DYNAMIC);
}

/*
 * This process's part: every rank's world rank and engine rank (the
 * engine window has this node's ranks in window order), the engine's
 * epoch, and a slot in the agent.  1, 0 (no memory), or -1 and *@ret: the
 * agent had no slot.
 */
static int span_join(struct hy_win *w, MPI_Comm comm, int *ret)
{
	struct hy_span *sp = w->span;
	MPI_Group g;
	int m = 0;

	PMPI_Comm_group(comm, &g);
	for (int k = 0; k < sp->size; k++)
		sp->erank[k] = k;
	PMPI_Group_translate_ranks(g, sp->size, sp->erank, hy.world_group,
				   sp->world);
	PMPI_Group_free(&g);
	for (int k = 0; k < sp->size; k++)
		sp->erank[k] = hy.node_of[sp->world[k]] == hy.node ? m++ : -1;
	hy_lock();
	m = engine_open(w);
	hy_unlock();
	if (!m)
		return 0;
	if (hy.agent) {
		*ret = hy_slot_open(w);
		if (*ret)
			return -1;
	}
	return 1;
}

/*
 * The program's handle: with agents nothing travels through a host window
 * and a handle will do (collective over sp->comm), else the host's window
 * over the memory.  Host class.
 */
static int span_handle(struct hy_win *w, struct create_args *a)
{
	int ok, all, ret;

	if (!hy.agent && a->flavor == MPI_WIN_FLAVOR_DYNAMIC)
		return PMPI_Win_create_dynamic(a->info, a->comm, &w->host);
	if (!hy.agent)
		return PMPI_Win_create(a->base, a->size, a->disp_unit, a->info,
				       a->comm, &w->host);
	ret = hy_win_handle(a->info, &w->host);
	ok = ret == MPI_SUCCESS;
	hy_wait_allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, w->span->comm);
	if (ok && !all) {
		PMPI_Win_free(&w->host);
		ret = hy_fail(MPI_ERR_WIN, "another rank could not create the "
			      "window");
	}
	return ret;
}

int hy_span_open(struct hy_win *w, struct create_args *a)
{
	int size, me, ok, all, ret = MPI_SUCCESS;
	struct hy_span *sp;

	PMPI_Comm_size(a->comm, &size);
	PMPI_Comm_rank(a->comm, &me);
	ok = span_alloc(w, size, me, a->flavor);
	if (ok)
		ok = span_join(w, a->comm, &ret);
	/* -1: an agent had no slot (hy_slot_open says why), 0: no memory */
	hy_wait_allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, a->comm);
	if (all < 0 && ok < 0)
		return ret;
	if (all < 0)
		return hy_fail(MPI_ERR_OTHER, "another rank's agent has no "
			       "slot for the window: too many windows span "
			       "nodes at once, or out of memory");
	if (!all)
		return hy_fail(MPI_ERR_NO_MEM, "out of memory (window that "
			       "spans nodes)");
	sp = w->span;
	if (hy.agent)
		hy_coll_serve(a->comm);
	/* Published: nobody ships to a slot before it exists. */
	hy_wait_allgather(&sp->myslot, 1, MPI_INT, sp->slot, a->comm);
	for (int k = 0; k < size && hy.agent; k++)
		sp->word[k] = hy_slot_word(sp->world[k], sp->slot[k]);
	/* Each target's memory, so that a range error fails at the call. */
	if (sp->extent) {
		uint64_t mine[2] = { (uint64_t)a->size, (uint64_t)a->disp_unit };

		hy_wait_allgather(mine, 2, MPI_UINT64_T, sp->extent, a->comm);
	}
	ret = hy_wait_comm_dup(a->comm, &sp->comm);
	return ret ? ret : span_handle(w, a);
}

int hy_span_quiesce(struct hy_win *w)
{
	struct hy_span *sp = w->span;
	int ret, r;

	ret = hy_ship_complete(w, -1, "MPI_Win_free");
	hy_lock();
	r = hy_inner(MPII_Win_unlock_all(w->inner));
	sp->locked = false;
	hy_unlock();
	ret = ret ? ret : r;
	/* Every origin has its acknowledgements: no agent works for it. */
	hy_wait_barrier(sp->comm);
	hy_origin_close(w);
	hy_slot_close(w);
	return ret;
}

void hy_span_release(struct hy_win *w)
{
	struct hy_span *sp = w->span;

	if (sp->locked)
		MPII_Win_unlock_all(w->inner);
	hy_origin_close(w);
	hy_slot_close(w);
	if (sp->comm != MPI_COMM_NULL)
		PMPI_Comm_free(&sp->comm);
	hy_mutex_destroy(&sp->lock);
	free(sp->erank);
	free(sp->world);
	free(sp->slot);
	free(sp->word);
	free(sp->lock_of);
	free(sp->in_start);
	free(sp->in_post);
	free(sp->wait_for);
	free(sp->host_acc);
	free(sp->lazy);
	free(sp->extent);
	free(sp->pend);
	free(sp);
	w->span = NULL;
}

int hy_span_settle(struct hy_win *w, int rank, const char *fn)
{
	struct hy_span *sp = w->span;
	int ret = MPI_SUCCESS, r;

	if (rank < 0)
		ret = hy_inner(MPII_Win_flush_all(w->inner));
	else if (rank < sp->size && sp->erank[rank] >= 0)
		ret = hy_inner(MPII_Win_flush(sp->erank[rank], w->inner));
	hy_unlock();
	if (rank < 0 || hy_remote(w, rank)) {
		r = hy_ship_complete(w, rank, fn);
		ret = ret ? ret : r;
	}
	return ret;
}

int hy_span_access_check(const struct hy_win *w, int rank)
{
	const struct hy_span *sp = w->span;

	/* Ranks outside the window: the engine's or the host's error. */
	if (!sp || rank < 0 || rank >= sp->size)
		return MPI_SUCCESS;
	if (sp->fence || sp->lock_all || sp->lock_of[rank] ||
	    (sp->started && sp->in_start[rank]))
		return MPI_SUCCESS;
	return hy_fail(MPI_ERR_RMA_SYNC, "no access epoch is open to rank %d "
		       "(call MPI_Win_fence, MPI_Win_lock, MPI_Win_lock_all or "
		       "MPI_Win_start first)", rank);
}

/*
 * Sets @in[r] for the window ranks r of host group @group; false: out of
 * memory, @in unchanged.
 */
static bool span_group(const struct hy_win *w, MPI_Group group,
		       unsigned char *in)
{
	int n = 0, *from, *to;
	bool ok;

	PMPI_Group_size(group, &n);
	from = malloc(sizeof(int) * (size_t)(n ? n : 1));
	to = malloc(sizeof(int) * (size_t)(n ? n : 1));
	ok = from && to;
	if (ok) {
		memset(in, 0, (size_t)w->span->size);
		for (int k = 0; k < n; k++)
			from[k] = k;
		PMPI_Group_translate_ranks(group, n, from, w->hgroup, to);
		for (int k = 0; k < n; k++)
			if (to[k] >= 0 && to[k] < w->span->size)
				in[to[k]] = 1;
	}
	free(from);
	free(to);
	return ok;
}

/*
 * Sends a notice with @tag to every window rank flagged in @to.  One that
 * failed does not stop the others: a peer not told would wait forever.
 */
static int span_notify(struct hy_win *w, const unsigned char *to, int tag)
{
	struct hy_span *sp = w->span;
	int ret = MPI_SUCCESS, r2;

	hy_lock();
	for (int r = 0; r < sp->size; r++) {
		MPII_Request req;

		if (!to[r] || sp->erank[r] < 0)
			continue;
		r2 = hy_inner(MPII_Isend(NULL, 0, MPII_BYTE, sp->erank[r], tag,
					 w->icomm, &req));
		if (!r2)
			MPII_Request_free(&req);
		ret = ret ? ret : r2;
	}
	hy_unlock();
	for (int r = 0; r < sp->size; r++) {
		MPI_Request req;

		if (!to[r] || sp->erank[r] >= 0)
			continue;
		r2 = PMPI_Isend(NULL, 0, MPI_BYTE, r, tag, sp->comm, &req);
		if (!r2)
			PMPI_Request_free(&req);
		ret = ret ? ret : r2;
	}
	return ret;
}

/*
 * Receives the notice with @tag of window rank @r, if it has come (@block:
 * waits for it).  True when it is taken (or failed: *@ret then says how),
 * so that nobody waits for it again.
 */
static bool span_take(struct hy_win *w, int r, int tag, bool block, int *ret)
{
	struct hy_span *sp = w->span;
	int flag = 1, r2;

	if (sp->erank[r] >= 0) {
		hy_lock();
		r2 = block ? MPII_SUCCESS :
		     MPII_Iprobe(sp->erank[r], tag, w->icomm, &flag,
				 MPII_STATUS_IGNORE);
		if (r2 == MPII_SUCCESS && flag)
			r2 = MPII_Recv(NULL, 0, MPII_BYTE, sp->erank[r], tag,
				       w->icomm, MPII_STATUS_IGNORE);
		r2 = hy_inner(r2);
		hy_unlock();
	} else {
		r2 = block ? MPI_SUCCESS :
		     PMPI_Iprobe(r, tag, sp->comm, &flag, MPI_STATUS_IGNORE);
		if (r2 == MPI_SUCCESS && flag)
			r2 = PMPI_Recv(NULL, 0, MPI_BYTE, r, tag, sp->comm,
				       MPI_STATUS_IGNORE);
	}
	if (r2 && !*ret)
		*ret = r2;
	return r2 || flag;
}

/*
 * Takes the notice with @tag of every window rank flagged in @from,
 * clearing its flag; with @block until none is left, else those that have
 * come.  Peers of one kind only (all node-local, or all remote) are waited
 * for in a blocking receive each.  Both kinds are polled in turn, with
 * naps that double from 1 us to 1 ms while nothing comes: a blocking
 * receive in the engine would make no progress in the host, where a
 * remote peer's notice or its host unlock may be waiting for this process.
 */
static int span_collect(struct hy_win *w, unsigned char *from, int tag,
			bool block)
{
	struct hy_span *sp = w->span;
	int ret = MPI_SUCCESS, nap = 1;

	for (;;) {
		int local = 0, remote = 0;
		bool got = false;

		for (int r = 0; r < sp->size; r++) {
			if (!from[r])
				continue;
			if (span_take(w, r, tag, false, &ret)) {
				from[r] = 0;
				got = true;
			} else if (sp->erank[r] >= 0) {
				local++;
			} else {
				remote++;
			}
		}
		if (!block || local + remote == 0)
			return ret;
		if (!local || !remote) {
			for (int r = 0; r < sp->size; r++)
				if (from[r] && span_take(w, r, tag, true, &ret))
					from[r] = 0;
			return ret;
		}
		nap = got ? 1 : nap < 1000 ? nap * 2 : 1000;
		usleep((useconds_t)nap);
	}
}

/*
 * Does an access epoch to the ranks flagged in @to need the host's window?
 * Only without agents (MPIRMA_SPAN_ACCUMULATE=host): for puts and gets to
 * other nodes, and for every accumulate.
 */
static bool span_host_access(const struct hy_win *w, const unsigned char *to)
{
	for (int r = 0; r < w->span->size && !hy.agent; r++)
		if (to[r] && (w->span->erank[r] < 0 || hy.span_host_acc))
			return true;
	return false;
}

/*
 * Opens a PSCW epoch (*@open) with the window ranks of @group in @ranks,
 * unless one is open already (@twice says so), or out of memory.
 */
static int span_pscw_open(struct hy_win *w, MPI_Group group, bool *open,
			  unsigned char *ranks, const char *twice)
{
	int ret = MPI_SUCCESS;

	hy_lock();
	if (*open)
		ret = hy_fail(MPI_ERR_RMA_SYNC, "%s", twice);
	else if (!span_group(w, group, ranks))
		ret = hy_fail(MPI_ERR_NO_MEM, "out of memory");
	else
		*open = true;
	hy_unlock();
	return ret;
}

int hy_span_post(struct hy_win *w, MPI_Group group, int assert)
{
	struct hy_span *sp = w->span;
	int ret = span_pscw_open(w, group, &sp->posted, sp->in_post,
				 "an exposure epoch is already open "
				 "(MPI_Win_post twice without MPI_Win_wait)");

	if (ret || (assert & MPI_MODE_NOCHECK))
		return ret;
	return span_notify(w, sp->in_post, HY_TAG_POSTED);
}

int hy_span_start(struct hy_win *w, MPI_Group group, int assert, int *host)
{
	struct hy_span *sp = w->span;
	int ret = span_pscw_open(w, group, &sp->started, sp->in_start,
				 "an access epoch is already open "
				 "(MPI_Win_start twice without "
				 "MPI_Win_complete)");

	*host = MPI_SUCCESS;
	if (ret)
		return ret;
	/*
	 * The epoch is open whatever follows: MPI_Win_complete then still
	 * tells every target, whose MPI_Win_wait waits for it.
	 */
	if (!(assert & MPI_MODE_NOCHECK)) {
		memcpy(sp->wait_for, sp->in_start, (size_t)sp->size);
		ret = span_collect(w, sp->wait_for, HY_TAG_POSTED, true);
	}
	if (span_host_access(w, sp->in_start)) {
		*host = PMPI_Win_lock_all(MPI_MODE_NOCHECK, w->host);
		sp->host_epoch = *host == MPI_SUCCESS;
	}
	return ret;
}

int hy_span_complete(struct hy_win *w, int *host)
{
	struct hy_span *sp = w->span;
	int ret, r2;

	*host = MPI_SUCCESS;
	hy_lock();
	if (!sp->started) {
		ret = hy_fail(MPI_ERR_RMA_SYNC, "no access epoch is open "
			      "(MPI_Win_complete without MPI_Win_start)");
		hy_unlock();
		return ret;
	}
	/* The host's unlock below completes its accumulates too. */
	memset(sp->host_acc, 0, (size_t)sp->size);
	ret = hy_span_settle(w, -1, "MPI_Win_complete");
	if (sp->host_epoch)
		*host = PMPI_Win_unlock_all(w->host);
	sp->host_epoch = false;
	r2 = span_notify(w, sp->in_start, HY_TAG_DONE);
	hy_lock();
	sp->started = false;
	hy_unlock();
	return ret ? ret : r2;
}

int hy_span_wait(struct hy_win *w, int *flag)
{
	struct hy_span *sp = w->span;
	bool done = true;
	int ret;

	hy_lock();
	ret = sp->posted ? MPI_SUCCESS :
	      hy_fail(MPI_ERR_RMA_SYNC, "no exposure epoch is open (call "
		      "MPI_Win_post first)");
	hy_unlock();
	if (ret)
		return ret;
	ret = span_collect(w, sp->in_post, HY_TAG_DONE, !flag);
	for (int r = 0; r < sp->size; r++)
		done = done && !sp->in_post[r];
	if (done) {
		hy_lock();
		sp->posted = false;
		hy_unlock();
	}
	if (flag)
		*flag = done;
	return ret;
}
