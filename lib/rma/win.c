// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * win.c - windows: creation in the four flavors, their memory,
 * MPI_Win_free and the predefined attributes (the name and the other
 * attributes are lib/base/attr.c's).  Their info keys are win_info.c's,
 * the queries (shared memory, group, MPIX_) win_query.c's, dynamic
 * windows' attach and detach win_regions.c's.
 *
 * Flavors map onto the kernel's (docs/lib.md, "Windows and RMA"):
 *
 *   MPI_Win_create           FLAVOR_USER: the kernel pins the caller's memory,
 *                            mmap'ed when the module allows (MAP_USER)
 *   MPI_Win_allocate         FLAVOR_ALLOC, every rank page-aligned, mmap'ed
 *   MPI_Win_allocate_shared  FLAVOR_ALLOC + MPIRMA_WIN_CONTIG (unless
 *                            alloc_shared_noncontig), mmap'ed
 *   MPI_Win_create_dynamic   FLAVOR_DYNAMIC, regions attached later,
 *                            target displacements are addresses
 *
 * The window's group is the communicator's, listed as job ranks, and the
 * kernel matches the ranks' creation calls by (group, context): the context
 * is the communicator's id, so windows on one communicator pair up in the
 * order every member creates them, as MPI requires of collectives.
 *
 * An allocated window maps the memory of every rank, not only the caller's,
 * so MPI_Win_shared_query works on MPI_Win_allocate windows as well (MPI 4
 * allows it) and costs nothing until a page is touched.
 *
 * Errors of the creation calls are raised on the communicator (there is no
 * window yet); all others on the window.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "runtime.h"
#include "tool.h"
#include "win.h"
#include "win_sync.h"

/* ------------------------------------------------------------ lookup */

struct mpirma_window *mpirma_window_invalid(MPI_Win win)
{
	mpirma_err(MPI_ERR_WIN, "invalid window %d", win);
	return NULL;
}

static struct mpirma_objhdr *win_hdr(int win)
{
	struct mpirma_window *w = mpirma_window_get(win);

	return w ? &w->hdr : NULL;
}

/* ------------------------------------------------------------ creation */

static void win_destroy(struct mpirma_window *w)
{
	mpirma_win_queue_free(w);
	free(w->tallies);
	free(w->extent);
	free(w->segs);
	if (w->map)
		munmap(w->map, w->map_len);
	mpirma_win_dyn_free(w);
	if (w->ulock.map)
		munmap(w->ulock.map, w->ulock.map_len);
	free(w->zattach);
	free(w->in_start);
	free(w->in_post);
	free(w->lock);
	free(w->rank_of);
	free(w->ranks);
	free(w);
}

/*
 * A window object for @c with its handle, not yet known to the kernel.
 * MPI class (recorded).
 */
static int win_new(struct mpirma_comm *c, MPI_Info info, int flavor,
		   struct mpirma_window **out)
{
	struct mpirma_window *w = NULL;
	int i;

	w = calloc(1, sizeof(*w));
	if (!w)
		return mpirma_err(MPI_ERR_NO_MEM, "no memory for a window");
	w->size = c->size;
	w->rank = c->rank;
	w->ctx = c->ctx;
	w->flavor = flavor;
	w->model = MPI_WIN_UNIFIED;
	w->ranks = calloc(c->size, sizeof(*w->ranks));
	w->lock = calloc(c->size, sizeof(*w->lock));
	w->in_start = calloc(c->size, sizeof(*w->in_start));
	w->in_post = calloc(c->size, sizeof(*w->in_post));
	w->rank_of = malloc(mpirma_proc.size * sizeof(*w->rank_of));
	if (!w->ranks || !w->lock || !w->in_start || !w->in_post ||
	    !w->rank_of)
		goto out_nomem;
	if (mpirma_threads) {
		w->tallies = aligned_alloc(64, 2 * MPIRMA_TALLIES *
					   sizeof(*w->tallies));
		if (!w->tallies)
			goto out_nomem;
		memset(w->tallies, 0, 2 * MPIRMA_TALLIES * sizeof(*w->tallies));
	}
	for (i = 0; i < c->size; i++)
		w->ranks[i] = (uint32_t)mpirma_comm_job_rank(c, i);
	/* window ranks are @c's (an intra-communicator, check_create()) */
	memcpy(w->rank_of, c->job2rank, mpirma_proc.size * sizeof(*w->rank_of));
	mpirma_win_hints_default(&w->hints);
	mpirma_win_hints_parse(&w->hints, info, true);
	mpirma_objhdr_init(&w->hdr, "");
	w->handle = mpirma_handle_alloc(MPIRMA_HK_WIN, w);
	if (!w->handle)
		goto out_nomem;
	*out = w;
	return MPI_SUCCESS;

out_nomem:
	win_destroy(w);
	return mpirma_err(MPI_ERR_NO_MEM, "no memory for a window of %d ranks",
			  c->size);
}

/* Undo win_new() (the kernel has no window). */
static void win_discard(struct mpirma_window *w)
{
	mpirma_handle_free(MPIRMA_HK_WIN, w->handle);
	win_destroy(w);
}

/*
 * MPIRMA_DIRECT=0 turns the direct path (lib/rma/rma_direct.c) off: every
 * operation then goes through the kernel, nothing is mapped but allocated
 * windows, and every window gets the module's default strategy.
 */
bool mpirma_win_direct_enabled(void)
{
	return mpirma_env_on("MPIRMA_DIRECT");
}

/*
 * Locks in user space (lib/rma/ulock.c) where the kernel offers a lock
 * table; MPIRMA_ULOCK=0 asks for the kernel's locks instead (the same on
 * every rank: the kernel refuses a window whose ranks disagree).
 */
static bool ulock_wanted(int nranks)
{
	return (mpirma_proc.query.features & MPIRMA_FEAT_ULOCK) &&
	       nranks <= MPIRMA_ULOCK_MAX_RANKS && mpirma_env_on("MPIRMA_ULOCK");
}

static int ulock_sleep(struct mpirma_ulock *ul, uint32_t seq)
{
	struct mpirma_win_lockwait a = {
		.size = sizeof(a), .win_id = ul->ctx, .seq = seq,
	};

	return mpirma_ioctl_wait(MPIRMA_IOC_WIN_LOCK_WAIT, &a);
}

static void ulock_wake(struct mpirma_ulock *ul)
{
	struct mpirma_win_lockwait a = {
		.size = sizeof(a), .flags = MPIRMA_LOCKWAIT_WAKE,
		.win_id = ul->ctx,
	};

	(void)mpirma_ioctl(MPIRMA_IOC_WIN_LOCK_WAIT, &a);
}

static const struct mpirma_ulock_ops ulock_ops = {
	.sleep = ulock_sleep,
	.wake = ulock_wake,
};

/* Map the lock table of a ULOCK window; MPI class (recorded). */
static int win_map_ulock(struct mpirma_window *w)
{
	struct mpirma_win_query q;
	void *p;
	int ret;

	ret = mpirma_win_query(w, w->rank, &q);
	if (ret)
		return mpirma_err_errno(ret, "MPIRMA_IOC_WIN_QUERY");
	/* kernels before MPIRMA_FEAT_BULK: the table without update[] */
	if (q.lock_length < MPIRMA_ULOCK_UPDATE((uint64_t)w->size))
		return mpirma_err(MPI_ERR_INTERN, "the kernel gave the window "
				  "no lock table");
	p = mmap(NULL, q.lock_length, PROT_READ | PROT_WRITE, MAP_SHARED,
		 mpirma_proc.fd, (off_t)q.lock_offset);
	if (p == MAP_FAILED)
		return mpirma_err_errno(-errno, "mapping the window's lock table");
	mpirma_ulock_init(&w->ulock, p, (uint32_t)w->size, (uint32_t)w->rank,
			  &ulock_ops, w->id);
	w->ulock.map = p;
	w->ulock.map_len = q.lock_length;
	return MPI_SUCCESS;
}

/* Will this process map every rank's memory of a window of @kflavor? */
static bool win_mappable(uint32_t kflavor)
{
	return kflavor == MPIRMA_FLAVOR_ALLOC ||
	       (kflavor == MPIRMA_FLAVOR_USER && mpirma_win_direct_enabled() &&
		(mpirma_proc.query.features & MPIRMA_FEAT_MAP_USER));
}

/*
 * The strategy asked of the kernel: the hint, else for the windows this
 * process maps one whose element updates user space can share
 * (lib/rma/rma_direct.c): bulk where the window has a lock table this
 * process maps (@flags has MPIRMA_WIN_ULOCK), native on older kernels;
 * else the module's default.
 */
static uint32_t win_strategy(const struct mpirma_window *w, uint32_t kflavor,
			     uint32_t flags)
{
	bool mapped = win_mappable(kflavor) ||
		      (kflavor == MPIRMA_FLAVOR_DYNAMIC &&
		       (mpirma_proc.query.features & MPIRMA_FEAT_REGION_MAP));

	if (w->hints.strategy != MPIRMA_ATOM_DEFAULT || !mapped ||
	    !mpirma_win_direct_enabled())
		return w->hints.strategy;
	if ((flags & MPIRMA_WIN_ULOCK) &&
	    (mpirma_proc.query.features & MPIRMA_FEAT_BULK))
		return MPIRMA_ATOM_BULK;
	return MPIRMA_ATOM_NATIVE;
}

/*
 * How the direct path may update elements of a window the kernel serves
 * with @strategy: under the table's update locks (bulk, when this process
 * maps a table that has them), with native atomics, or not at all.
 */
static void win_direct_updates(struct mpirma_window *w, uint32_t strategy)
{
	w->direct_atomics = strategy == MPIRMA_ATOM_NATIVE;
	w->bulk_locks = NULL;
	if (strategy == MPIRMA_ATOM_BULK && w->ulock.map &&
	    w->ulock.map_len >= MPIRMA_ULOCK_TABLE_SIZE((uint64_t)w->size))
		w->bulk_locks = (char *)w->ulock.map +
				MPIRMA_ULOCK_UPDATE((uint64_t)w->size);
}

/*
 * A dynamic window's direct path: its attached regions mapped as they are
 * reached (lib/rma/win_regions.c).  Without it the kernel serves it all.
 */
static void win_map_dynamic(struct mpirma_window *w)
{
	struct mpirma_win_query q;

	if (!mpirma_win_direct_enabled() || mpirma_win_query(w, w->rank, &q))
		return;
	mpirma_win_dyn_init(w);
	if (w->dyn)
		win_direct_updates(w, q.strategy);
}

/*
 * The collective MPIRMA_IOC_WIN_CREATE.  Every member reaches it (nothing
 * before it can fail on one rank only, except running out of memory), so a
 * failure here is the whole group's.  MPI class (recorded).
 */
static int win_kernel_create(struct mpirma_window *w, uint32_t kflavor,
			     uint32_t flags, void *base, uint64_t len,
			     int disp_unit)
{
	struct mpirma_win_create wc;
	int ret;

	memset(&wc, 0, sizeof(wc));
	wc.size = sizeof(wc);
	wc.flags = flags;
	wc.flavor = kflavor;
	wc.strategy = win_strategy(w, kflavor, flags);
	wc.disp_unit = (uint32_t)disp_unit;
	wc.numa_node = (flags & MPIRMA_WIN_NODE) ? w->hints.numa_node : 0;
	/* A zero-size window needs no memory: never ask the kernel to pin. */
	wc.base = len ? (uint64_t)(uintptr_t)base : 0;
	wc.length = len;
	wc.ranks = (uint64_t)(uintptr_t)w->ranks;
	wc.nranks = (uint32_t)w->size;
	wc.context = w->ctx;
	ret = mpirma_ioctl_wait(MPIRMA_IOC_WIN_CREATE, &wc);
	if (ret)
		return mpirma_err_errno(ret, "creating the window in the kernel "
					"(MPIRMA_IOC_WIN_CREATE)");
	w->id = wc.win_id;
	return MPI_SUCCESS;
}

/*
 * Every rank's memory size and displacement unit, which the RMA calls check
 * target ranges against (lib/rma/rma.c).  Without it (no memory for the
 * array, a failed query) the kernel's own check is the only one.
 */
static void win_get_extents(struct mpirma_window *w)
{
	struct mpirma_win_query q;
	int r;

	w->extent = calloc(w->size, sizeof(*w->extent));
	if (!w->extent)
		return;
	for (r = 0; r < w->size; r++) {
		if (mpirma_win_query(w, r, &q)) {
			free(w->extent);
			w->extent = NULL;
			return;
		}
		w->extent[r].len = q.length;
		w->extent[r].disp_unit = q.disp_unit;
	}
}

/*
 * The direct path's view of every rank's memory in the mapping at @map.
 * Without it (no memory) operations simply go through the kernel.
 */
static void win_map_segs(struct mpirma_window *w, char *map, uint32_t strategy)
{
	struct mpirma_win_query q;
	int r;

	if (!mpirma_win_direct_enabled())
		return;
	w->segs = calloc(w->size, sizeof(*w->segs));
	if (!w->segs)
		return;
	for (r = 0; r < w->size; r++) {
		if (mpirma_win_query(w, r, &q) ||
		    q.seg_offset + q.length > w->map_len) {
			free(w->segs);
			w->segs = NULL;
			return;
		}
		w->segs[r].base = map + q.seg_offset;
		w->segs[r].len = q.length;
		w->segs[r].disp_unit = q.disp_unit;
	}
	win_direct_updates(w, strategy);
}

/*
 * Map every rank's memory of an ALLOC or USER window; @base: NULL, or out,
 * where the caller's own part lies in the mapping (NULL when nothing is
 * mapped: every rank asked for 0 bytes, or the kernel does not map USER
 * windows).
 */
static int win_map(struct mpirma_window *w, void **base)
{
	struct mpirma_win_query q;
	void *p;
	int ret;

	if (base)
		*base = NULL;
	ret = mpirma_win_query(w, w->rank, &q);
	if (ret)
		return mpirma_err_errno(ret, "MPIRMA_IOC_WIN_QUERY");
	if (!q.mmap_length)
		return MPI_SUCCESS;
	p = mmap(NULL, q.mmap_length, PROT_READ | PROT_WRITE, MAP_SHARED,
		 mpirma_proc.fd, (off_t)q.mmap_offset);
	if (p == MAP_FAILED)
		return mpirma_err_errno(-errno, "mapping the window's memory");
	w->map = p;
	w->map_len = q.mmap_length;
	if (base)
		*base = (char *)p + q.seg_offset;
	win_map_segs(w, p, q.strategy);
	return MPI_SUCCESS;
}

/* Argument checks common to the creation calls; MPI class (recorded). */
static int check_create(struct mpirma_comm *c, MPI_Comm comm, MPI_Aint size,
			int disp_unit, MPI_Win *win)
{
	if (!c)
		return mpirma_err(MPI_ERR_COMM, "invalid communicator %d", comm);
	if (c->inter)
		return mpirma_comm_intra_only(c, "window creation");
	if (!win)
		return mpirma_err(MPI_ERR_ARG, "the window argument is NULL");
	if (size < 0)
		return mpirma_err(MPI_ERR_SIZE, "negative window size %ld",
				  (long)size);
	if (disp_unit <= 0)
		return mpirma_err(MPI_ERR_DISP,
				  "displacement unit %d is not positive",
				  disp_unit);
	return MPI_SUCCESS;
}

/*
 * The body of the four creation calls.  @base: USER only; @baseptr: ALLOC
 * only (receives the caller's memory).
 */
static int win_create(MPI_Comm comm, MPI_Info info, int flavor, void *base,
		      MPI_Aint size, int disp_unit, void *baseptr,
		      MPI_Win *win)
{
	struct mpirma_comm *c = mpirma_comm_get(comm);
	struct mpirma_window *w = NULL;
	uint32_t kflavor, flags = 0;
	int ret;

	ret = check_create(c, comm, size, disp_unit, win);
	if (ret)
		return ret;
	if ((flavor == MPI_WIN_FLAVOR_ALLOCATE ||
	     flavor == MPI_WIN_FLAVOR_SHARED) && !baseptr)
		return mpirma_err(MPI_ERR_ARG, "baseptr is NULL");
	ret = win_new(c, info, flavor, &w);
	if (ret)
		return ret;

	switch (flavor) {
	case MPI_WIN_FLAVOR_CREATE:
		kflavor = MPIRMA_FLAVOR_USER;
		break;
	case MPI_WIN_FLAVOR_DYNAMIC:
		kflavor = MPIRMA_FLAVOR_DYNAMIC;
		break;
	default:
		kflavor = MPIRMA_FLAVOR_ALLOC;
		if (flavor == MPI_WIN_FLAVOR_SHARED && !w->hints.noncontig)
			flags |= MPIRMA_WIN_CONTIG;
		if (w->hints.numa_node >= 0)
			flags |= MPIRMA_WIN_NODE;
		else if (w->hints.numa_node == MPIRMA_NODE_INTERLEAVE)
			flags |= MPIRMA_WIN_INTERLEAVE;
		break;
	}
	if (ulock_wanted(w->size))
		flags |= MPIRMA_WIN_ULOCK;
	ret = win_kernel_create(w, kflavor, flags, base, (uint64_t)size,
				disp_unit);
	if (ret) {
		win_discard(w);
		return ret;
	}
	/* Without its table the window could take no lock at all. */
	if (flags & MPIRMA_WIN_ULOCK) {
		ret = win_map_ulock(w);
		if (ret) {
			win_discard(w);
			return ret;
		}
		mpirma_win_counters_map(w);
	}
	w->wsize = size;
	w->disp_unit = disp_unit;
	w->base = flavor == MPI_WIN_FLAVOR_CREATE ? base : NULL;
	if (flavor != MPI_WIN_FLAVOR_DYNAMIC)
		win_get_extents(w);
	if (kflavor == MPIRMA_FLAVOR_ALLOC) {
		/*
		 * The kernel window exists on every rank now; failing here
		 * leaves it to the end of the job (freeing it is collective).
		 */
		ret = win_map(w, &w->base);
		if (ret) {
			win_discard(w);
			return ret;
		}
		*(void **)baseptr = w->base;
	} else if (win_mappable(kflavor)) {
		/*
		 * Created windows only gain the direct path from the mapping:
		 * without it (out of mappings, say) the kernel serves them.
		 */
		(void)win_map(w, NULL);
	} else if (kflavor == MPIRMA_FLAVOR_DYNAMIC) {
		win_map_dynamic(w);
	}
	*win = w->handle;
	return MPI_SUCCESS;
}

/*
 * The body of the window creation calls: @flavor's window over @comm.
 * @disp_unit up to INT_MAX (MPI_WIN_DISP_UNIT is an int attribute; only
 * MPI 4.0's large-count forms can pass more).  Raised on @comm as @fn.
 */
static int create_entry(MPI_Comm comm, MPI_Info info, int flavor,
			void *base, MPI_Aint size, MPI_Aint disp_unit,
			void *baseptr, MPI_Win *win, const char *fn)
{
	if (disp_unit > INT_MAX)
		return mpirma_raise_comm(comm, MPI_ERR_DISP, fn, "displacement "
					 "unit %ld: mpirma takes units up to "
					 "%d", (long)disp_unit, INT_MAX);
	if (flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && !base)
		return mpirma_raise_comm(comm, MPI_ERR_BASE, fn,
					 "base is NULL for a window of %ld "
					 "bytes", (long)size);
	return mpirma_raise_comm(comm, win_create(comm, info, flavor, base,
						  size, (int)disp_unit,
						  baseptr, win), fn, NULL);
}

/* MPI_Win_create, its displacement unit of @unit_t. */
#define WIN_CREATE_DEFINE(name, unit_t)					\
int PMPI_##name(void *base, MPI_Aint size, unit_t disp_unit,		\
		MPI_Info info, MPI_Comm comm, MPI_Win *win)		\
{									\
	MPIRMA_CHECK_INIT();						\
	return create_entry(comm, info, MPI_WIN_FLAVOR_CREATE, base,	\
			    size, disp_unit, NULL, win, MPIRMA_FUNC);	\
}									\
MPIRMA_ALIAS(name)

