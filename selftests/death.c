// SPDX-License-Identifier: GPL-2.0
/*
 * Member death: a rank killed with SIGKILL while the others wait on it in a
 * fence, a job barrier, FREE, START, WAIT or WIN_CREATE: they must get
 * EOWNERDEAD within a few seconds, not hang.  A rank killed while holding an
 * exclusive lock: a waiter gets the lock, and the dead rank's memory is
 * still readable.  Whole jobs killed in the middle of work: every module
 * counter returns to zero.  A rank killed while its delegated accumulates
 * are in flight in the workers: nothing hangs, nothing leaks, no worker is
 * lost, and the workers compute exact totals afterwards.
 *
 * Three ranks: 0 and 1 survive, 2 is the victim.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "mt_harness.h"

#define VICTIM		2
#define NRANKS		3
#define PATTERN		0x5eadbeefcafef00dULL
#define REACT_MS	5000	/* how soon survivors must notice */

enum wait_kind {
	W_FENCE,
	W_JOB_BARRIER,
	W_FREE,
	W_START,
	W_WAIT,
	W_WIN_CREATE,
	W_LOCK,
	W_ALREADY_GONE,
};

struct shared {
	int kind;
	int victim_ready;
	int waiting;		/* survivors about to block */
	int victim_reaped;
	uint64_t kill_ms;
	uint64_t ret_ms[NRANKS];
	int32_t ret[NRANKS];
};

FIXTURE(death) {
	int dev;
	struct mpirma_query q;
	struct shared *sh;
};

FIXTURE_VARIANT(death) {
	enum wait_kind kind;
	bool pscw;
};

FIXTURE_VARIANT_ADD(death, fence) { .kind = W_FENCE };
FIXTURE_VARIANT_ADD(death, job_barrier) { .kind = W_JOB_BARRIER };
FIXTURE_VARIANT_ADD(death, win_free) { .kind = W_FREE };
FIXTURE_VARIANT_ADD(death, start) { .kind = W_START, .pscw = true };
FIXTURE_VARIANT_ADD(death, wait) { .kind = W_WAIT, .pscw = true };
FIXTURE_VARIANT_ADD(death, win_create) { .kind = W_WIN_CREATE };
FIXTURE_VARIANT_ADD(death, exclusive_lock) { .kind = W_LOCK };
FIXTURE_VARIANT_ADD(death, already_gone) { .kind = W_ALREADY_GONE };

FIXTURE_SETUP(death)
{
	MT_FIXTURE_OPEN();
	MT_FIXTURE_QUERY(&self->q, 0);
	MT_FIXTURE_SHM(self->sh);
	self->sh->kind = variant->kind;
}

MT_FIXTURE_TEARDOWN(death)

static void victim(struct shared *sh, int mfd, int win)
{
	switch (sh->kind) {
	case W_LOCK:
		if (mt_lock(mfd, win, 0, MPIRMA_SYNC_EXCLUSIVE))
			_exit(3);
		break;
	case W_ALREADY_GONE:
		_exit(0);	/* leaving closes the member fd */
	default:
		break;
	}
	mt_set_flag(&sh->victim_ready, 1);
	for (;;)
		pause();
}

/* The blocking call of each variant, on a survivor. */
static int survivor_wait(struct shared *sh, int mfd, int win)
{
	static const uint32_t vr[] = { VICTIM };

	switch (sh->kind) {
	case W_FENCE:
	case W_ALREADY_GONE:
		return mt_fence(mfd, win);
	case W_JOB_BARRIER:
		return mt_job_barrier(mfd);
	case W_FREE:
		return mt_win_free(mfd, win);
	case W_START:
		return mt_start(mfd, win, vr, 1);
	case W_WAIT:
		return mt_wait(mfd, win, 0);
	case W_WIN_CREATE:
		return mt_win_create_all(mfd, NRANKS, MPIRMA_FLAVOR_ALLOC, NULL, 8);
	case W_LOCK:
		return mt_lock(mfd, win, 0, MPIRMA_SYNC_EXCLUSIVE);
	}
	return -EPROTO;
}

