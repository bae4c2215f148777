// SPDX-License-Identifier: GPL-2.0
/*
 * Windows: collective creation, memory, lifetime.
 *
 * Creation is matched by the kernel: a call joins the oldest pending window
 * with the same group (the list of job ranks) and context that this rank has
 * not joined yet, so ranks need no exchange of their own.  Each rank brings
 * its part when it arrives (USER: its pinned memory; ALLOC: its size, node
 * and RLIMIT_MEMLOCK charge); the last to arrive finishes the window
 * (ALLOC: allocates every rank's pages on that rank's node, one vmap for the
 * whole window so that MPIRMA_WIN_CONTIG ranks are byte-contiguous) and
 * publishes it in job->windows.  A rank that fails, is interrupted or sees a
 * group member gone withdraws its part; the last to withdraw frees the
 * pending window.
 *
 * A window stays in job->windows until every rank of its group has left it
 * (MPIRMA_IOC_WIN_FREE, or gone).  References: one for being in the
 * xarray, one per ioctl using it.  Release never fails.
 */
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "fault.h"
#include "mpirma.h"
#include "strategy.h"
#include "workers.h"

/* The creation flags every rank of a window must pass alike. */
#define WIN_GROUP_FLAGS	(MPIRMA_WIN_CONTIG | MPIRMA_WIN_ULOCK)

static void win_release_rank(struct mpirma_win_rank *r)
{
	struct mpirma_mem *mem, *tmp;

	mpirma_mem_put(r->mem);
	r->mem = NULL;
	list_for_each_entry_safe(mem, tmp, &r->regions, list) {
		list_del(&mem->list);
		mpirma_mem_put(mem);
	}
	if (r->mm) {
		mpirma_uncharge(r->mm, r->charged);
		mmdrop(r->mm);
		r->mm = NULL;
	}
	r->charged = 0;
}

static void win_free(struct mpirma_win *win)
{
	u32 i;

	if (win->strategy && win->strategy->fini && win->ready)
		win->strategy->fini(win);
	for (i = 0; i < win->nranks; i++)
		win_release_rank(&win->ranks[i]);
	mpirma_view_put(win->view);
	mpirma_mem_put(win->mem);
	mpirma_mem_put(win->ulock);
	xa_destroy(&win->region_ids);
	mpirma_sync_free(win);
	kfree(win->ranks);
	kfree(win->rank_of);
	kfree(win->group);
	kfree(win);
	atomic_long_dec(&mpirma_nr_windows);
}

static void win_release(struct kref *ref)
{
	win_free(container_of(ref, struct mpirma_win, ref));
}

void mpirma_win_put(struct mpirma_win *win)
{
	kref_put(&win->ref, win_release);
}

/**
 * mpirma_win_get - look up a live window the member belongs to
 * @m: the member
 * @id: the window id
 * @my_rank: out, the member's rank in the window
 *
 * Return: the window with a reference held, or NULL (ENOENT).
 */
struct mpirma_win *mpirma_win_get(struct mpirma_member *m, u32 id, u32 *my_rank)
{
	struct mpirma_job *job = m->job;
	struct mpirma_win *win;
	s32 wr;

	xa_lock(&job->windows);
	win = xa_load(&job->windows, id);
	if (win) {
		wr = win->rank_of[m->rank];
		/* ranks[].left only goes false -> true; a stale false is harmless. */
		if (wr < 0 || READ_ONCE(win->ranks[wr].left))
			win = NULL;
		else
			kref_get(&win->ref);
	}
	xa_unlock(&job->windows);
	if (win)
		*my_rank = wr;
	return win;
}

/**
 * mpirma_win_get_sync - the common start of the synchronisation commands
 * @m: the member
 * @arg: the command's arguments
 * @flags: the flags the command accepts
 * @my_rank: out, the member's rank in the window
 *
 * Return: the window with a reference held, or ERR_PTR(-EINVAL) for unknown
 * flags or a non-zero rank, ERR_PTR(-ENOENT).
 */
struct mpirma_win *mpirma_win_get_sync(struct mpirma_member *m,
				       const struct mpirma_win_sync *arg, u32 flags,
				       u32 *my_rank)
{
	struct mpirma_win *win;

	if ((arg->flags & ~flags) || arg->rank)
		return ERR_PTR(-EINVAL);
	win = mpirma_win_get(m, arg->win_id, my_rank);
	return win ? win : ERR_PTR(-ENOENT);
}

