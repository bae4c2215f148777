// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection (built only with CONFIG_MPIRMA_FAULT_INJECT=y): make the
 * n-th fault point (fault.h) one process passes fail.
 *
 * Module parameters, in /sys/module/mpirma/parameters/:
 *   fault_nth       writing N arms injection for the writing process: its
 *                   fault points are counted from 0 and the N-th fails
 *                   (0 disarms).  Given to insmod, it arms insmod itself,
 *                   so the module's own initialisation is walked too.
 *   fault_calls     fault points the armed process passed since arming
 *   fault_injected  failures injected since the module was loaded
 * Only the armed process is counted (its threads too), so a test's faults
 * land in its own calls and never in another process's.
 */
#include <linux/atomic.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/spinlock.h>

#include "fault.h"

/* Protects fault_target and fault_nth as a pair while (re)arming. */
static DEFINE_SPINLOCK(fault_lock);
static struct pid *fault_target;	/* counted process; NULL: disarmed */
static unsigned int fault_nth;
static atomic_t fault_calls = ATOMIC_INIT(0);
static atomic_t fault_injected = ATOMIC_INIT(0);

bool mpirma_fail(void)
{
	unsigned long flags;
	unsigned int nth;
	bool mine;
	int n;

	/* The reference held on the target keeps its struct pid unique. */
	spin_lock_irqsave(&fault_lock, flags);
	mine = fault_target && fault_target == task_tgid(current);
	nth = fault_nth;
	spin_unlock_irqrestore(&fault_lock, flags);
	if (!mine)
		return false;
	n = atomic_inc_return(&fault_calls);
	if (n != nth)
		return false;
	atomic_inc(&fault_injected);
	pr_info("mpirma: fault injected at point %d: %pS\n", n, __builtin_return_address(0));
	return true;
}

static int fault_nth_set(const char *val, const struct kernel_param *kp)
{
	struct pid *old, *target = NULL;
	unsigned int nth;
	int ret;

	ret = kstrtouint(val, 0, &nth);
	if (ret)
		return ret;
	if (nth)
		target = get_pid(task_tgid(current));
	spin_lock_irq(&fault_lock);
	old = fault_target;
	fault_target = target;
	fault_nth = nth;
	atomic_set(&fault_calls, 0);
	spin_unlock_irq(&fault_lock);
	put_pid(old);
	return 0;
}

static int fault_nth_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%u\n", READ_ONCE(fault_nth));
}

static int fault_read_only(const char *val, const struct kernel_param *kp)
{
	return -EPERM;
}

static int fault_counter_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops fault_nth_ops = {
	.set = fault_nth_set,
	.get = fault_nth_get,
};

static const struct kernel_param_ops fault_counter_ops = {
	.set = fault_read_only,
	.get = fault_counter_get,
};

module_param_cb(fault_nth, &fault_nth_ops, NULL, 0600);
MODULE_PARM_DESC(fault_nth, "fail the writer's N-th fault point (0: never; test builds only)");
module_param_cb(fault_calls, &fault_counter_ops, &fault_calls, 0444);
MODULE_PARM_DESC(fault_calls, "fault points the armed process passed since arming");
module_param_cb(fault_injected, &fault_counter_ops, &fault_injected, 0444);
MODULE_PARM_DESC(fault_injected, "failures injected since the module was loaded");

/* Module unload: drop the reference on the armed process. */
void mpirma_fault_exit(void)
{
	spin_lock_irq(&fault_lock);
	put_pid(fault_target);
	fault_target = NULL;
	spin_unlock_irq(&fault_lock);
}
