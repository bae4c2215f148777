// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * handle.c - the handle tables: created MPI objects are ints that index a
 * growable table of pointers, one table per kind, offset by the kind's base
 * (docs/lib.md).  Slot i holds handle base + i; NULL marks a free slot.
 * The table grows by chunks that never move (internal.h), so that lookups
 * from other threads need no lock.
 *
 * Freed slots are reused round robin, only once the table is at least half
 * free, so a handle used after MPI_X_free is usually still invalid and
 * reported as such instead of silently naming a newer object.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

struct mpirma_htable mpirma_htables[MPIRMA_NR_HKINDS];

/* The chunk a table grows by next: as large as the table so far, plus 64. */
static bool grow(struct mpirma_htable *t)
{
	int c = 0, n = MPIRMA_HCHUNK0;

	while (c < MPIRMA_HCHUNKS && t->chunk[c]) {
		c++;
		n *= 2;
	}
	if (c == MPIRMA_HCHUNKS)
		return false;
	t->chunk[c] = calloc((size_t)n, sizeof(void *));
	if (!t->chunk[c])
		return false;
	t->cap += n;
	return true;
}

int mpirma_handle_alloc(enum mpirma_hkind kind, void *obj)
{
	struct mpirma_htable *t = &mpirma_htables[kind];
	int i;

	if (!obj)
		return 0;
	/* Grow when every slot was handed out and more than half are live. */
	if (t->used == t->cap && t->live >= t->cap / 2)
		(void)grow(t);	/* else reuse a freed slot */
	if (t->used < t->cap) {
		i = t->used;
		*mpirma_handle_slot(t, i) = obj;
		/* Filled before counted: lookups without the lock see both. */
		__atomic_store_n(&t->used, i + 1, __ATOMIC_RELEASE);
	} else {
		/* The table is full of handed-out slots: reuse a freed one. */
		if (t->live == t->cap)
			return 0;
		for (i = t->cursor; *mpirma_handle_slot(t, i);)
			if (++i == t->cap)
				i = 0;
		t->cursor = i + 1 == t->cap ? 0 : i + 1;
		__atomic_store_n(mpirma_handle_slot(t, i), obj,
				 __ATOMIC_RELEASE);
	}
	t->live++;
	return mpirma_hbase[kind] + i;
}

void mpirma_handle_free(enum mpirma_hkind kind, int handle)
{
	struct mpirma_htable *t = &mpirma_htables[kind];

	if (mpirma_handle_get(kind, handle)) {
		__atomic_store_n(mpirma_handle_slot(t, handle - mpirma_hbase[kind]),
				 NULL, __ATOMIC_RELEASE);
		t->live--;
	}
}

int mpirma_handle_next(enum mpirma_hkind kind, int prev)
{
	struct mpirma_htable *t = &mpirma_htables[kind];
	int i = prev < mpirma_hbase[kind] ? 0 : prev - mpirma_hbase[kind] + 1;

	for (; i < t->used; i++)
		if (*mpirma_handle_slot(t, i))
			return mpirma_hbase[kind] + i;
	return 0;
}

/*
 * Fortran conversions: our handles are already Fortran integers.  They may
 * be called at any time, so they do not check initialization.
 */
