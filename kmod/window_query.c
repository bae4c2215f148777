// SPDX-License-Identifier: GPL-2.0
/*
 * What a window tells its members and the tools: MPIRMA_IOC_WIN_QUERY (a
 * rank's memory, mapping, node, worker and strategy), where a rank's pages
 * are now (MPIRMA_IOC_WIN_PLACEMENT, and the debugfs view), how many pages
 * the window holds, and its operation counters (MPIRMA_IOC_WIN_STATS, and
 * MPIRMA_IOC_WIN_STATS_ADD for what the processes applied themselves).
 * Every call holds a reference on the window for its duration; placement
 * and page counts read a DYNAMIC window's regions under regions_rwsem.
 */
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "fault.h"
#include "mpirma.h"
#include "strategy.h"
#include "workers.h"

static int rank_node(struct mpirma_win *win, struct mpirma_win_rank *r)
{
	struct mpirma_mem *mem = win->mem ? win->mem : r->mem;

	if (!mem || !r->length)
		return NUMA_NO_NODE;
	/* Where the rank's first byte really is (USER pages may be anywhere). */
	return page_to_nid(mem->pages[r->offset >> PAGE_SHIFT]);
}

/* The delegation worker serving the rank's first page, or -1. */
static s32 rank_worker(struct mpirma_win *win, struct mpirma_win_rank *r)
{
	struct mpirma_mem *mem = win->mem ? win->mem : r->mem;
	struct page *page;

	if (win->strategy != &mpirma_strategy_delegate || !mem || !r->length)
		return -1;
	page = mem->pages[r->offset >> PAGE_SHIFT];
	return mpirma_worker_id(mpirma_worker_for(page_to_nid(page), page_to_pfn(page)));
}

/**
 * mpirma_win_query - MPIRMA_IOC_WIN_QUERY
 * @m: the calling member
 * @arg: its arguments; the out fields are filled in
 *
 * Return: 0, -EINVAL, -ENOENT, -ENXIO.
 */
int mpirma_win_query(struct mpirma_member *m, struct mpirma_win_query *arg)
{
	struct mpirma_win_rank *r;
	struct mpirma_win *win;
	u32 wr;

	if (arg->flags)
		return -EINVAL;
	win = mpirma_win_get(m, arg->win_id, &wr);
	if (!win)
		return -ENOENT;
	if (arg->rank >= win->nranks) {
		mpirma_win_put(win);
		return -ENXIO;
	}
	r = &win->ranks[arg->rank];
	arg->length = r->length;
	arg->disp_unit = r->disp_unit;
	arg->flavor = win->flavor;
	arg->mmap_offset = 0;
	arg->mmap_length = 0;
	arg->seg_offset = 0;
	if (win->flavor == MPIRMA_FLAVOR_ALLOC) {
		arg->mmap_offset = mpirma_mmap_offset(win, 0);
		arg->mmap_length = (u64)win->mem->npages << PAGE_SHIFT;
		arg->seg_offset = r->offset;
	} else if (win->view) {
		arg->mmap_offset = mpirma_mmap_offset(win, 0);
		arg->seg_offset = mpirma_view_seg(win->view, arg->rank, &arg->mmap_length);
	}
	arg->numa_node = rank_node(win, r);
	arg->worker = rank_worker(win, r);
	arg->reserved = 0;
	arg->strategy = mpirma_strategy_id(win->strategy);
	arg->nranks = win->nranks;
	arg->my_rank = wr;
	arg->lock_offset = 0;
	arg->lock_length = 0;
	if (win->ulock) {
		arg->lock_offset = mpirma_mmap_offset(win, MPIRMA_MMAP_ULOCK);
		arg->lock_length = (u64)win->ulock->npages << PAGE_SHIFT;
	}
	mpirma_win_put(win);
	return 0;
}

/* Count @mem's pages [first, last] per node into @counts; their number. */
static unsigned long count_nodes(const struct mpirma_mem *mem, unsigned long first,
				 unsigned long last, u64 *counts)
{
	unsigned long p, n = 0;

	for (p = first; p <= last && p < mem->npages; p++, n++) {
		counts[page_to_nid(mem->pages[p])]++;
		if (!(n % 4096))
			cond_resched();	/* a window of many GiB is millions of pages */
	}
	return n;
}

/**
 * mpirma_rank_placement - where window rank @wr's pages are right now
 * @win: the window, held by the caller
 * @wr: the window rank
 * @counts: nr_node_ids counters, zeroed by the caller, filled per node
 * @attached: out if not NULL, DYNAMIC: bytes attached
 * @nregions: out if not NULL, DYNAMIC: regions attached
 *
 * May sleep.  Return: the number of pages counted.
 */
