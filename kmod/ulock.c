// SPDX-License-Identifier: GPL-2.0
/*
 * User-space passive-target locks (MPIRMA_WIN_ULOCK): the lock table.
 *
 * The processes of a ULOCK window take and release their locks in user
 * space, with atomic instructions on a table they all map (the protocol is
 * the library's, lib/rma/ulock.c; the layout is in include/mpirma_uapi.h,
 * DOC: user-space locks), so an uncontended MPI_Win_lock/MPI_Win_unlock
 * pair makes no system call.  The kernel's part is small and never trusts
 * the table:
 *  - it allocates the table with the window and maps it (map.c);
 *  - MPIRMA_IOC_WIN_LOCK_WAIT sleeps until the table's sequence number
 *    moves, and bumps it and wakes the sleepers;
 *  - when a rank leaves the window (MPI_Win_free, or its process gone) it
 *    clears that rank's row of held[] and every owner word naming it, so
 *    a dead holder never blocks the others, marks the rank gone in the
 *    sync area, so that fences and PSCW epochs waiting for it fail, and
 *    wakes the sleepers.
 * Whatever a process writes into the table can only confuse the job's own
 * lock waits: the kernel reads nothing from it but owner words, which it
 * compares and clears.
 */
#include <linux/mm.h>
#include <linux/sched/signal.h>

#include "mpirma.h"

static u32 *ulock_seq(struct mpirma_win *win)
{
	return win->ulock->vaddr;
}

static u32 *ulock_words(struct mpirma_win *win)
{
	return win->ulock->vaddr + MPIRMA_ULOCK_WORDS;
}

static u8 *ulock_held(struct mpirma_win *win)
{
	return win->ulock->vaddr + MPIRMA_ULOCK_HELD(win->nranks);
}

/* The word of the sync area that says window rank @wr has left. */
static u32 *ulock_gone(struct mpirma_win *win, u32 wr)
{
	return win->ulock->vaddr + MPIRMA_ULOCK_SYNC_LINE(win->nranks, wr);
}

/**
 * mpirma_ulock_alloc - the lock table of a new MPIRMA_WIN_ULOCK window
 * @win: the window, not yet published
 *
 * The creation's argument checks bounded its ranks (MPIRMA_ULOCK_MAX_RANKS).
 *
 * Return: 0, -ENOMEM, -EINTR.
 */
int mpirma_ulock_alloc(struct mpirma_win *win)
{
	unsigned long npages = DIV_ROUND_UP(MPIRMA_ULOCK_TABLE_SIZE(win->nranks), PAGE_SIZE);
	struct mpirma_mem *mem = mpirma_mem_alloc(npages, NULL, NULL);

	if (IS_ERR(mem))
		return PTR_ERR(mem);
	win->ulock = mem;
	return 0;
}

/* Move the table's sequence number; the caller wakes job->wq. */
static void ulock_bump(struct mpirma_win *win)
{
	WRITE_ONCE(*ulock_seq(win), (u32)atomic_inc_return(&win->ulock_seq));
}

/**
 * mpirma_ulock_update_word - @target's update lock (MPIRMA_ATOM_BULK)
 * @win: a window with a lock table
 * @target: a window rank
 *
 * Return: the word in the table's update[] (strategy_bulk.c takes it).
 */
u32 *mpirma_ulock_update_word(const struct mpirma_win *win, u32 target)
{
	return win->ulock->vaddr + MPIRMA_ULOCK_UPDATE(win->nranks) +
	       (size_t)target * MPIRMA_ULOCK_UPDATE_STRIDE;
}

/* The update locks (MPIRMA_ATOM_BULK) @wr holds, if it died holding any. */
static void ulock_release_updates(struct mpirma_win *win, u32 wr)
{
	u32 t;

	for (t = 0; t < win->nranks; t++)
		cmpxchg(mpirma_ulock_update_word(win, t), wr + 1, 0);
}

/**
 * mpirma_ulock_release_rank - window rank @wr leaves: free what it holds
 * @win: a window with a lock table (ULOCK or MPIRMA_ATOM_BULK)
 * @wr: the window rank
 *
 * The caller wakes job->wq.
 */
void mpirma_ulock_release_rank(struct mpirma_win *win, u32 wr)
{
	u32 *words = ulock_words(win);
	u32 mine = wr + 1, t;
	u8 *held = ulock_held(win) + (size_t)wr * win->nranks;

	ulock_release_updates(win, wr);
	WRITE_ONCE(*ulock_gone(win, wr), 1);

	for (t = 0; t < win->nranks; t++)
		WRITE_ONCE(held[t], 0);
	for (t = 0; t < win->nranks; t++) {
		u32 old = READ_ONCE(words[t]);

		/* A word the owner's peers keep changing: retry until it holds. */
		while ((old & MPIRMA_ULOCK_OWNER) == mine) {
			u32 seen = cmpxchg(&words[t], old, old & ~MPIRMA_ULOCK_OWNER);

			if (seen == old)
				break;
			old = seen;
		}
	}
	ulock_bump(win);
}

/**
 * mpirma_ulock_detached - window rank @wr detached a region
 * @win: a ULOCK window, regions_rwsem held for writing
 * @wr: the window rank
 *
 * Processes that mapped @wr's regions (region.c) drop their mappings when
 * they see the counter move.
 */
void mpirma_ulock_detached(struct mpirma_win *win, u32 wr)
{
	u32 *detached = win->ulock->vaddr + MPIRMA_ULOCK_DETACHED(win->nranks);

	lockdep_assert_held_write(&win->regions_rwsem);
	WRITE_ONCE(detached[wr], READ_ONCE(detached[wr]) + 1);
}

/**
 * mpirma_win_lock_wait - MPIRMA_IOC_WIN_LOCK_WAIT
 * @m: the calling member
 * @arg: the window, and the sequence number to sleep on, or WAKE
 *
 * Return: 0, -EINVAL (not a ULOCK window, bad flags), -ENOENT,
 * -ERESTARTSYS.
 */
int mpirma_win_lock_wait(struct mpirma_member *m, struct mpirma_win_lockwait *arg)
{
	struct mpirma_win *win;
	u32 wr;
	int ret = 0;

	if (arg->flags & ~MPIRMA_LOCKWAIT_WAKE)
		return -EINVAL;
	if ((arg->flags & MPIRMA_LOCKWAIT_WAKE) && arg->seq)
		return -EINVAL;
	win = mpirma_win_get(m, arg->win_id, &wr);
	if (!win)
		return -ENOENT;
	if (!win->ulock) {
		ret = -EINVAL;
	} else if (arg->flags & MPIRMA_LOCKWAIT_WAKE) {
		ulock_bump(win);
		wake_up_all(&m->job->wq);
	} else {
		atomic64_inc(&win->stats.lock_waits);
		ret = wait_event_interruptible(m->job->wq,
					       (u32)atomic_read(&win->ulock_seq) != arg->seq);
	}
	mpirma_win_put(win);
	return ret;
}
