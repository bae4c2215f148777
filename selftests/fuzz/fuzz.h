/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fuzzer's shared definitions.  selftests/fuzz.c has the racing
 * thread, a worker's loop and the parent; fuzz/canary.c the canary job;
 * fuzz/world.c the random numbers, the errno contract, the memory handed
 * to the kernel, the mutation of argument structs and the picking of fds
 * and windows; fuzz/calls.c the commands; fuzz/rma.c RMA batches and the
 * ranks forked and killed mid-call.
 */
#ifndef MPIRMA_FUZZ_H
#define MPIRMA_FUZZ_H

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


static inline uint8_t *area(unsigned long long off)
{
	return (uint8_t *)(uintptr_t)(SCRATCH_BASE + off);
}

/* Map @len bytes at @p inside the reservation (or back to PROT_NONE). */
static inline int scratch_map(void *p, size_t len, int prot)
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


#define ARGBUF_LEN	8192

/* The worker's random stream, and what a thread calls (crash reports). */
extern __thread uint64_t rng;
extern __thread const char *crash_what;

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

/* world.c */
uint64_t rnd(void);
uint64_t below(uint64_t n);
bool chance(unsigned int pct);
uint64_t pick_interesting(void);
void report(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool errno_documented(int e);
void account(struct worker *w, int ret, int err);
int fz_ioctl(struct worker *w, int fd, unsigned long cmd, void *arg);
int arena_init(struct arena *a);
uint8_t *arena_good(struct arena *a, size_t len);
uint64_t pick_ptr(struct arena *a, size_t len, unsigned int bad_pct);
void mutate(uint8_t *buf, size_t len);
int pick_member(struct worker *w, int *jobp, int *rankp);
int pick_fd(struct worker *w, int want);
struct fz_win *pick_win(struct worker *w);
uint32_t pick_win_id(struct fz_win *fw);
int win_fd(struct worker *w, struct fz_win *fw);

/* calls.c */
int issue(struct worker *w, int fd, unsigned long cmd, uint8_t *buf, size_t len,
	  bool mutated);
void do_query(struct worker *w, uint8_t *buf);
void do_null(struct worker *w, uint8_t *buf);
void do_job_create(struct worker *w, uint8_t *buf);
void do_job_join(struct worker *w, uint8_t *buf);
void do_close(struct worker *w);
uint8_t *win_mem(unsigned int i);
void win_mem_release(uint8_t *base, size_t len);
struct fz_win *free_win_slot(struct worker *w);
void do_win_create(struct worker *w, uint8_t *buf);
void do_win_sync(struct worker *w, uint8_t *buf, unsigned long cmd, const char *name);
void do_win_query(struct worker *w, uint8_t *buf);
void do_win_stats(struct worker *w, uint8_t *buf);
void do_win_placement(struct worker *w, uint8_t *buf);
void do_win_attach(struct worker *w, uint8_t *buf, bool detach);
void do_win_group(struct worker *w, uint8_t *buf, bool post);
void do_msg(struct worker *w, uint8_t *buf, bool send);
void do_barrier(struct worker *w);
void do_random_cmd(struct worker *w, uint8_t *buf);
void do_mmap(struct worker *w);

/* rma.c */
void build_layout(struct worker *w, struct mpirma_layout *l, uint64_t nelem,
		  size_t esize, bool target, struct mpirma_block *blk);
void build_op(struct worker *w, struct mpirma_op *op, struct fz_win *fw,
	      struct mpirma_block *blk);
void do_rma(struct worker *w, uint8_t *buf);
int pair_call(struct worker *w, int fd, unsigned long cmd, void *arg, const char *what);
void do_fork_rank(struct worker *w, uint8_t *buf);

/* fuzz/canary.c: open the canary job; check it (a failure is reported) */
int canary_open(struct worker *w);
void canary_check(struct worker *w);

#endif /* MPIRMA_FUZZ_H */
