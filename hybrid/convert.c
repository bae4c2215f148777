// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * convert.c - the host MPI's values as the engine's: datatypes (derived ones
 * rebuilt in the engine from the host's envelope and contents, and cached
 * until MPI_Type_free), ops, info objects, assertions, lock types, ranks and
 * groups.  Call with hy.lock held.  Errors are host classes (hy_fail).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "errors.h"


/* Predefined datatypes both MPIs define. */
static const struct hy_type_pair type_pairs[] = {
#ifdef MPI_CHAR
	{ MPI_CHAR, MPII_CHAR },
#endif
#ifdef MPI_SIGNED_CHAR
	{ MPI_SIGNED_CHAR, MPII_SIGNED_CHAR },
#endif
#ifdef MPI_UNSIGNED_CHAR
	{ MPI_UNSIGNED_CHAR, MPII_UNSIGNED_CHAR },
#endif
#ifdef MPI_BYTE
	{ MPI_BYTE, MPII_BYTE },
#endif
#ifdef MPI_WCHAR
	{ MPI_WCHAR, MPII_WCHAR },
#endif
#ifdef MPI_SHORT
	{ MPI_SHORT, MPII_SHORT },
#endif
#ifdef MPI_UNSIGNED_SHORT
	{ MPI_UNSIGNED_SHORT, MPII_UNSIGNED_SHORT },
#endif
#ifdef MPI_INT
	{ MPI_INT, MPII_INT },
#endif
#ifdef MPI_UNSIGNED
	{ MPI_UNSIGNED, MPII_UNSIGNED },
#endif
#ifdef MPI_LONG
	{ MPI_LONG, MPII_LONG },
#endif
#ifdef MPI_UNSIGNED_LONG
	{ MPI_UNSIGNED_LONG, MPII_UNSIGNED_LONG },
#endif
#ifdef MPI_LONG_LONG_INT
	{ MPI_LONG_LONG_INT, MPII_LONG_LONG_INT },
#endif
#ifdef MPI_LONG_LONG
	{ MPI_LONG_LONG, MPII_LONG_LONG },
#endif
#ifdef MPI_UNSIGNED_LONG_LONG
	{ MPI_UNSIGNED_LONG_LONG, MPII_UNSIGNED_LONG_LONG },
#endif
#ifdef MPI_FLOAT
	{ MPI_FLOAT, MPII_FLOAT },
#endif
#ifdef MPI_DOUBLE
	{ MPI_DOUBLE, MPII_DOUBLE },
#endif
#ifdef MPI_LONG_DOUBLE
	{ MPI_LONG_DOUBLE, MPII_LONG_DOUBLE },
#endif
#ifdef MPI_C_BOOL
	{ MPI_C_BOOL, MPII_C_BOOL },
#endif
#ifdef MPI_INT8_T
	{ MPI_INT8_T, MPII_INT8_T },
#endif
#ifdef MPI_INT16_T
	{ MPI_INT16_T, MPII_INT16_T },
#endif
#ifdef MPI_INT32_T
	{ MPI_INT32_T, MPII_INT32_T },
#endif
#ifdef MPI_INT64_T
	{ MPI_INT64_T, MPII_INT64_T },
#endif
#ifdef MPI_UINT8_T
	{ MPI_UINT8_T, MPII_UINT8_T },
#endif
#ifdef MPI_UINT16_T
	{ MPI_UINT16_T, MPII_UINT16_T },
#endif
#ifdef MPI_UINT32_T
	{ MPI_UINT32_T, MPII_UINT32_T },
#endif
#ifdef MPI_UINT64_T
	{ MPI_UINT64_T, MPII_UINT64_T },
#endif
#ifdef MPI_AINT
	{ MPI_AINT, MPII_AINT },
#endif
#ifdef MPI_OFFSET
	{ MPI_OFFSET, MPII_OFFSET },
#endif
#ifdef MPI_COUNT
	{ MPI_COUNT, MPII_COUNT },
#endif
#ifdef MPI_C_FLOAT_COMPLEX
	{ MPI_C_FLOAT_COMPLEX, MPII_C_FLOAT_COMPLEX },
#endif
#ifdef MPI_C_COMPLEX
	{ MPI_C_COMPLEX, MPII_C_COMPLEX },
#endif
#ifdef MPI_C_DOUBLE_COMPLEX
	{ MPI_C_DOUBLE_COMPLEX, MPII_C_DOUBLE_COMPLEX },
#endif
#ifdef MPI_C_LONG_DOUBLE_COMPLEX
	{ MPI_C_LONG_DOUBLE_COMPLEX, MPII_C_LONG_DOUBLE_COMPLEX },
#endif
#ifdef MPI_PACKED
	{ MPI_PACKED, MPII_PACKED },
#endif
#ifdef MPI_FLOAT_INT
	{ MPI_FLOAT_INT, MPII_FLOAT_INT },
#endif
#ifdef MPI_DOUBLE_INT
	{ MPI_DOUBLE_INT, MPII_DOUBLE_INT },
#endif
#ifdef MPI_LONG_INT
	{ MPI_LONG_INT, MPII_LONG_INT },
#endif
#ifdef MPI_2INT
	{ MPI_2INT, MPII_2INT },
#endif
#ifdef MPI_SHORT_INT
	{ MPI_SHORT_INT, MPII_SHORT_INT },
#endif
#ifdef MPI_LONG_DOUBLE_INT
	{ MPI_LONG_DOUBLE_INT, MPII_LONG_DOUBLE_INT },
#endif
#ifdef MPI_CXX_BOOL
	{ MPI_CXX_BOOL, MPII_CXX_BOOL },
#endif
#ifdef MPI_CXX_FLOAT_COMPLEX
	{ MPI_CXX_FLOAT_COMPLEX, MPII_CXX_FLOAT_COMPLEX },
#endif
#ifdef MPI_CXX_DOUBLE_COMPLEX
	{ MPI_CXX_DOUBLE_COMPLEX, MPII_CXX_DOUBLE_COMPLEX },
#endif
#ifdef MPI_CXX_LONG_DOUBLE_COMPLEX
	{ MPI_CXX_LONG_DOUBLE_COMPLEX, MPII_CXX_LONG_DOUBLE_COMPLEX },
#endif
#ifdef MPI_CHARACTER
	{ MPI_CHARACTER, MPII_CHARACTER },
#endif
#ifdef MPI_INTEGER
	{ MPI_INTEGER, MPII_INTEGER },
#endif
#ifdef MPI_REAL
	{ MPI_REAL, MPII_REAL },
#endif
#ifdef MPI_DOUBLE_PRECISION
	{ MPI_DOUBLE_PRECISION, MPII_DOUBLE_PRECISION },
#endif
#ifdef MPI_LOGICAL
	{ MPI_LOGICAL, MPII_LOGICAL },
#endif
#ifdef MPI_COMPLEX
	{ MPI_COMPLEX, MPII_COMPLEX },
#endif
#ifdef MPI_DOUBLE_COMPLEX
	{ MPI_DOUBLE_COMPLEX, MPII_DOUBLE_COMPLEX },
#endif
#ifdef MPI_INTEGER1
	{ MPI_INTEGER1, MPII_INTEGER1 },
#endif
#ifdef MPI_INTEGER2
	{ MPI_INTEGER2, MPII_INTEGER2 },
#endif
#ifdef MPI_INTEGER4
	{ MPI_INTEGER4, MPII_INTEGER4 },
#endif
#ifdef MPI_INTEGER8
	{ MPI_INTEGER8, MPII_INTEGER8 },
#endif
#ifdef MPI_REAL4
	{ MPI_REAL4, MPII_REAL4 },
#endif
#ifdef MPI_REAL8
	{ MPI_REAL8, MPII_REAL8 },
#endif
#ifdef MPI_2INTEGER
	{ MPI_2INTEGER, MPII_2INTEGER },
#endif
#ifdef MPI_2REAL
	{ MPI_2REAL, MPII_2REAL },
#endif
#ifdef MPI_2DOUBLE_PRECISION
	{ MPI_2DOUBLE_PRECISION, MPII_2DOUBLE_PRECISION },
#endif
};

