/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mpirma: node-local MPI one-sided communication in the kernel.
 *
 * This header is the whole contract between mpirma.ko and user space.
 *
 * DOC: object model
 *
 * /dev/mpirma (the "device fd") creates jobs.  MPIRMA_IOC_JOB_CREATE returns
 * a job fd: the capability to join that job.  Each of the job's N ranks calls
 * MPIRMA_IOC_JOB_JOIN on the job fd once and receives its member fd; every
 * other command is issued on a member fd.  Only member fds of a job reach its
 * windows.  All fds are returned close-on-exec.
 *
 * When a member fd is released (close, or the process dying), the member is
 * gone: every wait in the job that depends on it ends with EOWNERDEAD, the
 * passive-target locks it held are released, and its memory stays valid for
 * the other members until the window is freed by all of them.
 *
 * DOC: growth and errors
 *
 * Every argument struct starts with __u32 size (sizeof the struct as the
 * caller knows it) and __u32 flags.  The kernel accepts any size from the
 * first published version of the struct up to its own; bytes the caller
 * passes beyond what the kernel knows must be zero.  New features are found
 * with MPIRMA_IOC_QUERY (the features mask), never by version equality.
 *
 * The errno values mean the same for every command:
 *
 *  - ENOTTY: unknown command, or a command issued on the wrong kind of fd.
 *  - E2BIG: the struct is larger than the kernel knows and the unknown tail
 *    is not zero.
 *  - EINVAL: a struct shorter than its first version, an unknown flag bit, a
 *    non-zero reserved field, or a value outside its documented range;
 *    collective arguments that do not agree between ranks.
 *  - EOPNOTSUPP: a well-formed value this kernel does not support, e.g. an
 *    op/type pair the MPI standard does not allow (MPI_ERR_OP).
 *  - ENOENT: no such window in this job (never created, or freed).
 *  - ENXIO: a rank outside the job or the window (MPI_ERR_RANK).
 *  - ERANGE: a target range that does not lie inside the target's window
 *    memory (MPI_ERR_RMA_RANGE).
 *  - EOVERFLOW: a count, size or displacement whose arithmetic overflows.
 *  - EFAULT: a user pointer that cannot be read or written.
 *  - ENOMEM: out of memory, or RLIMIT_MEMLOCK would be exceeded.
 *  - EOWNERDEAD: a member that the call depends on has left the job.
 *  - EBUSY: the rank has already joined; or the window is being freed.
 *  - EDEADLK: the caller already holds a passive-target lock on that target,
 *    or already has an open PSCW epoch of that kind (MPI_ERR_RMA_SYNC).
 *  - ENOLCK: unlock of a lock the caller does not hold, complete without
 *    start, wait without post (MPI_ERR_RMA_SYNC).
 *  - ENOSPC: MPIRMA_MAX_OFFERS one-copy offers outstanding already.
 *  - EAGAIN: a non-blocking request (MPIRMA_SYNC_TEST / _NOWAIT) that could
 *    not be satisfied yet.
 *  - EINTR: a signal arrived while waiting; nothing was consumed, the call
 *    may be repeated.
 */
#ifndef _UAPI_MPIRMA_H
#define _UAPI_MPIRMA_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define MPIRMA_DEVICE		"/dev/mpirma"
#define MPIRMA_IOC_MAGIC	0xE7

/* Limits; a job or window larger than these is EINVAL. */
#define MPIRMA_MAX_RANKS	1024
#define MPIRMA_MAX_BATCH	65536	/* operations per MPIRMA_IOC_RMA */
#define MPIRMA_MAX_BLOCKS	(1U << 20)	/* blocks per layout */

/* Features reported by MPIRMA_IOC_QUERY. */
#define MPIRMA_FEAT_WIN_USER	(1ULL << 0)	/* MPIRMA_FLAVOR_USER */
#define MPIRMA_FEAT_WIN_ALLOC	(1ULL << 1)	/* MPIRMA_FLAVOR_ALLOC + mmap */
#define MPIRMA_FEAT_WIN_DYNAMIC	(1ULL << 2)	/* MPIRMA_FLAVOR_DYNAMIC */
#define MPIRMA_FEAT_LAYOUTS	(1ULL << 3)	/* block-list layouts */
#define MPIRMA_FEAT_PSCW	(1ULL << 4)
#define MPIRMA_FEAT_STATS	(1ULL << 5)	/* MPIRMA_IOC_WIN_STATS */
#define MPIRMA_FEAT_MSG		(1ULL << 6)	/* MPIRMA_IOC_MSG_SEND/_RECV */
#define MPIRMA_FEAT_PLACEMENT	(1ULL << 7)	/* WIN_INTERLEAVE, WIN_PLACEMENT, worker */
#define MPIRMA_FEAT_STATS_ADD	(1ULL << 8)	/* MPIRMA_IOC_WIN_STATS_ADD, direct_ops */
#define MPIRMA_FEAT_MAP_USER	(1ULL << 9)	/* USER windows mmap-able too (map_user) */
#define MPIRMA_FEAT_ULOCK	(1ULL << 10)	/* MPIRMA_WIN_ULOCK, MPIRMA_IOC_WIN_LOCK_WAIT */
#define MPIRMA_FEAT_REGION_MAP	(1ULL << 11)	/* MPIRMA_IOC_WIN_REGION, regions mmap-able */
#define MPIRMA_FEAT_BULK	(1ULL << 12)	/* MPIRMA_ATOM_BULK, the table's update[] */
#define MPIRMA_FEAT_MSG_COPY	(1ULL << 13)	/* MPIRMA_IOC_MSG_OFFER/_TAKE/_HELP/... */
#define MPIRMA_FEAT_WSYNC	(1ULL << 14)	/* the lock table's sync area */
#define MPIRMA_FEAT_OFFER_END	(1ULL << 15)	/* MPIRMA_OFFER_SENDER_ENDS */

