// SPDX-License-Identifier: GPL-2.0
/*
 * rma_bench: one repetition of a cell, timed by rank 0: the origins'
 * loops (puts, accumulates, batches and flushes as the workload asks), the
 * threaded and ping-pong forms, and the target's exact check of its memory
 * afterwards.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rma.h"

/* ------------------------------------------------------------ one repetition */

/* Batched: the element the j-th operation of rank r updates. */
static unsigned int scatter_idx(int r, uint64_t j)
{
	return (unsigned int)(((uint64_t)r * 977 + j * 613) & (SCATTER_ELEMS - 1));
}

/* Put bandwidth: the value rank r writes at element i of its range. */
double put_val(int r, size_t i)
{
	return (double)(r + 1) * 1e7 + (double)i;
}

static size_t region_bytes(const struct cell *c)
{
	switch (c->kind) {
	case K_SCATTER:
		return SCATTER_ELEMS * sizeof(double);
	case K_DISJOINT:
		return (size_t)nranks * LINE;
	case K_THR_DISJOINT:
		return MAX_THREADS * LINE;
	case K_BW_ACC:
		return c->bytes;
	case K_BW_PUT:
		return (size_t)nranks * c->bytes;
	default:
		return sizeof(double);
	}
}

/*
 * The origin's loop; returns the operations done, counts wrong fetched
 * values in *bad.  src holds the origin data, res receives fetched data.
 */
static uint64_t origin_loop(const struct cell *c, const struct win *wn, double *src,
			    double rep_time, double *elapsed, uint64_t *bad)
{
	MPI_Win w = wn->w;
	const int n = (int)(c->bytes / sizeof(double));
	const MPI_Aint put_disp = (MPI_Aint)rank * (MPI_Aint)c->bytes;
	const MPI_Aint line_disp = (MPI_Aint)rank * LINE;
	double one = 1.0, dres = 0, t0, t;
	int64_t one64 = 1, i64res = 0, cmp, next;
	uint64_t ops = 0;
	unsigned int b;

	MPI_Win_lock_all(0, w);
	t0 = now();
	do {
		switch (c->kind) {
		case K_CONTENDED:
		case K_ACC:
			MPI_Accumulate(&one, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, MPI_SUM, w);
			break;
		case K_SCATTER:
			for (b = 0; b < c->batch; b++)
				MPI_Accumulate(&one, 1, MPI_DOUBLE, 0,
					       (MPI_Aint)scatter_idx(rank, ops + b) * 8, 1,
					       MPI_DOUBLE, MPI_SUM, w);
			break;
		case K_DISJOINT:
			MPI_Accumulate(&one, 1, MPI_DOUBLE, 0, line_disp, 1, MPI_DOUBLE,
				       MPI_SUM, w);
			break;
		case K_GET_ACC:
			MPI_Get_accumulate(&one, 1, MPI_DOUBLE, &dres, 1, MPI_DOUBLE, 0, 0, 1,
					   MPI_DOUBLE, MPI_SUM, w);
			break;
		case K_FETCH_OP:
			MPI_Fetch_and_op(&one64, &i64res, MPI_INT64_T, 0, 0, MPI_SUM, w);
			break;
		case K_CAS:
			cmp = (int64_t)ops;
			next = cmp + 1;
			MPI_Compare_and_swap(&next, &cmp, &i64res, MPI_INT64_T, 0, 0, w);
			break;
		case K_PUT:
			dres = (double)(ops + 1);
			MPI_Put(&dres, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, w);
			break;
		case K_GET:
			dres = 0;
			MPI_Get(&dres, 1, MPI_DOUBLE, 0, 0, 1, MPI_DOUBLE, w);
			break;
		case K_BW_ACC:
			MPI_Accumulate(src, n, MPI_DOUBLE, 0, 0, n, MPI_DOUBLE, MPI_SUM, w);
			break;
		case K_BW_PUT:
			MPI_Put(src, n, MPI_DOUBLE, 0, put_disp, n, MPI_DOUBLE, w);
			break;
		case K_THR_DISJOINT:
		case K_THR_SAME:
			break;		/* threads_loop()'s */
		case K_PINGPONG:
			break;		/* pingpong_loop()'s */
		}
		MPI_Win_flush(0, w);
		/* what came back must be what the serial order implies */
		switch (c->kind) {
		case K_GET_ACC:
			*bad += dres != (double)ops;
			break;
		case K_FETCH_OP:
		case K_CAS:
			*bad += i64res != (int64_t)ops;
			break;
		case K_GET:
			*bad += dres != GET_MARK;
			break;
		default:
			break;
		}
		ops += c->kind == K_SCATTER ? c->batch : 1;
		t = now();
	} while (t - t0 < rep_time);
	MPI_Win_unlock_all(w);
	*elapsed = t - t0;
	return ops;
}

/* Line r of @v (one per origin, @who r) holds the count @ops[r]. */
static bool lines_hold(const double *v, const uint64_t *ops, int n,
		       const char *who, char *why, size_t whylen)
{
	int r;

	for (r = 0; r < n; r++)
		if (v[r * LINE / 8] != (double)ops[r]) {
			snprintf(why, whylen, "%s %d's line holds %.17g, expected %"
				 PRIu64, who, r, v[r * LINE / 8], ops[r]);
			return false;
		}
	return true;
}

