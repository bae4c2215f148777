// SPDX-License-Identifier: GPL-2.0
/*
 * span/errors.c - the span test's errors: operations outside an epoch
 * or past the end, windows past the agents' grant tags, and an error under
 * MPI_ERRORS_ARE_FATAL that must end the job.
 */
#include <string.h>

#include "mtest.h"
#include "span.h"

/* MPI_ERR_RMA_RANGE from @call or from @sync that completes it, no other. */
static void range_error(int call, int sync, const char *what)
{
	int c = mtest_class(call), s = mtest_class(sync);

	CHECK((c == MPI_ERR_RMA_RANGE && s == MPI_SUCCESS) ||
	      (c == MPI_SUCCESS && s == MPI_ERR_RMA_RANGE),
	      "%s past the end: %s at the call, %s at its completion, want "
	      "MPI_ERR_RMA_RANGE at one of them", what, mtest_class_name(c),
	      mtest_class_name(s));
}

/*
 * Errors never break synchronization: operations past the end of a local
 * and of a remote target fail, and the epoch, the other operations and
 * the fence around them complete as usual.
 */
void span_test_errors(struct span *w)
{
	int right = (mtest_rank + 1) % mtest_size;
	long one = 1, got = 0;
	int rc;

	mtest_section("errors across nodes");
	CHECK_MPI(MPI_Win_set_errhandler(w->win, MPI_ERRORS_RETURN));
	/* Outside any epoch, whichever path would serve the target. */
	for (int side = 0; side < 2; side++) {
		int t = target(side);

		CHECK_CLASS(MPI_Accumulate(&one, 1, MPI_LONG, t, S_ERR, 1,
					   MPI_LONG, MPI_SUM, w->win),
			    MPI_ERR_RMA_SYNC);
		CHECK_CLASS(MPI_Fetch_and_op(&one, &got, MPI_LONG, t, S_ERR,
					     MPI_SUM, w->win),
			    MPI_ERR_RMA_SYNC);
		CHECK_CLASS(MPI_Compare_and_swap(&one, &got, &got, MPI_LONG,
						 t, S_ERR, w->win),
			    MPI_ERR_RMA_SYNC);
	}
	CHECK_MPI(MPI_Win_lock_all(0, w->win));
	for (int side = 0; side < 2; side++) {
		int t = target(side);

		rc = MPI_Accumulate(&one, 1, MPI_LONG, t, w->nslots + 8, 1,
				    MPI_LONG, MPI_SUM, w->win);
		range_error(rc, MPI_Win_flush(t, w->win), "accumulate");
		rc = MPI_Fetch_and_op(&one, &got, MPI_LONG, t, w->nslots + 8,
				      MPI_SUM, w->win);
		range_error(rc, MPI_Win_flush(t, w->win), "fetch_and_op");
		/* The window goes on: this one counts. */
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, t, S_ERR, 1,
					 MPI_LONG, MPI_SUM, w->win));
		/*
		 * A bad one between two good ones, unflushed (shipped in one
		 * message to another node): only it fails, both others count.
		 */
		rc = MPI_Accumulate(&one, 1, MPI_LONG, t, w->nslots + 8, 1,
				    MPI_LONG, MPI_SUM, w->win);
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, t, S_ERR, 1,
					 MPI_LONG, MPI_SUM, w->win));
		range_error(rc, MPI_Win_flush(t, w->win), "accumulate in a batch");
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, t, S_ERR, 1,
					 MPI_LONG, MPI_SUM, w->win));
	}
	CHECK_MPI(MPI_Win_unlock_all(w->win));

	CHECK_MPI(MPI_Win_fence(0, w->win));
	rc = MPI_Accumulate(&one, 1, MPI_LONG, right, w->nslots + 8, 1, MPI_LONG,
			    MPI_SUM, w->win);
	range_error(rc, MPI_Win_fence(0, w->win), "accumulate in a fence");
	CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, right, S_ERR, 1, MPI_LONG,
				 MPI_SUM, w->win));
	CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win));
	CHECK_EQ(w->mem[S_ERR], (mtest_rank == target(0)) * 3 * mtest_size +
		 (mtest_rank == target(1)) * 3 * mtest_size + 1,
		 "accumulated around the failures");
	CHECK_MPI(MPI_Win_set_errhandler(w->win, MPI_ERRORS_ARE_FATAL));
	MPI_Barrier(MPI_COMM_WORLD);
}

