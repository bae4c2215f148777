/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * transport.h - which transport the agents use (transport.c).
 */
#ifndef MPIRMA_HYBRID_TRANSPORT_H
#define MPIRMA_HYBRID_TRANSPORT_H

#include <stdbool.h>

#include "hybrid.h"

/*
 * Before MPI_Init: does this rank want the host's transport (and so
 * MPI_THREAD_MULTIPLE of the host)?  Only MPIRMA_AGENT_TRANSPORT=host.
 */
bool hy_transport_want_host(void);

/*
 * Collective over MPI_COMM_WORLD: the host's transport when every rank
 * wants it and its host granted MPI_THREAD_MULTIPLE (@multiple), else the
 * own one.  True: the host's.
 */
bool hy_transport_choose(bool multiple);
bool hy_transport_on_host(void);

#endif /* MPIRMA_HYBRID_TRANSPORT_H */
