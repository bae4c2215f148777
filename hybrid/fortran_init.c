// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fortran_init.c - MPI_INIT, MPI_INIT_THREAD and MPI_FINALIZE from Fortran.
 *
 * Both host MPIs' Fortran bindings call PMPI_ C functions, so a Fortran
 * program never reaches the layer's C MPI_Init.  These entry points call
 * the host's own Fortran ones (pmpi_init_ ..., which also set up the host's
 * Fortran sentinels) and then start or stop the node jobs as the C calls
 * do.  The host's Fortran library is loaded only by Fortran programs: the
 * symbols are weak, and only such programs call these.  The other Fortran
 * entry points are generated (fortran/gen --style host, hybrid/fortran.list).
 */
#include "hybrid.h"

void pmpi_init_(MPI_Fint *ierror) __attribute__((weak));
void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided,
		       MPI_Fint *ierror) __attribute__((weak));
void pmpi_finalize_(MPI_Fint *ierror) __attribute__((weak));

#define F_ALIAS(name, target) \
	extern __typeof__(target) name __attribute__((alias(#target)));

void mpi_init_(MPI_Fint *ierror);
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided,
		      MPI_Fint *ierror);
void mpi_finalize_(MPI_Fint *ierror);

void mpi_init_(MPI_Fint *ierror)
{
	if (!pmpi_init_) {
		*ierror = MPI_ERR_INTERN;
		return;
	}
	pmpi_init_(ierror);
	if (*ierror == MPI_SUCCESS)
		*ierror = hy_start();
}
F_ALIAS(mpi_init__, mpi_init_)
F_ALIAS(mpi_init, mpi_init_)
F_ALIAS(MPI_INIT, mpi_init_)

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided,
		      MPI_Fint *ierror)
{
	if (!pmpi_init_thread_) {
		*ierror = MPI_ERR_INTERN;
		return;
	}
	pmpi_init_thread_(required, provided, ierror);
	if (*ierror == MPI_SUCCESS)
		*ierror = hy_start();
}
F_ALIAS(mpi_init_thread__, mpi_init_thread_)
F_ALIAS(mpi_init_thread, mpi_init_thread_)
F_ALIAS(MPI_INIT_THREAD, mpi_init_thread_)

void mpi_finalize_(MPI_Fint *ierror)
{
	hy_stop();
	if (!pmpi_finalize_) {
		*ierror = MPI_ERR_INTERN;
		return;
	}
	pmpi_finalize_(ierror);
}
F_ALIAS(mpi_finalize__, mpi_finalize_)
F_ALIAS(mpi_finalize, mpi_finalize_)
F_ALIAS(MPI_FINALIZE, mpi_finalize_)
