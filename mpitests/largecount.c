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
 * Then the large-count forms of messages and collectives (MPI_Send_c ...
 * MPI_Alltoallw_c, nonblocking and persistent ones, MPI_Op_create_c),
 * each result checked, and their counts above INT_MAX: messages,
 * broadcasts and reductions of 2^31 + 1 elements of no data succeed; v
 * collectives' count arrays beyond an int and a user op on more elements
 * than an int counts fail with MPI_ERR_COUNT.
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

#if MPI_VERSION >= 4 || defined(MPIRMA_HAVE_LARGE_COUNT)
/* One value per (sender, index), for the messages below. */
static void fill(double *b, int n, int rank)
{
	for (int i = 0; i < n; i++)
		b[i] = val(rank, i);
}

static void expect(const double *b, int n, int rank, const char *what)
{
	for (int i = 0; i < n; i++)
		if (b[i] != val(rank, i)) {
			CHECK(0, "%s: element %d is %g, want %g", what, i, b[i],
			      val(rank, i));
			return;
		}
}

/* The large-count forms of point-to-point, around a ring. */
static void messages(void)
{
	int right = (me + 1) % np, left = (me + np - 1) % np;
	double out[N], in[N], *bbuf;
	MPI_Request rq[2];
	MPI_Status st, sts[2];
	MPI_Message msg;
	MPI_Count n, size;
	int flag;

	mtest_section("point-to-point _c forms");
	fill(out, N, me);
	memset(in, 0, sizeof(in));
	CHECK_MPI(MPI_Irecv_c(in, N, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &rq[0]));
	CHECK_MPI(MPI_Send_c(out, N, MPI_DOUBLE, right, 1, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Wait(&rq[0], &st));
	CHECK_MPI(MPI_Get_count_c(&st, MPI_DOUBLE, &n));
	CHECK(n == N, "MPI_Get_count_c: %lld, want %d", (long long)n, N);
	expect(in, N, left, "MPI_Send_c/MPI_Irecv_c");

	memset(in, 0, sizeof(in));
	CHECK_MPI(MPI_Isend_c(out, N, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &rq[0]));
	CHECK_MPI(MPI_Recv_c(in, N, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &st));
	CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
	expect(in, N, left, "MPI_Isend_c/MPI_Recv_c");

	memset(in, 0, sizeof(in));
	CHECK_MPI(MPI_Sendrecv_c(out, N, MPI_DOUBLE, right, 3, in, N, MPI_DOUBLE,
				 left, 3, MPI_COMM_WORLD, &st));
	expect(in, N, left, "MPI_Sendrecv_c");
	memcpy(in, out, sizeof(in));
	CHECK_MPI(MPI_Sendrecv_replace_c(in, N, MPI_DOUBLE, right, 4, left, 4,
					 MPI_COMM_WORLD, &st));
	expect(in, N, left, "MPI_Sendrecv_replace_c");

	/* persistent, started twice */
	CHECK_MPI(MPI_Recv_init_c(in, N, MPI_DOUBLE, left, 5, MPI_COMM_WORLD, &rq[0]));
	CHECK_MPI(MPI_Ssend_init_c(out, N, MPI_DOUBLE, right, 5, MPI_COMM_WORLD,
				   &rq[1]));
	for (int k = 0; k < 2; k++) {
		memset(in, 0, sizeof(in));
		CHECK_MPI(MPI_Startall(2, rq));
		CHECK_MPI(MPI_Waitall(2, rq, sts));
		expect(in, N, left, "MPI_Recv_init_c/MPI_Ssend_init_c");
	}
	MPI_Request_free(&rq[0]);
	MPI_Request_free(&rq[1]);

	/* buffered, with a buffer attached through the _c forms */
	size = sizeof(out) + MPI_BSEND_OVERHEAD;
	bbuf = malloc(size);
	CHECK_MPI(MPI_Buffer_attach_c(bbuf, size));
	CHECK_MPI(MPI_Bsend_c(out, N, MPI_DOUBLE, right, 6, MPI_COMM_WORLD));
	memset(in, 0, sizeof(in));
	CHECK_MPI(MPI_Recv_c(in, N, MPI_DOUBLE, left, 6, MPI_COMM_WORLD, &st));
	expect(in, N, left, "MPI_Bsend_c");
#ifdef MPIRMA_HAVE_LARGE_COUNT
	/* MPI 4.1's flushes: nothing stays in the buffer */
	CHECK_MPI(MPI_Buffer_flush());
	CHECK_MPI(MPI_Buffer_iflush(&rq[0]));
	CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
#endif
	CHECK_MPI(MPI_Buffer_detach_c(&bbuf, &n));
	CHECK(n == size, "MPI_Buffer_detach_c: %lld bytes, want %lld",
	      (long long)n, (long long)size);
	free(bbuf);

	/* matched probes */
	CHECK_MPI(MPI_Isend_c(out, N, MPI_DOUBLE, right, 7, MPI_COMM_WORLD, &rq[0]));
	CHECK_MPI(MPI_Mprobe(left, 7, MPI_COMM_WORLD, &msg, &st));
	memset(in, 0, sizeof(in));
	CHECK_MPI(MPI_Mrecv_c(in, N, MPI_DOUBLE, &msg, &st));
	expect(in, N, left, "MPI_Mrecv_c");
	CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Isend_c(out, N, MPI_DOUBLE, right, 8, MPI_COMM_WORLD, &rq[0]));
	do
		CHECK_MPI(MPI_Improbe(left, 8, MPI_COMM_WORLD, &flag, &msg, &st));
	while (!flag);
	memset(in, 0, sizeof(in));
	CHECK_MPI(MPI_Imrecv_c(in, N, MPI_DOUBLE, &msg, &rq[1]));
	CHECK_MPI(MPI_Waitall(2, rq, sts));
	expect(in, N, left, "MPI_Imrecv_c");
}

