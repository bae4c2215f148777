// SPDX-License-Identifier: GPL-2.0
/*
 * mapvals_gather: Examples 11.1 and 11.2 of the MPI standard (MPI-3.1,
 * section 11.3.3, "Examples for Communication Calls"), in C, and the
 * accumulate variant of 11.1.
 *
 * A(i) = B(map(i)): a gather through a map.  A, B and map are distributed
 * the same way, m elements on each of the p processes; the global element
 * g lives on process g / m at index g % m.
 *
 *  - Example 11.1 (MAPVALS) builds, for every process j, an indexed_block
 *    datatype picking the entries of A that come from j (origin) and one
 *    picking where they are in j's part of B (target), then does one
 *    MPI_Get per process between two fences.
 *  - Example 11.2 does the same with one MPI_Get per entry: simpler, slower.
 *  - The accumulate variant turns the gather around, B(j) += A(i) for
 *    map(i) = j (what Example 11.3 computes), with the same kind of
 *    datatypes and one MPI_Accumulate per process.  A target datatype of an
 *    accumulate must not name an element twice, so entries of A that go to
 *    the same B(j) are first added up locally.
 *
 * B and map are functions of the global index, so every process can check
 * its results.  Values are small integers in floats, so sums are exact.
 *
 * Usage: mpiexec -n P mapvals_gather [m]      (m: elements per process)
 * Exits 1 if any result is wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#define DEFAULT_M	10

static float b_of(long g)
{
	return (float)(3 * g + 1);
}

static float a_of(long g)
{
	return (float)(g % 11 + 1);
}

/* Not a permutation: several entries may read (or add to) one B(j). */
static long map_of(long g, long n)
{
	return (g * 5 + 7 * (g / 3)) % n;
}

/*
 * The index lists of Example 11.1: for each process j, count[j] entries;
 * entry c of process j is oindex[total[j] + c] of ours (origin) and
 * tindex[total[j] + c] of j's (target).  Only entries with use[i] set are
 * listed (all of them for the gather).
 */
struct plan {
	int *count, *total, *oindex, *tindex;
};

static void plan_make(struct plan *pl, const long *map, const int *use,
		      int m, int p)
{
	int i, j;

	pl->count = calloc(p, sizeof(int));
	pl->total = calloc(p, sizeof(int));
	pl->oindex = calloc(m, sizeof(int));
	pl->tindex = calloc(m, sizeof(int));
	if (!pl->count || !pl->total || !pl->oindex || !pl->tindex)
		MPI_Abort(MPI_COMM_WORLD, 1);

	/* number of entries to be received from each process */
	for (i = 0; i < m; i++)
		if (use[i])
			pl->count[map[i] / m]++;
	pl->total[0] = 0;
	for (j = 1; j < p; j++)
		pl->total[j] = pl->total[j - 1] + pl->count[j - 1];
	for (j = 0; j < p; j++)
		pl->count[j] = 0;

	/* origin and target indices: our entry i is entry k of process j,
	 * where map(i) = j * m + k
	 */
	for (i = 0; i < m; i++) {
		int k;

		if (!use[i])
			continue;
		j = (int)(map[i] / m);
		k = (int)(map[i] % m);
		pl->oindex[pl->total[j] + pl->count[j]] = i;
		pl->tindex[pl->total[j] + pl->count[j]] = k;
		pl->count[j]++;
	}
}

static void plan_free(struct plan *pl)
{
	free(pl->count);
	free(pl->total);
	free(pl->oindex);
	free(pl->tindex);
}

/* One origin and one target datatype per process, as in Example 11.1. */
static void make_types(const struct plan *pl, int p, MPI_Datatype *otype,
		       MPI_Datatype *ttype)
{
	int j;

	for (j = 0; j < p; j++) {
		MPI_Type_create_indexed_block(pl->count[j], 1,
					      &pl->oindex[pl->total[j]],
					      MPI_FLOAT, &otype[j]);
		MPI_Type_commit(&otype[j]);
		MPI_Type_create_indexed_block(pl->count[j], 1,
					      &pl->tindex[pl->total[j]],
					      MPI_FLOAT, &ttype[j]);
		MPI_Type_commit(&ttype[j]);
	}
}

static void free_types(int p, MPI_Datatype *otype, MPI_Datatype *ttype)
{
	int j;

	for (j = 0; j < p; j++) {
		MPI_Type_free(&otype[j]);
		MPI_Type_free(&ttype[j]);
	}
}

/* Example 11.1: A(i) = B(map(i)) with one MPI_Get per process. */
static void mapvals(float *a, float *b, const long *map, int m, MPI_Comm comm,
		    int p)
{
	MPI_Datatype *otype = malloc(p * sizeof(*otype));
	MPI_Datatype *ttype = malloc(p * sizeof(*ttype));
	int *all = malloc(m * sizeof(int));
	MPI_Aint lowerbound, sizeofreal;
	struct plan pl;
	MPI_Win win;
	int i, j;

	if (!otype || !ttype || !all)
		MPI_Abort(comm, 1);
	MPI_Type_get_extent(MPI_FLOAT, &lowerbound, &sizeofreal);
	MPI_Win_create(b, m * sizeofreal, (int)sizeofreal, MPI_INFO_NULL, comm,
		       &win);

	for (i = 0; i < m; i++)
		all[i] = 1;
	plan_make(&pl, map, all, m, p);
	make_types(&pl, p, otype, ttype);

	MPI_Win_fence(0, win);
	for (j = 0; j < p; j++)
		MPI_Get(a, 1, otype[j], j, 0, 1, ttype[j], win);
	MPI_Win_fence(0, win);

	MPI_Win_free(&win);
	free_types(p, otype, ttype);
	plan_free(&pl);
	free(otype);
	free(ttype);
	free(all);
}

