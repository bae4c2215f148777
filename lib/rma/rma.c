// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rma.c - the communication calls' engine: the arguments of MPI_Put,
 * MPI_Get, MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op and
 * MPI_Compare_and_swap (struct mpirma_rma_args, filled by the entry points in
 * lib/rma/rma_entry.c) turned into struct mpirma_op for the kernel.
 *
 * Every call goes through mpirma_rma_call(): the arguments are checked in the
 * order the error classes suggest (window, counts, datatypes, op; then
 * MPI_PROC_NULL, which is a no-op in any epoch state; then the target rank
 * and the epoch), each side's datatype is turned into a kernel layout, and
 * the operation takes its path (rma_dispatch(), lib/rma/win.h: direct, queued
 * or at once).
 *
 * Errors are reported by the call that makes them, before anything is
 * queued: the target rank, the op/type pair, the type signatures, and the
 * target range against the window's size and displacement unit at the
 * target (struct mpirma_window.extent; dynamic windows excepted, whose
 * regions only the kernel knows).  The kernel checks all of it again as the
 * last line (and overlapping accumulate targets); what it finds comes back
 * as a per-operation errno, mapped by the one errno table,
 * mpirma_errno_to_class(), and reported by the call that completes the
 * operation.
 *
 * Element types: put and get move bytes, so when the two sides do not share
 * one kernel element type they travel as MPIRMA_TYPE_BYTE, in the datatypes'
 * byte views (lib/rma/datatype.h).  Like a message, a put or get may fill only
 * the start of a larger receiving side (target of a put, origin of a get);
 * more data than room is MPI_ERR_TRUNCATE.  Accumulate-like operations need
 * the one basic type and the same amount of data on every side
 * (MPI_ERR_TYPE otherwise).  A call with no data on any side (zero counts,
 * zero-size datatypes) checks nothing about the datatypes' agreement.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "datatype.h"
#include "runtime.h"
#include "op.h"
#include "reduce.h"
#include "rma_args.h"
#include "rma_sides.h"
#include "tool.h"
#include "win.h"

/* ------------------------------------------------------------ ranges */

const char *mpirma_kind_name(unsigned int kind)
{
	static const char *const names[] = {
		[MPIRMA_KIND_PUT] = "put", [MPIRMA_KIND_GET] = "get",
		[MPIRMA_KIND_ACC] = "accumulate",
		[MPIRMA_KIND_GET_ACC] = "get_accumulate",
		[MPIRMA_KIND_CAS] = "compare_and_swap",
	};

	return kind < MPIRMA_ARRAY_SIZE(names) && names[kind] ? names[kind] :
	       "operation";
}

/*
 * The target range of @op inside window memory @e of rank @rank, as the
 * kernel will check it (kmod/rma.c), from @r, what its target layout
 * reaches (NULL: too far to say).  MPI_ERR_RMA_RANGE (recorded) when it is
 * not.
 */
static int extent_check(const struct mpirma_win_extent *e,
			const struct mpirma_op *op, unsigned int rank,
			const struct mpirma_reach *r)
{
	int64_t lo, hi, base;
	uint64_t off;

	if (!r || __builtin_mul_overflow(op->target_disp,
					 (uint64_t)e->disp_unit, &off) ||
	    off > INT64_MAX)
		goto out_range;
	lo = r->lo;
	hi = r->hi;
	if (lo == hi)
		return MPI_SUCCESS;	/* no data: nothing to check */
	base = (int64_t)off;
	if (__builtin_add_overflow(base, lo, &lo) ||
	    __builtin_add_overflow(base, hi, &hi) || lo < 0 ||
	    (uint64_t)hi > e->len)
		goto out_range;
	return MPI_SUCCESS;

out_range:
	return mpirma_err(MPI_ERR_RMA_RANGE, "the %s's target range "
			  "(displacement %llu, unit %u) does not lie inside "
			  "the %llu bytes of window memory of rank %u",
			  mpirma_kind_name(op->kind),
			  (unsigned long long)op->target_disp, e->disp_unit,
			  (unsigned long long)e->len, rank);
}

/* extent_check() for @op's target on @w (dynamic: only the kernel knows). */
static int range_check(const struct mpirma_window *w,
		       const struct mpirma_op *op, const struct mpirma_reach *r)
{
	if (!w->extent)
		return MPI_SUCCESS;
	return extent_check(&w->extent[op->target_rank], op, op->target_rank,
			    r);
}