/* The predefined ops (the only ones RMA takes). */
static const struct hy_op_pair op_pairs[] = {
	{ MPI_MAX, MPII_MAX },
	{ MPI_MIN, MPII_MIN },
	{ MPI_SUM, MPII_SUM },
	{ MPI_PROD, MPII_PROD },
	{ MPI_LAND, MPII_LAND },
	{ MPI_BAND, MPII_BAND },
	{ MPI_LOR, MPII_LOR },
	{ MPI_BOR, MPII_BOR },
	{ MPI_LXOR, MPII_LXOR },
	{ MPI_BXOR, MPII_BXOR },
	{ MPI_MAXLOC, MPII_MAXLOC },
	{ MPI_MINLOC, MPII_MINLOC },
	{ MPI_REPLACE, MPII_REPLACE },
	{ MPI_NO_OP, MPII_NO_OP },
};

/* Derived types rebuilt in the engine: a growable array, searched linearly. */
static struct hy_type_pair *derived;
static size_t nderived, capderived;

/*
 * Engine types of recent shapes, so that a program that builds the same
 * type again and again pays for the engine's build, commit and flattening
 * once: Debian's MPICH build of ARMCI-MPI makes a subarray type for every
 * strided Global Arrays get and frees it after.  A shape is a combiner, its integer and
 * address arguments and its input types, all predefined (a derived input's
 * engine handle may name another type once freed).  The cache owns each
 * type; @users counts the host handles converted to it.
 * An unused shape is dropped when its entry is needed, the least recently
 * used first.
 */
