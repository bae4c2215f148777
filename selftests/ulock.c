// SPDX-License-Identifier: GPL-2.0
/*
 * User-space locks (MPIRMA_WIN_ULOCK): the kernel's part and the library's
 * protocol (lib/rma/ulock.c, built into this program) between processes.
 * The ABI: the lock table's offset, length and zeroed contents, the kernel
 * lock ioctls refused on such a window, MPIRMA_IOC_WIN_LOCK_WAIT's argument
 * rules, creation flags that ranks disagree on.  The protocol: exclusive
 * locks exclude each other (a read-modify-write of a mapped counter with
 * plain loads and stores), shared locks run together but never beside an
 * exclusive one, lock_all; contended, so processes really sleep in the
 * kernel and are woken.  And a holder that dies (exclusive, shared or
 * lock_all, or a writer that was still waiting for readers) leaves nothing
 * held: the others get the lock.  Last, MPIRMA_ATOM_BULK's update locks in
 * the same table (see there).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"

#include "../lib/rma/ulock.c"

struct shared {
	int flag[8];
	int inside_excl;	/* ranks inside an exclusive section */
	int inside_shared;	/* ranks inside a shared section */
	int max_shared;		/* most shared holders seen at once */
	int violations;
};

MT_SHARED_FIXTURE(ulock, MPIRMA_FEAT_ULOCK)

/* The protocol's kernel calls, on the member fd kept in @ctx's rank. */
static int member_fd;

static int lockwait(uint32_t win, uint32_t flags, uint32_t seq)
{
	struct mpirma_win_lockwait a = {
		.size = sizeof(a), .flags = flags, .win_id = win, .seq = seq,
	};

	return mt_ioctl(member_fd, MPIRMA_IOC_WIN_LOCK_WAIT, &a);
}

static int t_sleep(struct mpirma_ulock *ul, uint32_t seq)
{
	int ret;

	do
		ret = lockwait(ul->ctx, 0, seq);
	while (ret == -EINTR);
	return ret;
}

static void t_wake(struct mpirma_ulock *ul)
{
	lockwait(ul->ctx, MPIRMA_LOCKWAIT_WAKE, 0);
}

static const struct mpirma_ulock_ops t_ops = { t_sleep, t_wake };

/* A ULOCK window of @flavor (@len bytes per rank) and its table, mapped. */
static int ulock_window(struct mt_rank *r, uint32_t flavor, uint64_t len,
			void *base, struct mpirma_ulock *ul)
{
	struct mt_win w = {
		.flags = MPIRMA_WIN_ULOCK, .flavor = flavor, .base = base,
		.length = len, .nranks = r->nranks,
	};
	struct mpirma_win_query q;
	void *table;
	int win;

	win = mt_win_create(r->mfd, &w);
	if (win < 0)
		return win;
	if (mt_win_query(r->mfd, win, r->rank, &q))
		return -EPROTO;
	table = mmap(NULL, q.lock_length, PROT_READ | PROT_WRITE, MAP_SHARED,
		     r->mfd, (off_t)q.lock_offset);
	if (table == MAP_FAILED)
		return -errno;
	member_fd = r->mfd;
	mpirma_ulock_init(ul, table, r->nranks, r->rank, &t_ops, win);
	ul->map = table;
	ul->map_len = q.lock_length;
	return win;
}

