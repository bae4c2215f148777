// SPDX-License-Identifier: GPL-2.0
/*
 * largecount: MPI 4.0's large-count window and RMA calls, every one of
 * them: MPI_Win_create_c, MPI_Win_allocate_c, MPI_Win_allocate_shared_c,
 * MPI_Win_shared_query_c, MPI_Put_c, MPI_Get_c, MPI_Accumulate_c,
 * MPI_Get_accumulate_c and their request-based forms, each result checked.
 *
 * Counts above INT_MAX (a buffer that large does not fit the 2 GiB test
 * VM, so these move no data or fail by design):
 *   - 2^31 + 1 elements of a derived type of no data (a contiguous type of
 *     zero doubles) succeed and change nothing;
 *   - a get of 2^32 + 4 bytes from a window of 64 must fail with
 *     MPI_ERR_RMA_RANGE: a count cut to 32 bits would be 4 and succeed;
 *   - 2^62 + 1 doubles fail with MPI_ERR_COUNT (no byte count overflows).
 *
 * Under a host MPI without the large-count forms (Open MPI 4.1) there is
 * nothing to test: the program says so and passes.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#if MPI_VERSION >= 4 || defined(MPIRMA_HAVE_LARGE_COUNT_RMA)

#define N	64		/* doubles per rank */

static int me, np;

static double val(int rank, int i)
{
	return rank * 1000.0 + i;
}

/* Puts, gets and accumulates of N doubles through the _c calls on @win. */
static void rma_calls(MPI_Win win, double *mine, const char *flavor)
{
	int right = (me + 1) % np, left = (me + np - 1) % np, i;
	double src[N], dst[N], res[N], one = 1.0;
	MPI_Request req[2];

	mtest_section(flavor);
	for (i = 0; i < N; i++)
		src[i] = val(me, i);
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
	memset(mine, 0, N * sizeof(double));
	MPI_Win_unlock(me, win);
	MPI_Barrier(MPI_COMM_WORLD);

	MPI_Win_lock_all(0, win);
	CHECK_MPI(MPI_Put_c(src, N, MPI_DOUBLE, right, 0, N, MPI_DOUBLE, win));
	MPI_Win_flush_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_Get_c(dst, N, MPI_DOUBLE, left, 0, N, MPI_DOUBLE, win));
	MPI_Win_flush(left, win);
	for (i = 0; i < N; i++)
		CHECK(dst[i] == val((left + np - 1) % np, i), "MPI_Put_c/"
		      "MPI_Get_c: element %d = %g", i, dst[i]);
	MPI_Barrier(MPI_COMM_WORLD);

	/* every rank adds 1 to rank 0's elements, twice, once by request */
	for (i = 0; i < N; i++)
		src[i] = one;
	CHECK_MPI(MPI_Accumulate_c(src, N, MPI_DOUBLE, 0, 0, N, MPI_DOUBLE,
				   MPI_SUM, win));
	CHECK_MPI(MPI_Raccumulate_c(src, N, MPI_DOUBLE, 0, 0, N, MPI_DOUBLE,
				    MPI_SUM, win, &req[0]));
	CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
	MPI_Win_flush(0, win);
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_Get_accumulate_c(NULL, 0, MPI_DOUBLE, res, N, MPI_DOUBLE,
				       0, 0, N, MPI_DOUBLE, MPI_NO_OP, win));
	MPI_Win_flush(0, win);
	for (i = 0; i < N; i++)
		CHECK(res[i] == val(np - 1, i) + 2.0 * np, "MPI_Accumulate_c: "
		      "element %d = %g, want %g", i, res[i],
		      val(np - 1, i) + 2.0 * np);
	MPI_Barrier(MPI_COMM_WORLD);

	/* request-based put, get and get_accumulate on my own memory */
	for (i = 0; i < N; i++)
		src[i] = -val(me, i);
	CHECK_MPI(MPI_Rput_c(src, N, MPI_DOUBLE, me, 0, N, MPI_DOUBLE, win,
			     &req[0]));
	CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
	MPI_Win_flush(me, win);
	CHECK_MPI(MPI_Rget_c(dst, N, MPI_DOUBLE, me, 0, N, MPI_DOUBLE, win,
			     &req[0]));
	CHECK_MPI(MPI_Wait(&req[0], MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Rget_accumulate_c(src, N, MPI_DOUBLE, res, N, MPI_DOUBLE,
					me, 0, N, MPI_DOUBLE, MPI_REPLACE, win,
					&req[1]));
	CHECK_MPI(MPI_Wait(&req[1], MPI_STATUS_IGNORE));
	for (i = 0; i < N; i++)
		CHECK(dst[i] == -val(me, i) && res[i] == -val(me, i),
		      "MPI_Rput_c/MPI_Rget_c/MPI_Rget_accumulate_c: element %d"
		      " = %g, %g", i, dst[i], res[i]);
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
}

