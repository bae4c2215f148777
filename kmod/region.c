// SPDX-License-Identifier: GPL-2.0
/*
 * The attached regions of DYNAMIC windows: MPIRMA_IOC_WIN_ATTACH pins a
 * caller's memory and adds it to the caller's rank of the window,
 * MPIRMA_IOC_WIN_DETACH takes it out.  As the processes of the job see
 * them: MPIRMA_IOC_WIN_REGION finds the region that holds an address, and
 * mmap() maps its pinned pages into the caller, so that the library's
 * direct path (lib/rma/rma_direct.c) serves a dynamic window's targets as
 * it serves an allocated or created window's, without a system call per
 * operation.
 *
 * A region has an id, its key in win->region_ids, from its attach to its
 * detach; its mmap offset is the window's plus MPIRMA_MMAP_REGION plus the
 * id in pages.  The map is changed under regions_rwsem (write) with the
 * region lists, and read for mmap() (map.c) under the xarray's own lock
 * alone: mmap() runs inside mmap_lock, and regions_rwsem is held across user
 * copies, which may take mmap_lock.  A mapping holds a reference on the
 * region's pinned memory (like a USER window's view): after a detach it is
 * still valid memory, no longer the window's.  Whoever maps regions learns
 * of detaches from the lock table's detached[] counters (ulock.c).
 */
#include <linux/err.h>
#include <linux/xarray.h>

#include "mpirma.h"

/**
 * mpirma_region_add - give a new region of @win an id
 * @win: a DYNAMIC window, regions_rwsem held for writing
 * @mem: the region
 *
 * Return: 0, -ENOMEM, -EBUSY (every id in use).
 */
int mpirma_region_add(struct mpirma_win *win, struct mpirma_mem *mem)
{
	int ret;

	lockdep_assert_held_write(&win->regions_rwsem);
	ret = xa_alloc_cyclic(&win->region_ids, &mem->id, mem,
			      XA_LIMIT(1, MPIRMA_REGION_IDS - 1),
			      &win->next_region_id, GFP_KERNEL);
	return ret < 0 ? ret : 0;
}

/**
 * mpirma_region_remove - window rank @wr detaches @mem
 * @win: the window, regions_rwsem held for writing
 * @wr: the window rank
 * @mem: the region, off its rank's list
 */
void mpirma_region_remove(struct mpirma_win *win, u32 wr, struct mpirma_mem *mem)
{
	lockdep_assert_held_write(&win->regions_rwsem);
	xa_erase(&win->region_ids, mem->id);
	if (win->ulock)
		mpirma_ulock_detached(win, wr);
}

/**
 * mpirma_win_region - MPIRMA_IOC_WIN_REGION
 * @m: the calling member
 * @arg: the window, a rank and an address in its attached memory
 *
 * Return: 0, -EINVAL (not DYNAMIC, flags), -ENOENT, -ENXIO, -ERANGE.
 */
int mpirma_win_region(struct mpirma_member *m, struct mpirma_win_region *arg)
{
	struct mpirma_mem *mem;
	struct mpirma_win *win;
	int ret = -ERANGE;
	u32 wr;

	if (arg->flags)
		return -EINVAL;
	win = mpirma_win_get_dynamic(m, arg->win_id, &wr);
	if (IS_ERR(win))
		return PTR_ERR(win);
	if (arg->rank >= win->nranks) {
		ret = -ENXIO;
		goto out_put_win;
	}
	down_read(&win->regions_rwsem);
	list_for_each_entry(mem, &win->ranks[arg->rank].regions, list) {
		if (arg->addr < mem->user_base || arg->addr - mem->user_base >= mem->length)
			continue;
		arg->base = mem->user_base;
		arg->length = mem->length;
		arg->mmap_offset = mpirma_mmap_offset(win, MPIRMA_MMAP_REGION |
							 ((u64)mem->id << PAGE_SHIFT));
		arg->mmap_length = (u64)mem->npages << PAGE_SHIFT;
		arg->seg_offset = mem->offset;
		ret = 0;
		break;
	}
	up_read(&win->regions_rwsem);
out_put_win:
	mpirma_win_put(win);
	return ret;
}

