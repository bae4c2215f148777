/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * count.h - MPI 4.0's large-count forms of messages and collectives
 * (MPI_Send_c, MPI_Bcast_c, ...: lib/runtime/p2p_count.c, coll_count.c)
 * call the int forms.  A count up to INT_MAX is passed as it is; a larger
 * one becomes one element of a contiguous type of that many, which moves
 * the same bytes.  Reductions split such a count into pieces instead (an
 * op applies to predefined types); count and displacement arrays of the v
 * and w collectives must fit an int (MPI_ERR_COUNT otherwise).
 */
#ifndef MPIRMA_LIB_COUNT_H
#define MPIRMA_LIB_COUNT_H

#include <stdbool.h>

#include "internal.h"

/*
 * struct mpirma_count_arg - a (count, datatype) pair as an int form takes it
 * @n: the count
 * @dt: the datatype: the caller's, or @temp
 * @temp: a contiguous type made for a count above INT_MAX, freed by
 *	mpirma_count_done() (a pending receive keeps its own reference)
 */
struct mpirma_count_arg {
	int n;
	MPI_Datatype dt;
	bool temp;
};

/*
 * @count elements of @dt as an int form takes them.  An invalid @dt or a
 * negative count is passed on for the int form to report.  MPI class:
 * MPI_ERR_NO_MEM (recorded) if the contiguous type cannot be made.
 */
int mpirma_count_fit(MPI_Count count, MPI_Datatype dt,
		     struct mpirma_count_arg *out);
void mpirma_count_done(struct mpirma_count_arg *c);

/* The send and the receive side of a call; none made on failure. */
int mpirma_count_fit2(MPI_Count scount, MPI_Datatype stype,
		      MPI_Count rcount, MPI_Datatype rtype,
		      struct mpirma_count_arg *s, struct mpirma_count_arg *r);

/* @count as an int, or MPI_ERR_COUNT (recorded) above INT_MAX. */
int mpirma_count_int(MPI_Count count, int *out);

/*
 * The @n counts and displacements of a v or w collective as ints, in
 * malloc'ed arrays (*@counts, *@displs; either input may be NULL, and its
 * output is then NULL).  MPI class: MPI_ERR_COUNT for a value beyond an
 * int, MPI_ERR_NO_MEM; recorded.  Free both with free().
 */
int mpirma_count_arrays(int n, const MPI_Count *counts, const MPI_Aint *displs,
			int **icounts, int **idispls);

#endif /* MPIRMA_LIB_COUNT_H */
