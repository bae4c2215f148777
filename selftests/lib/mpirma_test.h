/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the mpirma selftests: thin ioctl wrappers that return 0
 * (or a new fd / id) on success and -errno on failure, so tests can write
 * ASSERT_EQ(-EINVAL, mt_...), builders for RMA operations, rank processes,
 * shared memory between them, and the module's sysfs counters.
 *
 * Nothing here includes the kselftest harness (it defines functions and
 * may be included once per program); mt_harness.h holds the glue.
 */
#ifndef MPIRMA_TEST_H
#define MPIRMA_TEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "mpirma_uapi.h"
#include "vmpin.h"

#define MT_POISON_BYTE	0xcc
/* Fill an output struct with garbage before an ioctl (ntsync-style), so a
 * handler that forgets to write a field is caught.
 */
#define mt_poison(p)	memset((p), MT_POISON_BYTE, sizeof(*(p)))
/* Poison an ioctl argument struct, then set the size and flags (0) that
 * every one of them starts with.
 */
#define mt_arg_init(p)	do {						\
		mt_poison(p);						\
		(p)->size = sizeof(*(p));				\
		(p)->flags = 0;						\
	} while (0)
#define MT_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define MT_MAX_PROCS	64

/* ---- plain ioctls ---- */

/* ioctl(); 0 or -errno (a positive return, e.g. an fd, is passed through). */
int mt_ioctl(int fd, unsigned long cmd, void *arg);
/* open(/dev/mpirma); fd or -errno. */
int mt_open(void);
/* close(*fd) if it is open (>= 0), and mark it closed (-1). */
void mt_close(int *fd);
bool mt_device_present(void);
int mt_query(int fd, struct mpirma_query *q);
/* A job of @nranks; the job fd or -errno.  @job_id may be NULL. */
int mt_job_create(int dev, uint32_t nranks, uint64_t *job_id);
/* Join @rank; the member fd or -errno. */
int mt_job_join(int job_fd, uint32_t rank);
/*
 * A job of @nranks with ranks 0 .. @njoin - 1 joined by this process: the
 * job fd in *@job, the member fds in @member[]; 0, or -errno with nothing
 * left open (every fd -1).
 */
int mt_job_start(int dev, uint32_t nranks, int *job, int *member,
		 uint32_t njoin);
/* Close what mt_job_start() opened (each fd that is open; all -1 after). */
void mt_job_stop(int *job, int *member, uint32_t njoin);
/*
 * The same ioctls on the caller's struct (poisoned, then filled in), for
 * tests that check every output field; 0 or -errno.
 */
int mt_job_create_raw(int dev, uint32_t nranks, struct mpirma_job_create *jc);
int mt_job_join_raw(int job_fd, uint32_t rank, struct mpirma_job_join *jj);
int mt_job_barrier(int mfd);

/* ---- windows ---- */

/*
 * Every atomicity strategy, as X(name, ID, ...) for MPIRMA_ATOM_<ID>, with
 * any further arguments passed on: the one list that suites parameterized
 * over strategies expand (e.g. into FIXTURE_VARIANT_ADDs), so a strategy
 * added to the module and here is run by all of them.
 */
