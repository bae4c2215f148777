// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * win_sync.c - RMA synchronization: fence, passive-target locks, flushes
 * and MPI_Win_sync (post/start/complete/wait/test: win_pscw.c).
 *
 * The fence is a barrier over the shared-memory queues where messages use
 * them, else the kernel's; the kernel holds the reader/writer locks per
 * target, except for the locks of a window with a lock table, which
 * lib/rma/ulock.c takes in user space.  This file keeps the epoch state
 * of struct mpirma_window that tells rma.c whether a communication call is
 * allowed, and rejects synchronization calls made in the wrong state with
 * MPI_ERR_RMA_SYNC before they reach the kernel.
 *
 * Every call that ends or flushes an epoch first drains the window's queue
 * (mpirma_win_drain), so operations are complete at the target before a
 * lock is released, a fence passed or a complete counted.
 *
 * Errors never break synchronization: a drain that reports a failed
 * operation does not stop the call.  It still passes the barrier, releases
 * the lock or counts the complete (other processes wait for exactly that),
 * updates the epoch state, and only then returns the first error.  The same
 * when the kernel's part fails: the epoch is over for this process either
 * way, so the window stays usable (mpirma_first_err()).
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
#include "request.h"
#include "p2p.h"
#include "rma_args.h"
#include "win.h"
#include "win_sync.h"

#define FENCE_ASSERTS	(MPI_MODE_NOSTORE | MPI_MODE_NOPUT | \
			 MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)

void mpirma_sync_arg(struct mpirma_win_sync *s,
		     const struct mpirma_window *w, uint32_t flags,
		     uint32_t rank)
{
	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	s->flags = flags;
	s->win_id = w->id;
	s->rank = rank;
}

