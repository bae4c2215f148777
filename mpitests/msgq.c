// SPDX-License-Identifier: GPL-2.0
/*
 * msgq: the message transport under load (lib/runtime/shmq*.c): floods
 * that overflow the shared-memory rings into the kernel mailbox and must
 * come back in order, messages cut into units (larger than one unit,
 * crossing ring wrap-arounds, both ways at once with blocking sends),
 * large messages received after later small ones (unexpected while their
 * units still come), probed, truncated and from any source, and large and
 * small messages interleaved while the ring is full, and the small ones
 * MPI_Send and MPI_Recv take by their lean lane where it must step aside,
 * and large MPI_Isends that go by one copy.  Every byte checked.  The
 * lean lane's cases are in msgq/lean.c, the two-unit ones in
 * msgq/two_units.c.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "mtest.h"
#include "msgq/msgq.h"
#include "vmpin.h"

#define FLOOD	3000		/* messages, more than a ring holds */

static void test_flood(void)
{
	int right = (mtest_rank + 1) % mtest_size;
	int left = (mtest_rank + mtest_size - 1) % mtest_size;
	unsigned char buf[256];
	MPI_Status st;
	int i, n;

	mtest_section("flood");
	for (i = 0; i < FLOOD; i++) {
		fill(buf, (size_t)(i % 200), mtest_rank, i);
		CHECK_MPI(MPI_Send(buf, i % 200, MPI_BYTE, right, i % 7,
				   MPI_COMM_WORLD));
	}
	/* nobody receives before everybody has sent */
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	for (i = 0; i < FLOOD; i++) {
		CHECK_MPI(MPI_Recv(buf, sizeof(buf), MPI_BYTE, left,
				   MPI_ANY_TAG, MPI_COMM_WORLD, &st));
		MPI_Get_count(&st, MPI_BYTE, &n);
		if (st.MPI_TAG != i % 7 || n != i % 200 ||
		    bad_byte(buf, (size_t)n, left, i) >= 0) {
			CHECK(0, "flood message %d: tag %d, %d bytes", i,
			      st.MPI_TAG, n);
			break;
		}
	}
}

static const size_t sizes[] = { 65535, 65536, 65537, 300000,
				 (1 << 20) + 13, 4 << 20 };
#define NSIZES	(sizeof(sizes) / sizeof(sizes[0]))

/* Pairs (0,1), (2,3)...: both send first, then receive. */
static void test_large_both_ways(void)
{
	int peer = mtest_rank ^ 1;
	unsigned char *out, *in;
	MPI_Status st;
	size_t k;
	int n;

	mtest_section("large both ways");
	if (peer >= mtest_size)
		return;
	out = malloc(4 << 20);
	in = malloc(4 << 20);
	for (k = 0; k < NSIZES; k++) {
		fill(out, sizes[k], mtest_rank, (int)k);
		CHECK_MPI(MPI_Send(out, (int)sizes[k], MPI_BYTE, peer, 1,
				   MPI_COMM_WORLD));
		memset(in, 0, sizes[k]);
		CHECK_MPI(MPI_Recv(in, (int)sizes[k], MPI_BYTE, peer, 1,
				   MPI_COMM_WORLD, &st));
		MPI_Get_count(&st, MPI_BYTE, &n);
		CHECK_EQ((size_t)n, sizes[k], "large count");
		CHECK_EQ(bad_byte(in, sizes[k], peer, (int)k), -1L,
			 "first bad byte of a large message");
	}
	free(out);
	free(in);
}

#define WINDOW		48

/*
 * Pairs: OSU's osu_bibw, both ways at once: a window of receives posted,
 * as many sends (past a ring's room the later ones spill at once after
 * one wait, or from 32 KiB go by one copy; from 64 KiB all do), then one
 * MPI_Waitall; twice, the data checked.
 */
