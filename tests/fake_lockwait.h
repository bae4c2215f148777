/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fake_lockwait.h - MPIRMA_IOC_WIN_LOCK_WAIT without a kernel, for the
 * host unit tests of the lock table's protocols (test_ulock.c,
 * test_win_counters.c): a sleep waits on a condition variable until the
 * table's seq moves, a wake bumps it and wakes every sleeper.  Included
 * once per test program, after lib/rma/ulock.h.
 */
#ifndef MPIRMA_FAKE_LOCKWAIT_H
#define MPIRMA_FAKE_LOCKWAIT_H

#include <pthread.h>

static pthread_mutex_t kmutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t kcond = PTHREAD_COND_INITIALIZER;
static long sleeps;	/* under kmutex */

static int k_sleep(struct mpirma_ulock *ul, uint32_t seq)
{
	pthread_mutex_lock(&kmutex);
	sleeps++;
	while (__atomic_load_n(ul->seq, __ATOMIC_SEQ_CST) == seq)
		pthread_cond_wait(&kcond, &kmutex);
	pthread_mutex_unlock(&kmutex);
	return 0;
}

static void k_wake(struct mpirma_ulock *ul)
{
	pthread_mutex_lock(&kmutex);
	__atomic_add_fetch(ul->seq, 1, __ATOMIC_SEQ_CST);
	pthread_cond_broadcast(&kcond);
	pthread_mutex_unlock(&kmutex);
}

static const struct mpirma_ulock_ops k_ops = { k_sleep, k_wake };

#endif /* MPIRMA_FAKE_LOCKWAIT_H */
