// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * rma_direct.c - the direct path: RMA operations run in user space on the
 * target's window memory, which every rank of an allocated window, and of a
 * created one when the module allows it, has mapped (lib/rma/win.c,
 * win_map).  No system call, so the cost of a small
 * operation is that of the memory access itself.
 *
 * Puts and gets of contiguous data are plain copies (large puts with
 * non-temporal stores): MPI asks no atomicity of them (a put conflicting
 * with another access is erroneous), whatever the window's strategy.
 *
 * Accumulate, get_accumulate, fetch_and_op and compare_and_swap must be
 * atomic per element with respect to every other accumulate-like operation
 * on the window, including the ones the kernel applies for other callers
 * (noncontiguous layouts, queued operations, other processes' kernel
 * calls).  Two strategies make that hold.
 *
 * MPIRMA_ATOM_BULK, the default where the kernel has it: the target rank's
 * update lock, a word of the window's lock table, is taken here exactly as
 * the kernel takes it (kmod/strategy_bulk.c), and the reduction engine runs
 * over the whole run of elements, of any type and alignment, in a loop the
 * compiler vectorizes.  One lock costs what one atomic element update
 * does; each further element costs its arithmetic alone, where an atomic
 * instruction per element costs tens of cycles (and far more emulated).
 * Short runs of the commonest updates (sums, replace, compare_and_swap)
 * skip the engine's dispatch, which costs more than their arithmetic.
 *
 * MPIRMA_ATOM_NATIVE, on kernels without it: for an element of 1, 2, 4 or 8 bytes at its natural
 * alignment it runs a compare-and-exchange loop around the reduction engine
 * (kmod/strategy_native.c), and this file runs the very same code
 * (common/native_elem.c and the engine, common/reduce.c, are built into this
 * library) on the same physical word.  Both sides agree on which elements qualify (the mapping
 * is page aligned, so an element's alignment is the same in the kernel's
 * view and here); any other element (16 and 32 bytes, misaligned) goes to
 * the kernel.  Under any other strategy the kernel takes locks this code
 * cannot see, so accumulate-like operations never come here.
 */
#include <sched.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "copy.h"
#include "runtime.h"
#include "native_elem.h"
#include "reduce.h"
#include "rma_args.h"
#include "win.h"
#include "direct.h"
#include "update.h"

/*
 * Puts of at least this many bytes write the target with non-temporal
 * stores: a copy this large would only push the origin's working set out
 * of its caches, and the stores need not read the lines they replace.
 * Below it the target's lines are likely cached (OSU's loops put into the
 * same window over and over) and ordinary stores win: copies of 64 KiB to
 * 1 MiB took 1.7-2.7x as long non-temporal on an AMD EPYC, 1.2-1.4x in the
 * VM, where OSU's put latency from 64 KiB was 0.74-0.87x Open MPI's
 * memcpy() when this was 64 KiB (glibc's own threshold is most of the
 * last-level cache).  The kernel's puts (kmod/rma.c, MPIRMA_PUT_NT_MIN)
 * keep 64 KiB: their other copy, copy_from_user(), is a rep movs, which
 * emulators run an element per step.
 */
#define PUT_NT_MIN	(4 * 1024 * 1024)

#ifdef __SSE2__
static void copy_nt(char *t, const char *s, uint64_t n)
{
	size_t head = (size_t)(-(uintptr_t)t & 15);

	memcpy(t, s, head);
	t += head;
	s += head;
	n -= head;
	for (; n >= 64; n -= 64, t += 64, s += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
		__m128i d = _mm_loadu_si128((const __m128i *)(s + 48));

		_mm_stream_si128((__m128i *)t, a);
		_mm_stream_si128((__m128i *)(t + 16), b);
		_mm_stream_si128((__m128i *)(t + 32), c);
		_mm_stream_si128((__m128i *)(t + 48), d);
	}
	/* Non-temporal stores are weakly ordered: complete them here. */
	_mm_sfence();
	memcpy(t, s, n);
}
#endif

/* A put's copy; origin and target may overlap (a rank's own window). */
void mpirma_put_copy(char *t, const char *s, uint64_t n)
{
#ifdef __SSE2__
	uintptr_t ti = (uintptr_t)t, si = (uintptr_t)s;

	if (n >= PUT_NT_MIN && (ti + n <= si || si + n <= ti)) {
		copy_nt(t, s, n);
		return;
	}
#endif
	mpirma_move(t, s, n);
}