/**
 * struct mpirma_query - MPIRMA_IOC_QUERY, on any mpirma fd
 * @size: sizeof(struct mpirma_query)
 * @flags: must be 0
 * @features: out, MPIRMA_FEAT_* bits this kernel implements
 * @max_ranks: out, MPIRMA_MAX_RANKS of this kernel
 * @max_batch: out, MPIRMA_MAX_BATCH of this kernel
 * @nr_types: out, number of MPIRMA_TYPE_* values known (types are dense)
 * @nr_ops: out, number of MPIRMA_OP_* values known (ops are dense)
 * @nr_strategies: out, number of MPIRMA_ATOM_* values known
 * @default_strategy: out, the module's default atomicity strategy
 * @page_size: out, PAGE_SIZE (mmap offsets and sizes are in bytes)
 * @nr_numa_nodes: out, nr_node_ids
 * @op_type_mask: out, bit t of op_type_mask[o] set when op o is allowed on
 *	type t in accumulate-like operations (the MPI op/type table)
 */
struct mpirma_query {
	__u32 size;
	__u32 flags;
	__aligned_u64 features;
	__u32 max_ranks;
	__u32 max_batch;
	__u32 nr_types;
	__u32 nr_ops;
	__u32 nr_strategies;
	__u32 default_strategy;
	__u32 page_size;
	__u32 nr_numa_nodes;
	__aligned_u64 op_type_mask[16];
};

/**
 * struct mpirma_job_create - MPIRMA_IOC_JOB_CREATE, on the device fd
 * @size: sizeof(struct mpirma_job_create)
 * @flags: must be 0
 * @nranks: number of ranks, 1..MPIRMA_MAX_RANKS
 * @job_fd: out, the job fd (close-on-exec; the launcher clears that flag to
 *	hand it to its children)
 * @job_id: out, a number naming the job in statistics
 */
struct mpirma_job_create {
	__u32 size;
	__u32 flags;
	__u32 nranks;
	__s32 job_fd;
	__aligned_u64 job_id;
};

/**
 * struct mpirma_job_join - MPIRMA_IOC_JOB_JOIN, on a job fd
 * @size: sizeof(struct mpirma_job_join)
 * @flags: must be 0
 * @rank: the rank to become, 0..nranks-1; each rank joins once (EBUSY)
 * @member_fd: out, the member fd (close-on-exec)
 * @nranks: out, the job's number of ranks
 * @reserved: must be 0
 * @job_id: out, the job's id
 */
struct mpirma_job_join {
	__u32 size;
	__u32 flags;
	__u32 rank;
	__s32 member_fd;
	__u32 nranks;
	__u32 reserved;
	__aligned_u64 job_id;
};

/* Window flavors (struct mpirma_win_create.flavor). */
enum mpirma_flavor {
	MPIRMA_FLAVOR_USER = 0,		/* the caller's memory, pinned */
	MPIRMA_FLAVOR_ALLOC = 1,	/* kernel pages, zeroed, mmap-able */
	MPIRMA_FLAVOR_DYNAMIC = 2,	/* regions attached later */
	MPIRMA_NR_FLAVORS
};

/* Atomicity strategies (struct mpirma_win_create.strategy). */
enum mpirma_atomicity {
	MPIRMA_ATOM_DEFAULT = 0,	/* the module parameter's choice */
	MPIRMA_ATOM_LOCK = 1,		/* one spinlock per window */
	MPIRMA_ATOM_STRIPED = 2,	/* a spinlock per cache-line stripe */
	MPIRMA_ATOM_NATIVE = 3,		/* CPU atomics, lock for the rest */
	MPIRMA_ATOM_DELEGATE = 4,	/* NUMA-local workers own the pages */
	MPIRMA_ATOM_BULK = 5,		/* a lock per target, shared with user space */
	MPIRMA_NR_STRATEGIES
};

/* struct mpirma_win_create.flags */
/*
 * ALLOC: pack the ranks' memory byte-contiguously (MPI_Win_allocate_shared
 * without alloc_shared_noncontig); otherwise each rank starts on a page.
 */
#define MPIRMA_WIN_CONTIG	(1U << 0)
/* ALLOC: numa_node names the node the caller's memory must be on. */
#define MPIRMA_WIN_NODE		(1U << 1)
/* ALLOC: the caller's pages go round-robin over the nodes with memory. */
#define MPIRMA_WIN_INTERLEAVE	(1U << 2)
/*
 * Any flavor, all ranks must agree, at most MPIRMA_ULOCK_MAX_RANKS ranks:
 * the window's passive-target locks live in a lock table the processes map
 * and take in user space (DOC: user-space locks); MPIRMA_IOC_WIN_LOCK and
 * _UNLOCK on it fail with EOPNOTSUPP.
 */
#define MPIRMA_WIN_ULOCK	(1U << 3)
#define MPIRMA_WIN_CREATE_FLAGS	(MPIRMA_WIN_CONTIG | MPIRMA_WIN_NODE | MPIRMA_WIN_INTERLEAVE | \
				 MPIRMA_WIN_ULOCK)

