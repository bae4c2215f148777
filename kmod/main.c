// SPDX-License-Identifier: GPL-2.0
/*
 * mpirma: node-local MPI one-sided communication in the kernel.
 *
 * This file holds the module's entry points: the misc device, the three
 * kinds of fd (device, job, member) and the one ioctl dispatcher all of them
 * share.  The dispatcher is table driven: it checks that a command exists
 * for the fd, copies the argument struct in once (size contract of
 * mpirma_uapi.h), calls the handler and copies the struct back, so handlers
 * never touch the user's argument pointer.  Commands are matched by number
 * only, so a struct that grows keeps its command.
 */
#include <linux/compat.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>

#include "copy.h"
#include "fault.h"
#include "mpirma.h"
#include "reduce.h"
#include "strategy.h"
#include "workers.h"

atomic_long_t mpirma_pages_pinned;
atomic_long_t mpirma_pages_allocated;
atomic_long_t mpirma_nr_jobs;
atomic_long_t mpirma_nr_windows;
atomic_long_t mpirma_msg_bytes;
DEFINE_MUTEX(mpirma_jobs_lock);	/* protects mpirma_jobs */
LIST_HEAD(mpirma_jobs);

enum mpirma_fd_kind {
	FD_DEV = 1 << 0,
	FD_JOB = 1 << 1,
	FD_MEMBER = 1 << 2,
	FD_ANY = FD_DEV | FD_JOB | FD_MEMBER,
};

/* Every argument struct; the dispatcher's buffer. */
union mpirma_ioctl_buf {
	struct mpirma_query query;
	struct mpirma_job_create job_create;
	struct mpirma_job_join job_join;
	struct mpirma_win_create win_create;
	struct mpirma_win_query win_query;
	struct mpirma_win_attach win_attach;
	struct mpirma_win_sync win_sync;
	struct mpirma_win_lockwait win_lockwait;
	struct mpirma_win_region win_region;
	struct mpirma_win_group win_group;
	struct mpirma_win_stats win_stats;
	struct mpirma_win_stats_add win_stats_add;
	struct mpirma_win_placement win_placement;
	struct mpirma_rma rma;
	struct mpirma_msg msg;
	struct mpirma_msg_copy msg_copy;
};

static int do_query(struct file *f, void *arg)
{
	struct mpirma_query *q = arg;
	u32 op;

	if (q->flags)
		return -EINVAL;
	q->features = MPIRMA_FEAT_WIN_USER | MPIRMA_FEAT_WIN_ALLOC | MPIRMA_FEAT_WIN_DYNAMIC |
		      MPIRMA_FEAT_LAYOUTS | MPIRMA_FEAT_PSCW | MPIRMA_FEAT_STATS |
		      MPIRMA_FEAT_MSG | MPIRMA_FEAT_PLACEMENT | MPIRMA_FEAT_STATS_ADD |
		      MPIRMA_FEAT_ULOCK | MPIRMA_FEAT_REGION_MAP |
		      MPIRMA_FEAT_BULK | MPIRMA_FEAT_MSG_COPY |
		      MPIRMA_FEAT_WSYNC | MPIRMA_FEAT_OFFER_END;
	if (mpirma_map_user_enabled())
		q->features |= MPIRMA_FEAT_MAP_USER;
	q->max_ranks = MPIRMA_MAX_RANKS;
	q->max_batch = MPIRMA_MAX_BATCH;
	q->nr_types = MPIRMA_NR_TYPES;
	q->nr_ops = MPIRMA_NR_OPS;
	q->nr_strategies = MPIRMA_NR_STRATEGIES;
	q->default_strategy = mpirma_default_strategy();
	q->page_size = PAGE_SIZE;
	q->nr_numa_nodes = nr_node_ids;
	BUILD_BUG_ON(ARRAY_SIZE(q->op_type_mask) < MPIRMA_NR_OPS);
	BUILD_BUG_ON(sizeof(q->op_type_mask[0]) * BITS_PER_BYTE < MPIRMA_NR_TYPES);
	memset(q->op_type_mask, 0, sizeof(q->op_type_mask));
	for (op = 0; op < MPIRMA_NR_OPS; op++)
		q->op_type_mask[op] = mpirma_op_type_mask(op);
	return 0;
}

