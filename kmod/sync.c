// SPDX-License-Identifier: GPL-2.0
/*
 * Epoch synchronisation: fence, passive-target locks, PSCW.
 *
 * All state lives in struct mpirma_win_rank under win->sync_lock; waiters
 * sleep on job->wq and re-check under the lock, granting themselves what
 * they wait for in the same critical section (so a wake-up is never lost and
 * nothing is granted to a waiter that has gone).
 *
 * Passive-target locks are readers/writer locks per target with writer
 * preference: a shared request waits while an exclusive one is waiting, so
 * lock_all streams cannot starve MPI_Win_lock(EXCLUSIVE).  lock_all takes
 * the shared lock of every target in one step or waits; it never holds part
 * of them.  A rank that leaves the window (free or gone) drops everything
 * it holds.
 *
 * PSCW: a post from target t to origin o is counted in o's posts[t]; a start
 * consumes one post from each of its targets, so posts are matched per
 * (target, origin) pair and an early post for a later epoch waits its turn.
 * complete/wait do the same with completes[].
 */
#include <linux/bitops.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "fault.h"
#include "mpirma.h"

int mpirma_sync_alloc(struct mpirma_win *win)
{
	size_t n = win->nranks, i;
	u8 *held;
	u32 *counts;

	held = MPIRMA_FAULT_POINT(NULL, kvcalloc(n, n, GFP_KERNEL));
	counts = MPIRMA_FAULT_POINT(NULL, kvcalloc(array_size(n, n), 2 * sizeof(*counts),
						   GFP_KERNEL));
	if (!held || !counts) {
		kvfree(held);
		kvfree(counts);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		win->ranks[i].held = held + i * n;
		win->ranks[i].posts = counts + 2 * i * n;
		win->ranks[i].completes = counts + (2 * i + 1) * n;
	}
	return 0;
}

void mpirma_sync_free(struct mpirma_win *win)
{
	u32 i;

	if (!win->ranks || !win->nranks)
		return;
	kvfree(win->ranks[0].held);
	kvfree(win->ranks[0].posts);
	for (i = 0; i < win->nranks; i++) {
		kfree(win->ranks[i].post_group);
		kfree(win->ranks[i].start_group);
	}
}

/* Under sync_lock: drop one passive-target lock of @origin on @t. */
static void unlock_one(struct mpirma_win *win, u32 origin, u32 t)
{
	struct mpirma_win_rank *o = &win->ranks[origin];

	lockdep_assert_held(&win->sync_lock);

	if (o->held[t] == MPIRMA_HELD_SHARED)
		win->ranks[t].readers--;
	else if (o->held[t] == MPIRMA_HELD_EXCL)
		win->ranks[t].writer = false;
	o->held[t] = MPIRMA_HELD_NONE;
}

/**
 * mpirma_sync_release_rank - rank @wr leaves: drop its locks and epochs
 * @win: the window
 * @wr: the window rank
 *
 * The caller wakes job->wq.
 */
void mpirma_sync_release_rank(struct mpirma_win *win, u32 wr)
{
	struct mpirma_win_rank *r = &win->ranks[wr];
	u32 t;

	if (win->ulock)
		mpirma_ulock_release_rank(win, wr);
	if (!r->held)
		return;
	spin_lock(&win->sync_lock);
	for (t = 0; t < win->nranks; t++)
		unlock_one(win, wr, t);
	r->lock_all = false;
	r->posted = false;
	r->started = false;
	spin_unlock(&win->sync_lock);
}

/**
 * mpirma_win_fence - MPIRMA_IOC_WIN_FENCE: barrier over the window's group
 * @m: the calling member
 * @arg: flags and rank must be 0 (assertions are the library's business)
 *
 * Return: 0, -EINVAL, -ENOENT, -EOWNERDEAD, -ERESTARTSYS.
 */
int mpirma_win_fence(struct mpirma_member *m, struct mpirma_win_sync *arg)
{
	struct mpirma_win *win;
	u32 wr;
	int ret;

	win = mpirma_win_get_sync(m, arg, 0, &wr);
	if (IS_ERR(win))
		return PTR_ERR(win);
	ret = mpirma_barrier_wait(m->job, &win->fence, win->nranks, &win->ngone);
	mpirma_win_put(win);
	return ret;
}

static bool lock_free_for(struct mpirma_win_rank *t, bool excl)
{
	return excl ? !t->writer && !t->readers : !t->writer && !t->writers_waiting;
}

