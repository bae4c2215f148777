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
 * Routing (docs/hybrid.md): a window whose communicator lies within one
 * node is served by the engine, through the module, for every operation
 * and synchronization.  A window that spans nodes (span.c) has an engine
 * window over this node's ranks, which serves node-local targets;
 * operations for other nodes are shipped (origin.c) to an agent thread of
 * the target (agent.c), which applies them through the module there and
 * keeps the target's locks (agent_slots.c), so every target has one
 * atomicity domain and the host's own RMA is never used.  When the host
 * cannot grant MPI_THREAD_MULTIPLE (the agent needs it), a window that
 * spans nodes is the host's alone.  The program's handle of a window
 * mpirma serves is a host window of no bytes on MPI_COMM_SELF (handle.c).
 *
 * This header holds what every file shares: the process's state, the
 * window types and hy.lock.  Each file's own interface is in its header
 * (agent.h, convert.h, errors.h, origin.h, span.h, waits.h, win.h, ...);
 * the locks and their order are in locks.h.
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
#include "locks.h"
#include "rma_args.h"

/* Which host MPI this copy of the layer was built for (the library name). */
#ifndef HY_HOST_NAME
#define HY_HOST_NAME "host"
#endif

/*
 * Do the host's blocking waits spin without yielding on a node with more
 * ranks than CPUs?  MPICH's do (a barrier of 4 ranks on 2 CPUs in the VM:
 * 16 ms); Open MPI's yield once its launcher knows the node is
 * oversubscribed (240 us), and the layer's own polls and yields on top
 * made them 2-4x slower (barrier 550 us against 131; 4 ranks at two
 * logical nodes, a fence 650-870 us against 260-280).  Only where the
 * host spins do the layer's waits yield by default (hy.yield).  The
 * agents need no wait of the host's: they have a transport of their own
 * (net.h).
 */
#ifdef OPEN_MPI
#define HY_HOST_SPINS false
#else
#define HY_HOST_SPINS true
#endif

/*
 * The fast lanes of programs' inner loops.  HY_PAIR(NAME): MPI_NAME, which
 * ends with a jump to the engine's MPIRMA_AT_ENTRY(NAME), starts the page
 * that entry follows it in.  HY_HOT: the others, at the start of the text,
 * each within one page (none is 512 bytes long).
 */
#define HY_HOT MPIRMA_HOT_TEXT(512)
#define HY_PAIR(name) MPIRMA_PAIR_TEXT(name, "0", 4096)

/*
 * A global the fast lanes read: hidden, so that they read it in one
 * instruction rather than through the GOT (the map hides it from other
 * objects anyway, but only after the compiler chose the GOT).
 */
#define HY_LOCAL __attribute__((visibility("hidden")))

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
 *	there are several nodes, and the agents could start); false: such
 *	windows are the host's alone
 * @span_host_acc: MPIRMA_SPAN_ACCUMULATE=host: on those windows every
 *	accumulate-like operation is the host's, to any target, so the host
 *	is their one atomicity domain and no agent runs
 * @agent: this process runs the agent thread (agent.c)
 * @verbose: MPIRMA_VERBOSE, as MPI_Init read it
 * @thread_level: what MPI_Query_thread answers (the level the program
 *	was given), or -1: the host's own answer
 * @tag_ub: the largest grant tag of the agents' frames (wire.h):
 *	MPIRMA_TAG_UB, which tests lower to run out of slots, or INT32_MAX
 * @yield: the job's waits in the host poll and yield the CPU between
 *	polls (waits.c; the same on every rank, as it picks the host's
 *	nonblocking collective over the blocking one): the host spins in its
 *	waits (HY_HOST_SPINS) and some real node has more ranks than the CPUs
 *	they may run on between them (the union of their affinity masks, not
 *	one rank's, which a launcher binding each rank to a core makes one
 *	CPU; MPIRMA_YIELD overrides), and MPICH's own blocking calls
 *	spin without yielding, which kept the rank a poller waited for off
 *	the CPU; on a node with a CPU per rank, waits without agents are the
 *	host's own calls
 * @crowded: this real node has more ranks than CPUs they may run on: the
 *	waits that poll to serve the agent's connections yield the CPU
 *	between polls (waits.c)
 * @threads: the program was given MPI_THREAD_MULTIPLE (it may call from
 *	several threads at once): only then is @lock taken
 * @lock: serializes every call into the engine and the window table of a
 *	program that has several threads in MPI at once (the agent thread
 *	never takes it); a program at a lower level serializes its calls
 *	itself, and is spared two lock operations per call
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
	int tag_ub;
	bool yield;
	bool crowded;
	bool threads;
	struct hy_mutex lock;
};

