// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz: random and mutated ioctls against /dev/mpirma.
 *
 * Each of --procs worker processes owns a small world of jobs, member fds
 * and windows (USER, ALLOC, DYNAMIC, every strategy) and issues --calls in
 * total: argument structs that are valid, or valid with one to three fields
 * mutated (interesting values, flipped bits, sizes too small, too large or
 * with a non-zero tail), argument pointers that are NULL, kernel,
 * non-canonical, read-only or straddle an unmapped page, RMA batches with
 * huge counts and overlapping or wrapping layouts, calls on freed windows,
 * on closed fds and on fds of the wrong kind or job, unknown commands,
 * mmap()s at random offsets, and ranks in forked children that are killed
 * in the middle of a collective.
 *
 * The module must answer every call with success or an errno of the
 * documented table (mpirma_uapi.h); anything else is a failure, listed with
 * the call that produced it.  A periodic timer interrupts calls that wait
 * (a collective nobody else joins), so waits and their withdrawal are
 * fuzzed too and no call blocks for long.  Every few thousand calls a
 * canary job, which the fuzzer never touches otherwise, must still compute
 * exact results.  At the end every process must have its RLIMIT_MEMLOCK
 * charge (VmPin) back at 0 and the module's counters must read 0; a worker
 * that makes no progress for --stall seconds is a hang.
 *
 * Workers drop CAP_IPC_LOCK and run under a small RLIMIT_MEMLOCK, so huge
 * window sizes fail with ENOMEM instead of exhausting the VM's memory.
 *
 * Deterministic per seed (printed): the same seed issues the same calls,
 * up to what the kernel's answers (ids, timing of interrupted waits) change.
 *
 * Usage: fuzz [--calls N] [--seed S] [--procs P] [--stall SECS] [-v]
 * Prints TAP (one test case) so selftests/run counts it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "mpirma_test.h"
#include "reference.h"

#define MAX_PROCS	16
#define MAX_JOBS	6
#define MAX_RANKS	4	/* ranks of the fuzzer's own jobs */
#define MAX_WINS	24
#define ARENA_LEN	(256 * 1024)
/*
 * Ops and block lists have a mapping of their own: results the kernel
 * writes through a layout (which may run anywhere in the arena) must not
 * land on the statuses the fuzzer checks.
 */
#define OPS_LEN		(80 * 1024)

/*
 * Every address the fuzzer hands the kernel to write through (results,
 * statuses, counts, messages, user window memory) lies in one reservation
 * around SCRATCH_BASE that is PROT_NONE except where scratch is mapped.  A
 * mutated pointer (a flipped bit, a displacement added) then lands in
 * scratch, in the reservation (EFAULT) or far from anything mapped; it
 * never makes the kernel write into the fuzzer's own heap, stack or libc,
 * which would crash the fuzzer and prove nothing about the module.  The
 * areas differ in at least two address bits, so that one flipped bit does
 * not turn a pointer into one area into a pointer into another.
 */
#define SCRATCH_BASE	(1ULL << 44)
#define SCRATCH_HALF	(1ULL << 39)
#define AREA_RW		0ULL			/* the arena, guard after it */
#define AREA_RO		0x10000000ULL		/* read-only pages */
#define AREA_OPS	0x300000000ULL		/* RMA ops, worker */
#define AREA_OPS_RACER	0xc00000000ULL		/* RMA ops, racing thread */
#define AREA_WINMEM	0x3000000000ULL		/* USER windows, one slot each */
#define WINMEM_SLOT	0x10000ULL
#define AREA_GONE	(-0x100000LL)		/* never mapped */

static uint8_t *area(unsigned long long off)
{
	return (uint8_t *)(uintptr_t)(SCRATCH_BASE + off);
}

/* Map @len bytes at @p inside the reservation (or back to PROT_NONE). */
static int scratch_map(void *p, size_t len, int prot)
{
	void *q = mmap(p, len, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
		       (prot == PROT_NONE ? MAP_NORESERVE : 0), -1, 0);

	return q == p ? 0 : -ENOMEM;
}
#define MEMLOCK_LIMIT	(32UL << 20)
#define MSG_LEN_CAP	(1UL << 20)
#define NOFILE_LIMIT	256
#define TIMER_US	20000	/* interrupts waits that nobody completes */
#define CANARY_EVERY	2000
#define CANARY_LEN	8192
#define CANARY_MAX	48	/* elements of a layout check */
#define MAX_REPORTS	40
#define NR_ERRNO	160

/* Counters the racing thread bumps too. */
#define BUMP(x)		__atomic_add_fetch(&(x), 1, __ATOMIC_RELAXED)

/* ---- random numbers: splitmix64, one stream per worker ---- */

static __thread uint64_t rng;
/* What this thread is calling, for a crash report. */
static __thread const char *crash_what;

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static bool chance(unsigned int pct)
{
	return below(100) < pct;
}

/* Values that find boundary bugs: limits, signs, pages, powers of two. */
static const uint64_t interesting[] = {
	0, 1, 2, 3, 4, 7, 8, 15, 16, 24, 31, 32, 63, 64, 127, 128, 255, 256,
	1023, 1024, 1025, 4095, 4096, 4097, 8192, 0x7fff, 0x8000, 0xffff,
	0x10000, 0x10001, 65536 + 1, 1U << 20, (1U << 20) + 1,
	0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 0x100000000ULL,
	0x100000001ULL, 1ULL << 40, 1ULL << 47, 0x7fffffffffffffffULL,
	0x8000000000000000ULL, 0xfffffffffffff000ULL, 0xfffffffffffffffeULL,
	0xffffffffffffffffULL, 0xffff888000000000ULL, 0xffffffff81000000ULL,
};

static uint64_t pick_interesting(void)
{
	uint64_t v = interesting[below(MT_ARRAY_SIZE(interesting))];

	/* sometimes a neighbour, or a random value of the same magnitude */
	switch (below(6)) {
	case 0:
		return v - 1;
	case 1:
		return v + 1;
	case 2:
		return v ? rnd() % v : rnd();
	default:
		return v;
	}
}

/* ---- what a worker owns ---- */

struct fz_job {
	int jfd;			/* -1: closed */
	uint32_t nranks;
	int mfd[MAX_RANKS];		/* -1: not joined, or closed */
	bool gone[MAX_RANKS];		/* closed after joining: never again */
};

struct fz_win {
	bool used;
	bool freed;			/* freed, id kept for stale calls */
	int job, rank;			/* the member fd it was made on */
	uint32_t id;
	uint32_t flavor;
	uint32_t disp_unit;
	uint64_t len;
	uint8_t *base;			/* USER: its memory, our mapping */
	size_t base_len;		/* the mapping's length */
	void *map;			/* ALLOC: a mapping, or NULL */
	size_t map_len;
};

/* Memory the fuzzer hands to the kernel, good and bad. */
struct arena {
	uint8_t *rw;		/* ARENA_LEN bytes, followed by a PROT_NONE page */
	uint8_t *ops;		/* RMA op arrays and block lists, apart from rw */
	uint8_t *guard;		/* the PROT_NONE page */
	uint8_t *ro;		/* one read-only page */
	uint8_t *gone;		/* an address that is not mapped */
	size_t page;
};

/* Results shared with the parent. */
struct report {
	char text[200];
};

struct worker_stats {
	volatile uint64_t calls;	/* progress, read by the watchdog */
	uint64_t by_errno[NR_ERRNO];	/* [0]: success */
	uint64_t op_by_errno[NR_ERRNO];	/* RMA operation statuses */
	uint64_t unexpected;
	uint64_t canary_failures;
	uint64_t vmpin_left;
	int fds_left;			/* fds open at the end that were not at the start */
	uint32_t nreports;
	struct report reports[MAX_REPORTS];
	int done;
};

struct shared {
	struct worker_stats w[MAX_PROCS];
};

struct worker {
	int idx;
	struct worker_stats *st;
	struct arena a;
	int dev;
	int devnull;
	struct fz_job jobs[MAX_JOBS];
	struct fz_win wins[MAX_WINS];
	uint64_t next_context;
	/* the canary: a one-rank job the fuzz never touches */
	struct mt_solo canary_alloc, canary_user;
	uint64_t canary_count;
	const char *what;		/* the call being made, for reports */
};

static void report(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void report(struct worker *w, const char *fmt, ...)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	struct worker_stats *st = w->st;
	va_list ap;

	pthread_mutex_lock(&lock);
	if (st->nreports < MAX_REPORTS) {
		va_start(ap, fmt);
		vsnprintf(st->reports[st->nreports].text, sizeof(st->reports[0].text),
			  fmt, ap);
		va_end(ap);
		st->nreports++;
	}
	pthread_mutex_unlock(&lock);
}