/* Under sync_lock: grant @origin's request on @target (or all) if free. */
static bool lock_grant(struct mpirma_win *win, u32 origin, u32 target, bool excl)
{
	struct mpirma_win_rank *o = &win->ranks[origin];
	u32 t;

	lockdep_assert_held(&win->sync_lock);

	if (target != MPIRMA_RANK_ALL) {
		if (!lock_free_for(&win->ranks[target], excl))
			return false;
		if (excl)
			win->ranks[target].writer = true;
		else
			win->ranks[target].readers++;
		o->held[target] = excl ? MPIRMA_HELD_EXCL : MPIRMA_HELD_SHARED;
		return true;
	}
	for (t = 0; t < win->nranks; t++)
		if (!lock_free_for(&win->ranks[t], false))
			return false;
	for (t = 0; t < win->nranks; t++) {
		win->ranks[t].readers++;
		o->held[t] = MPIRMA_HELD_SHARED;
	}
	o->lock_all = true;
	return true;
}

static bool lock_try(struct mpirma_win *win, u32 origin, u32 target, bool excl)
{
	bool granted;

	spin_lock(&win->sync_lock);
	granted = lock_grant(win, origin, target, excl);
	if (granted && excl)
		win->ranks[target].writers_waiting--;
	spin_unlock(&win->sync_lock);
	return granted;
}

static bool holds_any(struct mpirma_win *win, u32 origin, u32 target)
{
	struct mpirma_win_rank *o = &win->ranks[origin];
	u32 t;

	lockdep_assert_held(&win->sync_lock);

	if (target != MPIRMA_RANK_ALL)
		return o->held[target] != MPIRMA_HELD_NONE;
	for (t = 0; t < win->nranks; t++)
		if (o->held[t] != MPIRMA_HELD_NONE)
			return true;
	return false;
}

/**
 * mpirma_win_lock - MPIRMA_IOC_WIN_LOCK
 * @m: the calling member
 * @arg: target rank (or MPIRMA_RANK_ALL) and mode flags
 *
 * Return: 0, -EINVAL, -ENOENT, -ENXIO, -EDEADLK (already held), -EAGAIN
 * (NOWAIT), -ERESTARTSYS, -EOPNOTSUPP (a ULOCK window).
 */
int mpirma_win_lock(struct mpirma_member *m, struct mpirma_win_sync *arg)
{
	const u32 modes = MPIRMA_SYNC_SHARED | MPIRMA_SYNC_EXCLUSIVE;
	bool excl = arg->flags & MPIRMA_SYNC_EXCLUSIVE;
	struct mpirma_win *win;
	u32 wr;
	int ret = 0;

	if (arg->flags & ~(modes | MPIRMA_SYNC_NOWAIT))
		return -EINVAL;
	if (hweight32(arg->flags & modes) != 1)
		return -EINVAL;
	if (arg->rank == MPIRMA_RANK_ALL && excl)
		return -EINVAL;
	win = mpirma_win_get(m, arg->win_id, &wr);
	if (!win)
		return -ENOENT;
	if (win->flags & MPIRMA_WIN_ULOCK) {
		ret = -EOPNOTSUPP;	/* its locks are the lock table's */
		goto out_put_win;
	}
	if (arg->rank != MPIRMA_RANK_ALL && arg->rank >= win->nranks) {
		ret = -ENXIO;
		goto out_put_win;
	}

	spin_lock(&win->sync_lock);
	if (holds_any(win, wr, arg->rank)) {
		ret = -EDEADLK;
	} else if (!lock_grant(win, wr, arg->rank, excl)) {
		if (arg->flags & MPIRMA_SYNC_NOWAIT)
			ret = -EAGAIN;
		else
			ret = 1;
		if (ret > 0 && excl)
			win->ranks[arg->rank].writers_waiting++;
	}
	spin_unlock(&win->sync_lock);
	if (ret <= 0)
		goto out_put_win;

	atomic64_inc(&win->stats.lock_waits);
	ret = wait_event_interruptible(m->job->wq, lock_try(win, wr, arg->rank, excl));
	if (ret && excl) {
		spin_lock(&win->sync_lock);
		win->ranks[arg->rank].writers_waiting--;
		spin_unlock(&win->sync_lock);
		/* Shared requests held back by this writer may go now. */
		wake_up_all(&m->job->wq);
	}
out_put_win:
	mpirma_win_put(win);
	return ret;
}

/**
 * mpirma_win_unlock - MPIRMA_IOC_WIN_UNLOCK
 * @m: the calling member
 * @arg: the target rank (or MPIRMA_RANK_ALL after a lock_all)
 *
 * Return: 0, -EINVAL, -ENOENT, -ENXIO, -ENOLCK (not held), -EOPNOTSUPP
 * (a ULOCK window).
 */
