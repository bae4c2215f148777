// SPDX-License-Identifier: GPL-2.0
/*
 * nbc: nonblocking and persistent collectives.  Every one (MPI_Ibarrier
 * ... MPI_Iexscan, MPI_Barrier_init ... MPI_Exscan_init) against its
 * blocking form, bit for bit, at several sizes (0 to 12 KB a block), from
 * every root, in place where the standard allows it, with a
 * non-contiguous datatype and a non-commutative user op, completed by
 * MPI_Wait, MPI_Test polling, MPI_Waitall, MPI_Waitany and MPI_Testsome;
 * several outstanding on one and on several communicators, completed in
 * an order that differs between ranks; overlapped with point-to-point and
 * with blocking collectives; a blocking MPI_Recv that only completes if
 * the pending MPI_Ibarrier progresses meanwhile; errors.  Persistent ones
 * restarted with new data, started together and in any order:
 * mpitests/nbc/persist.c; the neighborhood collectives:
 * mpitests/nbc/neighbor.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"
#include "nbc_test.h"

#define W	MPI_COMM_WORLD

static const int sizes[] = { 0, 1, 7, 1500 };

static double *in, *out, *want;
static int *cnt, *dsp, *cnt2, *dsp2, *wdsp;
static MPI_Datatype every2nd, m4, *wtypes;
static MPI_Op matop;
static int how;		/* rotates the ways of completing a request */
bool nbc_persist;

/* Doubles the buffers hold: a block of up to n + 3, twice, per rank. */
static size_t nd(int n)
{
	return (size_t)mtest_size * (2 * n + 8);
}

/* Values whose sums round differently in different orders. */
static void fill(int n)
{
	size_t i;

	for (i = 0; i < nd(n); i++)
		in[i] = mtest_rank + i * 0.1 + (i % 7) / 3.0;
}

/* 2x2 matrices of unsigned, for the non-commutative user op. */
struct m2 {
	unsigned int a, b, c, d;
};

static void matmul(void *invec, void *inout, int *len, MPI_Datatype *t)
{
	struct m2 *x = invec, *y = inout, z;
	int i;

	(void)t;
	for (i = 0; i < *len; i++) {
		z.a = x[i].a * y[i].a + x[i].b * y[i].c;
		z.b = x[i].a * y[i].b + x[i].b * y[i].d;
		z.c = x[i].c * y[i].a + x[i].d * y[i].c;
		z.d = x[i].c * y[i].b + x[i].d * y[i].d;
		y[i] = z;
	}
}

/* Counts of the -v forms: @n plus 0..2, with holes between blocks. */
static void vcounts(int n)
{
	int r, s = 0, s2 = 0;

	for (r = 0; r < mtest_size; r++) {
		cnt[r] = n + r % 3;
		dsp[r] = s + r;
		s += cnt[r] + r;
		/* what I send to r and r sends me: symmetric in r and me */
		cnt2[r] = n + (r + mtest_rank) % 3;
		dsp2[r] = s2 + r;
		wdsp[r] = (int)((2 * (s2 + r) + r) * sizeof(double));
		wtypes[r] = r % 2 ? every2nd : MPI_DOUBLE;
		s2 += cnt2[r];
	}
}

/* ------------------------------------------------------------ the cases */

/*
 * A case runs one collective on in and out, blocking with @req NULL, else
 * starting it with @req.  NBS() picks the form.
 */
typedef int (*case_fn)(int n, int root, MPI_Request *req);

int nbc_start(int rc, MPI_Request *req)
{
	return rc ? rc : MPI_Start(req);
}

static bool am(int root)
{
	return mtest_rank == root;
}

static int c_barrier(int n, int root, MPI_Request *req)
{
	(void)n;
	(void)root;
	return NBS(Barrier, Ibarrier, W);
}

static int c_bcast(int n, int root, MPI_Request *req)
{
	if (am(root))
		memcpy(out, in, n * sizeof(double));
	return NBS(Bcast, Ibcast, out, n, MPI_DOUBLE, root, W);
}

static int c_bcast_vec(int n, int root, MPI_Request *req)
{
	if (am(root))
		memcpy(out, in, 2 * n * sizeof(double));
	return NBS(Bcast, Ibcast, out, n, every2nd, root, W);
}

static int c_reduce(int n, int root, MPI_Request *req)
{
	return NBS(Reduce, Ireduce, in, out, n, MPI_DOUBLE, MPI_SUM, root, W);
}