static void window_both_ways(size_t bytes)
{
	int peer = mtest_rank ^ 1, i, round, n;
	MPI_Request rq[2 * WINDOW];
	MPI_Status st[2 * WINDOW];
	unsigned char *out, *in;

	if (peer >= mtest_size)
		return;
	out = malloc(WINDOW * bytes);
	in = malloc(WINDOW * bytes);
	for (round = 0; round < 2; round++) {
		for (i = 0; i < WINDOW; i++) {
			fill(out + i * bytes, bytes, mtest_rank,
			     round * WINDOW + i);
			CHECK_MPI(MPI_Irecv(in + i * bytes, (int)bytes, MPI_BYTE,
					    peer, 2, MPI_COMM_WORLD, &rq[i]));
		}
		for (i = 0; i < WINDOW; i++)
			CHECK_MPI(MPI_Isend(out + i * bytes, (int)bytes, MPI_BYTE,
					    peer, 2, MPI_COMM_WORLD,
					    &rq[WINDOW + i]));
		CHECK_MPI(MPI_Waitall(2 * WINDOW, rq, st));
		for (i = 0; i < WINDOW; i++) {
			MPI_Get_count(&st[i], MPI_BYTE, &n);
			CHECK_EQ(n, (int)bytes, "window message's count");
			CHECK_EQ(bad_byte(in + i * bytes, bytes, peer,
					  round * WINDOW + i), -1L,
				 "first bad byte of a window message");
		}
	}
	free(out);
	free(in);
}

static void test_window_both_ways(void)
{
	mtest_section("a window both ways past the ring's room");
	window_both_ways(16384);	/* past the room of 8 ranks' rings */
	window_both_ways(49152);	/* of 2 ranks' */
	window_both_ways(65536);
}

#define RDV		6
#define RDV_BYTES	((1 << 20) + 4096)

/*
 * MPI_Cancel of a large MPI_Isend: withdrawn before its receiver took it
 * (then the receiver never sees it) or not (then it gets it whole), and
 * MPI_Wait returns either way.
 */
static void onecopy_cancel(int peer, unsigned char *out, unsigned char *in)
{
	MPI_Request rq;
	MPI_Status st;
	int flag = -1, found = 1;

	if (!(mtest_rank & 1)) {
		fill(out, RDV_BYTES, mtest_rank, 60);
		CHECK_MPI(MPI_Isend(out, RDV_BYTES, MPI_BYTE, peer, 6,
				    MPI_COMM_WORLD, &rq));
		CHECK_MPI(MPI_Cancel(&rq));
		CHECK_MPI(MPI_Wait(&rq, &st));
		CHECK_MPI(MPI_Test_cancelled(&st, &flag));
		CHECK_MPI(MPI_Send(&flag, 1, MPI_INT, peer, 7, MPI_COMM_WORLD));
		return;
	}
	CHECK_MPI(MPI_Recv(&flag, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &st));
	if (flag) {
		CHECK_MPI(MPI_Iprobe(peer, 6, MPI_COMM_WORLD, &found, &st));
		CHECK_EQ(found, 0, "a cancelled one-copy send is not there");
		return;
	}
	memset(in, 0, RDV_BYTES);
	CHECK_MPI(MPI_Recv(in, RDV_BYTES, MPI_BYTE, peer, 6, MPI_COMM_WORLD,
			   &st));
	CHECK_EQ(bad_byte(in, RDV_BYTES, peer, 60), -1L,
		 "first bad byte of a one-copy send cancelled too late");
}

/*
 * Large MPI_Isends, which go by one copy (shmq_offer.c) and complete only
 * once the receiver has the data: a window both ways (osu_bibw at 1 MiB),
 * one met by a look for a later small message (taken to the unexpected
 * ones), and one whose request was freed.
 */
