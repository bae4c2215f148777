// SPDX-License-Identifier: GPL-2.0
/*
 * p2p: point-to-point messages and requests, the part RMA programs use.
 *
 * Send/Recv on a ring, tags, MPI_ANY_SOURCE and MPI_ANY_TAG with the
 * status filled in, non-overtaking order of messages with the same
 * envelope, posted receives matched in posting order, Isend/Irecv with
 * Wait, Waitall, Waitany, Waitsome, Test, Testall, Testany, Request_free,
 * MPI_STATUS(ES)_IGNORE, Probe/Iprobe and MPI_Get_count, Sendrecv,
 * Sendrecv_replace, Ssend, zero-length and 1 MiB messages, MPI_PROC_NULL
 * as a peer, synchronous sends that wait for their receive, buffered ones
 * that count against the attached buffer; all of it again with a window
 * open.  Ping-pongs of two ranks while the others wait in a broadcast.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mtest.h"

/*
 * MPICH's mpi.h declares the statuses of MPI_Waitall and MPI_Testall as
 * arrays, and GCC then takes MPI_STATUSES_IGNORE ((MPI_Status *)1) for a
 * pointer to too little memory: the hybrid tests build this file with it.
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

#define N	32

static int right, left;

static void test_ring(void)
{
	int out[N], in[N], i, count;
	MPI_Status st;

	mtest_section("ring");
	for (i = 0; i < N; i++)
		out[i] = mtest_rank * 100 + i;
	if (mtest_rank % 2 == 0) {
		CHECK_MPI(MPI_Send(out, N, MPI_INT, right, 11, MPI_COMM_WORLD));
		CHECK_MPI(MPI_Recv(in, N, MPI_INT, left, 11, MPI_COMM_WORLD, &st));
	} else {
		CHECK_MPI(MPI_Recv(in, N, MPI_INT, left, 11, MPI_COMM_WORLD, &st));
		CHECK_MPI(MPI_Send(out, N, MPI_INT, right, 11, MPI_COMM_WORLD));
	}
	CHECK_EQ(st.MPI_SOURCE, left, "status source");
	CHECK_EQ(st.MPI_TAG, 11, "status tag");
	CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
	CHECK_EQ(count, N, "count");
	for (i = 0; i < N; i++)
		CHECK_EQ(in[i], left * 100 + i, "received");
}

static void test_wildcards(void)
{
	int v, i, seen = 0;
	MPI_Status st;
	MPI_Comm comm;

	mtest_section("wildcards");
	/* a communicator of its own: later sections' messages may already
	 * be on their way, and ANY_TAG would take them
	 */
	MPI_Comm_dup(MPI_COMM_WORLD, &comm);
	/* everybody sends its rank to rank 0, tag = rank */
	v = mtest_rank;
	CHECK_MPI(MPI_Send(&v, 1, MPI_INT, 0, mtest_rank, comm));
	if (mtest_rank == 0) {
		for (i = 0; i < mtest_size; i++) {
			CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE,
					   MPI_ANY_TAG, comm, &st));
			CHECK(st.MPI_SOURCE == v && st.MPI_TAG == v,
			      "value %d from %d tag %d", v, st.MPI_SOURCE,
			      st.MPI_TAG);
			seen |= 1 << v;
		}
		CHECK_EQ(seen, (1 << mtest_size) - 1, "senders seen");
	}
	MPI_Comm_free(&comm);
}

