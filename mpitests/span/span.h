/* SPDX-License-Identifier: GPL-2.0 */
/*
 * span.h - what the span test (mpitests/span.c) shares with its parts in
 * mpitests/span/: the window under test, where its slots are, the targets,
 * and the checks the parts hold.
 */
#ifndef MPIRMA_SPAN_TEST_H
#define MPIRMA_SPAN_TEST_H

#include <mpi.h>

#include "mtest.h"

#define OPS	12	/* per rank and check */
#define VEC	4	/* elements of the strided vector */

/* Slots (longs) of each rank's memory. */
enum {
	S_SUM, S_TICKET, S_GACC, S_LOCK, S_GUARDED, S_EXCL, S_XACC, S_FLUSH,
	S_SWAP, S_ERR,
	S_VEC,				/* VEC elements, stride 2 */
	S_ORDER = S_VEC + 2 * VEC,	/* one per origin rank */
};

/* The window under test: its memory and its targets. */
struct span {
	MPI_Win win;
	long *mem;
	int nslots;		/* longs of each rank's memory */
	MPI_Aint disp0;		/* displacement of slot 0 (dynamic: address) */
	MPI_Aint *disp;		/* per rank, for dynamic windows */
	int flavor;
};

/* Where slot @s of rank @t's memory is. */
static inline MPI_Aint at(const struct span *w, int t, int s)
{
	if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC)
		return w->disp[t] + (MPI_Aint)(s * sizeof(long));
	return s;
}

/* The targets: the first and the last rank (one per node at K = 2). */
static inline int target(int i)
{
	return i % 2 ? mtest_size - 1 : 0;
}

/* span/completion.c: flush, fence and PSCW completion, MPI_Recv serving */
void span_test_completion(struct span *w);

/* span/mutual.c: large gets between ranks at once */
void span_test_mutual(void);

/* span/errors.c */
void span_test_errors(struct span *w);
void span_test_tags(int n);
void span_test_fatal(struct span *w, const char *call);

#endif
