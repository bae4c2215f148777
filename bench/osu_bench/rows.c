// SPDX-License-Identifier: GPL-2.0
/*
 * osu_bench: one row, its operations issued under its synchronization
 * as OSU's loops issue them, timed in rounds, and verified on both ranks
 * (the target's memory, every value fetched).
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "osu.h"

/* ------------------------------------------------------------ rows */

/*
 * Around one operation (or batch) of a passive row at rank 0: the epoch
 * -s asks for (flush: the lock is held across the row, so nothing to open).
 */
static void step_open(struct row *r, int lock_type)
{
	if (r->sync == S_LOCK)
		CK(r, MPI_Win_lock(lock_type, 1, 0, r->wn->w));
	else if (r->sync == S_LOCK_ALL)
		CK(r, MPI_Win_lock_all(0, r->wn->w));
}

static void step_close(struct row *r)
{
	if (r->sync == S_FLUSH)
		CK(r, MPI_Win_flush(1, r->wn->w));
	else if (r->sync == S_LOCK)
		CK(r, MPI_Win_unlock(1, r->wn->w));
	else
		CK(r, MPI_Win_unlock_all(r->wn->w));
}

bool is_bw(enum op o)
{
	return o == OP_PUT_BW || o == OP_GET_BW || o == OP_PUT_BIBW || o == OP_COPY_BW;
}

/* Both ranks issue operations: the round trips and the bidirectional puts. */
static bool symmetric(const struct row *r)
{
	return r->op == OP_PUT_BIBW ||
	       (!is_bw(r->op) && (r->sync == S_FENCE || r->sync == S_PSCW));
}

static size_t elems(const struct row *r)
{
	return r->op == OP_FOP || r->op == OP_CAS ? 1 : r->bytes / type_sizes[r->type];
}

/* A typed row's element after @n operations: compare_and_swap counts. */
int64_t expected(const struct row *r, uint64_t n)
{
	return r->op == OP_CAS ? (int64_t)n : tri(n);
}

/* The bytes of each window a row touches. */
static size_t region(const struct row *r)
{
	return is_bw(r->op) ? WINDOW * r->bytes : r->bytes;
}

static MPI_Aint disp(const struct row *r, int to, size_t off)
{
	return (to == rank ? 0 : r->wn->peer_base) + (MPI_Aint)off;
}

/* The synchronizations a row of @o can have; the default ones. */
unsigned int possible_syncs(enum op o)
{
	if (o == OP_PUT_BIBW)
		return SYNC_BIT(S_FENCE) | SYNC_BIT(S_PSCW);
	if (o == OP_BUSY_PUT)
		return PASSIVE_SYNCS;
	return ALL_SYNCS;
}

unsigned int default_syncs(enum op o)
{
	if (o == OP_PUT)
		return ALL_SYNCS;
	if (o == OP_PUT_BIBW)
		return SYNC_BIT(S_FENCE) | SYNC_BIT(S_PSCW);
	return SYNC_BIT(S_FLUSH);
}

