// SPDX-License-Identifier: GPL-2.0
/*
 * persist: persistent point-to-point requests (MPI_Send_init and its
 * modes, MPI_Recv_init, MPI_Start, MPI_Startall), as halo exchanges and
 * the OSU persistent benchmarks use them.
 *
 * A ring exchanged 20 times through the same requests with new data each
 * time; every send mode; an inactive request in every wait and test
 * (treated as MPI_REQUEST_NULL, its handle kept); MPI_ANY_SOURCE and the
 * status; MPI_PROC_NULL; a derived datatype freed after the init; a
 * started receive cancelled, then started again; MPI_Request_free of an
 * inactive and of an active request; the errors: starting an active
 * request, starting a request that is not persistent, bad arguments at
 * the init.
 *
 * MPI 4.0's partitioned requests around the same ring: partitions marked
 * ready out of order, by MPI_Pready_range and MPI_Pready_list, the
 * receiver polling MPI_Parrived, both requests started again and again,
 * the two sides partitioned differently; and their errors.
 */
#include <stdio.h>
#include <string.h>

#include "mtest.h"

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define N	16

static int right, left;

static void test_ring(void)
{
	int out[N], in[N], i, round, bad = 0;
	MPI_Request req[2];
	MPI_Status st[2];

	mtest_section("ring");
	CHECK_MPI(MPI_Recv_init(in, N, MPI_INT, left, 7, MPI_COMM_WORLD,
				&req[0]));
	CHECK_MPI(MPI_Send_init(out, N, MPI_INT, right, 7, MPI_COMM_WORLD,
				&req[1]));
	for (round = 0; round < 20; round++) {
		for (i = 0; i < N; i++)
			out[i] = round * 1000 + mtest_rank * 100 + i;
		memset(in, 0xff, sizeof(in));
		CHECK_MPI(MPI_Startall(2, req));
		CHECK_MPI(MPI_Waitall(2, req, st));
		for (i = 0; i < N; i++)
			bad += in[i] != round * 1000 + left * 100 + i;
		CHECK_EQ(st[0].MPI_SOURCE, left, "status source");
		CHECK_EQ(st[0].MPI_TAG, 7, "status tag");
	}
	CHECK_EQ(bad, 0, "elements received wrong");
	CHECK(req[0] != MPI_REQUEST_NULL && req[1] != MPI_REQUEST_NULL,
	      "a completed persistent request keeps its handle");
	CHECK_MPI(MPI_Request_free(&req[0]));
	CHECK_MPI(MPI_Request_free(&req[1]));
	CHECK(req[0] == MPI_REQUEST_NULL, "MPI_Request_free sets the handle");
}

/* Every send mode, one start each, with Start and Wait. */
static void test_modes(void)
{
	int (*init[])(const void *, int, MPI_Datatype, int, int, MPI_Comm,
		      MPI_Request *) = {
		MPI_Send_init, MPI_Bsend_init, MPI_Ssend_init, MPI_Rsend_init,
	};
	int k, v, got, size;
	char bbuf[64], *detached;
	MPI_Request s, r;

	mtest_section("send modes");
	CHECK_MPI(MPI_Buffer_attach(bbuf, sizeof(bbuf)));
	for (k = 0; k < 4; k++) {
		v = k * 10 + mtest_rank;
		got = -1;
		CHECK_MPI(MPI_Recv_init(&got, 1, MPI_INT, MPI_ANY_SOURCE, k,
					MPI_COMM_WORLD, &r));
		CHECK_MPI(MPI_Start(&r));
		/* MPI_Rsend needs the receive posted: everyone posted it */
		MPI_Barrier(MPI_COMM_WORLD);
		CHECK_MPI(init[k](&v, 1, MPI_INT, right, k, MPI_COMM_WORLD, &s));
		CHECK_MPI(MPI_Start(&s));
		CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
		CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
		CHECK_EQ(got, k * 10 + left, "received in this mode");
		CHECK_MPI(MPI_Request_free(&s));
		CHECK_MPI(MPI_Request_free(&r));
	}
	CHECK_MPI(MPI_Buffer_detach(&detached, &size));
	CHECK(detached == bbuf && size == (int)sizeof(bbuf),
	      "the buffer detached");
}

