// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * pscw.c - general active-target synchronization under the layer
 * (MPI_Win_post, _start, _complete, _wait, _test): on the engine's windows
 * the engine's own, which matches posts and completes in its lock table or
 * the module; on a window that spans nodes the layer's, from notices over
 * the host's messages (span.c).  Each call has a lane, as sync.c's.
 */
#include "convert.h"
#include "span.h"
#include "sync.h"

/* MPI_Win_post and MPI_Win_start: the group as the engine's. */
static int with_group(struct hy_win *w, int slot, MPI_Group group,
		      int assert, int (*call)(MPII_Group, int, MPII_Win),
		      const char *fn)
{
	MPII_Group ig;
	int ret = hy_group_cached(w, slot, group, &ig);

	if (!ret)
		ret = hy_inner(call(ig, hy_assert(assert), w->inner));
	hy_unlock();
	return hy_raise(w->host, ret, fn);
}

/* MPI_Win_post past its lane. */
static __attribute__((noinline)) int
post_general(MPI_Group group, int assert, MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (w && hy_host_only(w))
		return hy_raise(w->host, hy_span_post(w, group, assert),
			       "MPI_Win_post");
	if (!w)
		return PMPI_Win_post(group, assert, win);
	return with_group(w, 0, group, assert, MPII_Win_post,
			  "MPI_Win_post");
}

/* The lane takes a group the window's cache has (with_group() fills it). */
HY_PAIR(Win_post) int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
	struct hy_win *w = hy_sync_lane(win);

	if (w && hy_group_hit(w, 0, group))
		return mpirma_at_Win_post(&w->at, w->pscw[0].inner,
					  hy_assert(assert));
	return post_general(group, assert, win);
}

/* MPI_Win_start past its lane. */
static __attribute__((noinline)) int
start_general(MPI_Group group, int assert, MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (w && hy_host_only(w)) {
		int host, ret = hy_span_start(w, group, assert, &host);

		return hy_sync_end(w, ret, host, "MPI_Win_start");
	}
	if (!w)
		return PMPI_Win_start(group, assert, win);
	return with_group(w, 1, group, assert, MPII_Win_start,
			  "MPI_Win_start");
}

HY_PAIR(Win_start) int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
	struct hy_win *w = hy_sync_lane(win);

	if (w && hy_group_hit(w, 1, group))
		return mpirma_at_Win_start(&w->at, w->pscw[1].inner,
					   hy_assert(assert));
	return start_general(group, assert, win);
}

/* MPI_Win_complete past its lane. */
static __attribute__((noinline)) int complete_general(MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (w && hy_host_only(w)) {
		int host, ret = hy_span_complete(w, &host);

		return hy_sync_end(w, ret, host, "MPI_Win_complete");
	}
	if (!w)
		return PMPI_Win_complete(win);
	return hy_leave(w, MPII_Win_complete(w->inner), "MPI_Win_complete");
}

HY_PAIR(Win_complete) int MPI_Win_complete(MPI_Win win)
{
	struct hy_win *w = hy_sync_lane(win);

	if (w)
		return mpirma_at_Win_complete(&w->at);
	return complete_general(win);
}

/* MPI_Win_wait past its lane. */
static __attribute__((noinline)) int wait_general(MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (w && hy_host_only(w))
		return hy_raise(w->host, hy_span_wait(w, NULL), "MPI_Win_wait");
	if (!w)
		return PMPI_Win_wait(win);
	return hy_leave(w, MPII_Win_wait(w->inner), "MPI_Win_wait");
}

HY_PAIR(Win_wait) int MPI_Win_wait(MPI_Win win)
{
	struct hy_win *w = hy_sync_lane(win);

	if (w)
		return mpirma_at_Win_wait(&w->at);
	return wait_general(win);
}

int MPI_Win_test(MPI_Win win, int *flag)
{
	struct hy_win *w = hy_enter(win);

	if (w && hy_host_only(w))
		return hy_raise(w->host, hy_span_wait(w, flag), "MPI_Win_test");
	if (!w)
		return PMPI_Win_test(win, flag);
	return hy_leave(w, MPII_Win_test(w->inner, flag), "MPI_Win_test");
}