MT_RANK_FN(death_rank)
{
	static const uint32_t vr[] = { VICTIM };
	struct shared *sh = r->arg;
	uint64_t *mem = calloc(4, sizeof(uint64_t));
	int win = 0, ret;

	ASSERT_NE(NULL, mem);
	mem[0] = PATTERN + r->rank;
	if (sh->kind != W_WIN_CREATE) {
		win = mt_win_create_all(r->mfd, NRANKS, MPIRMA_FLAVOR_USER, mem,
					4 * sizeof(uint64_t));
		ASSERT_LT(0, win);
	}
	if (r->rank == VICTIM)
		victim(sh, r->mfd, win);	/* does not return */

	if (sh->kind == W_WAIT)
		ASSERT_EQ(0, mt_post(r->mfd, win, vr, 1));
	if (sh->kind == W_ALREADY_GONE) {
		ASSERT_TRUE(mt_wait_flag(&sh->victim_reaped, 1, 10000));
	} else {
		ASSERT_TRUE(mt_wait_flag(&sh->victim_ready, 1, 10000));
	}
	mt_inc(&sh->waiting);

	ret = survivor_wait(sh, r->mfd, win);
	sh->ret_ms[r->rank] = mt_now_ms();
	sh->ret[r->rank] = ret;

	if (sh->kind == W_LOCK) {
		uint64_t got = 0;
		struct mpirma_op op = mt_get(MPIRMA_TYPE_UINT64, VICTIM, 0,
					     &got, 1);

		/* the lock is ours, and the dead rank's memory is there */
		EXPECT_EQ(0, ret);
		EXPECT_EQ(0, mt_rma1(r->mfd, win, &op));
		EXPECT_EQ(PATTERN + VICTIM, got);
		EXPECT_EQ(0, mt_unlock(r->mfd, win, 0));
	} else {
		EXPECT_EQ(-EOWNERDEAD, ret);
	}
	/* the survivors still reach each other's memory (a failed FREE
	 * has left the window all the same)
	 */
	if (win > 0 && sh->kind != W_FREE) {
		uint64_t got = 0;
		struct mpirma_op op = mt_get(MPIRMA_TYPE_UINT64, 1 - r->rank, 0,
					     &got, 1);

		EXPECT_EQ(0, mt_rma1(r->mfd, win, &op));
		EXPECT_EQ(PATTERN + 1 - r->rank, got);
	}
	/* and every later wait on the victim fails at once */
	EXPECT_EQ(-EOWNERDEAD, mt_job_barrier(r->mfd));
}

TEST_F(death, member_killed_while_others_wait)
{
	struct shared *sh = self->sh;
	struct mt_procs p;
	int job, k, failed;

	MT_SETUP_SKIPPED();
	if (variant->pscw && !(self->q.features & MPIRMA_FEAT_PSCW))
		SKIP(return, "no MPIRMA_FEAT_PSCW");
	job = mt_job_create(self->dev, NRANKS, NULL);
	ASSERT_LE(0, job);
	ASSERT_EQ(0, mt_spawn(&p, job, NRANKS, death_rank, sh, _metadata, 0));
	close(job);

	if (variant->kind == W_ALREADY_GONE) {
		/* the victim leaves by itself before anyone waits */
		uint64_t deadline = mt_now_ms() + 10000;

		while (!p.reaped[VICTIM] && mt_now_ms() < deadline) {
			if (waitpid(p.pid[VICTIM], &p.status[VICTIM], WNOHANG) ==
			    p.pid[VICTIM])
				p.reaped[VICTIM] = true;
			else
				mt_sleep_ms(5);
		}
		ASSERT_TRUE(p.reaped[VICTIM]);
		EXPECT_TRUE(WIFEXITED(p.status[VICTIM]) &&
			    WEXITSTATUS(p.status[VICTIM]) == 0);
		sh->kill_ms = mt_now_ms();
		mt_set_flag(&sh->victim_reaped, 1);
		failed = mt_reap(&p, MT_TIMEOUT_MS, 0);
	} else {
		ASSERT_TRUE(mt_wait_flag(&sh->victim_ready, 1, 10000));
		ASSERT_TRUE(mt_wait_flag(&sh->waiting, 2, 10000));
		mt_sleep_ms(300);	/* let the survivors block */
		sh->kill_ms = mt_now_ms();
		mt_kill(&p, VICTIM, SIGKILL);
		failed = mt_reap(&p, MT_TIMEOUT_MS, 1ULL << VICTIM);
	}
	EXPECT_EQ(0, failed);
	for (k = 0; k < NRANKS; k++) {
		if (k == VICTIM)
			continue;
		/* not before the death, and soon after it */
		EXPECT_LE(sh->kill_ms, sh->ret_ms[k]);
		EXPECT_GT(sh->kill_ms + REACT_MS, sh->ret_ms[k]);
	}
	MT_EXPECT_COUNTERS_ZERO();
}

