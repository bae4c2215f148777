// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * fsupport.c - the support code of the generated Fortran wrappers
 * (fsupport.h): the trampolines through which the C library calls the
 * Fortran callbacks of keyvals and generalized requests, the predefined
 * Fortran attribute callbacks, and the lengths of the w collectives'
 * datatype arrays (libmpirma's hooks, lib/fortran_hooks.h, tell them).
 *
 * A Fortran callback takes every argument by reference and returns its
 * error in a last IERROR; the C library calls its callbacks with values.
 * So the constructor's wrapper registers the trampolines below, with a
 * record of the Fortran procedures as the C extra_state.
 */
#include <stdlib.h>

#include "fsupport.h"
#include "fortran_hooks.h"

#define F_TRUE	1		/* gfortran's .TRUE. */

struct mpirma_f_cb *mpirma_f_cb_new(void)
{
	return calloc(1, sizeof(struct mpirma_f_cb));
}

static void cb_release(void *extra)
{
	free(extra);
}

int mpirma_f_cb_keyval(struct mpirma_f_cb *cb, int ret, int keyval)
{
	if (ret != MPI_SUCCESS || mpirma_keyval_on_free(keyval, cb_release))
		free(cb);
	return ret;
}

int mpirma_f_cb_request(struct mpirma_f_cb *cb, int ret)
{
	if (ret != MPI_SUCCESS)
		free(cb);
	return ret;
}

/* ------------------------------------------------------------ keyvals */

typedef void f_copy_fn(MPI_Fint *old, MPI_Fint *key, void *extra, void *in,
		       void *out, MPI_Fint *flag, MPI_Fint *ierr);
typedef void f_delete_fn(MPI_Fint *h, MPI_Fint *key, void *val, void *extra,
			 MPI_Fint *ierr);

/*
 * The copy callback of the Fortran handle @old: attribute values as
 * address-kind integers, or (@ints, MPI_KEYVAL_CREATE) default INTEGERs.
 */
static int f_copy(MPI_Fint old, int keyval, struct mpirma_f_cb *cb, void *in,
		  void *out, int *flag, int ints)
{
	MPI_Fint key = keyval, fflag = 0, ierr = MPI_SUCCESS;
	f_copy_fn *fn = (f_copy_fn *)cb->fn[0];

	if (ints) {
		MPI_Fint x = (MPI_Fint)cb->extra, i = (MPI_Fint)(MPI_Aint)in;
		MPI_Fint o = 0;

		fn(&old, &key, &x, &i, &o, &fflag, &ierr);
		if (fflag)
			*(void **)out = (void *)(MPI_Aint)o;
	} else {
		MPI_Aint i = (MPI_Aint)in, o = 0;

		fn(&old, &key, &cb->extra, &i, &o, &fflag, &ierr);
		if (fflag)
			*(void **)out = (void *)o;
	}
	*flag = fflag != 0;
	return ierr;
}

static int f_delete(MPI_Fint h, int keyval, void *val, struct mpirma_f_cb *cb,
		    int ints)
{
	MPI_Fint key = keyval, ierr = MPI_SUCCESS;
	f_delete_fn *fn = (f_delete_fn *)cb->fn[1];

	if (ints) {
		MPI_Fint x = (MPI_Fint)cb->extra, v = (MPI_Fint)(MPI_Aint)val;

		fn(&h, &key, &v, &x, &ierr);
	} else {
		MPI_Aint v = (MPI_Aint)val;

		fn(&h, &key, &v, &cb->extra, &ierr);
	}
	return ierr;
}

/* The trampolines of one object kind (@c2f converts its handles). */
#define KEYVAL_TRAMPOLINES(copy_name, delete_name, handle_t, c2f, ints)	\
int copy_name(handle_t old, int keyval, void *extra, void *in, void *out, \
	      int *flag)						\
{									\
	return f_copy(c2f(old), keyval, extra, in, out, flag, ints);	\
}									\
									\
int delete_name(handle_t h, int keyval, void *val, void *extra)		\
{									\
	return f_delete(c2f(h), keyval, val, extra, ints);		\
}

KEYVAL_TRAMPOLINES(mpirma_f_comm_copy_attr_function,
		   mpirma_f_comm_delete_attr_function, MPI_Comm,
		   PMPI_Comm_c2f, 0)
KEYVAL_TRAMPOLINES(mpirma_f_win_copy_attr_function,
		   mpirma_f_win_delete_attr_function, MPI_Win,
		   PMPI_Win_c2f, 0)
KEYVAL_TRAMPOLINES(mpirma_f_type_copy_attr_function,
		   mpirma_f_type_delete_attr_function, MPI_Datatype,
		   PMPI_Type_c2f, 0)
KEYVAL_TRAMPOLINES(mpirma_f_copy_function, mpirma_f_delete_function,
		   MPI_Comm, PMPI_Comm_c2f, 1)

/*
 * The predefined callbacks as Fortran calls them.  The communicator,
 * window and datatype ones differ only in their handle's Fortran type: one
 * function each, under every name.  MPI_NULL_COPY_FN and
 * MPI_NULL_DELETE_FN (default INTEGER values) touch no value either; only
 * MPI_DUP_FN needs its own.  Not the UPPER case mangling: that is the C
 * function's name.
 */
void mpi_comm_null_copy_fn_(MPI_Fint *old, MPI_Fint *key, MPI_Aint *extra,
			    MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag,
			    MPI_Fint *ierr)
{
	(void)old, (void)key, (void)extra, (void)in, (void)out;
	*flag = 0;
	*ierr = MPI_SUCCESS;
}

void mpi_comm_dup_fn_(MPI_Fint *old, MPI_Fint *key, MPI_Aint *extra,
		      MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag,
		      MPI_Fint *ierr)
{
	(void)old, (void)key, (void)extra;
	*out = *in;
	*flag = F_TRUE;
	*ierr = MPI_SUCCESS;
}

void mpi_comm_null_delete_fn_(MPI_Fint *h, MPI_Fint *key, MPI_Aint *val,
			      MPI_Aint *extra, MPI_Fint *ierr)
{
	(void)h, (void)key, (void)val, (void)extra;
	*ierr = MPI_SUCCESS;
}

void mpi_dup_fn_(MPI_Fint *old, MPI_Fint *key, MPI_Fint *extra,
		 MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr)
{
	(void)old, (void)key, (void)extra;
	*out = *in;
	*flag = F_TRUE;
	*ierr = MPI_SUCCESS;
}

#define F_ALIAS(name, target) \
	extern __typeof__(target) name __attribute__((alias(#target)));
/* lower_, lower__ and lower of @stem, as @target */
#define F_NAMES(stem, target)			\
	F_ALIAS(stem##_, target)		\
	F_ALIAS(stem##__, target)		\
	F_ALIAS(stem, target)

F_ALIAS(mpi_comm_null_copy_fn__, mpi_comm_null_copy_fn_)
F_ALIAS(mpi_comm_null_copy_fn, mpi_comm_null_copy_fn_)
F_NAMES(mpi_win_null_copy_fn, mpi_comm_null_copy_fn_)
F_NAMES(mpi_type_null_copy_fn, mpi_comm_null_copy_fn_)
F_NAMES(mpi_null_copy_fn, mpi_comm_null_copy_fn_)
F_ALIAS(mpi_comm_dup_fn__, mpi_comm_dup_fn_)
F_ALIAS(mpi_comm_dup_fn, mpi_comm_dup_fn_)
F_NAMES(mpi_win_dup_fn, mpi_comm_dup_fn_)
F_NAMES(mpi_type_dup_fn, mpi_comm_dup_fn_)
F_ALIAS(mpi_comm_null_delete_fn__, mpi_comm_null_delete_fn_)
F_ALIAS(mpi_comm_null_delete_fn, mpi_comm_null_delete_fn_)
F_NAMES(mpi_win_null_delete_fn, mpi_comm_null_delete_fn_)
F_NAMES(mpi_type_null_delete_fn, mpi_comm_null_delete_fn_)
F_NAMES(mpi_null_delete_fn, mpi_comm_null_delete_fn_)
F_ALIAS(mpi_dup_fn__, mpi_dup_fn_)
F_ALIAS(mpi_dup_fn, mpi_dup_fn_)

/* ------------------------------------------------ generalized requests */

typedef void f_query_fn(MPI_Aint *extra, MPI_Fint *status, MPI_Fint *ierr);
typedef void f_free_fn(MPI_Aint *extra, MPI_Fint *ierr);
typedef void f_cancel_fn(MPI_Aint *extra, MPI_Fint *complete,
			 MPI_Fint *ierr);

/* The Fortran query_fn fills a Fortran status, converted both ways. */
int mpirma_f_grequest_query_function(void *extra, MPI_Status *status)
{
	struct mpirma_f_cb *cb = extra;
	MPI_Fint fs[MPI_F_STATUS_SIZE], ierr = MPI_SUCCESS;

	PMPI_Status_c2f(status, fs);
	((f_query_fn *)cb->fn[0])(&cb->extra, fs, &ierr);
	PMPI_Status_f2c(fs, status);
	return ierr;
}

/* The last callback of a request: its record goes with it. */
int mpirma_f_grequest_free_function(void *extra)
{
	struct mpirma_f_cb *cb = extra;
	MPI_Fint ierr = MPI_SUCCESS;

	((f_free_fn *)cb->fn[1])(&cb->extra, &ierr);
	free(cb);
	return ierr;
}

int mpirma_f_grequest_cancel_function(void *extra, int complete)
{
	struct mpirma_f_cb *cb = extra;
	MPI_Fint fc = complete ? F_TRUE : 0, ierr = MPI_SUCCESS;

	((f_cancel_fn *)cb->fn[2])(&cb->extra, &fc, &ierr);
	return ierr;
}

/* ------------------------------------------------ the w collectives */

int mpirma_f_wlen(MPI_Comm comm, enum mpirma_f_wlen which, const void *buf)
{
	int peers, in, out;

	if (buf == MPI_IN_PLACE)
		return 0;
	mpirma_comm_w_lengths(comm, &peers, &in, &out);
	return which == MPIRMA_F_PEERS ? peers :
	       which == MPIRMA_F_INDEG ? in : out;
}
