/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * coll.h - small collectives over the host's point-to-point whose every
 * round waits serving the agent's messages (coll.c), for waits.c.  Each
 * sets *done when it did the collective (its result is then the return
 * value, a host class); otherwise the caller runs the host's own call.
 */
#ifndef MPIRMA_HYBRID_COLL_H
#define MPIRMA_HYBRID_COLL_H

#include <stdbool.h>

#include "hybrid.h"

int hy_coll_barrier(MPI_Comm comm, bool *done);

/*
 * hy_coll_serve() marks @comm, a window that spans nodes was just created
 * over it (every member, at the same point); hy_coll_serves(): do the
 * program's collectives on @comm serve, while agents run?
 */
void hy_coll_serve(MPI_Comm comm);
bool hy_coll_serves(MPI_Comm comm);

int hy_coll_allreduce(const void *in, void *out, int count,
		      MPI_Datatype type, MPI_Op op, MPI_Comm comm, bool *done);
int hy_coll_bcast(void *buf, int count, MPI_Datatype type, int root,
		  MPI_Comm comm, bool *done);

#endif /* MPIRMA_HYBRID_COLL_H */
