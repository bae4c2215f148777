// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * win.c - windows under the layer: creation in the four flavors, free,
 * the attributes MPI_Win_get_attr reports, shared queries, dynamic attach
 * and detach, info.
 *
 * A window whose communicator lies within this process's (logical) node is
 * the engine's: it is created in the engine over a communicator of the same
 * ranks in the same order, and the program gets the handle of a host window
 * over no memory, which keeps everything the host knows about windows
 * (attributes, name, error handler, group, Fortran handle) working.  A
 * window that spans nodes gets an engine window over this node's ranks of
 * it (span.c); without hy.span, and for MPI_Win_allocate_shared, it is the
 * host's alone.  The program's handle is made by handle.c.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <limits.h>

#include "convert.h"
#include "errors.h"
#include "handle.h"
#include "keyval.h"
#include "rma_args.h"
#include "span.h"
#include "waits.h"
#include "win.h"

/* The engine's windows (win.h); hy.lock, and hy_win_seq for readers. */
struct hy_win *hy_win_table[HY_WIN_BUCKETS];
unsigned int hy_win_seq;
struct hy_win *hy_win_last;

/* Nodes of freed windows, for the next ones (hy_win_seq); hy.lock. */
static struct hy_win *spare;

/* Links @w at @link, a table change (hy_win_seq odd meanwhile); hy.lock. */
static void table_link(struct hy_win **link, struct hy_win *w)
{
	hy_win_last = NULL;
	__atomic_store_n(&hy_win_seq, hy_win_seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(link, w, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&hy_win_seq, hy_win_seq + 1, __ATOMIC_RELAXED);
}

/* win.h */
void hy_win_spares_free(void)
{
	hy_lock();
	while (spare) {
		struct hy_win *w = spare;

		spare = w->next;
		free(w);
	}
	hy_unlock();
}

/*
 * mpirma_at_failed (rma_args.h, set by hy_win_init()): an engine entry for
 * the layer failed on @aw, which a fast lane passed as &w->at and called
 * last, so its return is the call's: the host's class raised on the
 * program's window (the engine's own handler has returned).
 */
static int at_failed(const struct mpirma_at_win *aw, int code,
		     const char *fn)
{
	const struct hy_win *w = (const struct hy_win *)
		((const char *)aw - offsetof(struct hy_win, at));

	return hy_raise(w->host, hy_inner(code), fn);
}

/* win.h */
void hy_win_init(void)
{
	mpirma_at_failed = at_failed;
}

/* A zeroed node for a new window, a spare one first; hy.lock. */
static struct hy_win *node_new(void)
{
	struct hy_win *w = spare;

	if (!w)
		return calloc(1, sizeof(*w));
	spare = w->next;
	memset(w, 0, sizeof(*w));
	return w;
}

/* Tag of the engine communicators made for windows (creation is collective,
 * so calls on overlapping communicators come in one order everywhere). */
#define HY_WIN_COMM_TAG	0x6877

/*
 * The engine ranks of @comm's members on this process's node, in @comm's
 * order (*@n of them); *@spans: some member is on another node.  NULL when
 * the engine serves no part of @comm: mpirma off, an inter-communicator, or
 * @comm spans nodes and such windows are the host's (every member decides
 * the same from the same tables).
 */
static int *node_ranks(MPI_Comm comm, int *n, bool *spans)
{
	MPI_Group g;
	int *from, *world, inter = 0, size, m = 0;

	*spans = false;
	if (!hy.active || comm == MPI_COMM_NULL ||
	    PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
		return NULL;
	PMPI_Comm_size(comm, &size);
	PMPI_Comm_group(comm, &g);
	from = malloc(sizeof(int) * (size_t)size);
	world = malloc(sizeof(int) * (size_t)size);
	if (from && world) {
		for (int k = 0; k < size; k++)
			from[k] = k;
		PMPI_Group_translate_ranks(g, size, from, hy.world_group, world);
		for (int k = 0; k < size && world; k++) {
			if (world[k] == MPI_UNDEFINED) {
				free(world);
				world = NULL;
			} else if (hy.node_of[world[k]] != hy.node) {
				*spans = true;
			} else {
				world[m++] = hy.inner_of[world[k]];
			}
		}
	} else {
		free(world);
		world = NULL;
	}
	if (world && *spans && !hy.span) {
		free(world);
		world = NULL;
	}
	free(from);
	PMPI_Group_free(&g);
	*n = m;
	return world;
}

/* The engine communicator of the ranks @iranks.  Collective over them. */
static int inner_comm(const int *iranks, int n, MPII_Comm *out)
{
	MPII_Group wg, g;
	int ret;

	ret = MPII_Comm_group(MPII_COMM_WORLD, &wg);
	if (ret == MPII_SUCCESS) {
		ret = MPII_Group_incl(wg, n, iranks, &g);
		MPII_Group_free(&wg);
	}
	if (ret == MPII_SUCCESS) {
		ret = MPII_Comm_create_group(MPII_COMM_WORLD, g,
					     HY_WIN_COMM_TAG, out);
		MPII_Group_free(&g);
	}
	if (ret == MPII_SUCCESS)
		MPII_Comm_set_errhandler(*out, MPII_ERRORS_RETURN);
	return hy_inner(ret);
}

static void win_release(struct hy_win *w)
{
	if (w->span)
		hy_span_release(w);
	if (w->inner != MPII_WIN_NULL)
		MPII_Win_free(&w->inner);
	if (w->igroup != MPII_GROUP_NULL)
		MPII_Group_free(&w->igroup);
	if (w->icomm != MPII_COMM_NULL)
		MPII_Comm_free(&w->icomm);
	if (w->hgroup != MPI_GROUP_NULL)
		PMPI_Group_free(&w->hgroup);
	if (w->fcomm != MPI_COMM_NULL)
		PMPI_Comm_free(&w->fcomm);
	for (int k = 0; k < 2; k++)
		hy_group_forget(w, k);
	w->next = spare;
	spare = w;
}

/*
 * A predefined communicator whose group is @g, or MPI_COMM_NULL.  Its
 * MPI_Comm_group is a reference count in both hosts, where a new group
 * costs an allocation and a copy of the rank list: OpenCoarrays asks for
 * the window's group in every coarray access.
 */
static MPI_Comm group_comm(MPI_Group g)
{
	static const MPI_Comm comms[] = { MPI_COMM_WORLD, MPI_COMM_SELF };
	MPI_Group cg;
	size_t i;
	int same;

	for (i = 0; i < sizeof(comms) / sizeof(comms[0]); i++) {
		if (PMPI_Comm_group(comms[i], &cg))
			continue;
		same = MPI_UNEQUAL;
		PMPI_Group_compare(g, cg, &same);
		PMPI_Group_free(&cg);
		if (same == MPI_IDENT)
			return comms[i];
	}
	return MPI_COMM_NULL;
}

/* The engine's part of a window creation; host class. */
static int create_inner(struct hy_win *w, struct create_args *a,
			const int *iranks, int n)
{
	MPII_Info info = MPII_INFO_NULL;
	int ret;

	ret = inner_comm(iranks, n, &w->icomm);
	if (!ret)
		ret = hy_info(a->info, &info);
	if (ret)
		return ret;
	switch (a->flavor) {
	case MPI_WIN_FLAVOR_CREATE:
		ret = MPII_Win_create(a->base, a->size, a->disp_unit, info,
				      w->icomm, &w->inner);
		break;
	case MPI_WIN_FLAVOR_ALLOCATE:
		ret = MPII_Win_allocate(a->size, a->disp_unit, info, w->icomm,
					&a->base, &w->inner);
		break;
	case MPI_WIN_FLAVOR_SHARED:
		ret = MPII_Win_allocate_shared(a->size, a->disp_unit, info,
					       w->icomm, &a->base, &w->inner);
		break;
	default:
		ret = MPII_Win_create_dynamic(info, w->icomm, &w->inner);
		a->base = MPI_BOTTOM;
		break;
	}
	if (info != MPII_INFO_NULL)
		MPII_Info_free(&info);
	if (ret == MPII_SUCCESS) {
		MPII_Win_set_errhandler(w->inner, MPII_ERRORS_RETURN);
		ret = MPII_Win_get_group(w->inner, &w->igroup);
		w->eng = mpirma_lean_window(w->inner);
	}
	return hy_inner(ret);
}

/*
 * Creates a window the engine serves, or returns -1 when the engine does
 * not serve @a->comm (the caller asks the host).  Collective over the comm.
 */
static int create(struct create_args *a, MPI_Win *win)
{
	struct hy_win *w;
	int *iranks, n, ret, ok, all_ok;
	bool spans;

	iranks = node_ranks(a->comm, &n, &spans);
	if (iranks && spans && a->flavor == MPI_WIN_FLAVOR_SHARED) {
		/* The host's own (it needs one shared-memory node). */
		free(iranks);
		iranks = NULL;
	}
	if (!iranks)
		return -1;
	hy_lock();
	w = node_new();
	hy_unlock();
	if (!w) {
		free(iranks);
		ret = hy_fail(MPI_ERR_NO_MEM, "out of memory");
		goto out_agree;
	}
	w->inner = MPII_WIN_NULL;
	w->icomm = MPII_COMM_NULL;
	w->igroup = MPII_GROUP_NULL;
	w->hgroup = MPI_GROUP_NULL;
	w->fcomm = MPI_COMM_NULL;
	for (int k = 0; k < 2; k++) {
		w->pscw[k].host = MPI_GROUP_NULL;
		w->pscw[k].inner = MPII_GROUP_NULL;
		w->pscw[k].prog = MPI_GROUP_NULL;
	}
	hy_lock();
	ret = create_inner(w, a, iranks, n);
	hy_unlock();
	free(iranks);
out_agree:
	/* Every member fails, or none: a window must exist everywhere. */
	ok = ret == MPI_SUCCESS;
	hy_wait_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, a->comm);
	if (ok && all_ok && !spans) {
		ret = hy_win_handle(a->info, &w->host);
		/* Every member has its handle, or none keeps one. */
		ok = ret == MPI_SUCCESS;
		hy_wait_allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, a->comm);
		if (ok && !all_ok)
			PMPI_Win_free(&w->host);
	} else if (ok && all_ok) {
		ret = hy_span_open(w, a);
	}
	if (!ok || !all_ok || ret) {
		if (ok && !ret)
			ret = hy_fail(MPI_ERR_OTHER, "another rank could not "
				      "create the window");
		if (w) {
			hy_lock();
			win_release(w);
			hy_unlock();
		}
		PMPI_Comm_call_errhandler(a->comm, ret);
		return ret;
	}
	PMPI_Comm_group(a->comm, &w->hgroup);
	w->gcomm = group_comm(w->hgroup);
	w->flavor = a->flavor;
	w->model = MPI_WIN_UNIFIED;
	w->base = a->base;
	w->size = a->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 0 : a->size;
	w->disp_unit = a->flavor == MPI_WIN_FLAVOR_DYNAMIC ? 1 : a->disp_unit;
	hy_lock();
	w->next = *hy_win_bucket(w->host);
	table_link(hy_win_bucket(w->host), w);
	hy_unlock();
	*win = w->host;
	return MPI_SUCCESS;
}

int MPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info,
		   MPI_Comm comm, MPI_Win *win)
{
	struct create_args a = { MPI_WIN_FLAVOR_CREATE, size, disp_unit, info,
				 comm, base };
	int ret = create(&a, win);

	return ret != -1 ? ret :
	       PMPI_Win_create(base, size, disp_unit, info, comm, win);
}

/* MPI_Win_allocate and MPI_Win_allocate_shared (@flavor). */
static int allocate(int flavor, MPI_Aint size, int disp_unit, MPI_Info info,
		    MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	struct create_args a = { flavor, size, disp_unit, info, comm, NULL };
	int ret = create(&a, win);

	if (ret == -1 && flavor == MPI_WIN_FLAVOR_SHARED)
		return PMPI_Win_allocate_shared(size, disp_unit, info, comm,
						baseptr, win);
	if (ret == -1)
		return PMPI_Win_allocate(size, disp_unit, info, comm, baseptr,
					 win);
	if (ret == MPI_SUCCESS)
		*(void **)baseptr = a.base;
	return ret;
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info,
		     MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	return allocate(MPI_WIN_FLAVOR_ALLOCATE, size, disp_unit, info, comm,
			baseptr, win);
}

int MPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info,
			    MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	return allocate(MPI_WIN_FLAVOR_SHARED, size, disp_unit, info, comm,
			baseptr, win);
}

