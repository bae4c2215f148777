// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ulock.c - passive-target locks in user space, on the lock table every
 * process of a ULOCK window maps (include/mpirma_uapi.h, DOC: user-space
 * locks).  An uncontended MPI_Win_lock/MPI_Win_unlock pair is a few atomic
 * instructions and no system call; only a process that must wait enters
 * the kernel, to sleep until the table changes (kmod/ulock.c).
 *
 * The protocol, per target t (all accesses sequentially consistent but
 * the exclusive holds, which no other process's protocol reads):
 *  - word[t] names the exclusive owner (rank + 1) and has a WAITERS bit;
 *    held[o][t] is origin o's shared (or exclusive) hold, written only by
 *    o (and by the kernel when o leaves).
 *  - Exclusive: claim the owner field with a compare-and-swap (wait while
 *    another owner has it), then wait until no other origin's held[][t]
 *    says shared.  A writer owns the word while it waits, so readers that
 *    arrive meanwhile queue behind it (writer preference, as the kernel's
 *    own locks have it, so that lock_all streams cannot starve a writer).
 *  - Shared: store held[me][t], then look at the owner field; if a writer
 *    has it, take the hold back and wait.  The writer stores (its CAS)
 *    then reads the holds, the reader stores then reads the word: one of
 *    the two always sees the other (Dekker), so a reader and a writer are
 *    never both inside.
 *  - lock_all holds every target's shared lock at once or none: a lock_all
 *    that held some while it waited for others could deadlock with a writer
 *    that holds one of those and wants another.
 *  - Sleeping: read seq, set WAITERS on the word, look again, then sleep
 *    until seq moves.  Whoever changes a word or takes a hold back looks
 *    for WAITERS after the change and, when set, clears it and wakes
 *    everyone (the sleepers look again and set it again if they must).
 *    The change comes before the look and the mark before the sleeper's
 *    last look, so no wake-up is lost.
 * A rank that dies leaves nothing held: the kernel clears its held[] row
 * and the owner fields naming it, and wakes the sleepers.
 */
#include "mpirma_uapi.h"
#include "ulock.h"

#define SC	__ATOMIC_SEQ_CST

static uint32_t word_load(const struct mpirma_ulock *ul, uint32_t t)
{
	return __atomic_load_n(&ul->word[t], SC);
}

static uint8_t *held_at(const struct mpirma_ulock *ul, uint32_t o, uint32_t t)
{
	return &ul->held[(size_t)o * ul->n + t];
}

void mpirma_ulock_init(struct mpirma_ulock *ul, void *table, uint32_t n,
		       uint32_t me, const struct mpirma_ulock_ops *ops,
		       uint32_t ctx)
{
	ul->seq = table;
	ul->word = (uint32_t *)((char *)table + MPIRMA_ULOCK_WORDS);
	ul->held = (uint8_t *)table + MPIRMA_ULOCK_HELD(n);
	ul->n = n;
	ul->me = me;
	ul->ops = ops;
	ul->ctx = ctx;
}

/* A writer owns @t (possibly still waiting for its readers). */
static bool owner_taken(const struct mpirma_ulock *ul, uint32_t t)
{
	return word_load(ul, t) & MPIRMA_ULOCK_OWNER;
}

/* Another origin holds @t shared. */
static bool readers_inside(const struct mpirma_ulock *ul, uint32_t t)
{
	uint32_t o;

	for (o = 0; o < ul->n; o++)
		if (o != ul->me &&
		    __atomic_load_n(held_at(ul, o, t), SC) == MPIRMA_ULOCK_SHARED)
			return true;
	return false;
}

/* After a change to @t: wake whoever sleeps on it. */
static void wake_waiters(struct mpirma_ulock *ul, uint32_t t)
{
	if (!(word_load(ul, t) & MPIRMA_ULOCK_WAITERS))
		return;
	__atomic_fetch_and(&ul->word[t], ~MPIRMA_ULOCK_WAITERS, SC);
	ul->ops->wake(ul);
}

/* Sleep until @t changes, unless @blocked no longer holds once marked. */
static int wait_on(struct mpirma_ulock *ul, uint32_t t,
		   bool (*blocked)(const struct mpirma_ulock *, uint32_t))
{
	uint32_t seq = __atomic_load_n(ul->seq, SC);

	__atomic_fetch_or(&ul->word[t], MPIRMA_ULOCK_WAITERS, SC);
	if (!blocked(ul, t))
		return 0;
	return ul->ops->sleep(ul, seq);
}

/* Give up the owner field of @t (this process's), waking its sleepers. */
static void owner_release(struct mpirma_ulock *ul, uint32_t t)
{
	uint32_t mine = ul->me + 1;
	uint32_t w = word_load(ul, t);

	while ((w & MPIRMA_ULOCK_OWNER) == mine &&
	       !__atomic_compare_exchange_n(&ul->word[t], &w,
					    w & ~(MPIRMA_ULOCK_OWNER |
						  MPIRMA_ULOCK_WAITERS),
					    false, SC, SC))
		;
	if (w & MPIRMA_ULOCK_WAITERS)
		ul->ops->wake(ul);
}

static int lock_excl(struct mpirma_ulock *ul, uint32_t t)
{
	uint32_t w;
	int ret;

	for (;;) {
		w = word_load(ul, t);
		if (!(w & MPIRMA_ULOCK_OWNER)) {
			if (__atomic_compare_exchange_n(&ul->word[t], &w,
							w | (ul->me + 1),
							false, SC, SC))
				break;
			continue;
		}
		ret = wait_on(ul, t, owner_taken);
		if (ret)
			return ret;
	}
	while (readers_inside(ul, t)) {
		ret = wait_on(ul, t, readers_inside);
		if (ret) {
			owner_release(ul, t);
			return ret;
		}
	}
	/*
	 * Only for this process's unlock and the kernel's cleanup: no one's
	 * protocol reads an exclusive hold, and the compare-and-swap above
	 * ordered the lock already.
	 */
	__atomic_store_n(held_at(ul, ul->me, t), MPIRMA_ULOCK_EXCL,
			 __ATOMIC_RELAXED);
	return 0;
}

static int lock_shared(struct mpirma_ulock *ul, uint32_t t)
{
	uint8_t *h = held_at(ul, ul->me, t);
	int ret;

	for (;;) {
		if (!owner_taken(ul, t)) {
			__atomic_store_n(h, MPIRMA_ULOCK_SHARED, SC);
			if (!owner_taken(ul, t))
				return 0;
			/* A writer came first: it may wait for this hold. */
			__atomic_store_n(h, 0, SC);
			wake_waiters(ul, t);
		}
		ret = wait_on(ul, t, owner_taken);
		if (ret)
			return ret;
	}
}

int mpirma_ulock_lock(struct mpirma_ulock *ul, uint32_t t, bool excl)
{
	return excl ? lock_excl(ul, t) : lock_shared(ul, t);
}

void mpirma_ulock_unlock(struct mpirma_ulock *ul, uint32_t t)
{
	uint8_t *h = held_at(ul, ul->me, t);

	if (__atomic_load_n(h, __ATOMIC_RELAXED) == MPIRMA_ULOCK_EXCL) {
		/* owner_release()'s compare-and-swap orders it, and the epoch */
		__atomic_store_n(h, 0, __ATOMIC_RELAXED);
		owner_release(ul, t);
		return;
	}
	__atomic_store_n(h, 0, SC);
	wake_waiters(ul, t);
}

/* The first target a writer owns, or n. */
static uint32_t first_owned(const struct mpirma_ulock *ul)
{
	uint32_t t;

	for (t = 0; t < ul->n; t++)
		if (owner_taken(ul, t))
			return t;
	return ul->n;
}

void mpirma_ulock_unlock_all(struct mpirma_ulock *ul)
{
	bool wake = false;
	uint32_t t;

	/* release stores: the epoch's accesses come before them */
	for (t = 0; t < ul->n; t++)
		__atomic_store_n(held_at(ul, ul->me, t), 0, __ATOMIC_RELEASE);
	__atomic_thread_fence(SC);
	for (t = 0; t < ul->n; t++) {
		if (word_load(ul, t) & MPIRMA_ULOCK_WAITERS) {
			__atomic_fetch_and(&ul->word[t], ~MPIRMA_ULOCK_WAITERS, SC);
			wake = true;
		}
	}
	if (wake)
		ul->ops->wake(ul);
}

int mpirma_ulock_lock_all(struct mpirma_ulock *ul)
{
	uint32_t t, blocked;
	int ret;

	for (;;) {
		blocked = first_owned(ul);
		if (blocked == ul->n) {
			for (t = 0; t < ul->n; t++)
				__atomic_store_n(held_at(ul, ul->me, t),
						 MPIRMA_ULOCK_SHARED, __ATOMIC_RELAXED);
			__atomic_thread_fence(SC);
			blocked = first_owned(ul);
			if (blocked == ul->n)
				return 0;
			mpirma_ulock_unlock_all(ul);
		}
		ret = wait_on(ul, blocked, owner_taken);
		if (ret)
			return ret;
	}
}
