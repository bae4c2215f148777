// SPDX-License-Identifier: GPL-2.0
/*
 * MPIRMA_ATOM_LOCK: one spinlock per window serialises every element update
 * (what the peers do, but with chunked critical sections and no user-space
 * lock a dying process could leave held).  Simple and always correct; the
 * baseline the other strategies are measured against.
 */
#include <linux/spinlock.h>

#include "mpirma.h"
#include "strategy.h"

static void lock_apply(const struct mpirma_update *u)
{
	struct mpirma_win *win = u->win;

	if (!spin_trylock(&win->update_lock)) {
		atomic64_inc(&win->stats.atomic_contended);
		spin_lock(&win->update_lock);
	}
	mpirma_update_apply(u);
	spin_unlock(&win->update_lock);
}

const struct mpirma_strategy mpirma_strategy_lock = {
	.name = "lock",
	.apply = lock_apply,
};
