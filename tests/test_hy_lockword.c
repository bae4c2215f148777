// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host unit test of the lock words of windows that span nodes
 * (hybrid/lockword.c): shared and exclusive holders, a new request behind
 * waiting ones, the agent's flag and its turn, and a stress of threads as
 * node-local origins beside one as the agent, whose takes wait for the
 * releases that tell it (as HY_KIND_RETRY does), checking mutual exclusion
 * and that everyone finishes.
 *
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#include <pthread.h>
#include <sched.h>

#include "../hybrid/lockword.c"

#include "unit_check.h"

#define S HY_LOCK_SHARED
#define X HY_LOCK_EXCL

static void holders(void)
{
	uint64_t w = 0;

	check(hy_lw_try(&w, S) && hy_lw_try(&w, S), "two shared", 1, 1);
	check(!hy_lw_try(&w, X), "exclusive beside shared", 0, 0);
	hy_lw_release(&w);
	hy_lw_release(&w);
	check(w == 0, "shared released", (long)w, 0);
	check(hy_lw_try(&w, X), "exclusive", 1, 1);
	check(!hy_lw_try(&w, S) && !hy_lw_try(&w, X), "held exclusive", 0, 0);
	hy_lw_release(&w);
	check(w == 0, "exclusive released", (long)w, 0);
}

static void waiters(void)
{
	uint64_t w = 0;

	hy_lw_try(&w, X);
	hy_lw_enqueue(&w);		/* an exclusive request waits */
	check(!hy_lw_try_queued(&w, X), "waiter while held", 0, 0);
	hy_lw_release(&w);
	check(!hy_lw_try(&w, S), "new shared behind a waiter", 0, 0);
	check(hy_lw_try_queued(&w, X), "waiter takes it", 1, 1);
	hy_lw_release(&w);
	check(w == 0, "waiter released", (long)w, 0);
}

static void agent(void)
{
	uint64_t w = 0, old;

	/* a node-local holder keeps the agent's new request out */
	hy_lw_try(&w, S);
	check(!hy_lw_agent_take(&w, X, true), "agent behind a holder", 0, 0);
	check(!hy_lw_try(&w, S), "new request behind the agent", 0, 0);
	hy_lw_enqueue(&w);
	old = hy_lw_release(&w);
	check((old & HY_LW_AGENT) != 0, "release tells the agent", 1, 1);
	check(!hy_lw_try_queued(&w, S), "waiter behind the agent", 0, 0);
	check(hy_lw_agent_take(&w, X, false), "agent at the release", 1, 1);
	check(!hy_lw_try_queued(&w, S), "waiter behind the holder", 0, 0);
	hy_lw_release(&w);
	/* after its turn the agent defers to the waiter */
	check(!hy_lw_agent_take(&w, X, true), "agent defers to a waiter",
	      0, 0);
	check(hy_lw_try_queued(&w, S), "waiter's turn", 1, 1);
	old = hy_lw_release(&w);
	check((old & HY_LW_AGENT) != 0, "waiter's release tells it", 1, 1);
	check(hy_lw_agent_take(&w, X, false), "agent again", 1, 1);
	hy_lw_release(&w);
	hy_lw_agent_idle(&w);
	check(w == 0, "all released", (long)w, 0);
}

/* The stress: node-local threads and the agent on one word. */
#define LOCALS	3
#define ROUNDS	20000

static uint64_t word;
static int excl_in, shared_in, pokes, bad;

static void section(int type)
{
	if (type == X) {
		if (__atomic_add_fetch(&excl_in, 1, __ATOMIC_SEQ_CST) != 1 ||
		    __atomic_load_n(&shared_in, __ATOMIC_SEQ_CST))
			__atomic_store_n(&bad, 1, __ATOMIC_SEQ_CST);
		__atomic_sub_fetch(&excl_in, 1, __ATOMIC_SEQ_CST);
	} else {
		__atomic_add_fetch(&shared_in, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&excl_in, __ATOMIC_SEQ_CST))
			__atomic_store_n(&bad, 1, __ATOMIC_SEQ_CST);
		__atomic_sub_fetch(&shared_in, 1, __ATOMIC_SEQ_CST);
	}
}

static void release(void)
{
	if (hy_lw_release(&word) & HY_LW_AGENT)
		__atomic_add_fetch(&pokes, 1, __ATOMIC_SEQ_CST);
}

static void *local(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < ROUNDS; i++) {
		int type = (i + id) % 3 ? S : X;

		if (!hy_lw_try(&word, type)) {
			hy_lw_enqueue(&word);
			while (!hy_lw_try_queued(&word, type))
				sched_yield();
		}
		section(type);
		release();
	}
	return NULL;
}

/* One request at a time, as an agent with one remote origin. */
static void *remote(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS / 4; i++) {
		int type = i % 2 ? S : X, seen;
		bool defer = true;	/* a new request */

		seen = __atomic_load_n(&pokes, __ATOMIC_SEQ_CST);
		while (!hy_lw_agent_take(&word, type, defer)) {
			while (__atomic_load_n(&pokes, __ATOMIC_SEQ_CST) == seen)
				sched_yield();
			seen = __atomic_load_n(&pokes, __ATOMIC_SEQ_CST);
			defer = false;
		}
		hy_lw_agent_idle(&word);
		section(type);
		hy_lw_release(&word);
	}
	return NULL;
}

static void stress(void)
{
	pthread_t th[LOCALS + 1];

	for (long k = 0; k < LOCALS; k++)
		pthread_create(&th[k], NULL, local, (void *)k);
	pthread_create(&th[LOCALS], NULL, remote, NULL);
	for (int k = 0; k <= LOCALS; k++)
		pthread_join(th[k], NULL);
	check(!bad, "mutual exclusion", bad, 0);
	check(word == 0, "word clear at the end", (long)word, 0);
}

int main(void)
{
	holders();
	waiters();
	agent();
	stress();
	return unit_summary();
}
