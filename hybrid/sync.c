// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sync.c - fence, locks and flushes under the layer: on the engine's
 * windows the engine's own (the module or the lock table holds the locks;
 * a fence's barrier is the host's), on every other window the host's.
 *
 * The engine's blocking calls are made with hy.lock held, and let go of it
 * while they wait, as of the engine's own lock (hy_engine_waits()): a
 * thread that waits for a window lock must not keep out the thread of its
 * process that is to give back the lock another process waits for.  A
 * program with one thread in MPI takes a lane to the engine's call
 * (hy_sync_lane()).
 *
 * On a window that spans nodes synchronization is the layer's, over the
 * host's messages: the agents' locks (agent_slots.c), a fence of
 * completion and a barrier (PSCW, from notices, is pscw.c's); with host
 * accumulates, fence and locks are the host window's.  The calls that
 * complete operations first complete what the engine and the agents carry
 * (hy_span_settle).
 */
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "convert.h"
#include "errors.h"
#include "origin.h"
#include "rma_args.h"
#include "span.h"
#include "sync.h"
#include "waits.h"

/*
 * Records an access epoch the host's synchronization opened or closed on a
 * window that spans nodes (hy_span_access checks against it): @flag, of
 * w->span, becomes @on.
 */
static void span_epoch(unsigned char *flag, unsigned char on)
{
	hy_lock();
	*flag = on;
	hy_unlock();
}

static void span_epoch_bool(bool *flag, bool on)
{
	hy_lock();
	*flag = on;
	hy_unlock();
}

/*
 * Must a flush of window rank @rank make the host's call (hy.lock held)?
 * Never when agents run: the host's window then carries no operation.
 * Without them, always for a remote target; for a node-local one only when
 * the host was given accumulates to it (MPIRMA_SPAN_ACCUMULATE=host) that
 * it has not completed: otherwise a node-local put + flush would pay a
 * host flush, which osc pt2pt turns into a round trip through the target's
 * progress.  @done: the host's call will
 * complete them, so they are forgotten.
 */
static bool span_host_flush(struct hy_win *w, int rank, bool done)
{
	struct hy_span *sp = w->span;
	bool owed;

	if (hy.agent)
		return false;
	if (!hy_rank_local(w, rank))	/* remote, or not a window rank */
		return true;
	owed = sp->host_acc[rank];
	if (owed && done)
		sp->host_acc[rank] = 0;
	return owed;
}

/* The host's call completes every target's operations (hy.lock held). */
static void span_host_done(struct hy_win *w)
{
	memset(w->span->host_acc, 0, (size_t)w->span->size);
}

/*
 * Is a passive-target epoch open to window rank @rank of a window that
 * spans nodes (-1: to any rank; @all: MPI_Win_lock_all's counts)?  A rank
 * outside the window passes: the host reports it.  hy.lock held.
 */
static bool span_locked(const struct hy_win *w, int rank, bool all)
{
	const struct hy_span *sp = w->span;

	if (all && sp->lock_all)
		return true;
	if (rank == -1) {
		/* 1 or 2: granted, or taken with MPI_MODE_NOCHECK */
		for (int r = 0; r < sp->size; r++)
			if (sp->lock_of[r])
				return true;
		return false;
	}
	return rank < 0 || rank >= sp->size || sp->lock_of[rank];
}

/*
 * A passive-target call made out of turn on a window that spans nodes,
 * which the engine would refuse on its own windows: @cls (span_misuse:
 * MPI_ERR_RMA_SYNC), and nothing done.  Releases hy.lock.
 */
static int span_fail(struct hy_win *w, const char *fn, int cls,
		     const char *what)
{
	int ret = hy_fail(cls, "%s", what);

	hy_unlock();
	return hy_raise(w->host, ret, fn);
}

static int span_misuse(struct hy_win *w, const char *fn, const char *what)
{
	return span_fail(w, fn, MPI_ERR_RMA_SYNC, what);
}

/*
 * A target rank outside the window (MPI_PROC_NULL was handled before),
 * which with agents no host call reports.
 */
static bool span_rank_bad(const struct hy_win *w, int rank)
{
	return rank < 0 || rank >= w->span->size;
}

/*
 * The checks of a flush of window rank @rank (-1: of every rank) on a
 * window that spans nodes: the rank, then the passive target epoch.  True,
 * with hy.lock released and *@ret the call's failure, when one fails.
 */
static bool span_flush_bad(struct hy_win *w, int rank, const char *fn,
			   int *ret)
{
	if (rank != -1 && hy.agent && span_rank_bad(w, rank))
		*ret = span_fail(w, fn, MPI_ERR_RANK,
				 "no such rank in the window");
	else if (!span_locked(w, rank, true))
		*ret = span_misuse(w, fn, "no passive target epoch is open");
	else
		return false;
	return true;
}

/*
 * MPI_PROC_NULL as the target of lock, unlock or flush on a window that
 * spans nodes: a no-op, as the standard says and the engine does (Open MPI
 * 4.1's own lock rejects it).  Releases hy.lock when it is one.
 */
static bool span_proc_null(struct hy_win *w, int rank)
{
	if (!w->span || rank != MPI_PROC_NULL)
		return false;
	hy_unlock();
	return true;
}

/*
 * A host communicator of @w's group for its fences: a predefined one when
 * the group is its, else one made at the first fence (collective over the
 * group, as the fence is) and kept until the window is freed.
 */
static int fence_comm(struct hy_win *w, MPI_Comm *comm)
{
	int ret = MPI_SUCCESS;

	if (w->gcomm != MPI_COMM_NULL) {
		*comm = w->gcomm;
		return MPI_SUCCESS;
	}
	if (w->fcomm == MPI_COMM_NULL)
		ret = PMPI_Comm_create_group(MPI_COMM_WORLD, w->hgroup, 0,
					     &w->fcomm);
	*comm = w->fcomm;
	return ret;
}

/*
 * The fence of a window within one node: the engine's, whose barrier runs
 * on counters in the window's lock table (2 ranks in the VM: 1.3-1.8 us a
 * fence, put and fence, Open MPI's 8.5-10); where the window has none, the
 * engine's checks, drain and epoch, then the host's barrier instead of the
 * module's, which sleeps (the module's 105-220 us, Open MPI's barrier 3-9
 * us).  That barrier runs whatever the engine's part found, so that the
 * other ranks never wait for this one; it runs without hy.lock, as the
 * host's own calls do.  Once the first fence has found the counters, the
 * lane makes the engine's fence one call (MPI_Win_fence): half what the
 * layer added to a fence.
 */
static int node_fence(struct hy_win *w, int assert)
{
	bool counted;
	int ret;
	MPI_Comm comm;
	int host;

	ret = hy_inner(mpirma_win_fence_local(hy_assert(assert), w->inner,
					      &counted));
	w->counted = counted;
	hy_unlock();
	if (counted) {
		host = hy_inner(mpirma_win_fence_counted(w->inner));
		return hy_raise(w->host, ret ? ret : host, "MPI_Win_fence");
	}
	host = fence_comm(w, &comm);
	if (!host)
		host = hy_wait_barrier(comm);
	if (!ret && host)
		ret = hy_fail(host, "the fence's barrier (the host's "
			      "MPI_Barrier) failed");
	return hy_raise(w->host, ret, "MPI_Win_fence");
}

/* MPI_Win_fence past its lane. */
static __attribute__((noinline)) int fence_general(int assert, MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_fence(assert, win);
	if (w->span) {
		int ret, host;

		span_host_done(w);
		ret = hy_span_settle(w, -1, "MPI_Win_fence");
		/* With agents, all is complete: the rest is a barrier. */
		host = hy.agent ? hy_wait_barrier(w->span->comm) :
		       PMPI_Win_fence(assert, win);

		/* Errors never break sync: the epoch is what was asked. */
		span_epoch_bool(&w->span->fence, !(assert & MPI_MODE_NOSUCCEED));
		return hy_sync_end(w, ret, host, "MPI_Win_fence");
	}
	return node_fence(w, assert);
}

HY_PAIR(Win_fence) int MPI_Win_fence(int assert, MPI_Win win)
{
	struct hy_win *w = hy_sync_lane(win);

	if (w && w->counted)
		return mpirma_at_Win_fence(&w->at, hy_assert(assert));
	return fence_general(assert, win);
}

/* MPI_Win_lock past its lane. */
static __attribute__((noinline)) int
lock_general(int lock_type, int rank, int assert, MPI_Win win)
{
	struct hy_win *w = hy_enter(win);
	int type, ret;

	if (w && span_proc_null(w, rank))
		return MPI_SUCCESS;
	if (w) {
		ret = hy_lock_type(lock_type, &type);
		if (ret) {
			hy_unlock();
			return hy_raise(w->host, ret, "MPI_Win_lock");
		}
	}
	if (w && w->span && rank >= 0 && rank < w->span->size &&
	    span_locked(w, rank, true))
		return span_misuse(w, "MPI_Win_lock", "a passive target epoch "
				   "to this rank is already open");
	if (w && w->span && hy.agent) {
		if (span_rank_bad(w, rank))
			return span_fail(w, "MPI_Win_lock", MPI_ERR_RANK,
					 "no such rank in the window");
		hy_unlock();
		hy_agent_poll();
		/* another node's: the lock goes with the epoch's operations */
		ret = MPI_SUCCESS;
		if (assert & MPI_MODE_NOCHECK)
			;
		else if (hy_remote(w, rank))
			hy_ship_lock_lazy(w, rank,
					  lock_type == MPI_LOCK_EXCLUSIVE);
		else
			ret = hy_ship_lock(w, rank,
					   lock_type == MPI_LOCK_EXCLUSIVE);
		if (!ret)
			span_epoch(&w->span->lock_of[rank],
				   assert & MPI_MODE_NOCHECK ? 2 : 1);
		return ret;
	}
	if (w && hy_host_only(w)) {
		ret = PMPI_Win_lock(lock_type, rank, assert, win);
		/*
		 * Held for real when the call returns: the standard lets the
		 * host acquire it later (Open MPI's osc pt2pt asks with the
		 * first operation), but the module serves a node-local target
		 * without the host seeing an operation, and a remote target's
		 * agent applies shipped accumulates the same way.  A flush of
		 * nothing waits for the grant (MPI_MODE_NOCHECK asks for
		 * none); if it fails, the lock is given back: the call failed
		 * as a whole.  Only a remote target whose every access is the
		 * host's (MPIRMA_SPAN_ACCUMULATE=host) needs none.
		 */
		if (!ret && !(assert & MPI_MODE_NOCHECK) &&
		    (hy_rank_local(w, rank) || !hy.span_host_acc)) {
			ret = PMPI_Win_flush(rank, win);
			if (ret)
				PMPI_Win_unlock(rank, win);
		}
		if (!ret && rank >= 0 && rank < w->span->size)
			span_epoch(&w->span->lock_of[rank], true);
		return ret;
	}
	if (!w)
		return PMPI_Win_lock(lock_type, rank, assert, win);
	return hy_leave(w, MPII_Win_lock(type, hy_rank(w, rank), hy_assert(assert),
					 w->inner), "MPI_Win_lock");
}

/* The lane ends with a jump to the engine's entry, in this page. */
HY_PAIR(Win_lock) int MPI_Win_lock(int lock_type, int rank, int assert,
				   MPI_Win win)
{
	struct hy_win *w = hy_sync_lane(win);

	if (w && rank != MPI_PROC_NULL &&
	    (lock_type == MPI_LOCK_EXCLUSIVE || lock_type == MPI_LOCK_SHARED))
		return mpirma_at_Win_lock(&w->at,
					  lock_type == MPI_LOCK_EXCLUSIVE ?
					  MPII_LOCK_EXCLUSIVE :
					  MPII_LOCK_SHARED, rank,
					  hy_assert(assert));
	return lock_general(lock_type, rank, assert, win);
}

/* MPI_Win_unlock past its lane. */
static __attribute__((noinline)) int unlock_general(int rank, MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_unlock(rank, win);
	if (span_proc_null(w, rank))
		return MPI_SUCCESS;
	if (w->span && !span_locked(w, rank, false))
		return span_misuse(w, "MPI_Win_unlock", "the rank is not "
				   "locked (MPI_Win_unlock without "
				   "MPI_Win_lock)");
	if (w->span && hy.agent && span_rank_bad(w, rank))
		return span_fail(w, "MPI_Win_unlock", MPI_ERR_RANK,
				 "no such rank in the window");
	if (w->span) {
		bool granted = hy.agent && w->span->lock_of[rank] == 1;
		int ret, host;

		span_host_flush(w, rank, true);	/* the unlock completes them */
		/* a lazy epoch's last message unlocks too */
		if (granted && hy_remote(w, rank) && hy_ship_unlock_lazy(w, rank))
			granted = false;
		ret = hy_span_settle(w, rank, "MPI_Win_unlock");
		/* Completed or not, the lock is given back. */
		host = !hy.agent ? PMPI_Win_unlock(rank, win) :
		       granted ? hy_ship_unlock(w, rank) : MPI_SUCCESS;

		if (rank >= 0 && rank < w->span->size)
			span_epoch(&w->span->lock_of[rank], false);
		return hy_sync_end(w, ret, host, "MPI_Win_unlock");
	}
	return hy_leave(w, MPII_Win_unlock(hy_rank(w, rank), w->inner),
			"MPI_Win_unlock");
}

HY_PAIR(Win_unlock) int MPI_Win_unlock(int rank, MPI_Win win)
{
	struct hy_win *w = hy_sync_lane(win);

	if (w && rank != MPI_PROC_NULL)
		return mpirma_at_Win_unlock(&w->at, rank);
	return unlock_general(rank, win);
}

/* MPI_Win_lock_all past its lane. */
static __attribute__((noinline)) int lock_all_general(int assert, MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (w && w->span && span_locked(w, -1, true))
		return span_misuse(w, "MPI_Win_lock_all", "a passive target "
				   "epoch is already open");
	if (w && w->span && hy.agent) {
		int ret;

		hy_unlock();
		ret = assert & MPI_MODE_NOCHECK ? MPI_SUCCESS :
		      hy_ship_lock(w, -1, false);
		if (!ret)
			span_epoch(&w->span->lock_all,
				   assert & MPI_MODE_NOCHECK ? 2 : 1);
		return ret;
	}
	if (w && hy_host_only(w)) {
		int ret = PMPI_Win_lock_all(assert, win);

		/* Held for real, as in MPI_Win_lock. */
		if (!ret && !(assert & MPI_MODE_NOCHECK)) {
			ret = PMPI_Win_flush_all(win);
			if (ret)
				PMPI_Win_unlock_all(win);
		}
		if (!ret)
			span_epoch(&w->span->lock_all, 1);
		return ret;
	}
	if (!w)
		return PMPI_Win_lock_all(assert, win);
	return hy_leave(w, MPII_Win_lock_all(hy_assert(assert), w->inner),
			"MPI_Win_lock_all");
}

HY_PAIR(Win_lock_all) int MPI_Win_lock_all(int assert, MPI_Win win)
{
	struct hy_win *w = hy_sync_lane(win);

	if (w)
		return mpirma_at_Win_lock_all(&w->at, hy_assert(assert));
	return lock_all_general(assert, win);
}

/* MPI_Win_unlock_all past its lane. */
static __attribute__((noinline)) int unlock_all_general(MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_unlock_all(win);
	if (w->span && !w->span->lock_all)
		return span_misuse(w, "MPI_Win_unlock_all", "no MPI_Win_lock_all "
				   "epoch is open");
	if (w->span) {
		bool granted = hy.agent && w->span->lock_all == 1;
		int ret, host;

		span_host_done(w);
		ret = hy_span_settle(w, -1, "MPI_Win_unlock_all");
		host = !hy.agent ? PMPI_Win_unlock_all(win) :
		       granted ? hy_ship_unlock(w, -1) : MPI_SUCCESS;

		span_epoch(&w->span->lock_all, 0);
		return hy_sync_end(w, ret, host, "MPI_Win_unlock_all");
	}
	return hy_leave(w, MPII_Win_unlock_all(w->inner), "MPI_Win_unlock_all");
}

HY_PAIR(Win_unlock_all) int MPI_Win_unlock_all(MPI_Win win)
{
	struct hy_win *w = hy_sync_lane(win);

	if (w)
		return mpirma_at_Win_unlock_all(&w->at);
	return unlock_all_general(win);
}

/* The host's flush of @win: of @rank, or @all, @local or not. */
static int host_flush(MPI_Win win, int rank, bool all, bool local)
{
	if (all)
		return local ? PMPI_Win_flush_local_all(win) :
		       PMPI_Win_flush_all(win);
	return local ? PMPI_Win_flush_local(rank, win) :
	       PMPI_Win_flush(rank, win);
}

/* The engine's flush of @w's window rank @rank, or @all; engine code. */
static int engine_flush(struct hy_win *w, int rank, bool all, bool local)
{
	if (all)
		return local ? MPII_Win_flush_local_all(w->inner) :
		       MPII_Win_flush_all(w->inner);
	return local ? MPII_Win_flush_local(hy_rank(w, rank), w->inner) :
	       MPII_Win_flush(hy_rank(w, rank), w->inner);
}

/*
 * The four flushes, one body: of window rank @rank, or @all ranks; @local:
 * local completion only (the same here, but a host's flush of a spanning
 * window keeps its own kind).
 */
static int flush(MPI_Win win, int rank, bool all, bool local, const char *fn)
{
	struct hy_win *w = hy_enter(win);
	bool host;
	int ret;

	if (!w)
		return host_flush(win, rank, all, local);
	if (!all && span_proc_null(w, rank))
		return MPI_SUCCESS;
	if (!w->span)
		return hy_leave(w, engine_flush(w, rank, all, local), fn);
	if (span_flush_bad(w, all ? -1 : rank, fn, &ret))
		return ret;
	if (all && !local)
		span_host_done(w);
	host = all ? !hy.agent : span_host_flush(w, rank, !local);
	ret = hy_span_settle(w, all ? -1 : rank, fn);
	return hy_sync_end(w, ret, host ? host_flush(win, rank, all, local) :
			   MPI_SUCCESS, fn);
}

/*
 * The four flushes: the fast lane, as rma.c's (on a window that spans no
 * nodes, the engine's entry for the layer, or its body, without hy.lock),
 * else flush().
 */
static inline __attribute__((always_inline)) int
flush_fast(MPI_Win win, int rank, bool all, bool local, const char *fn,
	   bool last_only);

/* flush_fast() with any window looked up: out of line, as rma.c's. */
static __attribute__((noinline)) int
flush_slow(MPI_Win win, int rank, bool all, bool local, const char *fn)
{
	return flush_fast(win, rank, all, local, fn, false);
}

/*
 * With @last_only, only the window the fast lanes found last
 * (hy_win_cached()), so that nothing is called before the engine; any
 * other goes to flush_slow().
 */
static inline __attribute__((always_inline)) int
flush_fast(MPI_Win win, int rank, bool all, bool local, const char *fn,
	   bool last_only)
{
	struct hy_win *w = last_only ? hy_win_cached(win) : hy_win_fast(win);
	int ret;

	if (!w && last_only)
		return flush_slow(win, rank, all, local, fn);

	if (!w || (!all && rank < 0))
		return flush(win, rank, all, local, fn);
	if (!all && !local)	/* a failure raised by mpirma_at_done() */
		return mpirma_at_Win_flush(&w->at, rank);
	if (!all && mpirma_lean_flush(w->eng, rank))
		ret = MPI_SUCCESS;
	else
		ret = mpirma_win_flush(rank, all, w->inner);
	if (__builtin_expect(ret == MPI_SUCCESS, 1))
		return MPI_SUCCESS;
	return hy_raise(w->host, hy_inner(ret), fn);
}

HY_PAIR(Win_flush) int MPI_Win_flush(int rank, MPI_Win win)
{
	struct hy_win *w = hy_win_cached(win);

	/* the engine's entry last: a jump, and its return is the call's */
	if (__builtin_expect(w && rank >= 0, 1))
		return mpirma_at_Win_flush(&w->at, rank);
	return flush_slow(win, rank, false, false, "MPI_Win_flush");
}

int MPI_Win_flush_all(MPI_Win win)
{
	return flush_fast(win, 0, true, false, "MPI_Win_flush_all", true);
}

HY_HOT int MPI_Win_flush_local(int rank, MPI_Win win)
{
	return flush_fast(win, rank, false, true, "MPI_Win_flush_local",
			  true);
}

int MPI_Win_flush_local_all(MPI_Win win)
{
	return flush_fast(win, 0, true, true, "MPI_Win_flush_local_all",
			  true);
}

int MPI_Win_sync(MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_sync(win);
	if (w->span) {
		int ret = hy_inner(MPII_Win_sync(w->inner));

		hy_unlock();
		return hy_sync_end(w, ret, hy.agent ? MPI_SUCCESS :
				   PMPI_Win_sync(win), "MPI_Win_sync");
	}
	return hy_leave(w, MPII_Win_sync(w->inner), "MPI_Win_sync");
}
