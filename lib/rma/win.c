// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * win.c - windows: creation in the four flavors, their memory, dynamic
 * attach/detach, MPI_Win_free, the group, the info keys and the predefined
 * attributes (the name and the other attributes are lib/base/attr.c's).
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
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>

#include "runtime.h"
#include "mpirma.h"
#include "tool.h"
#include "win.h"

static const char default_ordering[] = "rar,raw,war,waw";

/* Names of the kernel's atomicity strategies for the mpirma_atomicity key. */
const char *const mpirma_strategy_names[MPIRMA_NR_STRATEGY_NAMES] = {
	[MPIRMA_ATOM_DEFAULT] = "default",
	[MPIRMA_ATOM_LOCK] = "lock",
	[MPIRMA_ATOM_STRIPED] = "striped",
	[MPIRMA_ATOM_NATIVE] = "native",
	[MPIRMA_ATOM_DELEGATE] = "delegate",
	[MPIRMA_ATOM_BULK] = "bulk",
};

/* ------------------------------------------------------------ lookup */

struct mpirma_window *mpirma_window_invalid(MPI_Win win)
{
	mpirma_err(MPI_ERR_WIN, "invalid window %d", win);
	return NULL;
}

/* In an API function: @var = the window of @handle, or MPI_ERR_WIN raised. */
#define GET_WIN(var, handle)						\
	do {								\
		(var) = mpirma_window_check(handle);			\
		if (!(var))						\
			return mpirma_raise_win((handle), MPI_ERR_WIN,	\
						MPIRMA_FUNC, NULL);	\
	} while (0)

static struct mpirma_objhdr *win_hdr(int win)
{
	struct mpirma_window *w = mpirma_window_get(win);

	return w ? &w->hdr : NULL;
}

/* ------------------------------------------------------------ info keys */

/* "true"/"false" in any case; false when it is neither. */
static bool parse_bool(const char *v, bool *out)
{
	if (!strcasecmp(v, "true")) {
		*out = true;
		return true;
	}
	if (!strcasecmp(v, "false")) {
		*out = false;
		return true;
	}
	return false;
}

/* accumulate_ordering: "none" or a comma list of rar, raw, war, waw. */
static bool valid_ordering(const char *v)
{
	const char *p = v;

	if (!strcmp(v, "none"))
		return true;
	if (strlen(v) >= MPIRMA_ORDERING_LEN || !*v)
		return false;
	for (;;) {
		if (strncmp(p, "rar", 3) && strncmp(p, "raw", 3) &&
		    strncmp(p, "war", 3) && strncmp(p, "waw", 3))
			return false;
		p += 3;
		if (!*p)
			return true;
		if (*p++ != ',')
			return false;
	}
}

/*
 * mpirma_numa_node: a node this process may allocate on.  An unusable value
 * is ignored rather than failed: creation is collective, and a rank that
 * failed alone before reaching the kernel would leave the others waiting.
 */
#define NODE_INTERLEAVE	(-2)	/* mpirma_numa_node=interleave */

static int parse_node(const char *v)
{
	char *end;
	long n;

	if (!strcasecmp(v, "any"))
		return -1;
	if (!strcasecmp(v, "interleave"))
		return NODE_INTERLEAVE;
	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 0 || n > INT_MAX)
		return -1;
	if (numa_available() < 0 || n > numa_max_node() ||
	    !numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned int)n))
		return -1;
	return (int)n;
}

/* mpirma_atomicity: a strategy name or number the kernel knows. */
static bool parse_strategy(const char *v, uint32_t *out)
{
	/* before MPI_Init the module's are not known yet: ours */
	uint32_t i, nr = mpirma_proc.query.nr_strategies ?
			 mpirma_proc.query.nr_strategies :
			 MPIRMA_NR_STRATEGY_NAMES;
	char *end;
	unsigned long n;

	for (i = 0; i < MPIRMA_NR_STRATEGY_NAMES; i++) {
		if (mpirma_strategy_names[i] &&
		    !strcasecmp(v, mpirma_strategy_names[i]) && i < nr) {
			*out = i;
			return true;
		}
	}
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || end == v || *end || n >= nr)
		return false;
	*out = (uint32_t)n;
	return true;
}