#define HY_SHAPES	32

struct hy_shape {
	bool live;
	int comb, ni, na, nd;
	int *ints;
	MPI_Aint *addrs;
	MPII_Datatype *itypes;
	MPII_Datatype built;
	unsigned int users;
	unsigned long used;
};

static struct hy_shape shapes[HY_SHAPES];
static unsigned long shape_clock;

static int rebuild(MPI_Datatype t, MPII_Datatype *out);
static void type_release(MPII_Datatype *t);

/*
 * The predefined type converted last (hy_type(), hybrid.h): an RMA call
 * names the same type on both sides and again in the next call, and the
 * linear search of type_pairs cost more than the rest of the layer's work
 * on an operation.  Likewise the op.
 */
const struct hy_type_pair *_Atomic hy_type_last;
const struct hy_op_pair *_Atomic hy_op_last;

/* convert.h: the table is constant, so no lock is needed. */
bool hy_type_predefined(MPI_Datatype t, MPII_Datatype *out)
{
	for (size_t k = 0; k < sizeof(type_pairs) / sizeof(type_pairs[0]); k++)
		if (type_pairs[k].h == t) {
			atomic_store_explicit(&hy_type_last, &type_pairs[k],
					      memory_order_relaxed);
			*out = type_pairs[k].i;
			return true;
		}
	return false;
}

static int lookup(MPI_Datatype t, MPII_Datatype *out)
{
	if (hy_type_predefined(t, out))
		return 1;
	for (size_t k = 0; k < nderived; k++)
		if (derived[k].h == t) {
			*out = derived[k].i;
			return 1;
		}
	return 0;
}

int hy_type_lookup(MPI_Datatype t, MPII_Datatype *out)
{
	int ret;

	if (t == MPI_DATATYPE_NULL)
		return hy_fail(MPI_ERR_TYPE, "MPI_DATATYPE_NULL is not a datatype");
	if (lookup(t, out))
		return MPI_SUCCESS;
	ret = rebuild(t, out);
	if (ret)
		return ret;
	if (nderived == capderived) {
		size_t cap = capderived ? 2 * capderived : 16;
		struct hy_type_pair *d = realloc(derived, cap * sizeof(*d));

		if (!d) {
			type_release(out);
			return hy_fail(MPI_ERR_NO_MEM, "out of memory");
		}
		derived = d;
		capderived = cap;
	}
	derived[nderived].h = t;
	derived[nderived++].i = *out;
	return MPI_SUCCESS;
}

/* The cached shape of engine type @t, or NULL. */
static struct hy_shape *shape_of(MPII_Datatype t)
{
	for (int k = 0; k < HY_SHAPES; k++)
		if (shapes[k].live && shapes[k].built == t)
			return &shapes[k];
	return NULL;
}

