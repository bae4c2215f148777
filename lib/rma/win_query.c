// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * win_query.c - what a window tells about itself: the kernel's view of a
 * rank's memory (MPIRMA_IOC_WIN_QUERY), MPI_Win_shared_query, the group,
 * and mpirma's MPIX_Win_get_node and MPIX_Win_get_worker.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "mpirma.h"
#include "win.h"

/* win.h */
/* MPIRMA_IOC_WIN_QUERY about window rank @rank; 0 or -errno. */
int mpirma_win_query(const struct mpirma_window *w, int rank,
		     struct mpirma_win_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->win_id = w->id;
	q->rank = (uint32_t)rank;
	return mpirma_ioctl(MPIRMA_IOC_WIN_QUERY, q);
}

/* ------------------------------------------------------------ shared query */

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size,
			  int *disp_unit, void *baseptr)
{
	struct mpirma_window *w;
	struct mpirma_win_query q;
	int ret, r;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_WIN(w, win);
	if (!size || !disp_unit || !baseptr)
		return mpirma_raise_win(win, MPI_ERR_ARG, MPIRMA_FUNC,
					"NULL output argument");
	if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size))
		return mpirma_raise_win(win, MPI_ERR_RANK, MPIRMA_FUNC,
					"rank %d is not in the window (size "
					"%d)", rank, w->size);
	/* MPI_PROC_NULL: the lowest rank with memory, else rank 0 and 0. */
	for (r = rank == MPI_PROC_NULL ? 0 : rank;; r++) {
		ret = mpirma_win_query(w, r, &q);
		if (ret)
			return mpirma_raise_win(win, mpirma_err_errno(ret,
						"MPIRMA_IOC_WIN_QUERY"),
						MPIRMA_FUNC, NULL);
		if (rank != MPI_PROC_NULL || q.length || r == w->size - 1)
			break;
	}
	*disp_unit = (int)q.disp_unit;
	if (!w->map || !q.length) {
		/*
		 * Memory this process cannot address (created or dynamic
		 * windows), or none: size 0 and a NULL base, as MPI 4
		 * specifies; but a rank without memory in a contiguous
		 * window has the address where its segment would be, which
		 * address arithmetic across the segments expects (a
		 * noncontiguous one: NULL, as MPICH and Open MPI give).
		 */
		*size = 0;
		*(void **)baseptr = NULL;
		if (w->map && rank != MPI_PROC_NULL && !w->hints.noncontig)
			*(void **)baseptr = (char *)w->map + q.seg_offset;
		return MPI_SUCCESS;
	}
	*size = (MPI_Aint)q.length;
	*(void **)baseptr = (char *)w->map + q.seg_offset;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Win_shared_query)

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size,
			    MPI_Aint *disp_unit, void *baseptr)
{
	int unit = 0, ret;

	MPIRMA_CHECK_INIT();
	if (!disp_unit)
		return mpirma_raise_win(win, MPI_ERR_ARG, MPIRMA_FUNC,
					"NULL output argument");
	ret = PMPI_Win_shared_query(win, rank, size, &unit, baseptr);
	if (!ret)
		*disp_unit = unit;
	return ret;
}
MPIRMA_ALIAS(Win_shared_query_c)

/* ------------------------------------------------------------ group */

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
	struct mpirma_window *w;
	int *jr, i, ret;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_WIN(w, win);
	if (!group)
		return mpirma_raise_win(win, MPI_ERR_ARG, MPIRMA_FUNC,
					"group is NULL");
	jr = malloc(w->size * sizeof(*jr));
	if (!jr)
		return mpirma_raise_win(win, MPI_ERR_NO_MEM, MPIRMA_FUNC,
					"out of memory");
	for (i = 0; i < w->size; i++)
		jr[i] = (int)w->ranks[i];
	ret = mpirma_group_new(w->size, jr, group);
	free(jr);
	return mpirma_raise_win(win, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_get_group)

/* ------------------------------------------------------------ extensions */

/* The kernel's view of @rank's memory in @win, for the MPIX_ queries. */
static int ext_query(MPI_Win win, int rank, const void *out, const char *fn,
		     struct mpirma_win_query *q)
{
	struct mpirma_window *w;
	int ret;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_WIN(w, win);
	if (!out)
		return mpirma_raise_win(win, MPI_ERR_ARG, fn, "output pointer is NULL");
	if (rank < 0 || rank >= w->size)
		return mpirma_raise_win(win, MPI_ERR_RANK, fn,
					"rank %d is not in the window (size %d)", rank, w->size);
	ret = mpirma_win_query(w, rank, q);
	if (ret)
		return mpirma_raise_win(win, mpirma_err_errno(ret, "MPIRMA_IOC_WIN_QUERY"), fn,
					NULL);
	return MPI_SUCCESS;
}

int PMPIX_Win_get_node(MPI_Win win, int rank, int *node)
{
	struct mpirma_win_query q;
	int ret = ext_query(win, rank, node, MPIRMA_FUNC, &q);

	if (ret == MPI_SUCCESS)
		*node = q.numa_node;
	return ret;
}
MPIRMA_PRAGMA(weak MPIX_Win_get_node = PMPIX_Win_get_node)

int PMPIX_Win_get_worker(MPI_Win win, int rank, int *worker)
{
	struct mpirma_win_query q;
	int ret = ext_query(win, rank, worker, MPIRMA_FUNC, &q);

	/* An older module accepts the grown struct but never writes @worker. */
	if (ret == MPI_SUCCESS)
		*worker = mpirma_proc.query.features & MPIRMA_FEAT_PLACEMENT ? q.worker : -1;
	return ret;
}
MPIRMA_PRAGMA(weak MPIX_Win_get_worker = PMPIX_Win_get_worker)
