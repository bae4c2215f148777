// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * request_pool.c - the request objects (struct mpirma_request, internal.h):
 * allocation from a pool of freed blocks and a handle, destruction, and
 * the requests complete when made (one shared by every send done at its
 * call).  The completion calls are request.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "request.h"

void mpirma_request_complete(struct mpirma_request *r, int source, int tag,
			     int error, MPI_Count bytes)
{
	mpirma_status_set(&r->status, source, tag, error, bytes);
	r->done = 1;
}

/*
 * Freed requests' memory kept for the next ones: a message makes and frees
 * a request on each side, and malloc() with free() cost as much as the
 * rest of a small MPI_Isend (callgrind: 250 of 460 instructions).  Every
 * request of up to POOL_BLOCK bytes (a posted receive is 160) gets a block
 * of that size; up to POOL_KEEP free blocks wait here, the rest go back to
 * free().  Used under the library lock, as the handle table is.
 */
#define POOL_BLOCK 256
#define POOL_KEEP 256
static void *pool[POOL_KEEP];
static int npool;

static struct mpirma_request *block_get(size_t size)
{
	struct mpirma_request *r;

	if (size > POOL_BLOCK)
		return mpirma_zalloc(1, size);
	r = npool ? pool[--npool] : malloc(POOL_BLOCK);
	if (r) {
		memset(r, 0, size);
		r->pooled = true;
	}
	return r;
}

static void block_put(struct mpirma_request *r)
{
	if (r->pooled && npool < POOL_KEEP)
		pool[npool++] = r;
	else
		free(r);
}

void mpirma_request_teardown(void)
{
	while (npool)
		free(pool[--npool]);
}

int mpirma_request_alloc(size_t size, const struct mpirma_request_ops *ops,
			 struct mpirma_request **out)
{
	struct mpirma_request *r = block_get(size);

	if (!r)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	r->handle = mpirma_handle_alloc(MPIRMA_HK_REQUEST, r);
	if (!r->handle) {
		block_put(r);
		return mpirma_err(MPI_ERR_NO_MEM, "out of request handles");
	}
	r->ops = ops;
	r->comm = MPI_COMM_NULL;
	r->win = MPI_WIN_NULL;
	mpirma_status_empty(&r->status);
	*out = r;
	return MPI_SUCCESS;
}

int mpirma_request_destroy(struct mpirma_request *r)
{
	int ret = MPI_SUCCESS;

	if (!r || r->shared)
		return ret;
	if (r->ops && r->ops->release)
		ret = r->ops->release(r);
	if (r->handle)
		mpirma_handle_free(MPIRMA_HK_REQUEST, r->handle);
	block_put(r);
	return ret;
}

struct mpirma_request *mpirma_request_get(MPI_Request req)
{
	return mpirma_handle_get(MPIRMA_HK_REQUEST, req);
}

static int done_progress(struct mpirma_request *r, int block)
{
	(void)r;
	(void)block;
	return MPI_SUCCESS;
}

static const struct mpirma_request_ops done_ops = {
	.progress = done_progress,
};

/* A request complete already; NULL out of memory (the cause recorded). */
static struct mpirma_request *done_new(MPI_Comm comm, MPI_Win win, int error,
				       MPI_Request *out)
{
	struct mpirma_request *r;

	if (mpirma_request_alloc(sizeof(*r), &done_ops, &r))
		return NULL;
	r->comm = comm;
	r->win = win;
	r->status.MPI_ERROR = error;
	r->done = 1;
	*out = r->handle;
	return r;
}

int mpirma_request_new_done(MPI_Comm comm, MPI_Win win, int error,
			    MPI_Request *out)
{
	MPIRMA_LOCK_GUARD();	/* the RMA calls come here without it */

	return done_new(comm, win, error, out) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* request.h */
struct mpirma_request *mpirma_request_recvd(MPI_Comm comm, MPI_Request *out)
{
	return done_new(comm, MPI_WIN_NULL, MPI_SUCCESS, out);
}

/*
 * Every send complete at its call (the transport or the lean lane took the
 * message) has nothing of its own to tell: its status is empty and
 * successful.  So they share one request, as MPICH's lightweight requests
 * do, made at the first and kept for the process; the waits, tests and
 * MPI_Request_free hand it back as MPI_REQUEST_NULL without freeing it.
 */
static struct mpirma_request send_done = {
	.ops = &done_ops,
	.done = 1,
	.comm = MPI_COMM_NULL,
	.win = MPI_WIN_NULL,
	.shared = true,
};

int mpirma_request_send_done(MPI_Request *out)
{
	if (mpirma_unlikely(!send_done.handle)) {
		mpirma_status_empty(&send_done.status);
		send_done.handle = mpirma_handle_alloc(MPIRMA_HK_REQUEST,
						       &send_done);
		if (!send_done.handle)
			return mpirma_err(MPI_ERR_NO_MEM,
					  "out of request handles");
	}
	*out = send_done.handle;
	return MPI_SUCCESS;
}
