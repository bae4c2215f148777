// SPDX-License-Identifier: GPL-2.0
/*
 * ga_bench: Global Arrays throughput (GA ops/s), through Debian's
 * libga-HOST.a over libarmci-HOST.a, each figure checked exactly.  The
 * same source runs on a host MPI alone and with mpirma's layer preloaded
 * (apps/run --bench, make bench-apps), so the two are compared in one run.
 *
 * A 2-D array of doubles in which rank r owns rows r*S .. r*S+S-1 (S = 16).
 * Each rank works on the block of the next rank, so that with more than
 * one rank every operation is on another process's memory:
 *
 *   get        NGA_Get of the S x S block                     [ops/s]
 *   acc        NGA_Acc of S x S ones into the block           [ops/s]
 *   read_inc   NGA_Read_inc of one counter on rank 0          [ops/s]
 *
 * A repetition is time-bounded (-t SECONDS per workload, split over -r
 * repetitions): every rank runs until its own clock says the repetition is
 * over; the figure is the operations of all ranks over the longest rank's
 * time.  Checked after each repetition: every block holds the number of
 * accumulates its neighbour made, the counter the number of increments,
 * and the values the increments fetched are each of 0..total-1 once.
 * Rank 0 prints one line per workload:
 *
 *   ga_bench: WORKLOAD RANKS MEDIAN MIN MAX   (ops/s over the repetitions)
 *
 * or "ga_bench: WORKLOAD RANKS WRONG in K of N repetitions", and the run
 * fails (exit status 1) when a repetition was wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ga.h>
#include <macdecls.h>

#include "mtest.h"
#include "permutation.h"

#define S		16		/* the block's side */
#define MAX_REPS	20

enum workload { W_GET, W_ACC, W_READ_INC, NR_WORKLOADS };
static const char *const names[NR_WORKLOADS] = { "get", "acc", "read_inc" };

static int me, np;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Each rank's fetched values, gathered: one permutation of 0..total-1. */
static bool fetched_ok(const long *mine, long k)
{
	int *counts = malloc(sizeof(int) * (size_t)np);
	int *displs = malloc(sizeof(int) * (size_t)np);
	int mycount = (int)k, total = 0;
	long *all;
	bool ok;

	MPI_Allgather(&mycount, 1, MPI_INT, counts, 1, MPI_INT, MPI_COMM_WORLD);
	for (int r = 0; r < np; r++) {
		displs[r] = total;
		total += counts[r];
	}
	all = malloc(sizeof(long) * (size_t)(total ? total : 1));
	MPI_Allgatherv(mine, mycount, MPI_LONG, all, counts, displs, MPI_LONG,
		       MPI_COMM_WORLD);
	ok = permutation(all, total);
	free(all);
	free(displs);
	free(counts);
	return ok;
}

/*
 * One repetition of @w for @secs seconds on array @g and counter @gc;
 * returns ops/s (rank 0) and checks the result on every rank.
 */
