// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * datatype_ctor.c - the datatype constructors of one old type per block
 * (contiguous, vector, indexed and their h and block forms), struct,
 * resized, dup; the arguments they record for MPI_Type_get_contents
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "datatype.h"
#include "datatype_impl.h"

/* The recorded arguments of a constructor (datatype_impl.h). */
int mpirma_dtype_args_alloc(MPI_Datatype *newtype, int ret, int ni, int na,
			    int nt, struct mpirma_dtype_args **out)
{
	struct mpirma_dtype *t;
	struct mpirma_dtype_args *a;

	if (ret)
		return ret;
	t = mpirma_dtype_get(*newtype);
	a = &t->args;
	a->ints = malloc((ni ? ni : 1) * sizeof(*a->ints));
	a->aints = malloc((na ? na : 1) * sizeof(*a->aints));
	a->types = calloc(nt ? nt : 1, sizeof(*a->types));
	if (!a->ints || !a->aints || !a->types) {
		mpirma_handle_free(MPIRMA_HK_DATATYPE, *newtype);
		t->handle = 0;
		mpirma_dtype_unref(t);
		*newtype = MPI_DATATYPE_NULL;
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	a->ni = ni;
	a->na = na;
	a->nt = nt;
	*out = a;
	return MPI_SUCCESS;
}

void mpirma_dtype_args_type(struct mpirma_dtype_args *a, int i,
			    struct mpirma_dtype *t)
{
	mpirma_dtype_ref(t);
	a->types[i] = t;
}

int mpirma_dtype_args_one(MPI_Datatype *newtype, int ret,
			  struct mpirma_dtype *old,
			  const struct mpirma_ints_piece *pieces, int npieces,
			  int na, const MPI_Aint *aints)
{
	struct mpirma_dtype_args *a;
	int i, ni = 0;

	for (i = 0; i < npieces; i++)
		ni += pieces[i].n;
	ret = mpirma_dtype_args_alloc(newtype, ret, ni, na, 1, &a);
	if (ret)
		return ret;
	for (i = 0, ni = 0; i < npieces; ni += pieces[i].n, i++)
		if (pieces[i].n)
			memcpy(a->ints + ni, pieces[i].p,
			       pieces[i].n * sizeof(int));
	if (na)
		memcpy(a->aints, aints, na * sizeof(MPI_Aint));
	mpirma_dtype_args_type(a, 0, old);
	return MPI_SUCCESS;
}

/* Argument checks of every constructor; MPI class, recorded. */
static int ctor_count_check(int count, MPI_Datatype *newtype)
{
	if (count < 0)
		return mpirma_err(MPI_ERR_COUNT, "negative count %d", count);
	if (!newtype)
		return mpirma_err(MPI_ERR_ARG, "newtype is NULL");
	return MPI_SUCCESS;
}

/* ... and of those built from one old type. */
int mpirma_dtype_ctor_check(int count, MPI_Datatype oldtype,
			    MPI_Datatype *newtype, struct mpirma_dtype **old)
{
	int ret = ctor_count_check(count, newtype);

	return ret ? ret : mpirma_dtype_check(oldtype, false, old);
}

struct mpirma_dtype_run *mpirma_dtype_runs_alloc(int n)
{
	return calloc(n ? n : 1, sizeof(struct mpirma_dtype_run));
}

/*
 * The runs of the vector-like constructors: @count blocks of @bl[i]
 * (or @blconst) elements of @old at byte displacement disp(i).
 */
static int ctor_blocks(int combiner, int count, const int *bl, int blconst,
		       const int *idisp, const MPI_Aint *bdisp,
		       MPI_Aint stride_bytes, struct mpirma_dtype *old,
		       MPI_Datatype *newtype)
{
	struct mpirma_dtype_run *runs = mpirma_dtype_runs_alloc(count);
	MPI_Aint ext = mpirma_dtype_extent(old);
	int i;

	if (!runs)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < count; i++) {
		int n = bl ? bl[i] : blconst;

		if (n < 0) {
			free(runs);
			return mpirma_err(MPI_ERR_ARG, "negative block length %d",
					  n);
		}
		runs[i].n = n;
		runs[i].type = old;
		if (idisp)
			runs[i].disp = (MPI_Aint)idisp[i] * ext;
		else if (bdisp)
			runs[i].disp = bdisp[i];
		else
			runs[i].disp = i * stride_bytes;
	}
	return mpirma_dtype_register(mpirma_dtype_build(combiner, runs, count),
				     newtype);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct mpirma_dtype *old = NULL;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_dtype_ctor_check(count, oldtype, newtype, &old);
	if (!ret)
		ret = ctor_blocks(MPIRMA_COMBINER_CONTIGUOUS, 1, NULL, count,
				  NULL, NULL, 0, old, newtype);
	ret = mpirma_dtype_args_one(newtype, ret, old, PIECES({ 1, &count }), 0, NULL);
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Type_contiguous)