/* Operation j of a batch, to rank @to. */
static void issue(struct row *r, int to, unsigned int j)
{
	const MPI_Win w = r->wn->w;
	const int n = (int)r->bytes, cnt = r->count;
	const MPI_Datatype dt = r->dt;
	const size_t off = (size_t)j * r->bytes;
	uint64_t k = ++r->issued;
	const void *add = step_up(k) ? ones : minus;

	switch (r->op) {
	case OP_PUT:
	case OP_BUSY_PUT:
		/* the sequence number: the target finds the last one */
		memcpy(sbuf, &k, sizeof(k));
		CK(r, MPI_Put(sbuf, n, MPI_CHAR, to, disp(r, to, 0), n, MPI_CHAR, w));
		break;
	case OP_PUT_BW:
	case OP_PUT_BIBW:
		CK(r, MPI_Put(sbuf + off, n, MPI_CHAR, to, disp(r, to, off), n, MPI_CHAR, w));
		break;
	case OP_GET:
	case OP_GET_BW:
		CK(r, MPI_Get(rbuf + off, n, MPI_CHAR, to, disp(r, to, off), n, MPI_CHAR, w));
		break;
	case OP_ACC:
		CK(r, MPI_Accumulate(add, cnt, dt, to, disp(r, to, 0), cnt, dt, MPI_SUM, w));
		break;
	case OP_GACC:
		CK(r, MPI_Get_accumulate(add, cnt, dt, rbuf, cnt, dt, to, disp(r, to, 0),
					 cnt, dt, MPI_SUM, w));
		break;
	case OP_FOP:
		CK(r, MPI_Fetch_and_op(add, rbuf, dt, to, disp(r, to, 0), MPI_SUM, w));
		break;
	case OP_CAS:
		/* the k-th swap finds k - 1 and leaves k */
		typed_value(r->type, (int64_t)(k - 1), cas_cmp);
		typed_value(r->type, (int64_t)k, cas_new);
		CK(r, MPI_Compare_and_swap(cas_new, cas_cmp, rbuf, dt, to, disp(r, to, 0), w));
		break;
	case OP_COPY:		/* floor.c's */
	case OP_COPY_BW:
	case NR_OPS:
		break;
	}
}

static void batch(struct row *r, int to)
{
	const unsigned int m = is_bw(r->op) ? WINDOW : 1;

	for (unsigned int j = 0; j < m; j++)
		issue(r, to, j);
}

/* After this rank's last operation of a round: what it fetched. */
static void check_fetched(struct row *r)
{
	long at = -1;

	if (!r->issued || r->err)
		return;
	switch (r->op) {
	case OP_GET:
	case OP_GET_BW:
		at = pattern_mismatch(1, r->seed, rbuf, 0, region(r));
		break;
	case OP_GACC:
	case OP_FOP:
	case OP_CAS:
		at = typed_mismatch(r->type, rbuf, elems(r), expected(r, r->issued - 1));
		break;
	default:
		break;
	}
	if (at >= 0 && !r->bad++) {
		char why[200];

		describe(r, rbuf, (size_t)at, r->op == OP_GET || r->op == OP_GET_BW ?
			 0 : r->issued - 1, why, sizeof(why));
		fprintf(stderr, "%s: %s: rank %d: WRONG: fetched %s\n", PROG, r->name, rank,
			why);
	}
}

volatile double osu_clock_sink;	/* osu_clock()'s reads go here */

/* Keeps the last failure of a loop's calls in @rc. */
#define KEEP(rc, call)							\
	do {								\
		int e_ = (call);					\
									\
		if (e_ != MPI_SUCCESS)					\
			(rc) = e_;					\
	} while (0)

/*
 * The latency rows under flush (OSU's default) as OSU's own loop runs
 * them: the call and its flush between OSU's two clock reads and nothing
 * else per iteration but the verification's sequence numbers, in blocks
 * of OSU_BLOCK between checks of the budget.  OSU_BLOCK divides TRI_HALF,
 * so an accumulate's addend changes only between blocks.  Puts under -s
 * lock and lock_all run the same way, the epoch (a shared lock, as OSU's)
 * around the put between the clock reads.  At rank 0 (under -s flush
 * inside the held lock); returns the iterations run (0: not such a row).
 */