static int do_null(struct file *f, void *arg)
{
	return 0;
}

static int do_job_create(struct file *f, void *arg)
{
	return mpirma_job_create(arg);
}

static int do_job_join(struct file *f, void *arg)
{
	return mpirma_job_join(f->private_data, arg);
}

static int do_job_barrier(struct file *f, void *arg)
{
	struct mpirma_member *m = f->private_data;

	return mpirma_barrier_wait(m->job, &m->job->barrier, m->job->nranks, &m->job->ngone);
}

#define MEMBER_CMD(name, fn, type)					\
static int do_##name(struct file *f, void *arg)				\
{									\
	return fn(f->private_data, (type *)arg);			\
}

MEMBER_CMD(win_create, mpirma_win_create, struct mpirma_win_create)
MEMBER_CMD(win_free, mpirma_win_free, struct mpirma_win_sync)
MEMBER_CMD(win_query, mpirma_win_query, struct mpirma_win_query)
MEMBER_CMD(win_attach, mpirma_win_attach, struct mpirma_win_attach)
MEMBER_CMD(win_detach, mpirma_win_detach, struct mpirma_win_attach)
MEMBER_CMD(win_stats, mpirma_win_stats, struct mpirma_win_stats)
MEMBER_CMD(win_stats_add, mpirma_win_stats_add, struct mpirma_win_stats_add)
MEMBER_CMD(win_placement, mpirma_win_placement, struct mpirma_win_placement)
MEMBER_CMD(rma, mpirma_rma, struct mpirma_rma)
MEMBER_CMD(win_fence, mpirma_win_fence, struct mpirma_win_sync)
MEMBER_CMD(win_lock, mpirma_win_lock, struct mpirma_win_sync)
MEMBER_CMD(win_unlock, mpirma_win_unlock, struct mpirma_win_sync)
MEMBER_CMD(win_lock_wait, mpirma_win_lock_wait, struct mpirma_win_lockwait)
MEMBER_CMD(win_region, mpirma_win_region, struct mpirma_win_region)
MEMBER_CMD(win_post, mpirma_win_post, struct mpirma_win_group)
MEMBER_CMD(win_start, mpirma_win_start, struct mpirma_win_group)
MEMBER_CMD(win_complete, mpirma_win_complete, struct mpirma_win_sync)
MEMBER_CMD(win_wait, mpirma_win_wait, struct mpirma_win_sync)
MEMBER_CMD(msg_send, mpirma_msg_send, struct mpirma_msg)
MEMBER_CMD(msg_recv, mpirma_msg_recv, struct mpirma_msg)
MEMBER_CMD(msg_offer, mpirma_msg_offer, struct mpirma_msg_copy)
MEMBER_CMD(msg_take, mpirma_msg_take, struct mpirma_msg_copy)
MEMBER_CMD(msg_withdraw, mpirma_msg_withdraw, struct mpirma_msg_copy)
MEMBER_CMD(msg_help, mpirma_msg_help, struct mpirma_msg_copy)

/**
 * struct mpirma_ioctl_op - one command of the dispatch table
 * @fds: the fd kinds it may be issued on
 * @size: sizeof its struct (0: _IO command without argument)
 * @min_size: the smallest size the caller may pass (the first version)
 * @irrevocable: what it does cannot be undone (an fd installed, a rank
 *	joined, a window created): the struct must be writable before it runs
 * @handler: does the work on the kernel copy of the struct
 */
struct mpirma_ioctl_op {
	unsigned int fds;
	size_t size;
	size_t min_size;
	bool irrevocable;
	int (*handler)(struct file *f, void *arg);
};

#define IOCTL_OP(cmd, kinds, type, fn)					\
	IOCTL_OP_GREW(cmd, kinds, type, sizeof(type), fn)
