// SPDX-License-Identifier: GPL-2.0
/*
 * The nbc test's persistent collectives beyond the cases of nbc.c: one
 * request started again with new data each time, MPI_Startall of several
 * (with persistent point-to-point requests among them), starts in a
 * different order on each rank (the standard lets them differ), inactive
 * requests in the waits and tests, and the errors: starting or freeing an
 * active request, bad arguments at the init call.
 */
#include <string.h>

#include "mtest.h"
#include "nbc_test.h"

#define W	MPI_COMM_WORLD

static int sum_to(int n)
{
	return n * (n - 1) / 2;
}

/* Bcast, Allreduce, Allgather and Barrier, started together 3 times. */
static void startall_rounds(void)
{
	int p = mtest_size, me = mtest_rank, k, i, b, a, asum, g[64];
	int sent, got, right = (me + 1) % p, left = (me + p - 1) % p;
	MPI_Request r[6];

	mtest_section("persistent: startall, new data each time");
	CHECK_MPI(MPI_Bcast_init(&b, 1, MPI_INT, p - 1, W, MPI_INFO_NULL,
				 &r[0]));
	CHECK_MPI(MPI_Allreduce_init(&a, &asum, 1, MPI_INT, MPI_SUM, W,
				     MPI_INFO_NULL, &r[1]));
	CHECK_MPI(MPI_Allgather_init(&a, 1, MPI_INT, g, 1, MPI_INT, W,
				     MPI_INFO_NULL, &r[2]));
	CHECK_MPI(MPI_Barrier_init(W, MPI_INFO_NULL, &r[3]));
	CHECK_MPI(MPI_Send_init(&sent, 1, MPI_INT, right, 4, W, &r[4]));
	CHECK_MPI(MPI_Recv_init(&got, 1, MPI_INT, left, 4, W, &r[5]));
	for (k = 0; k < 3; k++) {
		b = me == p - 1 ? 100 + k : -1;
		a = me * (k + 1);
		sent = me + 10 * k;
		CHECK_MPI(MPI_Startall(6, r));
		CHECK_MPI(MPI_Waitall(6, r, MPI_STATUSES_IGNORE));
		CHECK_EQ(b, 100 + k, "bcast_init");
		CHECK_EQ(asum, sum_to(p) * (k + 1), "allreduce_init");
		for (i = 0; i < p; i++)
			CHECK_EQ(g[i], i * (k + 1), "allgather_init");
		CHECK_EQ(got, left + 10 * k, "recv_init beside them");
	}
	for (i = 0; i < 6; i++)
		CHECK_MPI(MPI_Request_free(&r[i]));
	CHECK_EQ(r[0], MPI_REQUEST_NULL, "freed request");
}

/* Three requests started in an order of each rank's own, waited for
 * one by one in yet another. */
static void any_order(void)
{
	int me = mtest_rank, p = mtest_size, i, k, b, s, x[64];
	MPI_Request r[3];

	mtest_section("persistent: started in any order");
	CHECK_MPI(MPI_Bcast_init(&b, 1, MPI_INT, 0, W, MPI_INFO_NULL, &r[0]));
	CHECK_MPI(MPI_Scan_init(&me, &s, 1, MPI_INT, MPI_SUM, W,
				MPI_INFO_NULL, &r[1]));
	CHECK_MPI(MPI_Alltoall_init(x, 1, MPI_INT, x + 32, 1, MPI_INT, W,
				    MPI_INFO_NULL, &r[2]));
	for (k = 0; k < 2; k++) {
		b = me == 0 ? 42 + k : 0;
		for (i = 0; i < p; i++)
			x[i] = 100 * me + i;
		for (i = 0; i < 3; i++)
			CHECK_MPI(MPI_Start(&r[(me + k + i) % 3]));
		for (i = 0; i < 3; i++)
			CHECK_MPI(MPI_Wait(&r[me % 2 ? 2 - i : i],
					   MPI_STATUS_IGNORE));
		CHECK_EQ(b, 42 + k, "bcast");
		CHECK_EQ(s, me * (me + 1) / 2, "scan");
		for (i = 0; i < p; i++)
			CHECK_EQ(x[32 + i], 100 * i + me, "alltoall");
	}
	for (i = 0; i < 3; i++)
		CHECK_MPI(MPI_Request_free(&r[i]));
}

