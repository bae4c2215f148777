// SPDX-License-Identifier: GPL-2.0
/*
 * sync: every RMA synchronisation mode, checked by what it must order.
 *
 *  - fence: a ring of puts over many rounds, with the assertions
 *    MPI_MODE_NOPRECEDE, NOSTORE, NOPUT and NOSUCCEED where they are true;
 *  - exclusive lock: a read-modify-write made of MPI_Get + MPI_Put under
 *    MPI_Win_lock(EXCLUSIVE) from every rank; the count is exact only if
 *    the lock excludes;
 *  - shared lock: every rank reads every other at once;
 *  - lock_all: puts to everybody, completed by MPI_Win_flush,
 *    flush_all, flush_local, flush_local_all; MPI_Win_sync before local
 *    loads; MPI_MODE_NOCHECK, on lock_all and on a lock flushed by
 *    flush_all;
 *  - post/start/complete/wait on a ring, with MPI_Win_test polling, one
 *    target posting to all origins, and a post for a later epoch that
 *    arrives before the one for the current epoch, and groups freed and
 *    made anew each epoch with other members (their handles come back);
 *  - MPI_PROC_NULL as the target of lock, unlock and operations: no-ops;
 *  - a fence and a PSCW epoch whose waits must advance a nonblocking
 *    barrier and a receive that other ranks wait for first.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define ROUNDS	20
#define INCS	25

static int right, left;

static void test_fence(void)
{
	long *mem, v;
	MPI_Win win;
	int round;

	mtest_section("fence");
	CHECK_MPI(MPI_Win_allocate(2 * sizeof(long), sizeof(long), MPI_INFO_NULL,
				   MPI_COMM_WORLD, &mem, &win));
	mem[0] = mem[1] = -1;
	/* nothing before: NOPRECEDE */
	CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
	for (round = 0; round < ROUNDS; round++) {
		v = round * 1000 + mtest_rank;
		CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, right, round % 2, 1, MPI_LONG,
				  win));
		/* no local stores in this epoch: NOSTORE is true */
		CHECK_MPI(MPI_Win_fence(round % 3 == 0 ? MPI_MODE_NOSTORE : 0,
					win));
		CHECK_EQ(mem[round % 2], round * 1000 + left, "value from left");
	}
	/* a read-only epoch: nobody puts, so NOPUT holds at every target */
	CHECK_MPI(MPI_Win_fence(MPI_MODE_NOPUT, win));
	CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, left, 0, 1, MPI_LONG, win));
	CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED | MPI_MODE_NOPUT, win));
	CHECK_EQ(v, (ROUNDS - 2) * 1000 + (left + mtest_size - 1) % mtest_size,
		 "get after the rounds");
	CHECK_MPI(MPI_Win_free(&win));
}

static void test_exclusive(void)
{
	long *mem, v = 0;
	MPI_Win win;
	int i;

	mtest_section("exclusive lock");
	CHECK_MPI(MPI_Win_allocate(mtest_rank == 0 ? sizeof(long) : 0,
				   sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD,
				   &mem, &win));
	if (mtest_rank == 0) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
		*mem = 0;
		MPI_Win_unlock(0, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	for (i = 0; i < INCS; i++) {
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
		CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
		CHECK_MPI(MPI_Win_flush(0, win));
		v++;
		CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
		CHECK_MPI(MPI_Win_unlock(0, win));
	}
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
	CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, 0, 0, 1, MPI_LONG, win));
	CHECK_MPI(MPI_Win_unlock(0, win));
	CHECK_EQ(v, (long)INCS * mtest_size, "counter under exclusive locks");
	CHECK_MPI(MPI_Win_free(&win));
}

static void test_shared(void)
{
	long mem[4], *got = malloc(mtest_size * sizeof(long));
	MPI_Win win;
	int r, i;

	mtest_section("shared lock");
	for (i = 0; i < 4; i++)
		mem[i] = mtest_rank * 10 + i;
	CHECK_MPI(MPI_Win_create(mem, sizeof(mem), sizeof(long), MPI_INFO_NULL,
				 MPI_COMM_WORLD, &win));
	for (i = 0; i < 5; i++) {
		for (r = 0; r < mtest_size; r++) {
			CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, r, 0, win));
			CHECK_MPI(MPI_Get(&got[r], 1, MPI_LONG, r, i % 4, 1,
					  MPI_LONG, win));
			CHECK_MPI(MPI_Win_unlock(r, win));
			CHECK_EQ(got[r], r * 10 + i % 4, "shared-lock get");
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);	/* all reads done before anyone adds */
	/* shared locks on every target at once, accumulating */
	for (r = 0; r < mtest_size; r++)
		CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, r, 0, win));
	for (r = 0; r < mtest_size; r++) {
		long one = 1;

		CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, r, 3, 1, MPI_LONG,
					 MPI_SUM, win));
	}
	for (r = 0; r < mtest_size; r++)
		CHECK_MPI(MPI_Win_unlock(r, win));
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, mtest_rank, 0, win));
	CHECK_MPI(MPI_Win_sync(win));
	CHECK_EQ(mem[3], mtest_rank * 10 + 3 + mtest_size, "accumulated");
	CHECK_MPI(MPI_Win_unlock(mtest_rank, win));
	CHECK_MPI(MPI_Win_free(&win));
	free(got);
}

