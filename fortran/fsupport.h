/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fsupport.h - what the generated Fortran wrappers (fortran/gen, mpirma
 * style) call beyond the MPI API: Fortran callbacks behind C trampolines,
 * the length of the w collectives' datatype arrays, and MPI 4.0's
 * input-and-output string lengths.  fortran/fsupport.c; part of
 * libmpirmaf.
 */
#ifndef MPIRMA_FSUPPORT_H
#define MPIRMA_FSUPPORT_H

#include <stddef.h>

#include <mpi.h>

/* A Fortran procedure, called through a cast to its real type. */
typedef void mpirma_f_proc(void);

/*
 * struct mpirma_f_cb - the Fortran callbacks of one keyval or generalized
 * request, which is the C library's extra_state for its trampolines
 * @fn: the Fortran procedures, in the order of the call's arguments
 * @extra: the program's extra_state (a default INTEGER widened, for
 *	MPI_KEYVAL_CREATE), passed to them by reference
 *
 * A keyval's record is freed when the keyval is gone
 * (mpirma_f_cb_keyval()), a request's by its free_fn trampoline.
 */
struct mpirma_f_cb {
	mpirma_f_proc *fn[3];
	MPI_Aint extra;
};

/* A zeroed record, or NULL when out of memory. */
struct mpirma_f_cb *mpirma_f_cb_new(void);

/*
 * After the constructor's C call returned @ret: the record lives as long
 * as @keyval (success), or is freed now.  Returns @ret.
 */
int mpirma_f_cb_keyval(struct mpirma_f_cb *cb, int ret, int keyval);
/* The same for a generalized request: freed now unless @ret succeeded. */
int mpirma_f_cb_request(struct mpirma_f_cb *cb, int ret);

/*
 * The trampolines: C callbacks named mpirma_f_<the C type>, each calling
 * its record's Fortran procedure with every argument by reference (and
 * an IERROR, its return value).  Attribute values travel as the C void *
 * they are stored as (address-kind; MPI_KEYVAL_CREATE's default INTEGER).
 */
MPI_Comm_copy_attr_function mpirma_f_comm_copy_attr_function;
MPI_Comm_delete_attr_function mpirma_f_comm_delete_attr_function;
MPI_Win_copy_attr_function mpirma_f_win_copy_attr_function;
MPI_Win_delete_attr_function mpirma_f_win_delete_attr_function;
MPI_Type_copy_attr_function mpirma_f_type_copy_attr_function;
MPI_Type_delete_attr_function mpirma_f_type_delete_attr_function;
MPI_Copy_function mpirma_f_copy_function;
MPI_Delete_function mpirma_f_delete_function;
MPI_Grequest_query_function mpirma_f_grequest_query_function;
MPI_Grequest_free_function mpirma_f_grequest_free_function;
MPI_Grequest_cancel_function mpirma_f_grequest_cancel_function;

/* Which datatype array of a w collective mpirma_f_wlen() sizes. */
enum mpirma_f_wlen {
	MPIRMA_F_PEERS,		/* MPI_Alltoallw: the (remote) group size */
	MPIRMA_F_INDEG,		/* neighborhood: the receive side */
	MPIRMA_F_OUTDEG,	/* neighborhood: the send side */
};

/*
 * How many datatypes the C call reads from the array @which of a w
 * collective on @comm whose buffer on that side is @buf: none for
 * MPI_IN_PLACE, none where the call fails (an invalid communicator, no
 * topology), which it then reports as from C.
 */
int mpirma_f_wlen(MPI_Comm comm, enum mpirma_f_wlen which, const void *buf);

/*
 * An MPI 4.0 string length in C's terms (with the NUL): 0 (asks the
 * length) and negative values unchanged, else at most @cap characters.
 */
static inline int mpirma_f_len_in(MPI_Fint n, size_t cap)
{
	if (n <= 0)
		return n;
	return ((size_t)n < cap ? (int)n : (int)cap) + 1;
}

/*
 * The predefined attribute callbacks from Fortran (MPI_COMM_DUP_FN ...),
 * each argument by reference; the names their Fortran calls use.
 */
void mpi_comm_null_copy_fn_(MPI_Fint *old, MPI_Fint *key, MPI_Aint *extra,
			    MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag,
			    MPI_Fint *ierr);
void mpi_comm_dup_fn_(MPI_Fint *old, MPI_Fint *key, MPI_Aint *extra,
		      MPI_Aint *in, MPI_Aint *out, MPI_Fint *flag,
		      MPI_Fint *ierr);
void mpi_comm_null_delete_fn_(MPI_Fint *h, MPI_Fint *key, MPI_Aint *val,
			      MPI_Aint *extra, MPI_Fint *ierr);
void mpi_dup_fn_(MPI_Fint *old, MPI_Fint *key, MPI_Fint *extra,
		 MPI_Fint *in, MPI_Fint *out, MPI_Fint *flag, MPI_Fint *ierr);

#endif