/* Whole jobs killed at random points of real work: nothing leaks. */
MT_RANK_FN(busy_rank)
{
	size_t page = sysconf(_SC_PAGESIZE);
	uint8_t *user = mt_anon(16 * page);
	int wu, wa, i = 0;
	size_t len;
	void *map;

	ASSERT_NE(NULL, user);
	wu = mt_win_create_all(r->mfd, r->nranks, MPIRMA_FLAVOR_USER, user,
			       16 * page);
	ASSERT_LT(0, wu);
	wa = mt_win_create_all(r->mfd, r->nranks, MPIRMA_FLAVOR_ALLOC, NULL,
			       8 * page);
	ASSERT_LT(0, wa);
	map = mt_win_map(r->mfd, wa, &len);	/* a mapping outstanding */
	ASSERT_NE(NULL, map);
	for (;;) {
		uint64_t v[64], res[64];
		struct mpirma_op ops[3];
		uint32_t t = (r->rank + i) % r->nranks;

		memset(v, i, sizeof(v));
		ops[0] = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, t, 0, v, 64);
		ops[1] = mt_get_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, t, 512, v,
				    res, 64);
		ops[2] = mt_put(MPIRMA_TYPE_UINT64, t, 4096, v, 64);
		mt_rma(r->mfd, i & 1 ? wu : wa, ops, 3, NULL);
		if (i % 8 == 0) {
			mt_lock(r->mfd, wu, t, MPIRMA_SYNC_EXCLUSIVE);
			mt_unlock(r->mfd, wu, t);
		}
		if (i % 16 == 0)
			mt_fence(r->mfd, wa);
		i++;
	}
}

TEST(whole_job_killed)
{
	unsigned int round;
	int dev;

	MT_REQUIRE_DEVICE();
	dev = mt_open();
	ASSERT_LE(0, dev);
	for (round = 0; round < 3; round++) {
		struct mt_procs p;
		uint32_t k;
		int job;

		job = mt_job_create(dev, 4, NULL);
		ASSERT_LE(0, job);
		ASSERT_EQ(0, mt_spawn(&p, job, 4, busy_rank, NULL, _metadata, 0));
		close(job);
		mt_sleep_ms(200 + 150 * round);
		/* one first, so the others see a death mid-flight */
		mt_kill(&p, round % 4, SIGKILL);
		mt_sleep_ms(50);
		for (k = 0; k < 4; k++) {
			mt_kill(&p, k, SIGKILL);
			waitpid(p.pid[k], NULL, 0);
		}
	}
	close(dev);
	MT_EXPECT_COUNTERS_ZERO();
}

