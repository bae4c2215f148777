/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rma_args.h - the arguments of any RMA call (struct mpirma_rma_args),
 * which every entry point of lib/rma fills (rma_entry.c), and the engine's
 * calls the hybrid layer makes with them for operations to other nodes
 * (hybrid/origin.c, hybrid/agent.c; docs/hybrid.md).  Such an operation is
 * built and checked at the origin by the engine's own code (as the MPI call
 * would), shipped over the host MPI, and applied at the target by the agent
 * thread through one MPIRMA_IOC_RMA on the process's member fd, which
 * touches no engine state (no epoch, no queue, no error record), so the
 * agent needs no lock the engine's callers hold.
 *
 * The layer is compiled against the host MPI's mpi.h, so this header uses
 * no MPI types: handles are the engine's ints, displacements longs (as
 * MPI_Win, MPI_Datatype, MPI_Op and MPI_Aint are in include/mpi.h).
 */
#ifndef MPIRMA_LIB_RMA_ARGS_H
#define MPIRMA_LIB_RMA_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "mpirma_uapi.h"

/*
 * The arguments of any RMA call (lib/rma/rma.c); unused sides count 0.
 * Counts are 64-bit for MPI 4.0's large-count forms (MPI_Put_c, ...).
 */
struct mpirma_rma_args {
	const void *oaddr;
	void *raddr;
	const void *caddr;		/* compare_and_swap */
	int64_t ocount;
	int64_t rcount;
	int64_t tcount;
	long tdisp;
	int kind;			/* MPIRMA_KIND_* */
	int otype;
	int rtype;
	int trank;
	int ttype;
	int op;
	bool single;			/* fetch_and_op, compare_and_swap */
};

struct mpirma_window;

/*
 * The lean lane (lib/rma/rma_lean.c): one call of the common case on a
 * window this process maps (MPI_Fetch_and_op, MPI_Compare_and_swap of one
 * predefined element; MPI_Put with @put, else MPI_Get, of one predefined
 * datatype on both sides; accumulates; MPI_Win_flush and
 * MPI_Win_flush_local of a target), done: true.  False, having done
 * nothing: the general lane decides and reports any error.  @w: the
 * window (NULL: none), found once by mpirma_lean_window(); other handles
 * the engine's.  Thread-safe.
 */
bool mpirma_lean_fop(struct mpirma_window *w, const void *oaddr, void *raddr,
		     int type, int trank, long tdisp, int op);
bool mpirma_lean_cas(struct mpirma_window *w, const void *oaddr,
		     const void *caddr, void *raddr, int type, int trank,
		     long tdisp);
bool mpirma_lean_move(struct mpirma_window *w, bool put, void *buf,
		      int64_t count, int type, int trank, long tdisp,
		      int64_t tcount, int ttype);
/* MPI_Accumulate (@raddr NULL) or MPI_Get_accumulate. */
bool mpirma_lean_acc(struct mpirma_window *w, const void *oaddr,
		     int64_t ocount, int otype, void *raddr, int64_t rcount,
		     int rtype, int trank, long tdisp, int64_t tcount,
		     int ttype, int op);
bool mpirma_lean_flush(struct mpirma_window *w, int rank);

/*
 * The window of engine handle @win for the calls above, or NULL; it stays
 * the same until the window is freed.
 */
struct mpirma_window *mpirma_lean_window(int win);

/*
 * Code of the fast lanes, together at the start of the library's text
 * (.text.hot), aligned to @align bytes so that a function no longer than
 * that lies within one page.  Under emulation (QEMU's TCG, where make
 * check and the benchmarks run) a jump between two pages of code is a
 * lookup, not a chained branch, and where the layer's entries straddled a
 * page boundary their time depended on where the link happened to cut
 * them: fetch-and-op under MPICH + layer took 0.27 us against 0.19 under
 * Open MPI + layer, with the same instructions.  On hardware this costs
 * some padding, nothing else.
 */
#define MPIRMA_HOT_TEXT(align) \
	__attribute__((section(".text.hot.mpirma"), aligned(align)))

/*
 * A call of the layer's fast lane (part "0", starting a page) and the
 * engine's code it jumps to (part "1", right after it), in one page, so
 * that the jump is chained too: GNU ld places the sections .text.sorted.*
 * in the order of their names, across objects.
 */