/*
 * tags=N, with MPIRMA_TAG_UB lowered so that N windows use up the agents'
 * grant tags: N windows that span nodes are created, the next fails with
 * an error (never a lock granted to the wrong window), exclusive locks on
 * the newest still work, and once one is freed a new one can be created.
 */
void span_test_tags(int n)
{
	MPI_Win wins[65], extra;
	long *mem[65], *xmem, one = 1;
	int t = target(1), k;

	CHECK(n > 0 && n <= 64, "tags=%d: 1 to 64", n);
	if (n <= 0 || n > 64)
		return;
	mtest_section("windows past the grant tags");
	for (k = 0; k < n; k++)
		CHECK_MPI(MPI_Win_allocate(sizeof(long), sizeof(long),
					   MPI_INFO_NULL, MPI_COMM_WORLD,
					   &mem[k], &wins[k]));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK(MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL,
			       MPI_COMM_WORLD, &xmem, &extra) != MPI_SUCCESS,
	      "window %d created past the %d the grant tags allow", n + 1, n);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	for (k = n - 2; k < n; k++) {
		if (k < 0)
			continue;
		*mem[k] = 0;
		MPI_Barrier(MPI_COMM_WORLD);
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, wins[k]));
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, t, 0, 1, MPI_LONG,
					 MPI_SUM, wins[k]));
		CHECK_MPI(MPI_Win_unlock(t, wins[k]));
		MPI_Barrier(MPI_COMM_WORLD);
		if (mtest_rank == t)
			CHECK(*mem[k] == mtest_size, "window %d's total is %ld, want %d", k,
			      *mem[k], mtest_size);
	}
	CHECK_MPI(MPI_Win_free(&wins[0]));
	CHECK_MPI(MPI_Win_allocate(sizeof(long), sizeof(long), MPI_INFO_NULL,
				   MPI_COMM_WORLD, &mem[0], &wins[0]));
	for (k = 0; k < n; k++)
		CHECK_MPI(MPI_Win_free(&wins[k]));
}

/*
 * fatal=CALL (unlock, flush or fence): rank 0 ships an accumulate to an
 * address the last rank never attached to its dynamic window (on another
 * node at K = 2, so only that target's kernel can find it bad) under
 * MPI_ERRORS_ARE_FATAL, and completes it with CALL.  The job must end with
 * a message naming CALL and the operation (hybrid/list.2 matches it); it
 * must not get past CALL.
 */
void span_test_fatal(struct span *w, const char *call)
{
	int t = target(1);
	long one = 1;
	MPI_Aint far = w->disp[t] + (MPI_Aint)(1 << 20) * (MPI_Aint)sizeof(long);

	if (!strcmp(call, "fence")) {
		CHECK_MPI(MPI_Win_fence(0, w->win));
		if (!mtest_rank)
			MPI_Accumulate(&one, 1, MPI_LONG, t, far, 1, MPI_LONG,
				       MPI_SUM, w->win);
		MPI_Win_fence(0, w->win);
	} else if (!mtest_rank) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w->win);
		MPI_Accumulate(&one, 1, MPI_LONG, t, far, 1, MPI_LONG, MPI_SUM,
			       w->win);
		if (!strcmp(call, "flush"))
			MPI_Win_flush(t, w->win);
		MPI_Win_unlock(t, w->win);
	}
	CHECK(mtest_rank, "MPI_Win_%s completed a bad accumulate without an "
	      "error", call);
	MPI_Barrier(MPI_COMM_WORLD);
}
