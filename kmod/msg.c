// SPDX-License-Identifier: GPL-2.0
/*
 * Messages: MPIRMA_IOC_MSG_SEND / _RECV, the point-to-point channel the
 * library builds MPI_Send/Recv and its collectives on.
 *
 * Each rank has a mailbox: a FIFO of messages copied into the kernel by their
 * senders.  A send never waits (buffered semantics: two ranks exchanging
 * large messages cannot deadlock on the channel); a receive takes the oldest
 * message matching (source, tag, context), so messages from one sender in
 * one context are never overtaken.  A receiver sleeps in the kernel on its
 * mailbox, not spinning on shared memory, and is woken with EOWNERDEAD when
 * the rank it waits for is gone.  Queued messages are freed with the job.
 */
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "fault.h"
#include "mpirma.h"

struct mpirma_message {
	struct list_head node;		/* in mbox->msgs */
	u32 source;
	s32 tag;
	u64 context;
	u64 len;
	u8 *data;			/* kvmalloc'ed, @len bytes */
};

int mpirma_mboxes_alloc(struct mpirma_job *job)
{
	u32 r;

	job->mbox = MPIRMA_FAULT_POINT(NULL, kcalloc(job->nranks, sizeof(*job->mbox), GFP_KERNEL));
	if (!job->mbox)
		return -ENOMEM;
	for (r = 0; r < job->nranks; r++) {
		spin_lock_init(&job->mbox[r].lock);
		INIT_LIST_HEAD(&job->mbox[r].msgs);
		init_waitqueue_head(&job->mbox[r].wq);
	}
	return 0;
}

static void message_free(struct mpirma_message *msg)
{
	atomic_long_sub(msg->len, &mpirma_msg_bytes);
	kvfree(msg->data);
	kfree(msg);
}

void mpirma_mboxes_free(struct mpirma_job *job)
{
	struct mpirma_message *msg, *tmp;
	u32 r;

	if (!job->mbox)
		return;
	for (r = 0; r < job->nranks; r++)
		list_for_each_entry_safe(msg, tmp, &job->mbox[r].msgs, node)
			message_free(msg);
	kfree(job->mbox);
}

/* A rank went: receivers waiting for it must look again. */
void mpirma_mboxes_wake(struct mpirma_job *job)
{
	u32 r;

	for (r = 0; r < job->nranks; r++)
		wake_up_all(&job->mbox[r].wq);
}

/**
 * mpirma_msg_send - MPIRMA_IOC_MSG_SEND
 * @m: the sender
 * @arg: its arguments
 *
 * Return: 0, -EINVAL, -ENXIO, -EFAULT, -ENOMEM, -EOWNERDEAD.
 */
int mpirma_msg_send(struct mpirma_member *m, struct mpirma_msg *arg)
{
	struct mpirma_job *job = m->job;
	struct mpirma_message *msg;
	struct mpirma_mbox *box;

	if (arg->flags || arg->tag < 0 || arg->msg_len || arg->source || arg->msg_tag)
		return -EINVAL;
	if (arg->peer >= job->nranks)
		return -ENXIO;
	if (mpirma_rank_gone(job, arg->peer))
		return -EOWNERDEAD;
	if (arg->len > (u64)totalram_pages() << PAGE_SHIFT)
		return -ENOMEM;

	msg = MPIRMA_FAULT_POINT(NULL, kzalloc(sizeof(*msg), GFP_KERNEL_ACCOUNT));
	if (!msg)
		return -ENOMEM;
	msg->source = m->rank;
	msg->tag = arg->tag;
	msg->context = arg->context;
	msg->len = arg->len;
	if (msg->len) {
		msg->data = MPIRMA_FAULT_POINT(NULL, kvmalloc(msg->len, GFP_KERNEL_ACCOUNT | __GFP_NOWARN));
		if (!msg->data) {
			kfree(msg);
			return -ENOMEM;
		}
		if (copy_from_user(msg->data, u64_to_user_ptr(arg->buf), msg->len)) {
			kvfree(msg->data);
			kfree(msg);
			return -EFAULT;
		}
	}
	atomic_long_add(msg->len, &mpirma_msg_bytes);
	box = &job->mbox[arg->peer];
	spin_lock(&box->lock);
	list_add_tail(&msg->node, &box->msgs);
	spin_unlock(&box->lock);
	wake_up_all(&box->wq);
	return 0;
}

