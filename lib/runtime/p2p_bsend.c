// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * p2p_bsend.c - the buffered send mode and its buffer: MPI_Bsend,
 * MPI_Ibsend, the start of an MPI_Bsend_init (p2p_persist.c), and
 * MPI_Buffer_attach, _detach, _flush and _iflush.
 *
 * The transport copies every message, so the attached buffer never holds
 * data: it is a budget.  A buffered message counts against it, as it
 * would occupy the standard's buffer, from the send until a receive has
 * taken it: it goes as a synchronous message (shmq_sync.c) and its bytes
 * come back with the answer.  A send that does not fit fails with
 * MPI_ERR_BUFFER and sends nothing, as the standard has it (without a
 * buffer only empty messages fit).  MPI_Buffer_detach and _flush wait for
 * every answer.  Without the shared-memory queues nothing answers: a
 * message counts only during its call.
 */
#include <limits.h>
#include <stdlib.h>

#include "datatype.h"
#include "runtime.h"
#include "p2p.h"
#include "request.h"

/* A buffered message not yet taken by its receive. */
struct bsend_out {
	int job;
	uint64_t token;
	MPI_Count bytes;
};

/* The attached buffer and what is out of it; under the library lock. */
static struct {
	void *buf;
	MPI_Count size;
	MPI_Count used;
	struct bsend_out *out;
	int n, cap;
	bool reaping;		/* in reap(): its waits progress everything */
} bb;

/* Gives back the bytes of the messages taken (@block: waits for all). */
static void reap(bool block)
{
	int i, k = 0;

	if (bb.reaping)
		return;
	bb.reaping = true;
	for (i = 0; i < bb.n; i++) {
		/* a receiver that is gone takes nothing more: given back too */
		if (!mpirma_msg_sync_wait(bb.out[i].job, bb.out[i].token,
					  block)) {
			bb.out[k++] = bb.out[i];
			continue;
		}
		bb.used -= bb.out[i].bytes;
	}
	bb.n = k;
	bb.reaping = false;
}

/* p2p.h */
int mpirma_p2p_bsend(struct mpirma_comm *c, const void *buf, int count,
		     struct mpirma_dtype *t, int dest, int tag)
{
	MPI_Count bytes = (MPI_Count)count * t->size + MPI_BSEND_OVERHEAD;
	struct bsend_out *o;
	uint64_t token;
	int ret;

	if (dest == MPI_PROC_NULL)
		return MPI_SUCCESS;
	reap(false);
	if (bytes > bb.size - bb.used)
		return mpirma_err(MPI_ERR_BUFFER, "%lld bytes do not fit the "
				  "attached buffer (%lld of its %lld bytes "
				  "wait for their receives)", (long long)bytes,
				  (long long)bb.used, (long long)bb.size);
	if (bb.n == bb.cap) {
		int cap = bb.cap ? 2 * bb.cap : 16;

		o = realloc(bb.out, cap * sizeof(*o));
		if (!o)
			return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
		bb.out = o;
		bb.cap = cap;
	}
	ret = mpirma_p2p_send_sync(c, buf, count, t, dest, tag, &token);
	if (ret || !token)
		return ret;
	bb.out[bb.n++] = (struct bsend_out){
		.job = mpirma_comm_job_rank(c, dest), .token = token,
		.bytes = bytes };
	bb.used += bytes;
	return MPI_SUCCESS;
}

static int bsend(const void *buf, int count, MPI_Datatype dt, int dest,
		 int tag, MPI_Comm comm)
{
	struct mpirma_comm *c;
	struct mpirma_dtype *t;
	int ret;

	ret = mpirma_p2p_check(true, comm, count, dt, dest, tag, &c, &t);
	return ret ? ret : mpirma_p2p_bsend(c, buf, count, t, dest, tag);
}

int PMPI_Bsend(const void *buf, int count, MPI_Datatype datatype, int dest,
	       int tag, MPI_Comm comm)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_comm(comm, bsend(buf, count, datatype, dest, tag,
					     comm), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Bsend)

/* Complete at once: the message is out of the caller's buffer. */
int PMPI_Ibsend(const void *buf, int count, MPI_Datatype datatype, int dest,
		int tag, MPI_Comm comm, MPI_Request *request)
{
	int ret;

	MPIRMA_CHECK_INIT();
	ret = request ? bsend(buf, count, datatype, dest, tag, comm) :
	      mpirma_err(MPI_ERR_ARG, "request is NULL");
	if (!ret)
		ret = mpirma_request_new_done(comm, MPI_WIN_NULL, MPI_SUCCESS,
					      request);
	return mpirma_raise_comm(comm, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Ibsend)

static int buffer_attach(void *buffer, MPI_Count size)
{
	if (size < 0)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "negative size");
	if (bb.buf)
		return mpirma_raise(MPI_ERR_BUFFER, MPIRMA_FUNC,
				    "a buffer is already attached");
	bb.buf = buffer;
	bb.size = size;
	return MPI_SUCCESS;
}

int PMPI_Buffer_attach(void *buffer, int size)
{
	MPIRMA_CHECK_INIT();
	return buffer_attach(buffer, size);
}
MPIRMA_ALIAS(Buffer_attach)

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
	MPIRMA_CHECK_INIT();
	return buffer_attach(buffer, size);
}
MPIRMA_ALIAS(Buffer_attach_c)

/*
 * Detaches into *@buffer_addr and *@size (MPI_Count) or *@isize (int),
 * once every message out of the buffer has been taken.
 */
static int buffer_detach(void *buffer_addr, MPI_Count *size, int *isize)
{
	if (!buffer_addr || (!size && !isize))
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "NULL argument");
	if (isize && bb.size > INT_MAX)
		return mpirma_raise(MPI_ERR_VALUE_TOO_LARGE, MPIRMA_FUNC,
				    "the buffer's %lld bytes do not fit an int: "
				    "MPI_Buffer_detach_c", (long long)bb.size);
	reap(true);
	*(void **)buffer_addr = bb.buf;
	if (size)
		*size = bb.size;
	else
		*isize = (int)bb.size;
	bb.buf = NULL;
	bb.size = 0;
	return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
	MPIRMA_CHECK_INIT();
	return buffer_detach(buffer_addr, NULL, size);
}
MPIRMA_ALIAS(Buffer_detach)

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
	MPIRMA_CHECK_INIT();
	return buffer_detach(buffer_addr, size, NULL);
}
MPIRMA_ALIAS(Buffer_detach_c)

/* MPI 4.1: waits until every message out of the buffer has been taken. */
int PMPI_Buffer_flush(void)
{
	MPIRMA_CHECK_INIT();
	reap(true);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Buffer_flush)

/* MPI_Buffer_iflush's request: done once nothing is out of the buffer. */
static int iflush_progress(struct mpirma_request *r, int block)
{
	reap(block);
	if (!bb.n) {
		mpirma_status_empty(&r->status);
		r->done = 1;
	}
	return MPI_SUCCESS;
}

static const struct mpirma_request_ops iflush_ops = {
	.progress = iflush_progress,
};

int PMPI_Buffer_iflush(MPI_Request *request)
{
	struct mpirma_request *r;
	int ret;

	MPIRMA_CHECK_INIT();
	if (!request)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC, "request is NULL");
	ret = mpirma_request_alloc(sizeof(*r), &iflush_ops, &r);
	if (ret)
		return mpirma_raise(ret, MPIRMA_FUNC, NULL);
	r->comm = MPI_COMM_WORLD;
	mpirma_request_progress(r, 0);
	*request = r->handle;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Buffer_iflush)
