// SPDX-License-Identifier: GPL-2.0
/*
 * span/completion.c - the span test's completion checks: flush, fence,
 * PSCW, and operations served while the target waits in MPI_Recv.
 */
#include "mtest.h"
#include "span.h"

/*
 * Rank 0 waits in MPI_Recv for a message from each other rank, which each
 * sends after a fetch_and_op to rank 0 and its flush: the operations from
 * the other node are served while rank 0 waits (under the layer the
 * waiting thread serves them itself), and each is complete before its
 * message (after span_test_completion's PSCW epoch, whose wait completed
 * everything).
 */
static void test_recv_serving(struct span *w)
{
	long base = w->mem[S_FLUSH], want = 0, got;
	MPI_Status st;

	mtest_section("served while the target waits in MPI_Recv");
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_Win_lock_all(0, w->win));
	if (mtest_rank == 0) {
		for (int k = 1; k < mtest_size; k++) {
			CHECK_MPI(MPI_Recv(&got, 1, MPI_LONG, MPI_ANY_SOURCE, 8,
					   MPI_COMM_WORLD, &st));
			CHECK_EQ(st.MPI_SOURCE, got, "the status's source");
			CHECK_EQ(st.MPI_TAG, 8, "the status's tag");
			want += 10 * got;
		}
		CHECK_MPI(MPI_Win_sync(w->win));
		CHECK_EQ(w->mem[S_FLUSH], base + want,
			 "fetched and added before each message");
	} else {
		long add = 10L * mtest_rank, old = -1, me = mtest_rank;

		CHECK_MPI(MPI_Fetch_and_op(&add, &old, MPI_LONG, 0,
					   at(w, 0, S_FLUSH), MPI_SUM,
					   w->win));
		CHECK_MPI(MPI_Win_flush(0, w->win));
		CHECK(old >= 0, "fetched %ld", old);
		CHECK_MPI(MPI_Send(&me, 1, MPI_LONG, 0, 8, MPI_COMM_WORLD));
	}
	CHECK_MPI(MPI_Win_unlock_all(w->win));
	MPI_Barrier(MPI_COMM_WORLD);
}

/*
 * Completion: after MPI_Win_flush the data is at the target (a message
 * sent after it finds it there); after a fence, and after wait, every
 * origin's puts and accumulates are.
 */
void span_test_completion(struct span *w)
{
	int right = (mtest_rank + 1) % mtest_size;
	int left = (mtest_rank + mtest_size - 1) % mtest_size;
	int fence = S_ORDER + mtest_size;
	long v = mtest_rank + 1, one = 1, got;
	MPI_Group world, others;

	mtest_section("flush completion");
	CHECK_MPI(MPI_Win_lock_all(0, w->win));
	CHECK_MPI(MPI_Accumulate(&v, 1, MPI_LONG, right,
				 at(w, right, S_FLUSH), 1, MPI_LONG, MPI_SUM,
				 w->win));
	CHECK_MPI(MPI_Win_flush(right, w->win));
	MPI_Sendrecv(&v, 1, MPI_LONG, right, 7, &got, 1, MPI_LONG, left, 7,
		     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	CHECK_MPI(MPI_Win_sync(w->win));
	CHECK_EQ(w->mem[S_FLUSH], left + 1, "accumulated before the message");
	CHECK_MPI(MPI_Win_unlock_all(w->win));
	MPI_Barrier(MPI_COMM_WORLD);

	mtest_section("fence completion");
	CHECK_MPI(MPI_Win_fence(0, w->win));
	for (int t = 0; t < mtest_size; t++) {
		CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, t,
				  at(w, t, fence + mtest_rank), 1, MPI_LONG,
				  w->win));
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, t,
					 at(w, t, S_FLUSH), 1, MPI_LONG,
					 MPI_SUM, w->win));
	}
	CHECK_MPI(MPI_Win_fence(0, w->win));
	for (int k = 0; k < mtest_size; k++)
		CHECK_EQ(w->mem[fence + k], k + 1, "put before the fence");
	CHECK_EQ(w->mem[S_FLUSH], left + 1 + mtest_size,
		 "accumulated before the fence");
	CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win));

	mtest_section("PSCW completion");
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	if (mtest_rank == 0) {
		int zero = 0;

		MPI_Group_excl(world, 1, &zero, &others);
		/*
		 * The window is ours until the post: stores made late before
		 * it must not overwrite the puts (MPI_Win_start delays every
		 * access, module-served ones too, until the post).
		 */
		long base = w->mem[S_FLUSH];

		mtest_sleep_ms(300);
		for (int k = 1; k < mtest_size; k++)
			w->mem[fence + k] = 1000 + k;
		/* and the accumulates, which remote origins ship to the agent */
		w->mem[S_FLUSH] = base + 1000;
		CHECK_MPI(MPI_Win_post(others, 0, w->win));
		CHECK_MPI(MPI_Win_wait(w->win));
		for (int k = 1; k < mtest_size; k++)
			CHECK_EQ(w->mem[fence + k], -k, "put before complete");
		CHECK_EQ(w->mem[S_FLUSH], left + 1000 + 2L * mtest_size,
			 "accumulated before complete, after the post");
	} else {
		int zero = 0;

		MPI_Group_incl(world, 1, &zero, &others);
		v = -mtest_rank;
		CHECK_MPI(MPI_Win_start(others, 0, w->win));
		CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 0,
				  at(w, 0, fence + mtest_rank), 1, MPI_LONG,
				  w->win));
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0,
					 at(w, 0, S_FLUSH), 1, MPI_LONG,
					 MPI_SUM, w->win));
		CHECK_MPI(MPI_Win_complete(w->win));
	}
	MPI_Group_free(&others);
	MPI_Group_free(&world);
	MPI_Barrier(MPI_COMM_WORLD);
	test_recv_serving(w);
}
