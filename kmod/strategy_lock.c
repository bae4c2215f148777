// SPDX-License-Identifier: GPL-2.0
/*
 * MPIRMA_ATOM_LOCK: one spinlock per window serialises every element update
 * (what the peers do, but with chunked critical sections and no user-space
 * lock a dying process could leave held).  Simple and always correct; the
 * baseline the other strategies are measured against.
 *
 * The lock is raw (it is held across the FPU section of a reduction, see
 * strategy.h), so each hold covers at most MPIRMA_RAW_SECTION bytes of
 * whole elements: atomicity is per element, and a task waiting for the
 * lock, or a real-time task waiting for the CPU, waits for one section.
 */
#include <linux/minmax.h>
#include <linux/spinlock.h>

#include "mpirma.h"
#include "reduce.h"
#include "strategy.h"

static void lock_section(const struct mpirma_update *u)
{
	struct mpirma_win *win = u->win;

	if (!raw_spin_trylock(&win->update_lock)) {
		atomic64_inc(&win->stats.atomic_contended);
		raw_spin_lock(&win->update_lock);
	}
	mpirma_update_apply(u);
	raw_spin_unlock(&win->update_lock);
}

static void lock_apply(const struct mpirma_update *u)
{
	size_t esize = mpirma_type_info[u->type].size, done = 0, off, len;
	size_t most = max(rounddown(MPIRMA_RAW_SECTION, esize), esize);
	struct mpirma_update part;
	struct mpirma_span span;
	unsigned int i;

	for (i = 0; i < u->nspans; i++) {
		for (off = 0; off < u->spans[i].len; off += len, done += len) {
			len = min(u->spans[i].len - off, most);
			span.addr = (u8 *)u->spans[i].addr + off;
			span.len = len;
			mpirma_update_part(&part, u, &span, done);
			lock_section(&part);
		}
	}
}

const struct mpirma_strategy mpirma_strategy_lock = {
	.name = "lock",
	.apply = lock_apply,
};
