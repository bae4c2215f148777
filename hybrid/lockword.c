// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * lockword.c - the lock of one process's part of a window that spans
 * nodes, as a 64-bit word in memory the node's processes share (the
 * words themselves: agent_slots.c).  Node-local origins, the process
 * itself among them, take it with atomic instructions and no message; the
 * process's agent takes it for origins of other nodes, whose waiting
 * requests it keeps in arrival order (agent_slots.c).
 *
 * The word: EXCL (one holder), the count of shared holders, the count of
 * node-local origins waiting, HY_LW_AGENT (the agent has requests waiting:
 * a release that finds it tells the agent, origin.c's HY_KIND_RETRY) and
 * FIRST (the agent takes the lock next).  The turns:
 *  - a new node-local request takes the lock only when nobody waits, so a
 *    shared one does not overtake a waiting exclusive one;
 *  - node-local waiters take it as it frees, unless FIRST;
 *  - the agent, which cannot poll, takes it for a new request only when
 *    nobody waits, and before the waiters at a release it is told of;
 *    when a holder keeps its oldest request out it sets FIRST and so
 *    takes it at that holder's release.  Where only waiters keep it out
 *    it sets no FIRST: they take it, and their release tells the agent.
 *
 * No locks of the layer's; pure atomics (tests/test_hy_lockword.c).
 */
#include "lockword.h"
#include "wire.h"

#define LW_EXCL		(1ULL << 63)
#define LW_FIRST	(1ULL << 61)
#define LW_WAITER	(1ULL << 32)	/* one node-local origin waits */
#define LW_WAITERS	(((1ULL << 29) - 1) << 32)
#define LW_SHARED	0xffffffffULL	/* the shared holders' count */

static bool fits(uint64_t v, int type)
{
	return !(v & LW_EXCL) &&
	       (type == HY_LOCK_SHARED || !(v & LW_SHARED));
}

static uint64_t taken(uint64_t v, int type)
{
	return type == HY_LOCK_EXCL ? v | LW_EXCL : v + 1;
}

static bool cas(uint64_t *w, uint64_t *v, uint64_t to)
{
	return __atomic_compare_exchange_n(w, v, to, false, __ATOMIC_ACQ_REL,
					   __ATOMIC_ACQUIRE);
}

bool hy_lw_try(uint64_t *w, int type)
{
	uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);

	while (!(v & (LW_WAITERS | HY_LW_AGENT | LW_FIRST)) && fits(v, type))
		if (cas(w, &v, taken(v, type)))
			return true;
	return false;
}

void hy_lw_enqueue(uint64_t *w)
{
	__atomic_add_fetch(w, LW_WAITER, __ATOMIC_ACQ_REL);
}

bool hy_lw_try_queued(uint64_t *w, int type)
{
	uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);

	while (!(v & LW_FIRST) && fits(v, type))
		if (cas(w, &v, taken(v, type) - LW_WAITER))
			return true;
	return false;
}

uint64_t hy_lw_release(uint64_t *w)
{
	uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);

	for (;;) {
		uint64_t to = v & LW_EXCL ? v & ~LW_EXCL :
			      v & LW_SHARED ? v - 1 : v;

		if (to == v || cas(w, &v, to))
			return v;
	}
}

bool hy_lw_agent_take(uint64_t *w, int type, bool defer)
{
	uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);

	for (;;) {
		bool fit = fits(v, type);
		uint64_t to;

		if (fit && (!defer || (v & LW_FIRST) || !(v & LW_WAITERS))) {
			if (cas(w, &v, taken(v, type) & ~LW_FIRST))
				return true;
			continue;
		}
		/* a holder keeps it out: it goes first at that release */
		to = v | HY_LW_AGENT | (fit ? 0 : LW_FIRST);
		if (to == v || cas(w, &v, to))
			return false;
	}
}

void hy_lw_agent_idle(uint64_t *w)
{
	__atomic_and_fetch(w, ~(HY_LW_AGENT | LW_FIRST), __ATOMIC_ACQ_REL);
}

void hy_lw_reset(uint64_t *w)
{
	__atomic_store_n(w, 0, __ATOMIC_RELEASE);
}
