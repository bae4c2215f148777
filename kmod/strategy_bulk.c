// SPDX-License-Identifier: GPL-2.0
/*
 * MPIRMA_ATOM_BULK: one lock per target rank, a word of the window's lock
 * table (ulock.c; DOC: user-space locks in mpirma_uapi.h, update[]) that the
 * library's direct path takes too.  Whoever holds it runs the reduction
 * engine's loop over the whole run of elements with plain loads and stores,
 * where MPIRMA_ATOM_NATIVE pays a locked instruction per element: one
 * acquisition costs what one atomic element update does, and every further
 * element is only its arithmetic.  Any element size and alignment is
 * served the same way.
 *
 * The word lives in memory the job's processes write, so the kernel trusts
 * it no more than the rest of the table: it waits for it holding nothing,
 * spinning a little, then yielding, then sleeping 20-100 us at a time (a
 * holder off its CPU is back within a time slice; a tick would add
 * milliseconds), and gives up when its caller gets a fatal signal.  That
 * caller never returns to user space, so the update it skips is never seen
 * (rma.c returns EINTR);
 * a word left held or scribbled on makes the job's own accumulates wait,
 * never the kernel hang.  The kernel holds the word for one update of at
 * most MPIRMA_CHUNK bytes, and a rank leaving the window frees the words it
 * held (ulock.c).
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "mpirma.h"
#include "strategy.h"

#define BULK_SPINS	64	/* cpu_relax() rounds before yielding */
#define BULK_YIELDS	1024	/* cond_resched() rounds before sleeping */

/* Take @word; false when the caller got a fatal signal first. */
static bool bulk_lock(struct mpirma_win *win, u32 *word)
{
	unsigned int round = 0;

	while (READ_ONCE(*word) || cmpxchg(word, 0, MPIRMA_ULOCK_KERNEL)) {
		if (!round)
			atomic64_inc(&win->stats.atomic_contended);
		if (fatal_signal_pending(current))
			return false;
		if (round < BULK_SPINS)
			cpu_relax();
		else if (round < BULK_YIELDS)
			cond_resched();
		else
			usleep_range(20, 100);
		round++;
	}
	return true;
}

static void bulk_apply(const struct mpirma_update *u)
{
	u32 *word = mpirma_ulock_update_word(u->win, u->target);

	if (!bulk_lock(u->win, word))
		return;
	mpirma_update_apply(u);
	/* the updates are visible before the next holder's cmpxchg sees 0 */
	smp_store_release(word, 0);
}

/* The table is allocated with the window (window.c) for this strategy. */
static int bulk_init(struct mpirma_win *win)
{
	return win->ulock ? 0 : -EINVAL;
}

const struct mpirma_strategy mpirma_strategy_bulk = {
	.name = "bulk",
	.init = bulk_init,
	.apply = bulk_apply,
};