static void test_lock_all(void)
{
	int n = mtest_size, r, i;
	long *mem, *vals = malloc(n * sizeof(long)), *got = malloc(n * sizeof(long));
	MPI_Win win;

	mtest_section("lock_all");
	CHECK_MPI(MPI_Win_allocate(n * sizeof(long), sizeof(long), MPI_INFO_NULL,
				   MPI_COMM_WORLD, &mem, &win));
	for (i = 0; i < n; i++)
		mem[i] = -1;
	MPI_Barrier(MPI_COMM_WORLD);

	for (i = 0; i < 4; i++) {
		CHECK_MPI(MPI_Win_lock_all(i == 3 ? MPI_MODE_NOCHECK : 0, win));
		for (r = 0; r < n; r++) {
			/* slot mtest_rank of every rank */
			vals[r] = i * 100 + mtest_rank;
			CHECK_MPI(MPI_Put(&vals[r], 1, MPI_LONG, r, mtest_rank, 1,
					  MPI_LONG, win));
			switch (i) {
			case 0:
				CHECK_MPI(MPI_Win_flush(r, win));
				break;
			case 1:
				CHECK_MPI(MPI_Win_flush_local(r, win));
				/* the origin buffer is ours again */
				vals[r] = -7;
				break;
			default:
				break;
			}
		}
		if (i == 2)
			CHECK_MPI(MPI_Win_flush_local_all(win));
		CHECK_MPI(MPI_Win_flush_all(win));
		MPI_Barrier(MPI_COMM_WORLD);
		/* everybody's puts are complete: read them locally */
		CHECK_MPI(MPI_Win_sync(win));
		for (r = 0; r < n; r++)
			CHECK_EQ(mem[r], i * 100 + r, "slot after flushes");
		/* and remotely */
		for (r = 0; r < n; r++)
			CHECK_MPI(MPI_Get(&got[r], 1, MPI_LONG, r, (mtest_rank + 1) % n,
					  1, MPI_LONG, win));
		CHECK_MPI(MPI_Win_flush_all(win));
		for (r = 0; r < n; r++)
			CHECK_EQ(got[r], i * 100 + (mtest_rank + 1) % n, "get");
		MPI_Barrier(MPI_COMM_WORLD);
		CHECK_MPI(MPI_Win_unlock_all(win));
	}
	/* a lock taken with MPI_MODE_NOCHECK is an epoch for flush_all too */
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOCHECK, win));
	vals[0] = 4242;
	CHECK_MPI(MPI_Put(&vals[0], 1, MPI_LONG, right, mtest_rank, 1, MPI_LONG,
			  win));
	CHECK_MPI(MPI_Win_flush_local_all(win));
	CHECK_MPI(MPI_Win_flush_all(win));
	CHECK_MPI(MPI_Win_unlock(right, win));
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_SHARED, mtest_rank, 0, win));
	CHECK_MPI(MPI_Win_sync(win));
	CHECK_EQ(mem[left], 4242, "put under a MPI_MODE_NOCHECK lock");
	CHECK_MPI(MPI_Win_unlock(mtest_rank, win));
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_Win_free(&win));
	free(vals);
	free(got);
}

/* A window of MPI_COMM_WORLD over one long, @mem, on every rank. */
static MPI_Win long_window(long *mem)
{
	MPI_Win win = MPI_WIN_NULL;

	CHECK_MPI(MPI_Win_create(mem, sizeof(long), sizeof(long), MPI_INFO_NULL,
				 MPI_COMM_WORLD, &win));
	return win;
}

/* A ring: I expose to my left neighbour and access my right one. */
static void test_pscw_ring(void)
{
	MPI_Group world, to, from;
	long mem = -1, v;
	MPI_Win win;
	int round, flag;

	mtest_section("pscw ring");
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 1, &right, &to);
	MPI_Group_incl(world, 1, &left, &from);
	win = long_window(&mem);
	for (round = 0; round < ROUNDS; round++) {
		v = round * 1000 + mtest_rank;
		CHECK_MPI(MPI_Win_post(from, 0, win));
		CHECK_MPI(MPI_Win_start(to, 0, win));
		CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, right, 0, 1, MPI_LONG, win));
		CHECK_MPI(MPI_Win_complete(win));
		if (round % 2) {
			CHECK_MPI(MPI_Win_wait(win));
		} else {
			do
				CHECK_MPI(MPI_Win_test(win, &flag));
			while (!flag);
		}
		CHECK_EQ(mem, round * 1000 + left, "put through pscw");
	}
	CHECK_MPI(MPI_Win_free(&win));
	MPI_Group_free(&to);
	MPI_Group_free(&from);
	MPI_Group_free(&world);
}