/* The engine type of a converted host handle is no longer wanted. */
static void type_release(MPII_Datatype *t)
{
	struct hy_shape *sh = shape_of(*t);

	if (sh)
		sh->users--;
	else
		MPII_Type_free(t);
}

/* The cached type of this shape, or NULL; see struct hy_shape. */
static struct hy_shape *shape_find(int comb, int ni, int na, int nd,
				   const int *ints, const MPI_Aint *addrs,
				   const MPII_Datatype *itypes)
{
	for (int k = 0; k < HY_SHAPES; k++) {
		struct hy_shape *sh = &shapes[k];

		if (sh->live && sh->comb == comb && sh->ni == ni &&
		    sh->na == na && sh->nd == nd &&
		    !memcmp(sh->ints, ints, sizeof(*ints) * (size_t)ni) &&
		    !memcmp(sh->addrs, addrs, sizeof(*addrs) * (size_t)na) &&
		    !memcmp(sh->itypes, itypes, sizeof(*itypes) * (size_t)nd))
			return sh;
	}
	return NULL;
}

/* Frees entry @sh's key and empties it (its type is someone else's). */
static void shape_clear(struct hy_shape *sh)
{
	free(sh->ints);
	free(sh->addrs);
	free(sh->itypes);
	*sh = (struct hy_shape){ 0 };
}

static void shape_drop(struct hy_shape *sh)
{
	MPII_Type_free(&sh->built);
	shape_clear(sh);
}

/*
 * Keeps engine type @built of this shape, converted for one host handle
 * now, if an entry is free or unused (the cache then owns it); else the
 * handle's pair does, as without a cache.
 */
static void shape_keep(int comb, int ni, int na, int nd, const int *ints,
		       const MPI_Aint *addrs, const MPII_Datatype *itypes,
		       MPII_Datatype built)
{
	struct hy_shape *sh = NULL;

	for (int k = 0; k < HY_SHAPES; k++)
		if (!shapes[k].live) {
			sh = &shapes[k];
			break;
		} else if (!shapes[k].users &&
			   (!sh || shapes[k].used < sh->used)) {
			sh = &shapes[k];
		}
	if (!sh)
		return;
	if (sh->live)
		shape_drop(sh);
	*sh = (struct hy_shape){
		.live = true, .comb = comb, .ni = ni, .na = na, .nd = nd,
		.ints = malloc(sizeof(*ints) * (size_t)(ni + 1)),
		.addrs = malloc(sizeof(*addrs) * (size_t)(na + 1)),
		.itypes = malloc(sizeof(*itypes) * (size_t)(nd + 1)),
		.built = built, .users = 1, .used = ++shape_clock,
	};
	if (!sh->ints || !sh->addrs || !sh->itypes) {
		shape_clear(sh);	/* the handle's pair keeps @built */
		return;
	}
	memcpy(sh->ints, ints, sizeof(*ints) * (size_t)ni);
	memcpy(sh->addrs, addrs, sizeof(*addrs) * (size_t)na);
	memcpy(sh->itypes, itypes, sizeof(*itypes) * (size_t)nd);
}

/* MPI_Type_free: the host may give the handle to a new type next. */
void hy_type_forget(MPI_Datatype t)
{
	for (size_t k = 0; k < nderived; k++)
		if (derived[k].h == t) {
			type_release(&derived[k].i);
			derived[k] = derived[--nderived];
			return;
		}
}

/* The engine's types of a constructor's host types. */
static int inner_types(int n, const MPI_Datatype *h, MPII_Datatype *i)
{
	for (int k = 0; k < n; k++) {
		int ret = hy_type(h[k], &i[k]);

		if (ret)
			return ret;
	}
	return MPI_SUCCESS;
}

/* Is host type @t a predefined one? */
static bool named(MPI_Datatype t)
{
	int a, b, c, comb;

	PMPI_Type_get_envelope(t, &a, &b, &c, &comb);
	return comb == MPI_COMBINER_NAMED;
}