#define MPIRMA_PAIR_TEXT(name, part, align)				\
	__attribute__((section(".text.sorted.mpirma." #name "." part),	\
		       aligned(align)))

/*
 * The layer's entries (lib/rma/rma_entry.c, win_sync.c): MPI_NAME (the
 * large-count form where there is one; NAME_c the same, named so in
 * errors) on the engine window @aw: the lean lane on its structure, else
 * the general one, which reports errors through the window's error
 * handler and then mpirma_at_done().  They take the arguments of the
 * MPI call they serve, in its order, with @aw for the window, so that the
 * layer's MPI_NAME ends with a jump to the entry, whose return is the
 * call's.  Each follows the layer's MPI_NAME (HY_PAIR) in its page.
 */
#define MPIRMA_AT_ENTRY(name) MPIRMA_PAIR_TEXT(name, "1", 64)

/* An engine window as the entries take it. */
struct mpirma_at_win {
	struct mpirma_window *lw;	/* mpirma_lean_window(win), or NULL */
	int win;			/* the engine's handle */
};

#define MPIRMA_AT_PUT(name)						\
int mpirma_at_##name(const struct mpirma_at_win *aw, const void *oaddr, \
		     long long ocount, int otype, int trank, long tdisp, \
		     long long tcount, int ttype)
#define MPIRMA_AT_GET(name)						\
int mpirma_at_##name(const struct mpirma_at_win *aw, void *raddr,	\
		     long long rcount, int rtype, int trank, long tdisp, \
		     long long tcount, int ttype)
#define MPIRMA_AT_ACC(name)						\
int mpirma_at_##name(const struct mpirma_at_win *aw, const void *oaddr, \
		     long long ocount, int otype, int trank, long tdisp, \
		     long long tcount, int ttype, int op)
#define MPIRMA_AT_GET_ACC(name)						\
int mpirma_at_##name(const struct mpirma_at_win *aw, const void *oaddr, \
		     long long ocount, int otype, void *raddr,		\
		     long long rcount, int rtype, int trank, long tdisp, \
		     long long tcount, int ttype, int op)

MPIRMA_AT_PUT(Put);
MPIRMA_AT_PUT(Put_c);
MPIRMA_AT_GET(Get);
MPIRMA_AT_GET(Get_c);
MPIRMA_AT_ACC(Accumulate);
MPIRMA_AT_ACC(Accumulate_c);
MPIRMA_AT_GET_ACC(Get_accumulate);
MPIRMA_AT_GET_ACC(Get_accumulate_c);
int mpirma_at_Fetch_and_op(const struct mpirma_at_win *aw, const void *oaddr,
			   void *raddr, int type, int trank, long tdisp,
			   int op);
int mpirma_at_Compare_and_swap(const struct mpirma_at_win *aw,
			       const void *oaddr, const void *caddr,
			       void *raddr, int type, int trank, long tdisp);
int mpirma_at_Win_flush(const struct mpirma_at_win *aw, int rank);
/* @lock_type and @assert as the engine's mpi.h has them */
int mpirma_at_Win_lock(const struct mpirma_at_win *aw, int lock_type,
		       int rank, int assert);
int mpirma_at_Win_unlock(const struct mpirma_at_win *aw, int rank);
int mpirma_at_Win_lock_all(const struct mpirma_at_win *aw, int assert);
int mpirma_at_Win_unlock_all(const struct mpirma_at_win *aw);
int mpirma_at_Win_fence(const struct mpirma_at_win *aw, int assert);
/* @group an engine group */
int mpirma_at_Win_post(const struct mpirma_at_win *aw, int group, int assert);
int mpirma_at_Win_start(const struct mpirma_at_win *aw, int group,
			int assert);
int mpirma_at_Win_complete(const struct mpirma_at_win *aw);
int mpirma_at_Win_wait(const struct mpirma_at_win *aw);

/*
 * The end of an entry for the layer @fn on @aw that the lanes left at
 * @code: a failure goes to mpirma_at_failed(aw, code, fn) when the layer
 * has set it (to raise the host's class on the program's window, so that
 * its calls can end with the entry's), and is returned as it is
 * otherwise (the library's own error handler has been called).  A
 * pointer, which no link of the engine can resolve before the layer's.
 */
extern int (*mpirma_at_failed)(const struct mpirma_at_win *aw, int code,
			       const char *fn);

static inline int mpirma_at_done(const struct mpirma_at_win *aw, int code,
				 const char *fn)
{
	int (*raise)(const struct mpirma_at_win *, int, const char *);

	if (__builtin_expect(!code, 1))
		return code;
	raise = mpirma_at_failed;
	return raise ? raise(aw, code, fn) : code;
}