/* Rank 0 exposes to everybody; everybody accumulates into it. */
static void test_pscw_star(void)
{
	MPI_Group world, others, zero;
	long mem = 0, one = 1;
	MPI_Win win;
	int zr = 0, round;

	mtest_section("pscw star");
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 1, &zr, &zero);
	MPI_Group_excl(world, 1, &zr, &others);
	win = long_window(&mem);
	for (round = 0; round < 5; round++) {
		if (mtest_rank == 0) {
			/* an empty access group is allowed too */
			CHECK_MPI(MPI_Win_post(others, 0, win));
			CHECK_MPI(MPI_Win_start(MPI_GROUP_EMPTY, 0, win));
			CHECK_MPI(MPI_Win_complete(win));
			CHECK_MPI(MPI_Win_wait(win));
		} else {
			CHECK_MPI(MPI_Win_start(zero, 0, win));
			CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, 0, 1,
						 MPI_LONG, MPI_SUM, win));
			CHECK_MPI(MPI_Win_complete(win));
		}
	}
	if (mtest_rank == 0)
		CHECK_EQ(mem, 5L * (mtest_size - 1), "accumulated through pscw");
	CHECK_MPI(MPI_Win_free(&win));
	MPI_Group_free(&zero);
	MPI_Group_free(&others);
	MPI_Group_free(&world);
}

/*
 * Rank 0 accesses rank 1 in a first epoch and rank 2 in a second.  Rank 2
 * posts at once; rank 1 only after a while, and stores a sentinel into
 * its window just before.  MPI_Win_start({1}) must wait for rank 1's own
 * post, not take rank 2's: otherwise the put lands before the sentinel
 * and is overwritten.
 */
static void test_pscw_early_post(void)
{
	MPI_Group world, g1, g2, g0;
	long mem = 0, v = 222;
	int one = 1, two = 2, zero = 0;
	MPI_Win win;

	if (mtest_size < 3)
		return;
	mtest_section("pscw early post");
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	MPI_Group_incl(world, 1, &one, &g1);
	MPI_Group_incl(world, 1, &two, &g2);
	MPI_Group_incl(world, 1, &zero, &g0);
	win = long_window(&mem);
	switch (mtest_rank) {
	case 0:
		CHECK_MPI(MPI_Win_start(g1, 0, win));
		CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 1, 0, 1, MPI_LONG, win));
		CHECK_MPI(MPI_Win_complete(win));
		v = 333;
		CHECK_MPI(MPI_Win_start(g2, 0, win));
		CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 2, 0, 1, MPI_LONG, win));
		CHECK_MPI(MPI_Win_complete(win));
		break;
	case 1:
		mtest_sleep_ms(300);
		mem = 111;
		CHECK_MPI(MPI_Win_post(g0, 0, win));
		CHECK_MPI(MPI_Win_wait(win));
		CHECK_EQ(mem, 222, "rank 1 after its epoch");
		break;
	case 2:
		CHECK_MPI(MPI_Win_post(g0, 0, win));
		CHECK_MPI(MPI_Win_wait(win));
		CHECK_EQ(mem, 333, "rank 2 after its epoch");
		break;
	default:
		break;
	}
	CHECK_MPI(MPI_Win_free(&win));
	MPI_Group_free(&g0);
	MPI_Group_free(&g1);
	MPI_Group_free(&g2);
	MPI_Group_free(&world);
}

/*
 * Each round every rank puts to the rank @s after it and exposes to the
 * one @s before, through groups made for the round and freed after it:
 * the next round's groups mostly get the same handles with other members
 * (from 3 ranks), which must not be taken for the last epoch's groups.
 */
