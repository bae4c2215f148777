// SPDX-License-Identifier: GPL-2.0
/*
 * The RMA engine: MPIRMA_IOC_RMA, a batch of put, get, accumulate,
 * get_accumulate and compare_and_swap operations on one window.
 *
 * Each operation is validated completely (kinds, types, op/type table,
 * layouts, bounds, overlap) before it touches anything.  Then it is cut into
 * chunks of at most MPIRMA_CHUNK target bytes in MPIRMA_MAX_SPANS pieces:
 * origin data is copied from user space into a bounce buffer with no lock
 * held, the chunk's element updates are handed to the window's atomicity
 * strategy, and results are copied back to user space with no lock held.
 * Puts and gets copy between user space and the target with no bounce.
 * Between chunks the engine may reschedule, so one huge accumulate neither
 * hogs the CPU nor holds a lock for long; atomicity is per element, as MPI
 * requires, never per operation.
 *
 * Put and get need no atomicity (concurrent conflicting put/get are
 * erroneous in MPI) and copy without taking the strategy's locks.
 */
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "compat.h"
#include "fault.h"
#include "layout.h"
#include "mpirma.h"
#include "reduce.h"
#include "strategy.h"

/* One operation, loaded and validated. */
struct rma_op {
	const struct mpirma_op *uop;
	u32 esize;
	struct mpirma_klayout origin, target, result;
	unsigned long tbase;		/* kernel address of target offset 0 */
	bool has_origin, has_result;
};

/*
 * The engine's state for one batch.  The operation and its layouts live
 * here rather than on the stack: Debian's kernels zero every stack
 * variable on entry (INIT_STACK_ALL_ZERO), several hundred bytes per
 * operation that the single-element path never reads.
 */
struct rma_ctx {
	struct mpirma_win *win;
	struct mpirma_op uop;		/* the operation, copied in */
	struct rma_op op;		/* ... and loaded */
	u8 src[MPIRMA_CHUNK];		/* origin data of a chunk */
	u8 old[MPIRMA_CHUNK];		/* target data of a chunk */
	struct mpirma_span spans[MPIRMA_MAX_SPANS];
	unsigned int nspans;
	struct mpirma_inflight inflight;	/* accumulates the strategy deferred */
};

/* User address of byte @off of a layout based at @addr; false if it wraps. */
static bool user_addr(u64 addr, s64 off, u64 len, void __user **p)
{
	u64 a = addr + (u64)off, end;

	if (off < 0 ? a > addr : a < addr)
		return false;
	if (check_add_overflow(a, len, &end))
		return false;
	*p = u64_to_user_ptr(a);
	return true;
}

/*
 * One element of 8 bytes or less between user space and @buf.
 * copy_{from,to}_user() are a rep movsb on CPUs with ERMS, whose start-up
 * cost dominates a copy this small (and which emulators run a byte per
 * step); most operations move one such element per side.  Returns what
 * copy_{from,to}_user() would: the bytes not copied.
 */
static unsigned long copy_element(void __user *p, u8 *buf, u64 len, bool to_kernel)
{
	u64 v8;
	u32 v4;

	switch (len) {
	case 8:
		if (to_kernel) {
			if (get_user(v8, (u64 __user *)p))
				return len;
			memcpy(buf, &v8, len);
			return 0;
		}
		memcpy(&v8, buf, len);
		return put_user(v8, (u64 __user *)p) ? len : 0;
	case 4:
		if (to_kernel) {
			if (get_user(v4, (u32 __user *)p))
				return len;
			memcpy(buf, &v4, len);
			return 0;
		}
		memcpy(&v4, buf, len);
		return put_user(v4, (u32 __user *)p) ? len : 0;
	default:
		return to_kernel ? copy_from_user(buf, p, len) : copy_to_user(p, buf, len);
	}
}