/* ---- the errno contract ---- */

/* What any mpirma ioctl may return (mpirma_uapi.h), plus the fd's own. */
static bool errno_documented(int e)
{
	switch (e) {
	case ENOTTY: case E2BIG: case EINVAL: case EOPNOTSUPP: case ENOENT:
	case ENXIO: case ERANGE: case EOVERFLOW: case EFAULT: case ENOMEM:
	case EOWNERDEAD: case EBUSY: case EDEADLK: case ENOLCK: case EAGAIN:
	case EINTR:
	/* a closed fd or fd number; out of fds for a new job or member */
	case EBADF: case EMFILE: case ENFILE:
		return true;
	default:
		return false;
	}
}

static void account(struct worker *w, int ret, int err)
{
	BUMP(w->st->calls);
	if (ret == 0) {
		BUMP(w->st->by_errno[0]);
		return;
	}
	if (ret < 0 && err > 0 && err < NR_ERRNO)
		BUMP(w->st->by_errno[err]);
	if (ret > 0 || !errno_documented(err)) {
		BUMP(w->st->unexpected);
		report(w, "%s: returned %d, errno %d (%s)", w->what, ret, err,
		       strerror(err));
	}
}

/* One ioctl, accounted; -errno or 0. */
static int fz_ioctl(struct worker *w, int fd, unsigned long cmd, void *arg)
{
	int ret, err;

	crash_what = w->what;
	ret = ioctl(fd, cmd, arg);
	err = ret < 0 ? errno : 0;

	account(w, ret, err);
	return ret < 0 ? -err : ret;
}

/* ---- memory ---- */

static int arena_init(struct arena *a)
{
	size_t i;

	void *res;

	a->page = sysconf(_SC_PAGESIZE);
	res = mmap(area(-SCRATCH_HALF), 2 * SCRATCH_HALF, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (res != area(-SCRATCH_HALF))
		return -ENOMEM;
	a->rw = area(AREA_RW);
	a->guard = a->rw + ARENA_LEN;
	a->ro = area(AREA_RO);
	a->gone = area(AREA_GONE);
	a->ops = area(AREA_OPS);
	if (scratch_map(a->rw, ARENA_LEN, PROT_READ | PROT_WRITE) ||
	    scratch_map(a->ro, a->page, PROT_READ) ||
	    scratch_map(a->ops, OPS_LEN, PROT_READ | PROT_WRITE))
		return -ENOMEM;
	for (i = 0; i < ARENA_LEN; i += 8) {
		uint64_t v = rnd();

		memcpy(a->rw + i, &v, 8);
	}
	return 0;
}

/* @len bytes of good memory somewhere in the arena (len <= ARENA_LEN / 2). */
static uint8_t *arena_good(struct arena *a, size_t len)
{
	if (len > ARENA_LEN / 2)
		len = ARENA_LEN / 2;
	return a->rw + below(ARENA_LEN - len + 1);
}

/* A user address for @len bytes: good mostly, else every kind of bad. */
static uint64_t pick_ptr(struct arena *a, size_t len, unsigned int bad_pct)
{
	if (!chance(bad_pct))
		return (uintptr_t)arena_good(a, len);
	switch (below(9)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)a->ro;
	case 2:
		return (uintptr_t)a->gone;
	case 3:		/* the end runs into the PROT_NONE page */
		return (uintptr_t)(a->guard - (len > 1 ? len / 2 : 0));
	case 4:
		return 0xffff888000000000ULL;	/* kernel direct map */
	case 5:
		return 0x0000800000000000ULL;	/* non-canonical */
	case 6:
		return (uintptr_t)a->rw + 1;	/* misaligned, still good */
	case 7:
		return 0xfffffffffffff000ULL;
	default:
		return pick_interesting();
	}
}

/* ---- mutation of an argument struct ---- */

/*
 * Mutate @buf, a struct of @len bytes inside a buffer of at least
 * len + 64 zeroed bytes: one to three changes, each an interesting value
 * in a field-aligned slot, a flipped bit, a new size or a non-zero tail.
 */
static void mutate(uint8_t *buf, size_t len)
{
	unsigned int k, n = 1 + below(3);
	uint32_t size;

	for (k = 0; k < n; k++) {
		size_t off = below(len / 4) * 4;
		uint64_t v = pick_interesting();

		switch (below(6)) {
		case 0:
		case 1:
			memcpy(buf + off, &v, 4);
			break;
		case 2:
			off &= ~(size_t)7;
			if (off + 8 <= len)
				memcpy(buf + off, &v, 8);
			break;
		case 3:
			buf[below(len)] ^= 1U << below(8);
			break;
		case 4:		/* the size field */
			switch (below(6)) {
			case 0: size = below(len); break;
			case 1: size = len + 8 * (1 + below(7)); break;
			case 2: size = 4096; break;
			case 3: size = 4097 + below(1 << 20); break;
			case 4: size = 0; break;
			default: size = (uint32_t)pick_interesting(); break;
			}
			memcpy(buf, &size, 4);
			break;
		default:	/* a tail the kernel does not know */
			buf[len + below(64)] = 1 + below(255);
			size = len + 64;
			memcpy(buf, &size, 4);
			break;
		}
	}
}

/* ---- picking fds and windows ---- */

static int pick_member(struct worker *w, int *jobp, int *rankp)
{
	unsigned int tries;

	for (tries = 0; tries < 16; tries++) {
		int j = below(MAX_JOBS), r = below(MAX_RANKS);

		if (w->jobs[j].mfd[r] >= 0) {
			*jobp = j;
			*rankp = r;
			return w->jobs[j].mfd[r];
		}
	}
	return -1;
}

/* An fd for a command meant for @want: the right kind mostly. */
static int pick_fd(struct worker *w, int want)
{
	int j = below(MAX_JOBS), r;

	if (want >= 0 && !chance(12))
		return want;
	switch (below(6)) {
	case 0:
		return w->dev;
	case 1:
		return w->jobs[j].jfd;
	case 2:
		return pick_member(w, &j, &r);
	case 3:
		return w->devnull;
	case 4:
		return 1000;		/* never open */
	default:
		return want;
	}
}

static struct fz_win *pick_win(struct worker *w)
{
	unsigned int tries;

	for (tries = 0; tries < 8; tries++) {
		struct fz_win *fw = &w->wins[below(MAX_WINS)];

		if (fw->used)
			return fw;
	}
	return NULL;
}

/* A window id: a known window's (live or freed) or a random one. */
static uint32_t pick_win_id(struct fz_win *fw)
{
	if (fw && !chance(10))
		return fw->id;
	return chance(50) ? below(40) : (uint32_t)pick_interesting();
}

/* The member fd a window was made on, or another one sometimes. */
static int win_fd(struct worker *w, struct fz_win *fw)
{
	int j, r;

	if (fw && !chance(10) && w->jobs[fw->job].mfd[fw->rank] >= 0)
		return w->jobs[fw->job].mfd[fw->rank];
	return pick_member(w, &j, &r);
}

/* ---- the commands ---- */

/* Issue @cmd with @buf (a struct of @len), maybe mutated, maybe misplaced. */
static int issue(struct worker *w, int fd, unsigned long cmd, uint8_t *buf, size_t len,
		 bool mutated)
{
	struct arena *a = &w->a;
	void *arg = buf;
	int ret;

	if (mutated)
		mutate(buf, len);
	if (chance(5)) {
		switch (below(4)) {
		case 0:		/* read-only: the copy back must fail cleanly */
			if (!mprotect(a->ro, a->page, PROT_READ | PROT_WRITE)) {
				memcpy(a->ro, buf, len < a->page ? len : a->page);
				mprotect(a->ro, a->page, PROT_READ);
			}
			arg = a->ro;
			break;
		case 1:		/* straddles the unmapped page */
			memcpy(a->guard - len / 2, buf, len / 2);
			arg = a->guard - len / 2;
			break;
		default:
			arg = (void *)(uintptr_t)pick_ptr(a, len, 100);
			break;
		}
	}
	ret = fz_ioctl(w, fd, cmd, arg);
	/* a misplaced struct that worked (misaligned): its answer is there */
	if (!ret && arg != buf && (uint8_t *)arg >= a->rw && (uint8_t *)arg + len <= a->guard)
		memmove(buf, arg, len);
	return ret;
}

#define ARGBUF_LEN	8192

static void do_query(struct worker *w, uint8_t *buf)
{
	struct mpirma_query *q = (void *)buf;

	w->what = "QUERY";
	q->size = sizeof(*q);
	issue(w, pick_fd(w, w->dev), MPIRMA_IOC_QUERY, buf, sizeof(*q), chance(40));
}

