// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * keyval.c - the failures of window attributes' delete callbacks, the
 * same under every host (hybrid.h).
 *
 * MPI_Win_free must return a delete callback's failure, and the window is
 * gone all the same: its free is collective, so a process that kept it
 * would leave the others waiting.  The hosts differ: Open MPI 4.1 ignores
 * the failure, MPICH 4.0.2 returns it and keeps the attribute and the
 * window.  So a keyval created in C gets the layer's delete callback, which
 * calls the program's, raises a failure on the window's error handler
 * (the window still exists then) and tells the host it succeeded; the call
 * that ran it returns the failure.  Fortran keyvals are the host's own:
 * MPICH's Fortran library creates them through the C MPI_Win_create_keyval
 * and then calls their callbacks with Fortran's conventions, so a call
 * from a host Fortran library is passed on as it is.
 */
#define _GNU_SOURCE		/* dladdr */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "keyval.h"

/* What the program gave MPI_Win_create_keyval (the host's extra state). */
struct keyval {
	MPI_Win_delete_attr_function *del;
	void *extra;
	struct keyval *next;
};

/*
 * Every keyval's state lives until MPI_Finalize: an attribute may outlive
 * MPI_Win_free_keyval.  keyvals_lock protects the list.
 */
static struct hy_mutex keyvals_lock = HY_MUTEX_INIT(HY_LOCK_KEYVALS);
static struct keyval *keyvals;

/* The first failure of a delete callback since hy_keyval_watch(). */
static _Thread_local int delete_failure;

static int delete_attr(MPI_Win win, int keyval, void *val, void *extra)
{
	struct keyval *k = extra;
	int ret;

	ret = k->del ? k->del(win, keyval, val, k->extra) : MPI_SUCCESS;
	if (ret != MPI_SUCCESS) {
		if (delete_failure == MPI_SUCCESS)
			delete_failure = ret;
		PMPI_Win_call_errhandler(win, ret);
	}
	return MPI_SUCCESS;
}

void hy_keyval_watch(void)
{
	delete_failure = MPI_SUCCESS;
}

int hy_keyval_done(int ret)
{
	int failed = delete_failure;

	delete_failure = MPI_SUCCESS;
	return failed != MPI_SUCCESS ? failed : ret;
}

void hy_keyval_stop(void)
{
	hy_mutex_lock(&keyvals_lock);
	while (keyvals) {
		struct keyval *k = keyvals;

		keyvals = k->next;
		free(k);
	}
	hy_mutex_unlock(&keyvals_lock);
}

/* Is @caller's code in a host MPI's Fortran library? */
static bool from_fortran(void *caller)
{
	Dl_info info;

	if (!dladdr(caller, &info) || !info.dli_fname)
		return false;
	return strstr(info.dli_fname, "fort") ||	/* libmpichfort */
	       strstr(info.dli_fname, "mpifh") ||	/* libmpi_mpifh */
	       strstr(info.dli_fname, "usempi");	/* Open MPI's modules */
}

/*
 * The copy callback is passed on as it is: windows are never duplicated,
 * so the host never calls it.
 */
int MPI_Win_create_keyval(MPI_Win_copy_attr_function *copy,
			  MPI_Win_delete_attr_function *del, int *keyval,
			  void *extra)
{
	struct keyval *k;
	int ret;

	if (from_fortran(__builtin_return_address(0)))
		return PMPI_Win_create_keyval(copy, del, keyval, extra);
	k = malloc(sizeof(*k));
	if (!k)
		return PMPI_Win_create_keyval(copy, del, keyval, extra);
	k->del = del;
	k->extra = extra;
	ret = PMPI_Win_create_keyval(copy, delete_attr, keyval, k);
	if (ret != MPI_SUCCESS) {
		free(k);
		return ret;
	}
	hy_mutex_lock(&keyvals_lock);
	k->next = keyvals;
	keyvals = k;
	hy_mutex_unlock(&keyvals_lock);
	return MPI_SUCCESS;
}

int MPI_Win_delete_attr(MPI_Win win, int keyval)
{
	hy_keyval_watch();
	return hy_keyval_done(PMPI_Win_delete_attr(win, keyval));
}

int MPI_Win_set_attr(MPI_Win win, int keyval, void *val)
{
	hy_keyval_watch();
	return hy_keyval_done(PMPI_Win_set_attr(win, keyval, val));
}
