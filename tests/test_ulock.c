// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Host unit test of the user-space lock protocol (lib/rma/ulock.c), no
 * kernel: threads play the ranks of one window on a lock table in plain
 * memory, and a condition variable plays MPIRMA_IOC_WIN_LOCK_WAIT.  Checks
 * that exclusive holders exclude everyone, shared holders run together,
 * lock_all is all or nothing, contended waiters are woken (the test ends),
 * and that a rank cleaned up as the kernel does when a process dies
 * releases what it held.  Also run under ThreadSanitizer.
 *
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/rma/ulock.c"

#include "fake_lockwait.h"
#include "unit_check.h"

/* What kmod/ulock.c does when window rank @wr leaves. */
static void k_release_rank(struct mpirma_ulock *ul, uint32_t wr)
{
	uint32_t t;

	for (t = 0; t < ul->n; t++) {
		uint32_t w = __atomic_load_n(&ul->word[t], __ATOMIC_SEQ_CST);

		__atomic_store_n(held_at(ul, wr, t), 0, __ATOMIC_SEQ_CST);
		while ((w & MPIRMA_ULOCK_OWNER) == wr + 1 &&
		       !__atomic_compare_exchange_n(&ul->word[t], &w,
						    w & ~MPIRMA_ULOCK_OWNER,
						    false, __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST))
			;
	}
	k_wake(ul);
}

#define RANKS	4
#define ROUNDS	3000

static uint64_t table[(MPIRMA_ULOCK_TABLE_SIZE(RANKS) + 7) / 8];
static uint64_t counter;		/* rank 0's memory */
static int inside_excl, inside_shared, max_shared, violations;

struct rank {
	struct mpirma_ulock ul;
	pthread_t th;
};

static struct rank ranks[RANKS];

static bool table_word_clear(uint32_t t);

static void *mixed(void *arg)
{
	struct rank *r = arg;
	int i, n;

	for (i = 0; i < ROUNDS; i++) {
		uint32_t t = (uint32_t)i % 2;	/* targets 0 and 1 */

		if (mpirma_ulock_lock(&r->ul, t, true))
			__atomic_add_fetch(&violations, 1, __ATOMIC_SEQ_CST);
		if (t == 0) {
			if (__atomic_add_fetch(&inside_excl, 1, __ATOMIC_SEQ_CST) != 1 ||
			    __atomic_load_n(&inside_shared, __ATOMIC_SEQ_CST))
				__atomic_add_fetch(&violations, 1, __ATOMIC_SEQ_CST);
			/* a plain read-modify-write: safe only if exclusive */
			__atomic_store_n(&counter, __atomic_load_n(&counter,
				__ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
			if (i % 16 == 0)
				sched_yield();
			__atomic_sub_fetch(&inside_excl, 1, __ATOMIC_SEQ_CST);
		}
		mpirma_ulock_unlock(&r->ul, t);

		if (i % 5 == 4) {
			if (mpirma_ulock_lock_all(&r->ul))
				__atomic_add_fetch(&violations, 1, __ATOMIC_SEQ_CST);
		} else if (mpirma_ulock_lock(&r->ul, 0, false)) {
			__atomic_add_fetch(&violations, 1, __ATOMIC_SEQ_CST);
		}
		n = __atomic_add_fetch(&inside_shared, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&inside_excl, __ATOMIC_SEQ_CST))
			__atomic_add_fetch(&violations, 1, __ATOMIC_SEQ_CST);
		if (n > __atomic_load_n(&max_shared, __ATOMIC_SEQ_CST))
			__atomic_store_n(&max_shared, n, __ATOMIC_SEQ_CST);
		if (i % 16 == 1)
			sched_yield();
		__atomic_sub_fetch(&inside_shared, 1, __ATOMIC_SEQ_CST);
		if (i % 5 == 4)
			mpirma_ulock_unlock_all(&r->ul);
		else
			mpirma_ulock_unlock(&r->ul, 0);
	}
	return NULL;
}

static void init_ranks(void)
{
	uint32_t k;

	memset(table, 0, sizeof(table));
	for (k = 0; k < RANKS; k++)
		mpirma_ulock_init(&ranks[k].ul, table, RANKS, k, &k_ops, 0);
}

static void test_mixed(void)
{
	uint32_t k, t;

	init_ranks();
	for (k = 0; k < RANKS; k++)
		pthread_create(&ranks[k].th, NULL, mixed, &ranks[k]);
	for (k = 0; k < RANKS; k++)
		pthread_join(ranks[k].th, NULL);
	check(counter == (uint64_t)RANKS * ROUNDS / 2, "exclusive increments",
	      (long)counter, RANKS * ROUNDS / 2);
	check(violations == 0, "no one beside an exclusive holder",
	      violations, 0);
	check(max_shared >= 1 && max_shared <= RANKS, "shared holders",
	      max_shared, RANKS);
	for (t = 0; t < RANKS; t++)
		check(table_word_clear(t), "nothing left owned", t, 0);
	printf("# mixed: %ld sleeps, up to %d shared holders at once\n",
	      sleeps, max_shared);
}

static bool table_word_clear(uint32_t t)
{
	uint32_t k;

	if (__atomic_load_n(&ranks[0].ul.word[t], __ATOMIC_SEQ_CST) &
	    MPIRMA_ULOCK_OWNER)
		return false;
	for (k = 0; k < RANKS; k++)
		if (*held_at(&ranks[0].ul, k, t))
			return false;
	return true;
}

/* A waiter blocked behind rank 1, which "dies": the cleanup frees it. */
static int got;

static void *waiter(void *arg)
{
	struct rank *r = arg;

	if (!mpirma_ulock_lock(&r->ul, 0, true)) {
		__atomic_store_n(&got, 1, __ATOMIC_SEQ_CST);
		mpirma_ulock_unlock(&r->ul, 0);
	}
	return NULL;
}

static void test_death(bool excl, bool all)
{
	init_ranks();
	got = 0;
	if (all)
		check(!mpirma_ulock_lock_all(&ranks[1].ul), "lock_all", 0, 0);
	else
		check(!mpirma_ulock_lock(&ranks[1].ul, 0, excl), "lock", 0, 0);
	pthread_create(&ranks[0].th, NULL, waiter, &ranks[0]);
	/* Rank 0 waits: as an owner behind a reader, or for the owner. */
	while (!(__atomic_load_n(&ranks[1].ul.word[0], __ATOMIC_SEQ_CST) &
		 MPIRMA_ULOCK_WAITERS))
		sched_yield();
	check(!__atomic_load_n(&got, __ATOMIC_SEQ_CST), "waits for the holder",
	      got, 0);
	k_release_rank(&ranks[1].ul, 1);
	pthread_join(ranks[0].th, NULL);
	check(got == 1, "the holder's death frees the lock", got, 1);
	check(table_word_clear(0), "nothing left owned", 0, 0);
}

int main(void)
{
	test_mixed();
	test_death(true, false);
	test_death(false, false);
	test_death(false, true);
	return unit_summary();
}