static void do_null(struct worker *w, uint8_t *buf)
{
	w->what = "NULL";
	fz_ioctl(w, pick_fd(w, w->dev), MPIRMA_IOC_NULL, chance(50) ? buf : NULL);
}

static void do_job_create(struct worker *w, uint8_t *buf)
{
	struct mpirma_job_create *jc = (void *)buf;
	struct fz_job *job = &w->jobs[below(MAX_JOBS)];
	bool mut = chance(30);
	int ret, r;

	w->what = "JOB_CREATE";
	jc->size = sizeof(*jc);
	jc->nranks = 1 + below(MAX_RANKS);
	ret = issue(w, pick_fd(w, w->dev), MPIRMA_IOC_JOB_CREATE, buf, sizeof(*jc), mut);
	if (ret || jc->job_fd < 0)
		return;
	if (mut || job->jfd >= 0 || jc->nranks > MAX_RANKS || !jc->nranks) {
		/* not one we keep: a job whose ranks never join */
		close(jc->job_fd);
		return;
	}
	/* the slot is free (no job fd): forget the old members too */
	for (r = 0; r < MAX_RANKS; r++) {
		if (job->mfd[r] >= 0)
			close(job->mfd[r]);
		job->mfd[r] = -1;
		job->gone[r] = false;
	}
	for (r = 0; r < MAX_WINS; r++)
		if (w->wins[r].used && &w->jobs[w->wins[r].job] == job)
			w->wins[r].used = false;
	job->jfd = jc->job_fd;
	job->nranks = jc->nranks;
}

static void do_job_join(struct worker *w, uint8_t *buf)
{
	struct mpirma_job_join *jj = (void *)buf;
	struct fz_job *job = &w->jobs[below(MAX_JOBS)];
	bool mut = chance(30);
	int ret;

	w->what = "JOB_JOIN";
	jj->size = sizeof(*jj);
	jj->rank = below(job->nranks + 1);
	ret = issue(w, pick_fd(w, job->jfd), MPIRMA_IOC_JOB_JOIN, buf, sizeof(*jj), mut);
	if (ret || jj->member_fd < 0)
		return;
	if (job->jfd < 0 || jj->rank >= MAX_RANKS || job->mfd[jj->rank] >= 0 ||
	    jj->nranks != job->nranks) {
		close(jj->member_fd);	/* a member of a job we do not track */
		return;
	}
	job->mfd[jj->rank] = jj->member_fd;
}

/* Close a job fd or a member fd: the rank is gone for good. */
static void do_close(struct worker *w)
{
	struct fz_job *job = &w->jobs[below(MAX_JOBS)];
	int r = below(MAX_RANKS);

	if (chance(50) && job->jfd >= 0) {
		close(job->jfd);
		job->jfd = -1;
	} else if (job->mfd[r] >= 0) {
		close(job->mfd[r]);
		job->mfd[r] = -1;
		job->gone[r] = true;
	}
}

/* USER window memory of slot @i (MAX_WINS: a spare for untracked windows). */
static uint8_t *win_mem(unsigned int i)
{
	return area(AREA_WINMEM + i * WINMEM_SLOT);
}

static void win_mem_release(uint8_t *base, size_t len)
{
	if (base)
		scratch_map(base, len, PROT_NONE);	/* back into the reservation */
}

static struct fz_win *free_win_slot(struct worker *w)
{
	struct fz_win *fw = &w->wins[below(MAX_WINS)];

	if (fw->used && !fw->freed)
		return NULL;	/* keep live windows; their slot is busy */
	if (fw->map)
		munmap(fw->map, fw->map_len);
	win_mem_release(fw->base, fw->base_len);
	memset(fw, 0, sizeof(*fw));
	return fw;
}

static void do_win_create(struct worker *w, uint8_t *buf)
{
	struct mpirma_win_create *wc = (void *)buf;
	uint32_t *ranks = (uint32_t *)(buf + ARGBUF_LEN - 64);
	struct fz_win *fw = free_win_slot(w);
	int j, r, fd = pick_member(w, &j, &r), ret;
	bool mut = chance(35);
	uint8_t *base = NULL;
	uint64_t len;

	w->what = "WIN_CREATE";
	len = chance(80) ? below(3 * w->a.page) : pick_interesting();
	wc->size = sizeof(*wc);
	wc->flavor = below(MPIRMA_NR_FLAVORS);
	wc->strategy = below(MPIRMA_NR_STRATEGIES);
	wc->disp_unit = 1U << below(4);
	wc->nranks = 1;
	ranks[0] = fd >= 0 ? (uint32_t)r : 0;
	if (chance(10) && fd >= 0) {
		/* a group with another rank: waits, then the timer interrupts */
		wc->nranks = 2;
		ranks[1] = (r + 1) % MAX_RANKS;
	}
	wc->ranks = chance(95) ? (uintptr_t)ranks : pick_ptr(&w->a, 8, 100);
	wc->context = chance(80) ? w->next_context++ : pick_interesting();
	if (wc->flavor == MPIRMA_FLAVOR_ALLOC) {
		wc->length = len;
		wc->flags = below(8) & (chance(70) ? MPIRMA_WIN_CONTIG : 7);
		wc->numa_node = below(2);
	} else if (wc->flavor == MPIRMA_FLAVOR_USER) {
		wc->length = len;
		if (len <= 4 * w->a.page && chance(90)) {
			base = win_mem(fw ? (unsigned int)(fw - w->wins) : MAX_WINS);
			if (scratch_map(base, len ? len : 1, PROT_READ | PROT_WRITE))
				base = NULL;
			wc->base = (uintptr_t)base + (chance(20) ? below(64) : 0);
		} else {
			wc->base = pick_ptr(&w->a, len, 60);
		}
	}
	ret = issue(w, pick_fd(w, fd), MPIRMA_IOC_WIN_CREATE, buf, sizeof(*wc), mut);
	if (ret || !fw || fd < 0 || mut) {
		win_mem_release(base, len ? len : 1);
		return;
	}
	fw->used = true;
	fw->job = j;
	fw->rank = r;
	fw->id = wc->win_id;
	fw->flavor = wc->flavor;
	fw->disp_unit = wc->disp_unit;
	fw->len = wc->length;
	fw->base = base;
	fw->base_len = len ? len : 1;
}

static void do_win_sync(struct worker *w, uint8_t *buf, unsigned long cmd, const char *name)
{
	struct mpirma_win_sync *s = (void *)buf;
	struct fz_win *fw = pick_win(w);
	bool mut = chance(25);
	int ret;

	w->what = name;
	s->size = sizeof(*s);
	s->win_id = pick_win_id(fw);
	if (cmd == MPIRMA_IOC_WIN_LOCK) {
		s->flags = chance(50) ? MPIRMA_SYNC_SHARED : MPIRMA_SYNC_EXCLUSIVE;
		if (chance(50))
			s->flags |= MPIRMA_SYNC_NOWAIT;
	}
	if (cmd == MPIRMA_IOC_WIN_WAIT && chance(70))
		s->flags = MPIRMA_SYNC_TEST;
	if (cmd == MPIRMA_IOC_WIN_LOCK || cmd == MPIRMA_IOC_WIN_UNLOCK)
		s->rank = chance(20) ? MPIRMA_RANK_ALL : below(2);
	ret = issue(w, win_fd(w, fw), cmd, buf, sizeof(*s), mut);
	if (cmd == MPIRMA_IOC_WIN_FREE && fw && (ret == 0 || ret == -EOWNERDEAD) && !mut &&
	    s->win_id == fw->id)
		fw->freed = true;
}

static void do_win_query(struct worker *w, uint8_t *buf)
{
	struct mpirma_win_query *q = (void *)buf;
	struct fz_win *fw = pick_win(w);

	w->what = "WIN_QUERY";
	q->size = chance(10) ? offsetof(struct mpirma_win_query, worker) : sizeof(*q);
	q->win_id = pick_win_id(fw);
	q->rank = below(3);
	issue(w, win_fd(w, fw), MPIRMA_IOC_WIN_QUERY, buf, sizeof(*q), chance(30));
}

static void do_win_stats(struct worker *w, uint8_t *buf)
{
	struct mpirma_win_stats *s = (void *)buf;
	struct fz_win *fw = pick_win(w);

	w->what = "WIN_STATS";
	s->size = sizeof(*s);
	s->win_id = pick_win_id(fw);
	issue(w, win_fd(w, fw), MPIRMA_IOC_WIN_STATS, buf, sizeof(*s), chance(30));
}