/*
 * DOC: user-space locks
 *
 * A window created with MPIRMA_WIN_ULOCK has a lock table of
 * MPIRMA_ULOCK_TABLE_SIZE(nranks) bytes, zeroed at creation, which every
 * member maps read-write (MAP_SHARED, struct mpirma_win_query's
 * @lock_offset and @lock_length).  The processes run the locking protocol
 * on it with atomic instructions; the kernel only sleeps and wakes them
 * (MPIRMA_IOC_WIN_LOCK_WAIT) and cleans up after a rank that leaves the
 * window or the job: it clears that rank's row of @held and every owner
 * word naming it, then bumps @seq and wakes the sleepers.  The kernel never
 * trusts the table: whatever a process writes there can only make the
 * job's own lock waits wrong, never the kernel.
 *
 * Layout (n = nranks):
 *  - __u32 seq at offset 0: bumped by every wake;
 *  - __u32 word[n] at MPIRMA_ULOCK_WORDS: per target, the exclusive owner's
 *    window rank + 1 in MPIRMA_ULOCK_OWNER (0: none; set by a writer
 *    before it waits for the readers to leave) and MPIRMA_ULOCK_WAITERS (a
 *    process sleeps until this target changes: whoever changes it clears
 *    the bit and wakes);
 *  - __u8 held[n][n] at MPIRMA_ULOCK_HELD(n): held[origin * n + target] is
 *    0, MPIRMA_ULOCK_SHARED or MPIRMA_ULOCK_EXCL, written by the origin;
 *  - __u32 detached[n] at MPIRMA_ULOCK_DETACHED(n): DYNAMIC windows, per
 *    rank, bumped by the kernel at every MPIRMA_IOC_WIN_DETACH of that
 *    rank, so that a process that maps attached regions
 *    (MPIRMA_IOC_WIN_REGION) knows when its mappings may be stale;
 *  - __u32 update at MPIRMA_ULOCK_UPDATE(n) + t * MPIRMA_ULOCK_UPDATE_STRIDE
 *    (MPIRMA_FEAT_BULK), per target t: the lock of MPIRMA_ATOM_BULK, held
 *    around every element update of t's memory, by user space and the kernel
 *    alike.  0 is free; a process holds it with its window rank + 1 (taken
 *    with compare-and-exchange from 0, released by storing 0), the kernel
 *    with MPIRMA_ULOCK_KERNEL.  The kernel holds it for one chunk of an
 *    operation (MPIRMA_CHUNK bytes at most) and waits for it killably (a
 *    word never released makes the job's accumulates wait, never the
 *    kernel hang); the words naming a rank that leaves are cleared.
 *
 *  - the sync area at MPIRMA_ULOCK_SYNC(n) (MPIRMA_FEAT_WSYNC), where the
 *    processes run fences and PSCW epochs with counters (the protocol is
 *    the library's; docs/lib.md, "Fence and PSCW in the lock table"):
 *     - __u32 at MPIRMA_ULOCK_SYNC(n): processes asleep in
 *       MPIRMA_IOC_WIN_LOCK_WAIT on a counter below; whoever moves one
 *       wakes them (MPIRMA_LOCKWAIT_WAKE) while it is not 0;
 *     - per rank r the line at MPIRMA_ULOCK_SYNC_LINE(n, r): __u32 gone at
 *       offset 0, set to 1 by the kernel when r leaves the window (before
 *       the wake that every leave makes), then the library's counters;
 *     - __u8 posted[n][n] at MPIRMA_ULOCK_POSTED(n) and __u8
 *       completed[n][n] at MPIRMA_ULOCK_COMPLETED(n), the library's.
 *
 * A window with MPIRMA_ATOM_BULK has the table even without
 * MPIRMA_WIN_ULOCK (its passive-target locks are then the kernel's).  The
 * table's length (struct mpirma_win_query, whole pages) bounds what a
 * process may map, and the kernel's features say what it holds: kernels
 * before MPIRMA_FEAT_BULK have no update[], kernels before
 * MPIRMA_FEAT_WSYNC no sync area.
 */
#define MPIRMA_ULOCK_MAX_RANKS	1024
#define MPIRMA_ULOCK_WORDS	64
#define MPIRMA_ULOCK_HELD(n)	(MPIRMA_ULOCK_WORDS + (((n) * 4 + 63) & ~63U))
#define MPIRMA_ULOCK_DETACHED(n)	(MPIRMA_ULOCK_HELD(n) + (((n) * (n) + 63) & ~63U))
#define MPIRMA_ULOCK_UPDATE(n)	((MPIRMA_ULOCK_DETACHED(n) + (n) * 4 + 63) & ~63U)
#define MPIRMA_ULOCK_UPDATE_STRIDE	64	/* a cache line per target */
#define MPIRMA_ULOCK_SYNC(n)	(MPIRMA_ULOCK_UPDATE(n) + (n) * MPIRMA_ULOCK_UPDATE_STRIDE)
#define MPIRMA_ULOCK_SYNC_LINE(n, r)	(MPIRMA_ULOCK_SYNC(n) + 64 + (r) * 64)
#define MPIRMA_ULOCK_POSTED(n)	MPIRMA_ULOCK_SYNC_LINE(n, n)
#define MPIRMA_ULOCK_COMPLETED(n)	(MPIRMA_ULOCK_POSTED(n) + (((n) * (n) + 63) & ~63U))
#define MPIRMA_ULOCK_TABLE_SIZE(n)	(MPIRMA_ULOCK_COMPLETED(n) + (((n) * (n) + 63) & ~63U))
#define MPIRMA_ULOCK_KERNEL	MPIRMA_ULOCK_OWNER	/* update[] held by the kernel */
#define MPIRMA_ULOCK_OWNER	0x00ffffffU
#define MPIRMA_ULOCK_WAITERS	0x80000000U
#define MPIRMA_ULOCK_SHARED	1
#define MPIRMA_ULOCK_EXCL	2

/**
 * struct mpirma_win_create - MPIRMA_IOC_WIN_CREATE, on a member fd
 * @size: sizeof(struct mpirma_win_create)
 * @flags: MPIRMA_WIN_* (all ranks must agree on MPIRMA_WIN_CONTIG)
 * @flavor: MPIRMA_FLAVOR_*, the same on all ranks
 * @strategy: MPIRMA_ATOM_*, the same on all ranks
 * @disp_unit: the caller's displacement unit in bytes, >= 1
 * @numa_node: with MPIRMA_WIN_NODE, the node for the caller's memory
 * @base: USER: the caller's memory (any alignment); otherwise must be 0
 * @length: the caller's window size in bytes (DYNAMIC: must be 0)
 * @ranks: pointer to __u32[nranks]: the job ranks of the window's group in
 *	window-rank order; the same list on every member of the group
 * @nranks: number of entries in @ranks, >= 1; the caller must be among them
 * @win_id: out, the window's id (on all ranks the same)
 * @context: a tag chosen by the library (e.g. a communicator id); pending
 *	creations are matched by (group, context) in creation order
 *
 * Collective over the group: it returns when every member of the group has
 * called it (EOWNERDEAD if one of them is gone, EINTR on a signal).
 */
