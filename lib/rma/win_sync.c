// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * win_sync.c - RMA synchronization: fence, passive-target locks, flushes,
 * MPI_Win_sync and post/start/complete/wait/test.
 *
 * The kernel does the waiting (fence barrier, reader/writer locks per
 * target, PSCW matching), except for the locks of a window with a lock
 * table, which lib/rma/ulock.c takes in user space.  This file keeps the
 * epoch state of struct mpirma_window that tells rma.c whether a
 * communication call is allowed, and rejects synchronization calls made in the wrong state with
 * MPI_ERR_RMA_SYNC before they reach the kernel.
 *
 * Every call that ends or flushes an epoch first drains the window's queue
 * (mpirma_win_drain), so operations are complete at the target before the
 * kernel releases a lock, passes a fence or counts a complete.
 *
 * Errors never break synchronization: a drain that reports a failed
 * operation does not stop the call.  It still passes the barrier, releases
 * the lock or counts the complete (other processes wait for exactly that),
 * updates the epoch state, and only then returns the first error.  The same
 * when the kernel's part fails: the epoch is over for this process either
 * way, so the window stays usable (first_err()).
 *
 * Deliberately lenient: a lock or start while a fence epoch is open is
 * accepted (programs commonly end a sequence of fences with a fence that
 * has no MPI_MODE_NOSUCCEED and then lock); a fence while a lock is held or
 * a PSCW epoch is open is not.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "win.h"

#define FENCE_ASSERTS	(MPI_MODE_NOSTORE | MPI_MODE_NOPUT | \
			 MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)
#define POST_ASSERTS	(MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT)

static void sync_arg(struct mpirma_win_sync *s, const struct mpirma_window *w,
		     uint32_t flags, uint32_t rank)
{
	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	s->flags = flags;
	s->win_id = w->id;
	s->rank = rank;
}

/* A synchronization ioctl with no group; MPI class (recorded). */
static int sync_ioctl(struct mpirma_window *w, unsigned long cmd,
		      uint32_t flags, uint32_t rank, const char *what)
{
	struct mpirma_win_sync s;
	int ret;

	mpirma_win_direct_report(w);
	sync_arg(&s, w, flags, rank);
	ret = mpirma_ioctl_wait(cmd, &s);
	return ret ? mpirma_err_errno(ret, "%s", what) : MPI_SUCCESS;
}

/* The error to return after all the steps of a call: the first one. */
static inline int first_err(int first, int next)
{
	return first ? first : next;
}

/*
 * Passive-target locks: in user space on the lock table of a ULOCK window
 * (lib/rma/ulock.c), otherwise the kernel's.  @rank: a window rank or
 * MPIRMA_RANK_ALL (shared only).  MPI class (recorded).
 */
static int lock_take(struct mpirma_window *w, uint32_t rank, bool excl)
{
	int ret;

	if (!w->ulock.map)
		return sync_ioctl(w, MPIRMA_IOC_WIN_LOCK, excl ?
				  MPIRMA_SYNC_EXCLUSIVE : MPIRMA_SYNC_SHARED,
				  rank, rank == MPIRMA_RANK_ALL ?
				  "MPIRMA_IOC_WIN_LOCK (all)" :
				  "MPIRMA_IOC_WIN_LOCK");
	ret = rank == MPIRMA_RANK_ALL ? mpirma_ulock_lock_all(&w->ulock) :
	      mpirma_ulock_lock(&w->ulock, rank, excl);
	return ret ? mpirma_err_errno(ret, "waiting for the lock "
				      "(MPIRMA_IOC_WIN_LOCK_WAIT)") :
		     MPI_SUCCESS;
}

static int lock_give(struct mpirma_window *w, uint32_t rank)
{
	if (!w->ulock.map)
		return sync_ioctl(w, MPIRMA_IOC_WIN_UNLOCK, 0, rank,
				  rank == MPIRMA_RANK_ALL ?
				  "MPIRMA_IOC_WIN_UNLOCK (all)" :
				  "MPIRMA_IOC_WIN_UNLOCK");
	if (rank == MPIRMA_RANK_ALL)
		mpirma_ulock_unlock_all(&w->ulock);
	else
		mpirma_ulock_unlock(&w->ulock, rank);
	mpirma_win_direct_report_due(w);
	return MPI_SUCCESS;
}