static void do_win_placement(struct worker *w, uint8_t *buf)
{
	struct mpirma_win_placement *p = (void *)buf;
	struct fz_win *fw = pick_win(w);

	w->what = "WIN_PLACEMENT";
	p->size = sizeof(*p);
	p->win_id = pick_win_id(fw);
	p->rank = below(2);
	p->nr_nodes = chance(80) ? below(8) : (uint32_t)pick_interesting();
	p->counts = pick_ptr(&w->a, 8 * 8, 10);
	issue(w, win_fd(w, fw), MPIRMA_IOC_WIN_PLACEMENT, buf, sizeof(*p), chance(30));
}

static void do_win_attach(struct worker *w, uint8_t *buf, bool detach)
{
	struct mpirma_win_attach *at = (void *)buf;
	struct fz_win *fw = pick_win(w);
	size_t len = 1 + below(3 * w->a.page);

	w->what = detach ? "WIN_DETACH" : "WIN_ATTACH";
	at->size = sizeof(*at);
	at->win_id = pick_win_id(fw);
	/* attached regions come from the arena: overlaps are likely */
	at->base = (uintptr_t)w->a.rw + below(8) * w->a.page + (chance(30) ? below(100) : 0);
	if (chance(15))
		at->base = pick_ptr(&w->a, len, 100);
	at->length = detach ? 0 : (chance(90) ? len : pick_interesting());
	issue(w, win_fd(w, fw), detach ? MPIRMA_IOC_WIN_DETACH : MPIRMA_IOC_WIN_ATTACH,
	      buf, sizeof(*at), chance(25));
}

static void do_win_group(struct worker *w, uint8_t *buf, bool post)
{
	struct mpirma_win_group *g = (void *)buf;
	uint32_t *ranks = (uint32_t *)(buf + ARGBUF_LEN - 64);
	struct fz_win *fw = pick_win(w);
	uint32_t i;

	w->what = post ? "WIN_POST" : "WIN_START";
	g->size = sizeof(*g);
	g->win_id = pick_win_id(fw);
	g->nranks = below(3);
	for (i = 0; i < 4; i++)
		ranks[i] = below(2);
	g->ranks = chance(90) ? (uintptr_t)ranks : pick_ptr(&w->a, 16, 100);
	issue(w, win_fd(w, fw), post ? MPIRMA_IOC_WIN_POST : MPIRMA_IOC_WIN_START,
	      buf, sizeof(*g), chance(25));
}

static void do_msg(struct worker *w, uint8_t *buf, bool send)
{
	struct mpirma_msg *m = (void *)buf;
	int j, r, fd = pick_member(w, &j, &r);
	uint64_t len = chance(90) ? below(2 * w->a.page) : pick_interesting();
	bool mut = chance(30);

	w->what = send ? "MSG_SEND" : "MSG_RECV";
	m->size = sizeof(*m);
	m->peer = fd >= 0 && chance(80) ? (uint32_t)below(w->jobs[j].nranks) : MPIRMA_ANY_SOURCE;
	m->tag = send ? (int32_t)below(4) : (chance(50) ? MPIRMA_ANY_TAG : (int32_t)below(4));
	m->context = below(3);
	m->len = len;
	m->buf = pick_ptr(&w->a, len, 10);
	if (!send)
		m->flags = MPIRMA_MSG_NOWAIT | (chance(20) ? MPIRMA_MSG_PEEK : 0);
	if (!send && chance(5))
		m->flags = 0;	/* waits; the timer ends it */
	if (mut)
		mutate(buf, sizeof(*m));
	/*
	 * A message is buffered in the kernel whatever its size (charged to
	 * the memory cgroup, not RLIMIT_MEMLOCK): keep sizes between the cap
	 * and "more than the machine has" out, or the VM runs out of memory.
	 */
	if (send && m->len > MSG_LEN_CAP && m->len < (1ULL << 40))
		m->len = MSG_LEN_CAP;
	issue(w, pick_fd(w, fd), send ? MPIRMA_IOC_MSG_SEND : MPIRMA_IOC_MSG_RECV,
	      buf, sizeof(*m), false);
}

static void do_barrier(struct worker *w)
{
	int j, r;

	w->what = "JOB_BARRIER";
	fz_ioctl(w, pick_fd(w, pick_member(w, &j, &r)), MPIRMA_IOC_JOB_BARRIER, NULL);
}

/* An unknown command, or a known one with random bytes and a random size. */
static void do_random_cmd(struct worker *w, uint8_t *buf)
{
	unsigned long cmd;
	size_t i;

	w->what = "random command";
	for (i = 0; i < 256; i += 8) {
		uint64_t v = chance(50) ? rnd() : pick_interesting();

		memcpy(buf + i, &v, 8);
	}
	if (chance(50)) {
		uint32_t size = below(256);

		memcpy(buf, &size, 4);
	}
	switch (below(4)) {
	case 0:		/* right magic, any number, any direction and size */
		cmd = _IOC(below(4), MPIRMA_IOC_MAGIC, below(0x60), below(300));
		break;
	case 1:		/* wrong magic */
		cmd = _IOC(below(4), below(256), below(256), below(300));
		break;
	case 2:
		cmd = (uint32_t)rnd();
		break;
	default:	/* a real number with another direction or size */
		cmd = _IOC(below(4), MPIRMA_IOC_MAGIC, _IOC_NR(MPIRMA_IOC_RMA) & ~below(0x40),
			   below(200));
		break;
	}
	fz_ioctl(w, pick_fd(w, -1), cmd, chance(90) ? buf : (void *)(uintptr_t)pick_ptr(&w->a, 64, 100));
}

/* mmap a member fd at a random offset, length and protection. */
static void do_mmap(struct worker *w)
{
	struct fz_win *fw = pick_win(w);
	int fd = win_fd(w, fw);
	size_t len = (1 + below(4)) * w->a.page;
	off_t off;
	void *p;

	w->what = "mmap";
	off = (off_t)(((uint64_t)pick_win_id(fw) << 32) & INT64_MAX);
	if (chance(15))
		off = (off_t)(pick_interesting() & ~(uint64_t)(w->a.page - 1) & INT64_MAX);
	p = mmap(NULL, len, PROT_READ | (chance(80) ? PROT_WRITE : 0),
		 chance(90) ? MAP_SHARED : MAP_PRIVATE, fd, off);
	if (p == MAP_FAILED) {
		int e = errno;

		BUMP(w->st->calls);
		if (e < NR_ERRNO)
			BUMP(w->st->by_errno[e]);
		if (e != EINVAL && e != ENOENT && e != ENODEV && e != EBADF &&
		    e != ENOMEM && e != EACCES && e != EOVERFLOW) {
			BUMP(w->st->unexpected);
			report(w, "mmap(len %zu, off %#llx): errno %d (%s)", len,
			       (unsigned long long)off, e, strerror(e));
		}
		return;
	}
	BUMP(w->st->calls);
	BUMP(w->st->by_errno[0]);
	/* the pages are there and zero or written: touching must not fault */
	*(volatile uint8_t *)p;
	if (fw && !fw->map && !fw->freed && chance(50)) {
		fw->map = p;
		fw->map_len = len;
	} else {
		munmap(p, len);
	}
}

/* ---- RMA ---- */

static const unsigned int cas_types[] = {
	MPIRMA_TYPE_BYTE, MPIRMA_TYPE_INT8, MPIRMA_TYPE_UINT16, MPIRMA_TYPE_INT32,
	MPIRMA_TYPE_UINT32, MPIRMA_TYPE_INT64, MPIRMA_TYPE_UINT64, MPIRMA_TYPE_BOOL,
};

/*
 * A layout of @nelem elements of @esize bytes: contiguous, or blocks that
 * may overlap, go backwards and repeat with any extent.  Block lists live in
 * @blk (room for 16).
 */
static void build_layout(struct worker *w, struct mpirma_layout *l, uint64_t nelem,
			 size_t esize, bool target, struct mpirma_block *blk)
{
	uint32_t i, nb;
	uint64_t left = nelem;

	memset(l, 0, sizeof(*l));
	if (!target)
		l->addr = (uintptr_t)arena_good(&w->a, nelem * esize * 4 + 1024) + 512;
	if (chance(60) || !nelem) {
		l->count = nelem;
		return;
	}
	/* nelem = count * sum(block elements) */
	l->count = 1 + below(3);
	while (nelem % l->count)
		l->count--;
	left = nelem / l->count;
	nb = 1 + below(left < 8 ? left : 8);
	for (i = 0; i < nb; i++) {
		uint64_t k = i == nb - 1 ? left : 1 + below(left - (nb - 1 - i));

		blk[i].len = k * esize;
		left -= k;
		blk[i].disp = (int64_t)(chance(80) ? i * 64 * esize : below(512)) -
			      (chance(10) ? 256 : 0);
		if (!k)
			break;
	}
	l->nblocks = i < nb ? i + 1 : nb;
	l->blocks = (uintptr_t)blk;
	l->extent = chance(80) ? (int64_t)(nb * 64 * esize) : (int64_t)below(256) - 128;
}

