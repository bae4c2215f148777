// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * comm_dup.c - duplicating communicators: MPI_Comm_dup, _dup_with_info,
 * and the nonblocking MPI_Comm_idup and _idup_with_info, which duplicate
 * at once and return a complete request.  The blocking forms agree on a new
 * context id; idup takes the next of the ids every member set aside for
 * the communicator when it was made (its spares, runtime.h), so it needs no
 * other member and never waits for one, as the standard requires of a
 * nonblocking call.  The communicator it makes gets the ids that spare owns
 * as its own spares (three levels of idups deep).  A communicator that has
 * used up its spares agrees as the blocking forms do.
 *
 * A duplicate has the same ranks (intra) or groups (inter), a new context
 * id, the info given or the old communicator's, its topology, and its
 * attributes through their copy callbacks.
 *
 * Here too MPI_Comm_disconnect, MPI_Comm_free's collective form, which
 * programs pair with duplicates to end a library's communicator cleanly.
 */
#include "runtime.h"
#include "request.h"

/*
 * Every form: @info is copied, or c's with -1; with @request (not NULL) a
 * complete request too.  Raised as @fn.
 */
static int comm_dup(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
		    MPI_Request *request, const char *fn)
{
	struct mpirma_comm *c = mpirma_comm_get(comm), *n;
	uint64_t ctx, span = 0;
	bool spare;
	int ret = MPI_SUCCESS;

	if (!c)
		return mpirma_raise(MPI_ERR_COMM, fn, "invalid communicator %d",
				    comm);
	spare = request && c->spares > 0;
	if (spare) {
		span = c->spare_span;
		ctx = c->spare_ctx;
		c->spare_ctx += span;
		c->spares--;
	}
	if (c->inter) {
		ret = mpirma_intercomm_dup(c, spare ? &ctx : NULL, newcomm);
	} else {
		if (!spare)
			ret = mpirma_comm_new_context(c, &ctx);
		if (!ret)
			ret = mpirma_comm_new(c, c->size, c->ranks, ctx,
					      newcomm);
	}
	if (ret)
		return mpirma_raise_comm(comm, ret, fn, NULL);
	n = mpirma_comm_get(*newcomm);
	/* its own spares: the ids the spare owns */
	if (spare)
		mpirma_comm_set_spares(n, ctx + 1, span - 1);
	if (info == -1 && c->info != MPI_INFO_NULL)
		ret = PMPI_Info_dup(c->info, &n->info);
	else if (info != -1)
		ret = mpirma_comm_hints(info, &n->info);
	if (!ret)
		ret = mpirma_topo_copy(c, n);
	if (!ret)
		ret = mpirma_attrs_copy(comm, &c->hdr, &n->hdr);
	if (!ret && request)
		ret = mpirma_request_new_done(comm, MPI_WIN_NULL, MPI_SUCCESS,
					      request);
	if (ret) {
		mpirma_comm_discard(*newcomm);
		*newcomm = MPI_COMM_NULL;
		return mpirma_raise_comm(comm, ret, fn, NULL);
	}
	return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
	MPIRMA_CHECK_INIT();
	return comm_dup(comm, -1, newcomm, NULL, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Comm_dup)

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
	MPIRMA_CHECK_INIT();
	return comm_dup(comm, info, newcomm, NULL, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Comm_dup_with_info)

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
	MPIRMA_CHECK_INIT();
	if (!request)
		return mpirma_raise_comm(comm, MPI_ERR_ARG, MPIRMA_FUNC,
					 "request is NULL");
	return comm_dup(comm, -1, newcomm, request, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Comm_idup)

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
			     MPI_Request *request)
{
	MPIRMA_CHECK_INIT();
	if (!request)
		return mpirma_raise_comm(comm, MPI_ERR_ARG, MPIRMA_FUNC,
					 "request is NULL");
	return comm_dup(comm, info, newcomm, request, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Comm_idup_with_info)

/*
 * Waits for every pending request of @comm, as MPI_Comm_disconnect must
 * (the requests stay for the program to complete or free): those that
 * still have a handle; a freed pending one completes on its own.
 */
static void wait_pending(MPI_Comm comm)
{
	struct mpirma_request *r;
	int h = 0;

	while ((h = mpirma_handle_next(MPIRMA_HK_REQUEST, h))) {
		r = mpirma_request_get(h);
		if (r && r->comm == comm && !r->done &&
		    (!r->persistent || r->active))
			mpirma_request_progress(r, 1);
	}
}

int PMPI_Comm_disconnect(MPI_Comm *comm)
{
	struct mpirma_comm *c;
	int ret;

	MPIRMA_CHECK_INIT();
	if (!comm)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "comm is NULL");
	MPIRMA_GET_COMM(c, *comm);
	if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
		return mpirma_raise_comm(*comm, MPI_ERR_COMM, MPIRMA_FUNC,
					 "%s cannot be disconnected",
					 c->hdr.name);
	wait_pending(*comm);
	/* Collective: nobody frees it while another member still talks. */
	ret = PMPI_Barrier(*comm);
	if (ret)
		return ret;
	return PMPI_Comm_free(comm);
}
MPIRMA_ALIAS(Comm_disconnect)