static bool msg_matches(const struct mpirma_message *msg, const struct mpirma_msg *arg)
{
	return msg->context == arg->context &&
	       (arg->peer == MPIRMA_ANY_SOURCE || msg->source == arg->peer) &&
	       (arg->tag == MPIRMA_ANY_TAG || msg->tag == arg->tag);
}

/*
 * Look for the oldest matching message and describe it into @arg while the
 * lock is held (another thread of the rank may take it the moment the lock
 * is dropped); unlink and return it unless @peek.  *@found tells whether
 * one matched; when none did, *@err says whether one can still come
 * (-EOWNERDEAD when the source is gone).
 */
static struct mpirma_message *msg_find(struct mpirma_job *job, struct mpirma_mbox *box,
				       struct mpirma_msg *arg, bool peek, bool *found, int *err)
{
	struct mpirma_message *msg, *taken = NULL;

	*found = false;
	spin_lock(&box->lock);
	list_for_each_entry(msg, &box->msgs, node) {
		if (!msg_matches(msg, arg))
			continue;
		*found = true;
		arg->msg_len = msg->len;
		arg->source = msg->source;
		arg->msg_tag = msg->tag;
		if (!peek) {
			list_del(&msg->node);
			taken = msg;
		}
		break;
	}
	spin_unlock(&box->lock);
	if (!*found)
		*err = (arg->peer == MPIRMA_ANY_SOURCE ? atomic_read(&job->ngone) :
			mpirma_rank_gone(job, arg->peer)) ? -EOWNERDEAD : 0;
	return taken;
}

/**
 * mpirma_msg_recv - MPIRMA_IOC_MSG_RECV
 * @m: the receiver
 * @arg: its arguments; msg_len, source and msg_tag are filled in
 *
 * Return: 0, -EINVAL, -ENXIO, -EFAULT, -EAGAIN (NOWAIT), -EOWNERDEAD,
 * -ERESTARTSYS.  A message that does not fit is consumed and truncated
 * (msg_len > len tells).
 */
int mpirma_msg_recv(struct mpirma_member *m, struct mpirma_msg *arg)
{
	struct mpirma_job *job = m->job;
	struct mpirma_mbox *box = &job->mbox[m->rank];
	bool peek = arg->flags & MPIRMA_MSG_PEEK;
	struct mpirma_message *msg;
	bool found;
	int err = 0, ret;

	if (arg->flags & ~(MPIRMA_MSG_NOWAIT | MPIRMA_MSG_PEEK))
		return -EINVAL;
	if (arg->tag < 0 && arg->tag != MPIRMA_ANY_TAG)
		return -EINVAL;
	if (arg->peer != MPIRMA_ANY_SOURCE && arg->peer >= job->nranks)
		return -ENXIO;

	msg = msg_find(job, box, arg, peek, &found, &err);
	if (!found && !err) {
		if (arg->flags & MPIRMA_MSG_NOWAIT)
			return -EAGAIN;
		ret = wait_event_interruptible(box->wq,
					       (msg = msg_find(job, box, arg, peek, &found, &err),
						found || err));
		if (ret)
			return ret;
	}
	if (!found)
		return err;
	if (peek)
		return 0;
	ret = 0;
	if (copy_to_user(u64_to_user_ptr(arg->buf), msg->data, min(arg->len, msg->len)))
		ret = -EFAULT;
	message_free(msg);
	return ret;
}
