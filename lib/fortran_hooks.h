/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fortran_hooks.h - what libmpirmaf (fortran/fsupport.c) asks of libmpirma
 * beyond the MPI API.  Exported (lib/libmpirma.map), not part of the API.
 */
#ifndef MPIRMA_FORTRAN_HOOKS_H
#define MPIRMA_FORTRAN_HOOKS_H

#include <mpi.h>

/*
 * Calls @release(extra_state) when @keyval is gone: freed, and no
 * attribute set with it left (so that the record of its Fortran callbacks,
 * its extra_state, is freed with it).  MPI_SUCCESS, or MPI_ERR_KEYVAL when
 * @keyval is no keyval of this process (lib/base/attr.c).
 */
MPIRMA_API int mpirma_keyval_on_free(int keyval,
				      void (*release)(void *extra_state));

/*
 * How long the datatype arrays of the w collectives on @comm are: *@peers
 * for MPI_Alltoallw (the remote group's size on an inter-communicator),
 * *@indeg and *@outdeg for MPI_Neighbor_alltoallw.  0 where the call will
 * fail (not running, an invalid handle, no topology), which it then
 * reports itself: this raises nothing (lib/runtime/topo.c).
 */
MPIRMA_API void mpirma_comm_w_lengths(MPI_Comm comm, int *peers,
				      int *indeg, int *outdeg);

#endif
