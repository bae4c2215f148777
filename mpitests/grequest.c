// SPDX-License-Identifier: GPL-2.0
/*
 * grequest: generalized requests (MPI_Grequest_start,
 * MPI_Grequest_complete) in every wait and test.
 *
 * Each request counts its callbacks: query_fn once, when a wait, test or
 * MPI_Request_get_status first finds it complete, filling the status
 * (source, tag, a count through MPI_Status_set_elements, cancelled);
 * free_fn once, after it; neither before MPI_Grequest_complete.  Wait,
 * Test, Waitall and Testall beside a receive, Waitany and Waitsome with
 * one of two complete; MPI_Request_free before and after the completion
 * (free_fn at whichever comes last, no query_fn); MPI_Cancel before and
 * after it (cancel_fn told which); errors of query_fn and free_fn as the
 * waits' (MPI_ERR_IN_STATUS in Waitall), completing twice or a request
 * that is not generalized.  With MPI_THREAD_MULTIPLE, a thread completes
 * the request while the main thread waits in MPI_Wait.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "mtest.h"

struct gstate {
	int queries, frees, cancels;
	int last_complete;	/* cancel_fn's argument */
	int query_ret, free_ret;
	bool cancelled;
	int tag;
};

static int query_fn(void *extra, MPI_Status *st)
{
	struct gstate *g = extra;

	g->queries++;
	CHECK(g->frees == 0, "query_fn after free_fn");
	st->MPI_SOURCE = mtest_rank;
	st->MPI_TAG = g->tag;
	MPI_Status_set_elements(st, MPI_INT, 3);
	MPI_Status_set_cancelled(st, g->cancelled);
	return g->query_ret;
}

static int free_fn(void *extra)
{
	struct gstate *g = extra;

	g->frees++;
	return g->free_ret;
}

static int cancel_fn(void *extra, int complete)
{
	struct gstate *g = extra;

	g->cancels++;
	g->last_complete = complete;
	if (!complete)
		g->cancelled = true;
	return MPI_SUCCESS;
}

static MPI_Request start(struct gstate *g, int tag)
{
	MPI_Request r = MPI_REQUEST_NULL;

	memset(g, 0, sizeof(*g));
	g->tag = tag;
	CHECK_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, g, &r));
	CHECK(r != MPI_REQUEST_NULL, "a request handle");
	return r;
}

/* The callbacks counted so far: @q queries and @f frees. */
static void counts(const struct gstate *g, int q, int f, const char *what)
{
	CHECK(g->queries == q && g->frees == f,
	      "%s: %d query_fn and %d free_fn calls, want %d and %d", what,
	      g->queries, g->frees, q, f);
}

static void test_wait_test(void)
{
	struct gstate g;
	MPI_Request r;
	MPI_Status st;
	int flag = -1, count = -1;

	mtest_section("wait and test");
	r = start(&g, 11);
	CHECK_MPI(MPI_Test(&r, &flag, &st));
	CHECK_EQ(flag, 0, "test before the completion");
	counts(&g, 0, 0, "before the completion");
	CHECK_MPI(MPI_Grequest_complete(r));
	counts(&g, 0, 0, "after MPI_Grequest_complete");
	CHECK_MPI(MPI_Wait(&r, &st));
	counts(&g, 1, 1, "wait");
	CHECK_EQ(r, MPI_REQUEST_NULL, "handle after the wait");
	CHECK_EQ(st.MPI_TAG, 11, "tag from query_fn");
	CHECK_EQ(st.MPI_SOURCE, mtest_rank, "source from query_fn");
	CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
	CHECK_EQ(count, 3, "count from query_fn");

	r = start(&g, 12);
	CHECK_MPI(MPI_Grequest_complete(r));
	CHECK_MPI(MPI_Test(&r, &flag, &st));
	CHECK(flag == 1 && r == MPI_REQUEST_NULL, "test after completion");
	counts(&g, 1, 1, "test");

	/* MPI_Request_get_status queries once; the wait keeps that status */
	r = start(&g, 13);
	CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
	CHECK_EQ(flag, 0, "get_status before the completion");
	CHECK_MPI(MPI_Grequest_complete(r));
	CHECK_MPI(MPI_Request_get_status(r, &flag, &st));
	CHECK(flag == 1 && st.MPI_TAG == 13, "get_status: flag %d tag %d",
	      flag, st.MPI_TAG);
	counts(&g, 1, 0, "get_status");
	CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
	counts(&g, 1, 1, "wait after get_status");
}