/*
 * What @op's target layout reaches (@sum: what one instance of its block
 * list does, or NULL), into *@r; NULL when too far to say.
 */
static const struct mpirma_reach *
target_reach(const struct mpirma_op *op, const struct mpirma_blocks_sum *sum,
	     struct mpirma_reach *r)
{
	return mpirma_layout_reach(&op->target, mpirma_type_info[op->type].size,
				   sum, r) ? r : NULL;
}

/* ------------------------------------------------------------ the calls */

/* The op for accumulate kinds; MPI class (recorded). */
/* MPI_ERR_TYPE: target datatype @dt (named as the user wrote it) @what. */
static int __attribute__((cold)) type_error(MPI_Datatype dt, const char *what)
{
	char name[MPI_MAX_OBJECT_NAME + 64];

	return mpirma_err(MPI_ERR_TYPE, "%s %s%s",
			  mpirma_dtype_describe(dt, name, sizeof(name)), what,
			  mpirma_dtype_strict_note(dt));
}

static int check_op(const struct mpirma_rma_args *a, int *kop)
{
	*kop = mpirma_op_kernel(a->op);
	if (*kop < 0)
		return mpirma_err(MPI_ERR_OP, "op %d is not a predefined "
				  "operation (user-defined ops are not "
				  "allowed in RMA)", a->op);
	if (a->kind == MPIRMA_KIND_ACC && *kop == MPIRMA_OP_NO_OP)
		return mpirma_err(MPI_ERR_OP, "MPI_NO_OP is only allowed in "
				  "MPI_Get_accumulate and MPI_Fetch_and_op");
	return MPI_SUCCESS;
}

/*
 * mpirma_op_check(@op, @dt, RMA) for a predefined @dt, remembered per
 * datatype and op (bit 2 * op: known, the next bit: allowed): the op/type
 * table never changes, and checking it cost more than the rest of a
 * one-element call's arguments together.  Any thread may fill it in; both
 * fill in the same.
 */
static uint32_t rma_op_memo[MPIRMA_DTYPE_NR_PREDEF];

static __always_inline bool rma_op_ok(MPI_Datatype dt, MPI_Op op)
{
	uint32_t known, ok, m;

	if (op < 0 || op >= 16)
		return !mpirma_op_check(op, dt, MPIRMA_OP_USE_RMA);
	known = 1U << (2 * op);
	ok = known << 1;
	m = __atomic_load_n(&rma_op_memo[dt], __ATOMIC_RELAXED);
	if (mpirma_unlikely(!(m & known))) {
		m = known;
		if (!mpirma_op_check(op, dt, MPIRMA_OP_USE_RMA))
			m |= ok;
		__atomic_fetch_or(&rma_op_memo[dt], m, __ATOMIC_RELAXED);
	}
	return m & ok;
}

/* Has a call of MPIRMA_KIND_* @kind a result side? */
static __always_inline bool kind_has_result(int kind)
{
	return kind == MPIRMA_KIND_GET || kind == MPIRMA_KIND_GET_ACC ||
	       kind == MPIRMA_KIND_CAS;
}

/*
 * The kernel element type of @a when every side is @a->tcount elements of
 * one predefined datatype that is exactly one kernel element
 * (mpirma_dtype_elem_ktype()) and the op or compare_and_swap may apply to
 * it: -1 otherwise, and the general path decides.
 */
static __always_inline int basic_type(const struct mpirma_rma_args *a,
				      bool has_origin, bool has_result)
{
	int kt = mpirma_dtype_elem_ktype(a->ttype);
	uint64_t bytes;

	/*
	 * A count whose bytes overflow is the general path's MPI_ERR_COUNT
	 * (checked by multiplying: a division is a helper call under TCG).
	 */
	if (kt < 0 || a->tcount <= 0 ||
	    __builtin_mul_overflow((uint64_t)a->tcount,
				   (uint64_t)mpirma_type_info[kt].size, &bytes) ||
	    bytes > (uint64_t)MPIRMA_MAX_SPAN ||
	    (has_origin && (a->otype != a->ttype || a->ocount != a->tcount)) ||
	    (has_result && (a->rtype != a->ttype || a->rcount != a->tcount)))
		return -1;
	switch (a->kind) {
	case MPIRMA_KIND_PUT:
	case MPIRMA_KIND_GET:
		return kt;
	case MPIRMA_KIND_CAS:
		return mpirma_cas_allowed((unsigned int)kt) ? kt : -1;
	default:
		/* kt >= 0: a predefined handle, rma_op_memo's index */
		return rma_op_ok(a->ttype, a->op) ? kt : -1;
	}
}