/* The engine's value of a darray distribution constant @d of the host. */
static int darray_dist(int d)
{
	return d == MPI_DISTRIBUTE_BLOCK ? MPII_DISTRIBUTE_BLOCK :
	       d == MPI_DISTRIBUTE_CYCLIC ? MPII_DISTRIBUTE_CYCLIC :
	       d == MPI_DISTRIBUTE_NONE ? MPII_DISTRIBUTE_NONE : d;
}

/*
 * MPI_Type_create_darray's rebuild: the contents are size, rank, ndims,
 * then gsizes, distribs, dargs and psizes of ndims each, then the order,
 * whose constants the engine spells its own way.
 */
static int darray_build(const int *ints, MPII_Datatype old,
			MPII_Datatype *built)
{
	int n = ints[2], ret;
	int *v = malloc(sizeof(int) * 2 * (size_t)(n > 0 ? n : 1));

	if (!v)
		return MPII_ERR_NO_MEM;
	for (int k = 0; k < n; k++) {
		int darg = ints[3 + 2 * n + k];

		v[k] = darray_dist(ints[3 + n + k]);
		v[n + k] = darg == MPI_DISTRIBUTE_DFLT_DARG ?
			   MPII_DISTRIBUTE_DFLT_DARG : darg;
	}
	ret = MPII_Type_create_darray(ints[0], ints[1], n, ints + 3, v, v + n,
				      ints + 3 + 3 * n,
				      ints[3 + 4 * n] == MPI_ORDER_C ?
				      MPII_ORDER_C : MPII_ORDER_FORTRAN, old,
				      built);
	free(v);
	return ret;
}

/*
 * The engine's call that builds a type of combiner @comb from the contents
 * @ints (the count @cnt first), @addrs and @itypes: its code, or -1 when
 * the engine has no such combiner.
 */
static int build(int comb, int cnt, const int *ints, const MPI_Aint *addrs,
		 MPII_Datatype *itypes, MPII_Datatype *built)
{
	int ret;

	switch (comb) {
	case MPI_COMBINER_DUP:
		ret = MPII_Type_dup(itypes[0], built);
		break;
	case MPI_COMBINER_CONTIGUOUS:
		ret = MPII_Type_contiguous(cnt, itypes[0], built);
		break;
	case MPI_COMBINER_VECTOR:
		ret = MPII_Type_vector(cnt, ints[1], ints[2], itypes[0], built);
		break;
	case MPI_COMBINER_HVECTOR:
		ret = MPII_Type_create_hvector(cnt, ints[1], addrs[0], itypes[0],
					       built);
		break;
	case MPI_COMBINER_INDEXED:
		ret = MPII_Type_indexed(cnt, ints + 1, ints + 1 + cnt, itypes[0],
					built);
		break;
	case MPI_COMBINER_HINDEXED:
		ret = MPII_Type_create_hindexed(cnt, ints + 1, addrs, itypes[0],
						built);
		break;
	case MPI_COMBINER_INDEXED_BLOCK:
		ret = MPII_Type_create_indexed_block(cnt, ints[1], ints + 2,
						     itypes[0], built);
		break;
	case MPI_COMBINER_HINDEXED_BLOCK:
		ret = MPII_Type_create_hindexed_block(cnt, ints[1], addrs,
						      itypes[0], built);
		break;
	case MPI_COMBINER_STRUCT:
		ret = MPII_Type_create_struct(cnt, ints + 1, addrs, itypes,
					      built);
		break;
	case MPI_COMBINER_SUBARRAY:
		ret = MPII_Type_create_subarray(cnt, ints + 1, ints + 1 + cnt,
						ints + 1 + 2 * cnt,
						ints[1 + 3 * cnt] == MPI_ORDER_C ?
						MPII_ORDER_C : MPII_ORDER_FORTRAN,
						itypes[0], built);
		break;
	case MPI_COMBINER_RESIZED:
		ret = MPII_Type_create_resized(itypes[0], addrs[0], addrs[1],
					       built);
		break;
	case MPI_COMBINER_DARRAY:
		ret = darray_build(ints, itypes[0], built);
		break;
	default:
		ret = -1;
		break;
	}
	return ret;
}

/*
 * Builds in the engine the type the host's envelope and contents describe.
 * The engine checks the arguments again; its errors come back as classes.
 */