struct mpirma_win_create {
	__u32 size;
	__u32 flags;
	__u32 flavor;
	__u32 strategy;
	__u32 disp_unit;
	__s32 numa_node;
	__aligned_u64 base;
	__aligned_u64 length;
	__aligned_u64 ranks;
	__u32 nranks;
	__u32 win_id;
	__aligned_u64 context;
};

/**
 * struct mpirma_win_query - MPIRMA_IOC_WIN_QUERY, on a member fd
 * @size: sizeof(struct mpirma_win_query)
 * @flags: must be 0
 * @win_id: the window
 * @rank: the window rank asked about
 * @length: out, its size in bytes
 * @disp_unit: out, its displacement unit
 * @flavor: out, the window's flavor
 * @mmap_offset: out, ALLOC, and USER with MPIRMA_FEAT_MAP_USER: the offset
 *	to pass to mmap() (MAP_SHARED) on the member fd to map the whole
 *	window (all ranks' pages, rank after rank); 0 with nothing to map
 * @mmap_length: out, the length of that mapping, or 0
 * @seg_offset: out, where this rank's byte 0 lies in the mapping
 * @numa_node: out, ALLOC: the node of the rank's first page, or -1
 * @strategy: out, the window's atomicity strategy (never DEFAULT)
 * @nranks: out, the window's number of ranks
 * @my_rank: out, the caller's window rank
 * @worker: out (since 0.2), MPIRMA_ATOM_DELEGATE windows: the worker that
 *	serves the rank's first page (see /sys/kernel/debug/mpirma/workers),
 *	otherwise -1
 * @reserved: out, 0
 * @lock_offset: out (MPIRMA_FEAT_ULOCK), MPIRMA_WIN_ULOCK windows: the mmap
 *	offset of the lock table, otherwise 0
 * @lock_length: out, the length of that mapping (whole pages), or 0
 */
struct mpirma_win_query {
	__u32 size;
	__u32 flags;
	__u32 win_id;
	__u32 rank;
	__aligned_u64 length;
	__u32 disp_unit;
	__u32 flavor;
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_length;
	__aligned_u64 seg_offset;
	__s32 numa_node;
	__u32 strategy;
	__u32 nranks;
	__u32 my_rank;
	__s32 worker;
	__u32 reserved;
	__aligned_u64 lock_offset;
	__aligned_u64 lock_length;
};

/**
 * struct mpirma_win_placement - MPIRMA_IOC_WIN_PLACEMENT, on a member fd
 * @size: sizeof(struct mpirma_win_placement)
 * @flags: must be 0
 * @win_id: the window
 * @rank: the window rank asked about
 * @counts: pointer to __u64[@nr_nodes]: out, how many of the rank's pages
 *	are on each node right now (pinned user memory included: where the
 *	pages really are, not where they were asked to be)
 * @nr_nodes: in, entries @counts can hold; out, the kernel's nr_node_ids
 *	(counts of nodes beyond the caller's capacity are not written)
 * @reserved: must be 0
 * @pages: out, all of the rank's pages
 */
struct mpirma_win_placement {
	__u32 size;
	__u32 flags;
	__u32 win_id;
	__u32 rank;
	__aligned_u64 counts;
	__u32 nr_nodes;
	__u32 reserved;
	__aligned_u64 pages;
};

/**
 * struct mpirma_win_attach - MPIRMA_IOC_WIN_ATTACH / _DETACH, on a member fd
 * @size: sizeof(struct mpirma_win_attach)
 * @flags: must be 0
 * @win_id: a DYNAMIC window
 * @reserved: must be 0
 * @base: the caller's memory; on DETACH, the base given to ATTACH
 * @length: bytes, > 0; on DETACH must be 0
 *
 * Targets of a DYNAMIC window address memory by absolute address
 * (target_disp, disp_unit 1).  Attached regions of one rank may not overlap.
 */
struct mpirma_win_attach {
	__u32 size;
	__u32 flags;
	__u32 win_id;
	__u32 reserved;
	__aligned_u64 base;
	__aligned_u64 length;
};

/**
 * struct mpirma_win_region - MPIRMA_IOC_WIN_REGION, on a member fd
 * @size: sizeof(struct mpirma_win_region)
 * @flags: must be 0
 * @win_id: a DYNAMIC window
 * @rank: the window rank whose attached memory is asked about
 * @addr: an address in that rank's attached memory (a target displacement)
 * @base: out, the first address of the region that holds @addr
 * @length: out, the region's length in bytes
 * @mmap_offset: out, the offset to pass to mmap() (MAP_SHARED) on the
 *	member fd to map the region's pages; the mapping holds them, so it
 *	stays valid memory after a detach (then no longer the window's)
 * @mmap_length: out, that mapping's length (whole pages)
 * @seg_offset: out, where @base lies in the mapping
 *
 * ERANGE: no region of @rank holds @addr.  EINVAL: not a DYNAMIC window.
 */
struct mpirma_win_region {
	__u32 size;
	__u32 flags;
	__u32 win_id;
	__u32 rank;
	__aligned_u64 addr;
	__aligned_u64 base;
	__aligned_u64 length;
	__aligned_u64 mmap_offset;
	__aligned_u64 mmap_length;
	__aligned_u64 seg_offset;
};

