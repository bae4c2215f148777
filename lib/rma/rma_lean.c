// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rma_lean.c - the lean lane of the direct path: the calls a latency loop,
 * a lock word or a counter makes most (MPI_Fetch_and_op and
 * MPI_Compare_and_swap of one predefined element, MPI_Put and MPI_Get of
 * one predefined datatype on both sides, MPI_Win_flush), on a window whose
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
 * compare-and-swap where it is allowed.  Each element is updated under the
 * target's update lock (MPIRMA_ATOM_BULK) or with one atomic instruction
 * (MPIRMA_ATOM_NATIVE, naturally aligned), as the general lane does it, so
 * the two lanes and the kernel stay atomic with respect to each other.
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
#include "win.h"

/* What an element update is, per (datatype, op): lean_memo's high half. */
enum lean_how {
	LEAN_SLOW = 1,		/* the general lane's */
	LEAN_SUM_INT,
	LEAN_SUM_F32,
	LEAN_SUM_F64,
	LEAN_REPLACE,
	LEAN_NO_OP,
	LEAN_CAS,
};

/* lean_memo's column of compare_and_swap (the predefined ops are 1-14). */
#define LEAN_CAS_COL	15
#define LEAN_COLS	16

/*
 * (how << 4) | element size, or 0 while not yet learned.  Any thread may
 * learn an entry; all learn the same.
 */
static uint8_t lean_memo[MPIRMA_DTYPE_NR_PREDEF][LEAN_COLS];

/* What the update of one @kt element (predefined @dt) with column @col is. */
static unsigned int lean_how_of(int kt, MPI_Datatype dt, int col)
{
	if (col == LEAN_CAS_COL)
		return mpirma_cas_allowed((unsigned int)kt) ? LEAN_CAS :
							       LEAN_SLOW;
	if (mpirma_op_check(col, dt, MPIRMA_OP_USE_RMA))
		return LEAN_SLOW;
	switch (mpirma_op_kernel(col)) {
	case MPIRMA_OP_REPLACE:
		return LEAN_REPLACE;
	case MPIRMA_OP_NO_OP:
		return LEAN_NO_OP;
	case MPIRMA_OP_SUM:
		if (mpirma_type_info[kt].type_class == MPIRMA_CLASS_INT)
			return LEAN_SUM_INT;
		if (kt == MPIRMA_TYPE_FLOAT)
			return LEAN_SUM_F32;
		if (kt == MPIRMA_TYPE_DOUBLE)
			return LEAN_SUM_F64;
		return LEAN_SLOW;
	default:
		return LEAN_SLOW;
	}
}

static __attribute__((noinline, cold)) uint8_t lean_learn(MPI_Datatype dt,
							   int col)
{
	int kt;
	unsigned int size;
	uint8_t code = LEAN_SLOW << 4;

	/* The predefined datatypes' table is filled at its first lookup. */
	if (!mpirma_dtype_get(dt))
		return code;
	kt = mpirma_dtype_elem_ktype(dt);
	size = kt >= 0 ? mpirma_type_info[kt].size : 0;
	if (size == 1 || size == 2 || size == 4 || size == 8)
		code = (uint8_t)(lean_how_of(kt, dt, col) << 4 | size);
	__atomic_store_n(&lean_memo[dt][col], code, __ATOMIC_RELAXED);
	return code;
}

/* The memo's code of @dt with column @col (an op, or LEAN_CAS_COL). */
static __always_inline uint8_t lean_code(MPI_Datatype dt, int col)
{
	uint8_t code;

	if ((unsigned int)dt >= MPIRMA_DTYPE_NR_PREDEF ||
	    (unsigned int)col >= LEAN_COLS)
		return LEAN_SLOW << 4;
	code = __atomic_load_n(&lean_memo[dt][col], __ATOMIC_RELAXED);
	return mpirma_likely(code) ? code : lean_learn(dt, col);
}

