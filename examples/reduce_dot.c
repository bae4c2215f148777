// SPDX-License-Identifier: GPL-2.0
/*
 * reduce_dot: Example 1 of the MPI_Reduce manual page (seed 003): the dot
 * product of two vectors distributed over the processes, the result at
 * process zero.
 *
 * Each process holds m entries of a and of b, computes its local sum of
 * a(i) * b(i), and MPI_Reduce(MPI_SUM) adds the local sums at the root.
 * The entries are small integers in floats (as the example's REAL), so
 * every sum is exact and the root can compare with the closed-form value.
 *
 * Usage: mpiexec -n P reduce_dot [m]      (m: entries per process)
 * Prints a . b; exits 1 if it is wrong.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define DEFAULT_M	100

/* The vectors, as functions of the global index. */
static float a_of(long g)
{
	return (float)(g % 7 + 1);
}

static float b_of(long g)
{
	return (float)(g % 5) - 2;
}

/* The example's PAR_BLAS1: c = a . b at process zero. */
static void par_blas1(int m, const float *a, const float *b, float *c,
		      MPI_Comm comm)
{
	float sum = 0;
	int i;

	/* local sum */
	for (i = 0; i < m; i++)
		sum += a[i] * b[i];
	/* global sum */
	MPI_Reduce(&sum, c, 1, MPI_FLOAT, MPI_SUM, 0, comm);
}

int main(int argc, char **argv)
{
	int rank, p, m = DEFAULT_M, i, ok = 1;
	float *a, *b, c = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	if (argc > 1)
		m = atoi(argv[1]);
	if (m < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: reduce_dot [m >= 1]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}

	a = malloc(m * sizeof(float));
	b = malloc(m * sizeof(float));
	if (!a || !b)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < m; i++) {
		a[i] = a_of((long)rank * m + i);
		b[i] = b_of((long)rank * m + i);
	}

	par_blas1(m, a, b, &c, MPI_COMM_WORLD);

	if (rank == 0) {
		double want = 0;
		long g;

		for (g = 0; g < (long)p * m; g++)
			want += (double)a_of(g) * b_of(g);
		ok = c == want;
		printf("reduce_dot: %d processes, %d entries each: a . b = %g "
		       "(expected %g): %s\n", p, m, c, want,
		       ok ? "correct" : "WRONG");
	}
	/* every process exits with the verdict */
	MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);

	free(a);
	free(b);
	MPI_Finalize();
	return ok ? 0 : 1;
}