/**
 * struct mpirma_win_sync - fence, free, lock, unlock, complete, wait
 * @size: sizeof(struct mpirma_win_sync)
 * @flags: MPIRMA_SYNC_* allowed by the command
 * @win_id: the window
 * @rank: LOCK/UNLOCK: the target window rank, or MPIRMA_RANK_ALL
 *
 * MPIRMA_IOC_WIN_FENCE: barrier over the window's group.
 * MPIRMA_IOC_WIN_FREE: barrier, then the caller leaves the window; its
 *	memory is released when no member uses the window any more.
 * MPIRMA_IOC_WIN_LOCK: passive-target lock, MPIRMA_SYNC_SHARED or
 *	MPIRMA_SYNC_EXCLUSIVE (exactly one), optionally MPIRMA_SYNC_NOWAIT.
 *	MPIRMA_RANK_ALL takes a shared lock on every rank (lock_all).
 * MPIRMA_IOC_WIN_UNLOCK: releases what LOCK took on @rank.
 * MPIRMA_IOC_WIN_COMPLETE: ends the access epoch of the last START.
 * MPIRMA_IOC_WIN_WAIT: ends the exposure epoch of the last POST;
 *	MPIRMA_SYNC_TEST makes it return EAGAIN instead of waiting.
 */
struct mpirma_win_sync {
	__u32 size;
	__u32 flags;
	__u32 win_id;
	__u32 rank;
};

#define MPIRMA_RANK_ALL		0xffffffffU
#define MPIRMA_SYNC_SHARED	(1U << 0)
#define MPIRMA_SYNC_EXCLUSIVE	(1U << 1)
#define MPIRMA_SYNC_NOWAIT	(1U << 2)
#define MPIRMA_SYNC_TEST	(1U << 3)

/**
 * struct mpirma_win_lockwait - MPIRMA_IOC_WIN_LOCK_WAIT, on a member fd
 * @size: sizeof(struct mpirma_win_lockwait)
 * @flags: 0 to sleep, or MPIRMA_LOCKWAIT_WAKE
 * @win_id: an MPIRMA_WIN_ULOCK window
 * @seq: sleep: the lock table's @seq as the caller read it before it
 *	decided to sleep; the call returns 0 at once if @seq has changed
 *	since, otherwise when it does (EINTR on a signal).  WAKE: must be 0
 *
 * MPIRMA_LOCKWAIT_WAKE bumps the table's @seq and wakes every sleeper of
 * the job, which re-reads the table.  EINVAL: not a ULOCK window.
 */
struct mpirma_win_lockwait {
	__u32 size;
	__u32 flags;
	__u32 win_id;
	__u32 seq;
};

#define MPIRMA_LOCKWAIT_WAKE	(1U << 0)

/**
 * struct mpirma_win_group - MPIRMA_IOC_WIN_POST / _START, on a member fd
 * @size: sizeof(struct mpirma_win_group)
 * @flags: must be 0
 * @win_id: the window
 * @nranks: entries in @ranks (0 is allowed: an empty epoch)
 * @ranks: pointer to __u32[nranks], window ranks, no duplicates
 *
 * POST opens an exposure epoch to the origins in @ranks and does not wait.
 * START waits until each target in @ranks has posted to the caller; posts
 * are matched per origin, so an early post for a later epoch is kept.
 */
struct mpirma_win_group {
	__u32 size;
	__u32 flags;
	__u32 win_id;
	__u32 nranks;
	__aligned_u64 ranks;
};

/*
 * Element types: what the kernel computes on.  Sizes are the C sizes on the
 * ABI (pair types include their padding, which is never written).
 */
enum mpirma_type {
	MPIRMA_TYPE_BYTE = 0,		/* 1, MPI_BYTE */
	MPIRMA_TYPE_CHAR,		/* 1, MPI_CHAR: REPLACE/NO_OP only */
	MPIRMA_TYPE_WCHAR,		/* 4, MPI_WCHAR: REPLACE/NO_OP only */
	MPIRMA_TYPE_BOOL,		/* 1, C _Bool */
	MPIRMA_TYPE_INT8,
	MPIRMA_TYPE_UINT8,
	MPIRMA_TYPE_INT16,
	MPIRMA_TYPE_UINT16,
	MPIRMA_TYPE_INT32,
	MPIRMA_TYPE_UINT32,
	MPIRMA_TYPE_INT64,
	MPIRMA_TYPE_UINT64,
	MPIRMA_TYPE_FLOAT,
	MPIRMA_TYPE_DOUBLE,
	MPIRMA_TYPE_LONG_DOUBLE,	/* 16, x87 80-bit in 16 bytes */
	MPIRMA_TYPE_C_FLOAT_COMPLEX,
	MPIRMA_TYPE_C_DOUBLE_COMPLEX,
	MPIRMA_TYPE_C_LONG_DOUBLE_COMPLEX,
	MPIRMA_TYPE_FLOAT_INT,		/* 8:  { float; int } */
	MPIRMA_TYPE_DOUBLE_INT,		/* 16: { double; int } */
	MPIRMA_TYPE_LONG_INT,		/* 16: { long; int } */
	MPIRMA_TYPE_2INT,		/* 8:  { int; int } */
	MPIRMA_TYPE_SHORT_INT,		/* 8:  { short; int } */
	MPIRMA_TYPE_LONG_DOUBLE_INT,	/* 32: { long double; int } */
	/*
	 * Fortran's MPI_2REAL and MPI_2DOUBLE_PRECISION: the index has the
	 * value's type.  A kernel without them reports a smaller nr_types
	 * (MPIRMA_IOC_QUERY) and rejects them with EINVAL.
	 */
	MPIRMA_TYPE_2FLOAT,		/* 8:  { float; float } */
	MPIRMA_TYPE_2DOUBLE,		/* 16: { double; double } */
	MPIRMA_NR_TYPES
};

