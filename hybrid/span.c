// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * span.c - a window whose communicator spans nodes, in two parts over the
 * same memory (docs/design.md, "The hybrid layer"):
 *  - an engine window over this node's ranks of the window (created by
 *    win.c as for a node window: MPI_Win_allocate's memory comes from it),
 *    which serves puts, gets and accumulate-like operations to node-local
 *    targets through the module.  Every process keeps it in one
 *    MPI_Win_lock_all epoch (MPI_MODE_NOCHECK: the kernel holds nothing)
 *    from creation to free, so the engine always allows them, and
 *    completes them with engine flushes;
 *  - a host window over the same memory (MPI_Win_create, or
 *    MPI_Win_create_dynamic), the program's handle, which serves puts and
 *    gets to other nodes and every synchronization: fence, locks, PSCW.
 *    Every origin, local or remote, takes the host's locks, so
 *    MPI_LOCK_EXCLUSIVE excludes both alike.
 * Accumulate-like operations to other nodes are shipped to the target's
 * agent (ship.c), so all of a target's accumulates run in its node's
 * atomicity domain.
 *
 * PSCW: the host matches post and start, but the standard lets
 * MPI_Win_start return before the posts came (Open MPI's osc pt2pt only
 * holds back its own operations until then), and the module serves the
 * node-local targets without the host, the agents the shipped accumulates
 * of remote origins.  So a post also tells each of its node-local origins
 * through the engine (a message of no bytes) and, when agents run, each of
 * its remote origins through the host (on the window's duplicate
 * communicator), and MPI_Win_start waits for the notices of the targets it
 * may reach without the host; with MPI_MODE_NOCHECK, which the standard
 * requires on both calls or neither, neither happens.
 *
 * Completion: what this process issued to a target is complete there when
 * the engine has flushed it (node-local target) or its agent has
 * acknowledged it and the host has flushed (other nodes).  Every call that
 * completes operations (flush, unlock, fence, complete, free) settles the
 * engine and the agents first (hy_span_settle), then makes the host's call.
 */
#include <stdlib.h>
#include <string.h>

#include "hybrid.h"
#include "ship.h"

/* Engine message of no bytes: a target posted to a node-local origin. */
#define HY_TAG_POSTED	0x5350

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

int hy_span_open(struct hy_win *w, struct create_args *a)
{
	struct hy_span *sp = calloc(1, sizeof(*sp));
	int size, me, m = 0, ok, all, ret;
	MPI_Group g;

	PMPI_Comm_size(a->comm, &size);
	PMPI_Comm_rank(a->comm, &me);
	ok = sp != NULL;
	if (sp) {
		sp->size = size;
		sp->me = me;
		sp->myslot = -1;
		sp->comm = MPI_COMM_NULL;
		pthread_mutex_init(&sp->lock, NULL);
		sp->erank = malloc(sizeof(int) * (size_t)size);
		sp->world = malloc(sizeof(int) * (size_t)size);
		sp->slot = malloc(sizeof(int) * (size_t)size);
		sp->lock_of = calloc((size_t)size, 1);
		sp->in_start = calloc((size_t)size, 1);
		sp->host_acc = calloc((size_t)size, 1);
		w->span = sp;
		ok = sp->erank && sp->world && sp->slot && sp->lock_of &&
		     sp->in_start && sp->host_acc;
	}
	if (ok) {
		PMPI_Comm_group(a->comm, &g);
		for (int k = 0; k < size; k++)
			sp->erank[k] = k;
		PMPI_Group_translate_ranks(g, size, sp->erank, hy.world_group,
					   sp->world);
		PMPI_Group_free(&g);
		/* The engine window has this node's ranks in window order. */
		for (int k = 0; k < size; k++)
			sp->erank[k] = hy.node_of[sp->world[k]] == hy.node ?
				       m++ : -1;
		hy_lock();
		ok = engine_open(w);
		hy_unlock();
		sp->myslot = -1;
		if (ok && hy.agent)
			ok = hy_ship_open(w) >= 0;
	}
	PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, a->comm);
	if (!all)
		return hy_fail(MPI_ERR_NO_MEM, "out of memory (window that "
			       "spans nodes)");
	/* Published: nobody ships to a slot before it exists. */
	PMPI_Allgather(&sp->myslot, 1, MPI_INT, sp->slot, 1, MPI_INT, a->comm);
	ret = PMPI_Comm_dup(a->comm, &sp->comm);
	if (ret)
		return ret;
	if (a->flavor == MPI_WIN_FLAVOR_DYNAMIC)
		return PMPI_Win_create_dynamic(a->info, a->comm, &w->host);
	return PMPI_Win_create(a->base, a->size, a->disp_unit, a->info,
			       a->comm, &w->host);
}