/* A struct that grew: callers built against its first version still work. */
#define IOCTL_OP_GREW(cmd, kinds, type, v0_size, fn)			\
	[_IOC_NR(cmd)] = {						\
		.fds = kinds, .size = sizeof(type), .min_size = v0_size,	\
		.handler = fn,						\
	}
#define IOCTL_OP_NOARG(cmd, kinds, fn)					\
	[_IOC_NR(cmd)] = { .fds = kinds, .handler = fn }
#define IOCTL_OP_IRREVOCABLE(cmd, kinds, type, fn)			\
	[_IOC_NR(cmd)] = {						\
		.fds = kinds, .size = sizeof(type), .min_size = sizeof(type),	\
		.irrevocable = true, .handler = fn,			\
	}

static const struct mpirma_ioctl_op mpirma_ioctl_ops[] = {
	IOCTL_OP(MPIRMA_IOC_QUERY, FD_ANY, struct mpirma_query, do_query),
	IOCTL_OP_IRREVOCABLE(MPIRMA_IOC_JOB_CREATE, FD_DEV, struct mpirma_job_create,
			     do_job_create),
	IOCTL_OP_NOARG(MPIRMA_IOC_NULL, FD_ANY, do_null),
	IOCTL_OP_IRREVOCABLE(MPIRMA_IOC_JOB_JOIN, FD_JOB, struct mpirma_job_join, do_job_join),
	IOCTL_OP_IRREVOCABLE(MPIRMA_IOC_WIN_CREATE, FD_MEMBER, struct mpirma_win_create,
			     do_win_create),
	IOCTL_OP(MPIRMA_IOC_WIN_FREE, FD_MEMBER, struct mpirma_win_sync, do_win_free),
	IOCTL_OP_GREW(MPIRMA_IOC_WIN_QUERY, FD_MEMBER, struct mpirma_win_query,
		      offsetofend(struct mpirma_win_query, my_rank), do_win_query),
	IOCTL_OP(MPIRMA_IOC_WIN_ATTACH, FD_MEMBER, struct mpirma_win_attach, do_win_attach),
	IOCTL_OP(MPIRMA_IOC_WIN_DETACH, FD_MEMBER, struct mpirma_win_attach, do_win_detach),
	IOCTL_OP_GREW(MPIRMA_IOC_WIN_STATS, FD_MEMBER, struct mpirma_win_stats,
		      offsetofend(struct mpirma_win_stats, pages), do_win_stats),
	IOCTL_OP(MPIRMA_IOC_WIN_STATS_ADD, FD_MEMBER, struct mpirma_win_stats_add,
		 do_win_stats_add),
	IOCTL_OP(MPIRMA_IOC_WIN_PLACEMENT, FD_MEMBER, struct mpirma_win_placement,
		 do_win_placement),
	IOCTL_OP(MPIRMA_IOC_WIN_REGION, FD_MEMBER, struct mpirma_win_region, do_win_region),
	IOCTL_OP(MPIRMA_IOC_RMA, FD_MEMBER, struct mpirma_rma, do_rma),
	IOCTL_OP(MPIRMA_IOC_WIN_FENCE, FD_MEMBER, struct mpirma_win_sync, do_win_fence),
	IOCTL_OP(MPIRMA_IOC_WIN_LOCK, FD_MEMBER, struct mpirma_win_sync, do_win_lock),
	IOCTL_OP(MPIRMA_IOC_WIN_UNLOCK, FD_MEMBER, struct mpirma_win_sync, do_win_unlock),
	IOCTL_OP(MPIRMA_IOC_WIN_LOCK_WAIT, FD_MEMBER, struct mpirma_win_lockwait,
		 do_win_lock_wait),
	IOCTL_OP(MPIRMA_IOC_WIN_POST, FD_MEMBER, struct mpirma_win_group, do_win_post),
	IOCTL_OP(MPIRMA_IOC_WIN_START, FD_MEMBER, struct mpirma_win_group, do_win_start),
	IOCTL_OP(MPIRMA_IOC_WIN_COMPLETE, FD_MEMBER, struct mpirma_win_sync, do_win_complete),
	IOCTL_OP(MPIRMA_IOC_WIN_WAIT, FD_MEMBER, struct mpirma_win_sync, do_win_wait),
	IOCTL_OP_NOARG(MPIRMA_IOC_JOB_BARRIER, FD_MEMBER, do_job_barrier),
	IOCTL_OP(MPIRMA_IOC_MSG_SEND, FD_MEMBER, struct mpirma_msg, do_msg_send),
	IOCTL_OP(MPIRMA_IOC_MSG_RECV, FD_MEMBER, struct mpirma_msg, do_msg_recv),
	IOCTL_OP(MPIRMA_IOC_MSG_OFFER, FD_MEMBER, struct mpirma_msg_copy, do_msg_offer),
	IOCTL_OP(MPIRMA_IOC_MSG_TAKE, FD_MEMBER, struct mpirma_msg_copy, do_msg_take),
	IOCTL_OP(MPIRMA_IOC_MSG_WITHDRAW, FD_MEMBER, struct mpirma_msg_copy, do_msg_withdraw),
	IOCTL_OP(MPIRMA_IOC_MSG_HELP, FD_MEMBER, struct mpirma_msg_copy, do_msg_help),
};

