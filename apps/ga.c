// SPDX-License-Identifier: GPL-2.0
/*
 * ga: Global Arrays and ARMCI-MPI (Debian's libga-HOST.a over
 * libarmci-HOST.a) on mpirma's hybrid layer, each result checked exactly.
 * These libraries make their windows on MPI_COMM_WORLD and on process
 * groups, and use passive-target RMA throughout: what NWChem does to them.
 *
 *   armci    ARMCI_Malloc, put to the right neighbour, get from the left,
 *            ARMCI_Acc of every rank into rank 0, ARMCI_Rmw fetch-and-add
 *            (every value fetched exactly once), a mutex-guarded
 *            read-modify-write, ARMCI_Malloc_group on an odd/even split
 *   ga       regular and irregular 2-D arrays: patches put and read back,
 *            NGA_Acc of every rank, NGA_Read_inc under contention,
 *            NGA_Scatter_acc, GA_Dgemm, an array on a process group
 *
 * Run by hybrid/run under each host with the layer preloaded (hybrid/list,
 * list.2), at any rank count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <armci.h>
#include <ga.h>
#include <macdecls.h>

#include "mtest.h"
#include "permutation.h"

#define N	24		/* doubles per rank (ARMCI), array side (GA) */
#define INCS	40		/* fetch-and-adds per rank */

static int me, np;

/* Each rank's fetched values, gathered: one permutation of 0..np*k-1. */
static void check_fetched(const long *mine, int k, const char *what)
{
	long *all = malloc(sizeof(long) * (size_t)(np * k));

	MPI_Allgather(mine, k, MPI_LONG, all, k, MPI_LONG, MPI_COMM_WORLD);
	CHECK(permutation(all, (long)np * k), "%s: the values fetched are not "
	      "each of 0..%d once", what, np * k - 1);
	free(all);
}

static void test_armci(void)
{
	double **base = malloc(sizeof(double *) * (size_t)np);
	double src[N], dst[N];
	long **ctr = malloc(sizeof(long *) * (size_t)np), got[INCS], one = 1;
	int right = (me + 1) % np, left = (me + np - 1) % np, i;

	mtest_section("armci");
	CHECK_EQ(ARMCI_Malloc((void **)base, N * sizeof(double)), 0,
		 "ARMCI_Malloc");
	CHECK_EQ(ARMCI_Malloc((void **)ctr, sizeof(long)), 0, "ARMCI_Malloc");
	for (i = 0; i < N; i++)
		src[i] = me * 1000 + i;
	ARMCI_Access_begin(base[me]);
	memset(base[me], 0, N * sizeof(double));
	ARMCI_Access_end(base[me]);
	*ctr[me] = 0;
	ARMCI_Barrier();

	/* put to the right neighbour */
	ARMCI_Put(src, base[right], N * sizeof(double), right);
	ARMCI_Fence(right);
	ARMCI_Barrier();
	ARMCI_Access_begin(base[me]);
	for (i = 0; i < N; i++)
		CHECK(base[me][i] == left * 1000 + i, "put: element %d = %g, "
		      "want %d", i, base[me][i], left * 1000 + i);
	ARMCI_Access_end(base[me]);
	ARMCI_Barrier();

	/* get from the left neighbour: its memory holds its left's values */
	ARMCI_Get(base[left], dst, N * sizeof(double), left);
	for (i = 0; i < N; i++)
		CHECK(dst[i] == ((left + np - 1) % np) * 1000 + i,
		      "get: element %d = %g", i, dst[i]);
	ARMCI_Barrier();

	/* every rank accumulates 2 x src into rank 0 */
	{
		double scale = 2.0, want;

		ARMCI_Acc(ARMCI_ACC_DBL, &scale, src, base[0],
			  N * sizeof(double), 0);
		ARMCI_AllFence();
		ARMCI_Barrier();
		if (me == 0) {
			ARMCI_Access_begin(base[0]);
			for (i = 0; i < N; i++) {
				want = (np - 1) * 1000.0 + i;	/* the put */
				for (int r = 0; r < np; r++)
					want += 2.0 * (r * 1000 + i);
				CHECK(base[0][i] == want, "acc: element %d = %g"
				      ", want %g", i, base[0][i], want);
			}
			ARMCI_Access_end(base[0]);
		}
	}
	ARMCI_Barrier();

	/* fetch-and-add on rank 0's counter */
	for (i = 0; i < INCS; i++)
		ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &got[i], ctr[0], 1, 0);
	ARMCI_Barrier();
	check_fetched(got, INCS, "ARMCI_Rmw");
	if (me == 0)
		CHECK_EQ(*ctr[0], (long)np * INCS, "the counter");
	ARMCI_Barrier();

	/* a mutex guards a get, add, put on rank np-1's counter */
	ARMCI_Create_mutexes(1);
	for (i = 0; i < INCS / 4; i++) {
		long v;

		ARMCI_Lock(0, np - 1);
		ARMCI_Get(ctr[np - 1], &v, sizeof(v), np - 1);
		v += one;
		ARMCI_Put(&v, ctr[np - 1], sizeof(v), np - 1);
		ARMCI_Fence(np - 1);
		ARMCI_Unlock(0, np - 1);
	}
	ARMCI_Barrier();
	if (me == np - 1)
		CHECK_EQ(*ctr[np - 1] - (np == 1 ? (long)np * INCS : 0),
			 (long)np * (INCS / 4), "the mutex counter");
	ARMCI_Destroy_mutexes();

	/* memory on an odd/even split of the world (a group of one at 2) */
	{
		ARMCI_Group world, half;
		int members[64], n = 0, grank, gsize;
		long **g;

		for (int r = me % 2; r < np && n < 64; r += 2)
			members[n++] = r;
		ARMCI_Group_get_world(&world);
		ARMCI_Group_create_child(n, members, &half, &world);
		ARMCI_Group_rank(&half, &grank);
		ARMCI_Group_size(&half, &gsize);
		CHECK_EQ(gsize, n, "the group's size");
		g = malloc(sizeof(long *) * (size_t)gsize);
		CHECK_EQ(ARMCI_Malloc_group((void **)g, sizeof(long), &half), 0,
			 "ARMCI_Malloc_group");
		*g[grank] = 0;
		parmci_msg_group_barrier(&half);
		ARMCI_Rmw(ARMCI_FETCH_AND_ADD_LONG, &got[0], g[0], 1,
			  ARMCI_Absolute_id(&half, 0));
		parmci_msg_group_barrier(&half);
		if (grank == 0)
			CHECK_EQ(*g[0], gsize, "the group's counter");
		parmci_msg_group_barrier(&half);
		ARMCI_Free_group(g[grank], &half);
		ARMCI_Group_free(&half);
		free(g);
	}
	ARMCI_Barrier();
	ARMCI_Free(ctr[me]);
	ARMCI_Free(base[me]);
	free(ctr);
	free(base);
}