static void test_onecopy_isend(void)
{
	size_t bytes = (size_t)RDV * RDV_BYTES;
	unsigned char *out = malloc(bytes), *in = malloc(bytes), small[8];
	int peer = mtest_rank ^ 1, i, n;
	MPI_Request rq[2 * RDV];
	MPI_Status st[2 * RDV];

	mtest_section("large MPI_Isend by one copy");
	if (peer >= mtest_size)
		goto out;
	for (i = 0; i < RDV; i++) {
		fill(out + (size_t)i * RDV_BYTES, RDV_BYTES, mtest_rank, 40 + i);
		CHECK_MPI(MPI_Irecv(in + (size_t)i * RDV_BYTES, RDV_BYTES,
				    MPI_BYTE, peer, 3, MPI_COMM_WORLD, &rq[i]));
	}
	for (i = 0; i < RDV; i++)
		CHECK_MPI(MPI_Isend(out + (size_t)i * RDV_BYTES, RDV_BYTES,
				    MPI_BYTE, peer, 3, MPI_COMM_WORLD,
				    &rq[RDV + i]));
	CHECK_MPI(MPI_Waitall(2 * RDV, rq, st));
	for (i = 0; i < RDV; i++) {
		MPI_Get_count(&st[i], MPI_BYTE, &n);
		CHECK_EQ(n, RDV_BYTES, "one-copy message's count");
		CHECK_EQ(bad_byte(in + (size_t)i * RDV_BYTES, RDV_BYTES, peer,
				  40 + i), -1L, "first bad byte, one copy");
	}
	if (mtest_rank & 1) {
		CHECK_MPI(MPI_Recv(small, 8, MPI_BYTE, peer, 5, MPI_COMM_WORLD,
				   &st[0]));
		CHECK_EQ(bad_byte(small, 8, peer, 51), -1L, "small after one copy");
		memset(in, 0, 2 * RDV_BYTES);
		for (i = 0; i < 2; i++)
			CHECK_MPI(MPI_Recv(in + (size_t)i * RDV_BYTES, RDV_BYTES,
					   MPI_BYTE, peer, 4, MPI_COMM_WORLD,
					   &st[i]));
		for (i = 0; i < 2; i++)
			CHECK_EQ(bad_byte(in + (size_t)i * RDV_BYTES, RDV_BYTES,
					  peer, 50 + 2 * i), -1L,
				 "first bad byte, unexpected one copy");
	} else {
		fill(out, RDV_BYTES, mtest_rank, 50);
		CHECK_MPI(MPI_Isend(out, RDV_BYTES, MPI_BYTE, peer, 4,
				    MPI_COMM_WORLD, &rq[0]));
		fill(small, 8, mtest_rank, 51);
		CHECK_MPI(MPI_Send(small, 8, MPI_BYTE, peer, 5, MPI_COMM_WORLD));
		CHECK_MPI(MPI_Wait(&rq[0], &st[0]));
		fill(out + RDV_BYTES, RDV_BYTES, mtest_rank, 52);
		CHECK_MPI(MPI_Isend(out + RDV_BYTES, RDV_BYTES, MPI_BYTE, peer,
				    4, MPI_COMM_WORLD, &rq[1]));
		CHECK_MPI(MPI_Request_free(&rq[1]));
	}
	onecopy_cancel(peer, out, in);
out:
	/* the freed send's buffer is ours again once the peer has it */
	MPI_Barrier(MPI_COMM_WORLD);
	free(out);
	free(in);
}

/* Control variable @name (an int), or -1. */
static int cvar_int(const char *name)
{
	MPI_T_cvar_handle h;
	int idx, count, v = -1, provided;

	if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
		return -1;
	if (MPI_T_cvar_get_index(name, &idx) == MPI_SUCCESS &&
	    MPI_T_cvar_handle_alloc(idx, NULL, &h, &count) == MPI_SUCCESS) {
		if (count != 1 || MPI_T_cvar_read(h, &v) != MPI_SUCCESS)
			v = -1;
		MPI_T_cvar_handle_free(&h);
	}
	MPI_T_finalize();
	return v;
}

#define PIN_ROUNDS	100	/* more than MPIRMA_MAX_OFFERS */
#define PIN_BYTES	(256 * 1024 + 4096)

/*
 * PIN_ROUNDS sends from the even rank of a pair to the odd one, and with
 * @bad_take one more into read-only memory.
 */
static void onecopy_rounds(MPI_Comm c, int peer, unsigned char *out,
			   unsigned char *in, bool bad_take)
{
	MPI_Request rq;
	void *bad;
	int i, ret;

	for (i = 0; i < PIN_ROUNDS; i++) {
		if (mtest_rank & 1) {
			CHECK_MPI(MPI_Recv(in, PIN_BYTES, MPI_BYTE, peer, 8, c,
					   MPI_STATUS_IGNORE));
			continue;
		}
		fill(out, PIN_BYTES, mtest_rank, i & 127);
		CHECK_MPI(MPI_Isend(out, PIN_BYTES, MPI_BYTE, peer, 8, c, &rq));
		CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
	}
	if (!bad_take)
		return;
	if (!(mtest_rank & 1)) {
		CHECK_MPI(MPI_Isend(out, PIN_BYTES, MPI_BYTE, peer, 9, c, &rq));
		CHECK_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
		return;
	}
	bad = mmap(NULL, PIN_BYTES, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
		   -1, 0);
	CHECK(bad != MAP_FAILED, "mmap");
	if (bad == MAP_FAILED)
		return;
	ret = MPI_Recv(bad, PIN_BYTES, MPI_BYTE, peer, 9, c,
		       MPI_STATUS_IGNORE);
	CHECK(ret != MPI_SUCCESS, "a receive into read-only memory fails");
	munmap(bad, PIN_BYTES);
}