static void test_order(void)
{
	int i, v, a = -1, b = -1;
	MPI_Request r[2];

	mtest_section("order");
	/* same envelope: received in sending order */
	for (i = 0; i < N; i++)
		CHECK_MPI(MPI_Send(&i, 1, MPI_INT, right, 5, MPI_COMM_WORLD));
	for (i = 0; i < N; i++) {
		CHECK_MPI(MPI_Recv(&v, 1, MPI_INT, left, 5, MPI_COMM_WORLD,
				   MPI_STATUS_IGNORE));
		if (!CHECK(v == i, "message %d arrived as number %d", v, i))
			break;
	}
	/* two posted receives that both match: posting order decides */
	CHECK_MPI(MPI_Irecv(&a, 1, MPI_INT, left, MPI_ANY_TAG, MPI_COMM_WORLD,
			    &r[0]));
	CHECK_MPI(MPI_Irecv(&b, 1, MPI_INT, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD,
			    &r[1]));
	v = 1;
	CHECK_MPI(MPI_Send(&v, 1, MPI_INT, right, 6, MPI_COMM_WORLD));
	v = 2;
	CHECK_MPI(MPI_Send(&v, 1, MPI_INT, right, 6, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Waitall(2, r, MPI_STATUSES_IGNORE));
	CHECK(a == 1 && b == 2, "posted receives got %d, %d; want 1, 2", a, b);
	/* a blocking receive behind a posted one does not overtake it */
	CHECK_MPI(MPI_Irecv(&a, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &r[0]));
	v = 3;
	CHECK_MPI(MPI_Send(&v, 1, MPI_INT, right, 7, MPI_COMM_WORLD));
	v = 4;
	CHECK_MPI(MPI_Send(&v, 1, MPI_INT, right, 7, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Recv(&b, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
			   MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
	CHECK(a == 3 && b == 4, "irecv then recv got %d, %d; want 3, 4", a, b);
}

static void test_requests(void)
{
	int out[N], in[N], i, idx, flag, outcount, indices[N], done = 0;
	MPI_Request sreq[N], rreq[N];
	MPI_Status sts[N], st;

	mtest_section("requests");
	for (i = 0; i < N; i++) {
		out[i] = mtest_rank * 1000 + i;
		in[i] = -1;
		CHECK_MPI(MPI_Irecv(&in[i], 1, MPI_INT, left, 100 + i,
				    MPI_COMM_WORLD, &rreq[i]));
	}
	/* sent backwards: tags, not order, pair them */
	for (i = N - 1; i >= 0; i--)
		CHECK_MPI(MPI_Isend(&out[i], 1, MPI_INT, right, 100 + i,
				    MPI_COMM_WORLD, &sreq[i]));
	CHECK_MPI(MPI_Waitall(N, sreq, sts));
	for (i = 0; i < N; i++)
		CHECK_EQ(sreq[i], MPI_REQUEST_NULL, "completed send request");

	/* the first quarter with Waitany, then Testany, Waitsome, Testall */
	for (i = 0; i < N / 4; i++) {
		CHECK_MPI(MPI_Waitany(N, rreq, &idx, &st));
		CHECK(idx >= 0 && idx < N && st.MPI_TAG == 100 + idx,
		      "waitany index %d tag %d", idx, st.MPI_TAG);
		done++;
	}
	do {
		CHECK_MPI(MPI_Testany(N, rreq, &idx, &flag, &st));
	} while (!flag);
	if (idx != MPI_UNDEFINED)
		done++;
	do {
		CHECK_MPI(MPI_Waitsome(N, rreq, &outcount, indices, sts));
		if (outcount == MPI_UNDEFINED)
			break;
		done += outcount;
	} while (done < N / 2);
	do {
		CHECK_MPI(MPI_Testall(N, rreq, &flag, MPI_STATUSES_IGNORE));
	} while (!flag);
	for (i = 0; i < N; i++) {
		CHECK_EQ(rreq[i], MPI_REQUEST_NULL, "completed receive request");
		CHECK_EQ(in[i], left * 1000 + i, "received by request");
	}
	/* a null request completes at once */
	CHECK_MPI(MPI_Test(&rreq[0], &flag, &st));
	CHECK_EQ(flag, 1, "test of MPI_REQUEST_NULL");
	CHECK_MPI(MPI_Waitany(N, rreq, &idx, &st));
	CHECK_EQ(idx, MPI_UNDEFINED, "waitany over null requests");

	/* Request_free on a send: the message still arrives */
	CHECK_MPI(MPI_Isend(&out[0], 1, MPI_INT, right, 99, MPI_COMM_WORLD,
			    &sreq[0]));
	CHECK_MPI(MPI_Request_free(&sreq[0]));
	CHECK_EQ(sreq[0], MPI_REQUEST_NULL, "freed request");
	CHECK_MPI(MPI_Recv(&in[0], 1, MPI_INT, left, 99, MPI_COMM_WORLD, &st));
	CHECK_EQ(in[0], left * 1000, "message of a freed request");
	/* Test on a pending receive until it completes */
	CHECK_MPI(MPI_Irecv(&in[1], 1, MPI_INT, left, 98, MPI_COMM_WORLD,
			    &rreq[0]));
	CHECK_MPI(MPI_Test(&rreq[0], &flag, &st));
	CHECK_MPI(MPI_Send(&out[1], 1, MPI_INT, right, 98, MPI_COMM_WORLD));
	while (!flag)
		CHECK_MPI(MPI_Test(&rreq[0], &flag, &st));
	CHECK_EQ(in[1], left * 1000 + 1, "received through MPI_Test");
}

static void test_probe(void)
{
	int *buf, count = -1, flag = 0, n = 7 + mtest_rank;
	MPI_Status st;

	mtest_section("probe");
	buf = calloc(64, sizeof(int));
	CHECK_MPI(MPI_Send(buf, n, MPI_INT, right, 44, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Probe(MPI_ANY_SOURCE, 44, MPI_COMM_WORLD, &st));
	CHECK_EQ(st.MPI_SOURCE, left, "probed source");
	CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
	CHECK_EQ(count, 7 + left, "probed count");
	/* probing does not consume */
	while (!flag)
		CHECK_MPI(MPI_Iprobe(left, 44, MPI_COMM_WORLD, &flag, &st));
	CHECK_MPI(MPI_Recv(buf, count, MPI_INT, left, 44, MPI_COMM_WORLD, &st));
	CHECK_MPI(MPI_Iprobe(left, 44, MPI_COMM_WORLD, &flag, &st));
	CHECK_EQ(flag, 0, "iprobe after the receive");
	free(buf);
}

static void test_misc(void)
{
	int v = mtest_rank, got = -1, count = -1;
	char *big = malloc(1 << 20), *bigin = malloc(1 << 20);
	MPI_Status st;
	int i, bad = 0;

	mtest_section("sendrecv");
	CHECK_MPI(MPI_Sendrecv(&v, 1, MPI_INT, right, 1, &got, 1, MPI_INT, left,
			       1, MPI_COMM_WORLD, &st));
	CHECK_EQ(got, left, "sendrecv");
	CHECK_MPI(MPI_Sendrecv_replace(&v, 1, MPI_INT, right, 2, left, 2,
				       MPI_COMM_WORLD, &st));
	CHECK_EQ(v, left, "sendrecv_replace");

	mtest_section("ssend");
	v = 17;
	if (mtest_size == 1) {
		MPI_Request r;

		CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, 0, 3, MPI_COMM_WORLD, &r));
		CHECK_MPI(MPI_Ssend(&v, 1, MPI_INT, 0, 3, MPI_COMM_WORLD));
		CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
	} else if (mtest_rank % 2 == 0) {
		if (mtest_rank + 1 < mtest_size)
			CHECK_MPI(MPI_Ssend(&v, 1, MPI_INT, mtest_rank + 1, 3,
					    MPI_COMM_WORLD));
	} else {
		CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, mtest_rank - 1, 3,
				   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		CHECK_EQ(got, 17, "ssend");
	}

	mtest_section("sizes");
	CHECK_MPI(MPI_Sendrecv(NULL, 0, MPI_INT, right, 8, NULL, 0, MPI_INT,
			       left, 8, MPI_COMM_WORLD, &st));
	CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
	CHECK_EQ(count, 0, "zero-length count");
	for (i = 0; i < 1 << 20; i++)
		big[i] = (char)(i * 31 + mtest_rank);
	CHECK_MPI(MPI_Sendrecv(big, 1 << 20, MPI_BYTE, right, 9, bigin, 1 << 20,
			       MPI_BYTE, left, 9, MPI_COMM_WORLD, &st));
	for (i = 0; i < 1 << 20; i++)
		bad += bigin[i] != (char)(i * 31 + left);
	CHECK_EQ(bad, 0, "bytes wrong in 1 MiB");

	mtest_section("MPI_PROC_NULL");
	got = 55;
	CHECK_MPI(MPI_Send(&v, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD,
			   &st));
	CHECK_EQ(got, 55, "buffer after a receive from MPI_PROC_NULL");
	CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL, "status source");
	CHECK_EQ(st.MPI_TAG, MPI_ANY_TAG, "status tag");
	CHECK_MPI(MPI_Get_count(&st, MPI_INT, &count));
	CHECK_EQ(count, 0, "status count");
#ifdef MPIRMA
	{	/* no data: MPI_DATATYPE_NULL is taken, as MPICH takes it */
		MPI_Request nr;

		CHECK_MPI(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL,
				    4, MPI_COMM_WORLD, &nr));
		CHECK_MPI(MPI_Wait(&nr, &st));
		CHECK_EQ(st.MPI_SOURCE, MPI_PROC_NULL,
			 "MPI_DATATYPE_NULL receive");
		CHECK_MPI(MPI_Send(NULL, 0, MPI_DATATYPE_NULL, right, 4,
				   MPI_COMM_WORLD));
		CHECK_MPI(MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, left, 4,
				   MPI_COMM_WORLD, &st));
		CHECK_EQ(st.MPI_SOURCE, left, "MPI_DATATYPE_NULL message");
	}
#endif
	free(big);
	free(bigin);
}

