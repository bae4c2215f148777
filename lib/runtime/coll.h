/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * coll.h - collectives as internal calls (lib/runtime/coll.c), for library code
 * that needs them on a communicator object (window creation, communicator
 * construction).  Arguments are trusted (checked datatypes, valid ranks);
 * each returns MPI_SUCCESS or an MPI class recorded with mpirma_err() and
 * raises nothing.  All members must call them in the same order, as for
 * the MPI calls, with which they share the communicator's collective
 * context.
 */
#ifndef MPIRMA_LIB_COLL_H
#define MPIRMA_LIB_COLL_H

#include "internal.h"

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

#endif /* MPIRMA_LIB_COLL_H */
