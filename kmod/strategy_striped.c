// SPDX-License-Identifier: GPL-2.0
/*
 * MPIRMA_ATOM_STRIPED: a spinlock per cache-line stripe of the window.
 *
 * The lock of an element is chosen by the kernel address of the cache
 * line(s) it occupies, hashed onto MPIRMA_STRIPES locks, so updates of
 * disjoint parts of one window run in parallel while every element stays
 * atomic.  An element that straddles two lines takes both stripes, always
 * the lower index first, and no section ever holds more than two: updates
 * cannot deadlock, whatever spans they cover.  Every update of an element
 * (same type, hence same alignment) takes the same set of stripes.
 */
#include <linux/cache.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "fault.h"
#include "mpirma.h"
#include "reduce.h"
#include "strategy.h"

#define MPIRMA_STRIPE_SHIFT	6	/* a cache line on every x86 */
#define MPIRMA_STRIPES		1024

struct striped {
	/*
	 * locks[i] serialises updates of elements touching stripe i.  Raw:
	 * held across a reduction's FPU section (strategy.h), one cache line
	 * of elements at a time.
	 */
	raw_spinlock_t locks[MPIRMA_STRIPES];
};

static unsigned int stripe_of(const u8 *addr)
{
	return ((unsigned long)addr >> MPIRMA_STRIPE_SHIFT) & (MPIRMA_STRIPES - 1);
}

static int striped_init(struct mpirma_win *win)
{
	struct striped *s;
	unsigned int i;

	s = MPIRMA_FAULT_POINT(NULL, kvmalloc(sizeof(*s), GFP_KERNEL));
	if (!s)
		return -ENOMEM;
	for (i = 0; i < MPIRMA_STRIPES; i++)
		raw_spin_lock_init(&s->locks[i]);
	win->strategy_data = s;
	return 0;
}

static void striped_fini(struct mpirma_win *win)
{
	kvfree(win->strategy_data);
	win->strategy_data = NULL;
}

static void stripe_lock(struct mpirma_win *win, raw_spinlock_t *lock, int subclass)
	__acquires(lock)
{
	if (!raw_spin_trylock(lock)) {
		atomic64_inc(&win->stats.atomic_contended);
		raw_spin_lock_nested(lock, subclass);
	}
}

/* Apply @n elements at @p under the stripes they touch. */
static void striped_section(const struct mpirma_update *u, struct striped *s, u8 *p,
			    size_t n, size_t esize, size_t done)
{
	struct mpirma_span span = { .addr = p, .len = n * esize };
	unsigned int a = stripe_of(p), b = stripe_of(p + n * esize - 1);
	struct mpirma_update part;

	if (a > b)
		swap(a, b);
	mpirma_update_part(&part, u, &span, done);

	stripe_lock(u->win, &s->locks[a], 0);
	if (b != a)
		stripe_lock(u->win, &s->locks[b], SINGLE_DEPTH_NESTING);
	else
		__acquire(&s->locks[b]);	/* keep sparse's count balanced */
	mpirma_update_apply(&part);
	if (b != a)
		raw_spin_unlock(&s->locks[b]);
	else
		__release(&s->locks[b]);
	raw_spin_unlock(&s->locks[a]);
}

static void striped_apply(const struct mpirma_update *u)
{
	size_t esize = mpirma_type_info[u->type].size, done = 0, n;
	struct striped *s = u->win->strategy_data;
	unsigned int i;
	u8 *p, *end, *line_end;

	for (i = 0; i < u->nspans; i++) {
		p = u->spans[i].addr;
		end = p + u->spans[i].len;
		while (p < end) {
			/* The elements starting in p's line; the last may spill over. */
			line_end = PTR_ALIGN(p + 1, 1 << MPIRMA_STRIPE_SHIFT);
			n = DIV_ROUND_UP(min(line_end, end) - p, esize);
			striped_section(u, s, p, n, esize, done);
			p += n * esize;
			done += n * esize;
		}
	}
}

const struct mpirma_strategy mpirma_strategy_striped = {
	.name = "striped",
	.init = striped_init,
	.fini = striped_fini,
	.apply = striped_apply,
};
