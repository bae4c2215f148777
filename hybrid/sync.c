// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * sync.c - the synchronization calls under the layer: on the engine's
 * windows the engine's own (the module holds the locks, matches PSCW and
 * runs the fence's barrier), on every other window the host's.
 *
 * The engine's blocking calls run with hy.lock held: other threads of this
 * process that call into the engine meanwhile wait for them.
 */
#include "hybrid.h"

int MPI_Win_fence(int assert, MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_fence(assert, win);
	return hy_leave(w, MPII_Win_fence(hy_assert(assert), w->inner),
			"MPI_Win_fence");
}

int MPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
	struct hy_win *w = hy_enter(win);
	int type, ret;

	if (!w)
		return PMPI_Win_lock(lock_type, rank, assert, win);
	ret = hy_lock_type(lock_type, &type);
	if (ret) {
		hy_unlock();
		return hy_done(w, ret, "MPI_Win_lock");
	}
	return hy_leave(w, MPII_Win_lock(type, hy_rank(rank), hy_assert(assert),
					 w->inner), "MPI_Win_lock");
}

int MPI_Win_unlock(int rank, MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_unlock(rank, win);
	return hy_leave(w, MPII_Win_unlock(hy_rank(rank), w->inner),
			"MPI_Win_unlock");
}

int MPI_Win_lock_all(int assert, MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_lock_all(assert, win);
	return hy_leave(w, MPII_Win_lock_all(hy_assert(assert), w->inner),
			"MPI_Win_lock_all");
}

int MPI_Win_unlock_all(MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_unlock_all(win);
	return hy_leave(w, MPII_Win_unlock_all(w->inner), "MPI_Win_unlock_all");
}

int MPI_Win_flush(int rank, MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_flush(rank, win);
	return hy_leave(w, MPII_Win_flush(hy_rank(rank), w->inner),
			"MPI_Win_flush");
}

int MPI_Win_flush_all(MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_flush_all(win);
	return hy_leave(w, MPII_Win_flush_all(w->inner), "MPI_Win_flush_all");
}

int MPI_Win_flush_local(int rank, MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_flush_local(rank, win);
	return hy_leave(w, MPII_Win_flush_local(hy_rank(rank), w->inner),
			"MPI_Win_flush_local");
}

int MPI_Win_flush_local_all(MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_flush_local_all(win);
	return hy_leave(w, MPII_Win_flush_local_all(w->inner),
			"MPI_Win_flush_local_all");
}

int MPI_Win_sync(MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_sync(win);
	return hy_leave(w, MPII_Win_sync(w->inner), "MPI_Win_sync");
}

/* MPI_Win_post and MPI_Win_start: the group as the engine's. */
static int with_group(struct hy_win *w, MPI_Group group, int assert,
		      int (*call)(MPII_Group, int, MPII_Win), const char *fn)
{
	MPII_Group ig;
	int ret = hy_group(w, group, &ig);

	if (!ret) {
		ret = hy_inner(call(ig, hy_assert(assert), w->inner));
		MPII_Group_free(&ig);
	}
	hy_unlock();
	return hy_done(w, ret, fn);
}

int MPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_post(group, assert, win);
	return with_group(w, group, assert, MPII_Win_post, "MPI_Win_post");
}

int MPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_start(group, assert, win);
	return with_group(w, group, assert, MPII_Win_start, "MPI_Win_start");
}

int MPI_Win_complete(MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_complete(win);
	return hy_leave(w, MPII_Win_complete(w->inner), "MPI_Win_complete");
}

int MPI_Win_wait(MPI_Win win)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_wait(win);
	return hy_leave(w, MPII_Win_wait(w->inner), "MPI_Win_wait");
}

int MPI_Win_test(MPI_Win win, int *flag)
{
	struct hy_win *w = hy_enter(win);

	if (!w)
		return PMPI_Win_test(win, flag);
	return hy_leave(w, MPII_Win_test(w->inner, flag), "MPI_Win_test");
}