extern HY_LOCAL struct hy_state hy;

/* Does this thread hold hy.lock?  (hy_engine_waits() asks.) */
extern HY_LOCAL __thread bool hy_lock_mine
	__attribute__((tls_model("initial-exec")));

static inline void hy_lock(void)
{
	if (hy.threads) {
		hy_mutex_lock(&hy.lock);
		hy_lock_mine = true;
	}
}

static inline void hy_unlock(void)
{
	if (hy.threads) {
		hy_lock_mine = false;
		hy_mutex_unlock(&hy.lock);
	}
}

/*
 * The engine's wait hook (mpirma_set_wait_hook()): where an engine call
 * made under hy.lock waits, hy.lock is let go of too, so that this
 * process's other threads can call in meanwhile: one of them may be about
 * to give back the lock another process's thread holds while it waits for
 * one this thread's call waits for.
 */
void hy_engine_waits(bool waiting);

struct hy_pending;
struct hy_batch;

/**
 * struct hy_span - the remote side of a window that spans nodes (span.c)
 * @size: ranks in the window
 * @me: this process's window rank
 * @erank: per window rank, its rank in the engine window, or -1 when it
 *	lies on another node
 * @world: per window rank, its world rank
 * @slot: per window rank, the agent's slot of this window there
 * @word: per window rank on this node, the word of its lock there
 *	(agent_slots.c), which this process takes itself; NULL for the others
 * @myslot: this process's slot (agent_slots.c)
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
 * @lock: protects @pend, @npend, @cap, @batch and @lazy (RMA calls of
 *	several threads; HY_LOCK_SPAN)
 * @pend: shipped messages not yet acknowledged, @npend of @cap
 * @batch: per window rank, accumulates not yet shipped (origin.c), or NULL
 * @lazy: per window rank on another node, the lock of an epoch that has
 *	not been shipped yet (origin.c: a lazy epoch), or 0
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
	uint64_t **word;
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
	struct hy_mutex lock;
	struct hy_pending *pend;
	int npend;
	int cap;
	struct hy_batch *batch;
	unsigned char *lazy;
	uint64_t *extent;
	unsigned char *host_acc;
};

/**
 * struct hy_win - a window the engine serves, alone or with the host
 * @host: the handle the program holds: a host window over no memory, which
 *	carries the program's attributes, name, error handler and group;
 *	for a window that spans nodes without agents, the host window over
 *	the memory
 * @inner: the engine's window
 * @icomm: the engine's communicator of the same ranks, in the same order
 * @igroup: the engine's group of @icomm (PSCW groups are translated to it)
 * @hgroup: the host's group of the window (the same ranks)
 * @gcomm: MPI_COMM_WORLD or MPI_COMM_SELF when its group is @hgroup
 *	(MPI_Win_get_group answers with that communicator's), else MPI_COMM_NULL
 * @flavor, @model, @base, @size, @disp_unit: the values MPI_Win_get_attr
 *	reports (the host window's own would describe an empty window)
 * @pscw: per slot (0: posts, 1: starts) the group of the last epoch, a
 *	copy (@host) and the engine's (@inner), and the program's handle it
 *	came from (@prog) while hy_group_frees was @frees (hy_group_cached())
 * @counted: a fence has found the engine's barrier on counters (sync.c)
 * @span: the remote side when the window spans nodes, else NULL
 * @next: the next window of its hy_win_table chain (win.h)
 */
struct mpirma_window;

struct hy_win {
	MPI_Win host;
	/*
	 * The engine's window: its handle (@inner) and its structure for
	 * the lean lane (@eng, NULL: none), also as the engine's entries for
	 * the layer take them (@at, lib/rma/rma_args.h).
	 */
	union {
		struct mpirma_at_win at;
		struct {
			struct mpirma_window *eng;
			MPII_Win inner;
		};
	};
	MPII_Comm icomm;
	MPII_Group igroup;
	MPI_Group hgroup;
	MPI_Comm gcomm;
	MPI_Comm fcomm;
	struct {
		MPI_Group host;
		MPII_Group inner;
		MPI_Group prog;
		unsigned int frees;
	} pscw[2];
	bool counted;
	int flavor;
	int model;
	void *base;
	MPI_Aint size;
	int disp_unit;
	struct hy_span *span;
	struct hy_win *next;
};

/* A window creation's arguments (win.c, span.c). */
struct create_args {
	int flavor;
	MPI_Aint size;
	int disp_unit;
	MPI_Info info;
	MPI_Comm comm;
	void *base;		/* in: create; out: allocate */
};

#endif /* MPIRMA_HYBRID_H */