/* Reduction operations (MPI's predefined ops). */
enum mpirma_opcode {
	MPIRMA_OP_REPLACE = 0,
	MPIRMA_OP_NO_OP,
	MPIRMA_OP_MAX,
	MPIRMA_OP_MIN,
	MPIRMA_OP_SUM,
	MPIRMA_OP_PROD,
	MPIRMA_OP_LAND,
	MPIRMA_OP_LOR,
	MPIRMA_OP_LXOR,
	MPIRMA_OP_BAND,
	MPIRMA_OP_BOR,
	MPIRMA_OP_BXOR,
	MPIRMA_OP_MAXLOC,
	MPIRMA_OP_MINLOC,
	MPIRMA_NR_OPS
};

/* RMA operation kinds (struct mpirma_op.kind). */
enum mpirma_kind {
	MPIRMA_KIND_PUT = 0,
	MPIRMA_KIND_GET,
	MPIRMA_KIND_ACC,		/* accumulate */
	MPIRMA_KIND_GET_ACC,		/* get_accumulate, fetch_and_op */
	MPIRMA_KIND_CAS,		/* compare_and_swap, one element */
	MPIRMA_NR_KINDS
};

/**
 * struct mpirma_block - one contiguous piece of a layout
 * @disp: byte displacement from the layout's origin (may be negative)
 * @len: bytes, a multiple of the element size
 */
struct mpirma_block {
	__s64 disp;
	__u64 len;
};

/**
 * struct mpirma_layout - where the elements of one side of an operation are
 * @addr: origin/result side: the user address the displacements are taken
 *	from; target side: must be 0 (the origin is target_disp * disp_unit)
 * @blocks: pointer to struct mpirma_block[nblocks], or 0 when nblocks is 0
 * @nblocks: 0: @count contiguous elements; otherwise the block list,
 *	repeated @count times, repetition i displaced by i * @extent bytes
 * @reserved: must be 0
 * @count: see @nblocks
 * @extent: see @nblocks (ignored when nblocks is 0)
 *
 * Origin, target and result sides must hold the same number of elements.
 * On the target side of ACC and GET_ACC no two elements may overlap.
 */
struct mpirma_layout {
	__aligned_u64 addr;
	__aligned_u64 blocks;
	__u32 nblocks;
	__u32 reserved;
	__aligned_u64 count;
	__s64 extent;
};

/**
 * struct mpirma_op - one RMA operation of a batch
 * @kind: MPIRMA_KIND_*
 * @type: MPIRMA_TYPE_* of every element on every side
 * @op: MPIRMA_OP_*; ACC: any but NO_OP; GET_ACC: any; PUT, GET, CAS: 0
 * @flags: must be 0
 * @target_rank: window rank of the target
 * @status: out, 0 or a negative errno for this operation
 * @target_disp: in units of the target's disp_unit (DYNAMIC: an address)
 * @origin: PUT, ACC, GET_ACC: the data; CAS: the new value (1 element);
 *	GET: unused (all zero)
 * @target: where in the target's window
 * @result: GET: where the data goes; GET_ACC: the previous target contents;
 *	CAS: the previous value (1 element); PUT, ACC: unused (all zero)
 * @compare: CAS: user address of the value to compare with; otherwise 0
 */
struct mpirma_op {
	__u16 kind;
	__u16 type;
	__u16 op;
	__u16 flags;
	__u32 target_rank;
	__s32 status;
	__aligned_u64 target_disp;
	struct mpirma_layout origin;
	struct mpirma_layout target;
	struct mpirma_layout result;
	__aligned_u64 compare;
};

/**
 * struct mpirma_rma - MPIRMA_IOC_RMA, on a member fd: a batch of operations
 * @size: sizeof(struct mpirma_rma)
 * @flags: must be 0
 * @win_id: the window all operations address
 * @nops: number of operations, 0..MPIRMA_MAX_BATCH
 * @ops: pointer to the operations, each @op_size bytes
 * @op_size: sizeof(struct mpirma_op) as the caller knows it
 * @nfailed: out, how many operations have a non-zero status
 *
 * Operations are applied in array order (this gives MPI's default
 * accumulate_ordering); each element update of ACC, GET_ACC and CAS is
 * atomic with respect to all others on the same window.  Every operation is
 * attempted and its status written back; an operation whose bytes beyond the
 * kernel's struct mpirma_op are not zero gets status E2BIG.  The ioctl
 * itself fails only when the batch as a whole is unusable (bad struct,
 * op_size below the first version or above 4096, unknown window, EFAULT on
 * the ops array, a fatal signal: EINTR with the statuses written so far).
 */
struct mpirma_rma {
	__u32 size;
	__u32 flags;
	__u32 win_id;
	__u32 nops;
	__aligned_u64 ops;
	__u32 op_size;
	__u32 nfailed;
};

/**
 * struct mpirma_win_stats - MPIRMA_IOC_WIN_STATS, on a member fd
 * @size: sizeof(struct mpirma_win_stats)
 * @flags: must be 0
 * @win_id: the window
 * @reserved: must be 0
 * @ops: out, operations applied, by MPIRMA_KIND_*
 * @bytes: out, target bytes touched by those operations
 * @lock_waits: out, passive-target lock requests that had to wait
 * @atomic_contended: out, element-update sections that found the
 *	strategy's lock taken
 * @pages: out, pages of memory the window holds (pinned or allocated)
 * @direct_ops: out, how many of @ops the processes applied themselves on
 *	mapped window memory and reported with MPIRMA_IOC_WIN_STATS_ADD
 *	(@ops and @bytes include them); added with MPIRMA_FEAT_STATS_ADD
 */
struct mpirma_win_stats {
	__u32 size;
	__u32 flags;
	__u32 win_id;
	__u32 reserved;
	__aligned_u64 ops[8];
	__aligned_u64 bytes;
	__aligned_u64 lock_waits;
	__aligned_u64 atomic_contended;
	__aligned_u64 pages;
	__aligned_u64 direct_ops;
};

