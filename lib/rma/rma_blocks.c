// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rma_blocks.c - the direct path of operations whose sides are block
 * lists: strided, indexed and subarray datatypes (struct mpirma_layout
 * with blocks).  The contiguous direct path (rma_direct.c) leaves them to
 * the kernel, which walks the layouts in its ioctl; here the three sides
 * are walked together in user space, on window memory this process maps,
 * and each run that is contiguous on every side is one copy or one call of
 * the reduction engine, under the target's update lock (MPIRMA_ATOM_BULK)
 * for accumulate-like operations, as the kernel's bulk strategy takes it.
 *
 * Only what the kernel would accept and what is cheap to prove so runs
 * here: every block a whole number of elements, the target inside the
 * window (or one attached region), and for accumulate-like operations a
 * target whose blocks are in order and apart and whose repetitions do not
 * interleave (a vector, a subarray, a sorted indexed type), so no element
 * is updated twice.  Anything else returns false having done nothing, and
 * the kernel takes the operation and reports what is wrong with it.
 */
#include <string.h>

#include "copy.h"
#include "direct.h"
#include "internal.h"
#include "reduce.h"
#include "rma_sides.h"
#include "update.h"
#include "win.h"

/* Bytes of target memory updated per hold of the update lock. */
#define BLOCKS_PIECE	(64 * 1024)

/* Where one side of an operation is, as its walk goes. */
struct side {
	const struct mpirma_block *b;	/* NULL: one contiguous run */
	uint32_t nb;			/* blocks per repetition */
	uint32_t i;			/* the current block */
	uint64_t rep, count;		/* the current repetition, of count */
	int64_t extent;			/* bytes between repetitions */
	char *base;			/* where displacements start */
	char *at;			/* the current byte */
	uint64_t left;			/* bytes left in the current block */
};

/* Loads block @s->i of repetition @s->rep, or the next that is not empty. */
static __attribute__((noinline)) void side_load(struct side *s)
{
	while (s->rep < s->count) {
		if (s->b[s->i].len) {
			s->at = s->base + (int64_t)s->rep * s->extent +
				s->b[s->i].disp;
			s->left = s->b[s->i].len;
			return;
		}
		if (++s->i == s->nb) {
			s->i = 0;
			s->rep++;
		}
	}
	s->left = 0;
}

static void side_init(struct side *s, const struct mpirma_layout *l,
		      char *base, uint64_t bytes)
{
	memset(s, 0, sizeof(*s));
	s->base = base;
	if (!l->nblocks) {
		s->at = base;
		s->left = bytes;
		return;
	}
	s->b = (const struct mpirma_block *)(uintptr_t)l->blocks;
	s->nb = l->nblocks;
	s->count = l->count;
	s->extent = l->extent;
	side_load(s);
}

/* Moves @s on by @k bytes, no more than s->left. */
static __always_inline void side_step(struct side *s, uint64_t k)
{
	const struct mpirma_block *b;

	s->at += k;
	s->left -= k;
	if (s->left || !s->b)
		return;
	if (++s->i == s->nb) {
		s->i = 0;
		if (++s->rep == s->count)
			return;
	}
	b = &s->b[s->i];
	if (mpirma_unlikely(!b->len)) {
		side_load(s);
		return;
	}
	s->at = s->base + (int64_t)s->rep * s->extent + b->disp;
	s->left = b->len;
}

/*
 * Does side @l (its block list's sum @sum, or NULL) hold @bytes of data, in
 * whole elements of @esize bytes?
 */
static bool side_fits(const struct mpirma_layout *l, unsigned int esize,
		      const struct mpirma_blocks_sum *sum, uint64_t bytes)
{
	struct mpirma_reach r;

	return mpirma_layout_reach(l, esize, sum, &r) && r.whole &&
	       r.bytes == bytes;
}

