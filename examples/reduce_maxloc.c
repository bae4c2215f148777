// SPDX-License-Identifier: GPL-2.0
/*
 * reduce_maxloc: Example 3 of the MPI_Reduce manual page (seed 003).
 *
 * Each process has an array of 30 doubles.  For each of the 30 locations,
 * compute the largest value and the rank of the process holding it, with
 * MPI_Reduce(MPI_MAXLOC) on (value, rank) pairs of type MPI_DOUBLE_INT.
 *
 * The values are chosen so that many locations have ties: MAXLOC must then
 * report the lowest rank holding the maximum (the standard's rule
 * k = min(i, j) when u = v).  The root checks every location against a
 * sequential search.
 *
 * Usage: mpiexec -n P reduce_maxloc
 * Prints the first locations; exits 1 if any is wrong.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define N	30

/* Value at location i of process r: few distinct values, so ties happen. */
static double ain_of(int r, int i)
{
	return (double)((r * 7 + i * 3) % 5) - 1.5 * (i % 2);
}

int main(int argc, char **argv)
{
	/* each process has an array of 30 double: ain[30] */
	double ain[N], aout[N];
	int ind[N];
	struct {
		double val;
		int rank;
	} in[N], out[N];
	int i, myrank, p, root = 0, ok = 1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	for (i = 0; i < N; ++i)
		ain[i] = ain_of(myrank, i);

	for (i = 0; i < N; ++i) {
		in[i].val = ain[i];
		in[i].rank = myrank;
	}
	MPI_Reduce(in, out, N, MPI_DOUBLE_INT, MPI_MAXLOC, root,
		   MPI_COMM_WORLD);
	/* At this point, the answer resides on process root */
	if (myrank == root) {
		/* read ranks out */
		for (i = 0; i < N; ++i) {
			aout[i] = out[i].val;
			ind[i] = out[i].rank;
		}

		for (i = 0; i < N; ++i) {
			double want = ain_of(0, i);
			int r, want_rank = 0;

			for (r = 1; r < p; r++)
				if (ain_of(r, i) > want) {
					want = ain_of(r, i);
					want_rank = r;
				}
			if (aout[i] != want || ind[i] != want_rank) {
				fprintf(stderr, "location %d: (%g, %d), want (%g, %d)\n",
					i, aout[i], ind[i], want, want_rank);
				ok = 0;
			}
		}
		printf("max (rank) at locations 0..5:");
		for (i = 0; i < 6; i++)
			printf(" %g (%d)", aout[i], ind[i]);
		printf("\nreduce_maxloc: %d processes, %d locations: %s\n", p, N,
		       ok ? "correct" : "WRONG");
	}
	MPI_Bcast(&ok, 1, MPI_INT, root, MPI_COMM_WORLD);
	MPI_Finalize();
	return ok ? 0 : 1;
}
