// SPDX-License-Identifier: GPL-2.0
/*
 * intercomm: inter-communicators, as RMA test harnesses use them.
 *
 * MPI_COMM_WORLD split by parity into two groups joined by
 * MPI_Intercomm_create (leaders: local rank 0, world ranks 0 and 1):
 *  - MPI_Comm_test_inter, MPI_Comm_size/rank (local group),
 *    MPI_Comm_remote_size and MPI_Comm_remote_group (the other group, in
 *    order), and MPI_ERR_COMM for the remote calls on an intra-communicator;
 *  - point-to-point across: ranks name the remote group, MPI_SOURCE too;
 *  - MPI_Barrier, MPI_Bcast (MPI_ROOT / MPI_PROC_NULL / remote root, both
 *    directions) and MPI_Allreduce (each group gets the other's sum);
 *  - MPI_Reduce, MPI_Gather(v), MPI_Scatter(v) rooted in either group,
 *    MPI_Allgather(v) and MPI_Alltoall(v/w): the other group's data;
 *  - MPI_Reduce_scatter(_block): each group gets its blocks of the other
 *    group's reduction (groups of unequal sizes: equal totals);
 *  - the nonblocking forms of those (and a persistent allreduce started
 *    twice), several in flight at once;
 *  - MPI_Comm_dup of the inter-communicator, which is one too and works;
 *  - MPI_Comm_split of it (colours and keys from both groups, MPI_COMM_NULL
 *    where a colour has no remote member, MPI_UNDEFINED) and MPI_Comm_create
 *    (each group gives its subset; an empty side gives MPI_COMM_NULL);
 *  - MPI_Intercomm_merge with high = 0/1 (the low group first) and with
 *    the same value on both sides (one order everywhere);
 *  - windows over the merged intra-communicator: fence and lock epochs;
 *  - what inter-communicators do not take (window creation, MPI_Scan)
 *    fails with MPI_ERR_COMM instead of misbehaving.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

static int color, lsize, rsize;

/* World ranks of the group of @c (parity), in order. */
static int world_of(int c, int i)
{
	return 2 * i + c;
}

static void test_create(MPI_Comm *inter)
{
	MPI_Comm local;
	MPI_Group rg, wg;
	int flag, n, r, i, *lr, *wr;

	mtest_section("create");
	CHECK_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, mtest_rank, &local));
	CHECK_MPI(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, !color, 77,
				       inter));
	CHECK_MPI(MPI_Comm_test_inter(*inter, &flag));
	CHECK_EQ(flag, 1, "MPI_Comm_test_inter on the inter-communicator");
	CHECK_MPI(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
	CHECK_EQ(flag, 0, "MPI_Comm_test_inter on MPI_COMM_WORLD");
	MPI_Comm_size(*inter, &n);
	MPI_Comm_rank(*inter, &r);
	CHECK_EQ(n, lsize, "MPI_Comm_size (local group)");
	CHECK_EQ(r, mtest_rank / 2, "MPI_Comm_rank (local group)");
	CHECK_MPI(MPI_Comm_remote_size(*inter, &n));
	CHECK_EQ(n, rsize, "MPI_Comm_remote_size");
	CHECK_MPI(MPI_Comm_remote_group(*inter, &rg));
	MPI_Comm_group(MPI_COMM_WORLD, &wg);
	lr = malloc(rsize * sizeof(int));
	wr = malloc(rsize * sizeof(int));
	for (i = 0; i < rsize; i++)
		lr[i] = i;
	CHECK_MPI(MPI_Group_translate_ranks(rg, rsize, lr, wg, wr));
	for (i = 0; i < rsize; i++)
		CHECK_EQ(wr[i], world_of(!color, i), "remote group member");
	free(lr);
	free(wr);
	MPI_Group_free(&rg);
	MPI_Group_free(&wg);

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK_CLASS(MPI_Comm_remote_size(MPI_COMM_WORLD, &n), MPI_ERR_COMM);
	CHECK_CLASS(MPI_Comm_remote_group(MPI_COMM_WORLD, &rg), MPI_ERR_COMM);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	CHECK_MPI(MPI_Comm_free(&local));
}

