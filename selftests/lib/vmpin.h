/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmpin.h - what the kernel has pinned for this process, as /proc says:
 * the selftests and the MPI-level tests both check that what mpirma
 * pinned for a call is let go.
 */
#ifndef MPIRMA_VMPIN_H
#define MPIRMA_VMPIN_H

/* This process's VmPin in kB (pages pinned for it), or -1. */
long mt_vmpin_kb(void);

#endif /* MPIRMA_VMPIN_H */
