// SPDX-License-Identifier: GPL-2.0
/*
 * reduce_minloc: Example 5 of the MPI_Reduce manual page (seed 003).
 *
 * Each process has a nonempty array of values.  Find the minimum global
 * value, the rank of the process that holds it, and its index on that
 * process.  Each process finds its local minimum and its index, encodes
 * (rank, index) as myrank * LEN + index, and MPI_Reduce(MPI_MINLOC) on
 * MPI_FLOAT_INT pairs finds the global one.  On ties MINLOC keeps the
 * smaller encoded index, i.e. the lowest rank: the values here make the
 * minimum occur on several processes, so that rule is checked too.
 *
 * Usage: mpiexec -n P reduce_minloc [count]   (values per process, <= LEN)
 * Prints the minimum and where it is; exits 1 if it is wrong.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define LEN	1000

/* Value i of process r; the minimum, -50, is on every third process. */
static float val_of(int r, int i)
{
	int v = (r * 37 + i * 101) % 400 - 40;

	if (r % 3 == 2 && i == (r * 13) % 50)
		v = -50;
	return (float)v / 4;
}

int main(int argc, char **argv)
{
	float val[LEN] = { 0 };	/* local array of values */
	int count = 100;	/* local number of values */
	int myrank, minrank, minindex, p, root = 0, i, ok = 1;
	float minval;
	struct {
		float value;
		int index;
	} in, out;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &myrank);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	if (argc > 1)
		count = atoi(argv[1]);
	if (count < 1 || count > LEN) {
		if (myrank == 0)
			fprintf(stderr, "usage: reduce_minloc [1 <= count <= %d]\n",
				LEN);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (i = 0; i < count; i++)
		val[i] = val_of(myrank, i);

	/* local minloc */
	in.value = val[0];
	in.index = 0;
	for (i = 1; i < count; i++)
		if (in.value > val[i]) {
			in.value = val[i];
			in.index = i;
		}
	/* global minloc */
	in.index = myrank * LEN + in.index;
	MPI_Reduce(&in, &out, 1, MPI_FLOAT_INT, MPI_MINLOC, root,
		   MPI_COMM_WORLD);
	/* At this point, the answer resides on process root */
	if (myrank == root) {
		float want = val_of(0, 0);
		int r, want_rank = 0, want_index = 0;

		/* read answer out */
		minval = out.value;
		minrank = out.index / LEN;
		minindex = out.index % LEN;

		/* the first minimum in (rank, index) order */
		for (r = 0; r < p; r++)
			for (i = 0; i < count; i++)
				if (val_of(r, i) < want) {
					want = val_of(r, i);
					want_rank = r;
					want_index = i;
				}
		ok = minval == want && minrank == want_rank &&
		     minindex == want_index;
		printf("minimum %g at rank %d, index %d (expected %g at %d, %d)\n",
		       minval, minrank, minindex, want, want_rank, want_index);
		printf("reduce_minloc: %d processes, %d values each: %s\n", p,
		       count, ok ? "correct" : "WRONG");
	}
	MPI_Bcast(&ok, 1, MPI_INT, root, MPI_COMM_WORLD);
	MPI_Finalize();
	return ok ? 0 : 1;
}