static void build_op(struct worker *w, struct mpirma_op *op, struct fz_win *fw,
		     struct mpirma_block *blk)
{
	unsigned int type, kind = below(MPIRMA_NR_KINDS);
	uint64_t n = chance(90) ? 1 + below(32) : below(2048);
	size_t esize;

	memset(op, 0, sizeof(*op));
	if (kind == MPIRMA_KIND_CAS)
		type = cas_types[below(MT_ARRAY_SIZE(cas_types))];
	else
		type = below(MPIRMA_NR_TYPES);
	esize = ref_type_size(type);
	op->kind = kind;
	op->type = type;
	if (kind == MPIRMA_KIND_ACC || kind == MPIRMA_KIND_GET_ACC) {
		unsigned int o, tries;

		for (tries = 0, o = below(MPIRMA_NR_OPS); tries < 20; tries++) {
			if (ref_op_allowed(o, type) &&
			    (kind == MPIRMA_KIND_GET_ACC || o != MPIRMA_OP_NO_OP))
				break;
			o = below(MPIRMA_NR_OPS);
		}
		op->op = o;
	}
	if (kind == MPIRMA_KIND_CAS)
		n = 1;
	op->target_rank = chance(95) ? 0 : below(3);
	if (fw && fw->len && fw->flavor != MPIRMA_FLAVOR_DYNAMIC)
		op->target_disp = below(fw->len / (fw->disp_unit ? fw->disp_unit : 1) + 2);
	else if (fw && fw->flavor == MPIRMA_FLAVOR_DYNAMIC)
		op->target_disp = (uintptr_t)w->a.rw + below(8 * w->a.page);
	else
		op->target_disp = below(64);
	if (chance(5))
		op->target_disp = pick_interesting();
	build_layout(w, &op->target, n, esize, true, blk);
	if (kind != MPIRMA_KIND_GET &&
	    !(kind == MPIRMA_KIND_GET_ACC && op->op == MPIRMA_OP_NO_OP))
		build_layout(w, &op->origin, n, esize, false, blk + 16);
	if (kind == MPIRMA_KIND_GET || kind == MPIRMA_KIND_GET_ACC || kind == MPIRMA_KIND_CAS)
		build_layout(w, &op->result, n, esize, false, blk + 32);
	if (kind == MPIRMA_KIND_CAS)
		op->compare = (uintptr_t)arena_good(&w->a, 8);
	/* huge counts: the same shape, repeated beyond any window */
	if (chance(3))
		op->target.count = pick_interesting();
	if (chance(3) && op->origin.count)
		op->origin.count = pick_interesting();
	if (chance(4)) {
		op->origin.addr = pick_ptr(&w->a, n * esize, 100);
		op->result.addr = op->result.count ? pick_ptr(&w->a, n * esize, 50) : 0;
	}
}

static void do_rma(struct worker *w, uint8_t *buf)
{
	struct mpirma_rma *rma = (void *)buf;
	/* ops and blocks live in the arena's last pages, next to the guard */
	size_t op_size = sizeof(struct mpirma_op);
	uint32_t i, nops = chance(80) ? 1 + below(4) : below(64), nfailed = 0;
	uint8_t *ops = w->a.ops;
	struct mpirma_block *blk = (void *)(w->a.ops + 64 * 1024);
	struct fz_win *fw = pick_win(w);
	bool mut = chance(15), mut_ops = chance(30);
	int ret;

	w->what = "RMA";
	if (chance(10))
		op_size += 8 * below(8);	/* a longer op, tail zero or not */
	if (nops * op_size > 64 * 1024)
		nops = 64 * 1024 / op_size;
	memset(ops, 0, nops * op_size);
	for (i = 0; i < nops; i++) {
		struct mpirma_op *op = (void *)(ops + i * op_size);

		build_op(w, op, fw, blk + (i % 4) * 48);
		if (mut_ops && chance(50))
			mutate((uint8_t *)op, sizeof(*op) - 8);	/* no size field: fix it */
		if (op_size > sizeof(*op) && chance(30))
			ops[i * op_size + sizeof(*op) + below(op_size - sizeof(*op))] = 0x5a;
		op->status = 0x5a5a5a5a;
	}
	if (chance(10))
		for (i = 0; i < 8; i++)
			mutate((uint8_t *)&blk[below(4 * 48)], sizeof(*blk) - 4);
	rma->size = sizeof(*rma);
	rma->win_id = pick_win_id(fw);
	rma->nops = nops;
	rma->op_size = op_size;
	rma->ops = (uintptr_t)ops;
	if (chance(3))
		rma->ops = pick_ptr(&w->a, nops * op_size, 100);
	if (chance(3))
		rma->nops = pick_interesting();
	ret = issue(w, win_fd(w, fw), MPIRMA_IOC_RMA, buf, sizeof(*rma), mut);
	if (ret || mut || rma->ops != (uintptr_t)ops || rma->nops != nops)
		return;
	/* every status written, each 0 or a documented errno; nfailed agrees */
	for (i = 0; i < nops; i++) {
		struct mpirma_op *op = (void *)(ops + i * op_size);

		if (op->status == 0x5a5a5a5a) {
			BUMP(w->st->unexpected);
			report(w, "RMA: status of op %u of %u not written", i, nops);
		} else if (op->status > 0 || (op->status && !errno_documented(-op->status))) {
			BUMP(w->st->unexpected);
			report(w, "RMA: op %u (kind %u type %u op %u) status %d", i,
			       op->kind, op->type, op->op, op->status);
		}
		if (op->status)
			nfailed++;
		if (op->status <= 0 && -op->status < NR_ERRNO)
			BUMP(w->st->op_by_errno[-op->status]);
	}
	if (nfailed != rma->nfailed) {
		BUMP(w->st->unexpected);
		report(w, "RMA: nfailed %u, statuses say %u", rma->nfailed, nfailed);
	}
}

/* ---- a rank in a child, killed mid-call sometimes ---- */

/* @cmd on @fd until it ends other than by the timer (a bounded number of times). */
static int pair_call(struct worker *w, int fd, unsigned long cmd, void *arg, const char *what)
{
	int i, ret = -EINTR;

	w->what = what;
	for (i = 0; i < 200 && ret == -EINTR; i++)
		ret = fz_ioctl(w, fd, cmd, arg);
	return ret;
}

/*
 * Hand rank b of a job to a child: the child and the caller (rank a)
 * create a window over {a, b}, fence and free it; the child is killed at a
 * random moment a third of the time, which makes the caller's collective
 * end in EOWNERDEAD.  The caller gives up its copy of b's fd, so b is gone
 * when the child is.
 */
