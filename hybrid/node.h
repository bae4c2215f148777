/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * node.h - the job across nodes (node.c).
 */
#ifndef MPIRMA_HYBRID_NODE_H
#define MPIRMA_HYBRID_NODE_H

#include <pthread.h>

#include "hybrid.h"

/*
 * hybrid/node.c: after the host's MPI_Init (C or Fortran): the node jobs;
 * before the host's MPI_Finalize: the engine leaves them.
 */
int hy_start(void);
void hy_stop(void);

/*
 * hybrid/wtime.c: whose clock MPI_Wtime reads, from hy_start() on: true
 * where the engine's (but for MPIRMA_WTIME_TSC=0).
 */
bool hy_wtime_start(void);

/* Must MPI_Init ask the host for MPI_THREAD_MULTIPLE (transport.c)? */
bool hy_want_threads(void);

/*
 * Lets @thread run on any CPU this node's ranks may run on between them,
 * not only its process's (a launcher binds each rank to a core of its
 * own, where the rank spins while it waits).
 */
void hy_node_affinity(pthread_t thread);

#endif /* MPIRMA_HYBRID_NODE_H */