#define MPIRMA_C2F(Name, Type)						\
	MPI_Fint PMPI_##Name##_c2f(Type h) { return (MPI_Fint)h; }	\
	MPIRMA_ALIAS(Name##_c2f)					\
	Type PMPI_##Name##_f2c(MPI_Fint h) { return (Type)h; }		\
	MPIRMA_ALIAS(Name##_f2c)

MPIRMA_C2F(Comm, MPI_Comm)
MPIRMA_C2F(Group, MPI_Group)
MPIRMA_C2F(Type, MPI_Datatype)
MPIRMA_C2F(Op, MPI_Op)
MPIRMA_C2F(Win, MPI_Win)
MPIRMA_C2F(Request, MPI_Request)
MPIRMA_C2F(Errhandler, MPI_Errhandler)
MPIRMA_C2F(Info, MPI_Info)
MPIRMA_C2F(Session, MPI_Session)

/*
 * Fortran statuses: an MPI_Status is MPI_F_STATUS_SIZE ints with SOURCE,
 * TAG and ERROR first, so the conversion is a copy (memcpy: a Fortran
 * INTEGER array is only 4-byte aligned).
 */
_Static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint) &&
	       offsetof(MPI_Status, MPI_SOURCE) == MPI_F_SOURCE * sizeof(MPI_Fint) &&
	       offsetof(MPI_Status, MPI_TAG) == MPI_F_TAG * sizeof(MPI_Fint) &&
	       offsetof(MPI_Status, MPI_ERROR) == MPI_F_ERROR * sizeof(MPI_Fint),
	       "MPI_Status is MPI_F_STATUS_SIZE Fortran INTEGERs");

/*
 * The common blocks of the Fortran MPI_STATUS_IGNORE and
 * MPI_STATUSES_IGNORE (fortran/gen), here rather than in libmpirmaf so
 * that C has them too: MPI_F_STATUS_IGNORE, MPI_F08_STATUS_IGNORE...
 */
MPI_Fint mpirma_status_ignore_[MPI_F_STATUS_SIZE]
	__attribute__((aligned(16)));
MPI_Fint mpirma_statuses_ignore_[MPI_F_STATUS_SIZE]
	__attribute__((aligned(16)));

#define SAME_FIELD(f) \
	(offsetof(MPI_F08_status, f) == offsetof(MPI_Status, f))
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status) &&
	       SAME_FIELD(MPI_SOURCE) && SAME_FIELD(MPI_TAG) &&
	       SAME_FIELD(MPI_ERROR),
	       "MPI_F08_status is an MPI_Status as Fortran INTEGERs");
#undef SAME_FIELD

/* Both directions: @c is the C side, which may not be MPI_STATUS_IGNORE. */
static int status_copy(void *dst, const void *src, const MPI_Status *c,
		       const char *fn)
{
	if (!dst || !src || c == MPI_STATUS_IGNORE)
		return mpirma_raise(MPI_ERR_ARG, fn,
				    "a status is NULL or MPI_STATUS_IGNORE");
	memcpy(dst, src, sizeof(MPI_Status));
	return MPI_SUCCESS;
}

int PMPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status)
{
	return status_copy(c_status, f_status, c_status, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Status_f2c)

int PMPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status)
{
	return status_copy(f_status, c_status, c_status, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Status_c2f)

/*
 * The mpi_f08 forms: the same copy, the Fortran side's ignore sentinels
 * refused like C's.
 */
static int f_status_copy(void *dst, const void *src, const char *fn)
{
	if (!dst || !src || dst == mpirma_status_ignore_ ||
	    src == mpirma_status_ignore_ || dst == mpirma_statuses_ignore_ ||
	    src == mpirma_statuses_ignore_ || dst == MPI_STATUS_IGNORE ||
	    src == MPI_STATUS_IGNORE)
		return mpirma_raise(MPI_ERR_ARG, fn, "a status is NULL or "
				    "one of the STATUS_IGNORE sentinels");
	memcpy(dst, src, sizeof(MPI_Status));
	return MPI_SUCCESS;
}

int PMPI_Status_c2f08(const MPI_Status *c_status, MPI_F08_status *f08_status)
{
	return f_status_copy(f08_status, c_status, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Status_c2f08)

int PMPI_Status_f082c(const MPI_F08_status *f08_status, MPI_Status *c_status)
{
	return f_status_copy(c_status, f08_status, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Status_f082c)

int PMPI_Status_f2f08(const MPI_Fint *f_status, MPI_F08_status *f08_status)
{
	return f_status_copy(f08_status, f_status, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Status_f2f08)

int PMPI_Status_f082f(const MPI_F08_status *f08_status, MPI_Fint *f_status)
{
	return f_status_copy(f_status, f08_status, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Status_f082f)