/* An operation struct of exactly the kernel's size a word at a time. */
static int copy_op(struct mpirma_op *op, const void __user *uop, u32 op_size)
{
	BUILD_BUG_ON(sizeof(*op) % sizeof(u64));
	if (op_size != sizeof(*op))
		return copy_struct_from_user(op, sizeof(*op), uop, op_size);
	return mpirma_copy_words_in(op, uop, sizeof(*op));
}

/*
 * Puts of at least this many bytes write the target with non-temporal
 * stores: the origin will not read that data again, and one this large
 * would only push the origin's own working set out of its caches.  It
 * also keeps such puts off copy_from_user()'s rep movsb, which emulators
 * (the VM make bench runs in) execute a byte per step.
 */
#define MPIRMA_PUT_NT_MIN	(64 * 1024)

/* Pieces shorter than this are not worth the fence of a non-temporal copy. */
#define MPIRMA_NT_PIECE_MIN	256

static unsigned long copy_in_nt(void *dst, const void __user *p, u64 len)
{
	if (!access_ok(p, len))
		return len;
	return mpirma_copy_from_user_nt(dst, p, len);
}

/*
 * Copy @n bytes between @buf and the user memory a layout cursor walks:
 * into @buf when @to_kernel (with non-temporal stores for pieces worth it
 * when @nt), out of it otherwise.
 */
static int copy_layout(struct mpirma_cursor *cur, u8 *buf, u64 n, bool to_kernel,
		       bool nt)
{
	void __user *p;
	unsigned long left;
	u64 len;
	s64 off;

	while (n) {
		len = mpirma_cursor_next(cur, n, &off);
		if (WARN_ON_ONCE(!len))
			return -EINVAL;
		if (!user_addr(cur->l->addr, off, len, &p))
			return -EFAULT;
		if (nt && to_kernel && len >= MPIRMA_NT_PIECE_MIN)
			left = copy_in_nt(buf, p, len);
		else
			left = copy_element(p, buf, len, to_kernel);
		if (left)
			return -EFAULT;
		buf += len;
		n -= len;
	}
	return 0;
}

static int gather_user(struct mpirma_cursor *cur, u8 *dst, u64 n)
{
	return copy_layout(cur, dst, n, true, false);
}

static int scatter_user(struct mpirma_cursor *cur, u8 *src, u64 n)
{
	return copy_layout(cur, src, n, false, false);
}

/* The next chunk of target pieces; returns its bytes (0 when done). */
static u64 fill_spans(struct rma_ctx *c, struct rma_op *o, struct mpirma_cursor *tcur)
{
	u64 bytes = 0, len;
	s64 off;

	c->nspans = 0;
	while (c->nspans < MPIRMA_MAX_SPANS && bytes < MPIRMA_CHUNK) {
		len = mpirma_cursor_next(tcur, MPIRMA_CHUNK - bytes, &off);
		if (!len)
			break;
		c->spans[c->nspans].addr = (void *)(o->tbase + off);
		c->spans[c->nspans].len = len;
		c->nspans++;
		bytes += len;
	}
	return bytes;
}

/*
 * Put and get copy between user memory and the chunk's target pieces
 * directly: they take no lock, so a bounce buffer would only add a second
 * copy of every byte.
 */
static int spans_from_user(const struct rma_ctx *c, struct mpirma_cursor *ocur)
{
	bool nt = ocur->l->bytes >= MPIRMA_PUT_NT_MIN;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < c->nspans && !ret; i++)
		ret = copy_layout(ocur, c->spans[i].addr, c->spans[i].len, true, nt);
	return ret;
}

static int spans_to_user(const struct rma_ctx *c, struct mpirma_cursor *rcur)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < c->nspans && !ret; i++)
		ret = scatter_user(rcur, c->spans[i].addr, c->spans[i].len);
	return ret;
}

