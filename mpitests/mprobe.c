// SPDX-License-Identifier: GPL-2.0
/*
 * mprobe: matched probes.  Each rank sends to the next in a ring and
 * receives from the previous:
 *  - MPI_Mprobe by tag and from any source and tag, the messages received
 *    with MPI_Mrecv in the other order, status and data checked;
 *  - a matched message is out of matching: a later MPI_Recv of the same
 *    source and tag gets the next message, MPI_Mrecv still the first;
 *  - a receive posted before takes its message first (MPI_Irecv, then
 *    MPI_Mprobe gets the second);
 *  - MPI_Improbe until found, MPI_Imrecv and MPI_Wait; into a strided
 *    datatype;
 *  - MPI_PROC_NULL gives MPI_MESSAGE_NO_PROC and an empty receive;
 *  - a status's MPI_ERROR is left alone by the calls that return one
 *    (mprobe, mrecv, recv, iprobe, wait) and by a waitall or waitsome
 *    that succeeds;
 *  - errors: truncation, a null or used message, a NULL message or flag
 *    pointer, a bad source.
 */
#include <string.h>

#include "mtest.h"

static int next, prev;

static void fill(int *v, int n, int tag)
{
	for (int i = 0; i < n; i++)
		v[i] = mtest_rank * 1000 + tag * 100 + i;
}

static void expect(const int *v, int n, int tag, const char *what)
{
	int bad = 0;

	for (int i = 0; i < n; i++)
		bad += v[i] != prev * 1000 + tag * 100 + i;
	CHECK(bad == 0, "%s: elements received wrong", what);
}

static void expect_status(const MPI_Status *st, int tag, int n,
			  const char *what)
{
	int count = -1;

	MPI_Get_count(st, MPI_INT, &count);
	CHECK(st->MPI_SOURCE == prev && st->MPI_TAG == tag && count == n,
	      "%s: status source %d tag %d count %d, want %d %d %d", what,
	      st->MPI_SOURCE, st->MPI_TAG, count, prev, tag, n);
}

static void test_order(void)
{
	int a[5], b[7], ra[5], rb[7];
	MPI_Message m1, m2;
	MPI_Status st;

	mtest_section("mprobe by tag, mrecv in the other order");
	fill(a, 5, 1);
	fill(b, 7, 2);
	CHECK_MPI(MPI_Send(a, 5, MPI_INT, next, 1, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Send(b, 7, MPI_INT, next, 2, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &m2, &st));
	expect_status(&st, 2, 7, "mprobe tag 2");
	CHECK_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
			     &m1, &st));
	expect_status(&st, 1, 5, "mprobe any tag");
	CHECK(m1 != MPI_MESSAGE_NULL && m2 != MPI_MESSAGE_NULL && m1 != m2,
	      "two distinct messages");
	CHECK_MPI(MPI_Mrecv(rb, 7, MPI_INT, &m2, &st));
	CHECK(m2 == MPI_MESSAGE_NULL, "mrecv leaves MPI_MESSAGE_NULL");
	expect_status(&st, 2, 7, "mrecv tag 2");
	expect(rb, 7, 2, "mrecv tag 2");
	CHECK_MPI(MPI_Mrecv(ra, 5, MPI_INT, &m1, MPI_STATUS_IGNORE));
	expect(ra, 5, 1, "mrecv tag 1");
}