/*
 * MPI_Type_vector (@elems: the stride in elements of @oldtype) and
 * _create_hvector (@bytes: in bytes); the other is NULL.
 */
static int vector_ctor(int combiner, int count, int blocklength,
		       const int *elems, const MPI_Aint *bytes,
		       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct mpirma_dtype *old = NULL;
	int ret = mpirma_dtype_ctor_check(count, oldtype, newtype, &old);

	if (!ret)
		ret = ctor_blocks(combiner, count, NULL, blocklength, NULL,
				  NULL, elems ? (MPI_Aint)*elems *
						mpirma_dtype_extent(old) :
						*bytes, old, newtype);
	if (elems)
		return mpirma_dtype_args_one(newtype, ret, old,
				PIECES({ 1, &count }, { 1, &blocklength },
				       { 1, elems }), 0, NULL);
	return mpirma_dtype_args_one(newtype, ret, old,
			PIECES({ 1, &count }, { 1, &blocklength }), 1, bytes);
}

int PMPI_Type_vector(int count, int blocklength, int stride,
		     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(vector_ctor(MPIRMA_COMBINER_VECTOR, count, blocklength,
				 &stride, NULL, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_vector)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
			     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(vector_ctor(MPIRMA_COMBINER_HVECTOR, count, blocklength,
				 NULL, &stride, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_hvector)

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride,
		      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return PMPI_Type_create_hvector(count, blocklength, stride, oldtype,
					newtype);
}
MPIRMA_ALIAS(Type_hvector)

/*
 * The indexed constructors: MPI_Type_indexed and _create_hindexed, blocks
 * of @bl[i] elements, and their _block forms, @blconst each (@bl NULL);
 * displacements in elements of @oldtype (@elems) or in bytes (@bytes), the
 * other array NULL.  @combiner tells which.
 */
static int indexed_ctor(int combiner, int count, const int *bl, int blconst,
			const int *elems, const MPI_Aint *bytes,
			MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	const bool block = combiner == MPIRMA_COMBINER_INDEXED_BLOCK ||
			   combiner == MPIRMA_COMBINER_HINDEXED_BLOCK;
	const bool in_elems = combiner == MPIRMA_COMBINER_INDEXED ||
			      combiner == MPIRMA_COMBINER_INDEXED_BLOCK;
	const struct mpirma_ints_piece lens = block ?
		(struct mpirma_ints_piece){ 1, &blconst } :
		(struct mpirma_ints_piece){ count, bl };
	struct mpirma_dtype *old = NULL;
	int ret = mpirma_dtype_ctor_check(count, oldtype, newtype, &old);

	if (!ret && count && ((!block && !bl) ||
			      !(in_elems ? (const void *)elems : bytes)))
		ret = mpirma_err(MPI_ERR_ARG, "NULL array");
	if (!ret)
		ret = ctor_blocks(combiner, count, bl, blconst, elems, bytes, 0,
				  old, newtype);
	if (in_elems)
		return mpirma_dtype_args_one(newtype, ret, old,
				PIECES({ 1, &count }, lens, { count, elems }),
				0, NULL);
	return mpirma_dtype_args_one(newtype, ret, old,
				     PIECES({ 1, &count }, lens), count, bytes);
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
		      const int array_of_displacements[], MPI_Datatype oldtype,
		      MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(indexed_ctor(MPIRMA_COMBINER_INDEXED, count,
				  array_of_blocklengths, 0,
				  array_of_displacements, NULL, oldtype,
				  newtype), NULL);
}
MPIRMA_ALIAS(Type_indexed)

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
			      const MPI_Aint array_of_displacements[],
			      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(indexed_ctor(MPIRMA_COMBINER_HINDEXED, count,
				  array_of_blocklengths, 0, NULL,
				  array_of_displacements, oldtype, newtype),
		     NULL);
}
MPIRMA_ALIAS(Type_create_hindexed)

int PMPI_Type_hindexed(int count, int array_of_blocklengths[],
		       MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
		       MPI_Datatype *newtype)
{
	return PMPI_Type_create_hindexed(count, array_of_blocklengths,
					 array_of_displacements, oldtype,
					 newtype);
}
MPIRMA_ALIAS(Type_hindexed)

int PMPI_Type_create_indexed_block(int count, int blocklength,
				   const int array_of_displacements[],
				   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(indexed_ctor(MPIRMA_COMBINER_INDEXED_BLOCK, count, NULL,
				  blocklength, array_of_displacements, NULL,
				  oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_indexed_block)

int PMPI_Type_create_hindexed_block(int count, int blocklength,
				    const MPI_Aint array_of_displacements[],
				    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(indexed_ctor(MPIRMA_COMBINER_HINDEXED_BLOCK, count, NULL,
				  blocklength, NULL, array_of_displacements,
				  oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_hindexed_block)

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
			    const MPI_Aint array_of_displacements[],
			    const MPI_Datatype array_of_types[],
			    MPI_Datatype *newtype)
{
	struct mpirma_dtype_args *args;
	struct mpirma_dtype_run *runs;
	int i, ret;

	MPIRMA_CHECK_INIT();
	ret = ctor_count_check(count, newtype);
	if (!ret && count && (!array_of_blocklengths ||
			      !array_of_displacements || !array_of_types))
		ret = mpirma_err(MPI_ERR_ARG, "NULL array");
	if (ret)
		return RAISE(ret, NULL);
	runs = mpirma_dtype_runs_alloc(count);
	if (!runs)
		return RAISE(MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < count; i++) {
		ret = mpirma_dtype_check(array_of_types[i], false,
					 &runs[i].type);
		if (!ret && array_of_blocklengths[i] < 0)
			ret = mpirma_err(MPI_ERR_ARG, "negative block length %d",
					 array_of_blocklengths[i]);
		if (ret) {
			free(runs);
			return RAISE(ret, NULL);
		}
		runs[i].n = array_of_blocklengths[i];
		runs[i].disp = array_of_displacements[i];
	}
	ret = mpirma_dtype_register(mpirma_dtype_build(MPIRMA_COMBINER_STRUCT,
							runs, count), newtype);
	ret = mpirma_dtype_args_alloc(newtype, ret, count + 1, count, count, &args);
	if (!ret) {
		args->ints[0] = count;
		memcpy(args->ints + 1, array_of_blocklengths,
		       count * sizeof(int));
		memcpy(args->aints, array_of_displacements,
		       count * sizeof(MPI_Aint));
		for (i = 0; i < count; i++)
			mpirma_dtype_args_type(args, i, mpirma_dtype_get(array_of_types[i]));
	}
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Type_create_struct)

int PMPI_Type_struct(int count, int array_of_blocklengths[],
		     MPI_Aint array_of_displacements[],
		     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
	return PMPI_Type_create_struct(count, array_of_blocklengths,
				       array_of_displacements, array_of_types,
				       newtype);
}
MPIRMA_ALIAS(Type_struct)

/* One instance of @old at 0, then bounds set explicitly (resized, dup). */
static struct mpirma_dtype *dtype_wrap(int combiner, struct mpirma_dtype *old)
{
	struct mpirma_dtype_run *runs = mpirma_dtype_runs_alloc(1);

	if (!runs)
		return NULL;
	runs[0] = (struct mpirma_dtype_run){ 0, 1, old };
	return mpirma_dtype_build(combiner, runs, 1);
}

struct mpirma_dtype *mpirma_dtype_resized(struct mpirma_dtype *old,
					  MPI_Aint lb, MPI_Aint extent)
{
	struct mpirma_dtype *t = dtype_wrap(MPIRMA_COMBINER_RESIZED, old);

	if (t) {
		t->lb = lb;
		t->ub = lb + extent;
		t->lb_marked = t->ub_marked = true;
	}
	return t;
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb,
			     MPI_Aint extent, MPI_Datatype *newtype)
{
	struct mpirma_dtype *old = NULL;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_dtype_ctor_check(0, oldtype, newtype, &old);
	if (!ret)
		ret = mpirma_dtype_register(mpirma_dtype_resized(old, lb, extent), newtype);
	ret = mpirma_dtype_args_one(newtype, ret, old, NULL, 0, 2,
		       (const MPI_Aint[]){ lb, extent });
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Type_create_resized)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct mpirma_dtype *old = NULL, *t;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_dtype_ctor_check(0, oldtype, newtype, &old);
	if (ret)
		return RAISE(ret, NULL);
	t = dtype_wrap(MPIRMA_COMBINER_DUP, old);
	if (t)
		t->committed = old->committed;
	if (t && t->committed && mpirma_dtype_flatten(t)) {
		mpirma_dtype_unref(t);
		t = NULL;
	}
	ret = mpirma_dtype_register(t, newtype);
	ret = mpirma_dtype_args_one(newtype, ret, old, NULL, 0, 0, NULL);
	if (!ret) {
		ret = mpirma_attrs_copy(oldtype, &old->hdr, &t->hdr);
		if (ret)	/* the cause is the copy's, not a delete's */
			mpirma_dtype_release(t, newtype);
	}
	return RAISE(ret, NULL);
}
MPIRMA_ALIAS(Type_dup)
