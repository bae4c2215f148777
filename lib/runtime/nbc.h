/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * nbc.h - nonblocking collectives (docs/lib.md, "Nonblocking
 * collectives"): the schedule engine (lib/runtime/nbc.c) and the
 * schedules of the MPI calls (lib/runtime/nbc_sched.c).
 *
 * A schedule is a list of rounds; a round is a list of steps: send,
 * receive, reduce, copy.  Starting a round runs its steps in order: a
 * send, a reduction or a copy is done at once (sends never wait: p2p.h),
 * a receive is tried.  The round ends when all its receives have come;
 * then the next one starts.  So a step may use what earlier rounds
 * received, and a send or a reduction may follow a reduction of the same
 * round, but nothing in a round may use what that round receives.
 *
 * A schedule lives in a request whose progress advances it without
 * waiting; every schedule not yet complete is advanced by every progress
 * pass (mpirma_progress(), request.h) and by every wait of the transport
 * (shmq_recv(), mpirma_msg_recv()), so they complete in whatever order
 * the program waits for them.  Their messages go over the communicator's
 * collective context with a tag of their own per call (the
 * communicator's count of nonblocking collectives), so they match neither
 * blocking collectives' nor each other's.
 */
#ifndef MPIRMA_LIB_NBC_H
#define MPIRMA_LIB_NBC_H

#include <stdbool.h>

#include "runtime.h"

struct mpirma_dtype;
struct mpirma_nbc;

/* ------------------------------------------------------------ engine */

/*
 * A new, empty schedule on intra-communicator @c.  Adding steps cannot
 * fail: a step that finds no memory fails mpirma_nbc_start().  MPI class.
 */
int mpirma_nbc_new(struct mpirma_comm *c, struct mpirma_nbc **out);

/* Steps: @count elements of @t (referenced until the schedule ends). */
void mpirma_nbc_send(struct mpirma_nbc *s, int peer, const void *buf,
		     MPI_Count count, struct mpirma_dtype *t);
void mpirma_nbc_recv(struct mpirma_nbc *s, int peer, void *buf,
		     MPI_Count count, struct mpirma_dtype *t);
/* @inout = @in op @inout (mpirma_op_apply()). */
void mpirma_nbc_op(struct mpirma_nbc *s, MPI_Op op, MPI_Datatype dt,
		   const void *in, void *inout, int count);
/* A typed copy (mpirma_dtype_copy()). */
void mpirma_nbc_copy(struct mpirma_nbc *s, const void *src, MPI_Count scount,
		     struct mpirma_dtype *stype, void *dst,
		     MPI_Count dcount, struct mpirma_dtype *dtype);
/* Ends the round: the steps added next wait for its receives. */
void mpirma_nbc_round(struct mpirma_nbc *s);
/*
 * Scratch memory for @count elements of @t (mpirma_dtype_scratch()),
 * freed with the schedule; NULL when out of memory (the schedule then
 * fails to start).
 */
void *mpirma_nbc_scratch(struct mpirma_nbc *s, struct mpirma_dtype *t,
			 MPI_Count count);

/*
 * Starts @s: its request in *@out, its first round begun.  On failure @s
 * is freed.  MPI class.
 */
int mpirma_nbc_start(struct mpirma_nbc *s, MPI_Request *out);

/* Advances every schedule not complete, once, without waiting. */
void mpirma_nbc_progress(void);
/* Is any schedule not complete? (Then waits must keep advancing them.) */
bool mpirma_nbc_pending(void);

/* ------------------------------------------------------------ schedules */

/*
 * The nonblocking forms of the algorithms of coll.h, on intra-communicators,
 * with the same arguments (checked) and the request in *@out.  MPI class.
 */
int mpirma_nbc_barrier(struct mpirma_comm *c, MPI_Request *out);
int mpirma_nbc_bcast(struct mpirma_comm *c, void *buf, int count,
		     struct mpirma_dtype *t, int root, MPI_Request *out);
int mpirma_nbc_reduce(struct mpirma_comm *c, const void *sendbuf,
		      void *recvbuf, int count, struct mpirma_dtype *t,
		      MPI_Datatype dt, MPI_Op op, int root, MPI_Request *out);
int mpirma_nbc_allreduce(struct mpirma_comm *c, const void *sendbuf,
			 void *recvbuf, int count, struct mpirma_dtype *t,
			 MPI_Datatype dt, MPI_Op op, MPI_Request *out);
int mpirma_nbc_rooted(struct mpirma_comm *c, bool gather, void *buf,
		      int count, const int *counts, const int *displs,
		      struct mpirma_dtype *bt, void *obuf, int ocount,
		      struct mpirma_dtype *ot, int root, MPI_Request *out);
int mpirma_nbc_allgatherv(struct mpirma_comm *c, const void *sendbuf,
			  int scount, struct mpirma_dtype *st, void *recvbuf,
			  int rcount, const int *counts, const int *displs,
			  struct mpirma_dtype *rt, MPI_Request *out);
int mpirma_nbc_alltoallv(struct mpirma_comm *c, const void *sendbuf,
			 int scount, const int *scounts, const int *sdispls,
			 struct mpirma_dtype *st, void *recvbuf, int rcount,
			 const int *rcounts, const int *rdispls,
			 struct mpirma_dtype *rt, MPI_Request *out);
int mpirma_nbc_alltoallw(struct mpirma_comm *c, const void *sendbuf,
			 const int *scounts, const int *sdispls,
			 struct mpirma_dtype *const *stypes, void *recvbuf,
			 const int *rcounts, const int *rdispls,
			 struct mpirma_dtype *const *rtypes, MPI_Request *out);
int mpirma_nbc_reduce_scatter(struct mpirma_comm *c, const void *sendbuf,
			      void *recvbuf, int rcount, const int *counts,
			      struct mpirma_dtype *t, MPI_Datatype dt,
			      MPI_Op op, MPI_Request *out);
int mpirma_nbc_scan(struct mpirma_comm *c, const void *sendbuf,
		    void *recvbuf, int count, struct mpirma_dtype *t,
		    MPI_Datatype dt, MPI_Op op, bool exclusive,
		    MPI_Request *out);

#endif /* MPIRMA_LIB_NBC_H */
