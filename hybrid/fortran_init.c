// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fortran_init.c - MPI_INIT, MPI_INIT_THREAD and MPI_FINALIZE from Fortran.
 *
 * Open MPI's Fortran bindings and MPICH's `use mpi_f08` call the PMPI_ C
 * functions, so a Fortran program never reaches the layer's C MPI_Init
 * there; MPICH's mpif.h and `use mpi` call the C MPI_ names, so there it
 * does.  These entry points call the host's own Fortran MPI_INIT_THREAD
 * (which also sets up the host's Fortran sentinels), asking for
 * MPI_THREAD_MULTIPLE for the agents as the C MPI_Init does, and then start
 * the node jobs unless the C MPI_Init already did; MPI_FINALIZE stops them
 * first (hy_stop() is idempotent).  The pmpi_ names are the same
 * functions, so a Fortran tool's PMPI_INIT starts mpirma too; the host's
 * own are therefore looked up past this library (RTLD_NEXT).  Only Fortran
 * programs call these, and only they load the host's Fortran library.  The
 * other Fortran entry points are generated (fortran/gen --style host,
 * hybrid/fortran.list).
 */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "keyval.h"
#include "node.h"

typedef void f_init_thread_fn(MPI_Fint *required, MPI_Fint *provided,
			      MPI_Fint *ierror);
typedef void f_finalize_fn(MPI_Fint *ierror);

#define F_ALIAS(name, target) \
	extern __typeof__(target) name __attribute__((alias(#target)));

/*
 * Every name a Fortran compiler may call, MPI_ and PMPI_, and o##lower##_f:
 * Open MPI's `use mpi_f08` calls ompi_init_f... (which would call the
 * host's PMPI_Init, past the layer).
 */
#define F_ALIASES(lower, upper)				\
	F_ALIAS(lower##__, lower##_)			\
	F_ALIAS(lower, lower##_)			\
	F_ALIAS(upper, lower##_)			\
	F_ALIAS(p##lower##_, lower##_)			\
	F_ALIAS(p##lower##__, lower##_)			\
	F_ALIAS(p##lower, lower##_)			\
	F_ALIAS(P##upper, lower##_)			\
	F_ALIAS(o##lower##_f, lower##_)

/* The host's Fortran routine @name, or NULL (not a Fortran program). */
static void *host_fortran(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* After the host's init: the node jobs, unless its init ran MPI_Init. */
static void started(MPI_Fint *ierror)
{
	if (*ierror == MPI_SUCCESS && !hy.node_of)
		*ierror = hy_start();
}

void mpi_init_(MPI_Fint *ierror);
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided,
		      MPI_Fint *ierror);
void mpi_finalize_(MPI_Fint *ierror);

/*
 * The host's MPI_INIT_THREAD, asked for MPI_THREAD_MULTIPLE when the agents
 * need it (as the C MPI_Init does); the program is given the level it
 * asked for, @required, never more than the host granted.  Under MPICH the
 * host's routine went through the layer's C MPI_Init_thread, which asked
 * on its own behalf; the level is the program's again after it.
 */
static void init_thread(const char *name, MPI_Fint required,
			MPI_Fint *provided, MPI_Fint *ierror)
{
	f_init_thread_fn *host = (f_init_thread_fn *)host_fortran(name);
	MPI_Fint ask = hy_want_threads() ? MPI_THREAD_MULTIPLE : required;
	MPI_Fint got = MPI_THREAD_SINGLE;

	if (!host) {
		*ierror = MPI_ERR_INTERN;
		return;
	}
	host(&ask, &got, ierror);
	if (*ierror != MPI_SUCCESS)
		return;
	*provided = required < got ? required : got;
	hy.thread_level = *provided;
	hy.threads = *provided == MPI_THREAD_MULTIPLE;
	started(ierror);
}

void mpi_init_(MPI_Fint *ierror)
{
	MPI_Fint provided;

	init_thread("pmpi_init_thread_", MPI_THREAD_SINGLE, &provided, ierror);
}
F_ALIASES(mpi_init, MPI_INIT)

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided,
		      MPI_Fint *ierror)
{
	init_thread("pmpi_init_thread_", *required, provided, ierror);
}
F_ALIASES(mpi_init_thread, MPI_INIT_THREAD)

/* The node jobs stopped, then the host's MPI_FINALIZE routine @name. */
static void finalize(const char *name, MPI_Fint *ierror)
{
	f_finalize_fn *host = (f_finalize_fn *)host_fortran(name);

	hy_stop();
	if (!host) {
		*ierror = MPI_ERR_INTERN;
		return;
	}
	host(ierror);
	hy_keyval_stop();
}

void mpi_finalize_(MPI_Fint *ierror)
{
	finalize("pmpi_finalize_", ierror);
}
F_ALIASES(mpi_finalize, MPI_FINALIZE)

#ifdef MPICH_VERSION
/*
 * MPICH's `use mpi_f08` calls MPICH's C PMPI_Init, PMPI_Finalize ... past
 * the layer's C ones, so its entry points are taken over too: the host's
 * own (which may set up its f08 sentinels) and then the node jobs, as
 * above.  ierror may be absent (NULL); an error without it is fatal, as
 * under MPI_ERRORS_ARE_FATAL.  The other f08 entry points are generated
 * with the rest (fortran/fwrap_mpich.py, mpich_f08()).
 */
void mpi_init_f08_(MPI_Fint *ierror);
void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided,
			  MPI_Fint *ierror);
void mpi_finalize_f08_(MPI_Fint *ierror);

/* @e into an optional ierror. */
static void f08_result(MPI_Fint e, MPI_Fint *ierror)
{
	if (ierror)
		*ierror = e;
	else if (e != MPI_SUCCESS)
		PMPI_Abort(MPI_COMM_WORLD, e);
}

void mpi_init_f08_(MPI_Fint *ierror)
{
	MPI_Fint provided, e;

	init_thread("mpi_init_thread_f08_", MPI_THREAD_SINGLE, &provided, &e);
	f08_result(e, ierror);
}

void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided,
			  MPI_Fint *ierror)
{
	MPI_Fint e;

	init_thread("mpi_init_thread_f08_", *required, provided, &e);
	f08_result(e, ierror);
}

void mpi_finalize_f08_(MPI_Fint *ierror)
{
	MPI_Fint e;

	finalize("mpi_finalize_f08_", &e);
	f08_result(e, ierror);
}
F_ALIAS(pmpir_init_f08_, mpi_init_f08_)
F_ALIAS(pmpir_init_thread_f08_, mpi_init_thread_f08_)
F_ALIAS(pmpir_finalize_f08_, mpi_finalize_f08_)
#endif
