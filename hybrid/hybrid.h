/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * hybrid.h - the layer that puts mpirma under a host MPI (Open MPI, MPICH)
 * through the profiling interface.
 *
 * Two MPIs live in one process here:
 *  - the host MPI, whose mpi.h this directory is compiled against: MPI_*
 *    names, PMPI_* functions;
 *  - mpirma's own library (lib/), linked in whole as the node-local engine
 *    with every public name renamed MPI_ -> MPII_ (mpii.h, generated from
 *    include/mpi.h; the objects renamed the same way by objcopy).  Its
 *    "world" is the ranks of one (logical) node, which form one module job.
 *
 * Routing (docs/design.md, "The hybrid layer"): a window whose
 * communicator lies within one node is served by the engine, through the
 * module, for every operation and synchronization; a window that spans
 * nodes is served by the host MPI alone, so each window has exactly one
 * atomicity domain and MPI's guarantees (accumulate atomicity, lock
 * exclusion, ordering, completion) are the domain's own.
 *
 * The engine grants MPI_THREAD_SERIALIZED; the layer keeps whatever the
 * host grants true by taking hy.lock around every call into the engine.
 */
#ifndef MPIRMA_HYBRID_H
#define MPIRMA_HYBRID_H

#include <pthread.h>
#include <stdbool.h>

#include <mpi.h>
#include "mpii.h"

/* Which host MPI this copy of the layer was built for (the library name). */
#ifndef HY_HOST_NAME
#define HY_HOST_NAME "host"
#endif

/**
 * struct hy_state - the process's view of the job
 * @active: mpirma serves this process (module present, node job joined)
 * @world_size: size of the host's MPI_COMM_WORLD
 * @node_of: per world rank, its logical node's index
 * @inner_of: per world rank, its rank in its node's module job
 * @node: this process's logical node (a number of its own when inactive)
 * @logical: MPIRMA_LOGICAL_NODES split real nodes (MPI_COMM_TYPE_SHARED
 *	then means the logical node)
 * @world_group: the host's group of MPI_COMM_WORLD (rank translation)
 * @lock: serializes every call into the engine and the window table
 */
struct hy_state {
	bool active;
	int world_size;
	int *node_of;
	int *inner_of;
	int node;
	bool logical;
	MPI_Group world_group;
	pthread_mutex_t lock;
};

extern struct hy_state hy;

static inline void hy_lock(void)
{
	pthread_mutex_lock(&hy.lock);
}

static inline void hy_unlock(void)
{
	pthread_mutex_unlock(&hy.lock);
}

/**
 * struct hy_win - a window the engine serves
 * @host: the handle the program holds: a host window over no memory, which
 *	carries the program's attributes, name, error handler and group
 * @inner: the engine's window
 * @icomm: the engine's communicator of the same ranks, in the same order
 * @igroup: the engine's group of @icomm (PSCW groups are translated to it)
 * @hgroup: the host's group of the window (the same ranks)
 * @flavor, @model, @base, @size, @disp_unit: the values MPI_Win_get_attr
 *	reports (the host window's own would describe an empty window)
 * @next: the table's list
 */
struct hy_win {
	MPI_Win host;
	MPII_Win inner;
	MPII_Comm icomm;
	MPII_Group igroup;
	MPI_Group hgroup;
	int flavor;
	int model;
	void *base;
	MPI_Aint size;
	int disp_unit;
	struct hy_win *next;
};

/*
 * hybrid/node.c: after the host's MPI_Init (C or Fortran): the node jobs;
 * before the host's MPI_Finalize: the engine leaves them.
 */
int hy_start(void);
void hy_stop(void);

/* hybrid/win.c: the window table.  Call with hy.lock held. */
struct hy_win *hy_win_find(MPI_Win win);

/* hybrid/convert.c: host values to the engine's and back. */
int hy_type(MPI_Datatype t, MPII_Datatype *out);
void hy_type_forget(MPI_Datatype t);
int hy_op(MPI_Op op, MPII_Op *out);
int hy_info(MPI_Info info, MPII_Info *out);
int hy_assert(int assert);
int hy_lock_type(int lock_type, int *out);
int hy_rank(int rank);
int hy_group(struct hy_win *w, MPI_Group group, MPII_Group *out);

/*
 * hybrid/errors.c: an engine error code (or MPII_SUCCESS) as the host's
 * class, its message kept for hy_done(); hy_fail() records a class and
 * message of the layer's own.
 */
int hy_inner(int inner_code);
int hy_fail(int host_class, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * hybrid/errors.c: the end of every call on an engine window: a class
 * other than MPI_SUCCESS goes to the host window's error handler, after
 * the recorded message has been printed when that handler is fatal.
 * Returns what the program gets.
 */
int hy_done(struct hy_win *w, int host_class, const char *fn);

/* A request that is already complete, for the R-forms (host requests). */
int hy_request_done(MPI_Request *req);

/*
 * The start of a call on a window: the engine's window of @win with hy.lock
 * taken, or NULL (lock not taken) when the host serves @win.
 */
static inline struct hy_win *hy_enter(MPI_Win win)
{
	struct hy_win *w;

	hy_lock();
	w = hy_win_find(win);
	if (!w)
		hy_unlock();
	return w;
}

/*
 * The end of such a call: @code, what the engine's call returned (it ran
 * with the lock held, as arguments are evaluated first), reported after
 * the lock is released.
 */
static inline int hy_leave(struct hy_win *w, int code, const char *fn)
{
	int ret = hy_inner(code);

	hy_unlock();
	return hy_done(w, ret, fn);
}

#endif /* MPIRMA_HYBRID_H */