static void test_many(void)
{
	struct gstate g[3];
	MPI_Request r[4];
	MPI_Status st[4];
	int i, flag = -1, index = -1, out = -1, idx[4], v = 7, got = -1;

	mtest_section("waitall, testall beside a receive");
	for (i = 0; i < 3; i++)
		r[i] = start(&g[i], 20 + i);
	CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, mtest_rank, 5, MPI_COMM_WORLD,
			    &r[3]));
	CHECK_MPI(MPI_Testall(4, r, &flag, st));
	CHECK_EQ(flag, 0, "testall before the completions");
	CHECK_MPI(MPI_Send(&v, 1, MPI_INT, mtest_rank, 5, MPI_COMM_WORLD));
	for (i = 0; i < 3; i++)
		CHECK_MPI(MPI_Grequest_complete(r[i]));
	CHECK_MPI(MPI_Waitall(4, r, st));
	for (i = 0; i < 3; i++) {
		counts(&g[i], 1, 1, "waitall");
		CHECK_EQ(st[i].MPI_TAG, 20 + i, "waitall status tag");
	}
	CHECK_EQ(got, 7, "the receive beside them");

	for (i = 0; i < 3; i++)
		r[i] = start(&g[i], 30 + i);
	for (i = 0; i < 3; i++)
		CHECK_MPI(MPI_Grequest_complete(r[i]));
	CHECK_MPI(MPI_Testall(3, r, &flag, MPI_STATUSES_IGNORE));
	CHECK_EQ(flag, 1, "testall after the completions");
	for (i = 0; i < 3; i++)
		counts(&g[i], 1, 1, "testall");

	mtest_section("waitany, waitsome, testany");
	r[0] = start(&g[0], 40);
	r[1] = start(&g[1], 41);
	CHECK_MPI(MPI_Testany(2, r, &index, &flag, &st[0]));
	CHECK_EQ(flag, 0, "testany before the completions");
	CHECK_MPI(MPI_Grequest_complete(r[1]));
	CHECK_MPI(MPI_Waitany(2, r, &index, &st[0]));
	CHECK(index == 1 && st[0].MPI_TAG == 41, "waitany: index %d tag %d",
	      index, st[0].MPI_TAG);
	counts(&g[0], 0, 0, "the pending one after waitany");
	counts(&g[1], 1, 1, "waitany");
	CHECK_MPI(MPI_Grequest_complete(r[0]));
	CHECK_MPI(MPI_Waitsome(2, r, &out, idx, st));
	CHECK(out == 1 && idx[0] == 0, "waitsome: %d, index %d", out, idx[0]);
	counts(&g[0], 1, 1, "waitsome");
}

static void test_free_cancel(void)
{
	struct gstate g;
	MPI_Request r, keep;
	MPI_Status st;
	int flag = -1;

	mtest_section("request_free");
	r = start(&g, 50);
	keep = r;
	CHECK_MPI(MPI_Request_free(&r));
	CHECK_EQ(r, MPI_REQUEST_NULL, "handle after MPI_Request_free");
	counts(&g, 0, 0, "freed before the completion");
	CHECK_MPI(MPI_Grequest_complete(keep));
	counts(&g, 0, 1, "completed after MPI_Request_free");

	r = start(&g, 51);
	CHECK_MPI(MPI_Grequest_complete(r));
	CHECK_MPI(MPI_Request_free(&r));
	counts(&g, 0, 1, "freed after the completion");

	mtest_section("cancel");
	r = start(&g, 52);
	CHECK_MPI(MPI_Cancel(&r));
	CHECK(g.cancels == 1 && g.last_complete == 0,
	      "cancel_fn before the completion: %d, complete %d", g.cancels,
	      g.last_complete);
	CHECK_MPI(MPI_Grequest_complete(r));
	CHECK_MPI(MPI_Cancel(&r));
	CHECK(g.cancels == 2 && g.last_complete == 1,
	      "cancel_fn after the completion: %d, complete %d", g.cancels,
	      g.last_complete);
	CHECK_MPI(MPI_Wait(&r, &st));
	CHECK_MPI(MPI_Test_cancelled(&st, &flag));
	CHECK_EQ(flag, 1, "cancelled, as query_fn says");
	counts(&g, 1, 1, "cancelled request");
}

