// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host unit test of fences and PSCW on the lock table's counters
 * (lib/rma/win_counters.c), no kernel: threads play the ranks of one
 * window on a sync area in plain memory, a condition variable plays
 * MPIRMA_IOC_WIN_LOCK_WAIT, and every other pause of a wait says sleep.
 * Checks that no rank leaves a fence before every rank has entered it,
 * that a start sees its target's stores before the post and a wait its
 * origins' before their completes, over many epochs (the byte counters
 * wrap), that a test says "not yet" until the completes are in, and that
 * a rank marked gone as the kernel marks it fails the fences and epochs
 * that need it, with no hang.  Also run under ThreadSanitizer.
 *
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/rma/win_counters.c"

#include "fake_lockwait.h"
#include "unit_check.h"

/* What win_counters.c takes from the rest of the library. */
struct mpirma_proc mpirma_proc;
struct mpirma_counters mpirma_counters;
bool mpirma_threads = true;	/* the ranks are threads: counts atomic */

/* No messages and no host: nothing to advance while a wait polls. */
bool mpirma_poll_progress(const struct mpirma_poller *p)
{
	(void)p;
	return false;
}

bool mpirma_poll_host(const struct mpirma_poller *p)
{
	(void)p;
	return false;
}

int mpirma_err_errno(int negerrno, const char *fmt, ...)
{
	(void)fmt;
	return negerrno ? MPI_ERR_OTHER : MPI_SUCCESS;
}

/* Every other pause of a wait says sleep. */
bool mpirma_poll_step(struct mpirma_poller *p)
{
	return ++p->rounds % 2;
}

#define RANKS	5	/* not a power of two: the last round wraps */
#define EPOCHS	700	/* PSCW's byte counters wrap twice */

static uint64_t table[(MPIRMA_ULOCK_TABLE_SIZE(RANKS) + 7) / 8];
static struct mpirma_window wins[RANKS];
static uint8_t in_start[RANKS][RANKS], in_post[RANKS][RANKS];
static int arrived[RANKS];	/* fences entered, per rank */
static long data[RANKS][RANKS];	/* data[t][o]: what origin o put at t */
static int bad[RANKS];		/* failed checks, per thread */

static void setup(void)
{
	int r;

	mpirma_proc.query.features = MPIRMA_FEAT_WSYNC;
	memset(table, 0, sizeof(table));
	memset(arrived, 0, sizeof(arrived));
	memset(data, 0, sizeof(data));
	for (r = 0; r < RANKS; r++) {
		struct mpirma_window *w = &wins[r];

		memset(w, 0, sizeof(*w));
		w->size = RANKS;
		w->rank = r;
		w->in_start = in_start[r];
		w->in_post = in_post[r];
		w->ulock.seq = (uint32_t *)table;
		w->ulock.ops = &k_ops;
		w->ulock.map = table;
		w->ulock.map_len = sizeof(table);
		mpirma_win_counters_map(w);
	}
}

/* What kmod/ulock.c does when window rank @wr leaves. */
static void k_leave(uint32_t wr)
{
	__atomic_store_n(&line_of(&wins[0], wr)[LINE_GONE], 1,
			 __ATOMIC_SEQ_CST);
	k_wake(&wins[0].ulock);
}

static void *fence_rank(void *arg)
{
	int r = (int)(long)arg, e, q;

	for (e = 1; e <= EPOCHS; e++) {
		__atomic_store_n(&arrived[r], e, __ATOMIC_RELAXED);
		if (mpirma_win_counters_fence(&wins[r]))
			bad[r]++;
		for (q = 0; q < RANKS; q++)
			if (__atomic_load_n(&arrived[q], __ATOMIC_RELAXED) < e)
				bad[r]++;
	}
	return NULL;
}

/*
 * Epoch e: rank r exposes itself to r - 1 and r - 2 and accesses r + 1
 * and r + 2, putting e into their data[][r]; before the post it checks
 * what the previous epoch's origins put.
 */
static void *pscw_rank(void *arg)
{
	uint32_t r = (uint32_t)(long)arg, n = RANKS, o[2], t[2];
	struct mpirma_window *w = &wins[r];
	int e, i, ret;

	o[0] = (r + n - 1) % n;
	o[1] = (r + n - 2) % n;
	t[0] = (r + 1) % n;
	t[1] = (r + 2) % n;
	for (e = 1; e <= EPOCHS; e++) {
		memset(w->in_post, 0, n);
		w->in_post[o[0]] = w->in_post[o[1]] = 1;
		mpirma_win_counters_post(w, o, 2);
		if (mpirma_win_counters_start(w, t, 2))
			bad[r]++;
		memset(w->in_start, 0, n);
		for (i = 0; i < 2; i++) {
			w->in_start[t[i]] = 1;
			data[t[i]][r] = e;
		}
		mpirma_win_counters_complete(w);
		/* Every other epoch tests until the completes are in. */
		if (e % 2)
			while ((ret = mpirma_win_counters_wait(w, true)) ==
			       -EAGAIN)
				sched_yield();
		else
			ret = mpirma_win_counters_wait(w, false);
		if (ret || data[r][o[0]] != e || data[r][o[1]] != e)
			bad[r]++;
	}
	return NULL;
}