static long osu_loop(struct row *r, long iters, double budget, double t0)
{
	const MPI_Win w = r->wn->w;
	const MPI_Datatype dt = r->dt;
	const int n = (int)r->bytes, cnt = r->count;
	const MPI_Aint d = disp(r, 1, 0);
	const bool epoch = r->sync != S_FLUSH, all = r->sync == S_LOCK_ALL;
	int rc = MPI_SUCCESS, j;
	long i = 0;

	if (is_bw(r->op) || r->issued % OSU_BLOCK)
		return 0;
	if (epoch && (r->op != OP_PUT || (!all && r->sync != S_LOCK)))
		return 0;
	while (i < iters && rc == MPI_SUCCESS) {
		const void *add = step_up(r->issued + 1) ? ones : minus;

		switch (r->op) {
		case OP_PUT:
			/* -s lock or lock_all: the epoch around the put */
			for (j = 0; j < OSU_BLOCK && epoch; j++) {
				uint64_t k = ++r->issued;

				memcpy(sbuf, &k, sizeof(k));
				osu_clock();
				KEEP(rc, all ? MPI_Win_lock_all(0, w) :
				     MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w));
				KEEP(rc, MPI_Put(sbuf, n, MPI_CHAR, 1, d, n, MPI_CHAR, w));
				KEEP(rc, all ? MPI_Win_unlock_all(w) :
				     MPI_Win_unlock(1, w));
				osu_clock();
			}
			for (j = 0; j < OSU_BLOCK && !epoch; j++) {
				uint64_t k = ++r->issued;

				memcpy(sbuf, &k, sizeof(k));
				osu_clock();
				KEEP(rc, MPI_Put(sbuf, n, MPI_CHAR, 1, d, n, MPI_CHAR, w));
				KEEP(rc, MPI_Win_flush(1, w));
				osu_clock();
			}
			break;
		case OP_GET:
			for (j = 0; j < OSU_BLOCK; j++, r->issued++) {
				osu_clock();
				KEEP(rc, MPI_Get(rbuf, n, MPI_CHAR, 1, d, n, MPI_CHAR, w));
				KEEP(rc, MPI_Win_flush(1, w));
				osu_clock();
			}
			break;
		case OP_ACC:
			for (j = 0; j < OSU_BLOCK; j++, r->issued++) {
				osu_clock();
				KEEP(rc, MPI_Accumulate(add, cnt, dt, 1, d, cnt, dt, MPI_SUM, w));
				KEEP(rc, MPI_Win_flush(1, w));
				osu_clock();
			}
			break;
		case OP_GACC:
			for (j = 0; j < OSU_BLOCK; j++, r->issued++) {
				osu_clock();
				KEEP(rc, MPI_Get_accumulate(add, cnt, dt, rbuf, cnt, dt, 1, d,
							    cnt, dt, MPI_SUM, w));
				KEEP(rc, MPI_Win_flush(1, w));
				osu_clock();
			}
			break;
		case OP_FOP:
			for (j = 0; j < OSU_BLOCK; j++, r->issued++) {
				osu_clock();
				KEEP(rc, MPI_Fetch_and_op(add, rbuf, dt, 1, d, MPI_SUM, w));
				KEEP(rc, MPI_Win_flush(1, w));
				osu_clock();
			}
			break;
		case OP_CAS:
			for (j = 0; j < OSU_BLOCK; j++) {
				uint64_t k = ++r->issued;

				typed_value(r->type, (int64_t)(k - 1), cas_cmp);
				typed_value(r->type, (int64_t)k, cas_new);
				osu_clock();
				KEEP(rc, MPI_Compare_and_swap(cas_new, cas_cmp, rbuf, dt, 1,
							      d, w));
				KEEP(rc, MPI_Win_flush(1, w));
				osu_clock();
			}
			break;
		default:
			return i;
		}
		i += OSU_BLOCK;
		if (now() - t0 >= budget)
			break;
	}
	check_rc(r, rc, epoch ? "an epoch or its put" :
		 "an operation or MPI_Win_flush");
	return i;
}

/*
 * The other passive rows at rank 0: each iteration's epoch (-s), the
 * operation or batch, its end; until @budget seconds from @t0 or @iters.
 * Returns the iterations run.
 */
static long step_loop(struct row *r, int lock_type, long iters, double budget,
		      double t0)
{
	long i;

	for (i = 0; i < iters; i++) {
		osu_clock();
		step_open(r, lock_type);
		batch(r, 1);
		step_close(r);
		osu_clock();
		/* the budget every 16th */
		if (!(i & 15) && now() - t0 >= budget)
			return i + 1;
	}
	return i;
}