MT_RANK_FN(abi_rank)
{
	struct mpirma_ulock ul;
	struct mpirma_win_query q;
	uint64_t mem[4];
	int win, plain;
	size_t i;

	win = ulock_window(r, MPIRMA_FLAVOR_USER, sizeof(mem), mem, &ul);
	ASSERT_LT(0, win);
	ASSERT_EQ(0, mt_win_query(r->mfd, win, 0, &q));
	EXPECT_EQ(((uint64_t)win << 32) | (1ULL << 31), q.lock_offset);
	EXPECT_LE(MPIRMA_ULOCK_TABLE_SIZE(r->nranks), q.lock_length);
	EXPECT_EQ(0, q.lock_length % (uint64_t)getpagesize());
	for (i = 0; i < MPIRMA_ULOCK_TABLE_SIZE(r->nranks); i++)
		ASSERT_EQ(0, ((uint8_t *)ul.map)[i]);
	ASSERT_EQ(0, mt_fence(r->mfd, win));	/* both looked before a wake */
	/* The kernel's own locks are not this window's. */
	EXPECT_EQ(-EOPNOTSUPP, mt_lock(r->mfd, win, 0, MPIRMA_SYNC_SHARED));
	EXPECT_EQ(-EOPNOTSUPP, mt_unlock(r->mfd, win, 0));
	/* LOCK_WAIT's rules. */
	EXPECT_EQ(-EINVAL, lockwait(win, 2, 0));
	EXPECT_EQ(-EINVAL, lockwait(win, MPIRMA_LOCKWAIT_WAKE, 1));
	EXPECT_EQ(-ENOENT, lockwait(win + 1000, 0, 0));
	/* A stale sequence number returns at once; a wake moves it. */
	EXPECT_EQ(0, lockwait(win, MPIRMA_LOCKWAIT_WAKE, 0));
	EXPECT_NE(0, *ul.seq);
	EXPECT_EQ(0, lockwait(win, 0, *ul.seq - 1));
	/* The table can't be mapped privately or past its end. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, q.lock_length, PROT_READ, MAP_PRIVATE,
				   r->mfd, (off_t)q.lock_offset));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, q.lock_length + getpagesize(),
				   PROT_READ, MAP_SHARED, r->mfd,
				   (off_t)q.lock_offset));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4096, PROT_READ, MAP_SHARED, r->mfd,
				   (off_t)(((uint64_t)win << 32) | (1ULL << 30))));
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
	munmap(ul.map, ul.map_len);

	/* Not a ULOCK window: no table, and LOCK_WAIT refuses it. */
	plain = mt_win_create_all(r->mfd, r->nranks, MPIRMA_FLAVOR_DYNAMIC,
				  NULL, 0);
	ASSERT_LT(0, plain);
	ASSERT_EQ(0, mt_win_query(r->mfd, plain, 0, &q));
	EXPECT_EQ(0, q.lock_offset);
	EXPECT_EQ(0, q.lock_length);
	EXPECT_EQ(-EINVAL, lockwait(plain, 0, 0));
	EXPECT_EQ(0, mt_win_free(r->mfd, plain));
}

MT_RANKS_TEST(ulock, abi, 2, abi_rank)

/* Ranks that disagree on MPIRMA_WIN_ULOCK fail the creation everywhere. */
MT_RANK_FN(disagree_rank)
{
	struct mt_win w = {
		.flags = r->rank ? 0 : MPIRMA_WIN_ULOCK,
		.flavor = MPIRMA_FLAVOR_ALLOC, .length = 64,
		.nranks = r->nranks,
	};

	EXPECT_EQ(-EINVAL, mt_win_create(r->mfd, &w));
}

MT_RANKS_TEST(ulock, ranks_disagree, 2, disagree_rank)

#define ROUNDS	200

/*
 * Every rank increments rank 0's counter with a plain load and store under
 * an exclusive lock, and reads it under a shared one (every fourth round a
 * lock_all), counting who is inside.
 */