static int c_reduce_inplace(int n, int root, MPI_Request *req)
{
	memcpy(out, in, n * sizeof(double));
	return NBS(Reduce, Ireduce, am(root) ? MPI_IN_PLACE : in, out, n,
		   MPI_DOUBLE, MPI_PROD, root, W);
}

static int c_reduce_uop(int n, int root, MPI_Request *req)
{
	return NBS(Reduce, Ireduce, in, out, n / 2, m4, matop, root, W);
}

static int c_allreduce(int n, int root, MPI_Request *req)
{
	(void)root;
	return NBS(Allreduce, Iallreduce, in, out, n, MPI_DOUBLE, MPI_SUM, W);
}

static int c_allreduce_inplace(int n, int root, MPI_Request *req)
{
	(void)root;
	memcpy(out, in, 2 * n * sizeof(double));
	return NBS(Allreduce, Iallreduce, MPI_IN_PLACE, out, n, every2nd,
		   MPI_MAX, W);
}

static int c_allreduce_uop(int n, int root, MPI_Request *req)
{
	(void)root;
	return NBS(Allreduce, Iallreduce, in, out, n / 2, m4, matop, W);
}

static int c_gather(int n, int root, MPI_Request *req)
{
	return NBS(Gather, Igather, in, n, MPI_DOUBLE, out, n, MPI_DOUBLE,
		   root, W);
}

static int c_gather_inplace(int n, int root, MPI_Request *req)
{
	memcpy(out + root * n, in, n * sizeof(double));
	return NBS(Gather, Igather, am(root) ? MPI_IN_PLACE : in, n,
		   MPI_DOUBLE, out, n, MPI_DOUBLE, root, W);
}

static int c_gatherv(int n, int root, MPI_Request *req)
{
	vcounts(n);
	return NBS(Gatherv, Igatherv, in, cnt[mtest_rank], MPI_DOUBLE, out,
		   cnt, dsp, MPI_DOUBLE, root, W);
}

static int c_scatter(int n, int root, MPI_Request *req)
{
	return NBS(Scatter, Iscatter, in, n, MPI_DOUBLE, out, n, every2nd,
		   root, W);
}

static int c_scatterv(int n, int root, MPI_Request *req)
{
	vcounts(n);
	return NBS(Scatterv, Iscatterv, in, cnt, dsp, MPI_DOUBLE, out,
		   cnt[mtest_rank], MPI_DOUBLE, root, W);
}

static int c_allgather(int n, int root, MPI_Request *req)
{
	(void)root;
	return NBS(Allgather, Iallgather, in, n, MPI_DOUBLE, out, n,
		   MPI_DOUBLE, W);
}

static int c_allgather_inplace(int n, int root, MPI_Request *req)
{
	(void)root;
	memcpy(out + mtest_rank * n, in, n * sizeof(double));
	return NBS(Allgather, Iallgather, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
		   out, n, MPI_DOUBLE, W);
}

static int c_allgatherv(int n, int root, MPI_Request *req)
{
	(void)root;
	vcounts(n);
	return NBS(Allgatherv, Iallgatherv, in, cnt[mtest_rank], MPI_DOUBLE,
		   out, cnt, dsp, MPI_DOUBLE, W);
}

static int c_alltoall(int n, int root, MPI_Request *req)
{
	(void)root;
	return NBS(Alltoall, Ialltoall, in, n, MPI_DOUBLE, out, n, MPI_DOUBLE,
		   W);
}

static int c_alltoall_inplace(int n, int root, MPI_Request *req)
{
	(void)root;
	memcpy(out, in, mtest_size * n * sizeof(double));
	return NBS(Alltoall, Ialltoall, MPI_IN_PLACE, 0, MPI_DATATYPE_NULL,
		   out, n, MPI_DOUBLE, W);
}

static int c_alltoallv(int n, int root, MPI_Request *req)
{
	(void)root;
	vcounts(n);
	return NBS(Alltoallv, Ialltoallv, in, cnt2, dsp2, MPI_DOUBLE, out,
		   cnt2, dsp2, MPI_DOUBLE, W);
}