/*
 * MPIRMA_ATOMICITY=lock|striped|native|delegate: the strategy of every window
 * this process creates without an mpirma_atomicity info key.  mpiexec hands
 * the environment to every rank, so all agree; a bad value is reported once
 * and ignored (the module default applies).
 */
uint32_t mpirma_win_env_strategy(void)
{
	static bool warned;
	const char *v = getenv("MPIRMA_ATOMICITY");
	uint32_t id = MPIRMA_ATOM_DEFAULT;

	if (v && *v && !parse_strategy(v, &id)) {
		if (!warned)
			fprintf(stderr, "mpirma: MPIRMA_ATOMICITY=%s is not a strategy of this "
				"module (lock, striped, native, delegate); using the default\n", v);
		warned = true;
		id = MPIRMA_ATOM_DEFAULT;
	}
	return id;
}

static void hints_default(struct mpirma_win_hints *h)
{
	memset(h, 0, sizeof(*h));
	strcpy(h->ordering, default_ordering);
	h->numa_node = -1;
	h->strategy = mpirma_win_env_strategy();
}

/*
 * Reads the keys of @info into @h.  @creating: the keys that only mean
 * something at creation (memory placement, strategy, layout) are taken too.
 * Unknown keys and invalid values are ignored, as the standard does with
 * hints.
 */
static void hints_parse(struct mpirma_win_hints *h, MPI_Info info,
			bool creating)
{
	const char *v;
	bool b;

	if (info == MPI_INFO_NULL)
		return;
	v = mpirma_info_lookup(info, "accumulate_ordering");
	if (v && valid_ordering(v))
		snprintf(h->ordering, sizeof(h->ordering), "%s", v);
	v = mpirma_info_lookup(info, "accumulate_ops");
	if (v && !strcmp(v, "same_op"))
		h->ops_same_op = true;
	else if (v && !strcmp(v, "same_op_no_op"))
		h->ops_same_op = false;
	v = mpirma_info_lookup(info, "no_locks");
	if (v && parse_bool(v, &b))
		h->no_locks = b;
	if (!creating)
		return;
	v = mpirma_info_lookup(info, "same_size");
	if (v && parse_bool(v, &b))
		h->same_size = b;
	v = mpirma_info_lookup(info, "same_disp_unit");
	if (v && parse_bool(v, &b))
		h->same_disp_unit = b;
	v = mpirma_info_lookup(info, "alloc_shared_noncontig");
	if (v && parse_bool(v, &b))
		h->noncontig = b;
	v = mpirma_info_lookup(info, MPIRMA_INFO_NUMA_NODE);
	if (v)
		h->numa_node = parse_node(v);
	v = mpirma_info_lookup(info, MPIRMA_INFO_ATOMICITY);
	if (v)
		parse_strategy(v, &h->strategy);
}

/* ------------------------------------------------------------ kernel */

/* MPIRMA_IOC_WIN_QUERY about window rank @rank; 0 or -errno. */
static int win_query(const struct mpirma_window *w, int rank,
		     struct mpirma_win_query *q)
{
	memset(q, 0, sizeof(*q));
	q->size = sizeof(*q);
	q->win_id = w->id;
	q->rank = (uint32_t)rank;
	return mpirma_ioctl(MPIRMA_IOC_WIN_QUERY, q);
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
	if (!w->ranks || !w->lock || !w->in_start || !w->in_post)
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
	hints_default(&w->hints);
	hints_parse(&w->hints, info, true);
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

	ret = win_query(w, w->rank, &q);
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

