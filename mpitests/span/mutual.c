// SPDX-License-Identifier: GPL-2.0
/*
 * span/mutual.c - ranks that get large blocks from each other at once.
 * Every rank gets MUTUAL_BYTES from the rank half the job away (at K = 2
 * on the other node), whose agent is this rank's peer too: each reply is
 * longer than a socket takes at once, so its rest waits in the replying
 * process's queue while that process reads the start of its own reply.
 * Both hung so under the layer until a read that waits for a frame's rest
 * pushes its own process's queued replies out.
 */
#include <stdlib.h>
#include <string.h>

#include "mtest.h"
#include "span.h"

#define MUTUAL_BYTES	(4 << 20)
#define MUTUAL_ROUNDS	3

static unsigned char mutual_byte(int owner, size_t i)
{
	return (unsigned char)(owner * 37 + i / 4096);
}

void span_test_mutual(void)
{
	int t = (mtest_rank + mtest_size / 2) % mtest_size;
	unsigned char *mem, *got = malloc(MUTUAL_BYTES);
	MPI_Win win;

	mtest_section("large gets between ranks at once, each the other's target");
	if (!got) {
		CHECK(0, "out of memory");
		return;
	}
	CHECK_MPI(MPI_Win_allocate(MUTUAL_BYTES, 1, MPI_INFO_NULL,
				   MPI_COMM_WORLD, &mem, &win));
	for (size_t i = 0; i < MUTUAL_BYTES; i++)
		mem[i] = mutual_byte(mtest_rank, i);
	MPI_Barrier(MPI_COMM_WORLD);
	CHECK_MPI(MPI_Win_lock_all(0, win));
	for (int r = 0; r < MUTUAL_ROUNDS; r++) {
		size_t bad = MUTUAL_BYTES;

		memset(got, 0, MUTUAL_BYTES);
		CHECK_MPI(MPI_Get(got, MUTUAL_BYTES, MPI_BYTE, t, 0,
				  MUTUAL_BYTES, MPI_BYTE, win));
		CHECK_MPI(MPI_Win_flush(t, win));
		for (size_t i = 0; i < MUTUAL_BYTES && bad == MUTUAL_BYTES;
		     i += 512)
			if (got[i] != mutual_byte(t, i))
				bad = i;
		CHECK(bad == MUTUAL_BYTES, "round %d: byte %zu of rank %d's "
		      "block is %u, want %u", r, bad, t,
		      bad < MUTUAL_BYTES ? got[bad] : 0,
		      mutual_byte(t, bad));
	}
	CHECK_MPI(MPI_Win_unlock_all(win));
	CHECK_MPI(MPI_Win_free(&win));
	free(got);
}
