// SPDX-License-Identifier: GPL-2.0
/*
 * Synchronisation: fence as a barrier that orders data, passive-target
 * locks (exclusive mutual exclusion, shared concurrency, lock_all, NOWAIT,
 * blocking waits, the EDEADLK/ENOLCK/ENXIO/EINVAL rules), PSCW (matching per
 * origin, an early post for a later epoch, WAIT|TEST), and interrupted waits
 * (EINTR, nothing consumed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"

struct shared {
	int flag[16];
	int inside;		/* ranks inside a critical section */
	int violations;
	pid_t pid[8];
	uint64_t ms[8];
};

MT_SHARED_FIXTURE(sync, 0)

#define NEED_PSCW() do {						\
		if (!(self->q.features & MPIRMA_FEAT_PSCW))		\
			SKIP(return, "no MPIRMA_FEAT_PSCW");		\
	} while (0)

/* Each round every rank PUTs into its right neighbour; after the fence it
 * must read its left neighbour's value in its own (USER) memory.
 */
MT_RANK_FN(fence_ring_rank)
{
	uint64_t slot[2] = { 0, 0 };
	uint32_t right = (r->rank + 1) % r->nranks;
	uint32_t left = (r->rank + r->nranks - 1) % r->nranks;
	int win, round;

	win = mt_win_create_all(r->mfd, r->nranks, MPIRMA_FLAVOR_USER, slot,
				sizeof(slot));
	ASSERT_LT(0, win);
	for (round = 1; round <= 30; round++) {
		uint64_t v = round * 1000 + r->rank;
		struct mpirma_op op = mt_put(MPIRMA_TYPE_UINT64, right,
					     (round % 2) * 8, &v, 1);

		/* the slow one varies, so fences must really wait */
		if ((uint32_t)round % r->nranks == r->rank)
			mt_sleep_ms(3);
		ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
		ASSERT_EQ(0, mt_fence(r->mfd, win));
		EXPECT_EQ(round * 1000 + left,
			  __atomic_load_n(&slot[round % 2], __ATOMIC_SEQ_CST));
	}
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
}

MT_RANKS_TEST(sync, fence_orders_data, 4, fence_ring_rank)

/* A read-modify-write with plain GET and PUT is safe only under an
 * exclusive lock.
 */
