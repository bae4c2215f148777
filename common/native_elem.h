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

#endif /* _MPIRMA_NATIVE_ELEM_H */