static void test_p2p(MPI_Comm inter)
{
	int me = mtest_rank, got = -1, lr;
	MPI_Status st;

	mtest_section("point-to-point");
	MPI_Comm_rank(inter, &lr);
	/* local rank i talks to remote rank i where both exist */
	if (lr < rsize) {
		CHECK_MPI(MPI_Sendrecv(&me, 1, MPI_INT, lr, 5, &got, 1, MPI_INT,
				       MPI_ANY_SOURCE, 5, inter, &st));
		CHECK_EQ(got, world_of(!color, lr), "value from the remote peer");
		CHECK_EQ(st.MPI_SOURCE, lr, "MPI_SOURCE (a remote rank)");
	}
}

static void test_coll(MPI_Comm inter)
{
	int lr, v, sum, want, i, from;

	mtest_section("collectives");
	MPI_Comm_rank(inter, &lr);
	CHECK_MPI(MPI_Barrier(inter));
	/* both directions: group 0's rank 0 first, then group 1's */
	for (from = 0; from < 2; from++) {
		int root = color == from ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL)
			   : 0;

		v = color == from && lr == 0 ? 1000 + from : -1;
		CHECK_MPI(MPI_Bcast(&v, 1, MPI_INT, root, inter));
		if (color != from)
			CHECK_EQ(v, 1000 + from, "broadcast value");
		else if (lr != 0)
			CHECK_EQ(v, -1, "buffer at MPI_PROC_NULL");
	}
	v = mtest_rank;
	CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter));
	for (want = 0, i = 0; i < rsize; i++)
		want += world_of(!color, i);
	CHECK_EQ(sum, want, "allreduce: the other group's sum");
	CHECK_MPI(MPI_Barrier(inter));
}

/* The root argument of a rooted collective from group @from's rank 0. */
static int root_arg(int from, int lr)
{
	if (color == from)
		return lr == 0 ? MPI_ROOT : MPI_PROC_NULL;
	return 0;
}

static void test_rooted(MPI_Comm inter)
{
	int lr, from, i, v, sum, want, *buf, *counts, *displs;

	mtest_section("rooted collectives");
	MPI_Comm_rank(inter, &lr);
	buf = malloc(2 * mtest_size * sizeof(int));
	counts = malloc(mtest_size * sizeof(int));
	displs = malloc(mtest_size * sizeof(int));
	for (from = 0; from < 2; from++) {
		int root = root_arg(from, lr), am_root = root == MPI_ROOT;

		/* reduce: the root gets the other group's sum */
		v = mtest_rank;
		sum = -1;
		CHECK_MPI(MPI_Reduce(&v, &sum, 1, MPI_INT, MPI_SUM, root,
				     inter));
		for (want = 0, i = 0; i < rsize; i++)
			want += world_of(!color, i);
		if (am_root)
			CHECK_EQ(sum, want, "reduce at the root");
		/* gather: remote rank i's world rank in block i */
		for (i = 0; i < 2 * mtest_size; i++)
			buf[i] = -1;
		CHECK_MPI(MPI_Gather(&v, 1, MPI_INT, buf, 1, MPI_INT, root,
				     inter));
		for (i = 0; am_root && i < rsize; i++)
			CHECK_EQ(buf[i], world_of(!color, i), "gathered block");
		/* gatherv: reversed, with gaps */
		for (i = 0; i < rsize; i++) {
			counts[i] = 1;
			displs[i] = 2 * (rsize - 1 - i);
		}
		CHECK_MPI(MPI_Gatherv(&v, 1, MPI_INT, buf, counts, displs,
				      MPI_INT, root, inter));
		for (i = 0; am_root && i < rsize; i++)
			CHECK_EQ(buf[displs[i]], world_of(!color, i),
				 "gatherv block");
		/* scatter: remote rank i gets 500 + i */
		for (i = 0; i < rsize; i++)
			buf[i] = 500 + i;
		v = -1;
		CHECK_MPI(MPI_Scatter(buf, 1, MPI_INT, &v, 1, MPI_INT, root,
				      inter));
		if (color != from)
			CHECK_EQ(v, 500 + lr, "scattered block");
		for (i = 0; i < rsize; i++)
			buf[displs[i]] = 500 + i;
		v = -1;
		CHECK_MPI(MPI_Scatterv(buf, counts, displs, MPI_INT, &v, 1,
				       MPI_INT, root, inter));
		if (color != from)
			CHECK_EQ(v, 500 + lr, "scatterv block");
	}
	free(buf);
	free(counts);
	free(displs);
}