/* A user op of the large-count kind: a sum that checks its length. */
static MPI_Count user_len;
static void sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
	(void)dt;
	user_len = *len;
	for (MPI_Count i = 0; i < *len; i++)
		((double *)inout)[i] += ((double *)in)[i];
}

/* The large-count forms of the collectives, checked against sums. */
static void collectives(void)
{
	double *a = calloc((size_t)np * N, sizeof(double));
	double *b = calloc((size_t)np * N, sizeof(double));
	MPI_Count *cnt = calloc(np, sizeof(MPI_Count));
	MPI_Aint *dsp = calloc(np, sizeof(MPI_Aint));
	MPI_Datatype *types = calloc(np, sizeof(MPI_Datatype));
	double sum = 0, x = me + 1, y;
	MPI_Request rq;
	MPI_Op op;

	mtest_section("collective _c forms");
	for (int r = 0; r < np; r++) {
		sum += r + 1;
		cnt[r] = N;
		dsp[r] = (MPI_Aint)r * N;
		types[r] = MPI_DOUBLE;
	}
	fill(a, N, me);
	CHECK_MPI(MPI_Bcast_c(a, N, MPI_DOUBLE, np - 1, MPI_COMM_WORLD));
	expect(a, N, np - 1, "MPI_Bcast_c");
	CHECK_MPI(MPI_Allreduce_c(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	CHECK(y == sum, "MPI_Allreduce_c: %g, want %g", y, sum);
	y = 0;
	CHECK_MPI(MPI_Reduce_c(&x, &y, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
	CHECK(me || y == sum, "MPI_Reduce_c: %g, want %g", y, sum);
	CHECK_MPI(MPI_Scan_c(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	CHECK(y == (me + 1) * (me + 2) / 2.0, "MPI_Scan_c: %g", y);
	CHECK_MPI(MPI_Exscan_c(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
	CHECK(!me || y == me * (me + 1) / 2.0, "MPI_Exscan_c: %g", y);

	fill(a, N, me);
	CHECK_MPI(MPI_Allgather_c(a, N, MPI_DOUBLE, b, N, MPI_DOUBLE,
				  MPI_COMM_WORLD));
	for (int r = 0; r < np; r++)
		expect(b + r * N, N, r, "MPI_Allgather_c");
	memset(b, 0, sizeof(double) * np * N);
	CHECK_MPI(MPI_Allgatherv_c(a, N, MPI_DOUBLE, b, cnt, dsp, MPI_DOUBLE,
				   MPI_COMM_WORLD));
	for (int r = 0; r < np; r++)
		expect(b + r * N, N, r, "MPI_Allgatherv_c");
	memset(b, 0, sizeof(double) * np * N);
	CHECK_MPI(MPI_Gatherv_c(a, N, MPI_DOUBLE, b, cnt, dsp, MPI_DOUBLE, 0,
				MPI_COMM_WORLD));
	for (int r = 0; !me && r < np; r++)
		expect(b + r * N, N, r, "MPI_Gatherv_c");
	for (int r = 0; r < np; r++)
		fill(a + r * N, N, me);
	CHECK_MPI(MPI_Alltoall_c(a, N, MPI_DOUBLE, b, N, MPI_DOUBLE,
				 MPI_COMM_WORLD));
	for (int r = 0; r < np; r++)
		expect(b + r * N, N, r, "MPI_Alltoall_c");
	memset(b, 0, sizeof(double) * np * N);
	CHECK_MPI(MPI_Alltoallv_c(a, cnt, dsp, MPI_DOUBLE, b, cnt, dsp,
				  MPI_DOUBLE, MPI_COMM_WORLD));
	for (int r = 0; r < np; r++)
		expect(b + r * N, N, r, "MPI_Alltoallv_c");
	for (int r = 0; r < np; r++)
		dsp[r] *= sizeof(double);
	memset(b, 0, sizeof(double) * np * N);
	CHECK_MPI(MPI_Alltoallw_c(a, cnt, dsp, types, b, cnt, dsp, types,
				  MPI_COMM_WORLD));
	for (int r = 0; r < np; r++)
		expect(b + r * N, N, r, "MPI_Alltoallw_c");

	/* nonblocking and persistent */
	y = 0;
	CHECK_MPI(MPI_Iallreduce_c(&x, &y, 1, MPI_DOUBLE, MPI_SUM,
				   MPI_COMM_WORLD, &rq));
	CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	CHECK(y == sum, "MPI_Iallreduce_c: %g, want %g", y, sum);
	CHECK_MPI(MPI_Allreduce_init_c(&x, &y, 1, MPI_DOUBLE, MPI_SUM,
				       MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
	for (int k = 0; k < 2; k++) {
		y = 0;
		CHECK_MPI(MPI_Start(&rq));
		CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
		CHECK(y == sum, "MPI_Allreduce_init_c, start %d: %g", k, y);
	}
	MPI_Request_free(&rq);

	/* a user op of MPI_Op_create_c sees its length as an MPI_Count */
	fill(a, N, me);
	CHECK_MPI(MPI_Op_create_c(sum_c, 1, &op));
	CHECK_MPI(MPI_Reduce_local_c(a, b, N, MPI_DOUBLE, op));
	CHECK(user_len == N, "MPI_Op_create_c's function got %lld elements",
	      (long long)user_len);
	CHECK_MPI(MPI_Allreduce_c(&x, &y, 1, MPI_DOUBLE, op, MPI_COMM_WORLD));
	CHECK(y == sum, "MPI_Allreduce_c with a user op: %g, want %g", y, sum);
	MPI_Op_free(&op);
	free(a);
	free(b);
	free(cnt);
	free(dsp);
	free(types);
}

#ifdef MPIRMA_HAVE_LARGE_COUNT
/*
 * Counts above INT_MAX in messages and collectives (no data, or errors):
 * mpirma's limits, not a host's.
 */
static void huge_messages(void)
{
	MPI_Count big = (MPI_Count)INT_MAX + 2;
	MPI_Count *cnt = calloc(np, sizeof(MPI_Count));
	MPI_Aint *dsp = calloc(np, sizeof(MPI_Aint));
	MPI_Datatype none;
	double buf[1];
	MPI_Op op;

	mtest_section("message and collective counts above INT_MAX");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	MPI_Type_contiguous(0, MPI_DOUBLE, &none);
	MPI_Type_commit(&none);
	CHECK_MPI(MPI_Sendrecv_c(buf, big, none, (me + 1) % np, 9, buf, big,
				 none, (me + np - 1) % np, 9, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Bcast_c(buf, big, none, 0, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Allreduce_c(MPI_IN_PLACE, buf, big, none, MPI_SUM,
				  MPI_COMM_WORLD));
	for (int r = 0; r < np; r++)
		cnt[r] = big;
	CHECK_CLASS(MPI_Alltoallv_c(buf, cnt, dsp, MPI_DOUBLE, buf, cnt, dsp,
				    MPI_DOUBLE, MPI_COMM_WORLD), MPI_ERR_COUNT);
	MPI_Op_create_c(sum_c, 1, &op);
	CHECK_CLASS(MPI_Allreduce_c(MPI_IN_PLACE, buf, big, none, op,
				    MPI_COMM_WORLD), MPI_ERR_COUNT);
	MPI_Op_free(&op);
	MPI_Type_free(&none);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	free(cnt);
	free(dsp);
}
#endif
#endif

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
#if MPI_VERSION >= 4 || defined(MPIRMA_HAVE_LARGE_COUNT)
	messages();
	collectives();
#endif
#ifdef MPIRMA_HAVE_LARGE_COUNT
	huge_messages();
#endif
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