static const int large_sizes[] = { 16384, 16392, 65536, 1 << 20 };

/* Rank pairs send each of large_sizes on @comm, checked with its status. */
static void large_round(MPI_Comm comm, char *buf, int peer, int n)
{
	int i, k, bad, count;
	MPI_Status st;

	for (k = 0; k < n; k++) {
		if (mtest_rank % 2 == 0) {
			for (i = 0; i < large_sizes[k]; i++)
				buf[i] = (char)(i * 7 + k);
			CHECK_MPI(MPI_Send(buf, large_sizes[k], MPI_BYTE, peer,
					   20 + k, comm));
			continue;
		}
		memset(buf, 0, (size_t)large_sizes[k]);
		CHECK_MPI(MPI_Recv(buf, 1 << 20, MPI_BYTE, MPI_ANY_SOURCE,
				   MPI_ANY_TAG, comm, &st));
		CHECK_EQ(st.MPI_SOURCE, peer, "large: status source");
		CHECK_EQ(st.MPI_TAG, 20 + k, "large: status tag");
		CHECK_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
		CHECK_EQ(count, large_sizes[k], "large: count");
		for (i = 0, bad = 0; i < large_sizes[k]; i++)
			bad += buf[i] != (char)(i * 7 + k);
		CHECK_EQ(bad, 0, "large: bytes wrong");
	}
}

