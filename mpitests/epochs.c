// SPDX-License-Identifier: GPL-2.0
/*
 * epochs: what a coarray program's runtime does (OpenCoarrays, whose test
 * alloc_comp_multidim_shape hung under the hybrid layer at 2 logical
 * nodes): many windows made with MPI_Win_allocate and freed in turn, a few
 * alive at once, and each access its own short passive-target epoch, to
 * this rank and to the others:
 *
 *  - MPI_Win_lock(SHARED) + a small MPI_Get + MPI_Win_unlock, again and
 *    again; each value exact (the target's own, or what an origin put);
 *  - MPI_Win_lock(EXCLUSIVE) + MPI_Put + MPI_Win_unlock into a column of
 *    every target that only this origin writes, read back by all;
 *  - several gets in one shared epoch, one of a strided vector, and a
 *    put then a get of the same element (issue order within the epoch);
 *  - an exclusive read-modify-write (get, flush, put) of one counter per
 *    target from every rank: the lock excludes every other origin, the
 *    target's own included, so the total is exact.
 *
 * At 2 logical nodes (hybrid/list.2) a lock to another node's rank travels
 * with the epoch's operations (a lazy epoch) and the get's result comes
 * with the unlock's reply; to this rank it is taken without a message.
 */
#include <stdlib.h>

#include "mtest.h"

#define WINS	12	/* windows made in turn ... */
#define LIVE	3	/* ... of which this many are alive at once */
#define ELEMS	64	/* ints per window per rank */
#define READS	8	/* lock/get/unlock rounds per target and window */
#define COUNTER	(ELEMS - 1)	/* the read-modify-write counter's element */
#define COLUMN	32	/* where origin r puts: COLUMN + r (r < COLUMN - 1) */

static int value(int owner, int win, int i)
{
	return owner * 1000000 + win * 1000 + i;
}

/* Rank @t's element @i of @win, in a shared epoch of its own. */
static int get_one(MPI_Win win, int t, int i)
{
	int v = -1;

	CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
	CHECK_MPI(MPI_Get(&v, 1, MPI_INT, t, i, 1, MPI_INT, win));
	CHECK_MPI(MPI_Win_unlock(t, win));
	return v;
}

static void reads(MPI_Win win, int id)
{
	for (int n = 0; n < READS; n++)
		for (int d = 0; d < mtest_size; d++) {
			int t = (mtest_rank + d) % mtest_size;
			int i = (n * 7 + d) % (COLUMN - 1);
			int v = get_one(win, t, i);

			CHECK(v == value(t, id, i), "window %d: rank %d's "
			      "[%d] is %d, want %d", id, t, i, v,
			      value(t, id, i));
		}
}

/* Exclusive puts into this rank's column of every target, read back. */
static void puts_excl(MPI_Win win, int id)
{
	int mine = -value(mtest_rank, id, 7), v;

	for (int t = 0; t < mtest_size; t++) {
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
		CHECK_MPI(MPI_Put(&mine, 1, MPI_INT, t, COLUMN + mtest_rank,
				  1, MPI_INT, win));
		CHECK_MPI(MPI_Win_unlock(t, win));
	}
	for (int t = 0; t < mtest_size; t++) {
		v = get_one(win, t, COLUMN + mtest_rank);
		CHECK(v == mine, "window %d: put to rank %d read back as %d, "
		      "want %d", id, t, v, mine);
	}
}

/* Several operations in one shared epoch to each target. */
static void epoch_many(MPI_Win win, int id)
{
	MPI_Datatype vec;
	int a[4], s[4], x = value(mtest_rank, id, 99), y = 0;

	MPI_Type_vector(4, 1, 3, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	for (int t = 0; t < mtest_size; t++) {
		int slot = COLUMN + mtest_size + mtest_rank;

		CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
		CHECK_MPI(MPI_Get(a, 4, MPI_INT, t, 2, 4, MPI_INT, win));
		CHECK_MPI(MPI_Get(s, 4, MPI_INT, t, 1, 1, vec, win));
		CHECK_MPI(MPI_Put(&x, 1, MPI_INT, t, slot, 1, MPI_INT, win));
		CHECK_MPI(MPI_Get(&y, 1, MPI_INT, t, slot, 1, MPI_INT, win));
		CHECK_MPI(MPI_Win_unlock(t, win));
		for (int k = 0; k < 4; k++) {
			CHECK(a[k] == value(t, id, 2 + k), "window %d: rank "
			      "%d's [%d] is %d", id, t, 2 + k, a[k]);
			CHECK(s[k] == value(t, id, 1 + 3 * k), "window %d: "
			      "rank %d's strided [%d] is %d", id, t,
			      1 + 3 * k, s[k]);
		}
		CHECK(y == x, "window %d: a get after a put to rank %d in one "
		      "epoch read %d, want %d", id, t, y, x);
	}
	MPI_Type_free(&vec);
}

/* Every rank adds 1 to every target's counter, @n times, exclusively. */
static void counters(MPI_Win win, int id, int *mem, int n)
{
	int total = 0;

	for (int k = 0; k < n; k++)
		for (int t = 0; t < mtest_size; t++) {
			int c = -1;

			CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, win));
			CHECK_MPI(MPI_Get(&c, 1, MPI_INT, t, COUNTER, 1,
					  MPI_INT, win));
			CHECK_MPI(MPI_Win_flush(t, win));
			c++;
			CHECK_MPI(MPI_Put(&c, 1, MPI_INT, t, COUNTER, 1,
					  MPI_INT, win));
			CHECK_MPI(MPI_Win_unlock(t, win));
		}
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, mtest_rank, 0, win));
	total = mem[COUNTER];
	CHECK_MPI(MPI_Win_unlock(mtest_rank, win));
	CHECK(total == n * mtest_size, "window %d: counter is %d, want %d",
	      id, total, n * mtest_size);
}

int main(int argc, char **argv)
{
	MPI_Win win[LIVE];
	int *mem[LIVE];

	mtest_init(&argc, &argv, "epochs");
	if (2 * mtest_size > COUNTER - COLUMN) {	/* no room for columns */
		MPI_Barrier(MPI_COMM_WORLD);
		return mtest_finish();
	}
	for (int id = 0; id < WINS + LIVE - 1; id++) {
		int k = id % LIVE;

		if (id >= LIVE) {	/* the oldest goes first */
			MPI_Barrier(MPI_COMM_WORLD);
			CHECK_MPI(MPI_Win_free(&win[k]));
		}
		if (id >= WINS)
			continue;
		mtest_section("allocate");
		CHECK_MPI(MPI_Win_allocate(ELEMS * sizeof(int), sizeof(int),
					   MPI_INFO_NULL, MPI_COMM_WORLD,
					   &mem[k], &win[k]));
		for (int i = 0; i < ELEMS; i++)
			mem[k][i] = value(mtest_rank, id, i);
		mem[k][COUNTER] = 0;
		MPI_Barrier(MPI_COMM_WORLD);
		mtest_section("lock/get/unlock");
		reads(win[k], id);
		mtest_section("lock exclusive/put/unlock");
		puts_excl(win[k], id);
		mtest_section("epoch of several");
		epoch_many(win[k], id);
		mtest_section("exclusive counter");
		counters(win[k], id, mem[k], id % 4 ? 1 : 4);
		/* an older window, still alive, read again */
		if (id >= 1) {
			int j = (id - 1) % LIVE, t = (mtest_rank + 1) % mtest_size;
			int v = get_one(win[j], t, 3);

			CHECK(v == value(t, id - 1, 3), "window %d: rank %d's "
			      "[3] is %d", id - 1, t, v);
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	return mtest_finish();
}
