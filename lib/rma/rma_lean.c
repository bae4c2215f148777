// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rma_lean.c - the lean lane of the direct path: the calls a latency loop,
 * a lock word or a counter makes most (MPI_Fetch_and_op and
 * MPI_Compare_and_swap of one predefined element, MPI_Put and MPI_Get of
 * one predefined datatype on both sides, MPI_Accumulate and
 * MPI_Get_accumulate of a short run, MPI_Win_flush), on a window whose
 * memory this process maps, each checked and run in one function from the
 * call's own arguments.  The general lane (rma.c, rma_direct.c) builds
 * struct mpirma_rma_args and decides among every case; here what is not
 * the common case returns false, having done nothing, and the caller takes
 * that general lane, which also reports every error.  So the checks here
 * only pick the case; they need not explain a refusal.
 *
 * What an accumulate-like call may be here is learned once per (datatype,
 * op) pair, from the same op/type table the general lane asks
 * (mpirma_op_check()), and kept in lean_memo: sums of integers, floats and
 * doubles, replace and no-op of elements of 1, 2, 4 or 8 bytes, and
 * compare-and-swap where it is allowed.  The update itself is the code the
 * general lane runs for short runs too (lib/rma/update.h), so the two
 * lanes and the kernel stay atomic with respect to each other.
 *
 * Thread-safe as the direct path is (lib/rma/rma_entry.c): nothing here
 * takes the library lock.
 */
#include <string.h>

#include "copy.h"
#include "datatype.h"
#include "direct.h"
#include "op.h"
#include "reduce.h"
#include "rma_args.h"
#include "runtime.h"
#include "tool.h"
#include "update.h"
#include "win.h"

/* lean_memo's column of compare_and_swap (the predefined ops are 1-14). */
#define LEAN_CAS_COL	15
#define LEAN_COLS	16

/*
 * (how << 4) | element size, or 0 while not yet learned.  Any thread may
 * learn an entry; all learn the same.
 */
static uint8_t lean_memo[MPIRMA_DTYPE_NR_PREDEF][LEAN_COLS];

static __attribute__((noinline, cold)) uint8_t lean_learn(MPI_Datatype dt,
							   int col)
{
	uint8_t code = MPIRMA_UPD_SLOW << 4;
	int kt;

	/* The predefined datatypes' table is filled at its first lookup. */
	if (!mpirma_dtype_get(dt))
		return code;
	kt = mpirma_dtype_elem_ktype(dt);
	if (kt < 0) {
		/* not one kernel element: the general lane's */
	} else if (col == LEAN_CAS_COL) {
		if (mpirma_cas_allowed((unsigned int)kt))
			code = mpirma_upd_code(MPIRMA_KIND_CAS,
					       (unsigned int)kt, 0);
	} else if (!mpirma_op_check(col, dt, MPIRMA_OP_USE_RMA)) {
		code = mpirma_upd_code(MPIRMA_KIND_GET_ACC, (unsigned int)kt,
				       (unsigned int)mpirma_op_kernel(col));
		/* any other op the table allows: the engine's loop */
		if (code == MPIRMA_UPD_SLOW << 4 && col != MPI_NO_OP)
			code = MPIRMA_UPD_ENGINE << 4;
	}
	__atomic_store_n(&lean_memo[dt][col], code, __ATOMIC_RELAXED);
	return code;
}

/* The memo's code of @dt with column @col (an op, or LEAN_CAS_COL). */
static __always_inline uint8_t lean_code(MPI_Datatype dt, int col)
{
	uint8_t code;

	if ((unsigned int)dt >= MPIRMA_DTYPE_NR_PREDEF ||
	    (unsigned int)col >= LEAN_COLS)
		return MPIRMA_UPD_SLOW << 4;
	code = __atomic_load_n(&lean_memo[dt][col], __ATOMIC_RELAXED);
	return mpirma_likely(code) ? code : lean_learn(dt, col);
}

/*
 * Where @bytes at @disp of window rank @trank of @w (NULL: no window) are
 * in this process, when the lean lane may access them now: NULL otherwise.
 */
static __always_inline char *lean_target(struct mpirma_window *w, int trank,
					 long disp, uint64_t bytes)
{
	if (mpirma_unlikely(!w || mpirma_proc.state != MPIRMA_STATE_RUNNING ||
			    !w->segs || w->queue.nops) ||
	    (unsigned int)trank >= (unsigned int)w->size || disp < 0 ||
	    !mpirma_win_may_access(w, trank))
		return NULL;
	return mpirma_direct_addr(w, (uint32_t)trank, (uint64_t)disp, bytes);
}

/*
 * The entry points of several calls (the plain and large-count forms)
 * each get their own copy of these, so that no argument is passed twice.
 */
#define LEAN_INLINE	inline __attribute__((always_inline))

/* Counted as the general lane counts a direct operation. */
static __always_inline void lean_count(struct mpirma_window *w,
				       unsigned int kind, uint64_t bytes)
{
	mpirma_count(&mpirma_counters.rma_ops, 1);
	mpirma_count(&mpirma_counters.rma_direct, 1);
	mpirma_direct_count(w, kind, bytes);
}

LEAN_INLINE bool mpirma_lean_fop(struct mpirma_window *w, const void *oaddr,
				 void *raddr, int type, int trank, long tdisp,
				 int op)
{
	uint8_t code = lean_code(type, op);
	char *t;

	if ((code >> 4) == MPIRMA_UPD_SLOW ||
	    (code >> 4) == MPIRMA_UPD_ENGINE || !raddr ||
	    (!oaddr && (code >> 4) != MPIRMA_UPD_NO_OP))
		return false;
	t = lean_target(w, trank, tdisp, code & 15);
	if (!t || !mpirma_upd_run(w, (uint32_t)trank, code, t, oaddr, NULL,
				  raddr, 1))
		return false;
	lean_count(w, MPIRMA_KIND_GET_ACC, code & 15);
	return true;
}