/*
 * The common case, built without datatype layouts: every side is
 * basic_type().  Returns false when @a is not that case or something needs
 * the full checks of rma_build() (which then also report the error); the
 * epoch and rank checks are the caller's.
 */
static bool rma_build_basic(const struct mpirma_rma_args *a,
			    struct mpirma_op *op, bool has_origin,
			    bool has_result, int kop)
{
	int kt = basic_type(a, has_origin, has_result);

	if (kt < 0)
		return false;
	op->kind = (uint16_t)a->kind;
	op->type = (uint16_t)kt;
	op->op = (uint16_t)kop;
	op->target_rank = (uint32_t)a->trank;
	op->target_disp = (uint64_t)a->tdisp;
	op->target.count = (uint64_t)a->tcount;
	if (has_origin) {
		op->origin.addr = (uint64_t)(uintptr_t)a->oaddr;
		op->origin.count = (uint64_t)a->tcount;
	}
	if (has_result) {
		op->result.addr = (uint64_t)(uintptr_t)a->raddr;
		op->result.count = (uint64_t)a->tcount;
	}
	if (a->kind == MPIRMA_KIND_CAS)
		op->compare = (uint64_t)(uintptr_t)a->caddr;
	return true;
}

/*
 * The fast lane of the direct path: a call that is basic_type() on every
 * side, in an open epoch, to a target whose memory this process has mapped
 * (and nothing queued before it) runs here, with no struct mpirma_op built
 * (mpirma_win_direct_fast()).  False when the general path must decide; every
 * error is the general path's to report.
 */
static __always_inline bool rma_fast(struct mpirma_window *w,
				     const struct mpirma_rma_args *a)
{
	bool acc = a->kind == MPIRMA_KIND_ACC || a->kind == MPIRMA_KIND_GET_ACC;
	bool has_origin = a->kind != MPIRMA_KIND_GET;
	bool has_result = kind_has_result(a->kind);
	int kop = 0, kt;

	if ((unsigned int)a->trank >= (unsigned int)w->size || a->tdisp < 0 ||
	    !mpirma_win_may_access(w, a->trank))
		return false;
	if (acc) {
		kop = mpirma_op_kernel(a->op);
		if (kop < 0 || (kop == MPIRMA_OP_NO_OP &&
				a->kind == MPIRMA_KIND_ACC))
			return false;
		has_origin = kop != MPIRMA_OP_NO_OP;
	}
	kt = basic_type(a, has_origin, has_result);
	return kt >= 0 && mpirma_win_direct_fast(w, a, (unsigned int)kt,
						 (unsigned int)kop, has_origin);
}

/*
 * Builds the kernel operation for @a.  *skip is set when there is nothing
 * to do (MPI_PROC_NULL, no data).  MPI class (recorded).
 */
static int rma_build(struct mpirma_window *w, const struct mpirma_rma_args *a,
		     struct mpirma_op *op, bool *skip,
		     struct mpirma_block **scratch, struct mpirma_op_sums *sums)
{
	struct mpirma_rma_side o, t, r;
	bool has_origin, has_result;
	int ret, kop = 0;

	*skip = false;
	*sums = (struct mpirma_op_sums){ NULL, NULL, NULL };
	memset(op, 0, sizeof(*op));
	has_origin = a->kind != MPIRMA_KIND_GET;
	has_result = kind_has_result(a->kind);
	if (a->kind == MPIRMA_KIND_ACC || a->kind == MPIRMA_KIND_GET_ACC) {
		ret = check_op(a, &kop);
		if (ret)
			return ret;
		/* NO_OP reads the target only: the origin is not used. */
		if (kop == MPIRMA_OP_NO_OP)
			has_origin = false;
	}
	if (a->trank >= 0 && a->trank < w->size &&
	    mpirma_win_may_access(w, a->trank) &&
	    (a->tdisp >= 0 || w->flavor == MPI_WIN_FLAVOR_DYNAMIC) &&
	    rma_build_basic(a, op, has_origin, has_result, kop))
		return MPI_SUCCESS;

