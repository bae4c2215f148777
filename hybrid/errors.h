/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * errors.h - the layer's one error flow (errors.c).  A call's failure has
 * a cause, recorded with its message in this thread: the engine's code
 * (hy_inner) or the layer's own class (hy_fail), each returning the host's
 * class.  The call ends with hy_raise, which gives any class but
 * MPI_SUCCESS to the error handler of the program's window handle, in the
 * name of the call the program made, printing the recorded cause first
 * when that handler ends the job.  (hy_leave, win.h, is the common end of
 * a call on a window: hy_inner of the engine's code, then hy_raise.)
 */
#ifndef MPIRMA_HYBRID_ERRORS_H
#define MPIRMA_HYBRID_ERRORS_H

#include "hybrid.h"

/* The slow halves of hy_inner() and hy_raise(). */
int hy_inner_failed(int inner_code);
int hy_raise_failed(MPI_Win host, int host_class, const char *fn);

/* The engine's @inner_code (or MPII_SUCCESS) as the host's class. */
static inline int hy_inner(int inner_code)
{
	return inner_code == MPII_SUCCESS ? MPI_SUCCESS :
	       hy_inner_failed(inner_code);
}

/*
 * Lets go of @eh, a handler an MPI_*_get_errhandler call returned: freed
 * unless null or predefined.  Both hosts keep their predefined ones
 * anyway, and the layer's receives look at a handler at every call.
 */
static inline void hy_errhandler_put(MPI_Errhandler *eh)
{
	if (*eh == MPI_ERRHANDLER_NULL || *eh == MPI_ERRORS_ARE_FATAL ||
#ifdef MPI_ERRORS_ABORT
	    *eh == MPI_ERRORS_ABORT ||
#endif
	    *eh == MPI_ERRORS_RETURN)
		return;
	PMPI_Errhandler_free(eh);
}

/* A failure of the layer's own: its message, and @host_class back. */
int hy_fail(int host_class, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * The end of call @fn on the program's window handle @host: returns
 * @host_class, after the window's error handler has had it.
 */
static inline int hy_raise(MPI_Win host, int host_class, const char *fn)
{
	return host_class == MPI_SUCCESS ? MPI_SUCCESS :
	       hy_raise_failed(host, host_class, fn);
}

#endif /* MPIRMA_HYBRID_ERRORS_H */
