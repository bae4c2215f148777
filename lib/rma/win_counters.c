// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * win_counters.c - fences and PSCW epochs on counters in the window's lock
 * table, its sync area (MPIRMA_FEAT_WSYNC; the layout is in
 * mpirma_uapi.h, DOC: user-space locks), which every rank of the window
 * maps: a signal is a store, a wait polls a word, and no message is sent.
 *
 *  - Fence: a dissemination barrier.  In round k rank r stores the number
 *    of this fence into its own round[k] and waits until rank r - 2^k's
 *    round[k] has reached it.  The numbers only grow (modulo 2^32,
 *    compared as a signed difference), so nothing is reset between fences
 *    and a partner already in the next fence counts as arrived.
 *  - PSCW: a post from target t to origin o adds one to posted[t][o], a
 *    complete from o to t one to completed[o][t]; each row is written by
 *    its own process only.  The k-th start of o on t waits for
 *    posted[t][o] to reach k, which is completed[o][t] + 1, and t's wait
 *    for completed[o][t] to reach posted[t][o].  A byte is enough: neither
 *    side's count gets more than one ahead of what the other expects.
 *  - Death: the kernel marks a rank that leaves the window gone (the first
 *    word of its line) and wakes the sleepers, so a wait on a gone rank
 *    ends with EOWNERDEAD.  A fence that has met one sets its own line's
 *    failed word, for good (a gone rank stays gone), before the signals of
 *    its later rounds, and reads its partner's after each signal: the news
 *    reaches every rank in the rounds that the arrivals do.
 *  - Sleeping: a wait polls at lib/runtime/poll.c's pace, advancing what
 *    the transport's waits advance (nonblocking collectives, receives a
 *    synchronous sender waits for; under the layer, the host; it then
 *    never sleeps), then counts itself
 *    in the area's sleepers, looks once more and sleeps until the table's
 *    seq moves (MPIRMA_IOC_WIN_LOCK_WAIT); whoever moves a counter reads
 *    sleepers after a full fence and wakes them (Dekker's order, as the
 *    locks' waits do, lib/rma/ulock.c).
 */
#include <errno.h>
#include <sched.h>

#include "runtime.h"
#include "tool.h"
#include "win.h"
#include "win_sync.h"

/* Words of a rank's line in the sync area. */
#define LINE_GONE	0	/* the kernel's: the rank has left */
#define LINE_FAILED	1	/* a fence of this rank met a gone rank */
#define LINE_ROUND	2	/* the fence barrier's round[k] */
#define LINE_ROUNDS	(64 / 4 - LINE_ROUND)

#define SC	__ATOMIC_SEQ_CST

_Static_assert((1U << LINE_ROUNDS) >= MPIRMA_ULOCK_MAX_RANKS,
	       "a round for every doubling up to the table's ranks");

static uint32_t *sleepers(const struct mpirma_window *w)
{
	return (uint32_t *)w->counters;
}

static uint32_t *line_of(const struct mpirma_window *w, uint32_t r)
{
	uint64_t n = (uint64_t)w->size;

	return (uint32_t *)(w->counters + MPIRMA_ULOCK_SYNC_LINE(n, r) -
			    MPIRMA_ULOCK_SYNC(n));
}

static uint8_t *posted_at(const struct mpirma_window *w, uint32_t t,
			  uint32_t o)
{
	uint64_t n = (uint64_t)w->size;

	return (uint8_t *)w->counters + MPIRMA_ULOCK_POSTED(n) -
	       MPIRMA_ULOCK_SYNC(n) + t * n + o;
}

static uint8_t *completed_at(const struct mpirma_window *w, uint32_t o,
			     uint32_t t)
{
	uint64_t n = (uint64_t)w->size;

	return (uint8_t *)w->counters + MPIRMA_ULOCK_COMPLETED(n) -
	       MPIRMA_ULOCK_SYNC(n) + o * n + t;
}

/* win_sync.h */
void mpirma_win_counters_map(struct mpirma_window *w)
{
	uint64_t n = (uint64_t)w->size;

	w->counters = NULL;
	if ((mpirma_proc.query.features & MPIRMA_FEAT_WSYNC) && w->ulock.map &&
	    w->ulock.map_len >= MPIRMA_ULOCK_TABLE_SIZE(n))
		w->counters = (char *)w->ulock.map + MPIRMA_ULOCK_SYNC(n);
}

/* A counter, one word or one byte, has reached @want. */
static bool reached(const void *word, bool byte, uint32_t want)
{
	if (byte)
		return (int8_t)(uint8_t)(__atomic_load_n((const uint8_t *)word,
							 __ATOMIC_ACQUIRE) -
					 want) >= 0;
	return (int32_t)(__atomic_load_n((const uint32_t *)word,
					 __ATOMIC_ACQUIRE) - want) >= 0;
}

static bool gone(const struct mpirma_window *w, uint32_t r)
{
	return __atomic_load_n(&line_of(w, r)[LINE_GONE], __ATOMIC_ACQUIRE);
}

/*
 * What every wait of the transport advances (mpirma_poll_progress()), and
 * under the hybrid layer the host's progress: a peer may wait for it
 * before it comes to this epoch.  True while there is such work, when
 * nothing would wake a sleep on the table for its messages.
 */
static bool progress(const struct mpirma_poller *p)
{
	bool due = mpirma_poll_progress(p);

	return mpirma_poll_host(p) || due;
}

/*
 * Waits until @word (of window rank @peer) reaches @want: 0, EOWNERDEAD
 * once @peer is gone without it, -EAGAIN with @test, or -errno of a sleep.
 */
static int wait_for(struct mpirma_window *w, uint32_t peer, const void *word,
		    bool byte, uint32_t want, bool test)
{
	struct mpirma_poller p = { 0 };
	uint32_t seq;
	bool busy;
	int ret;

	for (;;) {
		if (reached(word, byte, want))
			return 0;
		/* What a peer stored before it died is there once it is gone. */
		if (gone(w, peer))
			return reached(word, byte, want) ? 0 : -EOWNERDEAD;
		if (test)
			return -EAGAIN;
		busy = progress(&p);
		if (!mpirma_poll_step(&p))
			continue;
		if (busy) {
			sched_yield();
			continue;
		}
		seq = __atomic_load_n(w->ulock.seq, SC);
		__atomic_fetch_add(sleepers(w), 1, SC);
		ret = 0;
		if (!reached(word, byte, want) && !gone(w, peer)) {
			mpirma_count(&mpirma_counters.sleeps, 1);
			ret = w->ulock.ops->sleep(&w->ulock, seq);
		}
		__atomic_fetch_sub(sleepers(w), 1, SC);
		if (ret)
			return ret;
	}
}

/* After moving counters: wake the sleepers, if there are any. */
static void moved(struct mpirma_window *w)
{
	__atomic_thread_fence(SC);
	if (__atomic_load_n(sleepers(w), __ATOMIC_RELAXED))
		w->ulock.ops->wake(&w->ulock);
}

/* win_sync.h */
int mpirma_win_counters_fence(struct mpirma_window *w)
{
	uint32_t n = (uint32_t)w->size, me = (uint32_t)w->rank, from, e;
	uint32_t *mine = line_of(w, me);
	bool bad = __atomic_load_n(&mine[LINE_FAILED], __ATOMIC_RELAXED);
	uint32_t d, k;
	int ret, err = 0;

	e = ++w->fences;
	/* The epoch's stores, streaming ones included, before the signal. */
	__atomic_thread_fence(SC);
	for (k = 0, d = 1; d < n; k++, d <<= 1) {
		__atomic_store_n(&mine[LINE_ROUND + k], e, __ATOMIC_RELEASE);
		moved(w);
		from = (me + n - d) % n;
		ret = wait_for(w, from, &line_of(w, from)[LINE_ROUND + k],
			       false, e, false);
		if (ret && !err)
			err = ret;
		if (!bad && (ret || __atomic_load_n(&line_of(w, from)[LINE_FAILED],
						    __ATOMIC_RELAXED))) {
			bad = true;
			__atomic_store_n(&mine[LINE_FAILED], 1, __ATOMIC_RELAXED);
		}
	}
	return err ? err : bad ? -EOWNERDEAD : 0;
}

/* win_sync.h */
void mpirma_win_counters_post(struct mpirma_window *w, const uint32_t *ranks,
			      uint32_t n)
{
	uint32_t me = (uint32_t)w->rank, i;
	uint8_t *c;

	/* This process's stores before any origin's access. */
	__atomic_thread_fence(SC);
	for (i = 0; i < n; i++) {
		c = posted_at(w, me, ranks[i]);
		__atomic_store_n(c, (uint8_t)(*c + 1), __ATOMIC_RELEASE);
	}
	moved(w);
}

/* win_sync.h */
int mpirma_win_counters_start(struct mpirma_window *w, const uint32_t *ranks,
			      uint32_t n)
{
	uint32_t me = (uint32_t)w->rank, i;
	int ret, first = MPI_SUCCESS;

	for (i = 0; i < n; i++) {
		ret = wait_for(w, ranks[i], posted_at(w, ranks[i], me), true,
			       (uint8_t)(*completed_at(w, me, ranks[i]) + 1),
			       false);
		if (ret && !first)
			first = mpirma_err_errno(ret, "waiting for the post of "
						 "window rank %u", ranks[i]);
	}
	return first;
}

/* win_sync.h */
void mpirma_win_counters_complete(struct mpirma_window *w)
{
	uint32_t me = (uint32_t)w->rank, t;
	uint8_t *c;

	/* The epoch's stores, streaming ones included, before the signal. */
	__atomic_thread_fence(SC);
	for (t = 0; t < (uint32_t)w->size; t++)
		if (w->in_start[t]) {
			c = completed_at(w, me, t);
			__atomic_store_n(c, (uint8_t)(*c + 1),
					 __ATOMIC_RELEASE);
		}
	moved(w);
}

/* win_sync.h */
int mpirma_win_counters_wait(struct mpirma_window *w, bool test)
{
	uint32_t me = (uint32_t)w->rank, o;
	int ret, first = 0;

	for (o = 0; o < (uint32_t)w->size; o++) {
		if (!w->in_post[o])
			continue;
		ret = wait_for(w, o, completed_at(w, o, me), true,
			       *posted_at(w, me, o), test);
		if (ret == -EAGAIN && test)
			return -EAGAIN;
		w->in_post[o] = 0;
		if (ret && !first)
			first = ret;
	}
	return first;
}