/* Inactive requests count as MPI_REQUEST_NULL; their handles stay. */
static void test_inactive(void)
{
	MPI_Request r, kept, arr[2];
	MPI_Status st;
	int v = 0, flag = 0, idx = 0, outcount = 1, indices[2];

	mtest_section("inactive");
	CHECK_MPI(MPI_Recv_init(&v, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &r));
	kept = r;
	st.MPI_SOURCE = 123;
	CHECK_MPI(MPI_Wait(&r, &st));
	CHECK(r == kept, "MPI_Wait keeps an inactive request's handle");
	CHECK_EQ(st.MPI_SOURCE, MPI_ANY_SOURCE, "empty status source");
	CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG, "empty status tag");
	CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
	CHECK_EQ(flag, 1, "MPI_Test of an inactive request");
	arr[0] = r;
	arr[1] = MPI_REQUEST_NULL;
	CHECK_MPI(MPI_Waitany(2, arr, &idx, MPI_STATUS_IGNORE));
	CHECK_EQ(idx, MPI_UNDEFINED, "MPI_Waitany of inactive requests");
	CHECK_MPI(MPI_Testsome(2, arr, &outcount, indices,
			       MPI_STATUSES_IGNORE));
	CHECK_EQ(outcount, MPI_UNDEFINED, "MPI_Testsome of inactive requests");
	CHECK_MPI(MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE));
	CHECK_EQ(flag, 1, "MPI_Request_get_status of an inactive request");
	CHECK_MPI(MPI_Request_free(&r));
}

static void test_any_source_and_proc_null(void)
{
	MPI_Request r, s;
	MPI_Status st;
	int v = mtest_rank, got = -1, count = -1;

	mtest_section("MPI_ANY_SOURCE, MPI_PROC_NULL");
	CHECK_MPI(MPI_Recv_init(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
				MPI_COMM_WORLD, &r));
	CHECK_MPI(MPI_Send_init(&v, 1, MPI_INT, right, 3, MPI_COMM_WORLD, &s));
	CHECK_MPI(MPI_Start(&r));
	CHECK_MPI(MPI_Start(&s));
	CHECK_MPI(MPI_Wait(&r, &st));
	CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
	CHECK_EQ(got, left, "received");
	CHECK_EQ(st.MPI_SOURCE, left, "status source");
	CHECK_EQ(st.MPI_TAG, 3, "status tag");
	CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
	CHECK_EQ(count, 1, "count");
	CHECK_MPI(MPI_Request_free(&r));
	CHECK_MPI(MPI_Request_free(&s));

	got = 77;
	CHECK_MPI(MPI_Recv_init(&got, 1, MPI_INT, MPI_PROC_NULL, 0,
				MPI_COMM_WORLD, &r));
	CHECK_MPI(MPI_Send_init(&v, 1, MPI_INT, MPI_PROC_NULL, 0,
				MPI_COMM_WORLD, &s));
	CHECK_MPI(MPI_Start(&r));
	CHECK_MPI(MPI_Start(&s));
	CHECK_MPI(MPI_Wait(&r, &st));
	CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
	CHECK_EQ(got, 77, "a receive from MPI_PROC_NULL leaves the buffer");
	CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL, "MPI_PROC_NULL status source");
	CHECK_MPI(MPI_Request_free(&r));
	CHECK_MPI(MPI_Request_free(&s));
}

/* A vector type freed after the init: the requests keep using it. */
static void test_freed_type(void)
{
	int out[2 * N], in[2 * N], i, bad = 0;
	MPI_Datatype vec;
	MPI_Request req[2];

	mtest_section("freed datatype");
	CHECK_MPI(MPI_Type_vector(N, 1, 2, MPI_INT, &vec));
	CHECK_MPI(MPI_Type_commit(&vec));
	CHECK_MPI(MPI_Recv_init(in, 1, vec, left, 5, MPI_COMM_WORLD, &req[0]));
	CHECK_MPI(MPI_Send_init(out, 1, vec, right, 5, MPI_COMM_WORLD, &req[1]));
	CHECK_MPI(MPI_Type_free(&vec));
	for (i = 0; i < 2 * N; i++) {
		out[i] = mtest_rank * 100 + i;
		in[i] = -1;
	}
	CHECK_MPI(MPI_Startall(2, req));
	CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
	for (i = 0; i < 2 * N; i++)
		bad += in[i] != (i % 2 ? -1 : left * 100 + i);
	CHECK_EQ(bad, 0, "elements wrong through the freed vector");
	CHECK_MPI(MPI_Request_free(&req[0]));
	CHECK_MPI(MPI_Request_free(&req[1]));
}

