// SPDX-License-Identifier: GPL-2.0
/*
 * One element's lock-free update (native_elem.h), for the kernel's native
 * strategy and the library's direct path.
 */
#include <mpirma_uapi.h>

#include "native_elem.h"
#include "reduce.h"

/*
 * The accesses, inline: called with a constant @size (steps_sized()), each
 * is one instruction, not a call.
 */
static __always_inline u64 load_sized(const void *p, size_t size)
{
	switch (size) {
	case 1:
		return READ_ONCE(*(const u8 *)p);
	case 2:
		return READ_ONCE(*(const u16 *)p);
	case 4:
		return READ_ONCE(*(const u32 *)p);
	default:
		return READ_ONCE(*(const u64 *)p);
	}
}

static __always_inline u64 cmpxchg_sized(void *p, u64 old, u64 new,
								size_t size)
{
	switch (size) {
	case 1:
		return cmpxchg((u8 *)p, (u8)old, (u8)new);
	case 2:
		return cmpxchg((u16 *)p, (u16)old, (u16)new);
	case 4:
		return cmpxchg((u32 *)p, (u32)old, (u32)new);
	default:
		return cmpxchg((u64 *)p, old, new);
	}
}

u64 mpirma_native_load(const void *p, size_t size)
{
	return load_sized(p, size);
}

u64 mpirma_native_cmpxchg(void *p, u64 old, u64 new, size_t size)
{
	return cmpxchg_sized(p, old, new, size);
}

static u64 native_xchg(void *p, u64 new, size_t size)
{
	switch (size) {
	case 1:
		return xchg((u8 *)p, (u8)new);
	case 2:
		return xchg((u16 *)p, (u16)new);
	case 4:
		return xchg((u32 *)p, (u32)new);
	default:
		return xchg((u64 *)p, new);
	}
}

bool mpirma_native_one_instr(unsigned int kind, unsigned int type, unsigned int op,
			     bool fetch)
{
	unsigned int cls = mpirma_type_info[type].type_class;

	if (kind == MPIRMA_KIND_CAS)
		return false;
	switch (op) {
	case MPIRMA_OP_SUM:
		return cls == MPIRMA_CLASS_INT;
	case MPIRMA_OP_BAND:
	case MPIRMA_OP_BOR:
	case MPIRMA_OP_BXOR:
		return !fetch && (cls == MPIRMA_CLASS_INT || cls == MPIRMA_CLASS_BYTE);
	default:
		return false;
	}
}

static u64 native_xadd(void *p, u64 v, size_t size)
{
	switch (size) {
	case 1:
		return xadd((u8 *)p, (u8)v);
	case 2:
		return xadd((u16 *)p, (u16)v);
	case 4:
		return xadd((u32 *)p, (u32)v);
	default:
		return xadd((u64 *)p, v);
	}
}

/*
 * BAND, BOR or BXOR of @v into the element at @p, not fetched.  An element
 * of 1 or 2 bytes is updated through the aligned 4-byte word around it, the
 * other bytes of which get the op's identity (all ones for AND, zero for OR
 * and XOR) and so keep their value: one primitive per word size serves all.
 */
static void native_bitop(unsigned int op, void *p, u64 v, size_t size)
{
	void *w = (void *)((unsigned long)p & ~3UL);
	unsigned int shift = ((unsigned long)p & 3) * 8;
	u32 mask, v32;

	if (size == 8) {
		if (op == MPIRMA_OP_BAND)
			mpirma_atomic64_and(p, v);
		else if (op == MPIRMA_OP_BOR)
			mpirma_atomic64_or(p, v);
		else
			mpirma_atomic64_xor(p, v);
		return;
	}
	mask = (u32)(((1ULL << (size * 8)) - 1) << shift);
	v32 = (u32)(v << shift) & mask;
	if (op == MPIRMA_OP_BAND)
		mpirma_atomic32_and(w, v32 | ~mask);
	else if (op == MPIRMA_OP_BOR)
		mpirma_atomic32_or(w, v32);
	else
		mpirma_atomic32_xor(w, v32);
}