/*
 * Death during delegated operations.  The victim (rank DLG_VICTIM) runs
 * large accumulate batches on a MPIRMA_ATOM_DELEGATE window, each leaving
 * hundreds of page-sized pieces queued to the workers, and is killed inside
 * MPIRMA_IOC_RMA.  The survivors keep accumulating (into their own counter
 * and into the victim's memory) until the kill, then fence: EOWNERDEAD,
 * soon.  Their counter must be exact: a death next door loses nothing.
 * Rounds: ALLOC interleaved over the nodes (every node's workers busy),
 * and USER.  Afterwards the module's counters are 0, the same workers are
 * alive, and a new delegated window in this process computes exact totals.
 */
#define DLG_RANKS	3
#define DLG_VICTIM	2
#define DLG_BYTES	(512 * 1024)	/* per rank */
#define DLG_BIG		(DLG_BYTES - 4096)	/* the victim's area */
#define DLG_COUNTER	DLG_BIG		/* the survivors' counter, on rank 0 */
#define DLG_OPS		12		/* big accumulates per victim batch */
#define DLG_AFTER_ROUNDS 20

struct dlg_shared {
	uint32_t flavor;
	uint32_t flags;
	int victim_batches;	/* batches the victim finished */
	int victim_in_rma;	/* 1 while the victim is inside MPIRMA_IOC_RMA */
	int killed;
	int survivors_done;
	uint64_t kill_ms;
	uint64_t ret_ms[DLG_RANKS];
	int32_t fence_ret[DLG_RANKS];
	uint64_t incs[DLG_RANKS];	/* survivors' +1s on the counter */
	uint64_t counter;		/* the counter, read by rank 0 */
};

static int dlg_window(struct mt_rank *r, struct dlg_shared *sh, void **user)
{
	struct mt_win w = {
		.flags = sh->flags,
		.flavor = sh->flavor,
		.strategy = MPIRMA_ATOM_DELEGATE,
		.length = DLG_BYTES,
		.nranks = r->nranks,
	};

	*user = NULL;
	if (sh->flavor == MPIRMA_FLAVOR_USER) {
		*user = mt_anon(DLG_BYTES);
		if (!*user)
			return -ENOMEM;
		w.base = *user;
	}
	return mt_win_create(r->mfd, &w);
}

/* Big accumulates over every rank's memory until killed; never returns. */
static void dlg_victim(struct mt_rank *r, struct dlg_shared *sh, int win)
{
	size_t n = DLG_BIG / sizeof(uint64_t), k;
	uint64_t *ones = malloc(DLG_BIG);
	struct mpirma_op ops[DLG_OPS];

	if (!ones)
		_exit(3);
	for (k = 0; k < n; k++)
		ones[k] = 1;
	for (k = 0; k < DLG_OPS; k++)
		ops[k] = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM,
				k % r->nranks, 0, ones, n);
	for (;;) {
		mt_set_flag(&sh->victim_in_rma, 1);
		if (mt_rma(r->mfd, win, ops, DLG_OPS, NULL))
			_exit(4);
		mt_set_flag(&sh->victim_in_rma, 0);
		mt_inc(&sh->victim_batches);
	}
}