/* The value element (i, j) of the test arrays holds. */
static double val(int i, int j)
{
	return i * 100.0 + j;
}

/* Every rank puts its rows of @g, then reads the whole back. */
static void check_patches(int g, const char *what)
{
	static double buf[N * N];
	int lo[2], hi[2], ld = N, rows = (N + np - 1) / np, i, j;

	lo[0] = me * rows;
	hi[0] = lo[0] + rows - 1 < N - 1 ? lo[0] + rows - 1 : N - 1;
	lo[1] = 0;
	hi[1] = N - 1;
	if (lo[0] <= hi[0]) {
		for (i = lo[0]; i <= hi[0]; i++)
			for (j = 0; j < N; j++)
				buf[(i - lo[0]) * N + j] = val(i, j);
		NGA_Put(g, lo, hi, buf, &ld);
	}
	GA_Sync();
	lo[0] = 0;
	hi[0] = N - 1;
	NGA_Get(g, lo, hi, buf, &ld);
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++)
			CHECK(buf[i * N + j] == val(i, j), "%s: (%d,%d) = %g",
			      what, i, j, buf[i * N + j]);
	GA_Sync();
}

static void test_ga(void)
{
	int dims[2] = { N, N }, chunk[2] = { -1, -1 }, lo[2], hi[2], ld = N;
	int g, gi, gc, gb, gd, i, j;
	static double buf[N * N];
	long got[INCS];

	mtest_section("ga");
	g = NGA_Create(C_DBL, 2, dims, "regular", chunk);
	CHECK(g != 0, "NGA_Create failed");
	check_patches(g, "regular");

	/*
	 * irregular: rows cut unevenly, and columns in two from 4 ranks (GA
	 * wants no more blocks than ranks)
	 */
	{
		int map[N + 2], nblock[2], k = 0, r;

		nblock[1] = np >= 4 ? 2 : 1;
		nblock[0] = np / nblock[1] < N ? np / nblock[1] : N;
		for (r = 0; r < nblock[0]; r++)
			map[k++] = r * r * N / (nblock[0] * nblock[0]);
		map[k++] = 0;
		if (nblock[1] == 2)
			map[k++] = N / 3;
		gi = NGA_Create_irreg(C_DBL, 2, dims, "irregular", nblock, map);
		CHECK(gi != 0, "NGA_Create_irreg failed");
		check_patches(gi, "irregular");
	}

	/* every rank adds 0.5 x val into the whole regular array */
	{
		double alpha = 0.5;

		for (i = 0; i < N; i++)
			for (j = 0; j < N; j++)
				buf[i * N + j] = val(i, j);
		lo[0] = lo[1] = 0;
		hi[0] = hi[1] = N - 1;
		NGA_Acc(g, lo, hi, buf, &ld, &alpha);
		GA_Sync();
		NGA_Get(g, lo, hi, buf, &ld);
		for (i = 0; i < N; i++)
			for (j = 0; j < N; j++)
				CHECK(buf[i * N + j] == val(i, j) * (1 + 0.5 * np),
				      "NGA_Acc: (%d,%d) = %g", i, j, buf[i * N + j]);
		GA_Sync();
	}

	/* a shared counter */
	{
		int one[1] = { 1 }, sub[1] = { 0 };

		gc = NGA_Create(C_LONG, 1, one, "counter", NULL);
		GA_Zero(gc);
		for (i = 0; i < INCS; i++)
			got[i] = NGA_Read_inc(gc, sub, 1);
		GA_Sync();
		check_fetched(got, INCS, "NGA_Read_inc");
	}

	/* scatter-accumulate: rank r adds r+1 at (r+k) mod N, (2k) mod N */
	{
		int subs[2 * N], *sp[N];
		double v[N], alpha = 1.0, want;

		GA_Zero(g);
		for (i = 0; i < N; i++) {
			subs[2 * i] = (me + i) % N;
			subs[2 * i + 1] = (2 * i) % N;
			sp[i] = &subs[2 * i];
			v[i] = me + 1;
		}
		NGA_Scatter_acc(g, v, sp, N, &alpha);
		GA_Sync();
		lo[0] = lo[1] = 0;
		hi[0] = hi[1] = N - 1;
		NGA_Get(g, lo, hi, buf, &ld);
		for (i = 0; i < N; i++)
			for (j = 0; j < N; j++) {
				want = 0;
				for (int r = 0; r < np; r++)
					for (int k = 0; k < N; k++)
						if ((r + k) % N == i && (2 * k) % N == j)
							want += r + 1;
				CHECK(buf[i * N + j] == want, "NGA_Scatter_acc: "
				      "(%d,%d) = %g, want %g", i, j, buf[i * N + j],
				      want);
			}
		GA_Sync();
	}

	/* C = A x B with A(i,k) = i + k, B(k,j) = k == j ? 2 : 0 */
	{
		int ga_a = GA_Duplicate(g, "a"), ga_b = GA_Duplicate(g, "b");

		gd = GA_Duplicate(g, "c");
		if (me == 0) {
			lo[0] = lo[1] = 0;
			hi[0] = hi[1] = N - 1;
			for (i = 0; i < N; i++)
				for (j = 0; j < N; j++)
					buf[i * N + j] = i + j;
			NGA_Put(ga_a, lo, hi, buf, &ld);
			for (i = 0; i < N; i++)
				for (j = 0; j < N; j++)
					buf[i * N + j] = i == j ? 2 : 0;
			NGA_Put(ga_b, lo, hi, buf, &ld);
		}
		GA_Sync();
		GA_Dgemm('N', 'N', N, N, N, 1.0, ga_a, ga_b, 0.0, gd);
		lo[0] = lo[1] = 0;
		hi[0] = hi[1] = N - 1;
		NGA_Get(gd, lo, hi, buf, &ld);
		for (i = 0; i < N; i++)
			for (j = 0; j < N; j++)
				CHECK(buf[i * N + j] == 2.0 * (i + j), "GA_Dgemm: "
				      "(%d,%d) = %g", i, j, buf[i * N + j]);
		GA_Sync();
		GA_Destroy(ga_a);
		GA_Destroy(ga_b);
	}

	/* an array on the even ranks' group (all of them at one rank) */
	{
		int list[64], n = 0, pg;

		for (int r = 0; r < np && n < 64; r += 2)
			list[n++] = r;
		pg = GA_Pgroup_create(list, n);
		if (me % 2 == 0) {
			gb = NGA_Create_config(C_DBL, 2, dims, "group", chunk, pg);
			CHECK(gb != 0, "NGA_Create_config failed");
			GA_Pgroup_sync(pg);
			if (me == 0) {
				lo[0] = lo[1] = 0;
				hi[0] = hi[1] = N - 1;
				for (i = 0; i < N; i++)
					for (j = 0; j < N; j++)
						buf[i * N + j] = val(i, j);
				NGA_Put(gb, lo, hi, buf, &ld);
			}
			GA_Pgroup_sync(pg);
			lo[0] = lo[1] = 0;
			hi[0] = hi[1] = N - 1;
			NGA_Get(gb, lo, hi, buf, &ld);
			for (i = 0; i < N; i++)
				for (j = 0; j < N; j++)
					CHECK(buf[i * N + j] == val(i, j), "group: "
					      "(%d,%d) = %g", i, j, buf[i * N + j]);
			GA_Pgroup_sync(pg);
			GA_Destroy(gb);
		}
		GA_Sync();
	}

	GA_Destroy(gd);
	GA_Destroy(gc);
	GA_Destroy(gi);
	GA_Destroy(g);
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv, "ga");
	me = mtest_rank;
	np = mtest_size;
	GA_Initialize();
	if (!MA_init(C_DBL, 1000000, 1000000))
		CHECK(false, "MA_init failed");
	test_armci();
	test_ga();
	GA_Terminate();
	return mtest_finish();
}