static void do_fork_rank(struct worker *w, uint8_t *buf)
{
	struct fz_job *job = &w->jobs[below(MAX_JOBS)];
	uint32_t ranks[2], a = MAX_RANKS, b = MAX_RANKS, r;
	struct mpirma_win_create *wc = (void *)buf;
	struct mpirma_win_sync *s = (void *)(buf + 512);
	uint64_t ctx = w->next_context++;
	int status;
	pid_t pid;

	for (r = 0; r < MAX_RANKS; r++) {
		if (job->mfd[r] < 0)
			continue;
		if (a == MAX_RANKS)
			a = r;
		else if (b == MAX_RANKS)
			b = r;
	}
	if (b == MAX_RANKS)
		return;
	ranks[0] = a;
	ranks[1] = b;
	memset(wc, 0, sizeof(*wc));
	wc->size = sizeof(*wc);
	wc->flavor = chance(50) ? MPIRMA_FLAVOR_ALLOC : MPIRMA_FLAVOR_DYNAMIC;
	wc->strategy = below(MPIRMA_NR_STRATEGIES);
	wc->disp_unit = 1;
	wc->length = wc->flavor == MPIRMA_FLAVOR_ALLOC ? below(10000) : 0;
	wc->ranks = (uintptr_t)ranks;
	wc->nranks = 2;
	wc->context = ctx | (1ULL << 63);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return;
	if (pid == 0) {
		struct mpirma_win_sync cs = { .size = sizeof(cs) };
		int mfd = job->mfd[b];

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (ioctl(mfd, MPIRMA_IOC_WIN_CREATE, wc))
			_exit(0);
		cs.win_id = wc->win_id;
		ioctl(mfd, MPIRMA_IOC_WIN_FENCE, &cs);
		ioctl(mfd, MPIRMA_IOC_WIN_FREE, &cs);
		_exit(0);
	}
	close(job->mfd[b]);
	job->mfd[b] = -1;
	job->gone[b] = true;
	if (chance(33)) {
		usleep(below(5000));
		kill(pid, SIGKILL);
	}
	if (!pair_call(w, job->mfd[a], MPIRMA_IOC_WIN_CREATE, wc, "WIN_CREATE (pair)")) {
		memset(s, 0, sizeof(*s));
		s->size = sizeof(*s);
		s->win_id = wc->win_id;
		pair_call(w, job->mfd[a], MPIRMA_IOC_WIN_FENCE, s, "WIN_FENCE (pair)");
		pair_call(w, job->mfd[a], MPIRMA_IOC_WIN_FREE, s, "WIN_FREE (pair)");
	}
	/* a child still waiting (the caller gave up) is not needed any more */
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* ---- the canary: a job the fuzz never touches must stay exact ---- */

static int canary_open(struct worker *w)
{
	uint32_t strategy = 1 + w->idx % (MPIRMA_NR_STRATEGIES - 1);
	int ret;

	mt_solo_init(&w->canary_alloc);
	mt_solo_init(&w->canary_user);
	ret = mt_solo_open_strategy(&w->canary_alloc, MPIRMA_FLAVOR_ALLOC, strategy, CANARY_LEN);
	if (!ret)
		ret = mt_solo_open_strategy(&w->canary_user, MPIRMA_FLAVOR_USER,
					    1 + (strategy % (MPIRMA_NR_STRATEGIES - 1)),
					    CANARY_LEN);
	return ret;
}

/* A put, a get, a fetch_and_add and a CAS on each canary window; 0 if exact. */
static int canary_check_one(struct worker *w, struct mt_solo *s)
{
	uint64_t pattern[16], back[16], one = 1, old = 0, cmp, nv;
	struct mpirma_op op;
	int i, ret;

	for (i = 0; i < 16; i++)
		pattern[i] = rnd();
	op = mt_put(MPIRMA_TYPE_UINT64, 0, 128, pattern, 16);
	ret = mt_rma1(s->mfd, s->win, &op);
	if (ret)
		return ret;
	if (memcmp(s->mem + 128, pattern, sizeof(pattern)))
		return -EIO;
	memset(back, 0, sizeof(back));
	op = mt_get(MPIRMA_TYPE_UINT64, 0, 128, back, 16);
	if (mt_rma1(s->mfd, s->win, &op) || memcmp(back, pattern, sizeof(back)))
		return -EIO;
	/* counter at offset 0: fetch_and_add returns how many came before */
	op = mt_get_acc(MPIRMA_TYPE_UINT64, MPIRMA_OP_SUM, 0, 0, &one, &old, 1);
	if (mt_rma1(s->mfd, s->win, &op) || old != w->canary_count)
		return -EIO;
	cmp = old + 1;
	nv = old + 1;
	op = mt_cas(MPIRMA_TYPE_UINT64, 0, 0, &nv, &cmp, &old);
	if (mt_rma1(s->mfd, s->win, &op) || old != cmp)
		return -EIO;
	return 0;
}

/*
 * A get_accumulate (SUM) and a CAS whose targets are random block lists
 * (negative displacements, repetitions), checked element by element
 * against the window's memory as the fuzzer sees it: a layout applied at
 * the wrong place is silent to the errno checks, not to this.  The canary
 * counter at offset 0 stays out of the layouts' way.
 */
static int canary_layouts(struct mt_solo *s)
{
	static uint8_t before[CANARY_LEN];
	uint32_t esize = 4 << below(2), type = esize == 4 ? MPIRMA_TYPE_UINT32 :
					       MPIRMA_TYPE_UINT64;
	struct mpirma_block blk[4];
	uint64_t origin[CANARY_MAX], result[CANARY_MAX], base, cmp, nv, old = 0;
	int64_t off[CANARY_MAX], lo = INT64_MAX, hi = INT64_MIN;
	struct mpirma_layout tl;
	struct mpirma_op op;
	uint32_t i, j, nb = 1 + below(4);
	long n;

	for (i = 0; i < nb; i++) {
		blk[i].disp = ((int64_t)below(128) - 64) * esize;
		blk[i].len = (1 + below(4)) * esize;
	}
	tl = mt_blocks(NULL, blk, nb, 1 + below(3), (int64_t)(40 + below(40)) * esize);
	n = mt_layout_offsets(&tl, esize, off, CANARY_MAX);
	if (n <= 0 || n > CANARY_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		lo = off[i] < lo ? off[i] : lo;
		hi = off[i] > hi ? off[i] : hi;
		for (j = 0; j < i; j++)
			if (off[i] == off[j] || (off[i] > off[j] - (int64_t)esize &&
						 off[i] < off[j] + (int64_t)esize))
				return 0;	/* overlapping: not allowed for accumulate */
	}
	/* every element inside [64, CANARY_LEN), target_disp >= 0 */
	lo = 64 - lo > 0 ? 64 - lo : 0;		/* the smallest base */
	hi = CANARY_LEN - (int64_t)esize - hi;	/* the largest */
	if (hi < lo)
		return 0;
	base = lo + below(hi - lo + 1);
	for (i = 0; i < n; i++)
		origin[i] = rnd();
	memcpy(before, s->mem, CANARY_LEN);
	op = mt_get_acc(type, MPIRMA_OP_SUM, 0, base, origin, result, n);
	op.target = tl;
	if (mt_rma1(s->mfd, s->win, &op))
		return -EIO;
	for (i = 0; i < n; i++) {
		uint64_t was = 0, now = 0, add = 0, got = 0;

		memcpy(&was, before + base + off[i], esize);
		memcpy(&now, s->mem + base + off[i], esize);
		memcpy(&add, (uint8_t *)origin + i * esize, esize);
		memcpy(&got, (uint8_t *)result + i * esize, esize);
		if (got != was || now != ((was + add) & (esize == 8 ? ~0ULL : 0xffffffffULL)))
			return -EIO;
		memcpy(before + base + off[i], s->mem + base + off[i], esize);
	}
	if (memcmp(before + 64, s->mem + 64, CANARY_LEN - 64))
		return -EIO;	/* something outside the layout changed */

	/* CAS on one element named by a block with a displacement */
	blk[0].disp = ((int64_t)below(64) - 32) * 8;
	blk[0].len = 8;
	base = 64 + 256 + below(CANARY_LEN - 64 - 512 - 8);
	memcpy(&cmp, s->mem + base + blk[0].disp, 8);
	nv = rnd();
	op = mt_cas(MPIRMA_TYPE_UINT64, 0, base, &nv, &cmp, &old);
	op.target = mt_blocks(NULL, blk, 1, 1, 8);
	if (mt_rma1(s->mfd, s->win, &op) || old != cmp ||
	    memcmp(s->mem + base + blk[0].disp, &nv, 8))
		return -EIO;
	return 0;
}

static void canary_check(struct worker *w)
{
	int ret = canary_check_one(w, &w->canary_alloc);

	if (!ret)
		ret = canary_check_one(w, &w->canary_user);
	if (!ret)
		ret = canary_layouts(&w->canary_alloc);
	if (!ret)
		ret = canary_layouts(&w->canary_user);
	if (!ret) {
		w->canary_count++;
		return;
	}
	w->st->canary_failures++;
	report(w, "canary after %" PRIu64 " calls: %d (%s)", w->st->calls, ret,
	       strerror(-ret));
}

/* ---- a thread racing the worker on the same fds and windows ---- */

/*
 * While the worker frees windows, closes fds and kills ranks, a second
 * thread uses them: RMA, queries, attach/detach, non-blocking locks, mmap.
 * It works on a snapshot of the worker's tables, refreshed often, so it
 * also calls on fds and windows that just went away (or whose fd number
 * was reused); it never closes, frees or creates anything itself.
 */
struct racer {
	struct worker *main;
	struct worker self;
	uint64_t seed;
	volatile int stop;
};

static void racer_mmap(struct worker *w)
{
	struct fz_win *fw = pick_win(w);
	size_t len = (1 + below(2)) * w->a.page;
	void *p;

	if (!fw)
		return;
	w->what = "mmap (racing)";
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, win_fd(w, fw),
		 (off_t)fw->id << 32);
	BUMP(w->st->calls);
	if (p == MAP_FAILED)
		return;
	/*
	 * A USER window's first page holds whatever the process keeps before
	 * the window's base (the fuzz's own state, maybe): only read it.
	 */
	if (fw->flavor == MPIRMA_FLAVOR_ALLOC)
		((volatile uint8_t *)p)[0] = 1;
	else
		(void)((volatile uint8_t *)p)[0];
	munmap(p, len);
}