unsigned long mpirma_rank_placement(struct mpirma_win *win, u32 wr, u64 *counts,
				    u64 *attached, u32 *nregions)
{
	struct mpirma_win_rank *r = &win->ranks[wr];
	struct mpirma_mem *mem = win->mem ? win->mem : r->mem;
	unsigned long pages = 0;
	u64 bytes = 0;
	u32 n = 0;

	if (mem && r->length)
		pages += count_nodes(mem, r->offset >> PAGE_SHIFT,
				     (r->offset + r->length - 1) >> PAGE_SHIFT, counts);
	down_read(&win->regions_rwsem);
	list_for_each_entry(mem, &r->regions, list) {
		pages += count_nodes(mem, 0, mem->npages - 1, counts);
		bytes += mem->length;
		n++;
	}
	up_read(&win->regions_rwsem);
	if (attached)
		*attached = bytes;
	if (nregions)
		*nregions = n;
	return pages;
}

/**
 * mpirma_win_placement - MPIRMA_IOC_WIN_PLACEMENT: where a rank's pages are
 * @m: the calling member
 * @arg: its arguments; nr_nodes and pages are filled in
 *
 * Return: 0, -EINVAL, -ENOENT, -ENXIO, -EFAULT, -ENOMEM.
 */
int mpirma_win_placement(struct mpirma_member *m, struct mpirma_win_placement *arg)
{
	struct mpirma_win *win;
	u64 *counts, total;
	u32 wr, n;
	int ret = 0;

	if (arg->flags || arg->reserved)
		return -EINVAL;
	win = mpirma_win_get(m, arg->win_id, &wr);
	if (!win)
		return -ENOENT;
	if (arg->rank >= win->nranks) {
		ret = -ENXIO;
		goto out_put_win;
	}
	counts = MPIRMA_FAULT_POINT(NULL, kcalloc(nr_node_ids, sizeof(*counts), GFP_KERNEL));
	if (!counts) {
		ret = -ENOMEM;
		goto out_put_win;
	}
	total = mpirma_rank_placement(win, arg->rank, counts, NULL, NULL);
	n = min_t(u32, arg->nr_nodes, nr_node_ids);
	if (copy_to_user(u64_to_user_ptr(arg->counts), counts, n * sizeof(*counts)))
		ret = -EFAULT;
	arg->nr_nodes = nr_node_ids;
	arg->pages = total;
	kfree(counts);
out_put_win:
	mpirma_win_put(win);
	return ret;
}

/* Pages the window holds for all its ranks (pinned, allocated, attached). */
unsigned long mpirma_win_pages(struct mpirma_win *win)
{
	unsigned long pages = win->mem ? win->mem->npages : 0;
	struct mpirma_mem *mem;
	u32 i;

	down_read(&win->regions_rwsem);
	for (i = 0; i < win->nranks; i++) {
		if (win->ranks[i].mem)
			pages += win->ranks[i].mem->npages;
		list_for_each_entry(mem, &win->ranks[i].regions, list)
			pages += mem->npages;
	}
	up_read(&win->regions_rwsem);
	return pages;
}

/**
 * mpirma_win_stats - MPIRMA_IOC_WIN_STATS
 * @m: the calling member
 * @arg: its arguments; the counters are filled in
 *
 * Return: 0, -EINVAL, -ENOENT.
 */
int mpirma_win_stats(struct mpirma_member *m, struct mpirma_win_stats *arg)
{
	struct mpirma_win *win;
	u32 wr, k;

	if (arg->flags || arg->reserved)
		return -EINVAL;
	win = mpirma_win_get(m, arg->win_id, &wr);
	if (!win)
		return -ENOENT;
	memset(arg->ops, 0, sizeof(arg->ops));
	for (k = 0; k < MPIRMA_NR_KINDS; k++)
		arg->ops[k] = atomic64_read(&win->stats.ops[k]);
	arg->bytes = atomic64_read(&win->stats.bytes);
	arg->lock_waits = atomic64_read(&win->stats.lock_waits);
	arg->atomic_contended = atomic64_read(&win->stats.atomic_contended);
	arg->pages = mpirma_win_pages(win);
	arg->direct_ops = atomic64_read(&win->stats.direct_ops);
	mpirma_win_put(win);
	return 0;
}

/**
 * mpirma_win_stats_add - MPIRMA_IOC_WIN_STATS_ADD: operations the caller
 *	applied itself (see struct mpirma_win_stats_add)
 * @m: the calling member
 * @arg: the counts
 *
 * Return: 0, -EINVAL or -ENOENT.
 */
int mpirma_win_stats_add(struct mpirma_member *m, struct mpirma_win_stats_add *arg)
{
	struct mpirma_win *win;
	u64 total = 0;
	u32 wr, k;

	if (arg->flags || arg->reserved)
		return -EINVAL;
	for (k = MPIRMA_NR_KINDS; k < ARRAY_SIZE(arg->ops); k++)
		if (arg->ops[k])
			return -EINVAL;
	win = mpirma_win_get(m, arg->win_id, &wr);
	if (!win)
		return -ENOENT;
	for (k = 0; k < MPIRMA_NR_KINDS; k++) {
		atomic64_add(arg->ops[k], &win->stats.ops[k]);
		total += arg->ops[k];
	}
	atomic64_add(arg->bytes, &win->stats.bytes);
	atomic64_add(total, &win->stats.direct_ops);
	mpirma_win_put(win);
	return 0;
}
