// SPDX-License-Identifier: GPL-2.0
/*
 * nodes: windows inside one node and windows across nodes, in one job at
 * the same time.  The same source runs on mpirma's own library (one node)
 * and, with the hybrid layer, under Open MPI and MPICH at 1 and 2 logical
 * nodes (hybrid/run), where a window on the node's communicator is
 * mpirma's and a window on MPI_COMM_WORLD is mpirma's only when the job
 * fits one node.
 *
 *  - which windows mpirma serves: a window it serves reports the
 *    mpirma_atomicity info key (args: world=0|1 local=0|1, what to expect);
 *  - on both windows at once, in interleaved passive epochs: accumulates
 *    from every rank with an exact total, fetch_and_op tickets that form a
 *    permutation, and a compare_and_swap spinlock guarding a get+put;
 *  - MPI_Win_allocate_shared on the node's communicator: the neighbours'
 *    memory read and written through MPI_Win_shared_query;
 *  - a fence epoch on the node's window with puts from every rank.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

#define OPS	25	/* per rank and window */

enum { S_SUM, S_TICKET, S_LOCK, S_GUARDED, NSLOTS };

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Does mpirma serve @win?  It reports its atomicity strategy as info. */
static int served(MPI_Win win)
{
	char v[MPI_MAX_INFO_VAL + 1];
	MPI_Info info;
	int flag = 0;

	CHECK_MPI(MPI_Win_get_info(win, &info));
	MPI_Info_get(info, "mpirma_atomicity", MPI_MAX_INFO_VAL, v, &flag);
	MPI_Info_free(&info);
	return flag;
}

struct target {
	MPI_Win win;
	long *mem;
	int size;	/* ranks in the window */
	long tickets[OPS];
};

static void open_target(struct target *t, MPI_Comm comm, const char *name,
			int expect)
{
	MPI_Comm_size(comm, &t->size);
	CHECK_MPI(MPI_Win_allocate(NSLOTS * sizeof(long), sizeof(long),
				   MPI_INFO_NULL, comm, &t->mem, &t->win));
	memset(t->mem, 0, NSLOTS * sizeof(long));
	if (expect >= 0)
		CHECK_EQ(served(t->win), expect, name);
	MPI_Barrier(MPI_COMM_WORLD);
}

/* One round of every kind of update from this rank into rank 0 of @t. */
static void round_on(struct target *t, int i)
{
	long one = 1, zero = 0, me = 1, got = -1, v;

	CHECK_MPI(MPI_Accumulate(&one, 1, MPI_LONG, 0, S_SUM, 1, MPI_LONG,
				 MPI_SUM, t->win));
	CHECK_MPI(MPI_Fetch_and_op(&one, &t->tickets[i], MPI_LONG, 0, S_TICKET,
				   MPI_SUM, t->win));
	/* The spinlock: CAS 0 -> 1, a non-atomic increment, CAS 1 -> 0. */
	do {
		CHECK_MPI(MPI_Compare_and_swap(&me, &zero, &got, MPI_LONG, 0,
					       S_LOCK, t->win));
		CHECK_MPI(MPI_Win_flush(0, t->win));
	} while (got != 0);
	CHECK_MPI(MPI_Get(&v, 1, MPI_LONG, 0, S_GUARDED, 1, MPI_LONG, t->win));
	CHECK_MPI(MPI_Win_flush(0, t->win));
	v++;
	CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, 0, S_GUARDED, 1, MPI_LONG, t->win));
	CHECK_MPI(MPI_Win_flush(0, t->win));
	CHECK_MPI(MPI_Compare_and_swap(&zero, &me, &got, MPI_LONG, 0, S_LOCK,
				       t->win));
	CHECK_MPI(MPI_Win_flush(0, t->win));
	CHECK_EQ(got, 1, "lock word at release");
}

/* The totals at the window's rank 0 (@rank is this process's there). */
static void check_target(struct target *t, const char *name, int rank)
{
	long want = (long)t->size * OPS;

	if (rank != 0)
		return;
	CHECK(t->mem[S_SUM] == want, "%s: sum %ld, want %ld", name,
	      t->mem[S_SUM], want);
	CHECK(t->mem[S_GUARDED] == want, "%s: guarded %ld, want %ld", name,
	      t->mem[S_GUARDED], want);
	CHECK(t->mem[S_TICKET] == want, "%s: tickets %ld, want %ld", name,
	      t->mem[S_TICKET], want);
}

