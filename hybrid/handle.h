/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * handle.h - the program's handle of a window the engine serves (handle.c).
 */
#ifndef MPIRMA_HYBRID_HANDLE_H
#define MPIRMA_HYBRID_HANDLE_H

#include "hybrid.h"

/*
 * The program's handle of a window the engine serves alone (and of one
 * that spans nodes when agents run): a host window of no bytes on
 * MPI_COMM_SELF.  Not collective; host class.
 */
int hy_win_handle(MPI_Info info, MPI_Win *host);

#endif /* MPIRMA_HYBRID_HANDLE_H */