/*
 * The kernel operation the RMA call @a on engine window @win would issue,
 * with every check of the call (counts, datatypes, op/type table,
 * signatures, rank, epoch) except the target range, which the target's
 * kernel checks.  @a->trank must be a rank of @win (the layer passes the
 * caller's own and ships the operation to the real target).  *@skip: there
 * is nothing to do.  *@scratch: a block list to free after the operation
 * has been copied, or NULL.  Returns 0 or the engine's error class, raised
 * on @win in the name of @fn as the call would.  Not thread-safe (the engine's rule).
 */
int mpirma_rma_prepare(int win, const struct mpirma_rma_args *a,
		       struct mpirma_op *op, bool *skip, void **scratch,
		       const char *fn);

/*
 * Checks the target range of @op, built by mpirma_rma_prepare(), against a
 * target window of @len bytes with displacement unit @disp_unit, as the
 * target's kernel will: 0, or MPI_ERR_RMA_RANGE raised on @win in the name
 * of @fn, naming window rank @rank.  So an operation to another node fails
 * at the call, as one to the origin's own node does.
 */
int mpirma_rma_range(int win, const struct mpirma_op *op, uint64_t len,
		     uint32_t disp_unit, int rank, const char *fn);

/*
 * The kernel's id of engine window @win, or -1.  Not thread-safe; the id
 * itself may be used from any thread while the window lives.
 */
int64_t mpirma_rma_win_id(int win);

/*
 * Applies @nops operations on kernel window @win_id (one MPIRMA_IOC_RMA on
 * the member fd): 0, each operation's status written back, or a negative
 * errno for the batch.  Thread-safe: touches no engine state.
 */
int mpirma_rma_apply(uint32_t win_id, struct mpirma_op *ops, uint32_t nops,
		     uint32_t *nfailed);

/*
 * MPI_Win_fence on engine window @win without the barrier that ends it:
 * the checks, the queue drained, the epoch state; *@counted says whether
 * the window's ranks share counters in its lock table
 * (lib/rma/win_counters.c).  The caller runs the barrier, always, whatever
 * this returned: mpirma_win_fence_counted() where they do, else its own
 * (the layer: the host's, which polls shared memory where the module's
 * sleeps).  Engine class, raised on @win.
 */
int mpirma_win_fence_local(int assert, int win, bool *counted);
int mpirma_win_fence_counted(int win);

/*
 * The layer's: @fn advances the host MPI (a probe).  The engine's waits on
 * a window's counters (fence, PSCW) call it now and then, as the host's
 * own waits advance its nonblocking collectives and the receives a
 * synchronous sender waits for, and never sleep in the module, where a
 * host message would not wake them.
 */
void mpirma_set_host_progress(void (*fn)(void));

/*
 * The layer's: @fn(+1) as a thread goes to sleep in the module (a
 * collective, a window's creation, a lock), @fn(-1) as it wakes: the
 * agent serves the other nodes' origins at once meanwhile, on the CPU the
 * sleeping thread leaves.
 */
void mpirma_set_block_hook(void (*fn)(int delta));

/*
 * The layer's: @fn(true) wherever a waiting call lets go of the library
 * lock (internal.h, "Thread level"), @fn(false) before it takes it again,
 * so that the layer lets go of its own lock around the engine's waits too.
 */
void mpirma_set_wait_hook(void (*fn)(bool waiting));

/*
 * What the engine's MPI_Wtime subtracts from CLOCK_MONOTONIC, in ns
 * (lib/base/wtime.c): the layer sets its host's origin there once, before
 * the engine starts (hybrid/wtime.c).
 */
extern int64_t mpirma_wtime_shift;

/*
 * The bodies of the communication calls and the flushes (rma.c,
 * win_sync.c), without the public entry's checks of the library's state and
 * error handler: the hybrid layer's fast lane (hybrid/rma.c), which raises
 * errors itself.  MPI class (recorded).  With MPI_THREAD_MULTIPLE both take
 * no lock (rma_entry.c).
 */
int mpirma_rma_call(int win, const struct mpirma_rma_args *a, bool now);
int mpirma_win_flush(int rank, bool all, int win);

/* Bytes of one element of kernel type @ktype; 0 when there is no such type. */
unsigned int mpirma_rma_elem_size(unsigned int ktype);

/*
 * A failed operation's status (a negative errno the kernel wrote) as the
 * engine's class, raised on @win with the cause ("the accumulate's target
 * range ..."), as the call completing a local operation reports it.
 */
int mpirma_rma_failed(int win, const struct mpirma_op *op, const char *fn);

/*
 * The cause of the last error the engine raised in this thread, whatever
 * the handler did with it ("" if none): a layer above the engine, which
 * sets MPI_ERRORS_RETURN on its engine objects, reports it with its own
 * handler.
 */
const char *mpirma_last_cause(void);

#endif /* MPIRMA_LIB_RMA_ARGS_H */