int mpirma_sync_ioctl(struct mpirma_window *w, unsigned long cmd,
		      uint32_t flags, uint32_t rank, const char *what)
{
	struct mpirma_win_sync s;
	int ret;

	mpirma_win_direct_report(w);
	mpirma_sync_arg(&s, w, flags, rank);
	ret = mpirma_ioctl_wait(cmd, &s);
	return ret ? mpirma_err_errno(ret, "%s", what) : MPI_SUCCESS;
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
		return mpirma_sync_ioctl(w, MPIRMA_IOC_WIN_LOCK, excl ?
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
		return mpirma_sync_ioctl(w, MPIRMA_IOC_WIN_UNLOCK, 0, rank,
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

/*
 * The end of a passive-target epoch on @rank (or MPIRMA_RANK_ALL): the
 * drain, then the release, whatever the drain found (a lock taken with
 * @nocheck holds nothing to release, so its drain orders the epoch
 * itself).  MPI class (recorded): the first error.
 */
static int drain_and_give(struct mpirma_window *w, uint32_t rank, bool nocheck)
{
	int ret;

	if (nocheck)
		return mpirma_win_drain(w);
	ret = mpirma_win_drain_released(w);
	return mpirma_first_err(ret, lock_give(w, rank));
}

/* ------------------------------------------------------------ fence */


/*
 * The fence's barrier over the shared-memory queues, where the window has
 * no counters in its lock table (win_counters.c): a dissemination
 * barrier of one-byte messages, polled in user space where the kernel's
 * (MPIRMA_IOC_WIN_FENCE) sleeps and costs a wake-up per rank.  Every round
 * runs whatever an earlier one found, so that a rank that has died fails
 * each survivor's fence instead of hanging it; the byte passes that news
 * on to the ranks that do not hear from the dead one directly.  -errno.
 */
static int fence_barrier(const struct mpirma_window *w)
{
	uint8_t bad = 0, got;
	int k, ret, err = 0;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (k = 1; k < w->size; k <<= 1) {
		ret = mpirma_win_msg_send(w, MPIRMA_WIN_MSG_FENCE,
					  (uint32_t)((w->rank + k) % w->size),
					  bad);
		if (ret < 0 && !err)
			err = ret;
		got = 0;
		ret = mpirma_win_msg_recv(w, MPIRMA_WIN_MSG_FENCE,
					  (uint32_t)((w->rank - k + w->size) %
						     w->size), false, &got);
		if (ret < 0 && !err)
			err = ret;
		bad |= ret < 0 || got;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return err ? err : bad ? -EOWNERDEAD : 0;
}

/* win_sync.h */
int mpirma_win_msg_send(const struct mpirma_window *w, int tag, uint32_t to,
			uint8_t byte)
{
	return mpirma_msg_send(w->ranks[to], tag, MPIRMA_WIN_MSG_CTX | w->id,
			       &byte, 1);
}

/* win_sync.h */
int mpirma_win_msg_recv(const struct mpirma_window *w, int tag,
			uint32_t from, bool nowait, uint8_t *byte)
{
	struct mpirma_msg m;

	return mpirma_msg_recv(nowait ? MPIRMA_MSG_NOWAIT : 0, w->ranks[from],
			       tag, MPIRMA_WIN_MSG_CTX | w->id, byte, 1, &m);
}

/* The fence's checks, drain and epoch; MPI class (recorded). */
static int fence_epoch(struct mpirma_window *w, int assert)
{
	int ret;

	if (assert & ~FENCE_ASSERTS)
		return mpirma_err(MPI_ERR_ASSERT, "assertion 0x%x has bits "
				  "MPI_Win_fence does not know", assert);
	if (mpirma_win_passive(w) || w->started || w->posted)
		return mpirma_err(MPI_ERR_RMA_SYNC, "a %s epoch is open on "
				  "this window", mpirma_win_passive(w) ?
				  "passive-target (lock)" : "PSCW");
	ret = mpirma_win_drain(w);
	w->fence = !(assert & MPI_MODE_NOSUCCEED);
	mpirma_win_direct_report_due(w);
	return ret;
}

/* The barrier that ends a fence, over the window's group; MPI class. */
static int fence_sync(struct mpirma_window *w)
{
	int err;

	if (w->counters)
		err = mpirma_win_counters_fence(w);
	else if (mpirma_shmq_on())
		err = fence_barrier(w);
	else
		return mpirma_sync_ioctl(w, MPIRMA_IOC_WIN_FENCE, 0, 0,
					 "MPIRMA_IOC_WIN_FENCE");
	return err ? mpirma_err_errno(err, "fence barrier") : MPI_SUCCESS;
}

/* @local: the caller runs the barrier (mpirma_win_fence_local). */
static int win_fence(int assert, MPI_Win win, bool local)
{
	struct mpirma_window *w = mpirma_window_check(win);
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	ret = fence_epoch(w, assert);
	/*
	 * Always a barrier, whatever the assertions (and whatever the checks
	 * and the drain found: the other ranks are waiting in it): with
	 * NOPRECEDE the targets' own stores must still be visible to the gets
	 * that follow, and with NOSUCCEED the operations before it must be
	 * complete everywhere before anyone returns.
	 */
	if (local)
		return ret;
	return mpirma_first_err(ret, fence_sync(w));
}

int PMPI_Win_fence(int assert, MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_fence(assert, win, false),
				MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_fence)

MPIRMA_AT_ENTRY(Win_fence) int
mpirma_at_Win_fence(const struct mpirma_at_win *aw, int assert)
{
	return SYNC_AT(aw, "MPI_Win_fence", win_fence(assert, aw->win, false));
}

int mpirma_win_fence_local(int assert, MPI_Win win, bool *counted)
{
	struct mpirma_window *w;

	MPIRMA_CHECK_INIT();
	w = mpirma_window_get(win);
	*counted = w && w->counters;
	return mpirma_raise_win(win, win_fence(assert, win, true),
				"MPI_Win_fence", NULL);
}

int mpirma_win_fence_counted(MPI_Win win)
{
	struct mpirma_window *w;
	int ret;

	MPIRMA_CHECK_INIT();
	w = mpirma_window_check(win);
	if (!w)
		ret = MPI_ERR_WIN;
	else if (!w->counters)
		ret = mpirma_err(MPI_ERR_INTERN, "the window has no counters");
	else
		ret = fence_sync(w);
	return mpirma_raise_win(win, ret, "MPI_Win_fence", NULL);
}

/* ------------------------------------------------------------ passive */

/*
 * w->nlocks += @d.  Lock and unlock hold the library lock with threads
 * (MPIRMA_CHECK_INIT()), so one writer at a time: no locked instruction;
 * flushes on other threads read it atomically.
 */
static void nlocks_add(struct mpirma_window *w, int d)
{
	__atomic_store_n(&w->nlocks,
			 __atomic_load_n(&w->nlocks, __ATOMIC_RELAXED) + d,
			 __ATOMIC_RELAXED);
}

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
	nlocks_add(w, 1);
	return MPI_SUCCESS;
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_lock(lock_type, rank, assert, win),
				MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_lock)

MPIRMA_AT_ENTRY(Win_lock) int
mpirma_at_Win_lock(const struct mpirma_at_win *aw, int lock_type, int rank,
		   int assert)
{
	return SYNC_AT(aw, "MPI_Win_lock",
		       win_lock(lock_type, rank, assert, aw->win));
}

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
	ret = drain_and_give(w, (uint32_t)rank,
			     w->lock[rank] & MPIRMA_WLOCK_NOCHECK);
	w->lock[rank] = MPIRMA_WLOCK_NONE;
	nlocks_add(w, -1);
	return ret;
}

int PMPI_Win_unlock(int rank, MPI_Win win)
{
	MPIRMA_CHECK_INIT();
	return mpirma_raise_win(win, win_unlock(rank, win), MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_unlock)

MPIRMA_AT_ENTRY(Win_unlock) int
mpirma_at_Win_unlock(const struct mpirma_at_win *aw, int rank)
{
	return SYNC_AT(aw, "MPI_Win_unlock", win_unlock(rank, aw->win));
}

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

MPIRMA_AT_ENTRY(Win_lock_all) int
mpirma_at_Win_lock_all(const struct mpirma_at_win *aw, int assert)
{
	return SYNC_AT(aw, "MPI_Win_lock_all", win_lock_all(assert, aw->win));
}

static int win_unlock_all(MPI_Win win)
{
	struct mpirma_window *w = mpirma_window_check(win);
	int ret;

	if (!w)
		return MPI_ERR_WIN;
	if (!w->lock_all)
		return mpirma_err(MPI_ERR_RMA_SYNC, "no MPI_Win_lock_all epoch "
				  "is open on this window");
	ret = drain_and_give(w, MPIRMA_RANK_ALL, w->lock_all_nocheck);
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

MPIRMA_AT_ENTRY(Win_unlock_all) int
mpirma_at_Win_unlock_all(const struct mpirma_at_win *aw)
{
	return SYNC_AT(aw, "MPI_Win_unlock_all", win_unlock_all(aw->win));
}

/*
 * rma_args.h: the four flushes: one target @rank, or every target (@all).
 * Local and remote completion are the same here: the kernel has applied an
 * operation by the time it is drained.
 */
int mpirma_win_flush(int rank, bool all, MPI_Win win)
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
	return mpirma_raise_win(win, mpirma_win_flush(rank, all, win), fn,
				NULL);
}

/* rma_args.h */
int (*mpirma_at_failed)(const struct mpirma_at_win *aw, int code,
			 const char *fn);

/* MPI_Win_flush on the window @lw of @win: the lean lane, else the general. */
static __always_inline int flush_call(struct mpirma_window *lw, int rank,
				      MPI_Win win)
{
	if (mpirma_lean_flush(lw, rank))
		return MPI_SUCCESS;
	return flush_entry(rank, false, win, "MPI_Win_flush");
}

MPIRMA_AT_ENTRY(Win_flush) int
mpirma_at_Win_flush(const struct mpirma_at_win *aw, int rank)
{
	return mpirma_at_done(aw, flush_call(aw->lw, rank, aw->win),
			      "MPI_Win_flush");
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
	return flush_call(mpirma_window_get(win), rank, win);
}
MPIRMA_ALIAS(Win_flush)

int PMPI_Win_flush_all(MPI_Win win)
{
	return flush_entry(0, true, win, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Win_flush_all)

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
	if (mpirma_lean_flush(mpirma_window_get(win), rank))
		return MPI_SUCCESS;
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
