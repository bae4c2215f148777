/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every difference between the kernel versions mpirma builds against lives
 * here, so the rest of the module is written against one API (the newest).
 * Built and tested: 6.1 (Debian 12).
 */
#ifndef MPIRMA_COMPAT_H
#define MPIRMA_COMPAT_H

#include <linux/mm.h>
#include <linux/version.h>

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

#endif /* MPIRMA_COMPAT_H */