void mpirma_bulk_lock_wait(uint32_t *word, uint32_t me)
{
	unsigned int round = 0;
	uint32_t free;

	for (;;) {
		free = 0;
		if (!__atomic_load_n(word, __ATOMIC_RELAXED) &&
		    __atomic_compare_exchange_n(word, &free, me, false,
						__ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED))
			return;
		if (++round < 64)
			mpirma_cpu_relax();
		else
			sched_yield();	/* the holder may be off its CPU */
	}
}

/*
 * Bytes of target memory a bulk update covers per hold of the lock: the
 * target's other origins wait for one piece, not a whole large accumulate
 * (atomicity is per element).
 */
#define BULK_PIECE	(64 * 1024)

/*
 * The update of @n elements at @t of window rank @rank under that rank's
 * update lock (MPIRMA_ATOM_BULK); arguments as for direct_run().
 */
static __always_inline void bulk_run(const struct mpirma_window *w,
				     uint32_t rank, unsigned int kind,
				     unsigned int type, unsigned int op,
				     char *t, const char *src, const void *cmp,
				     char *res, uint64_t n, unsigned int size)
{
	uint32_t *word = mpirma_bulk_word(w, rank);
	uint32_t me = (uint32_t)w->rank + 1;
	uint64_t per = n, k;

	/*
	 * @n * @size is the callers' checked byte count; the division (a
	 * helper call under emulation) only for runs of several pieces.
	 */
	if (n * size > BULK_PIECE)
		per = BULK_PIECE / size ? BULK_PIECE / size : 1;

	for (; n; n -= k) {
		k = n < per ? n : per;
		mpirma_bulk_lock(word, me);
		if (kind == MPIRMA_KIND_CAS)
			mpirma_cas(type, t, src, cmp, res);
		else
			mpirma_reduce_run(type, op, t, src, res, k);
		mpirma_bulk_unlock(word);
		t += k * size;
		if (src)
			src += k * size;
		if (res)
			res += k * size;
	}
}

/*
 * Always inline: in the hybrid layer's engine (a relocatable link, where
 * every global may have other callers) it would stay a call, 30 more
 * instructions on every long accumulate than standalone.
 */
__always_inline void mpirma_bulk_update(const struct mpirma_window *w,
					uint32_t rank, unsigned int kind,
					unsigned int type, unsigned int op,
					char *t, const char *src, char *res,
					uint64_t n)
{
	bulk_run(w, rank, kind, type, op, t, src, NULL, res, n,
		 mpirma_type_info[type].size);
}

static bool contiguous(const struct mpirma_layout *l)
{
	return !l->nblocks;
}

char *mpirma_win_direct_target(struct mpirma_window *w,
			       const struct mpirma_op *op)
{
	unsigned int size = mpirma_type_info[op->type].size;
	uint64_t bytes;
	char *t;

	if (!mpirma_win_direct_any(w) || op->target_rank >= (uint32_t)w->size ||
	    !contiguous(&op->origin) || !contiguous(&op->target) ||
	    !contiguous(&op->result) ||
	    __builtin_mul_overflow(op->target.count, (uint64_t)size, &bytes))
		return NULL;
	t = mpirma_direct_addr(w, op->target_rank, op->target_disp, bytes);
	if (!t)
		return NULL;	/* the kernel reports the range error */
	if (op->kind == MPIRMA_KIND_PUT || op->kind == MPIRMA_KIND_GET ||
	    mpirma_direct_atomic(w, t, size))
		return t;
	return NULL;
}

/* mpirma_direct_count() with threads: atomic only in the shared tally. */
void mpirma_direct_count_tally(struct mpirma_window *w, unsigned int kind,
			       uint64_t bytes)
{
	unsigned int k = mpirma_tally_slot();
	struct mpirma_direct_tally *t = &w->tallies[k];

	if (mpirma_likely(k < MPIRMA_TALLIES - 1)) {
		mpirma_count_add(&t->ops[kind], 1);
		mpirma_count_add(&t->bytes, bytes);
		mpirma_count_add(&t->n, 1);
		return;
	}
	__atomic_add_fetch(&t->ops[kind], 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->bytes, bytes, __ATOMIC_RELAXED);
	__atomic_add_fetch(&t->n, 1, __ATOMIC_RELAXED);
}

/*
 * Advances *@taken to *@count and returns by how much: 0 when another
 * reporter has taken that much already.
 */