static int c_alltoallw(int n, int root, MPI_Request *req)
{
	MPI_Datatype *st = malloc(mtest_size * sizeof(*st));
	int r, ret, *sd = malloc(mtest_size * sizeof(int));

	(void)root;
	vcounts(n);
	for (r = 0; r < mtest_size; r++) {
		st[r] = MPI_DOUBLE;
		sd[r] = dsp2[r] * sizeof(double);
	}
	ret = NBS(Alltoallw, Ialltoallw, in, cnt2, sd, st, out, cnt2, wdsp,
		  wtypes, W);
	/* the arrays may go once the call is started */
	free(st);
	free(sd);
	return ret;
}

static int c_reduce_scatter_block(int n, int root, MPI_Request *req)
{
	(void)root;
	return NBS(Reduce_scatter_block, Ireduce_scatter_block, in, out, n,
		   MPI_DOUBLE, MPI_SUM, W);
}

static int c_reduce_scatter(int n, int root, MPI_Request *req)
{
	(void)root;
	vcounts(n);
	memcpy(out, in, nd(n) * sizeof(double));
	return NBS(Reduce_scatter, Ireduce_scatter, MPI_IN_PLACE, out, cnt,
		   MPI_DOUBLE, MPI_SUM, W);
}

static int c_scan(int n, int root, MPI_Request *req)
{
	(void)root;
	return NBS(Scan, Iscan, in, out, n, MPI_DOUBLE, MPI_SUM, W);
}

static int c_scan_uop(int n, int root, MPI_Request *req)
{
	(void)root;
	memcpy(out, in, n * sizeof(double));
	return NBS(Scan, Iscan, MPI_IN_PLACE, out, n / 2, m4, matop, W);
}

static int c_exscan(int n, int root, MPI_Request *req)
{
	(void)root;
	return NBS(Exscan, Iexscan, in, out, n, MPI_DOUBLE, MPI_SUM, W);
}

static int c_exscan_inplace(int n, int root, MPI_Request *req)
{
	(void)root;
	memcpy(out, in, n * sizeof(double));
	return NBS(Exscan, Iexscan, MPI_IN_PLACE, out, n, MPI_DOUBLE, MPI_MIN,
		   W);
}

static const struct {
	const char *name;
	case_fn fn;
	bool rooted;
} cases[] = {
	{ "barrier", c_barrier, false },
	{ "bcast", c_bcast, true },
	{ "bcast every 2nd", c_bcast_vec, true },
	{ "reduce", c_reduce, true },
	{ "reduce in place", c_reduce_inplace, true },
	{ "reduce user op", c_reduce_uop, true },
	{ "allreduce", c_allreduce, false },
	{ "allreduce in place every 2nd", c_allreduce_inplace, false },
	{ "allreduce user op", c_allreduce_uop, false },
	{ "gather", c_gather, true },
	{ "gather in place", c_gather_inplace, true },
	{ "gatherv", c_gatherv, true },
	{ "scatter", c_scatter, true },
	{ "scatterv", c_scatterv, true },
	{ "allgather", c_allgather, false },
	{ "allgather in place", c_allgather_inplace, false },
	{ "allgatherv", c_allgatherv, false },
	{ "alltoall", c_alltoall, false },
	{ "alltoall in place", c_alltoall_inplace, false },
	{ "alltoallv", c_alltoallv, false },
	{ "alltoallw", c_alltoallw, false },
	{ "reduce_scatter_block", c_reduce_scatter_block, false },
	{ "reduce_scatter in place", c_reduce_scatter, false },
	{ "scan", c_scan, false },
	{ "scan user op in place", c_scan_uop, false },
	{ "exscan", c_exscan, false },
	{ "exscan in place", c_exscan_inplace, false },
};

void nbc_complete(MPI_Request *req)
{
	int flag = 0, idx = -1, outcount = 0, indices[1];
	MPI_Request h = *req;

	switch (how++ % 5) {
	case 0:
		CHECK_MPI(MPI_Wait(req, MPI_STATUS_IGNORE));
		break;
	case 1:
		while (!flag)
			CHECK_MPI(MPI_Test(req, &flag, MPI_STATUS_IGNORE));
		break;
	case 2:
		CHECK_MPI(MPI_Waitall(1, req, MPI_STATUSES_IGNORE));
		break;
	case 3:
		CHECK_MPI(MPI_Waitany(1, req, &idx, MPI_STATUS_IGNORE));
		CHECK_EQ(idx, 0, "Waitany index");
		break;
	default:
		while (!outcount)
			CHECK_MPI(MPI_Testsome(1, req, &outcount, indices,
					       MPI_STATUSES_IGNORE));
		break;
	}
	if (nbc_persist)
		CHECK_EQ(*req, h, "completed persistent request");
	else
		CHECK_EQ(*req, MPI_REQUEST_NULL, "completed request");
}