int hy_span_quiesce(struct hy_win *w)
{
	struct hy_span *sp = w->span;
	int ret, r;

	ret = hy_ship_complete(w, -1);
	hy_lock();
	r = hy_inner(MPII_Win_unlock_all(w->inner));
	sp->locked = false;
	hy_unlock();
	ret = ret ? ret : r;
	/* Every origin has its acknowledgements: no agent works for it. */
	PMPI_Barrier(sp->comm);
	hy_ship_close(w);
	return ret;
}

void hy_span_release(struct hy_win *w)
{
	struct hy_span *sp = w->span;

	if (sp->locked)
		MPII_Win_unlock_all(w->inner);
	hy_ship_close(w);
	if (sp->comm != MPI_COMM_NULL)
		PMPI_Comm_free(&sp->comm);
	pthread_mutex_destroy(&sp->lock);
	free(sp->erank);
	free(sp->world);
	free(sp->slot);
	free(sp->lock_of);
	free(sp->in_start);
	free(sp->host_acc);
	free(sp->pend);
	free(sp);
	w->span = NULL;
}

int hy_span_settle(struct hy_win *w, int rank)
{
	struct hy_span *sp = w->span;
	int ret = MPI_SUCCESS, r;

	if (rank < 0)
		ret = hy_inner(MPII_Win_flush_all(w->inner));
	else if (rank < sp->size && sp->erank[rank] >= 0)
		ret = hy_inner(MPII_Win_flush(sp->erank[rank], w->inner));
	hy_unlock();
	if (rank < 0 || hy_remote(w, rank)) {
		r = hy_ship_complete(w, rank);
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

bool hy_span_group(const struct hy_win *w, MPI_Group group,
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
 * Node-local origins always hear of a post (the module serves their
 * accesses), remote ones only when agents apply their accumulates: in host
 * mode all of a remote origin's accesses are the host's, which holds them
 * back itself.  A notice that failed does not stop the others: an origin
 * not told would wait forever, and one told twice would take the spare
 * notice for the next epoch's post.
 */
int hy_span_post(struct hy_win *w, const unsigned char *in)
{
	struct hy_span *sp = w->span;
	int ret = MPI_SUCCESS, r2;

	hy_lock();
	for (int r = 0; r < sp->size; r++) {
		MPII_Request req;

		if (!in[r] || sp->erank[r] < 0)
			continue;
		r2 = hy_inner(MPII_Isend(NULL, 0, MPII_BYTE, sp->erank[r],
					 HY_TAG_POSTED, w->icomm, &req));
		if (!r2)
			MPII_Request_free(&req);
		ret = ret ? ret : r2;
	}
	hy_unlock();
	for (int r = 0; r < sp->size && !hy.span_host_acc; r++) {
		MPI_Request req;

		if (!in[r] || sp->erank[r] >= 0)
			continue;
		r2 = PMPI_Isend(NULL, 0, MPI_BYTE, r, HY_TAG_POSTED, sp->comm,
				&req);
		if (!r2)
			PMPI_Request_free(&req);
		ret = ret ? ret : r2;
	}
	return ret;
}

int hy_span_start(struct hy_win *w, bool posted)
{
	struct hy_span *sp = w->span;
	int ret = MPI_SUCCESS, r2;

	hy_lock();
	sp->started = true;
	for (int r = 0; r < sp->size && !posted; r++) {
		if (!sp->in_start[r] || sp->erank[r] < 0)
			continue;
		r2 = hy_inner(MPII_Recv(NULL, 0, MPII_BYTE, sp->erank[r],
					HY_TAG_POSTED, w->icomm,
					MPII_STATUS_IGNORE));
		ret = ret ? ret : r2;
	}
	hy_unlock();
	for (int r = 0; r < sp->size && !posted && !hy.span_host_acc; r++) {
		if (!sp->in_start[r] || sp->erank[r] >= 0)
			continue;
		r2 = PMPI_Recv(NULL, 0, MPI_BYTE, r, HY_TAG_POSTED, sp->comm,
			       MPI_STATUS_IGNORE);
		ret = ret ? ret : r2;
	}
	return ret;
}
