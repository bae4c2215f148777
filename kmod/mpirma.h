/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mpirma internal definitions.
 *
 * Objects and their lifetime:
 *  - struct mpirma_job: created by MPIRMA_IOC_JOB_CREATE, refcounted by the
 *    job fd and by every member fd.  Destroyed when the last of them closes.
 *  - struct mpirma_member: the private data of one member fd (one rank).
 *  - struct mpirma_win: a window.  While being created it sits on
 *    job->pending; once every rank of its group has arrived it moves to the
 *    job->windows xarray.  It leaves the xarray when every rank of its group
 *    has freed it or is gone; the memory is released when the last reference
 *    (the xarray's, plus one per ioctl using the window) is dropped.
 *  - struct mpirma_mem: memory the module holds for a window (pinned user
 *    pages or allocated pages), with its vmap.  Refcounted separately so that
 *    user mappings (mmap) keep allocated pages alive past the window.
 *
 * Lock order (outer to inner):
 *	mpirma_jobs_lock -> job->lock -> win->regions_rwsem -> win->sync_lock
 *	-> (the atomicity strategy's locks) ; job->windows' xa_lock is taken
 *	alone, for lookups and erasure ; win->regions_rwsem ->
 *	win->region_ids' xa_lock, which mmap() also takes alone inside
 *	mmap_lock (region.c) ; job->offers' xa_lock is taken alone
 *	(msg_copy.c).
 * No lock of this module is held while copying from or to user space, except
 * win->regions_rwsem (read side, a sleeping lock that never nests inside
 * mmap_lock).
 */
#ifndef MPIRMA_H
#define MPIRMA_H

#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/xarray.h>

#include "mpirma_uapi.h"

struct mm_struct;
struct page;
struct file;
struct dentry;

/* Module-wide page and object counters (sysfs), zero when nothing is open. */
extern atomic_long_t mpirma_pages_pinned;
extern atomic_long_t mpirma_pages_allocated;
extern atomic_long_t mpirma_nr_jobs;
extern atomic_long_t mpirma_nr_windows;
extern atomic_long_t mpirma_msg_bytes;

/* The file operations of job fds and member fds (main.c). */
extern const struct file_operations mpirma_job_fops;
extern const struct file_operations mpirma_member_fops;

/* All live jobs, for statistics. */
extern struct mutex mpirma_jobs_lock;
extern struct list_head mpirma_jobs;

/**
 * struct mpirma_barrier - a generation-counted barrier over some ranks
 * @lock: protects @arrived and @generation
 * @arrived: ranks waiting in the current generation
 * @generation: incremented each time the barrier opens
 */
struct mpirma_barrier {
	spinlock_t lock;	/* protects arrived, generation */
	u32 arrived;
	u64 generation;
};

/* A rank's queue of point-to-point messages (msg.c). */
struct mpirma_mbox {
	spinlock_t lock;		/* protects msgs */
	struct list_head msgs;		/* struct mpirma_message, oldest first */
	wait_queue_head_t wq;		/* the rank's receives wait here */
};

struct mpirma_job {
	struct kref ref;
	u64 id;
	u32 nranks;

	/*
	 * Protects @joined, the writes to @gone, @pending and the window
	 * membership state (struct mpirma_win_rank.left, win->nleft).
	 */
	struct mutex lock;
	unsigned long *joined;
	unsigned long *gone;		/* read locklessly with test_bit() */
	atomic_t ngone;			/* bits set in @gone */
	struct list_head pending;	/* windows being created */
	u32 next_win_id;

	struct xarray windows;		/* id -> struct mpirma_win, live windows */
	struct mpirma_barrier barrier;	/* MPIRMA_IOC_JOB_BARRIER */
	struct mpirma_mbox *mbox;	/* per rank */

	/*
	 * One-copy offers (msg_copy.c), id -> struct mpirma_offer; the
	 * xarray's lock protects each offer's state and is taken alone.
	 */
	struct xarray offers;
	atomic_t offer_gen;		/* the last offer's id generation */
	atomic_t *offers_out;		/* per rank: its outstanding offers */

	/* Every wait in the job sleeps here; woken on any state change. */
	wait_queue_head_t wq;

	struct list_head node;		/* mpirma_jobs, under mpirma_jobs_lock */
};

struct rma_ctx;

/**
 * struct mpirma_member - one rank's membership, behind its member fd
 * @job: the job
 * @rank: the rank
 * @rma_lock: protects @rma_ctx (one batch of the member at a time uses it;
 *	a concurrent one, from another thread, allocates its own)
 * @rma_ctx: the RMA engine's buffers, kept between batches (rma.c), or NULL
 */
struct mpirma_member {
	struct mpirma_job *job;
	u32 rank;
	struct mutex rma_lock;
	struct rma_ctx *rma_ctx;
};

/**
 * struct mpirma_mem - memory held for a window, mapped at @vaddr
 * @ref: the window's reference plus one per user mapping
 * @pages: @npages pages
 * @vaddr: vmap() of @pages (NULL when @npages is 0)
 * @pinned: user pages (unpin on release) rather than allocated ones
 * @mm: pinned memory: the mm charged for it (held with mmgrab)
 * @charged: pages charged to @mm
 * @user_base: DYNAMIC regions: the user address that @vaddr + @offset mirrors
 * @offset: where the memory of interest starts inside the first page
 * @length: bytes of interest from @offset
 * @list: DYNAMIC regions: entry in the rank's region list
 * @id: DYNAMIC regions: its key in win->region_ids (region.c)
 */
struct mpirma_mem {
	struct kref ref;
	struct page **pages;
	unsigned long npages;
	void *vaddr;
	bool pinned;
	struct mm_struct *mm;
	unsigned long charged;
	u64 user_base;
	u64 offset;
	u64 length;
	struct list_head list;
	u32 id;
};

/* Passive-target lock modes recorded in struct mpirma_win_rank.held[]. */
enum { MPIRMA_HELD_NONE, MPIRMA_HELD_SHARED, MPIRMA_HELD_EXCL };

/**
 * struct mpirma_win_rank - per window rank state
 *
 * Set at creation, constant afterwards: @job_rank, @disp_unit, @length,
 * @mem, @offset, @node, @mm, @charged.
 * Under job->lock: @touched, @arrived, @left.
 * Under win->regions_rwsem: @regions (DYNAMIC).
 * Under win->sync_lock: everything below @sync.
 */
struct mpirma_win_rank {
	u32 job_rank;
	u32 disp_unit;
	u64 length;
	struct mpirma_mem *mem;		/* USER: the rank's pinned memory */
	u64 offset;			/* of byte 0 in mem (or the window's) */
	int node;			/* NUMA_NO_NODE with @interleave */
	bool node_strict;
	bool interleave;
	struct mm_struct *mm;		/* charged for RLIMIT_MEMLOCK */
	unsigned long charged;		/* pages charged to @mm */

	bool touched;			/* came to the pending window */
	bool arrived;			/* and is waiting in it with its part */
	bool left;			/* freed the window, or gone */

	struct list_head regions;

	/* sync: */
	u8 *held;			/* per target: MPIRMA_HELD_* by this origin */
	bool lock_all;			/* took MPIRMA_RANK_ALL */
	u32 readers;			/* as a target: shared holders */
	bool writer;			/* as a target: exclusive holder present */
	u32 writers_waiting;		/* as a target: exclusive requests waiting */
	u32 *posts;			/* per target: posts to me not yet matched */
	u32 *completes;			/* per origin: completes to me not matched */
	u32 *post_group, npost;		/* exposure epoch: origins */
	bool posted;
	u32 *start_group, nstart;	/* access epoch: targets */
	bool started;
};

struct mpirma_win_stats_k {
	atomic64_t ops[MPIRMA_NR_KINDS];
	atomic64_t bytes;
	atomic64_t lock_waits;
	atomic64_t atomic_contended;
	atomic64_t direct_ops;		/* of ops[]: reported by the processes */
};

struct mpirma_strategy;

struct mpirma_win {
	struct kref ref;
	struct mpirma_job *job;		/* the job outlives its windows */
	u32 id;				/* 0 while pending */
	u32 flavor;
	u32 flags;
	u64 context;
	u32 nranks;
	u32 *group;			/* window rank -> job rank */
	s32 *rank_of;			/* job rank -> window rank or -1 */
	struct mpirma_win_rank *ranks;

	/* Creation (under job->lock). */
	struct list_head pending_node;
	u32 narrived;
	int create_err;
	bool ready;

	u32 nleft;			/* under job->lock */
	atomic_t ngone;			/* group members gone from the job */

	struct mpirma_mem *mem;		/* ALLOC: all ranks' memory */
	struct mpirma_view *view;	/* USER: all ranks' memory, to map */
	/*
	 * ULOCK: the lock table the processes map (ulock.c), and the number
	 * its sleepers wait to see move, mirrored into the table's seq.
	 */
	struct mpirma_mem *ulock;
	atomic_t ulock_seq;

	const struct mpirma_strategy *strategy;
	void *strategy_data;		/* owned by the strategy */
	/*
	 * MPIRMA_ATOM_LOCK: serialises every element update of the window;
	 * the other strategies' fallback for what they cannot do themselves.
	 * Raw: held across the reduction's FPU section (no sleeping lock may
	 * be, on PREEMPT_RT), for at most MPIRMA_RAW_SECTION bytes.
	 */
	raw_spinlock_t update_lock;

	struct rw_semaphore regions_rwsem;	/* DYNAMIC: ranks[].regions */
	/*
	 * DYNAMIC: every rank's attached regions by id, for mmap (region.c):
	 * changed under regions_rwsem (write), read under its own xa_lock
	 * alone, as mmap() runs inside mmap_lock, where regions_rwsem may
	 * not be taken.
	 */
	struct xarray region_ids;
	u32 next_region_id;

	/* Protects the sync fields of ranks[] and nothing else. */
	spinlock_t sync_lock;
	struct mpirma_barrier fence;

	struct mpirma_win_stats_k stats;
};

/* Kernel address of byte 0 of rank @r's memory (static flavors), or NULL. */
static inline void *mpirma_rank_kaddr(struct mpirma_win *win, struct mpirma_win_rank *r)
{
	/* ALLOC ranks share the window's memory; USER ranks own theirs. */
	struct mpirma_mem *mem = win->mem ? win->mem : r->mem;

	return mem && mem->vaddr ? mem->vaddr + r->offset : NULL;
}

/* job.c */
int mpirma_job_create(struct mpirma_job_create *arg);
int mpirma_job_join(struct mpirma_job *job, struct mpirma_job_join *arg);
void mpirma_job_put(struct mpirma_job *job);
void mpirma_job_fd_closed(struct mpirma_job *job);
void mpirma_member_release(struct mpirma_member *m);
int mpirma_barrier_wait(struct mpirma_job *job, struct mpirma_barrier *b, u32 n,
			atomic_t *ngone);
void mpirma_barrier_init(struct mpirma_barrier *b);
static inline bool mpirma_rank_gone(struct mpirma_job *job, u32 rank)
{
	return test_bit(rank, job->gone);
}

/* window.c */
int mpirma_win_create(struct mpirma_member *m, struct mpirma_win_create *arg);
int mpirma_win_free(struct mpirma_member *m, struct mpirma_win_sync *arg);
int mpirma_win_query(struct mpirma_member *m, struct mpirma_win_query *arg);
int mpirma_win_attach(struct mpirma_member *m, struct mpirma_win_attach *arg);
int mpirma_win_detach(struct mpirma_member *m, struct mpirma_win_attach *arg);
int mpirma_win_stats(struct mpirma_member *m, struct mpirma_win_stats *arg);
int mpirma_win_stats_add(struct mpirma_member *m, struct mpirma_win_stats_add *arg);
int mpirma_win_placement(struct mpirma_member *m, struct mpirma_win_placement *arg);
struct mpirma_win *mpirma_win_get(struct mpirma_member *m, u32 id, u32 *my_rank);
struct mpirma_win *mpirma_win_get_dynamic(struct mpirma_member *m, u32 id, u32 *wr);
struct mpirma_win *mpirma_win_get_sync(struct mpirma_member *m,
				       const struct mpirma_win_sync *arg, u32 flags,
				       u32 *my_rank);
void mpirma_win_put(struct mpirma_win *win);
unsigned long mpirma_win_pages(struct mpirma_win *win);
unsigned long mpirma_rank_placement(struct mpirma_win *win, u32 wr, u64 *counts,
				    u64 *attached, u32 *nregions);
void mpirma_win_member_gone(struct mpirma_job *job, u32 job_rank);
void mpirma_win_destroy_pending(struct mpirma_job *job);

/* map.c */
/* mmap offset of a window: its id in the upper bits, page aligned. */
#define MPIRMA_MMAP_SHIFT	32
/* Added to a window's offset: its lock table (MPIRMA_WIN_ULOCK). */
#define MPIRMA_MMAP_ULOCK	(1ULL << 31)
/* Added to a window's offset with a region's id in pages: that region. */
#define MPIRMA_MMAP_REGION	(1ULL << 30)
#define MPIRMA_REGION_IDS	(MPIRMA_MMAP_REGION >> PAGE_SHIFT)
/* The mmap offset of @part (0, MPIRMA_MMAP_ULOCK, a region's) of @win. */
static inline u64 mpirma_mmap_offset(const struct mpirma_win *win, u64 part)
{
	return ((u64)win->id << MPIRMA_MMAP_SHIFT) | part;
}
struct mpirma_view;
bool mpirma_map_user_enabled(void);
struct mpirma_view *mpirma_view_build(struct mpirma_win *win);
void mpirma_view_set_id(struct mpirma_view *v, u32 id);
u64 mpirma_view_seg(const struct mpirma_view *v, u32 wr, u64 *length);
void mpirma_view_put(struct mpirma_view *v);
int mpirma_win_mmap(struct mpirma_member *m, struct vm_area_struct *vma);

/* mem.c */
int mpirma_charge(struct mm_struct *mm, unsigned long npages);
int mpirma_pin_range(u64 addr, unsigned long n, unsigned int gup_flags,
		     struct page **pages, unsigned long *done);
void mpirma_unpin_range(struct page **pages, unsigned long n, bool dirty);
int mpirma_user_range_check(u64 base, u64 length, u64 *end);
void mpirma_uncharge(struct mm_struct *mm, unsigned long npages);
struct mpirma_mem *mpirma_mem_pin(u64 base, u64 length);
struct mpirma_mem *mpirma_mem_alloc(unsigned long npages, const int *nodes,
				    const bool *strict);
void mpirma_mem_put(struct mpirma_mem *mem);

/* sync.c */
int mpirma_win_fence(struct mpirma_member *m, struct mpirma_win_sync *arg);
int mpirma_win_lock(struct mpirma_member *m, struct mpirma_win_sync *arg);
int mpirma_win_unlock(struct mpirma_member *m, struct mpirma_win_sync *arg);
int mpirma_win_post(struct mpirma_member *m, struct mpirma_win_group *arg);
int mpirma_win_start(struct mpirma_member *m, struct mpirma_win_group *arg);
int mpirma_win_complete(struct mpirma_member *m, struct mpirma_win_sync *arg);
int mpirma_win_wait(struct mpirma_member *m, struct mpirma_win_sync *arg);
void mpirma_sync_release_rank(struct mpirma_win *win, u32 wrank);
int mpirma_sync_alloc(struct mpirma_win *win);
void mpirma_sync_free(struct mpirma_win *win);

/* region.c */
int mpirma_region_add(struct mpirma_win *win, struct mpirma_mem *mem);
void mpirma_region_remove(struct mpirma_win *win, u32 wr, struct mpirma_mem *mem);
int mpirma_win_region(struct mpirma_member *m, struct mpirma_win_region *arg);
struct mpirma_mem *mpirma_region_get(struct mpirma_win *win, u32 id);

/* ulock.c */
int mpirma_ulock_alloc(struct mpirma_win *win);
void mpirma_ulock_release_rank(struct mpirma_win *win, u32 wr);
void mpirma_ulock_detached(struct mpirma_win *win, u32 wr);
u32 *mpirma_ulock_update_word(const struct mpirma_win *win, u32 target);
int mpirma_win_lock_wait(struct mpirma_member *m, struct mpirma_win_lockwait *arg);

/* msg.c */
int mpirma_mboxes_alloc(struct mpirma_job *job);
void mpirma_mboxes_free(struct mpirma_job *job);
void mpirma_mboxes_wake(struct mpirma_job *job);
int mpirma_msg_send(struct mpirma_member *m, struct mpirma_msg *arg);
int mpirma_msg_recv(struct mpirma_member *m, struct mpirma_msg *arg);

/* msg_copy.c */
int mpirma_offers_alloc(struct mpirma_job *job);
void mpirma_offers_drop_rank(struct mpirma_job *job, u32 rank);
void mpirma_offers_free(struct mpirma_job *job);
int mpirma_msg_offer(struct mpirma_member *m, struct mpirma_msg_copy *arg);
int mpirma_msg_take(struct mpirma_member *m, struct mpirma_msg_copy *arg);
int mpirma_msg_withdraw(struct mpirma_member *m, struct mpirma_msg_copy *arg);
int mpirma_msg_help(struct mpirma_member *m, struct mpirma_msg_copy *arg);

/* main.c */
int mpirma_copy_words_in(void *dst, const void __user *src, size_t size);
int mpirma_copy_words_out(void __user *dst, const void *src, size_t size);

/* rma.c */
int mpirma_rma(struct mpirma_member *m, struct mpirma_rma *arg);
void mpirma_rma_ctx_free(struct mpirma_member *m);

/* stats.c */
void mpirma_debugfs_init(void);
void mpirma_debugfs_exit(void);

#endif /* MPIRMA_H */
