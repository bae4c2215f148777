// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * win_regions.c - MPI_Win_attach and MPI_Win_detach, and a dynamic
 * window's attached regions, mapped into this
 * process for the direct path (lib/rma/rma_direct.c), so that puts, gets
 * and atomics on MPI_Win_create_dynamic memory cost what they cost on an
 * allocated window instead of a system call each.  Fortran coarrays keep
 * every allocatable component in one such window (OpenCoarrays), and
 * reach it element by element.
 *
 * The first access to a target's region asks the kernel which region holds
 * the address (MPIRMA_IOC_WIN_REGION) and maps it (kmod/region.c); later
 * accesses find it here.  A detach anywhere moves the target's counter in
 * the window's lock table (detached[]), and the next access to that target
 * drops what was mapped of it: an address may be attached again, to other
 * memory.  An address in no region goes to the kernel, which reports the
 * range error.  Only without MPI_THREAD_MULTIPLE: the maps are this
 * thread's to change, and RMA calls take no library lock.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"
#include "win.h"

/* Regions mapped per target at most; the oldest is dropped for a new one. */
#define DYN_MAPS	64

struct mpirma_dyn_map {
	uint64_t base;		/* the region's first target address */
	uint64_t len;
	char *at;		/* where @base is mapped here */
	void *map;
	size_t map_len;
};

struct mpirma_dyn_rank {
	struct mpirma_dyn_map maps[DYN_MAPS];
	int n;
	uint32_t detached;	/* the table's counter the maps were made at */
};

void mpirma_win_dyn_init(struct mpirma_window *w)
{
	if (mpirma_threads || !w->ulock.map ||
	    !(mpirma_proc.query.features & MPIRMA_FEAT_REGION_MAP))
		return;
	w->dyn = calloc((size_t)w->size, sizeof(*w->dyn));
}

static void drop(struct mpirma_dyn_rank *d)
{
	for (int i = 0; i < d->n; i++)
		munmap(d->maps[i].map, d->maps[i].map_len);
	d->n = 0;
}

void mpirma_win_dyn_free(struct mpirma_window *w)
{
	for (int r = 0; w->dyn && r < w->size; r++)
		drop(&w->dyn[r]);
	free(w->dyn);
	w->dyn = NULL;
}

/* Map the region of @rank that holds @addr; NULL if none (or no map). */
static struct mpirma_dyn_map *map_region(struct mpirma_window *w,
					 struct mpirma_dyn_rank *d,
					 uint32_t rank, uint64_t addr)
{
	struct mpirma_win_region q;
	struct mpirma_dyn_map *m;
	void *p;

	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.win_id = w->id;
	q.rank = rank;
	q.addr = addr;
	if (mpirma_ioctl(MPIRMA_IOC_WIN_REGION, &q) ||
	    q.seg_offset + q.length > q.mmap_length)
		return NULL;
	p = mmap(NULL, q.mmap_length, PROT_READ | PROT_WRITE, MAP_SHARED,
		 mpirma_proc.fd, (off_t)q.mmap_offset);
	if (p == MAP_FAILED)
		return NULL;
	if (d->n == DYN_MAPS) {
		munmap(d->maps[0].map, d->maps[0].map_len);
		memmove(d->maps, d->maps + 1, sizeof(*m) * (DYN_MAPS - 1));
		d->n--;
	}
	m = &d->maps[d->n++];
	*m = (struct mpirma_dyn_map){
		.base = q.base, .len = q.length, .at = (char *)p + q.seg_offset,
		.map = p, .map_len = q.mmap_length,
	};
	return m;
}

/* The map of @rank's region that holds @addr, mapped now if need be. */
static struct mpirma_dyn_map *dyn_find(struct mpirma_window *w, uint32_t rank,
				       uint64_t addr)
{
	const uint32_t *detached = (const uint32_t *)
		((char *)w->ulock.map + MPIRMA_ULOCK_DETACHED((uint32_t)w->size));
	struct mpirma_dyn_rank *d = &w->dyn[rank];
	uint32_t now = __atomic_load_n(&detached[rank], __ATOMIC_ACQUIRE);
	struct mpirma_dyn_map *m = NULL;

	if (now != d->detached) {
		drop(d);
		d->detached = now;
	}
	for (int i = d->n - 1; i >= 0; i--)
		if (addr - d->maps[i].base < d->maps[i].len &&
		    addr >= d->maps[i].base) {
			m = &d->maps[i];
			break;
		}
	return m ? m : map_region(w, d, rank, addr);
}

