/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * node.h - the job across nodes (node.c).
 */
#ifndef MPIRMA_HYBRID_NODE_H
#define MPIRMA_HYBRID_NODE_H

#include "hybrid.h"

/*
 * hybrid/node.c: after the host's MPI_Init (C or Fortran): the node jobs;
 * before the host's MPI_Finalize: the engine leaves them.
 */
int hy_start(void);
void hy_stop(void);

/* Must MPI_Init ask the host for MPI_THREAD_MULTIPLE (for the agents)? */
bool hy_want_threads(void);

#endif /* MPIRMA_HYBRID_NODE_H */