#if MPI_VERSION >= 4
/*
 * MPI 4.0's large-count window calls (MPICH 4): displacement units as
 * MPI_Aint.  The engine takes units up to INT_MAX (MPI_WIN_DISP_UNIT is an
 * int attribute); a window with a larger one is the host's.
 */
int MPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit,
		     MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	if (disp_unit > INT_MAX)
		return PMPI_Win_create_c(base, size, disp_unit, info, comm,
					 win);
	return MPI_Win_create(base, size, (int)disp_unit, info, comm, win);
}

int MPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info,
		       MPI_Comm comm, void *baseptr, MPI_Win *win)
{
	if (disp_unit > INT_MAX)
		return PMPI_Win_allocate_c(size, disp_unit, info, comm, baseptr,
					   win);
	return MPI_Win_allocate(size, (int)disp_unit, info, comm, baseptr,
				win);
}

int MPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit,
			      MPI_Info info, MPI_Comm comm, void *baseptr,
			      MPI_Win *win)
{
	if (disp_unit > INT_MAX)
		return PMPI_Win_allocate_shared_c(size, disp_unit, info, comm,
						  baseptr, win);
	return MPI_Win_allocate_shared(size, (int)disp_unit, info, comm,
				       baseptr, win);
}
#endif /* MPI_VERSION >= 4 */

int MPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	struct create_args a = { MPI_WIN_FLAVOR_DYNAMIC, 0, 1, info, comm,
				 NULL };
	int ret = create(&a, win);

	return ret != -1 ? ret : PMPI_Win_create_dynamic(info, comm, win);
}

/*
 * Unlinks @w from the table and frees it with its engine window.  hy.lock.
 * The engine's free completes the window's operations first; one of them
 * that failed makes it return the error, and the window is gone all the
 * same (its free is collective): only a free that did not happen keeps @w.
 */
static int win_drop(struct hy_win *w, bool *gone)
{
	struct mpirma_window *eng = w->eng;
	struct hy_win **p;
	int ret;

	w->eng = NULL;	/* the fast lanes' calls go to the general path */
	ret = hy_inner(MPII_Win_free(&w->inner));
	*gone = w->inner == MPII_WIN_NULL;
	if (!*gone) {
		w->eng = eng;
		return ret;
	}
	for (p = hy_win_bucket(w->host); *p != w; p = &(*p)->next)
		;
	table_link(p, w->next);
	win_release(w);
	return ret;
}

/*
 * A window that spans nodes: nothing in flight to or from other nodes any
 * more, then the host's window (which may still touch the memory), then
 * the engine's, which owns MPI_Win_allocate's memory.  An error of a
 * shipped operation still lets the free finish.
 */
static int span_free(struct hy_win *w, MPI_Win *win)
{
	int quiet, ret;
	bool gone;

	quiet = hy_span_quiesce(w);
	if (quiet)
		PMPI_Win_call_errhandler(*win, quiet);
	ret = PMPI_Win_free(win);
	hy_lock();
	if (!ret)
		ret = win_drop(w, &gone);
	hy_unlock();
	return quiet ? quiet : ret;
}

int MPI_Win_free(MPI_Win *win)
{
	struct hy_win *w;
	bool gone;
	int ret;

	hy_keyval_watch();
	hy_lock();
	w = hy_win_find(*win);
	if (!w) {
		hy_unlock();
		return hy_keyval_done(PMPI_Win_free(win));
	}
	if (w->span) {
		hy_unlock();
		return hy_keyval_done(span_free(w, win));
	}
	ret = win_drop(w, &gone);
	hy_unlock();
	if (!gone)
		return hy_raise(w->host, ret, "MPI_Win_free");
	if (ret) {
		/* Raised on the handle while it exists, then freed. */
		hy_raise(*win, ret, "MPI_Win_free");
		PMPI_Win_free(win);
		return hy_keyval_done(ret);
	}
	return hy_keyval_done(PMPI_Win_free(win));
}

int MPI_Win_get_attr(MPI_Win win, int keyval, void *val, int *flag)
{
	struct hy_win *w;

	hy_lock();
	w = hy_win_find(win);
	hy_unlock();
	if (!w)
		return PMPI_Win_get_attr(win, keyval, val, flag);
	/* As the standard has them: the base itself, pointers to the rest. */
	*flag = 1;
	if (keyval == MPI_WIN_BASE)
		*(void **)val = w->base;
	else if (keyval == MPI_WIN_SIZE)
		*(MPI_Aint **)val = &w->size;
	else if (keyval == MPI_WIN_DISP_UNIT)
		*(int **)val = &w->disp_unit;
	else if (keyval == MPI_WIN_CREATE_FLAVOR)
		*(int **)val = &w->flavor;
	else if (keyval == MPI_WIN_MODEL)
		*(int **)val = &w->model;
	else
		return PMPI_Win_get_attr(win, keyval, val, flag);
	return MPI_SUCCESS;
}

/* The window's group: the handle of a node window is on MPI_COMM_SELF. */
int MPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
	struct hy_win *w;
	int ret;

	hy_lock();
	w = hy_win_find(win);
	hy_unlock();
	if (!w)
		return PMPI_Win_get_group(win, group);
	/* A new handle of the same group, as the host's call gives. */
	ret = w->gcomm != MPI_COMM_NULL ? PMPI_Comm_group(w->gcomm, group) :
	      PMPI_Group_excl(w->hgroup, 0, NULL, group);
	return ret ? hy_raise(w->host, ret, "MPI_Win_get_group") : MPI_SUCCESS;
}

int MPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size,
			 int *disp_unit, void *baseptr)
{
	struct hy_win *w;
	int ret;

	hy_lock();
	w = hy_win_find(win);
	if (!w || w->span) {
		hy_unlock();
		return PMPI_Win_shared_query(win, rank, size, disp_unit,
					     baseptr);
	}
	ret = hy_inner(MPII_Win_shared_query(w->inner, hy_rank(w, rank), size,
					     disp_unit, baseptr));
	hy_unlock();
	return hy_raise(w->host, ret, "MPI_Win_shared_query");
}

#if MPI_VERSION >= 4
int MPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size,
			   MPI_Aint *disp_unit, void *baseptr)
{
	struct hy_win *w;
	int unit = 0, ret;

	hy_lock();
	w = hy_win_find(win);
	hy_unlock();
	if (!w || w->span)
		return PMPI_Win_shared_query_c(win, rank, size, disp_unit,
					       baseptr);
	if (!disp_unit)
		return MPI_Win_shared_query(win, rank, size, NULL, baseptr);
	ret = MPI_Win_shared_query(win, rank, size, &unit, baseptr);
	if (ret == MPI_SUCCESS)
		*disp_unit = unit;
	return ret;
}
#endif /* MPI_VERSION >= 4 */

int MPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
	struct hy_win *w;
	int ret;

	w = hy_enter(win);
	if (!w)
		return PMPI_Win_attach(win, base, size);
	ret = hy_inner(MPII_Win_attach(w->inner, base, size));
	hy_unlock();
	if (!ret && w->span && !hy.agent) {
		/* Without agents other nodes reach it through the host. */
		ret = PMPI_Win_attach(win, base, size);
		if (ret) {
			hy_lock();
			MPII_Win_detach(w->inner, base);
			hy_unlock();
		}
		return ret;
	}
	return hy_raise(w->host, ret, "MPI_Win_attach");
}

int MPI_Win_detach(MPI_Win win, const void *base)
{
	struct hy_win *w;
	int ret;

	w = hy_enter(win);
	if (!w)
		return PMPI_Win_detach(win, base);
	ret = hy_inner(MPII_Win_detach(w->inner, base));
	hy_unlock();
	if (!ret && w->span && !hy.agent)
		return PMPI_Win_detach(win, base);
	return hy_raise(w->host, ret, "MPI_Win_detach");
}

int MPI_Win_set_info(MPI_Win win, MPI_Info info)
{
	struct hy_win *w;
	MPII_Info ii;
	int ret;

	hy_lock();
	w = hy_win_find(win);
	if (w) {
		ret = hy_info(info, &ii);
		if (!ret && ii != MPII_INFO_NULL) {
			ret = hy_inner(MPII_Win_set_info(w->inner, ii));
			MPII_Info_free(&ii);
		}
		hy_unlock();
		if (ret)
			return hy_raise(w->host, ret, "MPI_Win_set_info");
	} else {
		hy_unlock();
	}
	return PMPI_Win_set_info(win, info);
}

/*
 * The host's keys, and the engine's (mpirma_atomicity says mpirma serves
 * the window); mpirma_span says whether it spans nodes ("true": its
 * node-local targets are the engine's, its accumulates shipped).
 */
int MPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
	char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
	struct hy_win *w;
	MPII_Info ii;
	int ret, n = 0, flag;

	ret = PMPI_Win_get_info(win, info_used);
	w = ret ? NULL : hy_enter(win);
	if (!w)
		return ret;
	ret = hy_inner(MPII_Win_get_info(w->inner, &ii));
	if (!ret) {
		MPII_Info_get_nkeys(ii, &n);
		for (int k = 0; k < n; k++) {
			if (MPII_Info_get_nthkey(ii, k, key) != MPII_SUCCESS)
				continue;
			MPII_Info_get(ii, key, MPI_MAX_INFO_VAL, val, &flag);
			if (flag)
				PMPI_Info_set(*info_used, key, val);
		}
		MPII_Info_free(&ii);
		PMPI_Info_set(*info_used, "mpirma_span",
			      w->span ? "true" : "false");
	}
	hy_unlock();
	return hy_raise(w->host, ret, "MPI_Win_get_info");
}

int MPI_Type_free(MPI_Datatype *type)
{
	hy_lock();
	hy_type_forget(*type);
	hy_unlock();
	return PMPI_Type_free(type);
}
