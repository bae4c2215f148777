// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fortran_init.c - MPI_INIT, MPI_INIT_THREAD and MPI_FINALIZE from Fortran.
 *
 * Open MPI's Fortran bindings call the PMPI_ C functions, so a Fortran
 * program never reaches the layer's C MPI_Init there; MPICH's call the C
 * MPI_ names, so there it does.  These entry points call the host's own
 * Fortran MPI_INIT_THREAD (which also sets up the host's Fortran
 * sentinels), asking for MPI_THREAD_MULTIPLE for the agents as the C
 * MPI_Init does, and then start the node jobs unless the C MPI_Init
 * already did; MPI_FINALIZE stops
 * them first (hy_stop() is idempotent).  The pmpi_ names are the same
 * functions, so a Fortran tool's PMPI_INIT starts mpirma too; the host's
 * own are therefore looked up past this library (RTLD_NEXT).  Only Fortran
 * programs call these, and only they load the host's Fortran library.  The
 * other Fortran entry points are generated (fortran/gen --style host,
 * hybrid/fortran.list).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hybrid.h"

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
static void init_thread(MPI_Fint required, MPI_Fint *provided,
			MPI_Fint *ierror)
{
	f_init_thread_fn *host =
		(f_init_thread_fn *)host_fortran("pmpi_init_thread_");
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

	init_thread(MPI_THREAD_SINGLE, &provided, ierror);
}
F_ALIASES(mpi_init, MPI_INIT)

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided,
		      MPI_Fint *ierror)
{
	init_thread(*required, provided, ierror);
}
F_ALIASES(mpi_init_thread, MPI_INIT_THREAD)

void mpi_finalize_(MPI_Fint *ierror)
{
	f_finalize_fn *host = (f_finalize_fn *)host_fortran("pmpi_finalize_");

	hy_stop();
	if (!host) {
		*ierror = MPI_ERR_INTERN;
		return;
	}
	host(ierror);
	hy_keyval_stop();
}
F_ALIASES(mpi_finalize, MPI_FINALIZE)

#ifdef MPICH_VERSION
/*
 * MPICH's `use mpi_f08`: its entry points (mpi_init_f08_, mpi_put_f08ts_,
 * ...) call MPICH's C PMPI_ functions directly, so this layer, which takes
 * over the MPI_ names, sees none of such a program's calls and none of its
 * windows can be mpirma's.  Open MPI's mpi_f08 goes through ompi_x_f,
 * which the layer defines (fortran/gen, host style).  Rather than leave a
 * program to MPICH's RMA unannounced, its MPI_Init says so, and fails with
 * MPIRMA_REQUIRE=1 as when a node cannot be served.
 */
typedef void f08_init_fn(MPI_Fint *ierror);
typedef void f08_init_thread_fn(MPI_Fint *required, MPI_Fint *provided,
				MPI_Fint *ierror);

void mpi_init_f08_(MPI_Fint *ierror);
void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided,
			  MPI_Fint *ierror);

/* After MPICH's own f08 init: @e its result; ierror may be absent. */
static void f08_started(MPI_Fint e, MPI_Fint *ierror)
{
	const char *req = getenv("MPIRMA_REQUIRE");
	bool require = req && !strcmp(req, "1");
	int rank = 0;

	if (e == MPI_SUCCESS) {
		PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
		if (rank == 0)
			fprintf(stderr, "mpirma: %sMPICH's mpi_f08 calls MPICH's "
				"PMPI_ functions itself, past the layer: no window "
				"can be mpirma's (use mpi or mpif.h)%s\n",
				require ? "MPIRMA_REQUIRE=1 and " : "",
				require ? ": MPI_Init fails" :
				"; running on MPICH alone");
		if (require)
			e = MPI_ERR_OTHER;
	}
	if (ierror)
		*ierror = e;
	else if (e != MPI_SUCCESS)
		PMPI_Abort(MPI_COMM_WORLD, e);	/* no ierror: errors are fatal */
}

void mpi_init_f08_(MPI_Fint *ierror)
{
	f08_init_fn *host = (f08_init_fn *)host_fortran("mpi_init_f08_");
	MPI_Fint e = MPI_ERR_INTERN;

	if (host)
		host(&e);
	f08_started(e, ierror);
}

void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided,
			  MPI_Fint *ierror)
{
	f08_init_thread_fn *host =
		(f08_init_thread_fn *)host_fortran("mpi_init_thread_f08_");
	MPI_Fint e = MPI_ERR_INTERN;

	if (host)
		host(required, provided, &e);
	f08_started(e, ierror);
}
#endif
