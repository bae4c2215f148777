/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * datatype_impl.h - what the datatype files of lib/base share; nothing
 * else includes it (the library's interface to datatypes is datatype.h).
 *
 *   datatype.c        the predefined types, objects, a type built from its
 *                     runs, handles, commit and free
 *   datatype_flat.c   block lists, kernel layouts, data moved by them
 *   datatype_ctor.c   the constructors of one old type, struct, resized,
 *                     dup, and the arguments they record
 *   datatype_array.c  subarray
 *   datatype_reuse.c  subarray types freed and made again
 *   datatype_query.c  envelope and contents, size and extents, names,
 *                     addresses, counts in a status
 *   datatype_pack.c   MPI_Pack and its kin
 */
#ifndef MPIRMA_LIB_DATATYPE_IMPL_H
#define MPIRMA_LIB_DATATYPE_IMPL_H

#include "internal.h"
#include "datatype.h"

#define RAISE(cls, ...) mpirma_raise((cls), MPIRMA_FUNC, __VA_ARGS__)

/*
 * One predefined type: MPI size and extent, alignment, kernel element type,
 * op class, basic elements, and its bytes (one or two pieces).
 */
struct mpirma_predef {
	const char *name;
	int size;
	int extent;
	int align;
	int ktype;
	int mclass;
	int nbasic;
	int len0;		/* first piece: [0, len0) */
	int disp1, len1;	/* second piece, if len1 */
};

/* Indexed by handle; a NULL name marks a handle that is no type. */
extern const struct mpirma_predef mpirma_dtype_predefs[MPIRMA_DTYPE_NR_PREDEF];

static inline MPI_Aint min_aint(MPI_Aint a, MPI_Aint b)
{
	return a < b ? a : b;
}

static inline MPI_Aint max_aint(MPI_Aint a, MPI_Aint b)
{
	return a > b ? a : b;
}

/* |@a * @b| <= MPIRMA_MAX_SPAN, the most bytes a type may span, computed
 * without overflow. */
static inline bool mpirma_span_ok(MPI_Count a, MPI_Count b)
{
	if (a < -MPIRMA_MAX_SPAN || a > MPIRMA_MAX_SPAN ||
	    b < -MPIRMA_MAX_SPAN || b > MPIRMA_MAX_SPAN)
		return a == 0 || b == 0;
	if (a < 0)
		a = -a;
	if (b < 0)
		b = -b;
	return !b || a <= MPIRMA_MAX_SPAN / b;
}

/*
 * A (count, datatype) pair of the pack calls: the checks of
 * mpirma_dtype_check(), then MPI_ERR_COUNT for a negative count or more
 * than MPIRMA_MAX_SPAN bytes, which are *@bytes.  Recorded; @out may be
 * NULL.
 */
int mpirma_dtype_size_check(MPI_Count count, MPI_Datatype dt,
			    bool need_commit, struct mpirma_dtype **out,
			    MPI_Count *bytes);

/*
 * Two predefined types are the same basic type for accumulate and for
 * homogeneity when nothing an operation does can tell them apart.
 */
bool mpirma_dtype_same_basic(MPI_Datatype a, MPI_Datatype b);

/*
 * A new type from its runs (taken over, freed on failure): computes size,
 * bounds, alignment and basic type, and references the children.  NULL when
 * out of memory.
 */
struct mpirma_dtype *mpirma_dtype_build(int combiner,
					struct mpirma_dtype_run *runs,
					int nruns);

/* Room for @n runs (at least one), zeroed; NULL when out of memory. */
struct mpirma_dtype_run *mpirma_dtype_runs_alloc(int n);

/* One instance of @old at 0 (resized, dup, the f90 types); NULL: no memory. */
struct mpirma_dtype *mpirma_dtype_wrap(int combiner, struct mpirma_dtype *old);

/* @old resized to @lb and @extent, explicit bounds; NULL out of memory. */
struct mpirma_dtype *mpirma_dtype_resized(struct mpirma_dtype *old,
					  MPI_Aint lb, MPI_Aint extent);

/* Registers a new type (NULL: out of memory): MPI class, recorded. */
int mpirma_dtype_register(struct mpirma_dtype *t, MPI_Datatype *newtype);

/*
 * Frees the type @t of handle *@datatype (MPI_Type_free): attributes, then
 * the handle.  MPI class of the first failing delete callback (recorded).
 */
int mpirma_dtype_release(struct mpirma_dtype *t, MPI_Datatype *datatype);

/*
 * Keeps type @t, whose handle MPI_Type_free has just freed, for
 * mpirma_dtype_take() when nothing else holds it and it is of a kind worth
 * keeping: true when it took the handle's reference.
 */
bool mpirma_dtype_keep(struct mpirma_dtype *t);

/*
 * A kept type of @combiner made from the arguments @want (the old types as
 * objects), to be registered as new; NULL: build one.
 */
struct mpirma_dtype *mpirma_dtype_take(int combiner,
				       const struct mpirma_dtype_args *want);

/*
 * The checks of a constructor of one old type: MPI_ERR_COUNT for a
 * negative @count, MPI_ERR_ARG for a NULL @newtype, MPI_ERR_TYPE for a bad
 * @oldtype (*@old).  Recorded.
 */
int mpirma_dtype_ctor_check(int count, MPI_Datatype oldtype,
			    MPI_Datatype *newtype, struct mpirma_dtype **old);

/*
 * Room for the arguments of the constructor that made *@newtype (when @ret
 * is MPI_SUCCESS), which the caller fills in (mpirma_dtype_args_type() for
 * the types).  Out of memory, the new type is freed again.  MPI class
 * (recorded).
 */
int mpirma_dtype_args_alloc(MPI_Datatype *newtype, int ret, int ni, int na,
			    int nc, int nt, struct mpirma_dtype_args **out);
/* Type @i of the arguments is @t (referenced). */
void mpirma_dtype_args_type(struct mpirma_dtype_args *a, int i,
			    struct mpirma_dtype *t);

/* @n integers at @p: a piece of a constructor's integer arguments. */
struct mpirma_ints_piece {
	int n;
	const int *p;
};

/* The pieces of mpirma_dtype_args_one() as an array and its length. */
#define PIECES(...)							\
	(const struct mpirma_ints_piece[]){ __VA_ARGS__ },		\
	(int)(sizeof((const struct mpirma_ints_piece[]){ __VA_ARGS__ }) / \
	      sizeof(struct mpirma_ints_piece))

/*
 * The arguments of a constructor of one old type: the integers of the
 * @npieces @pieces one after the other, @na addresses from @aints.
 */
int mpirma_dtype_args_one(MPI_Datatype *newtype, int ret,
			  struct mpirma_dtype *old,
			  const struct mpirma_ints_piece *pieces, int npieces,
			  int na, const MPI_Aint *aints);

/*
 * A constructor's numbers as the caller gave them: an int array (the MPI-3
 * forms), an MPI_Count array (the _c forms), an MPI_Aint array (byte
 * displacements), or, with no array, @one for every block.
 */
struct mpirma_nums {
	const int *i;
	const MPI_Count *c;
	const MPI_Aint *a;
	MPI_Count one;
};

/*
 * A constructor of blocks of one old type (contiguous, the vectors, the
 * indexed ones): @count blocks of @bl elements at @disp, in elements of the
 * old type or in bytes as @combiner says (with no array, @disp.one is the
 * stride); @arrays: NULL arrays are MPI_ERR_ARG; @large: a _c form.
 */
struct mpirma_ctor_in {
	int combiner;
	MPI_Count count;
	struct mpirma_nums bl, disp;
	bool large;
	bool arrays;
};

/* Builds and registers *@newtype, recording @in.  MPI class, recorded. */
int mpirma_dtype_blocks_ctor(const struct mpirma_ctor_in *in,
			     MPI_Datatype oldtype, MPI_Datatype *newtype);

/*
 * The count of blocks of a constructor: MPI_ERR_COUNT when negative or,
 * for a _c form (@large), more than an int (the blocks are counted in
 * ints); MPI_ERR_ARG for a NULL @newtype.  Recorded.
 */
int mpirma_dtype_count_check(MPI_Count count, bool large,
			     MPI_Datatype *newtype);

/*
 * Run @r of a type being built: a negative length is MPI_ERR_ARG, a run or
 * a sum of sizes (*@total, updated) past MPIRMA_MAX_SPAN bytes
 * MPI_ERR_COUNT.  Recorded.
 */
int mpirma_dtype_run_check(const struct mpirma_dtype_run *r,
			   MPI_Count *total);

#endif /* MPIRMA_LIB_DATATYPE_IMPL_H */