/*
 * Up to @iters iterations of the row on both ranks; the passive ones stop
 * when rank 0's clock has run @budget seconds (the active ones cannot: the
 * peer must make the same calls).  Returns rank 0's seconds and stores
 * its iterations in *@done (on every rank); sets r->fault when any rank
 * failed or saw a wrong value.
 */
static double run_iters(struct row *r, long iters, double budget, long *done)
{
	const MPI_Win w = r->wn->w;
	const int lt = r->op == OP_GACC ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
	double t = 0, t0 = 0, mine[3], all[3];
	long i = 0;

	MPI_Barrier(MPI_COMM_WORLD);
	if (SYNC_BIT(r->sync) & PASSIVE_SYNCS) {
		/* the target waits in the Allreduce below */
		if (rank == 0) {
			if (r->sync == S_FLUSH)
				CK(r, MPI_Win_lock(lt, 1, 0, w));
			t0 = now();
			i = osu_loop(r, iters, budget, t0);
			if (!i)
				i = step_loop(r, lt, iters, budget, t0);
			t = now() - t0;
			if (r->sync == S_FLUSH)
				CK(r, MPI_Win_unlock(1, w));
		}
	} else if (r->sync == S_FENCE) {
		t0 = now();
		for (i = 0; i < iters; i++) {
			if (rank == 0)
				osu_clock();
			if (r->op == OP_PUT_BIBW) {
				CK(r, MPI_Win_fence(0, w));
				batch(r, peer);
				CK(r, MPI_Win_fence(0, w));
			} else if (is_bw(r->op)) {
				CK(r, MPI_Win_fence(0, w));
				if (rank == 0)
					batch(r, 1);
				CK(r, MPI_Win_fence(0, w));
			} else {
				/* a round trip: rank 0's operation, then rank 1's */
				CK(r, MPI_Win_fence(0, w));
				if (rank == 0)
					batch(r, 1);
				CK(r, MPI_Win_fence(0, w));
				if (rank == 1)
					batch(r, 0);
				CK(r, MPI_Win_fence(0, w));
			}
			if (rank == 0)
				osu_clock();
		}
		t = now() - t0;
		CK(r, MPI_Win_fence(MPI_MODE_NOSUCCEED, w));
	} else {
		t0 = now();
		for (i = 0; i < iters; i++) {
			if (rank == 0)
				osu_clock();
			if (r->op == OP_PUT_BIBW) {
				CK(r, MPI_Win_post(peer_group, 0, w));
				CK(r, MPI_Win_start(peer_group, 0, w));
				batch(r, peer);
				CK(r, MPI_Win_complete(w));
				CK(r, MPI_Win_wait(w));
			} else if (is_bw(r->op) && rank == 0) {
				CK(r, MPI_Win_start(peer_group, 0, w));
				batch(r, 1);
				CK(r, MPI_Win_complete(w));
			} else if (is_bw(r->op)) {
				CK(r, MPI_Win_post(peer_group, 0, w));
				CK(r, MPI_Win_wait(w));
			} else if (rank == 0) {
				CK(r, MPI_Win_start(peer_group, 0, w));
				batch(r, 1);
				CK(r, MPI_Win_complete(w));
				CK(r, MPI_Win_post(peer_group, 0, w));
				CK(r, MPI_Win_wait(w));
			} else {
				CK(r, MPI_Win_post(peer_group, 0, w));
				CK(r, MPI_Win_wait(w));
				CK(r, MPI_Win_start(peer_group, 0, w));
				batch(r, 0);
				CK(r, MPI_Win_complete(w));
			}
			if (rank == 0)
				osu_clock();
		}
		t = now() - t0;
	}
	check_fetched(r);
	mine[0] = rank == 0 ? t : 0;
	mine[1] = rank == 0 ? (double)i : 0;
	mine[2] = r->err || r->bad;
	MPI_Allreduce(mine, all, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	r->fault = all[2] != 0;
	*done = (long)all[1];
	return all[0];
}

/* Work without MPI calls for @secs seconds. */
static void compute(double secs)
{
	volatile double x = 1.0;
	double t0 = now();

	do {
		for (int i = 0; i < 4096; i++)
			x = x * 1.0000001 + 1e-9;
	} while (now() - t0 < secs);
}

/*
 * One round of busy_put: rank 1 computes for longer than rank 0 puts and
 * flushes, for @secs by its own clock; returns rank 0's microseconds per
 * operation.  The lock is taken while the target is still in MPI.
 */
static double busy_round(struct row *r, double secs)
{
	const MPI_Win w = r->wn->w;
	double t = 0, t0, mine[3], all[3];
	uint64_t before = r->issued;

	if (rank == 0 && r->sync == S_FLUSH)
		CK(r, MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w));
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		t0 = now();
		do {
			step_open(r, MPI_LOCK_SHARED);
			issue(r, 1, 0);
			step_close(r);
			t = now() - t0;
		} while (t < secs);
		if (r->sync == S_FLUSH)
			CK(r, MPI_Win_unlock(1, w));
	} else {
		compute(secs * 1.25 + 0.001);
	}
	mine[0] = rank == 0 ? t : 0;
	mine[1] = (double)(r->issued - before);
	mine[2] = r->err || r->bad;
	MPI_Allreduce(mine, all, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	r->fault = all[2] != 0;
	return all[1] > 0 ? all[0] / all[1] * 1e6 : 0;
}