static void test_pscw_groups_remade(void)
{
	MPI_Group world, to, from;
	long mem = -1, v;
	int round, s, t, o;
	MPI_Win win;

	mtest_section("pscw groups remade");
	MPI_Comm_group(MPI_COMM_WORLD, &world);
	win = long_window(&mem);
	for (round = 0; round < ROUNDS; round++) {
		s = mtest_size > 1 ? 1 + round % (mtest_size - 1) : 0;
		t = (mtest_rank + s) % mtest_size;
		o = (mtest_rank - s + mtest_size) % mtest_size;
		CHECK_MPI(MPI_Group_incl(world, 1, &t, &to));
		CHECK_MPI(MPI_Group_incl(world, 1, &o, &from));
		v = round * 1000 + mtest_rank;
		CHECK_MPI(MPI_Win_post(from, 0, win));
		CHECK_MPI(MPI_Win_start(to, 0, win));
		CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, t, 0, 1, MPI_LONG, win));
		CHECK_MPI(MPI_Win_complete(win));
		CHECK_MPI(MPI_Win_wait(win));
		CHECK_EQ(mem, round * 1000 + o, "put through remade groups");
		/* the last freed first: most allocators hand it out again */
		CHECK_MPI(MPI_Group_free(&from));
		CHECK_MPI(MPI_Group_free(&to));
	}
	CHECK_MPI(MPI_Win_free(&win));
	MPI_Group_free(&world);
}

static void test_proc_null(void)
{
	long mem = 5, v = 9;
	MPI_Win win;

	mtest_section("MPI_PROC_NULL");
	win = long_window(&mem);
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, MPI_PROC_NULL, 0, win));
	CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, MPI_PROC_NULL, 0, 1, MPI_LONG, win));
	CHECK_MPI(MPI_Win_unlock(MPI_PROC_NULL, win));
	CHECK_MPI(MPI_Win_fence(0, win));
	CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, MPI_PROC_NULL, 0, 1, MPI_LONG, win));
	CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, MPI_PROC_NULL, 0, 1, MPI_LONG, win));
	CHECK_MPI(MPI_Accumulate(&v, 1, MPI_LONG, MPI_PROC_NULL, 0, 1, MPI_LONG,
				 MPI_SUM, win));
	CHECK_MPI(MPI_Win_fence(0, win));
	CHECK_EQ(mem, 5, "window after MPI_PROC_NULL operations");
	CHECK_EQ(v, 9, "origin after a get from MPI_PROC_NULL");
	CHECK_MPI(MPI_Win_free(&win));
}

/* Is environment variable @name set to @value? */
static bool env_is(const char *name, const char *value)
{
	const char *v = getenv(name);

	return v && !strcmp(v, value);
}

/*
 * Fences and a PSCW epoch entered while this rank still has to advance
 * something another rank waits for before it comes to the epoch: a
 * nonblocking barrier (from 3 ranks its later rounds need this rank's
 * progress) and a receive that a synchronous send waits for.  The
 * epochs' waits must advance them, as every wait of the transport does.
 */
static void test_progress(void)
{
	long mem = 0, v = mtest_rank;
	MPI_Request req;
	MPI_Group wg, g;
	MPI_Win win;
	int i;

	mtest_section("progress inside the epochs' waits");
	/*
	 * With neither the lock table nor the queues, fence and PSCW wait in
	 * the module, which advances nothing: mpirma's diagnostic mode.
	 */
	if (env_is("MPIRMA_SHMQ", "0") && env_is("MPIRMA_ULOCK", "0"))
		return;
	win = long_window(&mem);
	CHECK_MPI(MPI_Win_fence(0, win));
	for (i = 0; i < ROUNDS; i++) {
		CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &req));
		if (mtest_rank == 0)
			CHECK_MPI(MPI_Win_fence(0, win));
		CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
		if (mtest_rank != 0)
			CHECK_MPI(MPI_Win_fence(0, win));
	}
	if (mtest_size > 1 && mtest_rank < 2) {
		int peer = !mtest_rank;

		CHECK_MPI(MPI_Comm_group(MPI_COMM_WORLD, &wg));
		CHECK_MPI(MPI_Group_incl(wg, 1, &peer, &g));
		CHECK_MPI(MPI_Group_free(&wg));
		if (mtest_rank == 0) {
			CHECK_MPI(MPI_Irecv(&v, 1, MPI_LONG, 1, 7, MPI_COMM_WORLD,
					    &req));
			CHECK_MPI(MPI_Win_post(g, 0, win));
			CHECK_MPI(MPI_Win_wait(win));
			CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
			CHECK_EQ(v, 1, "the synchronous send's value");
		} else {
			CHECK_MPI(MPI_Ssend(&v, 1, MPI_LONG, 0, 7,
					    MPI_COMM_WORLD));
			CHECK_MPI(MPI_Win_start(g, 0, win));
			CHECK_MPI(MPI_Win_complete(win));
		}
		CHECK_MPI(MPI_Group_free(&g));
	}
	CHECK_MPI(MPI_Win_fence(0, win));
	CHECK_MPI(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv, "sync");
	right = (mtest_rank + 1) % mtest_size;
	left = (mtest_rank + mtest_size - 1) % mtest_size;
	test_fence();
	test_exclusive();
	test_shared();
	test_lock_all();
	test_pscw_ring();
	test_pscw_star();
	test_pscw_early_post();
	test_pscw_groups_remade();
	test_proc_null();
	test_progress();
	return mtest_finish();
}
