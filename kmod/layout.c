// SPDX-License-Identifier: GPL-2.0
/*
 * Layout validation and walking.
 *
 * Every size and offset derived from user input is computed with the
 * check_*_overflow() helpers: a layout whose arithmetic does not fit in 64
 * bits is EOVERFLOW before anything is touched.  A layout of zero elements is
 * valid whatever its displacements (MPI allows zero counts anywhere).
 */
#include <linux/bits.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#include "fault.h"
#include "layout.h"

/* Expanding a layout to check it for overlap costs this many blocks at most. */
#define MPIRMA_OVERLAP_MAX_BLOCKS	BIT(20)

bool mpirma_layout_unused(const struct mpirma_layout *ul)
{
	return !ul->addr && !ul->blocks && !ul->nblocks && !ul->reserved &&
	       !ul->count && !ul->extent;
}

static int layout_span(struct mpirma_klayout *l, u32 esize)
{
	s64 lo = S64_MAX, hi = S64_MIN, end, reach;
	u64 per_rep = 0;
	u32 i;

	for (i = 0; i < l->nblocks; i++) {
		const struct mpirma_block *b = &l->blocks[i];

		if (b->len % esize)
			return -EINVAL;
		if (!b->len)
			continue;
		if (b->len > S64_MAX || check_add_overflow(b->disp, (s64)b->len, &end))
			return -EOVERFLOW;
		if (check_add_overflow(per_rep, b->len, &per_rep))
			return -EOVERFLOW;
		lo = min(lo, b->disp);
		hi = max(hi, end);
	}
	if (check_mul_overflow(per_rep, l->count, &l->bytes))
		return -EOVERFLOW;
	if (!l->bytes) {
		l->lo = 0;
		l->hi = 0;
		return 0;
	}
	/* Saturate: a span too wide for s64 can only make the overlap check stricter. */
	if (check_sub_overflow(hi, lo, &l->rep_span))
		l->rep_span = S64_MAX;
	/* Repetitions move the whole span by (count - 1) * extent. */
	if (l->count - 1 > S64_MAX ||
	    check_mul_overflow((s64)(l->count - 1), l->extent, &reach))
		return -EOVERFLOW;
	if (reach < 0 ? check_add_overflow(lo, reach, &lo) : check_add_overflow(hi, reach, &hi))
		return -EOVERFLOW;
	l->lo = lo;
	l->hi = hi;
	return 0;
}

/**
 * mpirma_layout_load - copy in and validate one side's layout
 * @l: the kernel layout to fill
 * @ul: the user's description
 * @esize: element size; every block length must be a multiple of it
 *
 * Return: 0, -EINVAL, -EOVERFLOW, -EFAULT or -ENOMEM.
 */
int mpirma_layout_load(struct mpirma_klayout *l, const struct mpirma_layout *ul, u32 esize)
{
	size_t sz;
	int ret;

	memset(l, 0, sizeof(*l));
	if (ul->reserved || ul->nblocks > MPIRMA_MAX_BLOCKS)
		return -EINVAL;
	if (!ul->nblocks && ul->blocks)
		return -EINVAL;
	l->addr = ul->addr;
	if (!ul->nblocks) {
		/* count contiguous elements: one block repeated once. */
		if (check_mul_overflow(ul->count, (u64)esize, &l->single.len))
			return -EOVERFLOW;
		l->blocks = &l->single;
		l->nblocks = 1;
		l->count = 1;
	} else {
		sz = array_size(ul->nblocks, sizeof(*l->blocks));
		l->blocks = MPIRMA_FAULT_POINT(NULL, kvmalloc(sz, GFP_KERNEL));
		if (!l->blocks)
			return -ENOMEM;
		if (copy_from_user(l->blocks, u64_to_user_ptr(ul->blocks), sz)) {
			ret = -EFAULT;
			goto out_free_blocks;
		}
		l->nblocks = ul->nblocks;
		l->count = ul->count;
		l->extent = ul->extent;
	}
	ret = layout_span(l, esize);
	if (ret)
		goto out_free_blocks;
	return 0;

out_free_blocks:
	mpirma_layout_free(l);
	return ret;
}