/**
 * struct mpirma_win_stats_add - MPIRMA_IOC_WIN_STATS_ADD, on a member fd
 * @size: sizeof(struct mpirma_win_stats_add)
 * @flags: must be 0
 * @win_id: the window
 * @reserved: must be 0
 * @ops: operations the caller applied itself since its last report, by
 *	MPIRMA_KIND_*; entries of kinds the kernel does not know must be 0
 * @bytes: the target bytes of those operations
 *
 * Operations a process applies to mapped window memory without the kernel
 * (the MPI library's direct path on ALLOC windows) are counted by the
 * process itself, privately, and reported from time to time, so that
 * MPIRMA_IOC_WIN_STATS and the debugfs counters show them without a
 * shared counter on the path.  The kernel adds the figures to the window's
 * counters as they come: they are the caller's word, not a measurement.
 * Errors: EINVAL (flags, reserved, an unknown kind), ENOENT (window).
 */
struct mpirma_win_stats_add {
	__u32 size;
	__u32 flags;
	__u32 win_id;
	__u32 reserved;
	__aligned_u64 ops[8];
	__aligned_u64 bytes;
};

/* struct mpirma_msg.flags */
#define MPIRMA_MSG_NOWAIT	(1U << 0)	/* RECV: EAGAIN instead of waiting */
#define MPIRMA_MSG_PEEK		(1U << 1)	/* RECV: describe, do not consume */
#define MPIRMA_ANY_SOURCE	0xffffffffU
#define MPIRMA_ANY_TAG		(-1)

/**
 * struct mpirma_msg - MPIRMA_IOC_MSG_SEND / _RECV, on a member fd
 * @size: sizeof(struct mpirma_msg)
 * @flags: SEND: must be 0; RECV: MPIRMA_MSG_*
 * @peer: SEND: the destination job rank; RECV: the source job rank or
 *	MPIRMA_ANY_SOURCE
 * @tag: SEND: >= 0; RECV: the tag or MPIRMA_ANY_TAG
 * @context: a tag space chosen by the library (e.g. a communicator);
 *	RECV matches only messages sent with the same context
 * @buf: SEND: the data; RECV: where to put it (unused with PEEK)
 * @len: SEND: bytes to send; RECV: bytes @buf can hold
 * @msg_len: RECV out: the message's length; when larger than @len only
 *	@len bytes were copied and the rest is lost (MPI_ERR_TRUNCATE)
 * @source: RECV out: the sender's job rank
 * @msg_tag: RECV out: the message's tag
 *
 * SEND copies the message into the kernel and returns at once (buffered,
 * never waits; the memory is charged to the sender's memory cgroup).  Messages
 * from one sender with the same context are received in the order they
 * were sent.  RECV takes the oldest matching message, waiting for one unless
 * MPIRMA_MSG_NOWAIT; it fails with EOWNERDEAD when no matching message is
 * queued and the source (for MPIRMA_ANY_SOURCE: any rank) is gone.  SEND to a
 * gone rank is EOWNERDEAD.
 */
struct mpirma_msg {
	__u32 size;
	__u32 flags;
	__u32 peer;
	__s32 tag;
	__aligned_u64 context;
	__aligned_u64 buf;
	__aligned_u64 len;
	__aligned_u64 msg_len;
	__u32 source;
	__s32 msg_tag;
};

/*
 * DOC: one-copy messages
 *
 * A large message need not pass through a buffer on its way: its sender
 * offers its pages to one receiver, and the receiver has the kernel copy
 * them straight into its own buffer (what CMA, KNEM and XPMEM give other
 * MPIs).  The library tells the receiver the offer's id in its own queues.
 *
 * MPIRMA_IOC_MSG_OFFER pins the sender's @len bytes at @buf (read only)
 * and returns their @id (which must be 0 going in).  Only job rank @peer can take them, once.  An
 * offer lasts until it is taken, withdrawn, or its sender leaves the job;
 * at most MPIRMA_MAX_OFFERS are outstanding per rank (ENOSPC beyond).
 * The sender must not change the data until the offer is over.
 *
 * MPIRMA_IOC_MSG_TAKE, by @peer's receiver: @peer is the offering rank,
 * @id the offer, @buf and @len the receiver's buffer.  It copies
 * min(@len, offered) bytes, returns that in @copied and ends the offer;
 * the offered length is in @msg_len (a truncated receive sees it is
 * larger).  ENOENT: no such offer for the caller (withdrawn, taken,
 * its sender gone); EFAULT: @buf is not writable, and the offer stays as
 * it was.  Once the copy has started the offer is over whatever happens;
 * EINTR then means a fatal signal cut it short (@copied is 0).
 *
 * MPIRMA_IOC_MSG_HELP, by the sender while its offer @id is being taken:
 * the sender's CPU copies part of it too (the data goes in chunks to
 * whichever of the two claims them first).  0 once no part is left to
 * claim; ENOENT: the offer is not being copied (not yet, or no longer).
 *
 * MPIRMA_IOC_MSG_WITHDRAW, by the sender: ends offer @id unless it is being
 * copied.  0: withdrawn, nobody has or will have the data; EBUSY: the
 * receiver is copying it now (the offer ends when the copy does); ENOENT:
 * no such offer of the caller's (already taken).
 *
 * MPIRMA_OFFER_SENDER_ENDS in OFFER's @flags (MPIRMA_FEAT_OFFER_END): a
 * take does not end the offer but leaves it taken, and the sender's
 * WITHDRAW ends it (ENOENT, as for one already over), unpinning its pages
 * on the sender's time rather than the receiver's.  The sender must then
 * withdraw every offer it makes; a taken one still counts against
 * MPIRMA_MAX_OFFERS until it does, and ends when its sender leaves.
 */
#define MPIRMA_MAX_OFFERS	64
#define MPIRMA_MSG_COPY_MAX	(1ULL << 32)	/* bytes in one offer */
#define MPIRMA_OFFER_SENDER_ENDS	(1U << 0)	/* OFFER: only WITHDRAW ends it */

