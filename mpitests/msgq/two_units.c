// SPDX-License-Identifier: GPL-2.0
/*
 * two_units.c - the msgq test's messages of two units (4 to 16 KiB), just
 * past the lean lane's one unit, which the general path takes
 * (lib/runtime/shmq_ring.c).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "mtest.h"
#include "msgq.h"

#define TWO_MAX		16384	/* two units of 8 KiB at most */
#define TWO_FLOOD	400	/* 8 KiB messages, more than a ring holds */

/* Rank 0's message @msg of @n bytes to rank 1, as MPI_Send or MPI_Ssend. */
static void two_send(unsigned char *b, size_t n, int msg, int tag, bool sync)
{
	fill(b, n, 0, msg);
	if (sync)
		CHECK_MPI(MPI_Ssend(b, (int)n, MPI_BYTE, 1, tag,
				    MPI_COMM_WORLD));
	else
		CHECK_MPI(MPI_Send(b, (int)n, MPI_BYTE, 1, tag,
				   MPI_COMM_WORLD));
}

/* Rank 1's receive of it into @cap bytes: every byte and the count. */
static void two_recv(unsigned char *b, size_t n, size_t cap, int src,
		     int msg, int tag, const char *what)
{
	MPI_Status st;
	int got;

	memset(b, 0, cap);
	CHECK_MPI(MPI_Recv(b, (int)cap, MPI_BYTE, src, tag, MPI_COMM_WORLD,
			   &st));
	MPI_Get_count(&st, MPI_BYTE, &got);
	CHECK_EQ(got, (int)n, what);
	CHECK_EQ(bad_byte(b, n, 0, msg), -1L, what);
	CHECK_EQ(st.MPI_TAG, tag, what);
}

/*
 * Messages of two units (4 to 16 KiB), just past the lane's one unit: at
 * every size around the bounds, ping-ponged so that the second unit comes
 * while the first is copied; a flood past the ring's room (second units
 * spilled); a synchronous send; from any source; into a larger buffer;
 * truncated.
 */
void msgq_test_two_units(void)
{
	static const size_t sizes[] = { 4096, 4097, 4160, 6001, 8192, 12288,
					16383, TWO_MAX, TWO_MAX + 1 };
	const size_t nsizes = sizeof(sizes) / sizeof(sizes[0]);
	unsigned char *b = malloc(2 * TWO_MAX), x = 0;
	int i;

	mtest_section("two-unit messages");
	CHECK(b, "out of memory");
	if (!b)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 0; i < (int)nsizes && mtest_rank < 2; i++) {
		if (mtest_rank == 0) {
			two_send(b, sizes[i], i, 40, false);
			CHECK_MPI(MPI_Recv(&x, 1, MPI_BYTE, 1, 41,
					   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		} else {
			two_recv(b, sizes[i], sizes[i], 0, i, 40, "size");
			CHECK_MPI(MPI_Send(&x, 1, MPI_BYTE, 0, 41,
					   MPI_COMM_WORLD));
		}
	}
	if (mtest_rank == 0) {
		for (i = 0; i < TWO_FLOOD; i++)
			two_send(b, 8192, i, 42, false);
		two_send(b, 8192, 1000, 43, true);
		two_send(b, 12288, 1001, 44, false);
		two_send(b, 8192, 1002, 45, false);
		two_send(b, 8192, 1003, 46, false);
		two_send(b, 6000, 1004, 47, false);
	} else if (mtest_rank == 1) {
		usleep(20000);	/* the flood fills the ring first */
		for (i = 0; i < TWO_FLOOD; i++)
			two_recv(b, 8192, 8192, 0, i, 42, "flood in order");
		two_recv(b, 8192, 8192, 0, 1000, 43, "synchronous");
		two_recv(b, 12288, 12288, MPI_ANY_SOURCE, 1001, 44,
			 "any source");
		two_recv(b, 8192, 2 * TWO_MAX, 0, 1002, 45, "larger buffer");
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		b[6000] = 0x5a;
		CHECK_CLASS(MPI_Recv(b, 6000, MPI_BYTE, 0, 46, MPI_COMM_WORLD,
				     MPI_STATUS_IGNORE), MPI_ERR_TRUNCATE);
		CHECK_EQ(b[6000], 0x5a, "past a truncated buffer");
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
		two_recv(b, 6000, 6000, 0, 1004, 47, "after the truncated one");
	}
	free(b);
}
