// SPDX-License-Identifier: GPL-2.0
/*
 * Jobs and members.
 *
 * A job is a capability: whoever holds its fd may join it as one of its
 * ranks, and only its member fds reach its windows.  A rank joins at most
 * once.  A rank is "gone" when its member fd is released, or when it can no
 * longer join because the job fd has been closed by everyone; gone is
 * permanent, and every wait that depends on a gone rank ends with
 * EOWNERDEAD.  Waits sleep on job->wq and are woken on every change.
 */
#include <linux/anon_inodes.h>
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "fault.h"
#include "mpirma.h"

static atomic64_t mpirma_next_job_id = ATOMIC64_INIT(0);

void mpirma_barrier_init(struct mpirma_barrier *b)
{
	spin_lock_init(&b->lock);
	b->arrived = 0;
	b->generation = 0;
}

static bool barrier_passed(struct mpirma_barrier *b, u64 gen)
{
	bool passed;

	spin_lock(&b->lock);
	passed = b->generation != gen;
	spin_unlock(&b->lock);
	return passed;
}

/**
 * mpirma_barrier_wait - wait until @n ranks have arrived at @b
 * @job: the job whose wait queue to sleep on
 * @b: the barrier
 * @n: ranks taking part
 * @ngone: how many of them are gone; any makes the barrier fail
 *
 * Return: 0; -EOWNERDEAD if a rank taking part is gone before the barrier
 * opened; -ERESTARTSYS on a signal.  On failure the caller's arrival is
 * withdrawn, so the call can be repeated.
 */
int mpirma_barrier_wait(struct mpirma_job *job, struct mpirma_barrier *b, u32 n,
			atomic_t *ngone)
{
	u64 gen;
	int ret;

	if (atomic_read(ngone))
		return -EOWNERDEAD;
	spin_lock(&b->lock);
	gen = b->generation;
	if (++b->arrived == n) {
		b->arrived = 0;
		b->generation++;
		spin_unlock(&b->lock);
		wake_up_all(&job->wq);
		return 0;
	}
	spin_unlock(&b->lock);

	ret = wait_event_interruptible(job->wq, barrier_passed(b, gen) || atomic_read(ngone));

	spin_lock(&b->lock);
	if (b->generation != gen) {
		spin_unlock(&b->lock);
		return 0;
	}
	b->arrived--;
	spin_unlock(&b->lock);
	return ret ? ret : -EOWNERDEAD;
}

static void job_release(struct kref *ref)
{
	struct mpirma_job *job = container_of(ref, struct mpirma_job, ref);

	mutex_lock(&mpirma_jobs_lock);
	list_del(&job->node);
	mutex_unlock(&mpirma_jobs_lock);

	/* Every member has left every live window; only failed creations remain. */
	mpirma_win_destroy_pending(job);
	WARN_ON(!xa_empty(&job->windows));
	xa_destroy(&job->windows);
	mpirma_mboxes_free(job);
	mpirma_offers_free(job);
	bitmap_free(job->joined);
	bitmap_free(job->gone);
	mutex_destroy(&job->lock);
	kfree(job);
	atomic_long_dec(&mpirma_nr_jobs);
}

void mpirma_job_put(struct mpirma_job *job)
{
	kref_put(&job->ref, job_release);
}

/**
 * mpirma_job_create - MPIRMA_IOC_JOB_CREATE
 * @arg: the caller's arguments; job_fd and job_id are filled in
 *
 * Return: 0 or a negative errno (see mpirma_uapi.h).
 */
int mpirma_job_create(struct mpirma_job_create *arg)
{
	struct mpirma_job *job;
	int fd;

	if (arg->flags)
		return -EINVAL;
	if (!arg->nranks || arg->nranks > MPIRMA_MAX_RANKS)
		return -EINVAL;

	job = MPIRMA_FAULT_POINT(NULL, kzalloc(sizeof(*job), GFP_KERNEL));
	if (!job)
		return -ENOMEM;
	kref_init(&job->ref);
	job->nranks = arg->nranks;
	mutex_init(&job->lock);
	INIT_LIST_HEAD(&job->pending);
	xa_init_flags(&job->windows, XA_FLAGS_ALLOC1);
	init_waitqueue_head(&job->wq);
	mpirma_barrier_init(&job->barrier);
	job->joined = MPIRMA_FAULT_POINT(NULL, bitmap_zalloc(job->nranks, GFP_KERNEL));
	job->gone = MPIRMA_FAULT_POINT(NULL, bitmap_zalloc(job->nranks, GFP_KERNEL));
	if (!job->joined || !job->gone || mpirma_mboxes_alloc(job) ||
	    mpirma_offers_alloc(job)) {
		fd = -ENOMEM;
		goto out_free_job;
	}
	job->id = atomic64_inc_return(&mpirma_next_job_id);

	fd = MPIRMA_FAULT_POINT(-ENOMEM, anon_inode_getfd("[mpirma-job]", &mpirma_job_fops, job,
						     O_RDWR | O_CLOEXEC));
	if (fd < 0)
		goto out_free_job;
	/* From here on the fd owns the reference: nothing may fail. */
	atomic_long_inc(&mpirma_nr_jobs);
	mutex_lock(&mpirma_jobs_lock);
	list_add_tail(&job->node, &mpirma_jobs);
	mutex_unlock(&mpirma_jobs_lock);
	arg->job_fd = fd;
	arg->job_id = job->id;
	return 0;

out_free_job:
	mpirma_mboxes_free(job);
	mpirma_offers_free(job);
	bitmap_free(job->joined);
	bitmap_free(job->gone);
	mutex_destroy(&job->lock);
	kfree(job);
	return fd;
}