/* The tickets of all ranks of @t's window, gathered in @comm: 0..n-1. */
static void check_tickets(struct target *t, MPI_Comm comm, const char *name)
{
	int rank, n = t->size * OPS;
	long *all = NULL;

	MPI_Comm_rank(comm, &rank);
	if (rank == 0)
		all = malloc(sizeof(long) * (size_t)n);
	MPI_Gather(t->tickets, OPS, MPI_LONG, all, OPS, MPI_LONG, 0, comm);
	if (rank == 0 && all) {
		qsort(all, (size_t)n, sizeof(long), cmp_long);
		for (int k = 0; k < n; k++)
			if (all[k] != k) {
				CHECK(0, "%s: ticket %d is %ld", name, k, all[k]);
				break;
			}
	}
	free(all);
	check_target(t, name, rank);
}

static void test_both(MPI_Comm node, int expect_world, int expect_local)
{
	struct target world, local;

	mtest_section("node and world windows together");
	open_target(&world, MPI_COMM_WORLD, "world window served", expect_world);
	open_target(&local, node, "node window served", expect_local);
	CHECK_MPI(MPI_Win_lock_all(0, world.win));
	CHECK_MPI(MPI_Win_lock_all(0, local.win));
	for (int i = 0; i < OPS; i++) {
		round_on(&world, i);
		round_on(&local, i);
	}
	CHECK_MPI(MPI_Win_unlock_all(local.win));
	CHECK_MPI(MPI_Win_unlock_all(world.win));
	MPI_Barrier(MPI_COMM_WORLD);
	check_tickets(&world, MPI_COMM_WORLD, "world");
	check_tickets(&local, node, "node");
	CHECK_MPI(MPI_Win_free(&local.win));
	CHECK_MPI(MPI_Win_free(&world.win));
}

static void test_shared(MPI_Comm node, int expect_local)
{
	int rank, size, du;
	long *mine, *right;
	MPI_Aint sz;
	MPI_Win win;

	mtest_section("shared window of the node");
	MPI_Comm_rank(node, &rank);
	MPI_Comm_size(node, &size);
	CHECK_MPI(MPI_Win_allocate_shared(4 * sizeof(long), sizeof(long),
					  MPI_INFO_NULL, node, &mine, &win));
	if (expect_local >= 0)
		CHECK_EQ(served(win), expect_local, "shared window served");
	CHECK_MPI(MPI_Win_shared_query(win, (rank + 1) % size, &sz, &du,
				       &right));
	CHECK_EQ(sz, 4 * sizeof(long), "neighbour's size");
	CHECK_EQ(du, sizeof(long), "neighbour's disp_unit");
	CHECK_MPI(MPI_Win_lock_all(0, win));
	for (int k = 0; k < 4; k++)
		mine[k] = rank * 10 + k;
	CHECK_MPI(MPI_Win_sync(win));
	MPI_Barrier(node);
	CHECK_MPI(MPI_Win_sync(win));
	CHECK_EQ(right[3], ((rank + 1) % size) * 10 + 3, "neighbour's word");
	CHECK_MPI(MPI_Win_unlock_all(win));
	CHECK_MPI(MPI_Win_free(&win));
}

static void test_fence(MPI_Comm node)
{
	int rank, size;
	long *mem;
	MPI_Win win;

	mtest_section("fence on the node's window");
	MPI_Comm_rank(node, &rank);
	MPI_Comm_size(node, &size);
	CHECK_MPI(MPI_Win_allocate((MPI_Aint)size * sizeof(long), sizeof(long),
				   MPI_INFO_NULL, node, &mem, &win));
	CHECK_MPI(MPI_Win_fence(0, win));
	for (int t = 0; t < size; t++) {
		long v = rank * 100 + t;

		CHECK_MPI(MPI_Put(&v, 1, MPI_LONG, t, rank, 1, MPI_LONG, win));
	}
	CHECK_MPI(MPI_Win_fence(0, win));
	for (int k = 0; k < size; k++)
		CHECK_EQ(mem[k], k * 100 + rank, "put by fence");
	CHECK_MPI(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
	CHECK_MPI(MPI_Win_free(&win));
}

/*
 * "world=1" -> 1; absent -> -1 (not checked); "world=auto": served when
 * the job is one node, i.e. MPIRMA_LOGICAL_NODES is unset or 1.
 */
static int arg(int argc, char **argv, const char *key)
{
	const char *k = getenv("MPIRMA_LOGICAL_NODES");
	size_t n = strlen(key);

	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], key, n) || argv[i][n] != '=')
			continue;
		if (!strcmp(argv[i] + n + 1, "auto"))
			return !k || atoi(k) <= 1 || mtest_size == 1;
		return atoi(argv[i] + n + 1);
	}
	return -1;
}

int main(int argc, char **argv)
{
	MPI_Comm node;

	mtest_init(&argc, &argv, "nodes");
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mtest_rank,
			    MPI_INFO_NULL, &node);
	test_both(node, arg(argc, argv, "world"), arg(argc, argv, "local"));
	test_shared(node, arg(argc, argv, "local"));
	test_fence(node);
	MPI_Comm_free(&node);
	return mtest_finish();
}
