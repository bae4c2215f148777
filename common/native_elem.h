/* SPDX-License-Identifier: GPL-2.0 */
/*
 * native_elem.h - one element's lock-free update: the loop of the native
 * strategy (strategy_native.c), built into mpirma.ko and, like the
 * reduction engine, into the MPI library, whose direct path
 * (lib/rma/rma_direct.c) updates the same words from user space.  Sharing the
 * code is what keeps the two atomic with each other: same instruction,
 * same word, same arithmetic.
 */
#ifndef _MPIRMA_NATIVE_ELEM_H
#define _MPIRMA_NATIVE_ELEM_H

#include "reduce_env.h"

/*
 * Atomic access to one naturally aligned element of 1, 2, 4 or 8 bytes;
 * values travel in the low bytes of a u64 (x86 is little endian).
 */
u64 mpirma_native_load(const void *p, size_t size);
/* Returns the value found: @old if the exchange happened. */
u64 mpirma_native_cmpxchg(void *p, u64 old, u64 new, size_t size);

/**
 * mpirma_native_one_instr() - is this update one locked instruction?
 * @kind: MPIRMA_KIND_ACC, _GET_ACC or _CAS
 * @type: its MPIRMA_TYPE_*
 * @op: MPIRMA_OP_*
 * @fetch: the previous value is wanted
 *
 * Integer SUM is a fetch-and-add; BAND, BOR and BXOR of integers and bytes
 * are one locked and/or/xor when nothing is fetched (x86 has no fetching
 * form of those).  Such an update cannot be retried or starved, however
 * many CPUs hit the element; all others take the loop.
 */
bool mpirma_native_one_instr(unsigned int kind, unsigned int type, unsigned int op,
			     bool fetch);

/**
 * mpirma_native_element() - update one element atomically, without a lock
 * @kind: MPIRMA_KIND_ACC, _GET_ACC or _CAS
 * @type: its MPIRMA_TYPE_*; 1, 2, 4 or 8 bytes
 * @op: MPIRMA_OP_* (not used by CAS)
 * @p: the element, naturally aligned
 * @src: the origin element (any alignment), NULL for NO_OP
 * @cmp: CAS: the compare element (any alignment)
 * @old: NULL, or receives the element as it was (any alignment)
 *
 * REPLACE is one exchange, NO_OP one load, CAS one compare-and-exchange,
 * the ops of mpirma_native_one_instr() one locked instruction;
 * every other op a loop: read, compute on a private copy with
 * mpirma_reduce(), publish with compare-and-exchange if unchanged.
 */
void mpirma_native_element(unsigned int kind, unsigned int type, unsigned int op, void *p,
			   const void *src, const void *cmp, void *old, size_t size);

/**
 * mpirma_native_moved() - does mpirma_native_move() serve this update?
 * @kind: MPIRMA_KIND_ACC, _GET_ACC or _CAS
 * @op: MPIRMA_OP_*
 * @fetch: the previous values are wanted
 *
 * A NO_OP get_accumulate reads each element and a REPLACE that fetches
 * nothing writes it: one plain access of the element's width each, which
 * is atomic against the locked instructions of every other update (an
 * exchange sees the store before or after it, never half of it).
 */
bool mpirma_native_moved(unsigned int kind, unsigned int op, bool fetch);

/**
 * mpirma_native_move() - such an update of @n elements
 * @t: the first target element, naturally aligned
 * @src: REPLACE: @n origin elements (any alignment)
 * @old: NO_OP: receives the @n elements (any alignment)
 * @n: elements
 * @size: their size: 1, 2, 4 or 8
 *
 * The copy runs element by element with the width constant, not a call
 * per element: Global Arrays reads and writes every patch this way
 * (ARMCI-MPI's default atomic gets and puts), a byte at a time.
 */
void mpirma_native_move(void *t, const void *src, void *old, u64 n, size_t size);

/**
 * mpirma_native_stepped() - does mpirma_native_steps() serve this update?
 * @kind: MPIRMA_KIND_ACC or _GET_ACC (CAS never)
 * @type: its MPIRMA_TYPE_*; 1, 2, 4 or 8 bytes
 * @op: MPIRMA_OP_*: an op computed on a copy (not REPLACE, NO_OP, or one
 *	of mpirma_native_one_instr()'s, which gain nothing from a snapshot)
 * @fetch: the previous values are wanted
 */
bool mpirma_native_stepped(unsigned int kind, unsigned int type, unsigned int op,
			   bool fetch);

/**
 * mpirma_native_steps() - an accumulate of @n elements, a step at a time
 * @kind, @type, @op: as for mpirma_native_element(); see
 *	mpirma_native_stepped() for which
 * @t: the first target element, naturally aligned
 * @src: @n origin elements (any alignment)
 * @old: NULL, or receives the @n elements as they were
 * @n: elements
 * @size: their size: 1, 2, 4 or 8
 * @part: of @nparts: start the steps this share of the way in
 * @nparts: callers that may walk the same range at once (1: start at 0)
 *
 * Per step: a snapshot of the targets, the reduction engine over the whole
 * step at once, then one compare-and-exchange per element that publishes its
 * result if the element has not changed meanwhile; an element that has
 * takes mpirma_native_element()'s loop.  So each element is updated as
 * atomically as by mpirma_native_element(), with the arithmetic's cost per
 * call paid once per step.  An element the op leaves as it was is not
 * written: the update took effect at the snapshot.
 *
 * Elements of one update have no order among them: callers that update one
 * range from several CPUs at once (ranks reducing into one array) each start
 * at another @part, so that they do not walk it in lock-step, where every
 * exchange of the slower one would fail.
 */
void mpirma_native_steps(unsigned int kind, unsigned int type, unsigned int op, void *t,
			 const void *src, void *old, u64 n, size_t size, unsigned int part,
			 unsigned int nparts);

/* Elements of one mpirma_native_gathered() call, at most (a kernel stack's worth). */
#define MPIRMA_NATIVE_GATHER	32

/**
 * mpirma_native_gathered() - one step of mpirma_native_steps() over scattered elements
 * @kind, @type, @op: as for mpirma_native_steps()
 * @at: the @n target elements' addresses, each naturally aligned
 * @src: @n origin elements, packed (any alignment)
 * @old: NULL, or receives the @n elements as they were, packed
 * @n: elements, at most MPIRMA_NATIVE_GATHER
 * @size: their size: 1, 2, 4 or 8
 *
 * The scattered single elements of an indexed accumulate (a batch of
 * one-element accumulates shipped from another node) cost one reduction,
 * and in the kernel one FPU section, per step instead of per element.  An
 * element named twice is still right: its second exchange fails and takes
 * mpirma_native_element()'s loop.
 */
void mpirma_native_gathered(unsigned int kind, unsigned int type, unsigned int op,
			    void *const *at, const void *src, void *old, unsigned int n,
			    size_t size);

#endif /* _MPIRMA_NATIVE_ELEM_H */