static void test_out_of_matching(void)
{
	int a[3], b[3], r[3];
	MPI_Message m;
	MPI_Request q;

	mtest_section("a matched message is out of matching");
	fill(a, 3, 3);
	fill(b, 3, 4);
	CHECK_MPI(MPI_Send(a, 3, MPI_INT, next, 5, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Send(b, 3, MPI_INT, next, 5, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Mprobe(prev, 5, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Recv(r, 3, MPI_INT, prev, 5, MPI_COMM_WORLD,
			   MPI_STATUS_IGNORE));
	expect(r, 3, 4, "recv after mprobe: the second message");
	CHECK_MPI(MPI_Mrecv(r, 3, MPI_INT, &m, MPI_STATUS_IGNORE));
	expect(r, 3, 3, "mrecv: the first");

	mtest_section("a posted receive takes its message first");
	CHECK_MPI(MPI_Irecv(r, 3, MPI_INT, prev, 7, MPI_COMM_WORLD, &q));
	CHECK_MPI(MPI_Send(a, 3, MPI_INT, next, 7, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Send(b, 3, MPI_INT, next, 7, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Mprobe(prev, 7, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Wait(&q, MPI_STATUS_IGNORE));
	expect(r, 3, 3, "irecv posted before");
	CHECK_MPI(MPI_Mrecv(r, 3, MPI_INT, &m, MPI_STATUS_IGNORE));
	expect(r, 3, 4, "mrecv after the irecv");
}

static void test_nonblocking(void)
{
	int a[8], r[16], flag = 0, count = -1;
	MPI_Datatype every_other;
	MPI_Message m;
	MPI_Request q;
	MPI_Status st;

	mtest_section("improbe, imrecv into a strided type");
	fill(a, 8, 6);
	CHECK_MPI(MPI_Send(a, 8, MPI_INT, next, 11, MPI_COMM_WORLD));
	while (!flag)
		CHECK_MPI(MPI_Improbe(MPI_ANY_SOURCE, 11, MPI_COMM_WORLD,
				      &flag, &m, &st));
	expect_status(&st, 11, 8, "improbe");
	MPI_Type_vector(8, 1, 2, MPI_INT, &every_other);
	MPI_Type_commit(&every_other);
	memset(r, 0, sizeof(r));
	CHECK_MPI(MPI_Imrecv(r, 1, every_other, &m, &q));
	CHECK(m == MPI_MESSAGE_NULL, "imrecv leaves MPI_MESSAGE_NULL");
	CHECK_MPI(MPI_Wait(&q, &st));
	MPI_Get_count(&st, MPI_INT, &count);
	CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 11 && count == 8,
	      "imrecv status: source %d tag %d count %d", st.MPI_SOURCE,
	      st.MPI_TAG, count);
	for (int i = 0; i < 8; i++)
		CHECK(r[2 * i] == prev * 1000 + 600 + i && r[2 * i + 1] == 0,
		      "strided element %d: %d", i, r[2 * i]);
	MPI_Type_free(&every_other);

	flag = 1;
	CHECK_MPI(MPI_Improbe(prev, 12, MPI_COMM_WORLD, &flag, &m,
			      MPI_STATUS_IGNORE));
	CHECK(!flag && m == MPI_MESSAGE_NULL, "improbe of nothing: flag %d",
	      flag);
}

static void test_proc_null(void)
{
	MPI_Message m;
	MPI_Status st;
	int v = 42;

	mtest_section("MPI_PROC_NULL");
	CHECK_MPI(MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, &m, &st));
	CHECK(m == MPI_MESSAGE_NO_PROC && st.MPI_SOURCE == MPI_PROC_NULL,
	      "mprobe of MPI_PROC_NULL: message %d source %d", m,
	      st.MPI_SOURCE);
	CHECK_MPI(MPI_Mrecv(&v, 1, MPI_INT, &m, &st));
	CHECK(m == MPI_MESSAGE_NULL && v == 42 &&
	      st.MPI_SOURCE == MPI_PROC_NULL, "mrecv of MPI_MESSAGE_NO_PROC");
	CHECK(MPI_Message_f2c(MPI_Message_c2f(m)) == m, "c2f/f2c");
}

/*
 * The calls that return one status leave its MPI_ERROR alone (MPI 3.2.5);
 * so do Waitall and Waitsome when they succeed (MPICH's pt2pt/mprobe).
 */
static void test_error_field(void)
{
	int a[2] = { 1, 2 }, r[2], flag = 0, n;
	MPI_Message m;
	MPI_Request q[2];
	MPI_Status st, sts[2];

	mtest_section("MPI_ERROR left alone");
	CHECK_MPI(MPI_Send(a, 2, MPI_INT, next, 9, MPI_COMM_WORLD));
	st.MPI_ERROR = MPI_ERR_DIMS;
	CHECK_MPI(MPI_Mprobe(prev, 9, MPI_COMM_WORLD, &m, &st));
	CHECK_EQ(st.MPI_ERROR, MPI_ERR_DIMS, "MPI_ERROR after mprobe");
	st.MPI_ERROR = MPI_ERR_TOPOLOGY;
	CHECK_MPI(MPI_Mrecv(r, 2, MPI_INT, &m, &st));
	CHECK_EQ(st.MPI_ERROR, MPI_ERR_TOPOLOGY, "MPI_ERROR after mrecv");
	st.MPI_ERROR = MPI_ERR_DIMS;
	CHECK_MPI(MPI_Recv(r, 2, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
			   &st));
	CHECK_EQ(st.MPI_ERROR, MPI_ERR_DIMS, "MPI_ERROR after recv (null)");
	CHECK_MPI(MPI_Send(a, 2, MPI_INT, next, 9, MPI_COMM_WORLD));
	st.MPI_ERROR = MPI_ERR_DIMS;
	while (!flag)
		CHECK_MPI(MPI_Iprobe(prev, 9, MPI_COMM_WORLD, &flag, &st));
	CHECK_EQ(st.MPI_ERROR, MPI_ERR_DIMS, "MPI_ERROR after iprobe");
	CHECK_MPI(MPI_Irecv(r, 2, MPI_INT, prev, 9, MPI_COMM_WORLD, &q[0]));
	CHECK_MPI(MPI_Wait(&q[0], &st));
	CHECK_EQ(st.MPI_ERROR, MPI_ERR_DIMS, "MPI_ERROR after wait");
	CHECK_MPI(MPI_Send(a, 2, MPI_INT, next, 9, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Irecv(r, 2, MPI_INT, prev, 9, MPI_COMM_WORLD, &q[0]));
	q[1] = MPI_REQUEST_NULL;
	sts[0].MPI_ERROR = sts[1].MPI_ERROR = -3;
	CHECK_MPI(MPI_Waitall(2, q, sts));
	CHECK(sts[0].MPI_ERROR == -3 && sts[1].MPI_ERROR == -3,
	      "MPI_ERROR after a successful waitall: %d %d", sts[0].MPI_ERROR,
	      sts[1].MPI_ERROR);
	CHECK_MPI(MPI_Send(a, 2, MPI_INT, next, 9, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Irecv(r, 2, MPI_INT, prev, 9, MPI_COMM_WORLD, &q[0]));
	sts[0].MPI_ERROR = -3;
	CHECK_MPI(MPI_Waitsome(1, q, &n, &flag, sts));
	CHECK_EQ(sts[0].MPI_ERROR, -3, "MPI_ERROR after a successful waitsome");
}

static void test_errors(void)
{
	int a[4], r[2], flag;
	MPI_Message m, used;
	MPI_Status st;

	mtest_section("errors");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	fill(a, 4, 8);
	CHECK_MPI(MPI_Send(a, 4, MPI_INT, next, 13, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Mprobe(prev, 13, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
	used = m;
	CHECK_CLASS(MPI_Mrecv(r, 2, MPI_INT, &m, &st), MPI_ERR_TRUNCATE);
	CHECK(m == MPI_MESSAGE_NULL && r[0] == a[0] - mtest_rank * 1000 +
	      prev * 1000, "truncated: message freed, first elements kept");
	CHECK_CLASS(MPI_Mrecv(r, 2, MPI_INT, &used, MPI_STATUS_IGNORE),
		    MPI_ERR_REQUEST);
	m = MPI_MESSAGE_NULL;
	CHECK_CLASS(MPI_Mrecv(r, 2, MPI_INT, &m, MPI_STATUS_IGNORE),
		    MPI_ERR_REQUEST);
	CHECK_CLASS(MPI_Mprobe(prev, 13, MPI_COMM_WORLD, NULL,
			       MPI_STATUS_IGNORE), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Improbe(prev, 13, MPI_COMM_WORLD, NULL, &m,
				MPI_STATUS_IGNORE), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Improbe(mtest_size, 13, MPI_COMM_WORLD, &flag, &m,
				MPI_STATUS_IGNORE), MPI_ERR_RANK);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv, "mprobe");
	next = (mtest_rank + 1) % mtest_size;
	prev = (mtest_rank + mtest_size - 1) % mtest_size;
	test_order();
	test_out_of_matching();
	test_nonblocking();
	test_proc_null();
	test_error_field();
	test_errors();
	return mtest_finish();
}
