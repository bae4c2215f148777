// SPDX-License-Identifier: GPL-2.0
/*
 * kill -9 of a rank at random points of real work, under each atomicity
 * strategy: inside a long RMA ioctl (with the delegate strategy: with
 * delegated updates in flight), in a fence, holding a passive-target lock,
 * during window creation.  The survivors must get EOWNERDEAD within 5 s of
 * the kill (each round's worst reaction time is printed), and once every
 * rank is gone the module's counters must read zero.
 *
 * Three ranks; the last is the victim.  A round picks the iteration at
 * which the victim reaches its point and how long after that it is killed
 * from a seeded generator.  The seed is printed; MPIRMA_KILL_SEED=N repeats
 * a run and MPIRMA_KILL_ROUNDS=N (default 2) sets the rounds per variant
 * (make check runs the default; make faults-long runs more).
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

#define NRANKS		3
#define VICTIM		(NRANKS - 1)
#define REACT_MS	5000	/* how soon survivors must notice */
#define GIVE_UP_MS	20000	/* a survivor that never notices fails */
#define WIN_BYTES	(256 * 1024)
#define BIG_ELEMS	(64 * 1024 / 8)	/* the victim's long accumulate */

enum situation { S_IOCTL, S_FENCE, S_LOCK, S_CREATE };

struct shared {
	int situation;
	uint32_t strategy;
	int die_at;		/* the victim's iteration */
	int at_point;		/* set by the victim when it is there */
	uint64_t kill_ms;
	uint64_t ret_ms[NRANKS];
	int32_t ret[NRANKS];
	int64_t big[BIG_ELEMS];	/* origin data of the accumulates */
};

FIXTURE(kill) {
	int dev;
	struct shared *sh;
};

FIXTURE_VARIANT(kill) {
	enum situation situation;
	uint32_t strategy;
};

/* <situation>_<strategy>, e.g. ioctl_lock, holding_lock_native */
#define KILL_VARIANT(name, ID, sit, S)					\
	FIXTURE_VARIANT_ADD(kill, sit##_##name) {			\
		.situation = S, .strategy = MPIRMA_ATOM_##ID,		\
	};

/* ioctl_<strategy> for every strategy, then the chosen pairs. */
MT_FOR_EACH_STRATEGY(KILL_VARIANT, ioctl, S_IOCTL)
KILL_VARIANT(lock, LOCK, fence, S_FENCE)
KILL_VARIANT(delegate, DELEGATE, fence, S_FENCE)
KILL_VARIANT(native, NATIVE, holding_lock, S_LOCK)
KILL_VARIANT(delegate, DELEGATE, holding_lock, S_LOCK)
KILL_VARIANT(striped, STRIPED, win_create, S_CREATE)
KILL_VARIANT(delegate, DELEGATE, win_create, S_CREATE)

FIXTURE_SETUP(kill)
{
	MT_FIXTURE_OPEN();
	MT_FIXTURE_SHM(self->sh);
}

MT_FIXTURE_TEARDOWN(kill)

static int win_create(struct mt_rank *r, struct shared *sh)
{
	struct mt_win w = {
		.flavor = MPIRMA_FLAVOR_ALLOC,
		.strategy = sh->strategy,
		.length = WIN_BYTES,
		.nranks = NRANKS,
	};

	return mt_win_create(r->mfd, &w);
}

/* The victim is at its point: the parent kills it soon. */
static void at_point(struct mt_rank *r, struct shared *sh, int i)
{
	if (r->rank == VICTIM && i == sh->die_at)
		mt_set_flag(&sh->at_point, 1);
}

/* One iteration of the situation's loop; 0 or the first error. */
static int iteration(struct mt_rank *r, struct shared *sh, int *win, int i)
{
	uint32_t next = (r->rank + 1) % NRANKS;
	struct mpirma_op op;
	int ret;

	switch (sh->situation) {
	case S_IOCTL:
		at_point(r, sh, i);
		op = mt_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, 0, 0, sh->big,
			    r->rank == VICTIM ? BIG_ELEMS : 64);
		ret = mt_rma1(r->mfd, *win, &op);
		return ret ? ret : mt_fence(r->mfd, *win);
	case S_FENCE:
		op = mt_put(MPIRMA_TYPE_INT64, next, 8 * r->rank, sh->big, 1);
		ret = mt_rma1(r->mfd, *win, &op);
		if (ret)
			return ret;
		at_point(r, sh, i);
		return mt_fence(r->mfd, *win);
	case S_LOCK:
		ret = mt_lock(r->mfd, *win, 0, MPIRMA_SYNC_EXCLUSIVE);
		if (ret)
			return ret;
		op = mt_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, 0, 0, sh->big, 512);
		ret = mt_rma1(r->mfd, *win, &op);
		if (r->rank == VICTIM && i == sh->die_at) {
			at_point(r, sh, i);
			for (;;)
				pause();	/* dies holding the lock */
		}
		if (!ret)
			ret = mt_unlock(r->mfd, *win, 0);
		return ret ? ret : mt_fence(r->mfd, *win);
	case S_CREATE:
		at_point(r, sh, i);
		ret = win_create(r, sh);
		if (ret < 0)
			return ret;
		*win = ret;
		op = mt_acc(MPIRMA_TYPE_INT64, MPIRMA_OP_SUM, next, 0, sh->big, 64);
		ret = mt_rma1(r->mfd, *win, &op);
		if (!ret)
			ret = mt_fence(r->mfd, *win);
		if (!ret) {
			ret = mt_win_free(r->mfd, *win);
			*win = 0;
		}
		return ret;
	}
	return -EPROTO;
}

