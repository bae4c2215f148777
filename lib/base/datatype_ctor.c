// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * datatype_ctor.c - the datatype constructors of one old type per block
 * (contiguous, vector, indexed and their h and block forms), struct,
 * resized, dup; the arguments they record for MPI_Type_get_contents
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "datatype.h"
#include "datatype_impl.h"

/* The recorded arguments of a constructor (datatype_impl.h). */
int mpirma_dtype_args_alloc(MPI_Datatype *newtype, int ret, int ni, int na,
			    int nc, int nt, struct mpirma_dtype_args **out)
{
	struct mpirma_dtype *t;
	struct mpirma_dtype_args *a;

	if (ret)
		return ret;
	t = mpirma_dtype_get(*newtype);
	a = &t->args;
	a->ints = malloc((ni ? ni : 1) * sizeof(*a->ints));
	a->aints = malloc((na ? na : 1) * sizeof(*a->aints));
	a->counts = malloc((nc ? nc : 1) * sizeof(*a->counts));
	a->types = mpirma_zalloc(nt ? nt : 1, sizeof(*a->types));
	if (!a->ints || !a->aints || !a->counts || !a->types) {
		mpirma_handle_free(MPIRMA_HK_DATATYPE, *newtype);
		t->handle = 0;
		mpirma_dtype_unref(t);
		*newtype = MPI_DATATYPE_NULL;
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	a->ni = ni;
	a->na = na;
	a->nc = nc;
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
	ret = mpirma_dtype_args_alloc(newtype, ret, ni, na, 0, 1, &a);
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
	return mpirma_zalloc(n ? n : 1, sizeof(struct mpirma_dtype_run));
}

/* Block i's value of @v: from its array, or the one value of all blocks. */
static MPI_Count num_at(const struct mpirma_nums *v, MPI_Count i)
{
	if (v->i)
		return v->i[i];
	if (v->c)
		return v->c[i];
	if (v->a)
		return v->a[i];
	return v->one;
}

static bool num_array(const struct mpirma_nums *v)
{
	return v->i || v->c || v->a;
}

int mpirma_dtype_count_check(MPI_Count count, bool large,
			     MPI_Datatype *newtype)
{
	if (count < 0)
		return mpirma_err(MPI_ERR_COUNT, "negative count %lld",
				  (long long)count);
	if (large && count > INT_MAX)
		return mpirma_err(MPI_ERR_COUNT, "%lld blocks: at most %d are "
				  "supported", (long long)count, INT_MAX);
	if (!newtype)
		return mpirma_err(MPI_ERR_ARG, "newtype is NULL");
	return MPI_SUCCESS;
}

/*
 * Checks run @r of a type being built and adds its span to *@total: block
 * lengths must not be negative (MPI_ERR_ARG, as the MPI-3 forms always
 * did), and no run may reach past MPIRMA_MAX_SPAN bytes (MPI_ERR_COUNT),
 * so that no size, bound or address computed later overflows.
 */
int mpirma_dtype_run_check(const struct mpirma_dtype_run *r, MPI_Count *total)
{
	const struct mpirma_dtype *c = r->type;
	MPI_Aint ext = mpirma_dtype_extent(c);
	MPI_Count w = c->size > (ext < 0 ? -ext : ext) ?
		      c->size : (ext < 0 ? -ext : ext);

	if (r->n < 0)
		return mpirma_err(MPI_ERR_ARG, "negative block length %lld",
				  (long long)r->n);
	if (!r->n)
		return MPI_SUCCESS;
	if (!mpirma_span_ok(r->n, w) || !mpirma_span_ok(r->disp, 1) ||
	    !mpirma_span_ok(*total + r->n * c->size, 1))
		return mpirma_err(MPI_ERR_COUNT, "a block of %lld elements of "
				  "%lld bytes at %lld: past the 2^62 bytes a "
				  "datatype may span", (long long)r->n,
				  (long long)w, (long long)r->disp);
	*total += r->n * c->size;
	return MPI_SUCCESS;
}

/* A displacement of @d units of @unit bytes, or MPI_ERR_ARG (recorded). */
static int disp_bytes(MPI_Count d, MPI_Aint unit, MPI_Aint *out)
{
	if (!mpirma_span_ok(d, unit))
		return mpirma_err(MPI_ERR_ARG, "displacement %lld of %lld bytes "
				  "each: past 2^62 bytes", (long long)d,
				  (long long)unit);
	*out = d * unit;
	return MPI_SUCCESS;
}

/* The runs of @in's blocks of @old; MPI class (recorded). */
static int blocks_runs(const struct mpirma_ctor_in *in,
		       struct mpirma_dtype *old, struct mpirma_dtype_run *runs)
{
	const bool bytes = in->combiner == MPIRMA_COMBINER_HVECTOR ||
			   in->combiner == MPIRMA_COMBINER_HINDEXED ||
			   in->combiner == MPIRMA_COMBINER_HINDEXED_BLOCK;
	MPI_Aint unit = bytes ? 1 : mpirma_dtype_extent(old), stride = 0;
	MPI_Count i, total = 0;
	int ret = MPI_SUCCESS;

	if (!num_array(&in->disp))	/* contiguous, vector: a stride */
		ret = disp_bytes(in->disp.one, unit, &stride);
	for (i = 0; !ret && i < in->count; i++) {
		runs[i].n = num_at(&in->bl, i);
		runs[i].type = old;
		if (!runs[i].n)		/* no data: wherever it is */
			continue;
		if (num_array(&in->disp))
			ret = disp_bytes(num_at(&in->disp, i), unit,
					 &runs[i].disp);
		else
			ret = disp_bytes(i, stride, &runs[i].disp);
		if (!ret)
			ret = mpirma_dtype_run_check(&runs[i], &total);
	}
	return ret;
}

/*
 * Records @in as MPI_Type_get_contents returns it: the count, the block
 * lengths, then the displacements (the stride); as large counts for a _c
 * form, else as integers, with displacements in bytes as addresses.
 */
static int blocks_args(const struct mpirma_ctor_in *in, int ret,
		       struct mpirma_dtype *old, MPI_Datatype *newtype)
{
	const bool bytes = in->combiner == MPIRMA_COMBINER_HVECTOR ||
			   in->combiner == MPIRMA_COMBINER_HINDEXED ||
			   in->combiner == MPIRMA_COMBINER_HINDEXED_BLOCK;
	const bool contig = in->combiner == MPIRMA_COMBINER_CONTIGUOUS;
	/* contiguous: its count is the length of its one block */
	int nbl = contig ? 0 : num_array(&in->bl) ? (int)in->count : 1;
	int nd = contig ? 0 : num_array(&in->disp) ? (int)in->count : 1;
	int ni = in->large ? 0 : 1 + nbl + (bytes ? 0 : nd);
	int na = in->large || !bytes ? 0 : nd;
	struct mpirma_dtype_args *a;
	int k, n = 1 + nbl + nd;

	ret = mpirma_dtype_args_alloc(newtype, ret, ni, na,
				      in->large ? n : 0, 1, &a);
	if (ret)
		return ret;
	for (k = 0; k < n; k++) {
		MPI_Count v = k == 0 ? (contig ? in->bl.one : in->count) :
			      k <= nbl ? num_at(&in->bl, k - 1) :
			      num_at(&in->disp, k - 1 - nbl);

		if (in->large)
			a->counts[k] = v;
		else if (k < ni)
			a->ints[k] = (int)v;
		else
			a->aints[k - ni] = v;
	}
	mpirma_dtype_args_type(a, 0, old);
	return MPI_SUCCESS;
}

int mpirma_dtype_blocks_ctor(const struct mpirma_ctor_in *in,
			     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct mpirma_dtype *old = NULL;
	struct mpirma_dtype_run *runs;
	int ret = mpirma_dtype_count_check(in->count, in->large, newtype);

	if (!ret)
		ret = mpirma_dtype_check(oldtype, false, &old);
	if (!ret && in->count && in->arrays &&
	    (!num_array(&in->disp) ||
	     (!num_array(&in->bl) &&
	      in->combiner != MPIRMA_COMBINER_INDEXED_BLOCK &&
	      in->combiner != MPIRMA_COMBINER_HINDEXED_BLOCK)))
		ret = mpirma_err(MPI_ERR_ARG, "NULL array");
	if (ret)
		return ret;
	runs = mpirma_dtype_runs_alloc((int)in->count);
	if (!runs)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	ret = blocks_runs(in, old, runs);
	if (ret) {
		free(runs);
		return ret;
	}
	ret = mpirma_dtype_register(mpirma_dtype_build(in->combiner, runs,
						       (int)in->count),
				    newtype);
	return blocks_args(in, ret, old, newtype);
}

/* MPI_Type_contiguous: one block of @count elements. */
static int contig_ctor(MPI_Count count, bool large, MPI_Datatype oldtype,
		       MPI_Datatype *newtype)
{
	const struct mpirma_ctor_in in = {
		.combiner = MPIRMA_COMBINER_CONTIGUOUS, .count = 1,
		.bl = { .one = count }, .large = large,
	};

	if (count < 0)
		return mpirma_err(MPI_ERR_COUNT, "negative count %lld",
				  (long long)count);
	return mpirma_dtype_blocks_ctor(&in, oldtype, newtype);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(contig_ctor(count, false, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_contiguous)

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype,
			   MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(contig_ctor(count, true, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_contiguous_c)

/* The vectors: @count blocks of @bl elements, @stride elements or bytes
 * apart. */
static int vector_ctor(int combiner, MPI_Count count, MPI_Count bl,
		       MPI_Count stride, bool large, MPI_Datatype oldtype,
		       MPI_Datatype *newtype)
{
	const struct mpirma_ctor_in in = {
		.combiner = combiner, .count = count, .bl = { .one = bl },
		.disp = { .one = stride }, .large = large,
	};

	return mpirma_dtype_blocks_ctor(&in, oldtype, newtype);
}

int PMPI_Type_vector(int count, int blocklength, int stride,
		     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(vector_ctor(MPIRMA_COMBINER_VECTOR, count, blocklength, stride,
			   false, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_vector)

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength,
		       MPI_Count stride, MPI_Datatype oldtype,
		       MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(vector_ctor(MPIRMA_COMBINER_VECTOR, count, blocklength, stride,
			   true, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_vector_c)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride,
			     MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(vector_ctor(MPIRMA_COMBINER_HVECTOR, count, blocklength, stride,
			   false, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_hvector)

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength,
			       MPI_Count stride, MPI_Datatype oldtype,
			       MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(vector_ctor(MPIRMA_COMBINER_HVECTOR, count, blocklength, stride,
			   true, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_hvector_c)

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride,
		      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	return PMPI_Type_create_hvector(count, blocklength, stride, oldtype,
					newtype);
}
MPIRMA_ALIAS(Type_hvector)

/* The indexed constructors: their numbers are in @in, arrays required. */
static int indexed_ctor(struct mpirma_ctor_in in, MPI_Datatype oldtype,
			MPI_Datatype *newtype)
{
	in.arrays = true;
	return mpirma_dtype_blocks_ctor(&in, oldtype, newtype);
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[],
		      const int array_of_displacements[], MPI_Datatype oldtype,
		      MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(indexed_ctor((struct mpirma_ctor_in){
		.combiner = MPIRMA_COMBINER_INDEXED, .count = count,
		.bl = { .i = array_of_blocklengths },
		.disp = { .i = array_of_displacements } }, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_indexed)

int PMPI_Type_indexed_c(MPI_Count count,
			const MPI_Count array_of_blocklengths[],
			const MPI_Count array_of_displacements[],
			MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(indexed_ctor((struct mpirma_ctor_in){
		MPIRMA_COMBINER_INDEXED, count, { .c = array_of_blocklengths },
		{ .c = array_of_displacements }, .large = true },
		oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_indexed_c)

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
			      const MPI_Aint array_of_displacements[],
			      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(indexed_ctor((struct mpirma_ctor_in){
		.combiner = MPIRMA_COMBINER_HINDEXED, .count = count,
		.bl = { .i = array_of_blocklengths },
		.disp = { .a = array_of_displacements } }, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_hindexed)

int PMPI_Type_create_hindexed_c(MPI_Count count,
				const MPI_Count array_of_blocklengths[],
				const MPI_Count array_of_displacements[],
				MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(indexed_ctor((struct mpirma_ctor_in){
		MPIRMA_COMBINER_HINDEXED, count,
		{ .c = array_of_blocklengths },
		{ .c = array_of_displacements }, .large = true },
		oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_hindexed_c)

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
	return RAISE(indexed_ctor((struct mpirma_ctor_in){
		.combiner = MPIRMA_COMBINER_INDEXED_BLOCK, .count = count,
		.bl = { .one = blocklength },
		.disp = { .i = array_of_displacements } }, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_indexed_block)

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
				     const MPI_Count array_of_displacements[],
				     MPI_Datatype oldtype,
				     MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(indexed_ctor((struct mpirma_ctor_in){
		MPIRMA_COMBINER_INDEXED_BLOCK, count, { .one = blocklength },
		{ .c = array_of_displacements }, .large = true },
		oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_indexed_block_c)

int PMPI_Type_create_hindexed_block(int count, int blocklength,
				    const MPI_Aint array_of_displacements[],
				    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(indexed_ctor((struct mpirma_ctor_in){
		.combiner = MPIRMA_COMBINER_HINDEXED_BLOCK, .count = count,
		.bl = { .one = blocklength },
		.disp = { .a = array_of_displacements } }, oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_hindexed_block)

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
				      const MPI_Count array_of_displacements[],
				      MPI_Datatype oldtype,
				      MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(indexed_ctor((struct mpirma_ctor_in){
		MPIRMA_COMBINER_HINDEXED_BLOCK, count, { .one = blocklength },
		{ .c = array_of_displacements }, .large = true },
		oldtype, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_hindexed_block_c)

/*
 * MPI_Type_create_struct and its _c form (@large): @count blocks of
 * @bl[i] elements of @types[i] at byte displacement @disp[i].
 */
static int struct_ctor(MPI_Count count, struct mpirma_nums bl,
		       struct mpirma_nums disp, const MPI_Datatype *types,
		       bool large, MPI_Datatype *newtype)
{
	struct mpirma_dtype_args *a;
	struct mpirma_dtype_run *runs;
	MPI_Count total = 0;
	int i, n = (int)count, ret;

	ret = mpirma_dtype_count_check(count, large, newtype);
	if (!ret && count && (!num_array(&bl) || !num_array(&disp) || !types))
		ret = mpirma_err(MPI_ERR_ARG, "NULL array");
	if (ret)
		return ret;
	runs = mpirma_dtype_runs_alloc(n);
	if (!runs)
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	for (i = 0; i < n; i++) {
		ret = mpirma_dtype_check(types[i], false, &runs[i].type);
		runs[i].n = num_at(&bl, i);
		runs[i].disp = num_at(&disp, i);
		if (!ret)
			ret = mpirma_dtype_run_check(&runs[i], &total);
		if (ret) {
			free(runs);
			return ret;
		}
	}
	ret = mpirma_dtype_register(mpirma_dtype_build(MPIRMA_COMBINER_STRUCT,
						       runs, n), newtype);
	ret = mpirma_dtype_args_alloc(newtype, ret, large ? 0 : n + 1,
				      large ? 0 : n, large ? 2 * n + 1 : 0, n,
				      &a);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (large) {
			a->counts[1 + i] = num_at(&bl, i);
			a->counts[1 + n + i] = num_at(&disp, i);
		} else {
			a->ints[1 + i] = (int)num_at(&bl, i);
			a->aints[i] = num_at(&disp, i);
		}
		mpirma_dtype_args_type(a, i, mpirma_dtype_get(types[i]));
	}
	if (large)
		a->counts[0] = count;
	else
		a->ints[0] = n;
	return MPI_SUCCESS;
}

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[],
			    const MPI_Aint array_of_displacements[],
			    const MPI_Datatype array_of_types[],
			    MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(struct_ctor(count, (struct mpirma_nums){
				   .i = array_of_blocklengths },
			   (struct mpirma_nums){ .a = array_of_displacements },
			   array_of_types, false, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_struct)

int PMPI_Type_create_struct_c(MPI_Count count,
			      const MPI_Count array_of_blocklengths[],
			      const MPI_Count array_of_displacements[],
			      const MPI_Datatype array_of_types[],
			      MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(struct_ctor(count, (struct mpirma_nums){
				   .c = array_of_blocklengths },
			   (struct mpirma_nums){ .c = array_of_displacements },
			   array_of_types, true, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_struct_c)

int PMPI_Type_struct(int count, int array_of_blocklengths[],
		     MPI_Aint array_of_displacements[],
		     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
	return PMPI_Type_create_struct(count, array_of_blocklengths,
				       array_of_displacements, array_of_types,
				       newtype);
}
MPIRMA_ALIAS(Type_struct)

struct mpirma_dtype *mpirma_dtype_wrap(int combiner, struct mpirma_dtype *old)
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
	struct mpirma_dtype *t = mpirma_dtype_wrap(MPIRMA_COMBINER_RESIZED, old);

	if (t) {
		t->lb = lb;
		t->ub = lb + extent;
		t->lb_marked = t->ub_marked = true;
	}
	return t;
}

/* MPI_Type_create_resized and its _c form (@large). */
static int resized_ctor(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent,
			bool large, MPI_Datatype *newtype)
{
	struct mpirma_dtype *old = NULL;
	struct mpirma_dtype_args *a;
	int ret = mpirma_dtype_ctor_check(0, oldtype, newtype, &old);

	if (!ret && (!mpirma_span_ok(lb, 1) || !mpirma_span_ok(extent, 1)))
		ret = mpirma_err(MPI_ERR_ARG, "lb %lld or extent %lld past "
				 "2^62 bytes", (long long)lb,
				 (long long)extent);
	if (!ret)
		ret = mpirma_dtype_register(mpirma_dtype_resized(old, lb,
								 extent),
					    newtype);
	ret = mpirma_dtype_args_alloc(newtype, ret, 0, large ? 0 : 2,
				      large ? 2 : 0, 1, &a);
	if (ret)
		return ret;
	if (large) {
		a->counts[0] = lb;
		a->counts[1] = extent;
	} else {
		a->aints[0] = lb;
		a->aints[1] = extent;
	}
	mpirma_dtype_args_type(a, 0, old);
	return MPI_SUCCESS;
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb,
			     MPI_Aint extent, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(resized_ctor(oldtype, lb, extent, false, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_resized)

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb,
			       MPI_Count extent, MPI_Datatype *newtype)
{
	MPIRMA_CHECK_INIT();
	return RAISE(resized_ctor(oldtype, lb, extent, true, newtype), NULL);
}
MPIRMA_ALIAS(Type_create_resized_c)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
	struct mpirma_dtype *old = NULL, *t;
	int ret;

	MPIRMA_CHECK_INIT();
	ret = mpirma_dtype_ctor_check(0, oldtype, newtype, &old);
	if (ret)
		return RAISE(ret, NULL);
	t = mpirma_dtype_wrap(MPIRMA_COMBINER_DUP, old);
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