static void test_exchange(MPI_Comm inter)
{
	int lr, i, *in, *out, *counts, *displs;

	mtest_section("allgather and alltoall");
	MPI_Comm_rank(inter, &lr);
	in = malloc(mtest_size * sizeof(int));
	out = malloc(mtest_size * sizeof(int));
	counts = malloc(mtest_size * sizeof(int));
	displs = malloc(mtest_size * sizeof(int));
	CHECK_MPI(MPI_Allgather(&mtest_rank, 1, MPI_INT, in, 1, MPI_INT,
				inter));
	for (i = 0; i < rsize; i++)
		CHECK_EQ(in[i], world_of(!color, i), "allgather block");
	for (i = 0; i < rsize; i++) {
		counts[i] = 1;
		displs[i] = rsize - 1 - i;
	}
	CHECK_MPI(MPI_Allgatherv(&mtest_rank, 1, MPI_INT, in, counts, displs,
				 MPI_INT, inter));
	for (i = 0; i < rsize; i++)
		CHECK_EQ(in[displs[i]], world_of(!color, i), "allgatherv block");
	/* alltoall: to remote rank i, 1000 * my world rank + i */
	for (i = 0; i < rsize; i++)
		out[i] = 1000 * mtest_rank + i;
	CHECK_MPI(MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, inter));
	for (i = 0; i < rsize; i++)
		CHECK_EQ(in[i], 1000 * world_of(!color, i) + lr,
			 "alltoall block");
	for (i = 0; i < rsize; i++)
		in[i] = -1;
	CHECK_MPI(MPI_Alltoallv(out, counts, (int[]){ 0, 1, 2, 3, 4, 5, 6, 7 },
				MPI_INT, in, counts, displs, MPI_INT, inter));
	for (i = 0; i < rsize; i++)
		CHECK_EQ(in[displs[i]], 1000 * world_of(!color, i) + lr,
			 "alltoallv block");
	{
		int *bytes = malloc(mtest_size * sizeof(int));
		MPI_Datatype *types = malloc(mtest_size * sizeof(MPI_Datatype));

		for (i = 0; i < rsize; i++) {
			in[i] = -1;
			bytes[i] = displs[i] * (int)sizeof(int);
			types[i] = MPI_INT;
		}
		CHECK_MPI(MPI_Alltoallw(out, counts, (int[]){ 0, 4, 8, 12, 16,
					20, 24, 28 }, types, in, counts, bytes,
					types, inter));
		for (i = 0; i < rsize; i++)
			CHECK_EQ(in[displs[i]], 1000 * world_of(!color, i) + lr,
				 "alltoallw block");
		free(bytes);
		free(types);
	}
	free(in);
	free(out);
	free(counts);
	free(displs);
}

/*
 * Reduce_scatter(_block): every rank gives lsize * rsize elements (the
 * same total in both groups), element j = world rank + j; local rank lr
 * gets the other group's sums of elements [lr * rsize, (lr + 1) * rsize).
 */
