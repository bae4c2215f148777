// SPDX-License-Identifier: GPL-2.0
/*
 * User mappings of window memory: mmap() on a member fd.
 *
 * ALLOC windows (MPI_Win_allocate): the module's own pages, every rank's
 * part in one mapping, inserted with vm_map_pages_zero().  The mapping holds
 * a reference on the memory, so it outlives the window.
 *
 * USER windows (MPI_Win_create): every rank's pinned pages, rank after rank,
 * in one mapping too (struct mpirma_view).  These are the owners' anonymous
 * pages, which vm_insert_page() refuses (it would account them as file pages
 * in the rmap), so they are inserted by pfn, at fault time, into a VM_PFNMAP
 * mapping: no page reference and no rmap entry.  What keeps the pages in
 * place is the pin.  A mapping holds a reference on the view, the view one
 * on every rank's struct mpirma_mem, and a pin is dropped only when its
 * memory is released.  So no page of a mapping can be freed, migrated or
 * reused while the mapping exists, whether the window has been freed or its
 * owner has exited meanwhile.
 *
 * A ULOCK window's lock table (ulock.c) is mapped the same way as ALLOC
 * memory, at the window's offset plus MPIRMA_MMAP_ULOCK; a DYNAMIC
 * window's attached regions one by one, by region.c.
 *
 * This gives the library's direct path (lib/rma/rma_direct.c) MPI_Win_create
 * windows as well.  Pages are shared whole: the bytes of a window's first
 * and last page that lie outside the window are visible to the job's other
 * processes as well.  map_user=0 (module parameter) turns USER mappings off.
 */
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "compat.h"
#include "fault.h"
#include "mpirma.h"

static bool map_user = true;
module_param(map_user, bool, 0444);
MODULE_PARM_DESC(map_user, "Let the job's processes map MPI_Win_create memory (default 1)");

bool mpirma_map_user_enabled(void)
{
	return map_user;
}

/*
 * Every rank's pinned memory of a USER window, as one range of pages.
 * Immutable once built; freed with its last reference (the window's, and
 * one per user mapping).
 */
struct mpirma_view {
	struct kref ref;
	pgoff_t pgoff;			/* the window's mmap offset, in pages */
	u32 nranks;
	struct {
		unsigned long first;	/* the rank's first page in the view */
		struct mpirma_mem *mem;	/* a reference, or NULL */
	} rank[];			/* nranks + 1: [nranks].first = pages */
};

static unsigned long view_pages(const struct mpirma_view *v)
{
	return v->rank[v->nranks].first;
}

static void view_release(struct kref *ref)
{
	struct mpirma_view *v = container_of(ref, struct mpirma_view, ref);
	u32 i;

	for (i = 0; i < v->nranks; i++)
		mpirma_mem_put(v->rank[i].mem);
	kvfree(v);
}

void mpirma_view_put(struct mpirma_view *v)
{
	if (v)
		kref_put(&v->ref, view_release);
}

/**
 * mpirma_view_build - the view of a USER window whose ranks have all arrived
 * @win: the window; its id is not assigned yet
 *
 * Return: the view, NULL when USER mappings are off, or ERR_PTR(-ENOMEM).
 */
struct mpirma_view *mpirma_view_build(struct mpirma_win *win)
{
	struct mpirma_view *v;
	unsigned long pages = 0;
	u32 i;

	if (!map_user)
		return NULL;
	v = MPIRMA_FAULT_POINT(NULL, kvzalloc(struct_size(v, rank, win->nranks + 1),
					      GFP_KERNEL));
	if (!v)
		return ERR_PTR(-ENOMEM);
	kref_init(&v->ref);
	v->nranks = win->nranks;
	for (i = 0; i < win->nranks; i++) {
		struct mpirma_mem *mem = win->ranks[i].mem;

		v->rank[i].first = pages;
		if (mem) {
			kref_get(&mem->ref);
			v->rank[i].mem = mem;
			pages += mem->npages;
		}
	}
	v->rank[win->nranks].first = pages;
	return v;
}