/* ------------------------------------------------------------ fence */

static int win_fence(int assert, MPI_Win win)
{
	struct mpirma_window *w = mpirma_window_check(win);
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	if (assert & ~FENCE_ASSERTS)
		return mpirma_err(MPI_ERR_ASSERT, "assertion 0x%x has bits "
				  "MPI_Win_fence does not know", assert);
	if (mpirma_win_passive(w) || w->started || w->posted)
		return mpirma_err(MPI_ERR_RMA_SYNC, "a %s epoch is open on "
				  "this window", mpirma_win_passive(w) ?
				  "passive-target (lock)" : "PSCW");
	ret = mpirma_win_drain(w);
	/*
	 * Always a barrier, whatever the assertions (and whatever the drain
	 * found: the other ranks are waiting in it): with NOPRECEDE the
	 * targets' own stores must still be visible to the gets that follow,
	 * and with NOSUCCEED the operations before it must be complete
	 * everywhere before anyone returns.
	 */
	ret = first_err(ret, sync_ioctl(w, MPIRMA_IOC_WIN_FENCE, 0, 0,
					"MPIRMA_IOC_WIN_FENCE"));
	w->fence = !(assert & MPI_MODE_NOSUCCEED);
	return ret;
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_fence(assert, win), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_fence)

/* ------------------------------------------------------------ passive */

/* @rank is a window rank; MPI class (recorded). */
static int check_rank(const struct mpirma_window *w, int rank)
{
	if (rank < 0 || rank >= w->size)
		return mpirma_err(MPI_ERR_RANK, "rank %d is not in the window "
				  "(size %d)", rank, w->size);
	return MPI_SUCCESS;
}

static int win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
	struct mpirma_window *w = mpirma_window_check(win);
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	if (lock_type != MPI_LOCK_SHARED && lock_type != MPI_LOCK_EXCLUSIVE)
		return mpirma_err(MPI_ERR_LOCKTYPE, "lock type %d is neither "
				  "MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE",
				  lock_type);
	if (assert & ~MPI_MODE_NOCHECK)
		return mpirma_err(MPI_ERR_ASSERT, "assertion 0x%x: only "
				  "MPI_MODE_NOCHECK applies to MPI_Win_lock",
				  assert);
	/* The standard makes a lock on MPI_PROC_NULL a no-op. */
	if (rank == MPI_PROC_NULL)
		return MPI_SUCCESS;
	ret = check_rank(w, rank);
	if (ret)
		return ret;
	if (w->lock_all || w->lock[rank])
		return mpirma_err(MPI_ERR_RMA_SYNC, "this process already "
				  "holds a lock on rank %d", rank);
	if (w->started)
		return mpirma_err(MPI_ERR_RMA_SYNC, "an MPI_Win_start epoch is "
				  "open on this window");
	/* NOCHECK: the user promises no conflicting lock; take none. */
	if (!(assert & MPI_MODE_NOCHECK)) {
		ret = lock_take(w, (uint32_t)rank,
				lock_type == MPI_LOCK_EXCLUSIVE);
		if (ret)
			return ret;
	}
	w->lock[rank] = (lock_type == MPI_LOCK_SHARED ? MPIRMA_WLOCK_SHARED :
			 MPIRMA_WLOCK_EXCL) |
			((assert & MPI_MODE_NOCHECK) ? MPIRMA_WLOCK_NOCHECK : 0);
	__atomic_add_fetch(&w->nlocks, 1, __ATOMIC_RELAXED);	/* flushes read it */
	return MPI_SUCCESS;
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_lock(lock_type, rank, assert, win),
				MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_lock)