static int rebuild(MPI_Datatype t, MPII_Datatype *out)
{
	int ni, na, nd, comb, ret;
	struct hy_shape *sh;
	bool cacheable;
	int *ints = NULL;
	MPI_Aint *addrs = NULL;
	MPI_Datatype *htypes = NULL;
	MPII_Datatype *itypes = NULL;
	MPII_Datatype built = MPII_DATATYPE_NULL;

	if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS)
		return hy_fail(MPI_ERR_TYPE, "not a datatype of this MPI");
	if (comb == MPI_COMBINER_NAMED)
		return hy_fail(MPI_ERR_TYPE, "a predefined datatype mpirma "
			       "does not have");
	ints = malloc(sizeof(int) * (size_t)(ni + 1));
	addrs = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
	htypes = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
	itypes = malloc(sizeof(MPII_Datatype) * (size_t)(nd + 1));
	if (!ints || !addrs || !htypes || !itypes) {
		ret = hy_fail(MPI_ERR_NO_MEM, "out of memory");
		goto out_free;
	}
	PMPI_Type_get_contents(t, ni, na, nd, ints, addrs, htypes);
	ret = inner_types(nd, htypes, itypes);
	if (ret)
		goto out_types;
	cacheable = true;
	for (int k = 0; k < nd; k++)
		cacheable &= named(htypes[k]);
	sh = cacheable ? shape_find(comb, ni, na, nd, ints, addrs, itypes) :
	     NULL;
	if (sh) {
		sh->users++;
		sh->used = ++shape_clock;
		*out = sh->built;
		goto out_types;
	}

	ret = build(comb, ni > 0 ? ints[0] : 0, ints, addrs, itypes, &built);
	if (ret == -1) {
		ret = hy_fail(MPI_ERR_TYPE, "a datatype built with combiner %d "
			      "(a Fortran 90 parameterized type), which mpirma "
			      "cannot rebuild", comb);
	} else if (ret == MPII_SUCCESS) {
		ret = hy_inner(MPII_Type_commit(&built));
		if (ret == MPI_SUCCESS) {
			*out = built;
			if (cacheable)
				shape_keep(comb, ni, na, nd, ints, addrs,
					   itypes, built);
		}
	} else {
		ret = hy_inner(ret);
	}
out_types:
	/* Derived inputs the host made for us are ours to free. */
	for (int k = 0; k < nd; k++) {
		if (!named(htypes[k])) {
			/* Its handle may name another type next. */
			hy_type_forget(htypes[k]);
			PMPI_Type_free(&htypes[k]);
		}
	}
out_free:
	free(ints);
	free(addrs);
	free(htypes);
	free(itypes);
	return ret;
}

/* convert.h */
bool hy_op_predefined(MPI_Op op, MPII_Op *out)
{
	for (size_t k = 0; k < sizeof(op_pairs) / sizeof(op_pairs[0]); k++)
		if (op_pairs[k].h == op) {
			atomic_store_explicit(&hy_op_last, &op_pairs[k],
					      memory_order_relaxed);
			*out = op_pairs[k].i;
			return true;
		}
	return false;
}

int hy_op_lookup(MPI_Op op, MPII_Op *out)
{
	if (hy_op_predefined(op, out))
		return MPI_SUCCESS;
	return hy_fail(MPI_ERR_OP, "RMA takes only predefined ops");
}

int hy_info(MPI_Info info, MPII_Info *out)
{
	char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
	int n = 0, flag, ret;

	*out = MPII_INFO_NULL;
	if (info == MPI_INFO_NULL)
		return MPI_SUCCESS;
	ret = hy_inner(MPII_Info_create(out));
	if (ret)
		return ret;
	PMPI_Info_get_nkeys(info, &n);
	for (int k = 0; k < n && !ret; k++) {
		if (PMPI_Info_get_nthkey(info, k, key) != MPI_SUCCESS)
			continue;
		PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag);
		if (flag)
			ret = hy_inner(MPII_Info_set(*out, key, val));
	}
	if (ret)
		MPII_Info_free(out);
	return ret;
}

