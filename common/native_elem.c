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
