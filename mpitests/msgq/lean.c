// SPDX-License-Identifier: GPL-2.0
/*
 * lean.c - the msgq test's messages that MPI_Send and MPI_Recv take by
 * their lean lane (lib/runtime/shmq_lean.c), of one unit, with every case
 * where the lane must step aside.
 */
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "mtest.h"
#include "msgq.h"

/*
 * Small messages, which MPI_Send and MPI_Recv take by their lean lane
 * (shmq_lean.c) unless something could be owed them: every case where it
 * must step aside for the general path, between ranks 0 and 1.
 */
void msgq_test_lean(void)
{
	struct { short s; int i; } si[2];	/* MPI_SHORT_INT: a hole each */
	int v[4], n, i, peer = 0;
	MPI_Request rq, sq[4];
	MPI_Status st;
	MPI_Comm dup;

	mtest_section("small messages, lean and not");
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
	if (mtest_rank == 0) {
		for (i = 0; i < 8; i++) {
			v[0] = 100 + i;
			CHECK_MPI(MPI_Send(v, 1, MPI_INT, 1, i < 2 ? 20 + i : 22,
					   MPI_COMM_WORLD));
		}
		v[0] = 200;
		CHECK_MPI(MPI_Send(v, 1, MPI_INT, 1, 22, dup));
		v[0] = 300;
		CHECK_MPI(MPI_Ssend(v, 1, MPI_INT, 1, 23, MPI_COMM_WORLD));
		for (i = 0; i < 2; i++) {
			si[i].s = (short)(400 + i);
			si[i].i = 410 + i;
		}
		CHECK_MPI(MPI_Send(si, 2, MPI_SHORT_INT, 1, 24,
				   MPI_COMM_WORLD));
		v[0] = 500;
		v[1] = 501;
		CHECK_MPI(MPI_Send(v, 2, MPI_INT, 1, 25, MPI_COMM_WORLD));
		CHECK_MPI(MPI_Send(v, 1, MPI_INT, 1, 26, MPI_COMM_WORLD));
	} else if (mtest_rank == 1) {
		/* tag 21 first: tag 20 waits aside, then comes from there */
		CHECK_MPI(MPI_Recv(v, 1, MPI_INT, 0, 21, MPI_COMM_WORLD, &st));
		CHECK_EQ(v[0], 101, "tag 21 past tag 20");
		CHECK_MPI(MPI_Recv(v, 1, MPI_INT, 0, 20, MPI_COMM_WORLD, &st));
		CHECK_EQ(v[0], 100, "tag 20 from aside");
		/* a receive posted first is owed the first message */
		CHECK_MPI(MPI_Irecv(&v[1], 1, MPI_INT, 0, MPI_ANY_TAG,
				    MPI_COMM_WORLD, &rq));
		CHECK_MPI(MPI_Recv(v, 1, MPI_INT, 0, 22, MPI_COMM_WORLD, &st));
		CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
		CHECK_EQ(v[1], 102, "the posted receive's");
		CHECK_EQ(v[0], 103, "the blocking receive's");
		/* another communicator's message with the same tag is not it */
		CHECK_MPI(MPI_Recv(v, 1, MPI_INT, 0, 22, dup, &st));
		CHECK_EQ(v[0], 200, "on the duplicate");
		for (i = 4; i < 8; i++) {
			CHECK_MPI(MPI_Recv(v, 1, MPI_INT, 0, MPI_ANY_TAG,
					   MPI_COMM_WORLD, &st));
			CHECK_EQ(v[0], 100 + i, "in order");
			CHECK_EQ(st.MPI_TAG, 22, "status tag");
			CHECK_EQ(st.MPI_SOURCE, 0, "status source");
		}
		/* a synchronous send is answered */
		CHECK_MPI(MPI_Recv(v, 1, MPI_INT, 0, 23, MPI_COMM_WORLD, &st));
		CHECK_EQ(v[0], 300, "synchronous");
		memset(si, 0, sizeof(si));
		CHECK_MPI(MPI_Recv(si, 2, MPI_SHORT_INT, 0, 24,
				   MPI_COMM_WORLD, &st));
		for (i = 0; i < 2; i++) {
			CHECK_EQ(si[i].s, 400 + i, "MPI_SHORT_INT's short");
			CHECK_EQ(si[i].i, 410 + i, "MPI_SHORT_INT's int");
		}
		/* too small a buffer: truncated, and the next one intact */
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		v[1] = -1;
		CHECK_CLASS(MPI_Recv(v, 1, MPI_INT, 0, 25, MPI_COMM_WORLD,
				     &st), MPI_ERR_TRUNCATE);
		CHECK_EQ(v[1], -1, "past a truncated buffer");
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
		CHECK_MPI(MPI_Recv(v, 4, MPI_INT, 0, 26, MPI_COMM_WORLD, &st));
		MPI_Get_count(&st, MPI_INT, &n);
		CHECK_EQ(n, 1, "count of a short message");
		CHECK_EQ(v[0], 500, "after the truncated one");
	}
	/* both halves at once; a receive half that fails sends nothing */
	if (mtest_rank < 2) {
		peer = 1 - mtest_rank;
		v[0] = 600 + mtest_rank;
		CHECK_MPI(MPI_Sendrecv(v, 1, MPI_INT, peer, 27, &v[1], 1,
				       MPI_INT, peer, 27, MPI_COMM_WORLD, &st));
		CHECK_EQ(v[1], 600 + peer, "MPI_Sendrecv");
		v[0] = 700 + mtest_rank;
		CHECK_MPI(MPI_Sendrecv_replace(v, 1, MPI_INT, peer, 28, peer,
					       28, MPI_COMM_WORLD, &st));
		CHECK_EQ(v[0], 700 + peer, "MPI_Sendrecv_replace");
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		CHECK_CLASS(MPI_Sendrecv(v, 1, MPI_INT, peer, 29, &v[1], 1,
					 MPI_DATATYPE_NULL, peer, 29,
					 MPI_COMM_WORLD, &st), MPI_ERR_TYPE);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	}
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	if (mtest_rank < 2) {
		CHECK_MPI(MPI_Iprobe(peer, 29, MPI_COMM_WORLD, &n, &st));
		CHECK_EQ(n, 0, "a failed MPI_Sendrecv's message");
	}
	/* MPI_Irecv of a message already there: complete at once */
	if (mtest_rank == 0) {
		for (i = 0; i < 2; i++) {
			v[0] = 800 + i;
			CHECK_MPI(MPI_Send(v, 1, MPI_INT, 1, 30 + i,
					   MPI_COMM_WORLD));
		}
		/* sends complete at the call: every way to end them */
		for (i = 0; i < 4; i++) {
			v[i] = 900 + i;
			CHECK_MPI(MPI_Isend(&v[i], 1, MPI_INT, 1, 32,
					    MPI_COMM_WORLD, &sq[i]));
		}
		CHECK_MPI(MPI_Request_get_status(sq[0], &n, &st));
		CHECK_EQ(n, 1, "a complete send's MPI_Request_get_status");
		CHECK_MPI(MPI_Cancel(&sq[0]));
		CHECK_MPI(MPI_Wait(&sq[0], &st));
		CHECK_MPI(MPI_Test_cancelled(&st, &n));
		CHECK_EQ(n, 0, "a complete send cancelled");
		CHECK_MPI(MPI_Request_free(&sq[1]));
		CHECK_MPI(MPI_Test(&sq[2], &n, MPI_STATUS_IGNORE));
		CHECK_EQ(n, 1, "MPI_Test of a complete send");
		CHECK_MPI(MPI_Waitall(2, &sq[2], MPI_STATUSES_IGNORE));
		for (i = 0; i < 4; i++)
			CHECK_EQ(sq[i], MPI_REQUEST_NULL, "ended send request");
	} else if (mtest_rank == 1) {
		CHECK_MPI(MPI_Recv(v, 1, MPI_INT, 0, 30, MPI_COMM_WORLD, &st));
		usleep(20000);	/* the next one is in the ring by now */
		v[1] = 0;
		CHECK_MPI(MPI_Irecv(&v[1], 2, MPI_INT, 0, MPI_ANY_TAG,
				    MPI_COMM_WORLD, &rq));
		CHECK_MPI(MPI_Wait(&rq, &st));
		MPI_Get_count(&st, MPI_INT, &n);
		CHECK_EQ(v[1], 801, "MPI_Irecv's message");
		CHECK_EQ(st.MPI_TAG, 31, "MPI_Irecv's tag");
		CHECK_EQ(st.MPI_SOURCE, 0, "MPI_Irecv's source");
		CHECK_EQ(n, 1, "MPI_Irecv's count");
		for (i = 0; i < 4; i++) {
			CHECK_MPI(MPI_Recv(v, 1, MPI_INT, 0, 32,
					   MPI_COMM_WORLD, &st));
			CHECK_EQ(v[0], 900 + i, "the sends' messages in order");
		}
	}
	CHECK_MPI(MPI_Comm_free(&dup));
}