static void test_reduce_scatter(MPI_Comm inter)
{
	int total = lsize * rsize, lr, i, k, rsum = 0;
	int *v = malloc(total * sizeof(int)), *got = malloc(rsize * sizeof(int));
	int *counts = malloc(lsize * sizeof(int));

	mtest_section("reduce_scatter");
	MPI_Comm_rank(inter, &lr);
	for (i = 0; i < rsize; i++)
		rsum += world_of(!color, i);
	for (i = 0; i < total; i++)
		v[i] = mtest_rank + i;
	for (i = 0; i < lsize; i++)
		counts[i] = rsize;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < rsize; i++)
			got[i] = -1;
		if (k)
			CHECK_MPI(MPI_Reduce_scatter(v, got, counts, MPI_INT,
						     MPI_SUM, inter));
		else
			CHECK_MPI(MPI_Reduce_scatter_block(v, got, rsize,
							   MPI_INT, MPI_SUM,
							   inter));
		for (i = 0; i < rsize; i++)
			CHECK_EQ(got[i], rsum + rsize * (lr * rsize + i),
				 k ? "reduce_scatter block" :
				 "reduce_scatter_block block");
	}
	free(v);
	free(got);
	free(counts);
}

/* The nonblocking and persistent forms, four in flight at once. */
static void test_nonblocking(MPI_Comm inter)
{
	int lr, i, sum = 0, rsum = 0, v = mtest_rank, got[4] = { -1, -1, -1, -1 };
	int *all = malloc(mtest_size * sizeof(int)), *out = malloc(mtest_size * sizeof(int));
	int *a2a = malloc(mtest_size * sizeof(int)), bc = -1, red = -1;
	MPI_Request rq[6];

	mtest_section("nonblocking");
	MPI_Comm_rank(inter, &lr);
	for (i = 0; i < rsize; i++) {
		rsum += world_of(!color, i);
		out[i] = 1000 * mtest_rank + i;
	}
	if (color == 0)
		bc = lr == 0 ? 77 : -1;
	CHECK_MPI(MPI_Ibarrier(inter, &rq[0]));
	CHECK_MPI(MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, inter, &rq[1]));
	CHECK_MPI(MPI_Iallgather(&v, 1, MPI_INT, all, 1, MPI_INT, inter, &rq[2]));
	CHECK_MPI(MPI_Ialltoall(out, 1, MPI_INT, a2a, 1, MPI_INT, inter, &rq[3]));
	/* group 0's leader is the root of a bcast and of a reduce */
	CHECK_MPI(MPI_Ibcast(&bc, 1, MPI_INT, color ? 0 : lr == 0 ? MPI_ROOT :
			     MPI_PROC_NULL, inter, &rq[4]));
	CHECK_MPI(MPI_Ireduce(&v, &red, 1, MPI_INT, MPI_SUM, color ? 0 :
			      lr == 0 ? MPI_ROOT : MPI_PROC_NULL, inter, &rq[5]));
	CHECK_MPI(MPI_Waitall(6, rq, MPI_STATUSES_IGNORE));
	CHECK_EQ(sum, rsum, "iallreduce");
	for (i = 0; i < rsize; i++) {
		CHECK_EQ(all[i], world_of(!color, i), "iallgather block");
		CHECK_EQ(a2a[i], 1000 * world_of(!color, i) + lr, "ialltoall block");
	}
	if (color)
		CHECK_EQ(bc, 77, "ibcast");
	if (!color && lr == 0)
		CHECK_EQ(red, rsum, "ireduce at the root");
	CHECK_MPI(MPI_Allreduce_init(&v, &got[0], 1, MPI_INT, MPI_MAX, inter,
				     MPI_INFO_NULL, &rq[0]));
	for (i = 0; i < 2; i++) {
		got[0] = -1;
		CHECK_MPI(MPI_Start(&rq[0]));
		CHECK_MPI(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
		CHECK_EQ(got[0], world_of(!color, rsize - 1), "allreduce_init");
	}
	MPI_Request_free(&rq[0]);
	free(all);
	free(out);
	free(a2a);
}

