/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * coll.h - collectives as internal calls (lib/runtime/coll*.c), for library
 * code that needs them on a communicator object (window creation,
 * communicator construction) and for the MPI calls
 * (lib/runtime/coll_entry.c).  Arguments are trusted (checked datatypes,
 * valid ranks); each returns MPI_SUCCESS or an MPI class recorded with
 * mpirma_err() and raises nothing.  All members must call them in the same
 * order, as for the MPI calls, with which they share the communicator's
 * collective context.
 */
#ifndef MPIRMA_LIB_COLL_H
#define MPIRMA_LIB_COLL_H

#include "runtime.h"

int mpirma_coll_barrier(struct mpirma_comm *c);
int mpirma_coll_bcast(struct mpirma_comm *c, void *buf, int count,
		      MPI_Datatype dt, int root);
/* @sendbuf may be MPI_IN_PLACE. */
int mpirma_coll_allreduce(struct mpirma_comm *c, const void *sendbuf,
			  void *recvbuf, int count, MPI_Datatype dt, MPI_Op op);
/* @sendbuf may be MPI_IN_PLACE. */
int mpirma_coll_allgather(struct mpirma_comm *c, const void *sendbuf,
			  int sendcount, MPI_Datatype sendtype, void *recvbuf,
			  int recvcount, MPI_Datatype recvtype);

/*
 * The algorithms behind the MPI calls, for lib/runtime/coll_entry.c, which
 * checks the arguments first: datatypes as checked objects (@t, @st, @rt,
 * @bt, @ot; @dt is @t's handle, for the op), on intra- and
 * inter-communicators alike but reduce_scatter and scan (intra only).
 * Counts arrays NULL: the fixed-count form, @count each at i * count.
 */
struct mpirma_dtype;

int mpirma_coll_run_bcast(struct mpirma_comm *c, void *buf, int count,
			  struct mpirma_dtype *t, int root);
int mpirma_coll_run_reduce(struct mpirma_comm *c, const void *sendbuf,
			   void *recvbuf, int count, struct mpirma_dtype *t,
			   MPI_Datatype dt, MPI_Op op, int root);
int mpirma_coll_run_allreduce(struct mpirma_comm *c, const void *sendbuf,
			      void *recvbuf, int count, struct mpirma_dtype *t,
			      MPI_Datatype dt, MPI_Op op);
/*
 * A small allreduce of a predefined datatype and op on an intra-
 * communicator of 2^k ranks, on the stack and without the checks: the
 * arguments it takes are valid.  MPIRMA_COLL_GENERAL when it does not take
 * them (any other, or an error to report): check and run the above.
 */
#define MPIRMA_COLL_GENERAL	(-1)
int mpirma_coll_allreduce_small(struct mpirma_comm *c, const void *sendbuf,
				void *recvbuf, int count, MPI_Datatype dt,
				MPI_Op op);
/*
 * Gather(v) (@gather) and Scatter(v): the root's side is @buf (what a
 * gather receives into, a scatter sends from), every other rank's @obuf.
 */
int mpirma_coll_run_rooted(struct mpirma_comm *c, bool gather, void *buf,
			   int count, const int *counts, const int *displs,
			   struct mpirma_dtype *bt, void *obuf, int ocount,
			   struct mpirma_dtype *ot, int root);
int mpirma_coll_run_allgatherv(struct mpirma_comm *c, const void *sendbuf,
			       int scount, struct mpirma_dtype *st,
			       void *recvbuf, int rcount, const int *counts,
			       const int *displs, struct mpirma_dtype *rt);
int mpirma_coll_run_alltoallv(struct mpirma_comm *c, const void *sendbuf,
			      int scount, const int *scounts,
			      const int *sdispls, struct mpirma_dtype *st,
			      void *recvbuf, int rcount, const int *rcounts,
			      const int *rdispls, struct mpirma_dtype *rt);
/*
 * Alltoallw, intra-communicators only: block i is @counts[i] elements of
 * @types[i] at byte displacement @displs[i] on either side.
 */
int mpirma_coll_run_alltoallw(struct mpirma_comm *c, const void *sendbuf,
			      const int *scounts, const int *sdispls,
			      struct mpirma_dtype *const *stypes,
			      void *recvbuf, const int *rcounts,
			      const int *rdispls,
			      struct mpirma_dtype *const *rtypes);
int mpirma_coll_run_reduce_scatter(struct mpirma_comm *c, const void *sendbuf,
				   void *recvbuf, int rcount,
				   const int *counts, struct mpirma_dtype *t,
				   MPI_Datatype dt, MPI_Op op);
/* Scan, or with @exclusive Exscan. */
int mpirma_coll_run_scan(struct mpirma_comm *c, const void *sendbuf,
			 void *recvbuf, int count, struct mpirma_dtype *t,
			 MPI_Datatype dt, MPI_Op op, bool exclusive);

/* Is the caller the root of a rooted collective? */
static inline bool mpirma_coll_is_root(const struct mpirma_comm *c, int root)
{
	if (c->inter)
		return root == MPI_ROOT;
	return root >= 0 && root < c->size && c->rank == root;
}

#endif /* MPIRMA_LIB_COLL_H */