/* A started receive cancelled, then started again and matched. */
static void test_cancel_restart(void)
{
	MPI_Request r;
	MPI_Status st;
	int got = -1, v = mtest_rank, flag = 0;

	mtest_section("cancel and restart");
	CHECK_MPI(MPI_Recv_init(&got, 1, MPI_INT, left, 21, MPI_COMM_WORLD, &r));
	CHECK_MPI(MPI_Start(&r));
	CHECK_MPI(MPI_Cancel(&r));
	CHECK_MPI(MPI_Wait(&r, &st));
	CHECK_MPI(MPI_Test_cancelled(&st, &flag));
	CHECK_EQ(flag, 1, "the started receive was cancelled");
	/* nobody sends before every receive was cancelled */
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_Start(&r));
	CHECK_MPI(MPI_Send(&v, 1, MPI_INT, right, 21, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Wait(&r, &st));
	CHECK_EQ(got, left, "received after the restart");
	CHECK_MPI(MPI_Request_free(&r));

	/* freed while active: the message it matches still goes to it */
	mtest_section("free while active");
	CHECK_MPI(MPI_Recv_init(&got, 1, MPI_INT, left, 22, MPI_COMM_WORLD, &r));
	CHECK_MPI(MPI_Start(&r));
	CHECK_MPI(MPI_Request_free(&r));
	CHECK_MPI(MPI_Send(&v, 1, MPI_INT, right, 22, MPI_COMM_WORLD));
	MPI_Barrier(MPI_COMM_WORLD);
}