static void *racer_run(void *arg)
{
	static __thread uint8_t buf[ARGBUF_LEN] __attribute__((aligned(64)));
	struct racer *rc = arg;
	struct worker *w = &rc->self;
	unsigned int n = 0;

	rng = rc->seed;
	while (!rc->stop) {
		if (!(n++ % 32)) {
			memcpy(w->jobs, rc->main->jobs, sizeof(w->jobs));
			memcpy(w->wins, rc->main->wins, sizeof(w->wins));
		}
		memset(buf, 0, sizeof(buf));
		switch (below(10)) {
		case 0:
			do_win_query(w, buf);
			break;
		case 1:
			do_win_stats(w, buf);
			break;
		case 2:
			do_win_placement(w, buf);
			break;
		case 3:
			do_win_attach(w, buf, below(2));
			break;
		case 4:		/* locks that never wait */
			w->what = "WIN_LOCK (racing)";
			{
				struct mpirma_win_sync *s = (void *)buf;
				struct fz_win *fw = pick_win(w);

				s->size = sizeof(*s);
				s->flags = MPIRMA_SYNC_NOWAIT | (chance(50) ? MPIRMA_SYNC_SHARED :
								  MPIRMA_SYNC_EXCLUSIVE);
				s->win_id = pick_win_id(fw);
				fz_ioctl(w, win_fd(w, fw), MPIRMA_IOC_WIN_LOCK, s);
				s->flags = 0;
				fz_ioctl(w, win_fd(w, fw), MPIRMA_IOC_WIN_UNLOCK, s);
			}
			break;
		case 5:
			racer_mmap(w);
			break;
		default:
			do_rma(w, buf);
			break;
		}
	}
	return NULL;
}

static int racer_start(struct racer *rc, struct worker *w, pthread_t *tid)
{
	rc->main = w;
	rc->self = *w;
	rc->self.a.ops = area(AREA_OPS_RACER);
	/* its own read-only page: the worker makes its page writable at times */
	rc->self.a.ro = area(AREA_RO) + 16 * w->a.page;
	if (scratch_map(rc->self.a.ops, OPS_LEN, PROT_READ | PROT_WRITE) ||
	    scratch_map(rc->self.a.ro, w->a.page, PROT_READ))
		return -ENOMEM;
	rc->seed = rnd();
	return -pthread_create(tid, NULL, racer_run, rc);
}

/* ---- a worker ---- */

static void on_alarm(int sig)
{
	(void)sig;
}

/*
 * A crash of the fuzzer itself: say where (the instruction relative to
 * on_crash, for addr2line with nm's address of on_crash), then die of it.
 */
static void on_crash(int sig, siginfo_t *si, void *uc)
{
	uintptr_t ip = ((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
	char msg[200];
	int n;

	n = snprintf(msg, sizeof(msg), "# fuzz: worker %d: signal %d at address %p, "
		     "ip on_crash%+ld, last call %s\n", (int)getpid(), sig, si->si_addr,
		     (long)(ip - (uintptr_t)on_crash), crash_what ? crash_what : "?");
	if (n > 0 && write(2, msg, n) < 0)
		_exit(128 + sig);
	signal(sig, SIG_DFL);
	raise(sig);
}

/* Open fds of this process. */
static int nr_fds(void)
{
	char path[64];
	int n = 0, fd;

	for (fd = 0; fd < NOFILE_LIMIT; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if (!access(path, F_OK))
			n++;
	}
	return n;
}

/* VmPin of this process, in kB; -1 if unknown. */
static void worker_close_all(struct worker *w)
{
	int j, r;

	for (r = 0; r < MAX_WINS; r++) {
		if (w->wins[r].map)
			munmap(w->wins[r].map, w->wins[r].map_len);
		w->wins[r].map = NULL;
	}
	for (j = 0; j < MAX_JOBS; j++) {
		if (w->jobs[j].jfd >= 0)
			close(w->jobs[j].jfd);
		w->jobs[j].jfd = -1;
		for (r = 0; r < MAX_RANKS; r++) {
			if (w->jobs[j].mfd[r] >= 0)
				close(w->jobs[j].mfd[r]);
			w->jobs[j].mfd[r] = -1;
		}
	}
	mt_solo_close(&w->canary_alloc);
	mt_solo_close(&w->canary_user);
}

static int worker_run(int idx, uint64_t seed, uint64_t calls, struct worker_stats *st)
{
	static uint8_t argbuf[ARGBUF_LEN] __attribute__((aligned(64)));
	struct rlimit ml = { MEMLOCK_LIMIT, MEMLOCK_LIMIT };
	struct rlimit nf = { NOFILE_LIMIT, NOFILE_LIMIT };
	struct itimerval tv = { { 0, TIMER_US }, { 0, TIMER_US } };
	struct sigaction sa = { .sa_handler = on_alarm };
	struct worker *w = calloc(1, sizeof(*w));
	struct racer *rc = calloc(1, sizeof(*rc));
	uint64_t next_canary = CANARY_EVERY;
	pthread_t racer_tid;
	int j, r, ret, fds;
	long pin;

	if (!w || !rc)
		return 1;
	w->idx = idx;
	w->st = st;
	rng = seed;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (mt_drop_ipc_lock() || setrlimit(RLIMIT_MEMLOCK, &ml) || setrlimit(RLIMIT_NOFILE, &nf)) {
		report(w, "cannot drop CAP_IPC_LOCK or set the limits: %s", strerror(errno));
		return 1;
	}
	if (arena_init(&w->a)) {
		report(w, "cannot map the arena");
		return 1;
	}
	fds = nr_fds();
	w->dev = mt_open();
	w->devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (j = 0; j < MAX_JOBS; j++) {
		w->jobs[j].jfd = -1;
		w->jobs[j].nranks = 1;
		for (r = 0; r < MAX_RANKS; r++)
			w->jobs[j].mfd[r] = -1;
	}
	ret = canary_open(w);
	if (w->dev < 0 || ret) {
		report(w, "setup failed: dev %d, canary %d", w->dev, ret);
		return 1;
	}
	/* a one-rank job to start from, so that window calls happen at once */
	w->jobs[0].jfd = mt_job_create(w->dev, 1, NULL);
	w->jobs[0].mfd[0] = w->jobs[0].jfd >= 0 ? mt_job_join(w->jobs[0].jfd, 0) : -1;

	sigaction(SIGALRM, &sa, NULL);
	sa.sa_handler = NULL;
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	setitimer(ITIMER_REAL, &tv, NULL);
	if (racer_start(rc, w, &racer_tid)) {
		report(w, "cannot start the racing thread");
		return 1;
	}

	while (st->calls < calls) {
		unsigned int dice = below(1000);

		memset(argbuf, 0, sizeof(argbuf));
		if (dice < 30)
			do_query(w, argbuf);
		else if (dice < 45)
			do_null(w, argbuf);
		else if (dice < 85)
			do_job_create(w, argbuf);
		else if (dice < 135)
			do_job_join(w, argbuf);
		else if (dice < 150)
			do_close(w);
		else if (dice < 230)
			do_win_create(w, argbuf);
		else if (dice < 260)
			do_win_sync(w, argbuf, MPIRMA_IOC_WIN_FREE, "WIN_FREE");
		else if (dice < 280)
			do_win_sync(w, argbuf, MPIRMA_IOC_WIN_FENCE, "WIN_FENCE");
		else if (dice < 310)
			do_win_sync(w, argbuf, MPIRMA_IOC_WIN_LOCK, "WIN_LOCK");
		else if (dice < 340)
			do_win_sync(w, argbuf, MPIRMA_IOC_WIN_UNLOCK, "WIN_UNLOCK");
		else if (dice < 355)
			do_win_sync(w, argbuf, MPIRMA_IOC_WIN_COMPLETE, "WIN_COMPLETE");
		else if (dice < 370)
			do_win_sync(w, argbuf, MPIRMA_IOC_WIN_WAIT, "WIN_WAIT");
		else if (dice < 385)
			do_win_group(w, argbuf, true);
		else if (dice < 395)
			do_win_group(w, argbuf, false);
		else if (dice < 430)
			do_win_query(w, argbuf);
		else if (dice < 450)
			do_win_stats(w, argbuf);
		else if (dice < 470)
			do_win_placement(w, argbuf);
		else if (dice < 500)
			do_win_attach(w, argbuf, false);
		else if (dice < 515)
			do_win_attach(w, argbuf, true);
		else if (dice < 545)
			do_msg(w, argbuf, true);
		else if (dice < 575)
			do_msg(w, argbuf, false);
		else if (dice < 580)
			do_barrier(w);
		else if (dice < 610)
			do_random_cmd(w, argbuf);
		else if (dice < 630)
			do_mmap(w);
		else if (dice < 633)
			do_fork_rank(w, argbuf);
		else
			do_rma(w, argbuf);

		if (st->calls >= next_canary) {
			canary_check(w);
			next_canary += CANARY_EVERY;
		}
	}
	canary_check(w);
	rc->stop = 1;
	pthread_join(racer_tid, NULL);

	tv.it_value.tv_usec = 0;
	tv.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &tv, NULL);
	worker_close_all(w);
	for (j = 0; j < MAX_WINS; j++)
		win_mem_release(w->wins[j].base, w->wins[j].base_len);
	close(w->dev);
	close(w->devnull);
	/* every fd a call made is known to the fuzzer, and closed now */
	st->fds_left = nr_fds() - fds;
	if (st->fds_left)
		report(w, "%d fds open after closing everything", st->fds_left);
	/* every charge is given back once every fd is closed */
	for (j = 0; j < 50 && (pin = mt_vmpin_kb()) > 0; j++)
		mt_sleep_ms(100);
	if (pin != 0) {
		st->vmpin_left = pin;
		report(w, "VmPin is %ld kB after closing everything", pin);
	}
	return 0;
}

/* ---- the parent ---- */

static const char *errno_name(int e)
{
	static char buf[16];

	switch (e) {
	case 0: return "ok";
	case ENOTTY: return "ENOTTY";
	case E2BIG: return "E2BIG";
	case EINVAL: return "EINVAL";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENOENT: return "ENOENT";
	case ENXIO: return "ENXIO";
	case ERANGE: return "ERANGE";
	case EOVERFLOW: return "EOVERFLOW";
	case EFAULT: return "EFAULT";
	case ENOMEM: return "ENOMEM";
	case EOWNERDEAD: return "EOWNERDEAD";
	case EBUSY: return "EBUSY";
	case EDEADLK: return "EDEADLK";
	case ENOLCK: return "ENOLCK";
	case EAGAIN: return "EAGAIN";
	case EINTR: return "EINTR";
	case EBADF: return "EBADF";
	case ENODEV: return "ENODEV";
	case EMFILE: return "EMFILE";
	default:
		snprintf(buf, sizeof(buf), "errno %d", e);
		return buf;
	}
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--calls N] [--seed S] [--procs P] [--stall SECS] [-v]\n"
		"  --calls N     ioctls in total over all workers (default 30000)\n"
		"  --seed S      random seed (default: from the clock; printed)\n"
		"  --procs P     worker processes, 1..%d (default 2)\n"
		"  --stall SECS  a worker without progress this long hangs (default 60)\n"
		"Environment: MPIRMA_FUZZ_CALLS, MPIRMA_FUZZ_SEED, MPIRMA_FUZZ_PROCS\n",
		prog, MAX_PROCS);
}