/*
 * Case @c, nonblocking, then persistent (started again at one size: the
 * restarts with new data are in nbc/persist.c), against @want: what the
 * blocking form gave.
 */
static void against(size_t c, int n, int root, size_t len)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int start;

	for (start = 0; start < (n == 7 ? 3 : 2); start++) {
		nbc_persist = start > 0;
		fill(n);
		memset(out, 0x5a, len);
		CHECK_MPI(cases[c].fn(n, root, &req));
		nbc_complete(&req);
		CHECK(!memcmp(want, out, len), "%s of %d, root %d, %s: not "
		      "what the blocking form gives", cases[c].name, n, root,
		      start ? "persistent" : "nonblocking");
	}
	CHECK_MPI(MPI_Request_free(&req));
	nbc_persist = false;
}

static void test_against_blocking(void)
{
	size_t c, s, len;
	int root, n;

	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		mtest_section(cases[c].name);
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			n = sizes[s];
			len = nd(n) * sizeof(double);
			for (root = 0; root < mtest_size; root++) {
				fill(n);
				memset(out, 0x5a, len);
				CHECK_MPI(cases[c].fn(n, root, NULL));
				memcpy(want, out, len);
				against(c, n, root, len);
				if (!cases[c].rooted)
					break;
			}
		}
	}
}

/* ------------------------------------------------------------ overlap */

static int sum_ranks(void)
{
	return mtest_size * (mtest_size - 1) / 2;
}

