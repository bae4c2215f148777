// SPDX-License-Identifier: GPL-2.0
/*
 * Window memory: user pages pinned for the window's lifetime, or pages the
 * module allocates on chosen NUMA nodes.  Either way the pages are mapped
 * once into the kernel with vmap(), so the RMA engine addresses a window as
 * plain kernel memory and elements may straddle page boundaries.
 *
 * Both kinds are charged to the owner's RLIMIT_MEMLOCK through
 * mm->pinned_vm, like other long-term pins (RDMA, io_uring buffers).
 * Release never fails.
 */
#include <linux/capability.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "compat.h"
#include "fault.h"
#include "mpirma.h"

/**
 * mpirma_charge - charge pinned pages to @mm against RLIMIT_MEMLOCK
 * @mm: the owner's mm (the caller's)
 * @npages: pages to charge
 *
 * Return: 0, or -ENOMEM when the limit would be exceeded and the caller does
 * not have CAP_IPC_LOCK.
 */
int mpirma_charge(struct mm_struct *mm, unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	s64 now;

	if (!npages)
		return 0;
	now = atomic64_add_return(npages, &mm->pinned_vm);
	if (now > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	return 0;
}

void mpirma_uncharge(struct mm_struct *mm, unsigned long npages)
{
	if (npages)
		atomic64_sub(npages, &mm->pinned_vm);
}

/* More pages than the machine has can never be pinned or allocated. */
static bool mem_too_large(unsigned long npages)
{
	return npages > totalram_pages();
}

static struct mpirma_mem *mem_new(unsigned long npages)
{
	struct mpirma_mem *mem;

	if (mem_too_large(npages))
		return NULL;
	mem = MPIRMA_FAULT_POINT(NULL, kzalloc(sizeof(*mem), GFP_KERNEL));
	if (!mem)
		return NULL;
	kref_init(&mem->ref);
	INIT_LIST_HEAD(&mem->list);
	mem->pages = MPIRMA_FAULT_POINT(NULL, kvcalloc(npages ? npages : 1, sizeof(*mem->pages),
						       GFP_KERNEL));
	if (!mem->pages) {
		kfree(mem);
		return NULL;
	}
	return mem;
}

static int mem_vmap(struct mpirma_mem *mem)
{
	if (!mem->npages)
		return 0;
	mem->vaddr = MPIRMA_FAULT_POINT(NULL, vmap(mem->pages, mem->npages, VM_MAP, PAGE_KERNEL));
	return mem->vaddr ? 0 : -ENOMEM;
}

/**
 * mpirma_pin_range - pin user pages, counting them in pages_pinned
 * @addr: the first page's address (its offset in the page is ignored)
 * @n: pages to pin
 * @gup_flags: FOLL_* for pin_user_pages_fast()
 * @pages: where the pages go
 * @done: pages pinned so far, advanced as they come (what to unpin on error)
 *
 * Return: 0, or -EFAULT / -ENOMEM / -EINTR (a fatal signal).
 */
int mpirma_pin_range(u64 addr, unsigned long n, unsigned int gup_flags,
		     struct page **pages, unsigned long *done)
{
	unsigned long first = addr >> PAGE_SHIFT;
	int ret;

	while (*done < n) {
		int chunk = min_t(unsigned long, n - *done, 512);

		if (fatal_signal_pending(current))
			return -EINTR;
		ret = MPIRMA_FAULT_POINT(-ENOMEM,
					 pin_user_pages_fast((first + *done) << PAGE_SHIFT, chunk,
							     gup_flags, pages + *done));
		if (ret <= 0)
			return ret ? ret : -EFAULT;
		*done += ret;
		atomic_long_add(ret, &mpirma_pages_pinned);
		cond_resched();
	}
	return 0;
}

/* Unpins what mpirma_pin_range() pinned; @dirty: the kernel wrote them. */
void mpirma_unpin_range(struct page **pages, unsigned long n, bool dirty)
{
	if (!n)
		return;
	unpin_user_pages_dirty_lock(pages, n, dirty);
	atomic_long_sub(n, &mpirma_pages_pinned);
}

/* Is [@base, @base + @length) inside user space?  0 or -EFAULT. */
int mpirma_user_range_check(u64 base, u64 length, u64 *end)
{
	if (check_add_overflow(base, length, end) || *end > TASK_SIZE_MAX)
		return -EFAULT;
	return 0;
}

static void mem_release_pages(struct mpirma_mem *mem)
{
	unsigned long i;

	if (mem->pinned) {
		/* The kernel may have written any of them. */
		mpirma_unpin_range(mem->pages, mem->npages, true);
		if (mem->mm) {
			mpirma_uncharge(mem->mm, mem->charged);
			mmdrop(mem->mm);
		}
		return;
	}
	for (i = 0; i < mem->npages; i++)
		__free_page(mem->pages[i]);
	atomic_long_sub(mem->npages, &mpirma_pages_allocated);
}

static void mem_release(struct kref *ref)
{
	struct mpirma_mem *mem = container_of(ref, struct mpirma_mem, ref);

	if (mem->vaddr)
		vunmap(mem->vaddr);
	mem_release_pages(mem);
	kvfree(mem->pages);
	kfree(mem);
}

void mpirma_mem_put(struct mpirma_mem *mem)
{
	if (mem)
		kref_put(&mem->ref, mem_release);
}

/**
 * mpirma_mem_pin - pin the caller's [base, base + length) for writing
 *
 * FOLL_LONGTERM: the pages stay pinned as long as the window lives, so the
 * kernel migrates them out of CMA/movable zones first and breaks COW now.
 * The pages are charged to the caller's mm until they are unpinned.
 *
 * Return: the memory, or ERR_PTR(-EFAULT / -ENOMEM / -EOVERFLOW / -EINTR).
 */
struct mpirma_mem *mpirma_mem_pin(u64 base, u64 length)
{
	unsigned long first, last, npages, done = 0;
	struct mpirma_mem *mem;
	u64 end;
	int ret;

	if (mpirma_user_range_check(base, length, &end))
		return ERR_PTR(-EFAULT);
	first = base >> PAGE_SHIFT;
	last = length ? (end - 1) >> PAGE_SHIFT : first - 1;
	npages = last + 1 - first;
	mem = mem_new(npages);
	if (!mem)
		return ERR_PTR(-ENOMEM);
	mem->pinned = true;
	mem->user_base = base;
	mem->offset = offset_in_page(base);
	mem->length = length;
	ret = mpirma_charge(current->mm, npages);
	if (ret)
		goto out_release;
	mem->mm = current->mm;
	mmgrab(mem->mm);
	mem->charged = npages;

	ret = mpirma_pin_range(base, npages, FOLL_WRITE | FOLL_LONGTERM, mem->pages, &done);
	if (ret)
		goto out_unpin;
	mem->npages = npages;
	ret = mem_vmap(mem);
	if (ret)
		goto out_release;
	return mem;

out_unpin:
	mem->npages = done;
out_release:
	mpirma_mem_put(mem);
	return ERR_PTR(ret);
}

/**
 * mpirma_mem_alloc - allocate zeroed pages, page i on node @nodes[i]
 * @npages: number of pages
 * @nodes: per page, the node to allocate on, or NULL: the local node
 * @strict: per page, fail rather than fall back to another node, or NULL
 *
 * Return: the memory, or ERR_PTR(-ENOMEM / -EINTR).
 */
struct mpirma_mem *mpirma_mem_alloc(unsigned long npages, const int *nodes,
				    const bool *strict)
{
	struct mpirma_mem *mem;
	unsigned long i;
	int ret;

	mem = mem_new(npages);
	if (!mem)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < npages; i++) {
		gfp_t gfp = GFP_HIGHUSER | __GFP_ZERO | __GFP_NOWARN;

		if (strict && strict[i])
			gfp |= __GFP_THISNODE;
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			goto out_free;
		}
		mem->pages[i] = MPIRMA_FAULT_POINT(NULL, alloc_pages_node(nodes ? nodes[i] : NUMA_NO_NODE, gfp, 0));
		if (!mem->pages[i]) {
			ret = -ENOMEM;
			goto out_free;
		}
		mem->npages++;
		atomic_long_inc(&mpirma_pages_allocated);
		if (!(i & 255))
			cond_resched();
	}
	ret = mem_vmap(mem);
	if (ret)
		goto out_free;
	return mem;

out_free:
	mpirma_mem_put(mem);
	return ERR_PTR(ret);
}
