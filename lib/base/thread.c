// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * thread.c - the library lock of MPI_THREAD_MULTIPLE (internal.h,
 * "Thread level").  One mutex serializes the library's state; each thread
 * counts how deep it holds it, so that an API call made inside another
 * (the library calls PMPI_X itself, a user's callback calls MPI) does not
 * take it twice.  A call that waits lets go of it entirely meanwhile.
 * Below MPI_THREAD_MULTIPLE every entry point only tests mpirma_threads.
 */
#include <pthread.h>
#include <sched.h>
#include <time.h>

#include "internal.h"

bool mpirma_threads;

/* The library's state: every handle table, object and queue. */
static pthread_mutex_t library_lock = PTHREAD_MUTEX_INITIALIZER;
/*
 * How deep this thread holds library_lock (0: not at all).  The thread
 * variables are initial-exec: in a shared library the default model calls
 * __tls_get_addr() at every use, on every RMA call with threads.
 */
static __thread int depth __attribute__((tls_model("initial-exec")));

int mpirma_guard_enter(void)
{
	if (!mpirma_threads)
		return 0;
	if (!depth++)
		pthread_mutex_lock(&library_lock);
	return 1;
}

void mpirma_guard_leave(const int *entered)
{
	if (*entered && !--depth)
		pthread_mutex_unlock(&library_lock);
}

unsigned long mpirma_lock_drops;

/* The layer's (mpirma_set_wait_hook(), rma_args.h); NULL standalone. */
static void (*wait_hook)(bool waiting);

void mpirma_set_wait_hook(void (*fn)(bool waiting))
{
	wait_hook = fn;
}

int mpirma_unlock_all(void)
{
	int d = depth;

	if (d) {
		mpirma_lock_drops++;
		depth = 0;
		pthread_mutex_unlock(&library_lock);
		if (wait_hook)
			wait_hook(true);
	}
	return d;
}

/* The layer's lock first: it nests outside the library's. */
void mpirma_relock(int d)
{
	if (d) {
		if (wait_hook)
			wait_hook(false);
		pthread_mutex_lock(&library_lock);
		depth = d;
	}
}

/* The layer's (mpirma_set_block_hook(), rma_args.h); NULL standalone. */
static void (*block_hook)(int delta);

void mpirma_set_block_hook(void (*fn)(int delta))
{
	block_hook = fn;
}

int mpirma_ioctl_wait(unsigned long cmd, void *arg)
{
	int d = mpirma_unlock_all(), ret;

	if (block_hook)
		block_hook(1);
	ret = mpirma_ioctl(cmd, arg);
	if (block_hook)
		block_hook(-1);
	mpirma_relock(d);
	return ret;
}

void mpirma_wait_pause(int *spins)
{
	struct timespec ts = { 0, 0 };
	int d = mpirma_unlock_all(), shift;

	if (++*spins < 64) {
		sched_yield();
	} else {
		shift = (*spins - 64) / 16;
		ts.tv_nsec = 1000L << (shift > 10 ? 10 : shift);
		nanosleep(&ts, NULL);
	}
	mpirma_relock(d);
}

int mpirma_thread_index(void)
{
	static int next;
	static __thread int index __attribute__((tls_model("initial-exec"))) = -1;

	if (index < 0)
		index = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
	return index;
}
