// SPDX-License-Identifier: GPL-2.0
/*
 * strided_bench: the strided call sequences of the programs mpirma is
 * measured by, on an allocated window, rank 0 to rank 1 of 2, a flush
 * after each call (one passive epoch):
 *
 *   vector     a committed vector of doubles (every other one) named by
 *              call after call, as a program with a fixed layout does:
 *              put, get, accumulate and get_accumulate from a plain
 *              buffer of N doubles into it, N = 8, 64, 512;
 *   subarray   what ARMCI-MPI does for every strided Global Arrays call:
 *              a 2-D subarray of doubles (N x N of 64 x 64) created and
 *              committed, one put, get or accumulate, the flush, the type
 *              freed, N = 2, 8, 32.
 *
 * One CSV row per shape: workload,ranks,impl,metric,median,min,max,unit
 * (us per call, over the rounds).  Built with mpirma's mpicc and with the
 * hosts' (make bench-strided); bench/strided-run runs it everywhere in one
 * boot and prints the table.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG	"strided_bench"
static int rank;

#include "../tools/cli.h"
#include "bench_mpi.h"

#define GRID	64		/* the subarrays' array: GRID x GRID doubles */
#define ROUNDS	5
#define WIN_DOUBLES (GRID * GRID)

enum kind { K_PUT, K_GET, K_ACC, K_GACC };
static const char *const kind_names[] = { "put", "get", "acc", "get_acc" };

static MPI_Win win;
static double *obuf, *rbuf;

/* One call of @k with target datatype @tt (@n doubles of data). */
static void call(enum kind k, int n, MPI_Datatype tt)
{
	switch (k) {
	case K_PUT:
		MPI_Put(obuf, n, MPI_DOUBLE, 1, 0, 1, tt, win);
		break;
	case K_GET:
		MPI_Get(rbuf, n, MPI_DOUBLE, 1, 0, 1, tt, win);
		break;
	case K_ACC:
		MPI_Accumulate(obuf, n, MPI_DOUBLE, 1, 0, 1, tt, MPI_SUM, win);
		break;
	case K_GACC:
		MPI_Get_accumulate(obuf, n, MPI_DOUBLE, rbuf, n, MPI_DOUBLE, 1,
				   0, 1, tt, MPI_SUM, win);
		break;
	}
	MPI_Win_flush(1, win);
}

/* @iters calls of @k on a vector of @n doubles; us per call. */
static double vector_round(enum kind k, int n, long iters)
{
	MPI_Datatype vec;
	double t0;

	MPI_Type_vector(n, 1, 2, MPI_DOUBLE, &vec);
	MPI_Type_commit(&vec);
	call(k, n, vec);
	t0 = MPI_Wtime();
	for (long i = 0; i < iters; i++)
		call(k, n, vec);
	t0 = MPI_Wtime() - t0;
	MPI_Type_free(&vec);
	return t0 / (double)iters * 1e6;
}

/* @iters calls of @k, each with a new @n x @n subarray; us per call. */
static double subarray_round(enum kind k, int n, long iters)
{
	int sizes[2] = { GRID, GRID }, sub[2] = { n, n }, starts[2] = { 1, 1 };
	double t0 = MPI_Wtime();

	for (long i = 0; i < iters; i++) {
		MPI_Datatype t;

		MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C,
					 MPI_DOUBLE, &t);
		MPI_Type_commit(&t);
		call(k, n * n, t);
		MPI_Type_free(&t);
	}
	return (MPI_Wtime() - t0) / (double)iters * 1e6;
}

/* One row: ROUNDS rounds of about @secs each; rank 0 prints it. */
static void row(FILE *csv, const char *impl, const char *shape, enum kind k,
		int n, double secs)
{
	double us[ROUNDS], med, lo, hi, first;
	long iters;
	int r;

	if (rank == 0) {
		/* a short round sizes the others */
		first = shape[0] == 'v' ? vector_round(k, n, 20) :
			subarray_round(k, n, 20);
		iters = (long)(secs * 1e6 / (first > 0.01 ? first : 0.01));
		iters = iters < 20 ? 20 : iters > 200000 ? 200000 : iters;
		for (r = 0; r < ROUNDS; r++)
			us[r] = shape[0] == 'v' ? vector_round(k, n, iters) :
				subarray_round(k, n, iters);
		lo = hi = us[0];
		for (r = 1; r < ROUNDS; r++) {
			lo = us[r] < lo ? us[r] : lo;
			hi = us[r] > hi ? us[r] : hi;
		}
		med = bench_median(us, ROUNDS);
		fprintf(csv, "strided,2,%s,latency,%.3f,%.3f,%.3f,us,%s.%s_%d\n",
			impl, med, lo, hi, kind_names[k], shape, n);
		fflush(csv);
	}
}

int main(int argc, char **argv)
{
	static const int vec_n[] = { 8, 64, 512 }, sub_n[] = { 2, 8, 32 };
	const char *impl = "mpirma", *path = NULL;
	double secs = 0.03, *base;
	int nranks;
	FILE *csv;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--impl") && i + 1 < argc)
			impl = argv[++i];
		else if (!strcmp(argv[i], "--csv") && i + 1 < argc)
			path = argv[++i];
		else if (!strcmp(argv[i], "--time") && i + 1 < argc)
			secs = atof(argv[++i]);
		else
			usage_error("usage: mpiexec -n 2 %s [--impl NAME] "
				    "[--csv FILE] [--time SECONDS]", PROG);
	}
	if (nranks != 2)
		usage_error("runs on exactly 2 ranks, not %d", nranks);
	if (secs <= 0 || secs > 10)
		usage_error("--time: seconds per round from 0 to 10, not %g", secs);
	csv = bench_csv_open(path);
	obuf = calloc(WIN_DOUBLES, sizeof(double));
	rbuf = calloc(WIN_DOUBLES, sizeof(double));
	if (!obuf || !rbuf) {
		fprintf(stderr, "%s: out of memory\n", PROG);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (int i = 0; i < WIN_DOUBLES; i++)
		obuf[i] = 1.0;
	MPI_Win_allocate(WIN_DOUBLES * sizeof(double), sizeof(double),
			 MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	memset(base, 0, WIN_DOUBLES * sizeof(double));
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
		for (int k = K_PUT; k <= K_GACC; k++)
			for (int i = 0; i < 3; i++)
				row(csv, impl, "vector", (enum kind)k,
				    vec_n[i], secs);
		for (int k = K_PUT; k <= K_ACC; k++)
			for (int i = 0; i < 3; i++)
				row(csv, impl, "subarray", (enum kind)k,
				    sub_n[i], secs);
		MPI_Win_unlock(1, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_free(&win);
	free(obuf);
	free(rbuf);
	if (csv != stdout)
		fclose(csv);
	MPI_Finalize();
	return 0;
}