int mpirma_win_unlock(struct mpirma_member *m, struct mpirma_win_sync *arg)
{
	struct mpirma_win_rank *o;
	struct mpirma_win *win;
	u32 wr, t;
	int ret = 0;

	if (arg->flags)
		return -EINVAL;
	win = mpirma_win_get(m, arg->win_id, &wr);
	if (!win)
		return -ENOENT;
	if (win->flags & MPIRMA_WIN_ULOCK) {
		mpirma_win_put(win);
		return -EOPNOTSUPP;
	}
	o = &win->ranks[wr];
	spin_lock(&win->sync_lock);
	if (arg->rank == MPIRMA_RANK_ALL) {
		if (!o->lock_all) {
			ret = -ENOLCK;
		} else {
			for (t = 0; t < win->nranks; t++)
				unlock_one(win, wr, t);
			o->lock_all = false;
		}
	} else if (arg->rank >= win->nranks) {
		ret = -ENXIO;
	} else if (o->lock_all || o->held[arg->rank] == MPIRMA_HELD_NONE) {
		ret = -ENOLCK;
	} else {
		unlock_one(win, wr, arg->rank);
	}
	spin_unlock(&win->sync_lock);
	if (!ret)
		wake_up_all(&m->job->wq);
	mpirma_win_put(win);
	return ret;
}

/* Copy in a PSCW group of window ranks: in range, no duplicates. */
static u32 *group_copy(struct mpirma_win *win, const struct mpirma_win_group *arg, int *err)
{
	unsigned long *seen;
	u32 *group, i;

	*err = 0;
	if (arg->nranks > win->nranks) {
		*err = -EINVAL;
		return NULL;
	}
	group = MPIRMA_FAULT_POINT(NULL, kmalloc_array(arg->nranks ? arg->nranks : 1, sizeof(*group),
						      GFP_KERNEL));
	seen = MPIRMA_FAULT_POINT(NULL, bitmap_zalloc(win->nranks, GFP_KERNEL));
	if (!group || !seen) {
		*err = -ENOMEM;
		goto out_free;
	}
	if (copy_from_user(group, u64_to_user_ptr(arg->ranks), arg->nranks * sizeof(*group))) {
		*err = -EFAULT;
		goto out_free;
	}
	for (i = 0; i < arg->nranks && !*err; i++) {
		if (group[i] >= win->nranks)
			*err = -ENXIO;
		else if (test_and_set_bit(group[i], seen))
			*err = -EINVAL;
	}
out_free:
	bitmap_free(seen);
	if (*err) {
		kfree(group);
		return NULL;
	}
	return group;
}

/* Has window rank @wr stopped taking part (gone, or freed the window)? */
static bool rank_absent(struct mpirma_win *win, u32 wr)
{
	return mpirma_rank_gone(win->job, win->group[wr]) || READ_ONCE(win->ranks[wr].left);
}

/**
 * mpirma_win_post - MPIRMA_IOC_WIN_POST: open an exposure epoch
 * @m: the calling member (the target)
 * @arg: the origins
 *
 * Return: 0, -EINVAL, -ENOENT, -ENXIO, -EFAULT, -ENOMEM, -EDEADLK (already
 * posted).
 */
int mpirma_win_post(struct mpirma_member *m, struct mpirma_win_group *arg)
{
	struct mpirma_win_rank *me;
	struct mpirma_win *win;
	u32 *group, wr, i;
	int ret;

	if (arg->flags)
		return -EINVAL;
	win = mpirma_win_get(m, arg->win_id, &wr);
	if (!win)
		return -ENOENT;
	group = group_copy(win, arg, &ret);
	if (!group)
		goto out_put_win;
	me = &win->ranks[wr];
	spin_lock(&win->sync_lock);
	if (me->posted) {
		ret = -EDEADLK;
	} else {
		for (i = 0; i < arg->nranks; i++)
			win->ranks[group[i]].posts[wr]++;
		swap(me->post_group, group);
		me->npost = arg->nranks;
		me->posted = true;
	}
	spin_unlock(&win->sync_lock);
	kfree(group);
	wake_up_all(&m->job->wq);
out_put_win:
	mpirma_win_put(win);
	return ret;
}

/*
 * Under no lock: consume one post from each target of @group, or report
 * that one of them can never post.  1: done, 0: not yet, <0: error.
 */
static int start_try(struct mpirma_win *win, u32 wr, const u32 *group, u32 n)
{
	struct mpirma_win_rank *me = &win->ranks[wr];
	int ret = 1;
	u32 i;

	spin_lock(&win->sync_lock);
	for (i = 0; i < n && ret > 0; i++) {
		if (me->posts[group[i]])
			continue;
		ret = rank_absent(win, group[i]) ? -EOWNERDEAD : 0;
	}
	if (ret > 0)
		for (i = 0; i < n; i++)
			me->posts[group[i]]--;
	spin_unlock(&win->sync_lock);
	return ret;
}

