// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * grequest.c - generalized requests (MPI_Grequest_start,
 * MPI_Grequest_complete): requests that the program completes itself,
 * waited for and tested like any other (lib/runtime/request.c).
 *
 * The program's three callbacks run as the standard says:
 *  - query_fn fills the status when a wait, test or MPI_Request_get_status
 *    first finds the request complete (once: the status is kept), and its
 *    return value is the request's error;
 *  - free_fn runs when the request is freed: by the wait or test that
 *    completes it (after query_fn; its error is that call's), or, for a
 *    request given to MPI_Request_free, by whichever of MPI_Request_free
 *    and MPI_Grequest_complete comes last.  No query_fn runs then;
 *  - cancel_fn runs at every MPI_Cancel, told whether
 *    MPI_Grequest_complete was called.
 * A NULL callback does nothing (an empty status, no error).
 *
 * The handle stays valid after MPI_Request_free until
 * MPI_Grequest_complete, which needs it.  A wait polls (yielding, then
 * sleeping, without the library lock) until MPI_Grequest_complete: only
 * another thread can call it then.
 */
#include "runtime.h"
#include "request.h"

/**
 * struct greq - a generalized request
 * @r: the request head
 * @query, @free, @cancel, @extra: the program's callbacks and their state
 * @completed: MPI_Grequest_complete was called (another thread may set it
 *	while a wait polls without the library lock)
 * @freed: MPI_Request_free was called: MPI_Grequest_complete destroys it
 */
struct greq {
	struct mpirma_request r;
	MPI_Grequest_query_function *query;
	MPI_Grequest_free_function *free;
	MPI_Grequest_cancel_function *cancel;
	void *extra;
	int completed;
	bool freed;
};

static bool completed(struct greq *g)
{
	return __atomic_load_n(&g->completed, __ATOMIC_ACQUIRE);
}

/* A callback's error code as the call's class, cause recorded. */
static int callback_ret(int ret, const char *what)
{
	if (ret == MPI_SUCCESS)
		return MPI_SUCCESS;
	return mpirma_err(ret, "the generalized request's %s returned %d",
			  what, ret);
}

static int greq_progress(struct mpirma_request *r, int block)
{
	struct greq *g = (struct greq *)r;
	int spins = 0, ret = MPI_SUCCESS;

	while (!completed(g)) {
		if (!block)
			return MPI_SUCCESS;
		mpirma_wait_pause(&spins);
	}
	mpirma_status_empty(&r->status);
	if (g->query)
		ret = callback_ret(g->query(g->extra, &r->status), "query_fn");
	r->status.MPI_ERROR = ret;
	r->done = 1;
	return MPI_SUCCESS;
}

static int greq_cancel(struct mpirma_request *r)
{
	struct greq *g = (struct greq *)r;

	if (!g->cancel)
		return MPI_SUCCESS;
	return callback_ret(g->cancel(g->extra, completed(g)), "cancel_fn");
}

static int greq_free(struct mpirma_request *r)
{
	struct greq *g = (struct greq *)r;

	g->freed = true;
	return completed(g) ? mpirma_request_destroy(r) : MPI_SUCCESS;
}

static int greq_release(struct mpirma_request *r)
{
	struct greq *g = (struct greq *)r;

	if (!g->free)
		return MPI_SUCCESS;
	return callback_ret(g->free(g->extra), "free_fn");
}

static const struct mpirma_request_ops greq_ops = {
	.progress = greq_progress,
	.cancel = greq_cancel,
	.free = greq_free,
	.release = greq_release,
};

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
			MPI_Grequest_free_function *free_fn,
			MPI_Grequest_cancel_function *cancel_fn,
			void *extra_state, MPI_Request *request)
{
	struct mpirma_request *r;
	struct greq *g;
	int ret;

	MPIRMA_CHECK_INIT();
	if (!request)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC,
				    "request is NULL");
	ret = mpirma_request_alloc(sizeof(*g), &greq_ops, &r);
	if (ret)
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	g = (struct greq *)r;
	g->query = query_fn;
	g->free = free_fn;
	g->cancel = cancel_fn;
	g->extra = extra_state;
	*request = r->handle;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Grequest_start)

int PMPI_Grequest_complete(MPI_Request request)
{
	struct mpirma_request *r;
	struct greq *g;

	MPIRMA_CHECK_INIT();
	r = mpirma_request_get(request);
	if (!r || r->ops != &greq_ops)
		return mpirma_raise(MPI_ERR_REQUEST, MPIRMA_FUNC, "%d is no "
				    "generalized request", request);
	g = (struct greq *)r;
	if (completed(g))
		return mpirma_raise(MPI_ERR_REQUEST, MPIRMA_FUNC, "request %d "
				    "is complete already", request);
	__atomic_store_n(&g->completed, 1, __ATOMIC_RELEASE);
	if (g->freed)
		return mpirma_raise(mpirma_request_destroy(r), MPIRMA_FUNC,
				    NULL);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Grequest_complete)
