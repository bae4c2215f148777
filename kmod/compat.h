/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernel versions mpirma builds against lives
 * here, so the rest of the module is written against one API (the newest).
 * Built and tested: 6.1 and 6.12, generic and PREEMPT_RT (Debian 12); see
 * README.md, "Kernels".
 */
#ifndef MPIRMA_COMPAT_H
#define MPIRMA_COMPAT_H

#include <linux/atomic.h>
#include <linux/mm.h>
#include <linux/version.h>
/*
 * task_pid_nr() and the other task_*_nr() helpers: declared in linux/sched.h
 * up to 6.1, in linux/pid.h by 6.12 (which sched.h no longer pulls in).
 */
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

/*
 * (6.12 moved the unaligned accessors from asm/unaligned.h to
 * linux/unaligned.h: only common/ uses them, and common/reduce_env.h tests
 * that version itself, so that common/ needs nothing of kmod/.)
 */

/*
 * A copy from user space with non-temporal stores, ending in a store fence;
 * it does not check access_ok().  Returns the bytes not copied.  6.12's
 * stable series renamed __copy_from_user_inatomic_nocache() and announces
 * the new name with the copy_to_nontemporal macro.
 */
#ifdef copy_to_nontemporal
#define mpirma_copy_from_user_nt(dst, src, size) \
	copy_from_user_inatomic_nontemporal(dst, src, size)
#else
#define mpirma_copy_from_user_nt(dst, src, size) \
	__copy_from_user_inatomic_nocache(dst, src, size)
#endif

#if KERNEL_VERSION(6, 3, 0) > LINUX_VERSION_CODE
/* 6.3 made vm_flags read-only behind these helpers. */
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * 16-byte compare-and-exchange (cmpxchg16b): 6.6 replaced cmpxchg_double()
 * by try_cmpxchg128().  @p is 16-byte aligned; true when it held {o0, o1}
 * and now holds {n0, n1}.
 */
#if KERNEL_VERSION(6, 6, 0) > LINUX_VERSION_CODE
static inline bool mpirma_has_cmpxchg16(void)
{
	return system_has_cmpxchg_double();
}

static inline bool mpirma_cmpxchg16(u64 *p, u64 o0, u64 o1, u64 n0, u64 n1)
{
	return cmpxchg_double(p, p + 1, o0, o1, n0, n1);
}
#else
static inline bool mpirma_has_cmpxchg16(void)
{
	return system_has_cmpxchg128();
}

static inline bool mpirma_cmpxchg16(u64 *p, u64 o0, u64 o1, u64 n0, u64 n1)
{
	u128 old = (u128)o1 << 64 | o0;

	return try_cmpxchg128((u128 *)p, &old, (u128)n1 << 64 | n0);
}
#endif

#endif /* MPIRMA_COMPAT_H */