static void run(void *(*fn)(void *), int nthreads)
{
	pthread_t th[RANKS];
	long r;

	for (r = 0; r < nthreads; r++)
		pthread_create(&th[r], NULL, fn, (void *)r);
	for (r = 0; r < nthreads; r++)
		pthread_join(th[r], NULL);
}

static void test_fence_pscw(void)
{
	int r;

	setup();
	check(wins[0].counters != NULL, "the area is used", 0, 0);
	memset(bad, 0, sizeof(bad));
	run(fence_rank, RANKS);
	for (r = 0; r < RANKS; r++)
		check(!bad[r], "fence: nobody leaves early", r, bad[r]);
	memset(bad, 0, sizeof(bad));
	run(pscw_rank, RANKS);
	for (r = 0; r < RANKS; r++)
		check(!bad[r], "pscw: matched, data in", r, bad[r]);
}

/* A test before any complete: not yet, and the group still waited for. */
static void test_test(void)
{
	uint32_t one = 1, zero = 0;

	setup();
	memset(wins[0].in_post, 0, RANKS);
	wins[0].in_post[1] = 1;
	mpirma_win_counters_post(&wins[0], &one, 1);
	check(mpirma_win_counters_start(&wins[1], &zero, 1) == 0,
	      "start after the post", 0, 0);
	check(mpirma_win_counters_wait(&wins[0], true) == -EAGAIN,
	      "test before the complete", 0, 0);
	check(wins[0].in_post[1] == 1, "still waited for", 0, 0);
	memset(wins[1].in_start, 0, RANKS);
	wins[1].in_start[0] = 1;
	mpirma_win_counters_complete(&wins[1]);
	check(mpirma_win_counters_wait(&wins[0], true) == 0,
	      "test after the complete", 0, 0);
}

static int dead_ret[RANKS];

static void *fence_once(void *arg)
{
	int r = (int)(long)arg;

	dead_ret[r] = mpirma_win_counters_fence(&wins[r]);
	return NULL;
}

/*
 * The last rank never comes, then leaves: every other rank's fence
 * fails, also those that never wait for it directly, and so does the
 * next one; a start on it and a wait for it fail.
 */
static void test_death(void)
{
	uint32_t dead = RANKS - 1, zero = 0, one = 1;
	pthread_t th[RANKS];
	long r;

	setup();
	for (r = 0; r < RANKS - 1; r++)
		pthread_create(&th[r], NULL, fence_once, (void *)r);
	sched_yield();
	k_leave(dead);
	for (r = 0; r < RANKS - 1; r++)
		pthread_join(th[r], NULL);
	for (r = 0; r < RANKS - 1; r++)
		check(dead_ret[r] == -EOWNERDEAD, "fence without the dead",
		      r, dead_ret[r]);
	run(fence_once, RANKS - 1);
	for (r = 0; r < RANKS - 1; r++)
		check(dead_ret[r] == -EOWNERDEAD, "the next fence", r,
		      dead_ret[r]);
	check(mpirma_win_counters_start(&wins[0], &dead, 1) != MPI_SUCCESS,
	      "start on the dead", 0, 0);
	memset(wins[0].in_post, 0, RANKS);
	wins[0].in_post[dead] = 1;
	mpirma_win_counters_post(&wins[0], &dead, 1);
	check(mpirma_win_counters_wait(&wins[0], false) == -EOWNERDEAD,
	      "wait for the dead", 0, 0);
	/* What a rank stored before it left still counts. */
	setup();
	memset(wins[1].in_post, 0, RANKS);
	wins[1].in_post[0] = 1;
	mpirma_win_counters_post(&wins[1], &zero, 1);
	k_leave(1);
	check(mpirma_win_counters_start(&wins[0], &one, 1) == MPI_SUCCESS,
	      "a post made before leaving", 0, 0);
}

int main(void)
{
	test_fence_pscw();
	test_test();
	test_death();
	printf("# %ld sleeps\n", sleeps);
	return unit_summary();
}