static double one_rep(enum workload w, int g, int gc, double secs,
		      long **fetched, long *cap)
{
	static double buf[S * S];
	int lo[2] = { ((me + 1) % np) * S, 0 }, hi[2] = { lo[0] + S - 1, S - 1 };
	int ld = S, sub[1] = { 0 };
	double alpha = 1.0, t0, el, maxel, fig = 0;
	long ops = 0, total;
	bool ok = true;

	GA_Zero(g);
	GA_Zero(gc);
	for (int i = 0; i < S * S; i++)
		buf[i] = 1.0;
	GA_Sync();
	t0 = now();
	do {
		switch (w) {
		case W_GET:
			NGA_Get(g, lo, hi, buf, &ld);
			break;
		case W_ACC:
			NGA_Acc(g, lo, hi, buf, &ld, &alpha);
			break;
		case W_READ_INC:
			if (ops == *cap) {
				*cap = *cap ? 2 * *cap : 4096;
				*fetched = realloc(*fetched, sizeof(long) *
						   (size_t)*cap);
				if (!*fetched)
					GA_Error("ga_bench: out of memory", 0);
			}
			(*fetched)[ops] = NGA_Read_inc(gc, sub, 1);
			break;
		default:
			break;
		}
		ops++;
		el = now() - t0;
	} while (el < secs);
	GA_Sync();

	MPI_Allreduce(&ops, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(&el, &maxel, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	switch (w) {
	case W_ACC: {
		/* my block holds the count of my left neighbour's accumulates */
		int mlo[2] = { me * S, 0 }, mhi[2] = { me * S + S - 1, S - 1 };
		long *all = malloc(sizeof(long) * (size_t)np);
		double want;

		MPI_Allgather(&ops, 1, MPI_LONG, all, 1, MPI_LONG,
			      MPI_COMM_WORLD);
		want = (double)all[(me + np - 1) % np];
		NGA_Get(g, mlo, mhi, buf, &ld);
		for (int i = 0; i < S * S && ok; i++)
			ok = CHECK(buf[i] == want, "acc: element %d of rank %d's "
				   "block = %.17g, want %.17g", i, me, buf[i],
				   want);
		free(all);
		break;
	}
	case W_READ_INC: {
		long v = NGA_Read_inc(gc, sub, 0);

		ok = CHECK(v == total, "read_inc: the counter = %ld, want %ld",
			   v, total) &&
		     CHECK(fetched_ok(*fetched, ops), "read_inc: the values "
			   "fetched are not each of 0..%ld once", total - 1);
		break;
	}
	default:
		break;
	}
	/* every rank's verdict: a repetition is wrong anywhere or nowhere */
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_C_BOOL, MPI_LAND,
		      MPI_COMM_WORLD);
	GA_Sync();
	if (me == 0 && maxel > 0)
		fig = (double)total / maxel;
	return ok ? fig : -1;
}

/* -w LIST: the workloads named in @list; false on an unknown name. */
static bool pick(char *list, bool *chosen)
{
	char *save = NULL;
	int w;

	memset(chosen, 0, sizeof(bool) * NR_WORKLOADS);
	for (char *t = strtok_r(list, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		for (w = 0; w < NR_WORKLOADS && strcmp(t, names[w]); w++)
			;
		if (w == NR_WORKLOADS) {
			fprintf(stderr, "ga_bench: unknown workload '%s'\n", t);
			return false;
		}
		chosen[w] = true;
	}
	return true;
}

static void usage(void)
{
	fprintf(stderr, "usage: ga_bench [-t SECONDS] [-r REPS] [-w LIST]\n"
		"  -t  seconds per workload, all repetitions (default 3)\n"
		"  -r  repetitions per workload, 1..%d (default 5)\n"
		"  -w  workloads, comma-separated: get,acc,read_inc (default "
		"all)\n", MAX_REPS);
}

int main(int argc, char **argv)
{
	double secs = 3, v[MAX_REPS], f;
	int reps = 5, c, g, gc, dims[2], nblock[2], one[1] = { 1 }, *map;
	long *fetched = NULL, cap = 0;
	bool chosen[NR_WORKLOADS] = { true, true, true };
	char *end;

	mtest_init(&argc, &argv, "ga_bench");
	me = mtest_rank;
	np = mtest_size;
	while ((c = getopt(argc, argv, "t:r:w:")) != -1) {
		switch (c) {
		case 'w':
			if (!pick(optarg, chosen)) {
				usage();
				return 2;
			}
			break;
		case 't':
			secs = strtod(optarg, &end);
			if (*end || !(secs > 0 && secs <= 3600)) {
				fprintf(stderr, "ga_bench: -t wants seconds in "
					"(0, 3600], not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'r':
			reps = (int)strtol(optarg, &end, 10);
			if (*end || reps < 1 || reps > MAX_REPS) {
				fprintf(stderr, "ga_bench: -r wants 1..%d, not "
					"'%s'\n", MAX_REPS, optarg);
				return 2;
			}
			break;
		default:
			usage();
			return 2;
		}
	}
	GA_Initialize();
	if (!MA_init(C_DBL, 1000000, 1000000))
		CHECK(false, "MA_init failed");

	/* rank r owns rows r*S..r*S+S-1 */
	dims[0] = np * S;
	dims[1] = S;
	nblock[0] = np;
	nblock[1] = 1;
	map = malloc(sizeof(int) * (size_t)(np + 1));
	for (int r = 0; r < np; r++)
		map[r] = r * S;
	map[np] = 0;
	g = NGA_Create_irreg(C_DBL, 2, dims, "bench", nblock, map);
	gc = NGA_Create(C_LONG, 1, one, "counter", NULL);
	CHECK(g && gc, "NGA_Create failed");

	for (int w = 0; w < NR_WORKLOADS; w++) {
		int n = 0, wrong = 0;

		if (!chosen[w])
			continue;
		for (int i = 0; i < reps; i++) {
			f = one_rep(w, g, gc, secs / reps, &fetched, &cap);
			if (f < 0)
				wrong++;
			else
				v[n++] = f;
		}
		if (me == 0 && wrong) {
			printf("ga_bench: %s %d WRONG in %d of %d repetitions\n",
			       names[w], np, wrong, reps);
		} else if (me == 0) {
			qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
			printf("ga_bench: %s %d %.6g %.6g %.6g\n", names[w], np,
			       n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2,
			       v[0], v[n - 1]);
			fflush(stdout);
		}
	}
	free(fetched);
	free(map);
	GA_Destroy(gc);
	GA_Destroy(g);
	GA_Terminate();
	return mtest_finish();
}