/* Print the kernel stack of a stuck worker (root only). */
static void show_stack(pid_t pid)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stack", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		printf("#   %s", line);
	fclose(f);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "calls", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "procs", required_argument, NULL, 'p' },
		{ "stall", required_argument, NULL, 't' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t calls = 30000, seed, total = 0, unexpected = 0, canary = 0;
	uint64_t by_errno[NR_ERRNO] = { 0 }, op_by_errno[NR_ERRNO] = { 0 };
	uint64_t last[MAX_PROCS] = { 0 };
	unsigned int stall = 60, procs = 2, i, e, alive;
	uint64_t t0, t_last[MAX_PROCS];
	pid_t pid[MAX_PROCS];
	bool failed = false, verbose = false, hung = false;
	struct shared *sh;
	double secs;
	char why[64];
	int opt;

	seed = (uint64_t)time(NULL) * 1000003ULL ^ (uint64_t)getpid();
	if (getenv("MPIRMA_FUZZ_CALLS"))
		calls = strtoull(getenv("MPIRMA_FUZZ_CALLS"), NULL, 0);
	if (getenv("MPIRMA_FUZZ_SEED"))
		seed = strtoull(getenv("MPIRMA_FUZZ_SEED"), NULL, 0);
	if (getenv("MPIRMA_FUZZ_PROCS"))
		procs = strtoul(getenv("MPIRMA_FUZZ_PROCS"), NULL, 0);
	while ((opt = getopt_long(argc, argv, "n:s:p:t:vh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'n': calls = strtoull(optarg, NULL, 0); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'p': procs = strtoul(optarg, NULL, 0); break;
		case 't': stall = strtoul(optarg, NULL, 0); break;
		case 'v': verbose = true; break;
		case 'h': usage(argv[0]); return 0;
		default: usage(argv[0]); return 2;
		}
	}
	if (!procs || procs > MAX_PROCS || !calls) {
		usage(argv[0]);
		return 2;
	}
	printf("TAP version 13\n1..1\n");
	printf("# fuzz: --calls %" PRIu64 " --seed %" PRIu64 " --procs %u\n", calls, seed, procs);
	fflush(stdout);
	if (!mt_device_present()) {
		printf("ok 1 fuzz # SKIP %s missing\n", MPIRMA_DEVICE);
		return 0;
	}
	sh = mt_shm(sizeof(*sh));
	if (!sh) {
		printf("not ok 1 fuzz # no shared memory\n");
		return 1;
	}
	t0 = mt_now_ms();
	for (i = 0; i < procs; i++) {
		uint64_t share = calls / procs + (i < calls % procs);

		fflush(NULL);
		pid[i] = fork();
		if (pid[i] < 0) {
			printf("not ok 1 fuzz # fork: %s\n", strerror(errno));
			return 1;
		}
		if (pid[i] == 0) {
			int rc = worker_run(i, seed + i * 0x1000193ULL, share, &sh->w[i]);

			sh->w[i].done = 1;
			_exit(rc);
		}
		t_last[i] = t0;
	}

	/* the watchdog: a worker whose count does not move is stuck */
	for (alive = procs; alive;) {
		mt_sleep_ms(500);
		alive = 0;
		for (i = 0; i < procs; i++) {
			int status;

			if (pid[i] <= 0)
				continue;
			if (waitpid(pid[i], &status, WNOHANG) == pid[i]) {
				if (!WIFEXITED(status) || WEXITSTATUS(status)) {
					printf("# worker %u (seed %" PRIu64 ") died: status %#x\n",
					       i, (uint64_t)(seed + i * 0x1000193ULL), status);
					failed = true;
				}
				pid[i] = 0;
				continue;
			}
			alive++;
			if (sh->w[i].calls != last[i]) {
				last[i] = sh->w[i].calls;
				t_last[i] = mt_now_ms();
			} else if (mt_now_ms() - t_last[i] > stall * 1000ULL) {
				printf("# worker %u: no progress for %u s after %" PRIu64
				       " calls: hung; its kernel stack:\n", i, stall, last[i]);
				show_stack(pid[i]);
				kill(pid[i], SIGKILL);
				hung = true;
				failed = true;
			}
		}
		if (verbose) {
			for (total = 0, i = 0; i < procs; i++)
				total += sh->w[i].calls;
			printf("# %" PRIu64 " calls\n", total);
			fflush(stdout);
		}
	}
	secs = (mt_now_ms() - t0) / 1000.0;

	for (total = 0, i = 0; i < procs; i++) {
		struct worker_stats *st = &sh->w[i];

		total += st->calls;
		unexpected += st->unexpected;
		canary += st->canary_failures;
		for (e = 0; e < NR_ERRNO; e++) {
			by_errno[e] += st->by_errno[e];
			op_by_errno[e] += st->op_by_errno[e];
		}
		for (e = 0; e < st->nreports; e++)
			printf("# worker %u: %s\n", i, st->reports[e].text);
		if (st->vmpin_left || st->fds_left)
			failed = true;
	}
	printf("# fuzz: %" PRIu64 " calls in %.1f s: %.0f calls/s\n", total, secs,
	       secs > 0 ? total / secs : 0.0);
	printf("# fuzz: results:");
	for (e = 0; e < NR_ERRNO; e++)
		if (by_errno[e])
			printf(" %s %" PRIu64, errno_name(e), by_errno[e]);
	printf("\n# fuzz: RMA operation statuses:");
	for (e = 0; e < NR_ERRNO; e++)
		if (op_by_errno[e])
			printf(" %s %" PRIu64, errno_name(e), op_by_errno[e]);
	printf("\n");
	if (unexpected || canary)
		failed = true;
	printf("# fuzz: %" PRIu64 " unexpected results, %" PRIu64 " canary failures%s\n",
	       unexpected, canary, hung ? ", a worker hung" : "");
	if (!mt_counters_zero(5000, why, sizeof(why))) {
		printf("# fuzz: module counter not zero after the run: %s\n", why);
		failed = true;
	}
	printf("%s 1 fuzz (seed %" PRIu64 ")\n", failed ? "not ok" : "ok", seed);
	return failed ? 1 : 0;
}