	if (!mpirma_win_direct_enabled() || win_query(w, w->rank, &q))
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
		if (win_query(w, r, &q)) {
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
		if (win_query(w, r, &q) ||
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
	ret = win_query(w, w->rank, &q);
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
		else if (w->hints.numa_node == NODE_INTERLEAVE)
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

/* ------------------------------------------------------------ shared query */

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size,
			  int *disp_unit, void *baseptr)
{
	struct mpirma_window *w;
	struct mpirma_win_query q;
	int ret, r;

	MPIRMA_CHECK_INIT();
	GET_WIN(w, win);
	if (!size || !disp_unit || !baseptr)
		return mpirma_raise_win(win, MPI_ERR_ARG, MPIRMA_FUNC,
					"NULL output argument");
	if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size))
		return mpirma_raise_win(win, MPI_ERR_RANK, MPIRMA_FUNC,
					"rank %d is not in the window (size "
					"%d)", rank, w->size);
	/* MPI_PROC_NULL: the lowest rank with memory, else rank 0 and 0. */
	for (r = rank == MPI_PROC_NULL ? 0 : rank;; r++) {
		ret = win_query(w, r, &q);
		if (ret)
			return mpirma_raise_win(win, mpirma_err_errno(ret,
						"MPIRMA_IOC_WIN_QUERY"),
						MPIRMA_FUNC, NULL);
		if (rank != MPI_PROC_NULL || q.length || r == w->size - 1)
			break;
	}
	*disp_unit = (int)q.disp_unit;
	if (!w->map || !q.length) {
		/*
		 * Memory this process cannot address (created or dynamic
		 * windows), or none: size 0 and a NULL base, as MPI 4
		 * specifies.
		 */
		*size = 0;
		*(void **)baseptr = NULL;
		if (w->map && rank != MPI_PROC_NULL)
			*(void **)baseptr = (char *)w->map + q.seg_offset;
		return MPI_SUCCESS;
	}
	*size = (MPI_Aint)q.length;
	*(void **)baseptr = (char *)w->map + q.seg_offset;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Win_shared_query)

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size,
			    MPI_Aint *disp_unit, void *baseptr)
{
	int unit = 0, ret;

	MPIRMA_CHECK_INIT();
	if (!disp_unit)
		return mpirma_raise_win(win, MPI_ERR_ARG, MPIRMA_FUNC,
					"NULL output argument");
	ret = PMPI_Win_shared_query(win, rank, size, &unit, baseptr);
	if (!ret)
		*disp_unit = unit;
	return ret;
}
MPIRMA_ALIAS(Win_shared_query_c)

/* ------------------------------------------------------------ dynamic */

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
	struct mpirma_window *w;
	struct mpirma_win_attach a;
	void **z;
	int ret;

	MPIRMA_CHECK_INIT();
	GET_WIN(w, win);
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
	GET_WIN(w, win);
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
	GET_WIN(w, h);
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

/* ------------------------------------------------------------ group */

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
	struct mpirma_window *w;
	int *jr, i, ret;

	MPIRMA_CHECK_INIT();
	GET_WIN(w, win);
	if (!group)
		return mpirma_raise_win(win, MPI_ERR_ARG, MPIRMA_FUNC,
					"group is NULL");
	jr = malloc(w->size * sizeof(*jr));
	if (!jr)
		return mpirma_raise_win(win, MPI_ERR_NO_MEM, MPIRMA_FUNC,
					"out of memory");
	for (i = 0; i < w->size; i++)
		jr[i] = (int)w->ranks[i];
	ret = mpirma_group_new(w->size, jr, group);
	free(jr);
	return mpirma_raise_win(win, ret, MPIRMA_FUNC, NULL);
}
MPIRMA_ALIAS(Win_get_group)

/* ------------------------------------------------------------ info */

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
	struct mpirma_window *w;

	MPIRMA_CHECK_INIT();
	GET_WIN(w, win);
	/*
	 * Only the hints that may change during a window's life are taken;
	 * placement, strategy and layout were fixed at creation.
	 */
	hints_parse(&w->hints, info, false);
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Win_set_info)