/* Lock this rank's own window exclusively around a local access. */
static void lock_self(struct row *r, bool lock)
{
	if (lock)
		CK(r, MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, r->wn->w));
	else
		CK(r, MPI_Win_unlock(rank, r->wn->w));
}

/* Every rank: its window region and its buffers as the row starts. */
static void prepare(struct row *r)
{
	const size_t reg = region(r);

	r->count = (int)elems(r);
	r->dt = mpi_type(r->type);
	lock_self(r, true);
	if (r->op == OP_GET || r->op == OP_GET_BW)
		for (size_t i = 0; i < reg; i++)
			r->wn->base[i] = pattern(1, r->seed, i);
	else
		memset(r->wn->base, 0, reg);
	lock_self(r, false);
	for (size_t i = 0; i < reg; i++)
		sbuf[i] = pattern(0, r->seed, i);
	fill_typed(r->type, ones, elems(r), 1);
	fill_typed(r->type, minus, elems(r), -1);
	memset(rbuf, 0, reg);
	MPI_Barrier(MPI_COMM_WORLD);
}

/*
 * Every rank, after the rounds: its window region holds what the peer's
 * operations must have left.  Returns false (and says why) when not.
 */
static bool check_target(struct row *r, uint64_t theirs, char *why, size_t len)
{
	const unsigned char *b = r->wn->base;
	const size_t reg = region(r);
	uint64_t stamp;
	long at = -1;

	switch (r->op) {
	case OP_PUT:
	case OP_BUSY_PUT:
		if (!theirs)
			break;
		memcpy(&stamp, b, sizeof(stamp));
		if (stamp != theirs) {
			snprintf(why, len, "the last put's sequence number is %" PRIu64
				 ", expected %" PRIu64, stamp, theirs);
			return false;
		}
		at = pattern_mismatch(0, r->seed, b, sizeof(stamp), reg);
		break;
	case OP_PUT_BW:
	case OP_PUT_BIBW:
		if (theirs)
			at = pattern_mismatch(0, r->seed, b, 0, reg);
		break;
	case OP_GET:
	case OP_GET_BW:
		at = pattern_mismatch(1, r->seed, b, 0, reg);
		break;
	case OP_ACC:
	case OP_GACC:
	case OP_FOP:
	case OP_CAS:
		at = typed_mismatch(r->type, b, elems(r), expected(r, theirs));
		break;
	case OP_COPY:		/* floor.c's */
	case OP_COPY_BW:
	case NR_OPS:
		break;
	}
	if (!theirs && (r->op == OP_PUT || r->op == OP_BUSY_PUT || r->op == OP_PUT_BW ||
			r->op == OP_PUT_BIBW))
		for (size_t i = 0; i < reg && at < 0; i++)
			if (b[i])
				at = (long)i;
	if (at >= 0) {
		describe(r, b, (size_t)at, theirs, why, len);
		return false;
	}
	return true;
}