/*
 * The window's id is known: the mmap offset its view answers to.  The window
 * is in the job's xarray already, so a member guessing the id could map it
 * and fault before this; it gets SIGBUS or pages of this same window, which
 * it may map anyway.
 */
void mpirma_view_set_id(struct mpirma_view *v, u32 id)
{
	if (v)
		WRITE_ONCE(v->pgoff, (pgoff_t)id << (MPIRMA_MMAP_SHIFT - PAGE_SHIFT));
}

/**
 * mpirma_view_seg - where rank @wr's memory lies in the view's mapping
 * @v: the view
 * @wr: a window rank
 * @length: out, the mapping's length
 *
 * Return: the offset in bytes of the rank's byte 0 in the mapping.
 */
u64 mpirma_view_seg(const struct mpirma_view *v, u32 wr, u64 *length)
{
	const struct mpirma_mem *mem = v->rank[wr].mem;

	*length = (u64)view_pages(v) << PAGE_SHIFT;
	return ((u64)v->rank[wr].first << PAGE_SHIFT) + (mem ? mem->offset : 0);
}

/* The page at @pg of the view (pg < view_pages()): a binary search of ranks. */
static struct page *view_page(const struct mpirma_view *v, unsigned long pg)
{
	u32 lo = 0, hi = v->nranks, mid;

	/* rank[lo].first <= pg < rank[hi].first, and rank[nranks].first = pages. */
	while (hi - lo > 1) {
		mid = lo + (hi - lo) / 2;
		if (v->rank[mid].first <= pg)
			lo = mid;
		else
			hi = mid;
	}
	return v->rank[lo].mem->pages[pg - v->rank[lo].first];
}

static vm_fault_t view_fault(struct vm_fault *vmf)
{
	struct mpirma_view *v = vmf->vma->vm_private_data;
	pgoff_t base = READ_ONCE(v->pgoff);
	unsigned long pg = vmf->pgoff - base;

	if (vmf->pgoff < base || pg >= view_pages(v))
		return VM_FAULT_SIGBUS;
	return vmf_insert_pfn(vmf->vma, vmf->address, page_to_pfn(view_page(v, pg)));
}

/* Forks and splits copy the mapping: each copy holds the view. */
static void view_vm_open(struct vm_area_struct *vma)
{
	struct mpirma_view *v = vma->vm_private_data;

	kref_get(&v->ref);
}

static void view_vm_close(struct vm_area_struct *vma)
{
	mpirma_view_put(vma->vm_private_data);
}

static const struct vm_operations_struct mpirma_view_vm_ops = {
	.open = view_vm_open,
	.close = view_vm_close,
	.fault = view_fault,
};

static int map_user_window(struct mpirma_win *win, struct vm_area_struct *vma)
{
	struct mpirma_view *v = win->view;
	unsigned long len = vma->vm_end - vma->vm_start;

	if (!v)
		return -ENODEV;
	if (len > view_pages(v) << PAGE_SHIFT)
		return -EINVAL;
	/* What remap_pfn_range() sets: no GUP, no core dump, no growing. */
	vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	kref_get(&v->ref);
	vma->vm_private_data = v;
	vma->vm_ops = &mpirma_view_vm_ops;
	return 0;
}

/* A user mapping keeps the allocated pages (not the window) alive. */
static void alloc_vm_open(struct vm_area_struct *vma)
{
	struct mpirma_mem *mem = vma->vm_private_data;

	kref_get(&mem->ref);
}

static void alloc_vm_close(struct vm_area_struct *vma)
{
	mpirma_mem_put(vma->vm_private_data);
}

static const struct vm_operations_struct mpirma_alloc_vm_ops = {
	.open = alloc_vm_open,
	.close = alloc_vm_close,
};

