// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * convert.c - the host MPI's values as the engine's: predefined datatypes
 * (derived ones: convert_type.c), ops, info objects, assertions, lock
 * types, ranks and groups.  Call with hy.lock held.  Errors are host
 * classes (hy_fail).
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

/*
 * The predefined type converted last (hy_type(), hybrid.h): an RMA call
 * names the same type on both sides and again in the next call, and the
 * linear search of type_pairs cost more than the rest of the layer's work
 * on an operation.  Likewise the op.  Until the first conversion they
 * hold a pair of no handle a call can pass (0: a null pointer under Open
 * MPI, no handle's bits under MPICH), so that a lookup needs no test for
 * NULL.
 */
static const struct hy_type_pair type_none = { (MPI_Datatype)0,
					       MPII_DATATYPE_NULL };
static const struct hy_op_pair op_none = { (MPI_Op)0, MPII_OP_NULL };
const struct hy_type_pair *_Atomic hy_type_last = &type_none;
const struct hy_op_pair *_Atomic hy_op_last = &op_none;

#define NR_TYPE_PAIRS	(sizeof(type_pairs) / sizeof(type_pairs[0]))

/*
 * type_pairs' indices in the order of their host handles (as numbers: Open
 * MPI's are addresses, MPICH's integers), for a binary search: a derived
 * type (every strided call) missed the whole table twice per call, 730
 * instructions, more than the engine's own work for 8 blocks.  Ties keep the
 * table's order.  Set before any MPI call, then only read.
 */
static unsigned short type_order[NR_TYPE_PAIRS];
/* The smallest and largest of those keys: a derived type is seldom between. */
static uintptr_t type_key_lo, type_key_hi;

static uintptr_t type_key(MPI_Datatype t)
{
	return (uintptr_t)t;
}

static int type_order_cmp(const void *a, const void *b)
{
	unsigned short x = *(const unsigned short *)a;
	unsigned short y = *(const unsigned short *)b;
	uintptr_t kx = type_key(type_pairs[x].h), ky = type_key(type_pairs[y].h);

	if (kx != ky)
		return kx < ky ? -1 : 1;
	return x < y ? -1 : x > y;
}

static void __attribute__((constructor)) type_order_init(void)
{
	for (size_t k = 0; k < NR_TYPE_PAIRS; k++)
		type_order[k] = (unsigned short)k;
	qsort(type_order, NR_TYPE_PAIRS, sizeof(type_order[0]),
	      type_order_cmp);
	type_key_lo = type_key(type_pairs[type_order[0]].h);
	type_key_hi = type_key(type_pairs[type_order[NR_TYPE_PAIRS - 1]].h);
}

/* convert.h: the table is constant, so no lock is needed. */
bool hy_type_predefined(MPI_Datatype t, MPII_Datatype *out)
{
	size_t lo = 0, hi = NR_TYPE_PAIRS;
	uintptr_t key = type_key(t);
	const struct hy_type_pair *p;

	if (key < type_key_lo || key > type_key_hi)
		return false;
	while (lo < hi) {	/* the first whose key is not below @key */
		size_t mid = lo + (hi - lo) / 2;

		if (type_key(type_pairs[type_order[mid]].h) < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == NR_TYPE_PAIRS)
		return false;
	p = &type_pairs[type_order[lo]];
	if (p->h != t)
		return false;
	atomic_store_explicit(&hy_type_last, p, memory_order_relaxed);
	*out = p->i;
	return true;
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

/* convert.h */
MPII_Datatype hy_type_miss(MPI_Datatype t)
{
	MPII_Datatype out;

	return hy_type_predefined(t, &out) ? out : hy_type_derived(t);
}

/* convert.h */
MPII_Op hy_op_miss(MPI_Op op)
{
	MPII_Op out;

	return hy_op_predefined(op, &out) ? out : MPII_OP_NULL;
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

int hy_assert_bits(int a)
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
	w->pscw[slot].prog = MPI_GROUP_NULL;
}

/*
 * MPI_Group_free calls of the program so far (its Fortran ones too,
 * hybrid/fortran.list): a group handle the program has not freed since
 * it was cached still names the same members, as groups never change.
 */
unsigned int hy_group_frees;

int MPI_Group_free(MPI_Group *group)
{
	__atomic_fetch_add(&hy_group_frees, 1, __ATOMIC_RELAXED);
	return PMPI_Group_free(group);
}

int hy_group_cached(struct hy_win *w, int slot, MPI_Group group,
		    MPII_Group *out)
{
	unsigned int frees = __atomic_load_n(&hy_group_frees,
					     __ATOMIC_RELAXED);
	int same = MPI_UNEQUAL, ret;
	MPI_Group copy;

	if (hy_group_hit(w, slot, group)) {
		*out = w->pscw[slot].inner;
		return MPI_SUCCESS;
	}
	if (group != MPI_GROUP_NULL && w->pscw[slot].host != MPI_GROUP_NULL &&
	    PMPI_Group_compare(group, w->pscw[slot].host, &same) ==
	    MPI_SUCCESS && same == MPI_IDENT) {
		w->pscw[slot].prog = group;
		w->pscw[slot].frees = frees;
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
	w->pscw[slot].prog = copy == MPI_GROUP_NULL ? MPI_GROUP_NULL : group;
	w->pscw[slot].frees = frees;
	w->pscw[slot].inner = *out;
	return MPI_SUCCESS;
}