MT_RANK_FN(dlg_death_rank)
{
	struct dlg_shared *sh = r->arg;
	uint64_t one = 1, ones[512], got = 0;
	struct mpirma_op ops[2];
	void *user;
	int win, k;

	win = dlg_window(r, sh, &user);
	ASSERT_LT(0, win);
	if (r->rank == DLG_VICTIM)
		dlg_victim(r, sh, win);
	for (k = 0; k < 512; k++)
		ones[k] = 1;
	/* a +1 on the counter, and a page's worth into the victim's memory */
	ops[0] = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0,
			DLG_COUNTER + 8 * r->rank, &one, 1);
	ops[1] = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, DLG_VICTIM,
			4096 * r->rank, ones, 512);
	while (!__atomic_load_n(&sh->killed, __ATOMIC_ACQUIRE)) {
		uint32_t nfailed;

		ASSERT_EQ(0, mt_rma(r->mfd, win, ops, 2, &nfailed));
		ASSERT_EQ(0, nfailed);
		sh->incs[r->rank]++;
	}
	sh->fence_ret[r->rank] = mt_fence(r->mfd, win);
	sh->ret_ms[r->rank] = mt_now_ms();
	EXPECT_EQ(-EOWNERDEAD, sh->fence_ret[r->rank]);

	/* every accumulate has returned, so it is applied: read them */
	mt_inc(&sh->survivors_done);
	ASSERT_TRUE(mt_wait_flag(&sh->survivors_done, DLG_RANKS - 1, 10000));
	for (k = 0; k < DLG_RANKS; k++) {
		struct mpirma_op op;

		if (k == DLG_VICTIM)
			continue;
		op = mt_get(MPIRMA_TYPE_UINT64, 0, DLG_COUNTER + 8 * k, &got, 1);
		ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
		EXPECT_EQ(sh->incs[k], got);
	}
	/* the free's barrier fails, but the window is left all the same */
	EXPECT_EQ(-EOWNERDEAD, mt_win_free(r->mfd, win));
	if (user)
		munmap(user, DLG_BYTES);
}

/*
 * After the deaths: every rank adds 1 to every element of every rank's
 * interleaved delegated memory DLG_AFTER_ROUNDS times, and takes a ticket
 * with fetch_and_op each round; all must come out exact.
 */
MT_RANK_FN(dlg_after_rank)
{
	size_t n = DLG_BIG / sizeof(uint64_t), k, bad = 0;
	uint64_t *buf = malloc(DLG_BIG), one = 1, old, prev = 0;
	struct mt_win w = {
		.flags = MPIRMA_WIN_INTERLEAVE,
		.flavor = MPIRMA_FLAVOR_ALLOC,
		.strategy = MPIRMA_ATOM_DELEGATE,
		.length = DLG_BYTES,
		.nranks = r->nranks,
	};
	struct mpirma_op op;
	uint32_t t;
	int win, i;

	ASSERT_NE(NULL, buf);
	for (k = 0; k < n; k++)
		buf[k] = 1;
	win = mt_win_create(r->mfd, &w);
	ASSERT_LT(0, win);
	for (i = 0; i < DLG_AFTER_ROUNDS; i++) {
		for (t = 0; t < r->nranks; t++) {
			op = mt_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, t, 0, buf, n);
			ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
		}
		op = mt_get_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, DLG_COUNTER,
				&one, &old, 1);
		ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
		if (i)
			EXPECT_LT(prev, old);
		prev = old;
	}
	ASSERT_EQ(0, mt_fence(r->mfd, win));
	/* each rank checks its own memory */
	op = mt_get(MPIRMA_TYPE_UINT64, r->rank, 0, buf, n);
	ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
	for (k = 0; k < n; k++)
		bad += buf[k] != (uint64_t)DLG_AFTER_ROUNDS * r->nranks;
	EXPECT_EQ(0, bad);
	if (r->rank == 0) {
		op = mt_get(MPIRMA_TYPE_UINT64, 0, DLG_COUNTER, &old, 1);
		ASSERT_EQ(0, mt_rma1(r->mfd, win, &op));
		EXPECT_EQ((uint64_t)DLG_AFTER_ROUNDS * r->nranks, old);
	}
	EXPECT_EQ(0, mt_win_free(r->mfd, win));
	free(buf);
}

#define DLG_MAX_WORKERS	256

/* A fixture only for TEST_F_TIMEOUT: the rounds take longer than 30 s
 * would allow on a slow emulated machine.
 */
FIXTURE(dlg) {
	int dev;
};

FIXTURE_SETUP(dlg)
{
	MT_FIXTURE_OPEN();
}

MT_FIXTURE_TEARDOWN(dlg)

