/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * convert.h - host values to the engine's and back (convert.c; derived
 * datatypes: convert_type.c).
 */
#ifndef MPIRMA_HYBRID_CONVERT_H
#define MPIRMA_HYBRID_CONVERT_H

#include <stdatomic.h>

#include "hybrid.h"

/*
 * hybrid/convert.c: host values to the engine's and back.  The datatype
 * and op of the last call are looked up inline (a program's RMA calls
 * mostly repeat them); any other goes to the tables.
 */
struct hy_type_pair {
	MPI_Datatype h;
	MPII_Datatype i;
};

struct hy_op_pair {
	MPI_Op h;
	MPII_Op i;
};

/*
 * Any thread may read or replace them without a lock (relaxed: a stale
 * entry is still a right one, it is only a miss); entries are never freed,
 * and never NULL: the first is a pair of no handle, whose engine value is
 * NONE (HY_CONVERT_LAST()).
 * Not thread-local: in a shared library that costs a __tls_get_addr call.
 */
extern HY_LOCAL const struct hy_type_pair *_Atomic hy_type_last;
extern HY_LOCAL const struct hy_op_pair *_Atomic hy_op_last;

int hy_type_lookup(MPI_Datatype t, MPII_Datatype *out);
int hy_op_lookup(MPI_Op op, MPII_Op *out);

/*
 * The engine's value of a predefined type or op, or false (a derived type,
 * a user's op, or no handle at all): searches only constant tables, so any
 * thread may call them without hy.lock, and they record no error.
 */
bool hy_type_predefined(MPI_Datatype t, MPII_Datatype *out);
bool hy_op_predefined(MPI_Op op, MPII_Op *out);
/*
 * The same by value, MPII_DATATYPE_NULL and MPII_OP_NULL for any other;
 * a type also when it is a derived one hy_type_derived() knows.
 */
MPII_Datatype hy_type_miss(MPI_Datatype t);
/*
 * The engine's type of a derived type converted lately, or
 * MPII_DATATYPE_NULL; without hy.lock (hybrid/convert_type.c).
 */
MPII_Datatype hy_type_derived(MPI_Datatype t);
MPII_Op hy_op_miss(MPI_Op op);

/*
 * NAME(h, out): the engine's value of @h, the last one converted inline;
 * host class.  NAME_fast(h, last_only): the same for predefined handles
 * (and derived types converted lately) only, without a lock; NONE for any
 * other (NAME_miss()), and with @last_only for any but the last one.  By
 * value, so that a fast lane keeps it in a register, and @last_only makes
 * no call.
 */
#define HY_CONVERT_LAST(NAME, HOST, INNER, PAIR, NONE)			\
static inline const struct PAIR *NAME##_hit(HOST h)			\
{									\
	const struct PAIR *last =					\
		atomic_load_explicit(&NAME##_last, memory_order_relaxed); \
									\
	return last->h == h ? last : NULL;				\
}									\
									\
static inline int NAME(HOST h, INNER *out)				\
{									\
	const struct PAIR *last = NAME##_hit(h);			\
									\
	if (last && last->i != (NONE)) {				\
		*out = last->i;						\
		return MPI_SUCCESS;					\
	}								\
	return NAME##_lookup(h, out);					\
}									\
									\
static inline INNER NAME##_fast(HOST h, bool last_only)		\
{									\
	const struct PAIR *last = NAME##_hit(h);			\
									\
	if (last)							\
		return last->i;						\
	return last_only ? (NONE) : NAME##_miss(h);			\
}

HY_CONVERT_LAST(hy_type, MPI_Datatype, MPII_Datatype, hy_type_pair,
		MPII_DATATYPE_NULL)
HY_CONVERT_LAST(hy_op, MPI_Op, MPII_Op, hy_op_pair, MPII_OP_NULL)

void hy_type_forget(MPI_Datatype t);
int hy_info(MPI_Info info, MPII_Info *out);
int hy_assert_bits(int assert);

/* The engine's assertion bits of the host's @assert (mostly none). */
static inline int hy_assert(int assert)
{
	return assert ? hy_assert_bits(assert) : 0;
}
int hy_lock_type(int lock_type, int *out);
int hy_rank_span(const struct hy_win *w, int rank);

/* Window rank @rank of @w as the engine's rank (INT_MAX: not on this node). */
static inline int hy_rank(const struct hy_win *w, int rank)
{
	if (!w->span && rank != MPI_PROC_NULL)
		return rank;
	return hy_rank_span(w, rank);
}
int hy_group(struct hy_win *w, MPI_Group group, MPII_Group *out);

/*
 * hy_group() through @w's cache slot @slot (0 for posts, 1 for starts):
 * the engine's group of the last group of that slot when @group has the
 * same members in the same order, so that a program repeating its epochs
 * converts its groups once.  *@out belongs to the cache.  Host class.
 */
int hy_group_cached(struct hy_win *w, int slot, MPI_Group group,
		    MPII_Group *out);
/*
 * Is @group the handle @w's cache slot @slot came from, not freed since
 * (its engine group w->pscw[slot].inner then)?  No compare: Open MPI's
 * PMPI_Group_compare is 170 instructions, 40% of what the layer added to a
 * start, put and complete.  Inline, for the lanes of pscw.c.
 */
extern HY_LOCAL unsigned int hy_group_frees;	/* MPI_Group_free calls */

static inline bool hy_group_hit(const struct hy_win *w, int slot,
				MPI_Group group)
{
	return group != MPI_GROUP_NULL && group == w->pscw[slot].prog &&
	       w->pscw[slot].frees ==
	       __atomic_load_n(&hy_group_frees, __ATOMIC_RELAXED);
}

/* Empties cache slot @slot of @w. */
void hy_group_forget(struct hy_win *w, int slot);

#endif /* MPIRMA_HYBRID_CONVERT_H */