static int info_set_all(MPI_Info info, const struct mpirma_window *w)
{
	const struct mpirma_win_hints *h = &w->hints;
	struct mpirma_win_query q;
	char node[16];
	const char *strat = NULL;
	char num[16];
	int ret;

	/* What the kernel actually did, where it can tell. */
	snprintf(node, sizeof(node), "%d", h->numa_node);
	strat = h->strategy < MPIRMA_ARRAY_SIZE(mpirma_strategy_names) ?
		mpirma_strategy_names[h->strategy] : NULL;
	if (h->numa_node == NODE_INTERLEAVE)
		snprintf(node, sizeof(node), "interleave");
	if (!win_query(w, w->rank, &q)) {
		if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC && h->numa_node != NODE_INTERLEAVE)
			snprintf(node, sizeof(node), "%d", q.numa_node);
		strat = q.strategy < MPIRMA_ARRAY_SIZE(mpirma_strategy_names) ?
			mpirma_strategy_names[q.strategy] : NULL;
		if (!strat) {
			snprintf(num, sizeof(num), "%u", q.strategy);
			strat = num;
		}
	}
	ret = PMPI_Info_set(info, "accumulate_ordering", h->ordering);
	if (!ret)
		ret = PMPI_Info_set(info, "accumulate_ops", h->ops_same_op ?
				    "same_op" : "same_op_no_op");
	if (!ret)
		ret = PMPI_Info_set(info, "no_locks",
				    h->no_locks ? "true" : "false");
	if (!ret)
		ret = PMPI_Info_set(info, "same_size",
				    h->same_size ? "true" : "false");
	if (!ret)
		ret = PMPI_Info_set(info, "same_disp_unit",
				    h->same_disp_unit ? "true" : "false");
	if (!ret)
		ret = PMPI_Info_set(info, "alloc_shared_noncontig",
				    h->noncontig ? "true" : "false");
	if (!ret)
		ret = PMPI_Info_set(info, MPIRMA_INFO_NUMA_NODE, node);
	if (!ret && strat)
		ret = PMPI_Info_set(info, MPIRMA_INFO_ATOMICITY, strat);
	return ret;
}

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
	struct mpirma_window *w;
	MPI_Info info;
	int ret;

	MPIRMA_CHECK_INIT();
	GET_WIN(w, win);
	if (!info_used)
		return mpirma_raise_win(win, MPI_ERR_ARG, MPIRMA_FUNC,
					"info_used is NULL");
	ret = PMPI_Info_create(&info);
	if (ret)
		return mpirma_raise_win(win, ret, MPIRMA_FUNC,
					"cannot create an info object");
	ret = info_set_all(info, w);
	if (ret) {
		PMPI_Info_free(&info);
		return mpirma_raise_win(win, ret, MPIRMA_FUNC,
					"cannot fill the info object");
	}
	*info_used = info;
	return MPI_SUCCESS;
}
MPIRMA_ALIAS(Win_get_info)

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

/* ------------------------------------------------------------ extensions */

/* The kernel's view of @rank's memory in @win, for the MPIX_ queries. */
static int ext_query(MPI_Win win, int rank, const void *out, const char *fn,
		     struct mpirma_win_query *q)
{
	struct mpirma_window *w;
	int ret;

	MPIRMA_CHECK_INIT();
	GET_WIN(w, win);
	if (!out)
		return mpirma_raise_win(win, MPI_ERR_ARG, fn, "output pointer is NULL");
	if (rank < 0 || rank >= w->size)
		return mpirma_raise_win(win, MPI_ERR_RANK, fn,
					"rank %d is not in the window (size %d)", rank, w->size);
	ret = win_query(w, rank, q);
	if (ret)
		return mpirma_raise_win(win, mpirma_err_errno(ret, "MPIRMA_IOC_WIN_QUERY"), fn,
					NULL);
	return MPI_SUCCESS;
}

int PMPIX_Win_get_node(MPI_Win win, int rank, int *node)
{
	struct mpirma_win_query q;
	int ret = ext_query(win, rank, node, MPIRMA_FUNC, &q);

	if (ret == MPI_SUCCESS)
		*node = q.numa_node;
	return ret;
}
MPIRMA_PRAGMA(weak MPIX_Win_get_node = PMPIX_Win_get_node)

int PMPIX_Win_get_worker(MPI_Win win, int rank, int *worker)
{
	struct mpirma_win_query q;
	int ret = ext_query(win, rank, worker, MPIRMA_FUNC, &q);

	/* An older module accepts the grown struct but never writes @worker. */
	if (ret == MPI_SUCCESS)
		*worker = mpirma_proc.query.features & MPIRMA_FEAT_PLACEMENT ? q.worker : -1;
	return ret;
}
MPIRMA_PRAGMA(weak MPIX_Win_get_worker = PMPIX_Win_get_worker)
