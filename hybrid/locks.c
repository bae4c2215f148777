// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * locks.c - the lock-order checker of locks.h: each thread keeps the locks
 * it holds, and a take of a lock whose rank is not above every one of them
 * aborts with both names.  Uses no MPI (tests/test_hy_locks.c runs it
 * alone).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locks.h"

#define HY_HELD_MAX	8	/* locks one thread holds at once, at most */

bool hy_lock_check;

static const char *const lock_names[] = {
	[HY_LOCK_STATE] = "hy.lock (engine and window table)",
	[HY_LOCK_SPAN] = "hy_span.lock (batches and pending replies)",
	[HY_LOCK_SERVE] = "serve lock (the agent's serving)",
	[HY_LOCK_SLOTS] = "slots lock (the agent's slots and locks)",
	[HY_LOCK_NET_CONN] = "connection lock (net.c: writes, queue)",
	[HY_LOCK_NET_RX] = "receive lock (net_io.c: posted receives)",
	[HY_LOCK_KEYVALS] = "keyvals lock (the window keyvals' list)",
	[HY_LOCK_PARK] = "park lock (the agent's rest)",
};

/* Initial-exec: a shared library's default model calls __tls_get_addr. */
static __thread struct {
	const struct hy_mutex *lock[HY_HELD_MAX];
	int n;
} held __attribute__((tls_model("initial-exec")));

static const char *lock_name(const struct hy_mutex *m)
{
	size_t r = (size_t)m->rank;

	return r < sizeof(lock_names) / sizeof(lock_names[0]) && lock_names[r] ?
	       lock_names[r] : "an unranked lock";
}

static void __attribute__((noreturn)) order_broken(const char *what,
						   const struct hy_mutex *m,
						   const struct hy_mutex *h)
{
	fprintf(stderr, "mpirma: lock order (hybrid/locks.h): %s %s (rank "
		"%d) while holding %s (rank %d)\n", what, lock_name(m),
		m->rank, lock_name(h), h->rank);
	fflush(stderr);
	abort();
}

void hy_locks_init(void)
{
	const char *v = getenv("MPIRMA_LOCK_CHECK");

	hy_lock_check = v && strcmp(v, "0") && *v;
}

void hy_mutex_init(struct hy_mutex *m, enum hy_lock_rank rank)
{
	pthread_mutex_init(&m->m, NULL);
	m->rank = rank;
}

void hy_mutex_destroy(struct hy_mutex *m)
{
	pthread_mutex_destroy(&m->m);
}

void hy_lock_check_take(const struct hy_mutex *m)
{
	for (int k = 0; k < held.n; k++)
		if (held.lock[k]->rank >= m->rank)
			order_broken("taking", m, held.lock[k]);
	hy_lock_check_held(m);
}

void hy_lock_check_held(const struct hy_mutex *m)
{
	if (held.n == HY_HELD_MAX) {
		fprintf(stderr, "mpirma: lock order: more than %d locks held "
			"at once, taking %s\n", HY_HELD_MAX, lock_name(m));
		abort();
	}
	held.lock[held.n++] = m;
}

void hy_lock_check_drop(const struct hy_mutex *m)
{
	for (int k = held.n - 1; k >= 0; k--)
		if (held.lock[k] == m) {
			memmove(&held.lock[k], &held.lock[k + 1],
				sizeof(held.lock[0]) * (size_t)(held.n - k - 1));
			held.n--;
			return;
		}
	/* Released without the checker's knowing: taken before it ran. */
}

void hy_lock_check_assert(const struct hy_mutex *m)
{
	for (int k = 0; k < held.n; k++)
		if (held.lock[k] == m)
			return;
	fprintf(stderr, "mpirma: lock order: %s is not held here\n",
		lock_name(m));
	fflush(stderr);
	abort();
}
