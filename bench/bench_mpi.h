/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the MPI benchmarks (rma_bench.c, msg_bench.c) share: a usage error
 * reported once, at rank 0, after MPI_Finalize; the median of a row; and
 * the CSV file rank 0 appends its rows to.
 *
 * The includer defines PROG and `static int rank` (its MPI_COMM_WORLD
 * rank) before including this, and includes <mpi.h> and tools/cli.h.
 */
#ifndef MPIRMA_BENCH_MPI_H
#define MPIRMA_BENCH_MPI_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void __attribute__((noreturn, format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	if (rank == 0) {
		va_start(ap, fmt);
		cli_vreport(PROG, true, fmt, ap);
		va_end(ap);
	}
	MPI_Finalize();
	exit(2);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Sorts @v's @n values (n > 0) and returns their median. */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Where rank 0 writes its rows: @path appended to, or stdout. */
static inline FILE *bench_csv_open(const char *path)
{
	FILE *f;

	if (rank != 0 || !path)
		return stdout;
	f = fopen(path, "a");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", PROG, path, strerror(errno));
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	return f;
}

#endif /* MPIRMA_BENCH_MPI_H */