static int handler_calls, handler_class;
static MPI_Comm handler_comm = MPI_COMM_NULL;

static void truncate_handler(MPI_Comm *comm, int *code, ...)
{
	handler_calls++;
	handler_comm = *comm;
	MPI_Error_class(*code, &handler_class);
}

/*
 * Truncating receives on @comm of @bytes sent (into half as many), by
 * MPI_Recv and MPI_Sendrecv, returned and through the program's handler,
 * each with nothing left behind; @comm's handler is fatal again after.
 * Under the layer such a receive may be posted at once whatever its
 * handler (on the world, under Open MPI on any communicator, under MPICH
 * where the world returns errors: hybrid/waits.c): the test that finds the
 * truncation must report it as MPI_Recv would, not as MPI_ERR_IN_STATUS
 * nor on another communicator's handler.
 */
static void truncate_on(MPI_Comm comm, char *buf, int peer, int bytes)
{
	MPI_Errhandler eh;
	int eclass;
	MPI_Status st;

	CHECK_MPI(MPI_Comm_create_errhandler(truncate_handler, &eh));
	for (int round = 0; round < 2; round++) {
		MPI_Comm_set_errhandler(comm, round ? eh : MPI_ERRORS_RETURN);
		handler_calls = 0;
		if (mtest_rank % 2 == 0) {
			CHECK_MPI(MPI_Send(buf, bytes, MPI_BYTE, peer, 32,
					   comm));
			CHECK_MPI(MPI_Send(buf, 4, MPI_BYTE, peer, 33, comm));
		} else {
			MPI_Error_class(MPI_Recv(buf, bytes / 2, MPI_BYTE, peer,
						 32, comm, MPI_STATUS_IGNORE),
					&eclass);
			CHECK_EQ(eclass, MPI_ERR_TRUNCATE,
				 "truncated: the error");
			CHECK_MPI(MPI_Recv(buf, 4, MPI_BYTE, peer, 33, comm,
					   &st));
			CHECK_EQ(st.MPI_TAG, 33, "truncated: the message after");
		}
		/* both halves at once, the receive's truncated */
		MPI_Error_class(MPI_Sendrecv(buf, bytes, MPI_BYTE, peer, 34,
					     buf + (1 << 19), bytes / 2,
					     MPI_BYTE, peer, 34, comm,
					     MPI_STATUS_IGNORE), &eclass);
		CHECK_EQ(eclass, MPI_ERR_TRUNCATE, "truncated: MPI_Sendrecv");
		CHECK_EQ(handler_calls, round * (1 + mtest_rank % 2),
			 "truncated: the handler's calls");
		if (round) {
			CHECK_EQ(handler_class, MPI_ERR_TRUNCATE,
				 "truncated: the handler's error");
			CHECK(handler_comm == comm,
			      "truncated: the handler's communicator");
		}
	}
	MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
	CHECK_MPI(MPI_Errhandler_free(&eh));
}

