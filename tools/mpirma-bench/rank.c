// SPDX-License-Identifier: GPL-2.0
/*
 * mpirma-bench: what one rank process runs.  Each is a member of the job
 * the parent created; it makes the windows of a workload, runs the timed
 * repetitions, verifies every one exactly (totals, or for fetch_op and CAS
 * that the values all ranks saw form a permutation) and reports in its
 * slot of the shared results.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <numa.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* ------------------------------------------------------------ a rank */

/* Everything a rank process uses. */
struct rank {
	uint32_t rank, nranks;
	unsigned int ci;		/* index of this rank count in opt.counts */
	int mfd;
	double rep_time;
	int64_t *rec;			/* fetch_op/CAS values seen, REC_CAP */
	uint8_t *buf;			/* origin of large, memcpy source */
	uint8_t *buf2;			/* memcpy destination; rank 0: GET back */
	uint8_t *zero;			/* rank 0: zeros to reset the target */
	struct mpirma_op ops[MAX_BATCH];
};

/* Report a failed call and exit: "mpirma-bench: rank 2: RMA(ACC): ..." */
static void __attribute__((noreturn, format(printf, 3, 4)))
rank_die(const struct rank *r, int err, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: rank %u of %u: ", PROG, r->rank, r->nranks);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (err)
		fprintf(stderr, ": %s%s", strerror(err),
			err == ENOMEM ? " (RLIMIT_MEMLOCK? try ulimit -l or a smaller --large-size)" :
			"");
	fputc('\n', stderr);
	exit(1);
}

static void xioctl(const struct rank *r, unsigned long cmd, const char *what, void *arg)
{
	if (ioctl(r->mfd, cmd, arg) < 0)
		rank_die(r, errno, "%s", what);
}