/**
 * mpirma_region_get - the region with id @id of @win, with a reference
 * @win: a DYNAMIC window, held by the caller
 * @id: the region's id
 *
 * For mmap() (map.c), inside mmap_lock: the xarray's lock only.  Found
 * under it, the region is not detached yet, so it is alive.
 *
 * Return: the region (drop it with mpirma_mem_put()), or NULL.
 */
struct mpirma_mem *mpirma_region_get(struct mpirma_win *win, u32 id)
{
	struct mpirma_mem *mem;

	xa_lock(&win->region_ids);
	mem = xa_load(&win->region_ids, id);
	if (mem)
		kref_get(&mem->ref);
	xa_unlock(&win->region_ids);
	return mem;
}

/**
 * mpirma_win_get_dynamic - mpirma_win_get() for a DYNAMIC window
 * @m: the calling member
 * @id: the window's id
 * @wr: out, the caller's window rank
 *
 * Return: the window with a reference held, ERR_PTR(-ENOENT), or
 * ERR_PTR(-EINVAL) for another flavor.
 */
struct mpirma_win *mpirma_win_get_dynamic(struct mpirma_member *m, u32 id, u32 *wr)
{
	struct mpirma_win *win = mpirma_win_get(m, id, wr);

	if (win && win->flavor != MPIRMA_FLAVOR_DYNAMIC) {
		mpirma_win_put(win);
		return ERR_PTR(-EINVAL);
	}
	return win ? win : ERR_PTR(-ENOENT);
}

/**
 * mpirma_win_attach - MPIRMA_IOC_WIN_ATTACH: expose caller memory in a
 * DYNAMIC window
 * @m: the calling member
 * @arg: its arguments
 *
 * Return: 0, -EINVAL (not DYNAMIC, bad arguments, overlap with an attached
 * region), -ENOENT, -EFAULT, -ENOMEM.
 */
int mpirma_win_attach(struct mpirma_member *m, struct mpirma_win_attach *arg)
{
	struct mpirma_mem *mem, *other;
	struct mpirma_win_rank *r;
	struct mpirma_win *win;
	u32 wr;
	int ret = 0;

	if (arg->flags || arg->reserved || !arg->length || !arg->base)
		return -EINVAL;
	win = mpirma_win_get_dynamic(m, arg->win_id, &wr);
	if (IS_ERR(win))
		return PTR_ERR(win);
	mem = mpirma_mem_pin(arg->base, arg->length);
	if (IS_ERR(mem)) {
		ret = PTR_ERR(mem);
		goto out_put_win;
	}
	r = &win->ranks[wr];
	down_write(&win->regions_rwsem);
	list_for_each_entry(other, &r->regions, list) {
		if (mem->user_base < other->user_base + other->length &&
		    other->user_base < mem->user_base + mem->length) {
			ret = -EINVAL;
			break;
		}
	}
	if (!ret)
		ret = mpirma_region_add(win, mem);
	if (!ret)
		list_add_tail(&mem->list, &r->regions);
	up_write(&win->regions_rwsem);
	if (ret)
		mpirma_mem_put(mem);
out_put_win:
	mpirma_win_put(win);
	return ret;
}

/**
 * mpirma_win_detach - MPIRMA_IOC_WIN_DETACH
 * @m: the calling member
 * @arg: base of an attached region, length 0
 *
 * Return: 0, -EINVAL (no region attached at base), -ENOENT.
 */
int mpirma_win_detach(struct mpirma_member *m, struct mpirma_win_attach *arg)
{
	struct mpirma_mem *mem, *found = NULL;
	struct mpirma_win *win;
	u32 wr;

	if (arg->flags || arg->reserved || arg->length)
		return -EINVAL;
	win = mpirma_win_get_dynamic(m, arg->win_id, &wr);
	if (IS_ERR(win))
		return PTR_ERR(win);
	down_write(&win->regions_rwsem);
	list_for_each_entry(mem, &win->ranks[wr].regions, list) {
		if (mem->user_base == arg->base) {
			list_del(&mem->list);
			mpirma_region_remove(win, wr, mem);
			found = mem;
			break;
		}
	}
	up_write(&win->regions_rwsem);
	mpirma_mem_put(found);
	mpirma_win_put(win);
	return found ? 0 : -EINVAL;
}
