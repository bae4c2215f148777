// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * convert_type.c - the host's derived datatypes as the engine's: each is
 * rebuilt in the engine from the host's envelope and contents (recursively,
 * down to predefined types, which convert.c maps), kept until
 * MPI_Type_free, and the engine types of recent shapes are cached, so that
 * a program that builds the same type again and again pays for one build.
 * Call with hy.lock held.  Errors are host classes (hy_fail).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"
#include "errors.h"

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
 * Derived types converted lately, for the RMA fast lane (hy_type_derived),
 * which reads them without hy.lock: a program that names the same
 * committed strided types call after call then takes no process-wide lock
 * for them.  Slot by the handle's hash; each slot is a sequence lock,
 * written under hy.lock (odd @seq: being written), its words atomic so a
 * reader racing a writer sees a miss, never a torn pair.
 */
#define HY_DSLOTS	8

struct hy_dslot {
	_Atomic unsigned long seq;
	_Atomic(MPI_Datatype) h;
	_Atomic MPII_Datatype i;
};

static struct hy_dslot dslots[HY_DSLOTS];

static struct hy_dslot *dslot(MPI_Datatype t)
{
	uintptr_t k = (uintptr_t)t;

	return &dslots[(k ^ k >> 4 ^ k >> 9) % HY_DSLOTS];
}

/* Sets @t's slot to (@h, @i); hy.lock held. */
static void dslot_set(MPI_Datatype t, MPI_Datatype h, MPII_Datatype i)
{
	struct hy_dslot *d = dslot(t);
	unsigned long seq = atomic_load_explicit(&d->seq, memory_order_relaxed);

	atomic_store_explicit(&d->seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	atomic_store_explicit(&d->h, h, memory_order_relaxed);
	atomic_store_explicit(&d->i, i, memory_order_relaxed);
	atomic_store_explicit(&d->seq, seq + 2, memory_order_release);
}

/* convert.h */
MPII_Datatype hy_type_derived(MPI_Datatype t)
{
	struct hy_dslot *d = dslot(t);
	unsigned long seq = atomic_load_explicit(&d->seq, memory_order_acquire);
	MPI_Datatype h = atomic_load_explicit(&d->h, memory_order_relaxed);
	MPII_Datatype i = atomic_load_explicit(&d->i, memory_order_relaxed);

	atomic_thread_fence(memory_order_acquire);
	if ((seq & 1) || h != t ||
	    atomic_load_explicit(&d->seq, memory_order_relaxed) != seq)
		return MPII_DATATYPE_NULL;
	return i;
}

static int lookup(MPI_Datatype t, MPII_Datatype *out)
{
	if (hy_type_predefined(t, out))
		return 1;
	for (size_t k = 0; k < nderived; k++)
		if (derived[k].h == t) {
			*out = derived[k].i;
			dslot_set(t, t, *out);
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
	dslot_set(t, t, *out);
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
	if (atomic_load_explicit(&dslot(t)->h, memory_order_relaxed) == t)
		dslot_set(t, MPI_DATATYPE_NULL, MPII_DATATYPE_NULL);
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

/* Arguments of a host type that fit here are decoded without malloc(). */
#define HY_ARGS_SMALL	16

/* A buffer of @n elements of @size bytes: @small when they fit in it. */
static void *args_buf(void *small, size_t n, size_t size)
{
	return n <= HY_ARGS_SMALL ? small : malloc(n * size);
}

static void args_buf_free(void *buf, void *small)
{
	if (buf != small)
		free(buf);
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
	int ints_s[HY_ARGS_SMALL];
	MPI_Aint addrs_s[HY_ARGS_SMALL];
	MPI_Datatype htypes_s[HY_ARGS_SMALL];
	MPII_Datatype itypes_s[HY_ARGS_SMALL];
	bool named_s[HY_ARGS_SMALL];
	int *ints = NULL;
	MPI_Aint *addrs = NULL;
	MPI_Datatype *htypes = NULL;
	MPII_Datatype *itypes = NULL;
	bool *isnamed = NULL;
	MPII_Datatype built = MPII_DATATYPE_NULL;

	if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS)
		return hy_fail(MPI_ERR_TYPE, "not a datatype of this MPI");
	if (comb == MPI_COMBINER_NAMED)
		return hy_fail(MPI_ERR_TYPE, "a predefined datatype mpirma "
			       "does not have");
	ints = args_buf(ints_s, (size_t)ni + 1, sizeof(*ints));
	addrs = args_buf(addrs_s, (size_t)na + 1, sizeof(*addrs));
	htypes = args_buf(htypes_s, (size_t)nd + 1, sizeof(*htypes));
	itypes = args_buf(itypes_s, (size_t)nd + 1, sizeof(*itypes));
	isnamed = args_buf(named_s, (size_t)nd + 1, sizeof(*isnamed));
	if (!ints || !addrs || !htypes || !itypes || !isnamed) {
		nd = 0;		/* no input types to free */
		ret = hy_fail(MPI_ERR_NO_MEM, "out of memory");
		goto out_types;
	}
	PMPI_Type_get_contents(t, ni, na, nd, ints, addrs, htypes);
	cacheable = true;
	for (int k = 0; k < nd; k++) {
		isnamed[k] = named(htypes[k]);
		cacheable &= isnamed[k];
	}
	ret = inner_types(nd, htypes, itypes);
	if (ret)
		goto out_types;
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
		if (!isnamed[k]) {
			/* Its handle may name another type next. */
			hy_type_forget(htypes[k]);
			PMPI_Type_free(&htypes[k]);
		}
	}
	args_buf_free(ints, ints_s);
	args_buf_free(addrs, addrs_s);
	args_buf_free(htypes, htypes_s);
	args_buf_free(itypes, itypes_s);
	args_buf_free(isnamed, named_s);
	return ret;
}