void mpirma_native_element(unsigned int kind, unsigned int type, unsigned int op, void *p,
			   const void *src, const void *cmp, void *old, size_t size)
{
	u64 cur = 0, next = 0, want = 0, seen;

	if (src)
		memcpy(&next, src, size);
	if (kind == MPIRMA_KIND_CAS) {
		memcpy(&want, cmp, size);
		cur = mpirma_native_cmpxchg(p, want, next, size);
	} else if (op == MPIRMA_OP_REPLACE) {
		cur = native_xchg(p, next, size);
	} else if (op == MPIRMA_OP_NO_OP) {
		cur = mpirma_native_load(p, size);
	} else if (mpirma_native_one_instr(kind, type, op, old != NULL)) {
		if (op == MPIRMA_OP_SUM)
			cur = native_xadd(p, next, size);
		else
			native_bitop(op, p, next, size);
	} else {
		for (cur = mpirma_native_load(p, size);; cur = seen) {
			next = cur;
			mpirma_reduce(type, op, &next, src, NULL, 1);
			if (next == cur)
				break;	/* nothing to write: the read was atomic */
			seen = mpirma_native_cmpxchg(p, cur, next, size);
			if (seen == cur)
				break;
		}
	}
	if (old)
		memcpy(old, &cur, size);
}

bool mpirma_native_moved(unsigned int kind, unsigned int op, bool fetch)
{
	return (kind == MPIRMA_KIND_GET_ACC && op == MPIRMA_OP_NO_OP) ||
	       (kind != MPIRMA_KIND_CAS && op == MPIRMA_OP_REPLACE && !fetch);
}

static __always_inline void store_sized(void *p, u64 v, size_t size)
{
	switch (size) {
	case 1:
		WRITE_ONCE(*(u8 *)p, (u8)v);
		break;
	case 2:
		WRITE_ONCE(*(u16 *)p, (u16)v);
		break;
	case 4:
		WRITE_ONCE(*(u32 *)p, (u32)v);
		break;
	default:
		WRITE_ONCE(*(u64 *)p, v);
		break;
	}
}

/* mpirma_native_move() for one @size, inlined with it constant. */
static __always_inline void move_sized(u8 *t, const u8 *src, u8 *old, u64 n,
				       size_t size)
{
	u64 k, v;

	for (k = 0; k < n; k++) {
		if (old) {
			v = load_sized(t + k * size, size);
			memcpy(old + k * size, &v, size);
		} else {
			v = 0;
			memcpy(&v, src + k * size, size);
			store_sized(t + k * size, v, size);
		}
	}
}

void mpirma_native_move(void *t, const void *src, void *old, u64 n, size_t size)
{
	switch (size) {
	case 1:
		/*
		 * A byte cannot be read torn: any copy reads it whole.  Not so
		 * for writes: memcpy() may store a byte twice (overlapping
		 * tail stores), undoing an update that came in between.
		 */
		if (old)
			memcpy(old, t, n);
		else
			move_sized(t, src, NULL, n, 1);
		break;
	case 2:
		move_sized(t, src, old, n, 2);
		break;
	case 4:
		move_sized(t, src, old, n, 4);
		break;
	default:
		move_sized(t, src, old, n, 8);
		break;
	}
}

bool mpirma_native_stepped(unsigned int kind, unsigned int type, unsigned int op,
			   bool fetch)
{
	return (kind == MPIRMA_KIND_ACC || kind == MPIRMA_KIND_GET_ACC) &&
	       op != MPIRMA_OP_REPLACE && op != MPIRMA_OP_NO_OP &&
	       !mpirma_native_one_instr(kind, type, op, fetch);
}

/*
 * Elements per step: the snapshot and the results are two arrays of them on
 * the stack, which in the kernel must stay small.
 */
#ifdef MPIRMA_USERSPACE
#define NATIVE_STEP	512
#else
#define NATIVE_STEP	MPIRMA_NATIVE_GATHER
#endif