/**
 * struct mpirma_msg_copy - MPIRMA_IOC_MSG_OFFER / _TAKE / _HELP / _WITHDRAW
 * @size: sizeof(struct mpirma_msg_copy)
 * @flags: OFFER: 0 or MPIRMA_OFFER_SENDER_ENDS; the others: must be 0
 * @peer: OFFER: the job rank that may take it; TAKE: the offering rank;
 *	HELP, WITHDRAW: must be 0
 * @reserved: must be 0
 * @id: OFFER out; TAKE and WITHDRAW in
 * @buf: OFFER: the data; TAKE: where it goes; HELP, WITHDRAW: must be 0
 * @len: OFFER: 1 to MPIRMA_MSG_COPY_MAX bytes; TAKE: bytes @buf holds;
 *	HELP, WITHDRAW: must be 0
 * @copied: TAKE out: bytes copied; must be 0 going in
 * @msg_len: TAKE out: bytes offered; must be 0 going in
 */
struct mpirma_msg_copy {
	__u32 size;
	__u32 flags;
	__u32 peer;
	__u32 reserved;
	__aligned_u64 id;
	__aligned_u64 buf;
	__aligned_u64 len;
	__aligned_u64 copied;
	__aligned_u64 msg_len;
};

/* On the device fd. */
#define MPIRMA_IOC_QUERY	_IOWR(MPIRMA_IOC_MAGIC, 0x00, struct mpirma_query)
#define MPIRMA_IOC_JOB_CREATE	_IOWR(MPIRMA_IOC_MAGIC, 0x01, struct mpirma_job_create)
/* Does nothing; any mpirma fd.  The floor under every call into the kernel. */
#define MPIRMA_IOC_NULL		_IO(MPIRMA_IOC_MAGIC, 0x02)
/* On a job fd. */
#define MPIRMA_IOC_JOB_JOIN	_IOWR(MPIRMA_IOC_MAGIC, 0x10, struct mpirma_job_join)
/* On a member fd. */
#define MPIRMA_IOC_WIN_CREATE	_IOWR(MPIRMA_IOC_MAGIC, 0x20, struct mpirma_win_create)
#define MPIRMA_IOC_WIN_FREE	_IOW(MPIRMA_IOC_MAGIC, 0x21, struct mpirma_win_sync)
#define MPIRMA_IOC_WIN_QUERY	_IOWR(MPIRMA_IOC_MAGIC, 0x22, struct mpirma_win_query)
#define MPIRMA_IOC_WIN_ATTACH	_IOW(MPIRMA_IOC_MAGIC, 0x23, struct mpirma_win_attach)
#define MPIRMA_IOC_WIN_DETACH	_IOW(MPIRMA_IOC_MAGIC, 0x24, struct mpirma_win_attach)
#define MPIRMA_IOC_WIN_STATS	_IOWR(MPIRMA_IOC_MAGIC, 0x25, struct mpirma_win_stats)
#define MPIRMA_IOC_WIN_PLACEMENT _IOWR(MPIRMA_IOC_MAGIC, 0x26, struct mpirma_win_placement)
#define MPIRMA_IOC_WIN_STATS_ADD _IOW(MPIRMA_IOC_MAGIC, 0x27, struct mpirma_win_stats_add)
#define MPIRMA_IOC_WIN_REGION	_IOWR(MPIRMA_IOC_MAGIC, 0x29, struct mpirma_win_region)
#define MPIRMA_IOC_RMA		_IOWR(MPIRMA_IOC_MAGIC, 0x30, struct mpirma_rma)
#define MPIRMA_IOC_WIN_FENCE	_IOW(MPIRMA_IOC_MAGIC, 0x40, struct mpirma_win_sync)
#define MPIRMA_IOC_WIN_LOCK	_IOW(MPIRMA_IOC_MAGIC, 0x41, struct mpirma_win_sync)
#define MPIRMA_IOC_WIN_UNLOCK	_IOW(MPIRMA_IOC_MAGIC, 0x42, struct mpirma_win_sync)
#define MPIRMA_IOC_WIN_POST	_IOW(MPIRMA_IOC_MAGIC, 0x43, struct mpirma_win_group)
#define MPIRMA_IOC_WIN_START	_IOW(MPIRMA_IOC_MAGIC, 0x44, struct mpirma_win_group)
#define MPIRMA_IOC_WIN_COMPLETE	_IOW(MPIRMA_IOC_MAGIC, 0x45, struct mpirma_win_sync)
#define MPIRMA_IOC_WIN_WAIT	_IOW(MPIRMA_IOC_MAGIC, 0x46, struct mpirma_win_sync)
#define MPIRMA_IOC_WIN_LOCK_WAIT _IOW(MPIRMA_IOC_MAGIC, 0x48, struct mpirma_win_lockwait)
/* Barrier over all ranks of the job (MPI_Init/MPI_Finalize, MPI_Barrier). */
#define MPIRMA_IOC_JOB_BARRIER	_IO(MPIRMA_IOC_MAGIC, 0x47)
#define MPIRMA_IOC_MSG_SEND	_IOW(MPIRMA_IOC_MAGIC, 0x50, struct mpirma_msg)
#define MPIRMA_IOC_MSG_RECV	_IOWR(MPIRMA_IOC_MAGIC, 0x51, struct mpirma_msg)
#define MPIRMA_IOC_MSG_OFFER	_IOWR(MPIRMA_IOC_MAGIC, 0x52, struct mpirma_msg_copy)
#define MPIRMA_IOC_MSG_TAKE	_IOWR(MPIRMA_IOC_MAGIC, 0x53, struct mpirma_msg_copy)
#define MPIRMA_IOC_MSG_WITHDRAW	_IOW(MPIRMA_IOC_MAGIC, 0x54, struct mpirma_msg_copy)
#define MPIRMA_IOC_MSG_HELP	_IOW(MPIRMA_IOC_MAGIC, 0x55, struct mpirma_msg_copy)

#endif /* _UAPI_MPIRMA_H */
