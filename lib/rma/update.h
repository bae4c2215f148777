/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * update.h - the accumulate-like update of a short run in straight code,
 * which both lanes of the direct path run (lib/rma/rma_lean.c from the
 * call's arguments, lib/rma/rma_direct.c for the fast lane and queued
 * operations): integer, float and double sums, replace, no-op and
 * compare-and-swap of elements of 1, 2, 4 or 8 bytes, under the target's
 * update lock (MPIRMA_ATOM_BULK) or with one atomic instruction
 * (MPIRMA_ATOM_NATIVE), with the reduction engine's arithmetic, so the
 * kernel and both lanes stay atomic with respect to each other and agree
 * bit for bit.  What an update is comes as a code, (how << 4) | element
 * size, from mpirma_upd_code().
 */
#ifndef MPIRMA_LIB_UPDATE_H
#define MPIRMA_LIB_UPDATE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "copy.h"
#include "direct.h"
#include "reduce.h"

/* What an element update is: the high half of a code (mpirma_upd_code()). */
enum mpirma_upd_how {
	MPIRMA_UPD_SLOW = 1,		/* the general lane's */
	MPIRMA_UPD_SUM_INT,
	MPIRMA_UPD_SUM_F32,
	MPIRMA_UPD_SUM_F64,
	MPIRMA_UPD_REPLACE,
	MPIRMA_UPD_NO_OP,
	MPIRMA_UPD_CAS,
	MPIRMA_UPD_ENGINE,		/* the reduction engine's, any length */
};

/*
 * The code of operation @kind (MPIRMA_KIND_*) with kernel op @kop on
 * elements of kernel type @type, which the caller has checked against the
 * op/type table: (how << 4) | size, how MPIRMA_UPD_SLOW when no straight
 * code runs it.
 */
static inline uint8_t mpirma_upd_code(unsigned int kind, unsigned int type,
				      unsigned int kop)
{
	unsigned int size = mpirma_type_info[type].size, how;

	if (size != 1 && size != 2 && size != 4 && size != 8)
		return MPIRMA_UPD_SLOW << 4;
	if (kind == MPIRMA_KIND_CAS)
		how = MPIRMA_UPD_CAS;
	else if (kop == MPIRMA_OP_REPLACE)
		how = MPIRMA_UPD_REPLACE;
	else if (kop == MPIRMA_OP_NO_OP)
		how = MPIRMA_UPD_NO_OP;
	else if (kop != MPIRMA_OP_SUM)
		how = MPIRMA_UPD_SLOW;
	else if (mpirma_type_info[type].type_class == MPIRMA_CLASS_INT)
		how = MPIRMA_UPD_SUM_INT;
	else if (type == MPIRMA_TYPE_FLOAT)
		how = MPIRMA_UPD_SUM_F32;
	else if (type == MPIRMA_TYPE_DOUBLE)
		how = MPIRMA_UPD_SUM_F64;
	else
		how = MPIRMA_UPD_SLOW;
	return (uint8_t)(how << 4 | size);
}

/* The element of @size bytes at @p, as an integer (any alignment). */
static __always_inline uint64_t upd_load(const void *p, unsigned int size)
{
	uint8_t a;
	uint16_t b;
	uint32_t c;
	uint64_t d;

	switch (size) {
	case 1:
		memcpy(&a, p, 1);
		return a;
	case 2:
		memcpy(&b, p, 2);
		return b;
	case 4:
		memcpy(&c, p, 4);
		return c;
	default:
		memcpy(&d, p, 8);
		return d;
	}
}

static __always_inline void upd_store(void *p, uint64_t v, unsigned int size)
{
	uint8_t a = (uint8_t)v;
	uint16_t b = (uint16_t)v;
	uint32_t c = (uint32_t)v;

	switch (size) {
	case 1:
		memcpy(p, &a, 1);
		return;
	case 2:
		memcpy(p, &b, 2);
		return;
	case 4:
		memcpy(p, &c, 4);
		return;
	default:
		memcpy(p, &v, 8);
		return;
	}
}

/*
 * The new value of an element that was @cur, given the origin's @v, for a
 * sum, with the reduction engine's arithmetic (target + origin, common/reduce.c,
 * reduce_fp.c).
 */
static __always_inline uint64_t upd_new(unsigned int how, uint64_t cur,
					 uint64_t v)
{
	float f, g;
	double x, y;
	uint32_t u = (uint32_t)cur, z = (uint32_t)v;

	switch (how) {
	case MPIRMA_UPD_SUM_INT:
		return cur + v;
	case MPIRMA_UPD_SUM_F32:
		memcpy(&f, &u, 4);
		memcpy(&g, &z, 4);
		f = f + g;
		memcpy(&u, &f, 4);
		return u;
	case MPIRMA_UPD_SUM_F64:
		memcpy(&x, &cur, 8);
		memcpy(&y, &v, 8);
		x = x + y;
		memcpy(&cur, &x, 8);
		return cur;
	default:
		return v;
	}
}

/*
 * One atomic instruction on the naturally aligned @uint_t at @t: *@old
 * gets the element as it was.  False for the updates that need a loop
 * (floating-point sums), which the general lanes run.
 */