/* Rank 0, inside an exclusive epoch on itself: check the target memory. */
static bool check_target(const struct cell *c, const struct win *wn, const uint64_t *ops,
			 char *why, size_t whylen)
{
	const double *v = (const double *)wn->base;
	uint64_t total = 0, *count;
	size_t i, n;
	int r;

	for (r = 0; r < nranks; r++)
		total += ops[r];
	switch (c->kind) {
	case K_CONTENDED:
	case K_ACC:
	case K_GET_ACC:
		if (v[0] != (double)total)
			goto mismatch0;
		return true;
	case K_FETCH_OP:
	case K_CAS:
		if (*(const int64_t *)wn->base != (int64_t)total) {
			snprintf(why, whylen, "target holds %" PRId64 ", expected %" PRIu64,
				 *(const int64_t *)wn->base, total);
			return false;
		}
		return true;
	case K_PUT:
		if (v[0] != (double)total)
			goto mismatch0;
		return true;
	case K_GET:
		if (v[0] != GET_MARK) {
			snprintf(why, whylen, "a get changed the target to %.17g", v[0]);
			return false;
		}
		return true;
	case K_PINGPONG:
		if (pp_echoed != total) {
			snprintf(why, whylen, "rank 0 echoed %" PRIu64 " pings of %" PRIu64,
				 pp_echoed, total);
			return false;
		}
		return true;
	case K_SCATTER:
		count = calloc(SCATTER_ELEMS, sizeof(*count));
		if (!count) {
			snprintf(why, whylen, "out of memory");
			return false;
		}
		for (r = 0; r < nranks; r++)
			for (i = 0; i < ops[r]; i++)
				count[scatter_idx(r, i)]++;
		for (i = 0; i < SCATTER_ELEMS && v[i] == (double)count[i]; i++)
			;
		if (i < SCATTER_ELEMS)
			snprintf(why, whylen, "element %zu holds %.17g, expected %" PRIu64,
				 i, v[i], count[i]);
		free(count);
		return i == SCATTER_ELEMS;
	case K_THR_SAME:
		if (v[0] != (double)total)
			goto mismatch0;
		return true;
	case K_THR_DISJOINT:
		return lines_hold(v, thread_ops, c->norigins, "thread", why, whylen);
	case K_DISJOINT:
		return lines_hold(v, ops, nranks, "rank", why, whylen);
	case K_BW_ACC:
		n = c->bytes / sizeof(double);
		for (i = 0; i < n; i++)
			if (v[i] != (double)total) {
				snprintf(why, whylen, "element %zu holds %.17g, expected %" PRIu64,
					 i, v[i], total);
				return false;
			}
		return true;
	case K_BW_PUT:
		n = c->bytes / sizeof(double);
		for (r = 0; r < nranks; r++)
			for (i = 0; i < n; i++)
				if (v[r * n + i] != (ops[r] ? put_val(r, i) : 0)) {
					snprintf(why, whylen, "rank %d's range, element %zu holds "
						 "%.17g", r, i, v[r * n + i]);
					return false;
				}
		return true;
	}
	return true;
mismatch0:
	snprintf(why, whylen, "target holds %.17g, expected %" PRIu64, v[0], total);
	return false;
}

/* Rank 0: its own window memory, as the repetition must find it. */
static void prepare_target(const struct cell *c, const struct win *wn)
{
	if (rank != 0)
		return;
	MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wn->w);
	memset(wn->base, 0, region_bytes(c));
	if (c->kind == K_GET)
		*(double *)wn->base = GET_MARK;
	MPI_Win_unlock(0, wn->w);
}

/* One thread of the threaded workload. */
struct thread_arg {
	const struct cell *c;
	MPI_Win w;
	int t;
	double rep_time;
	uint64_t ops;
	double elapsed;
};

static void *thread_loop(void *p)
{
	struct thread_arg *a = p;
	const MPI_Aint disp = a->c->kind == K_THR_DISJOINT ? (MPI_Aint)a->t * LINE : 0;
	double one = 1.0, t0 = now(), t;

	/*
	 * The clock is read every THREAD_CLOCK_OPS operations only: under
	 * emulation (TCG) reading it serializes the vCPUs, so reading it per
	 * operation would measure the clock, not the threads.
	 */
	do {
		for (int i = 0; i < THREAD_CLOCK_OPS; i++) {
			MPI_Accumulate(&one, 1, MPI_DOUBLE, 0, disp, 1, MPI_DOUBLE, MPI_SUM,
				       a->w);
			MPI_Win_flush(0, a->w);
		}
		a->ops += THREAD_CLOCK_OPS;
		t = now();
	} while (t - t0 < a->rep_time);
	a->elapsed = t - t0;
	return NULL;
}

/*
 * Pingpong's origin: 8 bytes to rank 0 and back, until its clock says the
 * repetition is over, then a stop; counts echoes that differ in *@bad.
 */