/*
 * Messages that go in pieces through MPI_Send and MPI_Recv (under the
 * layer with yielding waits, hybrid/waits.c: a receive posted at once
 * but under MPICH on a communicator whose errors return while the world's
 * end the job, there one after a probe; waits that yield), wildcards and
 * status, and truncating receives that return MPI_ERR_TRUNCATE with
 * nothing left behind.
 */
static void test_large(void)
{
	int peer = mtest_rank ^ 1, eclass;
	int n = peer < mtest_size ?
		(int)(sizeof(large_sizes) / sizeof(large_sizes[0])) : 0;
	char *buf = malloc(1 << 20);
	MPI_Status st;
	MPI_Comm comm;

	mtest_section("large Send and Recv");
	CHECK_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
	large_round(comm, buf, peer, n);	/* the fatal handler it took */
	CHECK_MPI(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
	large_round(comm, buf, peer, n);

	if (n && mtest_rank % 2 == 0) {
		CHECK_MPI(MPI_Send(buf, 65536, MPI_BYTE, peer, 30, comm));
		CHECK_MPI(MPI_Send(buf, 4, MPI_BYTE, peer, 31, comm));
	} else if (n) {
		MPI_Error_class(MPI_Recv(buf, 32768, MPI_BYTE, peer, 30, comm,
					 MPI_STATUS_IGNORE), &eclass);
		CHECK_EQ(eclass, MPI_ERR_TRUNCATE, "large: truncated receive");
		CHECK_MPI(MPI_Recv(buf, 4, MPI_BYTE, peer, 31, comm, &st));
		CHECK_EQ(st.MPI_TAG, 31, "large: the message after");
	}
	for (int k = 0; n && k < 2; k++) {
		truncate_on(MPI_COMM_WORLD, buf, peer, k ? 65536 : 64);
		truncate_on(comm, buf, peer, k ? 65536 : 64);
		/* the world returning errors too, as mpi4py sets it */
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
		truncate_on(comm, buf, peer, k ? 65536 : 64);
		MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
	}
	CHECK_MPI(MPI_Comm_free(&comm));
	free(buf);
}

/*
 * Synchronous sends complete only once their receive has started: not
 * before it (without the shared-memory queues mpirma buffers them, and
 * says so), in a ring whose receives are posted first, and in the sparse
 * exchange that relies on it (a barrier entered once every MPI_Issend
 * completed ends the probing: a message not yet received then is lost).
 */
static void test_sync(void)
{
	const char *shmq = getenv("MPIRMA_SHMQ");
	int v = mtest_rank, got = -1, flag = 0, i, k, recvd = 0, done = 0;
	int vals[2], nsend = mtest_size < 3 ? 1 : 2;
	MPI_Request r = MPI_REQUEST_NULL, sreq[2], breq = MPI_REQUEST_NULL;
	MPI_Status st;

	mtest_section("synchronous");
	if (mtest_size < 2)
		return;
	if (mtest_rank == 0) {
		CHECK_MPI(MPI_Issend(&v, 1, MPI_INT, 1, 40, MPI_COMM_WORLD, &r));
		for (i = 0; i < 200 && !flag; i++)
			CHECK_MPI(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
		if (!shmq || strcmp(shmq, "0"))
			CHECK(!flag, "MPI_Issend complete before its receive");
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (mtest_rank == 1) {
		CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, 0, 40, MPI_COMM_WORLD,
				   MPI_STATUS_IGNORE));
		CHECK_EQ(got, 0, "synchronous message");
	}
	CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));

	CHECK_MPI(MPI_Irecv(&got, 1, MPI_INT, left, 41, MPI_COMM_WORLD, &r));
	CHECK_MPI(MPI_Ssend(&v, 1, MPI_INT, right, 41, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
	CHECK_EQ(got, left, "ring of synchronous sends");

	for (k = 0; k < nsend; k++) {
		vals[k] = mtest_rank * 10 + k;
		CHECK_MPI(MPI_Issend(&vals[k], 1, MPI_INT,
				     (mtest_rank + 1 + k) % mtest_size, 42,
				     MPI_COMM_WORLD, &sreq[k]));
	}
	while (!done) {
		CHECK_MPI(MPI_Iprobe(MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, &flag,
				     &st));
		if (flag) {
			CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, st.MPI_SOURCE, 42,
					   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
			CHECK_EQ(got / 10, st.MPI_SOURCE, "exchanged value");
			recvd++;
		}
		if (breq == MPI_REQUEST_NULL) {
			CHECK_MPI(MPI_Testall(nsend, sreq, &flag,
					      MPI_STATUSES_IGNORE));
			if (flag)
				CHECK_MPI(MPI_Ibarrier(MPI_COMM_WORLD, &breq));
		} else {
			CHECK_MPI(MPI_Test(&breq, &done, MPI_STATUS_IGNORE));
		}
	}
	if (!shmq || strcmp(shmq, "0"))
		CHECK_EQ(recvd, nsend, "messages of the sparse exchange");
	while (recvd < nsend) {		/* buffered: they are still there */
		CHECK_MPI(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 42,
				   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
		recvd++;
	}
}

#ifdef MPIRMA
/*
 * Buffered sends count against the attached buffer until received: a
 * message that does not fit fails with MPI_ERR_BUFFER and sends nothing.
 */
static void test_bsend(void)
{
	const char *shmq = getenv("MPIRMA_SHMQ");
	int v[4] = { 1, 2, 3, 4 }, got[4], size, i;
	char bbuf[2 * sizeof(int) + MPI_BSEND_OVERHEAD], *detached;
	MPI_Request r;

	mtest_section("buffered");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	CHECK_CLASS(MPI_Bsend(v, 1, MPI_INT, right, 43, MPI_COMM_WORLD),
		    MPI_ERR_BUFFER);
	CHECK_MPI(MPI_Buffer_attach(bbuf, sizeof(bbuf)));
	CHECK_CLASS(MPI_Bsend(v, 4, MPI_INT, right, 43, MPI_COMM_WORLD),
		    MPI_ERR_BUFFER);
	CHECK_MPI(MPI_Bsend(&v[0], 1, MPI_INT, mtest_rank, 43, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Ibsend(&v[1], 1, MPI_INT, mtest_rank, 43, MPI_COMM_WORLD,
			     &r));
	CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
	if (!shmq || strcmp(shmq, "0"))
		CHECK_CLASS(MPI_Bsend(&v[2], 1, MPI_INT, mtest_rank, 44,
				      MPI_COMM_WORLD), MPI_ERR_BUFFER);
	for (i = 0; i < 2; i++)
		CHECK_MPI(MPI_Recv(&got[i], 1, MPI_INT, mtest_rank, 43,
				   MPI_COMM_WORLD, MPI_STATUS_IGNORE));
	CHECK(got[0] == 1 && got[1] == 2, "buffered messages");
	CHECK_MPI(MPI_Buffer_iflush(&r));
	CHECK_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
	CHECK_MPI(MPI_Bsend(&v[2], 2, MPI_INT, right, 45, MPI_COMM_WORLD));
	CHECK_MPI(MPI_Recv(got, 2, MPI_INT, left, 45, MPI_COMM_WORLD,
			   MPI_STATUS_IGNORE));
	CHECK(got[0] == 3 && got[1] == 4, "buffered message to a neighbour");
	CHECK_MPI(MPI_Buffer_detach(&detached, &size));
	CHECK(detached == bbuf && size == (int)sizeof(bbuf), "detached");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}
#endif

static void test_all(void)
{
	test_ring();
	test_wildcards();
	test_order();
	test_requests();
	test_probe();
	test_misc();
	test_large();
	test_sync();
#ifdef MPIRMA
	test_bsend();
#endif
}

/*
 * Ping-pongs of ranks 0 and 1 while the others wait in a broadcast: under
 * the layer with MPICH and more ranks than CPUs those nap, and the two
 * then use MPICH's own blocking calls (hybrid/idle.c).  Messages of 8
 * bytes and of 64 KiB (in pieces) arrive whole and in order while the
 * others go to sleep.
 */
static void test_beside_idle(void)
{
	enum { SMALL = 3000, BIG = 65536, BIG_ROUNDS = 40 };
	int peer = mtest_rank ^ 1, go = 1, bad = 0, i, k;
	unsigned char *buf = malloc(BIG);
	long v;

	mtest_section("ping-pong beside ranks idle in a broadcast");
	CHECK(buf, "out of memory");
	if (buf && mtest_rank < 2 && peer < mtest_size) {
		/* rank 0 sends i, rank 1 answers i + 1 */
		for (i = 0; i < SMALL; i++) {
			v = i;
			if (mtest_rank == 1) {
				MPI_Recv(&v, 1, MPI_LONG, 0, 7, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				bad += v != i;
				v = i + 1;
			}
			MPI_Send(&v, 1, MPI_LONG, peer, 7, MPI_COMM_WORLD);
			if (mtest_rank == 0) {
				MPI_Recv(&v, 1, MPI_LONG, 1, 7, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
				bad += v != i + 1;
			}
		}
		for (i = 0; i < BIG_ROUNDS; i++) {
			if (mtest_rank == 0)
				for (k = 0; k < BIG; k++)
					buf[k] = (unsigned char)(k * 31 + i);
			else
				MPI_Recv(buf, BIG, MPI_BYTE, 0, 8,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, BIG, MPI_BYTE, peer, 8, MPI_COMM_WORLD);
			if (mtest_rank == 0) {
				memset(buf, 0, BIG);
				MPI_Recv(buf, BIG, MPI_BYTE, 1, 8,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			}
			for (k = 0; k < BIG; k++)
				bad += buf[k] != (unsigned char)(k * 31 + i);
		}
	}
	CHECK(!bad, "%d values wrong in the ping-pongs", bad);
	CHECK_MPI(MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD));
	CHECK_EQ(go, 1, "the broadcast's value");
	free(buf);
}

int main(int argc, char **argv)
{
	MPI_Win win;
	int *base;

	mtest_init(&argc, &argv, "p2p");
	right = (mtest_rank + 1) % mtest_size;
	left = (mtest_rank + mtest_size - 1) % mtest_size;
	test_all();
	test_beside_idle();
	/*
	 * Again with a window open: under the layer at two logical nodes it
	 * spans nodes, and every MPI_Recv then serves the agent as it waits
	 * (hybrid/waits.c); without one it is the host's own call.
	 */
	CHECK_MPI(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL,
				   MPI_COMM_WORLD, &base, &win));
	test_all();
	CHECK_MPI(MPI_Win_free(&win));
	MPI_Barrier(MPI_COMM_WORLD);
	return mtest_finish();
}