/* Under job->lock: @wr leaves @win; the last to leave unpublishes it. */
static void win_leave(struct mpirma_job *job, struct mpirma_win *win, u32 wr)
{
	lockdep_assert_held(&job->lock);

	if (win->ranks[wr].left)
		return;
	mpirma_sync_release_rank(win, wr);
	WRITE_ONCE(win->ranks[wr].left, true);
	if (++win->nleft == win->nranks) {
		xa_erase(&job->windows, win->id);
		mpirma_win_put(win);
	}
}

/*
 * Under job->lock: free a pending window nobody can still come to: no rank
 * is waiting in it and every rank of its group has been to it or is gone.
 */
static void win_pending_maybe_free(struct mpirma_job *job, struct mpirma_win *win)
{
	u32 i;

	lockdep_assert_held(&job->lock);

	if (win->narrived)
		return;
	for (i = 0; i < win->nranks; i++)
		if (!win->ranks[i].touched && !mpirma_rank_gone(job, win->group[i]))
			return;
	list_del(&win->pending_node);
	win_free(win);
}

/* Under job->lock: take back what rank @wr brought to a pending window. */
static void win_withdraw(struct mpirma_job *job, struct mpirma_win *win, u32 wr)
{
	lockdep_assert_held(&job->lock);

	if (!win->ranks[wr].arrived)
		return;
	win_release_rank(&win->ranks[wr]);
	win->ranks[wr].arrived = false;
	win->narrived--;
}

/**
 * mpirma_win_member_gone - @job_rank is gone: fail what waits for it
 * @job: the job, with job->lock held
 * @job_rank: the rank
 */
void mpirma_win_member_gone(struct mpirma_job *job, u32 job_rank)
{
	struct mpirma_win *win, *tmp;
	unsigned long id;
	s32 wr;

	lockdep_assert_held(&job->lock);

	list_for_each_entry_safe(win, tmp, &job->pending, pending_node) {
		wr = win->rank_of[job_rank];
		if (wr < 0)
			continue;
		atomic_inc(&win->ngone);
		if (!win->create_err)
			win->create_err = -EOWNERDEAD;
		win_withdraw(job, win, wr);
		win_pending_maybe_free(job, win);
	}
	xa_for_each(&job->windows, id, win) {
		wr = win->rank_of[job_rank];
		if (wr < 0)
			continue;
		atomic_inc(&win->ngone);
		win_leave(job, win, wr);
	}
}

/* The job is going away: no rank is waiting in any pending window. */
void mpirma_win_destroy_pending(struct mpirma_job *job)
{
	struct mpirma_win *win, *tmp;

	list_for_each_entry_safe(win, tmp, &job->pending, pending_node) {
		list_del(&win->pending_node);
		win_free(win);
	}
}

static struct mpirma_win *win_alloc(struct mpirma_job *job, const struct mpirma_win_create *arg,
				    u32 *group)
{
	struct mpirma_win *win;
	u32 i;

	win = MPIRMA_FAULT_POINT(NULL, kzalloc(sizeof(*win), GFP_KERNEL));
	if (!win)
		return NULL;
	win->ranks = MPIRMA_FAULT_POINT(NULL, kcalloc(arg->nranks, sizeof(*win->ranks), GFP_KERNEL));
	win->rank_of = MPIRMA_FAULT_POINT(NULL, kmalloc_array(job->nranks, sizeof(*win->rank_of),
							     GFP_KERNEL));
	if (!win->ranks || !win->rank_of) {
		kfree(win->ranks);
		kfree(win->rank_of);
		kfree(win);
		return NULL;
	}
	atomic_long_inc(&mpirma_nr_windows);
	kref_init(&win->ref);
	win->job = job;
	win->flavor = arg->flavor;
	win->flags = arg->flags & WIN_GROUP_FLAGS;
	win->context = arg->context;
	win->nranks = arg->nranks;
	win->group = group;
	win->strategy = mpirma_strategy_get(arg->strategy);
	for (i = 0; i < job->nranks; i++)
		win->rank_of[i] = -1;
	for (i = 0; i < win->nranks; i++) {
		win->rank_of[group[i]] = i;
		INIT_LIST_HEAD(&win->ranks[i].regions);
		if (mpirma_rank_gone(job, group[i])) {
			atomic_inc(&win->ngone);
			win->create_err = -EOWNERDEAD;
		}
	}
	raw_spin_lock_init(&win->update_lock);
	spin_lock_init(&win->sync_lock);
	xa_init_flags(&win->region_ids, XA_FLAGS_ALLOC1);
	init_rwsem(&win->regions_rwsem);
	mpirma_barrier_init(&win->fence);
	return win;
}