	ret = mpirma_rma_side_init(&t, a->ttype, a->tcount, NULL, "target");
	if (!ret && has_origin)
		ret = mpirma_rma_side_init(&o, a->otype, a->ocount, a->oaddr, "origin");
	if (!ret && has_result)
		ret = mpirma_rma_side_init(&r, a->rtype, a->rcount, a->raddr, "result");
	if (ret)
		return ret;
	if (a->single && !mpirma_rma_predefined(a->ttype))
		return mpirma_err(MPI_ERR_TYPE, "the datatype must be a "
				  "predefined one");

	if (a->trank == MPI_PROC_NULL) {
		*skip = true;
		return MPI_SUCCESS;
	}
	if (a->trank < 0 || a->trank >= w->size)
		return mpirma_err(MPI_ERR_RANK, "target rank %d is not in the "
				  "window (size %d)", a->trank, w->size);
	if (!mpirma_win_may_access(w, a->trank))
		return mpirma_err(MPI_ERR_RMA_SYNC, "no access epoch is open "
				  "to rank %d (call MPI_Win_fence, "
				  "MPI_Win_lock, MPI_Win_lock_all or "
				  "MPI_Win_start first)", a->trank);
	if (a->tdisp < 0 && w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
		return mpirma_err(MPI_ERR_DISP, "negative target displacement "
				  "%ld", (long)a->tdisp);
	/*
	 * No data on any side (zero counts, zero-size datatypes): nothing
	 * to match, whatever the datatypes are.
	 */
	if (!t.bytes && (!has_origin || !o.bytes) &&
	    (!has_result || !r.bytes)) {
		*skip = true;
		return MPI_SUCCESS;
	}

	switch (a->kind) {
	case MPIRMA_KIND_PUT:
	case MPIRMA_KIND_GET: {
		/* The origin buffer of a get is the kernel's result side. */
		struct mpirma_rma_side *mine = a->kind == MPIRMA_KIND_PUT ? &o : &r;
		struct mpirma_rma_side *src = a->kind == MPIRMA_KIND_PUT ? mine : &t;
		struct mpirma_rma_side *dst = a->kind == MPIRMA_KIND_PUT ? &t : mine;

		ret = mpirma_rma_signature_check(mine->ktype, t.ktype);
		if (ret)
			return ret;
		if (mine->ktype != t.ktype) {
			ret = mpirma_rma_side_to_bytes(mine);
			if (!ret)
				ret = mpirma_rma_side_to_bytes(&t);
			if (ret)
				return ret;
		}
		/*
		 * As for a message (MPI 3.1, 11.3): a receiving side larger
		 * than the data is filled as far as the data goes; data that
		 * does not fit is an error.
		 */
		if (src->bytes > dst->bytes)
			return mpirma_err(MPI_ERR_TRUNCATE, "the %s holds %llu "
					  "bytes of data, the %s only room for "
					  "%llu", a->kind == MPIRMA_KIND_PUT ?
					  "origin" : "target",
					  (unsigned long long)src->bytes,
					  a->kind == MPIRMA_KIND_PUT ?
					  "target" : "origin buffer",
					  (unsigned long long)dst->bytes);
		if (src->bytes < dst->bytes) {
			ret = mpirma_rma_side_truncate(dst, src->bytes, scratch);
			if (ret)
				return ret;
		}
		break;
	}
	default:
		ret = has_origin ? mpirma_dtype_acc_match(a->otype, a->ttype) :
		      MPI_SUCCESS;
		if (!ret && has_result)
			ret = mpirma_dtype_acc_match(a->rtype, a->ttype);
		if (ret)
			return ret;
		if ((has_origin && o.bytes != t.bytes) ||
		    (has_result && r.bytes != t.bytes))
			return mpirma_err(MPI_ERR_TYPE, "the %s and the target "
					  "do not hold the same number of "
					  "elements",
					  has_origin && o.bytes != t.bytes ?
					  "origin" : "result");
		if (!t.bytes)
			break;
		if (mpirma_dtype_ktype(a->ttype) < 0)
			return type_error(a->ttype, "has no basic type the "
					  "kernel can accumulate on");
		if (a->kind == MPIRMA_KIND_CAS &&
		    !mpirma_cas_allowed(t.ktype))
			return type_error(a->ttype, "is not an integer, "
					  "logical or byte type, which "
					  "compare_and_swap needs");
		if (a->kind != MPIRMA_KIND_CAS) {
			/* The standard's op/type table, by type group. */
			ret = mpirma_op_check(a->op, a->ttype,
					      MPIRMA_OP_USE_RMA);
			if (ret)
				return ret;
		}
		break;
	}
	if (!t.bytes) {
		*skip = true;
		return MPI_SUCCESS;
	}

	op->kind = (uint16_t)a->kind;
	op->type = (uint16_t)t.ktype;
	op->op = (uint16_t)kop;
	op->target_rank = (uint32_t)a->trank;
	op->target_disp = (uint64_t)a->tdisp;
	op->target = t.l;
	sums->target = t.sum;
	if (has_origin) {
		op->origin = o.l;
		sums->origin = o.sum;
	}
	if (has_result) {
		op->result = r.l;
		sums->result = r.sum;
	}
	if (a->kind == MPIRMA_KIND_CAS)
		op->compare = (uint64_t)(uintptr_t)a->caddr;
	return MPI_SUCCESS;
}

/*
 * Sends @op on its path (lib/rma/win.h): direct, queued (unless @now), or to
 * the kernel at once, after whatever is queued.  MPI class (recorded).
 */
static int rma_dispatch(struct mpirma_window *w, struct mpirma_op *op,
			bool now, const struct mpirma_reach *tr,
			const struct mpirma_op_sums *sums)
{
	char *t = mpirma_win_direct_target(w, op);
	uint64_t bytes = 0;	/* of a block list's operation */
	bool queued;
	int ret;

	/*
	 * The queue goes first, to keep call order (usually it is empty);
	 * its errors belong to the sync call that completes it.
	 */
	if (t || (tr && (t = mpirma_win_blocks_target(w, op, tr, sums,
						      &bytes)))) {
		if (w->queue.nops)
			mpirma_win_drain_early(w);
		if (bytes)
			mpirma_win_blocks(w, op, t, bytes);
		else
			mpirma_win_direct(w, op, t);
		mpirma_count(&mpirma_counters.rma_direct, 1);
		return MPI_SUCCESS;
	}
	if (!now) {
		ret = mpirma_win_enqueue(w, op, &queued);
		if (ret || queued)
			return ret;
	}
	/* Threads never queue, and a drain would touch what flushes own. */
	if (!mpirma_threads)
		mpirma_win_drain_early(w);
	return mpirma_win_issue(w, op, 1);
}

/* win.h */
/*
 * To the kernel a dynamic window's regions are separate, but an access may
 * run from one attached region on into another attached right after it
 * (MPICH's rma/win_dynamic_rma_flush_get): a call of one predefined type
 * on every side, contiguous, goes as one call per region (the standard's
 * atomicity is per element).  -1 when @a needs no split or cannot have
 * one (another datatype, a boundary inside an element, no region maps
 * with MPI_THREAD_MULTIPLE: the kernel reports the range error); else
 * the class of the calls.
 */
/*
 * Do attached regions of @rank cover @len bytes from @addr, each boundary
 * between elements of @esize bytes?  A call not wholly covered is refused
 * whole, by the kernel: no part of it is done.
 */
static bool dyn_covered(struct mpirma_window *w, int rank, uint64_t addr,
			uint64_t len, uint64_t esize)
{
	uint64_t room;

	while (len) {
		room = mpirma_win_dyn_room(w, (uint32_t)rank, addr);
		if (!room || (room < len && room % esize))
			return false;
		if (room >= len)
			return true;
		addr += room;
		len -= room;
	}
	return true;
}

static int rma_dyn_split(MPI_Win win, struct mpirma_window *w,
			 const struct mpirma_rma_args *a, bool now)
{
	bool has_result = kind_has_result(a->kind);
	bool has_origin = a->kind != MPIRMA_KIND_GET &&
			  !(a->kind == MPIRMA_KIND_GET_ACC && a->op == MPI_NO_OP);
	struct mpirma_rma_args first, rest;
	uint64_t room, esize;
	int kt, ret;

	if (!w->dyn || a->kind == MPIRMA_KIND_CAS ||
	    (unsigned int)a->trank >= (unsigned int)w->size || a->tdisp < 0)
		return -1;
	kt = basic_type(a, has_origin, has_result);
	if (kt < 0)
		return -1;
	esize = mpirma_type_info[kt].size;
	room = mpirma_win_dyn_room(w, (uint32_t)a->trank, (uint64_t)a->tdisp);
	if (!room || room % esize || room >= (uint64_t)a->tcount * esize ||
	    !dyn_covered(w, a->trank, (uint64_t)a->tdisp + room,
			 (uint64_t)a->tcount * esize - room, esize))
		return -1;
	first = *a;
	first.tcount = (int64_t)(room / esize);
	rest = *a;
	rest.tcount -= first.tcount;
	rest.tdisp += (long)room;
	if (has_origin) {
		first.ocount = first.tcount;
		rest.ocount = rest.tcount;
		rest.oaddr = (const char *)a->oaddr + room;
	}
	if (has_result) {
		first.rcount = first.tcount;
		rest.rcount = rest.tcount;
		rest.raddr = (char *)a->raddr + room;
	}
	ret = mpirma_rma_call(win, &first, now);
	return ret ? ret : mpirma_rma_call(win, &rest, now);
}

/* Every call the fast lane does not take; out of line, to keep it light. */
static int __attribute__((noinline))
rma_call_general(MPI_Win win, struct mpirma_window *w,
		 const struct mpirma_rma_args *a, bool now)
{
	const struct mpirma_reach *tr = NULL;
	struct mpirma_block *scratch = NULL;
	struct mpirma_op_sums sums;
	struct mpirma_reach reach;
	struct mpirma_op op;
	bool skip;
	int ret;

	if (!w) {
		mpirma_window_invalid(win);	/* records MPI_ERR_WIN */
		return MPI_ERR_WIN;
	}
	mpirma_count(&mpirma_counters.rma_ops, 1);
	if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
		ret = rma_dyn_split(win, w, a, now);
		if (ret >= 0)
			return ret;
	}
	ret = rma_build(w, a, &op, &skip, &scratch, &sums);
	if (!ret && !skip) {
		/* only where the range check or the direct path uses it */
		if (w->extent || mpirma_win_direct_any(w))
			tr = target_reach(&op, sums.target, &reach);
		ret = range_check(w, &op, tr);
	}
	if (!ret && !skip)
		ret = rma_dispatch(w, &op, now || scratch != NULL, tr, &sums);
	free(scratch);
	return ret;
}