/* MPI_Win_allocate and _allocate_shared (@flavor), units of @unit_t. */
#define WIN_ALLOCATE_DEFINE(name, unit_t, flavor)			\
int PMPI_##name(MPI_Aint size, unit_t disp_unit, MPI_Info info,	\
		MPI_Comm comm, void *baseptr, MPI_Win *win)		\
{									\
	MPIRMA_CHECK_INIT();						\
	return create_entry(comm, info, flavor, NULL, size, disp_unit,	\
			    baseptr, win, MPIRMA_FUNC);			\
}									\
MPIRMA_ALIAS(name)

WIN_CREATE_DEFINE(Win_create, int)
WIN_CREATE_DEFINE(Win_create_c, MPI_Aint)
WIN_ALLOCATE_DEFINE(Win_allocate, int, MPI_WIN_FLAVOR_ALLOCATE)
WIN_ALLOCATE_DEFINE(Win_allocate_c, MPI_Aint, MPI_WIN_FLAVOR_ALLOCATE)
WIN_ALLOCATE_DEFINE(Win_allocate_shared, int, MPI_WIN_FLAVOR_SHARED)
WIN_ALLOCATE_DEFINE(Win_allocate_shared_c, MPI_Aint, MPI_WIN_FLAVOR_SHARED)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
	MPIRMA_CHECK_INIT();
	/* Displacements of a dynamic window are addresses: unit 1. */
	return create_entry(comm, info, MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1,
			    NULL, win, MPIRMA_FUNC);
}
MPIRMA_ALIAS(Win_create_dynamic)