MT_RANK_FN(mixed_rank)
{
	struct shared *sh = r->arg;
	struct mpirma_ulock ul;
	volatile uint64_t *counter;
	size_t map_len;
	void *map;
	int win, i, n;

	win = ulock_window(r, MPIRMA_FLAVOR_ALLOC, r->rank ? 0 : 8, NULL, &ul);
	ASSERT_LT(0, win);
	map = mt_win_map(r->mfd, win, &map_len);
	ASSERT_NE(NULL, map);
	counter = mt_win_seg(r->mfd, win, map, 0);
	ASSERT_NE(NULL, counter);
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	for (i = 0; i < ROUNDS; i++) {
		ASSERT_EQ(0, mpirma_ulock_lock(&ul, 0, true));
		if (mt_inc(&sh->inside_excl) != 1 ||
		    __atomic_load_n(&sh->inside_shared, __ATOMIC_SEQ_CST))
			mt_inc(&sh->violations);
		*counter = *counter + 1;
		if (i % 8 == 0)
			sched_yield();	/* let the others pile up and sleep */
		__atomic_sub_fetch(&sh->inside_excl, 1, __ATOMIC_SEQ_CST);
		mpirma_ulock_unlock(&ul, 0);

		if (i % 4 == 3) {
			ASSERT_EQ(0, mpirma_ulock_lock_all(&ul));
		} else {
			ASSERT_EQ(0, mpirma_ulock_lock(&ul, 0, false));
		}
		n = mt_inc(&sh->inside_shared);
		if (__atomic_load_n(&sh->inside_excl, __ATOMIC_SEQ_CST))
			mt_inc(&sh->violations);
		if (n > __atomic_load_n(&sh->max_shared, __ATOMIC_SEQ_CST))
			__atomic_store_n(&sh->max_shared, n, __ATOMIC_SEQ_CST);
		if (i % 8 == 1)
			sched_yield();
		__atomic_sub_fetch(&sh->inside_shared, 1, __ATOMIC_SEQ_CST);
		if (i % 4 == 3)
			mpirma_ulock_unlock_all(&ul);
		else
			mpirma_ulock_unlock(&ul, 0);
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	EXPECT_EQ((uint64_t)ROUNDS * r->nranks, *counter);
	EXPECT_EQ(0, sh->violations);
	/* Nothing is left held or marked. */
	EXPECT_EQ(0, ul.word[0] & MPIRMA_ULOCK_OWNER);
	EXPECT_EQ(0, *held_at(&ul, r->rank, 0));
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
	munmap(map, map_len);
	munmap(ul.map, ul.map_len);
}

MT_RANKS_TEST(ulock, exclusive_shared_lock_all, 3, mixed_rank)

/*
 * Rank 1 takes a lock on rank 0 (exclusive, shared, lock_all, by variant)
 * and dies holding it; rank 2, when there is one, is a writer already
 * waiting for rank 1's shared hold when it dies.  Rank 0 must get the
 * exclusive lock all the same.
 */
struct death_case {
	bool excl;
	bool all;
	uint32_t ranks;
};

static const struct death_case death_cases[] = {
	{ true, false, 2 }, { false, false, 3 }, { false, true, 2 },
};
static int death_case_k;

/* The first word of @wr's line in the sync area (MPIRMA_FEAT_WSYNC). */
static volatile uint32_t *sync_gone(void *table, uint32_t nranks, uint32_t wr)
{
	return (volatile uint32_t *)((char *)table +
				     MPIRMA_ULOCK_SYNC_LINE(nranks, wr));
}

MT_RANK_FN(death_rank)
{
	const struct death_case *c = &death_cases[death_case_k];
	struct shared *sh = r->arg;
	struct mpirma_ulock ul;
	int win;

	win = ulock_window(r, MPIRMA_FLAVOR_DYNAMIC, 0, NULL, &ul);
	ASSERT_LT(0, win);
	if (r->rank == 1) {
		if (c->all) {
			ASSERT_EQ(0, mpirma_ulock_lock_all(&ul));
		} else {
			ASSERT_EQ(0, mpirma_ulock_lock(&ul, 0, c->excl));
		}
		mt_set_flag(&sh->flag[0], 1);
		/* the writer of rank 2 owns the word and waits for us */
		if (r->nranks == 3)
			while (!(__atomic_load_n(&ul.word[0], __ATOMIC_SEQ_CST) &
				 MPIRMA_ULOCK_OWNER))
				sched_yield();
		_exit(0);	/* gone holding it: closing the fd cleans up */
	}
	EXPECT_TRUE(mt_wait_flag(&sh->flag[0], 1, 10000));
	ASSERT_EQ(0, mpirma_ulock_lock(&ul, 0, true));
	/* The cleanup that freed the lock marked rank 1, and only it, gone. */
	EXPECT_EQ(1, *sync_gone(ul.map, r->nranks, 1));
	EXPECT_EQ(0, *sync_gone(ul.map, r->nranks, (uint32_t)r->rank));
	mt_inc(&sh->flag[1]);
	mpirma_ulock_unlock(&ul, 0);
	munmap(ul.map, ul.map_len);
}

static void run_death(struct __test_metadata *_metadata, int dev,
		      struct shared *sh, int k)
{
	memset(sh, 0, sizeof(*sh));
	death_case_k = k;
	ASSERT_EQ(0, mt_run_job(dev, death_cases[k].ranks, death_rank, sh,
				_metadata, MT_TIMEOUT_MS));
	EXPECT_EQ((int)death_cases[k].ranks - 1, sh->flag[1]);
}

TEST_F(ulock, holder_dies)
{
	size_t k;

	MT_SETUP_SKIPPED();
	for (k = 0; k < MT_ARRAY_SIZE(death_cases); k++)
		run_death(_metadata, self->dev, self->sh, (int)k);
	MT_EXPECT_COUNTERS_ZERO();
}

/*
 * MPIRMA_ATOM_BULK: the per-target update locks in the table's update[],
 * which the kernel takes around its element updates just as the library's
 * direct path does.  A window of that strategy has the table even without
 * MPIRMA_WIN_ULOCK, and keeps the kernel's passive-target locks then.
 */
static uint32_t *update_word(void *table, uint32_t nranks, uint32_t target)
{
	return (uint32_t *)((char *)table + MPIRMA_ULOCK_UPDATE(nranks) +
			    (size_t)target * MPIRMA_ULOCK_UPDATE_STRIDE);
}

/* A BULK window of @flags with 8 bytes on rank 0, its table and memory mapped. */
struct bulk_win {
	int win;
	void *table, *map;
	size_t table_len, map_len;
	volatile uint64_t *counter;
};

static int bulk_window(struct mt_rank *r, uint32_t flags, struct bulk_win *b)
{
	struct mt_win w = {
		.flags = flags, .flavor = MPIRMA_FLAVOR_ALLOC,
		.strategy = MPIRMA_ATOM_BULK, .length = r->rank ? 0 : 8,
		.nranks = r->nranks,
	};
	struct mpirma_win_query q;

	b->win = mt_win_create(r->mfd, &w);
	if (b->win < 0)
		return b->win;
	if (mt_win_query(r->mfd, b->win, r->rank, &q))
		return -EPROTO;
	if (q.strategy != MPIRMA_ATOM_BULK ||
	    q.lock_length < MPIRMA_ULOCK_TABLE_SIZE(r->nranks))
		return -EPROTO;
	b->table_len = q.lock_length;
	b->table = mmap(NULL, q.lock_length, PROT_READ | PROT_WRITE, MAP_SHARED,
			r->mfd, (off_t)q.lock_offset);
	if (b->table == MAP_FAILED)
		return -errno;
	b->map = mt_win_map(r->mfd, b->win, &b->map_len);
	b->counter = b->map ? mt_win_seg(r->mfd, b->win, b->map, 0) : NULL;
	return b->counter ? 0 : -EPROTO;
}

static void bulk_unmap(struct bulk_win *b)
{
	munmap(b->map, b->map_len);
	munmap(b->table, b->table_len);
}

/* Every rank checks rank 0's counter and update lock, then frees it all. */
static void bulk_end(struct __test_metadata *_metadata, struct mt_rank *r,
		     struct bulk_win *b, uint64_t want)
{
	ASSERT_EQ(0, mt_fence(r->mfd, b->win));
	EXPECT_EQ(want, *b->counter);
	EXPECT_EQ(0, *update_word(b->table, r->nranks, 0));
	ASSERT_EQ(0, mt_fence(r->mfd, b->win));
	EXPECT_EQ(0, mt_win_free(r->mfd, b->win));
	bulk_unmap(b);
}

/* Without MPIRMA_WIN_ULOCK: a table with free update locks, kernel locks. */
MT_RANK_FN(bulk_abi_rank)
{
	struct bulk_win b;
	uint64_t one = 1;
	uint32_t t;

	ASSERT_EQ(0, bulk_window(r, 0, &b));
	for (t = 0; t < r->nranks; t++)
		EXPECT_EQ(0, *update_word(b.table, r->nranks, t));
	/* every rank has looked before any accumulate holds a word */
	ASSERT_EQ(0, mt_fence(r->mfd, b.win));
	EXPECT_EQ(0, mt_lock(r->mfd, b.win, 0, MPIRMA_SYNC_SHARED));
	struct mpirma_op op = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, 0,
				     &one, 1);
	EXPECT_EQ(0, mt_rma1(r->mfd, b.win, &op));
	EXPECT_EQ(0, mt_unlock(r->mfd, b.win, 0));
	bulk_end(_metadata, r, &b, r->nranks);
}