LEAN_INLINE bool mpirma_lean_cas(struct mpirma_window *w, const void *oaddr,
				 const void *caddr, void *raddr, int type,
				 int trank, long tdisp)
{
	uint8_t code = lean_code(type, LEAN_CAS_COL);
	char *t;

	if ((code >> 4) != MPIRMA_UPD_CAS || !oaddr || !caddr || !raddr)
		return false;
	t = lean_target(w, trank, tdisp, code & 15);
	if (!t || !mpirma_upd_run(w, (uint32_t)trank, code, t, oaddr, caddr,
				  raddr, 1))
		return false;
	lean_count(w, MPIRMA_KIND_CAS, code & 15);
	return true;
}

/*
 * mpirma_lean_acc() of a long run, or of an op without straight code: the
 * reduction engine's loop under the target's update lock, for @n elements
 * of @type at @tdisp (as mpirma_lean_acc() checked them), @res NULL for an
 * accumulate.  Out of line: the short runs keep no registers for it.
 */
static __attribute__((noinline)) bool lean_acc_long(struct mpirma_window *w,
						      const void *o,
						      void *res, int trank,
						      long tdisp, int64_t n,
						      int type, int op)
{
	int kt = mpirma_dtype_elem_ktype(type), kop = mpirma_op_kernel(op);
	uint64_t bytes;
	char *t;

	if (kt < 0 || kop < 0 ||
	    __builtin_mul_overflow((uint64_t)n,
				   (uint64_t)mpirma_type_info[kt].size, &bytes) ||
	    bytes > (uint64_t)MPIRMA_MAX_SPAN)
		return false;
	t = lean_target(w, trank, tdisp, bytes);
	if (!t || !w->bulk_locks)
		return false;
	mpirma_bulk_update(w, (uint32_t)trank,
			   res ? MPIRMA_KIND_GET_ACC : MPIRMA_KIND_ACC,
			   (unsigned int)kt, (unsigned int)kop, t,
			   kop == MPIRMA_OP_NO_OP ? NULL : o, res, (uint64_t)n);
	lean_count(w, res ? MPIRMA_KIND_GET_ACC : MPIRMA_KIND_ACC, bytes);
	return true;
}

LEAN_INLINE bool mpirma_lean_acc(struct mpirma_window *w, const void *oaddr,
				 int64_t ocount, int otype, void *raddr,
				 int64_t rcount, int rtype, int trank, long tdisp,
				 int64_t tcount, int ttype, int op)
{
	uint8_t code = lean_code(ttype, op);
	unsigned int how = code >> 4, size = code & 15;
	char *t;

	if (how == MPIRMA_UPD_SLOW || how == MPIRMA_UPD_CAS || tcount <= 0 ||
	    (raddr && (rtype != ttype || rcount != tcount)))
		return false;
	if (how == MPIRMA_UPD_NO_OP ? !raddr :
	    !oaddr || otype != ttype || ocount != tcount)
		return false;
	if (how == MPIRMA_UPD_ENGINE || mpirma_upd_long(code, (uint64_t)tcount))
		return lean_acc_long(w, oaddr, raddr, trank, tdisp, tcount,
				     ttype, op);
	t = lean_target(w, trank, tdisp, (uint64_t)tcount * size);
	if (!t || !mpirma_upd_run(w, (uint32_t)trank, code, t, oaddr, NULL, raddr,
			       (uint64_t)tcount))
		return false;
	lean_count(w, raddr ? MPIRMA_KIND_GET_ACC : MPIRMA_KIND_ACC,
		   (uint64_t)tcount * size);
	return true;
}

LEAN_INLINE bool mpirma_lean_move(struct mpirma_window *w, bool put,
				  void *buf, int64_t count, int type, int trank,
				  long tdisp, int64_t tcount, int ttype)
{
	int kt = mpirma_dtype_elem_ktype(type);
	uint64_t bytes;
	char *t;

	if (kt < 0 || type != ttype || count != tcount || count <= 0 ||
	    __builtin_mul_overflow((uint64_t)count,
				   (uint64_t)mpirma_type_info[kt].size,
				   &bytes) ||
	    bytes > (uint64_t)MPIRMA_MAX_SPAN || !buf)
		return false;
	t = lean_target(w, trank, tdisp, bytes);
	if (!t)
		return false;
	if (!put)
		mpirma_move(buf, t, bytes);
	else if (bytes <= 16)
		mpirma_copy_small(t, buf, bytes);
	else
		mpirma_put_copy(t, buf, bytes);
	lean_count(w, put ? MPIRMA_KIND_PUT : MPIRMA_KIND_GET, bytes);
	return true;
}

LEAN_INLINE bool mpirma_lean_flush(struct mpirma_window *w, int rank)
{
	if (mpirma_unlikely(!w || mpirma_proc.state != MPIRMA_STATE_RUNNING) ||
	    (unsigned int)rank >= (unsigned int)w->size ||
	    (!w->lock_all && !w->lock[rank]) || w->queue.nops ||
	    w->queue.deferred)
		return false;
	/* nothing queued: the drain is a fence, and cannot fail */
	return mpirma_win_drain(w) == MPI_SUCCESS;
}

struct mpirma_window *mpirma_lean_window(int win)
{
	return mpirma_window_get(win);
}