/*
 * One-copy MPI_Isends end their offers: the take ends one, and the
 * sender withdraws one whose take failed (a receive into memory nobody
 * may write, which fails at the call), so nothing stays pinned.  The bad
 * receive runs only where the send goes by one copy for sure (copied in
 * user space, it would fault).
 */
static void test_onecopy_pins(void)
{
	unsigned char *out = malloc(PIN_BYTES), *in = malloc(PIN_BYTES);
	int peer = mtest_rank ^ 1, onecopy, waits;
	long before, after;
	MPI_Comm c;

	mtest_section("one-copy sends leave nothing pinned");
	CHECK(out && in, "malloc");
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c));
	CHECK_MPI(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
	onecopy = cvar_int("MPIRMA_ONECOPY");
	/* a sender that may wait for the take at all (shmq_offer.c) */
	waits = cvar_int("MPIRMA_SPIN_US") + cvar_int("MPIRMA_YIELD_US");
	before = mt_vmpin_kb();
	if (peer < mtest_size && out && in)
		onecopy_rounds(c, peer, out, in, onecopy > 0 &&
			       onecopy <= PIN_BYTES && waits > 0);
	CHECK_MPI(MPI_Barrier(c));
	after = mt_vmpin_kb();
	CHECK_EQ(after, before, "VmPin (kB) after one-copy sends");
	CHECK_MPI(MPI_Comm_free(&c));
	free(out);
	free(in);
}

