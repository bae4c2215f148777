// SPDX-License-Identifier: GPL-2.0
/*
 * threads: RMA calls from several threads of every rank at once, when the
 * MPI grants MPI_THREAD_MULTIPLE (under the hybrid layer, whatever the host
 * grants must stay true); with a lower level the test only checks that the
 * level granted is one the standard allows, and passes.
 *
 * Every thread of every rank, inside one lock_all epoch opened by the main
 * thread: accumulates into rank 0 with flushes, fetch_and_op tickets, and
 * gets of a word nobody changes.  The totals must be exact and the tickets
 * a permutation.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "mtest.h"

#define THREADS	3
#define OPS	30	/* per thread */

static MPI_Win win;
static long tickets[THREADS][OPS];

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

static void *worker(void *arg)
{
	long one = 1, got;
	int t = (int)(long)arg;

	for (int i = 0; i < OPS; i++) {
		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1, MPI_LONG,
					 MPI_SUM, win));
		CHECK_MPI(MPI_Fetch_and_op(&one, &tickets[t][i], MPI_LONG, 0, 1,
					   MPI_SUM, win));
		CHECK_MPI(MPI_Get(&got, 1, MPI_LONG, 0, 2, 1, MPI_LONG, win));
		CHECK_MPI(MPI_Win_flush(0, win));
		CHECK_EQ(got, 42, "constant word");
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[THREADS];
	long *mem, *all = NULL;
	int provided, n;

	mtest_init_thread(&argc, &argv, "threads", MPI_THREAD_MULTIPLE,
			  &provided);
	mtest_section("thread level");
	CHECK(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE,
	      "provided %d", provided);
	if (provided < MPI_THREAD_MULTIPLE) {
		if (mtest_rank == 0)
			printf("# threads: MPI_THREAD_MULTIPLE not granted "
			       "(%d): nothing more to test\n", provided);
		return mtest_finish();
	}

	mtest_section("RMA from threads");
	CHECK_MPI(MPI_Win_allocate(3 * sizeof(long), sizeof(long), MPI_INFO_NULL,
				   MPI_COMM_WORLD, &mem, &win));
	mem[0] = mem[1] = 0;
	mem[2] = 42;
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_Win_lock_all(0, win));
	for (long t = 0; t < THREADS; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	for (int t = 0; t < THREADS; t++)
		pthread_join(th[t], NULL);
	CHECK_MPI(MPI_Win_unlock_all(win));
	MPI_Barrier(MPI_COMM_WORLD);

	n = mtest_size * THREADS * OPS;
	if (mtest_rank == 0) {
		CHECK_EQ(mem[0], n, "accumulated total");
		CHECK_EQ(mem[1], n, "tickets handed out");
		all = malloc(sizeof(long) * (size_t)n);
	}
	MPI_Gather(tickets, THREADS * OPS, MPI_LONG, all, THREADS * OPS,
		   MPI_LONG, 0, MPI_COMM_WORLD);
	if (all) {
		qsort(all, (size_t)n, sizeof(long), cmp_long);
		for (int k = 0; k < n; k++)
			if (all[k] != k) {
				CHECK(0, "ticket %d is %ld", k, all[k]);
				break;
			}
		free(all);
	}
	CHECK_MPI(MPI_Win_free(&win));
	return mtest_finish();
}