static void test_overlap(void)
{
	int p = mtest_size, me = mtest_rank, i, idx, left, right;
	int a, asum, b, g[64], x, y, flag, done;
	MPI_Request r[6];
	MPI_Comm dup;

	left = (me - 1 + p) % p;
	right = (me + 1) % p;

	mtest_section("two ibarriers, waitall");
	CHECK_MPI(MPI_Ibarrier(W, &r[0]));
	CHECK_MPI(MPI_Ibarrier(W, &r[1]));
	CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));

	/* each rank completes them in another order */
	mtest_section("three outstanding, completed in rank order");
	a = me;
	b = me == 1 % p ? 77 : -1;
	CHECK_MPI(MPI_Iallreduce(&a, &asum, 1, MPI_INT, MPI_SUM, W, &r[0]));
	CHECK_MPI(MPI_Ibcast(&b, 1, MPI_INT, 1 % p, W, &r[1]));
	CHECK_MPI(MPI_Iallgather(&a, 1, MPI_INT, g, 1, MPI_INT, W, &r[2]));
	for (i = 0; i < 3; i++)
		CHECK_MPI(MPI_Wait(&r[me % 2 ? 2 - i : (i + me) % 3],
				   MPI_STATUS_IGNORE));
	CHECK_EQ(asum, sum_ranks(), "iallreduce");
	CHECK_EQ(b, 77, "ibcast");
	for (i = 0; i < p; i++)
		CHECK_EQ(g[i], i, "iallgather");

	/* The standard lets both go before the wait; the reduction still runs. */
	mtest_section("user op and derived type freed before the wait");
	{
		struct m2 mine = { 1, (unsigned int)me, 0, 1 }, prod, want2;
		MPI_Datatype t;
		MPI_Op op;

		CHECK_MPI(MPI_Type_contiguous(4, MPI_UNSIGNED, &t));
		CHECK_MPI(MPI_Type_commit(&t));
		CHECK_MPI(MPI_Op_create(matmul, 0, &op));
		CHECK_MPI(MPI_Iallreduce(&mine, &prod, 1, t, op, W, &r[0]));
		CHECK_MPI(MPI_Op_free(&op));
		CHECK_MPI(MPI_Type_free(&t));
		CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
		/* [[1, k], [0, 1]] multiply to [[1, sum of k], [0, 1]] */
		want2 = (struct m2){ 1, (unsigned int)sum_ranks(), 0, 1 };
		CHECK(!memcmp(&prod, &want2, sizeof(prod)),
		      "iallreduce with freed op and type: b = %u, want %u",
		      prod.b, want2.b);
	}

	mtest_section("ibcast amid isend and irecv");
	x = me == 0 ? 4242 : 0;
	CHECK_MPI(MPI_Irecv(&y, 1, MPI_INT, left, 5, W, &r[0]));
	CHECK_MPI(MPI_Ibcast(&x, 1, MPI_INT, 0, W, &r[1]));
	CHECK_MPI(MPI_Isend(&me, 1, MPI_INT, right, 5, W, &r[2]));
	CHECK_MPI(MPI_Waitall(3, r, MPI_STATUSES_IGNORE));
	CHECK_EQ(x, 4242, "ibcast");
	CHECK_EQ(y, left, "irecv");

	mtest_section("iallreduce on a dup after a barrier");
	CHECK_MPI(MPI_Comm_dup(W, &dup));
	CHECK_MPI(MPI_Iallreduce(&me, &asum, 1, MPI_INT, MPI_SUM, dup, &r[0]));
	if (me == 0)
		mtest_sleep_ms(20);
	CHECK_MPI(MPI_Barrier(W));
	CHECK_MPI(MPI_Allreduce(&me, &a, 1, MPI_INT, MPI_MAX, W));
	CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
	CHECK_EQ(asum, sum_ranks(), "iallreduce on the dup");
	CHECK_EQ(a, p - 1, "allreduce beside it");

	/*
	 * Rank 0 waits in MPI_Recv for the last rank, which first completes
	 * an Ibarrier: with more than 2 ranks that needs rank 0's later
	 * rounds, which only the progress inside its MPI_Recv can send.
	 */
	mtest_section("blocking recv progresses an ibarrier");
	CHECK_MPI(MPI_Ibarrier(W, &r[0]));
	if (p > 1 && me == 0) {
		CHECK_MPI(MPI_Recv(&y, 1, MPI_INT, p - 1, 9, W,
				   MPI_STATUS_IGNORE));
		CHECK_EQ(y, 99, "recv after the ibarrier");
	}
	CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
	if (p > 1 && me == p - 1) {
		y = 99;
		CHECK_MPI(MPI_Send(&y, 1, MPI_INT, 0, 9, W));
	}

	mtest_section("waitany over collectives and messages");
	CHECK_MPI(MPI_Ibarrier(dup, &r[0]));
	CHECK_MPI(MPI_Iallreduce(&me, &asum, 1, MPI_INT, MPI_SUM, W, &r[1]));
	CHECK_MPI(MPI_Irecv(&y, 1, MPI_INT, left, 6, W, &r[2]));
	CHECK_MPI(MPI_Iscan(&me, &a, 1, MPI_INT, MPI_SUM, dup, &r[3]));
	CHECK_MPI(MPI_Isend(&me, 1, MPI_INT, right, 6, W, &r[4]));
	for (done = 0; done < 5; done++)
		CHECK_MPI(MPI_Waitany(5, r, &idx, MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Waitany(5, r, &idx, MPI_STATUS_IGNORE));
	CHECK_EQ(idx, MPI_UNDEFINED, "waitany with nothing left");
	CHECK_EQ(asum, sum_ranks(), "iallreduce");
	CHECK_EQ(a, me * (me + 1) / 2, "iscan");
	CHECK_EQ(y, left, "irecv");

	mtest_section("test polling while computing");
	fill(1500);
	CHECK_MPI(MPI_Iallreduce(in, out, 1500, MPI_DOUBLE, MPI_SUM, W,
				 &r[0]));
	for (flag = 0, i = 0; !flag; i++)
		CHECK_MPI(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Allreduce(in, want, 1500, MPI_DOUBLE, MPI_SUM, W));
	CHECK(!memcmp(out, want, 1500 * sizeof(double)),
	      "iallreduce polled with MPI_Test");

	mtest_section("many outstanding on two communicators");
	{
		int v[24], s[24];
		MPI_Request m[24];

		for (i = 0; i < 24; i++) {
			v[i] = me + i;
			CHECK_MPI(MPI_Iallreduce(&v[i], &s[i], 1, MPI_INT,
						 MPI_SUM, i % 3 ? dup : W,
						 &m[i]));
		}
		for (i = 23; i >= 0; i -= 2)
			CHECK_MPI(MPI_Wait(&m[i], MPI_STATUS_IGNORE));
		CHECK_MPI(MPI_Waitall(24, m, MPI_STATUSES_IGNORE));
		for (i = 0; i < 24; i++)
			CHECK_EQ(s[i], sum_ranks() + p * i, "iallreduce");
	}
	CHECK_MPI(MPI_Comm_free(&dup));
}

