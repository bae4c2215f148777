/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * request.h - helpers around the request object of internal.h
 * (struct mpirma_request, mpirma_request_alloc/destroy/get), all in
 * lib/runtime/request.c and request_pool.c.
 *
 * A kind of request (a posted receive, an RMA request) embeds struct
 * mpirma_request first, allocates with mpirma_request_alloc() and provides
 * struct mpirma_request_ops.  Its progress callback marks completion with
 * mpirma_request_complete(); the error class it puts there is what
 * MPI_Wait & co. raise on r->win (if set) or else r->comm.  A progress
 * callback that returns an error class without completing the request
 * completes it with that class.
 *
 * MPI_Request_free on a pending request drops the handle at once (r->handle
 * becomes MPI_REQUEST_NULL) and keeps the object until it completes: every
 * progress pass tries such orphans and destroys the finished ones.
 */
#ifndef MPIRMA_LIB_REQUEST_H
#define MPIRMA_LIB_REQUEST_H

#include "internal.h"

/*
 * Marks @r complete: r->done and r->status (@source, @tag in the
 * communicator's ranks, @error an MPI class, @bytes received).
 */
/*
 * A poll that found nothing (MPI_Test, MPI_Iprobe...) on a node with more
 * ranks than CPUs (no spinning there, init.c): yields the CPU to the rank
 * that must act, which a program polling in a loop would otherwise keep
 * waiting for its whole time slice.
 */
void mpirma_poll_missed(void);

void mpirma_request_complete(struct mpirma_request *r, int source, int tag,
			     int error, MPI_Count bytes);

/*
 * A new request that is complete already (MPI_Isend, an RMA request the
 * library finished at once), with an empty status except @error.  Errors
 * go to @win if not MPI_WIN_NULL, else @comm.  MPI class (MPI_ERR_NO_MEM).
 */
int mpirma_request_new_done(MPI_Comm comm, MPI_Win win, int error,
			    MPI_Request *out);
/*
 * The same for a receive on @comm complete at its call, under the library
 * lock: the request, to fill its status, or NULL (MPI_ERR_NO_MEM recorded).
 */
struct mpirma_request *mpirma_request_recvd(MPI_Comm comm, MPI_Request *out);

/*
 * One non-blocking pass over everything that can progress: posted
 * receives (p2p.c), nonblocking collectives (nbc.c) and orphaned
 * requests.
 */
void mpirma_progress(void);

/* Runs @r's progress once; a failure completes it with that class. */
void mpirma_request_progress(struct mpirma_request *r, int block);

#endif /* MPIRMA_LIB_REQUEST_H */
