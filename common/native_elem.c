// SPDX-License-Identifier: GPL-2.0
/*
 * One element's lock-free update (native_elem.h), for the kernel's native
 * strategy and the library's direct path.
 */
#include <mpirma_uapi.h>

#include "native_elem.h"
#include "reduce.h"

u64 mpirma_native_load(const void *p, size_t size)
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

u64 mpirma_native_cmpxchg(void *p, u64 old, u64 new, size_t size)
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