#define UPD_NATIVE(uint_t)						\
	do {								\
		uint_t *e_ = (uint_t *)t, x_ = (uint_t)v, c_ = (uint_t)cmp; \
									\
		switch (how) {						\
		case MPIRMA_UPD_SUM_INT:					\
			*old = __atomic_fetch_add(e_, x_, __ATOMIC_SEQ_CST); \
			return true;					\
		case MPIRMA_UPD_REPLACE:					\
			*old = __atomic_exchange_n(e_, x_, __ATOMIC_SEQ_CST); \
			return true;					\
		case MPIRMA_UPD_NO_OP:					\
			*old = __atomic_load_n(e_, __ATOMIC_SEQ_CST);	\
			return true;					\
		case MPIRMA_UPD_CAS:						\
			__atomic_compare_exchange_n(e_, &c_, x_, false,	\
						    __ATOMIC_SEQ_CST,	\
						    __ATOMIC_SEQ_CST);	\
			*old = c_;					\
			return true;					\
		default:						\
			return false;					\
		}							\
	} while (0)

static __always_inline bool upd_native(unsigned int how, unsigned int size,
					char *t, uint64_t v, uint64_t cmp,
					uint64_t *old)
{
	switch (size) {
	case 1:
		UPD_NATIVE(uint8_t);
	case 2:
		UPD_NATIVE(uint16_t);
	case 4:
		UPD_NATIVE(uint32_t);
	default:
		UPD_NATIVE(uint64_t);
	}
}

/*
 * Runs this long go to the reduction engine, which picks a vectorized build
 * per type (lib/base/reduce_pick.c): sums of 1- and 2-byte integers and of
 * doubles from 64 elements, everything else from MPIRMA_UPD_RUN_MAX.
 * Below that mpirma_upd_run()'s loop is faster (measured in the VM, us per
 * call and flush, engine against loop: 64 chars 0.39 against 0.42, 128
 * chars 0.43 against 0.62, 64 doubles 0.73 against 0.80 and their
 * get_accumulate 1.14 against 1.41; 128 ints 0.70 against 0.63, 64 floats'
 * get_accumulate 0.88 against 0.78; 256 ints 1.00 against 1.19, all before
 * the loop added small integers eight bytes at a time).
 *
 * Integer sums of 1, 2 and 4 bytes stay in the loop up to
 * MPIRMA_UPD_SWAR_MAX bytes where the engine's scalar build is its fastest
 * for them (mpirma_swar_wins()): that build adds them the same way, so the
 * engine would only add its dispatch (under QEMU's TCG, best launches of
 * one boot, us: 64 chars 0.29 against 0.48, 1 KiB of chars 0.86 against
 * 1.19, 1 KiB of ints 0.77 against 1.18, 4 KiB of ints 2.43 against 3.47).
 * Where a vectorized build is faster (any CPU with SSE2 or AVX2 run
 * natively) the engine takes them from 64 and 128 elements as before.
 */
#define MPIRMA_UPD_RUN_MAX	128
#define MPIRMA_UPD_SWAR_MAX	8192

static inline bool mpirma_upd_long(uint8_t code, uint64_t n)
{
	unsigned int how = code >> 4, size = code & 15;

	if (how == MPIRMA_UPD_SUM_INT && size < 8) {
		if (n < (size <= 2 ? 64 : MPIRMA_UPD_RUN_MAX))
			return false;
		return n * size >= MPIRMA_UPD_SWAR_MAX ||
		       !mpirma_swar_wins(size);
	}
	if (how == MPIRMA_UPD_SUM_F64)
		return n >= 64;
	return n >= MPIRMA_UPD_RUN_MAX;
}

/*
 * The old values of a run of more than one element, out of line: the
 * update's specializations (each op and size, in every entry that inlines
 * them) share one copy of it, and under emulation their code then stays
 * within fewer pages of the layer's entries (docs/hybrid.md, "Build").
 */
static __attribute__((noinline)) void upd_copy_old(char *res, const char *t,
						   size_t bytes)
{
	mpirma_copy(res, t, bytes);
}

/*
 * The update @how of @n elements of @size bytes at @t, with the origin's
 * values at @o and the compare value at @c (as @how needs them): the
 * elements as they were into @res unless it is NULL.  The caller holds the
 * target's update lock.  Inlined with @how and @size constant, so each case
 * is straight code.
 */