MT_RANKS_TEST(ulock, bulk_abi, 2, bulk_abi_rank)

/*
 * Rank 1 holds rank 0's update lock as the library does; rank 0's
 * accumulate through the kernel waits for it: the counter stays 0 while
 * rank 1 holds the lock, and has the sum once it lets go.
 */
MT_RANK_FN(bulk_wait_rank)
{
	struct shared *sh = r->arg;
	struct bulk_win b;
	uint64_t five = 5;
	uint32_t *word;

	ASSERT_EQ(0, bulk_window(r, MPIRMA_WIN_ULOCK, &b));
	word = update_word(b.table, r->nranks, 0);
	ASSERT_EQ(0, mt_fence(r->mfd, b.win));
	if (r->rank == 1) {
		uint32_t free = 0;

		ASSERT_TRUE(__atomic_compare_exchange_n(word, &free, 2, false,
							__ATOMIC_SEQ_CST,
							__ATOMIC_SEQ_CST));
		mt_set_flag(&sh->flag[0], 1);
		usleep(200 * 1000);
		if (*b.counter)
			mt_inc(&sh->violations);
		__atomic_store_n(word, 0, __ATOMIC_RELEASE);
	} else {
		struct mpirma_op op = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM,
					     0, 0, &five, 1);

		EXPECT_TRUE(mt_wait_flag(&sh->flag[0], 1, 10000));
		EXPECT_EQ(0, mt_rma1(r->mfd, b.win, &op));
	}
	EXPECT_EQ(0, sh->violations);
	bulk_end(_metadata, r, &b, 5);
}