/* lib/rma/win.h */
char *mpirma_win_blocks_target(struct mpirma_window *w,
			       const struct mpirma_op *op,
			       const struct mpirma_reach *tr,
			       const struct mpirma_op_sums *sums,
			       uint64_t *bytes)
{
	unsigned int esize = mpirma_type_info[op->type].size;
	bool update = op->kind != MPIRMA_KIND_PUT &&
		      op->kind != MPIRMA_KIND_GET;
	const struct mpirma_win_seg *s;
	const struct mpirma_reach r = *tr;
	uint64_t off, start;
	int64_t lo, hi;
	char *t;

	if (!mpirma_win_direct_any(w) || op->target_rank >= (uint32_t)w->size ||
	    (update && !w->bulk_locks) || op->target.addr ||
	    (!op->target.nblocks && !op->origin.nblocks && !op->result.nblocks))
		return NULL;
	if (!r.whole || !r.bytes || (update && !r.apart) ||
	    (op->kind == MPIRMA_KIND_CAS && r.bytes != esize))
		return NULL;
	if ((mpirma_op_has_origin(op) &&
	     !side_fits(&op->origin, esize, sums->origin, r.bytes)) ||
	    ((op->kind == MPIRMA_KIND_GET || op->kind == MPIRMA_KIND_GET_ACC ||
	      op->kind == MPIRMA_KIND_CAS) &&
	     !side_fits(&op->result, esize, sums->result, r.bytes)))
		return NULL;
	*bytes = r.bytes;
	if (!w->segs) {
		/* dynamic: the whole reach within one attached region */
		if (r.lo < 0 ||
		    __builtin_add_overflow(op->target_disp, (uint64_t)r.lo,
					   &start))
			return NULL;
		t = mpirma_win_dyn_addr(w, op->target_rank, start,
					(uint64_t)(r.hi - r.lo));
		return t ? t - r.lo : NULL;
	}
	s = &w->segs[op->target_rank];
	if (__builtin_mul_overflow(op->target_disp, (uint64_t)s->disp_unit,
				   &off) || off > INT64_MAX ||
	    __builtin_add_overflow((int64_t)off, r.lo, &lo) || lo < 0 ||
	    __builtin_add_overflow((int64_t)off, r.hi, &hi) ||
	    (uint64_t)hi > s->len)
		return NULL;
	return s->base + off;
}

/*
 * One run of @k bytes from @s to @d, as the contiguous path copies (a put
 * into the target with mpirma_put_copy(), large ones non-temporal).  One
 * element of 8 bytes, a strided double's run, is one load and one store,
 * where mpirma_copy_small() does two of each (callgrind, 512 strided
 * doubles: 24.8 thousand instructions a put against 26.9).
 */
static __always_inline void run_copy(char *d, const char *s, uint64_t k,
				     bool put)
{
	uint64_t v;

	if (k == 8) {
		memcpy(&v, s, 8);
		memcpy(d, &v, 8);
	} else if (k <= 16) {
		mpirma_copy_small(d, s, k);
	} else if (put) {
		mpirma_put_copy(d, s, k);
	} else {
		mpirma_move(d, s, k);
	}
}

/*
 * The update of one run of @k bytes, contiguous on every side; @code the
 * update's (mpirma_upd_code()).
 */
static __always_inline void run_update(const struct mpirma_op *op,
				       uint8_t code, char *t, const char *o,
				       char *r, uint64_t k, unsigned int esize)
{
	if (op->kind == MPIRMA_KIND_CAS) {
		mpirma_cas(op->type, t, o,
			   (const void *)(uintptr_t)op->compare, r);
		return;
	}
	/* short runs of the common updates: straight code */
	if (!mpirma_upd_long(code, k / esize) &&
	    mpirma_upd_apply(code, t, o, NULL, r, k / esize))
		return;
	mpirma_reduce_run(op->type, op->op, t, o, r, k / esize);
}

/*
 * The walk of the three sides, RUN for each run of k bytes that is
 * contiguous on all of them, at at_t, at_o and at_r; ORIGIN and RESULT say
 * which sides the operation has, LOCKED whether it holds the update lock
 * (word), which it takes again every BLOCKS_PIECE bytes, so that other
 * origins wait for one piece only.  Constants, so each walk is straight
 * code.  Where only the target has blocks (the common strided put or
 * accumulate from a plain buffer), its block list alone is walked.
 */