/* Counts above INT_MAX on @win (N doubles per rank, errors returned). */
static void huge_counts(MPI_Win win, double *mine)
{
	MPI_Count big = (MPI_Count)INT_MAX + 2, bytes = ((MPI_Count)1 << 32) + 4;
	MPI_Datatype none;
	double buf[N];
	int rc;

	mtest_section("counts above INT_MAX");
	MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
	MPI_Type_contiguous(0, MPI_DOUBLE, &none);
	MPI_Type_commit(&none);
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win);
	for (int i = 0; i < N; i++)
		mine[i] = 7.0;
	MPI_Win_unlock(me, win);
	MPI_Barrier(MPI_COMM_WORLD);

	MPI_Win_lock_all(0, win);
	CHECK_MPI(MPI_Put_c(buf, big, none, (me + 1) % np, 0, big, none, win));
	CHECK_MPI(MPI_Accumulate_c(buf, big, none, (me + 1) % np, 0, big, none,
				   MPI_SUM, win));
	rc = MPI_Get_c(buf, bytes, MPI_BYTE, (me + 1) % np, 0, bytes, MPI_BYTE,
		       win);
	CHECK(mtest_class(rc) == MPI_ERR_RMA_RANGE, "a get of 2^32 + 4 bytes "
	      "from %d returned %s, want MPI_ERR_RMA_RANGE", N * 8,
	      mtest_class_name(mtest_class(rc)));
	rc = MPI_Put_c(buf, ((MPI_Count)1 << 62) + 1, MPI_DOUBLE, me, 0,
		       ((MPI_Count)1 << 62) + 1, MPI_DOUBLE, win);
	CHECK(mtest_class(rc) == MPI_ERR_COUNT, "a put of 2^62 + 1 doubles "
	      "returned %s, want MPI_ERR_COUNT",
	      mtest_class_name(mtest_class(rc)));
	MPI_Win_flush_all(win);
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock(MPI_LOCK_SHARED, me, 0, win);
	for (int i = 0; i < N; i++)
		CHECK(mine[i] == 7.0, "element %d changed to %g by calls of no "
		      "data", i, mine[i]);
	MPI_Win_unlock(me, win);
	MPI_Type_free(&none);
}

int main(int argc, char **argv)
{
	MPI_Aint size, unit;
	MPI_Win win;
	double *base, *mem, *q;
	MPI_Comm node;

	mtest_init(&argc, &argv, "largecount");
	me = mtest_rank;
	np = mtest_size;

	CHECK_MPI(MPI_Win_allocate_c(N * sizeof(double), sizeof(double),
				     MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
	rma_calls(win, base, "MPI_Win_allocate_c");
	huge_counts(win, base);
	MPI_Win_free(&win);

	mem = calloc(N, sizeof(double));
	CHECK_MPI(MPI_Win_create_c(mem, N * sizeof(double), sizeof(double),
				   MPI_INFO_NULL, MPI_COMM_WORLD, &win));
	rma_calls(win, mem, "MPI_Win_create_c");
	MPI_Win_free(&win);
	free(mem);

	/* shared memory: the node's ranks query each other's segments */
	mtest_section("MPI_Win_allocate_shared_c");
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
			    MPI_INFO_NULL, &node);
	CHECK_MPI(MPI_Win_allocate_shared_c(N * sizeof(double), sizeof(double),
					    MPI_INFO_NULL, node, &base, &win));
	CHECK_MPI(MPI_Win_shared_query_c(win, 0, &size, &unit, &q));
	CHECK(size == N * (MPI_Aint)sizeof(double) && unit == sizeof(double),
	      "MPI_Win_shared_query_c: size %ld, unit %ld", (long)size,
	      (long)unit);
	MPI_Win_free(&win);
	MPI_Comm_free(&node);
	return mtest_finish();
}

#else

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv, "largecount");
	if (mtest_rank == 0)
		printf("# largecount: this MPI declares no large-count RMA calls "
		       "(MPI %d.%d): nothing to test\n", MPI_VERSION,
		       MPI_SUBVERSION);
	return mtest_finish();
}

#endif
