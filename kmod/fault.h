/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fault injection, for tests only.
 *
 * Every allocation and every pin of the module is written as
 *	p = MPIRMA_FAULT_POINT(NULL, kmalloc(...));
 * In a normal build that is just the call.  Built with
 * CONFIG_MPIRMA_FAULT_INJECT=y (make fault-module), fault.c counts the fault
 * points one process passes and makes the n-th one fail without making the
 * call, so a test can walk n upward and run every unwind path.  The knobs
 * are module parameters (see fault.c).
 */
#ifndef MPIRMA_FAULT_H
#define MPIRMA_FAULT_H

#include <linux/types.h>

#ifdef MPIRMA_FAULT_INJECT
bool mpirma_fail(void);
void mpirma_fault_exit(void);
#else
static inline bool mpirma_fail(void)
{
	return false;
}

static inline void mpirma_fault_exit(void)
{
}
#endif

/* @call, or @failed without making the call when this point is to fail. */
#define MPIRMA_FAULT_POINT(failed, call)	(mpirma_fail() ? (failed) : (call))

#endif /* MPIRMA_FAULT_H */