static __always_inline void upd_apply_as(unsigned int how, unsigned int size,
					 char *t, const char *o, const void *c,
					 char *res, uint64_t n)
{
	uint64_t cur, i;

	/*
	 * Integers: the old values first, so the update loop vectorizes.
	 * Floating-point sums stay scalar (their rounding is the engine's),
	 * and one pass that keeps each old value as it goes is faster (under
	 * QEMU's TCG a copy first made each later float add cost 0.25 us).
	 */
	if (res && (how == MPIRMA_UPD_SUM_F32 || how == MPIRMA_UPD_SUM_F64)) {
		for (i = 0; i < n; i++) {
			cur = upd_load(t + i * size, size);
			upd_store(res + i * size, cur, size);
			upd_store(t + i * size,
				  upd_new(how, cur, upd_load(o + i * size, size)),
				  size);
		}
		return;
	}
	if (res && n == 1)
		upd_store(res, upd_load(t, size), size);
	else if (res)
		upd_copy_old(res, t, n * size);
	if (how == MPIRMA_UPD_CAS) {
		if (upd_load(t, size) == upd_load(c, size))
			upd_store(t, upd_load(o, size), size);
	} else if (how == MPIRMA_UPD_REPLACE) {
		mpirma_move(t, o, n * size);
	} else if (how != MPIRMA_UPD_NO_OP) {
		i = 0;
		/*
		 * Small integers: eight bytes per step, not one element.  For
		 * 4-byte ones that is an instruction more per element than
		 * the plain loop but a third of its memory accesses, which
		 * only emulators charge more for: there once the engine's
		 * pick has found its scalar build the fastest.
		 */
		if (how == MPIRMA_UPD_SUM_INT &&
		    (size <= 2 || (size == 4 && mpirma_swar_known(4))))
			i = mpirma_swar_sum((uint8_t *)t, (const uint8_t *)o,
					    n * size, size) / size;
		for (; i < n; i++)
			upd_store(t + i * size,
				  upd_new(how, upd_load(t + i * size, size),
					  upd_load(o + i * size, size)),
				  size);
	}
}

/*
 * upd_apply_as() on window rank @trank of @w, under its update lock
 * (MPIRMA_ATOM_BULK) or with one atomic instruction (MPIRMA_ATOM_NATIVE).
 * False, having done nothing, when the window's strategy wants the general
 * lane (or a compare-and-swap is of more than one element).
 */
static __always_inline bool upd_run_as(const struct mpirma_window *w,
				       uint32_t trank, unsigned int how,
				       unsigned int size, char *t,
				       const char *o, const void *c,
				       char *res, uint64_t n)
{
	uint64_t cmp, v = 0, cur;
	uint32_t *word;

	if (how == MPIRMA_UPD_CAS && n != 1)
		return false;
	if (mpirma_likely(w->bulk_locks != NULL)) {
		word = mpirma_bulk_word(w, trank);
		mpirma_bulk_lock(word, (uint32_t)w->rank + 1);
		upd_apply_as(how, size, t, o, c, res, n);
		mpirma_bulk_unlock(word);
		return true;
	}
	if (n != 1 || !w->direct_atomics || ((uintptr_t)t & (size - 1)))
		return false;
	cmp = how == MPIRMA_UPD_CAS ? upd_load(c, size) : 0;
	if (how != MPIRMA_UPD_NO_OP)
		v = upd_load(o, size);
	if (!upd_native(how, size, t, v, cmp, &cur))
		return false;
	if (res)
		upd_store(res, cur, size);
	return true;
}

#define UPD_CASE(how, size)						\
	case (how) << 4 | (size):					\
		return upd_run_as(w, trank, how, size, t, o, c, res, n);
#define UPD_SIZES(how)							\
	UPD_CASE(how, 1) UPD_CASE(how, 2) UPD_CASE(how, 4) UPD_CASE(how, 8)

/* upd_run_as() for @code (mpirma_upd_code()). */
static __always_inline bool mpirma_upd_run(const struct mpirma_window *w,
					   uint32_t trank, uint8_t code,
					   char *t, const void *o,
					   const void *c, void *res,
					   uint64_t n)
{
	switch (code) {
	UPD_SIZES(MPIRMA_UPD_SUM_INT)
	UPD_CASE(MPIRMA_UPD_SUM_F32, 4)
	UPD_CASE(MPIRMA_UPD_SUM_F64, 8)
	UPD_SIZES(MPIRMA_UPD_REPLACE)
	UPD_SIZES(MPIRMA_UPD_NO_OP)
	UPD_SIZES(MPIRMA_UPD_CAS)
	default:
		return false;
	}
}

#define UPD_APPLY(how, size)						\
	case (how) << 4 | (size):					\
		upd_apply_as(how, size, t, o, c, res, n);		\
		return true;
#define UPD_APPLY_SIZES(how)						\
	UPD_APPLY(how, 1) UPD_APPLY(how, 2) UPD_APPLY(how, 4) UPD_APPLY(how, 8)

/*
 * upd_apply_as() for @code (mpirma_upd_code()), the update lock held by
 * the caller; false for a code without straight code (the engine's).
 */
static inline bool mpirma_upd_apply(uint8_t code, char *t, const void *o,
				    const void *c, void *res, uint64_t n)
{
	switch (code) {
	UPD_APPLY_SIZES(MPIRMA_UPD_SUM_INT)
	UPD_APPLY(MPIRMA_UPD_SUM_F32, 4)
	UPD_APPLY(MPIRMA_UPD_SUM_F64, 8)
	UPD_APPLY_SIZES(MPIRMA_UPD_REPLACE)
	UPD_APPLY_SIZES(MPIRMA_UPD_NO_OP)
	default:
		return false;
	}
}

#endif /* MPIRMA_LIB_UPDATE_H */