static uint64_t pingpong_loop(double rep_time, double *elapsed, uint64_t *bad)
{
	double v = 0, back, t0 = now(), t;
	uint64_t ops = 0;

	do {
		v = (double)ops;
		MPI_Send(&v, 1, MPI_DOUBLE, 0, TAG_PING, pp_comm);
		MPI_Recv(&back, 1, MPI_DOUBLE, 0, TAG_PONG, pp_comm, MPI_STATUS_IGNORE);
		*bad += back != v;
		ops++;
		t = now();
	} while (t - t0 < rep_time);
	MPI_Send(&v, 0, MPI_DOUBLE, 0, TAG_STOP, pp_comm);
	*elapsed = t - t0;
	return ops;
}

/* Pingpong at rank 0: echoes rank @origin's pings until its stop. */
static void pingpong_echo(int origin)
{
	MPI_Status st;
	double v;

	pp_echoed = 0;
	for (;;) {
		MPI_Recv(&v, 1, MPI_DOUBLE, origin, MPI_ANY_TAG, pp_comm, &st);
		if (st.MPI_TAG == TAG_STOP)
			break;
		MPI_Send(&v, 1, MPI_DOUBLE, origin, TAG_PONG, pp_comm);
		pp_echoed++;
	}
}

/*
 * The origin of the threaded workload: c->norigins threads in one lock_all
 * epoch; their counts go to @per (MAX_THREADS), the sum is returned.
 */
static uint64_t threads_loop(const struct cell *c, const struct win *wn, double rep_time,
			     double *elapsed, uint64_t *per)
{
	struct thread_arg a[MAX_THREADS];
	pthread_t th[MAX_THREADS];
	uint64_t ops = 0;
	int t;

	MPI_Win_lock_all(0, wn->w);
	for (t = 0; t < c->norigins; t++) {
		a[t] = (struct thread_arg){ c, wn->w, t, rep_time, 0, 0 };
		if (pthread_create(&th[t], NULL, thread_loop, &a[t])) {
			fprintf(stderr, "%s: pthread_create failed\n", PROG);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	*elapsed = 0;
	for (t = 0; t < c->norigins; t++) {
		pthread_join(th[t], NULL);
		per[t] = a[t].ops;
		ops += a[t].ops;
		if (a[t].elapsed > *elapsed)
			*elapsed = a[t].elapsed;
	}
	MPI_Win_unlock_all(wn->w);
	return ops;
}

/*
 * One repetition on every rank; rank 0 gets the figure (NAN when the
 * repetition computed something wrong).
 */
double one_rep(const struct cell *c, const struct win *wn, double *src, double rep_time)
{
	const bool threaded = c->kind == K_THR_DISJOINT || c->kind == K_THR_SAME;
	bool origin = threaded ? rank == c->first :
		      rank >= c->first && rank < c->first + c->norigins;
	uint64_t ops = 0, bad = 0, sumbad = 0, *all = NULL, per[MAX_THREADS] = { 0 };
	double elapsed = 0, maxel = 0, fig = 0;
	char why[200] = "";
	bool ok = true;
	int r;

	prepare_target(c, wn);
	MPI_Barrier(MPI_COMM_WORLD);
	if (origin && threaded)
		ops = threads_loop(c, wn, rep_time, &elapsed, per);
	else if (origin && c->kind == K_PINGPONG)
		ops = pingpong_loop(rep_time, &elapsed, &bad);
	else if (origin)
		ops = origin_loop(c, wn, src, rep_time, &elapsed, &bad);
	else if (c->kind == K_PINGPONG && rank == 0)
		pingpong_echo(c->first);
	MPI_Barrier(MPI_COMM_WORLD);
	if (threaded)
		MPI_Reduce(per, thread_ops, MAX_THREADS, MPI_UINT64_T, MPI_SUM, 0,
			   MPI_COMM_WORLD);

	if (rank == 0)
		all = xmalloc(nranks * sizeof(*all));
	MPI_Gather(&ops, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	MPI_Reduce(&elapsed, &maxel, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Reduce(&bad, &sumbad, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
	if (bad)
		fprintf(stderr, "%s: rank %d: %s.%s: %" PRIu64 " fetched values were wrong\n",
			PROG, rank, c->workload, flavor_names[wn->fl], bad);
	if (rank == 0) {
		uint64_t total = 0;

		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wn->w);
		ok = check_target(c, wn, all, why, sizeof(why));
		MPI_Win_unlock(0, wn->w);
		if (!ok)
			fprintf(stderr, "%s: %s.%s, %d origins: WRONG: %s\n", PROG,
				c->workload, flavor_names[wn->fl], c->norigins, why);
		for (r = 0; r < nranks; r++)
			total += all[r];
		if (is_latency(c->kind))
			fig = maxel / (double)total * 1e6;		/* us per op */
		else if (c->kind == K_BW_ACC || c->kind == K_BW_PUT)
			fig = (double)total * (double)c->bytes / maxel / 1e9;	/* GB/s */
		else
			fig = (double)total / maxel;			/* op/s */
		free(all);
		if (!ok || sumbad)
			fig = NAN;
	}
	return fig;
}

/* All repetitions of one cell; rank 0 writes its row. */