TEST_F_TIMEOUT(dlg, killed_with_delegated_ops_in_flight, 120)
{
	static struct mt_worker before[DLG_MAX_WORKERS], after[DLG_MAX_WORKERS];
	static const struct {
		uint32_t flavor, flags;
	} rounds[] = {
		{ MPIRMA_FLAVOR_ALLOC, MPIRMA_WIN_INTERLEAVE },
		{ MPIRMA_FLAVOR_USER, 0 },
	};
	unsigned long long items = 0;
	struct dlg_shared *sh;
	int dev = self->dev, nw, i, k;
	unsigned int round;
	char path[64];

	MT_SETUP_SKIPPED();
	sh = mt_shm(sizeof(*sh));
	ASSERT_NE(NULL, sh);
	nw = mt_workers(before, DLG_MAX_WORKERS);
	if (nw < 0)
		TH_LOG("no debugfs (%s): not checking the workers themselves",
		       strerror(-nw));

	for (round = 0; round < MT_ARRAY_SIZE(rounds); round++) {
		uint64_t deadline;
		struct mt_procs p;
		int job, failed;

		memset(sh, 0, sizeof(*sh));
		sh->flavor = rounds[round].flavor;
		sh->flags = rounds[round].flags;
		job = mt_job_create(dev, DLG_RANKS, NULL);
		ASSERT_LE(0, job);
		ASSERT_EQ(0, mt_spawn(&p, job, DLG_RANKS, dlg_death_rank, sh,
				      _metadata, 0));
		close(job);

		/* one whole batch first, then kill inside the next one */
		ASSERT_TRUE(mt_wait_flag(&sh->victim_batches, 1, 30000));
		deadline = mt_now_ms() + 10000;
		while (!__atomic_load_n(&sh->victim_in_rma, __ATOMIC_ACQUIRE) &&
		       mt_now_ms() < deadline)
			;
		mt_sleep_ms(10);
		sh->kill_ms = mt_now_ms();
		mt_kill(&p, DLG_VICTIM, SIGKILL);
		mt_set_flag(&sh->killed, 1);
		failed = mt_reap(&p, MT_TIMEOUT_MS, 1ULL << DLG_VICTIM);
		EXPECT_EQ(0, failed);
		/* it died inside the ioctl, with its batch half done */
		if (!sh->victim_in_rma)
			TH_LOG("round %u: the victim was not inside MPIRMA_IOC_RMA when killed",
			       round);
		EXPECT_EQ(1, sh->victim_in_rma);
		for (k = 0; k < DLG_RANKS; k++) {
			if (k == DLG_VICTIM)
				continue;
			EXPECT_LT(0, sh->incs[k]);
			EXPECT_EQ(-EOWNERDEAD, sh->fence_ret[k]);
			EXPECT_GT(sh->kill_ms + REACT_MS, sh->ret_ms[k]);
		}
		TH_LOG("round %u (%s): victim killed after %d batches; survivors made %llu and %llu accumulates",
		       round, round ? "USER" : "ALLOC interleaved",
		       sh->victim_batches, (unsigned long long)sh->incs[0],
		       (unsigned long long)sh->incs[1]);
		MT_EXPECT_COUNTERS_ZERO();
	}

	/* the workers that were there still are, and still work */
	ASSERT_EQ(0, mt_run_job(dev, DLG_RANKS, dlg_after_rank, NULL, _metadata,
				60000));
	MT_EXPECT_COUNTERS_ZERO();
	if (nw >= 0) {
		ASSERT_EQ(nw, mt_workers(after, DLG_MAX_WORKERS));
		for (i = 0; i < nw; i++) {
			EXPECT_EQ(before[i].pid, after[i].pid);
			EXPECT_EQ(before[i].node, after[i].node);
			snprintf(path, sizeof(path), "/proc/%d", after[i].pid);
			EXPECT_EQ(0, access(path, F_OK));
			items += after[i].items - before[i].items;
		}
		/* at least the pieces of the last job went through them */
		EXPECT_LE((unsigned long long)DLG_AFTER_ROUNDS * DLG_RANKS *
			  DLG_RANKS * (DLG_BIG / 4096), items);
	}
	munmap(sh, sizeof(*sh));
}

TEST_HARNESS_MAIN