/**
 * mpirma_win_start - MPIRMA_IOC_WIN_START: open an access epoch
 * @m: the calling member (the origin)
 * @arg: the targets
 *
 * Waits until every target has posted to the caller.
 *
 * Return: 0, -EINVAL, -ENOENT, -ENXIO, -EFAULT, -ENOMEM, -EDEADLK (already
 * started), -EOWNERDEAD, -ERESTARTSYS.
 */
int mpirma_win_start(struct mpirma_member *m, struct mpirma_win_group *arg)
{
	struct mpirma_win_rank *me;
	struct mpirma_win *win;
	u32 *group, wr;
	int ret, res = 0;

	if (arg->flags)
		return -EINVAL;
	win = mpirma_win_get(m, arg->win_id, &wr);
	if (!win)
		return -ENOENT;
	group = group_copy(win, arg, &ret);
	if (!group)
		goto out_put_win;
	me = &win->ranks[wr];
	/* Only this member's own ioctls change its started state. */
	if (READ_ONCE(me->started)) {
		ret = -EDEADLK;
		goto out_free_group;
	}
	ret = wait_event_interruptible(m->job->wq,
				       (res = start_try(win, wr, group, arg->nranks)) != 0);
	if (!ret && res < 0)
		ret = res;
	if (ret)
		goto out_free_group;
	spin_lock(&win->sync_lock);
	swap(me->start_group, group);
	me->nstart = arg->nranks;
	me->started = true;
	spin_unlock(&win->sync_lock);
out_free_group:
	kfree(group);
out_put_win:
	mpirma_win_put(win);
	return ret;
}

/**
 * mpirma_win_complete - MPIRMA_IOC_WIN_COMPLETE: end the access epoch
 * @m: the calling member
 * @arg: flags and rank must be 0
 *
 * Return: 0, -EINVAL, -ENOENT, -ENOLCK (no START).
 */
int mpirma_win_complete(struct mpirma_member *m, struct mpirma_win_sync *arg)
{
	struct mpirma_win_rank *me;
	struct mpirma_win *win;
	u32 wr, i;
	int ret = 0;

	win = mpirma_win_get_sync(m, arg, 0, &wr);
	if (IS_ERR(win))
		return PTR_ERR(win);
	me = &win->ranks[wr];
	spin_lock(&win->sync_lock);
	if (!me->started) {
		ret = -ENOLCK;
	} else {
		for (i = 0; i < me->nstart; i++)
			win->ranks[me->start_group[i]].completes[wr]++;
		me->started = false;
	}
	spin_unlock(&win->sync_lock);
	if (!ret)
		wake_up_all(&m->job->wq);
	mpirma_win_put(win);
	return ret;
}

/* Like start_try(), for the completes of the caller's post group. */
static int wait_try(struct mpirma_win *win, u32 wr)
{
	struct mpirma_win_rank *me = &win->ranks[wr];
	int ret = 1;
	u32 i;

	spin_lock(&win->sync_lock);
	if (!me->posted) {
		spin_unlock(&win->sync_lock);
		return -ENOLCK;
	}
	for (i = 0; i < me->npost && ret > 0; i++) {
		if (me->completes[me->post_group[i]])
			continue;
		ret = rank_absent(win, me->post_group[i]) ? -EOWNERDEAD : 0;
	}
	if (ret > 0) {
		for (i = 0; i < me->npost; i++)
			me->completes[me->post_group[i]]--;
		me->posted = false;
	}
	spin_unlock(&win->sync_lock);
	return ret;
}

/**
 * mpirma_win_wait - MPIRMA_IOC_WIN_WAIT: end the exposure epoch
 * @m: the calling member
 * @arg: MPIRMA_SYNC_TEST to poll; rank must be 0
 *
 * Return: 0, -EINVAL, -ENOENT, -ENOLCK (no POST), -EAGAIN (TEST, not yet),
 * -EOWNERDEAD, -ERESTARTSYS.
 */
int mpirma_win_wait(struct mpirma_member *m, struct mpirma_win_sync *arg)
{
	struct mpirma_win *win;
	u32 wr;
	int ret, res = 0;

	win = mpirma_win_get_sync(m, arg, MPIRMA_SYNC_TEST, &wr);
	if (IS_ERR(win))
		return PTR_ERR(win);
	if (arg->flags & MPIRMA_SYNC_TEST) {
		res = wait_try(win, wr);
		ret = res ? min(res, 0) : -EAGAIN;
	} else {
		ret = wait_event_interruptible(m->job->wq, (res = wait_try(win, wr)) != 0);
		if (!ret && res < 0)
			ret = res;
	}
	mpirma_win_put(win);
	return ret;
}