/*
 * Structs of whole words between user and kernel memory, a word at a time
 * inside one user access section.  copy_{from,to}_user() are a rep movsb on
 * CPUs with ERMS, whose start-up cost dominates a copy of a few dozen bytes
 * (and which emulators run a byte per step); ioctl argument structs and RMA
 * operations are that small and that often copied.  @size is a multiple of
 * 8.  Return 0 or -EFAULT.
 */
int mpirma_copy_words_in(void *dst, const void __user *src, size_t size)
{
	const u64 __user *s = src;
	u64 *d = dst;
	size_t i;

	if (WARN_ON_ONCE(size % sizeof(u64)) || !user_access_begin(src, size))
		return -EFAULT;
	for (i = 0; i < size / sizeof(u64); i++)
		unsafe_get_user(d[i], &s[i], out_fault);
	user_access_end();
	return 0;

out_fault:
	user_access_end();
	return -EFAULT;
}

int mpirma_copy_words_out(void __user *dst, const void *src, size_t size)
{
	u64 __user *d = dst;
	const u64 *s = src;
	size_t i;

	if (WARN_ON_ONCE(size % sizeof(u64)) || !user_access_begin(dst, size))
		return -EFAULT;
	for (i = 0; i < size / sizeof(u64); i++)
		unsafe_put_user(s[i], &d[i], out_fault);
	user_access_end();
	return 0;

out_fault:
	user_access_end();
	return -EFAULT;
}

static long mpirma_dispatch(struct file *f, unsigned int cmd, unsigned long uarg,
			    unsigned int kind)
{
	const struct mpirma_ioctl_op *op;
	void __user *up = (void __user *)uarg;
	union mpirma_ioctl_buf buf;
	u32 usize;
	int ret;

	if (_IOC_TYPE(cmd) != MPIRMA_IOC_MAGIC || _IOC_NR(cmd) >= ARRAY_SIZE(mpirma_ioctl_ops))
		return -ENOTTY;
	op = &mpirma_ioctl_ops[_IOC_NR(cmd)];
	if (!op->handler || !(op->fds & kind))
		return -ENOTTY;
	if (!op->size)
		return op->handler(f, NULL);

	if (get_user(usize, (u32 __user *)up))
		return -EFAULT;
	if (usize < op->min_size)
		return -EINVAL;
	if (usize > PAGE_SIZE)
		return -E2BIG;
	if (usize == op->size && !(usize % sizeof(u64)))
		ret = mpirma_copy_words_in(&buf, up, usize);
	else
		ret = copy_struct_from_user(&buf, op->size, up, usize);
	if (ret)
		return ret;
	/*
	 * Writing the caller's own bytes back proves the answer can be
	 * delivered; otherwise EFAULT would come after an fd was installed or
	 * a rank used up, with the caller never told which.
	 */
	if (op->irrevocable && copy_to_user(up, &buf, min_t(size_t, usize, op->size)))
		return -EFAULT;
	ret = op->handler(f, &buf);
	if (ret)
		return ret;
	if (usize == op->size && !(usize % sizeof(u64)))
		return mpirma_copy_words_out(up, &buf, usize);
	if (copy_to_user(up, &buf, min_t(size_t, usize, op->size)))
		return -EFAULT;
	return 0;
}