static void test_dup(MPI_Comm inter)
{
	MPI_Comm dup;
	int flag, n, v, sum, want, i;

	mtest_section("dup");
	CHECK_MPI(MPI_Comm_dup(inter, &dup));
	CHECK_MPI(MPI_Comm_test_inter(dup, &flag));
	CHECK_EQ(flag, 1, "the duplicate is an inter-communicator");
	MPI_Comm_remote_size(dup, &n);
	CHECK_EQ(n, rsize, "remote size of the duplicate");
	v = 1;
	CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, dup));
	CHECK_EQ(sum, rsize, "allreduce on the duplicate");
	v = mtest_rank;
	CHECK_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_MAX, inter));
	for (want = 0, i = 0; i < rsize; i++)
		if (world_of(!color, i) > want)
			want = world_of(!color, i);
	CHECK_EQ(sum, want, "allreduce on the original after dup");
	CHECK_MPI(MPI_Barrier(dup));
	CHECK_MPI(MPI_Comm_free(&dup));
}

/* The MAX of the world ranks of the remote group of @c (NULL: none). */
static void check_remote_max(MPI_Comm c, int rsz, int want, const char *what)
{
	int n, got;

	MPI_Comm_remote_size(c, &n);
	CHECK_EQ(n, rsz, what);
	CHECK_MPI(MPI_Allreduce(&mtest_rank, &got, 1, MPI_INT, MPI_MAX, c));
	CHECK_EQ(got, want, what);
}

static void test_split(MPI_Comm inter)
{
	MPI_Comm c;
	MPI_Group g, sub;
	int lr, k, ln, rn, n, r, want, zero = 0;

	mtest_section("split and create");
	MPI_Comm_rank(inter, &lr);
	/* colour: local rank parity; key: reversed local rank */
	k = lr % 2;
	ln = k ? lsize / 2 : (lsize + 1) / 2;
	rn = k ? rsize / 2 : (rsize + 1) / 2;
	CHECK_MPI(MPI_Comm_split(inter, k, -lr, &c));
	CHECK(rn ? c != MPI_COMM_NULL : c == MPI_COMM_NULL,
	      "split colour %d: MPI_COMM_NULL only without remote members", k);
	if (c != MPI_COMM_NULL) {
		MPI_Comm_size(c, &n);
		MPI_Comm_rank(c, &r);
		CHECK_EQ(n, ln, "size of the split local group");
		CHECK_EQ(r, ln - 1 - lr / 2, "rank by the reversed keys");
		/* remote members of colour k: local ranks k, k + 2, ... there */
		want = world_of(!color, rn * 2 - 2 + k);
		check_remote_max(c, rn, want, "remote group of the split");
		CHECK_MPI(MPI_Comm_free(&c));
	}
	/* one group undefined: nobody gets a communicator */
	CHECK_MPI(MPI_Comm_split(inter, color ? MPI_UNDEFINED : 0, 0, &c));
	CHECK(c == MPI_COMM_NULL, "split with one group undefined");

	/* create: each group without its local rank 0 */
	MPI_Comm_group(inter, &g);
	CHECK_MPI(MPI_Group_excl(g, 1, &zero, &sub));
	CHECK_MPI(MPI_Comm_create(inter, sub, &c));
	CHECK((lr && rsize > 1) ? c != MPI_COMM_NULL : c == MPI_COMM_NULL,
	      "create without rank 0: a communicator where both sides have members");
	if (c != MPI_COMM_NULL) {
		check_remote_max(c, rsize - 1, world_of(!color, rsize - 1),
				 "remote group of the created");
		CHECK_MPI(MPI_Comm_free(&c));
	}
	MPI_Group_free(&sub);
	MPI_Group_free(&g);
}