MT_RANKS_TEST(ulock, bulk_waits_for_holder, 2, bulk_wait_rank)

/* Rank 1 dies holding rank 0's update lock: rank 0's accumulate still runs. */
MT_RANK_FN(bulk_death_rank)
{
	struct shared *sh = r->arg;
	struct bulk_win b;
	uint64_t five = 5;
	uint32_t *word;

	ASSERT_EQ(0, bulk_window(r, MPIRMA_WIN_ULOCK, &b));
	word = update_word(b.table, r->nranks, 0);
	ASSERT_EQ(0, mt_fence(r->mfd, b.win));
	if (r->rank == 1) {
		__atomic_store_n(word, 2, __ATOMIC_SEQ_CST);
		mt_set_flag(&sh->flag[0], 1);
		_exit(0);	/* gone holding it: closing the fd frees it */
	}
	struct mpirma_op op = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, 0,
				     &five, 1);

	EXPECT_TRUE(mt_wait_flag(&sh->flag[0], 1, 10000));
	EXPECT_EQ(0, mt_rma1(r->mfd, b.win, &op));
	EXPECT_EQ(5, *b.counter);
	EXPECT_EQ(0, *word);
	bulk_unmap(&b);
}

MT_RANKS_TEST(ulock, bulk_holder_dies, 2, bulk_death_rank)

TEST_HARNESS_MAIN