static int kill_rank(struct mt_rank *r)
{
	struct shared *sh = r->arg;
	uint64_t start = mt_now_ms();
	int win = 0, ret = 0, i;

	if (sh->situation != S_CREATE) {
		win = win_create(r, sh);
		if (win < 0) {
			fprintf(stderr, "# rank %u: WIN_CREATE: %s\n", r->rank, strerror(-win));
			return 2;
		}
	}
	for (i = 0; !ret; i++) {
		ret = iteration(r, sh, &win, i);
		if (r->rank != VICTIM && mt_now_ms() - start > GIVE_UP_MS) {
			fprintf(stderr, "# rank %u: no error after %d ms\n", r->rank, GIVE_UP_MS);
			return 3;
		}
	}
	sh->ret_ms[r->rank] = mt_now_ms();
	sh->ret[r->rank] = ret;
	/* A failing job still releases its window (FREE leaves it). */
	if (win > 0)
		mt_win_free(r->mfd, win);
	if (ret != -EOWNERDEAD) {
		fprintf(stderr, "# rank %u: iteration %d: %s, not EOWNERDEAD\n", r->rank, i - 1,
			strerror(-ret));
		return 4;
	}
	return 0;
}

/* xorshift64: reproducible from the printed seed. */
static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static unsigned long env_ulong(const char *name, unsigned long dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 0) : dflt;
}

TEST_F_TIMEOUT(kill, random_points, 600)
{
	unsigned long seed, rounds, round;
	struct shared *sh = self->sh;
	uint64_t rng, worst = 0;
	struct mt_procs p;
	int job, k, failed, delay;

	MT_SETUP_SKIPPED();
	seed = env_ulong("MPIRMA_KILL_SEED", (unsigned long)mt_now_ms() ^ getpid());
	rounds = env_ulong("MPIRMA_KILL_ROUNDS", 2);
	rng = seed * 2654435761UL + variant->situation * 97 + variant->strategy + 1;
	for (round = 0; round < rounds; round++) {
		memset(sh, 0, sizeof(*sh));
		sh->situation = variant->situation;
		sh->strategy = variant->strategy;
		for (k = 0; k < BIG_ELEMS; k++)
			sh->big[k] = k;
		sh->die_at = next_rand(&rng) % 4;
		delay = next_rand(&rng) % 30;

		job = mt_job_create(self->dev, NRANKS, NULL);
		ASSERT_LE(0, job);
		ASSERT_EQ(0, mt_spawn(&p, job, NRANKS, kill_rank, sh, _metadata, 0));
		close(job);
		ASSERT_TRUE(mt_wait_flag(&sh->at_point, 1, GIVE_UP_MS));
		mt_sleep_ms(delay);
		sh->kill_ms = mt_now_ms();
		mt_kill(&p, VICTIM, SIGKILL);
		failed = mt_reap(&p, GIVE_UP_MS + 5000, 1ULL << VICTIM);
		EXPECT_EQ(0, failed) TH_LOG("seed %lu round %lu (iteration %d, +%d ms)",
					    seed, round, sh->die_at, delay);
		for (k = 0; k < VICTIM; k++) {
			uint64_t react = sh->ret_ms[k] - sh->kill_ms;

			if (sh->ret_ms[k] < sh->kill_ms)
				continue;	/* failed before the kill: reported above */
			EXPECT_GT(REACT_MS, react) TH_LOG("rank %d took %llu ms (seed %lu)", k,
							  (unsigned long long)react, seed);
			if (react > worst)
				worst = react;
		}
		MT_EXPECT_COUNTERS_ZERO();
		if (!_metadata->passed)
			break;
	}
	fprintf(stderr, "# kill-points: seed %lu, %lu rounds, worst reaction %llu ms\n", seed,
		round, (unsigned long long)worst);
}

TEST_HARNESS_MAIN