/* Never started, or complete: MPI_REQUEST_NULL to the waits and tests. */
static void inactive(void)
{
	int flag = 0, idx = 7, a = 1, b;
	MPI_Status st;
	MPI_Request r;

	mtest_section("persistent: inactive");
	CHECK_MPI(MPI_Allreduce_init(&a, &b, 1, MPI_INT, MPI_SUM, W,
				     MPI_INFO_NULL, &r));
	st.MPI_SOURCE = 3;
	CHECK_MPI(MPI_Test(&r, &flag, &st));
	CHECK(flag && st.MPI_SOURCE == MPI_ANY_SOURCE,
	      "test of an inactive request: flag %d, source %d", flag,
	      st.MPI_SOURCE);
	CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Waitany(1, &r, &idx, MPI_STATUS_IGNORE));
	CHECK_EQ(idx, MPI_UNDEFINED, "waitany over an inactive request");
	CHECK(r != MPI_REQUEST_NULL, "inactive request kept");
	CHECK_MPI(MPI_Request_free(&r));
}

static void errors(void)
{
	MPI_Request r = MPI_REQUEST_NULL, bad = 0x7ffffff0;
	MPI_Info info;
	int a = 1, b = 0;

	mtest_section("persistent: errors");
	MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
	CHECK_CLASS(MPI_Bcast_init(&a, 1, MPI_INT, mtest_size, W,
				   MPI_INFO_NULL, &r), MPI_ERR_ROOT);
	CHECK_EQ(r, MPI_REQUEST_NULL, "request of a failed init");
	CHECK_CLASS(MPI_Allreduce_init(&a, &b, -1, MPI_INT, MPI_SUM, W,
				       MPI_INFO_NULL, &r), MPI_ERR_COUNT);
	CHECK_CLASS(MPI_Reduce_init(&a, &b, 1, MPI_INT, MPI_OP_NULL, 0, W,
				    MPI_INFO_NULL, &r), MPI_ERR_OP);
	CHECK_CLASS(MPI_Gather_init(&a, 1, MPI_DATATYPE_NULL, &b, 1, MPI_INT,
				    0, W, MPI_INFO_NULL, &r), MPI_ERR_TYPE);
	CHECK_CLASS(MPI_Barrier_init(MPI_COMM_NULL, MPI_INFO_NULL, &r),
		    MPI_ERR_COMM);
	CHECK_CLASS(MPI_Barrier_init(W, MPI_INFO_NULL, NULL), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Barrier_init(W, 12345, &r), MPI_ERR_INFO);
	CHECK_EQ(r, MPI_REQUEST_NULL, "request of a failed init");
	CHECK_CLASS(MPI_Start(&bad), MPI_ERR_REQUEST);
	/* an info with a hint is fine */
	CHECK_MPI(MPI_Info_create(&info));
	CHECK_MPI(MPI_Info_set(info, "no_such_hint", "true"));
	CHECK_MPI(MPI_Allreduce_init(&a, &b, 1, MPI_INT, MPI_SUM, W, info,
				     &r));
	CHECK_MPI(MPI_Info_free(&info));
	CHECK_MPI(MPI_Start(&r));
	CHECK_CLASS(MPI_Start(&r), MPI_ERR_REQUEST);
	CHECK_CLASS(MPI_Startall(1, &r), MPI_ERR_REQUEST);
	CHECK_CLASS(MPI_Request_free(&r), MPI_ERR_REQUEST);
	CHECK(r != MPI_REQUEST_NULL, "active request kept by a failed free");
	CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
	CHECK_EQ(b, mtest_size, "allreduce_init after the errors");
	CHECK_MPI(MPI_Request_free(&r));
	MPI_Comm_set_errhandler(W, MPI_ERRORS_ARE_FATAL);
}

void test_persistent(void)
{
	startall_rounds();
	any_order();
	inactive();
	errors();
}
