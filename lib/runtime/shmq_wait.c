// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * shmq_wait.c - waiting for units of the shared-memory queues (shmq.h).
 *
 * A wait polls the rings at the pace of lib/runtime/poll.c, then sleeps in
 * the kernel on a bell:
 * it raises rx_sleeps in each ring it waits on, looks once more, and
 * sleeps in MPIRMA_IOC_MSG_RECV on the bell context; a sender that
 * publishes a unit into such a ring and takes the flag down rings the
 * bell, a zero-byte kernel message (Dekker's order: each side writes its
 * own word, a full fence, then reads the other's).  A flag taken down by
 * a sender after the sleeper woke anyway leaves a bell behind, counted in
 * shmq.bells_due and taken before the next sleep.  The kernel wait fails
 * with EOWNERDEAD when the rank waited for (for any source: any rank) is
 * gone, so a dead peer ends a wait with an error, never a hang.
 *
 * With MPI_THREAD_MULTIPLE waits poll and pause without the library lock
 * instead (another thread may take what a bell announced and leave the
 * sleeper asleep), and ask the kernel now and then whether the peer lives.
 */
#include <errno.h>
#include <sched.h>

#include "shmq.h"
#include "tool.h"

#define LIVE_EVERY	256	/* unsleeping waits: looks between liveness checks */

void shmq_bell_ring(uint32_t peer)
{
	uint32_t *f = &shmq_ring_of(peer, shmq.me)->rx_sleeps;

	shmq_fence();
	if (__atomic_load_n(f, __ATOMIC_RELAXED) &&
	    __atomic_exchange_n(f, 0, __ATOMIC_ACQ_REL))
		shmq_kmsg_send(peer, 0, SHMQ_BELL_CTX, NULL, 0);
}

/* shmq.h */
bool shmq_spin(uint32_t peer)
{
	const uint64_t *sent = &shmq_ring_of(shmq.me, peer)->sent;
	uint64_t due = shmq.next[peer];
	int i;

	if (!mpirma_poll_flat())
		return false;
	for (i = 0; i < MPIRMA_FLAT_LOOKS; i++)
		if (__atomic_load_n(sent, __ATOMIC_ACQUIRE) >= due)
			return true;
	return false;
}

bool shmq_peer_gone(uint32_t peer)
{
	struct mpirma_msg m;

	return shmq_kmsg_recv(MPIRMA_MSG_NOWAIT | MPIRMA_MSG_PEEK, peer,
			      MPIRMA_ANY_TAG, SHMQ_BELL_CTX, NULL, 0, &m) ==
	       -EOWNERDEAD;
}

/* Sleeps until a bell from @peer comes, once stale bells are taken. */
static int bell_wait(uint32_t peer)
{
	struct mpirma_msg m;
	int ret;

	while (shmq.bells_due > 0 &&
	       !shmq_kmsg_recv(MPIRMA_MSG_NOWAIT, MPIRMA_ANY_SOURCE,
			       MPIRMA_ANY_TAG, SHMQ_BELL_CTX, NULL, 0, &m))
		shmq.bells_due--;
	ret = shmq_kmsg_recv(0, peer, MPIRMA_ANY_TAG, SHMQ_BELL_CTX, NULL, 0,
			     &m);
	if (!ret)
		shmq.bells_due--;
	return ret;
}

/* Sleeps until @peer's ring (any ring) may have a unit.  0 or -errno. */
static int sleep_round(uint32_t peer)
{
	uint32_t lo = peer == MPIRMA_ANY_SOURCE ? 0 : peer;
	uint32_t hi = peer == MPIRMA_ANY_SOURCE ? shmq.n : peer + 1;
	bool ready = false;
	uint32_t s;
	int ret = 0;

	for (s = lo; s < hi; s++)
		__atomic_store_n(&shmq_ring_of(shmq.me, s)->rx_sleeps, 1,
				 __ATOMIC_RELAXED);
	shmq_fence();
	for (s = lo; s < hi && !ready; s++)
		ready = shmq_unit_ready(s);
	if (!ready) {
		mpirma_counters.sleeps++;
		ret = bell_wait(peer);
	}
	/* A flag a sender took down means a bell on its way. */
	for (s = lo; s < hi; s++)
		if (!__atomic_exchange_n(&shmq_ring_of(shmq.me, s)->rx_sleeps,
					 0, __ATOMIC_ACQ_REL))
			shmq.bells_due++;
	return ret;
}

int shmq_wait_round(struct mpirma_poller *w, uint32_t peer)
{
	/* under the layer: the host advances, and a sleep would miss it */
	bool awake = mpirma_poll_host(w);

	if (mpirma_poll_step(w)) {
		if (!awake)
			return sleep_round(peer);
		sched_yield();
	}
	if ((mpirma_threads || awake) && !(w->rounds % LIVE_EVERY) &&
	    shmq_peer_gone(peer))
		return -EOWNERDEAD;
	return 0;
}