MT_RANK_FN(exclusive_rank)
{
	struct shared *sh = r->arg;
	uint64_t counter = 0;
	int win, i;

	win = mt_win_create_all(r->mfd, r->nranks, MPIRMA_FLAVOR_ALLOC, NULL,
				r->rank ? 0 : 8);
	ASSERT_LT(0, win);
	for (i = 0; i < 150; i++) {
		struct mpirma_op op;

		ASSERT_EQ(0, mt_lock(r->mfd, win, 0, MPIRMA_SYNC_EXCLUSIVE));
		if (mt_inc(&sh->inside) != 1)
			mt_inc(&sh->violations);
		op = mt_get(MPIRMA_TYPE_UINT64, 0, 0, &counter, 1);
		ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
		counter++;
		if (i % 16 == 0)
			sched_yield();	/* widen the window for a race */
		op = mt_put(MPIRMA_TYPE_UINT64, 0, 0, &counter, 1);
		ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
		__atomic_sub_fetch(&sh->inside, 1, __ATOMIC_SEQ_CST);
		ASSERT_EQ(0, mt_unlock(r->mfd, win, 0));
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	if (r->rank == 0) {
		struct mpirma_op op = mt_get(MPIRMA_TYPE_UINT64, 0, 0, &counter, 1);

		ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
		EXPECT_EQ(150 * r->nranks, counter);
	}
	EXPECT_EQ(0, sh->violations);
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
}

MT_RANKS_TEST(sync, exclusive_lock_mutual_exclusion, 3, exclusive_rank)

MT_RANK_FN(shared_rank)
{
	struct shared *sh = r->arg;
	int win;

	win = mt_win_create_all(r->mfd, 2, MPIRMA_FLAVOR_ALLOC, NULL, 64);
	ASSERT_LT(0, win);
	if (r->rank == 0) {
		ASSERT_EQ(0, mt_lock(r->mfd, win, 0, MPIRMA_SYNC_SHARED));
		mt_set_flag(&sh->flag[0], 1);
		/* rank 1 takes a shared lock too while we hold ours */
		EXPECT_TRUE(mt_wait_flag(&sh->flag[1], 1, 10000));
		EXPECT_EQ(0, mt_unlock(r->mfd, win, 0));
		mt_set_flag(&sh->flag[2], 1);
	} else {
		EXPECT_TRUE(mt_wait_flag(&sh->flag[0], 1, 10000));
		EXPECT_EQ(0, mt_lock(r->mfd, win, 0,
				     MPIRMA_SYNC_SHARED | MPIRMA_SYNC_NOWAIT));
		EXPECT_EQ(0, mt_unlock(r->mfd, win, 0));
		/* an exclusive lock is not available now */
		EXPECT_EQ(-EAGAIN, mt_lock(r->mfd, win, 0,
					   MPIRMA_SYNC_EXCLUSIVE | MPIRMA_SYNC_NOWAIT));
		/* lock_all is shared, so it is */
		EXPECT_EQ(0, mt_lock(r->mfd, win, MPIRMA_RANK_ALL,
				     MPIRMA_SYNC_SHARED | MPIRMA_SYNC_NOWAIT));
		EXPECT_EQ(0, mt_unlock(r->mfd, win, MPIRMA_RANK_ALL));
		/* other targets are not locked at all */
		EXPECT_EQ(0, mt_lock(r->mfd, win, 1,
				     MPIRMA_SYNC_EXCLUSIVE | MPIRMA_SYNC_NOWAIT));
		EXPECT_EQ(0, mt_unlock(r->mfd, win, 1));
		mt_set_flag(&sh->flag[1], 1);
		EXPECT_TRUE(mt_wait_flag(&sh->flag[2], 1, 10000));
		EXPECT_EQ(0, mt_lock(r->mfd, win, 0,
				     MPIRMA_SYNC_EXCLUSIVE | MPIRMA_SYNC_NOWAIT));
		EXPECT_EQ(0, mt_unlock(r->mfd, win, 0));
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
}

MT_RANKS_TEST(sync, shared_locks_concurrent, 2, shared_rank)

/* A blocked LOCK returns once the holder unlocks, and sees its data. */
MT_RANK_FN(blocking_rank)
{
	struct shared *sh = r->arg;
	uint64_t v = 0;
	struct mpirma_op op;
	uint64_t t0;
	int win;

	win = mt_win_create_all(r->mfd, 2, MPIRMA_FLAVOR_ALLOC, NULL, 64);
	ASSERT_LT(0, win);
	if (r->rank == 0) {
		ASSERT_EQ(0, mt_lock(r->mfd, win, 1, MPIRMA_SYNC_EXCLUSIVE));
		mt_set_flag(&sh->flag[0], 1);
		mt_sleep_ms(300);
		v = 77;
		op = mt_put(MPIRMA_TYPE_UINT64, 1, 8, &v, 1);
		EXPECT_EQ(0, mt_rma1(r->mfd, win, &op));
		EXPECT_EQ(0, mt_unlock(r->mfd, win, 1));
	} else {
		EXPECT_TRUE(mt_wait_flag(&sh->flag[0], 1, 10000));
		t0 = mt_now_ms();
		/* lock_all (shared on every rank) waits for the exclusive */
		ASSERT_EQ(0, mt_lock(r->mfd, win, MPIRMA_RANK_ALL,
				     MPIRMA_SYNC_SHARED));
		sh->ms[1] = mt_now_ms() - t0;
		op = mt_get(MPIRMA_TYPE_UINT64, 1, 8, &v, 1);
		EXPECT_EQ(0, mt_rma1(r->mfd, win, &op));
		EXPECT_EQ(77, v);
		EXPECT_EQ(0, mt_unlock(r->mfd, win, MPIRMA_RANK_ALL));
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	if (r->rank == 1 && sh->flag[15]) {
		struct mpirma_win_stats st;

		ASSERT_EQ(0, mt_win_stats(r->mfd, win, &st));
		EXPECT_LE(1, st.lock_waits);
	}
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
}

TEST_F(sync, lock_blocks_until_unlock)
{
	MT_SETUP_SKIPPED();
	self->sh->flag[15] = !!(self->q.features & MPIRMA_FEAT_STATS);
	MT_RUN_SHARED(2, blocking_rank);
	EXPECT_LE(200, self->sh->ms[1]);
}

TEST_F(sync, lock_errors)
{
	int job, mfd, win;

	MT_SETUP_SKIPPED();
	mfd = mt_solo_job(self->dev, &job);
	ASSERT_LE(0, mfd);
	win = mt_win_create_all(mfd, 1, MPIRMA_FLAVOR_ALLOC, NULL, 64);
	ASSERT_LT(0, win);

	EXPECT_EQ(-ENOLCK, mt_unlock(mfd, win, 0));
	EXPECT_EQ(-ENOLCK, mt_unlock(mfd, win, MPIRMA_RANK_ALL));
	EXPECT_EQ(-ENXIO, mt_lock(mfd, win, 1, MPIRMA_SYNC_SHARED));
	EXPECT_EQ(-ENXIO, mt_lock(mfd, win, 12345, MPIRMA_SYNC_EXCLUSIVE));
	EXPECT_EQ(-ENXIO, mt_unlock(mfd, win, 1));
	EXPECT_EQ(-EINVAL, mt_lock(mfd, win, MPIRMA_RANK_ALL,
				   MPIRMA_SYNC_EXCLUSIVE));
	EXPECT_EQ(-EINVAL, mt_lock(mfd, win, 0, 0));
	EXPECT_EQ(-EINVAL, mt_lock(mfd, win, 0, MPIRMA_SYNC_NOWAIT));

	/* holding a lock on a target, another lock on it is EDEADLK */
	ASSERT_EQ(0, mt_lock(mfd, win, 0, MPIRMA_SYNC_EXCLUSIVE));
	EXPECT_EQ(-EDEADLK, mt_lock(mfd, win, 0, MPIRMA_SYNC_EXCLUSIVE));
	EXPECT_EQ(-EDEADLK, mt_lock(mfd, win, 0, MPIRMA_SYNC_SHARED));
	EXPECT_EQ(-EDEADLK, mt_lock(mfd, win, 0,
				    MPIRMA_SYNC_SHARED | MPIRMA_SYNC_NOWAIT));
	EXPECT_EQ(-EDEADLK, mt_lock(mfd, win, MPIRMA_RANK_ALL,
				    MPIRMA_SYNC_SHARED));
	EXPECT_EQ(-ENOLCK, mt_unlock(mfd, win, MPIRMA_RANK_ALL));
	EXPECT_EQ(0, mt_unlock(mfd, win, 0));
	EXPECT_EQ(-ENOLCK, mt_unlock(mfd, win, 0));

	ASSERT_EQ(0, mt_lock(mfd, win, MPIRMA_RANK_ALL, MPIRMA_SYNC_SHARED));
	EXPECT_EQ(-EDEADLK, mt_lock(mfd, win, 0, MPIRMA_SYNC_SHARED));
	EXPECT_EQ(-EDEADLK, mt_lock(mfd, win, MPIRMA_RANK_ALL,
				    MPIRMA_SYNC_SHARED));
	EXPECT_EQ(0, mt_unlock(mfd, win, MPIRMA_RANK_ALL));
	EXPECT_EQ(-ENOLCK, mt_unlock(mfd, win, MPIRMA_RANK_ALL));

	/* NOWAIT when free: granted */
	EXPECT_EQ(0, mt_lock(mfd, win, 0,
			     MPIRMA_SYNC_EXCLUSIVE | MPIRMA_SYNC_NOWAIT));
	EXPECT_EQ(0, mt_unlock(mfd, win, 0));
	/* a lock still held at FREE does not block it (one rank) */
	EXPECT_EQ(0, mt_lock(mfd, win, 0, MPIRMA_SYNC_SHARED));
	EXPECT_EQ(0, mt_unlock(mfd, win, 0));
	EXPECT_EQ(0, mt_win_free(mfd, win));
	close(mfd);
	close(job);
	MT_EXPECT_COUNTERS_ZERO();
}

/* ---- PSCW ---- */

/* Target 2 exposes to origins 0 and 1, five epochs in a row. */
MT_RANK_FN(pscw_rank)
{
	static const uint32_t origins[] = { 0, 1 }, target[] = { 2 };
	uint64_t mem = 0;
	int win, epoch;

	win = mt_win_create_all(r->mfd, 3, MPIRMA_FLAVOR_USER,
				r->rank == 2 ? &mem : NULL, r->rank == 2 ? 8 : 0);
	ASSERT_LT(0, win);
	for (epoch = 1; epoch <= 5; epoch++) {
		if (r->rank == 2) {
			ASSERT_EQ(0, mt_post(r->mfd, win, origins, 2));
			ASSERT_EQ(0, mt_wait(r->mfd, win, 0));
			/* both origins' epochs are complete */
			EXPECT_EQ((uint64_t)epoch * 3, mem);
		} else {
			uint64_t v = r->rank + 1;
			struct mpirma_op op = mt_acc(MPIRMA_TYPE_UINT64,
						     MPIRMA_OP_SUM, 2, 0, &v, 1);

			if (r->rank == (uint32_t)epoch % 2)
				mt_sleep_ms(20);
			ASSERT_EQ(0, mt_start(r->mfd, win, target, 1));
			ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
			ASSERT_EQ(0, mt_complete(r->mfd, win));
		}
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
}

TEST_F(sync, pscw)
{
	MT_SETUP_SKIPPED();
	NEED_PSCW();
	MT_RUN_SHARED(3, pscw_rank);
}

/*
 * Origin A (rank 0) runs three epochs: START{T1}, START{T2}, START{T1}.
 * T1 (rank 1) posts twice; its second post arrives while A's second epoch
 * (with T2) is still waiting for T2.  An implementation that counts post
 * notices instead of matching them per target would let A's START{T2}
 * through on T1's early post.
 */
MT_RANK_FN(early_post_rank)
{
	static const uint32_t a[] = { 0 }, t1[] = { 1 }, t2[] = { 2 };
	struct shared *sh = r->arg;
	int win;

	win = mt_win_create_all(r->mfd, 3, MPIRMA_FLAVOR_ALLOC, NULL, 8);
	ASSERT_LT(0, win);
	switch (r->rank) {
	case 0:
		ASSERT_EQ(0, mt_start(r->mfd, win, t1, 1));
		ASSERT_EQ(0, mt_complete(r->mfd, win));
		ASSERT_EQ(0, mt_start(r->mfd, win, t2, 1));
		/* only T2's post may have let us in */
		EXPECT_EQ(1, __atomic_load_n(&sh->flag[2], __ATOMIC_SEQ_CST));
		ASSERT_EQ(0, mt_complete(r->mfd, win));
		ASSERT_EQ(0, mt_start(r->mfd, win, t1, 1));
		ASSERT_EQ(0, mt_complete(r->mfd, win));
		break;
	case 1:
		ASSERT_EQ(0, mt_post(r->mfd, win, a, 1));
		ASSERT_EQ(0, mt_wait(r->mfd, win, 0));
		ASSERT_EQ(0, mt_post(r->mfd, win, a, 1));	/* early */
		mt_set_flag(&sh->flag[1], 1);
		ASSERT_EQ(0, mt_wait(r->mfd, win, 0));
		break;
	case 2:
		/* post only well after T1's early post */
		ASSERT_TRUE(mt_wait_flag(&sh->flag[1], 1, 10000));
		mt_sleep_ms(300);
		mt_set_flag(&sh->flag[2], 1);
		ASSERT_EQ(0, mt_post(r->mfd, win, a, 1));
		ASSERT_EQ(0, mt_wait(r->mfd, win, 0));
		break;
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
}

TEST_F(sync, pscw_early_post_for_later_epoch)
{
	MT_SETUP_SKIPPED();
	NEED_PSCW();
	MT_RUN_SHARED(3, early_post_rank);
}

MT_RANK_FN(pscw_test_rank)
{
	static const uint32_t a[] = { 0 }, t[] = { 1 };
	struct shared *sh = r->arg;
	int win, polls = 0;

	win = mt_win_create_all(r->mfd, 2, MPIRMA_FLAVOR_ALLOC, NULL, 8);
	ASSERT_LT(0, win);
	if (r->rank == 1) {
		int ret;

		ASSERT_EQ(0, mt_post(r->mfd, win, a, 1));
		EXPECT_EQ(-EAGAIN, mt_wait(r->mfd, win, MPIRMA_SYNC_TEST));
		mt_set_flag(&sh->flag[0], 1);
		while ((ret = mt_wait(r->mfd, win, MPIRMA_SYNC_TEST)) == -EAGAIN &&
		       polls++ < 20000)
			mt_sleep_ms(1);
		EXPECT_EQ(0, ret);
		/* the epoch is over: another WAIT has nothing to wait for */
		EXPECT_EQ(-ENOLCK, mt_wait(r->mfd, win, MPIRMA_SYNC_TEST));
		EXPECT_EQ(-ENOLCK, mt_wait(r->mfd, win, 0));
	} else {
		uint64_t v = 5;
		struct mpirma_op op = mt_put(MPIRMA_TYPE_UINT64, 1, 0, &v, 1);

		EXPECT_TRUE(mt_wait_flag(&sh->flag[0], 1, 10000));
		mt_sleep_ms(100);
		ASSERT_EQ(0, mt_start(r->mfd, win, t, 1));
		ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
		ASSERT_EQ(0, mt_complete(r->mfd, win));
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
}

TEST_F(sync, pscw_wait_test)
{
	MT_SETUP_SKIPPED();
	NEED_PSCW();
	MT_RUN_SHARED(2, pscw_test_rank);
}

TEST_F(sync, pscw_errors)
{
	static const uint32_t r0[] = { 0 }, r00[] = { 0, 0 }, r1[] = { 1 };
	int job, mfd, win;

	MT_SETUP_SKIPPED();
	NEED_PSCW();
	mfd = mt_solo_job(self->dev, &job);
	ASSERT_LE(0, mfd);
	win = mt_win_create_all(mfd, 1, MPIRMA_FLAVOR_ALLOC, NULL, 8);
	ASSERT_LT(0, win);

	EXPECT_EQ(-ENOLCK, mt_complete(mfd, win));
	EXPECT_EQ(-ENOLCK, mt_wait(mfd, win, 0));
	EXPECT_EQ(-ENOLCK, mt_wait(mfd, win, MPIRMA_SYNC_TEST));
	EXPECT_EQ(-ENXIO, mt_post(mfd, win, r1, 1));
	EXPECT_EQ(-ENXIO, mt_start(mfd, win, r1, 1));
	EXPECT_EQ(-EINVAL, mt_post(mfd, win, r00, 2));
	EXPECT_EQ(-EINVAL, mt_start(mfd, win, r00, 2));
	EXPECT_EQ(-EFAULT, mt_post(mfd, win, (void *)8, 1));

	/* empty epochs */
	EXPECT_EQ(0, mt_post(mfd, win, NULL, 0));
	EXPECT_EQ(0, mt_wait(mfd, win, 0));
	EXPECT_EQ(0, mt_start(mfd, win, NULL, 0));
	EXPECT_EQ(0, mt_complete(mfd, win));

	/* one epoch of each kind at a time */
	ASSERT_EQ(0, mt_post(mfd, win, r0, 1));
	EXPECT_EQ(-EDEADLK, mt_post(mfd, win, r0, 1));
	ASSERT_EQ(0, mt_start(mfd, win, r0, 1));
	EXPECT_EQ(-EDEADLK, mt_start(mfd, win, r0, 1));
	EXPECT_EQ(-EAGAIN, mt_wait(mfd, win, MPIRMA_SYNC_TEST));
	ASSERT_EQ(0, mt_complete(mfd, win));
	EXPECT_EQ(-ENOLCK, mt_complete(mfd, win));
	EXPECT_EQ(0, mt_wait(mfd, win, MPIRMA_SYNC_TEST));
	EXPECT_EQ(-ENOLCK, mt_wait(mfd, win, 0));
	EXPECT_EQ(0, mt_win_free(mfd, win));
	close(mfd);
	close(job);
	MT_EXPECT_COUNTERS_ZERO();
}

/* ---- interrupted waits ---- */

static void on_usr1(int sig)
{
	(void)sig;
}

/* Signal @pid until it reports (*flag = 1) that its wait was interrupted:
 * it may not have been blocked yet at the first signal.
 */
static void signal_until(pid_t pid, const volatile int *flag)
{
	do {
		mt_sleep_ms(150);
		kill(pid, SIGUSR1);
	} while (!mt_wait_flag(flag, 1, 150));
}

/*
 * Rank 0 waits in a fence (rank 1 not there yet) and gets a signal: EINTR.
 * Its interrupted arrival must not count: rank 1's fence must wait for
 * rank 0's second one, which comes only after a delay.
 */
MT_RANK_FN(eintr_rank)
{
	struct shared *sh = r->arg;
	int win;

	win = mt_win_create_all(r->mfd, 2, MPIRMA_FLAVOR_ALLOC, NULL, 8);
	ASSERT_LT(0, win);
	if (r->rank == 0) {
		struct sigaction sa = { .sa_handler = on_usr1 };	/* no SA_RESTART */

		ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));
		sh->pid[0] = getpid();
		mt_set_flag(&sh->flag[0], 1);
		EXPECT_EQ(-EINTR, mt_fence(r->mfd, win));
		mt_set_flag(&sh->flag[1], 1);
		mt_sleep_ms(400);
		mt_set_flag(&sh->flag[2], 1);
		EXPECT_EQ(0, mt_fence(r->mfd, win));
		/* and the same for a blocked exclusive lock */
		EXPECT_TRUE(mt_wait_flag(&sh->flag[3], 1, 10000));
		EXPECT_EQ(-EINTR, mt_lock(r->mfd, win, 1, MPIRMA_SYNC_EXCLUSIVE));
		mt_set_flag(&sh->flag[4], 1);
		EXPECT_EQ(0, mt_lock(r->mfd, win, 1, MPIRMA_SYNC_EXCLUSIVE));
		EXPECT_EQ(0, mt_unlock(r->mfd, win, 1));
	} else {
		EXPECT_TRUE(mt_wait_flag(&sh->flag[0], 1, 10000));
		signal_until(sh->pid[0], &sh->flag[1]);
		EXPECT_EQ(0, mt_fence(r->mfd, win));
		EXPECT_EQ(1, __atomic_load_n(&sh->flag[2], __ATOMIC_SEQ_CST));

		ASSERT_EQ(0, mt_lock(r->mfd, win, 1, MPIRMA_SYNC_EXCLUSIVE));
		mt_set_flag(&sh->flag[3], 1);
		signal_until(sh->pid[0], &sh->flag[4]);
		EXPECT_EQ(0, mt_unlock(r->mfd, win, 1));
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
}

MT_RANKS_TEST(sync, interrupted_waits, 2, eintr_rank)

TEST_HARNESS_MAIN
