// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * datatype_f90.c - MPI_Type_create_f90_integer, _real and _complex: the
 * type of a Fortran 90 SELECTED_INT_KIND(r) or SELECTED_REAL_KIND(p, r).
 *
 * The standard makes the result predefined in all but name: it must not
 * be freed, yet MPI_Type_get_envelope reports MPI_COMBINER_F90_* and
 * MPI_Type_get_contents the p and r asked for.  So each distinct request
 * gets one handle, kept for the life of the process and returned again for
 * the same (p, r): a type holding one element of the matching predefined
 * type (MPI_INTEGER1..8, MPI_REAL4/8, MPI_COMPLEX8/16), which it moves,
 * reduces and accumulates as.  No REAL*16 or COMPLEX*32: gfortran's is
 * IEEE quad precision, which no C type of this ABI is.
 */
#include <stdlib.h>

#include "internal.h"
#include "datatype.h"
#include "datatype_impl.h"

struct f90_type {
	int combiner, p, r;
	MPI_Datatype handle;
};

/* The handles made so far (under the library lock, as every call). */
static struct f90_type *f90_types;
static int f90_ntypes, f90_cap;

/*
 * The handle for (@combiner, @p, @r), of the predefined @basic: the one
 * made before, else a new one.  MPI class, recorded.
 */
static int f90_type(int combiner, int p, int r, MPI_Datatype basic,
		    MPI_Datatype *newtype)
{
	struct mpirma_dtype_args *a;
	struct mpirma_dtype *t;
	struct f90_type *e;
	MPI_Datatype h;
	int i, ret;

	if (!newtype)
		return mpirma_err(MPI_ERR_ARG, "newtype is NULL");
	for (i = 0; i < f90_ntypes; i++) {
		e = &f90_types[i];
		if (e->combiner == combiner && e->p == p && e->r == r) {
			*newtype = e->handle;
			return MPI_SUCCESS;
		}
	}
	if (f90_ntypes == f90_cap) {
		int ncap = f90_cap ? 2 * f90_cap : 8;

		e = realloc(f90_types, ncap * sizeof(*e));
		if (!e)
			return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
		f90_types = e;
		f90_cap = ncap;
	}
	t = mpirma_dtype_wrap(combiner, mpirma_dtype_get(basic));
	if (t && mpirma_dtype_flatten(t)) {
		mpirma_dtype_unref(t);
		t = NULL;
	}
	if (t) {
		t->committed = true;
		t->permanent = true;
	}
	ret = mpirma_dtype_register(t, &h);
	ret = mpirma_dtype_args_alloc(&h, ret,
				      combiner == MPI_COMBINER_F90_INTEGER ?
				      1 : 2, 0, 0, 0, &a);
	if (ret)
		return ret;
	if (combiner == MPI_COMBINER_F90_INTEGER) {
		a->ints[0] = r;
	} else {
		a->ints[0] = p;
		a->ints[1] = r;
	}
	f90_types[f90_ntypes++] = (struct f90_type){ combiner, p, r, h };
	*newtype = h;
	return MPI_SUCCESS;
}

/*
 * The real kind of precision @p and exponent range @r (either may be
 * MPI_UNDEFINED, not both): 4 or 8 bytes, or 0 when there is none.
 */
static int real_kind(int p, int r)
{
	if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
		return 0;
	if (p == MPI_UNDEFINED)
		p = 0;
	if (r == MPI_UNDEFINED)
		r = 0;
	if (p <= 6 && r <= 37)
		return 4;
	if (p <= 15 && r <= 307)
		return 8;
	return 0;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
	MPI_Datatype basic = r == MPI_UNDEFINED ? MPI_DATATYPE_NULL :
			     r <= 2 ? MPI_INTEGER1 : r <= 4 ? MPI_INTEGER2 :
			     r <= 9 ? MPI_INTEGER4 : r <= 18 ? MPI_INTEGER8 :
			     MPI_DATATYPE_NULL;

	MPIRMA_CHECK_INIT();
	if (basic == MPI_DATATYPE_NULL)
		return RAISE(MPI_ERR_ARG, "no Fortran integer kind has a "
			     "decimal range of %d", r);
	return RAISE(f90_type(MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r,
			      basic, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_f90_integer)

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
	int kind = real_kind(p, r);

	MPIRMA_CHECK_INIT();
	if (!kind)
		return RAISE(MPI_ERR_ARG, "no Fortran real kind has a "
			     "precision of %d and a range of %d", p, r);
	return RAISE(f90_type(MPI_COMBINER_F90_REAL, p, r,
			      kind == 4 ? MPI_REAL4 : MPI_REAL8, newtype),
		     NULL);
}
MPIRMA_ALIAS(Type_create_f90_real)

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
	int kind = real_kind(p, r);

	MPIRMA_CHECK_INIT();
	if (!kind)
		return RAISE(MPI_ERR_ARG, "no Fortran complex kind has a "
			     "precision of %d and a range of %d", p, r);
	return RAISE(f90_type(MPI_COMBINER_F90_COMPLEX, p, r,
			      kind == 4 ? MPI_COMPLEX8 : MPI_COMPLEX16,
			      newtype), NULL);
}
MPIRMA_ALIAS(Type_create_f90_complex)