/*
 * The window of @win and where @bytes at @disp of window rank @trank are
 * in this process, when the lean lane may access them now: NULL otherwise.
 */
static __always_inline char *lean_target(MPI_Win win, int trank, long disp,
					 uint64_t bytes,
					 struct mpirma_window **wp)
{
	struct mpirma_window *w = mpirma_window_get(win);
	const struct mpirma_win_seg *s;
	uint64_t off;

	if (mpirma_unlikely(!w || mpirma_proc.state != MPIRMA_STATE_RUNNING ||
			    !w->segs || w->queue.nops) ||
	    (unsigned int)trank >= (unsigned int)w->size || disp < 0 ||
	    !mpirma_win_may_access(w, trank))
		return NULL;
	s = &w->segs[trank];
	if (__builtin_mul_overflow((uint64_t)disp, (uint64_t)s->disp_unit,
				   &off) ||
	    off > s->len || bytes > s->len - off)
		return NULL;
	*wp = w;
	return s->base + off;
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

/* The element of @size bytes at @p, as an integer (any alignment). */
static __always_inline uint64_t lean_load(const void *p, unsigned int size)
{
	uint8_t a;
	uint16_t b;
	uint32_t c;
	uint64_t d;

	switch (size) {
	case 1:
		memcpy(&a, p, 1);
		return a;
	case 2:
		memcpy(&b, p, 2);
		return b;
	case 4:
		memcpy(&c, p, 4);
		return c;
	default:
		memcpy(&d, p, 8);
		return d;
	}
}

static __always_inline void lean_store(void *p, uint64_t v, unsigned int size)
{
	uint8_t a = (uint8_t)v;
	uint16_t b = (uint16_t)v;
	uint32_t c = (uint32_t)v;

	switch (size) {
	case 1:
		memcpy(p, &a, 1);
		return;
	case 2:
		memcpy(p, &b, 2);
		return;
	case 4:
		memcpy(p, &c, 4);
		return;
	default:
		memcpy(p, &v, 8);
		return;
	}
}

/*
 * The new value of an element that was @cur, given the origin's @v, with
 * the reduction engine's arithmetic (target + origin, common/reduce.c,
 * reduce_fp.c).
 */
static __always_inline uint64_t lean_new(unsigned int how, uint64_t cur,
					 uint64_t v)
{
	float f, g;
	double x, y;
	uint32_t u = (uint32_t)cur, z = (uint32_t)v;

	switch (how) {
	case LEAN_SUM_INT:
		return cur + v;
	case LEAN_SUM_F32:
		memcpy(&f, &u, 4);
		memcpy(&g, &z, 4);
		f = f + g;
		memcpy(&u, &f, 4);
		return u;
	case LEAN_SUM_F64:
		memcpy(&x, &cur, 8);
		memcpy(&y, &v, 8);
		x = x + y;
		memcpy(&cur, &x, 8);
		return cur;
	default:
		return v;	/* replace, compare-and-swap */
	}
}

/*
 * One atomic instruction on the naturally aligned @uint_t at @t: *@old
 * gets the element as it was.  False for the updates that need a loop
 * (floating-point sums), which the general lane runs.
 */
#define LEAN_NATIVE(uint_t)						\
	do {								\
		uint_t *e_ = (uint_t *)t, x_ = (uint_t)v, c_ = (uint_t)cmp; \
									\
		switch (how) {						\
		case LEAN_SUM_INT:					\
			*old = __atomic_fetch_add(e_, x_, __ATOMIC_SEQ_CST); \
			return true;					\
		case LEAN_REPLACE:					\
			*old = __atomic_exchange_n(e_, x_, __ATOMIC_SEQ_CST); \
			return true;					\
		case LEAN_NO_OP:					\
			*old = __atomic_load_n(e_, __ATOMIC_SEQ_CST);	\
			return true;					\
		case LEAN_CAS:						\
			__atomic_compare_exchange_n(e_, &c_, x_, false,	\
						    __ATOMIC_SEQ_CST,	\
						    __ATOMIC_SEQ_CST);	\
			*old = c_;					\
			return true;					\
		default:						\
			return false;					\
		}							\
	} while (0)

static __always_inline bool lean_native(unsigned int how, unsigned int size,
					char *t, uint64_t v, uint64_t cmp,
					uint64_t *old)
{
	switch (size) {
	case 1:
		LEAN_NATIVE(uint8_t);
	case 2:
		LEAN_NATIVE(uint16_t);
	case 4:
		LEAN_NATIVE(uint32_t);
	default:
		LEAN_NATIVE(uint64_t);
	}
}

/*
 * Runs of this many elements or more go to the general lane, whose
 * reduction engine picks a vectorized build per type (lib/base/reduce_pick.c).
 * Below it this lane's loop is faster (measured in the VM, sums, us per
 * call and flush: 64 ints 0.43 here against 0.71 there, 64 chars 0.45
 * against 0.58, 128 doubles 1.09 against 1.30; 256 chars 1.00 here against
 * 0.69 there).
 */
#define LEAN_RUN_MAX	128

/*
 * The update @how of @n elements of @size bytes at @t of window rank
 * @trank on @w, with the origin's values at @o and the compare value at @c
 * (as @how needs them): the elements as they were into @res unless it is
 * NULL.  False, having done nothing, when the window's strategy wants the
 * general lane.  Inlined with @how and @size constant (lean_update()), so
 * each case is straight code.
 */
static __always_inline bool lean_update_as(struct mpirma_window *w,
					   int trank, unsigned int how,
					   unsigned int size, char *t,
					   const char *o, const void *c,
					   char *res, uint64_t n)
{
	uint64_t cmp = how == LEAN_CAS ? lean_load(c, size) : 0, v = 0, cur, i;
	uint32_t *word;

	if (mpirma_likely(w->bulk_locks != NULL)) {
		word = mpirma_bulk_word(w, (uint32_t)trank);
		mpirma_bulk_lock(word, (uint32_t)w->rank + 1);
		/* the old values first: the update loop then vectorizes */
		if (res)
			mpirma_copy(res, t, n * size);
		if (how == LEAN_CAS) {
			if (lean_load(t, size) == cmp)
				lean_store(t, lean_load(o, size), size);
		} else if (how == LEAN_REPLACE) {
			mpirma_move(t, o, n * size);
		} else if (how != LEAN_NO_OP) {
			for (i = 0; i < n; i++)
				lean_store(t + i * size,
					   lean_new(how,
						    lean_load(t + i * size, size),
						    lean_load(o + i * size, size)),
					   size);
		}
		mpirma_bulk_unlock(word);
		return true;
	}
	if (n != 1 || !w->direct_atomics || ((uintptr_t)t & (size - 1)))
		return false;
	if (how != LEAN_NO_OP)
		v = lean_load(o, size);
	if (!lean_native(how, size, t, v, cmp, &cur))
		return false;
	if (res)
		lean_store(res, cur, size);
	return true;
}

#define LEAN_CASE(how, size)						\
	case (how) << 4 | (size):					\
		return lean_update_as(w, trank, how, size, t, o, c, res, n);
#define LEAN_SIZES(how)							\
	LEAN_CASE(how, 1) LEAN_CASE(how, 2) LEAN_CASE(how, 4) LEAN_CASE(how, 8)

/* lean_update_as() for the memo's @code. */
static __always_inline bool lean_update(struct mpirma_window *w, int trank,
					uint8_t code, char *t, const void *o,
					const void *c, void *res, uint64_t n)
{
	switch (code) {
	LEAN_SIZES(LEAN_SUM_INT)
	LEAN_CASE(LEAN_SUM_F32, 4)
	LEAN_CASE(LEAN_SUM_F64, 8)
	LEAN_SIZES(LEAN_REPLACE)
	LEAN_SIZES(LEAN_NO_OP)
	LEAN_SIZES(LEAN_CAS)
	default:
		return false;
	}
}

bool mpirma_lean_fop(int win, const void *oaddr, void *raddr, int type,
		     int trank, long tdisp, int op)
{
	struct mpirma_window *w;
	uint8_t code = lean_code(type, op);
	char *t;

	if ((code >> 4) == LEAN_SLOW || !raddr ||
	    (!oaddr && (code >> 4) != LEAN_NO_OP))
		return false;
	t = lean_target(win, trank, tdisp, code & 15, &w);
	if (!t || !lean_update(w, trank, code, t, oaddr, NULL, raddr, 1))
		return false;
	lean_count(w, MPIRMA_KIND_GET_ACC, code & 15);
	return true;
}

bool mpirma_lean_cas(int win, const void *oaddr, const void *caddr,
		     void *raddr, int type, int trank, long tdisp)
{
	struct mpirma_window *w;
	uint8_t code = lean_code(type, LEAN_CAS_COL);
	char *t;

	if ((code >> 4) != LEAN_CAS || !oaddr || !caddr || !raddr)
		return false;
	t = lean_target(win, trank, tdisp, code & 15, &w);
	if (!t || !lean_update(w, trank, code, t, oaddr, caddr, raddr, 1))
		return false;
	lean_count(w, MPIRMA_KIND_CAS, code & 15);
	return true;
}

LEAN_INLINE bool mpirma_lean_acc(int win, const void *oaddr, int64_t ocount,
				 int otype, void *raddr, int64_t rcount,
				 int rtype, int trank, long tdisp,
				 int64_t tcount, int ttype, int op)
{
	struct mpirma_window *w;
	uint8_t code = lean_code(ttype, op);
	unsigned int how = code >> 4, size = code & 15;
	char *t;

	if (how == LEAN_SLOW || tcount <= 0 || tcount >= LEAN_RUN_MAX ||
	    (raddr && (rtype != ttype || rcount != tcount)))
		return false;
	if (how == LEAN_NO_OP ? !raddr :
	    !oaddr || otype != ttype || ocount != tcount)
		return false;
	t = lean_target(win, trank, tdisp, (uint64_t)tcount * size, &w);
	if (!t || !lean_update(w, trank, code, t, oaddr, NULL, raddr,
			       (uint64_t)tcount))
		return false;
	lean_count(w, raddr ? MPIRMA_KIND_GET_ACC : MPIRMA_KIND_ACC,
		   (uint64_t)tcount * size);
	return true;
}

LEAN_INLINE bool mpirma_lean_move(int win, bool put, void *buf,
				  int64_t count, int type, int trank,
				  long tdisp, int64_t tcount, int ttype)
{
	struct mpirma_window *w;
	int kt = mpirma_dtype_elem_ktype(type);
	uint64_t bytes;
	char *t;

	if (kt < 0 || type != ttype || count != tcount || count <= 0 ||
	    __builtin_mul_overflow((uint64_t)count,
				   (uint64_t)mpirma_type_info[kt].size,
				   &bytes) ||
	    bytes > (uint64_t)MPIRMA_MAX_SPAN || !buf)
		return false;
	t = lean_target(win, trank, tdisp, bytes, &w);
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

LEAN_INLINE bool mpirma_lean_flush(int win, int rank)
{
	struct mpirma_window *w = mpirma_window_get(win);

	if (mpirma_unlikely(!w || mpirma_proc.state != MPIRMA_STATE_RUNNING) ||
	    (unsigned int)rank >= (unsigned int)w->size ||
	    (!w->lock_all && !w->lock[rank]) || w->queue.nops ||
	    w->queue.deferred)
		return false;
	/* Direct operations were plain stores: order them first. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	mpirma_win_direct_report_due(w);
	return true;
}
