// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * datatype_array.c - the array datatype constructors: subarray and darray
 * (a process's part of a distributed array), each in its int and large-count
 * (_c) form.
 *
 * Both are built the same way, one dimension at a time from the fastest
 * varying outwards: the part of a dimension is a list of runs of the type
 * built so far, made to step by one element of that dimension (resized to
 * the dimension's stride), and the whole is resized to the full array,
 * lb 0.  A part is one range of elements (subarray, block and none
 * distributions) or, cyclically distributed, whole periods of the
 * distribution (one type stepping by P * b elements) plus the last,
 * partial one: never more than two runs, however large the array.
 * Intermediate types have no handle; the result holds them.
 */
#include <limits.h>
#include <stdlib.h>

#include "internal.h"
#include "datatype.h"
#include "datatype_impl.h"

/*
 * The part of one dimension: @len elements from @start; or, when @b is
 * not 0, blocks of @b elements dealt cyclically to @p processes, this one
 * being number @c.
 */
struct dim_part {
	MPI_Count start, len;
	MPI_Count b, p, c;
};

/* @t stepping by @stride bytes (a new reference); NULL: out of memory. */
static struct mpirma_dtype *stepping(struct mpirma_dtype *t, MPI_Aint stride)
{
	if (mpirma_dtype_extent(t) == stride) {
		mpirma_dtype_ref(t);
		return t;
	}
	return mpirma_dtype_resized(t, 0, stride);
}

/*
 * One dimension of @gsize elements, @stride bytes apart, each @prev: the
 * part @p of it.  A new type, or NULL when out of memory.
 */
static struct mpirma_dtype *dim_level(struct mpirma_dtype *prev,
				      MPI_Aint stride, MPI_Count gsize,
				      const struct dim_part *p)
{
	struct mpirma_dtype *child = stepping(prev, stride), *one, *cyc = NULL;
	struct mpirma_dtype_run *runs = mpirma_dtype_runs_alloc(2), *r1;
	struct mpirma_dtype *t = NULL;
	MPI_Count period, nfull, rem, last;
	int n = 0;

	if (!child || !runs)
		goto out;
	if (!p->b) {
		runs[n++] = (struct mpirma_dtype_run){ p->start * stride,
						       p->len, child };
		goto build;
	}
	/* whole periods of P * b elements, then what is left of the last */
	period = p->b * p->p;
	nfull = gsize / period;
	rem = gsize % period - p->c * p->b;
	last = rem <= 0 ? 0 : rem < p->b ? rem : p->b;
	if (nfull) {
		r1 = mpirma_dtype_runs_alloc(1);
		if (!r1)
			goto out;
		r1[0] = (struct mpirma_dtype_run){ p->c * p->b * stride, p->b,
						   child };
		one = mpirma_dtype_build(MPIRMA_COMBINER_HVECTOR, r1, 1);
		cyc = one ? mpirma_dtype_resized(one, 0, period * stride) :
		      NULL;
		mpirma_dtype_unref(one);
		if (!cyc)
			goto out;
		runs[n++] = (struct mpirma_dtype_run){ 0, nfull, cyc };
	}
	if (last)
		runs[n++] = (struct mpirma_dtype_run){
			(nfull * period + p->c * p->b) * stride, last, child };
build:
	t = mpirma_dtype_build(MPIRMA_COMBINER_HVECTOR, runs, n);
	runs = NULL;
out:
	free(runs);
	mpirma_dtype_unref(cyc);
	mpirma_dtype_unref(child);
	return t;
}

/*
 * The array type of @ndims dimensions of @gsizes elements of @old, in
 * @order, taking @parts of them; registered as *@newtype with @combiner.
 * MPI class, recorded.
 */
static int array_build(int combiner, int ndims,
		       const struct mpirma_nums *gsizes,
		       const struct dim_part *parts, int order,
		       struct mpirma_dtype *old, MPI_Datatype *newtype)
{
	MPI_Aint ext = mpirma_dtype_extent(old), stride = ext;
	struct mpirma_dtype *t = old, *prev;
	int i, d;

	/* every stride, and the whole array, within what a type may span */
	for (i = 0; i < ndims; i++) {
		MPI_Count g = gsizes->i ? gsizes->i[i] : gsizes->c[i];

		if (!mpirma_span_ok(stride, g))
			return mpirma_err(MPI_ERR_COUNT, "the array spans more "
					  "than 2^62 bytes");
		stride *= g;
	}
	stride = ext;
	mpirma_dtype_ref(t);
	for (i = 0; i < ndims && t; i++) {
		d = order == MPI_ORDER_C ? ndims - 1 - i : i;
		prev = t;
		t = dim_level(prev, stride, gsizes->i ? gsizes->i[d] :
			      gsizes->c[d], &parts[d]);
		mpirma_dtype_unref(prev);
		stride *= gsizes->i ? gsizes->i[d] : gsizes->c[d];
	}
	prev = t;
	t = t ? mpirma_dtype_resized(t, 0, stride) : NULL;
	mpirma_dtype_unref(prev);
	if (t)
		t->combiner = combiner;
	return mpirma_dtype_register(t, newtype);
}

/* Appends @v to the recorded arguments: as a large count or an integer. */
static void put_arg(struct mpirma_dtype_args *a, int *ni, int *nc,
		    MPI_Count v, bool large)
{
	if (large)
		a->counts[(*nc)++] = v;
	else
		a->ints[(*ni)++] = (int)v;
}

static MPI_Count num(const struct mpirma_nums *v, int i)
{
	return v->i ? v->i[i] : v->c[i];
}

/* The checks both constructors share; MPI class, recorded. */
static int array_check(int ndims, const void *a0, const void *a1,
		       const void *a2, int order, MPI_Datatype oldtype,
		       MPI_Datatype *newtype, struct mpirma_dtype **old)
{
	int ret = mpirma_dtype_ctor_check(0, oldtype, newtype, old);

	if (ret)
		return ret;
	if (ndims <= 0 || !a0 || !a1 || !a2)
		return mpirma_err(MPI_ERR_ARG, "bad dimensions");
	if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
		return mpirma_err(MPI_ERR_ARG, "bad order %d", order);
	return MPI_SUCCESS;
}

/*
 * Records a subarray's integer arguments in @a, in the order the standard
 * gives them (ndims, sizes, subsizes, starts, order), the three arrays as
 * large counts in the _c form (@large); sets a->ni and a->nc.  What the
 * constructor keeps, and what reuse() looks for.
 */
static void subarray_args(struct mpirma_dtype_args *a, int ndims,
			  const struct mpirma_nums *sizes,
			  const struct mpirma_nums *subsizes,
			  const struct mpirma_nums *starts, int order,
			  bool large)
{
	const struct mpirma_nums *v[3] = { sizes, subsizes, starts };
	int ni = 0, nc = 0, i, k;

	put_arg(a, &ni, &nc, ndims, false);
	for (k = 0; k < 3; k++)
		for (i = 0; i < ndims; i++)
			put_arg(a, &ni, &nc, num(v[k], i), large);
	put_arg(a, &ni, &nc, order, false);
	a->ni = ni;
	a->nc = nc;
}

/*
 * A subarray type kept since a free with these arguments, registered as
 * *@newtype with its result in *@ret; false: build one.
 */
#define REUSE_DIMS	8	/* arrays of more dimensions: always built */

static bool reuse(int ndims, const struct mpirma_nums *sizes,
		  const struct mpirma_nums *subsizes,
		  const struct mpirma_nums *starts, int order, bool large,
		  struct mpirma_dtype *old, MPI_Datatype *newtype, int *ret)
{
	int ints[3 * REUSE_DIMS + 2];
	MPI_Count counts[3 * REUSE_DIMS];
	struct mpirma_dtype_args want = {
		.ints = ints, .counts = counts, .types = &old, .nt = 1,
	};
	struct mpirma_dtype *t;

	if (ndims > REUSE_DIMS)
		return false;
	subarray_args(&want, ndims, sizes, subsizes, starts, order, large);
	t = mpirma_dtype_take(MPIRMA_COMBINER_SUBARRAY, &want);
	if (!t)
		return false;
	*ret = mpirma_dtype_register(t, newtype);
	return true;
}

/*
 * MPI_Type_create_subarray and its _c form: the numbers come as ints or
 * MPI_Counts (@large), in @sizes, @subsizes, @starts.
 */
static int subarray(int ndims, struct mpirma_nums sizes,
		    struct mpirma_nums subsizes, struct mpirma_nums starts,
		    int order, bool large, MPI_Datatype oldtype,
		    MPI_Datatype *newtype)
{
	struct mpirma_dtype *old = NULL;
	struct mpirma_dtype_args *a;
	struct dim_part *parts;
	int i;
	int ret = array_check(ndims, large ? (void *)sizes.c : sizes.i,
			      large ? (void *)subsizes.c : subsizes.i,
			      large ? (void *)starts.c : starts.i, order,
			      oldtype, newtype, &old);

	if (ret)
		return ret;
	for (i = 0; i < ndims; i++) {
		MPI_Count n = num(&sizes, i), s = num(&subsizes, i),
			  b = num(&starts, i);

		if (n <= 0 || s <= 0 || s > n || b < 0 || b > n - s)
			return mpirma_err(MPI_ERR_ARG, "bad size, subsize or "
					  "start in dimension %d", i);
	}
	if (reuse(ndims, &sizes, &subsizes, &starts, order, large, old,
		  newtype, &ret))
		return ret;
	parts = mpirma_zalloc(ndims > 0 ? ndims : 1, sizeof(*parts));
	if (!parts)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < ndims; i++)
		parts[i] = (struct dim_part){ .start = num(&starts, i),
					      .len = num(&subsizes, i) };
	ret = array_build(MPIRMA_COMBINER_SUBARRAY, ndims, &sizes, parts,
			  order, old, newtype);
	free(parts);
	ret = mpirma_dtype_args_alloc(newtype, ret, large ? 2 : 3 * ndims + 2,
				      0, large ? 3 * ndims : 0, 1, &a);
	if (ret)
		return ret;
	subarray_args(a, ndims, &sizes, &subsizes, &starts, order, large);
	mpirma_dtype_args_type(a, 0, old);
	return MPI_SUCCESS;
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[],
			      const int array_of_subsizes[],
			      const int array_of_starts[], int order,
			      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(subarray(ndims, (struct mpirma_nums){ .i = array_of_sizes },
			      (struct mpirma_nums){ .i = array_of_subsizes },
			      (struct mpirma_nums){ .i = array_of_starts },
			      order, false, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_subarray)

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[],
				const MPI_Count array_of_subsizes[],
				const MPI_Count array_of_starts[], int order,
				MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(subarray(ndims, (struct mpirma_nums){ .c = array_of_sizes },
			      (struct mpirma_nums){ .c = array_of_subsizes },
			      (struct mpirma_nums){ .c = array_of_starts },
			      order, true, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_subarray_c)

/*
 * The part of dimension @i of a darray that process coordinate @c holds,
 * into *@p: MPI_ERR_ARG for a distribution, argument or grid size the
 * standard does not allow (recorded).
 */
static int darray_part(int i, MPI_Count g, int distrib, int darg, int psize,
		       int c, struct dim_part *p)
{
	MPI_Count b;

	if (g <= 0 || psize <= 0)
		return mpirma_err(MPI_ERR_ARG, "dimension %d: size %lld on %d "
				  "processes", i, (long long)g, psize);
	if (darg <= 0 && darg != MPI_DISTRIBUTE_DFLT_DARG)
		return mpirma_err(MPI_ERR_ARG, "dimension %d: distribution "
				  "argument %d", i, darg);
	switch (distrib) {
	case MPI_DISTRIBUTE_NONE:
		if (psize != 1)
			return mpirma_err(MPI_ERR_ARG, "dimension %d is not "
					  "distributed but spread over %d "
					  "processes", i, psize);
		*p = (struct dim_part){ .len = g };
		return MPI_SUCCESS;
	case MPI_DISTRIBUTE_BLOCK:
		b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + psize - 1) / psize :
		    darg;
		if (b * psize < g)
			return mpirma_err(MPI_ERR_ARG, "dimension %d: %d "
					  "blocks of %lld do not cover %lld "
					  "elements", i, psize, (long long)b,
					  (long long)g);
		/* blocks at the end may be short or empty */
		*p = (struct dim_part){ .start = c * b,
					.len = c * b >= g ? 0 :
					       c * b + b > g ? g - c * b : b };
		return MPI_SUCCESS;
	case MPI_DISTRIBUTE_CYCLIC:
		b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
		*p = (struct dim_part){ .b = b, .p = psize, .c = c };
		return MPI_SUCCESS;
	}
	return mpirma_err(MPI_ERR_ARG, "dimension %d: distribution %d", i,
			  distrib);
}

/* MPI_Type_create_darray and its _c form (@large: MPI_Count gsizes). */
static int darray(int size, int rank, int ndims, struct mpirma_nums gsizes,
		  const int *distribs, const int *dargs, const int *psizes,
		  int order, bool large, MPI_Datatype oldtype,
		  MPI_Datatype *newtype)
{
	struct mpirma_dtype *old = NULL;
	struct mpirma_dtype_args *a;
	struct dim_part *parts = NULL;
	int i, k, ni = 0, nc = 0, r = rank;
	long long nprocs = 1;
	int ret = array_check(ndims, large ? (void *)gsizes.c : gsizes.i,
			      distribs, dargs && psizes ? dargs : NULL, order,
			      oldtype, newtype, &old);

	if (!ret && (size <= 0 || rank < 0 || rank >= size))
		ret = mpirma_err(MPI_ERR_ARG, "rank %d of %d processes", rank,
				 size);
	for (i = 0; !ret && i < ndims; i++) {
		nprocs *= psizes[i] > 0 ? psizes[i] : 0;
		if (nprocs > size)
			break;
	}
	if (!ret && nprocs != size)
		ret = mpirma_err(MPI_ERR_ARG, "the process grid is not %d "
				 "processes", size);
	if (!ret) {
		parts = mpirma_zalloc(ndims > 0 ? ndims : 1, sizeof(*parts));
		if (!parts)
			ret = mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	/* the grid is row-major whatever @order, as MPI_Cart_create's */
	for (i = ndims - 1; !ret && i >= 0; i--) {
		ret = darray_part(i, num(&gsizes, i), distribs[i], dargs[i],
				  psizes[i], r % psizes[i], &parts[i]);
		r /= psizes[i];
	}
	if (!ret)
		ret = array_build(MPIRMA_COMBINER_DARRAY, ndims, &gsizes,
				  parts, order, old, newtype);
	free(parts);
	ret = mpirma_dtype_args_alloc(newtype, ret, 4 * ndims + 4 -
				      (large ? ndims : 0), 0,
				      large ? ndims : 0, 1, &a);
	if (ret)
		return ret;
	put_arg(a, &ni, &nc, size, false);
	put_arg(a, &ni, &nc, rank, false);
	put_arg(a, &ni, &nc, ndims, false);
	for (i = 0; i < ndims; i++)
		put_arg(a, &ni, &nc, num(&gsizes, i), large);
	for (k = 0; k < 3; k++)
		for (i = 0; i < ndims; i++)
			put_arg(a, &ni, &nc, (k == 0 ? distribs : k == 1 ?
					      dargs : psizes)[i], false);
	put_arg(a, &ni, &nc, order, false);
	mpirma_dtype_args_type(a, 0, old);
	return MPI_SUCCESS;
}

int PMPI_Type_create_darray(int size, int rank, int ndims,
			    const int array_of_gsizes[],
			    const int array_of_distribs[],
			    const int array_of_dargs[],
			    const int array_of_psizes[], int order,
			    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(darray(size, rank, ndims,
			    (struct mpirma_nums){ .i = array_of_gsizes },
			    array_of_distribs, array_of_dargs, array_of_psizes,
			    order, false, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_darray)

int PMPI_Type_create_darray_c(int size, int rank, int ndims,
			      const MPI_Count array_of_gsizes[],
			      const int array_of_distribs[],
			      const int array_of_dargs[],
			      const int array_of_psizes[], int order,
			      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(darray(size, rank, ndims,
			    (struct mpirma_nums){ .c = array_of_gsizes },
			    array_of_distribs, array_of_dargs, array_of_psizes,
			    order, true, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_darray_c)
