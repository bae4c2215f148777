/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * waits.h - the layer's waits, which serve the agent's connections while
 * they wait (waits.c).  Each is the host's call of the same name, blocking
 * until done; host classes.
 */
#ifndef MPIRMA_HYBRID_WAITS_H
#define MPIRMA_HYBRID_WAITS_H

#include "hybrid.h"

/* PMPI_Waitall of @n requests (at most HY_WAIT_REQS), statuses ignored. */
int hy_wait(int n, MPI_Request *req);
int hy_wait_barrier(MPI_Comm comm);

/*
 * Takes the lock word @word as @type (lockword.c), waiting for it when
 * others hold it or wait for it, serving meanwhile.
 */
void hy_wait_word(uint64_t *word, int type);

/* Waits for the agents' frame @r (net.h), serving meanwhile: its status. */
struct hy_nrecv;
int hy_wait_net(struct hy_nrecv *r);

/* The layer's own collectives in window creation (count, type each side). */
int hy_wait_allreduce(const void *in, void *out, int count, MPI_Datatype type,
		      MPI_Op op, MPI_Comm comm);
int hy_wait_allgather(const void *in, int count, MPI_Datatype type, void *out,
		      MPI_Comm comm);
int hy_wait_comm_dup(MPI_Comm comm, MPI_Comm *out);

#endif /* MPIRMA_HYBRID_WAITS_H */