static void barrier(const struct rank *r)
{
	/* our stores to the shared results before the others read them */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	xioctl(r, MPIRMA_IOC_JOB_BARRIER, "JOB_BARRIER", NULL);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/* One MPIRMA_IOC_RMA batch; any failed operation is fatal. */
static void rma(const struct rank *r, uint32_t win, struct mpirma_op *ops, uint32_t n,
		const char *what)
{
	struct mpirma_rma b = {
		.size = sizeof(b),
		.win_id = win,
		.nops = n,
		.ops = (uintptr_t)ops,
		.op_size = sizeof(*ops),
	};
	uint32_t k;

	xioctl(r, MPIRMA_IOC_RMA, what, &b);
	if (b.nfailed)
		for (k = 0; k < n; k++)
			if (ops[k].status)
				rank_die(r, -ops[k].status, "%s: operation %u of %u", what, k, n);
}

static uint32_t win_create(const struct rank *r, uint32_t strategy, uint64_t len,
			   uint64_t context)
{
	static uint32_t group[MAX_RANKS];
	struct mpirma_win_create wc;
	uint32_t i;

	for (i = 0; i < r->nranks; i++)
		group[i] = i;
	memset(&wc, 0, sizeof(wc));
	wc.size = sizeof(wc);
	/* kernel pages on rank 0's node (the node of the CPU it is pinned to) */
	wc.flavor = MPIRMA_FLAVOR_ALLOC;
	wc.strategy = strategy;
	wc.disp_unit = 1;
	wc.length = r->rank ? 0 : len;
	wc.ranks = (uintptr_t)group;
	wc.nranks = r->nranks;
	wc.context = context;
	xioctl(r, MPIRMA_IOC_WIN_CREATE, "WIN_CREATE", &wc);
	return wc.win_id;
}

static void win_free(const struct rank *r, uint32_t win)
{
	struct mpirma_win_sync ws = { .size = sizeof(ws), .win_id = win };

	xioctl(r, MPIRMA_IOC_WIN_FREE, "WIN_FREE", &ws);
}

static void win_stats(const struct rank *r, uint32_t win, struct mpirma_win_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	st->win_id = win;
	xioctl(r, MPIRMA_IOC_WIN_STATS, "WIN_STATS", st);
}

static struct mpirma_layout contig(const void *addr, uint64_t count)
{
	return (struct mpirma_layout){ .addr = (uintptr_t)addr, .count = count };
}

/* PUT (@put) or GET @len bytes at offset 0 of rank 0. */
static void copy_target(const struct rank *r, uint32_t win, void *buf, uint64_t len,
			bool put)
{
	struct mpirma_op op;

	memset(&op, 0, sizeof(op));
	op.kind = put ? MPIRMA_KIND_PUT : MPIRMA_KIND_GET;
	op.type = MPIRMA_TYPE_BYTE;
	op.target = contig(NULL, len);
	if (put)
		op.origin = contig(buf, len);
	else
		op.result = contig(buf, len);
	rma(r, win, &op, 1, put ? "RMA(PUT zeros)" : "RMA(GET check)");
}

/* The bytes of rank 0's window a workload uses. */
static uint64_t target_len(enum workload w, uint32_t nranks)
{
	switch (w) {
	case W_DISJOINT:
		return (uint64_t)nranks * LINE;
	case W_LARGE:
		return opt.large;
	default:
		return LINE;
	}
}

static unsigned int acc_type(void)
{
	return opt.dbl ? MPIRMA_TYPE_DOUBLE : MPIRMA_TYPE_INT64;
}

/*
 * Origin element i of rank r in the large accumulate: varies with i so that
 * an element applied at the wrong place is caught, small enough that every
 * sum is exact in a double.
 */
static int64_t large_val(uint32_t rank, uint64_t i)
{
	return rank + 1 + (int64_t)(i % 7);
}

/* An accumulate element of value @v in the element type, at @p. */
static void put_elem(void *p, int64_t v)
{
	double d = v;

	if (opt.dbl)
		memcpy(p, &d, 8);
	else
		memcpy(p, &v, 8);
}

/* Element at @p as an exact integer; false if a double is not one. */
static bool get_elem(const void *p, int64_t *v)
{
	double d;

	if (!opt.dbl) {
		memcpy(v, p, 8);
		return true;
	}
	memcpy(&d, p, 8);
	*v = (int64_t)d;
	return d == (double)*v;
}

/* The origin values of this rank, and the operations, for workload @w. */
static void prepare(struct rank *r, enum workload w, unsigned int *batch)
{
	static int64_t one = 1;
	static uint8_t val[8];
	uint64_t i, n;
	unsigned int k;

	memset(r->ops, 0, sizeof(r->ops));
	put_elem(val, r->rank + 1);
	switch (w) {
	case W_CONTENDED:
	case W_DISJOINT:
		*batch = opt.batch;
		for (k = 0; k < *batch; k++) {
			r->ops[k].kind = MPIRMA_KIND_ACC;
			r->ops[k].type = acc_type();
			r->ops[k].op = MPIRMA_OP_SUM;
			r->ops[k].target_disp = w == W_DISJOINT ? (uint64_t)r->rank * LINE : 0;
			r->ops[k].origin = contig(val, 1);
			r->ops[k].target = contig(NULL, 1);
		}
		break;
	case W_LARGE:
		*batch = 1;
		n = opt.large / 8;
		for (i = 0; i < n; i++)
			put_elem(r->buf + i * 8, large_val(r->rank, i));
		r->ops[0].kind = MPIRMA_KIND_ACC;
		r->ops[0].type = acc_type();
		r->ops[0].op = MPIRMA_OP_SUM;
		r->ops[0].origin = contig(r->buf, n);
		r->ops[0].target = contig(NULL, n);
		break;
	case W_FETCH_OP:
		*batch = opt.batch;
		for (k = 0; k < *batch; k++) {
			r->ops[k].kind = MPIRMA_KIND_GET_ACC;
			r->ops[k].type = MPIRMA_TYPE_INT64;
			r->ops[k].op = MPIRMA_OP_SUM;
			r->ops[k].origin = contig(&one, 1);
			r->ops[k].target = contig(NULL, 1);
			r->ops[k].result = contig(NULL, 1);	/* set per batch */
		}
		break;
	case W_CAS:
		*batch = 1;
		r->ops[0].kind = MPIRMA_KIND_CAS;
		r->ops[0].type = MPIRMA_TYPE_INT64;
		r->ops[0].target = contig(NULL, 1);	/* the rest per attempt */
		break;
	default:
		break;
	}
}

/* The timed loop of one repetition: fills this rank's slot. */
static void timed_loop(struct rank *r, enum workload w, uint32_t win, unsigned int batch)
{
	struct slot *sl = &res->slot[r->rank];
	uint64_t done = 0, tries = 0;
	int64_t guess = 0, next, old;
	double t0, t, deadline;
	unsigned int k, n;

	if (w == W_CAS) {
		r->ops[0].origin = contig(&next, 1);
		r->ops[0].result = contig(&old, 1);
		r->ops[0].compare = (uintptr_t)&guess;
	}
	t0 = now();
	deadline = t0 + r->rep_time;
	do {
		switch (w) {
		case W_CAS:
			/* one increment attempt; on failure retry from what we saw */
			next = guess + 1;
			rma(r, win, r->ops, 1, "RMA(CAS)");
			tries++;
			if (old == guess)
				r->rec[done++] = guess++;
			else
				guess = old;
			break;
		case W_FETCH_OP:
			n = batch < REC_CAP - done ? batch : REC_CAP - done;
			for (k = 0; k < n; k++)
				r->ops[k].result.addr = (uintptr_t)&r->rec[done + k];
			rma(r, win, r->ops, n, "RMA(GET_ACC)");
			done += n;
			break;
		default:
			rma(r, win, r->ops, batch, "RMA(ACC)");
			done += batch;
			break;
		}
		t = now();
	} while (t < deadline && (!workloads[w].record || done < REC_CAP));
	sl->ops = done;
	sl->tries = tries;
	sl->t0 = t0;
	sl->t1 = t;
	sl->bad = 0;
}

static void __attribute__((format(printf, 2, 3)))
slot_bad(struct slot *sl, const char *fmt, ...)
{
	va_list ap;

	if (sl->bad++)
		return;
	va_start(ap, fmt);
	vsnprintf(sl->why, sizeof(sl->why), fmt, ap);
	va_end(ap);
}

/*
 * fetch_op and CAS, on every rank: the values this rank saw must increase
 * (its operations are applied in order), lie below the final total T, and
 * no other rank may have seen one of them: T values in [0, T) without
 * duplicates are exactly a permutation, i.e. every increment happened once.
 */
static void check_values(struct rank *r)
{
	struct slot *sl = &res->slot[r->rank];
	uint64_t total = 0, i, v, bit;
	uint32_t q;

	for (q = 0; q < r->nranks; q++)
		total += res->slot[q].ops;
	for (i = 0; i < sl->ops; i++) {
		v = (uint64_t)r->rec[i];
		if (i && r->rec[i] <= r->rec[i - 1]) {
			slot_bad(sl, "rank %u saw %lld after %lld (order)", r->rank,
				 (long long)r->rec[i], (long long)r->rec[i - 1]);
			break;
		}
		if (v >= total) {
			slot_bad(sl, "rank %u saw %llu, beyond the %llu increments done",
				 r->rank, (unsigned long long)v, (unsigned long long)total);
			break;
		}
		bit = __atomic_fetch_or(&bitmap[v / 64], 1ULL << (v % 64), __ATOMIC_RELAXED);
		if (bit & (1ULL << (v % 64))) {
			slot_bad(sl, "value %llu seen twice (rank %u and another)",
				 (unsigned long long)v, r->rank);
			break;
		}
	}
}

/* Rank 0, after a repetition: compare the window with what must be there. */
static void verify(struct rank *r, enum workload w, uint32_t win, struct cell *c,
		   const char *where)
{
	uint64_t len = target_len(w, r->nranks), total = 0, i, n;
	int64_t want, got;
	uint32_t q;

	copy_target(r, win, r->buf2, len, false);
	for (q = 0; q < r->nranks; q++) {
		total += res->slot[q].ops;
		if (res->slot[q].bad && !c->wrong) {
			char why[sizeof(res->slot[q].why)];

			/* a copy: both strings live in the shared results */
			memcpy(why, res->slot[q].why, sizeof(why));
			why[sizeof(why) - 1] = 0;
			c->wrong = true;
			snprintf(c->why, sizeof(c->why), "%s: %s", where, why);
		}
	}
	switch (w) {
	case W_CONTENDED:
		for (want = 0, q = 0; q < r->nranks; q++)
			want += (int64_t)res->slot[q].ops * (q + 1);
		if (!get_elem(r->buf2, &got) || got != want)
			goto wrong;
		break;
	case W_DISJOINT:
		for (q = 0; q < r->nranks; q++) {
			want = (int64_t)res->slot[q].ops * (q + 1);
			if (!get_elem(r->buf2 + (size_t)q * LINE, &got) || got != want)
				goto wrong;
		}
		break;
	case W_LARGE:
		n = len / 8;
		for (i = 0; i < n; i++) {
			for (want = 0, q = 0; q < r->nranks; q++)
				want += (int64_t)res->slot[q].ops * large_val(q, i);
			if (!get_elem(r->buf2 + i * 8, &got) || got != want)
				goto wrong;
		}
		break;
	default:
		memcpy(&got, r->buf2, 8);
		want = total;
		if (got != want)
			goto wrong;
		break;
	}
	return;
wrong:
	if (!c->wrong) {
		c->wrong = true;
		snprintf(c->why, sizeof(c->why), "%s: target holds %lld, expected %lld",
			 where, (long long)got, (long long)want);
	}
}

/* One repetition of workload @w under strategy @s, all ranks. */
static void one_rep(struct rank *r, enum workload w, unsigned int s, uint32_t win,
		    unsigned int batch)
{
	struct cell *c = &res->cell[r->ci][w][s];
	struct mpirma_win_stats st0, st1;
	uint64_t len = target_len(w, r->nranks), total = 0, tries = 0, dops;
	double t0 = INFINITY, t1 = 0;
	unsigned int kind = r->ops[0].kind;
	char where[96];
	uint32_t q;

	if (r->rank == 0) {
		copy_target(r, win, r->zero, len, true);
		if (workloads[w].record) {
			memset(bitmap, 0, res->bitmap_dirty * sizeof(*bitmap));
			res->bitmap_dirty = 0;
		}
		win_stats(r, win, &st0);
	}
	barrier(r);
	timed_loop(r, w, win, batch);
	barrier(r);
	if (workloads[w].record) {
		check_values(r);
		barrier(r);
	}
	if (r->rank)
		return;

	win_stats(r, win, &st1);
	snprintf(where, sizeof(where), "%s, %s, %u rank%s, repetition %u",
		 workloads[w].name, strategy_names[s], r->nranks, r->nranks == 1 ? "" : "s",
		 c->nreps + 1);
	verify(r, w, win, c, where);
	for (q = 0; q < r->nranks; q++) {
		total += res->slot[q].ops;
		tries += res->slot[q].tries;
		t0 = dmin(t0, res->slot[q].t0);
		t1 = dmax(t1, res->slot[q].t1);
	}
	c->val[c->nreps] = workloads[w].bytes ? total * (double)opt.large / (t1 - t0) / 1e9 :
		total / (t1 - t0);
	c->tries[c->nreps] = tries / (t1 - t0);
	if (workloads[w].record) {
		/* the ranks set bits below total only (or failed the check) */
		res->bitmap_dirty = total / 64 + 1;
		if (res->bitmap_dirty > bitmap_words)
			res->bitmap_dirty = bitmap_words;
	}
	dops = st1.ops[kind] - st0.ops[kind];
	c->cont[c->nreps] = dops ? (double)(st1.atomic_contended - st0.atomic_contended) / dops :
		0;
	c->nreps++;
}

static void run_workload(struct rank *r, enum workload w)
{
	uint32_t win[MPIRMA_NR_STRATEGIES] = { 0 };
	double start = now();
	unsigned int batch = 1, i, j, s;
	uint64_t len = target_len(w, r->nranks);

	for (i = 0; i < opt.nstrats; i++) {
		s = opt.strats[i];
		win[s] = win_create(r, s, len, (uint64_t)w * MPIRMA_NR_STRATEGIES + s + 1);
	}
	if (r->rank == 0 && res->target_node == -2) {
		/* where the target memory is, and who serves it when delegated */
		struct mpirma_win_query wq = { .size = sizeof(wq), .rank = 0 };

		for (i = 0; i < opt.nstrats; i++) {
			wq.win_id = win[opt.strats[i]];
			xioctl(r, MPIRMA_IOC_WIN_QUERY, "WIN_QUERY", &wq);
			res->target_node = wq.numa_node;
			if (opt.strats[i] == MPIRMA_ATOM_DELEGATE)
				res->worker = wq.worker;
		}
	}
	prepare(r, w, &batch);
	for (i = 0; i < opt.reps; i++)
		for (j = 0; j < opt.nstrats; j++) {
			s = opt.strats[(i + j) % opt.nstrats];
			one_rep(r, w, s, win[s], batch);
		}
	for (i = 0; i < opt.nstrats; i++)
		win_free(r, win[opt.strats[i]]);
	if (r->rank == 0)
		fprintf(stderr, "%s: %u rank%s: %s done in %.1f s\n", PROG, r->nranks,
			r->nranks == 1 ? "" : "s", workloads[w].name, now() - start);
}

/* The floors: the same timed loop around something no strategy touches. */
static void run_floor(struct rank *r, enum floor f)
{
	struct cell *c = &res->floor[r->ci][f];
	struct slot *sl = &res->slot[r->rank];
	double t, deadline, t0, t1;
	uint64_t done, total;
	unsigned int rep;
	uint32_t q;

	for (rep = 0; rep < opt.reps; rep++) {
		barrier(r);
		done = 0;
		t0 = now();
		deadline = t0 + r->rep_time;
		do {
			if (f == F_NULL) {
				xioctl(r, MPIRMA_IOC_NULL, "NULL", NULL);
			} else {
				memcpy(r->buf2, r->buf, opt.large);
				/* the copy is used: the compiler may not drop it */
				__asm__ volatile("" : : "r"(r->buf2) : "memory");
			}
			done++;
			t = now();
		} while (t < deadline);
		sl->ops = done;
		sl->t0 = t0;
		sl->t1 = t;
		barrier(r);
		if (r->rank)
			continue;
		t0 = INFINITY;
		t1 = 0;
		for (total = 0, q = 0; q < r->nranks; q++) {
			total += res->slot[q].ops;
			t0 = dmin(t0, res->slot[q].t0);
			t1 = dmax(t1, res->slot[q].t1);
		}
		c->val[c->nreps++] = floors[f].bytes ?
			total * (double)opt.large / (t1 - t0) / 1e9 : total / (t1 - t0);
	}
}

static void *xalloc(const struct rank *r, size_t len)
{
	void *p = calloc(1, len);

	if (!p)
		rank_die(r, ENOMEM, "malloc(%zu)", len);
	return p;
}

int rank_main(int job_fd, uint32_t rank, uint32_t nranks, unsigned int ci)
{
	struct mpirma_job_join jj = { .size = sizeof(jj), .rank = rank };
	struct rank *r = calloc(1, sizeof(*r));
	unsigned int w;

	if (!r) {
		fprintf(stderr, "%s: rank %u: out of memory\n", PROG, rank);
		return 1;
	}
	r->rank = rank;
	r->nranks = nranks;
	r->ci = ci;
	r->mfd = job_fd;
	r->rep_time = opt.cell_time / opt.reps;
	xioctl(r, MPIRMA_IOC_JOB_JOIN, "JOB_JOIN", &jj);
	r->mfd = jj.member_fd;
	close(job_fd);

	/* untouched pages cost nothing: rec is only written as far as used */
	r->rec = xalloc(r, (size_t)REC_CAP * sizeof(*r->rec));
	r->buf = xalloc(r, opt.large);
	r->buf2 = xalloc(r, opt.large > (uint64_t)nranks * LINE ? opt.large :
			 (uint64_t)nranks * LINE);
	r->zero = xalloc(r, opt.large > (uint64_t)nranks * LINE ? opt.large :
			 (uint64_t)nranks * LINE);

	run_floor(r, F_NULL);
	run_floor(r, F_MEMCPY);
	for (w = 0; w < NR_WORKLOADS; w++)
		if (opt.wl[w])
			run_workload(r, w);
	barrier(r);
	close(r->mfd);
	return 0;
}