static struct mpirma_win *win_find_pending(struct mpirma_job *job,
					   const struct mpirma_win_create *arg,
					   const u32 *group, u32 wr)
{
	struct mpirma_win *win;

	lockdep_assert_held(&job->lock);

	list_for_each_entry(win, &job->pending, pending_node) {
		if (win->nranks != arg->nranks || win->context != arg->context ||
		    win->ranks[wr].touched)
			continue;
		if (!memcmp(win->group, group, arg->nranks * sizeof(*group)))
			return win;
	}
	return NULL;
}

/* ALLOC: lay the ranks out, allocate each rank's pages on its node. */
static int win_alloc_memory(struct mpirma_win *win)
{
	unsigned long npages, p, first, last;
	u64 end = 0, off;
	bool *strict;
	int *nodes;
	u32 i;
	int ret;

	for (i = 0; i < win->nranks; i++) {
		off = win->flags & MPIRMA_WIN_CONTIG ? end : round_up(end, PAGE_SIZE);
		if (off < end || check_add_overflow(off, win->ranks[i].length, &end))
			return -EOVERFLOW;
		win->ranks[i].offset = off;
	}
	if (end > (u64)ULONG_MAX - PAGE_SIZE)
		return -EOVERFLOW;
	npages = DIV_ROUND_UP(end, PAGE_SIZE);
	if (npages > totalram_pages())
		return -ENOMEM;
	nodes = MPIRMA_FAULT_POINT(NULL, kvmalloc_array(npages ? npages : 1, sizeof(*nodes),
						      GFP_KERNEL));
	strict = MPIRMA_FAULT_POINT(NULL, kvcalloc(npages ? npages : 1, sizeof(*strict), GFP_KERNEL));
	if (!nodes || !strict) {
		ret = -ENOMEM;
		goto out_free_arrays;
	}
	for (p = 0; p < npages; p++)
		nodes[p] = NUMA_NO_NODE;
	/*
	 * A page shared by two ranks (CONTIG) goes to the first of them; an
	 * interleaving rank's pages go round-robin over the nodes with memory.
	 */
	for (i = 0; i < win->nranks; i++) {
		struct mpirma_win_rank *r = &win->ranks[i];
		int node = first_node(node_states[N_MEMORY]);

		if (!r->length)
			continue;
		first = r->offset >> PAGE_SHIFT;
		last = (r->offset + r->length - 1) >> PAGE_SHIFT;
		for (p = first; p <= last; p++) {
			if (nodes[p] != NUMA_NO_NODE)
				continue;
			nodes[p] = r->node;
			strict[p] = r->node_strict;
			if (r->interleave) {
				nodes[p] = node;
				node = next_node_in(node, node_states[N_MEMORY]);
			}
		}
	}
	win->mem = mpirma_mem_alloc(npages, nodes, strict);
	ret = PTR_ERR_OR_ZERO(win->mem);
	if (ret)
		win->mem = NULL;
out_free_arrays:
	kvfree(nodes);
	kvfree(strict);
	return ret;
}

/* Under job->lock, by the last rank to arrive: make the window usable. */
static int win_finish(struct mpirma_job *job, struct mpirma_win *win)
{
	u32 id;
	int ret;

	lockdep_assert_held(&job->lock);

	if (win->flavor == MPIRMA_FLAVOR_ALLOC) {
		ret = win_alloc_memory(win);
		if (ret)
			return ret;
	}
	if (win->flavor == MPIRMA_FLAVOR_USER) {
		win->view = mpirma_view_build(win);
		if (IS_ERR(win->view)) {
			ret = PTR_ERR(win->view);
			win->view = NULL;
			return ret;
		}
	}
	ret = mpirma_sync_alloc(win);
	if (ret)
		return ret;
	/* MPIRMA_ATOM_BULK's locks are in the table too */
	if ((win->flags & MPIRMA_WIN_ULOCK) || win->strategy == &mpirma_strategy_bulk) {
		ret = mpirma_ulock_alloc(win);
		if (ret)
			return ret;
	}
	if (win->strategy->init) {
		ret = win->strategy->init(win);
		if (ret)
			return ret;
	}
	ret = MPIRMA_FAULT_POINT(-ENOMEM, xa_alloc_cyclic(&job->windows, &id, win, XA_LIMIT(1, INT_MAX),
							  &job->next_win_id, GFP_KERNEL));
	if (ret < 0) {
		if (win->strategy->fini)
			win->strategy->fini(win);
		return ret;
	}
	win->id = id;
	mpirma_view_set_id(win->view, id);
	return 0;
}

static bool win_settled(struct mpirma_win *win)
{
	return READ_ONCE(win->ready) || READ_ONCE(win->create_err);
}