static long mpirma_dev_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	return mpirma_dispatch(f, cmd, arg, FD_DEV);
}

static long mpirma_job_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	return mpirma_dispatch(f, cmd, arg, FD_JOB);
}

static long mpirma_member_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	return mpirma_dispatch(f, cmd, arg, FD_MEMBER);
}

static int mpirma_job_release(struct inode *inode, struct file *f)
{
	mpirma_job_fd_closed(f->private_data);
	return 0;
}

static int mpirma_member_release_fd(struct inode *inode, struct file *f)
{
	mpirma_member_release(f->private_data);
	return 0;
}

static int mpirma_member_mmap(struct file *f, struct vm_area_struct *vma)
{
	return mpirma_win_mmap(f->private_data, vma);
}

const struct file_operations mpirma_job_fops = {
	.owner = THIS_MODULE,
	.release = mpirma_job_release,
	.unlocked_ioctl = mpirma_job_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

const struct file_operations mpirma_member_fops = {
	.owner = THIS_MODULE,
	.release = mpirma_member_release_fd,
	.unlocked_ioctl = mpirma_member_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = mpirma_member_mmap,
	.llseek = noop_llseek,
};

static const struct file_operations mpirma_dev_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = mpirma_dev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

/* /sys/class/misc/mpirma/<counter>: all zero when nothing is open. */
#define COUNTER_ATTR(name, counter)					\
static ssize_t name##_show(struct device *dev, struct device_attribute *attr, char *buf) \
{									\
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&(counter)));	\
}									\
static DEVICE_ATTR_RO(name)

COUNTER_ATTR(pages_pinned, mpirma_pages_pinned);
COUNTER_ATTR(pages_allocated, mpirma_pages_allocated);
COUNTER_ATTR(jobs, mpirma_nr_jobs);
COUNTER_ATTR(windows, mpirma_nr_windows);
COUNTER_ATTR(message_bytes, mpirma_msg_bytes);

static struct attribute *mpirma_attrs[] = {
	&dev_attr_pages_pinned.attr,
	&dev_attr_pages_allocated.attr,
	&dev_attr_jobs.attr,
	&dev_attr_windows.attr,
	&dev_attr_message_bytes.attr,
	NULL,
};
ATTRIBUTE_GROUPS(mpirma);

static struct miscdevice mpirma_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "mpirma",
	.fops = &mpirma_dev_fops,
	.groups = mpirma_groups,
	.mode = 0666,
};

static int __init mpirma_init(void)
{
	int ret;

	ret = mpirma_strategy_param_check();
	if (ret)
		goto out_fault;
	mpirma_copy_init();
	ret = mpirma_workers_start();
	if (ret)
		goto out_fault;
	ret = MPIRMA_FAULT_POINT(-ENOMEM, misc_register(&mpirma_misc));
	if (ret)
		goto out_stop_workers;
	mpirma_debugfs_init();
	return 0;

out_stop_workers:
	mpirma_workers_stop();
out_fault:
	/* insmod fault_nth=N armed injection for itself: disarm. */
	mpirma_fault_exit();
	return ret;
}

static void __exit mpirma_exit(void)
{
	mpirma_debugfs_exit();
	misc_deregister(&mpirma_misc);
	mpirma_workers_stop();
	mpirma_fault_exit();
}

module_init(mpirma_init);
module_exit(mpirma_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Node-local MPI one-sided communication (RMA) in the kernel");
MODULE_AUTHOR("The mpirma developers");
MODULE_VERSION("0.1.0");
