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
 * blocking collectives' nor each other's.  A persistent collective is a
 * schedule built at its init call and run again by each MPI_Start.
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
 * *@out before a schedule's call asks for a persistent collective
 * (MPI_Bcast_init ...): mpirma_nbc_start() then returns it inactive.
 */
#define MPIRMA_NBC_PERSISTENT	(-1)

/*
 * Starts @s: its request in *@out, its first round begun.  With *@out
 * MPIRMA_NBC_PERSISTENT, an inactive persistent request instead, which
 * MPI_Start starts (again and again).  With @out NULL, runs @s to its end
 * and frees it (the blocking neighborhood collectives): the class of a
 * failed step.  On failure @s is freed.  MPI class.
 */
int mpirma_nbc_start(struct mpirma_nbc *s, MPI_Request *out);

/*
 * The request argument of a nonblocking (@persistent false) or persistent
 * collective, and the latter's @info: *@request set to MPI_REQUEST_NULL,
 * or MPIRMA_NBC_PERSISTENT for the schedule's call.  MPI class.
 */
int mpirma_nbc_request_arg(MPI_Request *request, MPI_Info info,
			   bool persistent);

#define MPIRMA_UNPAREN(...) __VA_ARGS__

/*
 * The nonblocking and persistent entry points of a collective whose
 * @body(@args..., MPI_Request *request) checks its arguments and builds
 * its schedule (coll_entry.c, coll_neighbor.c): PMPI_@iname(@params...,
 * request) and PMPI_@name_init(@params..., info, request), with their
 * MPI_ aliases.  Errors are raised on the parameter comm; a failed init
 * leaves MPI_REQUEST_NULL.
 */
#define MPIRMA_COLL_NB_FORMS(name, iname, body, params, args)		\
int PMPI_##iname(MPIRMA_UNPAREN params, MPI_Request *request)		\
{									\
	MPIRMA_COLL_REQUEST_BODY_(body, args, MPI_INFO_NULL, false);	\
}									\
MPIRMA_ALIAS(iname)							\
									\
int PMPI_##name##_init(MPIRMA_UNPAREN params, MPI_Info info,		\
		       MPI_Request *request)				\
{									\
	MPIRMA_COLL_REQUEST_BODY_(body, args, info, true);		\
}									\
MPIRMA_ALIAS(name##_init)

/* Of both: the request and info checked, @body called, its error raised. */
#define MPIRMA_COLL_REQUEST_BODY_(body, args, info, persistent)		\
	int ret_;							\
									\
	MPIRMA_CHECK_INIT();						\
	ret_ = mpirma_nbc_request_arg(request, (info), (persistent));	\
	if (!ret_)							\
		ret_ = body(MPIRMA_UNPAREN args, request);		\
	if (ret_ && request)						\
		*request = MPI_REQUEST_NULL;				\
	return mpirma_raise_comm(comm, ret_, MPIRMA_FUNC, NULL)

/* The blocking entry point PMPI_@name too (@body with request NULL). */
#define MPIRMA_COLL_FORMS(name, iname, body, params, args)		\
int PMPI_##name(MPIRMA_UNPAREN params)					\
{									\
	MPIRMA_CHECK_INIT();						\
	return mpirma_raise_comm(comm, body(MPIRMA_UNPAREN args, NULL),	\
				 MPIRMA_FUNC, NULL);			\
}									\
MPIRMA_ALIAS(name)							\
MPIRMA_COLL_NB_FORMS(name, iname, body, params, args)

/* Advances every schedule not complete, once, without waiting. */
void mpirma_nbc_progress(void);
/* Is any schedule not complete? (Then waits must keep advancing them.) */
bool mpirma_nbc_pending(void);

/* ------------------------------------------------------------ schedules */

/*
 * The nonblocking forms of the algorithms of coll.h, with the same
 * arguments (checked) and the request in *@out; on an inter-communicator
 * the nbc_inter.c schedules below.  MPI class.
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

/*
 * The same on inter-communicators (nbc_inter.c): the schedules' peers are
 * the remote group's ranks.
 */
int mpirma_nbc_inter_barrier(struct mpirma_comm *c, MPI_Request *out);
int mpirma_nbc_inter_bcast(struct mpirma_comm *c, void *buf, int count,
			   struct mpirma_dtype *t, int root, MPI_Request *out);
int mpirma_nbc_inter_reduce(struct mpirma_comm *c, const void *sendbuf,
			    void *recvbuf, int count, struct mpirma_dtype *t,
			    MPI_Datatype dt, MPI_Op op, int root,
			    MPI_Request *out);
int mpirma_nbc_inter_allreduce(struct mpirma_comm *c, const void *sendbuf,
			       void *recvbuf, int count,
			       struct mpirma_dtype *t, MPI_Datatype dt,
			       MPI_Op op, MPI_Request *out);
int mpirma_nbc_inter_reduce_scatter(struct mpirma_comm *c,
				    const void *sendbuf, void *recvbuf,
				    int rcount, const int *counts,
				    struct mpirma_dtype *t, MPI_Datatype dt,
				    MPI_Op op, MPI_Request *out);
int mpirma_nbc_inter_rooted(struct mpirma_comm *c, bool gather, void *buf,
			    int count, const int *counts, const int *displs,
			    struct mpirma_dtype *bt, void *obuf, int ocount,
			    struct mpirma_dtype *ot, int root, MPI_Request *out);
int mpirma_nbc_inter_allgatherv(struct mpirma_comm *c, const void *sendbuf,
				int scount, struct mpirma_dtype *st,
				void *recvbuf, int rcount, const int *counts,
				const int *displs, struct mpirma_dtype *rt,
				MPI_Request *out);
struct mpirma_a2a_side;
int mpirma_nbc_inter_a2a(struct mpirma_comm *c, const struct mpirma_a2a_side *sd,
			 const struct mpirma_a2a_side *rd, MPI_Request *out);

#endif /* MPIRMA_LIB_NBC_H */