/* ------------------------------------------------------------ errors */

static void test_errors(void)
{
	MPI_Request req = MPI_REQUEST_NULL;
	int a = 1, b;

	mtest_section("errors");
	MPI_Comm_set_errhandler(W, MPI_ERRORS_RETURN);
	CHECK_CLASS(MPI_Ibcast(&a, 1, MPI_INT, mtest_size, W, &req),
		    MPI_ERR_ROOT);
	CHECK_CLASS(MPI_Ireduce(&a, &b, 1, MPI_INT, MPI_SUM, -1, W, &req),
		    MPI_ERR_ROOT);
	CHECK_CLASS(MPI_Igather(&a, 1, MPI_INT, &b, 1, MPI_INT, -2, W, &req),
		    MPI_ERR_ROOT);
	CHECK_CLASS(MPI_Iallreduce(&a, &b, -1, MPI_INT, MPI_SUM, W, &req),
		    MPI_ERR_COUNT);
	CHECK_CLASS(MPI_Ibcast(&a, -3, MPI_INT, 0, W, &req), MPI_ERR_COUNT);
	CHECK_CLASS(MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_OP_NULL, W, &req),
		    MPI_ERR_OP);
	CHECK_CLASS(MPI_Iallgather(&a, 1, MPI_DATATYPE_NULL, &b, 1, MPI_INT,
				   W, &req), MPI_ERR_TYPE);
	CHECK_CLASS(MPI_Ibarrier(W, NULL), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_SUM, W, NULL),
		    MPI_ERR_ARG);
	CHECK_CLASS(MPI_Ibarrier(MPI_COMM_NULL, &req), MPI_ERR_COMM);
	CHECK_EQ(req, MPI_REQUEST_NULL, "request of a failed call");
	if (mtest_size > 1) {
		int half = mtest_rank < mtest_size / 2;
		MPI_Comm local, inter;

		CHECK_MPI(MPI_Comm_split(W, half, 0, &local));
		CHECK_MPI(MPI_Intercomm_create(local, 0, W, half ?
					       mtest_size / 2 : 0, 3, &inter));
		MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
		/* inter-communicators have them (mpitests/intercomm), but
		 * the scans */
		CHECK_MPI(MPI_Ibarrier(inter, &req));
		CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
		CHECK_CLASS(MPI_Iscan(&a, &b, 1, MPI_INT, MPI_SUM, inter, &req),
			    MPI_ERR_COMM);
		MPI_Comm_free(&inter);
		MPI_Comm_free(&local);
	}
	MPI_Comm_set_errhandler(W, MPI_ERRORS_ARE_FATAL);
	/* failed calls started nothing: the next one still matches */
	CHECK_MPI(MPI_Iallreduce(&a, &b, 1, MPI_INT, MPI_SUM, W, &req));
	CHECK_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
	CHECK_EQ(b, mtest_size, "iallreduce after the errors");
}

static void setup(void)
{
	size_t big = nd(1500);
	int p = mtest_size;

	in = malloc(big * sizeof(double));
	out = malloc(big * sizeof(double));
	want = malloc(big * sizeof(double));
	cnt = malloc(p * sizeof(int));
	dsp = malloc(p * sizeof(int));
	cnt2 = malloc(p * sizeof(int));
	dsp2 = malloc(p * sizeof(int));
	wdsp = malloc(p * sizeof(int));
	wtypes = malloc(p * sizeof(*wtypes));
	MPI_Type_create_resized(MPI_DOUBLE, 0, 2 * sizeof(double), &every2nd);
	MPI_Type_commit(&every2nd);
	MPI_Type_contiguous(4, MPI_UNSIGNED, &m4);
	MPI_Type_commit(&m4);
	MPI_Op_create(matmul, 0, &matop);
}

static void teardown(void)
{
	MPI_Op_free(&matop);
	MPI_Type_free(&m4);
	MPI_Type_free(&every2nd);
	free(in);
	free(out);
	free(want);
	free(cnt);
	free(dsp);
	free(cnt2);
	free(dsp2);
	free(wdsp);
	free(wtypes);
}

int main(int argc, char **argv)
{
	static const mtest_fn tests[] = {
		setup, test_against_blocking, test_overlap, test_persistent,
		test_neighbor, test_errors, teardown, NULL,
	};

	return mtest_run(&argc, &argv, "nbc", tests);
}