static void test_errors(void)
{
	struct gstate g[2];
	MPI_Request r[2], s;
	MPI_Status st[2];
	int v = 1, got, flag;

	mtest_section("errors");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	r[0] = start(&g[0], 60);
	g[0].query_ret = MPI_ERR_OTHER;
	CHECK_MPI(MPI_Grequest_complete(r[0]));
	CHECK_CLASS(MPI_Wait(&r[0], &st[0]), MPI_ERR_OTHER);
	counts(&g[0], 1, 1, "failing query_fn");

	r[0] = start(&g[0], 61);
	g[0].free_ret = MPI_ERR_ARG;
	CHECK_MPI(MPI_Grequest_complete(r[0]));
	CHECK_CLASS(MPI_Wait(&r[0], MPI_STATUS_IGNORE), MPI_ERR_ARG);
	counts(&g[0], 1, 1, "failing free_fn");

	r[0] = start(&g[0], 62);
	r[1] = start(&g[1], 63);
	g[1].query_ret = MPI_ERR_OTHER;
	CHECK_MPI(MPI_Grequest_complete(r[0]));
	CHECK_MPI(MPI_Grequest_complete(r[1]));
	CHECK_CLASS(MPI_Grequest_complete(r[1]), MPI_ERR_REQUEST);
	CHECK_CLASS(MPI_Waitall(2, r, st), MPI_ERR_IN_STATUS);
	CHECK(st[0].MPI_ERROR == MPI_SUCCESS &&
	      st[1].MPI_ERROR == MPI_ERR_OTHER, "waitall statuses: %d %d",
	      st[0].MPI_ERROR, st[1].MPI_ERROR);

	/* The first fails, the second's MPI_ERROR is still set. */
	r[0] = start(&g[0], 64);
	r[1] = start(&g[1], 65);
	g[0].query_ret = MPI_ERR_OTHER;
	g[1].query_ret = MPI_SUCCESS;
	CHECK_MPI(MPI_Grequest_complete(r[0]));
	CHECK_MPI(MPI_Grequest_complete(r[1]));
	st[1].MPI_ERROR = -1;
	CHECK_CLASS(MPI_Waitall(2, r, st), MPI_ERR_IN_STATUS);
	CHECK(st[0].MPI_ERROR == MPI_ERR_OTHER &&
	      st[1].MPI_ERROR == MPI_SUCCESS &&
	      r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL,
	      "waitall statuses, first failed: %d %d", st[0].MPI_ERROR,
	      st[1].MPI_ERROR);

	/* MPI_Testall ends them the same way once both are complete. */
	r[0] = start(&g[0], 66);
	r[1] = start(&g[1], 67);
	g[0].query_ret = MPI_ERR_OTHER;
	CHECK_MPI(MPI_Grequest_complete(r[0]));
	CHECK_MPI(MPI_Grequest_complete(r[1]));
	st[1].MPI_ERROR = -1;
	flag = 0;
	CHECK_CLASS(MPI_Testall(2, r, &flag, st), MPI_ERR_IN_STATUS);
	CHECK(flag && st[0].MPI_ERROR == MPI_ERR_OTHER &&
	      st[1].MPI_ERROR == MPI_SUCCESS &&
	      r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL,
	      "testall statuses, first failed: %d %d", st[0].MPI_ERROR,
	      st[1].MPI_ERROR);

	CHECK_MPI(MPI_Isend(&v, 1, MPI_INT, mtest_rank, 9, MPI_COMM_WORLD, &s));
	CHECK_CLASS(MPI_Grequest_complete(s), MPI_ERR_REQUEST);
	CHECK_CLASS(MPI_Grequest_complete(MPI_REQUEST_NULL), MPI_ERR_REQUEST);
	CHECK_MPI(MPI_Wait(&s, MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, mtest_rank, 9, MPI_COMM_WORLD,
			   MPI_STATUS_IGNORE));
	CHECK_CLASS(MPI_Grequest_start(query_fn, free_fn, cancel_fn, &g[0],
				       NULL), MPI_ERR_ARG);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void *completer(void *arg)
{
	mtest_sleep_ms(50);
	CHECK_MPI(MPI_Grequest_complete(*(MPI_Request *)arg));
	return NULL;
}

static void test_thread(int provided)
{
	struct gstate g;
	MPI_Request r, copy;
	pthread_t t;

	mtest_section("completed by another thread");
	if (provided < MPI_THREAD_MULTIPLE)
		return;
	r = start(&g, 70);
	copy = r;
	CHECK_EQ(pthread_create(&t, NULL, completer, &copy), 0,
		 "pthread_create");
	CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
	pthread_join(t, NULL);
	counts(&g, 1, 1, "completed by another thread");
}

int main(int argc, char **argv)
{
	int provided = MPI_THREAD_SINGLE;

	mtest_init_thread(&argc, &argv, "grequest", MPI_THREAD_MULTIPLE,
			  &provided);
	test_wait_test();
	test_many();
	test_free_cancel();
	test_errors();
	test_thread(provided);
	return mtest_finish();
}