/* Fence and lock epochs on a window over @comm. */
static void window_on(MPI_Comm comm)
{
	int n, r, right, left, *mem, v;
	MPI_Win win;

	MPI_Comm_size(comm, &n);
	MPI_Comm_rank(comm, &r);
	right = (r + 1) % n;
	left = (r + n - 1) % n;
	CHECK_MPI(MPI_Win_allocate(2 * sizeof(int), sizeof(int), MPI_INFO_NULL,
				   comm, &mem, &win));
	mem[0] = mem[1] = -1;
	CHECK_MPI(MPI_Win_fence(0, win));
	CHECK_MPI(MPI_Put(&r, 1, MPI_INT, right, 0, 1, MPI_INT, win));
	CHECK_MPI(MPI_Win_fence(0, win));
	CHECK_EQ(mem[0], left, "fence put from the left (merged ranks)");
	v = 100 + r;
	CHECK_MPI(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, left, 0, win));
	CHECK_MPI(MPI_Put(&v, 1, MPI_INT, left, 1, 1, MPI_INT, win));
	CHECK_MPI(MPI_Win_unlock(left, win));
	MPI_Barrier(comm);
	CHECK_EQ(mem[1], 100 + right, "locked put from the right");
	CHECK_MPI(MPI_Win_free(&win));
}

static void test_merge(MPI_Comm inter)
{
	MPI_Comm merged, same;
	int n, r, lr, i, *order;

	mtest_section("merge");
	MPI_Comm_rank(inter, &lr);
	/* group 1 says high: group 0 first */
	CHECK_MPI(MPI_Intercomm_merge(inter, color, &merged));
	MPI_Comm_size(merged, &n);
	MPI_Comm_rank(merged, &r);
	CHECK_EQ(n, mtest_size, "size of the merged communicator");
	CHECK_EQ(r, color ? (mtest_size + 1) / 2 + lr : lr,
		 "rank in the merged communicator (low group first)");
	CHECK_MPI(MPI_Comm_test_inter(merged, &i));
	CHECK_EQ(i, 0, "the merged communicator is an intra-communicator");
	window_on(merged);

	/* the same high on both sides: any one order, the same everywhere */
	CHECK_MPI(MPI_Intercomm_merge(inter, 0, &same));
	MPI_Comm_size(same, &n);
	CHECK_EQ(n, mtest_size, "size with equal high");
	order = malloc(n * sizeof(int));
	CHECK_MPI(MPI_Allgather(&mtest_rank, 1, MPI_INT, order, 1, MPI_INT,
				same));
	for (i = 0; i < n; i++) {
		int j, seen = 0;

		for (j = 0; j < n; j++)
			seen += order[j] == i;
		CHECK_EQ(seen, 1, "world rank in the merged order");
	}
	window_on(same);
	free(order);
	CHECK_MPI(MPI_Comm_free(&same));
	CHECK_MPI(MPI_Comm_free(&merged));
}

static void test_refused(MPI_Comm inter)
{
	MPI_Comm c;
	MPI_Win win;
	int v = 0, buf[16], *mem;

	mtest_section("refused");
	MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
	CHECK_CLASS(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL,
				     inter, &mem, &win), MPI_ERR_COMM);
	CHECK_CLASS(MPI_Scan(&v, buf, 1, MPI_INT, MPI_SUM, inter),
		    MPI_ERR_COMM);
	CHECK_CLASS(MPI_Comm_create_group(inter, MPI_GROUP_EMPTY, 0, &c),
		    MPI_ERR_COMM);
	CHECK_CLASS(MPI_Allreduce(MPI_IN_PLACE, buf, 1, MPI_INT, MPI_SUM,
				  inter), MPI_ERR_BUFFER);
	/* still usable afterwards */
	CHECK_MPI(MPI_Barrier(inter));
}

int main(int argc, char **argv)
{
	MPI_Comm inter;

	mtest_init(&argc, &argv, "intercomm");
	if (mtest_size < 2) {
		printf("intercomm: needs 2 ranks or more\n");
		return mtest_finish();
	}
	color = mtest_rank % 2;
	lsize = (mtest_size + !color) / 2;
	rsize = mtest_size - lsize;
	test_create(&inter);
	test_p2p(inter);
	test_coll(inter);
	test_rooted(inter);
	test_exchange(inter);
	test_reduce_scatter(inter);
	test_nonblocking(inter);
	test_dup(inter);
	test_split(inter);
	test_merge(inter);
	test_refused(inter);
	CHECK_MPI(MPI_Comm_free(&inter));
	return mtest_finish();
}
