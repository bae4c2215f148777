// SPDX-License-Identifier: GPL-2.0
/*
 * isendrecv: MPI-4's MPI_Isendrecv and MPI_Isendrecv_replace on a ring,
 * completed by MPI_Wait and by a MPI_Test loop, with their status; the
 * blocking forms beside them; MPI_PROC_NULL on both sides; errors checked
 * before anything is sent (a bad source fails, and no message is left
 * behind for the next receive).
 */
#include "mtest.h"

static int next, prev;

static void test_ring(void)
{
	int s[4], r[4], b[4], flag = 0, count = -1;
	MPI_Request q;
	MPI_Status st;

	mtest_section("isendrecv on a ring");
	for (int i = 0; i < 4; i++)
		s[i] = mtest_rank * 10 + i;
	CHECK_MPI(MPI_Isendrecv(s, 4, MPI_INT, next, 3, r, 4, MPI_INT, prev,
				3, MPI_COMM_WORLD, &q));
	CHECK_MPI(MPI_Wait(&q, &st));
	MPI_Get_count(&st, MPI_INT, &count);
	CHECK(st.MPI_SOURCE == prev && st.MPI_TAG == 3 && count == 4,
	      "status: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG,
	      count);
	for (int i = 0; i < 4; i++)
		CHECK(r[i] == prev * 10 + i, "element %d: %d", i, r[i]);

	mtest_section("isendrecv_replace, tested until done");
	for (int i = 0; i < 4; i++)
		b[i] = mtest_rank * 100 + i;
	CHECK_MPI(MPI_Isendrecv_replace(b, 4, MPI_INT, next, 4, prev, 4,
					MPI_COMM_WORLD, &q));
	while (!flag)
		CHECK_MPI(MPI_Test(&q, &flag, &st));
	for (int i = 0; i < 4; i++)
		CHECK(b[i] == prev * 100 + i, "replaced element %d: %d", i,
		      b[i]);

	mtest_section("the blocking forms");
	CHECK_MPI(MPI_Sendrecv(s, 4, MPI_INT, next, 5, r, 4, MPI_INT, prev, 5,
			       MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(r[3] == prev * 10 + 3, "sendrecv: %d", r[3]);
	CHECK_MPI(MPI_Sendrecv_replace(b, 4, MPI_INT, next, 6, prev, 6,
				       MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	if (mtest_size > 1)
		CHECK(b[0] == ((prev + mtest_size - 1) % mtest_size) * 100,
		      "sendrecv_replace twice round: %d", b[0]);
}

static void test_proc_null_errors(void)
{
	int v = 7, r = 0;
	MPI_Request q;
	MPI_Status st;

	mtest_section("MPI_PROC_NULL");
	CHECK_MPI(MPI_Isendrecv(&v, 1, MPI_INT, MPI_PROC_NULL, 0, &r, 1,
				MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
				&q));
	CHECK_MPI(MPI_Wait(&q, &st));
	CHECK(st.MPI_SOURCE == MPI_PROC_NULL && r == 0,
	      "proc_null: source %d", st.MPI_SOURCE);

	mtest_section("errors before anything is sent");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK_CLASS(MPI_Isendrecv(&v, 1, MPI_INT, next, 8, &r, 1, MPI_INT,
				  mtest_size, 8, MPI_COMM_WORLD, &q),
		    MPI_ERR_RANK);
	CHECK_CLASS(MPI_Isendrecv(&v, 1, MPI_INT, next, 8, &r, 1, MPI_INT,
				  prev, 8, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
	CHECK_CLASS(MPI_Isendrecv_replace(&v, -1, MPI_INT, next, 8, prev, 8,
					  MPI_COMM_WORLD, &q), MPI_ERR_COUNT);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 8, MPI_COMM_WORLD, &v,
			     MPI_STATUS_IGNORE));
	CHECK(!v, "a failed call left a message behind");
}

int main(int argc, char **argv)
{
	mtest_init(&argc, &argv, "isendrecv");
	next = (mtest_rank + 1) % mtest_size;
	prev = (mtest_rank + mtest_size - 1) % mtest_size;
	test_ring();
	test_proc_null_errors();
	return mtest_finish();
}
