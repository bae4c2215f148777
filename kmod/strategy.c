// SPDX-License-Identifier: GPL-2.0
/*
 * The registry of atomicity strategies and the module-wide default.
 */
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "mpirma.h"
#include "reduce.h"
#include "strategy.h"

static const struct mpirma_strategy *const strategies[MPIRMA_NR_STRATEGIES] = {
	[MPIRMA_ATOM_LOCK] = &mpirma_strategy_lock,
	[MPIRMA_ATOM_STRIPED] = &mpirma_strategy_striped,
	[MPIRMA_ATOM_NATIVE] = &mpirma_strategy_native,
	[MPIRMA_ATOM_DELEGATE] = &mpirma_strategy_delegate,
	[MPIRMA_ATOM_BULK] = &mpirma_strategy_bulk,
};

static char *atomicity = "lock";
module_param(atomicity, charp, 0444);
MODULE_PARM_DESC(atomicity, "Default atomicity strategy of new windows: lock, striped, native, delegate, bulk");

static u32 default_id = MPIRMA_ATOM_LOCK;

/* At load: the parameter must name a strategy. */
int mpirma_strategy_param_check(void)
{
	u32 id;

	for (id = 1; id < MPIRMA_NR_STRATEGIES; id++) {
		if (strategies[id] && sysfs_streq(atomicity, strategies[id]->name)) {
			default_id = id;
			return 0;
		}
	}
	pr_err("mpirma: unknown atomicity strategy '%s'\n", atomicity);
	return -EINVAL;
}

u32 mpirma_default_strategy(void)
{
	return default_id;
}

const struct mpirma_strategy *mpirma_strategy_get(u32 id)
{
	if (id == MPIRMA_ATOM_DEFAULT)
		id = default_id;
	return id < MPIRMA_NR_STRATEGIES ? strategies[id] : NULL;
}

u32 mpirma_strategy_id(const struct mpirma_strategy *s)
{
	u32 id;

	for (id = 1; id < MPIRMA_NR_STRATEGIES; id++)
		if (strategies[id] == s)
			return id;
	return MPIRMA_ATOM_DEFAULT;
}

void mpirma_inflight_init(struct mpirma_inflight *f)
{
	spin_lock_init(&f->lock);
	f->pending = 0;
	init_waitqueue_head(&f->wq);
	f->armed = false;
}

void mpirma_inflight_add(struct mpirma_inflight *f)
{
	f->armed = true;
	spin_lock_irq(&f->lock);
	f->pending++;
	spin_unlock_irq(&f->lock);
}

unsigned int mpirma_inflight_count(struct mpirma_inflight *f)
{
	return READ_ONCE(f->pending);
}

/* Uninterruptible: deferred pieces are short and may not be abandoned. */
void mpirma_inflight_wait(struct mpirma_inflight *f)
{
	/* Nothing added: no worker can hold @f (the common, synchronous case). */
	if (!f->armed)
		return;
	spin_lock_irq(&f->lock);
	wait_event_lock_irq(f->wq, !f->pending, f->lock);
	f->armed = false;
	spin_unlock_irq(&f->lock);
}

/* The last access to @f: once the lock is dropped its waiter may free it. */
void mpirma_inflight_done(struct mpirma_inflight *f)
{
	unsigned long flags;

	spin_lock_irqsave(&f->lock, flags);
	if (!--f->pending)
		wake_up(&f->wq);
	spin_unlock_irqrestore(&f->lock, flags);
}

/**
 * mpirma_update_part - the part of @u in one span, for strategies that cut
 * @part: filled in; applies synchronously (no inflight tracker)
 * @u: the whole update
 * @span: a piece of @u's target, a whole number of elements
 * @done: bytes of @u's elements before @span (where its data starts in
 *	@u's src and old buffers)
 */
void mpirma_update_part(struct mpirma_update *part, const struct mpirma_update *u,
			const struct mpirma_span *span, size_t done)
{
	*part = *u;
	part->spans = span;
	part->nspans = 1;
	part->src = u->src ? (const u8 *)u->src + done : NULL;
	part->old = u->old ? (u8 *)u->old + done : NULL;
	part->inflight = NULL;
}

/**
 * mpirma_update_apply - perform the element updates of @u
 * @u: the update
 *
 * No atomicity of its own: strategies call it under whatever makes the
 * elements they pass atomic.
 */
void mpirma_update_apply(const struct mpirma_update *u)
{
	const u8 *src = u->src;
	u8 *old = u->old;
	unsigned int i;
	size_t n, esize = mpirma_type_info[u->type].size;

	for (i = 0; i < u->nspans; i++) {
		n = u->spans[i].len / esize;
		if (u->kind == MPIRMA_KIND_CAS)
			mpirma_cas(u->type, u->spans[i].addr, src, u->cmp, old);
		else
			mpirma_reduce(u->type, u->op, u->spans[i].addr, src, old, n);
		if (src)
			src += u->spans[i].len;
		if (old)
			old += u->spans[i].len;
	}
}