static void verify(struct row *r)
{
	uint64_t theirs = 0;
	char why[200] = "";
	int mine[2], all[2];

	MPI_Sendrecv(&r->issued, 1, MPI_UINT64_T, peer, 41, &theirs, 1, MPI_UINT64_T, peer,
		     41, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	lock_self(r, true);
	if (!r->err && !check_target(r, theirs, why, sizeof(why))) {
		r->bad++;
		fprintf(stderr, "%s: %s: rank %d: WRONG: %s\n", PROG, r->name, rank, why);
	}
	lock_self(r, false);
	if (r->err)
		fprintf(stderr, "%s: %s: %s: rank %d: %s\n", PROG, opt.impl, r->name, rank,
			r->errstr);
	mine[0] = r->err != 0;
	mine[1] = r->bad != 0;
	MPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	r->err = all[0];
	r->bad = (uint64_t)all[1];
}

double figure(const struct row *r, double t, long iters)
{
	if (t <= 0 || iters <= 0)
		return 0;
	if (is_bw(r->op))
		return (double)r->bytes * WINDOW * (double)iters *
		       (r->op == OP_PUT_BIBW ? 2 : 1) / t / 1e6;
	return t / (double)iters * 1e6 / (symmetric(r) ? 2 : 1);
}

/*
 * A warm-up, the rounds, the verification and the row.  A passive round
 * runs until rank 0's clock says --time is over.  An active one (fence,
 * pscw) runs in chunks of about a tenth of it, which a calibration finds,
 * until their time adds up to --time: under emulation an operation can
 * take a thousand times longer for a while (a vCPU descheduled on the
 * host), and a count fixed in advance would then run for minutes.
 */
double measure(struct row *r)
{
	double v[MAX_ROUNDS], t = 0, f, sum;
	long iters = 1, done = 0, total;
	int n = 0;

	prepare(r);
	if (r->op == OP_BUSY_PUT) {
		for (int k = 0; k < opt.rounds && !r->fault; k++) {
			f = busy_round(r, opt.time);
			if (!r->fault)
				v[n++] = f;
		}
	} else if (SYNC_BIT(r->sync) & PASSIVE_SYNCS) {
		run_iters(r, MAX_ITERS, opt.time / 10, &done);
		for (int k = 0; k < opt.rounds && !r->fault; k++) {
			t = run_iters(r, MAX_ITERS, opt.time, &done);
			if (!r->fault)
				v[n++] = figure(r, t, done);
		}
	} else {
		/* grow the count until a run takes a tenth of a round */
		for (;;) {
			t = run_iters(r, iters, opt.time, &done);
			if (r->fault || t >= opt.time / 10 || iters >= MAX_ITERS)
				break;
			f = t > 0 ? opt.time / 10 / t * 1.5 : 16;
			iters = (long)((double)iters * (f < 2 ? 2 : f > 64 ? 64 : f));
		}
		f = t > 0 ? (double)iters * opt.time / 10 / t : (double)iters;
		iters = f < 1 ? 1 : f > (double)MAX_ITERS ? MAX_ITERS : (long)f;
		for (int k = 0; k < opt.rounds && !r->fault; k++) {
			for (sum = 0, total = 0; sum < opt.time && !r->fault; total += done)
				sum += run_iters(r, iters, opt.time, &done);
			if (!r->fault)
				v[n++] = figure(r, sum, total);
		}
	}
	verify(r);
	if (n < opt.rounds)
		n = 0;
	report(r, v, n);
	return n ? v[n / 2] : 0;
}