static uint64_t take_one(const uint64_t *count, uint64_t *taken)
{
	uint64_t now = __atomic_load_n(count, __ATOMIC_RELAXED);
	uint64_t was = __atomic_load_n(taken, __ATOMIC_RELAXED);

	while (was < now)
		if (__atomic_compare_exchange_n(taken, &was, now, false,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return now - was;
	return 0;
}

/* Adds to @sum what of @t is not yet reported, marking it in @taken. */
static void tally_take(struct mpirma_direct_tally *sum,
		       const struct mpirma_direct_tally *t,
		       struct mpirma_direct_tally *taken)
{
	int k;

	if (__atomic_load_n(&t->n, __ATOMIC_RELAXED) ==
	    __atomic_load_n(&taken->n, __ATOMIC_RELAXED))
		return;
	for (k = 0; k < MPIRMA_NR_KINDS; k++)
		sum->ops[k] += take_one(&t->ops[k], &taken->ops[k]);
	sum->bytes += take_one(&t->bytes, &taken->bytes);
	sum->n += take_one(&t->n, &taken->n);
}

void mpirma_win_direct_report(struct mpirma_window *w)
{
	struct mpirma_direct_tally sum;
	struct mpirma_win_stats_add a;
	int k;

	memset(&sum, 0, sizeof(sum));
	tally_take(&sum, &w->direct_count, &w->direct_taken);
	for (k = 0; w->tallies && k < MPIRMA_TALLIES; k++)
		tally_take(&sum, &w->tallies[k],
			   &w->tallies[MPIRMA_TALLIES + k]);
	if (!sum.n || !(mpirma_proc.query.features & MPIRMA_FEAT_STATS_ADD))
		return;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.win_id = w->id;
	for (k = 0; k < MPIRMA_NR_KINDS; k++)
		a.ops[k] = sum.ops[k];
	a.bytes = sum.bytes;
	(void)mpirma_ioctl(MPIRMA_IOC_WIN_STATS_ADD, &a);
}


void mpirma_win_direct_report_tally(struct mpirma_window *w)
{
	const struct mpirma_direct_tally *t = &w->direct_count;
	const struct mpirma_direct_tally *taken = &w->direct_taken;
	unsigned int k;

	/* Threads: this thread's own tally only, not the lines others write. */
	if (w->tallies) {
		k = mpirma_tally_slot();
		t = &w->tallies[k];
		taken = &w->tallies[MPIRMA_TALLIES + k];
	}
	if (__atomic_load_n(&t->n, __ATOMIC_RELAXED) -
	    __atomic_load_n(&taken->n, __ATOMIC_RELAXED) >=
	    MPIRMA_DIRECT_REPORT_OPS)
		mpirma_win_direct_report(w);
}


/*
 * MPI_SUM of the double @src (its bits) into the double at @t: the commonest
 * accumulate, inline.  The same compare-and-exchange loop as
 * mpirma_native_element()'s, with the reduction engine's arithmetic
 * (target + origin, common/reduce_fp.c) in place of its call, so the kernel
 * and this code still agree bit for bit.  Returns the value replaced.
 */
static inline uint64_t sum_double(char *t, uint64_t src)
{
	uint64_t cur = __atomic_load_n((uint64_t *)t, __ATOMIC_RELAXED), next;
	double a, b;

	memcpy(&b, &src, sizeof(b));
	for (;;) {
		memcpy(&a, &cur, sizeof(a));
		a = a + b;
		memcpy(&next, &a, sizeof(next));
		if (next == cur ||
		    __atomic_compare_exchange_n((uint64_t *)t, &cur, next, false,
						__ATOMIC_SEQ_CST,
						__ATOMIC_RELAXED))
			return cur;
	}
}

/*
 * An accumulate-like update of the @n elements of kernel type @type at @t
 * in window rank @rank's memory (under the native strategy naturally
 * aligned, of 1, 2, 4 or 8 bytes): @src the origin's (NULL for NO_OP),
 * @cmp CAS's compare element, @res receives the elements as they were
 * (NULL: not fetched).  Each element atomic as the kernel's strategy makes
 * it.
 */
static __always_inline void direct_run(const struct mpirma_window *w,
				       uint32_t rank, unsigned int kind,
				       unsigned int type, unsigned int op,
				       char *t, const char *src,
				       const void *cmp, char *res, uint64_t n,
				       unsigned int size)
{
	uint64_t i;

	if (w->bulk_locks) {
		uint8_t code = mpirma_upd_code(kind, type, op);

		/* short runs of the commonest updates: no engine dispatch */
		if (mpirma_upd_long(code, n) ||
		    !mpirma_upd_run(w, rank, code, t, src, cmp, res, n))
			bulk_run(w, rank, kind, type, op, t, src, cmp, res, n,
				 size);
		return;
	}
	/* a run read or written whole (Global Arrays' gets and puts) */
	if (n > 1 && mpirma_native_moved(kind, op, res != NULL)) {
		mpirma_native_move(t, src, res, n, size);
		return;
	}
	/* ops computed on a copy, a step at a time (mpirma_native_stepped()) */
	if (n > 1 && src && mpirma_native_stepped(kind, type, op, res != NULL)) {
		mpirma_native_steps(kind, type, op, t, src, res, n, size,
				    (unsigned int)w->rank,
				    (unsigned int)w->size);
		return;
	}
	for (i = 0; i < n; i++)
		mpirma_native_element(kind, type, op, t + i * size,
				      src ? src + i * size : NULL, cmp,
				      res ? res + i * size : NULL, size);
}

bool mpirma_win_direct_fast(struct mpirma_window *w,
			    const struct mpirma_rma_args *a,
			    unsigned int ktype, unsigned int kop,
			    bool has_origin)
{
	unsigned int size = mpirma_type_info[ktype].size;
	uint64_t bytes = (uint64_t)a->tcount * size, old, v;
	char *t = mpirma_direct_addr(w, (uint32_t)a->trank, (uint64_t)a->tdisp, bytes);

	if (!t)
		return false;	/* the kernel reports the range error */
	switch (a->kind) {
	case MPIRMA_KIND_PUT:
		mpirma_put_copy(t, a->oaddr, bytes);
		break;
	case MPIRMA_KIND_GET:
		mpirma_move(a->raddr, t, bytes);
		break;
	default:
		if (!mpirma_direct_atomic(w, t, size))
			return false;
		if (a->tcount != 1 || size != 8 || !has_origin ||
		    w->bulk_locks) {
			direct_run(w, (uint32_t)a->trank,
				   (unsigned int)a->kind, ktype, kop, t,
				   has_origin ? a->oaddr : NULL, a->caddr,
				   a->raddr, (uint64_t)a->tcount, size);
			break;
		}
		/*
		 * The commonest 8-byte operations inline, each the very
		 * instruction (or loop) mpirma_native_element() would run.
		 */
		memcpy(&v, a->oaddr, sizeof(v));
		if (a->kind == MPIRMA_KIND_CAS) {
			memcpy(&old, a->caddr, sizeof(old));
			__atomic_compare_exchange_n((uint64_t *)t, &old, v, false,
						    __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST);
		} else if (kop == MPIRMA_OP_REPLACE) {
			old = __atomic_exchange_n((uint64_t *)t, v,
						  __ATOMIC_SEQ_CST);
		} else if (kop == MPIRMA_OP_SUM &&
			   ktype == MPIRMA_TYPE_DOUBLE) {
			old = sum_double(t, v);
		} else if (kop == MPIRMA_OP_SUM &&
			   mpirma_type_info[ktype].type_class ==
			   MPIRMA_CLASS_INT) {
			old = __atomic_fetch_add((uint64_t *)t, v,
						 __ATOMIC_SEQ_CST);
		} else {
			mpirma_native_element((unsigned int)a->kind, ktype, kop,
					      t, a->oaddr, a->caddr, a->raddr,
					      size);
			break;
		}
		if (a->raddr)
			memcpy(a->raddr, &old, sizeof(old));
		break;
	}
	mpirma_direct_count(w, (unsigned int)a->kind, bytes);
	return true;
}

void mpirma_win_direct(struct mpirma_window *w, const struct mpirma_op *op,
		       char *t)
{
	unsigned int size = mpirma_type_info[op->type].size;
	uint64_t n = op->target.count, bytes = n * size;
	const char *src = mpirma_op_has_origin(op) ?
			  (const char *)(uintptr_t)op->origin.addr : NULL;
	char *res = (char *)(uintptr_t)op->result.addr;
	const void *cmp = (const void *)(uintptr_t)op->compare;

	mpirma_direct_count(w, op->kind, bytes);
	switch (op->kind) {
	case MPIRMA_KIND_PUT:
		mpirma_put_copy(t, src, bytes);
		return;
	case MPIRMA_KIND_GET:
		mpirma_move(res, t, bytes);
		return;
	default:
		direct_run(w, op->target_rank, op->kind, op->type, op->op, t,
			   src, cmp, res, n, size);
		return;
	}
}