int mpirma_rma_call(MPI_Win win, const struct mpirma_rma_args *a, bool now)
{
	struct mpirma_window *w = mpirma_window_get(win);

	if (mpirma_likely(w && mpirma_win_direct_any(w) && !w->queue.nops) &&
	    rma_fast(w, a)) {
		mpirma_count(&mpirma_counters.rma_ops, 1);
		mpirma_count(&mpirma_counters.rma_direct, 1);
		return MPI_SUCCESS;
	}
	return rma_call_general(win, w, a, now);
}

/* ------------------------------------------------------------ shipping */

/* lib/rma/ship.h: the operation mpirma_rma_call() would issue, for another
 * node.
 */
int mpirma_rma_prepare(int win, const struct mpirma_rma_args *a,
		       struct mpirma_op *op, bool *skip, void **scratch,
		       const char *fn)
{
	struct mpirma_window *w = mpirma_window_check(win);
	struct mpirma_block *s = NULL;
	struct mpirma_op_sums sums;
	int ret;

	*scratch = NULL;
	if (!w)
		return mpirma_raise_win(win, MPI_ERR_WIN, fn, NULL);
	ret = rma_build(w, a, op, skip, &s, &sums);
	*scratch = s;
	return mpirma_raise_win(win, ret, fn, NULL);
}

int mpirma_rma_range(int win, const struct mpirma_op *op, uint64_t len,
		     uint32_t disp_unit, int rank, const char *fn)
{
	struct mpirma_win_extent e = { .len = len, .disp_unit = disp_unit };
	struct mpirma_reach r;

	return mpirma_raise_win(win, extent_check(&e, op, (unsigned int)rank,
						  target_reach(op, NULL, &r)),
				fn, NULL);
}

int64_t mpirma_rma_win_id(int win)
{
	struct mpirma_window *w = mpirma_window_get(win);

	return w ? (int64_t)w->id : -1;
}

unsigned int mpirma_rma_elem_size(unsigned int ktype)
{
	return ktype < MPIRMA_NR_TYPES ? mpirma_type_info[ktype].size : 0;
}