/* ------------------------------------------------------------ free */

int PMPI_Win_free(MPI_Win *win)
{
	struct mpirma_window *w = NULL;
	struct mpirma_win_sync s;
	MPI_Win h;
	int ret, cls;

	MPIRMA_CHECK_INIT();
	if (!win)
		return mpirma_raise(MPI_ERR_ARG, MPIRMA_FUNC,
				    "the window argument is NULL");
	h = *win;
	MPIRMA_GET_WIN(w, h);
	if (mpirma_win_passive(w) || w->started || w->posted)
		return mpirma_raise_win(h, MPI_ERR_RMA_SYNC, MPIRMA_FUNC,
					"an epoch is still open (%s)",
					mpirma_win_passive(w) ? "a lock is held" :
					w->started ? "MPI_Win_start without "
					"MPI_Win_complete" : "MPI_Win_post "
					"without MPI_Win_wait");
	/*
	 * Freeing is collective: neither a failed queued operation nor a
	 * failing delete callback may keep this rank from the kernel's free,
	 * where the others wait.  The first error is returned afterwards.
	 */
	cls = mpirma_win_drain(w);
	mpirma_win_direct_report(w);
	/* Delete callbacks see the window still alive, as the standard says. */
	ret = mpirma_attrs_delete_all(&w->hdr, MPIRMA_HK_WIN, h);
	if (ret && !cls)
		cls = mpirma_err(ret, "an attribute delete callback failed");

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.win_id = w->id;
	ret = mpirma_ioctl_wait(MPIRMA_IOC_WIN_FREE, &s);
	if (ret && !cls)
		cls = mpirma_err_errno(ret, "MPIRMA_IOC_WIN_FREE");
	/*
	 * The kernel lets the caller leave even when a member is gone
	 * (EOWNERDEAD), so the window is torn down here in every case;
	 * the error is raised first, while the handler is still set.
	 */
	cls = mpirma_raise_win(h, cls, MPIRMA_FUNC, NULL);
	mpirma_objhdr_destroy(&w->hdr, MPIRMA_HK_WIN, h);
	mpirma_handle_free(MPIRMA_HK_WIN, h);
	win_destroy(w);
	*win = MPI_WIN_NULL;
	return cls;
}
MPIRMA_ALIAS(Win_free)