/* Example 11.2: the same, one MPI_Get per entry, no derived datatypes. */
static void mapvals_simple(float *a, float *b, const long *map, int m,
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
		int j = (int)(map[i] / m);
		MPI_Aint k = map[i] % m;

		MPI_Get(&a[i], 1, MPI_FLOAT, j, k, 1, MPI_FLOAT, win);
	}
	MPI_Win_fence(0, win);
	MPI_Win_free(&win);
}

/*
 * The accumulate variant: B(j) += A(i) for map(i) = j.  Entries with the
 * same map value are added up into the first of them (contrib), so each
 * target datatype names every element of B at most once.
 */
static void mapvals_accumulate(const float *a, float *b, const long *map,
			       int m, MPI_Comm comm, int p)
{
	MPI_Datatype *otype = malloc(p * sizeof(*otype));
	MPI_Datatype *ttype = malloc(p * sizeof(*ttype));
	float *contrib = calloc(m, sizeof(float));
	int *first = calloc(m, sizeof(int));
	MPI_Aint lowerbound, sizeofreal;
	struct plan pl;
	MPI_Win win;
	int i, i2, j;

	if (!otype || !ttype || !contrib || !first)
		MPI_Abort(comm, 1);
	for (i = 0; i < m; i++) {
		for (i2 = 0; map[i2] != map[i]; i2++)
			;
		first[i] = i2 == i;
		contrib[i2] += a[i];
	}

	MPI_Type_get_extent(MPI_FLOAT, &lowerbound, &sizeofreal);
	MPI_Win_create(b, m * sizeofreal, (int)sizeofreal, MPI_INFO_NULL, comm,
		       &win);
	plan_make(&pl, map, first, m, p);
	make_types(&pl, p, otype, ttype);

	MPI_Win_fence(0, win);
	for (j = 0; j < p; j++)
		MPI_Accumulate(contrib, 1, otype[j], j, 0, 1, ttype[j], MPI_SUM,
			       win);
	MPI_Win_fence(0, win);

	MPI_Win_free(&win);
	free_types(p, otype, ttype);
	plan_free(&pl);
	free(otype);
	free(ttype);
	free(contrib);
	free(first);
}

int main(int argc, char **argv)
{
	int rank, p, m = DEFAULT_M, i, bad = 0, allbad;
	float *a, *a2, *b, *sum;
	long *map, n, g;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &p);
	if (argc > 1)
		m = atoi(argv[1]);
	if (m < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: mapvals_gather [m >= 1]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	n = (long)p * m;

	a = malloc(m * sizeof(float));
	a2 = malloc(m * sizeof(float));
	b = malloc(m * sizeof(float));
	sum = calloc(m, sizeof(float));
	map = malloc(m * sizeof(long));
	if (!a || !a2 || !b || !sum || !map)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < m; i++) {
		g = (long)rank * m + i;
		b[i] = b_of(g);
		map[i] = map_of(g, n);
		a[i] = a2[i] = -1;
	}

	/* Example 11.1 and 11.2: A(i) = B(map(i)) */
	mapvals(a, b, map, m, MPI_COMM_WORLD, p);
	mapvals_simple(a2, b, map, m, MPI_COMM_WORLD);
	for (i = 0; i < m; i++) {
		float want = b_of(map[i]);

		if (a[i] != want || a2[i] != want) {
			fprintf(stderr, "rank %d: A(%d) = %g (11.1), %g (11.2), "
				"want B(%ld) = %g\n", rank, i, a[i], a2[i],
				map[i], want);
			bad++;
		}
	}

	/* The accumulate variant: SUM(j) = sum of A(i) over map(i) = j */
	for (i = 0; i < m; i++)
		a[i] = a_of((long)rank * m + i);
	mapvals_accumulate(a, sum, map, m, MPI_COMM_WORLD, p);
	for (i = 0; i < m; i++) {
		long j = (long)rank * m + i;
		float want = 0;

		for (g = 0; g < n; g++)
			if (map_of(g, n) == j)
				want += a_of(g);
		if (sum[i] != want) {
			fprintf(stderr, "rank %d: accumulated B(%ld) = %g, want %g\n",
				rank, j, sum[i], want);
			bad++;
		}
	}

	MPI_Allreduce(&bad, &allbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0) {
		printf("A(0..%d) on rank 0 =", m < 8 ? m - 1 : 7);
		for (i = 0; i < m && i < 8; i++)
			printf(" %g", a2[i]);
		printf("\nmapvals_gather: %d processes, m = %d: gather (11.1, "
		       "11.2) and accumulate variant: %s\n", p, m,
		       allbad ? "WRONG" : "correct");
	}

	free(a);
	free(a2);
	free(b);
	free(sum);
	free(map);
	MPI_Finalize();
	return allbad ? 1 : 0;
}
