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
 * module, for every operation and synchronization.  A window that spans
 * nodes (span.c) has an engine window over this node's ranks, which serves
 * node-local targets; operations for other nodes are shipped to an agent
 * thread of the target (ship.c), which applies them through the module
 * there and keeps the target's locks, so every target has one atomicity
 * domain and the host's own RMA is never used.  When the host cannot
 * grant MPI_THREAD_MULTIPLE (the agent needs it), a window that spans
 * nodes is the host's alone.  The program's handle of a window mpirma
 * serves is a host window of no bytes on MPI_COMM_SELF (win.c).
 *
 * The engine grants MPI_THREAD_SERIALIZED; the layer keeps whatever the
 * host grants true by taking hy.lock around every call into the engine.
 * The agent never takes hy.lock (it applies operations with one ioctl that
 * touches no engine state), so a process blocked in an engine call that
 * holds it (a node window's fence, a contended lock) still serves its
 * remote origins.
 */
#ifndef MPIRMA_HYBRID_H
#define MPIRMA_HYBRID_H

#include <stdatomic.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

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
 * @span: windows that span nodes get engine parts (every rank is served,
 *	there are several nodes, and with @agent the host granted
 *	MPI_THREAD_MULTIPLE everywhere); false: such windows are the host's
 *	alone
 * @span_host_acc: MPIRMA_SPAN_ACCUMULATE=host: on those windows every
 *	accumulate-like operation is the host's, to any target, so the host
 *	is their one atomicity domain and no agent runs
 * @agent: this process runs the agent thread (ship.c)
 * @verbose: MPIRMA_VERBOSE, as MPI_Init read it
 * @thread_level: what MPI_Query_thread answers (the level the program
 *	was given), or -1: the host's own answer
 * @ship_comm: the host communicator shipped operations travel on (a
 *	duplicate of MPI_COMM_WORLD), MPI_COMM_NULL without @span
 * @yield: this process's waits in the host poll and yield the CPU
 *	between polls (hy_ship_wait): its real node has more ranks than it
 *	has CPUs to run on (MPIRMA_YIELD overrides), and MPICH's own blocking
 *	calls spin without yielding, so that a rank polling for a barrier
 *	kept the rank it waited for off the CPU for its whole time slice
 * @threads: the program was given MPI_THREAD_MULTIPLE (it may call from
 *	several threads at once): only then is @lock taken
 * @lock: serializes every call into the engine and the window table of a
 *	program that has several threads in MPI at once (the agent thread
 *	never takes it); a program at a lower level serializes its calls
 *	itself, and two uncontended lock operations per call were a tenth
 *	of the layer's cost of an operation
 */
struct hy_state {
	bool active;
	int world_size;
	int *node_of;
	int *inner_of;
	int node;
	bool logical;
	MPI_Group world_group;
	bool span;
	bool span_host_acc;
	bool agent;
	int verbose;
	int thread_level;
	MPI_Comm ship_comm;
	bool yield;
	bool threads;
	pthread_mutex_t lock;
};

extern struct hy_state hy;

static inline void hy_lock(void)
{
	if (hy.threads)
		pthread_mutex_lock(&hy.lock);
}

static inline void hy_unlock(void)
{
	if (hy.threads)
		pthread_mutex_unlock(&hy.lock);
}

struct hy_pending;
struct hy_batch;

/**
 * struct hy_span - the remote side of a window that spans nodes (span.c)
 * @size: ranks in the window
 * @me: this process's window rank
 * @erank: per window rank, its rank in the engine window, or -1 when it
 *	lies on another node
 * @world: per window rank, its rank in hy.ship_comm
 * @slot: per window rank, the agent's slot of this window there
 * @myslot: this process's slot (ship.c)
 * @win_id: the engine window's id in the kernel (for the agent)
 * @locked: the engine window's permanent MPI_Win_lock_all epoch is open
 * @comm: a duplicate of the window's communicator (the barrier of free,
 *	the posts' notices to remote origins)
 * @fence, @lock_all: open access epochs, @started: the layer's PSCW
 *	access epoch (span.c), and @lock_of, @in_start per window rank: what
 *	the operations the host never sees (node-local and shipped ones) are
 *	checked against, since the engine's part is always in its lock_all
 *	epoch (hy.lock); @lock_all and @lock_of are 1 for a lock the agents
 *	granted (or the host's), 2 for one taken with MPI_MODE_NOCHECK
 * @posted: the layer's PSCW exposure epoch is open; @in_post, per window
 *	rank: an origin of it whose completion notice has not come yet
 * @wait_for: per window rank, a target whose post notice MPI_Win_start
 *	still waits for
 * @host_epoch: the host window is in the MPI_Win_lock_all epoch that
 *	carries a PSCW access epoch's host operations
 * @lock: protects the pending list and the batches (RMA calls of several
 *	threads)
 * @pend: shipped messages not yet acknowledged, @npend of @cap
 * @batch: per window rank, accumulates not yet shipped (ship.c), or NULL
 * @extent: per window rank, the size in bytes and the displacement unit
 *	of its memory (two each), for the range check of operations to other
 *	nodes; NULL for a dynamic window, whose targets' kernels check alone
 * @host_acc: per window rank, with hy.span_host_acc: the host was given
 *	accumulate-like operations to it that no host flush, unlock or
 *	collective synchronization has completed yet, so a flush of that
 *	target must make the host's (hy.lock); otherwise a node-local
 *	target's flush is the module's alone
 */
struct hy_span {
	int size;
	int me;
	int *erank;
	int *world;
	int *slot;
	int myslot;
	uint32_t win_id;
	bool locked;
	MPI_Comm comm;
	bool fence;
	unsigned char lock_all;
	bool started;
	unsigned char *lock_of;
	unsigned char *in_start;
	bool posted;
	unsigned char *in_post;
	unsigned char *wait_for;
	bool host_epoch;
	pthread_mutex_t lock;
	struct hy_pending *pend;
	int npend;
	int cap;
	struct hy_batch *batch;
	uint64_t *extent;
	unsigned char *host_acc;
};

/**
 * struct hy_win - a window the engine serves, alone or with the host
 * @host: the handle the program holds: a host window over no memory, which
 *	carries the program's attributes, name, error handler and group;
 *	for a window that spans nodes, the host window over the memory
 * @inner: the engine's window
 * @icomm: the engine's communicator of the same ranks, in the same order
 * @igroup: the engine's group of @icomm (PSCW groups are translated to it)
 * @hgroup: the host's group of the window (the same ranks)
 * @gcomm: MPI_COMM_WORLD or MPI_COMM_SELF when its group is @hgroup
 *	(MPI_Win_get_group answers with that communicator's), else MPI_COMM_NULL
 * @flavor, @model, @base, @size, @disp_unit: the values MPI_Win_get_attr
 *	reports (the host window's own would describe an empty window)
 * @span: the remote side when the window spans nodes, else NULL
 * @next: the table's list
 */
struct hy_win {
	MPI_Win host;
	MPII_Win inner;
	MPII_Comm icomm;
	MPII_Group igroup;
	MPI_Group hgroup;
	MPI_Comm gcomm;
	int flavor;
	int model;
	void *base;
	MPI_Aint size;
	int disp_unit;
	struct hy_span *span;
	struct hy_win *next;
};

/*
 * hybrid/node.c: after the host's MPI_Init (C or Fortran): the node jobs;
 * before the host's MPI_Finalize: the engine leaves them.
 */
int hy_start(void);
void hy_stop(void);

/* Must MPI_Init ask the host for MPI_THREAD_MULTIPLE (for the agents)? */
bool hy_want_threads(void);

/*
 * hybrid/win.c: the window table, newest first.  Call with hy.lock held.
 * Inline, as every call on a window starts here.
 */
extern struct hy_win *hy_wins;

static inline struct hy_win *hy_win_find(MPI_Win win)
{
	for (struct hy_win *w = hy_wins; w; w = w->next)
		if (w->host == win)
			return w;
	return NULL;
}

/*
 * hybrid/convert.c: host values to the engine's and back.  The datatype
 * and op of the last call are looked up inline (a program's RMA calls
 * mostly repeat them); any other goes to the tables.
 */
struct hy_type_pair {
	MPI_Datatype h;
	MPII_Datatype i;
};

struct hy_op_pair {
	MPI_Op h;
	MPII_Op i;
};

/*
 * Any thread may read or replace them without a lock (relaxed: a stale
 * entry is still a right one, it is only a miss); entries are never freed.
 * Not thread-local: in a shared library that costs a __tls_get_addr call.
 */
extern const struct hy_type_pair *_Atomic hy_type_last;
extern const struct hy_op_pair *_Atomic hy_op_last;

int hy_type_lookup(MPI_Datatype t, MPII_Datatype *out);
int hy_op_lookup(MPI_Op op, MPII_Op *out);

static inline int hy_type(MPI_Datatype t, MPII_Datatype *out)
{
	const struct hy_type_pair *last =
		atomic_load_explicit(&hy_type_last, memory_order_relaxed);

	if (last && last->h == t) {
		*out = last->i;
		return MPI_SUCCESS;
	}
	return hy_type_lookup(t, out);
}

static inline int hy_op(MPI_Op op, MPII_Op *out)
{
	const struct hy_op_pair *last =
		atomic_load_explicit(&hy_op_last, memory_order_relaxed);

	if (last && last->h == op) {
		*out = last->i;
		return MPI_SUCCESS;
	}
	return hy_op_lookup(op, out);
}

void hy_type_forget(MPI_Datatype t);
int hy_info(MPI_Info info, MPII_Info *out);
int hy_assert(int assert);
int hy_lock_type(int lock_type, int *out);
int hy_rank_span(const struct hy_win *w, int rank);

/* Window rank @rank of @w as the engine's rank (INT_MAX: not on this node). */
static inline int hy_rank(const struct hy_win *w, int rank)
{
	if (!w->span && rank != MPI_PROC_NULL)
		return rank;
	return hy_rank_span(w, rank);
}
int hy_group(struct hy_win *w, MPI_Group group, MPII_Group *out);

/*
 * hybrid/errors.c: an engine error code (or MPII_SUCCESS) as the host's
 * class, its message kept for hy_done(); hy_fail() records a class and
 * message of the layer's own.
 */
int hy_inner_failed(int inner_code);
int hy_fail(int host_class, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Inline for the path every successful call takes. */
static inline int hy_inner(int inner_code)
{
	return inner_code == MPII_SUCCESS ? MPI_SUCCESS :
	       hy_inner_failed(inner_code);
}

/*
 * hybrid/errors.c: the end of every call on an engine window: a class
 * other than MPI_SUCCESS goes to the host window's error handler, after
 * the recorded message has been printed when that handler is fatal.
 * Returns what the program gets.
 */
int hy_done_failed(struct hy_win *w, int host_class, const char *fn);
/* The same on the program's handle @host, for a window already dropped. */
int hy_raise(MPI_Win host, int host_class, const char *fn);

static inline int hy_done(struct hy_win *w, int host_class, const char *fn)
{
	return host_class == MPI_SUCCESS ? MPI_SUCCESS :
	       hy_done_failed(w, host_class, fn);
}

/*
 * hybrid/keyval.c: the errors of window attributes' delete callbacks.
 * Every window keyval the program creates in C calls its delete callback
 * through the layer, which raises a failure on the window's handler and
 * tells the host it succeeded, so that the host always deletes the
 * attribute and frees the window (Open MPI 4.1 ignores such a failure,
 * MPICH 4.0.2 keeps the window, whose free is collective).  A call that
 * deletes attributes (MPI_Win_free, MPI_Win_delete_attr, MPI_Win_set_attr
 * over an old value) is bracketed: hy_keyval_watch() before the host's
 * call, hy_keyval_done(ret) after, which returns the first callback's
 * failure in this thread since, or @ret.
 */
void hy_keyval_watch(void);
int hy_keyval_done(int ret);
void hy_keyval_stop(void);

/* A request that is already complete, for the R-forms (host requests). */
int hy_request_done(MPI_Request *req);

/*
 * hybrid/ship.c: the agent and the shipped operations.  hy_ship_start()
 * and hy_ship_stop() are collective over MPI_COMM_WORLD (at hy_start and
 * hy_stop); with @report, hy_ship_stop() says on stderr what the agent
 * served and the CPU time it took.  hy_ship_open() gives a new window its
 * slot in the agent, hy_ship_close() takes it back.
 */
int hy_ship_start(void);
void hy_ship_stop(bool report);
int hy_ship_open(struct hy_win *w);
void hy_ship_close(struct hy_win *w);

/*
 * Waits in the layer: PMPI_Waitall of @n requests (at most 3, statuses
 * ignored) and PMPI_Barrier, which, while agents run, serve the operations
 * that come for this process as they wait (the agent then need not wake),
 * and with hy.yield poll the host, yielding the CPU in between.  Host
 * classes.
 */
int hy_ship_wait(int n, MPI_Request *req);
int hy_ship_barrier(MPI_Comm comm);

/*
 * The layer's own collectives (window creation), serving the same way: a
 * process that creates a window while a peer still works on an older one
 * through its agent (OpenCoarrays registers a coarray while another image
 * reads its components) must not leave every remote lock and get to the
 * agent's next poll.
 */
int hy_ship_allreduce(const void *in, void *out, int count, MPI_Datatype type,
		      MPI_Op op, MPI_Comm comm);
int hy_ship_allgather(const void *in, int count, MPI_Datatype type, void *out,
		      MPI_Comm comm);
int hy_ship_comm_dup(MPI_Comm comm, MPI_Comm *out);

/*
 * PMPI_Recv, serving in the same way until a probe finds its message.  A
 * receive the program posted earlier matches its message as it arrives,
 * before any probe sees it, and the receive then takes the earliest
 * message that matches, the one the probe saw, so the standard's matching
 * order holds.  (Were another thread to take that message first, the
 * receive would wait in the host for the next one, as it would have
 * anyway, served by the agent meanwhile.)  Host classes.
 */
int hy_ship_recv(void *buf, int count, MPI_Datatype type, int source,
		 int tag, MPI_Comm comm, MPI_Status *status);

struct mpirma_rma_args;

/*
 * Ships the accumulate-like operation @a (engine handles, its trank the
 * target's window rank) to the target's agent.  Called with hy.lock held,
 * which it drops while it waits on the host; returns with it held.  An
 * accumulate returns once it is sent (its acknowledgement is waited for by
 * hy_ship_complete); an operation with a result returns with the result
 * in place.  Host class.
 */
int hy_ship(struct hy_win *w, const struct mpirma_rma_args *a,
	    const char *fn);

/*
 * The lock of window rank @rank of @w (-1: a shared lock of every rank),
 * which that target's agent keeps for every origin: hy_ship_lock() returns
 * once it is granted; hy_ship_unlock() gives it back (after the operations
 * it covered are complete).  Call without hy.lock; host classes.
 */
int hy_ship_lock(struct hy_win *w, int rank, bool exclusive);
int hy_ship_unlock(struct hy_win *w, int rank);

/*
 * Waits for the acknowledgements of the accumulates shipped on @w to window
 * rank @rank (-1: to every rank).  Call without hy.lock.  Host class: the
 * first shipped operation that failed.
 */
int hy_ship_complete(struct hy_win *w, int rank);

/* A window creation's arguments (win.c, span.c). */
struct create_args {
	int flavor;
	MPI_Aint size;
	int disp_unit;
	MPI_Info info;
	MPI_Comm comm;
	void *base;		/* in: create; out: allocate */
};

/*
 * hybrid/win.c: the program's handle of a window the engine serves alone
 * (and of one that spans nodes when agents run): a host window of no bytes
 * on MPI_COMM_SELF.  Not collective; host class.
 */
int hy_win_handle(MPI_Info info, MPI_Win *host);

/*
 * hybrid/span.c: a window that spans nodes.  hy_span_open(), collective
 * over @a->comm once every member has its engine part, adds the remote
 * side and creates the host window over the memory (@w->host).
 * hy_span_quiesce(), collective at MPI_Win_free, completes everything in
 * flight and ends the engine's epoch; hy_span_release() frees the rest.
 * hy_span_settle() completes what this process issued to window rank
 * @rank (-1: every rank) through the engine and the agents: called with
 * hy.lock held, returns with it released.  Host classes.
 */
int hy_span_open(struct hy_win *w, struct create_args *a);
int hy_span_quiesce(struct hy_win *w);
void hy_span_release(struct hy_win *w);
int hy_span_settle(struct hy_win *w, int rank);

/*
 * The access epochs of a window that spans nodes, as the host's
 * synchronization leaves them (call after it, with hy.lock held):
 * hy_span_access() is MPI_SUCCESS when an operation to window rank @rank
 * may be issued (always on a window that does not span nodes), else
 * MPI_ERR_RMA_SYNC (hy_fail).
 *
 * PSCW on a window that spans nodes is the layer's (span.c), with notices
 * matched by origin; the host's own is never called.  Each call is made
 * without hy.lock and returns the layer's class (for hy_done); a host call
 * it makes reports through the window's handler itself and leaves its code
 * in *@host.  hy_span_wait() with @flag is MPI_Win_test.
 */
int hy_span_access_check(const struct hy_win *w, int rank);

static inline int hy_span_access(const struct hy_win *w, int rank)
{
	return w->span ? hy_span_access_check(w, rank) : MPI_SUCCESS;
}
int hy_span_post(struct hy_win *w, MPI_Group group, int assert);
int hy_span_start(struct hy_win *w, MPI_Group group, int assert, int *host);
int hy_span_complete(struct hy_win *w, int *host);
int hy_span_wait(struct hy_win *w, int *flag);

/* Is window rank @rank of @w on another node (served by span.c)? */
static inline bool hy_remote(const struct hy_win *w, int rank)
{
	return w->span && rank >= 0 && rank < w->span->size &&
	       w->span->erank[rank] < 0;
}

/* Is window rank @rank of @w served by the engine's part of it? */
static inline bool hy_rank_local(const struct hy_win *w, int rank)
{
	return !w->span || (rank >= 0 && rank < w->span->size &&
			    w->span->erank[rank] >= 0);
}

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
 * hy_enter() for a put or get to window rank @target: NULL (lock not taken)
 * also when @target is on another node and no agents run, so that the
 * host's window serves it.
 */
static inline struct hy_win *hy_enter_to(MPI_Win win, int target)
{
	struct hy_win *w = hy_enter(win);

	if (w && !hy.agent && hy_remote(w, target)) {
		hy_unlock();
		return NULL;
	}
	return w;
}

/*
 * hy_enter() for an accumulate-like operation to window rank @target: NULL
 * (lock not taken) also on a window that spans nodes when the host applies
 * them all (hy.span_host_acc); the target's next flush then goes to the
 * host too.
 */
static inline struct hy_win *hy_enter_acc(MPI_Win win, int target)
{
	struct hy_win *w = hy_enter(win);

	if (w && w->span && hy.span_host_acc) {
		if (target >= 0 && target < w->span->size)
			w->span->host_acc[target] = 1;
		hy_unlock();
		return NULL;
	}
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