/* ------------------------------------------------------------ attributes */

/*
 * MPI_WIN_BASE, _SIZE, _DISP_UNIT, _CREATE_FLAVOR, _MODEL for
 * MPI_Win_get_attr (struct mpirma_kind_ops).  MPI class.
 */
static int win_predefined_attr(int win, int keyval, void *attr_val, int *flag)
{
	struct mpirma_window *w = mpirma_window_check(win);
	void *v;

	*flag = 0;
	if (!w)
		return MPI_ERR_WIN;
	/*
	 * MPI_WIN_BASE is the base address itself; the others are pointers
	 * to the value (MPI 3.1, 11.2.6), which lives in the window object.
	 */
	switch (keyval) {
	case MPI_WIN_BASE:
		v = w->base;
		break;
	case MPI_WIN_SIZE:
		v = &w->wsize;
		break;
	case MPI_WIN_DISP_UNIT:
		v = &w->disp_unit;
		break;
	case MPI_WIN_CREATE_FLAVOR:
		v = &w->flavor;
		break;
	case MPI_WIN_MODEL:
		v = &w->model;
		break;
	default:
		return MPI_SUCCESS;
	}
	*(void **)attr_val = v;
	*flag = 1;
	return MPI_SUCCESS;
}

/* What base/ asks of windows: their header, their own attribute keys. */
static const struct mpirma_kind_ops win_kind_ops = {
	.hdr = win_hdr,
	.predefined_attr = win_predefined_attr,
};

static void __attribute__((constructor)) win_kind_register(void)
{
	mpirma_kind_register(MPIRMA_HK_WIN, &win_kind_ops);
}