static void test_errors(void)
{
	MPI_Request r, plain;
	int v = 0;

	mtest_section("errors");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK_CLASS(MPI_Send_init(&v, -1, MPI_INT, right, 0, MPI_COMM_WORLD,
				  &r), MPI_ERR_COUNT);
	CHECK_CLASS(MPI_Send_init(&v, 1, MPI_INT, mtest_size, 0,
				  MPI_COMM_WORLD, &r), MPI_ERR_RANK);
	CHECK_CLASS(MPI_Recv_init(&v, 1, MPI_INT, left, -5, MPI_COMM_WORLD,
				  &r), MPI_ERR_TAG);
	CHECK_CLASS(MPI_Recv_init(&v, 1, MPI_DATATYPE_NULL, left, 0,
				  MPI_COMM_WORLD, &r), MPI_ERR_TYPE);
	CHECK_CLASS(MPI_Send_init(&v, 1, MPI_INT, right, 0, MPI_COMM_NULL,
				  &r), MPI_ERR_COMM);
	CHECK_CLASS(MPI_Recv_init(&v, 1, MPI_INT, left, 0, MPI_COMM_WORLD,
				  NULL), MPI_ERR_ARG);

	CHECK_MPI(MPI_Recv_init(&v, 1, MPI_INT, left, 30, MPI_COMM_WORLD, &r));
	CHECK_MPI(MPI_Start(&r));
	CHECK_CLASS(MPI_Start(&r), MPI_ERR_REQUEST);
	CHECK_MPI(MPI_Send(&v, 1, MPI_INT, right, 30, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Request_free(&r));

	CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, left, 31, MPI_COMM_WORLD, &plain));
	CHECK_CLASS(MPI_Start(&plain), MPI_ERR_REQUEST);
	CHECK_CLASS(MPI_Startall(-1, &plain), MPI_ERR_COUNT);
	CHECK_MPI(MPI_Send(&v, 1, MPI_INT, right, 31, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Wait(&plain, MPI_STATUS_IGNORE));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

#define PARTS	8
#define PART_N	4

/* One round of a partitioned ring, the send's partitions marked by @how. */
static void part_round(MPI_Request req[2], int *out, const int *in, int round,
		       int how)
{
	int i, flag = 0, polls = 0, bad = 0, list[PARTS];

	for (i = 0; i < PARTS * PART_N; i++)
		out[i] = round * 1000 + mtest_rank * 100 + i;
	CHECK_MPI(MPI_Startall(2, req));
	switch (how) {
	case 0:	/* one by one, backwards */
		for (i = PARTS - 1; i >= 0; i--)
			CHECK_MPI(MPI_Pready(i, req[1]));
		break;
	case 1:	/* two ranges, the upper first */
		CHECK_MPI(MPI_Pready_range(PARTS / 2, PARTS - 1, req[1]));
		CHECK_MPI(MPI_Pready_range(0, PARTS / 2 - 1, req[1]));
		break;
	default: /* a shuffled list, in two calls */
		for (i = 0; i < PARTS; i++)
			list[i] = (i * 5 + 3) % PARTS;
		CHECK_MPI(MPI_Pready_list(3, list, req[1]));
		CHECK_MPI(MPI_Pready_list(PARTS - 3, list + 3, req[1]));
	}
	/* the receive has two partitions of the sender's four each */
	while (!flag && polls++ < 1000000)
		CHECK_MPI(MPI_Parrived(req[0], 1, &flag));
	CHECK(flag, "partition 1 never arrived");
	CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
	for (i = 0; i < PARTS * PART_N; i++)
		bad += in[i] != round * 1000 + left * 100 + i;
	CHECK_EQ(bad, 0, "elements received wrong");
	CHECK_MPI(MPI_Parrived(req[0], 0, &flag));
	CHECK(flag, "an inactive receive has every partition");
}

static void test_partitioned(void)
{
	int out[PARTS * PART_N], in[PARTS * PART_N], v = 0, flag, round;
	MPI_Request req[2], plain;

	mtest_section("partitioned");
	CHECK_MPI(MPI_Precv_init(in, PARTS / 2, 2 * PART_N, MPI_INT, left, 9,
				 MPI_COMM_WORLD, MPI_INFO_NULL, &req[0]));
	CHECK_MPI(MPI_Psend_init(out, PARTS, PART_N, MPI_INT, right, 9,
				 MPI_COMM_WORLD, MPI_INFO_NULL, &req[1]));
	/* an ordinary message of the same tag is not taken by them */
	CHECK_MPI(MPI_Irecv(&v, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &plain));
	for (round = 0; round < 6; round++) {
		memset(in, 0xff, sizeof(in));
		part_round(req, out, in, round, round % 3);
	}
	CHECK_MPI(MPI_Test(&plain, &flag, MPI_STATUS_IGNORE));
	CHECK(!flag, "a plain receive took a partitioned message");
	MPI_Barrier(MPI_COMM_WORLD);	/* no plain message before the test */
	CHECK_MPI(MPI_Send(&mtest_rank, 1, MPI_INT, right, 9, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Wait(&plain, MPI_STATUS_IGNORE));
	CHECK_EQ(v, left, "the plain message");

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK_CLASS(MPI_Pready(0, req[1]), MPI_ERR_REQUEST);	/* inactive */
	CHECK_CLASS(MPI_Pready(0, req[0]), MPI_ERR_REQUEST);	/* a receive */
	CHECK_CLASS(MPI_Parrived(req[1], 0, &flag), MPI_ERR_REQUEST);
	CHECK_CLASS(MPI_Pready(0, MPI_REQUEST_NULL), MPI_ERR_REQUEST);
	CHECK_MPI(MPI_Startall(2, req));
	CHECK_CLASS(MPI_Pready(PARTS, req[1]), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Pready(-1, req[1]), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Pready_range(3, 2, req[1]), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Parrived(req[0], PARTS / 2, &flag), MPI_ERR_ARG);
	CHECK_MPI(MPI_Pready_range(1, PARTS - 1, req[1]));
	CHECK_CLASS(MPI_Pready(1, req[1]), MPI_ERR_ARG);	/* twice */
	CHECK_MPI(MPI_Pready(0, req[1]));
	CHECK_MPI(MPI_Waitall(2, req, MPI_STATUSES_IGNORE));
	CHECK_CLASS(MPI_Psend_init(out, 0, 1, MPI_INT, right, 9,
				   MPI_COMM_WORLD, MPI_INFO_NULL, &plain),
		    MPI_ERR_ARG);
	CHECK_CLASS(MPI_Precv_init(in, 1, -1, MPI_INT, left, 9,
				   MPI_COMM_WORLD, MPI_INFO_NULL, &plain),
		    MPI_ERR_COUNT);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	CHECK_MPI(MPI_Request_free(&req[0]));
	CHECK_MPI(MPI_Request_free(&req[1]));
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv, "persist");
	right = (mtest_rank + 1) % mtest_size;
	left = (mtest_rank + mtest_size - 1) % mtest_size;
	test_ring();
	test_modes();
	test_inactive();
	test_any_source_and_proc_null();
	test_freed_type();
	test_cancel_restart();
	test_errors();
	test_partitioned();
	MPI_Barrier(MPI_COMM_WORLD);
	return mtest_finish();
}