#define MT_FOR_EACH_STRATEGY(X, ...)					\
	X(lock, LOCK, ##__VA_ARGS__)					\
	X(striped, STRIPED, ##__VA_ARGS__)				\
	X(native, NATIVE, ##__VA_ARGS__)				\
	X(delegate, DELEGATE, ##__VA_ARGS__)				\
	X(bulk, BULK, ##__VA_ARGS__)

/* "lock", "striped", ... ("default" for MPIRMA_ATOM_DEFAULT, "?" else). */
const char *mt_strategy_name(uint32_t strategy);

struct mt_win {
	uint32_t flags;
	uint32_t flavor;
	uint32_t strategy;
	uint32_t disp_unit;	/* 0 means 1 */
	int32_t numa_node;
	void *base;
	uint64_t length;
	const uint32_t *ranks;	/* NULL: job ranks 0..nranks-1 */
	uint32_t nranks;
	uint64_t context;
};

/* A window; its id (> 0) or -errno. */
int mt_win_create(int mfd, const struct mt_win *w);
/* The common case: group = job ranks 0..nranks-1, disp_unit 1. */
int mt_win_create_all(int mfd, uint32_t nranks, uint32_t flavor, void *base,
		      uint64_t length);
int mt_win_query(int mfd, uint32_t win, uint32_t rank,
		 struct mpirma_win_query *q);
/* mmap the whole ALLOC or USER window; NULL (errno set) on failure.  *len gets the
 * mapping's length for munmap.
 */
void *mt_win_map(int mfd, uint32_t win, size_t *len);
/* Where @rank's memory is in a mapping made by mt_win_map(); NULL on error. */
void *mt_win_seg(int mfd, uint32_t win, void *map, uint32_t rank);
int mt_win_stats(int mfd, uint32_t win, struct mpirma_win_stats *st);
int mt_win_attach(int mfd, uint32_t win, void *base, uint64_t length);
int mt_win_detach(int mfd, uint32_t win, void *base);

/* ---- a one-rank job that targets itself ---- */

/* A one-rank job on @dev, joined as rank 0: the member fd (*job gets the job
 * fd), or -errno with nothing left open.
 */
int mt_solo_job(int dev, int *job);

/* The setup of tests that run in one process as the only rank of a job. */
struct mt_solo {
	int dev, job, mfd;	/* -1 when not open */
	uint32_t win;		/* 0: no window */
	uint32_t flavor;
	size_t len;		/* the window's length */
	void *map;		/* ALLOC: mt_win_map()'s mapping, else NULL */
	size_t map_len;
	uint8_t *mem;		/* the window's memory as the test sees it */
	uint32_t strategy;	/* what the window was created with */
};

/* Mark everything closed (call it before anything that may SKIP, so that
 * mt_solo_close() in the teardown closes nothing).
 */
void mt_solo_init(struct mt_solo *s);
/* Open the device, create a one-rank job and join it.  0 or -errno (with
 * the step that failed on stderr and nothing left open).
 */
int mt_solo_join(struct mt_solo *s);
/*
 * mt_solo_join(), then a window of @flavor and @len over rank 0: USER on
 * fresh anonymous memory (mt_anon()), ALLOC mmap()ed whole with mem at rank
 * 0's segment.  0 or -errno, as mt_solo_join().
 */
int mt_solo_open(struct mt_solo *s, uint32_t flavor, size_t len);
/*
 * mt_solo_open() with an atomicity strategy (MPIRMA_ATOM_*).  A strategy
 * other than DEFAULT is checked with WIN_QUERY: a window that reports
 * another one fails with -EPROTO, so a suite parameterized over strategies
 * cannot silently test the default one four times.
 */
int mt_solo_open_strategy(struct mt_solo *s, uint32_t flavor,
			  uint32_t strategy, size_t len);
/* Unmap and close whatever is open; mt_solo_init() state afterwards. */
void mt_solo_close(struct mt_solo *s);

/* ---- synchronisation ---- */

int mt_sync(int mfd, unsigned long cmd, uint32_t win, uint32_t rank,
	    uint32_t flags);
int mt_group(int mfd, unsigned long cmd, uint32_t win, const uint32_t *ranks,
	     uint32_t nranks);
#define mt_fence(mfd, win)	mt_sync(mfd, MPIRMA_IOC_WIN_FENCE, win, 0, 0)
#define mt_win_free(mfd, win)	mt_sync(mfd, MPIRMA_IOC_WIN_FREE, win, 0, 0)
#define mt_lock(mfd, win, rank, flags) \
	mt_sync(mfd, MPIRMA_IOC_WIN_LOCK, win, rank, flags)
#define mt_unlock(mfd, win, rank) \
	mt_sync(mfd, MPIRMA_IOC_WIN_UNLOCK, win, rank, 0)
#define mt_complete(mfd, win)	mt_sync(mfd, MPIRMA_IOC_WIN_COMPLETE, win, 0, 0)
#define mt_wait(mfd, win, flags) mt_sync(mfd, MPIRMA_IOC_WIN_WAIT, win, 0, flags)
#define mt_post(mfd, win, ranks, n) \
	mt_group(mfd, MPIRMA_IOC_WIN_POST, win, ranks, n)
#define mt_start(mfd, win, ranks, n) \
	mt_group(mfd, MPIRMA_IOC_WIN_START, win, ranks, n)

/* ---- RMA operations ---- */

/* @count contiguous elements at @addr. */
struct mpirma_layout mt_contig(const void *addr, uint64_t count);
/* Block list repeated @count times, @extent apart. */
struct mpirma_layout mt_blocks(const void *addr,
			       const struct mpirma_block *blocks,
			       uint32_t nblocks, uint64_t count, int64_t extent);

/*
 * Byte offsets (from the layout's address) of the elements of @l, in element
 * order, for elements of @esize bytes: the reference for what the kernel
 * should address.  Writes at most @max; returns the number of elements, or
 * -1 if a block length is not a multiple of @esize.
 */
long mt_layout_offsets(const struct mpirma_layout *l, size_t esize,
		       int64_t *off, size_t max);

/* Operations on @n contiguous elements at target displacement @disp. */
struct mpirma_op mt_put(unsigned int type, uint32_t rank, uint64_t disp,
			const void *src, uint64_t n);
struct mpirma_op mt_get(unsigned int type, uint32_t rank, uint64_t disp,
			void *dst, uint64_t n);
struct mpirma_op mt_acc(unsigned int type, unsigned int op, uint32_t rank,
			uint64_t disp, const void *src, uint64_t n);
/* @src may be NULL for NO_OP (origin all zero). */
struct mpirma_op mt_get_acc(unsigned int type, unsigned int op, uint32_t rank,
			    uint64_t disp, const void *src, void *res,
			    uint64_t n);
struct mpirma_op mt_cas(unsigned int type, uint32_t rank, uint64_t disp,
			const void *newval, const void *cmp, void *old);

/* MPIRMA_IOC_RMA; 0 or the ioctl's -errno.  Statuses are in the ops;
 * @nfailed may be NULL.
 */
int mt_rma(int mfd, uint32_t win, struct mpirma_op *ops, uint32_t nops,
	   uint32_t *nfailed);
/* One operation: the ioctl's -errno if it failed, else the op's status. */
int mt_rma1(int mfd, uint32_t win, struct mpirma_op *op);

/* ---- rank processes ---- */

struct mt_rank {
	uint32_t rank;
	uint32_t nranks;
	int mfd;		/* member fd, -1 with MT_NOJOIN */
	int job_fd;
	void *arg;
	void *meta;		/* the harness's _metadata, for mt_harness.h */
};

/* Returns the child's exit status (0 = success). */
typedef int (*mt_rank_fn)(struct mt_rank *r);

struct mt_procs {
	uint32_t n;
	pid_t pid[MT_MAX_PROCS];
	int status[MT_MAX_PROCS];	/* wait status, once reaped */
	bool reaped[MT_MAX_PROCS];
	bool timed_out[MT_MAX_PROCS];
};

#define MT_NOJOIN	(1U << 0)	/* the child joins by itself */

#define MT_EXIT_JOIN	120	/* JOB_JOIN failed in the child */
#define MT_EXIT_ORPHAN	121	/* the parent was gone already */

/*
 * Fork @nranks processes; child r joins rank r of @job_fd (unless
 * MT_NOJOIN), runs @fn and exits with its return value.  Children die with
 * their parent (PR_SET_PDEATHSIG), so a failed test leaves no rank behind.
 * Returns 0 or -errno (children already forked are killed).
 */
int mt_spawn(struct mt_procs *p, int job_fd, uint32_t nranks, mt_rank_fn fn,
	     void *arg, void *meta, unsigned int flags);
/* Reap every child, killing those alive after @timeout_ms.  Returns how many
 * failed (non-zero exit, a signal, or the timeout); explains each on stderr
 * prefixed with "# ".  Children in @expect_killed (a bitmask of ranks) are
 * expected to die of SIGKILL and count as failed otherwise.
 */
int mt_reap(struct mt_procs *p, unsigned int timeout_ms, uint64_t expect_killed);
/* mt_spawn + mt_reap; the number of failed ranks, or -errno. */
int mt_run(int job_fd, uint32_t nranks, mt_rank_fn fn, void *arg, void *meta,
	   unsigned int timeout_ms);
/* Create a job of @nranks on @dev, run @fn on every rank, close the job.
 * The number of failed ranks, or -errno.
 */
int mt_run_job(int dev, uint32_t nranks, mt_rank_fn fn, void *arg, void *meta,
	       unsigned int timeout_ms);
void mt_kill(struct mt_procs *p, uint32_t rank, int sig);

/* ---- shared memory, time ---- */

/* Zeroed MAP_SHARED anonymous memory, visible to children forked later;
 * NULL on failure.
 */
void *mt_shm(size_t len);
/* Zeroed MAP_PRIVATE anonymous memory; NULL on failure. */
void *mt_anon(size_t len);
uint64_t mt_now_ms(void);
void mt_sleep_ms(unsigned int ms);
/* Spin (with short sleeps) until *flag >= value; false on timeout. */
bool mt_wait_flag(const volatile int *flag, int value, unsigned int timeout_ms);
void mt_set_flag(volatile int *flag, int value);
int mt_inc(volatile int *counter);	/* atomic, returns the new value */

/* ---- module counters ---- */

/* /sys/class/misc/mpirma/<name> as a number; -1 if unreadable. */
long mt_counter(const char *name);
/*
 * Counter @name once it reads @want, or what it reads after 5 s (a
 * release may lag the close that causes it).
 */
long mt_counter_settle(const char *name, long want);
/* The number a sysfs or proc file holds, or -1. */
long mt_read_long(const char *path);
/*
 * Drop CAP_IPC_LOCK (which lifts RLIMIT_MEMLOCK; root has it) from this
 * process: 0 or -errno.
 */
int mt_drop_ipc_lock(void);
/* Wait up to @timeout_ms for every counter to read 0; true if they do.
 * On failure @why (if not NULL) names the first non-zero one.
 */
bool mt_counters_zero(unsigned int timeout_ms, char *why, size_t len);

/* ---- NUMA ---- */

/* nr_node_ids as the kernel sees it (from /sys/devices/system/node). */
int mt_nr_node_ids(void);
bool mt_node_online(int node);
/* Node of the page at @addr (touched already); -errno on failure. */
int mt_page_node(void *addr);

/* ---- the delegation strategy's workers ---- */

struct mt_worker {
	int id, node, pid;
	unsigned long long items;	/* work items run so far */
};

/* The workers listed in /sys/kernel/debug/mpirma/workers, at most @max;
 * their number, or -errno (no debugfs).
 */
int mt_workers(struct mt_worker *w, int max);

#endif /* MPIRMA_TEST_H */