/*
 * One step of m elements of one @size, inlined with it constant: a variable
 * size made every element cost two calls to memcpy() and two to the
 * accesses, more than the arithmetic itself.  Element k is at @t + k * size,
 * or at @at[k] when @at is given; its origin at @src + k * size, its old
 * value to @old + k * size.  @cur and @next: NATIVE_STEP elements each, the
 * caller's (one pair, whichever size is inlined).
 */
static __always_inline void
step_sized(unsigned int kind, unsigned int type, unsigned int op, u8 *t, void *const *at,
	   const u8 *src, u8 *old, u64 m, size_t size, u64 *cur, u64 *next)
{
	u64 k;

	/* packed: element k of the step at byte k * size */
	for (k = 0; k < m; k++) {
		u64 v = load_sized(at ? at[k] : t + k * size, size);

		memcpy((u8 *)cur + k * size, &v, size);
		memcpy((u8 *)next + k * size, &v, size);
	}
	mpirma_reduce(type, op, next, src, NULL, m);
	for (k = 0; k < m; k++) {
		u8 *tp = at ? (u8 *)at[k] : t + k * size;
		u64 c = 0, v = 0;

		memcpy(&c, (u8 *)cur + k * size, size);
		memcpy(&v, (u8 *)next + k * size, size);
		if (v != c && cmpxchg_sized(tp, c, v, size) != c) {
			/* raced: this one element, the careful way */
			mpirma_native_element(kind, type, op, tp, src + k * size, NULL,
					      old ? old + k * size : NULL, size);
			continue;
		}
		if (old)
			memcpy(old + k * size, &c, size);
	}
}

/* mpirma_native_steps() for one @size, inlined with it constant. */
static __always_inline void
steps_sized(unsigned int kind, unsigned int type, unsigned int op, u8 *t, const u8 *src,
	    u8 *old, u64 n, size_t size, u64 first, u64 *cur, u64 *next)
{
	u64 nsteps = (n + NATIVE_STEP - 1) / NATIVE_STEP, s, i, m;

	for (s = 0; s < nsteps; s++) {
		i = (first + s) % nsteps * NATIVE_STEP;
		m = n - i < NATIVE_STEP ? n - i : NATIVE_STEP;
		step_sized(kind, type, op, t + i * size, NULL, src + i * size,
			   old ? old + i * size : NULL, m, size, cur, next);
	}
}

void mpirma_native_steps(unsigned int kind, unsigned int type, unsigned int op, void *t,
			 const void *src, void *old, u64 n, size_t size, unsigned int part,
			 unsigned int nparts)
{
	u64 cur[NATIVE_STEP], next[NATIVE_STEP];
	u64 first = nparts > 1 ? (n + NATIVE_STEP - 1) / NATIVE_STEP * part / nparts : 0;

	switch (size) {
	case 1:
		steps_sized(kind, type, op, t, src, old, n, 1, first, cur, next);
		break;
	case 2:
		steps_sized(kind, type, op, t, src, old, n, 2, first, cur, next);
		break;
	case 4:
		steps_sized(kind, type, op, t, src, old, n, 4, first, cur, next);
		break;
	default:
		steps_sized(kind, type, op, t, src, old, n, 8, first, cur, next);
		break;
	}
}

void mpirma_native_gathered(unsigned int kind, unsigned int type, unsigned int op,
			    void *const *at, const void *src, void *old, unsigned int n,
			    size_t size)
{
	u64 cur[NATIVE_STEP], next[NATIVE_STEP];

	if (WARN_ON_ONCE(n > MPIRMA_NATIVE_GATHER))
		n = MPIRMA_NATIVE_GATHER;
	switch (size) {
	case 1:
		step_sized(kind, type, op, NULL, at, src, old, n, 1, cur, next);
		break;
	case 2:
		step_sized(kind, type, op, NULL, at, src, old, n, 2, cur, next);
		break;
	case 4:
		step_sized(kind, type, op, NULL, at, src, old, n, 4, cur, next);
		break;
	default:
		step_sized(kind, type, op, NULL, at, src, old, n, 8, cur, next);
		break;
	}
}