/* Under job->lock: mark @rank gone and let every dependent wait fail. */
static void job_mark_gone(struct mpirma_job *job, u32 rank)
{
	lockdep_assert_held(&job->lock);

	if (test_and_set_bit(rank, job->gone))
		return;
	atomic_inc(&job->ngone);
	mpirma_win_member_gone(job, rank);
	mpirma_mboxes_wake(job);
}

/**
 * mpirma_job_join - MPIRMA_IOC_JOB_JOIN
 * @job: the job of the fd the call came on
 * @arg: the caller's arguments; member_fd, nranks and job_id are filled in
 *
 * Return: 0, -EINVAL, -ENXIO (no such rank), -EBUSY (joined already or gone),
 * -ENOMEM, -EMFILE...
 */
int mpirma_job_join(struct mpirma_job *job, struct mpirma_job_join *arg)
{
	struct mpirma_member *m;
	struct file *file;
	int fd, ret;

	if (arg->flags || arg->reserved)
		return -EINVAL;
	if (arg->rank >= job->nranks)
		return -ENXIO;

	m = MPIRMA_FAULT_POINT(NULL, kzalloc(sizeof(*m), GFP_KERNEL));
	if (!m)
		return -ENOMEM;
	m->job = job;
	m->rank = arg->rank;
	mutex_init(&m->rma_lock);

	fd = MPIRMA_FAULT_POINT(-EMFILE, get_unused_fd_flags(O_CLOEXEC));
	if (fd < 0) {
		ret = fd;
		goto out_free_member;
	}
	file = MPIRMA_FAULT_POINT(ERR_PTR(-ENOMEM),
				  anon_inode_getfile("[mpirma-member]", &mpirma_member_fops, m, O_RDWR));
	if (IS_ERR(file)) {
		ret = PTR_ERR(file);
		goto out_put_fd;
	}

	mutex_lock(&job->lock);
	if (test_bit(m->rank, job->joined) || test_bit(m->rank, job->gone)) {
		mutex_unlock(&job->lock);
		ret = -EBUSY;
		goto out_put_file;
	}
	set_bit(m->rank, job->joined);
	kref_get(&job->ref);
	mutex_unlock(&job->lock);

	fd_install(fd, file);
	arg->member_fd = fd;
	arg->nranks = job->nranks;
	arg->job_id = job->id;
	return 0;

out_put_file:
	/* The member was never joined: release must not treat it as one. */
	m->job = NULL;
	fput(file);
	put_unused_fd(fd);
	return ret;
out_put_fd:
	put_unused_fd(fd);
out_free_member:
	kfree(m);
	return ret;
}

/**
 * mpirma_job_fd_closed - the last reference to a job fd went away
 * @job: the job
 *
 * Nobody can join any more: ranks that have not joined are gone.
 */
void mpirma_job_fd_closed(struct mpirma_job *job)
{
	u32 rank;

	mutex_lock(&job->lock);
	for (rank = 0; rank < job->nranks; rank++)
		if (!test_bit(rank, job->joined))
			job_mark_gone(job, rank);
	mutex_unlock(&job->lock);
	wake_up_all(&job->wq);
	mpirma_job_put(job);
}

/**
 * mpirma_member_release - the member fd's last reference went away
 * @m: the member
 *
 * The rank is gone: its locks are released, waits depending on it fail,
 * it leaves every window it had not freed.
 */
void mpirma_member_release(struct mpirma_member *m)
{
	struct mpirma_job *job = m->job;

	if (job) {
		mutex_lock(&job->lock);
		job_mark_gone(job, m->rank);
		mutex_unlock(&job->lock);
		wake_up_all(&job->wq);
		mpirma_offers_drop_rank(job, m->rank);
		mpirma_job_put(job);
	}
	mpirma_rma_ctx_free(m);
	mutex_destroy(&m->rma_lock);
	kfree(m);
}