char *mpirma_win_dyn_addr(struct mpirma_window *w, uint32_t rank,
			  uint64_t addr, uint64_t bytes)
{
	struct mpirma_dyn_map *m = dyn_find(w, rank, addr);

	if (!m || bytes > m->len - (addr - m->base))
		return NULL;	/* the kernel reports the range error */
	return m->at + (addr - m->base);
}

uint64_t mpirma_win_dyn_room(struct mpirma_window *w, uint32_t rank,
			     uint64_t addr)
{
	struct mpirma_dyn_map *m = w->dyn ? dyn_find(w, rank, addr) : NULL;

	return m ? m->len - (addr - m->base) : 0;
}

/* ------------------------------------------------------------ attach, detach */

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
	struct mpirma_window *w;
	struct mpirma_win_attach a;
	void **z;
	int ret;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_WIN(w, win);
	if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
		return mpirma_raise_win(win, MPI_ERR_RMA_FLAVOR, MPIRMA_FUNC,
					"not a dynamic window");
	if (size < 0)
		return mpirma_raise_win(win, MPI_ERR_SIZE, MPIRMA_FUNC,
					"negative size %ld", (long)size);
	if (size > 0 && !base)
		return mpirma_raise_win(win, MPI_ERR_BASE, MPIRMA_FUNC,
					"base is NULL");
	if (!size) {
		/* Nothing to expose; remember it so that detach accepts it. */
		z = realloc(w->zattach, (w->nzattach + 1) * sizeof(*z));
		if (!z)
			return mpirma_raise_win(win, MPI_ERR_NO_MEM,
						MPIRMA_FUNC, "out of memory");
		w->zattach = z;
		w->zattach[w->nzattach++] = base;
		return MPI_SUCCESS;
	}
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.win_id = w->id;
	a.base = (uint64_t)(uintptr_t)base;
	a.length = (uint64_t)size;
	ret = mpirma_ioctl(MPIRMA_IOC_WIN_ATTACH, &a);
	if (ret == -EINVAL)
		return mpirma_raise_win(win, MPI_ERR_RMA_ATTACH, MPIRMA_FUNC,
					"[%p, +%ld) overlaps a region already "
					"attached", base, (long)size);
	if (ret == -EFAULT)
		return mpirma_raise_win(win, MPI_ERR_RMA_ATTACH, MPIRMA_FUNC,
					"[%p, +%ld) is not writable memory of "
					"this process", base, (long)size);
	if (ret)
		return mpirma_raise_win(win, mpirma_err_errno(ret,
					"MPIRMA_IOC_WIN_ATTACH"), MPIRMA_FUNC,
					NULL);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Win_attach)

int PMPI_Win_detach(MPI_Win win, const void *base)
{
	struct mpirma_window *w;
	struct mpirma_win_attach a;
	int ret, i;

	MPIRMA_CHECK_INIT();
	MPIRMA_GET_WIN(w, win);
	if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
		return mpirma_raise_win(win, MPI_ERR_RMA_FLAVOR, MPIRMA_FUNC,
					"not a dynamic window");
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.win_id = w->id;
	a.base = (uint64_t)(uintptr_t)base;
	ret = base ? mpirma_ioctl(MPIRMA_IOC_WIN_DETACH, &a) : -EINVAL;
	if (ret == -EINVAL) {
		for (i = 0; i < w->nzattach; i++) {
			if (w->zattach[i] == base) {
				w->zattach[i] = w->zattach[--w->nzattach];
				return MPI_SUCCESS;
			}
		}
		return mpirma_raise_win(win, MPI_ERR_RMA_ATTACH, MPIRMA_FUNC,
					"no region is attached at %p", base);
	}
	if (ret)
		return mpirma_raise_win(win, mpirma_err_errno(ret,
					"MPIRMA_IOC_WIN_DETACH"), MPIRMA_FUNC,
					NULL);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Win_detach)