/*
 * The error the caller's failure gives the whole group.  A caller being
 * killed fails its pinning or allocation with EINTR, but to the others it
 * is a rank gone (their calls were not interrupted).
 */
static int win_group_err(int err)
{
	return fatal_signal_pending(current) ? -EOWNERDEAD : err;
}

/* The checks of the caller's arguments that do not concern its group. */
static int win_check_args(const struct mpirma_win_create *arg)
{
	if (arg->flags & ~MPIRMA_WIN_CREATE_FLAGS)
		return -EINVAL;
	if (arg->flavor >= MPIRMA_NR_FLAVORS || arg->strategy >= MPIRMA_NR_STRATEGIES)
		return -EINVAL;
	if (!arg->disp_unit)
		return -EINVAL;
	if (arg->flavor != MPIRMA_FLAVOR_ALLOC && (arg->flags & ~MPIRMA_WIN_ULOCK))
		return -EINVAL;
	if ((arg->flags & MPIRMA_WIN_ULOCK) && arg->nranks > MPIRMA_ULOCK_MAX_RANKS)
		return -EINVAL;
	if (arg->flavor != MPIRMA_FLAVOR_USER && arg->base)
		return -EINVAL;
	if (arg->flavor == MPIRMA_FLAVOR_USER && arg->length && !arg->base)
		return -EINVAL;
	if (arg->flavor == MPIRMA_FLAVOR_DYNAMIC && arg->length)
		return -EINVAL;
	if ((arg->flags & MPIRMA_WIN_NODE) &&
	    (arg->numa_node < 0 || arg->numa_node >= MAX_NUMNODES ||
	     !node_online(arg->numa_node)))
		return -EINVAL;
	if ((arg->flags & MPIRMA_WIN_NODE) && (arg->flags & MPIRMA_WIN_INTERLEAVE))
		return -EINVAL;
	return 0;
}

/*
 * Read and check the caller's group; returns its window rank.  Until the
 * group is known the collective cannot be told about a failure, so only
 * these errors fail the caller alone.
 */
static int win_read_group(struct mpirma_member *m, const struct mpirma_win_create *arg,
			  u32 **groupp)
{
	struct mpirma_job *job = m->job;
	unsigned long *seen;
	u32 *group, i;
	int ret, wr = -EINVAL;

	if (!arg->nranks || arg->nranks > job->nranks)
		return -EINVAL;
	group = MPIRMA_FAULT_POINT(NULL, kmalloc_array(arg->nranks, sizeof(*group), GFP_KERNEL));
	seen = MPIRMA_FAULT_POINT(NULL, bitmap_zalloc(job->nranks, GFP_KERNEL));
	if (!group || !seen) {
		ret = -ENOMEM;
		goto out_free;
	}
	if (copy_from_user(group, u64_to_user_ptr(arg->ranks), arg->nranks * sizeof(*group))) {
		ret = -EFAULT;
		goto out_free;
	}
	for (i = 0; i < arg->nranks; i++) {
		if (group[i] >= job->nranks) {
			ret = -ENXIO;
			goto out_free;
		}
		if (test_and_set_bit(group[i], seen)) {
			ret = -EINVAL;
			goto out_free;
		}
		if (group[i] == m->rank)
			wr = i;
	}
	if (wr < 0) {
		ret = wr;
		goto out_free;
	}
	bitmap_free(seen);
	*groupp = group;
	return wr;

out_free:
	bitmap_free(seen);
	kfree(group);
	return ret;
}

/* What the caller brings: its pinned memory, or its charge and node. */
static int win_prepare_rank(const struct mpirma_win_create *arg, struct mpirma_win_rank *r)
{
	int ret;

	r->disp_unit = arg->disp_unit;
	r->length = arg->length;
	r->node = NUMA_NO_NODE;
	switch (arg->flavor) {
	case MPIRMA_FLAVOR_USER:
		r->mem = mpirma_mem_pin(arg->base, arg->length);
		if (IS_ERR(r->mem)) {
			ret = PTR_ERR(r->mem);
			r->mem = NULL;
			return ret;
		}
		r->offset = r->mem->offset;
		break;
	case MPIRMA_FLAVOR_ALLOC:
		if (arg->length > (u64)LONG_MAX)
			return -EOVERFLOW;
		if (DIV_ROUND_UP(arg->length, PAGE_SIZE) > totalram_pages())
			return -ENOMEM;
		r->node_strict = arg->flags & (MPIRMA_WIN_NODE | MPIRMA_WIN_INTERLEAVE);
		r->interleave = arg->flags & MPIRMA_WIN_INTERLEAVE;
		if (r->interleave)
			r->node = NUMA_NO_NODE;
		else
			r->node = arg->flags & MPIRMA_WIN_NODE ? arg->numa_node : numa_node_id();
		ret = mpirma_charge(current->mm, DIV_ROUND_UP(arg->length, PAGE_SIZE));
		if (ret)
			return ret;
		r->charged = DIV_ROUND_UP(arg->length, PAGE_SIZE);
		r->mm = current->mm;
		mmgrab(r->mm);
		break;
	}
	return 0;
}

