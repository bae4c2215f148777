/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * win.h - the window object shared by lib/rma/win.c (creation, memory, info,
 * attributes), lib/rma/rma.c (the communication calls) and lib/rma/win_sync.c (the
 * synchronization calls).
 *
 * The kernel applies every operation when it receives it and knows nothing
 * of MPI epochs (it checks ranks, ranges and op/type pairs, and holds the
 * passive-target locks and PSCW matching).  Whether an RMA call is allowed
 * at all is therefore decided here, from the epoch state below, which
 * win_sync.c maintains and rma.c reads.
 *
 * An operation takes one of three paths (lib/rma/rma.c chooses):
 *  - direct (lib/rma/rma_direct.c): on windows whose memory every rank has
 *    mapped (MPI_Win_allocate, MPI_Win_allocate_shared), puts and gets of
 *    contiguous data are memcpy, and on windows the kernel serves with the
 *    native strategy, accumulate-like operations on 1..8-byte elements are
 *    the same compare-and-exchange loops the kernel runs, so the two stay
 *    atomic with each other.  No system call at all.
 *  - queued (lib/rma/rma_queue.c): small contiguous operations wait in the
 *    window's queue, their origin data copied into it, and reach the kernel
 *    as one MPIRMA_IOC_RMA batch at mpirma_win_drain(), which every
 *    synchronization call runs before it touches the kernel.
 *  - at once: everything else goes to the kernel when it is called (after
 *    the queue, to keep the order of the calls).
 * The RMA call itself reports every error the library can see (rank,
 * range, op/type, signatures: lib/rma/rma.c); what only the kernel finds
 * about a queued operation (a dynamic window's regions) is reported by the
 * call that completes it (flush, unlock, fence, complete), which the
 * standard allows, and that call still completes its synchronization.
 */
#ifndef MPIRMA_LIB_WIN_H
#define MPIRMA_LIB_WIN_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"
#include "ulock.h"

/* lock[] entries: the passive-target lock this process holds on a target. */
#define MPIRMA_WLOCK_NONE	0
#define MPIRMA_WLOCK_SHARED	1
#define MPIRMA_WLOCK_EXCL	2
/* Flag: taken with MPI_MODE_NOCHECK, so the kernel holds nothing. */
#define MPIRMA_WLOCK_NOCHECK	4

/* Longest accumulate_ordering value we keep ("rar,raw,war,waw" or "none"). */
#define MPIRMA_ORDERING_LEN	32

/* mpirma_win_hints.numa_node of mpirma_numa_node=interleave */
#define MPIRMA_NODE_INTERLEAVE	(-2)

/**
 * struct mpirma_win_hints - the info keys of a window (MPI_Win_get_info)
 * @ordering: accumulate_ordering as given (we always apply in issue order,
 *	which satisfies every value)
 * @ops_same_op: accumulate_ops is "same_op" (default "same_op_no_op")
 * @no_locks: no_locks (locks still work when it is set: only a hint)
 * @same_size: same_size (only reported back)
 * @same_disp_unit: same_disp_unit (only reported back)
 * @noncontig: alloc_shared_noncontig (shared windows: every rank on its own
 *	pages instead of byte-contiguous)
 * @numa_node: mpirma_numa_node asked for at creation, -1 when none,
 *	MPIRMA_NODE_INTERLEAVE for "interleave"
 * @strategy: MPIRMA_ATOM_* from mpirma_atomicity (DEFAULT when not given)
 */
struct mpirma_win_hints {
	char ordering[MPIRMA_ORDERING_LEN];
	bool ops_same_op;
	bool no_locks;
	bool same_size;
	bool same_disp_unit;
	bool noncontig;
	int numa_node;
	uint32_t strategy;
};

/**
 * struct mpirma_win_seg - where a target's window memory is mapped here
 * @base: its first byte in this process
 * @len: its length
 * @disp_unit: its displacement unit
 */
struct mpirma_win_seg {
	char *base;
	uint64_t len;
	uint32_t disp_unit;
};

/**
 * struct mpirma_win_extent - a target's window memory, as RMA calls check it
 * @len: its size in bytes
 * @disp_unit: its displacement unit
 */
struct mpirma_win_extent {
	uint64_t len;
	uint32_t disp_unit;
};

/**
 * struct mpirma_rma_queue - operations waiting for the next drain
 * @ops: @cap entries, @nops in use, in call order
 * @data: the origin (and compare) bytes of the queued operations, which
 *	point into it: MPIRMA_QUEUE_DATA bytes, @used in use
 * @nops: queued operations
 * @cap: capacity of @ops (0: queueing is off, MPIRMA_BATCH=0)
 * @used: bytes of @data in use
 * @deferred: the class of queued operations that failed in a drain an RMA
 *	call ran (to make room, or to keep call order), which the next
 *	synchronization call reports (mpirma_win_drain)
 */
struct mpirma_rma_queue {
	struct mpirma_op *ops;
	uint8_t *data;
	uint32_t nops;
	uint32_t cap;
	size_t used;
	int deferred;
};

/**
 * struct mpirma_direct_tally - direct operations counted, or reported
 * @ops: per MPIRMA_KIND_*
 * @bytes: data bytes they moved
 * @n: the sum of @ops
 *
 * Counts only grow.  A counting tally has one writer (its thread), or every
 * writer adds atomically (the shared last one, MPIRMA_TALLIES); its twin in
 * the taken half says how much of it has been reported, and reporters
 * advance that with compare-and-exchange, so the writer needs no locked
 * instruction and no count is lost or reported twice.
 */
struct mpirma_direct_tally {
	uint64_t ops[MPIRMA_NR_KINDS];
	uint64_t bytes;
	uint64_t n;
} __attribute__((aligned(64)));

/* Counting tallies per window with threads; the last one is shared. */
#define MPIRMA_TALLIES	16

/**
 * struct mpirma_window - an MPI_Win
 * @hdr: error handler, attributes, name (must stay first: the header is
 *	what core code sees)
 * @handle: its MPI_Win
 * @id: the kernel's window id
 * @size: number of ranks in the window
 * @rank: the caller's window rank
 * @ranks: job ranks in window-rank order (the kernel's group list)
 * @rank_of: per job rank, its window rank, or -1 (PSCW's groups)
 * @ctx: the creating communicator's context id
 * @base: MPI_WIN_BASE (MPI_BOTTOM for dynamic windows)
 * @wsize: MPI_WIN_SIZE
 * @disp_unit: MPI_WIN_DISP_UNIT
 * @flavor: MPI_WIN_CREATE_FLAVOR (MPI_WIN_FLAVOR_*)
 * @model: MPI_WIN_MODEL, always MPI_WIN_UNIFIED
 * @map: allocated windows: the mapping of every rank's memory, or NULL
 * @map_len: its length
 * @hints: the info keys
 * @zattach: dynamic windows: bases attached with size 0 (nothing to pin,
 *	but MPI_Win_detach must accept them)
 * @nzattach: entries in @zattach
 * @fence: a fence epoch is open (the last fence had no MPI_MODE_NOSUCCEED
 *	and no other epoch has begun since)
 * @lock: per target, MPIRMA_WLOCK_* held by this process
 * @nlocks: targets with a lock[] entry
 * @lock_all: inside MPI_Win_lock_all
 * @lock_all_nocheck: ... taken with MPI_MODE_NOCHECK (no kernel lock)
 * @started: inside an access epoch of MPI_Win_start
 * @in_start: per target, member of the started group
 * @posted: inside an exposure epoch of MPI_Win_post
 * @in_post: per origin, in the posted group and its complete not yet
 *	received (exposure epochs over the queues: lib/rma/win_sync.c)
 * @counters: the lock table's sync area, where fences and PSCW epochs run
 *	(lib/rma/win_counters.c), or NULL (they go over the queues or the
 *	kernel)
 * @fences: fence barriers run on @counters
 * @extent: per window rank, its memory's size and displacement unit, which
 *	the RMA calls check target ranges against; NULL for dynamic windows
 *	(and if asking the kernel failed: the kernel still checks)
 * @segs: allocated windows: per window rank, its mapped memory; NULL
 *	otherwise (the direct path needs it)
 * @direct_atomics: the kernel serves the window with MPIRMA_ATOM_NATIVE, so
 *	accumulate-like operations may run on @segs in user space, an
 *	element at a time with atomic instructions
 * @bulk_locks: the kernel serves the window with MPIRMA_ATOM_BULK: the lock
 *	table's update[] (in @ulock's mapping), under whose per-target locks
 *	accumulate-like operations run on @segs in user space; else NULL
 * @queue: the queued operations
 * @direct_count: the direct path's operations, counted here, in this
 *	process only, so that counting costs no shared cache line; reported
 *	to the kernel now and then (mpirma_win_direct_report())
 * @direct_taken: how much of @direct_count has been reported
 * @tallies: with MPI_THREAD_MULTIPLE, 2 * MPIRMA_TALLIES of them instead of
 *	@direct_count and @direct_taken: the counting ones, one per thread
 *	(the threads past MPIRMA_TALLIES - 1 share the last), then their
 *	taken twins, so that threads counting on one window share no cache
 *	line and take no locked instruction
 * @ulock: the window's lock table, mapped (ulock.map set) when the kernel
 *	made one (MPIRMA_WIN_ULOCK): its locks are taken in user space
 * @dyn: dynamic windows: per window rank, its attached regions mapped here
 *	(lib/rma/win_regions.c), or NULL (no direct path)
 */
struct mpirma_window {
	struct mpirma_objhdr hdr;
	MPI_Win handle;
	uint32_t id;
	int size;
	int rank;
	uint32_t *ranks;
	int *rank_of;
	uint64_t ctx;

	void *base;
	MPI_Aint wsize;
	int disp_unit;
	int flavor;
	int model;
	void *map;
	size_t map_len;

	struct mpirma_win_hints hints;
	void **zattach;
	int nzattach;

	bool fence;
	uint8_t *lock;
	int nlocks;
	bool lock_all;
	bool lock_all_nocheck;
	bool started;
	uint8_t *in_start;
	bool posted;
	uint8_t *in_post;
	char *counters;
	uint32_t fences;

	struct mpirma_win_extent *extent;
	struct mpirma_win_seg *segs;
	bool direct_atomics;
	char *bulk_locks;
	struct mpirma_rma_queue queue;
	struct mpirma_direct_tally direct_count;
	struct mpirma_direct_tally direct_taken;
	struct mpirma_direct_tally *tallies;
	struct mpirma_ulock ulock;
	struct mpirma_dyn_rank *dyn;
};

/* The window of a handle, or NULL (null, freed, never created). */
static inline struct mpirma_window *mpirma_window_get(MPI_Win win)
{
	return mpirma_handle_get(MPIRMA_HK_WIN, win);
}

/* Records MPI_ERR_WIN ("invalid window N"); returns NULL. */
struct mpirma_window *mpirma_window_invalid(MPI_Win win);

/* The window of @win, or NULL with MPI_ERR_WIN recorded. */
static inline struct mpirma_window *mpirma_window_check(MPI_Win win)
{
	struct mpirma_window *w = mpirma_window_get(win);

	return w ? w : mpirma_window_invalid(win);
}

/* In an API function: @var = the window of @handle, or MPI_ERR_WIN raised. */
#define MPIRMA_GET_WIN(var, handle)						\
	do {								\
		(var) = mpirma_window_check(handle);			\
		if (!(var))						\
			return mpirma_raise_win((handle), MPI_ERR_WIN,	\
						MPIRMA_FUNC, NULL);	\
	} while (0)

/* MPIRMA_IOC_WIN_QUERY about window rank @rank; 0 or -errno (win_query.c). */
int mpirma_win_query(const struct mpirma_window *w, int rank,
		     struct mpirma_win_query *q);

/* A window's hints: the defaults, then @info's keys (win_info.c). */
void mpirma_win_hints_default(struct mpirma_win_hints *h);
void mpirma_win_hints_parse(struct mpirma_win_hints *h, MPI_Info info,
			    bool creating);

/* Is any access epoch open that lets this process reach @target? */
static inline bool mpirma_win_may_access(const struct mpirma_window *w,
					 int target)
{
	return w->fence || w->lock_all || w->lock[target] ||
	       (w->started && w->in_start[target]);
}

/* Is a passive-target epoch (lock or lock_all) open on any target? */
static inline bool mpirma_win_passive(const struct mpirma_window *w)
{
	return w->lock_all || __atomic_load_n(&w->nlocks, __ATOMIC_RELAXED) > 0;
}

/* "put", "get", "accumulate"...: the name of an MPIRMA_KIND_* for messages. */
const char *mpirma_kind_name(unsigned int kind);

/* Does @op read origin data?  (Not get, not get_accumulate with NO_OP.) */
static inline bool mpirma_op_has_origin(const struct mpirma_op *op)
{
	return op->kind != MPIRMA_KIND_GET &&
	       !(op->kind == MPIRMA_KIND_GET_ACC &&
		 op->op == MPIRMA_OP_NO_OP);
}

/*
 * Hands @nops operations on @w to the kernel, which applies them before it
 * returns (lib/rma/rma_queue.c).  Returns MPI_SUCCESS or the class of the first
 * failing operation, with its cause recorded (mpirma_err).
 */
int mpirma_win_issue(struct mpirma_window *w, struct mpirma_op *ops,
		     uint32_t nops);

/*
 * Queues @op (built for the kernel, all sides contiguous) when it is small
 * enough, copying its origin and compare data (lib/rma/rma_queue.c).  Returns
 * MPI_SUCCESS with *@queued set.  *@queued false: the caller issues @op
 * itself.  (A failed drain that making room needed is deferred.)
 */
int mpirma_win_enqueue(struct mpirma_window *w, const struct mpirma_op *op,
		       bool *queued);

/*
 * Completes every operation queued on @w so far (lib/rma/rma_queue.c).  Every
 * synchronization call runs it first.  MPI class (recorded): the first
 * error among them and the deferred ones.  Inline below for the common
 * case, nothing queued or deferred; mpirma_win_drain_queue() otherwise.
 */
static inline int mpirma_win_drain(struct mpirma_window *w);
int mpirma_win_drain_queue(struct mpirma_window *w);

/*
 * mpirma_win_drain() for a caller that releases a passive-target lock right
 * after: the release (a compare-and-swap, a sequentially consistent store,
 * the kernel's unlock) orders the direct operations' plain stores before
 * it, so no fence of its own.
 */
static inline int mpirma_win_drain_released(struct mpirma_window *w);

/*
 * The drain an RMA call needs before its own operation: an error of the
 * operations queued before is not this call's, so it is deferred to the
 * next synchronization call (the one that completes them).
 */
void mpirma_win_drain_early(struct mpirma_window *w);

/* Frees the queue's memory (window teardown; drain first). */
void mpirma_win_queue_free(struct mpirma_window *w);

/*
 * Where the direct path would run @op: its target's first byte in this
 * process (lib/rma/rma_direct.c).  NULL: the kernel must (or should: it also
 * reports a target range outside the window).
 */
char *mpirma_win_direct_target(struct mpirma_window *w,
			       const struct mpirma_op *op);

/* Does the direct path serve any target of @w? */
static inline bool mpirma_win_direct_any(const struct mpirma_window *w)
{
	return w->segs || w->dyn;
}

/*
 * Dynamic windows (lib/rma/win_regions.c): map attached regions for the
 * direct path where the kernel lets us; the address of @bytes at target
 * address @addr of @rank here, or NULL (not attached: the kernel says so);
 * unmap them all.
 */
struct mpirma_dyn_rank;
void mpirma_win_dyn_init(struct mpirma_window *w);
char *mpirma_win_dyn_addr(struct mpirma_window *w, uint32_t rank,
			  uint64_t addr, uint64_t bytes);
/* Bytes from @addr to the end of its region at @rank; 0 if none (or no map). */
uint64_t mpirma_win_dyn_room(struct mpirma_window *w, uint32_t rank,
			     uint64_t addr);
void mpirma_win_dyn_free(struct mpirma_window *w);

/*
 * Operations whose sides are block lists (lib/rma/rma_blocks.c): where the
 * start of @op's target is in this process when the direct path can run
 * it (@tr: what its target reaches, @sums what its sides' block lists do,
 * rma_sides.h), with its bytes in *@bytes, else NULL (the kernel takes it,
 * and reports what is wrong with it); then the operation, @t and @bytes
 * what that gave.
 */
struct mpirma_reach;
struct mpirma_op_sums;
char *mpirma_win_blocks_target(struct mpirma_window *w,
			       const struct mpirma_op *op,
			       const struct mpirma_reach *tr,
			       const struct mpirma_op_sums *sums,
			       uint64_t *bytes);
void mpirma_win_blocks(struct mpirma_window *w, const struct mpirma_op *op,
		       char *t, uint64_t bytes);

/*
 * Runs @op on the mapped memory at @t, which mpirma_win_direct_target()
 * returned.  The queue must be empty (the caller drains it first, so that
 * operations take effect in call order).
 */
void mpirma_win_direct(struct mpirma_window *w, const struct mpirma_op *op,
		       char *t);

struct mpirma_rma_args;

/*
 * The fast lane (lib/rma/rma.c, rma_fast()): runs the call @a, whose every
 * side is @a->tcount elements of kernel type @ktype, on the mapped memory
 * of its target, with kernel op @kop (accumulate kinds); @has_origin false
 * for MPI_NO_OP.  The caller has checked rank, epoch and types, and the
 * queue is empty.  False, having done nothing, when the general path must
 * run it (range, alignment, an element the direct path may not update).
 */
bool mpirma_win_direct_fast(struct mpirma_window *w,
			    const struct mpirma_rma_args *a,
			    unsigned int ktype, unsigned int kop,
			    bool has_origin);

/*
 * Reports the direct path's operations counted since the last report to
 * the kernel's window statistics (MPIRMA_IOC_WIN_STATS_ADD), if there are
 * any and the kernel takes them.  Synchronization calls that enter the
 * kernel anyway call it, and a drain or a fence (which stays in user space
 * where messages do: a system call would cost it a third) after
 * MPIRMA_DIRECT_REPORT_OPS operations, so that long epochs show up too;
 * freeing the window reports the rest.  Never fails: statistics
 * are not worth an error.
 */
void mpirma_win_direct_report(struct mpirma_window *w);
#define MPIRMA_DIRECT_REPORT_OPS	4096
/* ... when at least MPIRMA_DIRECT_REPORT_OPS are waiting (drains). */
void mpirma_win_direct_report_tally(struct mpirma_window *w);
static inline void mpirma_win_direct_report_due(struct mpirma_window *w)
{
	/* Without threads this process is the counters' only writer. */
	if (mpirma_likely(!w->tallies) &&
	    w->direct_count.n - w->direct_taken.n < MPIRMA_DIRECT_REPORT_OPS)
		return;
	mpirma_win_direct_report_tally(w);
}

/* Both drains; @fence: order the direct operations' plain stores here. */
static __always_inline int mpirma_win_drain_as(struct mpirma_window *w,
					       bool fence)
{
	if (mpirma_likely(!w->queue.nops && !w->queue.deferred)) {
		if (fence)
			__atomic_thread_fence(__ATOMIC_SEQ_CST);
		mpirma_win_direct_report_due(w);
		return MPI_SUCCESS;
	}
	return mpirma_win_drain_queue(w);
}

static inline int mpirma_win_drain(struct mpirma_window *w)
{
	return mpirma_win_drain_as(w, true);
}

static inline int mpirma_win_drain_released(struct mpirma_window *w)
{
	return mpirma_win_drain_as(w, false);
}

/* ------------------------------------------------------------ settings */

/*
 * What the MPI_T control variables of this layer read (lib/rma/rma_cvars.c):
 * the names of the atomicity strategies (MPIRMA_ATOM_*, the mpirma_atomicity
 * key), the strategy of windows created without that key
 * (MPIRMA_ATOMICITY), whether the direct path is on (MPIRMA_DIRECT), the
 * length of a window's operation queue (MPIRMA_BATCH; rma_queue.c).
 */
#define MPIRMA_NR_STRATEGY_NAMES	6
extern const char *const mpirma_strategy_names[MPIRMA_NR_STRATEGY_NAMES];
uint32_t mpirma_win_env_strategy(void);
bool mpirma_win_direct_enabled(void);
uint32_t mpirma_rma_queue_len(void);

#endif /* MPIRMA_LIB_WIN_H */