void mpirma_layout_free(struct mpirma_klayout *l)
{
	if (l->blocks != &l->single)
		kvfree(l->blocks);
	l->blocks = NULL;
}

static int cmp_block(const void *a, const void *b)
{
	const struct mpirma_block *x = a, *y = b;

	return x->disp < y->disp ? -1 : x->disp > y->disp;
}

static bool sorted_blocks_overlap(const struct mpirma_block *b, size_t n)
{
	s64 end = S64_MIN;
	size_t i;

	for (i = 0; i < n; i++) {
		if (!b[i].len)
			continue;
		if (b[i].disp < end)
			return true;
		end = b[i].disp + (s64)b[i].len;
	}
	return false;
}

static bool blocks_sorted(const struct mpirma_block *b, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (b[i].disp < b[i - 1].disp)
			return false;
	return true;
}

/**
 * mpirma_layout_check_overlap - reject a target layout touching a byte twice
 * @l: a loaded layout
 *
 * Accumulates may not name one target element twice (its atomicity and the
 * result of get_accumulate would be ill-defined).  The block list is sorted
 * once; repetitions are checked by their extent when they cannot interleave,
 * and by expanding the whole layout (bounded) when they might.
 *
 * Return: 0, -EINVAL on overlap or a layout too large to check, -ENOMEM.
 */
int mpirma_layout_check_overlap(const struct mpirma_klayout *l)
{
	struct mpirma_block *b;
	s64 mag;
	u64 n, r;
	u32 i;
	int ret = 0;

	if (l->nblocks == 1 && l->count <= 1)
		return 0;
	if (!l->bytes)
		return 0;
	n = l->nblocks;
	/* Already in order (an indexed accumulate often is): no copy, no sort. */
	if (l->count <= 1 && blocks_sorted(l->blocks, n))
		return sorted_blocks_overlap(l->blocks, n) ? -EINVAL : 0;
	if (l->count > 1) {
		mag = l->extent < 0 ? -l->extent : l->extent;
		if (l->extent == S64_MIN)
			mag = S64_MAX;
		if (!mag)
			return -EINVAL;
		if (mag < l->rep_span) {
			/* Repetitions may interleave: check them all. */
			if (check_mul_overflow(n, l->count, &n) ||
			    n > MPIRMA_OVERLAP_MAX_BLOCKS)
				return -EINVAL;
		}
	}
	b = MPIRMA_FAULT_POINT(NULL, kvmalloc_array(n, sizeof(*b), GFP_KERNEL));
	if (!b)
		return -ENOMEM;
	for (r = 0; r < n / l->nblocks; r++) {
		for (i = 0; i < l->nblocks; i++) {
			b[r * l->nblocks + i] = l->blocks[i];
			b[r * l->nblocks + i].disp += (s64)r * l->extent;
		}
	}
	sort(b, n, sizeof(*b), cmp_block, NULL);
	if (sorted_blocks_overlap(b, n))
		ret = -EINVAL;
	kvfree(b);
	return ret;
}

void mpirma_cursor_init(struct mpirma_cursor *c, const struct mpirma_klayout *l)
{
	c->l = l;
	c->rep = 0;
	c->block = 0;
	c->done = 0;
}

u64 mpirma_cursor_next(struct mpirma_cursor *c, u64 max, s64 *off)
{
	const struct mpirma_klayout *l = c->l;
	const struct mpirma_block *b;
	u64 len;

	for (;;) {
		if (c->rep >= l->count)
			return 0;
		b = &l->blocks[c->block];
		if (c->done < b->len)
			break;
		c->done = 0;
		if (++c->block == l->nblocks) {
			c->block = 0;
			c->rep++;
		}
	}
	/* In range: layout_span() proved every byte's offset fits in s64. */
	*off = (s64)c->rep * l->extent + b->disp + (s64)c->done;
	len = min(max, b->len - c->done);
	c->done += len;
	return len;
}
