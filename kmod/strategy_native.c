// SPDX-License-Identifier: GPL-2.0
/*
 * MPIRMA_ATOM_NATIVE: the CPU's own atomic instructions, no lock.
 *
 * An element of 1, 2, 4 or 8 bytes at its natural alignment is updated with
 * a compare-and-exchange loop: read it, compute the new value with the
 * reduction engine on a private copy, and publish it with cmpxchg() if the
 * element has not changed meanwhile.  That serves every op and type of that
 * size (integer and floating SUM, MAX/MIN, logical and bitwise ops, the
 * 8-byte MINLOC/MAXLOC pairs, whose padding is written back as read),
 * REPLACE is one xchg(), NO_OP one load and compare_and_swap one cmpxchg();
 * integer SUM is one xadd and BAND/BOR/BXOR without a fetch one locked
 * and/or/xor (mpirma_native_one_instr()), which never retry under contention.
 * A 16-byte element at 16-byte alignment (double complex, long double, the
 * 16-byte pairs) takes the same loop with cmpxchg16b: its two halves may be
 * read torn, but then the exchange fails and the loop reads again, and NO_OP
 * is an exchange of the value with itself, an atomic 16-byte read.  So every
 * op of these types is lock-free whatever accumulate_ops says; the hint
 * (same_op) has nothing left to unlock.
 * A run of elements that a NO_OP get_accumulate reads or a REPLACE writes
 * without fetching is one plain access per element (mpirma_native_move()),
 * atomic against all of the above.
 * A run of such elements with an op computed on a copy takes the same
 * loop a step at a time (mpirma_native_steps(): one reduction per step,
 * one compare-and-exchange per element), as the library's direct path does;
 * so does a chunk's run of scattered single elements (an indexed accumulate,
 * such as a batch shipped from another node: mpirma_native_gathered()).
 * Mixed traffic on one location (fetch_and_op, accumulate, CAS) stays
 * atomic because all of it goes through the same instruction on the same
 * word.  Larger (32-byte) or misaligned elements take the window lock; they are always
 * the same elements (an element's type fixes its size and alignment), so
 * they never meet a lock-free update of the same location.
 */
#include <linux/align.h>
#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "compat.h"
#include "mpirma.h"
#include "native_elem.h"
#include "reduce.h"
#include "strategy.h"

/* A 16-byte element: the loop of mpirma_native_element() with cmpxchg16b. */
static void native_element16(const struct mpirma_update *u, u8 *p, const u8 *src, u8 *old)
{
	u64 *w = (u64 *)p, cur[2], next[2];

	do {
		cur[0] = READ_ONCE(w[0]);
		cur[1] = READ_ONCE(w[1]);
		if (u->op == MPIRMA_OP_REPLACE) {
			memcpy(next, src, sizeof(next));
		} else {
			memcpy(next, cur, sizeof(next));
			if (u->op != MPIRMA_OP_NO_OP)
				mpirma_reduce(u->type, u->op, next, src, NULL, 1);
		}
	} while (!mpirma_cmpxchg16(w, cur[0], cur[1], next[0], next[1]));
	if (old)
		memcpy(old, cur, sizeof(cur));
}

static bool native_span_ok(const struct mpirma_update *u, const struct mpirma_span *s,
			   size_t size)
{
	if (size == 16)	/* no 16-byte type allows compare_and_swap */
		return u->kind != MPIRMA_KIND_CAS && mpirma_has_cmpxchg16() &&
		       IS_ALIGNED((unsigned long)s->addr, 16);
	return (size == 1 || size == 2 || size == 4 || size == 8) &&
	       IS_ALIGNED((unsigned long)s->addr, size);
}


/* Updates the @n gathered elements at @at, whose origin data starts at byte @off. */
static void native_gathered(const struct mpirma_update *u, void *const *at, unsigned int n,
			    size_t off, size_t size)
{
	if (n)
		mpirma_native_gathered(u->kind, u->type, u->op, at, u->src + off,
				       u->old ? u->old + off : NULL, n, size);
}

static void native_apply(const struct mpirma_update *u)
{
	size_t size = mpirma_type_info[u->type].size, off = 0, goff = 0, i;
	void *at[MPIRMA_NATIVE_GATHER];
	const u8 *src = u->src;
	unsigned int k, ng = 0;
	u8 *old = u->old;
	/* may single-element spans be gathered (mpirma_native_gathered())? */
	bool gather = size != 16 && src &&
		      mpirma_native_stepped(u->kind, u->type, u->op, old != NULL);

	for (k = 0; k < u->nspans; k++) {
		const struct mpirma_span *s = &u->spans[k];

		if (gather && s->len == size && native_span_ok(u, s, size)) {
			/* scattered single elements: a step of them at a time */
			if (!ng)
				goff = off;
			at[ng++] = s->addr;
			off += s->len;
			if (ng == MPIRMA_NATIVE_GATHER) {
				native_gathered(u, at, ng, goff, size);
				ng = 0;
			}
			continue;
		}
		native_gathered(u, at, ng, goff, size);
		ng = 0;
		if (!native_span_ok(u, s, size)) {
			struct mpirma_update part;

			mpirma_update_part(&part, u, s, off);
			mpirma_strategy_lock.apply(&part);
		} else if (size != 16 && s->len > size &&
			   mpirma_native_moved(u->kind, u->op, old != NULL)) {
			mpirma_native_move(s->addr, src ? src + off : NULL,
					   old ? old + off : NULL, s->len / size, size);
		} else if (size != 16 && s->len > size && src &&
			   mpirma_native_stepped(u->kind, u->type, u->op, old != NULL)) {
			mpirma_native_steps(u->kind, u->type, u->op, s->addr, src + off,
					    old ? old + off : NULL, s->len / size, size, 0, 1);
		} else {
			for (i = 0; i < s->len; i += size) {
				u8 *p = (u8 *)s->addr + i;
				const u8 *sp = src ? src + off + i : NULL;
				u8 *op = old ? old + off + i : NULL;

				if (size == 16)
					native_element16(u, p, sp, op);
				else
					mpirma_native_element(u->kind, u->type, u->op, p,
							      sp, u->cmp, op, size);
			}
		}
		off += s->len;
	}
	native_gathered(u, at, ng, goff, size);
}

const struct mpirma_strategy mpirma_strategy_native = {
	.name = "native",
	.apply = native_apply,
};