/**
 * mpirma_win_create - MPIRMA_IOC_WIN_CREATE
 * @m: the calling member
 * @arg: its arguments; win_id is filled in
 *
 * Return: 0 or a negative errno (see mpirma_uapi.h).
 */
int mpirma_win_create(struct mpirma_member *m, struct mpirma_win_create *arg)
{
	struct mpirma_job *job = m->job;
	struct mpirma_win_rank mine = {};
	struct mpirma_win *win;
	u32 *group;
	int wr, ret, prep;

	wr = win_read_group(m, arg, &group);
	if (wr < 0)
		return wr;
	INIT_LIST_HEAD(&mine.regions);
	mine.job_rank = m->rank;
	prep = win_check_args(arg);
	if (!prep)
		prep = win_prepare_rank(arg, &mine);

	mutex_lock(&job->lock);
	win = win_find_pending(job, arg, group, wr);
	if (!win) {
		win = win_alloc(job, arg, group);
		if (!win) {
			ret = -ENOMEM;
			goto out_unlock;
		}
		group = NULL;	/* the window owns it */
		list_add_tail(&win->pending_node, &job->pending);
	}
	win->ranks[wr].touched = true;
	/*
	 * Any failure fails the collective for every rank: those waiting now
	 * and those still to come, which find the window and its error.
	 */
	if (win->create_err) {
		ret = win->create_err;
	} else if (prep) {
		ret = prep;
	} else if (win->flavor != arg->flavor ||
		   win->strategy != mpirma_strategy_get(arg->strategy) ||
		   win->flags != (arg->flags & WIN_GROUP_FLAGS)) {
		ret = -EINVAL;
	} else {
		ret = 0;
	}
	if (ret) {
		if (!win->create_err)
			win->create_err = win_group_err(ret);
		wake_up_all(&job->wq);
		win_pending_maybe_free(job, win);
		goto out_unlock;
	}
	win->ranks[wr] = mine;
	INIT_LIST_HEAD(&win->ranks[wr].regions);
	win->ranks[wr].touched = true;
	win->ranks[wr].arrived = true;
	win->narrived++;
	if (win->narrived == win->nranks) {
		ret = win_finish(job, win);
		if (ret) {
			win->create_err = win_group_err(ret);
		} else {
			list_del(&win->pending_node);
			WRITE_ONCE(win->ready, true);
		}
		wake_up_all(&job->wq);
	}
	mutex_unlock(&job->lock);
	kfree(group);

	ret = wait_event_interruptible(job->wq, win_settled(win));

	mutex_lock(&job->lock);
	if (win->ready) {
		arg->win_id = win->id;
		mutex_unlock(&job->lock);
		return 0;
	}
	win_withdraw(job, win, wr);
	if (win->create_err) {
		ret = win->create_err;
	} else {
		/* A signal: the restarted call must be able to come back here. */
		win->ranks[wr].touched = false;
	}
	win_pending_maybe_free(job, win);
	mutex_unlock(&job->lock);
	return ret;

out_unlock:
	mutex_unlock(&job->lock);
	win_release_rank(&mine);
	kfree(group);
	return ret;
}

/**
 * mpirma_win_free - MPIRMA_IOC_WIN_FREE: barrier, then leave the window
 * @m: the calling member
 * @arg: flags must be 0
 *
 * The caller leaves even when a group member is gone (EOWNERDEAD), so a
 * failing job can still release its windows; a signal leaves it in place.
 */
int mpirma_win_free(struct mpirma_member *m, struct mpirma_win_sync *arg)
{
	struct mpirma_job *job = m->job;
	struct mpirma_win *win;
	u32 wr;
	int ret;

	win = mpirma_win_get_sync(m, arg, 0, &wr);
	if (IS_ERR(win))
		return PTR_ERR(win);
	ret = mpirma_barrier_wait(job, &win->fence, win->nranks, &win->ngone);
	if (ret != -ERESTARTSYS) {
		mutex_lock(&job->lock);
		win_leave(job, win, wr);
		mutex_unlock(&job->lock);
		wake_up_all(&job->wq);
	}
	mpirma_win_put(win);
	return ret;
}