#define BLOCKS_WALK(RUN, ORIGIN, RESULT, LOCKED)			\
	do {								\
		if (!op->origin.nblocks && !op->result.nblocks)		\
			TARGET_WALK(RUN, ORIGIN, RESULT, LOCKED);	\
		else							\
			SIDES_WALK(RUN, ORIGIN, RESULT, LOCKED);	\
	} while (0)

#define BLOCKS_HOLD(LOCKED)						\
	do {								\
		if ((LOCKED) && held >= BLOCKS_PIECE) {			\
			mpirma_bulk_unlock(word);			\
			mpirma_bulk_lock(word, me);			\
			held = 0;					\
		}							\
		if (LOCKED)						\
			held += k;					\
	} while (0)

#define TARGET_WALK(RUN, ORIGIN, RESULT, LOCKED)			\
	do {								\
		at_o = os.at;						\
		at_r = rs.at;						\
		for (rep = 0; rep < op->target.count; rep++) {		\
			base = t + (int64_t)rep * op->target.extent;	\
			for (i = 0; i < op->target.nblocks; i++) {	\
				k = tb[i].len;				\
				if (!k)					\
					continue;			\
				at_t = base + tb[i].disp;		\
				BLOCKS_HOLD(LOCKED);			\
				RUN;					\
				if (ORIGIN)				\
					at_o += k;			\
				if (RESULT)				\
					at_r += k;			\
			}						\
		}							\
	} while (0)

#define SIDES_WALK(RUN, ORIGIN, RESULT, LOCKED)				\
	do {								\
		while (ts.left) {					\
			k = ts.left;					\
			if ((ORIGIN) && os.left < k)			\
				k = os.left;				\
			if ((RESULT) && rs.left < k)			\
				k = rs.left;				\
			at_t = ts.at;					\
			at_o = os.at;					\
			at_r = rs.at;					\
			BLOCKS_HOLD(LOCKED);				\
			RUN;						\
			side_step(&ts, k);				\
			if (ORIGIN)					\
				side_step(&os, k);			\
			if (RESULT)					\
				side_step(&rs, k);			\
		}							\
	} while (0)

/* lib/rma/win.h */
void mpirma_win_blocks(struct mpirma_window *w, const struct mpirma_op *op,
		       char *t, uint64_t bytes)
{
	const struct mpirma_block *tb =
		(const struct mpirma_block *)(uintptr_t)op->target.blocks;
	unsigned int esize = mpirma_type_info[op->type].size;
	uint32_t *word = w->bulk_locks ? mpirma_bulk_word(w, op->target_rank) :
			 NULL;
	uint8_t code = mpirma_upd_code(op->kind, op->type, op->op);
	uint32_t me = (uint32_t)w->rank + 1;
	char *at_t, *at_o, *at_r, *base;
	struct side ts, os, rs;
	uint64_t held = 0, k, rep;
	uint32_t i;

	side_init(&ts, &op->target, t, bytes);
	side_init(&os, &op->origin, (char *)(uintptr_t)op->origin.addr, bytes);
	side_init(&rs, &op->result, (char *)(uintptr_t)op->result.addr, bytes);
	mpirma_direct_count(w, op->kind, bytes);
	switch (op->kind) {
	case MPIRMA_KIND_PUT:
		BLOCKS_WALK(run_copy(at_t, at_o, k, true), true, false, false);
		return;
	case MPIRMA_KIND_GET:
		BLOCKS_WALK(run_copy(at_r, at_t, k, false), false, true, false);
		return;
	case MPIRMA_KIND_ACC:
		mpirma_bulk_lock(word, me);
		BLOCKS_WALK(run_update(op, code, at_t, at_o, NULL, k, esize),
			    true, false, true);
		break;
	default:
		mpirma_bulk_lock(word, me);
		if (mpirma_op_has_origin(op))
			BLOCKS_WALK(run_update(op, code, at_t, at_o, at_r, k,
					       esize), true, true, true);
		else	/* a no-op get_accumulate */
			BLOCKS_WALK(run_update(op, code, at_t, NULL, at_r, k,
					       esize), false, true, true);
		break;
	}
	mpirma_bulk_unlock(word);
}
