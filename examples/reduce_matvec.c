// SPDX-License-Identifier: GPL-2.0
/*
 * reduce_matvec: Example 2 of the MPI_Reduce manual page (seed 003): the
 * product of a vector and a matrix distributed over the processes, the
 * result at process zero.
 *
 * c(j) = sum over i of a(i) * b(i, j).  The rows i are distributed: each
 * process holds m entries of a and the m x n slice of b with those rows.
 * It computes its local sums sum(j) for every column j, and one
 * MPI_Reduce(MPI_SUM) of n elements adds them up at the root.  The other
 * processes' c is left alone ("garbage at the other nodes").
 *
 * Small integers in floats keep every sum exact, so the root compares
 * with a sequential product bit for bit.
 *
 * Usage: mpiexec -n P reduce_matvec [m [n]]   (rows per process, columns)
 * Prints c; exits 1 if it is wrong.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define DEFAULT_M	6
#define DEFAULT_N	5

static float a_of(long i)
{
	return (float)(i % 4 + 1);
}

static float b_of(long i, long j)
{
	return (float)((i + 2 * j) % 9) - 4;
}

/* The example's PAR_BLAS2 (b is stored by rows: b[i * n + j]). */
static void par_blas2(int m, int n, const float *a, const float *b, float *c,
		      MPI_Comm comm)
{
	float *sum = malloc(n * sizeof(float));
	int i, j;

	if (!sum)
		MPI_Abort(comm, 1);
	/* local sum */
	for (j = 0; j < n; j++) {
		sum[j] = 0;
		for (i = 0; i < m; i++)
			sum[j] += a[i] * b[i * n + j];
	}
	/* global sum */
	MPI_Reduce(sum, c, n, MPI_FLOAT, MPI_SUM, 0, comm);
	/* return result at process zero (and garbage at the other nodes) */
	free(sum);
}

int main(int argc, char **argv)
{
	int rank, p, m = DEFAULT_M, n = DEFAULT_N, i, j, ok = 1;
	float *a, *b, *c;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	if (argc > 1)
		m = atoi(argv[1]);
	if (argc > 2)
		n = atoi(argv[2]);
	if (m < 1 || n < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: reduce_matvec [m >= 1 [n >= 1]]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}

	a = malloc(m * sizeof(float));
	b = malloc((size_t)m * n * sizeof(float));
	c = calloc(n, sizeof(float));
	if (!a || !b || !c)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < m; i++) {
		long gi = (long)rank * m + i;	/* the global row */

		a[i] = a_of(gi);
		for (j = 0; j < n; j++)
			b[i * n + j] = b_of(gi, j);
	}

	par_blas2(m, n, a, b, c, MPI_COMM_WORLD);

	if (rank == 0) {
		printf("c =");
		for (j = 0; j < n; j++) {
			double want = 0;
			long gi;

			for (gi = 0; gi < (long)p * m; gi++)
				want += (double)a_of(gi) * b_of(gi, j);
			if (c[j] != want) {
				fprintf(stderr, "c(%d) = %g, want %g\n", j, c[j],
					want);
				ok = 0;
			}
			if (j < 16)
				printf(" %g", c[j]);
		}
		printf("%s\nreduce_matvec: %d processes, %d x %d each: %s\n",
		       n > 16 ? " ..." : "", p, m, n, ok ? "correct" : "WRONG");
	}
	MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

	free(a);
	free(b);
	free(c);
	MPI_Finalize();
	return ok ? 0 : 1;
}
