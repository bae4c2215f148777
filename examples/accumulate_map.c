// SPDX-License-Identifier: GPL-2.0
/*
 * accumulate_map: Example 11.3 of the MPI standard (MPI-3.1, section
 * 11.3.4, "Accumulate Functions"), in C.
 *
 * We want B(j) = sum of A(i) over all i with map(i) = j.  A, B and map are
 * distributed the same way: m elements on each of the p processes, so the
 * global element g lives on process g / m at index g % m.  Each process
 * adds every one of its A(i) into B(map(i)) with MPI_Accumulate(MPI_SUM)
 * between two fences.  Several processes may add into the same element of
 * B in the same epoch: accumulate (unlike put) makes that well defined.
 *
 * A and map are functions of the global index, so every process can work
 * out the right B for its own elements and check what it received.  The
 * values are small integers held in floats: every partial sum is exact, so
 * the order in which the additions happen cannot change the result.
 *
 * Usage: mpiexec -n P accumulate_map [m]      (m: elements per process)
 * Prints B, gathered at rank 0; exits 1 if any element is wrong.
 */
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#define DEFAULT_M	8
#define PRINT_MAX	64	/* print B only when it is this short */

/* The example's data, as functions of the global index g in [0, n). */
static float a_of(long g)
{
	return (float)(g % 13 + 1);
}

/* Not a permutation: some B(j) get several contributions, some none. */
static long map_of(long g, long n)
{
	return (g * g + 5 * (g / 3) + 1) % n;
}

/*
 * The standard's SUM subroutine: B(j) = sum of A(i) over map(i) = j.  The
 * only differences from the Fortran are 0-based indices and C types.
 */
static void sum(const float *a, float *b, const long *map, int m,
		MPI_Comm comm)
{
	MPI_Aint lowerbound, sizeofreal;
	MPI_Win win;
	int i;

	MPI_Type_get_extent(MPI_FLOAT, &lowerbound, &sizeofreal);
	MPI_Win_create(b, m * sizeofreal, (int)sizeofreal, MPI_INFO_NULL, comm,
		       &win);

	MPI_Win_fence(0, win);
	for (i = 0; i < m; i++) {
		int j = (int)(map[i] / m);	/* the process holding B(map(i)) */
		MPI_Aint k = map[i] % m;	/* its index there */

		MPI_Accumulate(&a[i], 1, MPI_FLOAT, j, k, 1, MPI_FLOAT, MPI_SUM,
			       win);
	}
	MPI_Win_fence(0, win);

	MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
	int rank, p, m = DEFAULT_M, i, bad = 0, allbad;
	float *a, *b, *all = NULL;
	long *map, n, g;
	double total = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	if (argc > 1)
		m = atoi(argv[1]);
	if (m < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: accumulate_map [m >= 1]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	n = (long)p * m;

	a = malloc(m * sizeof(*a));
	b = calloc(m, sizeof(*b));		/* B starts at zero */
	map = malloc(m * sizeof(*map));
	if (!a || !b || !map)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < m; i++) {
		g = (long)rank * m + i;
		a[i] = a_of(g);
		map[i] = map_of(g, n);
	}

	sum(a, b, map, m, MPI_COMM_WORLD);

	/* Check B(j) for our own j against a sequential computation. */
	for (i = 0; i < m; i++) {
		long j = (long)rank * m + i;
		float want = 0;

		for (g = 0; g < n; g++)
			if (map_of(g, n) == j)
				want += a_of(g);
		if (b[i] != want) {
			fprintf(stderr, "rank %d: B(%ld) = %g, want %g\n", rank,
				j, b[i], want);
			bad++;
		}
	}

	if (rank == 0)
		all = malloc(n * sizeof(*all));
	MPI_Gather(b, m, MPI_FLOAT, all, m, MPI_FLOAT, 0, MPI_COMM_WORLD);
	MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0) {
		/* Accumulate moves every A(i) somewhere: sum(B) = sum(A). */
		double want_total = 0;

		for (g = 0; g < n; g++) {
			total += all[g];
			want_total += a_of(g);
		}
		if (total != want_total) {
			fprintf(stderr, "sum(B) = %g, sum(A) = %g\n", total,
				want_total);
			allbad++;
		}
		if (n <= PRINT_MAX) {
			printf("B =");
			for (g = 0; g < n; g++)
				printf(" %g", all[g]);
			printf("\n");
		}
		printf("accumulate_map: %d processes, m = %d: sum(B) = %g: %s\n",
		       p, m, total, allbad ? "WRONG" : "correct");
		free(all);
	}

	free(a);
	free(b);
	free(map);
	MPI_Finalize();
	return allbad ? 1 : 0;
}