/* Map @mem's pages: an ALLOC window's memory, or a ULOCK window's table. */
static int map_mem(struct mpirma_mem *mem, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	int ret;

	if (!mem)
		return -ENODEV;
	if (len > mem->npages << PAGE_SHIFT)
		return -EINVAL;
	vm_flags_set(vma, VM_DONTEXPAND);
	ret = vm_map_pages_zero(vma, mem->pages, len >> PAGE_SHIFT);
	if (ret)
		return ret;
	vma->vm_private_data = mem;
	vma->vm_ops = &mpirma_alloc_vm_ops;
	kref_get(&mem->ref);
	return 0;
}

static vm_fault_t region_fault(struct vm_fault *vmf)
{
	struct mpirma_mem *mem = vmf->vma->vm_private_data;
	unsigned long pg = vmf->pgoff - vmf->vma->vm_pgoff;

	if (vmf->pgoff < vmf->vma->vm_pgoff || pg >= mem->npages)
		return VM_FAULT_SIGBUS;
	return vmf_insert_pfn(vmf->vma, vmf->address, page_to_pfn(mem->pages[pg]));
}

/* Like an allocated window's mapping, but pinned pages, inserted by pfn. */
static const struct vm_operations_struct mpirma_region_vm_ops = {
	.open = alloc_vm_open,
	.close = alloc_vm_close,
	.fault = region_fault,
};

/* An attached region of a DYNAMIC window (region.c), by its id. */
static int map_region(struct mpirma_win *win, u32 id, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	struct mpirma_mem *mem;

	if (win->flavor != MPIRMA_FLAVOR_DYNAMIC)
		return -ENODEV;
	mem = mpirma_region_get(win, id);
	if (!mem)
		return -ENOENT;
	if (len > mem->npages << PAGE_SHIFT) {
		mpirma_mem_put(mem);
		return -EINVAL;
	}
	/* What remap_pfn_range() sets, as for a USER window's view. */
	vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_private_data = mem;
	vma->vm_ops = &mpirma_region_vm_ops;
	return 0;
}

/**
 * mpirma_win_mmap - map all ranks' memory of an ALLOC or USER window, the
 *	lock table of a ULOCK window, or an attached region of a DYNAMIC one
 * @m: the member whose fd is mapped
 * @vma: the mapping; its offset is the window's mmap_offset or lock_offset
 *
 * Return: 0, -EINVAL (not shared, too long, bad offset), -ENOENT (no
 * such window or region), -ENODEV (a DYNAMIC window's own offset, a USER
 * window with map_user off, or no lock table).
 */
int mpirma_win_mmap(struct mpirma_member *m, struct vm_area_struct *vma)
{
	unsigned long shift = MPIRMA_MMAP_SHIFT - PAGE_SHIFT;
	unsigned long low = vma->vm_pgoff & ((1UL << shift) - 1);
	/* Below the window's id: 0, its lock table, or a region's id. */
	bool table = low == MPIRMA_MMAP_ULOCK >> PAGE_SHIFT;
	bool region = (low & ~(MPIRMA_REGION_IDS - 1)) == MPIRMA_MMAP_REGION >> PAGE_SHIFT;
	struct mpirma_win *win;
	u32 wr;
	int ret;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if ((low && !table && !region) || (vma->vm_pgoff >> shift) > INT_MAX)
		return -EINVAL;
	win = mpirma_win_get(m, vma->vm_pgoff >> shift, &wr);
	if (!win)
		return -ENOENT;
	if (low) {
		ret = table ? map_mem(win->ulock, vma) :
		      map_region(win, low & (MPIRMA_REGION_IDS - 1), vma);
		mpirma_win_put(win);
		return ret;
	}
	switch (win->flavor) {
	case MPIRMA_FLAVOR_ALLOC:
		ret = map_mem(win->mem, vma);
		break;
	case MPIRMA_FLAVOR_USER:
		ret = map_user_window(win, vma);
		break;
	default:
		ret = -ENODEV;
		break;
	}
	mpirma_win_put(win);
	return ret;
}