static int win_unlock(int rank, MPI_Win win)
{
	struct mpirma_window *w = mpirma_window_check(win);
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	if (rank == MPI_PROC_NULL)
		return MPI_SUCCESS;
	ret = check_rank(w, rank);
	if (ret)
		return ret;
	if (!w->lock[rank])
		return mpirma_err(MPI_ERR_RMA_SYNC, "this process holds no "
				  "lock on rank %d%s", rank, w->lock_all ?
				  " (it is inside MPI_Win_lock_all: use "
				  "MPI_Win_unlock_all)" : "");
	/* The lock is released whatever the drain found. */
	ret = mpirma_win_drain(w);
	if (!(w->lock[rank] & MPIRMA_WLOCK_NOCHECK))
		ret = first_err(ret, lock_give(w, (uint32_t)rank));
	w->lock[rank] = MPIRMA_WLOCK_NONE;
	__atomic_sub_fetch(&w->nlocks, 1, __ATOMIC_RELAXED);
	return ret;
}

int PMPI_Win_unlock(int rank, MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_unlock(rank, win), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_unlock)

static int win_lock_all(int assert, MPI_Win win)
{
	struct mpirma_window *w = mpirma_window_check(win);
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	if (assert & ~MPI_MODE_NOCHECK)
		return mpirma_err(MPI_ERR_ASSERT, "assertion 0x%x: only "
				  "MPI_MODE_NOCHECK applies to "
				  "MPI_Win_lock_all", assert);
	if (mpirma_win_passive(w))
		return mpirma_err(MPI_ERR_RMA_SYNC, "this process already "
				  "holds %s", w->lock_all ? "MPI_Win_lock_all" :
				  "a lock on the window");
	if (w->started)
		return mpirma_err(MPI_ERR_RMA_SYNC, "an MPI_Win_start epoch is "
				  "open on this window");
	if (!(assert & MPI_MODE_NOCHECK)) {
		ret = lock_take(w, MPIRMA_RANK_ALL, false);
		if (ret)
			return ret;
	}
	w->lock_all = true;
	w->lock_all_nocheck = assert & MPI_MODE_NOCHECK;
	return MPI_SUCCESS;
}

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_lock_all(assert, win), MPIRMA_FUNC,
				NULL);
}
MPIRMA_ALIAS(Win_lock_all)

static int win_unlock_all(MPI_Win win)
{
	struct mpirma_window *w = mpirma_window_check(win);
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	if (!w->lock_all)
		return mpirma_err(MPI_ERR_RMA_SYNC, "no MPI_Win_lock_all epoch "
				  "is open on this window");
	/* The locks are released whatever the drain found. */
	ret = mpirma_win_drain(w);
	if (!w->lock_all_nocheck)
		ret = first_err(ret, lock_give(w, MPIRMA_RANK_ALL));
	w->lock_all = false;
	w->lock_all_nocheck = false;
	return ret;
}

int PMPI_Win_unlock_all(MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_unlock_all(win), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_unlock_all)

/*
 * The four flushes: one target @rank, or every target (@all).  Local and
 * remote completion are the same here: the kernel has applied an operation
 * by the time it is drained.
 */
static int win_flush(int rank, bool all, MPI_Win win)
{
	struct mpirma_window *w = mpirma_window_check(win);
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	if (!all && rank == MPI_PROC_NULL)
		return MPI_SUCCESS;
	if (all) {
		if (!mpirma_win_passive(w))
			return mpirma_err(MPI_ERR_RMA_SYNC, "no passive-target "
					  "epoch (lock or lock_all) is open");
	} else {
		ret = check_rank(w, rank);
		if (ret)
			return ret;
		if (!w->lock_all && !w->lock[rank])
			return mpirma_err(MPI_ERR_RMA_SYNC, "this process "
					  "holds no lock on rank %d", rank);
	}
	return mpirma_win_drain(w);
}

/*
 * With MPI_THREAD_MULTIPLE the flushes, like the RMA calls they complete
 * (lib/rma/rma_entry.c, rma_entry()), take no library lock: nothing is queued,
 * so a flush is a fence and a look at the epoch state, and threads that
 * each flush their own targets do not wait for one another.
 */