/* Run @o chunk by chunk; the operation has been validated. */
static int rma_execute(struct rma_ctx *c, struct rma_op *o)
{
	const struct mpirma_op *uop = o->uop;
	struct mpirma_cursor tcur, ocur, rcur;
	struct mpirma_update u = {
		.win = c->win, .kind = uop->kind, .target = uop->target_rank,
		.type = uop->type, .op = uop->op,
		.spans = c->spans,
		/* Only plain accumulates may stay in flight past this call. */
		.inflight = uop->kind == MPIRMA_KIND_ACC ? &c->inflight : NULL,
	};
	u64 n;
	int ret;

	mpirma_cursor_init(&tcur, &o->target);
	mpirma_cursor_init(&ocur, &o->origin);
	mpirma_cursor_init(&rcur, &o->result);
	while ((n = fill_spans(c, o, &tcur))) {
		switch (uop->kind) {
		case MPIRMA_KIND_PUT:
			ret = spans_from_user(c, &ocur);
			break;
		case MPIRMA_KIND_GET:
			ret = spans_to_user(c, &rcur);
			break;
		default:
			ret = o->has_origin ? gather_user(&ocur, c->src, n) : 0;
			if (ret)
				break;
			u.nspans = c->nspans;
			u.src = o->has_origin ? c->src : NULL;
			u.old = o->has_result ? c->old : NULL;
			c->win->strategy->apply(&u);
			if (o->has_result)
				ret = scatter_user(&rcur, c->old, n);
			break;
		}
		if (ret)
			return ret;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

static int rma_cas(struct rma_ctx *c, struct rma_op *o)
{
	const struct mpirma_op *uop = o->uop;
	struct mpirma_span span = { .len = o->esize };
	struct mpirma_cursor tcur, ocur, rcur;
	u8 cmp[sizeof(u64)];
	s64 off;
	struct mpirma_update u = {
		.win = c->win, .kind = MPIRMA_KIND_CAS, .target = uop->target_rank,
		.type = uop->type,
		.spans = &span, .nspans = 1, .src = c->src, .old = c->old, .cmp = cmp,
	};
	int ret;

	if (WARN_ON_ONCE(o->esize > sizeof(cmp)))
		return -EINVAL;
	/* The one element where the target layout puts it (a block list may). */
	mpirma_cursor_init(&tcur, &o->target);
	if (WARN_ON_ONCE(mpirma_cursor_next(&tcur, o->esize, &off) != o->esize))
		return -EINVAL;
	span.addr = (void *)(o->tbase + off);
	mpirma_cursor_init(&ocur, &o->origin);
	mpirma_cursor_init(&rcur, &o->result);
	ret = gather_user(&ocur, c->src, o->esize);
	if (ret)
		return ret;
	if (copy_from_user(cmp, u64_to_user_ptr(uop->compare), o->esize))
		return -EFAULT;
	c->win->strategy->apply(&u);
	return scatter_user(&rcur, c->old, o->esize);
}

/* Which sides an operation uses, and whether its op/type is allowed. */
static int rma_check_kind(const struct mpirma_op *uop, struct rma_op *o)
{
	bool allowed;

	if (uop->flags)
		return -EINVAL;
	if (uop->kind >= MPIRMA_NR_KINDS || uop->type >= MPIRMA_NR_TYPES ||
	    uop->op >= MPIRMA_NR_OPS)
		return -EINVAL;
	switch (uop->kind) {
	case MPIRMA_KIND_PUT:
	case MPIRMA_KIND_GET:
	case MPIRMA_KIND_CAS:
		if (uop->op)
			return -EINVAL;
		allowed = uop->kind != MPIRMA_KIND_CAS || mpirma_cas_allowed(uop->type);
		break;
	case MPIRMA_KIND_ACC:
		allowed = uop->op != MPIRMA_OP_NO_OP && mpirma_op_allowed(uop->op, uop->type);
		break;
	default:
		allowed = mpirma_op_allowed(uop->op, uop->type);
		break;
	}
	if (!allowed)
		return -EOPNOTSUPP;
	o->has_origin = uop->kind != MPIRMA_KIND_GET &&
			!(uop->kind == MPIRMA_KIND_GET_ACC && uop->op == MPIRMA_OP_NO_OP);
	o->has_result = uop->kind == MPIRMA_KIND_GET || uop->kind == MPIRMA_KIND_GET_ACC ||
			uop->kind == MPIRMA_KIND_CAS;
	if (!o->has_origin && !mpirma_layout_unused(&uop->origin))
		return -EINVAL;
	if (!o->has_result && !mpirma_layout_unused(&uop->result))
		return -EINVAL;
	if ((uop->kind == MPIRMA_KIND_CAS) != !!uop->compare)
		return -EINVAL;
	if (uop->target.addr)
		return -EINVAL;
	return 0;
}

/*
 * Find the target memory and check the target layout lies inside it.
 * DYNAMIC windows: the caller holds regions_rwsem for reading.
 */
static int rma_resolve_target(struct rma_ctx *c, struct rma_op *o)
{
	struct mpirma_win *win = c->win;
	struct mpirma_win_rank *r = &win->ranks[o->uop->target_rank];
	struct mpirma_mem *mem;
	u64 base;
	s64 lo, hi;

	if (check_mul_overflow(o->uop->target_disp, (u64)r->disp_unit, &base) ||
	    base > S64_MAX)
		return -EOVERFLOW;
	if (!o->target.bytes)
		return 0;
	if (check_add_overflow((s64)base, o->target.lo, &lo) ||
	    check_add_overflow((s64)base, o->target.hi, &hi))
		return -EOVERFLOW;

	if (win->flavor != MPIRMA_FLAVOR_DYNAMIC) {
		if (lo < 0 || hi > r->length)
			return -ERANGE;
		o->tbase = (unsigned long)mpirma_rank_kaddr(win, r) + base;
		return 0;
	}
	/* DYNAMIC: the displacement is an address in the target's memory. */
	list_for_each_entry(mem, &r->regions, list) {
		if (lo >= 0 && (u64)lo >= mem->user_base &&
		    (u64)hi <= mem->user_base + mem->length) {
			o->tbase = (unsigned long)mem->vaddr + mem->offset +
				   (base - mem->user_base);
			return 0;
		}
	}
	return -ERANGE;
}

static int rma_load(struct rma_ctx *c, struct rma_op *o)
{
	const struct mpirma_op *uop = o->uop;
	int ret;

	ret = mpirma_layout_load(&o->target, &uop->target, o->esize);
	if (!ret && o->has_origin)
		ret = mpirma_layout_load(&o->origin, &uop->origin, o->esize);
	if (!ret && o->has_result)
		ret = mpirma_layout_load(&o->result, &uop->result, o->esize);
	if (ret)
		return ret;
	if ((o->has_origin && o->origin.bytes != o->target.bytes) ||
	    (o->has_result && o->result.bytes != o->target.bytes))
		return -EINVAL;
	if (uop->kind == MPIRMA_KIND_CAS && o->target.bytes != o->esize)
		return -EINVAL;
	if (uop->kind == MPIRMA_KIND_ACC || uop->kind == MPIRMA_KIND_GET_ACC)
		return mpirma_layout_check_overlap(&o->target);
	return 0;
}

/* A side of one contiguous element: what mpirma_layout_load() would accept. */
static bool one_element(const struct mpirma_layout *ul)
{
	return !ul->nblocks && !ul->blocks && !ul->reserved && ul->count == 1;
}

/*
 * The common case: one element of at most 8 bytes, every side contiguous,
 * on a window whose memory does not move (not DYNAMIC).  Its layouts are
 * known without loading them, there is nothing to walk and no chunk to
 * bounce: the element travels in registers, with get_user()/put_user().
 * Returns 1 when @o is not that case (rma_one() takes the general path),
 * else the operation's status, the same the general path would give.
 */
static int rma_element(struct rma_ctx *c, struct rma_op *o)
{
	const struct mpirma_op *uop = o->uop;
	u64 src = 0, cmp = 0, old = 0;
	void __user *p;
	struct mpirma_span span;
	struct mpirma_update u = {
		.win = c->win, .kind = uop->kind, .target = uop->target_rank,
		.type = uop->type, .op = uop->op,
		.spans = &span, .nspans = 1,
		.src = o->has_origin ? &src : NULL,
		.old = o->has_result ? &old : NULL,
		.cmp = &cmp,
		.inflight = uop->kind == MPIRMA_KIND_ACC ? &c->inflight : NULL,
	};
	int ret;

	if (o->esize > sizeof(u64) || c->win->flavor == MPIRMA_FLAVOR_DYNAMIC ||
	    !one_element(&uop->target) ||
	    (o->has_origin && !one_element(&uop->origin)) ||
	    (o->has_result && !one_element(&uop->result)))
		return 1;
	o->target.lo = 0;
	o->target.hi = o->esize;
	o->target.bytes = o->esize;
	ret = rma_resolve_target(c, o);
	if (ret)
		return ret;
	span.addr = (void *)o->tbase;
	span.len = o->esize;
	if (o->has_origin) {
		if (!user_addr(uop->origin.addr, 0, o->esize, &p) ||
		    copy_element(p, (u8 *)&src, o->esize, true))
			return -EFAULT;
	}
	if (uop->kind == MPIRMA_KIND_CAS &&
	    copy_element(u64_to_user_ptr(uop->compare), (u8 *)&cmp, o->esize, true))
		return -EFAULT;
	/* Everything but an accumulate must see the accumulates before it. */
	if (uop->kind != MPIRMA_KIND_ACC)
		mpirma_inflight_wait(&c->inflight);
	switch (uop->kind) {
	case MPIRMA_KIND_PUT:
		memcpy(span.addr, &src, o->esize);
		break;
	case MPIRMA_KIND_GET:
		memcpy(&old, span.addr, o->esize);
		break;
	default:
		c->win->strategy->apply(&u);
		break;
	}
	if (o->has_result) {
		if (!user_addr(uop->result.addr, 0, o->esize, &p) ||
		    copy_element(p, (u8 *)&old, o->esize, false))
			return -EFAULT;
	}
	return 0;
}

static void rma_count(struct mpirma_win *win, unsigned int kind, u64 bytes)
{
	atomic64_inc(&win->stats.ops[kind]);
	atomic64_add(bytes, &win->stats.bytes);
}

static int rma_one(struct rma_ctx *c, const struct mpirma_op *uop)
{
	struct mpirma_win *win = c->win;
	bool dynamic = win->flavor == MPIRMA_FLAVOR_DYNAMIC;
	struct rma_op *o = &c->op;
	int ret;

	o->uop = uop;
	o->tbase = 0;
	ret = rma_check_kind(uop, o);
	if (ret)
		return ret;
	if (uop->target_rank >= win->nranks)
		return -ENXIO;
	o->esize = mpirma_type_info[uop->type].size;
	ret = rma_element(c, o);
	if (ret <= 0) {
		if (!ret)
			rma_count(win, uop->kind, o->esize);
		return ret;
	}
	/* The general path: layouts loaded or empty, freed at the end. */
	memset(&o->origin, 0, sizeof(o->origin));
	memset(&o->target, 0, sizeof(o->target));
	memset(&o->result, 0, sizeof(o->result));
	ret = rma_load(c, o);
	if (ret)
		goto out_free_layouts;
	/* Everything but an accumulate must see the accumulates before it. */
	if (uop->kind != MPIRMA_KIND_ACC)
		mpirma_inflight_wait(&c->inflight);
	if (dynamic)
		down_read(&win->regions_rwsem);
	ret = rma_resolve_target(c, o);
	if (!ret && o->target.bytes) {
		if (uop->kind == MPIRMA_KIND_CAS)
			ret = rma_cas(c, o);
		else
			ret = rma_execute(c, o);
	}
	if (dynamic) {
		/* A region may be detached as soon as the lock is dropped. */
		mpirma_inflight_wait(&c->inflight);
		up_read(&win->regions_rwsem);
	}
	if (!ret)
		rma_count(win, uop->kind, o->target.bytes);
out_free_layouts:
	mpirma_layout_free(&o->target);
	mpirma_layout_free(&o->origin);
	mpirma_layout_free(&o->result);
	return ret;
}

/**
 * mpirma_rma - MPIRMA_IOC_RMA: apply a batch of operations in order
 * @m: the calling member
 * @arg: the batch; nfailed is filled in
 *
 * Return: 0 when every operation was attempted (see each status), or an
 * errno for the batch as a whole (see struct mpirma_rma).
 */
/*
 * The member's cached engine buffers (allocating them on first use), or,
 * while another thread of the member runs a batch, a private set.  A batch
 * of small operations then costs no allocation at all.
 */
static struct rma_ctx *rma_ctx_get(struct mpirma_member *m)
{
	if (mutex_trylock(&m->rma_lock)) {
		if (!m->rma_ctx)
			m->rma_ctx = MPIRMA_FAULT_POINT(NULL, kmalloc(sizeof(*m->rma_ctx),
								      GFP_KERNEL));
		if (m->rma_ctx)
			return m->rma_ctx;
		mutex_unlock(&m->rma_lock);
		return NULL;
	}
	return MPIRMA_FAULT_POINT(NULL, kmalloc(sizeof(struct rma_ctx), GFP_KERNEL));
}

static void rma_ctx_put(struct mpirma_member *m, struct rma_ctx *c)
{
	if (c == m->rma_ctx)
		mutex_unlock(&m->rma_lock);
	else
		kfree(c);
}

/* The member is going away: no batch can be running. */
void mpirma_rma_ctx_free(struct mpirma_member *m)
{
	kfree(m->rma_ctx);
	m->rma_ctx = NULL;
}

/**
 * mpirma_rma - MPIRMA_IOC_RMA: apply a batch of operations in order
 * @m: the calling member
 * @arg: the batch; nfailed is filled in
 *
 * Return: 0 when every operation was attempted (see each status), or an
 * errno for the batch as a whole (see struct mpirma_rma).
 */
int mpirma_rma(struct mpirma_member *m, struct mpirma_rma *arg)
{
	struct mpirma_op __user *uop;
	struct rma_ctx *c;
	u32 i, wr;
	int ret = 0, status;

	if (arg->flags)
		return -EINVAL;
	if (arg->nops > MPIRMA_MAX_BATCH || arg->op_size < sizeof(c->uop))
		return -EINVAL;
	if (arg->op_size > PAGE_SIZE)
		return -E2BIG;
	c = rma_ctx_get(m);
	if (!c)
		return -ENOMEM;
	c->win = mpirma_win_get(m, arg->win_id, &wr);
	if (!c->win) {
		ret = -ENOENT;
		goto out_put_ctx;
	}

	mpirma_inflight_init(&c->inflight);
	arg->nfailed = 0;
	for (i = 0; i < arg->nops; i++) {
		uop = u64_to_user_ptr(arg->ops + (u64)i * arg->op_size);
		status = copy_op(&c->uop, uop, arg->op_size);
		if (status == -EFAULT) {
			ret = -EFAULT;
			break;
		}
		if (!status)
			status = rma_one(c, &c->uop);
		if (put_user(status, &uop->status)) {
			ret = -EFAULT;
			break;
		}
		if (status)
			arg->nfailed++;
		if (status == -EINTR) {
			ret = -EINTR;
			break;
		}
	}
	/* The batch is complete only when every deferred update is applied. */
	mpirma_inflight_wait(&c->inflight);
	mpirma_win_put(c->win);
out_put_ctx:
	rma_ctx_put(m, c);
	return ret;
}