int hy_assert(int a)
{
	return ((a & MPI_MODE_NOCHECK) ? MPII_MODE_NOCHECK : 0) |
	       ((a & MPI_MODE_NOSTORE) ? MPII_MODE_NOSTORE : 0) |
	       ((a & MPI_MODE_NOPUT) ? MPII_MODE_NOPUT : 0) |
	       ((a & MPI_MODE_NOPRECEDE) ? MPII_MODE_NOPRECEDE : 0) |
	       ((a & MPI_MODE_NOSUCCEED) ? MPII_MODE_NOSUCCEED : 0);
}

int hy_lock_type(int lock_type, int *out)
{
	if (lock_type == MPI_LOCK_EXCLUSIVE)
		*out = MPII_LOCK_EXCLUSIVE;
	else if (lock_type == MPI_LOCK_SHARED)
		*out = MPII_LOCK_SHARED;
	else
		return hy_fail(MPI_ERR_LOCKTYPE, "lock type %d is neither "
			       "MPI_LOCK_EXCLUSIVE nor MPI_LOCK_SHARED",
			       lock_type);
	return MPI_SUCCESS;
}

/*
 * A window rank as the engine's: a node window has the host's ranks in
 * their order; the engine part of a window that spans nodes has this
 * node's ranks in that order (a rank elsewhere, or no rank of the window,
 * becomes one the engine rejects with MPI_ERR_RANK).
 */
int hy_rank_span(const struct hy_win *w, int rank)
{
	if (rank == MPI_PROC_NULL)
		return MPII_PROC_NULL;
	if (!w->span)
		return rank;
	if (rank < 0 || rank >= w->span->size || w->span->erank[rank] < 0)
		return INT_MAX;
	return w->span->erank[rank];
}

/* A PSCW group (host) as the engine's group of the same window ranks. */
int hy_group(struct hy_win *w, MPI_Group group, MPII_Group *out)
{
	int n, *from, *to, ret;

	if (group == MPI_GROUP_NULL)
		return hy_fail(MPI_ERR_GROUP, "MPI_GROUP_NULL");
	if (PMPI_Group_size(group, &n) != MPI_SUCCESS)
		return hy_fail(MPI_ERR_GROUP, "not a group");
	from = malloc(sizeof(int) * (size_t)(n + 1));
	to = malloc(sizeof(int) * (size_t)(n + 1));
	if (!from || !to) {
		ret = hy_fail(MPI_ERR_NO_MEM, "out of memory");
		goto out;
	}
	for (int k = 0; k < n; k++)
		from[k] = k;
	PMPI_Group_translate_ranks(group, n, from, w->hgroup, to);
	for (int k = 0; k < n; k++)
		if (to[k] == MPI_UNDEFINED) {
			ret = hy_fail(MPI_ERR_GROUP, "rank %d of the group is "
				      "not in the window", k);
			goto out;
		}
	ret = hy_inner(MPII_Group_incl(w->igroup, n, to, out));
out:
	free(from);
	free(to);
	return ret;
}

void hy_group_forget(struct hy_win *w, int slot)
{
	if (w->pscw[slot].host != MPI_GROUP_NULL)
		PMPI_Group_free(&w->pscw[slot].host);
	if (w->pscw[slot].inner != MPII_GROUP_NULL)
		MPII_Group_free(&w->pscw[slot].inner);
}

int hy_group_cached(struct hy_win *w, int slot, MPI_Group group,
		    MPII_Group *out)
{
	int same = MPI_UNEQUAL, ret;
	MPI_Group copy;

	if (group != MPI_GROUP_NULL && w->pscw[slot].host != MPI_GROUP_NULL &&
	    PMPI_Group_compare(group, w->pscw[slot].host, &same) ==
	    MPI_SUCCESS && same == MPI_IDENT) {
		*out = w->pscw[slot].inner;
		return MPI_SUCCESS;
	}
	ret = hy_group(w, group, out);
	if (ret)
		return ret;
	/* The program may free its handle: the cache keeps a group of its own. */
	if (PMPI_Group_union(group, MPI_GROUP_EMPTY, &copy) != MPI_SUCCESS)
		copy = MPI_GROUP_NULL;
	hy_group_forget(w, slot);
	w->pscw[slot].host = copy;
	w->pscw[slot].inner = *out;
	return MPI_SUCCESS;
}