static int flush_entry(int rank, bool all, MPI_Win win, const char *fn)
{
	if (mpirma_unlikely(mpirma_proc.state != MPIRMA_STATE_RUNNING))
		return mpirma_not_running(fn);
	return mpirma_raise_win(win, win_flush(rank, all, win), fn, NULL);
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
	return flush_entry(rank, false, win, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Win_flush)

int PMPI_Win_flush_all(MPI_Win win)
{
	return flush_entry(0, true, win, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Win_flush_all)

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
	return flush_entry(rank, false, win, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Win_flush_local)

int PMPI_Win_flush_local_all(MPI_Win win)
{
	return flush_entry(0, true, win, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Win_flush_local_all)

int PMPI_Win_sync(MPI_Win win)
{
	struct mpirma_window *w;
	int ret;

	MPIRMA_CHECK_INIT();
	w = mpirma_window_check(win);
	if (!w)
		return mpirma_raise_win(win, MPI_ERR_WIN, MPIRMA_FUNC, NULL);
	ret = mpirma_win_drain(w);
	/*
	 * The unified model has one copy of the window; what remains is to
	 * order this process's loads and stores against the other
	 * processes' (shared windows accessed directly).
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return mpirma_raise_win(win, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_sync)

/* ------------------------------------------------------------ PSCW */

/*
 * The members of @group as window ranks, in a new array (*out; NULL when
 * the group is empty).  MPI class (recorded): MPI_ERR_GROUP for an invalid
 * group or a member outside the window.
 */
static int group_to_window(const struct mpirma_window *w, MPI_Group group,
			   uint32_t **out, uint32_t *n)
{
	struct mpirma_group *g = mpirma_group_get(group);
	uint32_t *wr;
	int *win_of, i;

	*out = NULL;
	*n = 0;
	if (!g || group == MPI_GROUP_NULL)
		return mpirma_err(MPI_ERR_GROUP, "invalid group %d", group);
	if (!g->size)
		return MPI_SUCCESS;
	wr = malloc(g->size * sizeof(*wr));
	win_of = malloc(mpirma_proc.size * sizeof(*win_of));
	if (!wr || !win_of) {
		free(wr);
		free(win_of);
		return mpirma_err(MPI_ERR_NO_MEM, "out of memory");
	}
	for (i = 0; i < mpirma_proc.size; i++)
		win_of[i] = -1;
	for (i = 0; i < w->size; i++)
		win_of[w->ranks[i]] = i;
	for (i = 0; i < g->size; i++) {
		int jr = g->ranks[i];

		if (jr < 0 || jr >= mpirma_proc.size || win_of[jr] < 0) {
			free(wr);
			free(win_of);
			return mpirma_err(MPI_ERR_GROUP, "rank %d of the group "
					  "is not in the window", i);
		}
		wr[i] = (uint32_t)win_of[jr];
	}
	free(win_of);
	*out = wr;
	*n = (uint32_t)g->size;
	return MPI_SUCCESS;
}

/* WIN_POST or WIN_START with @group; MPI class (recorded). */
static int group_ioctl(const struct mpirma_window *w, unsigned long cmd,
		       const uint32_t *ranks, uint32_t n, const char *what)
{
	struct mpirma_win_group g;
	int ret;

	memset(&g, 0, sizeof(g));
	g.size = sizeof(g);
	g.win_id = w->id;
	g.nranks = n;
	g.ranks = (uint64_t)(uintptr_t)ranks;
	ret = mpirma_ioctl_wait(cmd, &g);
	return ret ? mpirma_err_errno(ret, "%s", what) : MPI_SUCCESS;
}

static int win_post(MPI_Group group, int assert, MPI_Win win)
{
	struct mpirma_window *w = mpirma_window_check(win);
	uint32_t *ranks, n;
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	if (assert & ~POST_ASSERTS)
		return mpirma_err(MPI_ERR_ASSERT, "assertion 0x%x has bits "
				  "MPI_Win_post does not know", assert);
	if (w->posted)
		return mpirma_err(MPI_ERR_RMA_SYNC, "an exposure epoch "
				  "(MPI_Win_post) is already open");
	ret = group_to_window(w, group, &ranks, &n);
	if (ret)
		return ret;
	/* NOCHECK changes nothing: posting never waits. */
	ret = group_ioctl(w, MPIRMA_IOC_WIN_POST, ranks, n,
			  "MPIRMA_IOC_WIN_POST");
	free(ranks);
	if (ret)
		return ret;
	w->posted = true;
	return MPI_SUCCESS;
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_post(group, assert, win), MPIRMA_FUNC,
				NULL);
}
MPIRMA_ALIAS(Win_post)

static int win_start(MPI_Group group, int assert, MPI_Win win)
{
	struct mpirma_window *w = mpirma_window_check(win);
	uint32_t *ranks, n, i;
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	if (assert & ~MPI_MODE_NOCHECK)
		return mpirma_err(MPI_ERR_ASSERT, "assertion 0x%x: only "
				  "MPI_MODE_NOCHECK applies to MPI_Win_start",
				  assert);
	if (w->started)
		return mpirma_err(MPI_ERR_RMA_SYNC, "an access epoch "
				  "(MPI_Win_start) is already open");
	if (mpirma_win_passive(w))
		return mpirma_err(MPI_ERR_RMA_SYNC, "a passive-target epoch "
				  "(lock) is open on this window");
	ret = group_to_window(w, group, &ranks, &n);
	if (ret)
		return ret;
	/*
	 * Even with NOCHECK the kernel's start runs: the posts have already
	 * happened, so it does not wait, and it consumes them so that
	 * complete and wait stay matched.
	 */
	ret = group_ioctl(w, MPIRMA_IOC_WIN_START, ranks, n,
			  "MPIRMA_IOC_WIN_START");
	if (!ret) {
		memset(w->in_start, 0, w->size);
		for (i = 0; i < n; i++)
			w->in_start[ranks[i]] = 1;
		w->started = true;
	}
	free(ranks);
	return ret;
}

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_start(group, assert, win),
				MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_start)

static int win_complete(MPI_Win win)
{
	struct mpirma_window *w = mpirma_window_check(win);
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	if (!w->started)
		return mpirma_err(MPI_ERR_RMA_SYNC, "no access epoch "
				  "(MPI_Win_start) is open");
	/* The targets wait in MPI_Win_wait for this complete: always sent. */
	ret = mpirma_win_drain(w);
	ret = first_err(ret, sync_ioctl(w, MPIRMA_IOC_WIN_COMPLETE, 0, 0,
					"MPIRMA_IOC_WIN_COMPLETE"));
	memset(w->in_start, 0, w->size);
	w->started = false;
	return ret;
}

int PMPI_Win_complete(MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_complete(win), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_complete)

/* Wait (@flag NULL) or test; MPI class (recorded). */
static int win_wait(MPI_Win win, int *flag)
{
	struct mpirma_window *w = mpirma_window_check(win);
	struct mpirma_win_sync s;
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	if (!w->posted)
		return mpirma_err(MPI_ERR_RMA_SYNC, "no exposure epoch "
				  "(MPI_Win_post) is open");
	sync_arg(&s, w, flag ? MPIRMA_SYNC_TEST : 0, 0);
	ret = mpirma_ioctl_wait(MPIRMA_IOC_WIN_WAIT, &s);
	if (flag && ret == -EAGAIN) {
		*flag = 0;
		return MPI_SUCCESS;
	}
	/* Failed or not, the exposure epoch is over: the window stays usable. */
	w->posted = false;
	if (flag)
		*flag = 1;
	return ret ? mpirma_err_errno(ret, "MPIRMA_IOC_WIN_WAIT") : MPI_SUCCESS;
}

int PMPI_Win_wait(MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_wait(win, NULL), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_wait)

int PMPI_Win_test(MPI_Win win, int *flag)
{
	MPIRMA_CHECK_INIT();
	if (!flag)
		return mpirma_raise_win(win, MPI_ERR_ARG, MPIRMA_FUNC,
					"flag is NULL");
	return mpirma_raise_win(win, win_wait(win, flag), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_test)