/* A large message taken after a later small one, then probed ones. */
static void test_large_unexpected(void)
{
	size_t big = 700000;
	unsigned char *b = malloc(big), small[8];
	MPI_Status st;
	int n;

	mtest_section("large unexpected, probed");
	if (mtest_rank == 0) {
		fill(b, big, 0, 5);
		CHECK_MPI(MPI_Send(b, (int)big, MPI_BYTE, 1, 5, MPI_COMM_WORLD));
		fill(small, sizeof(small), 0, 6);
		CHECK_MPI(MPI_Send(small, 8, MPI_BYTE, 1, 6, MPI_COMM_WORLD));
		fill(b, big, 0, 7);
		CHECK_MPI(MPI_Send(b, (int)big, MPI_BYTE, 1, 7, MPI_COMM_WORLD));
	} else if (mtest_rank == 1) {
		CHECK_MPI(MPI_Recv(small, 8, MPI_BYTE, 0, 6, MPI_COMM_WORLD,
				   &st));
		CHECK_EQ(bad_byte(small, 8, 0, 6), -1L, "small after large");
		memset(b, 0, big);
		CHECK_MPI(MPI_Recv(b, (int)big, MPI_BYTE, 0, 5, MPI_COMM_WORLD,
				   &st));
		CHECK_EQ(bad_byte(b, big, 0, 5), -1L, "unexpected large");
		CHECK_MPI(MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
		MPI_Get_count(&st, MPI_BYTE, &n);
		CHECK(st.MPI_TAG == 7 && n == (int)big, "probe: tag %d, %d bytes",
		      st.MPI_TAG, n);
		memset(b, 0, big);
		CHECK_MPI(MPI_Recv(b, n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, &st));
		CHECK_EQ(bad_byte(b, big, 0, 7), -1L, "probed large");
	}
	free(b);
}

/* A large message cut short, and the stream after it intact. */
static void test_truncate(void)
{
	size_t big = 200000, cut = 100000;
	unsigned char *b = malloc(big);
	MPI_Status st;

	mtest_section("truncate");
	if (mtest_rank == 0) {
		fill(b, big, 0, 8);
		CHECK_MPI(MPI_Send(b, (int)big, MPI_BYTE, 1, 8, MPI_COMM_WORLD));
		fill(b, 1000, 0, 9);
		CHECK_MPI(MPI_Send(b, 1000, MPI_BYTE, 1, 9, MPI_COMM_WORLD));
	} else if (mtest_rank == 1) {
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		CHECK_CLASS(MPI_Recv(b, (int)cut, MPI_BYTE, 0, 8,
				     MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
		CHECK_EQ(bad_byte(b, cut, 0, 8), -1L, "the part that fits");
		CHECK_MPI(MPI_Recv(b, 1000, MPI_BYTE, 0, 9, MPI_COMM_WORLD,
				   &st));
		CHECK_EQ(bad_byte(b, 1000, 0, 9), -1L, "the next message");
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	}
	free(b);
}

/* Everybody sends a large message to rank 0, which takes any source. */
static void test_any_source(void)
{
	size_t big = 150000;
	unsigned char *b = malloc(big);
	MPI_Status st;
	int i;

	mtest_section("large from any source");
	if (mtest_rank) {
		fill(b, big, mtest_rank, 10);
		CHECK_MPI(MPI_Send(b, (int)big, MPI_BYTE, 0, 10,
				   MPI_COMM_WORLD));
	} else {
		for (i = 1; i < mtest_size; i++) {
			CHECK_MPI(MPI_Recv(b, (int)big, MPI_BYTE,
					   MPI_ANY_SOURCE, 10, MPI_COMM_WORLD,
					   &st));
			CHECK_EQ(bad_byte(b, big, st.MPI_SOURCE, 10), -1L,
				 "any-source large");
		}
	}
	free(b);
}

/* Large and small messages in turn, sent while nobody receives. */
static void test_interleave(void)
{
	size_t big = 90000, n;
	unsigned char *b = malloc(big);
	MPI_Status st;
	int i;

	mtest_section("interleaved while full");
	if (mtest_rank == 0) {
		for (i = 0; i < 40; i++) {
			n = i % 2 ? 100 : big;
			fill(b, n, 0, 100 + i);
			CHECK_MPI(MPI_Send(b, (int)n, MPI_BYTE, 1, 11,
					   MPI_COMM_WORLD));
		}
	}
	CHECK_MPI(MPI_Barrier(MPI_COMM_WORLD));
	if (mtest_rank == 1) {
		for (i = 0; i < 40; i++) {
			n = i % 2 ? 100 : big;
			memset(b, 0, n);
			CHECK_MPI(MPI_Recv(b, (int)big, MPI_BYTE, 0, 11,
					   MPI_COMM_WORLD, &st));
			if (bad_byte(b, n, 0, 100 + i) >= 0) {
				CHECK(0, "interleaved message %d", i);
				break;
			}
		}
	}
	free(b);
}

#define THREADS		3
#define THREAD_ROUNDS	24

/* Thread @arg of this rank: its own exchange with the partner rank. */
static void *thread_exchange(void *arg)
{
	int t = (int)(intptr_t)arg, peer = mtest_rank ^ 1, i, n;
	size_t big = 200000, len;
	unsigned char *out = malloc(big), *in = malloc(big);
	MPI_Status st;

	for (i = 0; i < THREAD_ROUNDS; i++) {
		len = i % 2 ? 100 : big;
		fill(out, len, mtest_rank, t * 100 + i);
		if (mtest_rank % 2 == 0)
			CHECK_MPI(MPI_Send(out, (int)len, MPI_BYTE, peer, 50 + t,
					   MPI_COMM_WORLD));
		CHECK_MPI(MPI_Recv(in, (int)big, MPI_BYTE, peer, 50 + t,
				   MPI_COMM_WORLD, &st));
		if (mtest_rank % 2)
			CHECK_MPI(MPI_Send(out, (int)len, MPI_BYTE, peer, 50 + t,
					   MPI_COMM_WORLD));
		MPI_Get_count(&st, MPI_BYTE, &n);
		if ((size_t)n != len || bad_byte(in, len, peer, t * 100 + i) >= 0) {
			CHECK(0, "thread %d round %d: %d bytes", t, i, n);
			break;
		}
	}
	free(out);
	free(in);
	return NULL;
}

static int threads_main(int *argc, char ***argv)
{
	pthread_t th[THREADS];
	int provided = 0, t;

	mtest_init_thread(argc, argv, "msgq threads", MPI_THREAD_MULTIPLE,
			  &provided);
	mtest_section("threads");
	CHECK_EQ(provided, MPI_THREAD_MULTIPLE, "thread level");
	if (mtest_rank + 1 < mtest_size || mtest_rank % 2) {
		for (t = 0; t < THREADS; t++)
			if (pthread_create(&th[t], NULL, thread_exchange,
					   (void *)(intptr_t)t))
				CHECK(0, "pthread_create");
		for (t = 0; t < THREADS; t++)
			pthread_join(th[t], NULL);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	return mtest_finish();
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "threads"))
		return threads_main(&argc, &argv);
	mtest_init(&argc, &argv, "msgq");
	test_flood();
	test_large_both_ways();
	test_window_both_ways();
	test_onecopy_isend();
	test_onecopy_pins();
	if (mtest_size >= 2) {
		test_large_unexpected();
		test_truncate();
		test_interleave();
		msgq_test_lean();
		msgq_test_two_units();
	}
	test_any_source();
	MPI_Barrier(MPI_COMM_WORLD);
	return mtest_finish();
}
